/* test_filter.c — cs_filter_values (filter.c): compiled predicates over
 * value bytes agree with the same predicates written as C expressions, on
 * random values with nulls, NaNs and extreme integers; malformed filters and
 * values too short for a test are refused, never read out of bounds.
 * cs_count_matching over a tree (with overflow values, in read and write
 * txns) counts what cs_filter_values counts. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* Value layout used here:
 *   0 null bits (1 = i64, 2 = f64, 4 = f32) | 1 i64 | 9 f64 | 17 f32 | 21 bool
 *   | 22 u32 end of the string | 26 string bytes */
enum { NULL_AT = 0, I64_AT = 1, F64_AT = 9, F32_AT = 17, BOOL_AT = 21, VAR_TABLE = 22, VAR_DATA = 26 };
#define NVALS 2000

typedef struct row {
    bool i_null, d_null, f_null, b;
    int64_t i;
    double d;
    float f;
    char s[8];
    uint8_t bytes[3000]; /* padded past the string now and then: an overflow value */
    size_t size;
} row;

static void encode(row *r) {
    size_t len = strlen(r->s);
    uint8_t *p = r->bytes;
    p[NULL_AT] = (uint8_t)((r->i_null ? 1 : 0) | (r->d_null ? 2 : 0) | (r->f_null ? 4 : 0));
    memcpy(p + I64_AT, &r->i, 8);
    memcpy(p + F64_AT, &r->d, 8);
    memcpy(p + F32_AT, &r->f, 4);
    p[BOOL_AT] = r->b;
    uint32_t end = (uint32_t)len;
    memcpy(p + VAR_TABLE, &end, 4);
    memcpy(p + VAR_DATA, r->s, len);
    r->size = VAR_DATA + len;
}

static void make_rows(row *rows, uint64_t seed) {
    static const int64_t ints[] = {0, 1, 2, 3, 50, 51, -7, INT64_MIN, INT64_MAX};
    static const double dbls[] = {0.0, -0.0, 0.5, 2.5, 1e300, -INFINITY};
    static const char *strs[] = {"", "a", "ab", "abc", "b"};
    for (int k = 0; k < NVALS; k++) {
        row *r = &rows[k];
        memset(r, 0, sizeof *r);
        r->i_null = rng_below(&seed, 7) == 0;
        r->d_null = rng_below(&seed, 7) == 0;
        r->f_null = rng_below(&seed, 7) == 0;
        r->i = rng_below(&seed, 3) ? (int64_t)rng_below(&seed, 100) : ints[rng_below(&seed, 9)];
        r->d = rng_below(&seed, 9) == 0 ? NAN : dbls[rng_below(&seed, 6)];
        r->f = rng_below(&seed, 9) == 0 ? NAN : (float)rng_below(&seed, 4) * 0.25f;
        r->b = rng_below(&seed, 2);
        strcpy(r->s, strs[rng_below(&seed, 5)]);
        encode(r);
        if (rng_below(&seed, 50) == 0) r->size = 3000; /* bytes past the string: ignored */
    }
}

static cs_value_test test_of(uint8_t kind, uint8_t null_mask, uint32_t offset, int32_t on_true, int32_t on_false) {
    cs_value_test t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.null_mask = null_mask;
    t.null_byte = NULL_AT;
    t.offset = offset;
    t.on_true = on_true;
    t.on_false = on_false;
    return t;
}

static cs_filter filter_of(const cs_value_test *tests, uint32_t n, int32_t entry, const char *constants) {
    cs_filter f = {tests, n, entry, (const uint8_t *)constants, constants ? strlen(constants) : 0, VAR_TABLE,
                   VAR_DATA, 0, 0, 0, 0, 0, 0, 0, 0};
    return f;
}

/* Runs the filter on every row and checks each verdict against want(). */
static void agree(const char *what, const cs_filter *f, const row *rows, bool (*want)(const row *)) {
    static cs_val vals[NVALS];
    static uint32_t idx[NVALS];
    for (int k = 0; k < NVALS; k++) vals[k] = V(rows[k].bytes, rows[k].size);
    size_t n = 0, counted = 0;
    CHECK_OK(cs_filter_values(f, vals, NVALS, idx, &n));
    CHECK_OK(cs_filter_values(f, vals, NVALS, NULL, &counted));
    CHECK_EQ(counted, n);
    size_t j = 0, expected = 0, wrong = 0;
    for (int k = 0; k < NVALS; k++) {
        bool w = want(&rows[k]);
        bool got = j < n && idx[j] == (uint32_t)k;
        if (got) j++;
        expected += w;
        if (w != got) wrong++;
    }
    if (wrong) test_fail_(__FILE__, __LINE__, "%s: %zu rows disagree", what, wrong);
    CHECK_EQ(n, expected);
    CHECK(expected > 0 && expected < NVALS); /* the predicate splits the rows */
}

