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
    for (cs_cursor *c = t->cursors; c; c = c->next) c->state = CUR_UNSET;
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
    if (c->txn->rdonly || c->state == CUR_UNSET || c->gen == c->txn->gen) return CS_OK;
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
    if (k->data != c->key) memcpy(c->key, k->data, k->size);
}

/* Land on the path's entry: read it out and remember where we are. */
static int land(cs_cursor *c, cs_val *key, cs_val *val)
{
    cs_val k, v;
    int rc = bt_read(c->txn, &c->path, c->key, &k, val ? &v : NULL);
    if (rc) return rc;
    c->state = CUR_ON;
    c->at_end = false;
    remember_key(c, &k);
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

/* NEXT/PREV inside the current leaf of an unchanged snapshot: the common
 * case of a scan, kept free of the general path's bookkeeping. */
static inline bool step_in_leaf(cs_cursor *c, cs_cursor_op op, cs_val *key, cs_val *val)
{
    cs_txn *t = c->txn;
    if (c->state != CUR_ON || !t || t->state != TXN_ACTIVE || (!t->rdonly && c->gen != t->gen)) return false;
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    unsigned idx = p->idx[leaf];
    unsigned n = node_n(p->pg[leaf]);
    if (op == CS_NEXT ? idx + 1u >= n : idx == 0) return false;
    unsigned now = op == CS_NEXT ? idx + 1 : idx - 1;
    p->idx[leaf] = (uint16_t)now;
    prefetch_ahead(c, op == CS_NEXT, now, n);
    if (land(c, key, val) == CS_OK) return true;
    p->idx[leaf] = (uint16_t)idx;
    return false;
}

int cs_cursor_get(cs_cursor *c, cs_val *key, cs_val *val, cs_cursor_op op)
{
    if (c && (op == CS_NEXT || op == CS_PREV) && step_in_leaf(c, op, key, val)) return CS_OK;
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

int cs_cursor_next_batch(cs_cursor *c, cs_val *keys, cs_val *vals, size_t cap, size_t *n)
{
    if (!n || cap == 0) return cs_fail(CS_EINVAL, "cs_cursor_next_batch: NULL count or zero capacity");
    *n = 0;
    /* The first step may change leaves (or start the scan): the general path. */
    cs_val k;
    int rc = cs_cursor_get(c, &k, vals ? &vals[0] : NULL, CS_NEXT);
    if (rc) return rc;
    size_t got = 1;
    bt_path *p = &c->path;
    int leaf = p->depth - 1;
    const uint8_t *pg = p->pg[leaf];
    uint32_t psize = c->txn->psize;
    unsigned count = node_n(pg), idx = p->idx[leaf];
    /* A compact leaf's keys are assembled into the arena, which lives until
     * the next call (c->key is rewritten by the last key's remember_key). */
    bool compact = node_is_compact(pg);
    uint32_t used = 0, plen = node_prefix_len(pg);
    if (compact && keys) {
        if (!c->arena && !(c->arena = malloc(BATCH_ARENA + BATCH_SLACK))) return cs_fail(CS_ENOMEM, "cursor batch arena");
        memcpy(c->arena, k.data, k.size);
        k.data = c->arena;
        used = (uint32_t)k.size;
    }
    if (keys) keys[0] = k;
    /* The prefix, padded so that a 16-byte copy of a shorter one stays inside. */
    uint8_t pfx[LEAF6_PREFIX_MAX + 16] = {0};
    if (compact && keys) memcpy(pfx, node_prefix(pg, psize), plen);
    while (got < cap && idx + 1u < count && !compact) {
        idx++;
        if (idx + 2u < count) __builtin_prefetch(pg + node_slot(pg, idx + 2));
        /* An inline cell inside the page: read it here; anything else
         * (overflow value, damaged cell) through bt_read. */
        uint32_t off = node_slot(pg, idx), kl = 0, vl = VLEN_OVERFLOW;
        if (CS_LIKELY(off >= PAGE_HDR && off + LEAF_CELL_HDR <= psize)) {
            kl = rd16(pg + off);
            vl = rd32(pg + off + 2);
        }
        p->idx[leaf] = (uint16_t)idx;
        if (CS_LIKELY(!(vl & VLEN_OVERFLOW) && off + LEAF_CELL_HDR + kl + vl <= psize)) {
            k.data = pg + off + LEAF_CELL_HDR;
            k.size = kl;
            if (vals) {
                vals[got].data = pg + off + LEAF_CELL_HDR + kl;
                vals[got].size = vl;
            }
        } else if ((rc = bt_read(c->txn, p, NULL, &k, vals ? &vals[got] : NULL))) {
            p->idx[leaf] = (uint16_t)(idx - 1);
            break;
        }
        if (keys) keys[got] = k;
        got++;
    }
    while (compact && got < cap && idx + 1u < count) {
        leaf6_cell cell;
        if (!leaf6_parse(pg, psize, idx + 1, &cell)) {
            /* A damaged cell: bt_read reports it. */
            p->idx[leaf] = (uint16_t)(idx + 1);
            rc = bt_read(c->txn, p, NULL, NULL, NULL);
            p->idx[leaf] = (uint16_t)idx;
            break;
        }
        if (keys && used + plen + cell.sl > BATCH_ARENA) break;
        idx++;
        if (idx + 2u < count) __builtin_prefetch(pg + node_slot(pg, idx + 2));
        p->idx[leaf] = (uint16_t)idx;
        uint8_t *kb = keys ? c->arena + used : NULL;
        if (keys) {
            /* Short keys (object keys, collection entries) take two fixed
             * 16-byte copies, which compile to moves, instead of two calls;
             * the suffix's 16 bytes must lie inside the page. */
            if (plen <= 16 && cell.sl <= 16 && cell.sfx + 16 <= pg + psize) {
                copy16(kb, pfx);
                copy16(kb + plen, cell.sfx);
            } else {
                memcpy(kb, pfx, plen);
                memcpy(kb + plen, cell.sfx, cell.sl);
            }
            keys[got] = (cs_val){kb, plen + cell.sl};
            used += plen + cell.sl;
        }
        if (vals) {
            if (CS_LIKELY(!(cell.vw & 1))) {
                vals[got].data = cell.v;
                vals[got].size = cell.vw >> 1;
            } else if ((rc = bt_read(c->txn, p, NULL, NULL, &vals[got]))) {
                p->idx[leaf] = (uint16_t)(idx - 1);
                break;
            }
        }
        got++;
    }
    /* At the leaf's end: ask for the next leaf now. */
    if (idx + 1u == count) prefetch_ahead(c, true, idx, count);
    /* Write txns re-find the cursor by its key: remember the last one. */
    if (got > 1 && !c->txn->rdonly) {
        cs_val last;
        if (bt_read(c->txn, p, c->key, &last, NULL) == CS_OK) remember_key(c, &last);
    }
    *n = got;
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
