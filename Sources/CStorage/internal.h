/*
 * internal.h — the engine's in-memory structures and the functions its
 * files offer each other. Nothing here is public API.
 *
 * LAYERS, lowest first. A function may call functions of its own layer and
 * of the layers below, never above (scripts/check_layers.py checks this in
 * `make ctest`; it reads the table below and the "==== L<n>" sections that
 * order this file's declarations the same way).
 *  L0  base      error.c crc32c.c vec.c: error detail, log messages, CRC-32C, extent vectors; calls libc only
 *  L1  format    meta.c node.c freelist.c: the on-disk structures (meta pages, slotted nodes, the free-list run), bytes in and out; calls L0
 *  L2  os        io.c lock.c redo.c vpage.c: data-file writes/flushes/growth, mappings and the page-buffer pool; the lock file (writer mutex, reader table, published meta); the redo log of small commits and the shared segment of their pages; calls L0-L1
 *  L3  txnstate  internal.h: struct cs_txn and the gates txn_check/txn_note (inline); calls L0
 *  L4  pager     pager.c: pages as a txn sees them, dirty pages, allocation, copy-on-write; calls L0-L3
 *  L5  btree     btree_search.c btree_rank.c btree.c relocate.c: search, insert/split, delete/merge, rank over one tree descriptor; auto-shrink's page moves; calls L0-L4
 *  L6  trees     tree.c: the tree-name registry, the catalog, a txn's descriptors, cs_tree_* and cs_get/put/del/count; calls L0-L5
 *  L7  access    cursor.c diff.c filter.c fts.c replay.c: cursors, snapshot diffs, value filters, full-text index and search; a write txn's changes as redo ops and back; calls L0-L6
 *  L8  txn       txn.c: begin (snapshot or writer), clone, reset, renew, abort; calls L0-L7
 *  L9  commit    commit.c: the commit steps C1-C7, flushing deferred commits, the auto-shrink step; calls L0-L8
 *  L10 env       env.c check.c: cs_env_open/close/sync/info, cs_check; calls L0-L9
 *  L11 files     copy.c: cs_env_copy (a compact copy through the public calls), cs_env_compact (that copy renamed over the file); calls L0-L10
 */
#ifndef CSTORAGE_INTERNAL_H
#define CSTORAGE_INTERNAL_H

#include "cstorage.h"
#include "format.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define CS_UNUSED(x) ((void)(x))
#define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)

_Static_assert(CSTORAGE_FORMAT_VERSION == CS_FORMAT_VERSION, "cstorage.h names the format version format.h defines");

/* ==== L0 base: error.c crc32c.c vec.c ==== */

/* Unaligned little-endian fields (the engine runs on little-endian hosts). */
static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* ---- error.c ---- */
/* Record a detail message for the calling thread and return err. */
int cs_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An env's log function (cs_options.log) and its level, which
 * cs_env_set_log_level may change from any thread. */
typedef struct cs_logger {
    cs_log_fn fn;
    void *ctx;
    _Atomic uint32_t level;
} cs_logger;
/* Whether a message at lv would be sent: test it before gathering what a
 * message needs (a clock read, counts); cs_log tests it again. */
static inline bool log_on(cs_logger *lg, cs_log_level lv)
{
    return lg->fn && lv != CS_LOG_OFF && (uint32_t)lv <= atomic_load_explicit(&lg->level, memory_order_relaxed);
}
/* Format and send one message if lv is on; the calling thread's error
 * detail (cs_last_error_detail) is kept across the call. Callers hold no
 * engine lock (cstorage.h, cs_log_fn). */
void cs_log(cs_logger *lg, cs_log_level lv, cs_log_topic topic, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- crc32c.c ---- */
uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len);
/* Checksum of a page run with its checksum field read as zero. */
uint32_t cs_page_checksum(const uint8_t *page, size_t len);

/* ---- small vectors (vec.c) ---- */
typedef struct cs_extent {
    uint64_t start, len;
} cs_extent;
typedef struct cs_extvec {
    cs_extent *v;
    size_t n, cap;
} cs_extvec;
int extvec_push(cs_extvec *ev, uint64_t start, uint64_t len);
int extvec_append(cs_extvec *dst, const cs_extvec *src);
int extvec_append_n(cs_extvec *dst, const cs_extent *src, size_t n);
int extvec_reserve(cs_extvec *ev, size_t more); /* room for `more` after the n there are */
void extvec_normalize(cs_extvec *ev);   /* sort by start, merge adjacent  */
/* dst = sorted extents a[0..an) merged with add (sorted here); a may be dst's
 * own storage. */
int extvec_merge(cs_extvec *dst, const cs_extent *a, size_t an, cs_extvec *add);
uint64_t extvec_pages(const cs_extvec *ev);
void extvec_free(cs_extvec *ev);

/* ==== L1 format: meta.c node.c freelist.c ==== */

/* ---- meta.c ---- */
void meta_seal(cs_meta *m);                        /* sets the checksum  */
bool meta_valid(const uint8_t *page, uint32_t psize_hint);
/* Bytes of m's free-list delta (0 before version 3), and where they lie in
 * its page (after the units; meta_valid checked that they fit). */
uint32_t meta_delta_len(const cs_meta *m);
const uint8_t *meta_delta(const uint8_t *page, const cs_meta *m);
/* An intact meta page of another format version (*version set). */
bool meta_other_version(const uint8_t *page, uint32_t *version);
/* Pick the newest valid meta of a file's first two pages. Returns CS_OK,
 * CS_EFORMAT (not our file), or CS_ECORRUPT (ours, but no valid meta). */
