/*
 * format.h — the CStorage on-disk format: data file, pages, meta, lock file.
 *
 * All integers are little-endian (the engine refuses big-endian hosts at
 * open). A file is an array of fixed-size pages (4 KiB by default, any power
 * of two 4 KiB..32 KiB, chosen at creation and stored in the meta).
 *
 *  DATA FILE
 *  +--------+--------+------------------------------------------------------+
 *  | page 0 | page 1 | pages 2 .. next_pgno-1: branch, leaf, overflow runs, |
 *  | meta A | meta B | the free-list run, and free pages                    |
 *  +--------+--------+------------------------------------------------------+
 *  Bytes past next_pgno*page_size are preallocated growth room, or pages a
 *  shrinking commit has not yet cut off (I13).
 *
 *  EVERY PAGE starts with a 32-byte header:
 *   off size field
 *     0   4  checksum  CRC-32C of the page (of the whole run for overflow and
 *                      free-list runs; of the first 512 bytes for meta pages), with
 *                      this field taken as 0
 *     4   2  type      1 meta, 2 branch, 3 leaf, 4 overflow, 5 free-list,
 *                      6 compact leaf
 *     6   2  nkeys     cells on a branch/leaf page
 *     8   8  pgno      the page's own number: catches misdirected writes
 *    16   8  txnid     the transaction that wrote the page
 *    24   2  upper     branch/leaf: offset of the lowest cell byte
 *    26   2  frag      branch/leaf: bytes lost in holes between cells
 *    28   4  npages    overflow/free-list: pages in the run (>= 1);
 *                      compact leaf: length of its key prefix (0..64)
 *
 *  META PAGE (only the first 512 bytes are written: one sector, so a power
 *  loss cannot tear it across sectors; the checksum catches a torn write):
 *    32   8  magic       "CSTORE\0\1"
 *    40   4  version     format version: 6 (fixed-value leaves; 5 brought
 *                        uniform leaves, 4 the redo log, 3 the free-list
 *                        delta in the meta, 2 compact leaves); 1 to 5
 *                        files are read as they are, and the first commit
 *                        of this build rewrites both metas as version 6
 *                        (durable one last, each flushed) before any meta
 *                        names a page of a newer kind or carries a delta,
 *                        or any commit is logged, so an older build
 *                        refuses the file rather than misread a page,
 *                        fall back to an old meta or miss logged commits
 *    44   4  page_size
 *    48   8  txnid       commit that wrote this meta; a commit writes the
 *                        page that does NOT hold the newest durable meta,
 *                        so a torn write always leaves that one to fall
 *                        back to (open takes the valid meta with the
 *                        higher txnid)
 *    56   8  next_pgno   first never-used page
 *    64   8  fl_pgno     first page of the free-list run (0 = empty list)
 *    72   8  fl_npages
 *    80  48  catalog     tree descriptor of the catalog tree (below)
 *   128 384  units       single-flush commits only (header nkeys = n > 0):
 *                        n x (u64 pgno, u32 npages, u32 checksum), every
 *                        page or run the commit wrote; zero otherwise
 *   then     delta       version 3, header upper = its length in bytes
 *                        (0 = none; 16 n + upper <= 384): the free list's
 *                        change since the run fl_pgno (FREE-LIST DELTA)
 *
 *  TWO WAYS TO COMMIT (CS_DURABLE_FULL). Either the data is flushed, then
 *  the meta is written and flushed (two flushes), or — when the commit wrote
 *  at most CS_META_UNITS units and no deferred commit is pending — data and
 *  meta are written together and flushed once, the meta listing the units.
 *  After a crash such a meta counts only if every listed unit is on disk as
 *  written (checksum, pgno and txnid match); otherwise open falls back to the
 *  other meta, which was durable before this commit began and whose pages
 *  this commit could not have reused (free pages are reused only once the
 *  commit after the one that freed them is durable).
 *
 *  TREE DESCRIPTOR (48 bytes; in the meta for the catalog, as the catalog
 *  value for each named tree):
 *     0   8  root        root page, 0 = empty tree
 *     8   8  entries     number of keys (O(1) count)
 *    16   4  depth       levels, 0 for an empty tree, leaves are level 1
 *    20   4  flags       reserved (0)
 *    24   8  branch_pages
 *    32   8  leaf_pages
 *    40   8  overflow_pages
 *
 *  BRANCH AND LEAF PAGES are slotted pages:
 *  +--------+---------------------+-----------+------------------------+
 *  | header | slot[0..nkeys-1]    | free      | cells (grow downwards) |
 *  +--------+---------------------+-----------+------------------------+
 *  32       32+2*nkeys            upper                       page_size
 *  slot[i] is the u16 offset of cell i; slots are in key order (memcmp,
 *  shorter first on a tie).
 *
 *  Leaf cell:    u16 klen | u32 vlen | key | value            (inline value)
 *                u16 klen | u32 vlen|0x80000000 | key | u64 overflow pgno
 *    (type 3, the leaf of format version 1: still read; rewritten as type
 *    6 when a commit copies it, or kept as type 3 in the rare case its
 *    cells do not fit a compact leaf: an overflow value's varint can take
 *    a byte more than the u32)
 *  COMPACT LEAF (type 6): the keys' longest common prefix (capped at 64
 *  bytes) is stored once, at the page end, and each cell holds the rest:
 *  +--------+------------------+------+-------------------+--------+
 *  | header | slot[0..nkeys-1] | free | cells             | prefix |
 *  +--------+------------------+------+-------------------+--------+
 *  32                          upper    page_size - npages  page_size
 *    cell: varint slen | varint (vlen << 1 | overflow) | key suffix (slen)
 *          | value (vlen) or u64 overflow pgno          (varint: LEB128)
 *    key i = prefix | suffix i. npages holds the prefix length in its low
 *    byte and U in its second (higher bits 0). U = 0: cells as above. U > 0
 *    (a UNIFORM leaf, format version 5): every suffix has U - 1 bytes, and
 *    cells leave out `varint slen` — a tree of fixed-length keys (object
 *    keys, list element keys) saves a byte per entry. npages' upper 16
 *    bits hold V: V = 0, each cell stores its value word; V > 0 (a
 *    FIXED-VALUE leaf, format version 6), every value is inline and V - 1
 *    bytes long, and cells leave out `varint (vlen << 1 | overflow)` —
 *    fixed-size records, index and list entries save one or two bytes
 *    each (no cell is left empty: a uniform leaf of empty suffixes and
 *    empty values has V = 0). Every cell lies in [upper, page_size - prefix length); an empty
 *    leaf has npages 0. Writers re-derive the prefix, U and V whenever
 *    they lay the page out (split, merge, a key outside the prefix, a key
 *    or value of another length); U and V are properties of the page's
 *    current cells, not of the tree: an insert of a key or value of
 *    another length lays the page out again without them.
 *    Keys are not contiguous in the page: readers assemble them.
 *  Branch cell:  u64 child | u64 count | u16 klen | key
 *    A branch with n cells has n children. key[0] is ignored (stored empty):
 *    child i holds keys k with key[i] <= k < key[i+1]. `count` is the
 *    number of entries under child i, which gives O(log n) rank access.
 *  Cells never exceed max_cell (about a third of a page) so that a split
 *  always yields two pages that fit.
 *
 *  OVERFLOW RUN: npages contiguous pages; header then the value's bytes
 *  (vlen, from the leaf cell), contiguous in the map so a read is zero-copy.
 *
 *  FREE-LIST RUN: header, then
 *    u64 nfree | u64 ngroups | nfree x (u64 start, u64 len)
 *    | ngroups x (u64 txnid, u64 nextents, nextents x (u64 start, u64 len))
 *  `free` extents are reusable now; each group holds the pages freed by
 *  commit `txnid`, reusable once no reader holds a snapshot older than it.
 *  The run is a BASE, written by commit B (its header txnid) and kept by
 *  later commits whose change to the list fits their meta's delta.
 *
 *  FREE-LIST DELTA (version-3 meta, after the units):
 *    u64 cursor | u64 nfree | u64 ngroups | extents and groups as in the run
 *  The base's SEQUENCE is its free extents, then each group's extents, in
 *  the order the run stores them. `cursor` pages from the front of the
 *  sequence have been allocated since B (allocation takes base pages only
 *  in sequence order, and a group's only once it is reusable); the rest
 *  keeps its base status (free, or pending in its group). The delta's own
 *  extents are pages freed after B and not allocated since: `free` ones
 *  reusable now, groups (txnid > B, ascending) pending. The free list of
 *  the meta is then (sequence after cursor) + (delta extents), disjoint.
 *  A commit whose delta does not fit beside its units (or that allocated
 *  base pages out of order, or whose auto-shrink step relocates pages or
 *  cuts the file end) writes a new run holding
 *  the whole list instead, with its group the old run, and no delta.
 *  Crash argument: the delta is inside the meta's 512 checksummed bytes,
 *  so it stands or falls with its meta (I1); the base run is a page set
 *  every meta naming it reaches, freed only by the commit that replaces it
 *  and reused only under I7's rule like any freed page; so the meta open
 *  lands on names exactly one free list, built from pages it reaches.
 *
 *  CATALOG: a B+ tree (descriptor in the meta) mapping tree name -> tree
 *  descriptor.
 *
 *  LOCK FILE "<data path>.lock" (host-specific: contains a pthread mutex;
 *  rebuilt by the first process that opens the database):
 *    header (cs_lock_hdr, below) | max_readers x reader slot (64 bytes each)
 *  The header holds the robust process-shared writer mutex, and the newest
 *  meta (double-buffered behind a publish counter) so that readers take a
 *  snapshot without a syscall. A reader slot holds (pid, snapshot txnid); 0 = not reading.
 *  OFD byte-range locks on the lock file: byte 0 serialises initialisation;
 *  a shared lock on byte 1 is held by every process with the env open (the
 *  first to get it exclusively rebuilds the file); a shared lock on byte
 *  CS_LOCK_PID_BASE + pid marks a process alive, so stale slots of dead
 *  processes can be told apart from those of a reused pid.
 *
 *  REDO LOG "<data path>-log" (redo.c; docs/COMMIT_IO.md, design 4): the
 *  entry changes of small commits whose pages are not yet in the data file.
 *  No header; records start at offset 0 and at every multiple of
 *  REDO_ALIGN after the previous one (zero padding), so writing one never
 *  rewrites a sector of an earlier one:
 *    u32 magic | u32 length (header + ops, unpadded) | u64 epoch
 *    | u64 txnid | u32 nops | u32 crc (CRC-32C of [0, length), field as 0)
 *    | ops
 *  op: u8 kind, then (varint = LEB128 u32)
 *    REDO_TREE  varint flags | varint nlen | name   later ops apply to it
 *    REDO_PUT   varint klen | key | varint vlen | value
 *    REDO_DEL   varint klen | key
 *    REDO_DROP  varint nlen | name
 *  `epoch` is the txnid of the durable meta the log follows: the records of
 *  the log are the run from offset 0 whose epoch is that meta's txnid and
 *  whose txnids are epoch + 1, epoch + 2, ... with valid CRCs; the first
 *  record that breaks the run ends the log. Records left from an earlier
 *  epoch carry a smaller epoch, so a log restarted at offset 0 never
 *  continues into them.
 *
 *  VOLATILE PAGES (vpage.c; not on disk): the pages of commits logged in
 *  the redo log live in a POSIX shared-memory segment named from the data
 *  file's device and inode, at page numbers from VPAGE_BASE up (far past
 *  any file's last page, so `pgno < next_pgno` still means a file page):
 *    header (cs_vseg_hdr, below; whole pages) | arena of pages
 *  Page VPAGE_BASE + i is the segment's page i (i >= the header's pages).
 *  The process that turns logging on empties the segment: the first
 *  opener when the log holds records to replay, else the first write
 *  transaction that would log (an open that only reads makes no segment).
 *  The rest map it when they next begin a transaction. The header's state is double-buffered by txnid parity, like the
 *  published meta, so a writer that dies before publishing leaves the
 *  state of the published commit whole.
 *   V1  a file page never refers to a volatile page (a file page is written
 *       by a fold or a full commit, when nothing below it was volatile), so
 *       a fold finds every volatile page by descending from the roots
 *       through volatile and dirty pages only.
 *   V2  a file page that a logged commit frees stays allocated until the
 *       fold after it is durable: after a crash, replay starts from the
 *       durable meta, whose trees still reach it.
 *
 *  INVARIANTS. Code that relies on one cites it by number; cs_check
 *  (check.c) prefixes each problem it reports with the number it breaks.
 *  Per snapshot (a valid meta and everything reachable from it):
 *   I1  meta: a meta page is valid iff magic, version, page_size and the
 *       CRC-32C of its first 512 bytes match. Open takes the valid meta
 *       with the higher txnid; a single-flush meta (nkeys = n > 0) counts
 *       only if each of its n units is on disk with the listed checksum,
 *       its own pgno and the meta's txnid (else the other meta). A commit
 *       writes the meta page that does not hold the newest durable meta.
 *   I2  page checksums: every page or run carries the CRC-32C of its bytes
 *       (field taken as 0) and its own pgno. cs_check, the free-list load
 *       and I1's unit check verify them; tree reads are zero-copy and
 *       rely on I8's bounds checks instead.
 *   I3  key order within a node: the keys of a leaf (a compact leaf's
 *       assembled ones), and keys 1..n-1 of a branch (key[0] is ignored),
 *       are 1..CS_MAX_KEY bytes and strictly ascending (memcmp, shorter
 *       first on a tie).
 *   I4  separator ranges: every key under child i of a branch lies in
 *       [key[i], key[i+1]) (unbounded below for i = 0 and above for the
 *       last child, within the parent's own range).
 *   I5  entry counts: a branch cell's count equals the entries under its
 *       child; a tree descriptor's entries and branch/leaf/overflow page
 *       counts equal its tree's.
 *   I6  page accounting: every page below next_pgno is exactly one of:
 *       meta (0, 1), tree page, overflow page, free-list run page, free
 *       extent, pending (grouped) extent. None is reached twice (no double
 *       use), none is unreached (no leak), none lies past next_pgno.
 *   I7  snapshot immutability: a page reachable from a committed meta is
 *       never written again while a reader may hold that snapshot or while
 *       it is the durable meta's fallback. Writers copy on write; pages
 *       freed by commit T are reusable only once
 *       T <= min(oldest reader snapshot, durable txnid - 1).
 *   I8  node structure: a branch/leaf page has a sane header (type, own
 *       pgno, slot array below upper <= page size, frag within the free
 *       space) and every cell lies inside the page. A compact leaf's
 *       prefix is at most 64 bytes, upper <= page size - prefix, and each
 *       cell's varints and bytes lie in [upper, page size - prefix).
 *   I9  tree shape: all leaves sit at level depth (1..CS_MAX_DEPTH), no
 *       tree page is empty, and root = 0 iff depth = 0.
 *   I10 overflow runs: the run of a value of vlen bytes has type overflow,
 *       its own pgno and npages = ceil((32 + vlen) / page size).
 *   I11 free list: the run parses (counts within the run, groups in
 *       ascending txnid) and every extent lies in [2, next_pgno); the
 *       delta parses, its cursor lies within the base's sequence and its
 *       groups follow the base's commit, ascending, up to the meta's. I6
 *       counts the sequence after the cursor and the delta's extents.
 *   I12 catalog: every catalog value is a 48-byte tree descriptor with
 *       root < next_pgno and depth <= CS_MAX_DEPTH.
 *  Across snapshots (auto-shrink, cs_options.auto_shrink):
 *   I13 file length: next_pgno may drop from one commit to the next (free
 *       pages at the end leave the file), but the file is never shorter
 *       than the next_pgno of the durable meta or of the meta a crash could
 *       fall back to, and pages past the end are reachable from no
 *       snapshot a reader holds (they came from the free pool, I7). So a
 *       reader of any process never touches a page past the end of the
 *       file, although its mapping extends past it.
 */
