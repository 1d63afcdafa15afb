/*
 * cstorage.h — public API of CStorage, RealmLite's storage engine.
 *
 * One database is one data file plus one lock file beside it ("<path>.lock").
 * It holds any number of named B+ trees mapping byte-string keys (memcmp
 * order) to byte-string values. Readers see a fixed snapshot and never lock;
 * one writer at a time (across threads and processes) commits with a
 * two-phase copy-on-write protocol. The on-disk format is drawn in
 * Sources/CStorage/format.h and explained in docs/FORMAT.md.
 *
 * Conventions
 *  - Every function that can fail returns an int: CS_OK (0) or a CS_E* code.
 *    cs_strerror() names the code; cs_last_error_detail() gives the detail of
 *    the last failure on the calling thread (which page, which limit...).
 *  - Ownership: handles returned through out-parameters (cs_env, cs_txn,
 *    cs_cursor) are owned by the caller until the matching close/commit/
 *    abort. Input buffers are borrowed for the duration of the call only.
 *  - Zero-copy reads: a cs_val filled by cs_get or a cursor points into the
 *    memory map. In a read transaction it stays valid until that transaction
 *    ends or is reset. In a write transaction it stays valid until the next
 *    modification in that transaction (put/del/drop/clear) or its end.
 *  - Threads: a cs_env is thread-safe. A cs_txn and its cursors are used by
 *    one thread at a time (they may move between threads if the caller
 *    serialises). A thread may hold any number of read transactions and at
 *    most one write transaction per environment.
 *  - Errors lists. Each call below lists the codes it returns and when.
 *    Every call on a txn also returns, before doing anything:
 *      CS_EINVAL    txn is NULL
 *      CS_EBADTXN   txn is reset (cs_txn_reset), or failed earlier (below)
 *      CS_EREADONLY a write call (put, del, drop, clear, cursor put/del) in
 *                   a read transaction
 *    and every call that names a tree handle:
 *      CS_EINVAL    the handle was never returned by cs_tree_open on this env
 *      CS_NOTFOUND  the tree does not exist in the txn's snapshot
 *      CS_ECORRUPT  its catalog entry is damaged
 *      CS_ENOMEM    first use of the handle in this txn (its descriptor)
 *    CS_ECORRUPT / CS_ETOODEEP from a read mean a damaged page on the path
 *    (the call reads no further; cs_check tells what is wrong).
 *  - Failed write transactions: a write call that fails with any code other
 *    than CS_NOTFOUND, CS_EXISTS, CS_EKEYSIZE, CS_EVALSIZE or CS_EINVAL may
 *    have left a tree half-changed, so it fails the txn: later calls return
 *    CS_EBADTXN and commit returns that first error and writes nothing.
 *    Only abort remains. The codes listed are safe to continue after.
 *  - Nothing reaches the file before commit: disk errors (CS_EIO,
 *    CS_ENOSPACE) come from commit and sync, never from put or del.
 */
#ifndef CSTORAGE_H
#define CSTORAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version -------------------------------------------------------------- */
#define CSTORAGE_VERSION_MAJOR 1
#define CSTORAGE_VERSION_MINOR 0
#define CSTORAGE_VERSION_PATCH 0
#define CSTORAGE_VERSION_STRING "1.0.0"
/* The data-file format this build writes. It also opens version-1 and
 * version-2 files (read as they are; the first commit marks the file
 * version 3, leaves become compact leaves as commits copy them, and metas
 * start carrying free-list deltas); a file of any other version gives
 * CS_EFORMAT, and older builds refuse version-3 files. Version-4 files are
 * read as they are too (their compact leaves store every suffix length),
 * and version-5 files (their compact leaves store every value length);
 * older builds refuse newer files, whose leaves may not.
 * format.h, CS_FORMAT_VERSION. */
#define CSTORAGE_FORMAT_VERSION 6

/* ---- Error codes --------------------------------------------------------- */
enum cs_error {
    CS_OK = 0,
    CS_NOTFOUND = 1,      /* key or tree does not exist (not a failure)       */
    CS_EXISTS = 2,        /* key exists and CS_NOOVERWRITE was given          */
    CS_EINVAL = 3,        /* bad argument: NULL handle, wrong flags, misuse   */
    CS_ECORRUPT = 4,      /* the file is damaged (bad checksum, bad page ...) */
    CS_EFORMAT = 5,       /* a CStorage file of another format version        */
    CS_EIO = 6,           /* an I/O call failed (see errno detail)            */
    CS_ENOSPACE = 7,      /* disk full: nothing was committed                 */
    CS_ENOMEM = 8,        /* out of memory                                    */
    CS_EBUSY = 9,         /* write lock held and CS_TXN_TRY was given, or this
                             thread already holds the write transaction       */
    CS_EKEYSIZE = 10,     /* key empty or longer than CS_MAX_KEY              */
    CS_EVALSIZE = 11,     /* value longer than CS_MAX_VALUE                   */
    CS_EREADERS = 12,     /* reader table full (too many open snapshots)      */
    CS_EREADONLY = 13,    /* write attempted in a read-only txn or env        */
    CS_EBADTXN = 14,      /* txn already failed/finished or of wrong kind     */
    CS_ELOCK = 15,        /* lock file could not be created or is invalid     */
    CS_EPANIC = 16,       /* a flush failed; the env must be reopened        */
    CS_ETOODEEP = 17,     /* tree deeper than CS_MAX_DEPTH (corrupt input)    */
    CS_ENOTDB = 18,       /* not a CStorage file: no valid meta page and no
                             magic, an empty file opened read-only, or not a
                             regular file                                     */
};

/* Static string naming an error code. Never NULL. */
const char *cs_strerror(int err);
/* Detail of the calling thread's last error (thread-local, never NULL). */
const char *cs_last_error_detail(void);

/* ---- Limits -------------------------------------------------------------- */
#define CS_MAX_KEY 1024u               /* bytes                              */
#define CS_MAX_VALUE 0x7fffffffu       /* bytes (2 GiB - 1)                  */
#define CS_MAX_TREE_NAME 255u          /* bytes                              */
#define CS_MAX_DEPTH 24                /* B+ tree levels                     */

