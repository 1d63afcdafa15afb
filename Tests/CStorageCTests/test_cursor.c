/* test_cursor.c — cursor movement on trees of 0, 1 and many entries (a
 * tree deeper than 3 levels), rank access, cursor put/del semantics,
 * cursors across modifications, cursor renew. */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "test.h"

/* Keys: a long common prefix, then 8 decimal digits of an even number, so
 * separators cannot be shortened and the tree gets deep: key(i) < key(j)
 * iff i < j. Odd numbers fall between keys. */
enum { BIG = 200000, KEYLEN = 100 };

static size_t mkkey(char *k, uint32_t num) {
    memset(k, 'p', KEYLEN - 8);
    char d[9];
    snprintf(d, sizeof d, "%08u", num);
    memcpy(k + KEYLEN - 8, d, 8);
    return KEYLEN;
}
static int keynum(cs_val k) {
    if (k.size != KEYLEN) return -1;
    char d[9];
    memcpy(d, (const char *)k.data + KEYLEN - 8, 8);
    d[8] = 0;
    return atoi(d);
}
/* value of entry i: its index as 4 bytes, repeated (i % 7) times */
static size_t mkval(char *v, uint32_t i) {
    size_t n = i % 7;
    for (size_t j = 0; j < n; j++) memcpy(v + 4 * j, &i, 4);
    return 4 * n;
}

static cs_env *g_env;

static void test_empty_and_one(void) {
    cs_txn *t;
    cs_tree tr;
    cs_cursor *c;
    cs_val k, v;
    char kb[KEYLEN];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "empty", CS_CREATE, &tr));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    static const cs_cursor_op ops[] = {CS_FIRST, CS_LAST, CS_NEXT, CS_PREV};
    for (int i = 0; i < 4; i++) CHECK_RC(cs_cursor_get(c, &k, &v, ops[i]), CS_NOTFOUND);
    k = VS("m");
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_SEEK), CS_NOTFOUND);
    k = VS("m");
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_SEEK_EXACT), CS_NOTFOUND);
    CHECK_RC(cs_cursor_seek_index(c, 0, &k, &v), CS_NOTFOUND);
    CHECK_RC(cs_get_index(t, tr, 0, &v), CS_NOTFOUND);
    CHECK_RC(cs_get_index(t, tr, 0, NULL), CS_EINVAL);
    int r = cs_cursor_get(c, &k, &v, CS_CURRENT);
    CHECK(r == CS_NOTFOUND || r == CS_EINVAL);
    CHECK_OK(cs_cursor_close(c));

    REQUIRE_OK(cs_tree_open(t, "one", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, V(kb, mkkey(kb, 10)), VS("ten"), 0));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    for (int i = 0; i < 4; i++) { /* each op from an unpositioned cursor */
        cs_cursor *c2;
        REQUIRE_OK(cs_cursor_open(t, tr, &c2));
        CHECK_OK(cs_cursor_get(c2, &k, &v, ops[i]));
        CHECK_EQ(keynum(k), 10);
        CHECK_VAL(v, "ten", 3);
        CHECK_OK(cs_cursor_close(c2));
    }
    CHECK_OK(cs_cursor_get(c, &k, NULL, CS_FIRST));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_NEXT), CS_NOTFOUND);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_CURRENT)); /* stays put */
    CHECK_EQ(keynum(k), 10);
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_PREV), CS_NOTFOUND);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 10);
    k = V(kb, mkkey(kb, 9));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_SEEK));
    CHECK_EQ(keynum(k), 10);
    k = V(kb, mkkey(kb, 11));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_SEEK), CS_NOTFOUND);
    k = V(kb, mkkey(kb, 9));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_SEEK_EXACT), CS_NOTFOUND);
    uint64_t idx = 99;
    CHECK_OK(cs_cursor_seek_index(c, 0, &k, NULL));
    CHECK_OK(cs_cursor_index(c, &idx));
    CHECK_EQ(idx, 0);
    CHECK_RC(cs_cursor_seek_index(c, 1, &k, NULL), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_txn_commit(t));
}

static cs_tree g_big;