#ifndef CSTORAGE_FORMAT_H
#define CSTORAGE_FORMAT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define CS_MAGIC 0x0100455241544353ull /* "CSTORE\0\1" little-endian */
#define CS_FORMAT_VERSION 6u /* metas written; 1 (type-3 leaves only), 2 (no delta), 3 (no redo log), 4 (no uniform leaves) and 5 (no fixed-value leaves) are read too */
#define CS_FORMAT_VERSION_MIN 1u
#define CS_DEFAULT_PAGE_SIZE 4096u
#define CS_MIN_PAGE_SIZE 4096u
#define CS_MAX_PAGE_SIZE 32768u /* offsets are u16 */
#define CS_META_BYTES 512u
#define CS_META_UNITS 24u /* (512 - 128) / 16: units a single-flush meta lists */
#define CS_META_TAIL 384u /* bytes after the meta struct: units, then the delta */

/* One page or run written by a commit, as listed by a single-flush meta. */
typedef struct cs_commit_unit {
    uint64_t pgno;
    uint32_t npages;
    uint32_t checksum;
} cs_commit_unit;
_Static_assert(sizeof(cs_commit_unit) == 16, "commit unit is 16 bytes");

enum cs_page_type {
    PT_META = 1,
    PT_BRANCH = 2,
    PT_LEAF = 3,
    PT_OVERFLOW = 4,
    PT_FREELIST = 5,
    PT_LEAF6 = 6, /* compact leaf (format version 2) */
};

