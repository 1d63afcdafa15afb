/* test_compact_leaf.c — compact leaves (format.h, type 6): keys sharing a
 * prefix take fewer pages than whole keys would (the density of a list's
 * leaves: test_uniform_leaf, which counts uniform leaves too); inserts outside a leaf's
 * prefix (shorter keys, keys before or after it) rebuild it and read back in
 * order; cursor keys, assembled from prefix and suffix, are right and stay
 * valid until the next call on the cursor (next_batch's whole batch, in
 * read and write txns); inserts that split or re-prefix leaves, in random
 * and ascending order, for keys of several shapes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* A tree's first leaf starts with no prefix. Filled by appends, it must
 * take its keys' prefix when it fills rather than split: 250 elements fit
 * one leaf with the 10 shared bytes stored once (14-byte cells), while
 * whole keys (24 bytes) would need two. */
static void test_first_leaf_appends(void)
{
    tpath p = test_path("firstleaf.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "realm:lists");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    uint8_t k[12];
    for (uint32_t i = 0; i < 250; i++) {
        uint64_t v = i;
        CHECK_OK(cs_put(t, tr, V(k, test_list_key(k, 9, i)), V(&v, 8), 0));
    }
    cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, tr, &st));
    CHECK_EQ(st.leaf_pages, 1);
    CHECK_EQ(st.entries, 250);
    REQUIRE_OK(cs_txn_commit(t));
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

/* ---- inserts that split or re-prefix compact leaves ---- */

enum { SHAPE_N = 6000 };
typedef struct skey {
    uint16_t len;
    uint8_t b[200];
} skey;
static skey skeys[SHAPE_N];
static bool spresent[SHAPE_N];

