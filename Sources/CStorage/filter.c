/*
 * filter.c — value filters: a caller-compiled predicate over value bytes.
 *
 * Why in the engine: a filtered count over 100k records spends its time per
 * record, and a few loads and compares per record is what C does best (no
 * closure, no enum dispatch, no reference counting). The tests are plain
 * data, so the engine learns nothing of the caller's format beyond the
 * offsets each test names.
 *
 * Why 64 values at a time: interpreting the tests value by value re-reads
 * and re-dispatches every test per value. Instead a chunk of up to 64 values runs
 * through the program test by test: each test is one tight loop that sets a
 * bit per value, and the bits are routed along the test's two jumps (bit k
 * of at[j] = value k reaches test j). Jumps go to lower indexes, so walking
 * the tests from the entry downwards visits each once, after all its
 * predecessors. A count of the commonest shape (an AND of a few int and
 * bool tests without null bits) skips the chunks: its walk is compiled per
 * shape and tests each record in straight-line code (conj, below).
 *
 * Invariants checked once per call: every jump goes to a LOWER test index or
 * to a final result, so evaluation always ends; byte constants are in range.
 * Per value: one size check covers every fixed field a test may read;
 * variable fields are bounds-checked where they are read.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool f64_test(uint8_t cmp, double v, double c)
{
    bool eq = v == c || (isnan(v) && isnan(c));
    switch (cmp) {
    case CS_CMP_EQ: return eq;
    case CS_CMP_NE: return !eq;
    case CS_CMP_LT: return v < c;
    case CS_CMP_LE: return v <= c;
    case CS_CMP_GT: return v > c;
    default: return v >= c;
    }
}

/* Bytes a fixed test reads past its offset (0 for tests without one). */
static uint32_t fixed_width(const cs_value_test *t)
{
    switch (t->kind) {
    case CS_TEST_I64_RANGE:
    case CS_TEST_I64_VS_F64:
    case CS_TEST_F64: return 8;
    case CS_TEST_F32: return 4;
    case CS_TEST_BOOL: return 1;
    default: return 0;
    }
}

/* The width code of value v's packed integers (width 1 << code). */
static inline unsigned int_code(const cs_filter *f, const uint8_t *v)
{
    return v[f->int_code_byte] >> 6;
}

/* Whether value v (of `size` bytes, at least the filter's `need`) holds
 * its packed integers: their width depends on the value. */
static inline bool ints_fit(const cs_filter *f, const uint8_t *v, size_t size)
{
    return !f->int_count || (uint64_t)f->int_start + ((uint64_t)f->int_count << int_code(f, v)) <= size;
}

/* The integer 1 << code bytes wide at p, sign-extended. */
static inline uint64_t rd_packed(const uint8_t *p, unsigned code)
{
    switch (code) {
    case 0: return (uint64_t)(int64_t)(int8_t)p[0];
    case 1: return (uint64_t)(int64_t)(int16_t)rd16(p);
    case 2: return (uint64_t)(int64_t)(int32_t)rd32(p);
    default: return rd64(p);
    }
}

/* The integer test t reads from value v. */
static inline uint64_t rd_int(const cs_filter *f, const cs_value_test *t, const uint8_t *v)
{
    if (!t->packed) return rd64(v + t->offset);
    unsigned code = int_code(f, v);
    return rd_packed(v + f->int_start + ((size_t)t->offset << code), code);
}

