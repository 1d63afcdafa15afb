/*
 * os.h — layer L2: the lock file, the redo log, the shared segment of volatile
 * pages, and the data file's writes, flushes, mappings and page buffers.
 * Part of internal.h (its header holds the layer table and says what may
 * call what); included through it. Nothing here is public API.
 */
#ifndef CSTORAGE_OS_H
#define CSTORAGE_OS_H

#include "pages.h"

/* ==== L2 os: io.c lock.c redo.c vpage.c ==== */

/* ---- lock.c ---- */
typedef struct cs_lock {
    int fd;                  /* -1 for in-memory envs                       */
    cs_lock_hdr *hdr;
    cs_reader_slot *slots;
    size_t size;
    uint32_t max_readers;
    _Atomic uint32_t dead_cleared; /* slots of dead processes cleared and not
                                      yet logged (often under the writer
                                      mutex: txn_log_pending reports them) */
} cs_lock;
/* Open/create the lock file and take the init lock. *first = no other
 * process has the env open, so the caller must (re)initialise the header
 * (lock_init_header) before lock_open_done. */
int lock_open(cs_lock *lk, const char *path, uint32_t mode, uint32_t max_readers,
              bool in_memory, bool *first);
/* delta: the meta's free-list delta (meta_delta_len bytes). */
int lock_init_header(cs_lock *lk, const cs_meta *meta, const uint8_t *delta, uint32_t meta_slot);
int lock_open_done(cs_lock *lk, bool first);
/* At close: true if no other env has the database open. Then the caller
 * holds the open lock until lock_close, so no process opens it meanwhile. */
bool lock_close_last(cs_lock *lk);
void lock_close(cs_lock *lk);
void lock_publish_meta(cs_lock *lk, const cs_meta *meta, const uint8_t *delta);
void lock_read_meta(const cs_lock *lk, cs_meta *out);
/* The published meta's delta into out (CS_META_TAIL bytes), if that meta
 * is still commit txnid's; false once a newer one replaced it. */
bool lock_read_delta(const cs_lock *lk, uint64_t txnid, uint8_t *out);
/* Commits published so far (meta_seq), and waiting for the next one: true
 * once it differs from `seen`, false after timeout_ms (or a wakeup by
 * lock_wake_waiters). A futex on the lock file, so any process's commit
 * wakes every waiting thread of every process. */
uint64_t lock_publish_seq(const cs_lock *lk);
bool lock_wait_publish(cs_lock *lk, uint64_t seen, uint32_t timeout_ms);
void lock_wake_waiters(cs_lock *lk);
/* Writer mutex. *owner_died = the previous owner died holding it. */
int lock_writer_acquire(cs_lock *lk, bool try_only, bool *owner_died);
void lock_writer_release(cs_lock *lk);
int lock_slot_acquire(cs_lock *lk, _Atomic uint32_t *hint, cs_reader_slot **out);
void lock_slot_release(cs_reader_slot *slot);
/* Oldest snapshot held by a reader (0 = none); clears dead processes'
 * slots that pin snapshots older than `latest`. */
uint64_t lock_oldest_reader(cs_lock *lk, uint64_t latest, uint32_t *readers);
uint32_t lock_clear_dead(cs_lock *lk);
/* Distinct snapshot ids held by live reader slots (dead processes' slots
 * pinning versions older than `latest` are cleared first). */
uint32_t lock_active_versions(cs_lock *lk, uint64_t latest);
/* For removing a closed database: "<path>.lock" opened and held (bytes 0
 * and 1, exclusive) in *fd_out, so that no process has the database open
 * and none opens it until the caller closes *fd_out; *fd_out = -1 when
 * there is no lock file. CS_EBUSY when a process has it open, CS_ELOCK
 * when the lock file cannot be opened or locked, CS_ENOMEM. */
int lock_claim_closed(const char *path, int *fd_out);
/* True if another open env (process, or open file description) has the
 * file now, or if that cannot be told. */
bool lock_shared_with_others(const cs_lock *lk);
/* Take byte 0 (the open lock), waiting: no process can open the env, and
 * so open its data file, until lock_release_opens or lock_close. Lets a
 * compaction replace the data file with no opener in between. */
int lock_hold_opens(cs_lock *lk);
void lock_release_opens(cs_lock *lk);
/* Call fn(ctx, pid, txnid) for each slot holding a snapshot (a racy but
 * harmless read: a slot may change while it is read). Stops at and returns
 * fn's first non-zero return. */
