/* test_copy.c — cs_env_copy and cs_env_compact: the copy holds exactly the
 * source's trees and entries, passes the checker and is smaller than a file
 * with many free pages; a copy taken while another thread commits holds
 * exactly one committed version; the refusals (existing destination,
 * missing directory, another opener, read-only); compaction in place
 * replaces the file and leaves no temporary files. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

enum { KEYS = 20000 };

static void key_of(char *buf, size_t n, uint64_t i) { snprintf(buf, n, "k%08llu", (unsigned long long)i); }

/* Trees "a" (small values), "b" (some values large enough for overflow
 * pages) and "empty"; then most of "a" and "b" deleted, so the file has many free
 * pages. */
static void fill(cs_env *env) {
    cs_tree a = test_open_tree(env, "a"), b = test_open_tree(env, "b");
    test_open_tree(env, "empty");
    uint8_t big[9000];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint64_t i = 0; i < KEYS; i++) {
        char k[32];
        key_of(k, sizeof k, i);
        uint8_t v[100];
        test_fill(v, sizeof v, i);
        REQUIRE_OK(cs_put(t, a, VS(k), V(v, 20 + i % 80), 0));
        if (i % 50 == 0) {
            test_fill(big, sizeof big, i * 7);
            REQUIRE_OK(cs_put(t, b, VS(k), V(big, 100 + (i * 37) % (sizeof big - 100)), 0));
        }
    }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (uint64_t i = 0; i < KEYS; i++) {
        char k[32];
        key_of(k, sizeof k, i);
        if (i % 50 == 0 && i % 250 != 0) REQUIRE_OK(cs_del(t, b, VS(k)));
        if (i % 10 != 0) REQUIRE_OK(cs_del(t, a, VS(k)));
    }
    REQUIRE_OK(cs_txn_commit(t));
}

/* Every tree of x equals the one of the same name in y, and the names match. */
typedef struct { char names[8][64]; int n; } names_t;
static int add_name(void *ctx, const char *name, size_t len) {
    names_t *ns = ctx;
    if (ns->n < 8 && len < 64) { memcpy(ns->names[ns->n], name, len); ns->names[ns->n][len] = 0; }
    ns->n++;
    return 0;
}
static void check_same(cs_env *x, cs_env *y) {
    cs_txn *tx, *ty;
    REQUIRE_OK(cs_txn_begin(x, CS_TXN_RDONLY, &tx));
    REQUIRE_OK(cs_txn_begin(y, CS_TXN_RDONLY, &ty));
    names_t nx = {0}, ny = {0};
    CHECK_OK(cs_tree_list(tx, add_name, &nx));
    CHECK_OK(cs_tree_list(ty, add_name, &ny));
    CHECK_EQ(nx.n, ny.n);
    for (int i = 0; i < nx.n && i < ny.n && i < 8; i++) {
        CHECK(strcmp(nx.names[i], ny.names[i]) == 0);
        cs_tree hx, hy;
        REQUIRE_OK(cs_tree_open(tx, nx.names[i], 0, &hx));
        REQUIRE_OK(cs_tree_open(ty, nx.names[i], 0, &hy));
        cs_cursor *cx, *cy;
        REQUIRE_OK(cs_cursor_open(tx, hx, &cx));
        REQUIRE_OK(cs_cursor_open(ty, hy, &cy));
        long same = 0, differ = 0;
        for (;;) {
            cs_val kx, vx, ky, vy;
            int rx = cs_cursor_get(cx, &kx, &vx, CS_NEXT), ry = cs_cursor_get(cy, &ky, &vy, CS_NEXT);
            if (rx != ry) { differ++; break; }
            if (rx == CS_NOTFOUND) break;
            if (kx.size == ky.size && vx.size == vy.size && !memcmp(kx.data, ky.data, kx.size) &&
                !memcmp(vx.data, vy.data, vx.size)) same++;
            else differ++;
        }
        CHECK_EQ(differ, 0);
        cs_tree_stat s;
        CHECK_OK(cs_tree_get_stat(tx, hx, &s));
        CHECK_EQ(same, (long)s.entries);
    }
    cs_txn_abort(tx);
    cs_txn_abort(ty);
}

static void check_clean(cs_env *env) {
    cs_check_report r;
    CHECK_OK(cs_check(env, &r));
    CHECK_EQ(r.errors, 0);
}

