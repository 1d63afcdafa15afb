/*
 * txn.c — transactions: begin (read snapshot or writer), clone, reset,
 * renew, abort. The commit sequence is in commit.c.
 *
 * Read: take a reader slot, publish the snapshot id in it, then confirm the
 * snapshot is still the newest (a writer that scanned the slots before our
 * store cannot have freed anything of it: see free_limit). No lock taken.
 *
 * Write: take the writer mutex (adopting the meta of a writer that died
 * after writing it), load the free list and release the groups no reader
 * and no durable fallback can still see (I7). Pages are then copied on
 * write (pager.c).
 */
#include "internal.h"

#include <stdlib.h>
#include <unistd.h>

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
    /* After the meta read: a snapshot of a logged commit was published
     * after vol_on was set, so the segment is found here. */
    int rc = io_map_for(env, m.next_pgno, &t->map, &t->map_pages);
    if (rc == CS_OK) rc = vseg_attach(env);
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

/* I7's reuse rule: groups freed by commits <= this are reusable: no
 * reader's snapshot is older than them, and the previous commit's snapshot
 * (the fallback meta) stays whole, which the NO_META_SYNC mode relies on. */
static uint64_t free_limit(cs_env *env, uint64_t oldest)
{
    uint64_t limit = env->lock.hdr->durable_txnid - 1;
    if (oldest && oldest < limit) limit = oldest;
    return limit;
}

/* The writer after a dead one: adopt a meta it wrote but did not publish. */
int txn_resync_dead_writer(cs_env *env)
{
    uint8_t *buf = malloc(2 * (size_t)env->psize);
    if (!buf) return cs_fail(CS_ENOMEM, "meta buffer");
    ssize_t n = pread(env->fd, buf, 2 * (size_t)env->psize, 0);
    cs_meta fm, lm;
    uint32_t slot;
    int rc = n < 2 * (ssize_t)env->psize ? cs_fail(CS_EIO, "cannot read meta pages")
                                         : meta_choose_durable(buf, buf + env->psize, (size_t)n, env->fd, &fm, &slot);
    if (rc) {
        free(buf);
        return rc;
    }
    lock_read_meta(&env->lock, &lm);
    if (fm.txnid > lm.txnid) lock_publish_meta(&env->lock, &fm, meta_delta(buf + (size_t)slot * env->psize, &fm));
    free(buf);
    if (fm.txnid > env->lock.hdr->durable_txnid) {
        env->lock.hdr->durable_txnid = fm.txnid;
        env->lock.hdr->durable_slot = slot;
    }
    env->fl_txnid = 0;
    atomic_store_explicit(&env->recovered, fm.txnid, memory_order_relaxed);
    return CS_OK;
}

void txn_log_pending(cs_env *env)
{
    /* Plain loads first: this runs at the end of every transaction. */
    if (!atomic_load_explicit(&env->recovered, memory_order_relaxed) &&
        !atomic_load_explicit(&env->lock.dead_cleared, memory_order_relaxed))
        return;
    uint64_t recovered = atomic_exchange_explicit(&env->recovered, 0, memory_order_relaxed);
    if (recovered)
        cs_log(&env->log, CS_LOG_WARN, CS_LOG_TOPIC_ENV,
               "%s: the newest commit was incomplete (its writer died, or the system crashed before it reached the "
               "disk); recovered at the last durable commit, txn %llu",
               env->path, (unsigned long long)recovered);
    uint32_t dead = atomic_exchange_explicit(&env->lock.dead_cleared, 0, memory_order_relaxed);
    if (dead)
        cs_log(&env->log, CS_LOG_INFO, CS_LOG_TOPIC_ENV, "%s: cleared %u reader slot%s of dead processes",
               env->path, dead, dead == 1 ? "" : "s");
}