/* Checks the filter; *min_size = the bytes a value needs for every fixed read. */
int filter_validate(const cs_filter *f, size_t *min_size)
{
    if (!f || (f->ntests && !f->tests))
        return cs_fail(CS_EINVAL, "cs_filter_values: NULL filter or tests");
    if (f->entry >= (int32_t)f->ntests || f->entry < CS_FILTER_TRUE)
        return cs_fail(CS_EINVAL, "cs_filter_values: entry %d out of range", f->entry);
    size_t need = 0;
    if (f->int_count) {
        if (f->int_code_byte >= f->int_start || (uint64_t)f->int_start + 8ull * f->int_count > UINT32_MAX)
            return cs_fail(CS_EINVAL, "cs_filter_values: packed integers at %u with the code at %u", f->int_start,
                           f->int_code_byte);
        need = (size_t)f->int_start + f->int_count; /* every integer at least one byte */
    }
    for (uint32_t i = 0; i < f->ntests; i++) {
        const cs_value_test *t = &f->tests[i];
        if (t->on_true >= (int32_t)i || t->on_false >= (int32_t)i || t->on_true < CS_FILTER_TRUE ||
            t->on_false < CS_FILTER_TRUE)
            return cs_fail(CS_EINVAL, "cs_filter_values: test %u jumps to %d/%d (must go to a lower index)", i,
                           t->on_true, t->on_false);
        if (t->kind < CS_TEST_NULL || t->kind > CS_TEST_BYTES_EQ || t->cmp > CS_CMP_GE)
            return cs_fail(CS_EINVAL, "cs_filter_values: test %u has kind %u, comparison %u", i, t->kind, t->cmp);
        if (t->kind == CS_TEST_BYTES_EQ &&
            (t->low < 0 || t->high < 0 || (uint64_t)t->low + (uint64_t)t->high > f->nconstants))
            return cs_fail(CS_EINVAL, "cs_filter_values: test %u compares constants out of range", i);
        if (t->bit_mask && (t->kind != CS_TEST_BOOL || (t->bit_mask & (t->bit_mask - 1))))
            return cs_fail(CS_EINVAL, "cs_filter_values: test %u has bit mask %#x", i, t->bit_mask);
        if (t->kind == CS_TEST_BYTES_EQ && f->implied_last_end && t->offset >= f->var_count)
            return cs_fail(CS_EINVAL, "cs_filter_values: test %u reads var field %u of %u", i, t->offset, f->var_count);
        if (t->null_mask && (size_t)t->null_byte + 1 > need) need = (size_t)t->null_byte + 1;
        if (t->packed) {
            if ((t->kind != CS_TEST_I64_RANGE && t->kind != CS_TEST_I64_VS_F64) || t->offset >= f->int_count)
                return cs_fail(CS_EINVAL, "cs_filter_values: test %u reads packed integer %u of %u", i, t->offset,
                               f->int_count);
            continue;
        }
        uint32_t w = fixed_width(t);
        if (w && (size_t)t->offset + w > need) need = (size_t)t->offset + w;
    }
    if (f->has_tag && need < 1) need = 1;
    *min_size = need;
    return CS_OK;
}

/* A var end offset `w` bytes wide (1, 2 or 4), little-endian. */
static uint32_t rd_offset(const uint8_t *p, unsigned w)
{
    return w == 1 ? p[0] : w == 2 ? (uint32_t)(p[0] | p[1] << 8) : rd32(p);
}

/* Variable field `index` of value v, or false if it lies outside the value. */
static bool var_field(const cs_filter *f, const uint8_t *v, size_t size, uint32_t index, const uint8_t **p,
                      size_t *len)
{
    unsigned w = f->compact_offsets ? cs_record_offset_width(size) : 4u;
    uint64_t table = f->int_count ? f->int_start + ((uint64_t)f->int_count << int_code(f, v)) : f->var_table;
    uint32_t stored = f->var_count - (f->implied_last_end && f->var_count);
    uint64_t data = f->compact_offsets || f->int_count ? table + w * (uint64_t)stored : f->var_data;
    uint64_t end_at = table + w * (uint64_t)index;
    uint32_t end, start;
    if (index < stored || !f->implied_last_end) {
        if (end_at + w > size) return false;
        end = rd_offset(v + end_at, w);
    } else {
        /* the last field ends at the value's end (validate: index < var_count) */
        if (data > size) return false;
        end = (uint32_t)(size - data);
    }
    start = index ? rd_offset(v + end_at - w, w) : 0;
    if (start > end || data + end > size) return false;
    *p = v + data + start;
    *len = end - start;
    return true;
}

#define CHUNK 64
/* Up to 64 values, each at least `need` bytes (checked when gathered). */
typedef struct chunk {
    const uint8_t *v[CHUNK];
    uint32_t size[CHUNK];
    unsigned n;
} chunk;

/* A double comparison on one value (before null and negate). */
static bool double_test(const cs_filter *f, const cs_value_test *t, const uint8_t *v)
{
    const uint8_t *at = v + t->offset;
    switch (t->kind) {
    case CS_TEST_I64_VS_F64: return f64_test(t->cmp, (double)(int64_t)rd_int(f, t, v), t->f64);
    case CS_TEST_F64: {
        uint64_t bits = rd64(at);
        double d;
        memcpy(&d, &bits, 8);
        return f64_test(t->cmp, d, t->f64);
    }
    default: { /* CS_TEST_F32 */
        uint32_t bits = rd32(at);
        float x;
        memcpy(&x, &bits, 4);
        return f64_test(t->cmp, (double)x, t->f64);
    }
    }
}

/* Bit k set where test t holds for value k. Fixed-field tests read every
 * value of the chunk, branch-free (each is long enough), unless under half
 * of them reach the test: then only those (cheaper than the branch-free
 * pass below that density for the int and bool tests; the double tests,
 * which dispatch per value, switch at a quarter). Variable fields are read
 * only for the values in `want`. -1: such a field is out of bounds. */