static int skey_cmp(const void *a, const void *b)
{
    const skey *x = a, *y = b;
    int c = memcmp(x->b, y->b, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* A value derived from its key and a round: sizes from empty through
 * near a page's largest cell to overflow runs, by shape. */
static size_t shape_value(int shape, const skey *k, unsigned round, uint8_t *buf)
{
    uint64_t h = round;
    for (unsigned i = 0; i < k->len; i++) h = h * 131 + k->b[i];
    size_t n = shape == 3 ? (h % 23 == 0 ? 5000 : 900 + h % 400) : shape == 2 ? h % 3 : 100;
    test_fill(buf, n, h);
    return n;
}

/* skeys[0..n) ascending, each key once: n. */
static unsigned make_shape(int shape, uint64_t *seed)
{
    for (unsigned i = 0; i < SHAPE_N; i++) {
        skey *k = &skeys[i];
        memset(k, 0, sizeof *k);
        if (shape == 0 || shape == 3) { /* db_bench keys: 16 decimal digits */
            k->len = 16;
            for (int j = 15, v = (int)(2 * i); j >= 0; j--, v /= 10) k->b[j] = (uint8_t)('0' + v % 10);
        } else if (shape == 1) {
            /* 190 bytes: four groups that part at byte 5, the rest shared
             * but for a counter at the end. Inside a group the prefix is
             * capped (64), so suffixes are 126 bytes; a leaf that takes a
             * key of another group drops to a 5-byte prefix and 185-byte
             * suffixes, whose length varint grows a byte. */
            k->len = 190;
            memset(k->b, 'p', 190);
            k->b[5] = (uint8_t)('a' + i % 4);
            k->b[186] = (uint8_t)(i >> 16), k->b[187] = (uint8_t)(i >> 8), k->b[188] = (uint8_t)i;
        } else { /* short keys over {a, b}: many are prefixes of others */
            k->len = (uint16_t)(1 + rng_below(seed, 14));
            for (unsigned j = 0; j < k->len; j++) k->b[j] = (uint8_t)('a' + rng_below(seed, 2));
        }
    }
    qsort(skeys, SHAPE_N, sizeof *skeys, skey_cmp);
    unsigned u = 0; /* shape 2 draws duplicates: keep each key once */
    for (unsigned i = 0; i < SHAPE_N; i++)
        if (u == 0 || skey_cmp(&skeys[u - 1], &skeys[i])) skeys[u++] = skeys[i];
    return u;
}

/* Every present key, in order, with its value; cs_get agrees. */
static void verify_shape(cs_env *env, cs_tree tr, int shape, unsigned nkeys, const unsigned *round)
{
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    cs_val k, v;
    static uint8_t want[5000];
    unsigned i = 0, bad = 0;
    int rc = cs_cursor_get(c, &k, &v, CS_FIRST);
    for (; rc == CS_OK; rc = cs_cursor_get(c, &k, &v, CS_NEXT), i++) {
        while (i < nkeys && !spresent[i]) i++;
        if (i == nkeys) break;
        size_t n = shape_value(shape, &skeys[i], round[i], want);
        if (k.size != skeys[i].len || memcmp(k.data, skeys[i].b, k.size) || v.size != n || memcmp(v.data, want, n))
            bad++;
        cs_val g;
        if (cs_get(t, tr, V(skeys[i].b, skeys[i].len), &g) != CS_OK || g.size != n) bad++;
    }
    while (i < nkeys && !spresent[i]) i++;
    CHECK_EQ(bad, 0);
    CHECK_EQ(i, nkeys);
    CHECK_RC(rc, CS_NOTFOUND);
    cs_cursor_close(c);
    cs_txn_abort(t);
}

/* Keys of each shape in random and in ascending order, across commits (so
 * leaves are copied from the file), then deletes (prefixes longer than the
 * leaves keep) and the keys back: contents, lookups and the checker. */
static void test_insert_shapes(void)
{
    static const char *names[] = {"decimal", "long", "short", "big values"};
    static unsigned order[SHAPE_N], round[SHAPE_N];
    for (int shape = 0; shape < 4; shape++) {
        for (int ascending = 0; ascending < 2; ascending++) {
            uint64_t seed = 77 + (uint64_t)shape;
            unsigned nkeys = make_shape(shape, &seed);
            for (unsigned i = 0; i < nkeys; i++) order[i] = i, spresent[i] = false, round[i] = 0;
            for (unsigned i = nkeys; !ascending && i > 1; i--) {
                unsigned j = (unsigned)rng_below(&seed, i), x = order[i - 1];
                order[i - 1] = order[j], order[j] = x;
            }
            char file[64];
            snprintf(file, sizeof file, "shape%d%d.db", shape, ascending);
            tpath p = test_path(file);
            cs_env *env;
            REQUIRE_OK(test_open(p.s, 0, &env));
            cs_tree tr = test_open_tree(env, "t");
            uint8_t val[5000];
            cs_txn *t = NULL;
            for (unsigned i = 0; i < nkeys; i++) { /* commits of 700 */
                if (!t) REQUIRE_OK(cs_txn_begin(env, 0, &t));
                unsigned x = order[i];
                CHECK_OK(cs_put(t, tr, V(skeys[x].b, skeys[x].len), V(val, shape_value(shape, &skeys[x], 0, val)), 0));
                spresent[x] = true;
                if (i % 700 == 699) {
                    REQUIRE_OK(cs_txn_commit(t));
                    t = NULL;
                }
            }
            if (t) REQUIRE_OK(cs_txn_commit(t));
            verify_shape(env, tr, shape, nkeys, round);
            /* Delete the ends of runs (leaves keep prefixes shorter than
             * what is left shares), then put everything back, updated. */
            REQUIRE_OK(cs_txn_begin(env, 0, &t));
            for (unsigned i = 0; i < nkeys; i++)
                if (i % 7 < 3) {
                    CHECK_OK(cs_del(t, tr, V(skeys[i].b, skeys[i].len)));
                    spresent[i] = false;
                }
            REQUIRE_OK(cs_txn_commit(t));
            verify_shape(env, tr, shape, nkeys, round);
            REQUIRE_OK(cs_txn_begin(env, 0, &t));
            for (unsigned i = 0; i < nkeys; i++) {
                unsigned x = order[i];
                round[x] = 1;
                CHECK_OK(cs_put(t, tr, V(skeys[x].b, skeys[x].len), V(val, shape_value(shape, &skeys[x], 1, val)), 0));
                spresent[x] = true;
            }
            REQUIRE_OK(cs_txn_commit(t));
            verify_shape(env, tr, shape, nkeys, round);
            cs_check_report rep;
            CHECK_OK(cs_check(env, &rep));
            CHECK_EQ(rep.entries, nkeys);
            printf("%s keys, %s: %u entries\n", names[shape], ascending ? "ascending" : "random", nkeys);
            REQUIRE_OK(cs_env_close(env));
        }
    }
}

int main(void)
{
    test_first_leaf_appends();
    test_prefix_changes();
    test_insert_shapes();
    return test_report();
}
