/*
 * powerloss.c — simulated power loss at every I/O call of a workload.
 *
 * The I/O hooks pass every write to the real file (so the engine's map sees
 * it) and also record it as "pending"; a flush moves the pending writes into
 * a model of the durable file content. Before every write, flush and grow
 * (a crash point) the program builds images of what a power loss right
 * there could leave on disk: the durable content plus
 *   - none of the pending writes, all of them, an in-order prefix whose
 *     last write is torn, and
 *   - random subsets applied in random order, each write kept whole,
 *     dropped, torn at 512-byte sector granularity, cut with garbage in
 *     the sector being written, or cut inside that sector with the old
 *     bytes past the cut (no sector atomicity assumed: a meta write torn
 *     so must fail its checksum, I1),
 * and "reboots" each image: open, cs_check, and verify (rel.h) that it
 * holds exactly state(k) with lo <= k <= hi, where
 *   lo = the newest commit whose meta write was followed by a completed
 *        flush (for FULL: the last acknowledged commit),
 *   hi = the newest commit issued (published, deferred, or in flight).
 * Some images are then written to (one more commit) and checked again.
 *
 * Modes: full, no-meta-sync, deferred (grouped commits + cs_env_sync) and
 * logged (CS_ENV_LOG_SMALL: small commits flush a record to "<path>-log",
 * folds every few commits and at close) must hold for every image. The
 * data file and the log are modelled apart: a flush makes durable only
 * the writes to its own file, and an image holds both files. no-sync has no flush, so only in-order images are
 * asserted (a device that keeps write order); reordered ones are counted
 * and reported, to document what NO_SYNC can lose.
 *
 *   powerloss short|long      SEED=n to replay
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rel.h"

enum { M_FULL, M_NO_META_SYNC, M_DEFERRED, M_NO_SYNC, M_LOGGED, M_COUNT };
static const char *mode_name[] = {"full", "no-meta-sync", "deferred", "no-sync", "logged"};

enum { F_DATA, F_LOG, F_COUNT }; /* the data file and its redo log */
typedef struct { uint64_t off; size_t len; uint8_t *data; int f; } pwrite_rec;

static struct {
    int mode;
    uint64_t rng;
    int variants, write_every;   /* images per crash point; extra commit 1 in n */
    const char *dir;
    /* durable model, per file */
    uint8_t *dur[F_COUNT];
    size_t dur_size[F_COUNT], dur_cap[F_COUNT], cur_size[F_COUNT];
    pwrite_rec *p;
    size_t np, capp;
    /* workload bounds */
    uint64_t seq_of_txnid[4096];
    uint64_t pending_meta_seq;  /* newest seq whose meta write is pending */
    uint64_t lo, hi, acked;
    bool in_crash;              /* building an image: not a crash point */
    bool created;               /* the creation's flush completed         */
    long scenarios, points, reorder_bad, reorder_total, extra_commits;
} S;

static uint8_t *img[F_COUNT];
static size_t img_cap[F_COUNT];

/* Which file a descriptor writes: the log's name ends in "-log". */
static int file_of(int fd)
{
    char link[64], target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    return n > 4 && !memcmp(target + n - 4, "-log", 4) ? F_LOG : F_DATA;
}

static void img_reserve(int f, size_t need)
{
    if (need <= img_cap[f]) return;
    size_t cap = img_cap[f] ? img_cap[f] : 1 << 20;
    while (cap < need) cap *= 2;
    img[f] = realloc(img[f], cap);
    memset(img[f] + img_cap[f], 0, cap - img_cap[f]);
    img_cap[f] = cap;
}

static void img_put(size_t *size, int f, uint64_t off, const uint8_t *d, size_t len)
{
    img_reserve(f, off + len);
    memcpy(img[f] + off, d, len);
    if (off + len > size[f]) size[f] = off + len;
}

/* Apply pending write r, sectors [a, b) of it. */
static void apply_sectors(size_t *size, const pwrite_rec *r, size_t a, size_t b)
{
    size_t from = a * 512, to = b * 512 < r->len ? b * 512 : r->len;
    if (from < to) img_put(size, r->f, r->off + from, r->data + from, to - from);
}

static size_t nsect(const pwrite_rec *r) { return (r->len + 511) / 512; }

/* Build variant v of the current crash point into img, each file's size
 * into size[]. *ordered = the image keeps write order (a prefix of the
 * pending writes). */
