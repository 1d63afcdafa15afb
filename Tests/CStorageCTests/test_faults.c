/* test_faults.c — I/O failures injected through cs_io_hooks: a failed
 * write at every point of a commit leaves the previous commit intact and
 * the env usable; a full disk (write or grow) gives CS_ENOSPACE with
 * nothing committed; a failed flush makes the env refuse writes
 * (CS_EPANIC) until it is reopened, and the reopened file is consistent. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload.h"

typedef struct {
    long writes, syncs;   /* calls so far */
    long fail_write_at;   /* fail the write with this call number (0 = never) */
    long fail_sync_from;  /* fail flushes from this call number on (0 = never) */
    int fail_grows, err;
} faults;

static int f_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off) {
    faults *f = ctx;
    if (++f->writes == f->fail_write_at) return f->err;
    return test_pwrite_all(fd, buf, len, off);
}
static int f_sync(void *ctx, int fd) {
    faults *f = ctx;
    if (++f->syncs >= f->fail_sync_from && f->fail_sync_from) return EIO;
    return fdatasync(fd) ? errno : 0;
}
static int f_grow(void *ctx, int fd, uint64_t size) {
    faults *f = ctx;
    if (f->fail_grows) return ENOSPC;
    return posix_fallocate(fd, 0, (off_t)size);
}

static faults g_f;
static const cs_io_hooks g_io = {&g_f, f_write, f_sync, f_grow};
static tpath g_path;

static unsigned g_env_flags; /* CS_ENV_TWO_FLUSH or 0 */
static cs_env *open_env(void) {
    cs_options o = {0};
    o.io = &g_io;
    o.durability = CS_DURABLE_FULL;
    o.flags = g_env_flags;
    cs_env *env;
    REQUIRE_OK(cs_env_open(g_path.s, &o, &env));
    return env;
}
static int commit_gen(cs_env *env, cs_tree tr, uint64_t gen, size_t blob) {
    cs_txn *t;
    int r = cs_txn_begin(env, 0, &t);
    if (r) return r;
    r = inv_write(t, tr, gen, blob, 0);
    if (r) { cs_txn_abort(t); return r; }
    return cs_txn_commit(t);
}
static int64_t read_gen(cs_env *env, cs_tree tr) {
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    int64_t g = inv_verify(t, tr);
    CHECK_OK(cs_txn_abort(t));
    return g;
}
static void check_clean(cs_env *env) {
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    if (rep.errors) fprintf(stderr, "cs_check: %s\n", rep.first_error);
}

/* A write fails at call k of a commit, for every k. */
static void test_write_sweep(int err, int want) {
    g_path = test_path(err == EIO ? "sweep-eio.db" : "sweep-enospc.db");
    memset(&g_f, 0, sizeof g_f);
    g_f.err = err;
    cs_env *env = open_env();
    cs_tree tr = test_open_tree(env, "inv");
    uint64_t gen = 1;
    REQUIRE_OK(commit_gen(env, tr, gen, 30000));
    int hit = 0;
    for (long k = 1; k < 200; k++) {
        g_f.fail_write_at = g_f.writes + k;
        int r = commit_gen(env, tr, gen + 1, 30000 + (size_t)k * 1000);
        g_f.fail_write_at = 0;
        if (r == CS_OK) { gen++; break; } /* k is past the commit's last write */
        hit++;
        CHECK_RC(r, want);
        CHECK_EQ(read_gen(env, tr), gen); /* nothing was committed */
        /* the env is still usable, and next commits work */
        CHECK_OK(commit_gen(env, tr, gen + 1, 100));
        gen++;
        CHECK_EQ(read_gen(env, tr), gen);
        if (k % 4 == 0) { /* and what is on disk agrees */
            check_clean(env);
            CHECK_OK(cs_env_close(env));
            env = open_env();
            tr = test_open_tree(env, "inv");
            CHECK_EQ(read_gen(env, tr), gen);
        }
    }
    printf("write failures (%s): failed %d commits at each write in turn\n", strerror(err), hit);
    CHECK(hit >= 3); /* data, free list and meta writes at least */
    CHECK_EQ(read_gen(env, tr), gen);
    check_clean(env);
    CHECK_OK(cs_env_close(env));
}

