/*
 * commit.c — the commit sequence of a write transaction, and the flush
 * that makes deferred commits durable.
 *
 * Commit of write txn N (holding the writer mutex):
 *   C1 write the changed tree descriptors into the catalog (copy-on-write);
 *   C2 the free list: a delta for the meta (the change since the base run:
 *      format.h, FREE-LIST DELTA) when it fits, else a new run with free
 *      extents, the pending groups, and group N (the pages N freed,
 *      including the old run);
 *   C3 write every dirty page, sorted               (CS_STAGE_DATA_WRITTEN)
 *   C4 flush the data                               (CS_STAGE_DATA_SYNCED)
 *   C5 write the meta into the page that does not hold the newest durable
 *      meta (I1)                                    (CS_STAGE_META_WRITTEN)
 *   C6 flush the meta: the commit point; N is now the durable meta;
 *   C7 publish the meta in the lock file: new readers see N (CS_STAGE_DONE).
 * Variants: a single-flush commit (format.h: TWO WAYS TO COMMIT) skips C4,
 * lists its units after the meta in C5, and C6 flushes data and meta at
 * once. NO_META_SYNC skips C6, NO_SYNC skips C4 and C6. A deferred commit
 * (cs_txn_commit_deferred) does C1-C3 and C7 only: readers see it at once,
 * and the next flush (commit_flush_deferred: cs_env_sync, cs_env_close or a
 * normal commit, by any process) does C4-C6 for the newest published meta,
 * making it and every deferred commit before it durable. Until then I7's
 * reuse rule (free_limit) keeps the durable snapshot whole.
 * A crash before C5 completes, or between C5 and C6 with the meta lost,
 * leaves the previous meta, whose pages nothing has overwritten (I7); see
 * docs/FORMAT.md for the full argument.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* C2 when the change since the base fits the meta (format.h, FREE-LIST
 * DELTA): the delta's free pages (pool, with the pages born and freed here
 * merged in by the caller), its pending groups and this commit's, and the
 * cursor. True if it was written into t->delta; else nothing changed. */
static int commit_delta(cs_txn *t, cs_meta *m, bool *done)
{
    cs_env *env = t->env;
    *done = false;
    if (t->fl_full || t->bskipped) return CS_OK;
    /* Auto-shrink cuts free pages at the file end, which no cursor can say. */
    if (env->auto_shrink) {
        bool at_end = t->pool.n && t->pool.v[t->pool.n - 1].start + t->pool.v[t->pool.n - 1].len == t->next_pgno;
        for (size_t i = t->bpool_head; !at_end && i < t->bpool.n; i++)
            at_end = t->bpool.v[i].start + t->bpool.v[i].len == t->next_pgno;
        if (at_end) return CS_OK;
    }
    cs_freelist nd = t->fl;
    nd.free = t->pool;
    size_t extra = t->freed.n ? 16 + 16 * t->freed.n : 0; /* an upper bound before normalizing */
    size_t bytes = freelist_delta_size(&nd) + extra;
    /* The units of a single-flush commit come first (pager_write_dirty
     * lists one per dirty entry; the run is not written). */
    size_t room = CS_META_TAIL - (t->dirty_n <= CS_META_UNITS ? t->dirty_n * sizeof(cs_commit_unit) : 0);
    if (bytes > room) return CS_OK;
    int rc = CS_OK;
    if (t->freed.n) {
        extvec_normalize(&t->freed);
        rc = freelist_add_group(&t->fl, t->txnid, &t->freed);
        if (rc) return rc;
        nd = t->fl;
        nd.free = t->pool;
    }
    uint64_t cursor = env->fl_cursor + t->btaken;
    freelist_delta_encode(cursor, &nd, t->delta);
    m->hdr.upper = (uint16_t)freelist_delta_size(&nd);
    /* The cache: the same base, the new cursor and delta. */
    freelist_free(&env->fl);
    env->fl = nd;
    env->fl_cursor = cursor;
    memset(&t->fl, 0, sizeof t->fl);
    memset(&t->pool, 0, sizeof t->pool);
    *done = true;
    return CS_OK;
}

