/*
 * diskfull.c — the disk fills up under a committing database.
 *
 * The I/O hooks model a disk of a given capacity: a write or a growth
 * beyond it fails with ENOSPC. Part 1 commits batches (rel.h) until the
 * disk is full: the failing commit must return CS_ENOSPACE, the database
 * must stay at its last commit (live env and after reopen, cs_check clean),
 * and after "space returns" commits must work again. Part 2 fails exactly
 * the n-th I/O call of a commit with ENOSPC, for every n: a failed write
 * or growth leaves the last commit; a failed flush panics the env
 * (CS_EPANIC until reopened) and after reopen the database holds the last
 * commit or, if the meta write had been issued, the failed one. Part 3
 * does the same around a deferred commit and the cs_env_sync that flushes
 * it. Parts 1 and 2 run again with logged commits (CS_ENV_LOG_SMALL): the
 * record's write and flush are the calls that fail then.
 *
 *   diskfull short|long       SEED=n to replay
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rel.h"

static struct {
    uint64_t capacity;   /* bytes the "disk" holds; 0 = unlimited */
    long calls, fail_at; /* fail I/O call number fail_at (-1 = never) */
    bool failed_sync, meta_written;
} D;

static int h_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    (void)ctx;
    if (D.calls++ == D.fail_at) return ENOSPC;
    if (D.capacity && off + len > D.capacity) {
        /* a partial write, as a real full disk may do */
        if (off < D.capacity && pwrite(fd, buf, (size_t)(D.capacity - off), (off_t)off) < 0) return errno;
        return ENOSPC;
    }
    return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : errno;
}

static int h_sync(void *ctx, int fd)
{
    (void)ctx, (void)fd;
    if (D.calls++ == D.fail_at) return D.failed_sync = true, ENOSPC; /* delayed allocation failing at flush */
    return 0;
}

static int h_grow(void *ctx, int fd, uint64_t size)
{
    (void)ctx;
    if (D.calls++ == D.fail_at || (D.capacity && size > D.capacity)) return ENOSPC;
    return ftruncate(fd, (off_t)size) ? errno : 0;
}

static void hook(void *ctx, cs_commit_stage st, uint64_t txnid)
{
    (void)ctx, (void)txnid;
    if (st == CS_STAGE_META_WRITTEN) D.meta_written = true;
}

static cs_io_hooks io = {.write = h_write, .sync = h_sync, .grow = h_grow};
static uint32_t env_flags; /* CS_ENV_LOG_SMALL in the logged runs */

static int open_env(const char *path, cs_env **env)
{
    cs_options o = {.io = &io, .commit_hook = hook, .flags = env_flags};
    return cs_env_open(path, &o, env);
}

static bool filler; /* part 1: each commit also adds 60 KB that stays */

static int commit_one(cs_env *env, uint64_t *seq)
{
    cs_txn *t;
    int rc = cs_txn_begin(env, 0, &t);
    if (rc) return rc;
    *seq = wl_current(t) + 1;
    static uint8_t big[60000];
    cs_tree fill;
    if (filler && rc == CS_OK && (rc = cs_tree_open(t, "fill", CS_CREATE, &fill)) == CS_OK) {
        memset(big, (int)*seq, sizeof big);
        rc = cs_put(t, fill, (cs_val){seq, sizeof *seq}, (cs_val){big, sizeof big}, 0);
    }
    if (rc || (rc = wl_apply(t, *seq))) {
        cs_txn_abort(t);
        return rc;
    }
    return cs_txn_commit(t);
}

/* The env (or a reopen) holds exactly state(want) (or want_alt) and checks clean. */
static void expect(cs_env *env, uint64_t want, uint64_t want_alt, const char *when)
{
    char why[300];
    uint64_t k;
    if (rel_check(env, why, sizeof why)) rel_fail("%s: %s", when, why);
    else if (wl_verify(env, &k, why, sizeof why)) rel_fail("%s: %s", when, why);
    else if (k != want && k != want_alt)
        rel_fail("%s: %s: at seq %llu, want %llu", when, INV_FAILED_COMMIT, (unsigned long long)k, (unsigned long long)want);
}