static int test_mask(const cs_filter *f, const cs_value_test *t, const chunk *c, uint64_t want, uint64_t *out)
{
    const unsigned n = c->n, reach = (unsigned)__builtin_popcountll(want);
    const uint32_t off = t->offset;
    uint64_t nulls = 0, r = 0;
    if (t->null_mask)
        for (unsigned k = 0; k < n; k++) nulls |= (uint64_t)((c->v[k][t->null_byte] & t->null_mask) != 0) << k;
    /* r |= bit for each value of the chunk, or for each value in `want` */
#define EACH(sparse, bit)                                                                \
    do {                                                                                 \
        if (sparse)                                                                      \
            for (uint64_t w = want; w; w &= w - 1) {                                     \
                unsigned k = (unsigned)__builtin_ctzll(w);                               \
                r |= (uint64_t)(bit) << k;                                               \
            }                                                                            \
        else                                                                             \
            for (unsigned k = 0; k < n; k++) r |= (uint64_t)(bit) << k;                  \
    } while (0)
    switch (t->kind) {
    case CS_TEST_NULL:
        *out = t->flag ? nulls : ~nulls;
        return 0;
    case CS_TEST_I64_RANGE: {
        const uint64_t low = (uint64_t)t->low, span = (uint64_t)t->high - low;
        if (t->packed)
            EACH(2 * reach < n, rd_int(f, t, c->v[k]) - low <= span);
        else
            EACH(2 * reach < n, rd64(c->v[k] + off) - low <= span);
        break;
    }
    case CS_TEST_BOOL: {
        const uint8_t mask = t->bit_mask ? t->bit_mask : 0xff;
        EACH(2 * reach < n, (c->v[k][off] & mask) != 0);
        if (!t->flag) r = ~r;
        break;
    }
    case CS_TEST_BYTES_EQ:
        for (uint64_t w = want & ~nulls; w; w &= w - 1) {
            unsigned k = (unsigned)__builtin_ctzll(w);
            const uint8_t *p;
            size_t len;
            if (!var_field(f, c->v[k], c->size[k], off, &p, &len)) return -1;
            const uint8_t *want_bytes = f->constants + t->low;
            /* The last byte first: values of one shape (names, numbered
             * strings) share their first bytes and differ at the end, and
             * most then need no memcmp call. */
            bool eq = len == (size_t)t->high &&
                      (len == 0 || (p[len - 1] == want_bytes[len - 1] && memcmp(p, want_bytes, len - 1) == 0));
            r |= (uint64_t)eq << k;
        }
        break;
    default: /* the double comparisons: the comparison is chosen per value */
        EACH(4 * reach < n, double_test(f, t, c->v[k]));
        break;
    }
#undef EACH
    if (t->negate) r = ~r;
    /* nil is unequal to every constant and never ordered */
    *out = (r & ~nulls) | (t->cmp == CS_CMP_NE ? nulls : 0);
    return 0;
}

/* The matching values of a chunk as bits. `at` has room for f->ntests. */
static int eval_chunk(const cs_filter *f, const chunk *c, uint64_t *at, uint64_t *match)
{
    const uint64_t all = c->n == CHUNK ? ~0ull : (1ull << c->n) - 1;
    uint64_t yes = 0;
    if (f->entry < 0) {
        *match = f->entry == CS_FILTER_TRUE ? all : 0;
        return 0;
    }
    memset(at, 0, sizeof *at * ((size_t)f->entry + 1));
    at[f->entry] = all;
    for (int32_t j = f->entry; j >= 0; j--) {
        const uint64_t reach = at[j];
        if (!reach) continue;
        const cs_value_test *t = &f->tests[j];
        uint64_t r;
        if (test_mask(f, t, c, reach, &r)) return -1;
        const int32_t to[2] = {t->on_false, t->on_true};
        const uint64_t bits[2] = {reach & ~r, reach & r};
        for (int b = 0; b < 2; b++) {
            if (to[b] >= 0) at[to[b]] |= bits[b];
            else if (to[b] == CS_FILTER_TRUE) yes |= bits[b];
        }
    }
    *match = yes & all;
    return 0;
}

/* Scratch for eval_chunk: on the stack for up to 64 tests, else malloc'd. */
typedef struct scratch {
    uint64_t local[64];
    uint64_t *at;
} scratch;

static int scratch_init(scratch *s, const cs_filter *f)
{
    s->at = s->local;
    if (f->ntests > 64 && !(s->at = malloc(sizeof *s->at * f->ntests)))
        return cs_fail(CS_ENOMEM, "cs_filter: %u tests", f->ntests);
    return CS_OK;
}

static void scratch_free(scratch *s)
{
    if (s->at != s->local) free(s->at);
}

/* The commonest filter: `a AND b ...` of at most two int-range and two
 * bool tests on required fields (no null bit). A count evaluates it record
 * by record as it walks the leaves, with no chunk to fill and no branch per
 * test: the walk is compiled once per shape (how many tests of each kind),
 * so the tests are unrolled straight-line code, cheaper per record than
 * filling a chunk. */