/* C2: the free list of this commit: a delta in the meta when it fits, else
 * a new run with all of it (the old run joins this commit's group). On
 * success env's cache holds the new list (valid once the commit is
 * published). */
static int commit_freelist(cs_txn *t, cs_meta *m)
{
    cs_env *env = t->env;
    m->version = CS_FORMAT_VERSION;
    m->hdr.upper = 0;
    /* What is still free: the unused pool plus pages born and freed here. */
    int rc = extvec_merge(&t->pool, t->pool.v + t->pool_head, t->pool.n - t->pool_head, &t->reuse);
    if (rc) return rc;
    t->pool_head = 0;
    t->reuse.n = 0;
    bool done;
    if ((rc = commit_delta(t, m, &done)) || done) return rc;

    /* The whole list: the base's pending groups, then the delta's, then
     * this commit's group (what it freed, plus the old run); free pages
     * from the delta and from what is left of the base's sequence. */
    cs_freelist nf = t->bgroups;
    memset(&t->bgroups, 0, sizeof t->bgroups);
    rc = freelist_join(&nf, &t->fl);
    if (rc == CS_OK && t->bpool.n > t->bpool_head) {
        t->bpool.n -= t->bpool_head;
        memmove(t->bpool.v, t->bpool.v + t->bpool_head, t->bpool.n * sizeof *t->bpool.v);
        rc = extvec_merge(&t->pool, t->pool.v, t->pool.n, &t->bpool);
    }
    t->bpool.n = t->bpool_head = 0;
    if (rc == CS_OK && t->meta.fl_pgno) rc = extvec_push(&t->freed, t->meta.fl_pgno, t->meta.fl_npages);
    if (rc == CS_OK && t->freed.n) {
        extvec_normalize(&t->freed);
        rc = freelist_add_group(&nf, t->txnid, &t->freed);
    }
    if (rc) goto out;
    /* Auto-shrink: free pages at the end of the file leave it (I13). The
     * pool holds only pages no reader and no fallback meta reaches (I7), so
     * next_pgno may drop below them; the run is allocated after the cut. */
    if (env->auto_shrink && t->pool.n) {
        cs_extent *last = &t->pool.v[t->pool.n - 1];
        if (last->start + last->len == t->next_pgno) {
            t->next_pgno = last->start;
            t->pool.n--;
        }
    }
    m->fl_pgno = m->fl_npages = 0;
    if (nf.ngroups || t->pool.n) {
        /* Allocating the run takes from the front of an extent, which never
         * adds extents: the size computed first is an upper bound. */
        size_t bytes = PAGE_HDR + freelist_serial_size(&nf, t->pool.n + 1);
        uint32_t np = (uint32_t)((bytes + t->psize - 1) / t->psize);
        uint64_t pgno;
        uint8_t *run;
        if ((rc = page_alloc(t, np, &pgno, &run))) goto out;
        PHW(run)->type = PT_FREELIST;
        for (size_t i = t->pool_head; i < t->pool.n; i++)
            if ((rc = extvec_push(&nf.free, t->pool.v[i].start, t->pool.v[i].len))) goto out;
        memset(run + PAGE_HDR, 0, (size_t)np * t->psize - PAGE_HDR);
        freelist_serialize(&nf, run + PAGE_HDR);
        m->fl_pgno = pgno;
        m->fl_npages = np;
    }
out:
    freelist_free(&env->fl);
    freelist_free(&env->fl_base);
    env->fl_cursor = 0;
    env->fl_base_txnid = t->txnid;
    if (rc == CS_OK) env->fl_base = nf; /* becomes the cache once the commit succeeds */
    else freelist_free(&nf);
    return rc;
}

static void hook(cs_env *env, cs_commit_stage s, uint64_t txnid)
{
    if (env->commit_hook) env->commit_hook(env->commit_hook_ctx, s, txnid);
}

/* C5 and C6: write meta m into the page not holding the durable meta (I1),
 * so a torn write leaves that one; then flush if asked. `units` (a
 * single-flush commit) are listed after the meta so that open can tell
 * whether the data reached the disk too. Caller holds the writer mutex. */
static int write_meta(cs_env *env, cs_meta *m, bool flush, const cs_commit_unit *units, uint32_t nunits,
                      const uint8_t *delta);

