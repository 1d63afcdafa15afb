/* test_textkeys.c — searches on text keys (node.c's leaf and branch
 * searches, btree_search.c's descent): trees of map-, set-, index- and
 * plain-text-shaped keys of mixed lengths, keys that are prefixes of other
 * keys, keys whose suffix after a leaf's shared prefix is empty, and binary
 * bytes 0x00/0xFF, answer every get and seek as a sorted array does — in a
 * read txn, a write txn, and after deletes merged leaves; probes include
 * every prefix of stored keys (branch separators are such prefixes). Then
 * the same on single pages, where the searches are given fences equal to
 * keys, fences outside the page's prefix and any slot guess; and key_cmp
 * itself on short binary keys. */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"
#include "test.h"

typedef struct tkey {
    uint8_t b[64];
    uint32_t n;
} tkey;

static int tkey_cmp(const void *x, const void *y)
{
    const tkey *a = x, *b = y;
    int c = memcmp(a->b, b->b, a->n < b->n ? a->n : b->n);
    return c ? c : (a->n > b->n) - (a->n < b->n);
}

static uint32_t put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
    return 8;
}

static uint32_t put_word(uint8_t *p, uint64_t *rng, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) p[i] = (uint8_t)('a' + rng_below(rng, 4 + i % 23));
    return len;
}

enum { FAMS = 7 };

/* Key i of family fam (several i may give one key: callers dedupe). */
static tkey make_key(uint32_t fam, uint32_t i, uint64_t *rng)
{
    tkey k = {.n = 0};
    switch (fam) {
    case 0: /* map entry: map id ++ "k<i>"; i = 0 is the id alone (empty key) */
        k.n = put_be64(k.b, (1ull << 63) + 5 + (i % 97 == 1));
        if (i) k.n += (uint32_t)sprintf((char *)k.b + k.n, "k%u", i);
        break;
    case 1: /* String set: id ++ words of mixed lengths, chains of prefixes */
        k.n = put_be64(k.b, (1ull << 63) + 9);
        k.n += put_word(k.b + k.n, rng, 1 + (uint32_t)rng_below(rng, i % 5 ? 12 : 40));
        break;
    case 2: /* String index: 0x01 name (0x00 escaped as 0x00 0xFF) 0x00 0x01 object key */
        k.b[k.n++] = 1;
        k.n += (uint32_t)sprintf((char *)k.b + k.n, "n%u", i / 3);
        if (i % 7 == 0) k.b[k.n++] = 0, k.b[k.n++] = 0xFF;
        k.b[k.n++] = 0, k.b[k.n++] = 1;
        k.n += put_be64(k.b + k.n, i * 2654435761u);
        break;
    case 3: /* binary: bytes near both ends of the range */
    {
        static const uint8_t alpha[] = {0x00, 0xFF, 0x01, 0xFE, 0x7F, 0x80, 'a'};
        uint32_t len = 1 + (uint32_t)rng_below(rng, 20);
        for (uint32_t j = 0; j < len; j++) k.b[k.n++] = alpha[rng_below(rng, sizeof alpha)];
        break;
    }
    case 4: /* printable from the first byte: names, some prefixes of others */
        k.n = (uint32_t)sprintf((char *)k.b, "user:");
        k.n += put_word(k.b + k.n, rng, 1 + (uint32_t)rng_below(rng, i % 3 ? 6 : 30));
        break;
    case 5: /* decimal text after an id, zero-padded and not */
        k.n = put_be64(k.b, 42);
        k.n += (uint32_t)sprintf((char *)k.b + k.n, i % 2 ? "%07u" : "%u", i * 13);
        break;
    default: /* ending in 8+ digits (interpolated over them), some with a
              * byte just below '0' or above '9' among the digits */
        if (i % 3 == 0) k.n = (uint32_t)sprintf((char *)k.b, "%016u", i * 7);
        else if (i % 3 == 1) k.n = (uint32_t)sprintf((char *)k.b, "id-%012u", i * 5);
        else k.n = (uint32_t)sprintf((char *)k.b, "0000%04u%c%07u", i % 10000, i % 2 ? '/' : ':', i);
        break;
    }
    return k;
}

/* Sorted, distinct keys of every family. */
static tkey *make_keys(uint32_t per, size_t *count)
{
    uint64_t rng = 0x5eed;
    tkey *keys = malloc((size_t)per * FAMS * sizeof *keys);
    REQUIRE(keys != NULL);
    size_t n = 0;
    for (uint32_t fam = 0; fam < FAMS; fam++)
        for (uint32_t i = 0; i < per; i++) keys[n++] = make_key(fam, i, &rng);
    qsort(keys, n, sizeof *keys, tkey_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || tkey_cmp(&keys[m - 1], &keys[i]) != 0) keys[m++] = keys[i];
    *count = m;
    return keys;
}