int meta_choose(const uint8_t *p0, const uint8_t *p1, size_t avail, cs_meta *out, uint32_t *slot);
/* meta_choose, then: if the newer meta is a single-flush one whose units are
 * not all on disk in `fd` (a crash before its flush completed), the other. */
int meta_choose_durable(const uint8_t *p0, const uint8_t *p1, size_t avail, int fd, cs_meta *out, uint32_t *slot);

/* ---- node.c: slotted branch/leaf pages ---- */
typedef struct cs_cellref {
    const uint8_t *p;
    uint32_t size;
} cs_cellref; /* a cell to (re)build a page from */

static inline const cs_page_hdr *PH(const uint8_t *pg) { return (const cs_page_hdr *)(const void *)pg; }
static inline cs_page_hdr *PHW(uint8_t *pg) { return (cs_page_hdr *)(void *)pg; }
static inline uint16_t node_n(const uint8_t *pg) { return PH(pg)->nkeys; }
static inline bool node_is_leaf(const uint8_t *pg) { return PH(pg)->type == PT_LEAF || PH(pg)->type == PT_LEAF6; }
static inline bool node_is_compact(const uint8_t *pg) { return PH(pg)->type == PT_LEAF6; }
/* A compact leaf's shared key prefix: its length (the header's npages) and
 * bytes (the page's last bytes, above the cells). */
static inline uint32_t node_prefix_len(const uint8_t *pg) { return PH(pg)->type == PT_LEAF6 ? PH(pg)->npages : 0; }
static inline const uint8_t *node_prefix(const uint8_t *pg, uint32_t psize) { return pg + psize - node_prefix_len(pg); }
static inline uint16_t node_slot(const uint8_t *pg, unsigned i) { return rd16(pg + PAGE_HDR + 2 * i); }

/* A cell's key, validated against the page bounds. */
typedef struct cs_key {
    const uint8_t *p;
    uint32_t len;
} cs_key;

uint32_t node_max_cell(uint32_t psize);
/* Validate the header of a branch/leaf page, I8 (inline: every descent checks
 * each page it visits). */
static inline int node_check(const uint8_t *pg, uint32_t psize, uint64_t pgno)
{
    const cs_page_hdr *h = PH(pg);
    uint32_t top = psize - (h->type == PT_LEAF6 ? h->npages : 0);
    if (CS_UNLIKELY((h->type != PT_BRANCH && h->type != PT_LEAF && h->type != PT_LEAF6) || h->pgno != pgno ||
                    (h->type == PT_LEAF6 && h->npages > LEAF6_PREFIX_MAX) ||
                    (uint32_t)PAGE_HDR + 2u * h->nkeys > h->upper || h->upper > top ||
                    h->frag > psize - h->upper))
        return cs_fail(CS_ECORRUPT, "page %llu: bad branch/leaf header (type %u, %u keys)",
                       (unsigned long long)pgno, h->type, h->nkeys);
    return CS_OK;
}
/* CS_ECORRUPT for cell i of pg (its offsets point outside the page). */
int node_bad_cell(const uint8_t *pg, unsigned i);
/* The key of cell i, `leaf` saying which kind of page pg is (searches know
 * it, so the choice folds away). */
static inline __attribute__((always_inline)) int node_cell_key(const uint8_t *pg, uint32_t psize, bool leaf, unsigned i,
                                                               cs_key *k)
{
    uint32_t off = node_slot(pg, i), hdr = leaf ? LEAF_CELL_HDR : BRANCH_CELL_HDR;
    if (CS_UNLIKELY(off < PAGE_HDR || off + hdr > psize)) return node_bad_cell(pg, i);
    uint32_t kl = rd16(pg + off + (leaf ? 0 : 16));
    if (CS_UNLIKELY(off + hdr + kl > psize)) return node_bad_cell(pg, i);
    k->p = pg + off + hdr;
    k->len = kl;
    return CS_OK;
}
/* The key of cell i of a branch or a leaf of type 3 (contiguous in the
 * page); a compact leaf's keys are not, so they go through node_leaf_key. */
static inline int node_key(const uint8_t *pg, uint32_t psize, unsigned i, cs_key *k)
{
    if (CS_UNLIKELY(node_is_compact(pg))) return cs_fail(CS_EINVAL, "node_key on a compact leaf");
    return node_cell_key(pg, psize, node_is_leaf(pg), i, k);
}
/* The key of leaf cell i, either leaf type: points into the page, or
 * (compact leaf) assembled into buf (CS_MAX_KEY bytes). */
int node_leaf_key(const uint8_t *pg, uint32_t psize, unsigned i, uint8_t *buf, cs_key *k);
int node_cell_size(const uint8_t *pg, uint32_t psize, unsigned i, uint32_t *size);
/* Branch cell i's child and entry count. A cell outside the page (a
 * damaged slot: load_node checks a page's header, not every slot) reads as
 * child 0 and count 0, and is never written: page 0 is a meta, so loading
 * "child 0" reports the damage instead of reading past the page. */