/* Before this build's first meta in a file of an older format version:
 * both meta pages become copies of the durable meta at this version, each
 * flushed, durable slot last. Until then the file holds only pages the old
 * version reads (this commit's pages are reachable from no meta yet), and
 * at any crash point both metas name one snapshot; afterwards an older
 * build refuses the file instead of falling back to an old-version meta
 * whose snapshot this build has since rewritten. */
static int upgrade_metas(cs_env *env)
{
    if (!env->metas_old || env->fd < 0) return CS_OK;
    cs_lock_hdr *h = env->lock.hdr;
    uint8_t page[2][CS_META_BYTES];
    for (uint32_t s = 0; s < 2; s++)
        if (pread(env->fd, page[s], CS_META_BYTES, (off_t)s * env->psize) != (ssize_t)CS_META_BYTES)
            return cs_fail(CS_EIO, "reading meta page %u: %s", s, strerror(errno));
    cs_meta d;
    memcpy(&d, page[h->durable_slot], sizeof d);
    /* Another process may have upgraded the file since this one opened it. */
    bool old = (meta_valid(page[0], 0) && rd32(page[0] + 40) < CS_FORMAT_VERSION) ||
               (meta_valid(page[1], 0) && rd32(page[1] + 40) < CS_FORMAT_VERSION);
    if (!old) {
        env->metas_old = false;
        return CS_OK;
    }
    if (!meta_valid(page[h->durable_slot], 0) || d.txnid != h->durable_txnid)
        return cs_fail(CS_ECORRUPT, "the durable meta page does not hold the durable commit");
    d.version = CS_FORMAT_VERSION;
    d.hdr.upper = 0; /* no delta: the run holds the whole list */
    env->metas_old = false; /* write_meta below must not come back here */
    int rc = write_meta(env, &d, true, NULL, 0, NULL);
    if (rc == CS_OK) rc = write_meta(env, &d, true, NULL, 0, NULL);
    if (rc) env->metas_old = true;
    return rc;
}

static int write_meta(cs_env *env, cs_meta *m, bool flush, const cs_commit_unit *units, uint32_t nunits,
                      const uint8_t *delta)
{
    int urc = upgrade_metas(env);
    if (urc) return urc;
    cs_lock_hdr *h = env->lock.hdr;
    uint32_t slot = h->durable_slot ^ 1;
    m->version = CS_FORMAT_VERSION;
    m->hdr.type = PT_META;
    m->hdr.pgno = slot;
    m->hdr.txnid = m->txnid;
    m->hdr.npages = 1;
    m->hdr.nkeys = (uint16_t)nunits;
    uint8_t page[CS_META_BYTES];
    memset(page, 0, sizeof page);
    memcpy(page, m, sizeof *m);
    if (nunits) memcpy(page + sizeof *m, units, nunits * sizeof *units);
    if (meta_delta_len(m)) memcpy(page + sizeof *m + nunits * sizeof *units, delta, meta_delta_len(m));
    m->hdr.checksum = 0;
    memcpy(page, m, sizeof *m);
    m->hdr.checksum = cs_page_checksum(page, CS_META_BYTES);
    memcpy(page, m, sizeof *m);
    int rc = io_write(env, page, CS_META_BYTES, (uint64_t)slot * env->psize);
    if (rc) return rc;
    hook(env, CS_STAGE_META_WRITTEN, m->txnid);
    if (flush && (rc = io_sync(env))) {
        atomic_store(&env->panic, 1);
        return rc;
    }
    h->durable_txnid = m->txnid;
    h->durable_slot = slot;
    return CS_OK;
}

/* Leaves an auto-shrink step visits per commit: bounds its cost (a few
 * dozen page copies at most) while a file with much free space drains its
 * end over a few hundred commits. */
#define SHRINK_VISITS 64u

/* Auto-shrink (I13): when much of the file is free now, move live pages
 * from the part of the file that would be free if everything live sat
 * below it into the lowest free pages (the allocator takes those first).
 * Once the pages they left are reusable too, commit_freelist cuts the free
 * end off. */