static long part1(const char *path, int rounds)
{
    long scenarios = 0;
    D.fail_at = -1;
    for (int r = 0; r < rounds && rel_failures == 0; r++) {
        rel_rm_db(path);
        D.capacity = 0;
        cs_env *env;
        if (open_env(path, &env)) return rel_fail("part 1: open"), scenarios;
        uint64_t seq = 0, last = 0;
        for (int i = 0; i < 5 + r; i++)
            if (commit_one(env, &seq) == CS_OK) last = seq;
        cs_env_info info;
        cs_env_get_info(env, &info);
        /* A little room above the file (its growth fails), or above the
         * used pages (writes into a sparse file fail). */
        D.capacity = (r % 2 ? info.file_size : info.next_pgno * info.page_size) + (uint64_t)(r % 3) * 4096 * 7;
        int rc = CS_OK, fails = 0;
        for (int i = 0; i < 400 && fails < 3; i++) {
            rc = commit_one(env, &seq);
            if (rc == CS_OK) last = seq;
            else if (rc == CS_ENOSPACE) {
                fails++;
                scenarios++;
                expect(env, last, last, "part 1: live env after CS_ENOSPACE");
            } else {
                rel_fail("part 1: commit failed with %s (%s), want CS_ENOSPACE", cs_strerror(rc), cs_last_error_detail());
                break;
            }
        }
        if (fails == 0) rel_fail("part 1: the disk never filled up");
        cs_env_close(env);
        if (open_env(path, &env)) return rel_fail("part 1: reopen when full"), scenarios;
        expect(env, last, last, "part 1: reopened while full");
        D.capacity = 0; /* space returns */
        for (int i = 0; i < 3; i++)
            if ((rc = commit_one(env, &seq)) != CS_OK) rel_fail("part 1: commit after space returned: %s", cs_strerror(rc));
            else last = seq;
        expect(env, last, last, "part 1: after space returned");
        cs_env_close(env);
    }
    return scenarios;
}

static long part2(const char *path, int rounds, uint64_t *rng)
{
    long scenarios = 0;
    D.capacity = 0;
    for (int r = 0; r < rounds && rel_failures == 0; r++) {
        rel_rm_db(path);
        D.fail_at = -1;
        cs_env *env;
        if (open_env(path, &env)) return rel_fail("part 2: open"), scenarios;
        uint64_t seq = 0, last = 0;
        int warm = 3 + (int)rng_below(rng, 20);
        for (int i = 0; i < warm; i++)
            if (commit_one(env, &seq) == CS_OK) last = seq;
        /* Count the I/O calls of one commit, then fail each in turn. */
        D.calls = 0;
        if (commit_one(env, &seq) == CS_OK) last = seq;
        long ncalls = D.calls;
        for (long n = 0; n < ncalls + 1 && rel_failures == 0; n++) {
            D.calls = 0, D.fail_at = n, D.failed_sync = D.meta_written = false;
            int rc = commit_one(env, &seq);
            D.fail_at = -1;
            scenarios++;
            if (rc == CS_OK) { /* this commit needed fewer calls */
                last = seq;
                continue;
            }
            if (rc != CS_ENOSPACE) rel_fail("part 2: call %ld: %s, want CS_ENOSPACE", n, cs_strerror(rc));
            uint64_t alt = last;
            if (D.failed_sync) {
                /* The env refuses writes until it is reopened. */
                cs_txn *t;
                rc = cs_txn_begin(env, 0, &t);
                if (rc == CS_OK) cs_txn_abort(t), rel_fail("part 2: write txn after a failed flush: no panic");
                else if (rc != CS_EPANIC) rel_fail("part 2: after a failed flush: %s, want CS_EPANIC", cs_strerror(rc));
                /* A failed meta flush may or may not have reached the disk. */
                if (D.meta_written) alt = seq;
                cs_env_close(env);
                if (open_env(path, &env)) return rel_fail("part 2: reopen after panic"), scenarios;
            } else {
                expect(env, last, last, "part 2: live env after a failed write");
            }
            char why[300];
            uint64_t k = 0;
            if (rel_check(env, why, sizeof why) || wl_verify(env, &k, why, sizeof why))
                rel_fail("part 2: call %ld: %s", n, why);
            else if (k != last && k != alt)
                rel_fail("part 2: call %ld: %s: at seq %llu, want %llu", n, INV_FAILED_COMMIT, (unsigned long long)k,
                         (unsigned long long)last);
            last = k;
            if ((rc = commit_one(env, &seq)) != CS_OK) rel_fail("part 2: commit after the failure: %s", cs_strerror(rc));
            else last = seq;
        }
        cs_env_close(env);
    }
    return scenarios;
}

