/*
 * vpage.c — volatile pages: the shared-memory segment that holds the pages
 * of small commits until a fold writes them into the data file
 * (docs/COMMIT_IO.md, design 4; format.h VOLATILE PAGES).
 *
 * Why shared memory and not a file beside the database: the pages are a
 * cache of what the redo log already made durable. A file's dirty pages
 * would be written back to the disk by the kernel, which is the wear this
 * design exists to avoid; a POSIX shared-memory object lives in RAM, and
 * every process with the database open maps the same one, so readers of
 * any process find a volatile page by its number as they find a file page.
 *
 * The segment holds no durable state: the process that turns logging on
 * empties it, and a power cut loses it, which the redo log makes good.
 *
 * Why logging turns on at the first write and not at the open: an open
 * that only reads would pay for the segment (its shared-memory object,
 * mapping and removal) and for the log's open, a tenth of a cold open, for
 * nothing. So the lock header's vol_on starts at 0 unless the log holds
 * records to replay, the first write transaction that would log sets it,
 * and every process maps the segment when it next begins a transaction.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pages the header takes at the front of the segment. */
static uint64_t hdr_pages(uint32_t psize)
{
    return (sizeof(cs_vseg_hdr) + psize - 1) / psize;
}

static int vseg_error(int e, const char *what)
{
    return cs_fail(e == ENOSPC || e == ENOMEM ? CS_ENOSPACE : CS_EIO,
                   "volatile page segment: %s: %s (free shared memory, /dev/shm, or open without small-commit logging)",
                   what, strerror(e));
}

void vseg_name(dev_t dev, ino_t ino, char out[VSEG_NAME_MAX])
{
    snprintf(out, VSEG_NAME_MAX, "/cstorage.%llx.%llx", (unsigned long long)dev, (unsigned long long)ino);
}

int vseg_open(cs_vseg *s, const char *name, uint32_t psize, uint64_t max_pages, bool first)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    if (max_pages <= hdr_pages(psize)) return cs_fail(CS_EINVAL, "volatile page segment of %llu pages", (unsigned long long)max_pages);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return vseg_error(errno, "open");
    int rc = CS_OK;
    uint64_t hp = hdr_pages(psize);
    size_t span = (size_t)(max_pages * psize);
    if (first && ftruncate(fd, 0) != 0) rc = vseg_error(errno, "empty");
    if (rc == CS_OK && first && ftruncate(fd, (off_t)(hp * psize)) != 0) rc = vseg_error(errno, "size");
    void *m = MAP_FAILED;
    if (rc == CS_OK) {
        m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) rc = vseg_error(errno, "map");
    }
    if (rc) {
        close(fd);
        return rc;
    }
    s->fd = fd;
    s->base = m;
    s->span_pages = max_pages;
    s->psize = psize;
    s->hdr = m;
    if (first) {
        /* Emptied and resized above, so zero: no memset, which would fault
         * in every page of the header (the pending table) at each open. */
        s->hdr->magic = VSEG_MAGIC;
        s->hdr->version = VSEG_VERSION;
        s->hdr->psize = psize;
        s->hdr->first_page = hp;
        atomic_store(&s->hdr->size_pages, hp);
    } else {
        struct stat st;
        if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < hp * psize || s->hdr->magic != VSEG_MAGIC ||
            s->hdr->version != VSEG_VERSION || s->hdr->psize != psize) {
            vseg_close(s);
            return cs_fail(CS_ELOCK, "volatile page segment %s does not match this database (another build, or "
                                     "damaged): close every process that has it open", name);
        }
    }
    return CS_OK;
}

void vseg_close(cs_vseg *s)
{
    if (s->base) munmap(s->base, (size_t)(s->span_pages * s->psize));
    if (s->fd >= 0) close(s->fd);
    s->base = NULL;
    s->hdr = NULL;
    s->fd = -1;
}

void vseg_unlink(const char *name)
{
    shm_unlink(name);
}

const uint8_t *vseg_page(const cs_vseg *s, uint64_t pgno, uint64_t npages)
{
    if (!s->hdr || pgno < VPAGE_BASE) return NULL;
    uint64_t i = pgno - VPAGE_BASE, size = atomic_load_explicit(&s->hdr->size_pages, memory_order_acquire);
    if (i < s->hdr->first_page || i >= size || npages > size - i) return NULL;
    return s->base + i * s->psize;
}

