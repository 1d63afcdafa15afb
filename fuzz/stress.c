/*
 * stress.c — several processes on one file, killed at random.
 *
 * Writers move amounts between accounts spread over four trees (creating
 * and deleting account keys, with padding values of varied size, some on
 * overflow pages), so the sum of all amounts is conserved; they commit in
 * all durability modes, sometimes deferred, and sleep inside commits now
 * and then so that kills land there; half the processes ask for logged
 * commits (CS_ENV_LOG_SMALL), whose pages other processes then read from
 * the shared segment. Readers sum every tree in one
 * snapshot (the total must be exact and cs_count must match the scan),
 * sometimes holding the snapshot a while. The parent kills a random child
 * (reader or writer) with SIGKILL at random intervals and starts a new one.
 * The robust writer mutex of a dead writer and the reader slots of dead
 * processes must be recovered: writers keep committing (a watchdog fails
 * the run if no commit happens for 60 s), and at the end the reader table
 * is empty, cs_check is clean and the total holds.
 *
 *   stress <seconds>          SEED=n to replay
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rel.h"

#define NACCT_TREES 4
#define TOTAL 1000000ull
#define WRITERS 2L
#define READERS 3L

typedef struct {
    _Atomic long commits, reads;
    _Atomic int bad;        /* a child saw a broken invariant */
    char msg[256];
} shared;
static shared *sh;
static char path[600];
static uint64_t rng;

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static _Noreturn void child_fail(const char *what, int rc)
{
    if (atomic_fetch_add(&sh->bad, 1) == 0)
        snprintf(sh->msg, sizeof sh->msg, "pid %d: %s: %s (%s)", getpid(), what, cs_strerror(rc), cs_last_error_detail());
    _exit(1);
}

static void stage_hook(void *ctx, cs_commit_stage st, uint64_t txnid)
{
    (void)ctx, (void)st, (void)txnid;
    if (rng_below(&rng, 6) == 0) sleep_us((long)rng_below(&rng, 3000));
}

static cs_env *open_env(int durability)
{
    cs_options o = {.durability = (cs_durability)durability, .commit_hook = stage_hook, .max_readers = 64};
    o.auto_shrink = rng_below(&rng, 2) == 0; /* processes differ: some shrink the file under the others */
    /* ... and some ask for logged commits: the first write of one turns
     * logging on for all (the others map the segment at their next
     * transaction), so logging turns on and off as processes come and go */
    if (rng_below(&rng, 2) == 0) o.flags = CS_ENV_LOG_SMALL;
    cs_env *env;
    int rc = cs_env_open(path, &o, &env);
    if (rc) child_fail("open", rc);
    return env;
}

static uint64_t amount_of(cs_val v) { uint64_t a; memcpy(&a, v.data, 8); return a; }

static int put_amount(cs_txn *t, cs_tree tr, const char *k, uint64_t a)
{
    static uint8_t v[6000];
    size_t len = 8 + (size_t)(rng_below(&rng, 10) == 0 ? 2000 + rng_below(&rng, 3000) : rng_below(&rng, 200));
    memcpy(v, &a, 8);
    memset(v + 8, (int)a, len - 8);
    return cs_put(t, tr, (cs_val){k, strlen(k)}, (cs_val){v, len}, 0);
}

static void open_trees(cs_txn *t, cs_tree tr[NACCT_TREES], unsigned flags)
{
    char name[16];
    for (int i = 0; i < NACCT_TREES; i++) {
        snprintf(name, sizeof name, "acct%d", i);
        int rc = cs_tree_open(t, name, flags, &tr[i]);
        if (rc) child_fail("tree open", rc);
    }
}

static _Noreturn void writer(void)
{
    int dur = (int)rng_below(&rng, 3);
    cs_env *env = open_env(dur);
    for (;;) {
        cs_txn *t;
        int rc = cs_txn_begin(env, 0, &t);
        if (rc) child_fail("writer begin", rc);
        cs_tree tr[NACCT_TREES];
        open_trees(t, tr, CS_CREATE);
        for (int m = 0, moves = 1 + (int)rng_below(&rng, 8); m < moves; m++) {
            /* take from a random existing account (by rank) */
            int st = (int)rng_below(&rng, NACCT_TREES), dt = (int)rng_below(&rng, NACCT_TREES);
            uint64_t n;
            if ((rc = cs_count(t, tr[st], &n))) child_fail("count", rc);
            if (n == 0) continue;
            cs_cursor *c;
            cs_val k, v;
            if ((rc = cs_cursor_open(t, tr[st], &c)) || (rc = cs_cursor_seek_index(c, rng_below(&rng, n), &k, &v)))
                child_fail("seek_index", rc);
            char sk[32], dk[32];
            snprintf(sk, sizeof sk, "%.*s", (int)(k.size < 31 ? k.size : 31), (const char *)k.data);
            uint64_t have = amount_of(v), amt = rng_below(&rng, have + 1);
            cs_cursor_close(c);
            snprintf(dk, sizeof dk, "a%04u", (unsigned)rng_below(&rng, 300));
            if (st == dt && strcmp(sk, dk) == 0) continue;
            if (have - amt == 0) rc = cs_del(t, tr[st], (cs_val){sk, strlen(sk)});
            else rc = put_amount(t, tr[st], sk, have - amt);
            if (rc) child_fail("debit", rc);
            uint64_t cur = 0;
            rc = cs_get(t, tr[dt], (cs_val){dk, strlen(dk)}, &v);
            if (rc == CS_OK) cur = amount_of(v);
            else if (rc != CS_NOTFOUND) child_fail("get", rc);
            if ((rc = put_amount(t, tr[dt], dk, cur + amt))) child_fail("credit", rc);
        }
        bool defer = rng_below(&rng, 4) == 0;
        rc = defer ? cs_txn_commit_deferred(t) : cs_txn_commit(t);
        if (rc) child_fail("commit", rc);
        if (rng_below(&rng, 10) == 0 && (rc = cs_env_sync(env))) child_fail("sync", rc);
        atomic_fetch_add(&sh->commits, 1);
    }
}

