/*
 * lock.c — the lock file: writer mutex, reader table, published meta.
 *
 * Why a separate file: readers must announce their snapshot to writers in
 * other processes without a syscall, so the table lives in shared memory
 * backed by "<path>.lock". It holds no durable state: the first process to
 * open the database rebuilds it (see format.h for the byte-range locks that
 * decide who is first and which processes are alive).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ofd_lock(int fd, short type, uint64_t off, bool wait)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)off, .l_len = 1};
    for (;;) {
        if (fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) == 0) return 0;
        if (errno != EINTR) return errno;
    }
}

/* True if some process (other than through this open file) holds the
 * alive lock of pid. */
static bool pid_alive(int fd, uint32_t pid)
{
    if (fd < 0) return true;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET,
                       .l_start = (off_t)(CS_LOCK_PID_BASE + pid), .l_len = 1};
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return true; /* unsure: keep it */
    return fl.l_type != F_UNLCK;
}

/* Makes the lock file `size` bytes rounded up to whole memory pages, all
 * zeros (0, or an errno). An existing file is overwritten in place:
 * truncating it to nothing first would free its blocks (a journal
 * transaction, milliseconds on a busy disk) only to allocate them again as
 * lock_init_header writes through the map. Whole pages because a write
 * that covers part of a page not in the page cache first reads that page
 * from the disk: on a cold open that read was a round of its own. */
static int zero_lock_file(int fd, size_t size)
{
    static const uint8_t zeros[65536];
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size = (size + page - 1) / page * page;
    struct stat st;
    if (fstat(fd, &st) != 0) return errno;
    if ((size_t)st.st_size != size && ftruncate(fd, (off_t)size) != 0) return errno;
    for (size_t off = 0; off < size;) {
        size_t n = size - off < sizeof zeros ? size - off : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, (off_t)off);
        if (w < 0 && errno != EINTR) return errno;
        if (w == 0) return EIO;
        if (w > 0) off += (size_t)w;
    }
    return 0;
}