int lock_each_reader(cs_lock *lk, int (*fn)(void *ctx, uint32_t pid, uint64_t txnid), void *ctx);

/* ---- redo.c: the redo log of small commits (format.h REDO LOG) ---- */
#define REDO_GROW (1u << 20) /* the log grows in steps of at least this    */
typedef struct cs_redo {
    int fd;                  /* -1: not open                                */
    uint64_t size;           /* the file's size (grown ahead of records)    */
    cs_io_hooks io;          /* the env's hooks (copied)                    */
} cs_redo;
/* A record being built; owns buf. */
typedef struct redo_rec {
    uint8_t *buf;
    size_t len, cap;
    uint32_t nops;
} redo_rec;
/* One decoded op; a and b point into the record. */
typedef struct redo_op {
    uint8_t kind;            /* REDO_TREE, _PUT, _DEL, _DROP                */
    uint32_t flags;          /* REDO_TREE: the tree's cs_tree_open flags    */
    const uint8_t *a, *b;    /* name or key; value (REDO_PUT)              */
    uint32_t al, bl;
} redo_op;
void redo_rec_init(redo_rec *r);
void redo_rec_free(redo_rec *r);
/* Start a record (dropping any ops); CS_ENOMEM. */
int redo_rec_begin(redo_rec *r, uint64_t epoch, uint64_t txnid);
/* Append one op (format.h); CS_ENOMEM, CS_EINVAL before redo_rec_begin. */
int redo_rec_tree(redo_rec *r, const char *name, uint32_t nlen, uint32_t flags);
int redo_rec_put(redo_rec *r, const uint8_t *k, uint32_t kl, const uint8_t *v, uint32_t vl);
int redo_rec_del(redo_rec *r, const uint8_t *k, uint32_t kl);
int redo_rec_drop(redo_rec *r, const char *name, uint32_t nlen);
/* Pad, count and checksum the record: its bytes to write (a multiple of
 * REDO_ALIGN), 0 when out of memory. */
size_t redo_rec_seal(redo_rec *r);
/* The op at *p (< end), advancing *p: CS_OK, CS_NOTFOUND at end, CS_ECORRUPT. */
int redo_next_op(const uint8_t **p, const uint8_t *end, redo_op *op);
/* Open (rdonly: CS_NOTFOUND if missing; else create) "<data_path>-log";
 * CS_EIO, CS_ENOSPACE, CS_ENOMEM. */
int redo_open(cs_redo *lg, const char *data_path, bool rdonly, const cs_io_hooks *io);
/* Whether "<data_path>-log" may hold records: false only when it is missing
 * or empty (a stat, no open). No errors: a stat that fails otherwise says
 * true, and redo_open then reports it. */
bool redo_has_bytes(const char *data_path);
void redo_close(cs_redo *lg);
/* Write a sealed record of `padded` bytes at off (a multiple of REDO_ALIGN),
 * growing the file first if needed, and flush it: CS_OK once the record is
 * durable; CS_EIO, CS_ENOSPACE (the record may be partly written: it fails
 * its CRC and ends the log), CS_EINVAL. */
int redo_append(cs_redo *lg, uint64_t off, const redo_rec *r, size_t padded);
/* redo_append's two steps: the write (growing the file first), the flush. */
int redo_write(cs_redo *lg, uint64_t off, const redo_rec *r, size_t padded);
int redo_flush(cs_redo *lg);
/* Called for each record of the log in txnid order with its ops; a nonzero
 * return stops the scan and is returned. */
typedef int (*redo_scan_fn)(void *ctx, uint64_t txnid, const uint8_t *ops, size_t len, uint32_t nops);
/* The log's records for `epoch` (format.h): calls fn (may be NULL) for each;
 * *end_off = where the next record goes, *last_txnid = the last record's
 * txnid (epoch if none). A damaged or stale record ends the log, it is not
 * an error. Reads up to lg's size (at redo_open, or grown by its writes):
 * a scan runs where nothing else appends. CS_EIO, CS_ENOMEM, or fn's code. */
int redo_scan(cs_redo *lg, uint64_t epoch, redo_scan_fn fn, void *ctx, uint64_t *end_off, uint64_t *last_txnid);

