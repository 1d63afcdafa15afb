/* test_powerloss.c — simulated power loss. The I/O hooks keep a "durable
 * image" of the file: a write reaches it only at the next flush. At many
 * points of a workload an image is taken of what a power loss could leave:
 * the durable image plus any subset of the unflushed writes, some of them
 * torn at a sector boundary (a device may reorder and tear writes). Every
 * image must open and check clean, and hold a generation between the last
 * durable one and the newest (FULL loses nothing acknowledged;
 * NO_META_SYNC and deferred commits may lose only the last commits).
 * Then exhaustive crash points (every prefix, every suffix of the pending
 * writes, and every meta write torn inside its sector) around two places
 * random images rarely hit: the flush of a small commit that follows
 * deferred commits without cs_env_sync, and the meta writes of each
 * durability mode (open must refuse a torn meta by its checksum). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format.h"
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
    /* exhaustive crash points (below) */
    int exhaustive;       /* build and check the images at every crash point */
    int check_aux;        /* the "aux" tree must agree with the generation */
    uint32_t psize;
    long ex_images, ex_torn, ex_bad;
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

static void exhaustive_images(const char *what);

/* A crash point: before every write, flush and grow. */
static void maybe_image(const char *what) {
    if (S.exhaustive) exhaustive_images(what);
    else if (S.every && ++S.calls % S.every == 0) take_image();
}

static int h_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off) {
    (void)ctx;
    maybe_image("write");
    if (S.n == S.cap) {
        S.cap = S.cap ? 2 * S.cap : 64;
        S.p = realloc(S.p, S.cap * sizeof *S.p);
    }
    S.p[S.n].off = off;
    S.p[S.n].len = len;
    S.p[S.n].data = malloc(len);
    memcpy(S.p[S.n].data, buf, len);
    S.n++;
    return test_pwrite_all(fd, buf, len, off);
}
static int h_sync(void *ctx, int fd) {
    (void)ctx;
    maybe_image("flush");
    for (size_t i = 0; i < S.n; i++) {
        REQUIRE(pwrite(S.shadow_fd, S.p[i].data, S.p[i].len, (off_t)S.p[i].off) == (ssize_t)S.p[i].len);
        free(S.p[i].data);
    }
    S.n = 0;
    return fdatasync(fd) ? errno : 0;
}
static int h_grow(void *ctx, int fd, uint64_t size) {
    (void)ctx;
    if (S.exhaustive) exhaustive_images("grow");
    int e = posix_fallocate(fd, 0, (off_t)size);
    if (!e && lseek(S.shadow_fd, 0, SEEK_END) < (off_t)size) e = ftruncate(S.shadow_fd, (off_t)size) ? errno : 0;
    return e;
}

/* ---- exhaustive crash points ----
 * At every crash point of a chosen stretch of the workload, every image of
 * these kinds is built and rebooted at once:
 *   - prefixes: the first k pending writes reached the disk (k = 0..n);
 *   - suffixes: only the last k did (a device reorders writes: the newest,
 *     such as a meta and the pages it lists, may land while older ones,
 *     such as deferred commits' pages, are lost);
 *   - torn metas: every pending write but a meta write reached the disk,
 *     and the meta only its first t bytes (tear_at), the rest of its
 *     sector still the old meta of that slot. FORMAT.md: "the checksum
 *     catches a torn write"; open must take the other meta.
 * Each image must open, check clean, and hold a generation in [lo, hi]. */
static int64_t g_lo, g_hi;

/* The image file: the shadow (durable content) copied once per crash
 * point, then pending writes applied for one image and undone (from the
 * shadow) before the next. */
static off_t g_img_base;

static void image_begin(const char *path) {
    off_t size = lseek(S.shadow_fd, 0, SEEK_END);
    uint8_t *buf = malloc((size_t)size + 1);
    REQUIRE(pread(S.shadow_fd, buf, (size_t)size, 0) == size);
    test_rm_db(path);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0 && write(fd, buf, (size_t)size) == size);
    close(fd);
    free(buf);
    g_img_base = size;
}

/* Apply (undo = 0) or undo pending writes [from, to) except `skip`, and the
 * first torn_len bytes of pending write `torn`. */