static void fill_big(void) {
    cs_txn *t;
    char kb[KEYLEN], vb[32];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "big", CS_CREATE, &g_big));
    /* a permutation of 0..BIG-1 (BIG and the step are coprime) */
    for (uint32_t j = 0; j < BIG; j++) {
        uint32_t i = (uint32_t)(((uint64_t)j * 7919u) % BIG);
        CHECK_OK(cs_put(t, g_big, V(kb, mkkey(kb, 2 * i)), V(vb, mkval(vb, i)), 0));
    }
    struct cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, g_big, &st));
    CHECK_EQ(st.entries, BIG);
    CHECK(st.depth > 3);
    printf("big tree: depth %u, %llu branch, %llu leaf pages\n", st.depth,
           (unsigned long long)st.branch_pages, (unsigned long long)st.leaf_pages);
    REQUIRE_OK(cs_txn_commit(t));
}

static void test_big_scans(void) {
    cs_txn *t;
    cs_cursor *c;
    cs_val k, v;
    char kb[KEYLEN], vb[32];
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_cursor_open(t, g_big, &c));
    /* forward */
    long bad = 0, n = 0;
    for (int r = cs_cursor_get(c, &k, &v, CS_FIRST); r == CS_OK;
         r = cs_cursor_get(c, &k, &v, CS_NEXT), n++) {
        size_t vl = mkval(vb, (uint32_t)n);
        if (keynum(k) != 2 * n || v.size != vl || memcmp(v.data, vb, vl)) bad++;
    }
    CHECK_EQ(n, BIG);
    CHECK_EQ(bad, 0);
    /* backward */
    n = BIG;
    for (int r = cs_cursor_get(c, &k, &v, CS_LAST); r == CS_OK;
         r = cs_cursor_get(c, &k, &v, CS_PREV)) {
        n--;
        if (keynum(k) != 2 * n) bad++;
    }
    CHECK_EQ(n, 0);
    CHECK_EQ(bad, 0);
    /* end behaviour: stays on the last entry */
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_NEXT), CS_NOTFOUND);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 2 * (BIG - 1));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 2 * (BIG - 2));
    /* seeks, and a few steps each way from each */
    uint64_t rng = 1;
    for (int i = 0; i < 20000; i++) {
        uint32_t target = (uint32_t)rng_below(&rng, 2 * BIG + 2);
        k = V(kb, mkkey(kb, target));
        int r = cs_cursor_get(c, &k, &v, CS_SEEK);
        uint32_t want = (target + 1) / 2; /* index of the lower bound */
        if (want >= BIG) { CHECK_RC(r, CS_NOTFOUND); continue; }
        CHECK_OK(r);
        CHECK_EQ(keynum(k), 2 * want);
        uint64_t idx = 0;
        CHECK_OK(cs_cursor_index(c, &idx));
        CHECK_EQ(idx, want);
        k = V(kb, mkkey(kb, target));
        r = cs_cursor_get(c, &k, &v, CS_SEEK_EXACT);
        if (target % 2) {
            CHECK_RC(r, CS_NOTFOUND);
            k = V(kb, mkkey(kb, 2 * want));
            CHECK_OK(cs_cursor_get(c, &k, &v, CS_SEEK_EXACT));
        } else {
            CHECK_OK(r);
            CHECK_VAL(v, vb, mkval(vb, want));
        }
        int dir = i % 2 ? CS_NEXT : CS_PREV, steps = (int)rng_below(&rng, 300);
        int64_t pos = want;
        for (int s = 0; s < steps; s++) {
            pos += dir == CS_NEXT ? 1 : -1;
            r = cs_cursor_get(c, &k, NULL, (cs_cursor_op)dir);
            if (pos < 0 || pos >= BIG) { CHECK_RC(r, CS_NOTFOUND); break; }
            CHECK_OK(r);
            if (keynum(k) != 2 * pos) { CHECK_EQ(keynum(k), 2 * pos); break; }
        }
    }
    k = VS("0"); /* before every key */
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_SEEK));
    CHECK_EQ(keynum(k), 0);
    k = VS("q"); /* after every key */
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_SEEK), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    CHECK_OK(cs_txn_abort(t));
}

/* Rank access in a write txn, where the path mixes pages this txn changed
 * and committed ones, and deletes made the nodes' counts uneven: both the
 * walk from a node's first child and the one from its last agree with
 * positions. The txn is aborted, so the big tree stays as it was. */