int lock_open(cs_lock *lk, const char *path, uint32_t mode, uint32_t max_readers, bool in_memory,
              bool *first)
{
    memset(lk, 0, sizeof *lk);
    lk->fd = -1;
    if (max_readers == 0) max_readers = 1024;
    if (in_memory) {
        lk->max_readers = max_readers;
        lk->size = LOCK_HDR_SIZE + (size_t)max_readers * sizeof(cs_reader_slot);
        void *m = mmap(NULL, lk->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return cs_fail(CS_ENOMEM, "lock region: %s", strerror(errno));
        lk->hdr = m;
        lk->slots = (cs_reader_slot *)(void *)((uint8_t *)m + LOCK_HDR_SIZE);
        *first = true;
        return CS_OK;
    }
    char *lpath = path_with(path, ".lock");
    if (!lpath) return cs_fail(CS_ENOMEM, "lock path");
    int e;
    for (;;) {
        lk->fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, mode);
        e = errno;
        if (lk->fd < 0) {
            int rc = cs_fail(CS_ELOCK, "cannot open lock file %s: %s", lpath, strerror(e));
            free(lpath);
            return rc;
        }
        /* Byte 0: serialise initialisation among processes. */
        if ((e = ofd_lock(lk->fd, F_WRLCK, 0, true)) != 0) {
            close(lk->fd);
            lk->fd = -1;
            free(lpath);
            return cs_fail(CS_ELOCK, "cannot lock the lock file: %s", strerror(e));
        }
        /* cs_env_remove unlinks the lock file while it holds byte 0: an
         * opener that waited on the old one must not be first on a file
         * that the next opener will not find. Only a lock file that is gone
         * or replaced means that; a check that cannot be made proceeds. */
        struct stat held, named;
        bool replaced = stat(lpath, &named) != 0 ? errno == ENOENT
                                                  : fstat(lk->fd, &held) == 0 &&
                                                        (held.st_ino != named.st_ino || held.st_dev != named.st_dev);
        if (!replaced) break;
        close(lk->fd);
    }
    free(lpath);
    /* Byte 1: exclusive only if nobody else has the env open. */
    *first = ofd_lock(lk->fd, F_WRLCK, 1, false) == 0;
    if (*first) {
        lk->max_readers = max_readers;
        lk->size = LOCK_HDR_SIZE + (size_t)max_readers * sizeof(cs_reader_slot);
        if ((e = zero_lock_file(lk->fd, lk->size)) != 0) {
            lock_close(lk);
            return cs_fail(e == ENOSPC ? CS_ENOSPACE : CS_ELOCK, "cannot size lock file: %s", strerror(e));
        }
    } else {
        if ((e = ofd_lock(lk->fd, F_RDLCK, 1, true)) != 0) {
            lock_close(lk);
            return cs_fail(CS_ELOCK, "cannot share the lock file: %s", strerror(e));
        }
        struct stat st;
        cs_lock_hdr probe;
        if (fstat(lk->fd, &st) != 0 || (size_t)st.st_size < LOCK_HDR_SIZE ||
            pread(lk->fd, &probe, sizeof probe, 0) != (ssize_t)sizeof probe || probe.magic != CS_LOCK_MAGIC ||
            probe.version != CS_LOCK_VERSION || probe.mutex_size != sizeof(pthread_mutex_t) ||
            (size_t)st.st_size < LOCK_HDR_SIZE + (size_t)probe.max_readers * sizeof(cs_reader_slot)) {
            lock_close(lk);
            return cs_fail(CS_ELOCK, "lock file is not valid for this build (another program or version has the database open?)");
        }
        lk->max_readers = probe.max_readers;
        lk->size = LOCK_HDR_SIZE + (size_t)probe.max_readers * sizeof(cs_reader_slot);
    }
    void *m = mmap(NULL, lk->size, PROT_READ | PROT_WRITE, MAP_SHARED, lk->fd, 0);
    if (m == MAP_FAILED) {
        e = errno;
        lock_close(lk);
        return cs_fail(CS_ELOCK, "cannot map lock file: %s", strerror(e));
    }
    lk->hdr = m;
    lk->slots = (cs_reader_slot *)(void *)((uint8_t *)m + LOCK_HDR_SIZE);
    return CS_OK;
}

int lock_init_header(cs_lock *lk, const cs_meta *meta, const uint8_t *delta, uint32_t meta_slot)
{
    cs_lock_hdr *h = lk->hdr;
    /* lock_open left the region zeroed (a fresh anonymous map, or the file
     * zeroed before it was mapped): no memset, which would fault in every
     * page of the reader table now. */
    h->magic = CS_LOCK_MAGIC;
    h->version = CS_LOCK_VERSION;
    h->max_readers = lk->max_readers;
    h->mutex_size = sizeof(pthread_mutex_t);
    h->meta[0] = *meta; /* meta_seq is 0 */
    if (meta_delta_len(meta)) memcpy(h->delta[0], delta, meta_delta_len(meta));
    h->durable_txnid = meta->txnid;
    h->durable_slot = meta_slot;
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a)) return cs_fail(CS_ELOCK, "mutex attributes");
    int rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (!rc) rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (!rc) rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    if (!rc) rc = pthread_mutex_init(&h->writer, &a);
    pthread_mutexattr_destroy(&a);
    if (rc) return cs_fail(CS_ELOCK, "cannot create the writer mutex: %s", strerror(rc));
    return CS_OK;
}

int lock_open_done(cs_lock *lk, bool first)
{
    if (lk->fd < 0) return CS_OK;
    int e = 0;
    if (first) e = ofd_lock(lk->fd, F_RDLCK, 1, false); /* downgrade */
    if (!e) e = ofd_lock(lk->fd, F_RDLCK, CS_LOCK_PID_BASE + (uint64_t)getpid(), false);
    ofd_lock(lk->fd, F_UNLCK, 0, false);
    if (e) return cs_fail(CS_ELOCK, "cannot take lock file locks: %s", strerror(e));
    return CS_OK;
}