static void image_apply(const char *path, size_t from, size_t to, size_t skip, size_t torn, size_t torn_len, int undo) {
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    for (size_t i = from; i <= to; i++) {
        size_t j = i == to ? torn : i, len = i == to ? torn_len : (i == skip ? 0 : S.p[i].len);
        if (j >= S.n || len == 0) continue;
        const uint8_t *data = S.p[j].data;
        uint8_t *old = NULL;
        if (undo) { /* the shadow's bytes (zeros past its end) */
            old = calloc(1, len);
            off_t avail = g_img_base - (off_t)S.p[j].off;
            if (avail > 0) REQUIRE(pread(S.shadow_fd, old, avail < (off_t)len ? (size_t)avail : len, (off_t)S.p[j].off) >= 0);
            data = old;
        }
        REQUIRE(test_pwrite_all(fd, data, len, S.p[j].off) == 0);
        free(old);
    }
    if (undo) REQUIRE(ftruncate(fd, g_img_base) == 0);
    close(fd);
}

/* Reboot the image; 0 if it is an allowed state. */
static int reboot_image(const char *path, char *why, size_t n) {
    cs_env *env;
    int r = test_open(path, CS_ENV_RDONLY, &env); /* leaves the image as it is */
    if (r) {
        snprintf(why, n, "open: %s (%s)", cs_strerror(r), cs_last_error_detail());
        return -1;
    }
    int res = 0;
    cs_check_report rep;
    memset(&rep, 0, sizeof rep);
    if (cs_check(env, &rep) != CS_OK) {
        snprintf(why, n, "cs_check: %s", rep.first_error);
        res = -1;
    }
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    int64_t g = -3;
    if (res == 0 && cs_tree_open(t, "inv", 0, &tr) == CS_OK) g = inv_verify(t, tr);
    if (res == 0 && (g < g_lo || g > g_hi)) {
        snprintf(why, n, "generation %lld, want %lld..%lld", (long long)g, (long long)g_lo, (long long)g_hi);
        res = -1;
    }
    /* aux/"tick" is written by the commit that follows the newest
     * generation's deferred commits: present exactly when g == g_hi */
    if (res == 0 && S.check_aux) {
        cs_val v;
        int has = cs_tree_open(t, "aux", 0, &tr) == CS_OK && cs_get(t, tr, VS("tick"), &v) == CS_OK &&
                  v.size == 8 && memcmp(v.data, &g_hi, 8) == 0;
        if (has != (g == g_hi)) {
            snprintf(why, n, "generation %lld with%s the tick of the commit after generation %lld", (long long)g,
                     has ? "" : "out", (long long)g_hi);
            res = -1;
        }
    }
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
    return res;
}

/* Where a meta write is torn: every 8 bytes through the meta fields (the
 * first 128 bytes), then every 64 through the units of a single-flush meta. */
enum { TEARS = 16 + 5 };
static size_t tear_at(int tear) { return tear <= 16 ? (size_t)tear * 8 : 128 + (size_t)(tear - 16) * 64; }

static void exhaustive_images(const char *what) {
    tpath p = test_path("exhaustive.db");
    char why[300], desc[96];
    size_t n = S.n, none = (size_t)-1;
    image_begin(p.s);
    for (int kind = 0; kind < 3; kind++) {
        size_t count = kind == 2 ? n : n + 1;
        for (size_t k = 0; k < count; k++) {
            int tears = 1;
            if (kind == 2) { /* torn meta: a 512-byte write to page 0 or 1 */
                if (S.p[k].len != CS_META_BYTES || (S.p[k].off != 0 && S.p[k].off != S.psize)) continue;
                tears = TEARS;
            }
            for (int tear = 1; tear <= tears; tear++) {
                size_t from = 0, to = n, skip = none, torn = none, torn_len = 0;
                if (kind == 0) {
                    to = k;
                    snprintf(desc, sizeof desc, "the first %zu of %zu pending writes", k, n);
                } else if (kind == 1) {
                    if (k == 0 || k == n) continue; /* = prefixes n and 0 */
                    from = k;
                    snprintf(desc, sizeof desc, "only the last %zu of %zu pending writes", n - k, n);
                } else {
                    skip = torn = k;
                    torn_len = tear_at(tear);
                    snprintf(desc, sizeof desc, "all %zu pending writes, meta %s torn after %zu bytes", n,
                             S.p[k].off ? "B" : "A", torn_len);
                    S.ex_torn++;
                }
                image_apply(p.s, from, to, skip, torn, torn_len, 0);
                S.ex_images++;
                if (reboot_image(p.s, why, sizeof why) != 0 && S.ex_bad++ < 8)
                    test_fail_(__FILE__, __LINE__, "crash before a %s, image with %s: %s", what, desc, why);
                image_apply(p.s, from, to, skip, torn, torn_len, 1);
            }
        }
    }
    test_rm_db(p.s);
}