typedef struct cs_page_hdr {
    uint32_t checksum;
    uint16_t type;
    uint16_t nkeys;
    uint64_t pgno;
    uint64_t txnid;
    uint16_t upper;
    uint16_t frag;
    uint32_t npages;
} cs_page_hdr;
#define PAGE_HDR 32u
_Static_assert(sizeof(cs_page_hdr) == PAGE_HDR, "page header is 32 bytes");

typedef struct cs_tree_desc {
    uint64_t root;
    uint64_t entries;
    uint32_t depth;
    uint32_t flags;
    uint64_t branch_pages;
    uint64_t leaf_pages;
    uint64_t overflow_pages;
} cs_tree_desc;
_Static_assert(sizeof(cs_tree_desc) == 48, "tree descriptor is 48 bytes");

typedef struct cs_meta {
    cs_page_hdr hdr;
    uint64_t magic;
    uint32_t version;
    uint32_t page_size;
    uint64_t txnid;
    uint64_t next_pgno;
    uint64_t fl_pgno;
    uint64_t fl_npages;
    cs_tree_desc catalog;
} cs_meta;
_Static_assert(sizeof(cs_meta) == 128, "meta is 128 bytes");

/* Leaf and branch cell headers (unaligned in the page: read with memcpy). */
#define LEAF_CELL_HDR 6u      /* u16 klen, u32 vlen (+flag)                 */
#define BRANCH_CELL_HDR 18u   /* u64 child, u64 count, u16 klen             */
#define VLEN_OVERFLOW 0x80000000u
#define OVERFLOW_REF 8u       /* u64 first page of the overflow run         */
#define LEAF6_PREFIX_MAX 64u  /* longest shared prefix a compact leaf stores */
#define LEAF6_PREFIX_MASK 0xffu /* npages of a compact leaf: prefix length | U << 8 | V << 16 */
#define LEAF6_UNIFORM_MAX 254u /* longest suffix a uniform leaf leaves out of its cells */
#define LEAF6_FIXED_MAX 0xfffeu /* longest value a fixed-value leaf leaves its length out for */