/* i > 50 AND b == true: the objects benchmark's count. */
static bool want_and(const row *r) { return !r->i_null && r->i > 50 && r->b; }
static bool want_3(const row *r) { return !r->i_null && r->i == 3; }
static bool want_3_and(const row *r) { return !r->i_null && r->i == 3 && r->b; }
static bool want_3_and_d(const row *r) { return !r->i_null && r->i == 3 && !r->d_null && r->d < 1.0; }
/* i IN {1, 2, INT64_MIN} OR i == nil */
static bool want_in(const row *r) { return r->i_null || r->i == 1 || r->i == 2 || r->i == INT64_MIN; }
/* NOT (s == "ab") */
static bool want_not_bytes(const row *r) { return strcmp(r->s, "ab") != 0; }
/* d == NaN (NaN equals NaN) */
static bool want_nan(const row *r) { return !r->d_null && isnan(r->d); }
/* d != 0.5: nil and NaN are unequal to 0.5 */
static bool want_ne(const row *r) { return r->d_null || isnan(r->d) || r->d != 0.5; }
/* f < 0.5 (nil and NaN never ordered) */
static bool want_f_lt(const row *r) { return !r->f_null && r->f < 0.5f; }
/* i (as double) >= 2.5 */
static bool want_i_ge(const row *r) { return !r->i_null && (double)r->i >= 2.5; }
/* i != 3 (nil is unequal) */
static bool want_i_ne(const row *r) { return r->i_null || r->i != 3; }