static void test_big_rank_write(void) {
    cs_txn *t;
    cs_cursor *c;
    cs_val k, v;
    char kb[KEYLEN];
    uint32_t *left = malloc(BIG * sizeof *left), n = 0;
    REQUIRE(left != NULL);
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    for (uint32_t i = 0; i < BIG; i++) {
        /* gone: every third entry of the first tenth, a run near the end */
        bool gone = (i < BIG / 10 && i % 3 == 0) || (i > BIG - BIG / 8 && i < BIG - BIG / 16);
        if (gone) CHECK_OK(cs_del(t, g_big, V(kb, mkkey(kb, 2 * i))));
        else left[n++] = i;
    }
    uint64_t count = 0;
    CHECK_OK(cs_count(t, g_big, &count));
    CHECK_EQ(count, n);
    REQUIRE_OK(cs_cursor_open(t, g_big, &c));
    long bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint64_t idx = ~0ull;
        cs_val gv = {0};
        if (cs_cursor_seek_index(c, r, &k, &v) != CS_OK || cs_cursor_index(c, &idx) != CS_OK || idx != r ||
            keynum(k) != (int)(2 * left[r]) || cs_get_index(t, g_big, r, &gv) != CS_OK || gv.size != v.size ||
            memcmp(gv.data, v.data, v.size))
            if (bad++ < 5) test_fail_(__FILE__, __LINE__, "write-txn rank mismatch at %u", r);
    }
    CHECK_EQ(bad, 0);
    CHECK_RC(cs_cursor_seek_index(c, n, &k, &v), CS_NOTFOUND);
    CHECK_RC(cs_get_index(t, g_big, n, &v), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    CHECK_OK(cs_txn_abort(t));
    free(left);
}

/* rank access agrees with positions, at every position */
static void test_big_rank(void) {
    cs_txn *t;
    cs_cursor *c, *walk;
    cs_val k, v, wk;
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_cursor_open(t, g_big, &c));
    REQUIRE_OK(cs_cursor_open(t, g_big, &walk));
    long bad = 0;
    int r = cs_cursor_get(walk, &wk, NULL, CS_FIRST);
    for (uint64_t i = 0; i < BIG; i++) {
        uint64_t idx = ~0ull, widx = ~0ull;
        cs_val gv = {0};
        if (r != CS_OK || cs_cursor_seek_index(c, i, &k, &v) != CS_OK ||
            cs_cursor_index(c, &idx) != CS_OK || cs_cursor_index(walk, &widx) != CS_OK ||
            idx != i || widx != i || keynum(k) != (int)(2 * i) ||
            k.size != wk.size || memcmp(k.data, wk.data, k.size) ||
            cs_get_index(t, g_big, i, &gv) != CS_OK || gv.data != v.data || gv.size != v.size) {
            if (bad++ < 5) test_fail_(__FILE__, __LINE__, "rank mismatch at %llu", (unsigned long long)i);
        }
        r = cs_cursor_get(walk, &wk, NULL, CS_NEXT);
    }
    CHECK_EQ(bad, 0);
    CHECK_RC(cs_cursor_seek_index(c, BIG, &k, &v), CS_NOTFOUND);
    CHECK_RC(cs_cursor_seek_index(c, ~0ull, &k, &v), CS_NOTFOUND);
    CHECK_RC(cs_get_index(t, g_big, BIG, &v), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    CHECK_OK(cs_cursor_close(walk));
    CHECK_OK(cs_txn_abort(t));
}

/* cursor_del leaves the cursor between neighbours; deleting everything
 * through a cursor walks the whole tree and empties it. */