static void build_image(int v, bool *ordered, size_t *size)
{
    for (int f = 0; f < F_COUNT; f++) {
        img_reserve(f, S.cur_size[f] > S.dur_size[f] ? S.cur_size[f] : S.dur_size[f] > 1 ? S.dur_size[f] : 1);
        memset(img[f], 0, img_cap[f]);
        size[f] = 0;
        if (S.dur_size[f]) img_put(size, f, 0, S.dur[f], S.dur_size[f]);
        size[f] = S.dur_size[f];
    }
    *ordered = v < 3;
    if (v == 0) return;
    if (v == 1 || v == 2) {
        size_t cut = v == 1 ? S.np : (size_t)rng_below(&S.rng, S.np + 1);
        for (size_t i = 0; i < cut; i++) apply_sectors(size, &S.p[i], 0, nsect(&S.p[i]));
        if (v == 2 && cut < S.np) apply_sectors(size, &S.p[cut], 0, rng_below(&S.rng, nsect(&S.p[cut]) + 1));
        for (int f = 0; v == 1 && f < F_COUNT; f++)
            if (S.cur_size[f] > size[f]) size[f] = S.cur_size[f];
        return;
    }
    /* Random subset in random order, torn at sector granularity. */
    size_t *order = malloc((S.np + 1) * sizeof *order);
    for (size_t i = 0; i < S.np; i++) order[i] = i;
    for (size_t i = S.np; i > 1; i--) {
        size_t j = rng_below(&S.rng, i), t = order[i - 1];
        order[i - 1] = order[j], order[j] = t;
    }
    for (size_t k = 0; k < S.np; k++) {
        const pwrite_rec *r = &S.p[order[k]];
        switch (rng_below(&S.rng, 5)) {
        case 0: break; /* lost */
        case 1: apply_sectors(size, r, 0, nsect(r)); break;
        case 2:
            for (size_t s = 0; s < nsect(r); s++)
                if (rng_below(&S.rng, 2)) apply_sectors(size, r, s, s + 1);
            break;
        case 4: { /* torn inside the sector being written, at 8-byte
                     granularity: new bytes up to the cut, old ones after */
            size_t s = rng_below(&S.rng, nsect(r));
            apply_sectors(size, r, 0, s);
            size_t sl = r->len - s * 512 < 512 ? r->len - s * 512 : 512, cut = 8 * rng_below(&S.rng, sl / 8 + 1);
            if (cut) img_put(size, r->f, r->off + s * 512, r->data + s * 512, cut);
            break;
        }
        default: { /* the sector being written when the power failed holds
                      garbage (a device without sector atomicity): nothing
                      durable may live where a pending write lands */
            size_t s = rng_below(&S.rng, nsect(r));
            apply_sectors(size, r, 0, s);
            uint8_t junk[512];
            for (size_t j = 0; j < sizeof junk; j++) junk[j] = (uint8_t)rng_next(&S.rng);
            size_t jl = r->len - s * 512 < 512 ? r->len - s * 512 : 512;
            img_put(size, r->f, r->off + s * 512, junk, jl);
        }
        }
    }
    free(order);
    for (int f = 0; f < F_COUNT; f++)
        if (rng_below(&S.rng, 2) && S.cur_size[f] > size[f]) size[f] = S.cur_size[f]; /* the growth reached the disk */
}

static void write_image(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("image");
        exit(2);
    }
    close(fd);
}

/* Reboot one image; returns 0 if it opened to an allowed state, cleanly. */
static int reboot(const size_t *size, bool extra, char *why, size_t n)
{
    char path[600], log[610];
    rel_path(path, sizeof path, S.dir, "image.db");
    rel_rm_db(path);
    write_image(path, img[F_DATA], size[F_DATA]);
    snprintf(log, sizeof log, "%s-log", path);
    if (size[F_LOG] || S.dur_size[F_LOG] || S.cur_size[F_LOG]) write_image(log, img[F_LOG], size[F_LOG]);
    cs_env *env;
    int rc = cs_env_open(path, NULL, &env);
    /* Before the creation was flushed, cs_env_open had not returned: the
     * file promises nothing and may be refused (e.g. garbage in sector 0
     * looks like a foreign file, which the engine must not overwrite). */
    if (rc && !S.created) return 0;
    if (rc) {
        snprintf(why, n, "%s: open: %s (%s)", INV_OPEN, cs_strerror(rc), cs_last_error_detail());
        return -1;
    }
    uint64_t k = 0;
    int res = rel_check(env, why, n);
    if (res == 0) res = wl_verify(env, &k, why, n);
    if (res == 0 && (k < S.lo || k > S.hi)) {
        snprintf(why, n, "%s: opened at seq %llu, allowed %llu..%llu", k < S.lo ? INV_POWER : INV_OPEN,
                 (unsigned long long)k, (unsigned long long)S.lo, (unsigned long long)S.hi);
        res = -1;
    }
    if (res == 0 && extra) {
        /* The recovered database must take new commits. */
        cs_txn *t;
        S.extra_commits++;
        if ((rc = cs_txn_begin(env, 0, &t)) || (rc = wl_apply(t, k + 1)) || (rc = cs_txn_commit(t))) {
            snprintf(why, n, "commit after recovery (%s): %s (%s)", INV_I11 ", " INV_I6, cs_strerror(rc),
                     cs_last_error_detail());
            res = -1;
        } else if ((res = rel_check(env, why, n)) == 0) {
            uint64_t k2;
            if ((res = wl_verify(env, &k2, why, n)) == 0 && k2 != k + 1) {
                snprintf(why, n, "%s: commit after recovery: seq %llu, want %llu", INV_STATE, (unsigned long long)k2,
                         (unsigned long long)k + 1);
                res = -1;
            }
        }
    }
    cs_env_close(env);
    return res;
}