/* i > 50 AND b: test 1 (the entry) jumps to test 0 when true. */
static void i_over_50_and_b(cs_value_test t[2]) {
    t[0] = test_of(CS_TEST_BOOL, 0, BOOL_AT, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t[0].flag = 1;
    t[1] = test_of(CS_TEST_I64_RANGE, 1, I64_AT, 0, CS_FILTER_FALSE);
    t[1].low = 51;
    t[1].high = INT64_MAX;
}

static void agreement(void) {
    static row rows[NVALS];
    make_rows(rows, 42);

    cs_value_test t_and[2];
    i_over_50_and_b(t_and);
    cs_filter f = filter_of(t_and, 2, 1, NULL);
    agree("i > 50 AND b", &f, rows, want_and);

    /* Few values pass the first test: the second runs only on those. */
    t_and[1].low = t_and[1].high = 3;
    agree("i == 3 AND b", &f, rows, want_3_and);
    cs_value_test t_ii[2] = {test_of(CS_TEST_I64_RANGE, 1, I64_AT, CS_FILTER_TRUE, CS_FILTER_FALSE),
                             test_of(CS_TEST_I64_RANGE, 1, I64_AT, 0, CS_FILTER_FALSE)};
    t_ii[0].low = 0; /* i >= 0, reached only by i == 3 */
    t_ii[0].high = INT64_MAX;
    t_ii[1].low = t_ii[1].high = 3;
    cs_filter f_ii = filter_of(t_ii, 2, 1, NULL);
    agree("i == 3 AND i >= 0", &f_ii, rows, want_3);
    t_and[0].kind = CS_TEST_F64;
    t_and[0].offset = F64_AT;
    t_and[0].null_mask = 2;
    t_and[0].cmp = CS_CMP_LT;
    t_and[0].f64 = 1.0;
    agree("i == 3 AND d < 1", &f, rows, want_3_and_d);

    /* IN as a chain of ORs, the nil check first. */
    cs_value_test t_in[4];
    int64_t members[3] = {1, 2, INT64_MIN};
    for (int k = 0; k < 3; k++) {
        t_in[k] = test_of(CS_TEST_I64_RANGE, 1, I64_AT, CS_FILTER_TRUE, k ? k - 1 : CS_FILTER_FALSE);
        t_in[k].low = t_in[k].high = members[k];
    }
    t_in[3] = test_of(CS_TEST_NULL, 1, 0, CS_FILTER_TRUE, 2);
    t_in[3].flag = 1;
    f = filter_of(t_in, 4, 3, NULL);
    agree("i IN {1, 2, min} OR nil", &f, rows, want_in);

    cs_value_test t_bytes = test_of(CS_TEST_BYTES_EQ, 0, 0, CS_FILTER_FALSE, CS_FILTER_TRUE);
    t_bytes.low = 1;
    t_bytes.high = 2;
    f = filter_of(&t_bytes, 1, 0, "xab");
    agree("NOT s == 'ab'", &f, rows, want_not_bytes);

    cs_value_test t_d = test_of(CS_TEST_F64, 2, F64_AT, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t_d.cmp = CS_CMP_EQ;
    t_d.f64 = NAN;
    f = filter_of(&t_d, 1, 0, NULL);
    agree("d == NaN", &f, rows, want_nan);
    t_d.cmp = CS_CMP_NE;
    t_d.f64 = 0.5;
    agree("d != 0.5", &f, rows, want_ne);

    cs_value_test t_f = test_of(CS_TEST_F32, 4, F32_AT, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t_f.cmp = CS_CMP_LT;
    t_f.f64 = 0.5;
    f = filter_of(&t_f, 1, 0, NULL);
    agree("f < 0.5", &f, rows, want_f_lt);

    cs_value_test t_i = test_of(CS_TEST_I64_VS_F64, 1, I64_AT, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t_i.cmp = CS_CMP_GE;
    t_i.f64 = 2.5;
    f = filter_of(&t_i, 1, 0, NULL);
    agree("i >= 2.5", &f, rows, want_i_ge);

    cs_value_test t_ne = test_of(CS_TEST_I64_RANGE, 1, I64_AT, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t_ne.cmp = CS_CMP_NE; /* what a nil value gives */
    t_ne.low = t_ne.high = 3;
    t_ne.negate = 1;
    f = filter_of(&t_ne, 1, 0, NULL);
    agree("i != 3", &f, rows, want_i_ne);

    /* Constant predicates: no tests at all. */
    size_t n = 7;
    cs_val one = V(rows[0].bytes, rows[0].size);
    f = filter_of(NULL, 0, CS_FILTER_TRUE, NULL);
    CHECK_OK(cs_filter_values(&f, &one, 1, NULL, &n));
    CHECK_EQ(n, 1);
    f.entry = CS_FILTER_FALSE;
    CHECK_OK(cs_filter_values(&f, &one, 1, NULL, &n));
    CHECK_EQ(n, 0);
}

static void refusals(void) {
    row r;
    memset(&r, 0, sizeof r);
    strcpy(r.s, "abc");
    encode(&r);
    cs_val v = V(r.bytes, r.size);
    size_t n = 99;

    /* A jump upwards (could loop forever) is refused before any value is read. */
    cs_value_test loop[2];
    loop[0] = test_of(CS_TEST_BOOL, 0, BOOL_AT, 1, CS_FILTER_FALSE);
    loop[1] = test_of(CS_TEST_BOOL, 0, BOOL_AT, 0, CS_FILTER_FALSE);
    cs_filter f = filter_of(loop, 2, 1, NULL);
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, &n), CS_EINVAL);
    CHECK_EQ(n, 0);
    loop[0].on_true = CS_FILTER_TRUE;
    loop[1].on_false = -3;
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, &n), CS_EINVAL);
    loop[1].on_false = CS_FILTER_FALSE;
    f.entry = 2;
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, &n), CS_EINVAL);
    f.entry = 1;
    CHECK_OK(cs_filter_values(&f, &v, 1, NULL, &n));
    loop[0].kind = 99;
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, &n), CS_EINVAL);

    /* Constants out of range. */
    cs_value_test t = test_of(CS_TEST_BYTES_EQ, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t.low = 1;
    t.high = 3;
    f = filter_of(&t, 1, 0, "abc");
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, &n), CS_EINVAL);
    t.low = 0;
    CHECK_OK(cs_filter_values(&f, &v, 1, NULL, &n));
    CHECK_EQ(n, 1);

    /* A variable field past the value's end, and a value too short for a
     * fixed field: CS_ECORRUPT (ASan would report any read past the end). */
    uint8_t *shortv = malloc(r.size);
    REQUIRE(shortv);
    memcpy(shortv, r.bytes, r.size);
    cs_val trunc = V(shortv, r.size - 1);
    CHECK_RC(cs_filter_values(&f, &trunc, 1, NULL, &n), CS_ECORRUPT);
    uint32_t huge = 0xfffffff0u;
    memcpy(shortv + VAR_TABLE, &huge, 4);
    cs_val bad = V(shortv, r.size);
    CHECK_RC(cs_filter_values(&f, &bad, 1, NULL, &n), CS_ECORRUPT);
    cs_value_test fixed = test_of(CS_TEST_I64_RANGE, 0, 20, CS_FILTER_TRUE, CS_FILTER_FALSE);
    f = filter_of(&fixed, 1, 0, NULL);
    cs_val tiny = V(shortv, 27);
    CHECK_RC(cs_filter_values(&f, &tiny, 1, NULL, &n), CS_ECORRUPT);
    tiny.size = 28;
    CHECK_OK(cs_filter_values(&f, &tiny, 1, NULL, &n));
    free(shortv);

    CHECK_RC(cs_filter_values(NULL, &v, 1, NULL, &n), CS_EINVAL);
    CHECK_RC(cs_filter_values(&f, &v, 1, NULL, NULL), CS_EINVAL);
}

/* i == 0 OR i == 1 OR ... OR i == 69: more tests than the stack scratch. */
static bool want_small(const row *r) { return !r->i_null && r->i >= 0 && r->i < 70; }

/* ANDs of up to two int-range and two bool tests without null bits:
 * cs_count_matching counts them record by record (filter.c, conj); the
 * count must equal the chunked path's (cs_filter_values over the same
 * values) and, for one shape, a C expression. The second int test reads the
 * double's bytes as an int, the second bool test the null byte: any bytes
 * do. */
