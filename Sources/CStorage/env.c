/*
 * env.c — the public environment calls: open (data file, lock file, the
 * meta to start from), close, sync, and the info calls.
 *
 * Open creates a missing or never-initialised file (two metas of an empty
 * database), or picks the durable meta of an existing one (I1); the first
 * process to open the database rebuilds the lock file from that meta.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Write the two meta pages of an empty database. */
static int create_file(cs_env *env, cs_meta *out)
{
    size_t len = 2 * (size_t)env->psize;
    uint8_t *buf = calloc(1, len);
    if (!buf) return cs_fail(CS_ENOMEM, "new file");
    for (uint64_t i = 0; i < 2; i++) {
        cs_meta m = {0};
        m.hdr.type = PT_META;
        m.hdr.pgno = i;
        m.hdr.txnid = i;
        m.hdr.npages = 1;
        m.magic = CS_MAGIC;
        m.version = CS_FORMAT_VERSION;
        m.page_size = env->psize;
        m.txnid = i; /* page 1 holds commit 1, the newest; 0 means "no snapshot" */
        m.next_pgno = 2;
        meta_seal(&m);
        memcpy(buf + i * env->psize, &m, sizeof m);
        *out = m;
    }
    int rc = io_grow_file(env, len);
    if (rc == CS_OK) rc = io_write(env, buf, len, 0);
    if (rc == CS_OK) rc = io_sync(env);
    free(buf);
    return rc;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* Read the newest valid meta of an existing file. */
/* delta: CS_META_TAIL bytes, receives the meta's free-list delta. */
static int read_meta(cs_env *env, uint64_t size, cs_meta *out, uint32_t *slot, uint8_t *delta, bool *fresh, bool *retry)
{
    *retry = false;
    /* Not zeroed: every read below is bounded by the bytes read (n), and a
     * common open reads 8 KiB of the buffer's 64 KiB. */
    size_t want = 2 * CS_MAX_PAGE_SIZE;
    uint8_t *buf = malloc(want);
    if (!buf) return cs_fail(CS_ENOMEM, "meta buffer");
    /* Two pages of the default size first, the rest only when page 0 does
     * not show page 1's meta inside them: a cold open waits for a smaller
     * read (the kernel's readahead grows with the request). */
    size_t first = 2 * CS_DEFAULT_PAGE_SIZE;
    /* cs_env_open asked for these bytes: found in the page cache (or on
     * their way), they start no readahead, which would read several times
     * the bytes asked for, and a cold read's wait grows with its bytes. */
    ssize_t n = pread(env->fd, buf, first, 0);
    if (n == (ssize_t)first && !(meta_valid(buf, 0) && rd32(buf + 44) + CS_META_BYTES <= first)) {
        ssize_t more = pread(env->fd, buf + first, want - first, (off_t)first);
        n = more < 0 ? more : n + more;
    }
    int rc = CS_OK;
    *fresh = false;
    if (n < 0) {
        rc = cs_fail(CS_EIO, "cannot read %s: %s", env->path, strerror(errno));
    } else if (all_zero(buf, (size_t)n) && !(env->flags & CS_ENV_RDONLY)) {
        *fresh = true; /* a creation that never wrote its metas */
    } else {
        /* Page 1 sits one page size after page 0: take page 0's size if it
         * is valid, else look for a valid page 1 at each allowed size. */
        uint32_t ps = 0;
        bool magic = (size_t)n >= 40 && rd64(buf + 32) == CS_MAGIC;
        if ((size_t)n >= CS_META_BYTES && meta_valid(buf, 0)) ps = rd32(buf + 44);
        for (uint32_t p = CS_MIN_PAGE_SIZE; !ps && p <= CS_MAX_PAGE_SIZE; p *= 2) {
            if ((size_t)n < p + CS_META_BYTES) break;
            magic |= rd64(buf + p + 32) == CS_MAGIC;
            if (meta_valid(buf + p, 0) && rd32(buf + p + 44) == p) ps = p;
        }
        uint32_t version = 0;
        if (ps) {
            rc = meta_choose_durable(buf, buf + ps, (size_t)n, env->fd, out, slot);
            if (rc == CS_OK) memcpy(delta, meta_delta(buf + (size_t)*slot * ps, out), meta_delta_len(out));
            for (int i = 0; i < 2; i++) {
                const uint8_t *mp = buf + (size_t)i * ps;
                if ((size_t)n >= (size_t)i * ps + CS_META_BYTES && meta_valid(mp, 0) && rd32(mp + 40) < CS_FORMAT_VERSION)
                    env->metas_old = true;
            }
            /* For the log: a newer meta than the one chosen was torn, damaged
             * or its commit incomplete (cs_env_open reports a recovery). */
            cs_meta a, b;
            memcpy(&a, buf, sizeof a);
            if ((size_t)n >= (size_t)ps + sizeof b) memcpy(&b, buf + ps, sizeof b);
            else b.magic = 0; /* a short file: no page 1 */
            env->newest_meta_seen = a.magic == CS_MAGIC ? a.txnid : 0;
            if (b.magic == CS_MAGIC && b.txnid > env->newest_meta_seen) env->newest_meta_seen = b.txnid;
        }
        else if ((size_t)n >= CS_META_BYTES && meta_other_version(buf, &version))
            rc = cs_fail(CS_EFORMAT, "%s uses format version %u; this build reads version %u", env->path, version,
                         CS_FORMAT_VERSION);
        else if (magic) rc = cs_fail(CS_ECORRUPT, "%s: both meta pages are damaged", env->path);
        else rc = cs_fail(CS_ENOTDB, "%s is not a CStorage database", env->path);
        /* A power loss during creation can leave a valid meta of the empty
         * database in a short file: nothing to lose, create it again. */
        if (rc == CS_OK && out->next_pgno == 2 && 2ull * out->page_size > size && !(env->flags & CS_ENV_RDONLY))
            *fresh = true;
        else if (rc == CS_OK && out->next_pgno > size / out->page_size) { /* no overflow on a damaged next_pgno */
            /* Other processes commit while this one opens: the size read
             * before the metas may predate the growth of this meta's commit.
             * A size read after them covers it unless a newer commit has
             * shrunk the file since (I13), which changes the metas: then the
             * caller reads again (*retry). */
            struct stat st;
            uint8_t *again = malloc((size_t)n);
            if (fstat(env->fd, &st) == 0 && out->next_pgno <= (uint64_t)st.st_size / out->page_size) {
                env->file_size = (uint64_t)st.st_size;
            } else {
                *retry = again && pread(env->fd, again, (size_t)n, 0) == n && memcmp(again, buf, (size_t)n) != 0;
                rc = cs_fail(CS_ECORRUPT, "%s is truncated: the last commit needs %llu bytes, the file has %llu",
                             env->path, (unsigned long long)(out->next_pgno * (uint64_t)out->page_size),
                             (unsigned long long)size);
            }
            free(again);
        }
    }
    free(buf);
    return rc;
}

static int open_data(cs_env *env, const cs_options *o, cs_meta *meta, uint32_t *slot, uint8_t *delta)
{
    bool in_memory = env->flags & CS_ENV_IN_MEMORY, rdonly = env->flags & CS_ENV_RDONLY;
    if (in_memory) env->fd = memfd_create("cstorage", MFD_CLOEXEC);
    else env->fd = open(env->path, (rdonly ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC, o->file_mode ? o->file_mode : 0644);
    if (env->fd < 0) return cs_fail(errno == ENOENT ? CS_NOTFOUND : CS_EIO, "cannot open %s: %s", env->path, strerror(errno));
    struct stat st;
    if (fstat(env->fd, &st) != 0) return cs_fail(CS_EIO, "cannot stat %s: %s", env->path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return cs_fail(CS_ENOTDB, "%s is not a regular file", env->path);
    env->file_size = (uint64_t)st.st_size;
    bool fresh = st.st_size == 0, retry = false;
    if (!fresh) {
        int rc = read_meta(env, (uint64_t)st.st_size, meta, slot, delta, &fresh, &retry);
        for (int i = 0; rc && retry && i < 100 && fstat(env->fd, &st) == 0; i++) {
            env->file_size = (uint64_t)st.st_size;
            rc = read_meta(env, (uint64_t)st.st_size, meta, slot, delta, &fresh, &retry);
        }
        if (rc) return rc;
        if (!fresh) {
            env->psize = meta->page_size;
            return CS_OK;
        }
    }
    if (rdonly) return cs_fail(CS_ENOTDB, "%s is empty: nothing to open read-only", env->path);
    uint32_t ps = o->page_size ? o->page_size : CS_DEFAULT_PAGE_SIZE;
    env->psize = ps;
    *slot = 1; /* create_file: page 1 holds commit 1 */
    return create_file(env, meta);
}

static int replay_one(void *ctx, uint64_t txnid, const uint8_t *ops, size_t len, uint32_t nops)
{
    CS_UNUSED(txnid);
    CS_UNUSED(nops);
    return redo_apply(ctx, ops, len);
}

/* The first process, with records an earlier run logged after the durable
 * commit: they are applied in one write txn whose pages go to the segment
 * as the logged commits' did, with nothing written (the records are
 * durable), and it takes the last record's txnid so that the next record
 * follows them in the log. A read-only process may do it too, since
 * nothing reaches the file; only commits too many for the segment, which
 * would be written whole, need a writable open. */
static int replay_log(cs_env *env, uint64_t durable, uint64_t last, uint64_t end)
{
    cs_txn *t;
    env->replaying = true;
    int rc = cs_txn_begin(env, 0, &t);
    env->replaying = false;
    if (rc) return rc;
    t->txnid = last;
    t->vol = t->vol_all = true;
    t->vol_cap = env->vseg.span_pages;
    if ((rc = redo_scan(&env->redo, durable, replay_one, t, NULL, NULL))) {
        cs_txn_abort(t);
        return rc;
    }
    if ((rc = commit_replayed(t, end)) == CS_OK)
        cs_log(&env->log, CS_LOG_WARN, CS_LOG_TOPIC_ENV,
               "%s: replayed %llu logged commits (txns %llu..%llu) that the last run did not write whole", env->path,
               (unsigned long long)(last - durable), (unsigned long long)durable + 1, (unsigned long long)last);
    return rc;
}

/* Logged commits (design 4), while the open lock is held. A first process
 * replays what an earlier run logged but did not fold, which turns logging
 * on for every process. Otherwise nothing happens here: the first write
 * transaction that would log turns it on (vseg_writer_begin), and every
 * process maps the segment when it next begins a transaction. */
static int open_logging(cs_env *env, const cs_options *o, bool first)
{
    if (env->flags & CS_ENV_IN_MEMORY) return CS_OK;
    bool rdonly = env->flags & CS_ENV_RDONLY;
    env->vol_want = (o->flags & CS_ENV_LOG_SMALL) && o->durability == CS_DURABLE_FULL && !rdonly;
    if (!first || !redo_has_bytes(env->path)) return CS_OK;
    uint64_t durable = env->lock.hdr->durable_txnid, last = durable, end = 0;
    int rc = redo_open(&env->redo, env->path, true, &env->io);
    if (rc == CS_NOTFOUND) return CS_OK;
    if (rc == CS_OK) rc = redo_scan(&env->redo, durable, NULL, NULL, &end, &last);
    if (rc || last == durable) {
        redo_close(&env->redo);
        return rc;
    }
    if (!rdonly) {
        redo_close(&env->redo); /* writers append after the replayed records */
        if ((rc = redo_open(&env->redo, env->path, false, &env->io))) return rc;
    }
    if ((rc = vseg_start(env))) return rc;
    rc = replay_log(env, durable, last, end);
    if (rdonly) redo_close(&env->redo); /* a reader never appends */
    return rc;
}

int cs_env_open(const char *path, const cs_options *opts, cs_env **out)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return cs_fail(CS_EFORMAT, "big-endian hosts are not supported");
#endif
    cs_options o = opts ? *opts : (cs_options){0};
    if (!path || !out || (o.flags & ~(CS_ENV_RDONLY | CS_ENV_IN_MEMORY | CS_ENV_TWO_FLUSH | CS_ENV_NORDAHEAD | CS_ENV_LOG_SMALL)) ||
        (unsigned)o.durability > CS_DURABLE_NO_SYNC || o.auto_shrink > 1 || (unsigned)o.log_level > CS_LOG_ALL ||
        (o.page_size && (o.page_size < CS_MIN_PAGE_SIZE || o.page_size > CS_MAX_PAGE_SIZE || (o.page_size & (o.page_size - 1)))))
        return cs_fail(CS_EINVAL, "cs_env_open: bad arguments (path, flags, durability or page size)");
    cs_env *env = calloc(1, sizeof *env);
    if (!env) return cs_fail(CS_ENOMEM, "env");
    env->fd = -1;
    env->lock.fd = -1;
    env->redo.fd = -1;
    env->vseg.fd = -1;
    env->path = strdup(path);
    env->flags = o.flags;
    env->durability = o.durability;
    env->auto_shrink = o.auto_shrink == 1;
    io_init_hooks(env, o.io);
    env->commit_hook = o.commit_hook;
    env->commit_hook_ctx = o.commit_hook_ctx;
    env->log.fn = o.log;
    env->log.ctx = o.log_ctx;
    atomic_store(&env->log.level, (uint32_t)o.log_level);
    env->pid = getpid();
    pthread_mutex_init(&env->mu, NULL);
    bool first = false, locked = false;
    cs_meta meta;
    uint32_t meta_slot = 0;
    uint8_t delta[CS_META_TAIL];
    int rc = env->path ? CS_OK : cs_fail(CS_ENOMEM, "path");
    /* The metas are asked for before the lock file is rebuilt, so that on a
     * cold page cache the disk reads them (those two pages alone) meanwhile.
     * The descriptor serves the hint alone: the open that counts is made
     * under the open lock. */
    if (rc == CS_OK && !(o.flags & CS_ENV_IN_MEMORY)) {
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* never waits on a FIFO */
        if (fd >= 0) {
            io_willneed(fd, 0, 2 * CS_DEFAULT_PAGE_SIZE);
            close(fd);
        }
    }
    if (rc == CS_OK) rc = lock_open(&env->lock, path, o.file_mode ? o.file_mode : 0644, o.max_readers,
                                    o.flags & CS_ENV_IN_MEMORY, &first);
    locked = rc == CS_OK;
    if (rc == CS_OK) rc = open_data(env, &o, &meta, &meta_slot, delta);
    if (rc == CS_OK) {
        env->psize_shift = (uint32_t)__builtin_ctz(env->psize);
        if (first) rc = lock_init_header(&env->lock, &meta, delta, meta_slot);
        else lock_clear_dead(&env->lock);
        /* Only the first process reads the metas as the truth: then no
         * writer can be mid-commit, and a newer meta means a crash. */
        if (first && env->newest_meta_seen > meta.txnid) atomic_store(&env->recovered, meta.txnid);
        if (rc == CS_OK) rc = open_logging(env, &o, first);
    }
    if (locked) {
        int rc2 = lock_open_done(&env->lock, first && rc == CS_OK);
        if (rc == CS_OK) rc = rc2;
    }
    if (rc == CS_OK) {
        const uint8_t *b;
        uint64_t pages;
        cs_meta cur;
        lock_read_meta(&env->lock, &cur);
        rc = io_map_for(env, cur.next_pgno > 2 ? cur.next_pgno : 2, &b, &pages);
        /* The first tree open descends the catalog: on a cold page cache its
         * root is on its way while the caller works until then. */
        if (rc == CS_OK && cur.catalog.root && cur.catalog.root < cur.next_pgno && !(env->flags & CS_ENV_IN_MEMORY))
            io_willneed(env->fd, cur.catalog.root << env->psize_shift, env->psize);
    }
    if (rc) {
        /* No lock is held here (lock_open_done released the open lock). */
        cs_log(&env->log, CS_LOG_ERROR, CS_LOG_TOPIC_ENV, "Cannot open %s: %s (%s)", path, cs_strerror(rc),
               cs_last_error_detail());
        atomic_store(&env->live_txns, 0);
        cs_env_close(env);
        return rc;
    }
    env->ready = true;
    if (log_on(&env->log, CS_LOG_DETAIL)) {
        cs_meta cur;
        lock_read_meta(&env->lock, &cur);
        cs_log(&env->log, CS_LOG_DETAIL, CS_LOG_TOPIC_ENV, "Opened %s%s%s: page size %u, %llu pages, newest txn %llu",
               path, env->flags & CS_ENV_IN_MEMORY ? " (in memory)" : "", env->flags & CS_ENV_RDONLY ? " (read-only)" : "",
               env->psize, (unsigned long long)cur.next_pgno, (unsigned long long)cur.txnid);
    }
    txn_log_pending(env); /* dead readers cleared while opening */
    *out = env;
    return CS_OK;
}

int cs_env_set_log_level(cs_env *env, cs_log_level level)
{
    if (!env || (unsigned)level > CS_LOG_ALL) return cs_fail(CS_EINVAL, "cs_env_set_log_level: NULL env or bad level");
    atomic_store_explicit(&env->log.level, (uint32_t)level, memory_order_relaxed);
    return CS_OK;
}

int cs_env_close(cs_env *env)
{
    if (!env) return cs_fail(CS_EINVAL, "cs_env_close: NULL env");
    if (atomic_load(&env->live_txns))
        return cs_fail(CS_EINVAL, "cs_env_close: %d transactions are still open", atomic_load(&env->live_txns));
    /* Deferred commits of any process become durable before we go. */
    if (env->ready && !(env->flags & (CS_ENV_RDONLY | CS_ENV_IN_MEMORY))) {
        bool flushed;
        commit_flush_deferred(env, &flushed);
    }
    if (env->ready) cs_log(&env->log, CS_LOG_DETAIL, CS_LOG_TOPIC_ENV, "Closed %s", env->path);
    if (env->vol_on) {
        /* The last process takes the segment with it; the log's records
         * are all folded by now (commit_flush_deferred). */
        bool last = env->ready && lock_close_last(&env->lock);
        cs_meta pm;
        lock_read_meta(&env->lock, &pm);
        const vseg_state *st = vseg_state_of(&env->vseg, pm.txnid);
        bool folded = st && !st->logged && st->epoch == env->lock.hdr->durable_txnid;
        vseg_close(&env->vseg);
        if (last) {
            vseg_unlink(env->vseg_name);
            /* Only once everything logged is in the file (a failed fold
             * leaves the records for the next open to replay). An empty
             * log is left alone: truncating it still changes its inode, a
             * metadata write for the file system's journal. */
            struct stat ls;
            if (folded && env->redo.fd >= 0 && fstat(env->redo.fd, &ls) == 0 && ls.st_size > 0 &&
                ftruncate(env->redo.fd, 0) != 0) { /* a stale log is harmless */ }
        }
        redo_close(&env->redo);
    } else if (env->ready && !(env->flags & CS_ENV_IN_MEMORY) && lock_close_last(&env->lock) &&
               atomic_load(&env->lock.hdr->vol_on)) {
        /* Logging was turned on by a process that closed before us, and
         * we never began a transaction since: the last process removes the
         * segment, mapped or not. Anything not folded stays in the log for
         * the next open to replay. */
        vseg_remove(env);
    }
    io_release(env);
    if (env->fd >= 0) close(env->fd);
    lock_close(&env->lock);
    tree_names_free(env);
    freelist_free(&env->fl);
    freelist_free(&env->fl_base);
    free(env->stage);
    free(env->reloc_key);
    free(env->path);
    pthread_mutex_destroy(&env->mu);
    free(env);
    return CS_OK;
}

int cs_env_sync(cs_env *env)
{
    if (!env) return cs_fail(CS_EINVAL, "cs_env_sync: NULL env");
    if (env->flags & CS_ENV_RDONLY) return CS_OK;
    bool flushed;
    int rc = commit_flush_deferred(env, &flushed);
    if (rc == CS_OK && !flushed) rc = io_sync(env);
    return rc;
}

int cs_env_last_txnid(cs_env *env, uint64_t *out)
{
    if (!env || !out) return cs_fail(CS_EINVAL, "cs_env_last_txnid: NULL argument");
    cs_meta m;
    lock_read_meta(&env->lock, &m);
    *out = m.txnid;
    return CS_OK;
}

int cs_env_commit_seq(cs_env *env, uint64_t *seq)
{
    if (!env || !seq) return cs_fail(CS_EINVAL, "cs_env_commit_seq: NULL argument");
    *seq = lock_publish_seq(&env->lock);
    return CS_OK;
}

int cs_env_wait_commit(cs_env *env, uint64_t *seq, uint32_t timeout_ms)
{
    if (!env || !seq) return cs_fail(CS_EINVAL, "cs_env_wait_commit: NULL argument");
    if (!lock_wait_publish(&env->lock, *seq, timeout_ms)) return CS_NOTFOUND;
    *seq = lock_publish_seq(&env->lock);
    return CS_OK;
}

int cs_env_wake_waiters(cs_env *env)
{
    if (!env) return cs_fail(CS_EINVAL, "cs_env_wake_waiters: NULL env");
    lock_wake_waiters(&env->lock);
    return CS_OK;
}

int cs_reader_check(cs_env *env, uint32_t *cleared)
{
    if (!env) return cs_fail(CS_EINVAL, "cs_reader_check: NULL env");
    uint32_t n = lock_clear_dead(&env->lock);
    if (cleared) *cleared = n;
    txn_log_pending(env);
    return CS_OK;
}

int cs_env_active_versions(cs_env *env, uint32_t *out)
{
    if (!env || !out) return cs_fail(CS_EINVAL, "cs_env_active_versions: NULL argument");
    cs_meta m;
    lock_read_meta(&env->lock, &m);
    *out = lock_active_versions(&env->lock, m.txnid);
    return CS_OK;
}

int cs_env_shared(cs_env *env, int *others)
{
    if (!env || !others) return cs_fail(CS_EINVAL, "cs_env_shared: NULL argument");
    *others = lock_shared_with_others(&env->lock);
    return CS_OK;
}

int cs_env_readers(cs_env *env, cs_reader_fn fn, void *ctx)
{
    if (!env || !fn) return cs_fail(CS_EINVAL, "cs_env_readers: NULL argument");
    cs_meta m;
    lock_read_meta(&env->lock, &m);
    lock_oldest_reader(&env->lock, m.txnid, NULL); /* drops dead processes' slots */
    return lock_each_reader(&env->lock, fn, ctx);
}

int cs_env_get_info(cs_env *env, cs_env_info *out)
{
    if (!env || !out) return cs_fail(CS_EINVAL, "cs_env_get_info: NULL argument");
    cs_txn *t;
    int rc, tries = 0;
again:
    memset(out, 0, sizeof *out);
    rc = cs_txn_begin(env, CS_TXN_RDONLY, &t);
    if (rc == CS_EREADERS) {
        /* No slot to pin a snapshot: report what needs none. */
        cs_meta m;
        lock_read_meta(&env->lock, &m);
        out->page_size = env->psize;
        out->last_txnid = m.txnid;
        out->next_pgno = m.next_pgno;
        out->max_readers = env->lock.max_readers;
        out->oldest_reader = lock_oldest_reader(&env->lock, m.txnid, &out->readers_used);
        struct stat st;
        out->file_size = fstat(env->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
        return CS_OK;
    }
    if (rc) return rc;
    /* Our own snapshot must not count as a reader holding space. */
    uint64_t mine = atomic_exchange(&t->slot->txnid, 0);
    out->oldest_reader = lock_oldest_reader(&env->lock, t->meta.txnid, &out->readers_used);
    atomic_store(&t->slot->txnid, mine);
    out->page_size = env->psize;
    out->last_txnid = t->meta.txnid;
    out->next_pgno = t->meta.next_pgno;
    out->max_readers = env->lock.max_readers;
    struct stat st;
    out->file_size = fstat(env->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    {
        cs_freelist fl;
        rc = txn_snapshot_freelist(t, &fl);
        /* A delta keeps the base's groups as they were when the base was
         * written: count those no reader needs any more as free. */
        uint64_t limit = env->lock.hdr->durable_txnid - 1;
        if (out->oldest_reader && out->oldest_reader < limit) limit = out->oldest_reader;
        if (rc == CS_OK) {
            rc = freelist_release(&fl, limit);
            out->free_pages = extvec_pages(&fl.free);
            for (size_t i = 0; i < fl.ngroups; i++) out->pending_pages += extvec_pages(&fl.groups[i].ext);
            freelist_free(&fl);
        }
    }
    cs_txn_commit(t);
    if (rc == CS_EBUSY && ++tries < 1000) goto again; /* newer commits replaced the snapshot's delta */
    return rc;
}