bool lock_close_last(cs_lock *lk)
{
    if (lk->fd < 0) return true;
    /* Byte 0 first: no process is between opening and sharing byte 1. */
    if (ofd_lock(lk->fd, F_WRLCK, 0, true) != 0) return false;
    return ofd_lock(lk->fd, F_WRLCK, 1, false) == 0;
}

void lock_close(cs_lock *lk)
{
    if (lk->hdr) munmap(lk->hdr, lk->size);
    if (lk->fd >= 0) close(lk->fd); /* releases our OFD locks */
    lk->hdr = NULL;
    lk->fd = -1;
}

void lock_publish_meta(cs_lock *lk, const cs_meta *meta, const uint8_t *delta)
{
    /* Fill the copy readers are not using, then switch to it: a writer
     * killed in between leaves the current meta whole (with an odd/even
     * sequence lock it left the sequence odd and every reader spinning).
     * The fence orders the previous publish's store of meta_seq before our
     * bytes, as the odd store does in a classic sequence lock. */
    cs_lock_hdr *h = lk->hdr;
    uint64_t s = atomic_load_explicit(&h->meta_seq, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    memcpy((void *)&h->meta[(s + 1) & 1], meta, sizeof *meta);
    uint32_t dl = meta_delta_len(meta);
    if (dl) memcpy(h->delta[(s + 1) & 1], delta, dl);
    atomic_store_explicit(&h->meta_seq, s + 1, memory_order_release);
    /* A waiter registers before it reads meta_seq, so one that saw the old
     * value is counted here (seq_cst on both sides). */
    if (atomic_load(&h->commit_waiters)) lock_wake_waiters(lk);
}

/* The futex word: meta_seq's low 32 bits (little-endian: its first half).
 * The lock file is a shared mapping, so the futex is not private. */
static uint32_t *seq_word(cs_lock_hdr *h) { return (uint32_t *)(void *)&h->meta_seq; }

void lock_wake_waiters(cs_lock *lk)
{
    syscall(SYS_futex, seq_word(lk->hdr), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint64_t lock_publish_seq(const cs_lock *lk) { return atomic_load_explicit(&lk->hdr->meta_seq, memory_order_acquire); }

bool lock_wait_publish(cs_lock *lk, uint64_t seen, uint32_t timeout_ms)
{
    cs_lock_hdr *h = lk->hdr;
    atomic_fetch_add(&h->commit_waiters, 1);
    bool changed = atomic_load(&h->meta_seq) != seen;
    if (!changed) {
        struct timespec ts = {.tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L};
        /* Sleeps only while the low word still equals seen's; a publish in
         * between makes it return at once (EAGAIN). Spurious and signal
         * wakeups are fine: the caller looks and waits again. */
        syscall(SYS_futex, seq_word(h), FUTEX_WAIT, (uint32_t)seen, &ts, NULL, 0);
        changed = atomic_load(&h->meta_seq) != seen;
    }
    atomic_fetch_sub(&h->commit_waiters, 1);
    return changed;
}

void lock_read_meta(const cs_lock *lk, cs_meta *out)
{
    cs_lock_hdr *h = lk->hdr;
    for (;;) {
        uint64_t s1 = atomic_load_explicit(&h->meta_seq, memory_order_acquire);
        memcpy(out, (const void *)&h->meta[s1 & 1], sizeof *out);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&h->meta_seq, memory_order_relaxed) == s1) return;
    }
}

bool lock_read_delta(const cs_lock *lk, uint64_t txnid, uint8_t *out)
{
    cs_lock_hdr *h = lk->hdr;
    for (;;) {
        uint64_t s1 = atomic_load_explicit(&h->meta_seq, memory_order_acquire);
        cs_meta m;
        memcpy(&m, (const void *)&h->meta[s1 & 1], sizeof m);
        uint32_t dl = meta_delta_len(&m);
        if (dl > CS_META_TAIL) dl = 0; /* torn copy: the sequence check retries */
        memcpy(out, h->delta[s1 & 1], dl);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&h->meta_seq, memory_order_relaxed) == s1) return m.txnid == txnid;
    }
}