static inline bool branch_cell_ok(const uint8_t *pg, uint32_t psize, unsigned i)
{
    /* off in [PAGE_HDR, psize - BRANCH_CELL_HDR] as one unsigned compare. */
    uint32_t off = node_slot(pg, i);
    return CS_LIKELY(off - PAGE_HDR <= psize - PAGE_HDR - BRANCH_CELL_HDR);
}
static inline uint64_t branch_child(const uint8_t *pg, uint32_t psize, unsigned i)
{
    return branch_cell_ok(pg, psize, i) ? rd64(pg + node_slot(pg, i)) : 0;
}
static inline uint64_t branch_count(const uint8_t *pg, uint32_t psize, unsigned i)
{
    return branch_cell_ok(pg, psize, i) ? rd64(pg + node_slot(pg, i) + 8) : 0;
}
static inline void branch_set_child(uint8_t *pg, uint32_t psize, unsigned i, uint64_t c)
{
    if (branch_cell_ok(pg, psize, i)) wr64(pg + node_slot(pg, i), c);
}
static inline void branch_set_count(uint8_t *pg, uint32_t psize, unsigned i, uint64_t c)
{
    if (branch_cell_ok(pg, psize, i)) wr64(pg + node_slot(pg, i) + 8, c);
}
/* Bytes of v as LEB128, and v written at p (which has varint_len(v)). */
static inline uint32_t varint_len(uint32_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}
static inline uint32_t varint_put(uint8_t *p, uint32_t v)
{
    uint32_t n = 0;
    while (v >= 0x80) p[n++] = (uint8_t)(v | 0x80), v >>= 7;
    p[n++] = (uint8_t)v;
    return n;
}
/* LEB128 u32 at *p (< end), advancing *p; false if it runs past end. */
static inline __attribute__((always_inline)) bool varint_get(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
    uint32_t v = 0;
    for (unsigned s = 0; s < 35; s += 7) {
        if (CS_UNLIKELY(*p >= end)) return false;
        uint8_t b = *(*p)++;
        v |= (uint32_t)(b & 0x7f) << s;
        if (CS_LIKELY(!(b & 0x80))) {
            *out = v;
            return true;
        }
    }
    return false;
}
/* A compact leaf cell (format.h): key suffix, value word (vlen << 1 |
 * overflow) and the value (or the overflow pgno); *size the cell's bytes.
 * False if the cell does not lie within the page below the prefix. */
typedef struct leaf6_cell {
    const uint8_t *sfx, *v;
    uint32_t sl, vw, size;
} leaf6_cell;
static inline __attribute__((always_inline)) bool leaf6_parse(const uint8_t *pg, uint32_t psize, unsigned i, leaf6_cell *c)
{
    uint32_t off = node_slot(pg, i);
    const uint8_t *p = pg + off, *end = pg + psize - PH(pg)->npages;
    if (CS_UNLIKELY(off < PAGE_HDR || p >= end)) return false;
    /* The common cell without the varint loops: a suffix under 128 bytes
     * and a value under 8 KiB (one and at most two varint bytes). */
    if (CS_LIKELY(end - p >= 3 && p[0] < 0x80 && (p[1] < 0x80 || p[2] < 0x80))) {
        c->sl = p[0];
        c->vw = p[1] < 0x80 ? p[1] : (p[1] & 0x7fu) | (uint32_t)p[2] << 7;
        p += p[1] < 0x80 ? 2 : 3;
    } else if (!varint_get(&p, end, &c->sl) || !varint_get(&p, end, &c->vw))
        return false;
    uint32_t vb = (c->vw & 1) ? OVERFLOW_REF : c->vw >> 1;
    if (CS_UNLIKELY((uint64_t)(end - p) < (uint64_t)c->sl + vb)) return false;
    c->sfx = p;
    c->v = p + c->sl;
    c->size = (uint32_t)(c->v + vb - (pg + off));
    return true;
}
/* Leaf value: inline pointer, or the overflow pgno (*ovf true; *v then
 * points at the 8-byte reference in the cell). */
int leaf_value(const uint8_t *pg, uint32_t psize, unsigned i, const uint8_t **v,
               uint32_t *vlen, bool *ovf, uint64_t *ovf_pgno);
/* memcmp order, shorter first on a tie. Inline 8-byte big-endian words:
 * keys are short and a libc call per probe costs more than the compare. */
static inline __attribute__((always_inline)) int key_cmp(const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl)
{
    uint32_t n = al < bl ? al : bl, i = 0;
    if (n >= 8) {
        for (; i + 8 <= n; i += 8) {
            uint64_t x = __builtin_bswap64(rd64(a + i)), y = __builtin_bswap64(rd64(b + i));
            if (x != y) return x < y ? -1 : 1;
        }
        /* The rest as the word ending at n: its leading bytes were equal. */
        if (i < n) {
            uint64_t x = __builtin_bswap64(rd64(a + n - 8)), y = __builtin_bswap64(rd64(b + n - 8));
            if (x != y) return x < y ? -1 : 1;
        }
    } else if (n >= 4) {
        /* Short separators (a branch keeps the shortest that divides): two
         * overlapping 4-byte words instead of a byte loop. */
        uint32_t x = __builtin_bswap32(rd32(a)), y = __builtin_bswap32(rd32(b));
        if (x != y) return x < y ? -1 : 1;
        x = __builtin_bswap32(rd32(a + n - 4)), y = __builtin_bswap32(rd32(b + n - 4));
        if (x != y) return x < y ? -1 : 1;
    } else
        for (; i < n; i++)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return (al > bl) - (al < bl);
}
/* A search key that is text: its first (up to) 16 bytes printable ASCII
 * (names, zero-padded decimal numbers), or text after a binary head — an
 * 8-byte id (a map's or a String set's entry: id ++ UTF-8) or a tag byte
 * (an indexed String: 0x01 ++ bytes). Node searches bisect for these
 * (node.c: interpolating over text guesses badly, and the bounds it needs
 * cost probes and fence copies). */