/* Part 3: a deferred commit, then cs_env_sync, with I/O call n failing. A
 * failed deferred commit leaves the last commit; a failed cs_env_sync leaves
 * the deferred commit visible in the live env (still waiting for a flush),
 * and after reopen the file holds it or the last durable commit. */
static long part3(const char *path, int rounds)
{
    long scenarios = 0;
    D.capacity = 0;
    for (int r = 0; r < rounds && rel_failures == 0; r++) {
        rel_rm_db(path);
        D.fail_at = -1;
        cs_env *env;
        if (open_env(path, &env)) return rel_fail("part 3: open"), scenarios;
        uint64_t seq = 0, durable = 0;
        for (int i = 0; i < 3 + r % 5; i++)
            if (commit_one(env, &seq) == CS_OK) durable = seq;
        for (long n = 0; n < 12 && rel_failures == 0; n++) {
            cs_txn *t;
            D.calls = 0, D.fail_at = n, D.failed_sync = D.meta_written = false;
            int rc = cs_txn_begin(env, 0, &t), in_sync = 0;
            if (rc == CS_OK) {
                seq = wl_current(t) + 1;
                if ((rc = wl_apply(t, seq))) cs_txn_abort(t);
                else rc = cs_txn_commit_deferred(t);
            }
            if (rc == CS_OK) in_sync = 1, rc = cs_env_sync(env);
            D.fail_at = -1;
            scenarios++;
            if (rc == CS_OK) {
                durable = seq;
                continue;
            }
            if (rc != CS_ENOSPACE) rel_fail("part 3: call %ld: %s, want CS_ENOSPACE", n, cs_strerror(rc));
            uint64_t live = in_sync ? seq : durable;
            expect(env, live, live, "part 3: live env after the failure");
            cs_env_close(env); /* tries the flush again: space is back */
            if (open_env(path, &env)) return rel_fail("part 3: reopen"), scenarios;
            expect(env, durable, live, "part 3: after reopen");
            uint64_t k = durable;
            char why[300];
            if (wl_verify(env, &k, why, sizeof why) == 0) durable = k;
        }
        cs_env_close(env);
    }
    return scenarios;
}

int main(int argc, char **argv)
{
    bool lng = argc > 1 && strcmp(argv[1], "long") == 0;
    uint64_t rng = rel_seed("diskfull");
    const char *dir = rel_mkdir("full");
    char path[600];
    rel_path(path, sizeof path, dir, "full.db");
    double t0 = rel_now();
    filler = true;
    long a = part1(path, lng ? 100 : 16);
    filler = false;
    long b = part2(path, lng ? 300 : 40, &rng);
    long c = part3(path, lng ? 100 : 20);
    env_flags = CS_ENV_LOG_SMALL;
    filler = true;
    long la = part1(path, lng ? 50 : 8);
    filler = false;
    long lb = part2(path, lng ? 150 : 20, &rng);
    printf("diskfull: %ld full-disk commits, %ld single-call ENOSPC failures in commits, %ld around deferred "
           "commits and cs_env_sync; logged: %ld full-disk commits, %ld single-call failures, %.1fs\n",
           a, b, c, la, lb, rel_now() - t0);
    a += la, b += lb;
    if (rel_failures == 0) rel_rmdir(dir);
    else fprintf(stderr, "diskfull: files kept in %s\n", dir);
    return rel_report("diskfull", a + b + c);
}
