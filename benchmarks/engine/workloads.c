/*
 * workloads.c — db_bench-style workloads, written once against the driver
 * vtable; the data they use is in data.c.
 */
#include "data.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RWW_READ_BATCH 1000u /* readwhilewriting: gets per read snapshot */

static volatile uint64_t sink; /* keeps folded bytes alive */

/* ---- building blocks --------------------------------------------------- */

#define TRY(x) do { if ((x) != BENCH_OK) return BENCH_ERR; } while (0)

typedef struct db_handle {
    bench_db *db;
    bench_sess *sess;
    char dir[4200];
} db_handle;

static int db_open(const bench_engine *e, const char *name, bench_sync sync, db_handle *h)
{
    snprintf(h->dir, sizeof h->dir, "%s/%s", e->dir, name);
    h->db = NULL;
    h->sess = NULL;
    if (mkdir(h->dir, 0755) != 0)
        return bench_fail("mkdir %s failed", h->dir);
    TRY(e->drv->open(h->dir, sync, D.n * (D.ks + D.vs), &h->db));
    return e->drv->session(h->db, &h->sess);
}

static int db_close(const bench_engine *e, db_handle *h, bool remove)
{
    if (h->sess)
        e->drv->session_close(h->sess);
    int rc = h->db ? e->drv->close(h->db) : BENCH_OK;
    h->db = NULL;
    h->sess = NULL;
    if (remove)
        rm_tree(h->dir);
    return rc;
}

/* Put keys order[from..to) (order NULL = sequential), committing every
 * `batch` puts (0 = one transaction). Counter c picks the values. */
static int put_range(const bench_driver *d, bench_sess *s, const uint32_t *order,
                     uint64_t from, uint64_t to, uint64_t batch, uint64_t c)
{
    bool open = false;
    for (uint64_t i = from; i < to; i++) {
        if (!open) {
            TRY(d->begin(s, true));
            open = true;
        }
        uint64_t k = order ? order[i] : i;
        TRY(d->put(s, key(k), D.ks, value(c + i), D.vs));
        if (batch && (i + 1 - from) % batch == 0) {
            TRY(d->commit(s));
            open = false;
        }
    }
    return open ? d->commit(s) : BENCH_OK;
}

/* Gets of keys[picks[0..n)] in read snapshots of `batch` gets (0 = one).
 * want_found: every get must find a value of the right size, or none must. */
static int get_picks(const bench_driver *d, bench_sess *s, const char *keys,
                     const uint32_t *picks, uint64_t n, uint64_t batch, bool want_found)
{
    uint64_t fold = 0;
    bool open = false;
    for (uint64_t i = 0; i < n; i++) {
        if (!open) {
            TRY(d->begin(s, false));
            open = true;
        }
        bench_val v;
        const char *k = keys + (uint64_t)picks[i] * D.ks;
        int rc = d->get(s, k, D.ks, &v);
        if (rc == BENCH_ERR)
            return rc;
        if (want_found && (rc != BENCH_OK || v.size != D.vs))
            return bench_fail("get %.*s: %s (size %zu, want %u)", (int)D.ks, k,
                              rc == BENCH_OK ? "wrong size" : "not found", v.size, D.vs);
        if (!want_found && rc != BENCH_NOTFOUND)
            return bench_fail("get of absent key %.*s found a value", (int)D.ks, k);
        if (rc == BENCH_OK)
            fold += ((const uint8_t *)v.data)[0] + ((const uint8_t *)v.data)[v.size - 1];
        if (batch && (i + 1) % batch == 0) {
            TRY(d->commit(s));
            open = false;
        }
    }
    sink += fold;
    return open ? d->commit(s) : BENCH_OK;
}

/* Full scan in a read transaction; fails unless it sees `want` entries. */
static int scan_count(const bench_driver *d, bench_sess *s, bool reverse, uint64_t want)
{
    uint64_t count = 0, fold = 0;
    TRY(d->begin(s, false));
    TRY(d->scan(s, reverse, &count, &fold));
    TRY(d->commit(s));
    sink += fold;
    if (count != want)
        return bench_fail("%s scan saw %llu entries, want %llu", reverse ? "reverse" : "forward",
                          (unsigned long long)count, (unsigned long long)want);
    return BENCH_OK;
}

static void set_rate(bench_result *r, double ops, bench_clock t0)
{
    bench_clock t1 = clock_now();
    r->ops = ops;
    r->secs = t1.wall - t0.wall;
    r->cpu_secs = t1.cpu - t0.cpu;
    r->value = r->secs > 0 ? ops / r->secs : 0;
}

/* ---- fills on a fresh database ------------------------------------------ */

