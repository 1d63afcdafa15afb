/* test_txn.c — abort, snapshot isolation, reset/renew, the single writer
 * (CS_TXN_TRY, same-thread reentry, blocking across threads), reader
 * table limit, durability modes and their I/O. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static cs_env *g_env;
static cs_tree g_tr;

static void put1(const char *k, const char *v) {
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    CHECK_OK(cs_put(t, g_tr, VS(k), VS(v), 0));
    REQUIRE_OK(cs_txn_commit(t));
}

static void check_get(cs_txn *t, const char *k, const char *want) {
    cs_val v;
    int r = cs_get(t, g_tr, VS(k), &v);
    if (!want) { CHECK_RC(r, CS_NOTFOUND); return; }
    CHECK_OK(r);
    if (r == CS_OK) CHECK_VAL(v, want, strlen(want));
}

static void test_abort(void) {
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    CHECK_OK(cs_put(t, g_tr, VS("a"), VS("aborted"), 0));
    CHECK_OK(cs_tree_open(t, "aborted-tree", CS_CREATE, &tr));
    CHECK_OK(cs_txn_abort(t));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    check_get(t, "a", NULL);
    CHECK_RC(cs_tree_open(t, "aborted-tree", 0, &tr), CS_NOTFOUND);
    CHECK_OK(cs_txn_abort(t));
    /* abort of a txn with many changes (dirty pages, splits) */
    char k[16];
    REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
    for (int i = 0; i < 20000; i++) {
        snprintf(k, sizeof k, "x%d", i);
        CHECK_OK(cs_put(t, g_tr, VS(k), VS(k), 0));
    }
    CHECK_OK(cs_txn_abort(t));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    uint64_t n = 99;
    CHECK_OK(cs_count(t, g_tr, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(cs_txn_abort(t));
}

static void test_isolation(void) {
    cs_txn *r1, *r2, *w;
    put1("k", "v1");
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r1));
    uint64_t id1 = cs_txn_id(r1);
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    CHECK_OK(cs_put(w, g_tr, VS("k"), VS("v2"), 0));
    CHECK_OK(cs_put(w, g_tr, VS("new"), VS("n"), 0));
    /* a reader begun while the writer is open sees the committed state */
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r2));
    check_get(r2, "k", "v1");
    check_get(w, "k", "v2");
    REQUIRE_OK(cs_txn_commit(w));
    check_get(r1, "k", "v1");
    check_get(r1, "new", NULL);
    check_get(r2, "k", "v1");
    CHECK_EQ(cs_txn_id(r1), id1);
    /* many more commits, which free and reuse pages: r1 is unaffected */
    char k[16], v[16];
    for (int c = 0; c < 50; c++) {
        REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
        for (int i = 0; i < 200; i++) {
            snprintf(k, sizeof k, "c%03d", i);
            snprintf(v, sizeof v, "%d", c);
            CHECK_OK(cs_put(w, g_tr, VS(k), VS(v), 0));
        }
        CHECK_OK(cs_put(w, g_tr, VS("k"), VS(v), 0));
        REQUIRE_OK(cs_txn_commit(w));
    }
    check_get(r1, "k", "v1");
    check_get(r1, "c000", NULL);
    uint64_t n;
    CHECK_OK(cs_count(r1, g_tr, &n));
    CHECK_EQ(n, 1);
    cs_cursor *c;
    cs_val ck;
    REQUIRE_OK(cs_cursor_open(r1, g_tr, &c));
    CHECK_OK(cs_cursor_get(c, &ck, NULL, CS_FIRST));
    CHECK_VAL(ck, "k", 1);
    CHECK_RC(cs_cursor_get(c, &ck, NULL, CS_NEXT), CS_NOTFOUND);
    CHECK_OK(cs_cursor_close(c));
    /* reset/renew moves to the newest snapshot; a reset txn cannot read */
    CHECK_OK(cs_txn_reset(r1));
    cs_val rv;
    int rr = cs_get(r1, g_tr, VS("k"), &rv);
    CHECK(rr == CS_EBADTXN || rr == CS_EINVAL);
    struct cs_env_info ri;
    CHECK_OK(cs_env_get_info(g_env, &ri));
    CHECK_EQ(ri.readers_used, 1); /* r2 only: the reset txn holds no snapshot */
    CHECK_OK(cs_txn_renew(r1));
    CHECK(cs_txn_id(r1) > id1);
    check_get(r1, "k", "49");
    check_get(r1, "new", "n");
    CHECK_OK(cs_count(r1, g_tr, &n));
    CHECK_EQ(n, 202);
    CHECK_OK(cs_txn_abort(r1));
    CHECK_OK(cs_txn_abort(r2));
    /* a thread may hold several read txns, and read during its write txn */
    cs_txn *rs[16];
    for (int i = 0; i < 16; i++) REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &rs[i]));
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    CHECK_OK(cs_put(w, g_tr, VS("k"), VS("w"), 0));
    for (int i = 0; i < 16; i++) check_get(rs[i], "k", "49");
    REQUIRE_OK(cs_txn_commit(w));
    struct cs_env_info info;
    CHECK_OK(cs_env_get_info(g_env, &info));
    CHECK_EQ(info.readers_used, 16);
    CHECK_EQ(info.oldest_reader, cs_txn_id(rs[0]));
    for (int i = 0; i < 16; i++) CHECK_OK(cs_txn_abort(rs[i]));
    CHECK_OK(cs_env_get_info(g_env, &info));
    CHECK_EQ(info.readers_used, 0);
}