/* Files in the test dir whose name starts with prefix (temporary copies). */
static int files_named(const char *prefix) {
    DIR *d = opendir(test_dir());
    REQUIRE(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_copy_basic(void) {
    tpath src = test_path("src.db"), dst = test_path("src.db-copy.db");
    cs_env *env, *copy;
    REQUIRE_OK(test_open(src.s, 0, &env));
    fill(env);
    CHECK_OK(cs_env_copy(env, dst.s, 0));
    CHECK_EQ(test_file_size(test_path("src.db-copy.db.lock").s), -1); /* the copy's lock file is not kept */
    REQUIRE_OK(test_open(dst.s, 0, &copy));
    check_same(env, copy);
    check_clean(env);
    check_clean(copy);
    cs_env_info si, ci;
    CHECK_OK(cs_env_get_info(env, &si));
    CHECK_OK(cs_env_get_info(copy, &ci));
    /* Compact: well under the source's pages, and nearly no free pages. */
    CHECK(ci.next_pgno * 2 < si.next_pgno);
    CHECK(ci.free_pages + ci.pending_pages < 16);
    CHECK(ci.next_pgno <= si.next_pgno - si.free_pages - si.pending_pages);
    CHECK_EQ(test_file_size(dst.s), (long long)(ci.next_pgno * ci.page_size)); /* no growth slack */
    printf("  copy: source %llu pages (%llu free), copy %llu pages\n", (unsigned long long)si.next_pgno,
           (unsigned long long)(si.free_pages + si.pending_pages), (unsigned long long)ci.next_pgno);
    CHECK_OK(cs_env_close(copy));
    CHECK_EQ(files_named("src.db.copy-"), 0);
    CHECK_EQ(files_named("src.db-copy.db.copy-"), 0);

    /* Refusals: the destination exists, its directory does not, bad args. */
    long long before = test_file_size(dst.s);
    CHECK_RC(cs_env_copy(env, dst.s, 0), CS_EXISTS);
    CHECK_EQ(test_file_size(dst.s), before);
    tpath missing = test_path("no-such-dir/x.db");
    CHECK_RC(cs_env_copy(env, missing.s, 0), CS_NOTFOUND);
    CHECK_RC(cs_env_copy(env, NULL, 0), CS_EINVAL);
    CHECK_RC(cs_env_copy(env, test_path("y.db").s, 1), CS_EINVAL);
    CHECK_EQ(test_file_size(test_path("y.db").s), -1);
    CHECK_OK(cs_env_close(env));

    /* A read-only env copies too (the realmlite tool opens files so). */
    tpath dst2 = test_path("ro-copy.db");
    REQUIRE_OK(test_open(src.s, CS_ENV_RDONLY, &env));
    CHECK_OK(cs_env_copy(env, dst2.s, 0));
    REQUIRE_OK(test_open(dst2.s, 0, &copy));
    check_same(env, copy);
    CHECK_OK(cs_env_close(copy));
    CHECK_OK(cs_env_close(env));
    test_rm_db(src.s);
    test_rm_db(dst.s);
    test_rm_db(dst2.s);
}

/* ---- a copy under a concurrent writer ---- */
enum { GEN_KEYS = 3000, GENS = 400 };
typedef struct {
    cs_env *env;
    cs_tree tree;
    _Atomic uint64_t committed; /* last generation committed */
    _Atomic int stop;
} writer_t;

/* Generation g sets every key to g (8 bytes) and "seq" to g: a copy that
 * mixes two versions shows two different values. */
static void *writer(void *arg) {
    writer_t *w = arg;
    for (uint64_t g = 1; g <= GENS && !atomic_load(&w->stop); g++) {
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(w->env, 0, &t));
        for (uint64_t i = 0; i < GEN_KEYS; i++) {
            char k[32];
            key_of(k, sizeof k, (i * 7919 + g) % GEN_KEYS);
            REQUIRE_OK(cs_put(t, w->tree, VS(k), V(&g, sizeof g), 0));
        }
        REQUIRE_OK(cs_put(t, w->tree, VS("seq"), V(&g, sizeof g), 0));
        REQUIRE_OK(cs_txn_commit(t));
        atomic_store(&w->committed, g);
    }
    return NULL;
}

static void test_copy_under_writer(void) {
    tpath src = test_path("busy.db");
    writer_t w = {0};
    REQUIRE_OK(test_open(src.s, 0, &w.env));
    w.tree = test_open_tree(w.env, "t");
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, writer, &w) == 0);
    int copies = 0, mid = 0;
    for (int c = 0; c < 6; c++) {
        char name[32];
        snprintf(name, sizeof name, "busy-copy-%d.db", c);
        tpath dst = test_path(name);
        uint64_t before = atomic_load(&w.committed);
        CHECK_OK(cs_env_copy(w.env, dst.s, 0));
        uint64_t after = atomic_load(&w.committed);
        cs_env *copy;
        REQUIRE_OK(test_open(dst.s, CS_ENV_RDONLY, &copy));
        check_clean(copy);
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(copy, CS_TXN_RDONLY, &t));
        cs_tree tr;
        uint64_t seq = 0, n = 0, mismatched = 0;
        if (cs_tree_open(t, "t", 0, &tr) == CS_OK) {
            cs_val v;
            if (cs_get(t, tr, VS("seq"), &v) == CS_OK) memcpy(&seq, v.data, 8);
            cs_cursor *cur;
            REQUIRE_OK(cs_cursor_open(t, tr, &cur));
            cs_val k;
            while (cs_cursor_get(cur, &k, &v, CS_NEXT) == CS_OK) {
                uint64_t g;
                memcpy(&g, v.data, 8);
                n++;
                mismatched += g != seq;
            }
        }
        /* Exactly one committed version: every key at one generation, and
         * that generation committed before the copy ended. */
        CHECK_EQ(mismatched, 0);
        CHECK(seq >= before && seq <= after);
        if (seq) CHECK_EQ(n, GEN_KEYS + 1);
        mid += seq > 0 && seq < GENS && before != after;
        copies++;
        cs_txn_abort(t);
        CHECK_OK(cs_env_close(copy));
        test_rm_db(dst.s);
    }
    atomic_store(&w.stop, 1);
    pthread_join(th, NULL);
    check_clean(w.env);
    printf("  %d copies under a writer, %d while it committed\n", copies, mid);
    CHECK_OK(cs_env_close(w.env));
    test_rm_db(src.s);
}