static void open_exhaustive(const char *name, unsigned flags, cs_durability dur, cs_env **env) {
    tpath path = test_path(name);
    char sh[600];
    snprintf(sh, sizeof sh, "%s.durable", path.s);
    for (size_t i = 0; i < S.n; i++) free(S.p[i].data);
    free(S.p);
    memset(&S, 0, sizeof S);
    S.shadow_fd = open(sh, O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(S.shadow_fd >= 0);
    static cs_io_hooks io = {NULL, h_write, h_sync, h_grow};
    cs_options o = {0};
    o.io = &io;
    o.durability = dur;
    o.flags = flags;
    REQUIRE_OK(cs_env_open(path.s, &o, env));
    S.psize = CS_DEFAULT_PAGE_SIZE;
}

static void commit_gen(cs_env *env, cs_tree tr, int64_t gen, int deferred) {
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_OK(inv_write(t, tr, (uint64_t)gen, (size_t)(gen * 3001 % 20000), 0));
    /* CHECK, not REQUIRE: a bad image found inside the commit (by the
     * hooks) must not stop the run */
    CHECK_OK(deferred ? cs_txn_commit_deferred(t) : cs_txn_commit(t));
}

/* Grouped commits, then a small commit (one key) WITHOUT cs_env_sync: that
 * commit must flush the deferred commits' pages before its meta can reach
 * the disk (it may not be a single-flush commit whose meta lists only its
 * own pages). Images at every crash point of that commit. */
static void test_deferred_then_small(void) {
    cs_env *env;
    open_exhaustive("deferred-small.db", 0, CS_DURABLE_FULL, &env);
    cs_tree inv = test_open_tree(env, "inv"), aux = test_open_tree(env, "aux");
    int64_t gen = 1;
    commit_gen(env, inv, gen, 0);
    for (int round = 0; round < 3; round++) {
        int64_t durable = gen;
        for (int i = 0; i < 4; i++) commit_gen(env, inv, ++gen, 1);
        g_lo = durable;
        g_hi = gen;
        S.check_aux = 1;
        S.exhaustive = 1;
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        CHECK_OK(cs_put(t, aux, VS("tick"), V(&gen, 8), 0));
        CHECK_OK(cs_txn_commit(t)); /* images checked in its hooks */
        S.exhaustive = 0;
    }
    CHECK_OK(cs_env_close(env));
    close(S.shadow_fd);
    printf("deferred, then a small commit: %ld images, %ld bad\n", S.ex_images, S.ex_bad);
    CHECK_EQ(S.ex_bad, 0);
    CHECK(S.ex_images > 20);
}

/* A torn meta write must be refused (checksum) in favour of the other
 * meta, in each durability mode that writes metas: the images at every
 * crash point of some commits include the meta torn at every 8 bytes. */
static void test_torn_meta(unsigned flags, cs_durability dur, const char *name) {
    cs_env *env;
    char file[64];
    snprintf(file, sizeof file, "torn-%s.db", name);
    open_exhaustive(file, flags, dur, &env);
    cs_tree inv = test_open_tree(env, "inv");
    int64_t gen = 0;
    for (int i = 0; i < 3; i++) commit_gen(env, inv, ++gen, 0);
    for (int i = 0; i < 4; i++) {
        /* NO_META_SYNC: the previous meta may still be unflushed */
        g_lo = dur == CS_DURABLE_NO_META_SYNC ? gen - 1 : gen;
        g_hi = gen + 1;
        S.exhaustive = 1;
        commit_gen(env, inv, ++gen, 0);
        S.exhaustive = 0;
    }
    CHECK_OK(cs_env_close(env));
    close(S.shadow_fd);
    printf("torn metas (%s): %ld images, %ld of them with a torn meta, %ld bad\n", name, S.ex_images, S.ex_torn,
           S.ex_bad);
    CHECK_EQ(S.ex_bad, 0);
    CHECK(S.ex_torn >= 4 * TEARS);
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
    tr = test_open_tree(env, "inv");
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
    test_deferred_then_small();
    test_torn_meta(CS_ENV_TWO_FLUSH, CS_DURABLE_FULL, "two-flush");
    test_torn_meta(0, CS_DURABLE_FULL, "single-flush");
    test_torn_meta(0, CS_DURABLE_NO_META_SYNC, "no-meta-sync");
    for (size_t i = 0; i < S.n; i++) free(S.p[i].data);
    free(S.p);
    return test_report();
}
