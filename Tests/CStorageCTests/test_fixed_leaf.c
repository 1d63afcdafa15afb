/* test_fixed_leaf.c — fixed-value compact leaves (format.h, COMPACT LEAF,
 * V > 0): a leaf whose values all have one length stores it once and its
 * cells leave out their value words, so a page holds more records of a
 * fixed size; a value of another length, an overflow value or an empty one
 * turns its leaf back into one whose cells store them, and every entry still
 * reads back (cursor, get, count, a filtered count, the checker) through
 * inserts, overwrites, deletes and a reopen. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "leaves.h"

static size_t be_key(uint8_t *k, uint64_t v)
{
    for (int b = 0; b < 8; b++) k[b] = (uint8_t)(v >> (56 - 8 * b));
    return 8;
}

/* Object records of 504 bytes under 8-byte keys in key order (a big
 * class's inserts): a cell is a one-byte suffix and the record, 507 bytes
 * with its slot, where storing the value word makes 509. A 4 KiB leaf has
 * 4,057 bytes under a 7-byte prefix: 8 records instead of 7 (7 still where
 * the keys cross a 256 boundary: a 6-byte prefix and 2-byte suffixes). */
static void test_density(void)
{
    enum { RECORDS = 2000, RECORD = 504 };
    tpath p = test_path("density.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "realm:class:Profile");
    static uint8_t v[RECORD];
    uint8_t k[8];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint32_t i = 0; i < RECORDS; i++) {
        test_fill(v, RECORD, i);
        CHECK_OK(cs_put(t, tr, V(k, be_key(k, 0x0100000000000000ull + i)), V(v, RECORD), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    leaf_shapes lt = test_leaf_shapes(env, tr);
    CHECK_EQ(lt.values.without, 0);
    CHECK_EQ(lt.values.min, RECORD + 1);
    CHECK_EQ(lt.values.max, RECORD + 1);
    /* 2000 / 8 = 250 leaves, and one more for each of the 7 leaves that
     * straddle a 256 boundary; 286 without fixed values. */
    CHECK(lt.values.with <= 258);
    printf("2000 records of %u bytes: %u fixed-value leaves\n", RECORD, lt.values.with);
    /* Every record reads back. */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    unsigned bad = 0;
    for (uint32_t i = 0; i < RECORDS; i++) {
        cs_val g;
        test_fill(v, RECORD, i);
        if (cs_get(t, tr, V(k, be_key(k, 0x0100000000000000ull + i)), &g) != CS_OK || g.size != RECORD ||
            memcmp(g.data, v, RECORD))
            bad++;
    }
    CHECK_EQ(bad, 0);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
}

enum { N = 4000, FIXED = 24, BIG = 6000 };

/* What key i holds: whether it is there, its value's length and a round
 * that seeds its bytes. The first 8 bytes of a value of 8 or more are i,
 * little-endian, for the filtered count. */
typedef struct entry {
    bool present;
    uint32_t len;
    unsigned round;
} entry;

static size_t value_of(uint8_t *v, uint32_t i, const entry *e)
{
    test_fill(v, e->len, (uint64_t)e->round << 32 | i);
    if (e->len >= 8) memcpy(v, &(uint64_t){i}, 8);
    return e->len;
}

/* Entries i < 1000 with a value of at least 8 bytes: what the filter counts. */
static const cs_value_test LOW_IDS = {.kind = CS_TEST_I64_RANGE, .low = 0, .high = 999,
                                      .on_true = CS_FILTER_TRUE, .on_false = CS_FILTER_FALSE};

static void verify(cs_env *env, cs_tree tr, const entry *model, bool filter)
{
    static uint8_t v[BIG];
    uint8_t k[8];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    cs_val ck, cv, g;
    int rc = cs_cursor_get(c, &ck, &cv, CS_FIRST);
    unsigned bad = 0, present = 0, low = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (!model[i].present) continue;
        present++;
        low += i < 1000 && model[i].len >= 8;
        size_t kl = be_key(k, 0x0100000000000000ull + 16u * i), vl = value_of(v, i, &model[i]);
        if (rc != CS_OK || ck.size != kl || memcmp(ck.data, k, kl) || cv.size != vl || memcmp(cv.data, v, vl)) bad++;
        if (cs_get(t, tr, V(k, kl), &g) != CS_OK || g.size != vl || memcmp(g.data, v, vl)) bad++;
        rc = cs_cursor_get(c, &ck, &cv, CS_NEXT);
    }
    CHECK_EQ(bad, 0);
    CHECK_RC(rc, CS_NOTFOUND);
    uint64_t n;
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, present);
    if (filter) {
        /* The count's in-place loops read fixed-value cells (filter.c). */
        cs_filter f = {.tests = &LOW_IDS, .ntests = 1, .entry = 0};
        CHECK_OK(cs_count_matching(t, tr, &f, &n));
        CHECK_EQ(n, low);
    }
    cs_cursor_close(c);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
}

static void put_all(cs_env *env, cs_tree tr, entry *model, const uint32_t *ids, unsigned n, uint32_t len,
                    unsigned round)
{
    static uint8_t v[BIG];
    uint8_t k[8];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (unsigned j = 0; j < n; j++) {
        uint32_t i = ids[j];
        model[i] = (entry){true, len, round};
        CHECK_OK(cs_put(t, tr, V(k, be_key(k, 0x0100000000000000ull + 16u * i)), V(v, value_of(v, i, &model[i])), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
}

/* Keys in random order (leaves split in the middle), values of one length:
 * fixed-value leaves. Values of other lengths, overflow values and empty
 * ones put among them make their leaves store value words; overwrites back
 * to the fixed length, deletes and more inserts keep every entry readable. */
static void test_mixed_lengths(void)
{
    tpath p = test_path("mixed.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    static entry model[N];
    static uint32_t ids[N];
    for (uint32_t j = 0; j < N; j++) ids[j] = (uint32_t)((j * 7919ull) % N);
    put_all(env, tr, model, ids, N, FIXED, 0);
    verify(env, tr, model, true);
    leaf_shapes before = test_leaf_shapes(env, tr);
    CHECK_EQ(before.values.without, 0);
    CHECK_EQ(before.values.min, FIXED + 1);
    CHECK_EQ(before.values.max, FIXED + 1);

    /* One key in 400 gets a value of another length, one in 800 an
     * overflow value, one in 1000 an empty one. */
    enum { NODD = 10 };
    uint32_t other[NODD], big[NODD / 2], empty[NODD / 2 - 1];
    for (unsigned j = 0; j < NODD; j++) other[j] = 400 * j + 7;
    for (unsigned j = 0; j < NODD / 2; j++) big[j] = 800 * j + 301;
    for (unsigned j = 0; j < NODD / 2 - 1; j++) empty[j] = 1000 * j + 555;
    put_all(env, tr, model, other, NODD, FIXED + 9, 1);
    put_all(env, tr, model, big, NODD / 2, BIG, 1);
    put_all(env, tr, model, empty, NODD / 2 - 1, 0, 1);
    /* (No filtered count: an empty value is too short for its test.) */
    verify(env, tr, model, false);
    leaf_shapes mixed = test_leaf_shapes(env, tr);
    CHECK(mixed.values.without >= 1 && mixed.values.without <= 2 * NODD);
    CHECK(mixed.values.with >= 1);

    /* Every value rewritten at the fixed length (in place where it had it,
     * else removed and inserted), then the odd ones deleted. */
    put_all(env, tr, model, other, NODD, FIXED, 2);
    put_all(env, tr, model, big, NODD / 2, FIXED, 2);
    put_all(env, tr, model, empty, NODD / 2 - 1, FIXED, 2);
    put_all(env, tr, model, ids, N, FIXED, 3);
    verify(env, tr, model, true);
    {
        cs_txn *t;
        uint8_t k[8];
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (uint32_t i = 0; i < N; i += 3) {
            CHECK_OK(cs_del(t, tr, V(k, be_key(k, 0x0100000000000000ull + 16u * i))));
            model[i].present = false;
        }
        REQUIRE_OK(cs_txn_commit(t));
    }
    verify(env, tr, model, true);
    REQUIRE_OK(cs_env_close(env));
    REQUIRE_OK(test_open(p.s, 0, &env));
    tr = test_open_tree(env, "t");
    verify(env, tr, model, true);
    /* A leaf that took an odd value keeps storing value words until it is
     * laid out again (U and V describe the cells a layout saw); the others
     * are still fixed, at the one length. */
    leaf_shapes after = test_leaf_shapes(env, tr);
    CHECK(after.values.with >= 1);
    CHECK_EQ(after.values.min, FIXED + 1);
    CHECK_EQ(after.values.max, FIXED + 1);
    printf("random keys, mixed values: %u fixed-value leaves, %u storing value words\n", after.values.with, after.values.without);
    REQUIRE_OK(cs_env_close(env));
}

/* One key whose suffix and value are both empty (a leaf of one entry, as an
 * append leaves, with an empty value: an index entry) is not an empty cell:
 * that leaf keeps its value word. */
static void test_empty_cell(void)
{
    tpath p = test_path("empty.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "index");
    uint8_t k[8];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint32_t i = 0; i < 3000; i++) CHECK_OK(cs_put(t, tr, V(k, be_key(k, i)), V(k, 0), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    uint64_t n;
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 3000);
    unsigned bad = 0;
    for (uint32_t i = 0; i < 3000; i++) {
        cs_val g;
        if (cs_get(t, tr, V(k, be_key(k, i)), &g) != CS_OK || g.size != 0) bad++;
    }
    CHECK_EQ(bad, 0);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
}

/* A fixed-value leaf of 8-byte values: an overflow value's cell (its
 * 8-byte page reference) would have the size of theirs, but it must not go
 * in as one of them. */
static void test_overflow_same_size(void)
{
    tpath p = test_path("overflow.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    static uint8_t big[BIG];
    uint8_t k[8];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint64_t i = 0; i < 500; i++) CHECK_OK(cs_put(t, tr, V(k, be_key(k, i)), V(&i, 8), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint64_t i = 0; i < 500; i += 50) {
        test_fill(big, BIG, i);
        CHECK_OK(cs_put(t, tr, V(k, be_key(k, i)), V(big, BIG), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    unsigned bad = 0;
    for (uint64_t i = 0; i < 500; i++) {
        cs_val g;
        if (i % 50 == 0) test_fill(big, BIG, i);
        if (cs_get(t, tr, V(k, be_key(k, i)), &g) != CS_OK ||
            (i % 50 == 0 ? g.size != BIG || memcmp(g.data, big, BIG) : g.size != 8 || memcmp(g.data, &i, 8)))
            bad++;
    }
    CHECK_EQ(bad, 0);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
}

int main(void)
{
    test_density();
    test_mixed_lengths();
    test_empty_cell();
    test_overflow_same_size();
    return test_report();
}