/* ---- Environment --------------------------------------------------------- */
typedef struct cs_env cs_env;
typedef struct cs_txn cs_txn;
typedef struct cs_cursor cs_cursor;
typedef struct cs_filter cs_filter; /* defined with the value filters, below */
typedef uint32_t cs_tree;              /* named-tree handle, env-wide        */

typedef struct cs_val {
    const void *data;
    size_t size;
} cs_val;

/* Durability of a commit (see docs/FORMAT.md, "What each mode can lose"). */
typedef enum cs_durability {
    CS_DURABLE_FULL = 0,     /* flush data, write meta, flush meta. A crash or
                                power loss loses nothing that was committed.  */
    CS_DURABLE_NO_META_SYNC, /* meta not flushed: power loss can lose the last
                                commits, never corrupts. Process crash: safe.  */
    CS_DURABLE_NO_SYNC,      /* no flushes: a process crash loses nothing; a
                                power loss can lose commits and, if the device
                                reorders writes, damage the file.             */
} cs_durability;

/* Environment flags. */
#define CS_ENV_RDONLY 0x1u     /* open for reading; write txns fail           */
#define CS_ENV_IN_MEMORY 0x2u  /* no file: path is only a name; data lives in
                                  an anonymous memory file of this process    */
#define CS_ENV_TWO_FLUSH 0x4u  /* always flush data, then the meta (never the
                                  single-flush commit; see format.h)          */
#define CS_ENV_NORDAHEAD 0x8u  /* no kernel readahead on the map: a cold
                                  B+ tree lookup then reads its own pages,
                                  not megabytes around each; cold
                                  sequential scans fault page by page        */
#define CS_ENV_LOG_SMALL 0x10u /* log small durable commits: a commit of a
                                  few pages appends its entries to
                                  "<path>-log" and flushes that, its pages
                                  wait in shared memory ("/dev/shm") until
                                  a fold writes them (every so many
                                  commits, a big commit, cs_env_sync,
                                  cs_env_close). CS_DURABLE_FULL, file-backed
                                  envs only; the first process to open the
                                  file decides for all                       */

/* I/O hooks: every write and flush of the engine goes through these, so a
 * test can inject faults, record writes, or simulate power loss. Each
 * returns 0 or an errno value. NULL members fall back to the defaults
 * (pwrite / fdatasync / posix_fallocate). */
typedef struct cs_io_hooks {
    void *ctx;
    int (*write)(void *ctx, int fd, const void *buf, size_t len, uint64_t off);
    int (*sync)(void *ctx, int fd);
    int (*grow)(void *ctx, int fd, uint64_t new_size);
} cs_io_hooks;

/* Commit stages reported to cs_options.commit_hook (for crash tests). */
typedef enum cs_commit_stage {
    CS_STAGE_DATA_WRITTEN = 1, /* dirty pages written, not yet flushed       */
    CS_STAGE_DATA_SYNCED,      /* data flushed, meta not yet written         */
    CS_STAGE_META_WRITTEN,     /* meta written, not yet flushed              */
    CS_STAGE_DONE,             /* commit durable and published               */
} cs_commit_stage;

/* Engine log messages (cs_options.log). The levels are RealmSwift's
 * LogLevel, in the same order: a message is sent when its level is not
 * above the env's level (CS_LOG_OFF sends nothing). */
typedef enum cs_log_level {
    CS_LOG_OFF = 0,
    CS_LOG_FATAL,
    CS_LOG_ERROR,  /* a commit or an open failed                          */
    CS_LOG_WARN,   /* recovery: a commit left incomplete by a dead writer
                      or a crash                                           */
    CS_LOG_INFO,   /* compaction; readers of dead processes cleared       */
    CS_LOG_DETAIL, /* env open and close                                  */
    CS_LOG_DEBUG,  /* each commit: txn id, pages written, time; shrinking */
    CS_LOG_TRACE,
    CS_LOG_ALL,
} cs_log_level;

/* What a message is about. */
typedef enum cs_log_topic {
    CS_LOG_TOPIC_ENV = 0, /* the file: open, close, recovery, compaction, shrinking */
    CS_LOG_TOPIC_TXN,     /* write transactions and commits                       */
} cs_log_topic;

/* Receives one message. message is valid only during the call (copy it to
 * keep it). Called on the thread doing the operation, never while the
 * engine holds the writer mutex, the open lock or an internal mutex, so
 * the function may use the engine (other envs, or this env's public calls)
 * without deadlocking; it must not close the env it is told about. It may
 * run on several threads at once. */
typedef void (*cs_log_fn)(void *ctx, cs_log_level level, cs_log_topic topic, const char *message);

typedef struct cs_options {
    uint32_t flags;              /* CS_ENV_*                                  */
    uint32_t page_size;          /* 0 = 4096; power of two 4096..32768; used
                                    only when the file is created             */
    cs_durability durability;
    uint32_t max_readers;        /* 0 = 1024; fixed when the lock file is
                                    created by the first process              */
    uint32_t file_mode;          /* 0 = 0644                                  */
    const cs_io_hooks *io;       /* NULL = default I/O; copied at open        */
    void (*commit_hook)(void *ctx, cs_commit_stage stage, uint64_t txnid);
    void *commit_hook_ctx;
    uint32_t auto_shrink;        /* 1 = ordinary commits give the file back
                                    to the OS after large deletes: they move
                                    a few live pages from the end of the file
                                    into free pages lower down, and truncate
                                    free pages at the end once no reader's
                                    snapshot and no fallback meta can reach
                                    them (docs/FORMAT.md "Shrinking", I13).
                                    0 = the file only grows (cs_env_compact
                                    shrinks it). Per process: processes may
                                    differ. Other values: CS_EINVAL at open */
    cs_log_fn log;               /* NULL = no messages; copied at open        */
    void *log_ctx;               /* passed to log; owned by the caller, it
                                    must outlive the env                      */
    cs_log_level log_level;      /* messages above it are not even formatted;
                                    change it with cs_env_set_log_level.
                                    Above CS_LOG_ALL: CS_EINVAL at open       */
} cs_options;

