/*
 * cursor.c — cursors over one tree.
 *
 * In a write transaction pages move (copy-on-write, splits, merges), so a
 * cursor keeps a copy of its current key and re-finds its place when the
 * transaction was modified since it last looked (txn->gen). Read
 * transactions never change, so there a cursor is just a path.
 */
#include "internal.h"

#include <stdlib.h>

enum { CUR_UNSET = 0, CUR_ON, CUR_BETWEEN };

struct cs_cursor {
    cs_txn *txn;
    cs_tree tree;
    cs_cursor *next;
    int state;
    bool at_end;             /* BETWEEN with no following entry           */
    uint64_t gen;
    bt_path path;
    uint8_t key[CS_MAX_KEY]; /* key of the current position: write txns
                                re-find it; a compact leaf's key is
                                assembled here (what cs_cursor_get returns) */
    uint32_t klen;
    const uint8_t *kpg;      /* the compact leaf whose prefix key[] starts
                                with (NULL: none), so that steps inside it
                                copy only suffixes                         */
    uint8_t *arena;          /* next_batch's keys from compact leaves (lazy) */
};

/* Bytes of assembled keys one next_batch returns at most (it stops early). */
/* BATCH_SLACK: room past the arena's last key for the fixed-size copies
 * in cs_cursor_next_batch. */
enum { BATCH_ARENA = 8192, BATCH_SLACK = 32 };