/* Free pages this commit could use, if auto-shrink has work: enough of
 * the file is free to be worth moving pages (0 otherwise). */
static uint64_t shrink_work(const cs_txn *t)
{
    if (!t->env->auto_shrink) return 0;
    uint64_t nfree = 0;
    for (size_t i = t->pool_head; i < t->pool.n; i++) nfree += t->pool.v[i].len;
    for (size_t i = t->bpool_head; i < t->bpool.n; i++) nfree += t->bpool.v[i].len;
    return nfree < 64 || nfree * 16 < t->next_pgno ? 0 : nfree;
}

static int shrink_step(cs_txn *t, unsigned *moved)
{
    uint64_t nfree = shrink_work(t);
    if (!nfree) return CS_OK;
    /* Relocation wants the lowest free pages first, which the delta's
     * allocation order is not: this commit writes the whole list. */
    if (!t->fl_full && t->bpool.n > t->bpool_head) {
        t->bpool.n -= t->bpool_head;
        memmove(t->bpool.v, t->bpool.v + t->bpool_head, t->bpool.n * sizeof *t->bpool.v);
        int rc = extvec_merge(&t->pool, t->pool.v + t->pool_head, t->pool.n - t->pool_head, &t->bpool);
        if (rc) return rc;
        t->pool_head = 0;
    }
    t->fl_full = true;
    t->bpool.n = t->bpool_head = 0;
    return tree_relocate(t, t->next_pgno - nfree, SHRINK_VISITS, moved);
}

/* The log grows to this at most between folds; a record past it folds. */
#define REDO_LOG_MAX (4u << 20)
/* A record bigger than this is no small commit: the commit folds instead. */
#define REDO_RECORD_MAX (64u << 10)

/* A logged commit's pages and the file pages it freed (V2) into the
 * segment: until the state is published they are beyond what any snapshot
 * or state reaches. CS_ENOSPACE: the segment cannot grow. */
static int stage_logged(cs_txn *t)
{
    cs_vseg_hdr *h = t->env->vseg.hdr;
    int rc = pager_put_volatile(t);
    for (size_t i = 0; rc == CS_OK && i < t->freed.n; i++) {
        h->pending[t->vst.npending + i].start = t->freed.v[i].start;
        h->pending[t->vst.npending + i].len = t->freed.v[i].len;
    }
    return rc;
}

/* Publish a logged commit whose record ends at log_end: the segment's state,
 * then the meta with the base's free list (no file page was allocated). */
static int publish_logged(cs_txn *t, uint64_t log_end)
{
    cs_env *env = t->env;
    vseg_state ns = {.txnid = t->txnid,
                     .hwm = t->vol_hwm,
                     .npending = t->vst.npending + t->freed.n,
                     .log_off = log_end,
                     .epoch = t->vst.epoch,
                     .clean_txnid = t->vst.clean_txnid,
                     .logged = 1};
    vseg_set_state(&env->vseg, &ns);
    cs_meta m = t->meta;
    m.txnid = t->txnid;
    m.catalog = t->catalog;
    uint8_t delta[CS_META_TAIL];
    if (meta_delta_len(&m) && !lock_read_delta(&env->lock, t->meta.txnid, delta))
        return cs_fail(CS_ECORRUPT, "the published meta changed under the writer mutex");
    lock_publish_meta(&env->lock, &m, delta);
    /* Unless the txn took the free-list cache (and changed it, releasing
     * groups), the cache is this commit's too: the list did not change. */
    env->fl_txnid = t->fl_copied ? t->txnid : 0;
    return CS_OK;
}

static bool pending_fits(cs_txn *t)
{
    extvec_normalize(&t->freed);
    return t->vst.npending + t->freed.n <= VSEG_PENDING_MAX;
}

/* A logged commit (design 4), after C1: the record of the txn's changes is
 * appended to the redo log and flushed (the commit point), its pages go to
 * the segment, and the meta is published. *logged = false (nothing done)
 * when the commit does not fit the record, the log, the pending list or
 * the segment: then it folds. */