enum { CONJ_MAX = 2 };
typedef struct conj {
    unsigned nint, nbool;
    bool packed;            /* the int tests read packed integers (int_off: their indexes) */
    uint32_t int_start, code_byte;
    uint64_t int_need[4];   /* packed: the bytes a value of each width code needs (need included) */
    uint32_t int_off[CONJ_MAX];
    uint64_t int_low[CONJ_MAX], int_span[CONJ_MAX], int_flip[CONJ_MAX]; /* flip: 1 for != */
    uint32_t bool_off[CONJ_MAX];
    uint8_t bool_mask[CONJ_MAX];  /* 0xff: a byte; else the Bool's bit */
    uint64_t bool_flip[CONJ_MAX]; /* 1: the test passes on a zero byte */
} conj;

static bool conj_of(const cs_filter *f, size_t need, conj *q)
{
    q->nint = q->nbool = 0;
    q->packed = f->int_count > 0;
    q->int_start = f->int_start;
    q->code_byte = f->int_code_byte;
    for (unsigned c = 0; c < 4; c++) {
        const uint64_t ints = (uint64_t)f->int_start + ((uint64_t)f->int_count << c);
        q->int_need[c] = ints > need ? ints : need;
    }
    for (int32_t j = f->entry; j != CS_FILTER_TRUE;) {
        if (j < 0) return false;
        const cs_value_test *t = &f->tests[j];
        if (t->on_false != CS_FILTER_FALSE || t->null_mask) return false;
        if (t->kind == CS_TEST_I64_RANGE && q->nint < CONJ_MAX && t->packed == q->packed) {
            q->int_off[q->nint] = t->offset;
            q->int_low[q->nint] = (uint64_t)t->low;
            q->int_span[q->nint] = (uint64_t)t->high - (uint64_t)t->low;
            q->int_flip[q->nint++] = t->negate != 0;
        } else if (t->kind == CS_TEST_BOOL && q->nbool < CONJ_MAX) {
            q->bool_off[q->nbool] = t->offset;
            q->bool_mask[q->nbool] = t->bit_mask ? t->bit_mask : 0xff;
            /* ((v != 0) == flag) != negate  <=>  (v != 0) != (flag == negate) */
            q->bool_flip[q->nbool++] = (t->flag != 0) == (t->negate != 0);
        } else {
            return false;
        }
        j = t->on_true;
    }
    return q->nint + q->nbool > 0;
}

/* 1 if value v passes q's first nint int tests and nbool bool tests (both
 * compile-time constants at every use, so the loops unroll). code: -1 for
 * 8-byte integers at their offsets, else the packed integers' width code
 * (a constant in the fast loops, so the load has its width). */
static inline __attribute__((always_inline)) uint64_t conj_eval(const conj *q, const uint8_t *v, int code,
                                                               unsigned nint, unsigned nbool)
{
    uint64_t ok = 1;
    for (unsigned j = 0; j < nint; j++) {
        const uint64_t x = code < 0 ? rd64(v + q->int_off[j])
                                    : rd_packed(v + q->int_start + ((size_t)q->int_off[j] << code), (unsigned)code);
        ok &= (uint64_t)(x - q->int_low[j] <= q->int_span[j]) ^ q->int_flip[j];
    }
    for (unsigned j = 0; j < nbool; j++) ok &= (uint64_t)((v[q->bool_off[j]] & q->bool_mask[j]) != 0) ^ q->bool_flip[j];
    return ok;
}

/* The value of a compact leaf's cell i if it is an inline value with
 * one-byte suffix and value words (the common case; a uniform leaf's cells,
 * ul = leaf6_uniform > 0, have the value word alone, a fixed-value leaf's,
 * fv = leaf6_fixed > 0, the suffix word alone or neither), inside the cell
 * area [PAGE_HDR, top) (span = top - PAGE_HDR - 2) and of at least need
 * bytes; else NULL (the caller's checked path reads it). */
static inline __attribute__((always_inline)) const uint8_t *fast_value(const uint8_t *pg, unsigned i, uint32_t top,
                                                                       uint32_t span, size_t need, uint32_t ul,
                                                                       uint32_t fv, uint32_t *vl)
{
    const uint32_t off = rd16(pg + PAGE_HDR + 2 * (size_t)i);
    if (CS_UNLIKELY(off - PAGE_HDR > span)) return NULL; /* the cell's head is in the area */
    uint32_t at;
    if (fv) {
        *vl = fv - 1u;
        if (ul) at = off + ul - 1u;
        else {
            /* The suffix word alone: 0x80, more than one byte. */
            const uint32_t head = pg[off];
            if (CS_UNLIKELY(head & 0x80)) return NULL;
            at = off + 1 + head;
        }
        if (CS_UNLIKELY(at + *vl > top || *vl < need)) return NULL;
        return pg + at;
    }
    const uint32_t head = rd16(pg + off);
    if (ul) {
        /* The value word alone: 0x80, more than one byte; 0x1, overflow. */
        if (CS_UNLIKELY(head & 0x81)) return NULL;
        at = off + ul;
        *vl = (head & 0xff) >> 1;
    } else {
        /* 0x8080: either word takes more than one byte; 0x100: overflow value. */
        if (CS_UNLIKELY(head & 0x8180)) return NULL;
        at = off + 2 + (head & 0x7f);
        *vl = head >> 9;
    }
    if (CS_UNLIKELY(at + *vl > top || *vl < need)) return NULL;
    return pg + at;
}

