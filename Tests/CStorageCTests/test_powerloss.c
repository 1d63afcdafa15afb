/* test_powerloss.c — simulated power loss. The I/O hooks keep a "durable
 * image" of the file: a write reaches it only at the next flush. At many
 * points of a workload an image is taken of what a power loss could leave:
 * the durable image plus any subset of the unflushed writes, some of them
 * torn at a sector boundary (a device may reorder and tear writes). Every
 * image must open and check clean, and hold a generation between the last
 * durable one and the newest (FULL loses nothing acknowledged;
 * NO_META_SYNC and deferred commits may lose only the last commits). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload.h"

typedef struct { uint64_t off; size_t len; uint8_t *data; } pending;

static struct {
    int shadow_fd;
    pending *p;
    size_t n, cap;
    long calls, every;
    uint64_t rng;
    int64_t durable_gen, newest_gen; /* acknowledged bounds right now */
    int nimages;
    int64_t lo[400], hi[400];
} S;

static void take_image(void) {
    if (S.durable_gen < 1 || S.nimages >= 400) return;
    char name[32];
    snprintf(name, sizeof name, "img%03d.db", S.nimages);
    tpath p = test_path(name);
    off_t size = lseek(S.shadow_fd, 0, SEEK_END);
    uint8_t *buf = malloc((size_t)size);
    REQUIRE(pread(S.shadow_fd, buf, (size_t)size, 0) == size);
    int fd = open(p.s, O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0 && write(fd, buf, (size_t)size) == size);
    free(buf);
    for (size_t i = 0; i < S.n; i++) {
        uint64_t r = rng_below(&S.rng, 4);
        size_t len = S.p[i].len;
        if (r == 0) continue;                                  /* lost */
        if (r == 1 && len > 512) len = 512 * (size_t)rng_below(&S.rng, len / 512); /* torn */
        REQUIRE(pwrite(fd, S.p[i].data, len, (off_t)S.p[i].off) == (ssize_t)len);
    }
    close(fd);
    S.lo[S.nimages] = S.durable_gen;
    S.hi[S.nimages] = S.newest_gen + 1; /* the commit in flight may be there */
    S.nimages++;
}

static void maybe_image(void) {
    if (++S.calls % S.every == 0) take_image();
}

static int h_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off) {
    (void)ctx;
    maybe_image();
    if (S.n == S.cap) {
        S.cap = S.cap ? 2 * S.cap : 64;
        S.p = realloc(S.p, S.cap * sizeof *S.p);
    }
    S.p[S.n].off = off;
    S.p[S.n].len = len;
    S.p[S.n].data = malloc(len);
    memcpy(S.p[S.n].data, buf, len);
    S.n++;
    return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : errno ? errno : EIO;
}
static int h_sync(void *ctx, int fd) {
    (void)ctx;
    maybe_image();
    for (size_t i = 0; i < S.n; i++) {
        REQUIRE(pwrite(S.shadow_fd, S.p[i].data, S.p[i].len, (off_t)S.p[i].off) == (ssize_t)S.p[i].len);
        free(S.p[i].data);
    }
    S.n = 0;
    return fdatasync(fd) ? errno : 0;
}
static int h_grow(void *ctx, int fd, uint64_t size) {
    (void)ctx;
    int e = posix_fallocate(fd, 0, (off_t)size);
    if (!e && lseek(S.shadow_fd, 0, SEEK_END) < (off_t)size) e = ftruncate(S.shadow_fd, (off_t)size) ? errno : 0;
    return e;
}

/* FULL commits small enough for the meta to list their pages flush once
 * (open verifies them); FULL_TWO_FLUSH always flushes data, then meta. */
enum { MODE_FULL, MODE_NO_META_SYNC, MODE_DEFERRED, MODE_FULL_TWO_FLUSH };