static int fill_fresh(bench_engine *e, bench_result *r, const char *name, bench_sync sync,
                      const uint32_t *order, uint64_t count, uint64_t batch)
{
    db_handle h;
    if (db_open(e, name, sync, &h) != BENCH_OK) {
        db_close(e, &h, true);
        return BENCH_ERR;
    }
    bench_clock t0 = clock_now();
    int rc = put_range(e->drv, h.sess, order, 0, count, batch, 0);
    set_rate(r, (double)count, t0);
    if (rc == BENCH_OK)
        rc = scan_count(e->drv, h.sess, false, count);
    int rc2 = db_close(e, &h, true);
    return rc != BENCH_OK ? rc : rc2;
}

static int w_fillseq(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return fill_fresh(e, r, "fillseq", BENCH_NOSYNC, NULL, cfg->n, 0);
}

static int w_fillbatch(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return fill_fresh(e, r, "fillbatch", BENCH_NOSYNC, NULL, cfg->n, cfg->batch);
}

static int w_fillsync(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    uint64_t n = cfg->sync_ops < cfg->n ? cfg->sync_ops : cfg->n;
    return fill_fresh(e, r, "fillsync", BENCH_FULLSYNC, D.perm_fill, n, 1);
}

/* ---- bytes written and flushes per durable commit ---------------------------- */

/* A fresh database of `entries` (put in durable txns of `fill_batch`, then
 * closed and reopened, so that SQLite's WAL is checkpointed away), then sync_ops
 * durable txns of one put of a new key each: the commit rate, and what
 * they wrote and flushed as counted by iocount (every engine alike), alone
 * and with the close after them (SQLite: the final checkpoint). An engine
 * with I/O hooks must agree with iocount, which checks the method. */
static int sync_commits(const bench_cfg *cfg, bench_engine *e, bench_result *r, const char *name,
                        uint64_t entries, uint64_t fill_batch)
{
    uint64_t k = cfg->sync_ops < cfg->n ? cfg->sync_ops : cfg->n;
    if (entries + k > cfg->n)
        entries = cfg->n - k;
    db_handle h;
    if (db_open(e, name, BENCH_FULLSYNC, &h) != BENCH_OK ||
        put_range(e->drv, h.sess, D.perm_fill, 0, entries, fill_batch, 0) != BENCH_OK) {
        db_close(e, &h, true);
        return BENCH_ERR;
    }
    TRY(db_close(e, &h, false));
    TRY(e->drv->open(h.dir, BENCH_FULLSYNC, D.n * (D.ks + D.vs), &h.db));
    TRY(e->drv->session(h.db, &h.sess));
    uint64_t hb0 = 0, hf0 = 0, hb1 = 0, hf1 = 0, pg0[BENCH_PAGE_KINDS] = {0}, pg1[BENCH_PAGE_KINDS] = {0};
    if (e->drv->io_hooks)
        e->drv->io_hooks(h.db, &hb0, &hf0, pg0);
    iocount_enable(true);
    iocount a = iocount_now();
    bench_clock t0 = clock_now();
    int rc = put_range(e->drv, h.sess, D.perm_fill, entries, entries + k, 1, entries);
    set_rate(r, (double)k, t0);
    iocount b = iocount_now();
    iocount_enable(false);
    if (e->drv->io_hooks)
        e->drv->io_hooks(h.db, &hb1, &hf1, pg1);
    if (rc == BENCH_OK)
        rc = scan_count(e->drv, h.sess, false, entries + k);
    iocount_enable(true);
    iocount c = iocount_now();
    int rc2 = db_close(e, &h, true);
    iocount d = iocount_now();
    iocount_enable(false);
    TRY(rc);
    TRY(rc2);
    r->io_entries = entries;
    r->io_commits = k;
    r->io = iocount_diff(b, a);
    iocount closing = iocount_diff(d, c);
    r->io_close = r->io;
    r->io_close.bytes += closing.bytes;
    r->io_close.writes += closing.writes;
    r->io_close.flushes += closing.flushes;
    r->io_close.proc_wchar += closing.proc_wchar;
    r->io_close.proc_syscw += closing.proc_syscw;
    snprintf(r->note, sizeof r->note, "%llu entries", (unsigned long long)entries);
    if (e->drv->io_hooks) {
        double per[BENCH_PAGE_KINDS];
        for (int i = 0; i < BENCH_PAGE_KINDS; i++)
            per[i] = (double)(pg1[i] - pg0[i]) / (double)k;
        snprintf(r->note, sizeof r->note, "%llu entries; pages/commit: meta %.2f branch %.2f leaf %.2f "
                 "overflow %.2f free-list %.2f; log records/commit %.2f", (unsigned long long)entries,
                 per[BENCH_PAGE_META], per[BENCH_PAGE_BRANCH], per[BENCH_PAGE_LEAF], per[BENCH_PAGE_OVERFLOW],
                 per[BENCH_PAGE_FREELIST], per[BENCH_PAGE_LOG]);
    }
    if (e->drv->io_hooks && (hb1 - hb0 != r->io.bytes || hf1 - hf0 != r->io.flushes))
        return bench_fail("iocount saw %llu bytes and %llu flushes, the engine's I/O hooks %llu and %llu",
                          (unsigned long long)r->io.bytes, (unsigned long long)r->io.flushes,
                          (unsigned long long)(hb1 - hb0), (unsigned long long)(hf1 - hf0));
    return BENCH_OK;
}