int txn_load_freelist(cs_txn *t, cs_freelist *base, uint64_t *base_txnid, uint64_t *cursor, cs_freelist *delta)
{
    cs_env *env = t->env;
    freelist_free(base);
    freelist_free(delta);
    *base_txnid = *cursor = 0;
    int rc = CS_OK;
    if (t->meta.fl_pgno) {
        const uint8_t *run;
        rc = page_get_run(t, t->meta.fl_pgno, t->meta.fl_npages, &run);
        if (rc == CS_OK) rc = freelist_load(run, t->meta.fl_npages, t->psize, t->meta.next_pgno, base);
        if (rc == CS_OK) *base_txnid = PH(run)->txnid;
    }
    uint32_t dl = meta_delta_len(&t->meta);
    if (rc == CS_OK && dl) {
        /* The published meta's delta, or (a newer commit since) the one in
         * the meta page of this commit, while no later commit has reused it. */
        uint8_t buf[CS_META_TAIL];
        const uint8_t *d = NULL;
        uint8_t page[CS_META_BYTES];
        if (lock_read_delta(&env->lock, t->meta.txnid, buf)) d = buf;
        for (uint32_t s = 0; !d && env->fd >= 0 && s < 2; s++) {
            cs_meta m;
            if (pread(env->fd, page, sizeof page, (off_t)s * env->psize) != (ssize_t)sizeof page || !meta_valid(page, 0)) continue;
            memcpy(&m, page, sizeof m);
            if (m.txnid == t->meta.txnid && meta_delta_len(&m) == dl) d = meta_delta(page, &m);
        }
        if (!d) rc = cs_fail(CS_EBUSY, "the free list of snapshot %llu is gone: newer commits replaced it",
                             (unsigned long long)t->meta.txnid);
        else rc = freelist_delta_decode(d, dl, *base_txnid, t->meta.txnid, t->meta.next_pgno, cursor, delta);
    }
    if (rc) freelist_free(base);
    return rc;
}

int txn_snapshot_freelist(cs_txn *t, cs_freelist *out)
{
    cs_freelist base = {0}, delta = {0};
    uint64_t base_txnid, cursor;
    memset(out, 0, sizeof *out);
    int rc = txn_load_freelist(t, &base, &base_txnid, &cursor, &delta);
    if (rc == CS_OK) rc = freelist_rest(&base, cursor, out);
    if (rc == CS_OK) rc = freelist_join(out, &delta);
    freelist_free(&base);
    freelist_free(&delta);
    if (rc) freelist_free(out);
    return rc;
}

/* Logged commits (design 4): whether this txn's new pages go to the arena
 * (a commit that can be logged: its base is the durable commit or a logged
 * one after it, and the log has not run long), and whether its base
 * reaches volatile pages (then a commit that is not logged folds them).
 * The arena starts over once no reader holds a snapshot older than the
 * last commit that was written whole (`oldest`: the oldest reader's
 * snapshot, 0 for none, read after the fence like free_limit's). */
static int begin_volatile(cs_txn *t, uint64_t oldest)
{
    cs_env *env = t->env;
    const vseg_state *st = vseg_state_of(&env->vseg, t->meta.txnid);
    if (!st)
        return cs_fail(CS_ECORRUPT, "the page segment holds no state for commit %llu: close every process that has "
                                    "the database open, then open it again",
                       (unsigned long long)t->meta.txnid);
    t->vst = *st;
    t->fold = st->logged != 0;
    bool chain = env->lock.hdr->durable_txnid == st->epoch && (st->logged || t->meta.txnid == st->epoch);
    t->vol = t->vol_all = chain && env->durability == CS_DURABLE_FULL && !env->metas_old &&
                          t->meta.txnid - st->epoch < VOL_FOLD_EVERY;
    t->vol_hwm = st->hwm;
    t->vol_used = 0;
    t->vol_cap = VOL_TXN_PAGES;
    if (!st->logged && (!oldest || oldest >= st->clean_txnid)) t->vol_hwm = env->vseg.hdr->first_page;
    return CS_OK;
}