static inline bool text8(uint64_t w) /* all 8 bytes in 0x20..0x7e (SWAR) */
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    return !(((w - ones * 0x20) & ~w & highs) | (((w + ones * (127 - 0x7e)) | w) & highs));
}
static inline bool printable_run(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (p[i] - 0x20u >= 0x5fu) return false;
    return true;
}
static inline bool key_is_text(const uint8_t *k, uint32_t kl)
{
    if (kl >= 8) {
        if (text8(rd64(k)) && text8(rd64(k + (kl >= 16 ? 8 : kl - 8)))) return true;
        /* After an id: up to four bytes, at least two (a list's order key
         * starts with a length byte; an 8-byte Int element passes by chance
         * once in 50). After a tag: three (Int index keys, as rarely). */
        return (kl >= 10 && printable_run(k + 8, kl < 12 ? kl - 8 : 4)) || (k[0] < 0x20 && printable_run(k + 1, 3));
    }
    for (uint32_t i = 0; i < kl; i++)
        if (k[i] < 0x20 || k[i] > 0x7e) return false;
    return true;
}
/* Lower bound in a leaf (first key >= k); *exact if equal. `fence`: NULL to
 * bisect, else the node's key bounds from its parent ({NULL, 0} each when
 * unknown: the search reads its end keys instead), for an interpolation
 * guess. `guess`: node_prefetch_leaf's answer for these fences, or -1
 * (any value gives the same result; a right one saves recomputing it). */
int node_search_leaf(const uint8_t *pg, uint32_t psize, const uint8_t *k, uint32_t kl,
                     const cs_key *fence, int guess, unsigned *idx, bool *exact);
/* Before a descent reads leaf pg (n entries, keys in [fence[0], fence[1])),
 * ask for the lines its search will want: the header, the slot that an
 * interpolation guess picks and, for a leaf filled by appends, that slot's
 * cell. Reads nothing of pg (prefetches never fault), so pg may be any
 * address in the map. Why: a lookup's leaf is usually a cache miss, and
 * header, prefix, slot and cell are read one after another; asked for at
 * once, their misses overlap. Returns the slot guessed (for
 * node_search_leaf), or -1 if none. */
int node_prefetch_leaf(const uint8_t *pg, uint32_t psize, unsigned n, const uint8_t *k, uint32_t kl,
                       const cs_key *fence);
/* Ask for every line of node pg that holds slots or cells (pg's header,
 * checked by node_check, says which): the lines a search may read, all in
 * flight at once instead of one dependent miss per probe. Reads only the
 * header. */
void node_prefetch_used(const uint8_t *pg, uint32_t psize);
/* The same for reading entry idx of leaf pg (n entries): rank access knows
 * both at the parent. */
void node_prefetch_leaf_entry(const uint8_t *pg, uint32_t psize, unsigned n, unsigned idx);
/* Child index in a branch for key k (last i with key[i] <= k, or 0). */
int node_search_branch(const uint8_t *pg, uint32_t psize, const uint8_t *k, uint32_t kl,
                       const cs_key *fence, unsigned *idx);
void node_init(uint8_t *pg, uint16_t type, uint64_t pgno, uint32_t psize);
uint32_t node_free_space(const uint8_t *pg);     /* contiguous + holes    */
uint32_t node_used(const uint8_t *pg, uint32_t psize);
/* Insert a cell at index i; false if it does not fit (page unchanged). */
bool node_insert(uint8_t *pg, uint32_t psize, unsigned i, const uint8_t *cell, uint32_t size);
/* Whether leaf cell `cell` (type-3 form) may go into pg as it is: its key
 * starts with pg's prefix (always, unless pg is a compact leaf). */
bool leaf_in_prefix(const uint8_t *pg, uint32_t psize, const uint8_t *cell);
void node_remove(uint8_t *pg, uint32_t psize, unsigned i, uint32_t cell_size);
/* Replace the page's cells with the given ones (which may point into the
 * page itself: they are copied through scratch). */
/* A leaf is rebuilt as a compact leaf when its cells fit one
 * (leaf_cells_bytes), else as type 3; false if they fit neither (page
 * unchanged: callers size their halves so that this does not happen). */
bool node_rebuild(uint8_t *pg, uint32_t psize, const cs_cellref *cells, unsigned n, uint8_t *scratch);
uint32_t leaf_cell_build(uint8_t *out, const uint8_t *k, uint32_t kl, const uint8_t *v,
                         uint32_t vl, bool ovf, uint64_t ovf_pgno);
/* Leaf cells outside a page are always in the type-3 form above (a whole
 * key); node_insert/node_rebuild encode them for a compact leaf. These give
 * what they cost there. The longest prefix common to cells[0..n) (sorted:
 * that of the first and last keys), capped at LEAF6_PREFIX_MAX: */
uint32_t leaf_cells_prefix(const cs_cellref *cells, unsigned n);
/* Bytes cell c takes in a compact leaf whose prefix has `plen` bytes, slot
 * included (an upper bound for any longer prefix). */
uint32_t leaf_cell_cost(const cs_cellref *c, uint32_t plen);
/* Bytes a compact leaf needs for cells[0..n): cells, slots and prefix. */
uint32_t leaf_cells_bytes(const cs_cellref *cells, unsigned n);
/* Cells of leaf pg in the type-3 form, written to out (LEAF_DECODE_BYTES(psize)
 * bytes) with references in refs. CS_ECORRUPT for a damaged cell. */
int leaf_decode(const uint8_t *pg, uint32_t psize, uint8_t *out, cs_cellref *refs);
#define LEAF_DECODE_BYTES(psize) ((size_t)(psize) + (size_t)(psize) / 4u * (LEAF_CELL_HDR + LEAF6_PREFIX_MAX))
/* A leaf entry on its way into a compact leaf, read in place: its key in
 * two pieces (a compact leaf's prefix and a cell's suffix, or a whole key
 * and nothing), its value word (vlen << 1 | overflow) and value bytes (vb:
 * the value, or the 8-byte overflow reference), which follow the second
 * piece (k2 + l2 == v) in both cell forms. Splits and prefix changes move
 * entries from page to page this way, with no decoding into whole type-3
 * cells and encoding back. */
