/* test_multiprocess.c — several processes on one file: a writer and
 * readers agree on every snapshot; a reader killed while holding a
 * snapshot has its slot reclaimed, after which the file stops growing; a
 * writer killed inside a write txn (or inside its commit) leaves the lock
 * usable and the committed data intact. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static tpath g_path;

/* fork; the child runs fn and exits with its own pass/fail status */
static pid_t spawn(void (*fn)(void *), void *arg) {
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        atomic_store(&test_passed, 0);
        atomic_store(&test_failed, 0);
        alarm(240); /* a hung child fails instead of hanging the suite */
        fn(arg);
        exit(atomic_load(&test_failed) ? 1 : 0);
    }
    return pid;
}
static void reap_ok(pid_t pid) {
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (!WIFEXITED(st)) fprintf(stderr, "child %d died with signal %d\n", (int)pid, WTERMSIG(st));
}
static void kill_reap(pid_t pid) {
    int st = 0;
    kill(pid, SIGKILL);
    REQUIRE(waitpid(pid, &st, 0) == pid);
}

/* ---- one writer, several readers ---- */
enum { GENS = 300 };

static void writer_proc(void *arg) {
    (void)arg;
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "inv");
    for (uint64_t gen = 1; gen <= GENS; gen++) {
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        /* every generation adds a 256 KiB blob: readers in other processes
         * must follow the file as it grows (remap) */
        CHECK_OK(inv_write(t, tr, gen, 256u << 10, 1));
        REQUIRE_OK(cs_txn_commit(t));
        if (gen % 16 == 0) usleep(1000);
    }
    CHECK_OK(cs_env_close(env));
}

static void reader_proc(void *arg) {
    cs_env *env;
    /* one reader opens the env read-only: it must follow new commits too */
    REQUIRE_OK(test_open(g_path.s, arg ? CS_ENV_RDONLY : 0, &env));
    cs_tree tr;
    cs_txn *t;
    int64_t last = -2;
    long snaps = 0;
    for (;;) {
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        int r = cs_tree_open(t, "inv", 0, &tr);
        int64_t g = r == CS_OK ? inv_verify(t, tr) : -2;
        if (g >= 0) { /* hold it a little and check again */
            usleep(300);
            CHECK_EQ(inv_verify(t, tr), g);
        }
        CHECK_OK(cs_txn_abort(t));
        if (g == -1) break;
        CHECK(g >= last);
        last = g;
        snaps++;
        if (g == GENS) break;
    }
    printf("reader %d: %ld snapshots\n", (int)getpid(), snaps);
    CHECK_OK(cs_env_close(env));
}

/* Holds one snapshot for about a second of commits by the writer process:
 * its pages must not be reused under it. */
static void long_reader_proc(void *arg) {
    (void)arg;
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    int64_t g = -2;
    for (int tries = 0; g < 5 && tries < 2000; tries++) { /* a snapshot with some history */
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        REQUIRE_OK(cs_tree_open(t, "inv", 0, &tr));
        g = inv_verify(t, tr);
        if (g < 5) { CHECK_OK(cs_txn_abort(t)); usleep(1000); }
    }
    REQUIRE(g >= 5);
    for (int i = 0; i < 20; i++) {
        usleep(50000);
        CHECK_EQ(inv_verify(t, tr), g);
    }
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

static void test_writer_readers(void) {
    g_path = test_path("mp.db");
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env)); /* exists before the read-only reader opens it */
    test_open_tree(env, "inv");
    CHECK_OK(cs_env_close(env));
    pid_t w = spawn(writer_proc, NULL);
    pid_t r[3];
    for (int i = 0; i < 3; i++) r[i] = spawn(reader_proc, i == 0 ? (void *)1 : NULL);
    pid_t lr = spawn(long_reader_proc, NULL);
    reap_ok(w);
    reap_ok(lr);
    for (int i = 0; i < 3; i++) reap_ok(r[i]);
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "inv");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_EQ(inv_verify(t, tr), GENS);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
}

/* ---- a killed reader ---- */
static int g_pipe[2];
static int g_pipe2[2];