/* Open (creating if missing) the database at path. opts may be NULL.
 * On success *out is a new env owned by the caller (cs_env_close); path and
 * opts are copied. Errors: CS_EINVAL bad flags, durability or page size;
 * CS_NOTFOUND no such file (CS_ENV_RDONLY) or directory; CS_ENOTDB not a
 * CStorage file (or empty and CS_ENV_RDONLY); CS_EFORMAT a CStorage file of
 * another format version; CS_ECORRUPT both metas damaged, the file is
 * shorter than its newest commit, or a redo-log record whose checksum holds
 * does not apply to the file; CS_ELOCK lock file, or a page segment of
 * another build or page size (close every process that has the file open);
 * CS_EBUSY (CS_ENV_RDONLY, first process) more logged commits wait in the
 * redo log than the page segment holds (a read-only first open replays
 * them into the segment, writing nothing; so many must be written whole):
 * open it writable once; CS_EIO, CS_ENOSPACE (also: no
 * shared memory for the page segment), CS_ENOMEM. The first process to open rebuilds the lock file as whole
 * memory pages (no disk read); the open then asks the kernel to read the
 * catalog's root (docs/FORMAT.md, "Cold open"). */
int cs_env_open(const char *path, const cs_options *opts, cs_env **out);
/* Close the env. All its transactions and cursors must be finished first
 * (else CS_EINVAL and nothing is closed). */
int cs_env_close(cs_env *env);
/* Changes the level of the env's log messages (cs_options.log) from now
 * on, from any thread. CS_EINVAL for a NULL env or a level above
 * CS_LOG_ALL. */
int cs_env_set_log_level(cs_env *env, cs_log_level level);
/* Flush everything written so far and make deferred commits durable (see
 * cs_txn_commit_deferred). Waits for a running write transaction. */
int cs_env_sync(cs_env *env);
/* Id of the newest commit (no syscall): poll it to learn that another
 * thread or process committed. */
int cs_env_last_txnid(cs_env *env, uint64_t *out);
/* Waiting for commits of any thread or process on the file, without
 * polling (a futex on the lock file). *seq is the caller's last seen commit
 * sequence: set it from cs_env_commit_seq first. cs_env_wait_commit returns
 * CS_OK with *seq updated once a commit was published after *seq (at once
 * if one already was), CS_NOTFOUND after timeout_ms (or a wakeup by
 * cs_env_wake_waiters) with *seq unchanged; CS_EINVAL for NULL arguments.
 * A process killed while waiting leaves nothing behind but a counter that
 * costs each commit one wake system call. The env must stay open
 * while a thread waits (wake it, let it return, then close). */
int cs_env_commit_seq(cs_env *env, uint64_t *seq);
int cs_env_wait_commit(cs_env *env, uint64_t *seq, uint32_t timeout_ms);
/* Wakes every thread waiting in cs_env_wait_commit on this file (they
 * return CS_NOTFOUND unless a commit came): to stop a watcher before
 * closing. CS_EINVAL NULL env. */
int cs_env_wake_waiters(cs_env *env);

typedef struct cs_env_info {
    uint32_t page_size;
    uint64_t last_txnid;       /* newest committed transaction               */
    uint64_t next_pgno;        /* pages in use, including free ones          */
    uint64_t file_size;        /* bytes on disk (grown in chunks)            */
    uint64_t free_pages;       /* reusable now (0 if the reader table is full) */
    uint64_t pending_pages;    /* freed, waiting for old readers to finish   */
    uint32_t max_readers;
    uint32_t readers_used;     /* slots holding a snapshot now               */
    uint64_t oldest_reader;    /* oldest snapshot held by any reader, 0 none */
} cs_env_info;
int cs_env_get_info(cs_env *env, cs_env_info *out);

/* Distinct snapshots pinned by readers now (of any process). Each one
 * keeps the pages it sees from being reused, so a count that keeps growing
 * means a file that keeps growing; the next commit adds one version. */
int cs_env_active_versions(cs_env *env, uint32_t *out);

/* Whether the file is open through another environment now (another
 * process, or another cs_env_open of it in this one): *others = 1 if so (or
 * if the lock file cannot tell), 0 if this environment is alone (always 0
 * in memory). For a change every reader must see at once, such as a schema
 * migration. Errors: CS_EINVAL (NULL argument). Owns nothing. */
int cs_env_shared(cs_env *env, int *others);

/* Call fn(ctx, pid, txnid) for each reader slot holding a snapshot now (of
 * any process, this one included; slots of dead processes are freed
 * first): which process pins which version. Slots change while they are
 * read, so this is a sample, not a snapshot. A non-zero return from fn
 * stops the walk and is returned. CS_EINVAL NULL env or fn. Used by the
 * realmlite tool's info command. */
typedef int (*cs_reader_fn)(void *ctx, uint32_t pid, uint64_t txnid);
int cs_env_readers(cs_env *env, cs_reader_fn fn, void *ctx);

/* Free reader slots of dead processes. *cleared (may be NULL) = how many. */
int cs_reader_check(cs_env *env, uint32_t *cleared);

/* ---- Transactions -------------------------------------------------------- */
#define CS_TXN_RDONLY 0x1u  /* read transaction on the newest snapshot       */
#define CS_TXN_TRY 0x2u     /* write: fail with CS_EBUSY instead of waiting  */

/* Begin a transaction. Write transactions block until the writer lock is
 * free (unless CS_TXN_TRY). *out is owned by the caller until commit/abort.
 * Errors: CS_EINVAL NULL env/out or unknown flags; CS_EREADONLY a write txn
 * on a CS_ENV_RDONLY env; CS_EBUSY (write) CS_TXN_TRY and the lock is held,
 * or this thread already holds this env's write txn; CS_EREADERS (read) no
 * free reader slot; CS_EPANIC (write) an earlier flush failed; CS_ECORRUPT
 * (write) the free list is damaged; CS_ELOCK the writer mutex failed;
 * CS_EIO, CS_ENOMEM. */
