/*
 * crashloop.c — kill -9 a committing process at random moments.
 *
 * Each round forks a child that opens the database, resumes from its seq
 * and commits batches (rel.h) in a loop, writing each acknowledged seq to a
 * pipe. The commit hook sleeps at random commit stages so that many kills
 * land inside a commit (between data flush and meta write, after the meta
 * write...). The parent kills the child after a random delay, drains the
 * acks, reopens, runs cs_check and verifies that the database holds exactly
 * state(k) with k >= the last acknowledged seq.
 *
 * Rounds rotate the durability mode (a process crash must lose nothing in
 * any mode: the page cache survives) and whether the parent keeps its own
 * env open across the kill, which exercises the other recovery path: a
 * lock file that stays live, a robust writer mutex whose owner died, and
 * reader slots of a dead process. The logged mode's child logs its small
 * commits (CS_ENV_LOG_SMALL), so kills land between its records and folds;
 * every other held env logs too, and then every child follows it (the
 * first process decides). Every other block of M_COUNT rounds the
 * child commits with auto-shrink on (cs_options.auto_shrink: relocations
 * and truncations of the file's end land under the kills too, after a
 * burst of pages every 40 commits is freed: pad()).
 *
 *   crashloop [kills]        default 200; SEED=n to replay
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rel.h"

enum { M_FULL, M_NO_META_SYNC, M_NO_SYNC, M_DEFERRED, M_LOGGED, M_COUNT };
static const char *mode_name[] = {"full", "no-meta-sync", "no-sync", "deferred", "logged"};

static uint64_t child_rng;

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Pause at random stages: the kill then lands inside the commit. */
static void stage_hook(void *ctx, cs_commit_stage st, uint64_t txnid)
{
    (void)ctx, (void)st, (void)txnid;
    if (rng_below(&child_rng, 3) == 0) sleep_us((long)rng_below(&child_rng, 1500));
}

static void ack(int fd, uint64_t s)
{
    while (write(fd, &s, sizeof s) < 0 && errno == EINTR) {}
}

/* Auto-shrink rounds: a burst of pages in a tree the workload does not
 * check, then all of them freed (two commits outside the state(k) sequence):
 * the commits after it relocate pages and cut the file's end under kills. */
static int pad(cs_env *env, bool fill)
{
    cs_txn *t;
    cs_tree tr;
    char k[16], v[300];
    memset(v, 'p', sizeof v);
    int rc = cs_txn_begin(env, 0, &t);
    if (rc) return rc;
    rc = cs_tree_open(t, "pad", CS_CREATE, &tr);
    for (int i = 0; rc == CS_OK && fill && i < 1500; i++)
        rc = cs_put(t, tr, (cs_val){k, (size_t)snprintf(k, sizeof k, "%06d", i)}, (cs_val){v, sizeof v}, 0);
    if (rc == CS_OK && !fill) rc = cs_tree_clear(t, tr);
    if (rc) {
        cs_txn_abort(t);
        return rc;
    }
    return cs_txn_commit(t);
}

static _Noreturn void child(const char *path, int mode, bool shrink, int fd, uint64_t seed)
{
    child_rng = seed;
    cs_options o = {0};
    o.durability = mode == M_NO_META_SYNC ? CS_DURABLE_NO_META_SYNC : mode == M_NO_SYNC ? CS_DURABLE_NO_SYNC
                                                                                          : CS_DURABLE_FULL;
    o.commit_hook = stage_hook;
    o.auto_shrink = shrink;
    if (mode == M_LOGGED) o.flags = CS_ENV_LOG_SMALL;
    cs_env *env;
    int rc = cs_env_open(path, &o, &env);
    if (rc) {
        fprintf(stderr, "child: open: %s (%s)\n", cs_strerror(rc), cs_last_error_detail());
        _exit(3);
    }
    char why[300];
    uint64_t k;
    if (wl_verify(env, &k, why, sizeof why)) {
        fprintf(stderr, "child: at start: %s\n", why);
        _exit(4);
    }
    for (;;) {
        cs_txn *t;
        uint64_t s = 0;
        if ((rc = cs_txn_begin(env, 0, &t)) == CS_OK) s = wl_current(t) + 1;
        if (rc || (rc = wl_apply(t, s))) {
            fprintf(stderr, "child: seq %llu: %s (%s)\n", (unsigned long long)s, cs_strerror(rc), cs_last_error_detail());
            _exit(5);
        }
        bool defer = mode == M_DEFERRED && s % 4 != 0;
        rc = defer ? cs_txn_commit_deferred(t) : cs_txn_commit(t);
        if (rc) {
            fprintf(stderr, "child: commit %llu: %s (%s)\n", (unsigned long long)s, cs_strerror(rc), cs_last_error_detail());
            _exit(6);
        }
        /* A deferred commit is acknowledged as durable only by a flush. */
        if (!defer) ack(fd, s);
        if (shrink && s % 40 == 0 && ((rc = pad(env, true)) || (rc = pad(env, false)))) {
            fprintf(stderr, "child: pad: %s (%s)\n", cs_strerror(rc), cs_last_error_detail());
            _exit(8);
        }
        if (rng_below(&child_rng, 8) == 0) {
            /* hold a reader slot now and then, so kills leave stale ones */
            uint64_t kk;
            if (wl_verify(env, &kk, why, sizeof why)) {
                fprintf(stderr, "child: live verify: %s\n", why);
                _exit(7);
            }
        }
    }
}