static int commit_logged(cs_txn *t, bool *logged)
{
    cs_env *env = t->env;
    *logged = false;
    if (!t->vol_all) return CS_OK; /* C1 ran out of arena: a file page is dirty */
    redo_rec rec;
    redo_rec_init(&rec);
    bool fits;
    int rc = redo_build(t, t->vst.epoch, &rec, REDO_RECORD_MAX, &fits);
    size_t padded = rc == CS_OK && fits ? redo_rec_seal(&rec) : 0;
    if (rc == CS_OK && fits && !padded) rc = cs_fail(CS_ENOMEM, "redo record");
    if (rc || !padded || t->vst.log_off + padded > REDO_LOG_MAX || !pending_fits(t) ||
        (rc = stage_logged(t)) == CS_ENOSPACE) {
        redo_rec_free(&rec);
        return rc == CS_ENOSPACE ? CS_OK : rc;
    }
    if (rc == CS_OK) hook(env, CS_STAGE_DATA_WRITTEN, t->txnid);
    /* The record plays the meta's part: written, then flushed (the commit
     * point). */
    if (rc == CS_OK && (rc = redo_write(&env->redo, t->vst.log_off, &rec, padded)) == CS_OK) {
        hook(env, CS_STAGE_META_WRITTEN, t->txnid);
        /* As after a failed data flush: whether the record is durable is
         * unknown until the file is reopened (and the log replayed). */
        if ((rc = redo_flush(&env->redo))) atomic_store(&env->panic, 1);
    }
    redo_rec_free(&rec);
    if (rc == CS_OK && (rc = publish_logged(t, t->vst.log_off + padded)) == CS_OK) *logged = true;
    return rc;
}

int commit_replayed(cs_txn *t, uint64_t log_end)
{
    int rc = tree_flush_catalog(t); /* C1 */
    if (rc == CS_OK && t->vol_all && pending_fits(t) && (rc = stage_logged(t)) != CS_ENOSPACE) {
        if (rc == CS_OK) rc = publish_logged(t, log_end);
        if (rc == CS_OK) hook(t->env, CS_STAGE_DONE, t->txnid);
        txn_free(t);
        return rc;
    }
    if (rc && rc != CS_ENOSPACE) {
        txn_free(t);
        return rc;
    }
    if (t->env->flags & CS_ENV_RDONLY) { /* a read-only replay writes nothing */
        txn_free(t);
        return cs_fail(CS_EBUSY, "%s has more logged commits than the page segment holds: open it writable once to "
                                 "write them to the file", t->env->path);
    }
    return cs_txn_commit(t); /* too big for the segment: written whole */
}

/* The segment's state for a commit written whole (before its meta: a
 * writer that adopts a dead writer's meta finds it). */
static void set_written_state(cs_txn *t, bool durable)
{
    cs_env *env = t->env;
    if (!env->vol_on) return;
    vseg_state ns = {.txnid = t->txnid,
                     .hwm = t->vol_hwm,
                     .npending = 0,
                     .log_off = 0,
                     .epoch = durable ? t->txnid : t->vst.epoch,
                     .clean_txnid = t->txnid,
                     .logged = 0};
    vseg_set_state(&env->vseg, &ns);
}

/* A commit that is not logged, in an env that logs: volatile pages the
 * txn reaches move into the file (V1), and the file pages logged commits
 * freed since the last fold join this commit's group (V2). */