static int begin_write(cs_txn *t, bool try_only)
{
    cs_env *env = t->env;
    bool died;
    int rc = lock_writer_acquire(&env->lock, try_only, &died);
    if (rc) return rc;
    if (died && (rc = txn_resync_dead_writer(env))) goto fail;
    if (atomic_load(&env->panic)) {
        rc = cs_fail(CS_EPANIC, "an earlier flush failed: close and reopen the database");
        goto fail;
    }
    if ((rc = vseg_writer_begin(env))) goto fail;
    lock_read_meta(&env->lock, &t->meta);
    t->txnid = t->meta.txnid + 1;
    t->next_pgno = t->meta.next_pgno;
    t->catalog = t->meta.catalog;
    if ((rc = io_map_for(env, t->meta.next_pgno, &t->map, &t->map_pages))) goto fail;
    t->scratch = malloc(3 * (size_t)t->psize);
    t->refs = malloc((2 * (size_t)t->psize / 4 + 4) * sizeof *t->refs); /* cells >= 5 bytes with the slot */
    t->costs = malloc((2 * (size_t)t->psize / 4 + 4) * sizeof *t->costs);
    t->parts = malloc(((size_t)t->psize / 4 + 4) * sizeof *t->parts); /* compact cells >= 4 with the slot */
    if (!t->scratch || !t->refs || !t->costs || !t->parts) {
        rc = cs_fail(CS_ENOMEM, "write transaction buffers");
        goto fail;
    }
    /* One scan of the reader table serves the reuse rule and the arena's
     * reset; the fence orders it after the meta read, so a reader that
     * registers later sees this meta or a newer one. */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t oldest = lock_oldest_reader(&env->lock, t->meta.txnid, NULL);
    if (env->vol_on && (rc = begin_volatile(t, oldest))) goto fail;
    uint64_t limit = free_limit(env, oldest);
    if (env->fl_txnid != t->meta.txnid) {
        env->fl_txnid = 0;
        t->rdonly = true; /* read the committed run through the map */
        rc = txn_load_freelist(t, &env->fl_base, &env->fl_base_txnid, &env->fl_cursor, &env->fl);
        t->rdonly = false;
        if (rc) goto fail;
    }
    if (t->vol_all) {
        /* A logged commit leaves the free list as it is: the txn works on a
         * copy of the delta's list, and the cache stays the base's, valid
         * for the next writer (reloading a fragmented list each commit
         * would cost more than the commit's flush). */
        if ((rc = freelist_copy(&t->fl, &env->fl))) goto fail;
        t->fl_copied = true;
    } else {
        t->fl = env->fl; /* the txn owns the delta until commit or abort */
        memset(&env->fl, 0, sizeof env->fl);
        env->fl_txnid = 0;
    }
    if ((rc = freelist_release(&t->fl, limit))) goto fail;
    t->pool = t->fl.free;
    memset(&t->fl.free, 0, sizeof t->fl.free);
    /* The base's sequence after the cursor: its free extents, then the
     * groups' as far as they are reusable (groups ascend, so that is a
     * prefix); the rest stays pending in bgroups. */
    if ((rc = freelist_rest(&env->fl_base, env->fl_cursor, &t->bgroups))) goto fail;
    t->bpool = t->bgroups.free;
    memset(&t->bgroups.free, 0, sizeof t->bgroups.free);
    size_t k = 0;
    for (; k < t->bgroups.ngroups && t->bgroups.groups[k].txnid <= limit; k++) {
        if ((rc = extvec_append(&t->bpool, &t->bgroups.groups[k].ext))) goto fail;
        extvec_free(&t->bgroups.groups[k].ext);
    }
    if (k) {
        memmove(t->bgroups.groups, t->bgroups.groups + k, (t->bgroups.ngroups - k) * sizeof *t->bgroups.groups);
        t->bgroups.ngroups -= k;
    }
    return CS_OK;
fail:
    lock_writer_release(&env->lock);
    return rc;
}

int cs_txn_begin(cs_env *env, unsigned flags, cs_txn **out)
{
    if (!env || !out || (flags & ~(CS_TXN_RDONLY | CS_TXN_TRY))) return cs_fail(CS_EINVAL, "cs_txn_begin: bad arguments");
    bool rdonly = flags & CS_TXN_RDONLY;
    if (!rdonly && (env->flags & CS_ENV_RDONLY) && !env->replaying)
        return cs_fail(CS_EREADONLY, "database was opened read-only");
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
        free(t->costs);
        free(t->parts);
        free(t->decode);
        freelist_free(&t->fl);
        freelist_free(&t->bgroups);
        extvec_free(&t->pool);
        extvec_free(&t->bpool);
        free(t);
        txn_log_pending(env);
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

void txn_free(cs_txn *t)
{
    cursor_close_all(t);
    if (t->rdonly) {
        lock_slot_release(t->slot);
    } else {
        dirty_release_all(t);
        extvec_free(&t->pool);
        extvec_free(&t->bpool);
        freelist_free(&t->bgroups);
        extvec_free(&t->reuse);
        extvec_free(&t->freed);
        freelist_free(&t->fl);
        free(t->scratch);
        free(t->refs);
        free(t->costs);
        free(t->parts);
        free(t->decode);
        lock_writer_release(&t->env->lock);
    }
    cs_env *env = t->env;
    atomic_fetch_sub(&env->live_txns, 1);
    free(t->trees);
    free(t);
    txn_log_pending(env); /* no lock held now */
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