/* ---- the single writer ---- */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_stage;
static _Atomic int g_got_writer;

static void set_stage(int s) {
    pthread_mutex_lock(&g_mu);
    g_stage = s;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}
static void wait_stage(int s) {
    pthread_mutex_lock(&g_mu);
    while (g_stage < s) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
}

/* Holds the writer until told to commit. */
static void *holder(void *arg) {
    (void)arg;
    cs_txn *w;
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    CHECK_OK(cs_put(w, g_tr, VS("holder"), VS("1"), 0));
    set_stage(1);
    wait_stage(2);
    CHECK_OK(cs_txn_commit(w));
    return NULL;
}

/* Waits for the writer; must see the commit made before it got in. */
static void *waiter(void *arg) {
    (void)arg;
    cs_txn *w;
    set_stage(4);
    REQUIRE_OK(cs_txn_begin(g_env, 0, &w));
    atomic_store(&g_got_writer, 1);
    check_get(w, "main", "1");
    CHECK_OK(cs_put(w, g_tr, VS("waiter"), VS("1"), 0));
    CHECK_OK(cs_txn_commit(w));
    return NULL;
}

static void test_writer_lock(void) {
    pthread_t th;
    cs_txn *w, *w2 = NULL;
    g_stage = 0;
    REQUIRE(pthread_create(&th, NULL, holder, NULL) == 0);
    wait_stage(1);
    CHECK_RC(cs_txn_begin(g_env, CS_TXN_TRY, &w2), CS_EBUSY);
    CHECK_RC(cs_txn_begin(g_env, CS_TXN_TRY, &w2), CS_EBUSY);
    cs_txn *r;
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY | CS_TXN_TRY, &r)); /* readers never wait */
    CHECK_OK(cs_txn_abort(r));
    set_stage(2);
    pthread_join(th, NULL);
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_TRY, &w));
    check_get(w, "holder", "1");
    /* same thread, second write txn: refused rather than deadlocking */
    CHECK_RC(cs_txn_begin(g_env, 0, &w2), CS_EBUSY);
    CHECK_RC(cs_txn_begin(g_env, CS_TXN_TRY, &w2), CS_EBUSY);
    CHECK_OK(cs_put(w, g_tr, VS("main"), VS("1"), 0));
    /* a second thread blocks until this one commits */
    atomic_store(&g_got_writer, 0);
    REQUIRE(pthread_create(&th, NULL, waiter, NULL) == 0);
    wait_stage(4);
    usleep(200 * 1000);
    CHECK_EQ(atomic_load(&g_got_writer), 0); /* cannot be 1: we hold the lock */
    REQUIRE_OK(cs_txn_commit(w));
    pthread_join(th, NULL);
    CHECK_EQ(atomic_load(&g_got_writer), 1);
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r));
    check_get(r, "waiter", "1");
    CHECK_OK(cs_txn_abort(r));
    /* after an abort the lock is free again */
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_TRY, &w));
    CHECK_OK(cs_txn_abort(w));
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_TRY, &w));
    CHECK_OK(cs_txn_abort(w));
}

/* Several threads increment one counter, each in its own write txn (half
 * of them polling with CS_TXN_TRY): no update is lost. */
