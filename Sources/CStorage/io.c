/*
 * io.c — the data file: writes, flushes and growth through the I/O hooks,
 * the read-only mappings, and the pool of one-page buffers.
 *
 * The data file is mapped read-only and only ever written with the I/O
 * hooks (pwrite by default), so a stray pointer cannot damage it and tests
 * can fault-inject every write. The map reserves address space beyond the
 * file; when the file outgrows it a larger mapping is made and the old one
 * kept until close, so growth never invalidates a reader's pointers.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_MAP_RESERVE (1ull << 30)
#define MAX_POOL_PAGES 4096

static int default_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    CS_UNUSED(ctx);
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int default_sync(void *ctx, int fd)
{
    CS_UNUSED(ctx);
    return fdatasync(fd) == 0 ? 0 : errno;
}

static int default_grow(void *ctx, int fd, uint64_t size)
{
    CS_UNUSED(ctx);
    int e = posix_fallocate(fd, 0, (off_t)size);
    if (e == EOPNOTSUPP || e == EINVAL) e = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
    return e;
}

static int io_error(int e, const char *what)
{
    if (e == ENOSPC || e == EDQUOT || e == EFBIG)
        return cs_fail(CS_ENOSPACE, "%s: %s (nothing was committed; free space and retry)", what, strerror(e));
    return cs_fail(CS_EIO, "%s: %s", what, strerror(e));
}

int io_write(cs_env *env, const void *buf, size_t len, uint64_t off)
{
    int e = env->io.write(env->io.ctx, env->fd, buf, len, off);
    return e ? io_error(e, "write") : CS_OK;
}

void io_willneed(int fd, uint64_t off, uint64_t len)
{
    (void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
}

int io_sync(cs_env *env)
{
    int e = env->io.sync(env->io.ctx, env->fd);
    return e ? io_error(e, "flush") : CS_OK;
}

/* Grow in chunks so that a flush rarely has to commit a size change. The
 * room past the last used page is allocated disk (posix_fallocate), so a
 * chunk is kept to about 3% of the file: a flat 1 MiB floor was a fifth
 * of a 5 MiB file, and 1/16 of a large one tens of MiB nobody uses. */
static uint64_t grow_chunk(uint64_t size)
{
    uint64_t chunk = size / 32;
    if (chunk < (64u << 10)) chunk = 64u << 10;
    if (chunk > (16u << 20)) chunk = 16u << 20;
    /* A multiple of 64 KiB, so of every page size: the file stays whole pages. */
    return chunk & ~(uint64_t)0xffff;
}

int io_grow_file(cs_env *env, uint64_t need)
{
    /* The size, not this process's memory of it: another process may have
     * shrunk the file (I13). Growth must precede the meta that needs it. */
    struct stat st;
    if (fstat(env->fd, &st) == 0) env->file_size = (uint64_t)st.st_size;
    if (need <= env->file_size) return CS_OK;
    uint64_t chunk = grow_chunk(env->file_size);
    uint64_t size = (need + chunk - 1) / chunk * chunk;
    int e = env->io.grow(env->io.ctx, env->fd, size);
    if (e) return io_error(e, "growing the file");
    env->file_size = size;
    return CS_OK;
}

/* The mappings stay: reserve past the end of the file is normal (io_map_for
 * maps more than the file), and no snapshot reaches the cut pages, so no
 * reader of any process touches them (a touch would fault). A later growth
 * makes them readable again through the same mappings. */
void io_shrink_file(cs_env *env, uint64_t keep)
{
    struct stat st;
    if (env->fd < 0 || fstat(env->fd, &st) != 0) return;
    uint64_t size = (uint64_t)st.st_size, chunk = grow_chunk(keep);
    uint64_t target = (keep + chunk - 1) / chunk * chunk;
    if (size < target + 2 * chunk) return; /* not worth a truncation: hysteresis */
    if (ftruncate(env->fd, (off_t)target) == 0) env->file_size = target;
}

int io_map_for(cs_env *env, uint64_t next_pgno, const uint8_t **base, uint64_t *pages)
{
    uint64_t need = next_pgno << env->psize_shift;
    cs_mapping *m = atomic_load(&env->map);
    if (CS_UNLIKELY(!m || m->size < need)) {
        pthread_mutex_lock(&env->mu);
        m = atomic_load(&env->map);
        if (!m || m->size < need) {
            uint64_t size = m ? m->size : MIN_MAP_RESERVE;
            while (size < need * 2) size *= 2;
            cs_mapping *nm = malloc(sizeof *nm);
            void *p = nm ? mmap(NULL, size, PROT_READ, MAP_SHARED, env->fd, 0) : MAP_FAILED;
            if (p == MAP_FAILED) {
                int e = errno;
                free(nm);
                pthread_mutex_unlock(&env->mu);
                return cs_fail(CS_ENOMEM, "cannot map %llu bytes: %s", (unsigned long long)size, strerror(e));
            }
            if (env->flags & CS_ENV_NORDAHEAD) (void)madvise(p, size, MADV_RANDOM); /* advisory */
            nm->base = p;
            nm->size = size;
            nm->next = m;
            atomic_store(&env->map, nm);
            m = nm;
        }
        pthread_mutex_unlock(&env->mu);
    }
    *base = m->base;
    *pages = m->size >> env->psize_shift;
    return CS_OK;
}

uint8_t *io_page_buf(cs_env *env)
{
    if (env->npool) return env->page_pool[--env->npool];
    return malloc(env->psize);
}

void io_page_buf_put(cs_env *env, uint8_t *p)
{
    if (env->npool == env->cap_pool && env->cap_pool < MAX_POOL_PAGES) {
        size_t cap = env->cap_pool ? env->cap_pool * 2 : 64;
        uint8_t **np = realloc(env->page_pool, cap * sizeof *np);
        if (np) {
            env->page_pool = np;
            env->cap_pool = cap;
        }
    }
    if (env->npool < env->cap_pool) env->page_pool[env->npool++] = p;
    else free(p);
}

void io_init_hooks(cs_env *env, const cs_io_hooks *user)
{
    env->io = (cs_io_hooks){.write = default_write, .sync = default_sync, .grow = default_grow};
    if (!user) return;
    env->io.ctx = user->ctx;
    if (user->write) env->io.write = user->write;
    if (user->sync) env->io.sync = user->sync;
    if (user->grow) env->io.grow = user->grow;
}

void io_release(cs_env *env)
{
    for (cs_mapping *m = atomic_load(&env->map), *n; m; m = n) {
        n = m->next;
        munmap(m->base, m->size);
        free(m);
    }
    atomic_store(&env->map, NULL);
    for (size_t i = 0; i < env->npool; i++) free(env->page_pool[i]);
    free(env->page_pool);
    env->page_pool = NULL;
    env->npool = env->cap_pool = 0;
}

char *path_with(const char *path, const char *suffix)
{
    size_t a = strlen(path), b = strlen(suffix);
    char *s = malloc(a + b + 1);
    if (s) {
        memcpy(s, path, a);
        memcpy(s + a, suffix, b + 1);
    }
    return s;
}
