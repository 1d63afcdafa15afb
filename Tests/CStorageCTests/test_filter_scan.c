/* test_filter_scan.c — cs_cursor_next_matching (cursor.c, filter.c): a
 * filtered scan hands back exactly the entries after the cursor whose
 * values pass the filter, in key order, with their ids and values, however
 * the caller splits it into calls (cap); in read and write txns, from an
 * unpositioned cursor or from the middle, over compact and overflow values;
 * bad arguments and values the filter cannot read are refused. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* Value layout: 0 null bit (1 = i64) | 1 i64 | 9 u32 end of the string |
 * 13 string bytes (then padding in an overflow value). */
enum { NULL_AT = 0, I64_AT = 1, VAR_TABLE = 9, VAR_DATA = 13, NROWS = 3000, PAD = 2500 };

static uint8_t values[NROWS][PAD + 32];
static size_t sizes[NROWS];
static int64_t ints[NROWS];
static char strs[NROWS][16];

/* Row k: key 3k (so ids are not positions), string "n<k % 97>", an
 * overflow value now and then, a null integer now and then. */
static void make_rows(void) {
    uint64_t seed = 11;
    for (int k = 0; k < NROWS; k++) {
        uint8_t *p = values[k];
        memset(p, 0, sizeof values[k]);
        bool null = rng_below(&seed, 9) == 0;
        ints[k] = null ? -1 : (int64_t)rng_below(&seed, 100);
        snprintf(strs[k], sizeof strs[k], "n%d", k % 97);
        uint32_t len = (uint32_t)strlen(strs[k]);
        p[NULL_AT] = null;
        memcpy(p + I64_AT, &ints[k], 8);
        memcpy(p + VAR_TABLE, &len, 4);
        memcpy(p + VAR_DATA, strs[k], len);
        sizes[k] = VAR_DATA + len + (rng_below(&seed, 40) == 0 ? PAD : 0);
    }
}

static void key_of(uint64_t id, uint8_t key[8]) {
    for (int i = 7; i >= 0; i--, id >>= 8) key[i] = (uint8_t)id;
}

static cs_filter filter_of(const cs_value_test *tests, uint32_t n, const char *constants) {
    cs_filter f = {tests, n, (int32_t)n - 1, (const uint8_t *)constants, constants ? strlen(constants) : 0,
                   VAR_TABLE, VAR_DATA, 0, 0, 0, 0, 0, 0, 0, 0};
    return f;
}

/* The filters: s == "n5", s != "n5", i64 in [90, 99], s == "n5" OR
 * i64 == 7 (two tests), always, never. */
static cs_value_test str_eq, int_range, either[2];
static bool want_str(int k) { return strcmp(strs[k], "n5") == 0; }
static bool want_int(int k) { return ints[k] >= 90; }
static bool want_either(int k) { return want_str(k) || ints[k] == 7; }
static bool want_all(int k) { (void)k; return true; }
static bool want_not_str(int k) { return !want_str(k); }

static void make_tests(void) {
    memset(&str_eq, 0, sizeof str_eq);
    str_eq.kind = CS_TEST_BYTES_EQ;
    str_eq.offset = 0; /* var field 0 */
    str_eq.low = 0;
    str_eq.high = 2;
    str_eq.on_true = CS_FILTER_TRUE;
    str_eq.on_false = CS_FILTER_FALSE;
    memset(&int_range, 0, sizeof int_range);
    int_range.kind = CS_TEST_I64_RANGE;
    int_range.null_mask = 1;
    int_range.null_byte = NULL_AT;
    int_range.offset = I64_AT;
    int_range.low = 90;
    int_range.high = 99;
    int_range.on_true = CS_FILTER_TRUE;
    int_range.on_false = CS_FILTER_FALSE;
    either[0] = int_range;
    either[0].low = either[0].high = 7;
    either[1] = str_eq;
    either[1].on_false = 0;
}

/* Scans with calls of `cap` from after `start` (-1: unpositioned) and
 * checks ids, values and order against want(). */
static void scan(const char *what, cs_txn *t, cs_tree tree, const cs_filter *f, bool (*want)(int), size_t cap,
                 int start) {
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tree, &c));
    if (start >= 0) {
        uint8_t key[8];
        key_of(3u * (unsigned)start, key);
        cs_val k = V(key, 8), v;
        REQUIRE_OK(cs_cursor_get(c, &k, &v, CS_SEEK_EXACT));
    }
    static uint64_t ids[NROWS], call_ids[NROWS];
    static cs_val vals[NROWS], call_vals[NROWS];
    size_t total = 0, n = 0;
    int rc;
    while ((rc = cs_cursor_next_matching(c, f, call_ids, call_vals, cap, &n)) == CS_OK) {
        CHECK(n > 0 && n <= cap);
        if (n == 0 || total + n > NROWS) break;
        memcpy(ids + total, call_ids, n * sizeof *ids);
        memcpy(vals + total, call_vals, n * sizeof *vals);
        total += n;
    }
    CHECK_RC(rc, CS_NOTFOUND);
    CHECK_EQ(n, 0);
    size_t j = 0, wrong = 0;
    for (int k = start + 1; k < NROWS; k++) {
        if (!want(k)) continue;
        if (j >= total || ids[j] != 3u * (uint64_t)k || vals[j].size != sizes[k] ||
            memcmp(vals[j].data, values[k], sizes[k]) != 0)
            wrong++;
        j++;
    }
    if (wrong || j != total) test_fail_(__FILE__, __LINE__, "%s (cap %zu, from %d): %zu of %zu matches wrong, %zu given",
                                        what, cap, start, wrong, j, total);
    CHECK(j > 0);
    /* At the end the cursor stays there: another call finds nothing. */
    CHECK_RC(cs_cursor_next_matching(c, f, call_ids, call_vals, cap, &n), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
}