enum { WTHREADS = 4, INCS = 300 };
static void *incrementer(void *arg) {
    int try_mode = (int)(intptr_t)arg;
    for (int i = 0; i < INCS; i++) {
        cs_txn *w;
        int r;
        while ((r = cs_txn_begin(g_env, try_mode ? CS_TXN_TRY : 0, &w)) == CS_EBUSY && try_mode)
            sched_yield();
        REQUIRE_OK(r);
        cs_val v;
        uint64_t n = 0;
        if (cs_get(w, g_tr, VS("counter"), &v) == CS_OK && v.size == 8) memcpy(&n, v.data, 8);
        n++;
        CHECK_OK(cs_put(w, g_tr, VS("counter"), V(&n, 8), 0));
        if (i % 10 == 9) CHECK_OK(cs_txn_abort(w)); /* aborted increments do not count */
        else CHECK_OK(cs_txn_commit(w));
    }
    return NULL;
}

static void test_concurrent_writers(void) {
    pthread_t th[WTHREADS];
    for (int i = 0; i < WTHREADS; i++)
        REQUIRE(pthread_create(&th[i], NULL, incrementer, (void *)(intptr_t)(i % 2)) == 0);
    for (int i = 0; i < WTHREADS; i++) pthread_join(th[i], NULL);
    cs_txn *r;
    cs_val v;
    uint64_t n = 0;
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &r));
    CHECK_OK(cs_get(r, g_tr, VS("counter"), &v));
    if (v.size == 8) memcpy(&n, v.data, 8);
    CHECK_EQ(n, WTHREADS * INCS * 9 / 10);
    CHECK_OK(cs_txn_abort(r));
}

/* Two env handles on one file in one process behave like two processes. */
static void test_two_handles(void) {
    tpath p = test_path("two.db");
    cs_env *a, *b;
    cs_txn *t, *ra;
    cs_tree tr;
    cs_val v;
    REQUIRE_OK(test_open(p.s, 0, &a));
    REQUIRE_OK(test_open(p.s, 0, &b));
    REQUIRE_OK(cs_txn_begin(a, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "x", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, VS("k"), VS("a1"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(a, CS_TXN_RDONLY, &ra)); /* a's old snapshot */
    REQUIRE_OK(cs_txn_begin(b, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "x", 0, &tr));
    CHECK_OK(cs_get(t, tr, VS("k"), &v));
    CHECK_VAL(v, "a1", 2);
    for (int i = 0; i < 3000; i++) { /* enough to reuse pages if a's reader were ignored */
        char k[16];
        snprintf(k, sizeof k, "%d", i);
        CHECK_OK(cs_put(t, tr, VS(k), VS(k), 0));
    }
    CHECK_OK(cs_put(t, tr, VS("k"), VS("b2"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    for (int c = 0; c < 20; c++) {
        REQUIRE_OK(cs_txn_begin(b, 0, &t));
        CHECK_OK(cs_put(t, tr, VS("k"), V("b2", 2), 0));
        CHECK_OK(cs_put(t, tr, VS("1000"), V(&c, sizeof c), 0));
        REQUIRE_OK(cs_txn_commit(t));
    }
    cs_tree tra;
    REQUIRE_OK(cs_tree_open(ra, "x", 0, &tra));
    CHECK_OK(cs_get(ra, tra, VS("k"), &v));
    CHECK_VAL(v, "a1", 2);
    uint64_t n = 0;
    CHECK_OK(cs_count(ra, tra, &n));
    CHECK_EQ(n, 1);
    CHECK_OK(cs_txn_abort(ra));
    REQUIRE_OK(cs_txn_begin(a, CS_TXN_RDONLY, &ra));
    CHECK_OK(cs_get(ra, tra, VS("k"), &v));
    CHECK_VAL(v, "b2", 2);
    CHECK_OK(cs_txn_abort(ra));
    cs_check_report rep;
    CHECK_OK(cs_check(a, &rep));
    CHECK_OK(cs_env_close(b));
    CHECK_OK(cs_env_close(a));
}

static void test_reader_limit(void) {
    tpath p = test_path("readers.db");
    cs_options o = {0};
    o.max_readers = 4;
    o.durability = CS_DURABLE_NO_SYNC;
    cs_env *env;
    cs_txn *r[5];
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    for (int i = 0; i < 4; i++) REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r[i]));
    CHECK_RC(cs_txn_begin(env, CS_TXN_RDONLY, &r[4]), CS_EREADERS);
    struct cs_env_info info;
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.max_readers, 4);
    CHECK_EQ(info.readers_used, 4);
    CHECK_OK(cs_txn_abort(r[2]));
    CHECK_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r[2])); /* slot reused */
    for (int i = 0; i < 4; i++) CHECK_OK(cs_txn_abort(r[i]));
    CHECK_OK(cs_env_close(env));
}

