/*
 * txn.c — transactions and the two-phase commit.
 *
 * Read: take a reader slot, publish the snapshot id in it, then confirm the
 * snapshot is still the newest (a writer that scanned the slots before our
 * store cannot have freed anything of it: see free_limit). No lock taken.
 *
 * Write: take the writer mutex; pages are copied on write (pager.c). Commit
 * (write txn N, holding the writer mutex):
 *   C1 write the changed tree descriptors into the catalog (copy-on-write);
 *   C2 build the new free-list run: free extents, the pending groups, and
 *      group N (the pages N freed, including the old run);
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
 * and the next flush (env_flush_deferred: cs_env_sync, cs_env_close or a
 * normal commit, by any process) does C4-C6 for the newest published meta,
 * making it and every deferred commit before it durable. Until then I7's
 * reuse rule (free_limit) keeps the durable snapshot whole.
 * A crash before C5 completes, or between C5 and C6 with the meta lost,
 * leaves the previous meta, whose pages nothing has overwritten (I7); see
 * docs/FORMAT.md for the full argument.
 */
#include "internal.h"

#include <stdlib.h>
#include <unistd.h>

int txn_check(cs_txn *t, bool need_write)
{
    if (!t) return cs_fail(CS_EINVAL, "NULL transaction");
    if (t->state == TXN_RESET) return cs_fail(CS_EBADTXN, "transaction is reset: renew it first");
    if (t->state == TXN_FAILED) return cs_fail(CS_EBADTXN, "transaction failed earlier (%s): abort it", cs_strerror(t->err));
    if (need_write && t->rdonly) return cs_fail(CS_EREADONLY, "write in a read-only transaction");
    return CS_OK;
}

int txn_note(cs_txn *t, int rc)
{
    switch (rc) {
    case CS_OK: case CS_NOTFOUND: case CS_EXISTS: case CS_EKEYSIZE: case CS_EVALSIZE: case CS_EINVAL:
        return rc;
    default:
        if (!t->rdonly) {
            t->err = rc;
            t->state = TXN_FAILED;
        }
        return rc;
    }
}

static int take_snapshot(cs_txn *t)
{
    cs_env *env = t->env;
    cs_meta m;
    for (;;) {
        lock_read_meta(&env->lock, &m);
        atomic_store(&t->slot->txnid, m.txnid);
        atomic_thread_fence(memory_order_seq_cst);
        cs_meta again;
        lock_read_meta(&env->lock, &again);
        if (again.txnid == m.txnid) break;
    }
    int rc = env_map_for(env, m.next_pgno, &t->map, &t->map_pages);
    if (rc) {
        atomic_store(&t->slot->txnid, 0);
        return rc;
    }
    t->meta = m;
    t->txnid = m.txnid;
    t->catalog = m.catalog;
    for (uint32_t i = 0; i < t->ntrees; i++) t->trees[i].known = 0;
    t->state = TXN_ACTIVE;
    return CS_OK;
}

/* Groups freed by commits <= this are reusable: no reader's snapshot is
 * older than them, and the previous commit's snapshot (the fallback meta)
 * stays whole, which the NO_META_SYNC mode relies on. */
static uint64_t free_limit(cs_env *env, uint64_t latest)
{
    uint64_t oldest = lock_oldest_reader(&env->lock, latest, NULL);
    uint64_t limit = env->lock.hdr->durable_txnid - 1;
    if (oldest && oldest < limit) limit = oldest;
    return limit;
}

/* The writer after a dead one: adopt a meta it wrote but did not publish. */
static int resync_after_dead_writer(cs_env *env)
{
    uint8_t *buf = malloc(2 * (size_t)env->psize);
    if (!buf) return cs_fail(CS_ENOMEM, "meta buffer");
    ssize_t n = pread(env->fd, buf, 2 * (size_t)env->psize, 0);
    cs_meta fm, lm;
    uint32_t slot;
    int rc = n < 2 * (ssize_t)env->psize ? cs_fail(CS_EIO, "cannot read meta pages")
                                         : meta_choose_durable(buf, buf + env->psize, (size_t)n, env->fd, &fm, &slot);
    free(buf);
    if (rc) return rc;
    lock_read_meta(&env->lock, &lm);
    if (fm.txnid > lm.txnid) lock_publish_meta(&env->lock, &fm);
    if (fm.txnid > env->lock.hdr->durable_txnid) {
        env->lock.hdr->durable_txnid = fm.txnid;
        env->lock.hdr->durable_slot = slot;
    }
    env->fl_txnid = 0;
    return CS_OK;
}