static void pinning_reader(void *arg) {
    (void)arg;
    cs_env *env;
    cs_txn *t;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    uint64_t id = cs_txn_id(t);
    REQUIRE(write(g_pipe[1], &id, sizeof id) == sizeof id);
    for (;;) pause(); /* killed here, snapshot held */
}

static void test_killed_reader(void) {
    g_path = test_path("reader.db");
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "inv");
    for (int i = 0; i < 5; i++) churn(env, tr, 1000, 100, (uint64_t)i);
    REQUIRE(pipe(g_pipe) == 0);
    pid_t pid = spawn(pinning_reader, NULL);
    uint64_t snap = 0;
    REQUIRE(read(g_pipe[0], &snap, sizeof snap) == sizeof snap);
    struct cs_env_info info, before;
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.readers_used, 1);
    CHECK_EQ(info.oldest_reader, snap);
    /* the pinned snapshot keeps freed pages pending: the file grows */
    for (int i = 0; i < 40; i++) churn(env, tr, 1000, 100, 10u + (uint64_t)i);
    CHECK_OK(cs_env_get_info(env, &before));
    CHECK(before.pending_pages > 0);
    CHECK_EQ(before.oldest_reader, snap);
    kill_reap(pid);
    close(g_pipe[0]);
    close(g_pipe[1]);
    uint32_t cleared = 0;
    CHECK_OK(cs_reader_check(env, &cleared));
    CHECK_EQ(cleared, 1);
    CHECK_OK(cs_reader_check(env, &cleared));
    CHECK_EQ(cleared, 0);
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.readers_used, 0);
    CHECK_EQ(info.oldest_reader, 0);
    /* space is reused again: after a warm-up the file stops growing */
    for (int i = 0; i < 10; i++) churn(env, tr, 1000, 100, 100u + (uint64_t)i);
    struct cs_env_info warm;
    CHECK_OK(cs_env_get_info(env, &warm));
    for (int i = 0; i < 100; i++) churn(env, tr, 1000, 100, 200u + (uint64_t)i);
    CHECK_OK(cs_env_get_info(env, &info));
    printf("killed reader: pinned next_pgno %llu, warm %llu, end %llu\n",
           (unsigned long long)before.next_pgno, (unsigned long long)warm.next_pgno,
           (unsigned long long)info.next_pgno);
    CHECK(info.next_pgno <= warm.next_pgno + 8);
    CHECK_EQ(info.file_size, warm.file_size);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
}

/* Only the dead reader's slot is reclaimed: live readers (another process,
 * and this one) keep theirs. */
static void test_reclaim_only_dead(void) {
    g_path = test_path("reclaim.db");
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "inv");
    churn(env, tr, 100, 10, 0);
    REQUIRE(pipe(g_pipe) == 0);
    uint64_t snap_a = 0, snap_b = 0;
    pid_t a = spawn(pinning_reader, NULL);
    REQUIRE(read(g_pipe[0], &snap_a, sizeof snap_a) == sizeof snap_a);
    churn(env, tr, 100, 10, 1);
    pid_t b = spawn(pinning_reader, NULL);
    REQUIRE(read(g_pipe[0], &snap_b, sizeof snap_b) == sizeof snap_b);
    churn(env, tr, 100, 10, 2);
    cs_txn *mine;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &mine));
    struct cs_env_info info;
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.readers_used, 3);
    CHECK_EQ(info.oldest_reader, snap_a);
    uint32_t cleared = 99;
    CHECK_OK(cs_reader_check(env, &cleared));
    CHECK_EQ(cleared, 0); /* everyone is alive */
    kill_reap(a);
    CHECK_OK(cs_reader_check(env, &cleared));
    CHECK_EQ(cleared, 1);
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.readers_used, 2);
    CHECK_EQ(info.oldest_reader, snap_b);
    kill_reap(b);
    churn(env, tr, 100, 10, 3); /* the writer may reclaim by itself too */
    CHECK_OK(cs_reader_check(env, &cleared));
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.readers_used, 1);
    CHECK_EQ(info.oldest_reader, cs_txn_id(mine));
    CHECK_OK(cs_txn_abort(mine));
    close(g_pipe[0]);
    close(g_pipe[1]);
    CHECK_OK(cs_env_close(env));
}