/* ---- durability modes: each works and flushes as documented ---- */
typedef struct { _Atomic int writes, syncs, grows, stages[8], last_stage, order_ok; uint64_t done_id; } io_count;

static int io_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off) {
    ((io_count *)ctx)->writes++;
    return test_pwrite_all(fd, buf, len, off);
}
static int io_sync(void *ctx, int fd) {
    ((io_count *)ctx)->syncs++;
    return fdatasync(fd) ? errno : 0;
}
static int io_grow(void *ctx, int fd, uint64_t size) {
    ((io_count *)ctx)->grows++;
    return posix_fallocate(fd, 0, (off_t)size);
}
static void stage_hook(void *ctx, cs_commit_stage st, uint64_t txnid) {
    io_count *c = ctx;
    if ((int)st <= c->last_stage && c->last_stage != CS_STAGE_DONE) c->order_ok = 0;
    c->last_stage = (int)st;
    if (st >= 1 && st <= 4) c->stages[st]++;
    if (st == CS_STAGE_DONE) c->done_id = txnid;
}

static void test_durability(void) {
    for (int mode = CS_DURABLE_FULL; mode <= CS_DURABLE_NO_SYNC; mode++) {
        char name[32];
        snprintf(name, sizeof name, "dur%d.db", mode);
        tpath p = test_path(name);
        io_count cnt;
        memset(&cnt, 0, sizeof cnt);
        cnt.order_ok = 1;
        cs_io_hooks io = {&cnt, io_write, io_sync, io_grow};
        cs_options o = {0};
        o.durability = (cs_durability)mode;
        o.io = &io;
        o.commit_hook = stage_hook;
        o.commit_hook_ctx = &cnt;
        cs_env *env;
        cs_txn *t;
        cs_tree tr;
        REQUIRE_OK(cs_env_open(p.s, &o, &env));
        int syncs0 = cnt.syncs, writes0 = cnt.writes;
        char k[16];
        uint64_t last_id = 0;
        for (int c = 0; c < 10; c++) {
            REQUIRE_OK(cs_txn_begin(env, 0, &t));
            last_id = cs_txn_id(t);
            REQUIRE_OK(cs_tree_open(t, "d", CS_CREATE, &tr));
            for (int i = 0; i < 100; i++) {
                snprintf(k, sizeof k, "%d-%d", c, i);
                CHECK_OK(cs_put(t, tr, VS(k), VS(k), 0));
            }
            REQUIRE_OK(cs_txn_commit(t));
        }
        int syncs = cnt.syncs - syncs0, writes = cnt.writes - writes0;
        printf("durability %d: %d writes, %d syncs, %d grows over 10 commits\n", mode, writes,
               syncs, (int)cnt.grows);
        CHECK(writes >= 10);
        if (mode == CS_DURABLE_FULL) CHECK_EQ(syncs, 10); /* single-flush commits: one each */
        if (mode == CS_DURABLE_NO_META_SYNC) CHECK(syncs >= 10);
        if (mode == CS_DURABLE_NO_SYNC) CHECK_EQ(syncs, 0);
        CHECK_EQ(cnt.stages[CS_STAGE_DONE], 10);
        CHECK_EQ(cnt.done_id, last_id);
        CHECK(cnt.order_ok);
        CHECK_OK(cs_env_sync(env));
        CHECK_OK(cs_env_close(env));
        REQUIRE_OK(cs_env_open(p.s, NULL, &env));
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        REQUIRE_OK(cs_tree_open(t, "d", 0, &tr));
        uint64_t n = 0;
        CHECK_OK(cs_count(t, tr, &n));
        CHECK_EQ(n, 1000);
        CHECK_OK(cs_txn_abort(t));
        CHECK_OK(cs_env_close(env));
    }
}

int main(void) {
    REQUIRE_OK(test_open(test_path("txn.db").s, 0, &g_env));
    g_tr = test_open_tree(g_env, "t");
    test_abort();
    test_isolation();
    test_writer_lock();
    test_concurrent_writers();
    CHECK_OK(cs_env_close(g_env));
    test_reader_limit();
    test_two_handles();
    test_durability();
    return test_report();
}