static void test_compact(void) {
    tpath src = test_path("c.db"), ref = test_path("c-ref.db");
    cs_env *env, *other, *refenv;
    REQUIRE_OK(test_open(src.s, 0, &env));
    fill(env);
    CHECK_OK(cs_env_copy(env, ref.s, 0)); /* what the data must be afterwards */
    long long before = test_file_size(src.s);

    /* Another opener (here a second env, as another process would be). */
    REQUIRE_OK(test_open(src.s, 0, &other));
    CHECK_RC(cs_env_compact(env, 0), CS_EBUSY);
    CHECK_EQ(test_file_size(src.s), before);
    CHECK_OK(cs_env_close(other));
    /* Open transactions, bad flags, read-only. */
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_RC(cs_env_compact(env, 0), CS_EINVAL);
    cs_txn_abort(t);
    CHECK_RC(cs_env_compact(env, 2), CS_EINVAL);
    cs_env *ro;
    REQUIRE_OK(test_open(ref.s, CS_ENV_RDONLY, &ro));
    CHECK_RC(cs_env_compact(ro, 0), CS_EREADONLY);
    CHECK_OK(cs_env_close(ro));

    /* A leftover of a killed compaction is replaced, not an obstacle. */
    tpath leftover = test_path("c.db.compact");
    FILE *f = fopen(leftover.s, "w");
    REQUIRE(f);
    fputs("half", f);
    fclose(f);

    CHECK_OK(cs_env_compact(env, 0)); /* env is closed now */
    long long after = test_file_size(src.s);
    printf("  compact: %lld -> %lld bytes\n", before, after);
    CHECK(after * 2 < before);
    CHECK_EQ(test_file_size(leftover.s), -1);
    CHECK_EQ(test_file_size(test_path("c.db.compact.lock").s), -1);
    REQUIRE_OK(test_open(src.s, 0, &env));
    REQUIRE_OK(test_open(ref.s, CS_ENV_RDONLY, &refenv));
    check_same(refenv, env);
    check_clean(env);
    /* The compacted file takes writes as before. */
    cs_tree a = test_open_tree(env, "a");
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_OK(cs_put(t, a, VS("after"), VS("compaction"), 0));
    CHECK_OK(cs_txn_commit(t));
    check_clean(env);
    CHECK_OK(cs_env_close(refenv));
    CHECK_OK(cs_env_close(env));
    test_rm_db(src.s);
    test_rm_db(ref.s);
}

int main(void) {
    test_copy_basic();
    test_copy_under_writer();
    test_compact();
    return test_report();
}