static int fold_volatile(cs_txn *t)
{
    if (!t->env->vol_on) return CS_OK;
    t->vol = false;
    cs_vseg_hdr *h = t->env->vseg.hdr;
    int rc = CS_OK;
    for (uint64_t i = 0; rc == CS_OK && i < t->vst.npending; i++)
        rc = extvec_push(&t->freed, h->pending[i].start, h->pending[i].len);
    if (rc == CS_OK && (t->fold || t->vol_used)) rc = tree_fold(t);
    return rc;
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int commit_write(cs_txn *t, bool deferred)
{
    cs_env *env = t->env;
    if (t->state == TXN_FAILED) {
        int err = t->err;
        txn_free(t);
        return cs_fail(err, "commit of a failed transaction: nothing was written");
    }
    cursor_close_all(t);
    cs_meta m = t->meta;
    cs_commit_unit units[CS_META_UNITS];
    uint32_t nunits = 0;
    /* What the log message says, gathered only if it will be sent; it is
     * sent after txn_free released the writer mutex (cs_log_fn). */
    bool logging = log_on(&env->log, CS_LOG_DEBUG);
    uint64_t started = logging ? now_us() : 0, txnid = t->txnid, old_pages = t->meta.next_pgno;
    size_t written = 0;
    unsigned moved = 0;
    int rc = CS_OK;
    /* While auto-shrink has work, commits are written whole: each moves a
     * few pages down (a logged commit writes no page of the file). */
    if (t->vol_all && !deferred && !shrink_work(t)) {
        bool logged;
        written = t->dirty_n;
        if ((rc = tree_flush_catalog(t)) == CS_OK && (rc = commit_logged(t, &logged)) == CS_OK && logged) { /* C1 */
            hook(env, CS_STAGE_DONE, t->txnid);
            txn_free(t);
            if (logging)
                cs_log(&env->log, CS_LOG_DEBUG, CS_LOG_TOPIC_TXN, "Commit of txn %llu on %s: logged, 0 pages written (%zu kept in memory), in %llu us",
                       (unsigned long long)txnid, env->path, written, (unsigned long long)(now_us() - started));
            return CS_OK;
        }
        if (rc) goto fail;
    }
    if ((rc = fold_volatile(t)) == CS_OK) rc = shrink_step(t, &moved);
    if (rc == CS_OK) rc = tree_flush_catalog(t);                                /* C1 */
    if (rc == CS_OK) rc = commit_freelist(t, &m);                               /* C2 */
    written = t->dirty_n;
    if (rc == CS_OK) rc = pager_write_dirty(t, units, CS_META_UNITS, &nunits);  /* C3 */
    if (rc) goto fail;
    hook(env, CS_STAGE_DATA_WRITTEN, t->txnid);
    m.txnid = t->txnid;
    m.next_pgno = t->next_pgno;
    m.catalog = t->catalog;
    /* One flush for data and meta when the meta can list everything the
     * commit wrote and nothing deferred is waiting (format.h: TWO WAYS). */
    /* The base is as good as durable when it is the durable meta, or logged
     * commits after it (they wrote nothing to the data file, and a crash
     * falls back to the durable meta and replays them). */
    uint64_t durable = env->lock.hdr->durable_txnid;
    bool base_durable = t->meta.txnid == durable || (env->vol_on && t->vst.logged && t->vst.epoch == durable);
    bool single = !deferred && env->durability == CS_DURABLE_FULL && nunits > 0 &&
                  nunits * sizeof(cs_commit_unit) + meta_delta_len(&m) <= CS_META_TAIL && base_durable &&
                  !(env->flags & CS_ENV_TWO_FLUSH);
    /* I13: truncate only after a durable commit whose base was the durable
     * meta: a crash then falls back at most to that base, and the file keeps
     * both metas' pages. Deferred commits never truncate. (NO_SYNC: the page
     * cache orders the meta write before the truncation for a process crash;
     * an OS crash may damage such a file anyway.) */
    bool may_truncate = env->auto_shrink && !deferred && base_durable;
    /* The log may follow only a commit whose meta a flush made durable. */
    set_written_state(t, !deferred && env->durability == CS_DURABLE_FULL);
    if (single) {
        if ((rc = write_meta(env, &m, true, units, nunits, t->delta))) goto fail; /* C5, C6: one flush */
    } else if (!deferred) {
        if (env->durability != CS_DURABLE_NO_SYNC && (rc = io_sync(env))) { /* C4 */
            /* After a failed flush the kernel may have dropped our pages:
             * the durable state is unknown until the file is reopened. */
            atomic_store(&env->panic, 1);
            goto fail;
        }
        hook(env, CS_STAGE_DATA_SYNCED, t->txnid);
        if ((rc = write_meta(env, &m, env->durability == CS_DURABLE_FULL, NULL, 0, t->delta))) goto fail; /* C5, C6 */
    } else {
        m.hdr.type = PT_META;
        m.hdr.txnid = m.txnid;
    }
    if (may_truncate) {
        uint64_t keep = m.next_pgno > t->meta.next_pgno ? m.next_pgno : t->meta.next_pgno;
        io_shrink_file(env, keep * t->psize);
    }
    lock_publish_meta(&env->lock, &m, t->delta); /* C7 */
    env->fl_txnid = m.txnid; /* env->fl now matches the published meta */
    hook(env, CS_STAGE_DONE, t->txnid);
    txn_free(t);
    if (logging) {
        cs_log(&env->log, CS_LOG_DEBUG, CS_LOG_TOPIC_TXN, "Commit of txn %llu on %s: %zu pages written, %s, in %llu us",
               (unsigned long long)txnid, env->path, written,
               deferred ? "flush deferred" : single ? "one flush" : env->durability == CS_DURABLE_FULL ? "two flushes" : "no flush",
               (unsigned long long)(now_us() - started));
        if (moved || m.next_pgno < old_pages)
            cs_log(&env->log, CS_LOG_DEBUG, CS_LOG_TOPIC_ENV, "Auto-shrink of %s in txn %llu: %u pages moved down, file end at page %llu (was %llu)",
                   env->path, (unsigned long long)txnid, moved, (unsigned long long)m.next_pgno, (unsigned long long)old_pages);
    }
    return CS_OK;
fail:
    env->fl_txnid = 0;
    txn_free(t);
    cs_log(&env->log, CS_LOG_ERROR, CS_LOG_TOPIC_TXN, "Commit of txn %llu on %s failed: %s (%s)", (unsigned long long)txnid,
           env->path, cs_strerror(rc), cs_last_error_detail());
    return rc;
}

int cs_txn_commit(cs_txn *t)
{
    if (!t) return cs_fail(CS_EINVAL, "NULL transaction");
    if (t->rdonly) {
        txn_free(t);
        return CS_OK;
    }
    return commit_write(t, false);
}

int cs_txn_commit_deferred(cs_txn *t)
{
    if (!t) return cs_fail(CS_EINVAL, "NULL transaction");
    if (t->rdonly) return cs_txn_commit(t);
    return commit_write(t, true);
}

/* C4-C6 for the newest published meta, if deferred commits made it newer
 * than the durable one. *flushed = there were some. */
int commit_flush_deferred(cs_env *env, bool *flushed)
{
    bool died;
    *flushed = false;
    /* Logged commits since the last fold: the fold writes them whole (a
     * meta of theirs would name volatile pages in the file, V1). An env
     * that has not mapped the segment since another process turned
     * logging on maps it first, to see them. */
    int arc = vseg_attach(env);
    if (arc) return arc;
    if (env->vol_on) {
        cs_meta pm;
        lock_read_meta(&env->lock, &pm);
        const vseg_state *st = vseg_state_of(&env->vseg, pm.txnid);
        if (st && st->logged) {
            cs_txn *t;
            int rc = cs_txn_begin(env, 0, &t);
            if (rc) return rc;
            t->vol = t->vol_all = false;
            rc = cs_txn_commit(t);
            *flushed = rc == CS_OK;
            return rc;
        }
    }
    int rc = lock_writer_acquire(&env->lock, false, &died);
    if (rc) return rc;
    if (died) rc = txn_resync_dead_writer(env);
    /* After a failed flush the kernel may have dropped the pages of the
     * deferred commits: a second flush would "succeed" without them. */
    if (rc == CS_OK && atomic_load(&env->panic))
        rc = cs_fail(CS_EPANIC, "an earlier flush failed: close and reopen the database");
    cs_meta m;
    uint8_t delta[CS_META_TAIL];
    lock_read_meta(&env->lock, &m);
    if (rc == CS_OK && m.txnid > env->lock.hdr->durable_txnid) {
        /* The writer mutex is held: the published meta stays this one. */
        if (!lock_read_delta(&env->lock, m.txnid, delta)) rc = cs_fail(CS_ECORRUPT, "the published meta changed under the writer mutex");
        else if ((rc = io_sync(env))) atomic_store(&env->panic, 1); /* C4 */
        else rc = write_meta(env, &m, true, NULL, 0, delta); /* C5, C6 */
        *flushed = rc == CS_OK;
    }
    lock_writer_release(&env->lock);
    return rc;
}