/* Counts q's matches among a compact leaf's cells from i on while
 * fast_value reads each (and, packed, while each has width code `code`:
 * int_need[code] covers need, the code byte and the integers, so the size
 * test is the one of 8-byte integers); stops at the first cell that is
 * not and returns its index (n when none). A loop of its own, called once
 * per leaf: inside count_walk the tests' constants do not fit in
 * registers beside the walk's state. Untagged values only (a tag is one
 * more test per cell). ul, fv: the leaf's leaf6_uniform and leaf6_fixed, 0
 * or not at each call (one loop each). */
static inline __attribute__((always_inline)) unsigned conj_count_leaf(const uint8_t *pg, unsigned i, unsigned n,
                                                                      uint32_t top, size_t need, const conj *qp,
                                                                      uint64_t *got, unsigned nint, unsigned nbool,
                                                                      int code, uint32_t ul, uint32_t fv)
{
    const conj q = *qp;
    uint64_t g = 0;
    if (top < PAGE_HDR + 2) return i;
    const uint32_t span = top - PAGE_HDR - 2;
    const size_t need_here = code < 0 ? need : q.int_need[code];
    for (; i < n; i++) {
        uint32_t vl;
        const uint8_t *v = fast_value(pg, i, top, span, need_here, ul, fv, &vl);
        if (CS_UNLIKELY(!v)) break;
        if (code >= 0 && CS_UNLIKELY(v[q.code_byte] >> 6 != (unsigned)code)) break;
        g += conj_eval(&q, v, code, nint, nbool);
    }
    *got += g;
    return i;
}

/* conj_count_leaf over packed integers: the loop for the width of the
 * cell it stands at, again where a cell of another width stopped it. */
static inline __attribute__((always_inline)) unsigned conj_count_packed(const uint8_t *pg, unsigned i, unsigned n,
                                                                        uint32_t top, size_t need, const conj *q,
                                                                        uint64_t *got, unsigned nint, unsigned nbool,
                                                                        uint32_t ul, uint32_t fv)
{
    if (top < PAGE_HDR + 2) return i;
    while (i < n) {
        uint32_t vl;
        const uint8_t *v = fast_value(pg, i, top, top - PAGE_HDR - 2, need, ul, fv, &vl);
        if (!v) return i;
        unsigned stop;
        switch (v[q->code_byte] >> 6) {
        case 0: stop = conj_count_leaf(pg, i, n, top, need, q, got, nint, nbool, 0, ul, fv); break;
        case 1: stop = conj_count_leaf(pg, i, n, top, need, q, got, nint, nbool, 1, ul, fv); break;
        case 2: stop = conj_count_leaf(pg, i, n, top, need, q, got, nint, nbool, 2, ul, fv); break;
        default: stop = conj_count_leaf(pg, i, n, top, need, q, got, nint, nbool, 3, ul, fv); break;
        }
        if (stop == i) return i; /* too short for its width: the checked path reports it */
        i = stop;
    }
    return i;
}

/* Each leaf kind gets its loops: one that stores every length (ul = fv =
 * 0 there), a uniform one (fv = 0) and a fixed-value one. */
#define CONJ_COUNT_LEAF(ni, nb)                                                                                    \
    static __attribute__((noinline)) unsigned conj_count_leaf_##ni##nb(const uint8_t *pg, unsigned i, unsigned n,  \
                                                                       uint32_t top, size_t need, const conj *q,   \
                                                                       uint64_t *got, uint32_t ul, uint32_t fv)    \
    {                                                                                                              \
        if (ni && q->packed)                                                                                       \
            return fv   ? conj_count_packed(pg, i, n, top, need, q, got, ni, nb, ul, fv)                           \
                   : ul ? conj_count_packed(pg, i, n, top, need, q, got, ni, nb, ul, 0)                            \
                        : conj_count_packed(pg, i, n, top, need, q, got, ni, nb, 0, 0);                            \
        return fv   ? conj_count_leaf(pg, i, n, top, need, q, got, ni, nb, -1, ul, fv)                             \
               : ul ? conj_count_leaf(pg, i, n, top, need, q, got, ni, nb, -1, ul, 0)                              \
                    : conj_count_leaf(pg, i, n, top, need, q, got, ni, nb, -1, 0, 0);                              \
    }