int cs_txn_begin(cs_env *env, unsigned flags, cs_txn **out);
/* Commit and free the txn (also on failure: the txn is always consumed).
 * Commit of a read transaction just ends it. Errors (nothing committed
 * unless said): CS_EINVAL NULL txn; the first error of a failed txn;
 * CS_ENOSPACE disk full; CS_EIO a write failed, or a flush failed: the env
 * then refuses writes (CS_EPANIC) until reopened, and if the meta flush
 * failed the commit may be on disk after reopen; CS_ENOMEM, CS_ECORRUPT. */
int cs_txn_commit(cs_txn *txn);
/* Commit without flushing: the commit is visible to every reader at once
 * and becomes durable with the next cs_env_sync or normal commit, by any
 * process (cs_env_close flushes too). A crash before then loses it and the
 * deferred commits after it, never more, and never damages the file. Use it
 * to group several commits into one flush. Consumes the txn like commit. */
int cs_txn_commit_deferred(cs_txn *txn);
/* Discard all changes and free the txn. Cursors of the txn must be closed
 * first (they are closed for you if not). */
int cs_txn_abort(cs_txn *txn);
/* Read transactions only: release the snapshot but keep the handle and
 * reader slot, so that cs_txn_renew can take a new snapshot cheaply. */
int cs_txn_reset(cs_txn *txn);
int cs_txn_renew(cs_txn *txn);
/* A new read transaction on exactly the snapshot of read txn `src` (which
 * must be active), with its own reader slot: lets several threads read one
 * version at once, each through its own txn. Owned by the caller like any
 * txn; independent of `src` once made (either may end first). */
int cs_txn_clone(cs_txn *src, cs_txn **out);
/* Snapshot id of a read txn, or the id a write txn will commit as. */
uint64_t cs_txn_id(const cs_txn *txn);
int cs_txn_is_readonly(const cs_txn *txn);

/* ---- Named trees --------------------------------------------------------- */
#define CS_CREATE 0x1u      /* cs_tree_open: create if missing (write txn)    */

/* Get the handle of tree `name` (1..CS_MAX_TREE_NAME bytes; copied).
 * Handles are env-wide, need no close and stay valid until the env closes;
 * a handle whose tree does not exist in a txn's snapshot gives CS_NOTFOUND
 * there. With CS_CREATE (write txn) a missing tree is created, empty.
 * The env's first call asks the kernel to read the root page of every tree
 * a one-page catalog lists (POSIX_FADV_WILLNEED), so that after a cold
 * open the descents find them read; advice only, never an error.
 *   CS_NOTFOUND  no such tree in the snapshot, and no CS_CREATE
 *   CS_EREADONLY CS_CREATE of a missing tree in a read txn
 *   CS_EINVAL    NULL name or out, unknown flags, name of 0 or more than
 *                CS_MAX_TREE_NAME bytes
 *   CS_ECORRUPT, CS_ENOMEM (as for every tree call) */
int cs_tree_open(cs_txn *txn, const char *name, unsigned flags, cs_tree *out);
/* Delete the tree and all its contents; the handle stays valid (the tree
 * can be created again). CS_NOTFOUND if it does not exist; CS_ENOMEM or
 * CS_ECORRUPT fail the txn. */
int cs_tree_drop(cs_txn *txn, cs_tree tree);
/* Delete all entries, keep the tree. Errors as cs_tree_drop. */
int cs_tree_clear(cs_txn *txn, cs_tree tree);

typedef struct cs_tree_stat {
    uint64_t entries;
    uint32_t depth;
    uint64_t branch_pages, leaf_pages, overflow_pages;
} cs_tree_stat;
/* The tree's entry count, depth and page counts (O(1)). CS_EINVAL NULL out;
 * tree errors. */
int cs_tree_get_stat(cs_txn *txn, cs_tree tree, cs_tree_stat *out);

/* Call fn for each tree name in the snapshot, in name order; name is valid
 * during the call only and is not NUL-terminated. A
 * non-zero return from fn stops the walk and is returned. CS_EINVAL NULL
 * fn; CS_ECORRUPT damaged catalog. In a write txn the changed descriptors
 * are written to the catalog first (CS_ENOMEM / CS_ECORRUPT there fail
 * the txn). */
typedef int (*cs_tree_list_fn)(void *ctx, const char *name, size_t len);
int cs_tree_list(cs_txn *txn, cs_tree_list_fn fn, void *ctx);

/* ---- Data ---------------------------------------------------------------- */
#define CS_NOOVERWRITE 0x1u /* cs_put: CS_EXISTS if the key exists            */

/* Read the value of `key`. key is borrowed for the call; *val points into
 * the map (zero-copy, never freed by the caller), valid as said under
 * Conventions.
 *   CS_OK        *val set
 *   CS_NOTFOUND  no such key (or no such tree)
 *   CS_EINVAL    NULL val, or key.data NULL with a non-zero size
 *   CS_EKEYSIZE  key empty or longer than CS_MAX_KEY
 *   CS_ECORRUPT, CS_ETOODEEP  a damaged page on the path (txn unaffected) */
int cs_get(cs_txn *txn, cs_tree tree, cs_val key, cs_val *val);
/* Read the value of the entry with 0-based index `index` in key order
 * (rank access, O(log n)), as cs_cursor_seek_index without a cursor: no
 * key is assembled and no position kept. *val points into the map (or a
 * write txn's page), valid as cs_get's.
 *   CS_OK        *val set
 *   CS_NOTFOUND  index >= the tree's entry count (or no such tree)
 *   CS_EINVAL    NULL val
 *   CS_ECORRUPT, CS_ETOODEEP  a damaged page on the path (txn unaffected) */