static void test_cursor_del(void) {
    enum { N = 30000 };
    cs_txn *t;
    cs_tree tr;
    cs_cursor *c;
    cs_val k, v;
    char kb[KEYLEN], vb[32];
    uint64_t cnt;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "del", CS_CREATE, &tr));
    for (uint32_t i = 0; i < N; i++) CHECK_OK(cs_put(t, tr, V(kb, mkkey(kb, 2 * i)), V(vb, mkval(vb, i)), 0));
    REQUIRE_OK(cs_txn_commit(t));

    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    /* single deletes in the middle: NEXT and PREV give the neighbours */
    k = V(kb, mkkey(kb, 2 * 500));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_SEEK_EXACT));
    CHECK_OK(cs_cursor_del(c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 2 * 501);
    CHECK_OK(cs_cursor_del(c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 2 * 499);
    k = V(kb, mkkey(kb, 2 * 500));
    CHECK_RC(cs_get(t, tr, k, &v), CS_NOTFOUND);
    /* first and last */
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_FIRST));
    CHECK_OK(cs_cursor_del(c));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_PREV), CS_NOTFOUND);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_FIRST));
    CHECK_EQ(keynum(k), 2);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_OK(cs_cursor_del(c));
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_NEXT), CS_NOTFOUND);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_EQ(keynum(k), 2 * (N - 2));
    CHECK_OK(cs_count(t, tr, &cnt));
    CHECK_EQ(cnt, N - 4);
    /* delete every other entry in a forward walk */
    long bad = 0;
    uint32_t expect = 1;
    int r = cs_cursor_get(c, &k, &v, CS_FIRST);
    for (int n = 0; r == CS_OK; n++) {
        if (expect == 500 || expect == 501) expect = 502;
        if (keynum(k) != (int)(2 * expect)) { bad++; break; }
        if (n % 2 == 0) CHECK_OK(cs_cursor_del(c));
        expect++;
        r = cs_cursor_get(c, &k, &v, CS_NEXT);
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(expect, N - 1);
    CHECK_OK(cs_count(t, tr, &cnt));
    uint64_t left = cnt;
    /* delete the rest backwards: LAST, del, PREV, del ... */
    uint64_t deleted = 0;
    int last = 1 << 30;
    for (r = cs_cursor_get(c, &k, &v, CS_LAST); r == CS_OK; r = cs_cursor_get(c, &k, &v, CS_PREV)) {
        if (keynum(k) >= last) { bad++; break; }
        last = keynum(k);
        if (cs_cursor_del(c) != CS_OK) { bad++; break; }
        deleted++;
    }
    CHECK_RC(r, CS_NOTFOUND);
    CHECK_EQ(bad, 0);
    CHECK_EQ(deleted, left);
    CHECK_OK(cs_count(t, tr, &cnt));
    CHECK_EQ(cnt, 0);
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_FIRST), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_txn_commit(t));

    /* refill, then delete all in one forward walk */
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    for (uint32_t i = 0; i < N; i++) CHECK_OK(cs_put(t, tr, V(kb, mkkey(kb, 2 * i)), V(vb, mkval(vb, i)), 0));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    uint32_t i = 0;
    for (r = cs_cursor_get(c, &k, &v, CS_FIRST); r == CS_OK; r = cs_cursor_get(c, &k, &v, CS_NEXT), i++) {
        if (keynum(k) != (int)(2 * i) || cs_cursor_del(c) != CS_OK) { bad++; break; }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(i, N);
    CHECK_OK(cs_count(t, tr, &cnt));
    CHECK_EQ(cnt, 0);
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_txn_commit(t));
    cs_check_report rep;
    CHECK_OK(cs_check(g_env, &rep));
    CHECK_EQ(rep.errors, 0);
}

/* cursor_put leaves the cursor on the key; other cursors survive puts and
 * deletes (with page splits and merges) made in the same write txn. */
static void test_cursor_put_and_stability(void) {
    cs_txn *t;
    cs_tree tr;
    cs_cursor *c, *a, *b;
    cs_val k, v;
    char kb[KEYLEN], vb[32];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "put", CS_CREATE, &tr));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    for (uint32_t i = 0; i < 1000; i++) CHECK_OK(cs_cursor_put(c, V(kb, mkkey(kb, 4 * i)), V(vb, mkval(vb, i)), 0));
    CHECK_OK(cs_cursor_put(c, V(kb, mkkey(kb, 402)), VS("new"), 0));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 402);
    CHECK_VAL(v, "new", 3);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 404);
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 400);
    CHECK_RC(cs_cursor_put(c, V(kb, mkkey(kb, 402)), VS("x"), CS_NOOVERWRITE), CS_EXISTS);
    CHECK_OK(cs_cursor_put(c, V(kb, mkkey(kb, 402)), VS("upd"), 0));
    CHECK_OK(cs_get(t, tr, V(kb, mkkey(kb, 402)), &v));
    CHECK_VAL(v, "upd", 3);

    REQUIRE_OK(cs_cursor_open(t, tr, &a));
    REQUIRE_OK(cs_cursor_open(t, tr, &b));
    k = V(kb, mkkey(kb, 2000));
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_SEEK_EXACT));
    CHECK_OK(cs_cursor_get(b, &k, &v, CS_LAST));
    /* many inserts around a's key and before it: splits move its entry */
    for (uint32_t i = 0; i < 20000; i++) CHECK_OK(cs_put(t, tr, V(kb, mkkey(kb, 4 * (i % 1000) + 1 + 4000 * (i / 1000))), VS("filler-value-0123456789"), 0));
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 2000);
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 2001);
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_PREV));
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 1997);
    CHECK_OK(cs_cursor_get(b, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 3996);
    CHECK_OK(cs_cursor_get(b, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 3997);
    /* many deletes elsewhere: merges */
    k = V(kb, mkkey(kb, 2000));
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_SEEK_EXACT));
    for (uint32_t n = 0; n < 8000; n++) {
        if (n == 2000) continue;
        int r = cs_del(t, tr, V(kb, mkkey(kb, n)));
        CHECK(r == CS_OK || r == CS_NOTFOUND);
    }
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_CURRENT));
    CHECK_EQ(keynum(k), 2000);
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 8001);
    CHECK_OK(cs_cursor_get(a, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 2000);
    CHECK_RC(cs_cursor_get(a, &k, &v, CS_PREV), CS_NOTFOUND); /* 2000 is first */
    CHECK_OK(cs_cursor_close(a));
    CHECK_OK(cs_cursor_close(b));
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_txn_commit(t));
}