/* ---- Redo log ---- */
#define REDO_MAGIC 0x4c524353u   /* "SCRL"                                  */
#define REDO_HDR 32u             /* record header bytes                      */
#define REDO_ALIGN 512u          /* records start on sector boundaries       */
enum { REDO_TREE = 1, REDO_PUT = 2, REDO_DEL = 3, REDO_DROP = 4 };

/* ---- Volatile pages ---- */
#define VPAGE_BASE (1ull << 48)          /* page number of segment page 0   */
#define VSEG_MAGIC 0x474553504c4f5643ull /* "CVOLPSEG"                      */
#define VSEG_VERSION 1u
#define VSEG_PENDING_MAX 1024u           /* extents of V2's pending pages    */
typedef struct vseg_state {
    uint64_t txnid;       /* the published commit this state belongs to     */
    uint64_t hwm;         /* arena pages handed out: [first_page, hwm)      */
    uint64_t npending;    /* pending[0, npending): file pages freed by
                             logged commits since the fold (V2)             */
    uint64_t log_off;     /* where the next redo record goes                */
    uint64_t epoch;       /* the last durable commit written whole: the
                             redo log's epoch                               */
    uint64_t clean_txnid; /* the last commit written whole (durable or
                             deferred): no snapshot from it on reaches an
                             arena page handed out before it                */
    uint64_t logged;      /* 1: this commit is in the log (not in the file) */
} vseg_state;
typedef struct cs_vseg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t psize;
    uint64_t first_page;          /* the arena's first page (after this)   */
    _Atomic uint64_t size_pages;  /* the segment's size; only grows        */
    vseg_state state[2];          /* state[txnid & 1]                      */
    struct { uint64_t start, len; } pending[VSEG_PENDING_MAX];
} cs_vseg_hdr;