int cs_get_index(cs_txn *txn, cs_tree tree, uint64_t index, cs_val *val);
/* Insert or replace key -> val (write txn). key and val are copied into the
 * txn before return (val may be 0 bytes, data NULL). Values earlier read
 * in this txn become invalid.
 *   CS_OK        stored
 *   CS_EXISTS    CS_NOOVERWRITE and the key exists (nothing changed)
 *   CS_NOTFOUND  the tree does not exist (create it with cs_tree_open)
 *   CS_EINVAL    unknown flags, or val.data NULL with a non-zero size
 *   CS_EKEYSIZE  key empty or longer than CS_MAX_KEY
 *   CS_EVALSIZE  val longer than CS_MAX_VALUE
 *   CS_ENOMEM, CS_ECORRUPT, CS_ETOODEEP (the tree would grow past
 *                CS_MAX_DEPTH, or a damaged page): the txn has failed */
int cs_put(cs_txn *txn, cs_tree tree, cs_val key, cs_val val, unsigned flags);
/* Delete key (write txn); key is borrowed for the call. Values earlier read
 * in this txn become invalid.
 *   CS_OK        deleted
 *   CS_NOTFOUND  no such key (or no such tree); nothing changed
 *   CS_EINVAL    key.data NULL with a non-zero size
 *   CS_EKEYSIZE  key empty or longer than CS_MAX_KEY
 *   CS_ENOMEM, CS_ECORRUPT, CS_ETOODEEP: the txn has failed */
int cs_del(cs_txn *txn, cs_tree tree, cs_val key);
/* Number of entries in the tree, O(1) (from its descriptor).
 *   CS_NOTFOUND  no such tree
 *   CS_EINVAL    NULL out */
int cs_count(cs_txn *txn, cs_tree tree, uint64_t *out);

/* ---- Cursors ------------------------------------------------------------- */
typedef enum cs_cursor_op {
    CS_FIRST = 0,
    CS_LAST,
    CS_NEXT,        /* from an unpositioned cursor: same as CS_FIRST          */
    CS_PREV,        /* from an unpositioned cursor: same as CS_LAST           */
    CS_SEEK,        /* first entry with key >= the given key (lower bound)    */
    CS_SEEK_EXACT,  /* the entry with exactly the given key                   */
    CS_CURRENT,
} cs_cursor_op;

/* Open a cursor on tree; owned by the caller until cs_cursor_close or the
 * end of its txn (commit or abort), which frees it: do not use or close it
 * after that. cs_txn_reset keeps it (unpositioned).
 * CS_EINVAL NULL out; tree errors (CS_NOTFOUND no such tree). */
int cs_cursor_open(cs_txn *txn, cs_tree tree, cs_cursor **out);
/* Free the cursor. CS_EINVAL NULL cursor. */
int cs_cursor_close(cs_cursor *cur);
/* Move and read. key is input for SEEK/SEEK_EXACT (borrowed) and is
 * overwritten with the found key; either out-pointer may be NULL. Found
 * values point into the map, valid like cs_get's. A found key may point
 * into the map or into a buffer the cursor owns (leaves store a prefix
 * shared by their keys once, so keys are assembled): it is valid only
 * until the next call on this cursor (any op, cs_cursor_put/del/renew/
 * close) or the end of the txn; copy it to keep it longer.
 *   CS_OK        positioned on an entry, *key / *val set
 *   CS_NOTFOUND  past either end, SEEK past the last key, SEEK_EXACT key
 *                absent, CURRENT after the entry was deleted; the cursor
 *                stays where it was
 *   CS_EINVAL    NULL cursor, unknown op, CURRENT on a cursor never
 *                positioned
 *   CS_EKEYSIZE  SEEK / SEEK_EXACT with no key, or a key empty or longer
 *                than CS_MAX_KEY
 *   tree errors; CS_ECORRUPT, CS_ETOODEEP a damaged page (txn unaffected) */
int cs_cursor_get(cs_cursor *cur, cs_val *key, cs_val *val, cs_cursor_op op);
/* CS_NEXT up to `cap` times in one call, staying inside one leaf: reads the
 * entries following the cursor's (the first entry if it is unpositioned)
 * until the end of that leaf or `cap` of them, into keys[i] / vals[i]
 * (either array may be NULL) and sets *n to how many; the cursor is left on
 * the last one. CS_NOTFOUND (*n = 0, cursor unmoved) at the end of the tree.
 * Scans call this instead of one cs_cursor_get per entry. Keys are valid
 * until the next call on this cursor, as cs_cursor_get's (they are
 * assembled into a cursor-owned arena of a few KiB; a batch stops early
 * when it is full); values as cs_get's. CS_ENOMEM no arena; CS_EINVAL NULL
 * n or cap 0; otherwise errors as cs_cursor_get. */
int cs_cursor_next_batch(cs_cursor *cur, cs_val *keys, cs_val *vals, size_t cap, size_t *n);
/* cs_cursor_next_batch for callers that need only a number from each key:
 * ids[i] is the last 8 bytes of key i read as a big-endian integer (all of
 * a shorter key's bytes), e.g. an object id. Nothing is assembled, so
 * there is no arena and no early stop. ids is owned by the caller; values
 * as cs_cursor_next_batch's (vals may be NULL). CS_EINVAL NULL ids, NULL n
 * or cap 0; otherwise errors as cs_cursor_next_batch. */
int cs_cursor_next_ids(cs_cursor *cur, uint64_t *ids, cs_val *vals, size_t cap, size_t *n);
/* A filtered scan (cs_filter, below): the entries after the cursor's (the
 * first entry if it is unpositioned), over as many leaves as it takes,
 * whose values pass `filter`, evaluated where the values lie (no batch of
 * every entry). Up to `cap` matches: ids[i] and vals[i] as
 * cs_cursor_next_ids's (vals may be NULL); *n = how many. The cursor is
 * left on the last entry read: the cap-th match, or the last entry of the
 * tree. CS_NOTFOUND (*n = 0) when no entry after the cursor passes, the
 * cursor then on the tree's last entry (unmoved if there was none to
 * read). CS_EINVAL NULL ids or n, cap 0, or a malformed filter; errors of
 * values as cs_count_matching (CS_ECORRUPT, CS_EFORMAT: *n = 0, the
 * cursor on an entry at or before the one that failed); otherwise as
 * cs_cursor_next_batch. */
