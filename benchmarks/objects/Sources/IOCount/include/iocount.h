/*
 * iocount.h — bytes written and flushes of this process, counted at the
 * libc boundary, for the benchmarks' "I/O per durable commit" rows.
 *
 * iocount.c defines pwrite, write, writev, fdatasync, fsync, msync, ... in
 * the benchmark executable. The dynamic linker binds every library's calls
 * (liblmdb, libsqlite3, and CStorage compiled into the binary) to these, so
 * each engine is counted the same way, whatever API it writes through; each
 * one forwards to libc's own function. Only writes to regular files count
 * (not pipes, sockets or eventfds), and only while counting is on.
 */
#ifndef IOCOUNT_H
#define IOCOUNT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct iocount {
    uint64_t bytes;   /* bytes passed to write calls on regular files           */
    uint64_t writes;  /* write calls (pwrite, write, writev, pwritev, ...)       */
    uint64_t flushes; /* fsync, fdatasync, msync(MS_SYNC), sync_file_range, and
                         writes to a descriptor opened O_SYNC/O_DSYNC (each such
                         write is a flush: LMDB writes its meta that way)       */
    uint64_t proc_wchar, proc_syscw; /* /proc/self/io: every write syscall of
                                        the process, any descriptor (a check) */
} iocount;

/* Turns counting on or off (off: the wrappers only forward). */
void iocount_enable(bool on);
/* The totals since the process started counting. */
iocount iocount_now(void);
/* b - a, field by field. */
iocount iocount_diff(iocount b, iocount a);

#endif