CONJ_COUNT_LEAF(0, 1)
CONJ_COUNT_LEAF(0, 2)
CONJ_COUNT_LEAF(1, 0)
CONJ_COUNT_LEAF(1, 1)
CONJ_COUNT_LEAF(1, 2)
CONJ_COUNT_LEAF(2, 0)
CONJ_COUNT_LEAF(2, 1)
CONJ_COUNT_LEAF(2, 2)
#undef CONJ_COUNT_LEAF

/* conj_count_leaf for the shape (constants at each use: one call). */
static inline __attribute__((always_inline)) unsigned conj_count_shape(const uint8_t *pg, unsigned i, unsigned n,
                                                                       uint32_t top, size_t need, const conj *q,
                                                                       uint64_t *got, unsigned nint, unsigned nbool)
{
    const uint32_t ul = leaf6_uniform(pg), fv = leaf6_fixed(pg);
    switch (nint * 10 + nbool) {
    case 1: return conj_count_leaf_01(pg, i, n, top, need, q, got, ul, fv);
    case 2: return conj_count_leaf_02(pg, i, n, top, need, q, got, ul, fv);
    case 10: return conj_count_leaf_10(pg, i, n, top, need, q, got, ul, fv);
    case 11: return conj_count_leaf_11(pg, i, n, top, need, q, got, ul, fv);
    case 12: return conj_count_leaf_12(pg, i, n, top, need, q, got, ul, fv);
    case 20: return conj_count_leaf_20(pg, i, n, top, need, q, got, ul, fv);
    case 21: return conj_count_leaf_21(pg, i, n, top, need, q, got, ul, fv);
    case 22: return conj_count_leaf_22(pg, i, n, top, need, q, got, ul, fv);
    default: return i;
    }
}

/* Value i of leaf p->pg[depth-1] (pg; compact: a compact leaf whose cells
 * lie in [PAGE_HDR, top), ul and fv its shape) for a filter that reads
 * `need` bytes: inline values in place, overflow values and damaged cells
 * (which bt_read reports) through bt_read. CS_ECORRUPT for a value too
 * short for the filter's fixed fields or its packed integers, CS_EFORMAT
 * for one without the filter's tag. */
static inline __attribute__((always_inline)) int filtered_value(cs_txn *t, bt_path *p, const cs_filter *f,
                                                                size_t need, const uint8_t *pg, unsigned i,
                                                                bool compact, uint32_t top, uint32_t ul, uint32_t fv,
                                                                const uint8_t **out, uint32_t *out_len)
{
    const uint32_t psize = t->psize;
    const uint8_t *v;
    uint32_t vl;
    bool slow;
    if (compact) {
        /* The common cell without the varint loop (fast_value); any other
         * through leaf6_parse. */
        const uint8_t *fast = top >= PAGE_HDR + 2 ? fast_value(pg, i, top, top - PAGE_HDR - 2, 0, ul, fv, &vl) : NULL;
        if (CS_LIKELY(fast != NULL)) {
            v = fast;
            slow = vl < need;
        } else {
            leaf6_cell cell;
            slow = !leaf6_parse(pg, psize, i, &cell) || (cell.vw & 1) || (cell.vw >> 1) < need;
            v = cell.v;
            vl = cell.vw >> 1;
        }
    } else {
        uint32_t off = node_slot(pg, i), kl = 0;
        vl = VLEN_OVERFLOW;
        if (CS_LIKELY(off <= psize - LEAF_CELL_HDR)) {
            kl = rd16(pg + off);
            vl = rd32(pg + off + 2);
        }
        v = pg + off + LEAF_CELL_HDR + kl;
        /* One test for the common case; the overflow flag makes the end
         * exceed the page. */
        slow = ((uint64_t)off + LEAF_CELL_HDR + kl + vl > psize) | (off < PAGE_HDR) | (vl < need);
    }
    if (CS_UNLIKELY(slow)) {
        cs_val val;
        int leaf = p->depth - 1, rc;
        p->idx[leaf] = (uint16_t)i;
        if ((rc = bt_read(t, p, NULL, NULL, &val))) return rc;
        v = val.data;
        vl = (uint32_t)val.size;
        if (vl < need)
            return cs_fail(CS_ECORRUPT, "page %llu: value %u has %u bytes; the filter reads %zu",
                           (unsigned long long)PH(pg)->pgno, i, vl, need);
    }
    if (CS_UNLIKELY(f->has_tag) && v[0] != f->tag)
        return cs_fail(CS_EFORMAT, "page %llu: value %u is not of the filter's layout (tag %u, not %u)",
                       (unsigned long long)PH(pg)->pgno, i, v[0], f->tag);
    if (CS_UNLIKELY(!ints_fit(f, v, vl)))
        return cs_fail(CS_ECORRUPT, "page %llu: value %u has %u bytes, too few for its packed integers",
                       (unsigned long long)PH(pg)->pgno, i, vl);
    *out = v;
    *out_len = vl;
    return CS_OK;
}

