/* test_trees.c — named trees: create/open/drop/clear/list/stat, many trees
 * in one file, handles of trees that do not exist, drop frees pages. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static cs_env *g_env;

typedef struct { int n; char names[600][32]; int stop_at; } list_ctx;

static int list_cb(void *ctx, const char *name, size_t len) {
    list_ctx *l = ctx;
    if (l->n < 600 && len < 32) {
        memcpy(l->names[l->n], name, len);
        l->names[l->n][len] = 0;
    }
    l->n++;
    return l->n == l->stop_at ? 77 : 0;
}

static void put_n(cs_txn *t, cs_tree tr, int n, int tag) {
    char k[32], v[64];
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof k, "key%06d", i);
        int vl = snprintf(v, sizeof v, "val-%d-%d", tag, i);
        CHECK_OK(cs_put(t, tr, VS(k), V(v, (size_t)vl), 0));
    }
}

static void test_lifecycle(void) {
    cs_txn *t;
    cs_tree a, b, c, a2;
    cs_val v;
    uint64_t n;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "bravo", CS_CREATE, &b));
    REQUIRE_OK(cs_tree_open(t, "alpha", CS_CREATE, &a));
    REQUIRE_OK(cs_tree_open(t, "charlie", CS_CREATE, &c));
    CHECK(a != b && b != c && a != c);
    CHECK_OK(cs_tree_open(t, "alpha", 0, &a2));
    CHECK_EQ(a2, a);
    CHECK_OK(cs_tree_open(t, "alpha", CS_CREATE, &a2)); /* create existing */
    CHECK_EQ(a2, a);
    put_n(t, a, 100, 1);
    put_n(t, b, 2000, 2);
    put_n(t, c, 10, 3);
    /* same key in different trees: independent */
    CHECK_OK(cs_get(t, a, VS("key000005"), &v));
    CHECK_VAL(v, "val-1-5", 7);
    CHECK_OK(cs_get(t, b, VS("key000005"), &v));
    CHECK_VAL(v, "val-2-5", 7);
    REQUIRE_OK(cs_txn_commit(t));

    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    list_ctx *l = calloc(1, sizeof *l);
    CHECK_OK(cs_tree_list(t, list_cb, l));
    CHECK_EQ(l->n, 3);
    CHECK(strcmp(l->names[0], "alpha") == 0);
    CHECK(strcmp(l->names[1], "bravo") == 0);
    CHECK(strcmp(l->names[2], "charlie") == 0);
    memset(l, 0, sizeof *l);
    l->stop_at = 2;
    CHECK_RC(cs_tree_list(t, list_cb, l), 77);
    CHECK_EQ(l->n, 2);
    struct cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, b, &st));
    CHECK_EQ(st.entries, 2000);
    CHECK(st.depth >= 2);
    CHECK(st.leaf_pages >= 2 && st.branch_pages >= 1);
    CHECK_EQ(st.overflow_pages, 0);
    CHECK_OK(cs_tree_get_stat(t, c, &st));
    CHECK_EQ(st.entries, 10);
    CHECK_EQ(st.depth, 1);
    CHECK_EQ(st.leaf_pages, 1);
    CHECK_RC(cs_tree_open(t, "delta", 0, &a2), CS_NOTFOUND);
    CHECK_OK(cs_txn_abort(t));

    /* drop and abort: nothing happened */
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    CHECK_OK(cs_tree_drop(t, b));
    CHECK_RC(cs_get(t, b, VS("key000005"), &v), CS_NOTFOUND);
    CHECK_OK(cs_txn_abort(t));
    /* clear keeps the tree */
    cs_txn *old;
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &old));
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    CHECK_OK(cs_get(t, b, VS("key000005"), &v));
    CHECK_OK(cs_tree_clear(t, a));
    CHECK_OK(cs_count(t, a, &n));
    CHECK_EQ(n, 0);
    CHECK_RC(cs_get(t, a, VS("key000005"), &v), CS_NOTFOUND);
    CHECK_OK(cs_put(t, a, VS("after"), VS("clear"), 0));
    CHECK_OK(cs_tree_drop(t, b));
    CHECK_RC(cs_get(t, b, VS("key000005"), &v), CS_NOTFOUND);
    CHECK_RC(cs_count(t, b, &n), CS_NOTFOUND);
    CHECK_RC(cs_put(t, b, VS("x"), VS("y"), 0), CS_NOTFOUND);
    CHECK_RC(cs_tree_open(t, "bravo", 0, &a2), CS_NOTFOUND);
    REQUIRE_OK(cs_txn_commit(t));
    /* an older snapshot still has the dropped tree and the cleared data */
    CHECK_OK(cs_get(old, b, VS("key001999"), &v));
    CHECK_VAL(v, "val-2-1999", 10);
    CHECK_OK(cs_count(old, a, &n));
    CHECK_EQ(n, 100);
    CHECK_OK(cs_txn_abort(old));

    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    memset(l, 0, sizeof *l);
    CHECK_OK(cs_tree_list(t, list_cb, l));
    CHECK_EQ(l->n, 2);
    CHECK(strcmp(l->names[0], "alpha") == 0 && strcmp(l->names[1], "charlie") == 0);
    CHECK_OK(cs_tree_open(t, "bravo", CS_CREATE, &a2)); /* recreate: empty */
    CHECK_OK(cs_count(t, a2, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(cs_count(t, a, &n));
    CHECK_EQ(n, 1);
    CHECK_OK(cs_tree_drop(t, a2));
    CHECK_OK(cs_tree_drop(t, a));
    CHECK_OK(cs_tree_drop(t, c));
    REQUIRE_OK(cs_txn_commit(t));
    free(l);
    cs_check_report rep;
    CHECK_OK(cs_check(g_env, &rep));
    CHECK_EQ(rep.errors, 0);
}

static void test_ghost_handle(void) {
    cs_txn *t;
    cs_tree g, g2;
    cs_val v;
    uint64_t n;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "ghost", CS_CREATE, &g));
    CHECK_OK(cs_put(t, g, VS("k"), VS("v"), 0));
    CHECK_OK(cs_txn_abort(t));
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    CHECK_RC(cs_get(t, g, VS("k"), &v), CS_NOTFOUND);
    CHECK_RC(cs_put(t, g, VS("k"), VS("v"), 0), CS_NOTFOUND);
    CHECK_RC(cs_count(t, g, &n), CS_NOTFOUND);
    cs_cursor *c = NULL;
    int r = cs_cursor_open(t, g, &c);
    if (r == CS_OK) {
        CHECK_RC(cs_cursor_get(c, NULL, NULL, CS_FIRST), CS_NOTFOUND);
        cs_cursor_close(c);
    } else {
        CHECK_RC(r, CS_NOTFOUND);
    }
    CHECK_RC(cs_tree_open(t, "ghost", 0, &g2), CS_NOTFOUND);
    /* creating it for real makes the handle work */
    CHECK_OK(cs_tree_open(t, "ghost", CS_CREATE, &g2));
    CHECK_OK(cs_put(t, g2, VS("k"), VS("v2"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    CHECK_OK(cs_get(t, g2, VS("k"), &v));
    CHECK_VAL(v, "v2", 2);
    CHECK_OK(cs_txn_abort(t));
}

static void test_many_trees(void) {
    enum { NT = 500 };
    tpath p = test_path("many.db");
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    char name[32], k[32];
    cs_val v;
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < NT; i++) {
        snprintf(name, sizeof name, "tree-%03d", (i * 37) % NT);
        REQUIRE_OK(cs_tree_open(t, name, CS_CREATE, &tr));
        put_n(t, tr, 1 + (i * 37) % NT % 60, (i * 37) % NT);
        if (i % 100 == 99) { REQUIRE_OK(cs_txn_commit(t)); REQUIRE_OK(cs_txn_begin(env, 0, &t)); }
    }
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    list_ctx *l = calloc(1, sizeof *l);
    CHECK_OK(cs_tree_list(t, list_cb, l));
    CHECK_EQ(l->n, NT);
    long bad = 0;
    for (int i = 0; i < NT; i++) {
        snprintf(name, sizeof name, "tree-%03d", i);
        if (strcmp(l->names[i], name)) bad++;
        if (cs_tree_open(t, name, 0, &tr) != CS_OK) { bad++; continue; }
        uint64_t n = 0;
        CHECK_OK(cs_count(t, tr, &n));
        CHECK_EQ(n, 1 + i % 60);
        snprintf(k, sizeof k, "key%06d", i % 60);
        char want[64];
        int wl = snprintf(want, sizeof want, "val-%d-%d", i, i % 60);
        CHECK_OK(cs_get(t, tr, VS(k), &v));
        CHECK_VAL(v, want, (size_t)wl);
    }
    CHECK_EQ(bad, 0);
    free(l);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK(rep.trees >= NT);
    CHECK_OK(cs_env_close(env));
}

/* Repeatedly create/fill/drop (or clear): freed pages are reused, so the
 * file stops growing after a warm-up. */
static void test_drop_reuses(int use_clear) {
    tpath p = test_path(use_clear ? "clear.db" : "drop.db");
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    char k[32], big[30000];
    test_fill(big, sizeof big, 5);
    REQUIRE_OK(test_open(p.s, 0, &env));
    struct cs_env_info info;
    uint64_t warm_pages = 0, warm_size = 0;
    for (int round = 0; round < 25; round++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "tmp", CS_CREATE, &tr));
        for (int i = 0; i < 5000; i++) {
            snprintf(k, sizeof k, "%05d-%d", i * 13 % 5000, round);
            size_t vl = i % 100 == 0 ? sizeof big : (size_t)(i % 200);
            CHECK_OK(cs_put(t, tr, VS(k), V(big, vl), 0));
        }
        REQUIRE_OK(cs_txn_commit(t));
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        CHECK_OK(use_clear ? cs_tree_clear(t, tr) : cs_tree_drop(t, tr));
        REQUIRE_OK(cs_txn_commit(t));
        CHECK_OK(cs_env_get_info(env, &info));
        if (round == 3) { warm_pages = info.next_pgno; warm_size = info.file_size; }
    }
    printf("%s: warm %llu pages / %llu bytes, end %llu pages / %llu bytes\n",
           use_clear ? "clear" : "drop", (unsigned long long)warm_pages,
           (unsigned long long)warm_size, (unsigned long long)info.next_pgno,
           (unsigned long long)info.file_size);
    /* slack for fragmentation of contiguous overflow runs */
    CHECK(info.next_pgno <= warm_pages + warm_pages / 5);
    CHECK(info.file_size <= warm_size + warm_size / 5 + (1u << 20));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    REQUIRE_OK(test_open(test_path("trees.db").s, 0, &g_env));
    test_lifecycle();
    test_ghost_handle();
    CHECK_OK(cs_env_close(g_env));
    test_many_trees();
    test_drop_reuses(0);
    test_drop_reuses(1);
    return test_report();
}