static void test_renew(void) {
    cs_txn *w, *r1, *r2;
    cs_tree tr;
    cs_cursor *c;
    cs_val k, v;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    REQUIRE_OK(cs_tree_open(w, "renew", CS_CREATE, &tr));
    CHECK_OK(cs_put(w, tr, VS("a"), VS("1"), 0));
    REQUIRE_OK(cs_txn_commit(w));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r1));
    REQUIRE_OK(cs_cursor_open(r1, tr, &c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_VAL(k, "a", 1);
    CHECK_OK(cs_txn_reset(r1));
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    CHECK_OK(cs_put(w, tr, VS("b"), VS("2"), 0));
    REQUIRE_OK(cs_txn_commit(w));
    CHECK_OK(cs_txn_renew(r1));
    CHECK_OK(cs_cursor_renew(r1, c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_VAL(k, "b", 1);
    CHECK_VAL(v, "2", 1);
    /* move the cursor to another read txn */
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    CHECK_OK(cs_put(w, tr, VS("c"), VS("3"), 0));
    REQUIRE_OK(cs_txn_commit(w));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r2));
    CHECK_OK(cs_cursor_renew(r2, c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_VAL(k, "c", 1);
    CHECK_OK(cs_cursor_close(c));
    CHECK_OK(cs_txn_abort(r2));
    CHECK_OK(cs_txn_abort(r1));
}

/* Cursors whose tree is cleared or dropped under them, and cursors left
 * open at the end of a txn (closed for us: ASan's leak check would see). */
static void test_cursor_edge(void) {
    cs_txn *t;
    cs_tree tr;
    cs_cursor *c, *left;
    cs_val k, v;
    char kb[KEYLEN];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "edge", CS_CREATE, &tr));
    for (uint32_t i = 0; i < 3000; i++) CHECK_OK(cs_put(t, tr, V(kb, mkkey(kb, i)), VS("v"), 0));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_LAST));
    CHECK_OK(cs_tree_clear(t, tr));
    int r = cs_cursor_get(c, &k, &v, CS_CURRENT);
    CHECK(r == CS_NOTFOUND || r == CS_EINVAL);
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_NEXT), CS_NOTFOUND);
    CHECK_RC(cs_cursor_get(c, &k, &v, CS_FIRST), CS_NOTFOUND);
    CHECK_OK(cs_put(t, tr, VS("again"), VS("1"), 0));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_FIRST));
    CHECK_VAL(k, "again", 5);
    CHECK_OK(cs_tree_drop(t, tr));
    r = cs_cursor_get(c, &k, &v, CS_FIRST);
    CHECK(r == CS_NOTFOUND || r == CS_EINVAL);
    r = cs_cursor_put(c, VS("x"), VS("y"), 0);
    CHECK(r == CS_NOTFOUND || r == CS_EINVAL);
    CHECK_OK(cs_cursor_close(c));
    REQUIRE_OK(cs_tree_open(t, "edge", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
    REQUIRE_OK(cs_cursor_open(t, tr, &left));
    CHECK_OK(cs_cursor_get(left, &k, &v, CS_FIRST));
    REQUIRE_OK(cs_txn_commit(t)); /* closes `left` */
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_cursor_open(t, tr, &left));
    CHECK_OK(cs_cursor_get(left, &k, &v, CS_FIRST));
    CHECK_VAL(k, "k", 1);
    CHECK_OK(cs_txn_abort(t)); /* closes `left` */
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_cursor_open(t, tr, &left));
    CHECK_OK(cs_txn_abort(t));
    /* a value too large is refused before its bytes are read */
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    char small[8] = {0};
    CHECK_RC(cs_put(t, tr, VS("huge"), V(small, (size_t)CS_MAX_VALUE + 1), 0), CS_EVALSIZE);
    CHECK_RC(cs_get(t, tr, VS("huge"), &v), CS_NOTFOUND);
    CHECK_OK(cs_txn_commit(t));
}

