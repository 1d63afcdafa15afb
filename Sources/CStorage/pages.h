/*
 * pages.h — layer L1: the on-disk structures as bytes in and out — meta pages,
 * slotted branch and leaf nodes, the free-list run.
 * Part of internal.h (its header holds the layer table and says what may
 * call what); included through it. Nothing here is public API.
 */
#ifndef CSTORAGE_PAGES_H
#define CSTORAGE_PAGES_H

#include "base.h"

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
/* A compact leaf's shared key prefix: its length (the low byte of the
 * header's npages) and bytes (the page's last bytes, above the cells). */
static inline uint32_t node_prefix_len(const uint8_t *pg)
{
    return PH(pg)->type == PT_LEAF6 ? PH(pg)->npages & LEAF6_PREFIX_MASK : 0;
}
/* A compact leaf's uniform suffix length plus one (npages' second byte): 0
 * when each cell stores its suffix length, else every suffix has that
 * length less one and no cell stores it. */
static inline uint32_t leaf6_uniform(const uint8_t *pg) { return (PH(pg)->npages >> 8) & 0xffu; }
/* A compact leaf's fixed value length plus one (npages' upper 16 bits): 0
 * when each cell stores its value word, else every value is inline, has
 * that length less one, and no cell stores its word. */
static inline uint32_t leaf6_fixed(const uint8_t *pg) { return PH(pg)->npages >> 16; }
/* U | V << 8 (npages above the prefix length): how a compact leaf's cells
 * are laid out; 0 when every cell stores both lengths. */
static inline uint32_t leaf6_shape(const uint8_t *pg) { return PH(pg)->npages >> 8; }
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
    uint32_t top = psize - node_prefix_len(pg);
    if (CS_UNLIKELY((h->type != PT_BRANCH && h->type != PT_LEAF && h->type != PT_LEAF6) || h->pgno != pgno ||
                    (h->type == PT_LEAF6 && (h->npages & LEAF6_PREFIX_MASK) > LEAF6_PREFIX_MAX) ||
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
 * False if the cell does not lie within the page below the prefix. A
 * uniform leaf's cells start at the value word (leaf6_uniform), a
 * fixed-value leaf's have none (leaf6_fixed). */
typedef struct leaf6_cell {
    const uint8_t *sfx, *v;
    uint32_t sl, vw, size;
} leaf6_cell;
static inline __attribute__((always_inline)) bool leaf6_parse(const uint8_t *pg, uint32_t psize, unsigned i, leaf6_cell *c)
{
    uint32_t off = node_slot(pg, i), word = PH(pg)->npages, ul = (word >> 8) & 0xffu, fv = word >> 16;
    const uint8_t *p = pg + off, *end = pg + psize - (word & LEAF6_PREFIX_MASK);
    if (CS_UNLIKELY(off < PAGE_HDR || p >= end)) return false;
    if (fv) {
        c->vw = (fv - 1u) << 1;
        if (ul) c->sl = ul - 1;
        else if (CS_LIKELY(p[0] < 0x80)) c->sl = *p++;
        else if (!varint_get(&p, end, &c->sl))
            return false;
    } else if (ul) {
        c->sl = ul - 1;
        if (CS_LIKELY(end - p >= 2 && (p[0] < 0x80 || p[1] < 0x80))) {
            c->vw = p[0] < 0x80 ? p[0] : (p[0] & 0x7fu) | (uint32_t)p[1] << 7;
            p += p[0] < 0x80 ? 1 : 2;
        } else if (!varint_get(&p, end, &c->vw))
            return false;
    }
    /* The common cell without the varint loops: a suffix under 128 bytes
     * and a value under 8 KiB (one and at most two varint bytes). */
    else if (CS_LIKELY(end - p >= 3 && p[0] < 0x80 && (p[1] < 0x80 || p[2] < 0x80))) {
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
/* A key ending in eight ASCII digits (node.c: searches interpolate over
 * them even when the key is text). */
bool key_ends_in_digits(const uint8_t *k, uint32_t kl);
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
 * starts with pg's prefix and has the length of a uniform leaf's keys, and
 * its value is inline with the length of a fixed-value leaf's (always,
 * unless pg is a compact leaf). */
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
 * included (an upper bound for any longer prefix), in a leaf of the given
 * shape (leaf6_shape: the cost in shape 0 is an upper bound for any). */
uint32_t leaf_cell_cost(const cs_cellref *c, uint32_t plen, uint32_t shape);
/* The shape (leaf6_shape) of a compact leaf of cells[0..n) with a prefix
 * of plen bytes: U when they have one key length whose suffix is at most
 * LEAF6_UNIFORM_MAX, V when one inline value length at most
 * LEAF6_FIXED_MAX; 0 for n == 0. */
uint32_t leaf_cells_shape(const cs_cellref *cells, unsigned n, uint32_t plen);
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
 * included (e's key starts with that prefix), of the given shape. */
uint32_t leaf_part_cost(const leaf_part *e, uint32_t plen, uint32_t shape);
/* leaf_cells_shape for entries. */
uint32_t leaf_parts_shape(const leaf_part *e, unsigned n, uint32_t plen);
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

#endif /* CSTORAGE_PAGES_H */