/* What a count's walk over the leaves carries. */
typedef struct count_state {
    cs_txn *t;
    bt_path p;
    const cs_filter *filter;
    size_t need;
    conj q;
    chunk c;
    uint64_t *at;
    uint64_t got;
} count_state;

/* Walks every leaf, counting matches: with q's tests when nint + nbool > 0
 * (constants at each call: cs_count_matching instantiates one walk per
 * shape), else through chunks and eval_chunk. */
static inline __attribute__((always_inline)) int count_walk(count_state *s, unsigned nint, unsigned nbool)
{
    const uint32_t psize = s->t->psize;
    const size_t need = s->need;
    const int leaf = s->p.depth - 1;
    const bool chunked = nint + nbool == 0;
    const conj q = s->q; /* a local copy the compiler can keep in registers */
    const bool tagged = s->filter->has_tag;
    uint64_t got = 0, match;
    int rc;
    /* Chunks may span leaves: in a read txn (and in a write txn until its
     * next change) every page of the snapshot stays where it is. */
    for (bool more = true; more;) {
        const uint8_t *pg = s->p.pg[leaf];
        unsigned n = node_n(pg);
        const bool compact = node_is_compact(pg);
        /* A compact leaf's cells end where its prefix starts (a damaged
         * prefix length leaves no room: every cell takes the checked path). */
        const uint32_t plen = node_prefix_len(pg), top = plen < psize ? psize - plen : 0, ul = leaf6_uniform(pg),
                       fv = leaf6_fixed(pg);
        bt_prefetch_sibling(s->t, &s->p, true);
        unsigned cn = s->c.n; /* in a register: the chunk's address escapes to eval_chunk */
        for (unsigned i = 0; i < n; i++) {
            if (!chunked && compact && !tagged) {
                /* The common cells in one tight loop; the one it stops at
                 * (if any) takes the checked path below. */
                i = conj_count_shape(pg, i, n, top, need, &q, &got, nint, nbool);
                if (i == n) break;
            }
            const uint8_t *v;
            uint32_t vl;
            if ((rc = filtered_value(s->t, &s->p, s->filter, need, pg, i, compact, top, ul, fv, &v, &vl))) return rc;
            if (!chunked) {
                got += conj_eval(&q, v, q.packed ? v[q.code_byte] >> 6 : -1, nint, nbool);
                continue;
            }
            s->c.v[cn] = v;
            s->c.size[cn] = vl;
            if (++cn == CHUNK) {
                s->c.n = cn;
                if (eval_chunk(s->filter, &s->c, s->at, &match)) return -1;
                got += (uint64_t)__builtin_popcountll(match);
                cn = 0;
            }
        }
        s->c.n = cn;
        /* The next leaf: bt_step from the last entry climbs and descends. */
        s->p.idx[leaf] = (uint16_t)(n ? n - 1 : 0);
        rc = bt_step(s->t, &s->p, true);
        more = rc == CS_OK;
        if (rc && rc != CS_NOTFOUND) return rc;
    }
    if (s->c.n) {
        if (eval_chunk(s->filter, &s->c, s->at, &match)) return -1;
        got += (uint64_t)__builtin_popcountll(match);
    }
    s->got = got;
    return CS_OK;
}

int cs_count_matching(cs_txn *t, cs_tree tree, const cs_filter *filter, uint64_t *out)
{
    if (!out) return cs_fail(CS_EINVAL, "cs_count_matching: NULL count");
    *out = 0;
    count_state s;
    int rc = filter_validate(filter, &s.need);
    if (rc || (rc = txn_check(t, false))) return rc;
    cs_tree_desc *d;
    if ((rc = tree_desc_get(t, tree, false, &d))) return rc == CS_NOTFOUND ? CS_OK : rc;
    if ((rc = bt_edge(t, d, false, &s.p))) return rc == CS_NOTFOUND ? CS_OK : rc;
    scratch sc;
    if ((rc = scratch_init(&sc, filter))) return rc;
    s.t = t;
    s.filter = filter;
    s.c.n = 0;
    s.at = sc.at;
    s.got = 0;
    unsigned shape = conj_of(filter, s.need, &s.q) ? s.q.nint * 10 + s.q.nbool : 0;
    switch (shape) {
    case 1: rc = count_walk(&s, 0, 1); break;
    case 2: rc = count_walk(&s, 0, 2); break;
    case 10: rc = count_walk(&s, 1, 0); break;
    case 11: rc = count_walk(&s, 1, 1); break;
    case 12: rc = count_walk(&s, 1, 2); break;
    case 20: rc = count_walk(&s, 2, 0); break;
    case 21: rc = count_walk(&s, 2, 1); break;
    case 22: rc = count_walk(&s, 2, 2); break;
    default: rc = count_walk(&s, 0, 0);
    }
    if (rc == -1) rc = cs_fail(CS_ECORRUPT, "a value's variable field lies outside the value");
    if (rc == CS_OK) *out = s.got;
    scratch_free(&sc);
    return rc;
}