int cs_cursor_next_matching(cs_cursor *cur, const cs_filter *filter, uint64_t *ids, cs_val *vals, size_t cap, size_t *n);
/* Insert/update through the cursor; the cursor is left on that key.
 * Errors as cs_put, plus CS_EINVAL for a NULL cursor. */
int cs_cursor_put(cs_cursor *cur, cs_val key, cs_val val, unsigned flags);
/* Delete the current entry. The cursor is left between its neighbours:
 * CS_NEXT gives the following entry, CS_PREV the preceding one.
 * CS_EINVAL NULL cursor, or not on an entry; CS_ENOMEM,
 * CS_ECORRUPT fail the txn. */
int cs_cursor_del(cs_cursor *cur);
/* Rank access (order statistics, O(log n)): position on the entry with
 * 0-based index `index` in key order; CS_NOTFOUND if index >= count (the
 * cursor unmoved). The key is valid as cs_cursor_get's. Other errors as
 * cs_cursor_get. */
int cs_cursor_seek_index(cs_cursor *cur, uint64_t index, cs_val *key, cs_val *val);
/* 0-based rank of the current entry. CS_EINVAL NULL out, or the cursor is
 * not on an entry. */
int cs_cursor_index(cs_cursor *cur, uint64_t *out);
/* Rebind a cursor to another read txn on the same env (after renew); it
 * is then unpositioned. CS_EINVAL NULL cursor, or txn is a write txn. */
int cs_cursor_renew(cs_txn *txn, cs_cursor *cur);

/* ---- Changes between snapshots ------------------------------------------ */
typedef enum cs_diff_kind {
    CS_DIFF_INSERT = 1,  /* key only in `to`                                  */
    CS_DIFF_DELETE,      /* key only in `from`                                */
    CS_DIFF_UPDATE,      /* key in both, value bytes differ                   */
} cs_diff_kind;
/* Values point into the map, valid like cs_get results; the missing side of
 * an insert/delete is {NULL, 0}. A non-zero return stops the diff and is
 * returned by cs_tree_diff. */
typedef int (*cs_diff_fn)(void *ctx, cs_diff_kind kind, cs_val key, cs_val old_val, cs_val new_val);
/* Report, in key order, how tree differs from snapshot `from` to snapshot
 * `to` (two txns of one env; either may be older, or a write txn). Subtrees
 * both snapshots share are skipped unread, so the cost follows the size of
 * the change. A tree missing in one snapshot counts as empty there. */
int cs_tree_diff(cs_txn *from, cs_txn *to, cs_tree tree, cs_diff_fn fn, void *ctx);

/* ---- Integrity checker --------------------------------------------------- */
typedef struct cs_check_report {
    uint64_t pages_total;       /* next_pgno of the checked snapshot          */
    uint64_t pages_meta, pages_branch, pages_leaf, pages_overflow;
    uint64_t pages_freelist, pages_free, pages_pending;
    uint64_t trees, entries;    /* named trees, and entries summed over them */
    uint64_t errors;            /* problems found; 0 means clean              */
    char first_error[256];      /* description of the first problem          */
} cs_check_report;

/* Walk the newest snapshot and verify that every page is reachable exactly
 * once (from a tree or the free list), page checksums, key order, entry
 * counts and tree depth. Returns CS_OK when clean, CS_ECORRUPT when errors
 * were found (report filled either way), another code if it could not run.
 * Never crashes on a damaged file. */
int cs_check(cs_env *env, cs_check_report *report);
/* cs_check, calling fn with every problem as it is found (the report's
 * first_error holds only the first): one NUL-terminated line of at most
 * 255 bytes, "I<n> <invariant>: ...", valid during the call. fn may be
 * NULL (then this is cs_check). Used by the realmlite tool's check command.
 * Errors as cs_check: CS_EINVAL NULL env or report; CS_ECORRUPT problems
 * found; from cs_txn_begin (CS_EREADERS, CS_EBADTXN ...) or CS_ENOMEM if it
 * could not run (no problem reported then); CS_EBUSY if other writers'
 * commits replaced the snapshot's free-list delta a thousand times in a
 * row (check again when they pause). */
typedef void (*cs_check_fn)(void *ctx, const char *problem);
int cs_check_each(cs_env *env, cs_check_report *report, cs_check_fn fn, void *ctx);

/* ---- Copy and compaction ------------------------------------------------ */
/* Write a compact copy of the newest committed version of env to a new file
 * `path` (its lock file is not kept): every tree with its entries, in key
 * order into full pages, so the copy has no free pages but the few its
 * own commits leave. It reads one snapshot, so writers of any process go on
 * meanwhile and the copy holds exactly one committed version. The copy is
 * built beside `path` under a temporary name, flushed, checked (cs_check)
 * and only then linked as `path`: a crash or an error never leaves a
 * partial file there. An in-memory env copies to a file too. flags: 0
 * (reserved). path is borrowed.
 *   CS_EINVAL    NULL env or path, flags not 0
 *   CS_EXISTS    path exists (nothing is written)
 *   CS_NOTFOUND  path's directory does not exist
 *   CS_ECORRUPT  the source is damaged, or the copy fails cs_check
 *   CS_EREADERS  no reader slot for the snapshot
 *   CS_EIO, CS_ENOSPACE, CS_ENOMEM  (the temporary file is removed)
 * Nothing is owned by the caller afterwards. */
int cs_env_copy(cs_env *env, const char *path, unsigned flags);

/* Compact env's file in place: the cs_env_copy above into "<path>.compact",
 * then, with opens of the file held off, that file renamed over the
 * original and the directory flushed. Only when env is the file's one
 * open environment (cs_env_shared gives 0) and has no transaction open;
 * the caller must not use env from another thread during the call. A kill
 * at any moment leaves either the old or the compacted file, whole (a
 * leftover "<path>.compact" is removed by the next compaction).
 * Ownership: on CS_OK env has been closed (the file it had open is gone):
 * open the path again. On any error env stays open and the file is as it
 * was.
 *   CS_EINVAL    NULL env, flags not 0, an in-memory env, transactions open
 *   CS_EREADONLY env was opened CS_ENV_RDONLY
 *   CS_EBUSY     another process (or another cs_env_open here) has the file
 *                open, or committed to it during the copy
 *   CS_ELOCK     the lock file could not be locked
 *   errors of cs_env_copy */