int vseg_grow(cs_vseg *s, uint64_t pages)
{
    if (pages > s->span_pages) return cs_fail(CS_ENOSPACE, "volatile page segment full (%llu pages)", (unsigned long long)s->span_pages);
    uint64_t size = atomic_load(&s->hdr->size_pages);
    if (pages <= size) return CS_OK;
    /* Grow in steps: each resize is a call into the kernel. */
    uint64_t step = size < 64 ? 64 : size;
    uint64_t want = size + step < pages ? pages : size + step;
    if (want > s->span_pages) want = s->span_pages;
    if (ftruncate(s->fd, (off_t)(want * s->psize)) != 0) return vseg_error(errno, "grow");
    atomic_store_explicit(&s->hdr->size_pages, want, memory_order_release);
    return CS_OK;
}

int vseg_put(cs_vseg *s, uint64_t pgno, const uint8_t *pages, uint64_t npages)
{
    if (pgno < VPAGE_BASE || pgno - VPAGE_BASE < s->hdr->first_page)
        return cs_fail(CS_EINVAL, "page %llu is not a volatile page", (unsigned long long)pgno);
    int rc = vseg_grow(s, pgno - VPAGE_BASE + npages);
    if (rc) return rc;
    memcpy(s->base + (pgno - VPAGE_BASE) * s->psize, pages, (size_t)(npages * s->psize));
    return CS_OK;
}

const vseg_state *vseg_state_of(const cs_vseg *s, uint64_t txnid)
{
    const vseg_state *st = &s->hdr->state[txnid & 1];
    return st->txnid == txnid ? st : NULL;
}

void vseg_set_state(cs_vseg *s, const vseg_state *st)
{
    s->hdr->state[st->txnid & 1] = *st;
}

/* env->vseg_name from the data file's device and inode. CS_EIO. */
static int segment_name(cs_env *env)
{
    struct stat st;
    if (fstat(env->fd, &st) != 0) return cs_fail(CS_EIO, "stat: %s", strerror(errno));
    vseg_name(st.st_dev, st.st_ino, env->vseg_name);
    return CS_OK;
}

/* Map this env's segment; `first` empties it. The caller holds env->mu and
 * sets vol_on. */
static int map_segment(cs_env *env, bool first)
{
    int rc = segment_name(env);
    return rc ? rc : vseg_open(&env->vseg, env->vseg_name, env->psize, VSEG_SPAN_BYTES / env->psize, first);
}

void vseg_remove(cs_env *env)
{
    if (segment_name(env) == CS_OK) vseg_unlink(env->vseg_name);
}

int vseg_start(cs_env *env)
{
    pthread_mutex_lock(&env->mu);
    int rc = map_segment(env, true);
    if (rc == CS_OK) {
        /* No arena page exists yet, so no snapshot reaches one: the
         * published commit is clean, and the log follows the durable one. */
        cs_meta m;
        lock_read_meta(&env->lock, &m);
        vseg_state s0 = {.txnid = m.txnid,
                         .hwm = env->vseg.hdr->first_page,
                         .epoch = env->lock.hdr->durable_txnid,
                         .clean_txnid = m.txnid};
        vseg_set_state(&env->vseg, &s0);
        atomic_store_explicit(&env->vol_on, true, memory_order_release);
        atomic_store_explicit(&env->lock.hdr->vol_on, 1, memory_order_release);
    } else if (env->vseg_name[0]) {
        vseg_unlink(env->vseg_name); /* nobody else maps it: vol_on is 0 */
    }
    pthread_mutex_unlock(&env->mu);
    return rc;
}

int vseg_attach(cs_env *env)
{
    if (atomic_load_explicit(&env->vol_on, memory_order_acquire) ||
        !atomic_load_explicit(&env->lock.hdr->vol_on, memory_order_acquire))
        return CS_OK;
    pthread_mutex_lock(&env->mu);
    int rc = CS_OK;
    if (!atomic_load_explicit(&env->vol_on, memory_order_relaxed) && (rc = map_segment(env, false)) == CS_OK)
        atomic_store_explicit(&env->vol_on, true, memory_order_release);
    pthread_mutex_unlock(&env->mu);
    return rc;
}

int vseg_writer_begin(cs_env *env)
{
    int rc = vseg_attach(env);
    if (rc) return rc;
    if (!atomic_load_explicit(&env->vol_on, memory_order_relaxed) && env->vol_want && (rc = vseg_start(env))) {
        /* Commits written whole are as durable, only larger: better than
         * refusing every write for want of shared memory. */
        cs_log(&env->log, CS_LOG_WARN, CS_LOG_TOPIC_ENV, "%s: small commits are written whole: %s", env->path,
               cs_last_error_detail());
        env->vol_want = false;
        return CS_OK;
    }
    if (atomic_load_explicit(&env->vol_on, memory_order_relaxed) && !(env->flags & CS_ENV_RDONLY) && env->redo.fd < 0)
        rc = redo_open(&env->redo, env->path, false, &env->io);
    return rc;
}