/* Which of the sorted keys are stored: 2 of 3, picked by a hash. */
static bool stored(size_t i) { return (i * 0x9E3779B97F4A7C15ull >> 60) % 3 != 0; }

/* First stored key >= probe, or n. */
static size_t model_seek(const tkey *keys, const bool *in, size_t n, const tkey *probe)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tkey_cmp(&keys[mid], probe) < 0) lo = mid + 1;
        else hi = mid;
    }
    while (lo < n && !in[lo]) lo++;
    return lo;
}

/* Compare one probe's get and seek with the model; the number of mismatches. */
static long check_probe(cs_txn *t, cs_tree tr, cs_cursor *c, const tkey *keys, const bool *in, size_t n,
                        const tkey *probe)
{
    long bad = 0;
    size_t at = model_seek(keys, in, n, probe);
    bool present = at < n && tkey_cmp(&keys[at], probe) == 0;
    cs_val v, k = V(probe->b, probe->n);
    int r = cs_get(t, tr, k, &v);
    if (present ? r != CS_OK || v.size != sizeof(uint32_t) || memcmp(v.data, &(uint32_t){(uint32_t)at}, 4) : r != CS_NOTFOUND)
        bad++;
    r = cs_cursor_get(c, &k, &v, CS_SEEK);
    if (at == n ? r != CS_NOTFOUND : r != CS_OK || k.size != keys[at].n || memcmp(k.data, keys[at].b, k.size)) bad++;
    return bad;
}

/* Every key, every prefix of every 8th key, and each key's neighbours
 * (last byte +-1, a 0x00 or 0xFF appended). */
static long check_all(cs_txn *t, cs_tree tr, const tkey *keys, const bool *in, size_t n)
{
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        tkey p = keys[i];
        bad += check_probe(t, tr, c, keys, in, n, &p);
        for (uint32_t len = 1; i % 8 == 0 && len < keys[i].n; len++) {
            p.n = len;
            bad += check_probe(t, tr, c, keys, in, n, &p);
        }
        p = keys[i];
        p.b[p.n - 1]++;
        bad += check_probe(t, tr, c, keys, in, n, &p);
        p.b[p.n - 1] -= 2;
        bad += check_probe(t, tr, c, keys, in, n, &p);
        p = keys[i];
        if (p.n < sizeof p.b) {
            p.b[p.n++] = 0x00;
            bad += check_probe(t, tr, c, keys, in, n, &p);
            p.b[p.n - 1] = 0xFF;
            bad += check_probe(t, tr, c, keys, in, n, &p);
        }
    }
    CHECK_OK(cs_cursor_close(c));
    return bad;
}

static void test_tree_searches(void)
{
    size_t n;
    tkey *keys = make_keys(12000, &n);
    bool *in = calloc(n, sizeof *in);
    REQUIRE(in != NULL);
    tpath path = test_path("textkeys.db");
    cs_env *env;
    REQUIRE_OK(test_open(path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "realm:lists");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    /* In a scattered order, so that leaves split everywhere. */
    for (size_t j = 0; j < n; j++) {
        size_t i = (j * 7919) % n;
        if (!stored(i)) continue;
        uint32_t v = (uint32_t)i;
        CHECK_OK(cs_put(t, tr, V(keys[i].b, keys[i].n), V(&v, sizeof v), 0));
        in[i] = true;
    }
    cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, tr, &st));
    CHECK(st.depth >= 3);
    printf("%zu keys, %zu stored, depth %u\n", n, (size_t)st.entries, st.depth);
    CHECK_EQ(check_all(t, tr, keys, in, n), 0); /* write txn */
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_EQ(check_all(t, tr, keys, in, n), 0); /* read txn */
    cs_txn_abort(t);
    /* Deletes merge and rebuild leaves with other prefixes. */
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (size_t i = 0; i < n; i++)
        if (in[i] && i % 5 < 3) {
            CHECK_OK(cs_del(t, tr, V(keys[i].b, keys[i].n)));
            in[i] = false;
        }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_EQ(check_all(t, tr, keys, in, n), 0);
    cs_txn_abort(t);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    REQUIRE_OK(cs_env_close(env));
    free(in);
    free(keys);
}

/* ---- single pages ---- */

enum { PSIZE = 4096 };

/* A page holding keys[from..to) (leaf: values empty; branch: key[0]
 * stored empty, as the tree does); false if they do not fit one page. */