int lock_writer_acquire(cs_lock *lk, bool try_only, bool *owner_died)
{
    *owner_died = false;
    int rc = try_only ? pthread_mutex_trylock(&lk->hdr->writer) : pthread_mutex_lock(&lk->hdr->writer);
    if (rc == EOWNERDEAD) {
        /* The previous writer died mid-transaction: nothing it did is
         * visible (its meta was never published), so the lock is safe. */
        pthread_mutex_consistent(&lk->hdr->writer);
        *owner_died = true;
        return CS_OK;
    }
    if (rc == 0) return CS_OK;
    if (rc == EBUSY) return cs_fail(CS_EBUSY, "another thread or process holds the write transaction");
    if (rc == EDEADLK) return cs_fail(CS_EBUSY, "this thread already has a write transaction open on this database");
    return cs_fail(CS_ELOCK, "writer lock: %s", strerror(rc));
}

void lock_writer_release(cs_lock *lk) { pthread_mutex_unlock(&lk->hdr->writer); }

int lock_slot_acquire(cs_lock *lk, _Atomic uint32_t *hint, cs_reader_slot **out)
{
    uint32_t pid = (uint32_t)getpid();
    for (int pass = 0; pass < 2; pass++) {
        uint32_t n = lk->max_readers, start = atomic_load_explicit(hint, memory_order_relaxed) % n;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = (start + k) % n;
            cs_reader_slot *s = &lk->slots[i];
            uint32_t expect = 0;
            if (atomic_load_explicit(&s->pid, memory_order_relaxed) == 0 &&
                atomic_compare_exchange_strong(&s->pid, &expect, pid)) {
                uint32_t hwm = atomic_load(&lk->hdr->slots_hwm);
                while (hwm < i + 1 && !atomic_compare_exchange_weak(&lk->hdr->slots_hwm, &hwm, i + 1)) {}
                atomic_store_explicit(hint, i + 1, memory_order_relaxed);
                *out = s;
                return CS_OK;
            }
        }
        if (pass == 0 && lock_clear_dead(lk) == 0) break;
    }
    return cs_fail(CS_EREADERS, "all %u reader slots are in use: release old snapshots (frozen objects, "
                   "unresolved references) or raise max_readers", lk->max_readers);
}

void lock_slot_release(cs_reader_slot *slot)
{
    atomic_store(&slot->txnid, 0);
    atomic_store(&slot->pid, 0);
}

/* Clear a slot of a dead process (only if it still holds what we saw). */
static bool clear_slot(cs_reader_slot *s, uint32_t pid)
{
    atomic_store(&s->txnid, 0);
    uint32_t expect = pid;
    return atomic_compare_exchange_strong(&s->pid, &expect, 0);
}

static bool clear_if_dead(cs_lock *lk, cs_reader_slot *s, uint32_t pid, uint32_t me)
{
    if (pid == 0 || pid == me || pid_alive(lk->fd, pid)) return false;
    atomic_store(&s->txnid, 0);
    uint32_t expect = pid;
    return atomic_compare_exchange_strong(&s->pid, &expect, 0);
}

uint64_t lock_oldest_reader(cs_lock *lk, uint64_t latest, uint32_t *readers)
{
    uint32_t me = (uint32_t)getpid(), hwm = atomic_load(&lk->hdr->slots_hwm), n = 0;
    uint64_t oldest = 0;
    uint32_t dead_pid = 0, live_pid = 0; /* one-entry caches of liveness */
    for (uint32_t i = 0; i < hwm && i < lk->max_readers; i++) {
        cs_reader_slot *s = &lk->slots[i];
        uint64_t t = atomic_load(&s->txnid);
        if (t == 0) continue;
        uint32_t pid = atomic_load(&s->pid);
        if (t < latest && pid != me && pid != live_pid) {
            if ((pid == dead_pid && clear_slot(s, pid)) || clear_if_dead(lk, s, pid, me)) {
                dead_pid = pid;
                atomic_fetch_add_explicit(&lk->dead_cleared, 1, memory_order_relaxed);
                continue;
            }
            live_pid = pid;
        }
        n++;
        if (oldest == 0 || t < oldest) oldest = t;
    }
    if (readers) *readers = n;
    return oldest;
}

