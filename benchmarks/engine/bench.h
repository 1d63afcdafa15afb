/*
 * bench.h — engine-tier benchmark: shared types, the driver vtable, helpers.
 *
 * Every engine is reached through one `bench_driver`. A driver opens a
 * database in a directory, hands out one session per thread, and a session
 * runs one transaction at a time (begin / put / get / del / scan / commit).
 * Driver functions return BENCH_OK, BENCH_NOTFOUND (get/del only) or
 * BENCH_ERR after calling bench_fail() with the engine's message.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iocount.h"

enum { BENCH_OK = 0, BENCH_NOTFOUND = 1, BENCH_ERR = -1 };

typedef struct bench_db bench_db;     /* one open database (driver-defined) */
typedef struct bench_sess bench_sess; /* one thread's handle (driver-defined) */

typedef struct bench_val {
    const void *data;
    size_t size;
} bench_val;

/* Durability of every commit of a database, fixed at open. */
typedef enum { BENCH_NOSYNC = 0, BENCH_FULLSYNC = 1 } bench_sync;

/* Kinds of pages a commit writes, for engines whose hooks can tell. */
enum { BENCH_PAGE_META, BENCH_PAGE_BRANCH, BENCH_PAGE_LEAF, BENCH_PAGE_OVERFLOW, BENCH_PAGE_FREELIST,
       BENCH_PAGE_LOG, /* redo-log records (CStorage's logged commits), not pages */
       BENCH_PAGE_KINDS };

typedef struct bench_driver {
    const char *name;
    /* Engine version and the settings used, for the report. */
    const char *(*describe)(void);
    /* data_hint: bytes of keys+values the benchmark will store. */
    int (*open)(const char *dir, bench_sync sync, uint64_t data_hint, bench_db **out);
    int (*close)(bench_db *db);
    int (*session)(bench_db *db, bench_sess **out);
    void (*session_close)(bench_sess *s);
    int (*begin)(bench_sess *s, bool write);
    int (*commit)(bench_sess *s);
    int (*put)(bench_sess *s, const void *k, size_t kl, const void *v, size_t vl);
    /* val stays valid until the next call on the session. */
    int (*get)(bench_sess *s, const void *k, size_t kl, bench_val *val);
    int (*del)(bench_sess *s, const void *k, size_t kl);
    /* Visit every entry in key order (reverse: descending) in the open
     * transaction; *count = entries seen, *sum folds key and value bytes. */
    int (*scan)(bench_sess *s, bool reverse, uint64_t *count, uint64_t *sum);
    /* Pages the engine has in use (high-water mark), in bytes. */
    int (*used_bytes)(bench_db *db, uint64_t *out);
    /* Optional: tree shape ("depth 3, 120 branch + 9000 leaf pages"). */
    int (*shape)(bench_db *db, char *buf, size_t len);
    /* Optional: what the engine's own I/O hooks saw since open (bytes,
     * flushes), to check the process-level counts of iocount.h, and pages
     * written by kind (BENCH_PAGE_*). */
    void (*io_hooks)(bench_db *db, uint64_t *bytes, uint64_t *flushes, uint64_t pages[]);
} bench_driver;

extern const bench_driver driver_lmdb;
extern const bench_driver driver_sqlite;
#ifdef HAVE_CSTORAGE
extern const bench_driver driver_cstorage;
#endif

/* ---- util.c ---------------------------------------------------------- */
/* Record an error (printf-style); returns BENCH_ERR. Thread-safe. */
int bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *bench_error(void);
double now_sec(void);
/* Wall clock and the process's CPU time (all threads), in seconds. */
typedef struct bench_clock {
    double wall, cpu;
} bench_clock;
bench_clock clock_now(void);
void *xmalloc(size_t n);
/* Remove a directory tree (files one level deep are enough here). */
void rm_tree(const char *dir);
/* Sum of st_size / st_blocks*512 of the data files in dir (lock and shm
 * files excluded). */
void dir_bytes(const char *dir, uint64_t *size, uint64_t *alloc);
/* Machine description for the report (static buffers). */
const char *cpu_model(void);
const char *kernel_release(void);
const char *fs_type(const char *dir);
const char *compiler_version(void);
/* The 1/5/15-minute load averages, into buf. */
const char *load_average(char *buf, size_t len);

/* ---- workloads.c ----------------------------------------------------- */
typedef struct bench_cfg {
    uint64_t n;          /* entries                                         */
    uint32_t key_size;   /* bytes (decimal digits, zero-padded)             */
    uint32_t value_size; /* bytes                                           */
    uint32_t sync_ops;   /* fillsync transactions                           */
    uint32_t batch;      /* fillbatch transaction size                      */
    uint32_t rww_batch;  /* readwhilewriting: puts per writer txn           */
    uint64_t seed;
} bench_cfg;

/* One engine's state during a repetition. */
typedef struct bench_engine {
    const bench_driver *drv;
    char dir[4096];      /* this engine's scratch directory                  */
    bench_db *db;        /* the main database (fillrandom onwards)           */
    bench_sess *sess;
} bench_engine;

/* Result of one workload run on one engine. */
typedef struct bench_result {
    double ops;          /* operations performed                             */
    double secs;         /* wall time: what the rates are computed from      */
    double cpu_secs;     /* CPU time of the process over the same interval  */
    double value;        /* what the report shows: ops/s, or bytes           */
    uint64_t extra;      /* workload-specific (e.g. writer txns, disk bytes) */
    uint64_t extra2;
    char note[128];      /* e.g. the tree's shape after a size workload      */
    /* Durable-commit I/O workloads (io_commits > 0): entries in the db,
     * what the timed commits wrote, and that plus the close (SQLite's
     * final WAL checkpoint). */
    uint64_t io_entries, io_commits;
    iocount io, io_close;
} bench_result;

typedef struct workload {
    const char *name;
    const char *unit;    /* "ops/s" or "bytes"                               */
    bool lower_is_better;
    const char *what;    /* one-line description for the report             */
    const char *extra_name, *extra2_name; /* meaning of bench_result.extra* */
    bool needs_main;     /* runs on the main database made by fillrandom    */
    int (*run)(const bench_cfg *cfg, bench_engine *e, bench_result *r);
} workload;

extern const workload workloads[];
extern const size_t n_workloads;

/* Build the key/value data shared by every engine (call once). */
void data_init(const bench_cfg *cfg);
void data_free(void);

#endif