static bool build_page(uint8_t *pg, bool leaf, const tkey *keys, size_t from, size_t to)
{
    static uint8_t cells[8 * PSIZE], scratch[CS_MAX_PAGE_SIZE];
    cs_cellref refs[PSIZE / 4];
    uint8_t *at = cells;
    size_t n = to - from;
    if (n == 0 || n > PSIZE / 4) return false;
    for (size_t i = 0; i < n; i++) {
        const tkey *k = &keys[from + i];
        uint32_t sz = leaf ? leaf_cell_build(at, k->b, k->n, NULL, 0, false, 0)
                           : branch_cell_build(at, 2 + i, 1, k->b, i == 0 ? 0 : k->n);
        if (at + sz > cells + sizeof cells) return false;
        refs[i] = (cs_cellref){at, sz};
        at += sz;
    }
    node_init(pg, leaf ? PT_LEAF6 : PT_BRANCH, 3, PSIZE);
    return node_rebuild(pg, PSIZE, refs, (unsigned)n, scratch);
}

/* A descent searches a node only for keys within its fences. */
static bool within(const cs_key *fence, const tkey *k)
{
    if (!fence) return true;
    if (fence[0].p) {
        tkey f = {.n = fence[0].len};
        memcpy(f.b, fence[0].p, f.n);
        if (tkey_cmp(k, &f) < 0) return false;
    }
    if (fence[1].p) {
        tkey f = {.n = fence[1].len};
        memcpy(f.b, fence[1].p, f.n);
        if (tkey_cmp(k, &f) >= 0) return false;
    }
    return true;
}

