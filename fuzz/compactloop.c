/*
 * compactloop.c — kill -9 a process that compacts its file in place.
 *
 * Each round forks a child that opens the database, commits a few batches
 * (rel.h, acknowledging each seq on a pipe), then compacts the file in
 * place (cs_env_compact: a compact copy beside it, flushed, renamed over
 * it, the directory flushed), reopens it and goes on, with markers on the
 * pipe around each compaction. The parent kills it after a random delay,
 * reopens, runs cs_check and verifies that the file holds exactly
 * state(k), k >= the last acknowledged seq: the old or the compacted
 * file, never a damaged or a half-written one.
 *
 * Every fifth round the parent keeps the file open across the round: the
 * child's compactions must then be refused (CS_EBUSY) and change nothing.
 *
 *   compactloop [kills]        default 100; SEED=n to replay
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rel.h"

/* Pipe messages besides acknowledged seqs (which stay below 2^62). */
#define MSG_COMPACT_BEGIN (1ull << 63)
#define MSG_COMPACT_DONE ((1ull << 63) | 1)
#define MSG_COMPACT_BUSY ((1ull << 63) | 2)

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void send_msg(int fd, uint64_t s)
{
    while (write(fd, &s, sizeof s) < 0 && errno == EINTR) {}
}

static cs_env *open_or_die(const char *path)
{
    cs_env *env;
    int rc = cs_env_open(path, NULL, &env);
    if (rc) {
        fprintf(stderr, "child: open: %s (%s)\n", cs_strerror(rc), cs_last_error_detail());
        _exit(3);
    }
    return env;
}

static _Noreturn void child(const char *path, int fd, uint64_t seed, bool parent_holds)
{
    uint64_t rng = seed;
    cs_env *env = open_or_die(path);
    for (;;) {
        for (uint64_t n = 1 + rng_below(&rng, 3); n > 0; n--) {
            cs_txn *t;
            uint64_t s = 0;
            int rc = cs_txn_begin(env, 0, &t);
            if (rc == CS_OK) s = wl_current(t) + 1;
            if (rc || (rc = wl_apply(t, s)) || (rc = cs_txn_commit(t))) {
                fprintf(stderr, "child: seq %llu: %s (%s)\n", (unsigned long long)s, cs_strerror(rc), cs_last_error_detail());
                _exit(5);
            }
            send_msg(fd, s);
        }
        send_msg(fd, MSG_COMPACT_BEGIN);
        int rc = cs_env_compact(env, 0);
        if (rc == CS_OK) {
            if (parent_holds) {
                fprintf(stderr, "child: compacted while the parent had the file open\n");
                _exit(6);
            }
            send_msg(fd, MSG_COMPACT_DONE);
            env = open_or_die(path);
        } else if (rc == CS_EBUSY && parent_holds) {
            send_msg(fd, MSG_COMPACT_BUSY);
        } else {
            fprintf(stderr, "child: compact: %s (%s)\n", cs_strerror(rc), cs_last_error_detail());
            _exit(7);
        }
    }
}

int main(int argc, char **argv)
{
    long kills = argc > 1 ? atol(argv[1]) : 100;
    uint64_t rng = rel_seed("compactloop");
    const char *dir = rel_mkdir("compact");
    char path[600], tmp[700], why[300];
    rel_path(path, sizeof path, dir, "compact.db");
    snprintf(tmp, sizeof tmp, "%s.compact", path);
    double t0 = rel_now();
    long rounds = 0, during = 0, leftovers = 0, compactions = 0, refused = 0;
    uint64_t last_acked = 0, max_k = 0;
    for (long round = 0; round < kills && rel_failures == 0; round++) {
        if (round % 40 == 0) {
            rel_rm_db(path);
            last_acked = 0;
        }
        bool hold = round % 5 == 4;
        cs_env *held = NULL;
        if (hold && cs_env_open(path, NULL, &held) != CS_OK) {
            rel_fail("round %ld: parent open: %s", round, cs_last_error_detail());
            continue;
        }
        int pfd[2];
        if (pipe(pfd)) return perror("pipe"), 2;
        uint64_t cseed = rng_next(&rng);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a killed run */
            close(pfd[0]);
            child(path, pfd[1], cseed, hold);
        }
        close(pfd[1]);
        long delay = rng_below(&rng, 4) == 0 ? (long)rng_below(&rng, 2000) : 1000 + (long)rng_below(&rng, 30000);
        sleep_us(delay);
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        uint64_t m;
        bool in_compaction = false;
        while (read(pfd[0], &m, sizeof m) == (ssize_t)sizeof m) {
            if (m == MSG_COMPACT_BEGIN) in_compaction = true;
            else if (m == MSG_COMPACT_DONE) in_compaction = false, compactions++;
            else if (m == MSG_COMPACT_BUSY) in_compaction = false, refused++;
            else last_acked = m;
        }
        close(pfd[0]);
        if (held) cs_env_close(held);
        if (!WIFSIGNALED(st)) {
            rel_fail("round %ld: child exited with %d", round, WEXITSTATUS(st));
            continue;
        }
        rounds++;
        during += in_compaction;
        struct stat sb;
        leftovers += stat(tmp, &sb) == 0;
        cs_env *env;
        int rc = cs_env_open(path, NULL, &env);
        if (rc) {
            rel_fail("round %ld: %s: reopen after kill%s: %s (%s)", round, INV_OPEN,
                     in_compaction ? " during compaction" : "", cs_strerror(rc), cs_last_error_detail());
            continue;
        }
        uint64_t k = 0;
        if (rel_check(env, why, sizeof why)) rel_fail("round %ld: %s", round, why);
        else if (wl_verify(env, &k, why, sizeof why)) rel_fail("round %ld: %s", round, why);
        else if (k < last_acked)
            rel_fail("round %ld: %s: lost acknowledged commits: db at %llu, acked %llu", round, INV_CRASH,
                     (unsigned long long)k, (unsigned long long)last_acked);
        if (k > max_k) max_k = k;
        cs_env_close(env);
    }
    printf("compactloop: %ld kills, %ld inside a compaction (%ld found a temporary file beside), %ld compactions "
           "completed, %ld refused while the parent held the file, up to seq %llu, %.1fs\n",
           rounds, during, leftovers, compactions, refused, (unsigned long long)max_k, rel_now() - t0);
    if (rounds > 20 && (during == 0 || compactions == 0))
        rel_fail("%s: no kill landed inside a compaction, or none completed: the loop tests nothing", INV_CRASH);
    if (rel_failures == 0) rel_rmdir(dir);
    else fprintf(stderr, "compactloop: files kept in %s\n", dir);
    return rel_report("compactloop", rounds);
}
