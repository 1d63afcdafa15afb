/*
 * iocount.c — the counting wrappers of iocount.h.
 *
 * Each wrapper finds libc's function with dlsym(RTLD_NEXT) on first use.
 * Classifying a descriptor costs an fstat (and an fcntl for O_DSYNC) per
 * call, paid only while counting is on: a few hundred nanoseconds against
 * the milliseconds of the flush each durable commit waits for.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "iocount.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_bool enabled;
static _Atomic uint64_t n_bytes, n_writes, n_flushes;

void iocount_enable(bool on) { atomic_store(&enabled, on); }

static void read_proc_io(uint64_t *wchar, uint64_t *syscw)
{
    *wchar = *syscw = 0;
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return;
    char line[128];
    unsigned long long v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "wchar: %llu", &v) == 1)
            *wchar = v;
        else if (sscanf(line, "syscw: %llu", &v) == 1)
            *syscw = v;
    }
    fclose(f);
}

iocount iocount_now(void)
{
    iocount c = {atomic_load(&n_bytes), atomic_load(&n_writes), atomic_load(&n_flushes), 0, 0};
    read_proc_io(&c.proc_wchar, &c.proc_syscw);
    return c;
}

iocount iocount_diff(iocount b, iocount a)
{
    return (iocount){b.bytes - a.bytes, b.writes - a.writes, b.flushes - a.flushes,
                     b.proc_wchar - a.proc_wchar, b.proc_syscw - a.proc_syscw};
}

/* libc's own function; the wrappers cannot work without it. */
static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

#define REAL(type, name) \
    static type real_##name; \
    if (!real_##name) real_##name = (type)real(#name)

/* A write on fd: counted if it is a regular file; a synchronous
 * descriptor's write is also a flush. */
static void note_write(int fd, ssize_t n)
{
    if (!atomic_load_explicit(&enabled, memory_order_relaxed) || n < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    atomic_fetch_add_explicit(&n_bytes, (uint64_t)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_writes, 1, memory_order_relaxed);
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1 && (fl & (O_DSYNC | O_SYNC)))
        atomic_fetch_add_explicit(&n_flushes, 1, memory_order_relaxed);
}

static void note_flush(int rc)
{
    if (rc == 0 && atomic_load_explicit(&enabled, memory_order_relaxed))
        atomic_fetch_add_explicit(&n_flushes, 1, memory_order_relaxed);
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef ssize_t (*pwritev64_fn)(int, const struct iovec *, int, off64_t);
typedef ssize_t (*pwritev2_fn)(int, const struct iovec *, int, off_t, int);
typedef int (*fd_fn)(int);
typedef int (*msync_fn)(void *, size_t, int);
typedef int (*sfr_fn)(int, off64_t, off64_t, unsigned int);

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write_fn, write);
    ssize_t r = real_write(fd, buf, n);
    note_write(fd, r);
    return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite_fn, pwrite);
    ssize_t r = real_pwrite(fd, buf, n, off);
    note_write(fd, r);
    return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    REAL(pwrite64_fn, pwrite64);
    ssize_t r = real_pwrite64(fd, buf, n, off);
    note_write(fd, r);
    return r;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    REAL(writev_fn, writev);
    ssize_t r = real_writev(fd, iov, cnt);
    note_write(fd, r);
    return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    REAL(pwritev_fn, pwritev);
    ssize_t r = real_pwritev(fd, iov, cnt, off);
    note_write(fd, r);
    return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    REAL(pwritev64_fn, pwritev64);
    ssize_t r = real_pwritev64(fd, iov, cnt, off);
    note_write(fd, r);
    return r;
}

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
    REAL(pwritev2_fn, pwritev2);
    ssize_t r = real_pwritev2(fd, iov, cnt, off, flags);
    note_write(fd, r);
    return r;
}

int fsync(int fd)
{
    REAL(fd_fn, fsync);
    int r = real_fsync(fd);
    note_flush(r);
    return r;
}

int fdatasync(int fd)
{
    REAL(fd_fn, fdatasync);
    int r = real_fdatasync(fd);
    note_flush(r);
    return r;
}

int msync(void *addr, size_t len, int flags)
{
    REAL(msync_fn, msync);
    int r = real_msync(addr, len, flags);
    if (flags & MS_SYNC)
        note_flush(r);
    return r;
}

int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
    REAL(sfr_fn, sync_file_range);
    int r = real_sync_file_range(fd, off, n, flags);
    note_flush(r);
    return r;
}