static void conj_counts(cs_txn *t, cs_tree tree, const row *rows) {
    static cs_val vals[NVALS];
    cs_cursor *cur;
    REQUIRE_OK(cs_cursor_open(t, tree, &cur));
    size_t nv = 0;
    cs_val k;
    for (int rc = cs_cursor_get(cur, &k, &vals[0], CS_FIRST); rc == CS_OK && nv < NVALS;
         rc = cs_cursor_get(cur, &k, &vals[nv], CS_NEXT))
        nv++;
    cs_cursor_close(cur);
    CHECK_EQ(nv, NVALS);
    for (unsigned variant = 0; variant < 4; variant++) {
        for (unsigned nint = 0; nint <= 3; nint++) {
            for (unsigned nbool = 0; nbool <= 3; nbool++) {
                if (nint + nbool == 0) continue;
                cs_value_test tests[6];
                unsigned n = 0;
                for (unsigned j = 0; j < nint; j++) {
                    cs_value_test x = test_of(CS_TEST_I64_RANGE, 0, j % 2 ? F64_AT : I64_AT, 0, CS_FILTER_FALSE);
                    x.low = j % 2 ? 0 : 40 + (int64_t)variant;
                    x.high = j % 2 ? INT64_MAX : 90;
                    x.negate = (variant & 1) && j == 0;
                    tests[n++] = x;
                }
                for (unsigned j = 0; j < nbool; j++) {
                    cs_value_test x = test_of(CS_TEST_BOOL, 0, j % 2 ? NULL_AT : BOOL_AT, 0, CS_FILTER_FALSE);
                    x.flag = !(variant & 2);
                    x.negate = j == 1;
                    tests[n++] = x;
                }
                /* chain: test i goes on to test i-1 when true; test 0 to TRUE */
                for (unsigned i = 0; i < n; i++) tests[i].on_true = i ? (int32_t)i - 1 : CS_FILTER_TRUE;
                cs_filter f = filter_of(tests, n, (int32_t)n - 1, NULL);
                uint64_t counted = 0;
                size_t chunked = 0;
                CHECK_OK(cs_count_matching(t, tree, &f, &counted));
                CHECK_OK(cs_filter_values(&f, vals, nv, NULL, &chunked));
                if (counted != chunked)
                    test_fail_(__FILE__, __LINE__, "%u ints, %u bools, variant %u: count %llu, chunks %zu", nint, nbool,
                               variant, (unsigned long long)counted, chunked);
                if (nint == 1 && nbool == 1) {
                    uint64_t want = 0;
                    for (int r = 0; r < NVALS; r++) {
                        bool in = rows[r].i >= 40 + (int64_t)variant && rows[r].i <= 90;
                        if (variant & 1) in = !in;
                        want += in && (rows[r].b == !(variant & 2));
                    }
                    CHECK_EQ(counted, want);
                }
            }
        }
    }
}