static void scans(cs_txn *t, cs_tree tree) {
    cs_filter s = filter_of(&str_eq, 1, "n5"), i = filter_of(&int_range, 1, NULL), e = filter_of(either, 2, "n5"),
              all = filter_of(NULL, 0, NULL);
    all.entry = CS_FILTER_TRUE;
    cs_value_test not_eq = str_eq;
    not_eq.negate = 1;
    cs_filter ne = filter_of(&not_eq, 1, "n5");
    static const size_t caps[] = {1, 2, 7, 256, NROWS};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        scan("s == n5", t, tree, &s, want_str, caps[c], -1);
        scan("i in 90...99", t, tree, &i, want_int, caps[c], -1);
        scan("s == n5 OR i == 7", t, tree, &e, want_either, caps[c], -1);
        scan("always", t, tree, &all, want_all, caps[c], -1);
        scan("s != n5", t, tree, &ne, want_not_str, caps[c], -1);
        scan("s == n5, from the middle", t, tree, &s, want_str, caps[c], 1234);
        scan("i in 90...99, from the middle", t, tree, &i, want_int, caps[c], 1500);
    }
    /* Nothing passes: the end at once. */
    cs_filter never = filter_of(NULL, 0, NULL);
    never.entry = CS_FILTER_FALSE;
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tree, &c));
    uint64_t id;
    cs_val v;
    size_t n = 7;
    CHECK_RC(cs_cursor_next_matching(c, &never, &id, &v, 1, &n), CS_NOTFOUND);
    CHECK_EQ(n, 0);
    CHECK_OK(cs_cursor_close(c));
}

static void filter_scan(void) {
    make_rows();
    make_tests();
    tpath path = test_path("filter_scan.db");
    cs_env *env = NULL;
    REQUIRE_OK(test_open(path.s, 0, &env));
    cs_txn *t;
    cs_tree tree, empty;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "rows", CS_CREATE, &tree));
    REQUIRE_OK(cs_tree_open(t, "empty", CS_CREATE, &empty));
    for (int k = 0; k < NROWS; k++) {
        uint8_t key[8];
        key_of(3u * (unsigned)k, key);
        CHECK_OK(cs_put(t, tree, V(key, 8), V(values[k], sizes[k]), 0));
    }
    scans(t, tree); /* in the write txn that made them */
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    scans(t, tree);

    /* Arguments. */
    cs_filter s = filter_of(&str_eq, 1, "n5");
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tree, &c));
    uint64_t ids[4];
    cs_val vals[4];
    size_t n = 9;
    CHECK_RC(cs_cursor_next_matching(c, &s, NULL, vals, 4, &n), CS_EINVAL);
    CHECK_RC(cs_cursor_next_matching(c, &s, ids, vals, 0, &n), CS_EINVAL);
    CHECK_RC(cs_cursor_next_matching(c, &s, ids, vals, 4, NULL), CS_EINVAL);
    CHECK_RC(cs_cursor_next_matching(c, NULL, ids, vals, 4, &n), CS_EINVAL);
    cs_filter bad = s;
    bad.nconstants = 1; /* the test's constant lies past the constants */
    CHECK_RC(cs_cursor_next_matching(c, &bad, ids, vals, 4, &n), CS_EINVAL);
    CHECK_EQ(n, 0);
    /* Values without the filter's tag, or too short for it, are refused. */
    cs_filter tagged = s;
    tagged.has_tag = 1;
    tagged.tag = 0xee;
    CHECK_RC(cs_cursor_next_matching(c, &tagged, ids, vals, 4, &n), CS_EFORMAT);
    CHECK_EQ(n, 0);
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_cursor_open(t, empty, &c));
    CHECK_RC(cs_cursor_next_matching(c, &s, ids, vals, 4, &n), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);

    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    uint8_t key[8];
    key_of(3u * 2000 + 1, key);
    CHECK_OK(cs_put(t, tree, V(key, 8), VS("tiny"), 0));
    cs_filter i = filter_of(&int_range, 1, NULL);
    REQUIRE_OK(cs_cursor_open(t, tree, &c));
    CHECK_RC(cs_cursor_next_matching(c, &i, ids, vals, 4, &n), CS_OK); /* matches before the short value */
    size_t before = n;
    int rc;
    while ((rc = cs_cursor_next_matching(c, &i, ids, vals, 4, &n)) == CS_OK) before += n;
    CHECK_RC(rc, CS_ECORRUPT);
    CHECK_EQ(n, 0);
    /* The failing call gives none of its leaf's matches. */
    size_t want_before = 0;
    for (int k = 0; k <= 2000; k++) want_before += want_int(k);
    CHECK(before > 0 && before <= want_before);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    filter_scan();
    return test_report();
}