/* cs_cursor_next_batch walks the same entries as CS_NEXT one at a time,
 * whatever the capacity, from an unpositioned or a positioned cursor, in
 * read and write txns (including a write between two batches). */
static long batch_scan(cs_cursor *c, size_t cap, long start, long *bad) {
    cs_val keys[300], vals[300];
    size_t got;
    long n = start;
    int r;
    while ((r = cs_cursor_next_batch(c, n % 2 ? NULL : keys, vals, cap, &got)) == CS_OK) {
        if (got == 0 || got > cap) (*bad)++;
        for (size_t i = 0; i < got; i++, n++) {
            char vb[32];
            size_t vl = mkval(vb, (uint32_t)n);
            if ((n - (long)i) % 2 == 0 && keynum(keys[i]) != 2 * n) (*bad)++;
            if (vals[i].size != vl || memcmp(vals[i].data, vb, vl)) (*bad)++;
        }
    }
    if (r != CS_NOTFOUND || got != 0) (*bad)++;
    return n;
}

static void test_batch(void) {
    cs_txn *t;
    cs_cursor *c;
    cs_val k, v;
    static const size_t caps[] = {1, 2, 7, 64, 300};
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_cursor_open(t, g_big, &c));
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        long bad = 0;
        CHECK_OK(cs_cursor_close(c));
        REQUIRE_OK(cs_cursor_open(t, g_big, &c));
        CHECK_EQ(batch_scan(c, caps[i], 0, &bad), BIG);
        CHECK_EQ(bad, 0);
        /* stays on the last entry at the end */
        CHECK_OK(cs_cursor_get(c, &k, &v, CS_CURRENT));
        CHECK_EQ(keynum(k), 2 * (BIG - 1));
    }
    /* from a positioned cursor; then single steps continue after the batch */
    size_t got;
    cs_val keys[64];
    CHECK_OK(cs_cursor_seek_index(c, 1000, &k, &v));
    CHECK_OK(cs_cursor_next_batch(c, keys, NULL, 64, &got));
    CHECK(got >= 1 && got <= 64);
    CHECK_EQ(keynum(keys[0]), 2 * 1001);
    CHECK_EQ(keynum(keys[got - 1]), 2 * (1000 + (long)got));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_NEXT));
    CHECK_EQ(keynum(k), 2 * (1001 + (long)got));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_OK(cs_cursor_get(c, &k, &v, CS_PREV));
    CHECK_EQ(keynum(k), 2 * (999 + (long)got));
    CHECK_RC(cs_cursor_next_batch(c, keys, NULL, 0, &got), CS_EINVAL);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);

    /* write txn: a put between batches; the cursor re-finds its key */
    char kb[KEYLEN];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_cursor_open(t, g_big, &c));
    CHECK_OK(cs_cursor_next_batch(c, keys, NULL, 10, &got));
    CHECK_EQ(got, 10);
    CHECK_OK(cs_put(t, g_big, V(kb, mkkey(kb, 2 * 9 + 1)), VS("odd"), 0)); /* right after the 10th key */
    CHECK_OK(cs_cursor_next_batch(c, keys, NULL, 2, &got));
    CHECK_EQ(got, 2);
    CHECK_EQ(keynum(keys[0]), 19);
    CHECK_EQ(keynum(keys[1]), 20);
    CHECK_OK(cs_cursor_close(c));

    /* overflow values in the middle of a batch */
    cs_tree ot;
    static uint8_t big[10000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
    REQUIRE_OK(cs_tree_open(t, "batch-ovf", CS_CREATE, &ot));
    for (uint32_t i = 0; i < 60; i++)
        CHECK_OK(cs_put(t, ot, V(kb, mkkey(kb, i)), i % 5 == 2 ? V(big, sizeof big - i) : VS("small"), 0));
    REQUIRE_OK(cs_cursor_open(t, ot, &c));
    cs_val vals[64];
    long n = 0, bad = 0;
    while (cs_cursor_next_batch(c, keys, vals, 64, &got) == CS_OK)
        for (size_t i = 0; i < got; i++, n++) {
            if (keynum(keys[i]) != n) bad++;
            if (n % 5 == 2 ? vals[i].size != sizeof big - (size_t)n || memcmp(vals[i].data, big, vals[i].size)
                           : vals[i].size != 5 || memcmp(vals[i].data, "small", 5))
                bad++;
        }
    CHECK_EQ(n, 60);
    CHECK_EQ(bad, 0);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);
}