int lock_hold_opens(cs_lock *lk)
{
    if (lk->fd < 0) return CS_OK;
    int e = ofd_lock(lk->fd, F_WRLCK, 0, true);
    return e ? cs_fail(CS_ELOCK, "cannot lock the lock file: %s", strerror(e)) : CS_OK;
}

void lock_release_opens(cs_lock *lk)
{
    if (lk->fd >= 0) ofd_lock(lk->fd, F_UNLCK, 0, false);
}

int lock_claim_closed(const char *path, int *fd_out)
{
    *fd_out = -1;
    char *lpath = path_with(path, ".lock");
    if (!lpath) return cs_fail(CS_ENOMEM, "lock path");
    int fd = open(lpath, O_RDWR | O_CLOEXEC);
    int e = errno;
    free(lpath);
    if (fd < 0) return e == ENOENT ? CS_OK : cs_fail(CS_ELOCK, "cannot open the lock file of %s: %s", path, strerror(e));
    /* As an opener does: byte 0 waits out an open in progress, byte 1 is
     * shared by every process that has the database open. */
    if ((e = ofd_lock(fd, F_WRLCK, 0, true)) != 0) {
        close(fd);
        return cs_fail(CS_ELOCK, "cannot lock the lock file of %s: %s", path, strerror(e));
    }
    if (ofd_lock(fd, F_WRLCK, 1, false) != 0) {
        close(fd);
        return cs_fail(CS_EBUSY, "%s is open in a process: close it there first", path);
    }
    *fd_out = fd;
    return CS_OK;
}

bool lock_shared_with_others(const cs_lock *lk)
{
    if (lk->fd < 0) return false; /* in-memory: this process only */
    /* Every process holds a read lock on byte 1 while it has the env open;
     * OFD locks of this open file description never conflict with its own. */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1, .l_len = 1};
    if (fcntl(lk->fd, F_OFD_GETLK, &fl) != 0) return true; /* unsure: assume shared */
    return fl.l_type != F_UNLCK;
}

uint32_t lock_active_versions(cs_lock *lk, uint64_t latest)
{
    uint64_t seen[64];
    uint32_t nseen = 0, extra = 0, hwm = atomic_load(&lk->hdr->slots_hwm);
    lock_oldest_reader(lk, latest, NULL); /* drops dead processes' slots */
    for (uint32_t i = 0; i < hwm && i < lk->max_readers; i++) {
        uint64_t t = atomic_load(&lk->slots[i].txnid);
        if (t == 0) continue;
        bool dup = false;
        for (uint32_t j = 0; j < nseen && !dup; j++) dup = seen[j] == t;
        if (dup) continue;
        if (nseen < 64) seen[nseen++] = t;
        else extra++; /* past 64 distinct ids, duplicates count twice: an upper bound */
    }
    return nseen + extra;
}

int lock_each_reader(cs_lock *lk, int (*fn)(void *ctx, uint32_t pid, uint64_t txnid), void *ctx)
{
    uint32_t hwm = atomic_load(&lk->hdr->slots_hwm);
    for (uint32_t i = 0; i < hwm && i < lk->max_readers; i++) {
        uint64_t t = atomic_load(&lk->slots[i].txnid);
        uint32_t pid = atomic_load(&lk->slots[i].pid);
        if (t == 0 || pid == 0) continue;
        int rc = fn(ctx, pid, t);
        if (rc) return rc;
    }
    return 0;
}

uint32_t lock_clear_dead(cs_lock *lk)
{
    uint32_t me = (uint32_t)getpid(), hwm = atomic_load(&lk->hdr->slots_hwm), cleared = 0;
    for (uint32_t i = 0; i < hwm && i < lk->max_readers; i++) {
        cs_reader_slot *s = &lk->slots[i];
        if (clear_if_dead(lk, s, atomic_load(&s->pid), me)) cleared++;
    }
    if (cleared) atomic_fetch_add_explicit(&lk->dead_cleared, cleared, memory_order_relaxed);
    return cleared;
}