static void unlink_cursor(cs_cursor *c)
{
    if (!c->txn) return;
    for (cs_cursor **pp = &c->txn->cursors; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    c->txn = NULL;
}

void cursor_close_all(cs_txn *t)
{
    while (t->cursors) {
        cs_cursor *c = t->cursors;
        t->cursors = c->next;
        free(c->arena);
        free(c);
    }
}

void cursor_unset_all(cs_txn *t)
{
    for (cs_cursor *c = t->cursors; c; c = c->next) {
        c->state = CUR_UNSET;
        c->kpg = NULL;
    }
}

int cs_cursor_open(cs_txn *txn, cs_tree tree, cs_cursor **out)
{
    if (!out) return cs_fail(CS_EINVAL, "cs_cursor_open: NULL out");
    int rc = txn_check(txn, false);
    if (rc) return rc;
    cs_tree_desc *d;
    if ((rc = tree_desc_get(txn, tree, false, &d))) return rc;
    cs_cursor *c = calloc(1, sizeof *c);
    if (!c) return cs_fail(CS_ENOMEM, "cursor");
    c->txn = txn;
    c->tree = tree;
    c->next = txn->cursors;
    txn->cursors = c;
    *out = c;
    return CS_OK;
}

int cs_cursor_close(cs_cursor *c)
{
    if (!c) return cs_fail(CS_EINVAL, "cs_cursor_close: NULL cursor");
    unlink_cursor(c);
    free(c->arena);
    free(c);
    return CS_OK;
}

int cs_cursor_renew(cs_txn *txn, cs_cursor *c)
{
    if (!c) return cs_fail(CS_EINVAL, "cs_cursor_renew: NULL cursor");
    int rc = txn_check(txn, false);
    if (rc) return rc;
    if (!txn->rdonly) return cs_fail(CS_EINVAL, "cs_cursor_renew: only read transactions");
    unlink_cursor(c);
    c->txn = txn;
    c->next = txn->cursors;
    txn->cursors = c;
    c->state = CUR_UNSET;
    c->kpg = NULL; /* the same address may hold another page in this snapshot */
    return CS_OK;
}

/* Put a lower-bound path on the first entry >= its key; at_end if none. */
static int settle_lower_bound(cs_cursor *c)
{
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    c->at_end = false;
    if (p->idx[leaf] < node_n(p->pg[leaf])) return CS_OK;
    p->idx[leaf]--;
    int rc = bt_step(c->txn, p, true);
    if (rc == CS_NOTFOUND) {
        p->idx[leaf] = node_n(p->pg[leaf]);
        c->at_end = true;
        return CS_OK;
    }
    return rc;
}

static int prepare(cs_cursor *c, cs_tree_desc **d)
{
    if (!c || !c->txn) return cs_fail(CS_EINVAL, "cursor is closed or its transaction ended");
    int rc = txn_check(c->txn, false);
    if (rc) return rc;
    if ((rc = tree_desc_get(c->txn, c->tree, false, d))) return rc;
    if (c->txn->rdonly || c->gen == c->txn->gen) return CS_OK;
    /* Pages of this txn change in place: key[]'s prefix may be stale. */
    c->kpg = NULL;
    if (c->state == CUR_UNSET) return CS_OK;
    /* The txn changed since we looked: find our key again. */
    bool exact;
    c->gen = c->txn->gen;
    rc = bt_descend(c->txn, *d, c->key, c->klen, &c->path, &exact);
    if (rc == CS_NOTFOUND) {
        c->state = CUR_BETWEEN;
        c->at_end = true;
        c->path.depth = 0;
        return CS_OK;
    }
    if (rc) return rc;
    if (!exact) c->state = CUR_BETWEEN;
    if (c->state == CUR_BETWEEN) return settle_lower_bound(c);
    return CS_OK;
}

static void remember_key(cs_cursor *c, const cs_val *k)
{
    c->gen = c->txn->gen;
    if (c->txn->rdonly) return;
    c->klen = (uint32_t)k->size;
    if (k->data != c->key) {
        memcpy(c->key, k->data, k->size);
        c->kpg = NULL;
    }
}

/* 16 bytes, always as moves: a plain memcpy of 16 beside one of n is merged
 * by the compiler into a library call of either size. */
static inline __attribute__((always_inline)) void copy16(uint8_t *dst, const uint8_t *src)
{
#if defined(__has_builtin) && __has_builtin(__builtin_memcpy_inline)
    __builtin_memcpy_inline(dst, src, 16);
#else
    uint64_t a = rd64(src), b = rd64(src + 8);
    memcpy(dst, &a, 8);
    memcpy(dst + 8, &b, 8);
#endif
}

/* A key suffix of sl bytes at sfx (inside pg) to dst: short ones (object
 * keys, collection entries) as one fixed 16-byte copy, which compiles to
 * moves, when the 16 bytes lie inside the page and dst has room. */
static inline __attribute__((always_inline)) void copy_suffix(uint8_t *dst, size_t room, const uint8_t *sfx,
                                                              uint32_t sl, const uint8_t *pg, uint32_t psize)
{
    if (sl <= 16 && room >= 16 && sfx + 16 <= pg + psize) copy16(dst, sfx);
    else memcpy(dst, sfx, sl);
}

/* bt_read of the path's entry, with an inline cell of either leaf kind read
 * here. A compact leaf's key is assembled in c->key; its prefix is copied
 * only when c->key does not already start with it (c->kpg). */
static inline __attribute__((always_inline)) int read_entry(cs_cursor *c, cs_val *key, cs_val *val)
{
    const bt_path *p = &c->path;
    const uint8_t *pg = p->pg[p->depth - 1];
    unsigned idx = p->idx[p->depth - 1];
    uint32_t psize = c->txn->psize;
    if (CS_LIKELY(node_is_compact(pg))) {
        leaf6_cell cell;
        uint32_t plen = node_prefix_len(pg);
        if (CS_LIKELY(leaf6_parse(pg, psize, idx, &cell) && !(cell.vw & 1) && plen + cell.sl <= CS_MAX_KEY)) {
            if (key) {
                if (c->kpg != pg) {
                    memcpy(c->key, node_prefix(pg, psize), plen);
                    c->kpg = pg;
                }
                copy_suffix(c->key + plen, CS_MAX_KEY - plen, cell.sfx, cell.sl, pg, psize);
                key->data = c->key;
                key->size = plen + cell.sl;
            }
            if (val) {
                val->data = cell.v;
                val->size = cell.vw >> 1;
            }
            return CS_OK;
        }
    } else {
        uint32_t off = node_slot(pg, idx), kl = 0, vl = VLEN_OVERFLOW;
        if (CS_LIKELY(off >= PAGE_HDR && off + LEAF_CELL_HDR <= psize)) {
            kl = rd16(pg + off);
            vl = rd32(pg + off + 2);
        }
        if (CS_LIKELY(!(vl & VLEN_OVERFLOW) && off + LEAF_CELL_HDR + kl + vl <= psize)) {
            if (key) *key = (cs_val){pg + off + LEAF_CELL_HDR, kl};
            if (val) *val = (cs_val){pg + off + LEAF_CELL_HDR + kl, vl};
            return CS_OK;
        }
    }
    /* Overflow values and damaged cells (bt_read may fill c->key and fail). */
    if (key) c->kpg = NULL;
    int rc = bt_read(c->txn, p, c->key, key, val);
    if (rc == CS_OK && key && node_is_compact(pg)) c->kpg = pg;
    return rc;
}

/* Land on the path's entry: read it out and remember where we are. A read
 * txn assembles the key only for a caller that asks for it. */
static inline __attribute__((always_inline)) int land(cs_cursor *c, cs_val *key, cs_val *val)
{
    cs_val k, v;
    bool rdonly = c->txn->rdonly;
    int rc = read_entry(c, key || !rdonly ? &k : NULL, val ? &v : NULL);
    if (rc) return rc;
    c->state = CUR_ON;
    c->at_end = false;
    if (!rdonly) remember_key(c, &k); /* and the txn generation it saw */
    if (key) *key = k;
    if (val) *val = v;
    return CS_OK;
}

/* Scans are bound by memory latency: cells of a leaf are not in key order,
 * and leaves are scattered. Ask for the cell two steps ahead, and at a
 * leaf's last cell for the whole next leaf (read txns: it is in the map). */
static inline void prefetch_ahead(cs_cursor *c, bool forward, unsigned idx, unsigned n)
{
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    const uint8_t *pg = p->pg[leaf];
    if (forward ? idx + 2 < n : idx >= 2) __builtin_prefetch(pg + node_slot(pg, forward ? idx + 2 : idx - 2));
    if (forward ? idx + 1 == n : idx == 0) bt_prefetch_sibling(c->txn, p, forward);
}

/* Whether the cursor is on an entry of an unchanged snapshot: NEXT/PREV
 * and batches may then move its path directly. */
static inline bool on_unchanged(const cs_cursor *c)
{
    const cs_txn *t = c->txn;
    return c->state == CUR_ON && t && t->state == TXN_ACTIVE && (t->rdonly || c->gen == t->gen);
}

/* NEXT/PREV from an entry of an unchanged snapshot, the common case of a
 * scan, kept free of the general path's bookkeeping: within the leaf, or to
 * the sibling leaf through the path's stack. False (cursor unmoved) at
 * either end of the tree or on an error, which the general path reports. */
static inline __attribute__((always_inline)) bool step_fast(cs_cursor *c, cs_cursor_op op, cs_val *key, cs_val *val)
{
    if (!on_unchanged(c)) return false;
    bool forward = op == CS_NEXT;
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    unsigned idx = p->idx[leaf];
    unsigned n = node_n(p->pg[leaf]);
    if (forward ? idx + 1u >= n : idx == 0) {
        /* bt_step leaves a parent's index moved when a lower level fails. */
        bt_path save = *p;
        if (bt_step(c->txn, p, forward) != CS_OK) {
            *p = save;
            return false;
        }
        prefetch_ahead(c, forward, p->idx[leaf], node_n(p->pg[leaf]));
        if (land(c, key, val) == CS_OK) return true;
        *p = save;
        return false;
    }
    unsigned now = forward ? idx + 1 : idx - 1;
    p->idx[leaf] = (uint16_t)now;
    prefetch_ahead(c, forward, now, n);
    if (land(c, key, val) == CS_OK) return true;
    p->idx[leaf] = (uint16_t)idx;
    return false;
}

/* cs_cursor_get's general path, out of line: the steps of a scan take
 * step_fast without paying for this one's frame. */
static __attribute__((noinline)) int cursor_move(cs_cursor *c, cs_val *key, cs_val *val, cs_cursor_op op)
{
    cs_tree_desc *d;
    int rc = prepare(c, &d);
    if (rc) return rc;
    cs_txn *t = c->txn;
    /* NEXT/PREV leave the path alone when they fail (bt_step); other moves
     * replace it, so keep a copy to stay put on CS_NOTFOUND. */
    bool moves = op != CS_NEXT && op != CS_PREV && op != CS_CURRENT, exact;
    bt_path save;
    int save_state = c->state;
    bool save_end = c->at_end;
    if (moves) save = c->path;
    switch (op) {
    case CS_FIRST:
    case CS_LAST:
        rc = bt_edge(t, d, op == CS_LAST, &c->path);
        break;
    case CS_NEXT:
        if (c->state == CUR_UNSET) rc = bt_edge(t, d, false, &c->path);
        else if (c->state == CUR_BETWEEN) rc = (c->at_end || c->path.depth == 0) ? CS_NOTFOUND : CS_OK;
        else rc = bt_step(t, &c->path, true);
        break;
    case CS_PREV:
        if (c->state == CUR_UNSET || (c->state == CUR_BETWEEN && (c->at_end || c->path.depth == 0)))
            rc = bt_edge(t, d, true, &c->path);
        else rc = bt_step(t, &c->path, false);
        break;
    case CS_SEEK:
    case CS_SEEK_EXACT:
        if (!key || !key->data || key->size == 0 || key->size > CS_MAX_KEY)
            return cs_fail(CS_EKEYSIZE, "seek key of %zu bytes", key ? key->size : 0);
        rc = bt_descend(t, d, key->data, (uint32_t)key->size, &c->path, &exact);
        if (rc == CS_OK && op == CS_SEEK_EXACT && !exact) rc = CS_NOTFOUND;
        if (rc == CS_OK && op == CS_SEEK) {
            rc = settle_lower_bound(c);
            if (rc == CS_OK && c->at_end) rc = CS_NOTFOUND;
        }
        break;
    case CS_CURRENT:
        if (c->state == CUR_UNSET) return cs_fail(CS_EINVAL, "cursor is not positioned");
        if (c->state == CUR_BETWEEN) return CS_NOTFOUND;
        break;
    default:
        return cs_fail(CS_EINVAL, "unknown cursor op %d", (int)op);
    }
    if (rc == CS_OK) rc = land(c, key, val);
    if (rc) {
        if (moves) c->path = save;
        c->state = save_state;
        c->at_end = save_end;
    }
    return rc;
}

int cs_cursor_get(cs_cursor *c, cs_val *key, cs_val *val, cs_cursor_op op)
{
    if (c && (op == CS_NEXT || op == CS_PREV) && step_fast(c, op, key, val)) return CS_OK;
    return cursor_move(c, key, val, op);
}

/* The last 8 bytes before end (len of them if fewer) as a big-endian
 * number; the 8 bytes before end must be readable. */
static inline __attribute__((always_inline)) uint64_t tail_word(const uint8_t *end, uint32_t len)
{
    uint64_t w = __builtin_bswap64(rd64(end - 8));
    return len >= 8 ? w : w & ((UINT64_C(1) << (8 * len)) - 1);
}

/* Where a batch starts: the entry after the cursor's, found through the
 * path's stack when the cursor is on an entry of an unchanged snapshot
 * (*crossed: it moved to the next leaf, *save holds where it was), else by
 * the general CS_NEXT. *from: the first entry of the leaf to read. */
static int batch_start(cs_cursor *c, unsigned *from, bool *crossed, bt_path *save)
{
    bt_path *p = &c->path;
    *crossed = false;
    if (c && on_unchanged(c)) {
        int leaf = p->depth - 1;
        if (p->idx[leaf] + 1u < node_n(p->pg[leaf])) {
            *from = p->idx[leaf] + 1u;
            return CS_OK;
        }
        *save = *p;
        int rc = bt_step(c->txn, p, true);
        if (rc) *p = *save;
        *from = 0;
        *crossed = rc == CS_OK;
        return rc;
    }
    int rc = cursor_move(c, NULL, NULL, CS_NEXT);
    if (rc == CS_OK) *from = p->idx[p->depth - 1];
    return rc;
}

/* Leaves a batch's cursor on entry idx of its leaf. */
static void settle_batch(cs_cursor *c, unsigned idx)
{
    cs_txn *t = c->txn;
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    unsigned count = node_n(p->pg[leaf]);
    p->idx[leaf] = (uint16_t)idx;
    c->state = CUR_ON;
    c->at_end = false;
    c->gen = t->gen;
    /* At the leaf's end: ask for the next leaf now. */
    if (idx + 1 == count) prefetch_ahead(c, true, idx, count);
    /* Write txns re-find the cursor by its key: remember the last one. */
    if (!t->rdonly) {
        cs_val last;
        if (read_entry(c, &last, NULL) == CS_OK) remember_key(c, &last);
    }
}

/* cs_cursor_next_batch and cs_cursor_next_ids: entries from the one after
 * the cursor's to the end of its leaf (or cap of them), keys assembled into
 * keys[] (arena), or only their last 8 bytes into ids[], or neither. */
static inline __attribute__((always_inline)) int next_batch(cs_cursor *c, cs_val *keys, uint64_t *ids, cs_val *vals,
                                                            size_t cap, size_t *n)
{
    if (!n || cap == 0) return cs_fail(CS_EINVAL, "cs_cursor_next_batch: NULL count or zero capacity");
    *n = 0;
    unsigned from;
    bool crossed;
    bt_path save;
    int rc = batch_start(c, &from, &crossed, &save);
    if (rc) return rc;
    cs_txn *t = c->txn;
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    const uint8_t *pg = p->pg[leaf];
    uint32_t psize = t->psize;
    unsigned count = node_n(pg), idx = from;
    size_t got = 0;
    if (node_is_compact(pg)) {
        uint32_t used = 0, plen = node_prefix_len(pg);
        const uint8_t *pf = node_prefix(pg, psize);
        /* The prefix, padded so that a 16-byte copy of a shorter one stays
         * inside; and its last 8 bytes as a number, for ids. */
        uint8_t pfx[LEAF6_PREFIX_MAX + 16] = {0};
        uint64_t pw = 0;
        if (keys) {
            if (!c->arena && !(c->arena = malloc(BATCH_ARENA + BATCH_SLACK))) return cs_fail(CS_ENOMEM, "cursor batch arena");
            memcpy(pfx, pf, plen);
        }
        if (ids)
            for (uint32_t i = plen > 8 ? plen - 8 : 0; i < plen; i++) pw = pw << 8 | pf[i];
        for (; got < cap && idx < count; idx++) {
            if (idx + 2u < count) __builtin_prefetch(pg + node_slot(pg, idx + 2));
            leaf6_cell cell;
            if (CS_UNLIKELY(!leaf6_parse(pg, psize, idx, &cell) || plen + cell.sl > CS_MAX_KEY)) {
                rc = node_bad_cell(pg, idx);
                break;
            }
            if (keys) {
                uint32_t kl = plen + cell.sl;
                if (used + kl > BATCH_ARENA) break;
                uint8_t *kb = c->arena + used;
                if (plen <= 16) copy16(kb, pfx);
                else memcpy(kb, pfx, plen);
                copy_suffix(kb + plen, BATCH_ARENA + BATCH_SLACK - used - plen, cell.sfx, cell.sl, pg, psize);
                keys[got] = (cs_val){kb, kl};
                used += kl;
            }
            /* The 8 bytes before the suffix's end lie in the page (cells
             * start past the header and slots). */
            if (ids) ids[got] = cell.sl >= 8 ? tail_word(cell.sfx + cell.sl, 8)
                                             : pw << (8 * cell.sl) | tail_word(cell.sfx + cell.sl, cell.sl);
            if (vals) {
                if (CS_LIKELY(!(cell.vw & 1))) {
                    vals[got] = (cs_val){cell.v, cell.vw >> 1};
                } else {
                    p->idx[leaf] = (uint16_t)idx;
                    if ((rc = bt_read(t, p, NULL, NULL, &vals[got]))) break;
                }
            }
            got++;
        }
    } else {
        for (; got < cap && idx < count; idx++) {
            if (idx + 2u < count) __builtin_prefetch(pg + node_slot(pg, idx + 2));
            /* An inline cell inside the page: read it here; anything else
             * (overflow value, damaged cell) through bt_read. */
            uint32_t off = node_slot(pg, idx), kl = 0, vl = VLEN_OVERFLOW;
            if (CS_LIKELY(off >= PAGE_HDR && off + LEAF_CELL_HDR <= psize)) {
                kl = rd16(pg + off);
                vl = rd32(pg + off + 2);
            }
            cs_val k;
            if (CS_LIKELY(!(vl & VLEN_OVERFLOW) && off + LEAF_CELL_HDR + kl + vl <= psize)) {
                k = (cs_val){pg + off + LEAF_CELL_HDR, kl};
                if (vals) vals[got] = (cs_val){pg + off + LEAF_CELL_HDR + kl, vl};
            } else {
                p->idx[leaf] = (uint16_t)idx;
                if ((rc = bt_read(t, p, NULL, &k, vals ? &vals[got] : NULL))) break;
            }
            if (keys) keys[got] = k;
            /* A key starts past the page header: 8 bytes before its end are
             * in the page. */
            if (ids) ids[got] = tail_word((const uint8_t *)k.data + k.size, (uint32_t)k.size);
            got++;
        }
    }
    if (got == 0) {
        /* Nothing read (a damaged first cell): the cursor stays put. */
        if (crossed) *p = save;
        return rc ? rc : cs_fail(CS_ECORRUPT, "cursor batch read no entry");
    }
    settle_batch(c, from + (unsigned)got - 1);
    *n = got;
    return rc;
}

int cs_cursor_next_batch(cs_cursor *c, cs_val *keys, cs_val *vals, size_t cap, size_t *n)
{
    return next_batch(c, keys, NULL, vals, cap, n);
}

int cs_cursor_next_ids(cs_cursor *c, uint64_t *ids, cs_val *vals, size_t cap, size_t *n)
{
    if (!ids) return cs_fail(CS_EINVAL, "cs_cursor_next_ids: NULL ids");
    return next_batch(c, NULL, ids, vals, cap, n);
}

int cs_cursor_next_matching(cs_cursor *c, const cs_filter *filter, uint64_t *ids, cs_val *vals, size_t cap, size_t *n)
{
    if (!n || !ids || cap == 0) return cs_fail(CS_EINVAL, "cs_cursor_next_matching: NULL ids or count, or zero capacity");
    *n = 0;
    size_t need;
    int rc = filter_validate(filter, &need);
    if (rc) return rc;
    /* Keys of compact leaves are assembled after 8 zero bytes, so that the
     * 8 bytes before a short key's end can be read (tail_word); the rest is
     * written before it is read, so only those 8 are cleared per call. */
    uint8_t kb[8 + CS_MAX_KEY];
    memset(kb, 0, 8);
    uint16_t hits[256];
    size_t got = 0;
    while (got < cap) {
        unsigned from, last;
        bool crossed;
        bt_path save;
        if ((rc = batch_start(c, &from, &crossed, &save))) break;
        bt_path *p = &c->path;
        int leaf = p->depth - 1;
        size_t room = cap - got < 256 ? cap - got : 256, nhits;
        if ((rc = filter_leaf_matches(c->txn, p, filter, need, from, hits, room, &nhits, &last))) {
            if (crossed) *p = save;
            break;
        }
        for (size_t k = 0; k < nhits && rc == CS_OK; k++) {
            cs_val key;
            p->idx[leaf] = hits[k];
            if ((rc = bt_read(c->txn, p, kb + 8, &key, vals ? &vals[got] : NULL)) == CS_OK)
                ids[got++] = tail_word((const uint8_t *)key.data + key.size, (uint32_t)key.size);
        }
        if (rc) {
            if (crossed) *p = save;
            break;
        }
        settle_batch(c, last);
    }
    /* The end of the tree after some matches: they are this call's result,
     * and the next call reports the end. */
    if (rc == CS_NOTFOUND && got) rc = CS_OK;
    *n = rc == CS_OK ? got : 0;
    return rc;
}

int cs_cursor_put(cs_cursor *c, cs_val key, cs_val val, unsigned flags)
{
    cs_tree_desc *d;
    int rc = prepare(c, &d);
    if (rc) return rc;
    if ((rc = txn_check(c->txn, true))) return rc;
    if ((rc = tree_desc_get(c->txn, c->tree, true, &d))) return rc;
    if (key.size == 0 || key.size > CS_MAX_KEY || !key.data)
        return cs_fail(CS_EKEYSIZE, "key of %zu bytes (allowed: 1..%u)", key.size, CS_MAX_KEY);
    uint8_t kcopy[CS_MAX_KEY];
    memcpy(kcopy, key.data, key.size);
    rc = bt_put(c->txn, d, kcopy, (uint32_t)key.size, val.data, val.size, flags);
    if (rc) return txn_note(c->txn, rc);
    memcpy(c->key, kcopy, key.size);
    c->klen = (uint32_t)key.size;
    c->kpg = NULL;
    c->state = CUR_ON;
    c->gen = c->txn->gen - 1; /* re-find the key on next use */
    return CS_OK;
}

int cs_cursor_del(cs_cursor *c)
{
    cs_tree_desc *d;
    int rc = prepare(c, &d);
    if (rc) return rc;
    if ((rc = txn_check(c->txn, true))) return rc;
    if (c->state != CUR_ON) return cs_fail(CS_EINVAL, "cursor is not on an entry");
    if ((rc = tree_desc_get(c->txn, c->tree, true, &d))) return rc;
    rc = bt_del(c->txn, d, c->key, c->klen);
    if (rc) return txn_note(c->txn, rc);
    c->state = CUR_BETWEEN;
    c->gen = c->txn->gen - 1;
    return CS_OK;
}

int cs_cursor_seek_index(cs_cursor *c, uint64_t index, cs_val *key, cs_val *val)
{
    cs_tree_desc *d;
    int rc = prepare(c, &d);
    if (rc) return rc;
    bt_path save = c->path;
    rc = bt_seek_rank(c->txn, d, index, &c->path);
    if (rc == CS_OK) rc = land(c, key, val);
    if (rc) c->path = save;
    return rc;
}

int cs_cursor_index(cs_cursor *c, uint64_t *out)
{
    cs_tree_desc *d;
    int rc = prepare(c, &d);
    if (rc) return rc;
    if (!out) return cs_fail(CS_EINVAL, "cs_cursor_index: NULL out");
    if (c->state != CUR_ON) return cs_fail(CS_EINVAL, "cursor is not on an entry");
    return bt_rank(c->txn, d, &c->path, out);
}