typedef struct leaf_part {
    const uint8_t *k1, *k2, *v;
    uint32_t l1, l2, vw, vb;
} leaf_part;
/* Entry i of compact leaf pg; false if its cell is damaged. */
bool leaf6_part(const uint8_t *pg, uint32_t psize, unsigned i, leaf_part *e);
/* A leaf cell in the type-3 form (leaf_cell_build's). */
void leaf_part_of_cell(const uint8_t *cell, leaf_part *e);
/* Bytes e takes in a compact leaf whose prefix has plen bytes, slot
 * included (e's key starts with that prefix). */
uint32_t leaf_part_cost(const leaf_part *e, uint32_t plen);
/* The longest prefix a's and b's keys share, capped at LEAF6_PREFIX_MAX
 * (for a sorted run of entries: that of its first and last). */
uint32_t leaf_parts_prefix(const leaf_part *a, const leaf_part *b);
/* e's whole key into buf (CS_MAX_KEY bytes); its length. */
uint32_t leaf_part_key(const leaf_part *e, uint8_t *buf);
/* Lay out pg as a compact leaf of entries e[0..n) (sorted; their keys
 * share plen bytes) through psize bytes of scratch: e may point into pg.
 * False, page unchanged, if they do not fit or a key does not start with
 * the prefix (a damaged page: its keys were not sorted). */
bool leaf_write(uint8_t *pg, uint32_t psize, const leaf_part *e, unsigned n, uint32_t plen, uint8_t *scratch);
/* Overwrite leaf cell idx with `cell` (type-3 form) if its encoding has the
 * old cell's size; false (page unchanged) otherwise. */
bool leaf_overwrite(uint8_t *pg, uint32_t psize, unsigned idx, const uint8_t *cell, uint32_t size);
uint32_t branch_cell_build(uint8_t *out, uint64_t child, uint64_t count, const uint8_t *k, uint32_t kl);

/* ---- freelist.c ---- */
/* Pages freed by commit `txnid`: reusable once every reader's snapshot is
 * >= txnid (those pages were live only in snapshots older than txnid). */
typedef struct fl_group {
    uint64_t txnid;
    cs_extvec ext;
} fl_group;
typedef struct cs_freelist {
    cs_extvec free;          /* reusable now, sorted and coalesced          */
    fl_group *groups;        /* ascending txnid                             */
    size_t ngroups, cap;
} cs_freelist;
void freelist_free(cs_freelist *fl);
int freelist_add_group(cs_freelist *fl, uint64_t txnid, cs_extvec *ext); /* takes ext */
/* dst (uninitialized) becomes a copy of src; CS_ENOMEM (dst then empty). */
int freelist_copy(cs_freelist *dst, const cs_freelist *src);
/* Move groups with txnid <= limit into fl->free. */
int freelist_release(cs_freelist *fl, uint64_t limit);
size_t freelist_serial_size(const cs_freelist *fl, size_t extra_extents);
void freelist_serialize(const cs_freelist *fl, uint8_t *payload);
/* Parse a free-list run (page pointer to its first page); validates
 * bounds against next_pgno and the checksum. */
int freelist_load(const uint8_t *run, uint64_t npages, uint32_t psize,
                  uint64_t next_pgno, cs_freelist *out);
/* The delta of a version-3 meta (format.h, FREE-LIST DELTA): its bytes,
 * written from the cursor and the delta's own list, and read back with
 * bounds (extents within next_pgno, groups in (base_txnid, txnid]). */
size_t freelist_delta_size(const cs_freelist *delta);
void freelist_delta_encode(uint64_t cursor, const cs_freelist *delta, uint8_t *out);
int freelist_delta_decode(const uint8_t *p, size_t len, uint64_t base_txnid, uint64_t txnid, uint64_t next_pgno,
                          uint64_t *cursor, cs_freelist *out);
/* The base's sequence after its first `cursor` pages, as a list (the free
 * extents left, then each group's); CS_ECORRUPT if the cursor is past it. */
int freelist_rest(const cs_freelist *base, uint64_t cursor, cs_freelist *out);
/* dst += src (src's groups must follow dst's); src is consumed. */
int freelist_join(cs_freelist *dst, cs_freelist *src);

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
 * an error. CS_EIO, CS_ENOMEM, or fn's code. */
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

/* Deep trees whose root's children a cold open asks for (tree.c), and the
 * most children it asks for at once: a fuller root belongs to a tree so
 * large that reading a level of it would crowd out the caller's reads. */
#define CS_DEEP_ROOTS 8
#define CS_CHILD_HINTS_MAX 32

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
    /* Roots asked for by tree_hint_roots of trees three levels deep or
     * more, whose children are asked for at the tree's first open (tree.c;
     * guarded by mu, deep_pending read without it). */
    uint64_t deep_roots[CS_DEEP_ROOTS];
    _Atomic uint32_t deep_pending;

    cs_lock lock;
    /* Small commits logged instead of written (docs/COMMIT_IO.md, design
     * 4): on when the segment and the log opened (durable, file-backed). */
    bool vol_on;
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
/* Whether the memory page holding p (inside a file mapping) is in the page
 * cache, i.e. reading it will not wait for the disk; false when unknown. */
bool io_resident(const void *p);
uint8_t *io_page_buf(cs_env *env);               /* one page, from pool  */
void io_page_buf_put(cs_env *env, uint8_t *p);
/* The default hooks (pwrite, fdatasync, posix_fallocate) where user's are NULL. */
void io_init_hooks(cs_env *env, const cs_io_hooks *user);
/* Unmap every mapping and free the page-buffer pool (env close). */
void io_release(cs_env *env);