int cs_env_compact(cs_env *env, unsigned flags);

/* Remove a database that no process has open: its data file, its log, its
 * lock file and the shared-memory segment of logged commits that a killed
 * process may have left (which the files' removal alone would leak until
 * the next boot). Missing files are fine: CS_OK. While the call runs, opens
 * of the path wait; an open after it creates a new database. path is
 * borrowed.
 *   CS_EINVAL  NULL path
 *   CS_EBUSY   a process (this one included) has the database open: close
 *              it there first; nothing is removed
 *   CS_ELOCK   the lock file cannot be opened or locked
 *   CS_EIO     the data file could not be removed (the detail says why)
 *   CS_ENOMEM */
int cs_env_remove(const char *path);

/* ======================================================================
 * FOR THE OBJECT LAYER. Calls that only RealmLite's object layer uses,
 * shaped by its record format and threading checks. The key-value API
 * above does not depend on them.
 * ====================================================================== */

/* ---- Thread token -------------------------------------------------------- */
/* A cheap identity of the calling thread: its thread pointer, read inline
 * (one instruction on x86-64 and AArch64; pthread_self() is a call). Unique
 * among the threads alive at one time. RealmLite compares it on every
 * property read to tell "on the Realm's own thread" without a call; any
 * mismatch falls back to the full check. */
static inline uintptr_t cs_thread_token(void)
{
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer) && (defined(__x86_64__) || defined(__aarch64__))
    return (uintptr_t)__builtin_thread_pointer();
#endif
#endif
    return 0; /* unknown here: callers then always take the full check */
}

/* ---- Value filters ------------------------------------------------------- */
/* A predicate over value bytes, compiled once by the caller (RealmLite
 * compiles its common query predicates into one) and evaluated here over a
 * batch of values, e.g. a leaf's worth from cs_cursor_next_batch: no
 * callback, no allocation, no stack per value. Each test reads one field at
 * a fixed offset of the value; AND / OR / NOT are jumps between tests.
 * The engine knows nothing else of the caller's value format.
 *
 * Nulls: a test with a non-zero null_mask first reads the null bit
 * (value[null_byte] & null_mask). CS_TEST_NULL compares that bit with
 * `flag`; any other test on a value whose bit is set yields
 * (cmp == CS_CMP_NE): nil is unequal to every constant and never ordered.
 * Doubles: NaN equals NaN and is never ordered. */
enum cs_test_kind {
    CS_TEST_NULL = 1,    /* null bit set == flag                                */
    CS_TEST_I64_RANGE,   /* low <= i64 at offset <= high, inverted by negate    */
    CS_TEST_I64_VS_F64,  /* (double)i64 at offset  cmp  f64                     */
    CS_TEST_F64,         /* f64 at offset  cmp  f64                             */
    CS_TEST_F32,         /* (double)f32 at offset  cmp  f64                     */
    CS_TEST_BOOL,        /* (u8 at offset != 0) == flag, inverted by negate;
                            with bit_mask, (u8 at offset & bit_mask) != 0      */
    CS_TEST_BYTES_EQ,    /* variable field number `offset` equals
                            constants[low, low + high), inverted by negate      */
};
enum cs_test_cmp { CS_CMP_EQ = 0, CS_CMP_NE, CS_CMP_LT, CS_CMP_LE, CS_CMP_GT, CS_CMP_GE };
#define CS_FILTER_FALSE (-1) /* a jump target: the value does not match      */
#define CS_FILTER_TRUE (-2)  /* a jump target: the value matches             */

typedef struct cs_value_test {
    uint8_t kind;        /* enum cs_test_kind                                 */
    uint8_t cmp;         /* enum cs_test_cmp (F64/F32/I64_VS_F64; and which
                            result a null value gives)                        */
    uint8_t flag;
    uint8_t negate;
    uint8_t null_mask;   /* 0: the field has no null bit                      */
    uint8_t packed;      /* 1 (I64 tests): `offset` is a packed integer's
                            index (cs_filter.int_count)                       */
    uint8_t bit_mask;    /* CS_TEST_BOOL: 0, a byte; else the bit of the byte
                            at offset that holds the Bool (object format 12) */
    uint8_t pad;
    uint32_t null_byte;
    uint32_t offset;     /* field offset, or variable field number            */
    int32_t on_true;     /* next test (a LOWER index, so evaluation ends) or
                            CS_FILTER_TRUE / CS_FILTER_FALSE                  */
    int32_t on_false;
    int64_t low, high;
    double f64;
} cs_value_test;

/* The object layer's record layout, as far as filters read it. Fixed
 * fields sit at the offsets the tests name. Variable fields
 * (CS_TEST_BYTES_EQ): at byte var_table of the value, a u32 LE end offset
 * per field (relative to var_data); field i spans [end[i-1], end[i]) after
 * var_data, end[-1] = 0. With compact_offsets, the end offsets are
 * cs_record_offset_width(value size) bytes wide and var data starts right
 * after var_count of them (var_data is then unused). With implied_last_end
 * (object format 11), the last field (var_count - 1) has no end offset: it
 * ends at the value's end, and var data starts after var_count - 1 offsets;
 * a BYTES_EQ test of a field past var_count is then CS_EINVAL. With has_tag, every value must start with the byte
 * `tag` (the layout the offsets describe): a value that does not is one the
 * filter cannot read, and the call fails with CS_EFORMAT.
 * Packed integers (int_count > 0): the value's integers are 2^c bytes each
 * (little-endian two's complement), c the top two bits of byte
 * int_code_byte; integer i is at int_start + (i << c), and the var table
 * at int_start + (int_count << c) (var_table is then unused; the end
 * offsets are u32 unless compact_offsets). A value too short for its
 * integers is CS_ECORRUPT. */