static int w_synccommit_small(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return sync_commits(cfg, e, r, "synccommit_small", 1000, 0);
}

static int w_synccommit_100k(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return sync_commits(cfg, e, r, "synccommit_100k", 100000, 0);
}

static int w_synccommit_n(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return sync_commits(cfg, e, r, "synccommit_n", cfg->n, 0);
}

/* As synccommit_n, the fill in txns of 100k: the free space the big
 * commits leave behind is fragmented, which the free list then carries. */
static int w_synccommit_n_batched(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    return sync_commits(cfg, e, r, "synccommit_n_batched", cfg->n, 100000);
}

/* ---- the main database ----------------------------------------------------- */

static int w_fillrandom(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    db_handle h;
    if (db_open(e, "main", BENCH_NOSYNC, &h) != BENCH_OK) {
        db_close(e, &h, true);
        return BENCH_ERR;
    }
    e->db = h.db;
    e->sess = h.sess;
    bench_clock t0 = clock_now();
    TRY(put_range(e->drv, e->sess, D.perm_fill, 0, cfg->n, 0, 0));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

/* Close the main database, measure its files, reopen it and check it. */
static int measure_size(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    uint64_t used = 0, size, alloc;
    TRY(e->drv->used_bytes(e->db, &used));
    if (e->drv->shape)
        TRY(e->drv->shape(e->db, r->note, sizeof r->note));
    db_handle h = {.db = e->db, .sess = e->sess};
    snprintf(h.dir, sizeof h.dir, "%s/main", e->dir);
    e->db = NULL;
    e->sess = NULL;
    TRY(db_close(e, &h, false));
    dir_bytes(h.dir, &size, &alloc);
    r->ops = 1;
    r->value = (double)size;
    r->extra = alloc;
    r->extra2 = used;
    TRY(e->drv->open(h.dir, BENCH_NOSYNC, D.n * (D.ks + D.vs), &e->db));
    TRY(e->drv->session(e->db, &e->sess));
    return scan_count(e->drv, e->sess, false, cfg->n);
}

static int w_overwrite(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    bench_clock t0 = clock_now();
    TRY(put_range(e->drv, e->sess, D.rnd_write, 0, cfg->n, 0, cfg->n));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

static int w_readrandom(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    bench_clock t0 = clock_now();
    TRY(get_picks(e->drv, e->sess, D.present, D.rnd_read, cfg->n, 0, true));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

static int w_readseq(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    bench_clock t0 = clock_now();
    TRY(scan_count(e->drv, e->sess, false, cfg->n));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

static int w_readreverse(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    bench_clock t0 = clock_now();
    TRY(scan_count(e->drv, e->sess, true, cfg->n));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

static int w_readmissing(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    bench_clock t0 = clock_now();
    TRY(get_picks(e->drv, e->sess, D.missing, D.rnd_read, cfg->n, 0, false));
    set_rate(r, (double)cfg->n, t0);
    return BENCH_OK;
}

/* readwhilewriting: this thread reads while a writer thread commits small
 * transactions of overwrites until the reader is done. */
typedef struct rww_writer {
    const bench_cfg *cfg;
    bench_engine *e;
    atomic_bool stop, started;
    uint64_t txns;
    int rc;
    char err[512];
} rww_writer;

static int rww_write_loop(rww_writer *w, bench_sess *s)
{
    const bench_driver *d = w->e->drv;
    uint64_t seed = w->cfg->seed ^ 0x5757u, c = 2 * w->cfg->n;
    while (!atomic_load(&w->stop)) {
        TRY(d->begin(s, true));
        for (uint32_t i = 0; i < w->cfg->rww_batch; i++, c++)
            TRY(d->put(s, key(splitmix(&seed) % D.n), D.ks, value(c), D.vs));
        TRY(d->commit(s));
        w->txns++;
        atomic_store(&w->started, true);
    }
    return BENCH_OK;
}

static void *rww_writer_main(void *arg)
{
    rww_writer *w = arg;
    bench_sess *s = NULL;
    w->rc = w->e->drv->session(w->e->db, &s);
    if (w->rc == BENCH_OK)
        w->rc = rww_write_loop(w, s);
    if (w->rc != BENCH_OK)
        snprintf(w->err, sizeof w->err, "writer: %s", bench_error());
    atomic_store(&w->started, true);
    if (s)
        w->e->drv->session_close(s);
    return NULL;
}

static int w_readwhilewriting(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    rww_writer w = {.cfg = cfg, .e = e};
    pthread_t th;
    if (pthread_create(&th, NULL, rww_writer_main, &w) != 0)
        return bench_fail("pthread_create failed");
    while (!atomic_load(&w.started))
        ;
    bench_clock t0 = clock_now();
    int rc = w.rc == BENCH_OK
        ? get_picks(e->drv, e->sess, D.present, D.rnd_rww, cfg->n, RWW_READ_BATCH, true)
        : BENCH_OK;
    set_rate(r, (double)cfg->n, t0);
    atomic_store(&w.stop, true);
    pthread_join(th, NULL);
    r->extra = w.txns;
    if (rc != BENCH_OK)
        return rc;
    return w.rc == BENCH_OK ? BENCH_OK : bench_fail("%s", w.err);
}

static int del_range(const bench_driver *d, bench_sess *s, uint64_t count, bool allow_missing)
{
    TRY(d->begin(s, true));
    for (uint64_t i = 0; i < count; i++) {
        int rc = d->del(s, key(D.perm_del[i]), D.ks);
        if (rc == BENCH_ERR || (rc == BENCH_NOTFOUND && !allow_missing))
            return rc == BENCH_ERR ? rc
                                   : bench_fail("delete of present key %.*s: not found",
                                                (int)D.ks, key(D.perm_del[i]));
    }
    return d->commit(s);
}

static int w_deleterandom(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    uint64_t count = cfg->n / 10;
    bench_clock t0 = clock_now();
    TRY(del_range(e->drv, e->sess, count, false));
    set_rate(r, (double)count, t0);
    return scan_count(e->drv, e->sess, false, cfg->n - count);
}

/* Right after size_fillrandom: delete half of the keys (one txn), put all
 * of them back (one txn), then measure the files: shows whether freed
 * pages are reused. */
static int w_size_refill(const bench_cfg *cfg, bench_engine *e, bench_result *r)
{
    TRY(del_range(e->drv, e->sess, cfg->n / 2, false));
    TRY(put_range(e->drv, e->sess, D.perm_fill, 0, cfg->n, 0, 3 * cfg->n));
    return measure_size(cfg, e, r);
}

const workload workloads[] = {
    {"fillseq", "ops/s", false, "N puts, sequential keys, one txn (fresh db)", NULL, NULL, false, w_fillseq},
    {"fillbatch", "ops/s", false, "N puts, sequential keys, txns of 1000 (fresh db)", NULL, NULL, false, w_fillbatch},
    {"fillsync", "ops/s", false, "txns of one random put, full durability (fresh db)", NULL, NULL, false, w_fillsync},
    {"synccommit_small", "ops/s", false, "1,000 entries (one txn), then txns of one put of a new key, full durability; I/O counted", NULL, NULL, false, w_synccommit_small},
    {"synccommit_100k", "ops/s", false, "the same on 100,000 entries", NULL, NULL, false, w_synccommit_100k},
    {"synccommit_n", "ops/s", false, "the same on N entries (less the txns)", NULL, NULL, false, w_synccommit_n},
    {"synccommit_n_batched", "ops/s", false, "the same, the N entries put in txns of 100k", NULL, NULL, false, w_synccommit_n_batched},
    {"fillrandom", "ops/s", false, "N puts, random order, one txn (the main db)", NULL, NULL, true, w_fillrandom},
    {"size_fillrandom", "bytes", true, "file bytes after fillrandom (closed)", "disk_bytes", "used_bytes", true, measure_size},
    {"size_refill", "bytes", true, "file bytes after then deleting N/2 (one txn) and putting all N back (one txn)", "disk_bytes", "used_bytes", true, w_size_refill},
    {"overwrite", "ops/s", false, "N random updates of existing keys, one txn", NULL, NULL, true, w_overwrite},
    {"readrandom", "ops/s", false, "N random gets, one read txn", NULL, NULL, true, w_readrandom},
    {"readseq", "ops/s", false, "forward cursor scan of all N", NULL, NULL, true, w_readseq},
    {"readreverse", "ops/s", false, "backward cursor scan of all N", NULL, NULL, true, w_readreverse},
    {"readmissing", "ops/s", false, "N gets of absent keys, one read txn", NULL, NULL, true, w_readmissing},
    {"readwhilewriting", "ops/s", false, "reader rate (snapshot per 1000 gets) while a writer commits small txns", "writer_txns", NULL, true, w_readwhilewriting},
    {"deleterandom", "ops/s", false, "N/10 random deletes, one txn", NULL, NULL, true, w_deleterandom},
};
const size_t n_workloads = sizeof workloads / sizeof workloads[0];