int filter_leaf_matches(cs_txn *t, bt_path *p, const cs_filter *f, size_t need, unsigned from, uint16_t *hits,
                        size_t cap, size_t *nhits, unsigned *last)
{
    const uint32_t psize = t->psize;
    const uint8_t *pg = p->pg[p->depth - 1];
    const unsigned n = node_n(pg);
    const bool compact = node_is_compact(pg);
    const uint32_t plen = node_prefix_len(pg), top = plen < psize ? psize - plen : 0, ul = leaf6_uniform(pg),
                   fv = leaf6_fixed(pg);
    *nhits = 0;
    *last = n ? n - 1 : 0;
    bt_prefetch_sibling(t, p, true);
    size_t got = 0;
    int rc = CS_OK;
    scratch sc;
    if ((rc = scratch_init(&sc, f))) return rc;
    chunk c;
    /* A chunk holds entries base..base+63 of this leaf, so bit k of its
     * matches is entry base + k. */
    for (unsigned base = from; base < n && got < cap && rc == CS_OK; base += CHUNK) {
        c.n = n - base < CHUNK ? n - base : CHUNK;
        for (unsigned k = 0; k < c.n && rc == CS_OK; k++) {
            const uint8_t *v;
            uint32_t vl;
            if ((rc = filtered_value(t, p, f, need, pg, base + k, compact, top, ul, fv, &v, &vl)) == CS_OK) {
                c.v[k] = v;
                c.size[k] = vl;
            }
        }
        uint64_t match;
        if (rc) break;
        if (eval_chunk(f, &c, sc.at, &match)) {
            rc = cs_fail(CS_ECORRUPT, "page %llu: a value's variable field lies outside the value",
                         (unsigned long long)PH(pg)->pgno);
            break;
        }
        for (uint64_t w = match; w && got < cap; w &= w - 1)
            hits[got++] = (uint16_t)(base + (unsigned)__builtin_ctzll(w));
    }
    scratch_free(&sc);
    if (rc) return rc;
    if (got == cap) *last = hits[got - 1];
    *nhits = got;
    return CS_OK;
}

int cs_filter_values(const cs_filter *filter, const cs_val *vals, size_t n, uint32_t *matches, size_t *nmatched)
{
    if (!nmatched || (n && !vals)) return cs_fail(CS_EINVAL, "cs_filter_values: NULL values or count");
    *nmatched = 0;
    size_t need;
    int rc = filter_validate(filter, &need);
    if (rc) return rc;
    scratch sc;
    if ((rc = scratch_init(&sc, filter))) return rc;
    size_t got = 0;
    chunk c;
    for (size_t base = 0; base < n && rc == CS_OK; base += CHUNK) {
        c.n = (unsigned)(n - base < CHUNK ? n - base : CHUNK);
        for (unsigned k = 0; k < c.n; k++) {
            const cs_val *v = &vals[base + k];
            if (CS_UNLIKELY(v->size < need || v->size > UINT32_MAX || (need && !v->data))) {
                rc = cs_fail(CS_ECORRUPT, "value %zu has %zu bytes; the filter reads %zu", base + k, v->size, need);
                break;
            }
            if (CS_UNLIKELY(filter->has_tag) && ((const uint8_t *)v->data)[0] != filter->tag) {
                rc = cs_fail(CS_EFORMAT, "value %zu is not of the filter's layout (tag %u, not %u)", base + k,
                             ((const uint8_t *)v->data)[0], filter->tag);
                break;
            }
            if (CS_UNLIKELY(!ints_fit(filter, v->data, v->size))) {
                rc = cs_fail(CS_ECORRUPT, "value %zu has %zu bytes, too few for its packed integers", base + k, v->size);
                break;
            }
            c.v[k] = v->data;
            c.size[k] = (uint32_t)v->size;
        }
        uint64_t match;
        if (rc) break;
        if (eval_chunk(filter, &c, sc.at, &match)) {
            rc = cs_fail(CS_ECORRUPT, "values %zu..: a variable field lies outside its value", base);
            break;
        }
        if (matches)
            for (uint64_t w = match; w; w &= w - 1) matches[got++] = (uint32_t)(base + (size_t)__builtin_ctzll(w));
        else
            got += (size_t)__builtin_popcountll(match);
    }
    scratch_free(&sc);
    if (rc == CS_OK) *nmatched = got;
    return rc;
}