/* Node searches guess positions from the keys' bytes (node.c): trees of
 * dense, skewed, short, prefix-sharing, decimal, text and mixed keys must
 * answer every get and seek as a plain sorted array does. */
typedef struct skey {
    uint8_t b[64];
    uint32_t n;
} skey;
static int skey_cmp(const void *x, const void *y) {
    const skey *a = x, *b = y;
    int c = memcmp(a->b, b->b, a->n < b->n ? a->n : b->n);
    return c ? c : (a->n > b->n) - (a->n < b->n);
}
static skey shape_key(uint32_t fam, uint32_t i) {
    skey k = {.n = 0};
    k.b[k.n++] = (uint8_t)(fam + 1);
    uint64_t v = fam == 0 ? (uint64_t)i * i * 1000003u : fam == 1 ? i : (uint64_t)i << 40;
    switch (fam) {
    case 0: case 1: case 2:
        for (int j = 7; j >= 0; j--) k.b[k.n++] = (uint8_t)(v >> (8 * j));
        break;
    case 3:
        k.n += (uint32_t)sprintf((char *)k.b + 1, "%u", i);
        break;
    case 5: /* all printable: searches bisect (key_is_text) */
        k.b[0] = 'T';
        k.n += (uint32_t)sprintf((char *)k.b + 1, "user:%07u", i * 7);
        break;
    default:
        memset(k.b + 1, 'a', i % 40);
        k.n += i % 40;
        for (int j = 3; j >= 0; j--) k.b[k.n++] = (uint8_t)(i >> (8 * j));
        break;
    }
    return k;
}

static void test_search_shapes(void) {
    enum { PER = 4000, FAMS = 6, N = PER * FAMS };
    skey *keys = malloc(N * sizeof *keys);
    REQUIRE(keys != NULL);
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "shapes", CS_CREATE, &tr));
    for (uint32_t i = 0; i < N; i++) {
        keys[i] = shape_key(i % FAMS, 2 * (i / FAMS)); /* even: odd ones are absent */
        CHECK_OK(cs_put(t, tr, V(keys[i].b, keys[i].n), V(&i, sizeof i), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    qsort(keys, N, sizeof *keys, skey_cmp);
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    long bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        cs_val v;
        if (cs_get(t, tr, V(keys[i].b, keys[i].n), &v) != CS_OK) bad++;
    }
    for (uint32_t fam = 0; fam < FAMS; fam++)
        for (uint32_t i = 0; i < 2 * PER + 2; i++) {
            skey probe = shape_key(fam, i);
            /* expected: the first stored key >= probe */
            size_t lo = 0, hi = N;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (skey_cmp(&keys[mid], &probe) < 0) lo = mid + 1;
                else hi = mid;
            }
            int present = lo < N && skey_cmp(&keys[lo], &probe) == 0;
            cs_val v, k = V(probe.b, probe.n);
            if ((cs_get(t, tr, k, &v) == CS_OK) != present) bad++;
            int r = cs_cursor_get(c, &k, &v, CS_SEEK);
            if (lo == N ? r != CS_NOTFOUND
                        : r != CS_OK || k.size != keys[lo].n || memcmp(k.data, keys[lo].b, k.size)) bad++;
        }
    CHECK_EQ(bad, 0);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);
    free(keys);
}

int main(void) {
    REQUIRE_OK(test_open(test_path("cursor.db").s, 0, &g_env));
    test_empty_and_one();
    fill_big();
    test_big_scans();
    test_batch();
    test_search_shapes();
    test_big_rank();
    test_big_rank_write();
    test_cursor_del();
    test_cursor_put_and_stability();
    test_renew();
    test_cursor_edge();
    cs_check_report rep;
    CHECK_OK(cs_check(g_env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(g_env));
    return test_report();
}