static void run(int mode) {
    static const char *names[] = {"full", "no-meta-sync", "deferred", "full-two-flush"};
    char name[64];
    snprintf(name, sizeof name, "%s.db", names[mode]);
    tpath path = test_path(name);
    snprintf(name, sizeof name, "%s.durable", names[mode]);
    tpath shadow = test_path(name);
    for (size_t i = 0; i < S.n; i++) free(S.p[i].data);
    free(S.p);
    memset(&S, 0, sizeof S);
    S.rng = 1234u + (uint64_t)mode;
    S.every = 3;
    S.shadow_fd = open(shadow.s, O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(S.shadow_fd >= 0);
    cs_io_hooks io = {NULL, h_write, h_sync, h_grow};
    cs_options o = {0};
    o.io = &io;
    o.durability = mode == MODE_NO_META_SYNC ? CS_DURABLE_NO_META_SYNC : CS_DURABLE_FULL;
    if (mode == MODE_FULL_TWO_FLUSH) o.flags = CS_ENV_TWO_FLUSH;
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_env_open(path.s, &o, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "inv", CS_CREATE, &tr));
    REQUIRE_OK(cs_txn_commit(t));
    for (int64_t gen = 1; gen <= 120; gen++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        CHECK_OK(inv_write(t, tr, (uint64_t)gen, (size_t)(gen * 7919 % 40000), 0));
        int deferred = mode == MODE_DEFERRED && gen % 4 != 0;
        REQUIRE_OK(deferred ? cs_txn_commit_deferred(t) : cs_txn_commit(t));
        S.newest_gen = gen;
        /* FULL: acknowledged = durable; the other modes: durable only once
         * a later flush happened (tracked below by a sync) */
        if (mode == MODE_FULL || mode == MODE_FULL_TWO_FLUSH || (mode == MODE_DEFERRED && !deferred)) S.durable_gen = gen;
        if (mode == MODE_NO_META_SYNC && gen % 10 == 0) {
            CHECK_OK(cs_env_sync(env));
            S.durable_gen = gen;
        }
        /* NO_META_SYNC: a commit's data flush also flushes the meta before it */
        if (mode == MODE_NO_META_SYNC && gen - 1 > S.durable_gen) S.durable_gen = gen - 1;
    }
    CHECK_OK(cs_env_close(env));
    close(S.shadow_fd);

    int bad = 0;
    for (int i = 0; i < S.nimages; i++) {
        snprintf(name, sizeof name, "img%03d.db", i);
        tpath p = test_path(name);
        int r = test_open(p.s, 0, &env);
        if (r != CS_OK) {
            if (bad++ < 5) test_fail_(__FILE__, __LINE__, "%s image %d: open: %s (%s)", names[mode], i, cs_strerror(r), cs_last_error_detail());
            continue;
        }
        cs_check_report rep;
        memset(&rep, 0, sizeof rep);
        r = cs_check(env, &rep);
        if (r != CS_OK && bad++ < 5) test_fail_(__FILE__, __LINE__, "%s image %d: check: %s", names[mode], i, rep.first_error);
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        int64_t g = -3;
        if (cs_tree_open(t, "inv", 0, &tr) == CS_OK) g = inv_verify(t, tr);
        int64_t lo = S.lo[i];
        if ((g < lo || g > S.hi[i]) && bad++ < 5)
            test_fail_(__FILE__, __LINE__, "%s image %d: generation %lld, want %lld..%lld", names[mode], i,
                       (long long)g, (long long)lo, (long long)S.hi[i]);
        CHECK_OK(cs_txn_abort(t));
        CHECK_OK(cs_env_close(env));
        unlink(p.s);
        test_rm_db(p.s);
    }
    printf("%-13s %d power-loss images checked, %d bad\n", names[mode], S.nimages, bad);
    CHECK_EQ(bad, 0);
    CHECK(S.nimages > 50);
}

int main(void) {
    run(MODE_FULL);
    run(MODE_NO_META_SYNC);
    run(MODE_DEFERRED);
    run(MODE_FULL_TWO_FLUSH);
    for (size_t i = 0; i < S.n; i++) free(S.p[i].data);
    free(S.p);
    return test_report();
}