static void tree_counts(void) {
    static row rows[NVALS];
    make_rows(rows, 7);
    tpath path = test_path("filter.db");
    cs_env *env = NULL;
    REQUIRE_OK(test_open(path.s, 0, &env));
    cs_txn *t;
    cs_tree tree;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "rows", CS_CREATE, &tree));
    for (uint32_t k = 0; k < NVALS; k++) {
        uint8_t key[4] = {(uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k};
        CHECK_OK(cs_put(t, tree, V(key, 4), V(rows[k].bytes, rows[k].size), 0));
    }

    static cs_value_test chain[70];
    for (int k = 0; k < 70; k++) {
        chain[k] = test_of(CS_TEST_I64_RANGE, 1, I64_AT, CS_FILTER_TRUE, k ? k - 1 : CS_FILTER_FALSE);
        chain[k].low = chain[k].high = k;
    }
    cs_filter big = filter_of(chain, 70, 69, NULL);
    cs_value_test t_and[2];
    i_over_50_and_b(t_and);
    cs_filter small = filter_of(t_and, 2, 1, NULL);
    uint64_t want_big = 0, want_and_n = 0;
    for (int k = 0; k < NVALS; k++) {
        want_big += want_small(&rows[k]);
        want_and_n += want_and(&rows[k]);
    }
    agree("70 ORs", &big, rows, want_small);
    uint64_t n = 0;
    CHECK_OK(cs_count_matching(t, tree, &big, &n)); /* in the write txn */
    CHECK_EQ(n, want_big);
    REQUIRE_OK(cs_txn_commit(t));

    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    conj_counts(t, tree, rows);
    CHECK_OK(cs_count_matching(t, tree, &small, &n));
    CHECK_EQ(n, want_and_n);
    CHECK_OK(cs_count_matching(t, tree, &big, &n));
    CHECK_EQ(n, want_big);
    cs_filter always = filter_of(NULL, 0, CS_FILTER_TRUE, NULL);
    CHECK_OK(cs_count_matching(t, tree, &always, &n));
    CHECK_EQ(n, NVALS);
    CHECK_RC(cs_count_matching(t, tree, &small, NULL), CS_EINVAL);
    /* With a tag, a value that does not start with it is the caller's. */
    cs_filter tagged = small;
    tagged.has_tag = 1;
    tagged.tag = 0;
    CHECK_RC(cs_count_matching(t, tree, &tagged, &n), CS_EFORMAT);
    cs_txn_abort(t);

    /* A value too short for the filter is reported, not read past. */
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_OK(cs_put(t, tree, VS("zz"), VS("tiny"), 0));
    CHECK_RC(cs_count_matching(t, tree, &small, &n), CS_ECORRUPT);
    CHECK_EQ(n, 0);
    cs_txn_abort(t);
    /* Also between well-formed values of one leaf (where a count scans the
     * cells in a loop of its own), in a read txn. */
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    const uint8_t mid[5] = {0, 0, 0, 5, 0};
    CHECK_OK(cs_put(t, tree, V(mid, 5), VS("tiny"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_RC(cs_count_matching(t, tree, &small, &n), CS_ECORRUPT);
    CHECK_EQ(n, 0);
    cs_txn_abort(t);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    cs_tree empty;
    REQUIRE_OK(cs_tree_open(t, "empty", CS_CREATE, &empty));
    CHECK_OK(cs_count_matching(t, empty, &small, &n));
    CHECK_EQ(n, 0);
    cs_txn_abort(t);
    CHECK_OK(cs_env_close(env));
}

/* A tagged filter reads values that start with its tag and refuses the
 * others (CS_EFORMAT): the object layer's records of an older layout. */
static void tags(void) {
    static row rows[3];
    cs_val vals[3];
    for (int k = 0; k < 3; k++) {
        memset(&rows[k], 0, sizeof rows[k]);
        rows[k].i = 60 + k;
        rows[k].b = true;
        strcpy(rows[k].s, "x");
        encode(&rows[k]);
        vals[k] = (cs_val){rows[k].bytes, rows[k].size};
    }
    cs_value_test t_and[2];
    i_over_50_and_b(t_and);
    cs_filter f = filter_of(t_and, 2, 1, NULL);
    f.has_tag = 1;
    f.tag = 0;
    size_t n = 0;
    CHECK_OK(cs_filter_values(&f, vals, 3, NULL, &n));
    CHECK_EQ(n, 3);
    rows[1].bytes[NULL_AT] = 2; /* another first byte */
    CHECK_RC(cs_filter_values(&f, vals, 3, NULL, &n), CS_EFORMAT);
    f.has_tag = 0;
    CHECK_OK(cs_filter_values(&f, vals, 3, NULL, &n));
    CHECK_EQ(n, 3);
}

/* Compact end offsets (object format 7): their width follows from the
 * value's size (cs_record_offset_width), and the filter reads the string
 * at 1, 2 and 4 bytes; an offset past the value's end is CS_ECORRUPT. */
static void compact_offsets(void) {
    CHECK_EQ(cs_record_offset_width(0), 1u);
    CHECK_EQ(cs_record_offset_width(255), 1u);
    CHECK_EQ(cs_record_offset_width(256), 2u);
    CHECK_EQ(cs_record_offset_width(65535), 2u);
    CHECK_EQ(cs_record_offset_width(65536), 4u);
    static const size_t lengths[] = {0, 3, 232, 233, 300, 65511, 65512, 70000};
    enum { N = sizeof lengths / sizeof lengths[0] };
    static uint8_t *bytes[N];
    cs_val vals[N];
    for (unsigned k = 0; k < N; k++) {
        size_t len = lengths[k];
        unsigned w = len + VAR_TABLE + 1 < 0x100 ? 1 : len + VAR_TABLE + 2 < 0x10000 ? 2 : 4;
        size_t size = VAR_TABLE + w + len;
        CHECK_EQ(cs_record_offset_width(size), w);
        bytes[k] = calloc(1, size);
        REQUIRE(bytes[k]);
        uint32_t end = (uint32_t)len;
        memcpy(bytes[k] + VAR_TABLE, &end, w); /* little-endian */
        memset(bytes[k] + VAR_TABLE + w, k == 1 ? 'a' : 'b', len);
        vals[k] = V(bytes[k], size);
    }
    cs_value_test t = test_of(CS_TEST_BYTES_EQ, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t.low = 0;
    t.high = 3;
    cs_filter f = filter_of(&t, 1, 0, "aaa");
    f.compact_offsets = 1;
    f.var_count = 1;
    uint32_t idx[N];
    size_t n = 0;
    CHECK_OK(cs_filter_values(&f, vals, N, idx, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(idx[0], 1u);
    static char want[70001];
    for (unsigned k = 0; k < N; k++) {
        memset(want, 'b', lengths[k]);
        t.high = (int64_t)lengths[k];
        f = filter_of(&t, 1, 0, want);
        f.compact_offsets = 1;
        f.var_count = 1;
        f.nconstants = lengths[k];
        CHECK_OK(cs_filter_values(&f, vals, N, idx, &n));
        CHECK_EQ(n, k == 1 ? 0u : 1u);
        if (k != 1) CHECK_EQ(idx[0], k);
    }
    bytes[2][VAR_TABLE] = 250; /* past the value's end */
    CHECK_RC(cs_filter_values(&f, vals, N, NULL, &n), CS_ECORRUPT);
    for (unsigned k = 0; k < N; k++) free(bytes[k]);
}

/* The implied last end (object format 11): two var fields after one
 * compact end offset, the second ending at the value's end, and one var
 * field with no offset at all. Each field is read at widths 1 and 2; a
 * stored end past the data is CS_ECORRUPT, and a test of a field past
 * var_count is refused. */
static size_t two_fields(uint8_t *out, const char *a, size_t blen) {
    size_t alen = strlen(a), w = VAR_TABLE + 1 + alen + blen < 0x100 ? 1 : 2;
    memset(out, 0, VAR_TABLE);
    memcpy(out + VAR_TABLE, &alen, w); /* little-endian */
    memcpy(out + VAR_TABLE + w, a, alen);
    memset(out + VAR_TABLE + w + alen, 'z', blen);
    return VAR_TABLE + w + alen + blen;
}

static void implied_last_end(void) {
    static uint8_t bytes[4][600];
    const size_t blens[4] = {0, 3, 3, 400};
    const char *as[4] = {"ab", "", "ab", "ab"};
    cs_val vals[4];
    for (unsigned k = 0; k < 4; k++) vals[k] = V(bytes[k], two_fields(bytes[k], as[k], blens[k]));
    cs_value_test t = test_of(CS_TEST_BYTES_EQ, 0, 1, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t.high = 3;
    cs_filter f = filter_of(&t, 1, 0, "zzz");
    f.compact_offsets = 1;
    f.implied_last_end = 1;
    f.var_count = 2;
    uint32_t idx[4];
    size_t n = 0;
    CHECK_OK(cs_filter_values(&f, vals, 4, idx, &n)); /* field 1 (the last): "zzz" */
    CHECK_EQ(n, 2u);
    CHECK_EQ(idx[0], 1u);
    CHECK_EQ(idx[1], 2u);
    static char zs[401];
    memset(zs, 'z', 400);
    f = filter_of(&t, 1, 0, zs);
    f.compact_offsets = 1;
    f.implied_last_end = 1;
    f.var_count = 2;
    t.high = 400;
    CHECK_OK(cs_filter_values(&f, vals, 4, idx, &n)); /* at 2-byte offsets */
    CHECK_EQ(n, 1u);
    CHECK_EQ(idx[0], 3u);
    t.offset = 0; /* field 0: its end is stored */
    t.high = 2;
    f.constants = (const uint8_t *)"ab";
    f.nconstants = 2;
    CHECK_OK(cs_filter_values(&f, vals, 4, idx, &n));
    CHECK_EQ(n, 3u);
    /* one var field, no table: the whole rest of the value */
    f.var_count = 1;
    CHECK_OK(cs_filter_values(&f, vals, 4, idx, &n));
    CHECK_EQ(n, 0u); /* field 0 now spans the offset byte too */
    uint8_t one[VAR_TABLE + 2];
    memset(one, 0, VAR_TABLE);
    memcpy(one + VAR_TABLE, "ab", 2);
    cs_val v1 = V(one, sizeof one);
    CHECK_OK(cs_filter_values(&f, &v1, 1, idx, &n));
    CHECK_EQ(n, 1u);
    /* a field past var_count; a stored end past the data */
    t.offset = 1;
    CHECK_RC(cs_filter_values(&f, vals, 4, idx, &n), CS_EINVAL);
    f.var_count = 2;
    bytes[2][VAR_TABLE] = 200;
    CHECK_RC(cs_filter_values(&f, vals, 4, idx, &n), CS_ECORRUPT);
}

/* Packed integers (object format 10): two integers after a bool, 2^c bytes
 * each with c in the top bits of byte 0, then a compact var table and a
 * string. Filters (chunked, and counts over a tree: the conj path) read
 * them at each width, sign-extended; a value too short for its width, a
 * test of an integer past int_count and a code byte inside the integers
 * are refused. */
enum { P_BOOL = 1, P_INTS = 2, P_N = 600 };
static size_t packed_value(uint8_t *out, int64_t a, int64_t b, bool flag, const char *s) {
    unsigned code = 0;
    int64_t both[2] = {a, b};
    for (int j = 0; j < 2; j++) {
        int64_t v = both[j];
        unsigned c = v == (int8_t)v ? 0 : v == (int16_t)v ? 1 : v == (int32_t)v ? 2 : 3;
        if (c > code) code = c;
    }
    unsigned w = 1u << code;
    size_t len = strlen(s), table = P_INTS + 2 * (size_t)w;
    memset(out, 0, table + 1 + len);
    out[0] = (uint8_t)(code << 6);
    out[P_BOOL] = flag;
    memcpy(out + P_INTS, &both[0], w); /* little-endian: the low bytes */
    memcpy(out + P_INTS + w, &both[1], w);
    out[table] = (uint8_t)len;
    memcpy(out + table + 1, s, len);
    return table + 1 + len;
}

static void packed_ints(void) {
    static const int64_t pool[] = {0, 1, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769, INT32_MAX,
                                   INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN, 60, 75};
    enum { NP = sizeof pool / sizeof pool[0] };
    static uint8_t bytes[P_N][32];
    static int64_t as[P_N], bs[P_N];
    static bool flags[P_N];
    cs_val vals[P_N];
    uint64_t seed = 11;
    for (unsigned k = 0; k < P_N; k++) {
        as[k] = pool[rng_below(&seed, NP)];
        bs[k] = rng_below(&seed, 3) ? (int64_t)rng_below(&seed, 120) : pool[rng_below(&seed, NP)];
        flags[k] = rng_below(&seed, 2);
        vals[k] = V(bytes[k], packed_value(bytes[k], as[k], bs[k], flags[k], k % 7 ? "ab" : "xyz"));
    }
    /* b in 50...100 AND flag, as a chain the count path compiles (conj) */
    cs_value_test t[3];
    t[0] = test_of(CS_TEST_BOOL, 0, P_BOOL, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t[0].flag = 1;
    t[1] = test_of(CS_TEST_I64_RANGE, 0, 1, 0, CS_FILTER_FALSE);
    t[1].packed = 1;
    t[1].low = 50;
    t[1].high = 100;
    cs_filter f = filter_of(t, 2, 1, NULL);
    f.compact_offsets = 1;
    f.var_count = 1;
    f.int_start = P_INTS;
    f.int_count = 2;
    f.int_code_byte = 0;
    size_t n = 0, want = 0;
    for (unsigned k = 0; k < P_N; k++) want += bs[k] >= 50 && bs[k] <= 100 && flags[k];
    CHECK_OK(cs_filter_values(&f, vals, P_N, NULL, &n));
    CHECK_EQ(n, want);

    /* a as a double < -0.5, and the string after the integers */
    t[2] = test_of(CS_TEST_I64_VS_F64, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t[2].packed = 1;
    t[2].cmp = CS_CMP_LT;
    t[2].f64 = -0.5;
    cs_filter g = f;
    g.tests = &t[2];
    g.ntests = 1;
    g.entry = 0;
    CHECK_OK(cs_filter_values(&g, vals, P_N, NULL, &n));
    want = 0;
    for (unsigned k = 0; k < P_N; k++) want += (double)as[k] < -0.5;
    CHECK_EQ(n, want);
    cs_value_test s = test_of(CS_TEST_BYTES_EQ, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    s.high = 3;
    g.tests = &s;
    g.constants = (const uint8_t *)"xyz";
    g.nconstants = 3;
    CHECK_OK(cs_filter_values(&g, vals, P_N, NULL, &n));
    CHECK_EQ(n, (P_N + 6) / 7);

    /* the same count over a tree, in place */
    tpath path = test_path("packed.db");
    cs_env *env = NULL;
    REQUIRE_OK(test_open(path.s, 0, &env));
    cs_txn *txn;
    cs_tree tree;
    REQUIRE_OK(cs_txn_begin(env, 0, &txn));
    REQUIRE_OK(cs_tree_open(txn, "rows", CS_CREATE, &tree));
    for (uint32_t k = 0; k < P_N; k++) {
        uint8_t key[4] = {(uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k};
        CHECK_OK(cs_put(txn, tree, V(key, 4), vals[k], 0));
    }
    uint64_t counted = 0;
    want = 0;
    for (unsigned k = 0; k < P_N; k++) want += bs[k] >= 50 && bs[k] <= 100 && flags[k];
    CHECK_OK(cs_count_matching(txn, tree, &f, &counted));
    CHECK_EQ(counted, want);
    /* a value whose code claims 8-byte integers it does not have */
    uint8_t bad[8] = {3u << 6, 1, 60, 60, 0, 0, 0, 0};
    CHECK_OK(cs_put(txn, tree, V("zzzz", 4), V(bad, sizeof bad), 0));
    CHECK_RC(cs_count_matching(txn, tree, &f, &counted), CS_ECORRUPT);
    cs_val one = V(bad, sizeof bad);
    CHECK_RC(cs_filter_values(&f, &one, 1, NULL, &n), CS_ECORRUPT);
    CHECK_OK(cs_txn_abort(txn));
    cs_env_close(env);

    /* malformed: an integer past int_count, the code byte among the integers, a packed bool */
    t[1].offset = 2;
    CHECK_RC(cs_filter_values(&f, vals, 1, NULL, &n), CS_EINVAL);
    t[1].offset = 1;
    f.int_code_byte = P_INTS;
    CHECK_RC(cs_filter_values(&f, vals, 1, NULL, &n), CS_EINVAL);
    f.int_code_byte = 0;
    t[0].packed = 1;
    CHECK_RC(cs_filter_values(&f, vals, 1, NULL, &n), CS_EINVAL);
}

/* Bools in the null bitmap (object format 12): packed_value's records with
 * two Bools held in bits 1 and 3 of byte 0, beside the integers' width code
 * in its top bits. A bit test reads its bit alone (the code bits and the
 * other Bool never change its verdict), chunked and in a count's conj
 * path, == and !=; a mask of more than one bit, or on another kind of
 * test, is refused. */
static void bool_bits(void) {
    static const int64_t pool[] = {0, 1, -1, 127, 128, 32768, INT32_MIN, INT64_MAX, 60, 75};
    static uint8_t bytes[P_N][32];
    static bool x[P_N], y[P_N];
    static int64_t bs[P_N];
    cs_val vals[P_N];
    uint64_t seed = 12;
    for (unsigned k = 0; k < P_N; k++) {
        x[k] = rng_below(&seed, 2);
        y[k] = rng_below(&seed, 3) == 0;
        bs[k] = rng_below(&seed, 2) ? (int64_t)rng_below(&seed, 120) : pool[rng_below(&seed, 10)];
        size_t size = packed_value(bytes[k], pool[rng_below(&seed, 10)], bs[k], rng_below(&seed, 2), "ab");
        bytes[k][0] |= (uint8_t)((x[k] ? 2 : 0) | (y[k] ? 8 : 0));
        vals[k] = V(bytes[k], size);
    }
    cs_value_test t[2];
    t[0] = test_of(CS_TEST_BOOL, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    t[0].flag = 1;
    t[0].bit_mask = 2;
    t[1] = test_of(CS_TEST_I64_RANGE, 0, 1, 0, CS_FILTER_FALSE);
    t[1].packed = 1;
    t[1].low = 50;
    t[1].high = 100;
    cs_filter f = filter_of(t, 2, 1, NULL);
    f.compact_offsets = 1;
    f.var_count = 1;
    f.int_start = P_INTS;
    f.int_count = 2;
    f.int_code_byte = 0;
    size_t n = 0, want = 0, want_y = 0;
    for (unsigned k = 0; k < P_N; k++) {
        want += x[k] && bs[k] >= 50 && bs[k] <= 100;
        want_y += !y[k];
    }
    CHECK(want > 0);
    CHECK_OK(cs_filter_values(&f, vals, P_N, NULL, &n));
    CHECK_EQ(n, want);
    /* y != true, alone (chunked) */
    cs_filter g = filter_of(t, 1, 0, NULL);
    g.compact_offsets = 1;
    g.var_count = 1;
    g.int_start = P_INTS;
    g.int_count = 2;
    t[0].bit_mask = 8;
    t[0].negate = 1;
    CHECK_OK(cs_filter_values(&g, vals, P_N, NULL, &n));
    CHECK_EQ(n, want_y);
    /* the byte form reads the whole byte: not the Bool */
    t[0].bit_mask = 0;
    CHECK_OK(cs_filter_values(&g, vals, P_N, NULL, &n));
    CHECK(n != want_y);
    t[0].negate = 0;
    t[0].bit_mask = 2;

    /* the count over a tree (conj: one bool and one int test) */
    tpath path = test_path("bits.db");
    cs_env *env = NULL;
    REQUIRE_OK(test_open(path.s, 0, &env));
    cs_txn *txn;
    cs_tree tree;
    REQUIRE_OK(cs_txn_begin(env, 0, &txn));
    REQUIRE_OK(cs_tree_open(txn, "rows", CS_CREATE, &tree));
    for (uint32_t k = 0; k < P_N; k++) {
        uint8_t key[4] = {(uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k};
        CHECK_OK(cs_put(txn, tree, V(key, 4), vals[k], 0));
    }
    uint64_t counted = 0;
    CHECK_OK(cs_count_matching(txn, tree, &f, &counted));
    CHECK_EQ(counted, want);
    /* and a bool-only count, both bits (x AND NOT y) */
    cs_value_test u[2];
    u[0] = test_of(CS_TEST_BOOL, 0, 0, CS_FILTER_TRUE, CS_FILTER_FALSE);
    u[0].flag = 1;
    u[0].bit_mask = 8;
    u[0].negate = 1;
    u[1] = test_of(CS_TEST_BOOL, 0, 0, 0, CS_FILTER_FALSE);
    u[1].flag = 1;
    u[1].bit_mask = 2;
    cs_filter h = f;
    h.tests = u;
    want = 0;
    for (unsigned k = 0; k < P_N; k++) want += x[k] && !y[k];
    CHECK_OK(cs_count_matching(txn, tree, &h, &counted));
    CHECK_EQ(counted, want);
    CHECK_OK(cs_txn_abort(txn));
    cs_env_close(env);

    /* malformed: two bits, a mask on an integer test */
    t[0].bit_mask = 3;
    CHECK_RC(cs_filter_values(&f, vals, 1, NULL, &n), CS_EINVAL);
    t[0].bit_mask = 2;
    t[1].bit_mask = 2;
    CHECK_RC(cs_filter_values(&f, vals, 1, NULL, &n), CS_EINVAL);
}

int main(void) {
    agreement();
    tree_counts();
    tags();
    refusals();
    compact_offsets();
    implied_last_end();
    packed_ints();
    bool_bits();
    return test_report();
}