/* ==== L3 txnstate: a transaction's state and the gates every call passes ==== */

typedef struct dirty_entry {
    uint64_t pgno;              /* 0 = empty slot                           */
    uint8_t *page;
    uint32_t npages;
} dirty_entry;

typedef struct txn_tree {
    cs_tree_desc desc;
    cs_tree_desc orig;          /* as in the catalog when loaded            */
    uint8_t known;              /* desc looked up in this snapshot          */
    uint8_t exists;
    uint8_t in_catalog;         /* orig came from the catalog               */
    uint8_t dirty;              /* desc changed: write to catalog at commit */
} txn_tree;

enum { TXN_ACTIVE = 0, TXN_RESET, TXN_FAILED };

/* Where a write txn's last append to a tree went (btree.c, bt_put): a
 * guess at the tree's rightmost path, checked before each use. */
#define BT_HINTS 4
typedef struct bt_hint {
    const cs_tree_desc *desc;   /* which tree (compared, never dereferenced) */
    int depth;
    uint64_t pgno[CS_MAX_DEPTH];
    uint16_t idx[CS_MAX_DEPTH];  /* each branch's slot of the next page     */
    unsigned misses;            /* bt_hint_leaf's misses in a row           */
} bt_hint;

struct cs_txn {
    cs_env *env;
    bool rdonly;
    int state;
    int err;                    /* write txn: sticky first error            */
    uint64_t txnid;
    cs_meta meta;               /* snapshot (read) / base (write)           */
    const uint8_t *map;
    uint64_t map_pages;         /* pages addressable through map            */
    uint32_t psize;
    cs_reader_slot *slot;
    txn_tree *trees;
    uint32_t ntrees;
    cs_tree_desc catalog;
    cs_cursor *cursors;
    uint64_t gen;               /* bumped by every modification             */

    /* write transactions only */
    dirty_entry *dirty;
    size_t dirty_cap, dirty_n;
    uint64_t next_pgno;
    cs_extvec pool;             /* allocatable extents, sorted (the delta's
                                   free pages; all of them in full mode)   */
    size_t pool_head;
    cs_extvec bpool;            /* the base's reusable sequence after the
                                   cursor, in sequence order               */
    size_t bpool_head;
    uint64_t btaken;            /* pages taken from bpool's front           */
    bool bskipped;              /* ... or not from its front: no delta     */
    bool fl_full;               /* this commit writes a whole new run      */
    cs_freelist bgroups;        /* the base's groups not yet reusable       */
    cs_extvec reuse;            /* allocated and freed in this txn          */
    cs_extvec freed;            /* pages of older snapshots freed now       */
    cs_freelist fl;             /* the delta's groups not yet reusable      */
    uint8_t delta[CS_META_TAIL];/* the commit's delta (meta hdr.upper bytes)*/
    uint8_t *scratch;           /* 3 pages for node rebuilds                */
    cs_cellref *refs;           /* cells of two pages plus one (rebuilds)   */
    uint8_t *decode;            /* two decoded compact leaves (lazy)        */
    uint32_t *costs;            /* each cell's bytes, for a split           */
    leaf_part *parts;           /* a compact leaf's entries and one more    */
    bt_hint hints[BT_HINTS];    /* append paths, most recent trees          */
    unsigned next_hint;         /* round-robin replacement                  */
    /* Logged commits (design 4). vol: new pages come from the segment's
     * arena at vol_hwm; once a txn needs more than VOL_TXN_PAGES, or
     * cannot be logged, pages come from the file and vol_all turns false.
     * fold: the base reaches volatile pages, so a commit that is not
     * logged must first move them into the file (V1). */
    bool vol, vol_all, fold;
    bool fl_copied;             /* t->fl is a copy: env's cache stays valid  */
    uint64_t vol_hwm, vol_used, vol_cap;
    vseg_state vst;             /* the base's segment state                 */
};

static inline void txn_touch_gen(cs_txn *t) { t->gen++; }
/* Gate of every call on a txn: usable, and writable if need_write. Inline:
 * every get/put/cursor step passes it. */
static inline int txn_check(cs_txn *t, bool need_write)
{
    if (CS_UNLIKELY(!t)) return cs_fail(CS_EINVAL, "NULL transaction");
    if (CS_UNLIKELY(t->state == TXN_RESET)) return cs_fail(CS_EBADTXN, "transaction is reset: renew it first");
    if (CS_UNLIKELY(t->state == TXN_FAILED))
        return cs_fail(CS_EBADTXN, "transaction failed earlier (%s): abort it", cs_strerror(t->err));
    if (CS_UNLIKELY(need_write && t->rdonly)) return cs_fail(CS_EREADONLY, "write in a read-only transaction");
    return CS_OK;
}
/* After a failed write: errors that may leave a tree half-changed poison
 * the txn (only abort remains); returns rc. */
static inline int txn_note(cs_txn *t, int rc)
{
    switch (rc) {
    case CS_OK: case CS_NOTFOUND: case CS_EXISTS: case CS_EKEYSIZE: case CS_EVALSIZE: case CS_EINVAL:
        return rc;
    default:
        if (!t->rdonly) {
            t->err = rc;
            t->state = TXN_FAILED;
        }
        return rc;
    }
}

/* ==== L4 pager: pager.c ==== */

/* Page `pgno` as seen by txn; CS_ECORRUPT if out of range. */
int page_get(cs_txn *t, uint64_t pgno, const uint8_t **out);
/* page_get without the dirty-page probe when `clean`: a writer copies
 * whole root-to-leaf paths, so below a page it has not copied, none is. */