/* ---- vpage.c: the shared segment of volatile pages (format.h) ---- */
#define VSEG_NAME_MAX 64
/* Arena pages one write txn may take: past this it is no small commit. */
#define VOL_TXN_PAGES 64u
/* Logged commits between folds at most, and the segment's size cap. */
#define VOL_FOLD_EVERY 64u
#define VSEG_SPAN_BYTES (32u << 20)
typedef struct cs_vseg {
    int fd;                  /* -1: not open                                */
    uint8_t *base;           /* the whole span, mapped shared              */
    uint64_t span_pages;     /* address space reserved: the segment's cap   */
    uint32_t psize;
    cs_vseg_hdr *hdr;        /* at base                                     */
} cs_vseg;
static inline bool pgno_is_volatile(uint64_t pgno) { return pgno >= VPAGE_BASE; }
/* The segment name of a data file (shm_open's). */
void vseg_name(dev_t dev, ino_t ino, char out[VSEG_NAME_MAX]);
/* Open (creating) and map segment `name` with room for max_pages pages of
 * psize; `first` empties it and writes a new header. CS_EIO, CS_ENOSPACE
 * (no shared memory), CS_ELOCK (a segment of another version or page size),
 * CS_EINVAL. The caller owns s until vseg_close. */
int vseg_open(cs_vseg *s, const char *name, uint32_t psize, uint64_t max_pages, bool first);
void vseg_close(cs_vseg *s);
/* Remove the segment's name (the last process, or a failed open). */
void vseg_unlink(const char *name);
/* Volatile page pgno (npages long) in the segment, NULL if it lies outside
 * the arena: the caller reports CS_ECORRUPT. Any thread, no lock. */
const uint8_t *vseg_page(const cs_vseg *s, uint64_t pgno, uint64_t npages);
/* Writer only. Make the segment at least `pages` long (CS_ENOSPACE past its
 * cap or out of shared memory); copy npages at volatile pgno into it. */
int vseg_grow(cs_vseg *s, uint64_t pages);
int vseg_put(cs_vseg *s, uint64_t pgno, const uint8_t *pages, uint64_t npages);
/* The state of published commit txnid, NULL if the segment has none (a
 * writer died between the two, or the segment is not this file's). */
const vseg_state *vseg_state_of(const cs_vseg *s, uint64_t txnid);
/* Writer only, before publishing st->txnid. */
void vseg_set_state(cs_vseg *s, const vseg_state *st);
/* Turn logging on: map and empty the segment, give it the published
 * commit's state, then set the lock header's vol_on. The caller makes sure
 * no process maps the segment: it holds the open lock as the first opener,
 * or the writer mutex while vol_on is 0. vseg_open's errors. */
int vseg_start(cs_env *env);
/* Remove env's segment by name, mapped or not (the last process to close,
 * when logging was on). Best effort: no errors. */
void vseg_remove(cs_env *env);
/* Map the segment if a process has turned logging on (the lock header's
 * vol_on) since env last looked. Every transaction's begin calls it after
 * reading its meta, so a snapshot that reaches a volatile page finds the
 * segment mapped. Any thread; idempotent. vseg_open's errors. */
int vseg_attach(cs_env *env);
/* A write transaction's begin, writer mutex held: vseg_attach, or, when no
 * process logs yet and env wants to, turn logging on (empty the segment,
 * give it the published commit's state, set vol_on). A writable env that
 * logs then has the log open for appending. A segment that cannot be made
 * (no shared memory) leaves this env writing commits whole, with a
 * warning. CS_EIO from the log's open, vseg_open's errors when attaching. */
int vseg_writer_begin(cs_env *env);

/* ---- io.c: the data file, mappings, page buffers ---- */
/* A read-only mapping of the data file. Mappings are immutable once
 * published and kept until close: a reader keeps using the one it started
 * with while a larger one serves newer snapshots (growth never moves pages
 * under a reader, and never waits for one). */
typedef struct cs_mapping {
    uint8_t *base;
    size_t size;
    struct cs_mapping *next;
} cs_mapping;

/* Tree handle -> name, env-wide; read and written only by tree.c (L6). */
typedef struct tree_registry {
    char **name;
    uint32_t *len;
    uint32_t n, cap;
} tree_registry;