/* The file cannot grow: CS_ENOSPACE, nothing committed. */
static void test_grow_fails(void) {
    g_path = test_path("grow.db");
    memset(&g_f, 0, sizeof g_f);
    cs_env *env = open_env();
    cs_tree tr = test_open_tree(env, "inv");
    REQUIRE_OK(commit_gen(env, tr, 1, 1000));
    g_f.fail_grows = 1;
    int r = commit_gen(env, tr, 2, 64u << 20);
    g_f.fail_grows = 0;
    CHECK_RC(r, CS_ENOSPACE);
    CHECK_EQ(read_gen(env, tr), 1);
    /* the same, op by op: a put that fails for lack of space fails the
     * txn (CS_EBADTXN after), and its commit writes nothing */
    g_f.fail_grows = 1;
    cs_txn *t;
    static char big[8u << 20];
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    int r1 = CS_OK;
    for (int i = 0; i < 12 && r1 == CS_OK; i++) {
        char k[16];
        snprintf(k, sizeof k, "big%d", i);
        r1 = cs_put(t, tr, VS(k), V(big, sizeof big), 0);
    }
    if (r1 != CS_OK) {
        CHECK_RC(r1, CS_ENOSPACE);
        CHECK_RC(cs_put(t, tr, VS("small"), VS("v"), 0), CS_EBADTXN);
        CHECK(cs_txn_commit(t) != CS_OK);
    } else {
        CHECK_RC(cs_txn_commit(t), CS_ENOSPACE);
    }
    g_f.fail_grows = 0;
    CHECK_EQ(read_gen(env, tr), 1);
    CHECK_OK(commit_gen(env, tr, 3, 64u << 20));
    CHECK_EQ(read_gen(env, tr), 3);
    check_clean(env);
    CHECK_OK(cs_env_close(env));
}

/* A flush of a commit fails (two-flush commits: the data flush, nth = 1, or
 * the meta flush, nth = 2; single-flush commits have only nth = 1): the env
 * refuses writes until reopened; the reopened file holds the old or the new
 * commit, consistently (the old one if the data flush failed). */
static void test_sync_fails(int nth, unsigned flags) {
    char name[32];
    snprintf(name, sizeof name, "sync%d-%u.db", nth, flags);
    g_env_flags = flags;
    g_path = test_path(name);
    memset(&g_f, 0, sizeof g_f);
    cs_env *env = open_env();
    cs_tree tr = test_open_tree(env, "inv");
    REQUIRE_OK(commit_gen(env, tr, 1, 5000));
    g_f.fail_sync_from = g_f.syncs + nth;
    int r = commit_gen(env, tr, 2, 5000);
    CHECK(r == CS_EIO || r == CS_EPANIC);
    g_f.fail_sync_from = 0;
    cs_txn *w = NULL;
    CHECK_RC(cs_txn_begin(env, 0, &w), CS_EPANIC);
    CHECK_OK(cs_env_close(env));
    env = open_env();
    tr = test_open_tree(env, "inv");
    int64_t g = read_gen(env, tr);
    CHECK(nth == 1 && (flags & CS_ENV_TWO_FLUSH) ? g == 1 : (g == 1 || g == 2));
    CHECK_OK(commit_gen(env, tr, 3, 5000));
    CHECK_EQ(read_gen(env, tr), 3);
    check_clean(env);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    test_write_sweep(EIO, CS_EIO);
    test_write_sweep(ENOSPC, CS_ENOSPACE);
    test_grow_fails();
    test_sync_fails(1, CS_ENV_TWO_FLUSH);
    test_sync_fails(2, CS_ENV_TWO_FLUSH);
    test_sync_fails(1, 0);
    return test_report();
}