static void crash_point(const char *what)
{
    if (S.in_crash) return;
    S.in_crash = true;
    S.points++;
    char why[400];
    for (int v = 0; v < S.variants; v++) {
        bool ordered;
        size_t size[F_COUNT];
        build_image(v, &ordered, size);
        bool extra = rng_below(&S.rng, (uint64_t)S.write_every) == 0;
        int res = reboot(size, extra, why, sizeof why);
        if (S.mode == M_NO_SYNC && !ordered) {
            S.reorder_total++;
            S.reorder_bad += res != 0;
            continue;
        }
        S.scenarios++;
        if (res)
            rel_fail("%s: crash point %ld (before %s, %zu pending writes), variant %d: %s", mode_name[S.mode], S.points,
                     what, S.np, v, why);
    }
    S.in_crash = false;
}

static int h_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    (void)ctx;
    crash_point("write");
    if (S.np == S.capp) S.p = realloc(S.p, (S.capp = S.capp ? 2 * S.capp : 64) * sizeof *S.p);
    int f = file_of(fd);
    S.p[S.np].off = off;
    S.p[S.np].len = len;
    S.p[S.np].f = f;
    S.p[S.np].data = malloc(len);
    memcpy(S.p[S.np].data, buf, len);
    S.np++;
    if (off + len > S.cur_size[f]) S.cur_size[f] = off + len;
    return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : errno ? errno : EIO;
}

/* A flush makes its own file's pending writes durable, no other's. */
static int h_sync(void *ctx, int fd)
{
    (void)ctx;
    crash_point("flush");
    int f = file_of(fd);
    if (S.cur_size[f] > S.dur_cap[f]) {
        S.dur[f] = realloc(S.dur[f], S.cur_size[f]);
        memset(S.dur[f] + S.dur_cap[f], 0, S.cur_size[f] - S.dur_cap[f]);
        S.dur_cap[f] = S.cur_size[f];
    }
    size_t keep = 0;
    for (size_t i = 0; i < S.np; i++) {
        if (S.p[i].f != f) {
            S.p[keep++] = S.p[i];
            continue;
        }
        memcpy(S.dur[f] + S.p[i].off, S.p[i].data, S.p[i].len);
        free(S.p[i].data);
    }
    S.np = keep;
    S.dur_size[f] = S.cur_size[f];
    S.created = true;
    if (S.pending_meta_seq > S.lo) S.lo = S.pending_meta_seq; /* its meta is on disk now */
    return 0;
}

static int h_grow(void *ctx, int fd, uint64_t size)
{
    (void)ctx;
    crash_point("grow");
    if (ftruncate(fd, (off_t)size)) return errno;
    int f = file_of(fd);
    if (size > S.cur_size[f]) S.cur_size[f] = size;
    return 0;
}

static uint64_t cur_seq; /* seq of the commit being made */

static void stage_hook(void *ctx, cs_commit_stage st, uint64_t txnid)
{
    (void)ctx;
    if (txnid >= sizeof S.seq_of_txnid / sizeof S.seq_of_txnid[0]) return;
    if (st == CS_STAGE_DATA_WRITTEN) S.seq_of_txnid[txnid] = cur_seq;
    if (st == CS_STAGE_META_WRITTEN) S.pending_meta_seq = S.seq_of_txnid[txnid];
}