int page_get_in(cs_txn *t, uint64_t pgno, bool clean, const uint8_t **out);
static inline bool page_is_mapped(const cs_txn *t, const uint8_t *pg)
{
    return pg >= t->map && pg < t->map + (t->map_pages << t->env->psize_shift);
}
/* Page of a run of npages (overflow/free list), bounds-checked. */
int page_get_run(cs_txn *t, uint64_t pgno, uint64_t npages, const uint8_t **out);
uint8_t *dirty_find(cs_txn *t, uint64_t pgno);
/* Allocate npages contiguous new pages with a zeroed dirty buffer. */
int page_alloc(cs_txn *t, uint32_t npages, uint64_t *pgno, uint8_t **buf);
/* Give up pages: reusable at once if allocated by this txn, else pending. */
int page_free(cs_txn *t, uint64_t pgno, uint64_t npages);
/* Make page writable in this txn (copy-on-write). *pgno is updated when the
 * page moves; *page points at the writable copy. */
int page_touch(cs_txn *t, uint64_t *pgno, uint8_t **page);
void dirty_release_all(cs_txn *t);
/* Fold (V1): give volatile page *pgno (npages long) a page of the file,
 * copying it from the segment or moving this txn's dirty copy; *page is the
 * writable copy. A file page is left alone. */
int page_rehome(cs_txn *t, uint64_t *pgno, uint32_t npages, uint8_t **page);
/* Logged commit: copy the dirty pages (all volatile) into the segment, with
 * their checksums. CS_ENOSPACE when the segment cannot grow. */
int pager_put_volatile(cs_txn *t);
/* Commit: write the dirty pages, sorted. The first `cap` units written go
 * to `units` (may be NULL); *nunits = how many were written in all. */
int pager_write_dirty(cs_txn *t, cs_commit_unit *units, uint32_t cap, uint32_t *nunits);

/* ==== L5 btree: btree_search.c btree_rank.c btree.c relocate.c ==== */

/* Overflow pages of a value of vlen bytes (I10). */
static inline uint32_t ovf_pages(uint32_t psize, uint64_t vlen)
{
    return (uint32_t)((PAGE_HDR + vlen + psize - 1) / psize);
}

/* A root-to-leaf path. In write txns pg[] points at writable pages. */
typedef struct bt_path {
    int depth;
    uint64_t pgno[CS_MAX_DEPTH];
    const uint8_t *pg[CS_MAX_DEPTH];
    uint16_t idx[CS_MAX_DEPTH];
} bt_path;
/* Page pgno of a descent, checked as a non-empty node of the kind expected
 * (I8, I9). `clean`: the page is known not to be dirty in this txn (an
 * ancestor was a mapped page), so a page inside the map is read from it
 * without the dirty-page lookup. */
static inline __attribute__((always_inline)) int bt_load_node(cs_txn *t, uint64_t pgno, bool want_leaf, bool clean,
                                                              const uint8_t **out)
{
    int rc;
    clean = clean || t->rdonly;
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    /* A clean page inside the file and the map: page_get_in's answer, inline. */
    if (clean && CS_LIKELY(pgno >= 2 && pgno < limit && pgno < t->map_pages))
        *out = t->map + (pgno << t->env->psize_shift);
    else if ((rc = page_get_in(t, pgno, clean, out)))
        return rc;
    if ((rc = node_check(*out, t->psize, pgno))) return rc;
    if (node_is_leaf(*out) != want_leaf || node_n(*out) == 0)
        return cs_fail(CS_ECORRUPT, "page %llu: expected a non-empty %s page", (unsigned long long)pgno,
                       want_leaf ? "leaf" : "branch");
    return CS_OK;
}
int bt_descend(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact);
int bt_edge(cs_txn *t, const cs_tree_desc *d, bool last, bt_path *p);
int bt_step(cs_txn *t, bt_path *p, bool forward);   /* CS_NOTFOUND at end */
/* Ask the CPU for the whole leaf after (or before) the path's leaf, read
 * from its parent: scans cross leaves without waiting on memory (hardware
 * prefetchers stop at page boundaries). Read txns only: a write txn's
 * dirty pages are not in the map. */
static inline void bt_prefetch_sibling(const cs_txn *t, const bt_path *p, bool forward)
{
    int leaf = p->depth - 1;
    if (leaf == 0 || !t->rdonly) return;
    const uint8_t *parent = p->pg[leaf - 1];
    unsigned pidx = p->idx[leaf - 1];
    if (forward ? pidx + 1u >= node_n(parent) : pidx == 0) return;
    uint64_t next = branch_child(parent, t->psize, forward ? pidx + 1 : pidx - 1);
    if (next >= t->map_pages) return;
    const uint8_t *np = t->map + (next << t->env->psize_shift);
    for (uint32_t off = 0; off < t->psize; off += 64) __builtin_prefetch(np + off);
}
int bt_seek_rank(cs_txn *t, const cs_tree_desc *d, uint64_t rank, bt_path *p);
/* The rank of the entry the path ends at (d: the tree it was taken in). */
int bt_rank(cs_txn *t, const cs_tree_desc *d, const bt_path *p, uint64_t *rank);
/* The path's entry. A compact leaf's key is assembled into kbuf
 * (CS_MAX_KEY bytes; may be NULL when key is): key->data points there. */
int bt_read(cs_txn *t, const bt_path *p, uint8_t *kbuf, cs_val *key, cs_val *val);
int bt_get(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, cs_val *val);
/* A write txn's path to the leaf holding k from its last put in d, if it
 * still holds (btree.c, "Append hints"); false otherwise (then descend). */
