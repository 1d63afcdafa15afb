/*
 * dbfile.h — a closed database file read and patched page by page, for
 * tests that damage one structure on purpose: the damaged page is re-sealed
 * (its checksum recomputed the engine's way) so that the checksum check
 * stays quiet and only the check meant for that structure can report it.
 * Used by test_check.c and fuzz/regress.c; header-only, so that the fuzz
 * tools can use it without linking support/.
 *
 * Offsets and layouts are those of format.h. Functions return 0 on success
 * and -1 on a short read or write (callers REQUIRE or abort).
 */
#ifndef DBFILE_H
#define DBFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "format.h"

/* crc32c.c: CRC-32C of a page run with its checksum field read as 0 (the
 * same declaration as internal.h's). */
uint32_t cs_page_checksum(const uint8_t *page, size_t len);

static inline uint16_t dbfile_rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t dbfile_rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t dbfile_rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The meta page with the higher txnid (no validation: the file is one the
 * test wrote). Returns its slot (0 or 1), -1 on a short read. */
static inline int dbfile_newest_meta(int fd, cs_meta *m)
{
    cs_meta a, b;
    if (pread(fd, &a, sizeof a, 0) != (ssize_t)sizeof a) return -1;
    uint32_t ps = a.page_size >= CS_MIN_PAGE_SIZE && a.page_size <= CS_MAX_PAGE_SIZE ? a.page_size : CS_DEFAULT_PAGE_SIZE;
    if (pread(fd, &b, sizeof b, (off_t)ps) != (ssize_t)sizeof b) return -1;
    *m = a.txnid > b.txnid ? a : b;
    return a.txnid > b.txnid ? 0 : 1;
}

/* npages pages from pgno into buf. */
static inline int dbfile_read(int fd, uint32_t ps, uint64_t pgno, void *buf, size_t npages)
{
    size_t len = npages * ps;
    return pread(fd, buf, len, (off_t)(pgno * ps)) == (ssize_t)len ? 0 : -1;
}

/* Recompute the checksum of the page run buf (npages pages; a meta page's
 * covers its first CS_META_BYTES) and write it at pgno. */
static inline int dbfile_reseal(int fd, uint32_t ps, uint64_t pgno, uint8_t *buf, size_t npages)
{
    cs_page_hdr h;
    memcpy(&h, buf, sizeof h);
    size_t len = npages * ps;
    h.checksum = cs_page_checksum(buf, h.type == PT_META ? CS_META_BYTES : len);
    memcpy(buf, &h, sizeof h);
    return pwrite(fd, buf, len, (off_t)(pgno * ps)) == (ssize_t)len ? 0 : -1;
}

/* Cell i of a branch or leaf page (slot i's offset; not bounds-checked). */
static inline uint8_t *dbfile_cell(uint8_t *pg, unsigned i) { return pg + dbfile_rd16(pg + PAGE_HDR + 2 * i); }

/* Leaf cell i of either leaf type (format.h; not bounds-checked): the key
 * bytes the cell stores (all of it on a type-3 leaf, the suffix after the
 * page's prefix on a compact leaf), the value or overflow reference. */
typedef struct dbfile_leaf_cell {
    uint8_t *key, *val;
    uint32_t klen, vlen; /* klen: stored bytes */
    int ovf;
} dbfile_leaf_cell;
static inline uint32_t dbfile_varint(uint8_t **p)
{
    uint32_t v = 0;
    for (unsigned s = 0; s < 35; s += 7) {
        uint8_t b = *(*p)++;
        v |= (uint32_t)(b & 0x7f) << s;
        if (!(b & 0x80)) break;
    }
    return v;
}
static inline dbfile_leaf_cell dbfile_leaf(uint8_t *pg, unsigned i)
{
    dbfile_leaf_cell c;
    uint8_t *p = dbfile_cell(pg, i);
    if (dbfile_rd16(pg + 4) == PT_LEAF6) {
        /* npages' second byte: a uniform leaf's suffix length + 1; its
         * upper 16 bits: a fixed-value leaf's value length + 1. Its cells
         * leave those out (format.h, COMPACT LEAF). */
        uint32_t word = dbfile_rd32(pg + 28), ul = (word >> 8) & 0xff, fv = word >> 16;
        c.klen = ul ? ul - 1 : dbfile_varint(&p);
        uint32_t vw = fv ? (fv - 1) << 1 : dbfile_varint(&p);
        c.ovf = vw & 1;
        c.vlen = vw >> 1;
        c.key = p;
    } else {
        uint32_t vw = dbfile_rd32(p + 2);
        c.klen = dbfile_rd16(p);
        c.ovf = (vw & VLEN_OVERFLOW) != 0;
        c.vlen = vw & ~VLEN_OVERFLOW;
        c.key = p + LEAF_CELL_HDR;
    }
    c.val = c.key + c.klen;
    return c;
}
/* A compact leaf's shared key prefix (its length in *n; 0 on a type-3 leaf). */
static inline uint8_t *dbfile_leaf_prefix(uint8_t *pg, uint32_t ps, uint32_t *n)
{
    *n = dbfile_rd16(pg + 4) == PT_LEAF6 ? dbfile_rd32(pg + 28) & 0xff : 0;
    return pg + ps - *n;
}
/* Leaf cell i's whole key, assembled into buf (CS_MAX_KEY bytes); its length. */
static inline uint32_t dbfile_leaf_key(uint8_t *pg, uint32_t ps, unsigned i, uint8_t *buf)
{
    uint32_t n;
    const uint8_t *pfx = dbfile_leaf_prefix(pg, ps, &n);
    dbfile_leaf_cell c = dbfile_leaf(pg, i);
    memcpy(buf, pfx, n);
    memcpy(buf + n, c.key, c.klen);
    return n + c.klen;
}

/* Reads the root page of the catalog's first tree into pg (ps bytes) and
 * returns its number, 0 on failure. The catalog must be one leaf. */
static inline uint64_t dbfile_first_tree_root(int fd, uint8_t *pg)
{
    cs_meta m;
    if (dbfile_newest_meta(fd, &m) < 0 || dbfile_read(fd, m.page_size, m.catalog.root, pg, 1)) return 0;
    uint64_t root = dbfile_rd64(dbfile_leaf(pg, 0).val); /* descriptor: root first */
    return dbfile_read(fd, m.page_size, root, pg, 1) ? 0 : root;
}

#endif /* DBFILE_H */