/* Processes that keep opening and closing the env (so the lock file is
 * rebuilt again and again by whoever comes first) lose no update. */
enum { OPENERS = 5, OPEN_LOOPS = 40 };
static void opener_proc(void *arg) {
    (void)arg;
    for (int i = 0; i < OPEN_LOOPS; i++) {
        cs_env *env;
        cs_txn *t;
        cs_tree tr;
        REQUIRE_OK(test_open(g_path.s, 0, &env));
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "ctr", CS_CREATE, &tr));
        cs_val v;
        uint64_t n = 0;
        if (cs_get(t, tr, VS("n"), &v) == CS_OK && v.size == 8) memcpy(&n, v.data, 8);
        n++;
        CHECK_OK(cs_put(t, tr, VS("n"), V(&n, 8), 0));
        REQUIRE_OK(cs_txn_commit(t));
        if (i % 3 == 0) { /* and a reader that overlaps others' opens */
            REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
            CHECK_OK(cs_get(t, tr, VS("n"), &v));
            CHECK_OK(cs_txn_abort(t));
        }
        CHECK_OK(cs_env_close(env));
    }
}

static void test_open_close_storm(void) {
    g_path = test_path("storm.db");
    pid_t p[OPENERS];
    for (int i = 0; i < OPENERS; i++) p[i] = spawn(opener_proc, NULL);
    for (int i = 0; i < OPENERS; i++) reap_ok(p[i]);
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    uint64_t n = 0;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "ctr", 0, &tr));
    CHECK_OK(cs_get(t, tr, VS("n"), &v));
    if (v.size == 8) memcpy(&n, v.data, 8);
    CHECK_EQ(n, OPENERS * OPEN_LOOPS);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_OK(cs_env_close(env));
}

/* ---- a killed writer ---- */
enum { BASE_GEN = 10 };
static int g_kill_stage; /* 0: die while the txn is open; else in commit */
static unsigned g_writer_flags; /* CS_ENV_TWO_FLUSH: every stage is reached */

static void kill_hook(void *ctx, cs_commit_stage st, uint64_t txnid) {
    (void)ctx; (void)txnid;
    if ((int)st == g_kill_stage) raise(SIGKILL);
}

static void dying_writer(void *arg) {
    (void)arg;
    cs_options o = {0};
    o.commit_hook = kill_hook;
    o.flags = g_writer_flags;
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_env_open(g_path.s, &o, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "inv", 0, &tr));
    /* big enough that the engine may write or grow before commit */
    CHECK_OK(inv_write(t, tr, BASE_GEN + 1, 8u << 20, 0));
    if (g_kill_stage) {
        cs_txn_commit(t);
        fprintf(stderr, "commit hook did not fire at stage %d\n", g_kill_stage);
        exit(1);
    }
    uint64_t one = 1;
    REQUIRE(write(g_pipe[1], &one, sizeof one) == sizeof one);
    for (;;) pause();
}

/* After the kill: the writer lock is usable and the data is one of the
 * allowed generations, consistent, and can be written again. */