static size_t lower_bound(const tkey *keys, size_t from, size_t to, const tkey *k, bool after_equal)
{
    size_t lo = from, hi = to;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = tkey_cmp(&keys[mid], k);
        if (c < 0 || (after_equal && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Every window of keys that fits a page, as a leaf and as a branch, probed
 * with every key near it and its neighbours, under several fence choices
 * (none, unknown, the window's true bounds, bounds equal to its end keys,
 * bounds that share less of the prefix) and slot guesses. */
static void test_page_searches(void)
{
    size_t n;
    tkey *keys = make_keys(600, &n);
    static uint8_t pg[PSIZE];
    long bad = 0, pages = 0, probes = 0;
    uint64_t rng = 7;
    for (size_t from = 0; from + 2 < n; from += 1 + rng_below(&rng, 40)) {
        size_t len = 2 + rng_below(&rng, 200), to = from + len < n ? from + len : n;
        for (int leaf = 0; leaf < 2; leaf++) {
            if (!build_page(pg, leaf, keys, from, to)) continue;
            pages++;
            CHECK_EQ(node_n(pg), to - from);
            size_t plo = from > 4 ? from - 4 : 0, phi = to + 4 < n ? to + 4 : n;
            for (size_t i = plo; i < phi; i++) {
                tkey probes_k[4] = {keys[i], keys[i], keys[i], keys[i]};
                probes_k[1].b[probes_k[1].n - 1]--;
                probes_k[2].n = probes_k[2].n > 1 ? probes_k[2].n - 1 : 1;
                if (probes_k[3].n < sizeof probes_k[3].b) probes_k[3].b[probes_k[3].n++] = 0xFF;
                for (int pk = 0; pk < 4; pk++) {
                    const tkey *k = &probes_k[pk];
                    /* Fences: the searched node's keys lie in [f0, f1). */
                    cs_key lo_f = {keys[from].b, keys[from].n}, hi_f = {NULL, 0};
                    if (to < n) hi_f = (cs_key){keys[to].b, keys[to].n};
                    cs_key shorter = {keys[from].b, keys[from].n > 9 ? 9 : 1};
                    cs_key fences[5][2] = {
                        {{NULL, 0}, {NULL, 0}}, {lo_f, hi_f}, {shorter, hi_f}, {lo_f, {NULL, 0}}, {{NULL, 0}, hi_f}};
                    for (int f = -1; f < 5; f++) {
                        const cs_key *fence = f < 0 ? NULL : fences[f];
                        if (!within(fence, k)) continue;
                        probes++;
                        if (leaf) {
                            size_t want = lower_bound(keys, from, to, k, false) - from;
                            bool want_exact = want < to - from && tkey_cmp(&keys[from + want], k) == 0;
                            int guesses[] = {-1, 0, (int)(to - from) - 1, (int)rng_below(&rng, to - from)};
                            for (int g = 0; g < 4; g++) {
                                unsigned idx = 9999;
                                bool exact = !want_exact;
                                if (node_search_leaf(pg, PSIZE, k->b, k->n, fence, guesses[g], &idx, &exact) != CS_OK ||
                                    idx != want || exact != want_exact)
                                    bad++;
                            }
                        } else {
                            /* The last separator <= k among keys 1..n-1, else child 0. */
                            size_t after = lower_bound(keys, from + 1, to, k, true);
                            size_t want = after - from - 1;
                            unsigned idx = 9999;
                            if (node_search_branch(pg, PSIZE, k->b, k->n, fence, &idx) != CS_OK || idx != want) bad++;
                        }
                    }
                }
            }
        }
    }
    printf("%ld pages, %ld probes\n", pages, probes);
    CHECK(pages > 100);
    CHECK_EQ(bad, 0);
    free(keys);
}

/* key_cmp against memcmp order on short keys (branch separators are the
 * shortest keys that divide, often 4..7 bytes, compared in words): every
 * pair differing in one byte at each position, and random pairs, of
 * lengths 0..11 over bytes whose order a signed or byte-swapped compare
 * would get wrong. */
static void test_key_cmp(void)
{
    static const uint8_t bytes[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
    uint64_t rng = 11;
    long bad = 0, pairs = 0;
    for (int round = 0; round < 20000; round++) {
        tkey a = {.n = (uint32_t)rng_below(&rng, 12)}, b;
        for (uint32_t i = 0; i < a.n; i++) a.b[i] = bytes[rng_below(&rng, sizeof bytes)];
        b = a;
        if (round & 1) {
            b.n = (uint32_t)rng_below(&rng, 12);
            for (uint32_t i = 0; i < b.n; i++) b.b[i] = bytes[rng_below(&rng, sizeof bytes)];
        } else if (a.n) {
            b.b[rng_below(&rng, a.n)] = bytes[rng_below(&rng, sizeof bytes)];
        }
        int want = tkey_cmp(&a, &b), got = key_cmp(a.b, a.n, b.b, b.n);
        want = (want > 0) - (want < 0);
        pairs++;
        if (got != want || key_cmp(b.b, b.n, a.b, a.n) != -want) bad++;
    }
    printf("%ld key pairs\n", pairs);
    CHECK_EQ(bad, 0);
}

/* Keys ending in eight or more digits are text, yet a descent guesses
 * their slot from the digits (decimal_value): the guess a leaf's parent
 * makes (node_prefetch_leaf) for zero-padded decimal keys lands on the key
 * or next to it. Names and shorter numbers get no guess (bisected). */
static void test_decimal_guess(void)
{
    CHECK(key_ends_in_digits((const uint8_t *)"0000000012345678", 16));
    CHECK(key_ends_in_digits((const uint8_t *)"id-12345678", 11));
    CHECK(!key_ends_in_digits((const uint8_t *)"name1234567", 11));
    CHECK(!key_ends_in_digits((const uint8_t *)"1234567:", 8));
    CHECK(!key_ends_in_digits((const uint8_t *)"/2345678", 8));
    static uint8_t pg[PSIZE];
    enum { KEYS = 60 };
    tkey keys[KEYS + 2];
    long near = 0, tries = 0, names_guessed = 0;
    for (uint32_t base = 0; base < 3000000; base += 123457) {
        /* Present keys 2*i, as db_bench; the page holds keys[1..KEYS],
         * keys[0] and keys[KEYS+1] are its fences. */
        for (uint32_t i = 0; i < KEYS + 2; i++) keys[i].n = (uint32_t)sprintf((char *)keys[i].b, "%016u", 2 * (base + i));
        REQUIRE(build_page(pg, true, keys, 1, KEYS + 1));
        cs_key fence[2] = {{keys[0].b, keys[0].n}, {keys[KEYS + 1].b, keys[KEYS + 1].n}};
        for (unsigned i = 0; i < KEYS; i++) {
            const tkey *k = &keys[1 + i];
            int g = node_prefetch_leaf(pg, PSIZE, KEYS, k->b, k->n, fence);
            tries++;
            if (g >= 0 && (unsigned)g + 1 >= i && (unsigned)g <= i + 1) near++;
            unsigned idx = 9999;
            bool exact = false;
            CHECK_OK(node_search_leaf(pg, PSIZE, k->b, k->n, fence, g, &idx, &exact));
            CHECK(idx == i && exact);
        }
        /* Names: the same page shape, no guess. */
        for (uint32_t i = 0; i < KEYS + 2; i++) keys[i].n = (uint32_t)sprintf((char *)keys[i].b, "user:%c%c%c", 'a' + i / 26 % 26, 'a' + i % 26, 'a' + (i * 7) % 26);
        REQUIRE(build_page(pg, true, keys, 1, KEYS + 1));
        fence[0] = (cs_key){keys[0].b, keys[0].n};
        fence[1] = (cs_key){keys[KEYS + 1].b, keys[KEYS + 1].n};
        for (unsigned i = 0; i < KEYS; i++)
            if (node_prefetch_leaf(pg, PSIZE, KEYS, keys[1 + i].b, keys[1 + i].n, fence) >= 0) names_guessed++;
    }
    printf("decimal keys: %ld of %ld guesses within one slot\n", near, tries);
    CHECK_EQ(near, tries);
    CHECK_EQ(names_guessed, 0);
}

int main(void)
{
    test_decimal_guess();
    test_key_cmp();
    test_tree_searches();
    test_page_searches();
    return test_report();
}