static int begin_write(cs_txn *t, bool try_only)
{
    cs_env *env = t->env;
    bool died;
    int rc = lock_writer_acquire(&env->lock, try_only, &died);
    if (rc) return rc;
    if (died && (rc = resync_after_dead_writer(env))) goto fail;
    if (atomic_load(&env->panic)) {
        rc = cs_fail(CS_EPANIC, "an earlier flush failed: close and reopen the database");
        goto fail;
    }
    lock_read_meta(&env->lock, &t->meta);
    t->txnid = t->meta.txnid + 1;
    t->next_pgno = t->meta.next_pgno;
    t->catalog = t->meta.catalog;
    if ((rc = env_map_for(env, t->meta.next_pgno, &t->map, &t->map_pages))) goto fail;
    t->scratch = malloc(3 * (size_t)t->psize);
    t->refs = malloc((2 * (size_t)t->psize / 8 + 4) * sizeof *t->refs);
    if (!t->scratch || !t->refs) {
        rc = cs_fail(CS_ENOMEM, "write transaction buffers");
        goto fail;
    }
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t limit = free_limit(env, t->meta.txnid);
    if (env->fl_txnid != t->meta.txnid) {
        freelist_free(&env->fl);
        env->fl_txnid = 0;
        if (t->meta.fl_pgno) {
            const uint8_t *run;
            t->rdonly = true; /* read the committed run through the map */
            rc = page_get_run(t, t->meta.fl_pgno, t->meta.fl_npages, &run);
            t->rdonly = false;
            if (rc || (rc = freelist_load(run, t->meta.fl_npages, t->psize, t->meta.next_pgno, &env->fl))) goto fail;
        }
    }
    t->fl = env->fl; /* the txn owns the list until commit or abort */
    memset(&env->fl, 0, sizeof env->fl);
    env->fl_txnid = 0;
    if ((rc = freelist_release(&t->fl, limit))) goto fail;
    t->pool = t->fl.free;
    memset(&t->fl.free, 0, sizeof t->fl.free);
    return CS_OK;
fail:
    lock_writer_release(&env->lock);
    return rc;
}

int cs_txn_begin(cs_env *env, unsigned flags, cs_txn **out)
{
    if (!env || !out || (flags & ~(CS_TXN_RDONLY | CS_TXN_TRY))) return cs_fail(CS_EINVAL, "cs_txn_begin: bad arguments");
    bool rdonly = flags & CS_TXN_RDONLY;
    if (!rdonly && (env->flags & CS_ENV_RDONLY)) return cs_fail(CS_EREADONLY, "database was opened read-only");
    cs_txn *t = calloc(1, sizeof *t);
    if (!t) return cs_fail(CS_ENOMEM, "transaction");
    t->env = env;
    t->psize = env->psize;
    t->rdonly = rdonly;
    int rc;
    if (rdonly) {
        rc = lock_slot_acquire(&env->lock, &env->slot_hint, &t->slot);
        if (rc == CS_OK && (rc = take_snapshot(t))) lock_slot_release(t->slot);
    } else {
        rc = begin_write(t, flags & CS_TXN_TRY);
    }
    if (rc) {
        free(t->scratch);
        free(t->refs);
        freelist_free(&t->fl);
        extvec_free(&t->pool);
        free(t);
        return rc;
    }
    atomic_fetch_add(&env->live_txns, 1);
    *out = t;
    return CS_OK;
}

/* A clone reads the source's snapshot through its own slot and tree table,
 * so that several threads can read one pinned version at once (frozen
 * Realms). Publishing the same txnid in a second slot is safe because the
 * source's slot already pins it: the pages cannot be reused in between. */