/* ---- Lock file ---- */
#define CS_LOCK_MAGIC 0x4b434f4c53435352ull /* "RSCSLOCK" */
/* 4: writers may cut the data file (auto-shrink, I13). A writer of version
 * 3 trusts its memory of the file size and could leave the file shorter than
 * its commit after a cut, so builds of the two versions must not share a
 * file at once: the lock file refuses the other. 5: compact leaves (data
 * format 2), which a version-4 build sharing the file could not read. 6: the
 * published meta's free-list delta (data format 3). 7: logged commits,
 * whose pages a version-6 build would not find. 8: logging turns on at the
 * first write that wants it, not at the first open; a version-7 process
 * looks at vol_on only when it opens, so it would miss the segment. */
#define CS_LOCK_VERSION 8u
#define CS_LOCK_PID_BASE (1ull << 32)

typedef struct cs_reader_slot {
    _Atomic uint64_t txnid;  /* snapshot held; 0 = none                      */
    _Atomic uint32_t pid;    /* owner; 0 = free slot                         */
    uint32_t pad0;
    uint8_t pad[48];         /* one cache line per slot: no false sharing   */
} cs_reader_slot;
_Static_assert(sizeof(cs_reader_slot) == 64, "reader slot is a cache line");

typedef struct cs_lock_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t max_readers;
    uint32_t mutex_size;       /* sizeof(pthread_mutex_t) of the creator    */
    _Atomic uint32_t slots_hwm;/* slots [0, hwm) may be in use              */
    _Atomic uint64_t meta_seq; /* publishes so far; meta[meta_seq & 1] is  */
    cs_meta meta[2];           /* the newest committed meta (two copies, so
                                  a writer killed mid-publish leaves it whole) */
    uint8_t delta[2][CS_META_TAIL]; /* meta[i]'s free-list delta (hdr.upper
                                  bytes): writers and cs_check read it     */
    uint64_t durable_txnid;    /* newest meta written to the file; deferred
                                  commits are newer (writer mutex guards)   */
    uint32_t durable_slot;     /* meta page (0/1) holding durable_txnid     */
    _Atomic uint32_t commit_waiters; /* threads in cs_env_wait_commit, any
                                  process: a publish then wakes the futex on
                                  meta_seq's low word                       */
    _Atomic uint32_t vol_on;   /* 1: small commits are logged (design 4)
                                  and the page segment exists. Set (never
                                  cleared) by a writer, under the writer
                                  mutex, before its first logged commit's
                                  meta is published: a snapshot that
                                  reaches a volatile page was taken after
                                  it, and its reader maps the segment
                                  (vseg_attach) before reading            */
    uint8_t pad0[64];
    pthread_mutex_t writer;    /* robust, process-shared, error-checking    */
    uint8_t pad1[64];
} cs_lock_hdr;
#define LOCK_HDR_SIZE ((sizeof(cs_lock_hdr) + 63u) & ~(size_t)63u)

#endif /* CSTORAGE_FORMAT_H */