static void check_after_kill(cs_env *env, int64_t lo, int64_t hi) {
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t)); /* blocks forever if not robust (alarm) */
    REQUIRE_OK(cs_tree_open(t, "inv", 0, &tr));
    int64_t g = inv_verify(t, tr);
    if (g < lo || g > hi)
        test_fail_(__FILE__, __LINE__, "after a killed writer (stage %d, %s): generation %lld, want %lld..%lld",
                   g_kill_stage, g_writer_flags ? "two-flush" : "single-flush", (long long)g, (long long)lo, (long long)hi);
    else atomic_fetch_add(&test_passed, 1);
    CHECK_OK(inv_write(t, tr, (uint64_t)g + 5, 1000, 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_EQ(inv_verify(t, tr), g + 5);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
}

static void test_killed_writer(int stage, int keep_open) {
    char name[64];
    snprintf(name, sizeof name, "writer-%d-%d.db", stage, keep_open);
    g_path = test_path(name);
    cs_env *env;
    cs_txn *t;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    cs_tree tr = test_open_tree(env, "inv");
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_OK(inv_write(t, tr, BASE_GEN, 50000, 0));
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_sync(env));
    if (!keep_open) CHECK_OK(cs_env_close(env));
    g_kill_stage = stage;
    REQUIRE(pipe(g_pipe) == 0);
    pid_t pid = spawn(dying_writer, NULL);
    if (stage == 0) {
        uint64_t one;
        REQUIRE(read(g_pipe[0], &one, sizeof one) == sizeof one);
        if (keep_open) { /* the child holds the writer: TRY must not wait */
            cs_txn *w = NULL;
            CHECK_RC(cs_txn_begin(env, CS_TXN_TRY, &w), CS_EBUSY);
        }
        kill(pid, SIGKILL);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    close(g_pipe[0]);
    close(g_pipe[1]);
    if (!keep_open) REQUIRE_OK(test_open(g_path.s, 0, &env));
    /* Before the meta is written the new generation cannot be visible.
     * After it, the meta is in the file (a killed process loses nothing it
     * wrote) but was never published in the lock file: the next writer
     * must adopt it. With keep_open the lock file survives (this process
     * holds it), so only that adoption makes generation BASE_GEN + 1 visible;
     * without, the reopen rebuilds the lock file from the meta on disk. */
    int64_t want = stage >= CS_STAGE_META_WRITTEN ? BASE_GEN + 1 : BASE_GEN;
    check_after_kill(env, want, want);
    CHECK_OK(cs_env_close(env));
    REQUIRE_OK(test_open(g_path.s, 0, &env)); /* and it all survives a reopen */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "inv", 0, &tr)); /* handles do not outlive the env */
    CHECK(inv_verify(t, tr) >= BASE_GEN + 5);
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

/* ---- whether another process has the file open (cs_env_shared) ---- */
static void holding_open(void *arg) {
    (void)arg;
    close(g_pipe2[1]); /* so that the parent closing its end ends the read below */
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    char ready = 1, done;
    REQUIRE(write(g_pipe[1], &ready, 1) == 1);
    /* hold the env open until the parent closes its end of the second pipe */
    while (read(g_pipe2[0], &done, 1) > 0) {}
    CHECK_OK(cs_env_close(env));
}
static void test_shared_with_others(void) {
    g_path = test_path("shared.db");
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    int others = -1;
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 0);
    cs_env *second; /* another open of the file counts, in this process too */
    REQUIRE_OK(test_open(g_path.s, 0, &second));
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 1);
    CHECK_OK(cs_env_close(second));
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 0);
    REQUIRE(pipe(g_pipe) == 0 && pipe(g_pipe2) == 0);
    pid_t pid = spawn(holding_open, NULL);
    char ready;
    REQUIRE(read(g_pipe[0], &ready, 1) == 1);
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 1);
    close(g_pipe2[1]);
    reap_ok(pid);
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 0);
    /* a process killed with the file open leaves nothing behind */
    REQUIRE(pipe(g_pipe2) == 0);
    pid = spawn(holding_open, NULL);
    REQUIRE(read(g_pipe[0], &ready, 1) == 1);
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 1);
    kill_reap(pid);
    CHECK_OK(cs_env_shared(env, &others));
    CHECK_EQ(others, 0);
    close(g_pipe2[0]);
    close(g_pipe2[1]);
    close(g_pipe[0]);
    close(g_pipe[1]);
    CHECK_EQ(cs_env_shared(env, NULL), CS_EINVAL);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    alarm(400);
    test_shared_with_others();
    test_writer_readers();
    test_killed_reader();
    test_reclaim_only_dead();
    test_open_close_storm();
    /* Two-flush commits pass every stage; single-flush ones skip DATA_SYNCED. */
    for (int keep = 0; keep <= 1; keep++) {
        g_writer_flags = CS_ENV_TWO_FLUSH;
        for (int stage = 0; stage <= CS_STAGE_META_WRITTEN; stage++) test_killed_writer(stage, keep);
        g_writer_flags = 0;
        for (int stage = 0; stage <= CS_STAGE_META_WRITTEN; stage++)
            if (stage != CS_STAGE_DATA_SYNCED) test_killed_writer(stage, keep);
    }
    return test_report();
}