/* Sum of all accounts in one snapshot; fails the child if not TOTAL. */
static void verify_total(cs_env *env, bool hold)
{
    cs_txn *t;
    int rc = cs_txn_begin(env, CS_TXN_RDONLY, &t);
    if (rc) child_fail("reader begin", rc);
    cs_tree tr[NACCT_TREES];
    open_trees(t, tr, 0);
    uint64_t sum = 0;
    for (int i = 0; i < NACCT_TREES; i++) {
        cs_cursor *c;
        cs_val k, v;
        uint64_t n = 0, cnt;
        if ((rc = cs_cursor_open(t, tr[i], &c))) child_fail("cursor", rc);
        for (rc = cs_cursor_get(c, &k, &v, CS_FIRST); rc == CS_OK; rc = cs_cursor_get(c, &k, &v, CS_NEXT)) {
            sum += amount_of(v);
            n++;
            if (hold && n == 5) sleep_us((long)rng_below(&rng, 20000)); /* pin the snapshot */
        }
        if (rc != CS_NOTFOUND) child_fail("scan", rc);
        cs_cursor_close(c);
        if ((rc = cs_count(t, tr[i], &cnt)) || cnt != n) {
            if (atomic_fetch_add(&sh->bad, 1) == 0)
                snprintf(sh->msg, sizeof sh->msg, INV_I5 ": tree acct%d: count %llu, scan %llu", i, (unsigned long long)cnt,
                         (unsigned long long)n);
            _exit(1);
        }
    }
    cs_txn_abort(t);
    if (sum != TOTAL) {
        if (atomic_fetch_add(&sh->bad, 1) == 0)
            snprintf(sh->msg, sizeof sh->msg, "%s: total %llu, want %llu", INV_STATE, (unsigned long long)sum,
                     (unsigned long long)TOTAL);
        _exit(1);
    }
}

static _Noreturn void reader(void)
{
    cs_env *env = open_env(CS_DURABLE_FULL);
    for (;;) {
        verify_total(env, rng_below(&rng, 4) == 0);
        atomic_fetch_add(&sh->reads, 1);
    }
}

static pid_t spawn(bool is_writer)
{
    uint64_t seed = rng_next(&rng);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a killed run */
        rng = seed;
        if (is_writer) writer();
        reader();
    }
    return pid;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 30;
    rng = rel_seed("stress");
    const char *dir = rel_mkdir("stress");
    rel_path(path, sizeof path, dir, "stress.db");
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* The initial accounts. */
    {
        cs_env *env = open_env(CS_DURABLE_FULL);
        cs_txn *t;
        cs_tree tr[NACCT_TREES];
        if (cs_txn_begin(env, 0, &t)) return 2;
        open_trees(t, tr, CS_CREATE);
        char k[16];
        for (int i = 0; i < 100; i++) {
            snprintf(k, sizeof k, "a%04d", i);
            put_amount(t, tr[i % NACCT_TREES], k, TOTAL / 100);
        }
        if (cs_txn_commit(t)) return 2;
        cs_env_close(env);
    }
    pid_t kids[WRITERS + READERS];
    for (int i = 0; i < WRITERS + READERS; i++) kids[i] = spawn(i < WRITERS);
    double t0 = rel_now(), last_progress = t0;
    long kills = 0, writer_kills = 0, last_commits = 0;
    while (rel_now() - t0 < secs && !atomic_load(&sh->bad)) {
        sleep_us(10000 + (long)rng_below(&rng, 150000));
        int i = (int)rng_below(&rng, WRITERS + READERS);
        kill(kids[i], SIGKILL);
        int st;
        waitpid(kids[i], &st, 0);
        if (!WIFSIGNALED(st)) break; /* the child failed: sh->bad tells */
        kills++;
        writer_kills += i < WRITERS;
        kids[i] = spawn(i < WRITERS);
        long c = atomic_load(&sh->commits);
        if (c != last_commits) last_commits = c, last_progress = rel_now();
        else if (rel_now() - last_progress > 60) {
            rel_fail("%s: no commit for 60 s: the writer lock of a dead writer was not recovered?", INV_WRITER);
            break;
        }
    }
    for (int i = 0; i < WRITERS + READERS; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    if (atomic_load(&sh->bad)) rel_fail("%s", sh->msg);
    /* Everything is dead: a fresh open, then a writer after dead writers. */
    cs_env *env = open_env(CS_DURABLE_FULL);
    char why[300];
    uint32_t cleared = 0;
    cs_env_info info;
    cs_reader_check(env, &cleared);
    if (cs_env_get_info(env, &info) == CS_OK && info.readers_used)
        rel_fail("%s: %u reader slots still in use", INV_SLOTS, info.readers_used);
    if (rel_check(env, why, sizeof why)) rel_fail("%s", why);
    verify_total(env, false);
    cs_env_close(env);
    printf("stress: %.0fs, %ld writers + %ld readers, %ld kills (%ld of writers), %ld commits, %ld verified snapshots\n",
           rel_now() - t0, WRITERS, READERS, kills, writer_kills, atomic_load(&sh->commits), atomic_load(&sh->reads));
    if (rel_failures == 0) rel_rmdir(dir);
    else fprintf(stderr, "stress: files kept in %s\n", dir);
    return rel_report("stress", kills);
}