static void run_mode(int mode, int commits, uint32_t psize, bool shrink)
{
    memset(&S.seq_of_txnid, 0, sizeof S.seq_of_txnid);
    S.mode = mode;
    for (int f = 0; f < F_COUNT; f++) S.dur_size[f] = S.cur_size[f] = 0;
    for (size_t i = 0; i < S.np; i++) free(S.p[i].data);
    S.np = 0;
    S.lo = S.hi = S.acked = S.pending_meta_seq = 0;
    S.created = false;
    long before = S.scenarios, pts = S.points;
    char path[600], why[400];
    rel_path(path, sizeof path, S.dir, "live.db");
    rel_rm_db(path);
    cs_io_hooks io = {.write = h_write, .sync = h_sync, .grow = h_grow};
    cs_options o = {.io = &io, .commit_hook = stage_hook, .page_size = psize, .auto_shrink = shrink};
    o.durability = mode == M_NO_META_SYNC ? CS_DURABLE_NO_META_SYNC : mode == M_NO_SYNC ? CS_DURABLE_NO_SYNC
                                                                                         : CS_DURABLE_FULL;
    if (mode == M_LOGGED) o.flags = CS_ENV_LOG_SMALL;
    cs_env *env;
    int rc = cs_env_open(path, &o, &env);
    if (rc) {
        rel_fail("%s: open: %s", mode_name[mode], cs_strerror(rc));
        return;
    }
    for (uint64_t s = 1; s <= (uint64_t)commits && rel_failures == 0; s++) {
        cs_txn *t;
        cur_seq = s;
        S.hi = s; /* from now on the commit may be (partly) on disk */
        if ((rc = cs_txn_begin(env, 0, &t)) || (rc = wl_apply(t, s))) {
            rel_fail("%s: seq %llu: %s", mode_name[mode], (unsigned long long)s, cs_strerror(rc));
            break;
        }
        /* deferred mode: groups of deferred commits made durable by a
         * normal commit (s % 4 == 0) or by cs_env_sync (s % 3 == 0) */
        bool defer = mode == M_DEFERRED && s % 4 != 0, sync = defer && s % 3 == 0;
        /* logged mode: folds at cs_env_sync every few commits too */
        if (mode == M_LOGGED && s % 7 == 0) sync = true;
        rc = defer ? cs_txn_commit_deferred(t) : cs_txn_commit(t);
        if (rc == CS_OK && sync) rc = cs_env_sync(env);
        if (rc) {
            rel_fail("%s: commit %llu: %s", mode_name[mode], (unsigned long long)s, cs_strerror(rc));
            break;
        }
        if (!defer || sync) S.acked = s;
        if ((mode == M_FULL || mode == M_DEFERRED || mode == M_LOGGED) && S.lo < S.acked)
            rel_fail("%s: %s: commit %llu acknowledged before its meta was flushed", mode_name[mode], INV_POWER,
                     (unsigned long long)s);
        if (wl_verify(env, &cur_seq, why, sizeof why) || cur_seq != s)
            rel_fail("%s: live env after commit %llu: %s", mode_name[mode], (unsigned long long)s, why);
    }
    cs_env_close(env); /* flushes deferred commits: crash points too */
    printf("powerloss %-12s %5u-byte pages, %3d commits, %4ld crash points, %5ld scenarios\n", mode_name[mode],
           psize, commits, S.points - pts, S.scenarios - before);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bool lng = argc > 1 && strcmp(argv[1], "long") == 0;
    S.rng = rel_seed("powerloss");
    S.dir = rel_mkdir("power");
    S.variants = lng ? 10 : 6;
    S.write_every = lng ? 2 : 4;
    int commits = lng ? 160 : 36;
    double t0 = rel_now();
    for (int m = 0; m < M_COUNT; m++) run_mode(m, commits, 4096, false);
    for (int m = 0; m < M_COUNT; m++) run_mode(m, commits / 2, 4096, true);
    /* Larger pages: meta page 1 and page runs at other offsets. */
    run_mode(M_FULL, commits / 2, 16384, false);
    if (lng)
        for (uint32_t ps = 8192; ps <= 32768; ps *= 2)
            for (int m = 0; m < M_COUNT; m++)
                if (m != M_NO_SYNC) run_mode(m, commits / 2, ps, m == M_FULL);
    printf("powerloss: %ld crash points, %ld images after commits on recovered files; no-sync with reordered "
           "writes: %ld of %ld images damaged or unopenable (not asserted: NO_SYNC gives no power-loss "
           "guarantee), %.1fs\n",
           S.points, S.extra_commits, S.reorder_bad, S.reorder_total, rel_now() - t0);
    for (size_t i = 0; i < S.np; i++) free(S.p[i].data);
    free(S.p);
    for (int f = 0; f < F_COUNT; f++) free(S.dur[f]), free(img[f]);
    if (rel_failures == 0) rel_rmdir(S.dir);
    else fprintf(stderr, "powerloss: files kept in %s\n", S.dir);
    return rel_report("powerloss", S.scenarios);
}