int cs_txn_clone(cs_txn *src, cs_txn **out)
{
    if (!src || !out || !src->rdonly) return cs_fail(CS_EINVAL, "cs_txn_clone: needs a read transaction");
    if (src->state != TXN_ACTIVE) return cs_fail(CS_EINVAL, "cs_txn_clone: the source has no snapshot (reset)");
    cs_env *env = src->env;
    cs_txn *t = calloc(1, sizeof *t);
    if (!t) return cs_fail(CS_ENOMEM, "transaction");
    int rc = lock_slot_acquire(&env->lock, &env->slot_hint, &t->slot);
    if (rc) {
        free(t);
        return rc;
    }
    atomic_store(&t->slot->txnid, src->txnid);
    t->env = env;
    t->psize = src->psize;
    t->rdonly = true;
    t->meta = src->meta;
    t->txnid = src->txnid;
    t->map = src->map;
    t->map_pages = src->map_pages;
    t->catalog = src->catalog;
    t->state = TXN_ACTIVE;
    atomic_fetch_add(&env->live_txns, 1);
    *out = t;
    return CS_OK;
}

static void txn_free(cs_txn *t)
{
    cursor_close_all(t);
    if (t->rdonly) {
        lock_slot_release(t->slot);
    } else {
        dirty_release_all(t);
        extvec_free(&t->pool);
        extvec_free(&t->reuse);
        extvec_free(&t->freed);
        freelist_free(&t->fl);
        free(t->scratch);
        free(t->refs);
        lock_writer_release(&t->env->lock);
    }
    atomic_fetch_sub(&t->env->live_txns, 1);
    free(t->trees);
    free(t);
}

int cs_txn_abort(cs_txn *t)
{
    if (!t) return cs_fail(CS_EINVAL, "NULL transaction");
    txn_free(t); /* a writer's env->fl stays invalid: reloaded next time */
    return CS_OK;
}

int cs_txn_reset(cs_txn *t)
{
    if (!t || !t->rdonly) return cs_fail(CS_EINVAL, "cs_txn_reset: only read transactions");
    cursor_unset_all(t);
    atomic_store(&t->slot->txnid, 0);
    t->state = TXN_RESET;
    return CS_OK;
}

int cs_txn_renew(cs_txn *t)
{
    if (!t || !t->rdonly) return cs_fail(CS_EINVAL, "cs_txn_renew: only read transactions");
    cursor_unset_all(t);
    return take_snapshot(t);
}

uint64_t cs_txn_id(const cs_txn *t) { return t ? t->txnid : 0; }
int cs_txn_is_readonly(const cs_txn *t) { return t ? t->rdonly : 0; }

int txn_commit_freelist(cs_txn *t, cs_meta *m)
{
    cs_freelist nf = {0};
    nf.groups = t->fl.groups;
    nf.ngroups = t->fl.ngroups;
    nf.cap = t->fl.cap;
    memset(&t->fl, 0, sizeof t->fl);
    /* This commit's group: what it freed, plus the old free-list run. */
    int rc = CS_OK;
    if (t->meta.fl_pgno) rc = extvec_push(&t->freed, t->meta.fl_pgno, t->meta.fl_npages);
    if (rc == CS_OK && t->freed.n) {
        extvec_normalize(&t->freed);
        rc = freelist_add_group(&nf, t->txnid, &t->freed);
    }
    /* What is still free: the unused pool plus pages born and freed here. */
    if (rc == CS_OK) rc = extvec_merge(&t->pool, t->pool.v + t->pool_head, t->pool.n - t->pool_head, &t->reuse);
    if (rc) goto out;
    t->pool_head = 0;
    t->reuse.n = 0;
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
    if (rc == CS_OK) {
        freelist_free(&t->env->fl);
        t->env->fl = nf; /* becomes the cache once the commit succeeds */
        t->env->fl_txnid = 0;
    } else {
        freelist_free(&nf);
    }
    return rc;
}

static void hook(cs_env *env, cs_commit_stage s, uint64_t txnid)
{
    if (env->commit_hook) env->commit_hook(env->commit_hook_ctx, s, txnid);
}

/* Phase two: write meta m into the page not holding the durable meta, then
 * (if asked) flush. Caller holds the writer mutex and flushed the data. */
/* Writes the meta to the slot not holding the durable one; with `units`
 * (a single-flush commit) they are listed after it, so that open can tell
 * whether the data reached the disk too. */