int main(int argc, char **argv)
{
    long kills = argc > 1 ? atol(argv[1]) : 200;
    uint64_t rng = rel_seed("crashloop");
    const char *dir = rel_mkdir("crash");
    char path[600], why[300];
    rel_path(path, sizeof path, dir, "crash.db");
    double t0 = rel_now();
    long in_commit = 0, by_mode[M_COUNT] = {0}, shrunk = 0;
    uint64_t prev_pgno = UINT64_MAX;
    uint64_t last_acked = 0, max_k = 0;
    cs_env *held = NULL;
    for (long round = 0; round < kills && rel_failures == 0; round++) {
        int mode = (int)(round % M_COUNT);
        /* Every 50 rounds start from an empty file; the parent holds its
         * env open across the kill in every other block of 5 rounds. */
        if (round % 50 == 0) {
            if (held) cs_env_close(held), held = NULL;
            rel_rm_db(path);
            last_acked = 0;
        }
        bool hold = (round / 5) % 2 == 1;
        if (hold && !held) {
            cs_options po = {0};
            if ((round / 10) % 2 == 1) po.flags = CS_ENV_LOG_SMALL;
            int rc = cs_env_open(path, &po, &held);
            if (rc) rel_fail("round %ld: parent open: %s", round, cs_strerror(rc));
        } else if (!hold && held) {
            cs_env_close(held), held = NULL;
        }
        int pfd[2];
        if (pipe(pfd)) return perror("pipe"), 2;
        uint64_t cseed = rng_next(&rng);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a killed run */
            close(pfd[0]);
            child(path, mode, (round / M_COUNT) % 2 == 1, pfd[1], cseed);
        }
        close(pfd[1]);
        /* Most kills after a few commits; some during open/recovery. */
        long delay = rng_below(&rng, 4) == 0 ? (long)rng_below(&rng, 3000) : 2000 + (long)rng_below(&rng, 25000);
        sleep_us(delay);
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        uint64_t s, n = 0;
        while (read(pfd[0], &s, sizeof s) == (ssize_t)sizeof s) last_acked = s, n++;
        close(pfd[0]);
        if (!WIFSIGNALED(st)) {
            rel_fail("round %ld (%s): child exited with %d", round, mode_name[mode], WEXITSTATUS(st));
            continue;
        }
        by_mode[mode]++;
        cs_env *env = held;
        int rc = env ? CS_OK : cs_env_open(path, NULL, &env);
        if (rc) {
            rel_fail("round %ld (%s): %s: reopen after kill: %s (%s)", round, mode_name[mode], INV_OPEN,
                     cs_strerror(rc), cs_last_error_detail());
            continue;
        }
        uint64_t k = 0;
        if (rel_check(env, why, sizeof why)) rel_fail("round %ld (%s): %s", round, mode_name[mode], why);
        else if (wl_verify(env, &k, why, sizeof why)) rel_fail("round %ld (%s): %s", round, mode_name[mode], why);
        else if (k < last_acked)
            rel_fail("round %ld (%s): %s: lost acknowledged commits: db at %llu, acked %llu", round, mode_name[mode],
                     INV_CRASH, (unsigned long long)k, (unsigned long long)last_acked);
        if (k > last_acked) in_commit++; /* killed after the commit point, before the ack */
        if (k > max_k) max_k = k;
        if ((round / M_COUNT) % 2 == 1) { /* did auto-shrink work under the kills? */
            cs_env_info info;
            if (cs_env_get_info(env, &info) == CS_OK && info.next_pgno < prev_pgno) shrunk++;
            prev_pgno = info.next_pgno;
        }
        if (held) {
            /* the dead child's reader slots are recovered */
            uint32_t cleared;
            cs_env_info info;
            cs_reader_check(env, &cleared);
            if (cs_env_get_info(env, &info) == CS_OK && info.readers_used != 0)
                rel_fail("round %ld: %s: %u reader slots still in use after cs_reader_check", round, INV_SLOTS,
                         info.readers_used);
        } else {
            cs_env_close(env);
        }
        (void)n;
    }
    if (held) cs_env_close(held);
    long total = 0;
    for (int m = 0; m < M_COUNT; m++) total += by_mode[m];
    printf("crashloop: %ld kills (full %ld, no-meta-sync %ld, no-sync %ld, deferred %ld, logged %ld), %ld after the "
           "commit point but before the ack, up to seq %llu, %ld auto-shrink rounds ended with a shorter file, %.1fs\n",
           total, by_mode[0], by_mode[1], by_mode[2], by_mode[3], by_mode[4], in_commit, (unsigned long long)max_k,
           shrunk, rel_now() - t0);
    if (rel_failures == 0) rel_rmdir(dir);
    else fprintf(stderr, "crashloop: files kept in %s\n", dir);
    return rel_report("crashloop", total);
}