typedef struct cs_filter {
    const cs_value_test *tests; /* borrowed for the call                      */
    uint32_t ntests;
    int32_t entry;              /* first test, or CS_FILTER_TRUE / _FALSE     */
    const uint8_t *constants;   /* borrowed; CS_TEST_BYTES_EQ compares these  */
    size_t nconstants;
    uint32_t var_table;
    uint32_t var_data;
    uint8_t has_tag;            /* 0: values carry no tag                     */
    uint8_t tag;
    uint8_t compact_offsets;    /* 0: u32 end offsets (var_data)              */
    uint8_t implied_last_end;   /* 1: no end offset for field var_count - 1   */
    uint32_t var_count;         /* var fields (with compact_offsets, or with
                                   implied_last_end: required)                */
    uint32_t int_start;         /* packed integers: where they start          */
    uint32_t int_count;         /* 0: no packed integers                      */
    uint32_t int_code_byte;     /* < int_start: the byte with the width code  */
} cs_filter;

/* The width in bytes of the var end offsets of an object record of
 * `record_size` bytes whose class has compact offsets (object format 7):
 * 1 below 256 bytes, 2 below 65536, else 4. The object layer writes the
 * narrowest width whose record size maps to it, so each record has one
 * encoding. No errors; pure. */
static inline unsigned cs_record_offset_width(size_t record_size)
{
    return record_size < 0x100u ? 1u : record_size < 0x10000u ? 2u : 4u;
}

/* Two bytes, 0 and 1: the stored byte of a Bool whose record holds it as a
 * bit (the object layer's field reads point here). Static storage, never
 * freed or written; no errors. */
static inline const uint8_t *cs_bool_bytes_ptr(void)
{
    static const uint8_t bytes[2] = {0, 1};
    return bytes;
}

/* Evaluate `filter` on vals[0..n). Writes the indexes of matching values to
 * `matches` (NULL: count only; else room for n) and their number to
 * *nmatched. CS_EINVAL for a malformed filter (a jump not to a lower index,
 * a constant out of range); CS_ECORRUPT if a value is too short for a field
 * a test reads (nothing is read out of bounds); CS_EFORMAT if a value lacks
 * the filter's tag. */
int cs_filter_values(const cs_filter *filter, const cs_val *vals, size_t n, uint32_t *matches, size_t *nmatched);
/* Count the entries of `tree` in txn's snapshot whose values pass `filter`,
 * walking the leaves in place (no per-entry cs_val). A missing tree counts 0.
 * Errors as cs_filter_values (and the txn's: CS_EBADTXN ...); *out = 0 then. */
int cs_count_matching(cs_txn *txn, cs_tree tree, const cs_filter *filter, uint64_t *out);

/* ---- Full-text search ---------------------------------------------------- */
/* An inverted index of texts kept in an ordinary tree of the caller's, and
 * Realm's full-text search over it (fts.c says why it is laid out so).
 *
 * Tokens: runs of letters and digits (ASCII, and Latin-1 letters
 * U+00C0..U+00FF), lower-cased and with diacritics removed (but å æ ð ø þ ß
 * stay themselves); every other character separates tokens. A token keeps
 * its first CS_FTS_TOKEN_MAX bytes. Entries: token ++ 0x00 ++ object key
 * (u64 big-endian) -> empty value. */
#define CS_FTS_TOKEN_MAX 64u

/* The next token of the UTF-8 text[0..len) at or after *pos: 1 and the
 * folded token in token[0..*token_len) (the caller's buffer), *pos past it;
 * 0 (and *pos = len) when no token is left. Invalid UTF-8 separates tokens.
 * CS_EINVAL for NULL pos, token or token_len, or NULL text with a non-zero
 * len. Allocates nothing. */
int cs_fts_next_token(const uint8_t *text, size_t len, size_t *pos, uint8_t token[CS_FTS_TOKEN_MAX], size_t *token_len);

/* Index maintenance (write txn): changes the entries of object `key` in
 * `tree` from the tokens of old_text to those of new_text (NULL: no text;
 * both borrowed for the call). Entries common to both are untouched.
 *   CS_OK, CS_EINVAL (NULL txn, NULL text with a non-zero length), and
 *   cs_put/cs_del's errors (CS_NOTFOUND no such tree, CS_ENOMEM, ...). */
int cs_fts_index_update(cs_txn *txn, cs_tree tree, uint64_t key, const uint8_t *old_text, size_t old_len,
                        const uint8_t *new_text, size_t new_len);

/* Searches the index `index` with a Realm full-text query: words separated
 * by white space, all of which an object's text must hold; `-word` excludes
 * objects holding it; `word*` matches any token starting with it. Each word
 * is tokenized like the texts and must give exactly one token. `objects` is
 * the tree whose 8-byte keys are every object key (read only when the query
 * has no word to search for, only exclusions).
 * On CS_OK *keys is a malloc'd array of the *n matching object keys in
 * increasing order (NULL when *n is 0), owned by the caller (free()).
 *   CS_EINVAL    NULL txn/keys/n; a query with no word, a word with no
 *                letter or digit or with a separator inside ("object-oriented"),
 *                a word both searched for and excluded: the detail
 *                (cs_last_error_detail) says which
 *   CS_ENOMEM; cursor errors (CS_ECORRUPT a damaged page). A missing tree
 *   reads as empty. */
int cs_fts_search(cs_txn *txn, cs_tree index, cs_tree objects, const char *query, size_t len, uint64_t **keys, size_t *n);
/* The same query evaluated on one text (no index): *match = 1 if text[0..len)
 * satisfies it, else 0. Both borrowed for the call. Errors: CS_EINVAL as
 * cs_fts_search (a NULL match, a malformed query, with the detail), CS_ENOMEM. */
int cs_fts_match(const char *query, size_t qlen, const uint8_t *text, size_t len, int *match);

#ifdef __cplusplus
}
#endif
#endif /* CSTORAGE_H */
