/* test_compact_leaf.c — compact leaves (format.h, type 6): keys sharing a
 * prefix take fewer pages than whole keys would; inserts outside a leaf's
 * prefix (shorter keys, keys before or after it) rebuild it and read back in
 * order; cursor keys, assembled from prefix and suffix, are right and stay
 * valid until the next call on the cursor (next_batch's whole batch, in
 * read and write txns). */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static size_t list_key(uint8_t *k, uint64_t id, uint32_t i)
{
    for (int b = 0; b < 8; b++) k[b] = (uint8_t)(id >> (56 - 8 * b));
    k[8] = 3, k[9] = (uint8_t)(i >> 16), k[10] = (uint8_t)(i >> 8), k[11] = (uint8_t)i;
    return 12;
}

/* 10k list elements (12-byte keys, 8-byte values): whole-key cells (6 +
 * 12 + 8 + 2 slot = 28 bytes) need 69 leaves; with the shared 10 bytes
 * stored once, 14-byte cells need 35. */
static void test_density(void)
{
    tpath p = test_path("density.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "realm:lists");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    uint8_t k[12];
    for (uint32_t i = 0; i < 10000; i++) {
        uint64_t v = i;
        CHECK_OK(cs_put(t, tr, V(k, list_key(k, 7, i)), V(&v, 8), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, tr, &st));
    CHECK(st.leaf_pages <= 40);
    printf("10k list elements: %llu leaves\n", (unsigned long long)st.leaf_pages);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    REQUIRE_OK(cs_env_close(env));
}

static int cmp_keys(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t xl = strlen(x), yl = strlen(y), n = xl < yl ? xl : yl;
    int c = memcmp(x, y, n);
    return c ? c : (xl > yl) - (xl < yl);
}

/* Keys that share long prefixes, then keys outside them, in an order that
 * makes leaves shrink their prefix: every key reads back, in order. */
static void test_prefix_changes(void)
{
    tpath p = test_path("prefix.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    enum { N = 3000 };
    static char keys[N + 8][64];
    const char *ptrs[N + 8];
    size_t n = 0;
    for (int i = 0; i < N; i++) snprintf(keys[n++], 64, "shared/prefix/of/some/length/%05d", (i * 7919) % N);
    const char *odd[] = {"s", "shared", "shared/prefix/of/some/length/", "a", "zzz", "shared/prefix/of/some/length/00001x",
                         "shared/prefix/of/some/length/0"};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) snprintf(keys[n++], 64, "%s", odd[i]);
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (size_t i = 0; i < n; i++) CHECK_OK(cs_put(t, tr, VS(keys[i]), VS(keys[i]), 0));
    /* Deletes merge leaves (a rebuild with the union's prefix). */
    for (int i = 0; i < N; i += 3) CHECK_OK(cs_del(t, tr, VS(keys[i])));
    REQUIRE_OK(cs_txn_commit(t));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i >= N || i % 3) ptrs[m++] = keys[i];
    qsort(ptrs, m, sizeof *ptrs, cmp_keys);

    /* Read txn: cs_cursor_get, then batches (whole batch checked after the call). */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    cs_val k, v;
    size_t i = 0, bad = 0;
    for (int rc = cs_cursor_get(c, &k, &v, CS_FIRST); rc == CS_OK; rc = cs_cursor_get(c, &k, &v, CS_NEXT), i++)
        if (i >= m || k.size != strlen(ptrs[i]) || memcmp(k.data, ptrs[i], k.size) || v.size != k.size ||
            memcmp(v.data, ptrs[i], v.size))
            bad++;
    CHECK_EQ(bad, 0);
    CHECK_EQ(i, m);
    cs_cursor_close(c);
    cs_txn_abort(t);

    for (int write = 0; write < 2; write++) {
        REQUIRE_OK(cs_txn_begin(env, write ? 0 : CS_TXN_RDONLY, &t));
        REQUIRE_OK(cs_cursor_open(t, tr, &c));
        cs_val ks[64], vs[64];
        size_t got;
        i = 0, bad = 0;
        while (cs_cursor_next_batch(c, ks, vs, 64, &got) == CS_OK) {
            for (size_t j = 0; j < got; j++, i++)
                if (i >= m || ks[j].size != strlen(ptrs[i]) || memcmp(ks[j].data, ptrs[i], ks[j].size) ||
                    vs[j].size != ks[j].size)
                    bad++;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(i, m);
        cs_cursor_close(c);
        cs_txn_abort(t);
    }
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.entries, m);
    REQUIRE_OK(cs_env_close(env));
}

int main(void)
{
    test_density();
    test_prefix_changes();
    return test_report();
}