struct cs_env {
    char *path;
    int fd;
    uint32_t flags;
    uint32_t psize;
    uint32_t psize_shift;
    cs_durability durability;
    bool auto_shrink;           /* cs_options.auto_shrink                  */
    bool metas_old;             /* open saw a meta of an older format version:
                                   the first meta write upgrades both      */
    uint32_t reloc_tree;        /* auto-shrink resumes at this named tree  */
    uint32_t reloc_klen;        /* ... at this key (0 = its first leaf)     */
    uint8_t *reloc_key;         /* CS_MAX_KEY bytes, allocated on first use */
    cs_io_hooks io;
    void (*commit_hook)(void *, cs_commit_stage, uint64_t);
    void *commit_hook_ctx;
    cs_logger log;              /* cs_options.log                          */
    _Atomic uint64_t recovered; /* txn adopted after an incomplete commit (a
                                   dead writer, or a crash found at open),
                                   not yet logged (txn_log_pending)        */
    uint64_t newest_meta_seen;  /* open only: the higher txnid of the two
                                   meta pages, valid or not                */
    pid_t pid;

    pthread_mutex_t mu;         /* guards the fields below                 */
    cs_mapping *_Atomic map;    /* newest mapping; older ones on ->next     */
    uint64_t file_size;
    tree_registry names;        /* cs_tree handle -> name (tree.c only)     */
    /* Free list as of commit fl_txnid (a cache): the base run's list, the
     * delta's cursor into it and the delta's own list (format.h). */
    cs_freelist fl_base;
    uint64_t fl_base_txnid;     /* commit that wrote the base run           */
    uint64_t fl_cursor;
    cs_freelist fl;
    uint64_t fl_txnid;
    uint8_t **page_pool;        /* recycled page buffers                    */
    size_t npool, cap_pool;
    uint8_t *stage;             /* writer's coalescing buffer (commit)      */
    _Atomic int live_txns;
    _Atomic uint32_t slot_hint;  /* where to look for a free reader slot */
    _Atomic int panic;          /* a flush failed: writes refused           */
    bool ready;                 /* open completed (close may flush)         */
    _Atomic bool roots_hinted;  /* the catalog's tree roots were asked for
                                   (tree.c, first cs_tree_open)            */

    cs_lock lock;
    /* Small commits logged instead of written (docs/COMMIT_IO.md, design
     * 4). vol_on: this env has mapped the segment (set once, under mu, after
     * vseg is filled in; read by any thread). vol_want: this env would log
     * (durable, writable, file-backed, CS_ENV_LOG_SMALL), so its first write
     * transaction turns logging on if no process has (vseg_writer_begin). */
    _Atomic bool vol_on;
    bool vol_want;
    /* A read-only first opener replaying the log into the segment: its one
     * write transaction writes nothing to the file (txn.c lets it begin). */
    bool replaying;
    cs_vseg vseg;
    cs_redo redo;
    char vseg_name[VSEG_NAME_MAX];
};

/* The mapping to use for a snapshot of next_pgno pages (grows the map). */
int io_map_for(cs_env *env, uint64_t next_pgno, const uint8_t **base, uint64_t *pages);
int io_grow_file(cs_env *env, uint64_t need_bytes);
/* Give the OS back the file's bytes past keep_bytes when they are worth a
 * truncation (well past the growth chunk). The caller guarantees that no
 * snapshot a reader holds or a crash could fall back to reaches them (I13).
 * Best effort: a failed truncation leaves the file as it was. */
void io_shrink_file(cs_env *env, uint64_t keep_bytes);
int io_write(cs_env *env, const void *buf, size_t len, uint64_t off);
int io_sync(cs_env *env);
/* Ask the kernel to start reading len bytes at off into the page cache and
 * return at once. Advice only: a failure changes nothing, so none is
 * reported. Cold opens issue their independent reads together with it. */
void io_willneed(int fd, uint64_t off, uint64_t len);
uint8_t *io_page_buf(cs_env *env);               /* one page, from pool  */
void io_page_buf_put(cs_env *env, uint8_t *p);
/* path followed by suffix ("<path>.lock", "<path>-log"), malloc'd: the
 * caller frees it. NULL when out of memory. */
char *path_with(const char *path, const char *suffix);
/* The default hooks (pwrite, fdatasync, posix_fallocate) where user's are NULL. */
void io_init_hooks(cs_env *env, const cs_io_hooks *user);
/* Unmap every mapping and free the page-buffer pool (env close). */
void io_release(cs_env *env);

#endif /* CSTORAGE_OS_H */