bool bt_hint_leaf(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact);
int bt_put(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl, const void *v, size_t vl, unsigned flags);
int bt_del(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl);
int bt_clear(cs_txn *t, cs_tree_desc *d);
/* Make every page on the path writable (copy-on-write), re-pointing parents
 * at the copies and d->root at a new root. */
int bt_touch_path(cs_txn *t, cs_tree_desc *d, bt_path *p);
/* Merge or redistribute the underfull page at `level` of a touched path with
 * a sibling; *done when no level above needs a look. pack (auto-shrink): a
 * leaf under 3/4 full merges into 7/8 of a page, else the left page is
 * filled to 7/8 from the right; nothing else. */
int bt_rebalance_level(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, bool pack, bool *done);
/* Auto-shrink (I13): visit up to *budget leaves in key order from `key`
 * (*klen bytes; 0 = the first leaf), and copy-on-write the path of each
 * leaf that has a page or an overflow run at or past `threshold`, so that
 * the allocator (lowest free pages first) moves them down. Counts the
 * leaves visited off *budget and those moved in *moved. On return key and
 * *klen hold where to resume (the first key of the next leaf; *klen = 0:
 * the tree is done). key holds CS_MAX_KEY bytes. */
int bt_relocate(cs_txn *t, cs_tree_desc *d, uint64_t threshold, uint8_t *key, uint32_t *klen, unsigned *budget,
                unsigned *moved);

/* Fold (V1, design 4): move every volatile page tree d reaches into the
 * file (the txn allocates from the file by then); d->root may change. */
int bt_fold(cs_txn *t, cs_tree_desc *d);

/* ==== L6 trees: tree.c ==== */

/* C1: write the changed descriptors of this txn's trees into the catalog. */
int tree_flush_catalog(cs_txn *t);
/* This txn's descriptor of `tree` (loaded from the catalog on first use);
 * CS_NOTFOUND if the tree does not exist in its snapshot. for_write marks
 * it for tree_flush_catalog. */
int tree_desc_get(cs_txn *t, cs_tree tree, bool for_write, cs_tree_desc **out);
void tree_names_free(cs_env *env);              /* env close              */
/* Auto-shrink step (I13): bt_relocate over the named trees, resuming where
 * this process's previous step stopped (env->reloc_*), visiting at most
 * `budget` leaves. Moved trees are marked for tree_flush_catalog. */
int tree_relocate(cs_txn *t, uint64_t threshold, unsigned budget, unsigned *moved);
/* Fold (design 4): bt_fold over every named tree and then the catalog, with
 * C1 in between; afterwards no page the txn reaches is volatile. */
int tree_fold(cs_txn *t);

/* ==== L7 access: cursor.c diff.c filter.c fts.c replay.c ==== */

void cursor_close_all(cs_txn *t);
void cursor_unset_all(cs_txn *t);
/* cs_tree_diff over two descriptors (NULL = an empty tree), each read in
 * its own txn; the two txns may be one write txn, whose base pages are
 * never rewritten in place (copy-on-write), so a descriptor of its base
 * still reads the base's tree. */
int diff_trees(cs_txn *from, const cs_tree_desc *dfrom, cs_txn *to, const cs_tree_desc *dto, cs_diff_fn fn, void *ctx);
/* The redo record of write txn t's changes since its base meta (call after
 * tree_flush_catalog, C1): the catalog's diff names the trees created,
 * dropped and changed, and each changed tree's diff gives its puts and
 * deletes. *fits = false (r then holds part of the record) when the record
 * would pass `limit` bytes. CS_ENOMEM, CS_ECORRUPT. */
int redo_build(cs_txn *t, uint64_t epoch, redo_rec *r, size_t limit, bool *fits);
/* Apply a record's ops (redo_scan's ops, len) to write txn t. CS_ECORRUPT
 * when they do not parse (a record whose CRC held); else cs_put/cs_del/
 * cs_tree_drop's errors. */
int redo_apply(cs_txn *t, const uint8_t *ops, size_t len);

/* ==== L8 txn: txn.c ==== */

/* End a transaction: close its cursors, release its slot or the writer
 * mutex and its buffers, free it. */
void txn_free(cs_txn *t);
/* The writer after a dead one (writer mutex held): adopt a meta it wrote
 * but did not publish. */
int txn_resync_dead_writer(cs_env *env);
/* The free list of t's snapshot: its base run's list, the delta's cursor
 * and the delta's own list (txn_load_freelist), or all of it in one list
 * (txn_snapshot_freelist: what cs_check and cs_env_get_info count).
 * CS_EBUSY if newer commits have replaced the snapshot's delta in the lock
 * file and in both meta pages: take a newer snapshot. */
int txn_load_freelist(cs_txn *t, cs_freelist *base, uint64_t *base_txnid, uint64_t *cursor, cs_freelist *delta);
int txn_snapshot_freelist(cs_txn *t, cs_freelist *out);
/* Logs what was noted under a lock (a dead writer's recovery, dead
 * readers cleared). Call it holding no engine lock. */
void txn_log_pending(cs_env *env);

/* ==== L9 commit: commit.c ==== */

/* Open's replay (design 4): t holds the log's records up to log_end, its
 * txnid the last record's. Its pages go to the segment as the logged
 * commits' did, with no write (the records are durable already); if they
 * do not fit, t is committed whole. Frees t either way. */
int commit_replayed(cs_txn *t, uint64_t log_end);

/* Make deferred commits durable (C4-C6). *flushed = there were some. */
int commit_flush_deferred(cs_env *env, bool *flushed);

/* ==== L10 env: env.c check.c (public API only) ==== */

/* ==== L11 files: copy.c (public API only) ==== */

#endif /* CSTORAGE_INTERNAL_H */