static int write_meta(cs_env *env, cs_meta *m, bool flush, const cs_commit_unit *units, uint32_t nunits)
{
    cs_lock_hdr *h = env->lock.hdr;
    uint32_t slot = h->durable_slot ^ 1;
    m->hdr.type = PT_META;
    m->hdr.pgno = slot;
    m->hdr.txnid = m->txnid;
    m->hdr.npages = 1;
    m->hdr.nkeys = (uint16_t)nunits;
    uint8_t page[CS_META_BYTES];
    memset(page, 0, sizeof page);
    memcpy(page, m, sizeof *m);
    if (nunits) memcpy(page + sizeof *m, units, nunits * sizeof *units);
    m->hdr.checksum = 0;
    memcpy(page, m, sizeof *m);
    m->hdr.checksum = cs_page_checksum(page, CS_META_BYTES);
    memcpy(page, m, sizeof *m);
    int rc = env_io_write(env, page, CS_META_BYTES, (uint64_t)slot * env->psize);
    if (rc) return rc;
    hook(env, CS_STAGE_META_WRITTEN, m->txnid);
    if (flush && (rc = env_io_sync(env))) {
        atomic_store(&env->panic, 1);
        return rc;
    }
    h->durable_txnid = m->txnid;
    h->durable_slot = slot;
    return CS_OK;
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
    int rc = tree_flush_catalog(t);
    if (rc == CS_OK) rc = txn_commit_freelist(t, &m);
    if (rc == CS_OK) rc = pager_write_dirty(t, units, CS_META_UNITS, &nunits);
    if (rc) goto fail;
    hook(env, CS_STAGE_DATA_WRITTEN, t->txnid);
    m.txnid = t->txnid;
    m.next_pgno = t->next_pgno;
    m.catalog = t->catalog;
    /* One flush for data and meta when the meta can list everything the
     * commit wrote and nothing deferred is waiting (format.h: TWO WAYS). */
    bool single = !deferred && env->durability == CS_DURABLE_FULL && nunits > 0 && nunits <= CS_META_UNITS &&
                  t->meta.txnid == env->lock.hdr->durable_txnid && !(env->flags & CS_ENV_TWO_FLUSH);
    if (single) {
        if ((rc = write_meta(env, &m, true, units, nunits))) goto fail;
    } else if (!deferred) {
        if (env->durability != CS_DURABLE_NO_SYNC && (rc = env_io_sync(env))) {
            /* After a failed flush the kernel may have dropped our pages:
             * the durable state is unknown until the file is reopened. */
            atomic_store(&env->panic, 1);
            goto fail;
        }
        hook(env, CS_STAGE_DATA_SYNCED, t->txnid);
        if ((rc = write_meta(env, &m, env->durability == CS_DURABLE_FULL, NULL, 0))) goto fail;
    } else {
        m.hdr.type = PT_META;
        m.hdr.txnid = m.txnid;
    }
    lock_publish_meta(&env->lock, &m);
    env->fl_txnid = m.txnid; /* env->fl now matches the published meta */
    hook(env, CS_STAGE_DONE, t->txnid);
    txn_free(t);
    return CS_OK;
fail:
    env->fl_txnid = 0;
    txn_free(t);
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

int env_flush_deferred(cs_env *env, bool *flushed)
{
    bool died;
    *flushed = false;
    int rc = lock_writer_acquire(&env->lock, false, &died);
    if (rc) return rc;
    if (died) rc = resync_after_dead_writer(env);
    /* After a failed flush the kernel may have dropped the pages of the
     * deferred commits: a second flush would "succeed" without them. */
    if (rc == CS_OK && atomic_load(&env->panic))
        rc = cs_fail(CS_EPANIC, "an earlier flush failed: close and reopen the database");
    cs_meta m;
    lock_read_meta(&env->lock, &m);
    if (rc == CS_OK && m.txnid > env->lock.hdr->durable_txnid) {
        rc = env_io_sync(env);
        if (rc) atomic_store(&env->panic, 1);
        else rc = write_meta(env, &m, true, NULL, 0);
        *flushed = rc == CS_OK;
    }
    lock_writer_release(&env->lock);
    return rc;
}
