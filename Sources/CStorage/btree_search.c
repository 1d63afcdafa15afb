/*
 * btree_search.c — finding keys in a copy-on-write B+ tree: root-to-leaf
 * descent with fence-guided node searches, edge and step moves for
 * cursors, reading the entry a path ends at, and point lookups.
 *
 * Readers never lock: a read txn's pages are the map's, immutable while its
 * snapshot is held (I7), so a descent only validates what it reads (I8)
 * and trusts the separators (I4) to pick the child.
 */
#include "internal.h"

/* The descent of bt_descend. Without `keep` (a read txn's point lookup)
 * no path is kept, only the leaf and its slot (*leaf_pg, *leaf_idx); every
 * page is checked as with one. `keep` is a constant at each call, so each
 * copy keeps only its own stores. */
static inline __attribute__((always_inline)) int descend(cs_txn *t, const cs_tree_desc *d, const uint8_t *k,
                                                         uint32_t kl, bool keep, bt_path *p,
                                                         const uint8_t **leaf_pg, unsigned *leaf_idx, bool *exact)
{
    if (keep) p->depth = 0;
    *exact = false;
    if (d->root == 0) return CS_NOTFOUND;
    if (d->depth == 0 || d->depth > CS_MAX_DEPTH) return cs_fail(CS_ETOODEEP, "tree depth %u", d->depth);
    uint64_t pgno = d->root;
    bool clean = t->rdonly;
    /* The separators around the child taken (unknown at the tree's edges),
     * for its search's interpolation guess; none for text keys (bisected),
     * except, in a read txn, keys ending in digits (guessed from those: a
     * write's descent mostly finds its pages in cache, where the guess's
     * instructions cost more than the misses it saves). */
    cs_key fences[2] = {{NULL, 0}, {NULL, 0}},
           *fence = key_is_text(k, kl) && !(t->rdonly && key_ends_in_digits(k, kl)) ? NULL : fences;
    int guess = -1; /* the leaf's slot guessed by its prefetch */
    for (int level = 0;; level++) {
        const uint8_t *pg;
        bool leaf = level + 1 == (int)d->depth;
        int rc = bt_load_node(t, pgno, leaf, clean, &pg);
        if (rc) return rc;
        clean = clean || page_is_mapped(t, pg);
        /* A leaf below the root is usually a cache miss, and a bisection
         * reads a dependent chain of its lines (slot, cell, slot, ...). Its
         * header is read now, so ask for every line in use at once (an
         * interpolation guess, whose lines the prefetch at the parent asked
         * for, usually needs none of the others). */
        if (leaf && level > 0 && guess < 0) node_prefetch_used(pg, t->psize);
        unsigned idx;
        if (keep) {
            p->pgno[level] = pgno;
            p->pg[level] = pg;
        }
        if (leaf) {
            if ((rc = node_search_leaf(pg, t->psize, k, kl, fence, guess, &idx, exact))) return rc;
            if (keep) {
                p->idx[level] = (uint16_t)idx;
                p->depth = level + 1;
            } else {
                *leaf_pg = pg;
                *leaf_idx = idx;
            }
            return CS_OK;
        }
        if ((rc = node_search_branch(pg, t->psize, k, kl, fence, &idx))) return rc;
        if (keep) p->idx[level] = (uint16_t)idx;
        if (fence && idx > 0 && (rc = node_key(pg, t->psize, idx, &fence[0]))) return rc;
        if (fence && idx + 1u < node_n(pg) && (rc = node_key(pg, t->psize, idx + 1, &fence[1]))) return rc;
        pgno = branch_child(pg, t->psize, idx);
        /* The next page is the leaf: its entry count is this cell's count. */
        if (clean && level + 2 == (int)d->depth && pgno >= 2 && pgno < t->map_pages)
            guess = node_prefetch_leaf(t->map + (pgno << t->env->psize_shift), t->psize,
                                       (unsigned)branch_count(pg, t->psize, idx), k, kl, fence);
    }
}

int bt_descend(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact)
{
    return descend(t, d, k, kl, true, p, NULL, NULL, exact);
}

/* Fill levels from..depth-1 going down the first (or last) child. */
static int descend_edge(cs_txn *t, bt_path *p, int from, int depth, bool last)
{
    for (int level = from; level < depth; level++) {
        if (level > 0) p->pgno[level] = branch_child(p->pg[level - 1], t->psize, p->idx[level - 1]);
        int rc = bt_load_node(t, p->pgno[level], level == depth - 1, false, &p->pg[level]);
        if (rc) return rc;
        p->idx[level] = (uint16_t)(last ? node_n(p->pg[level]) - 1 : 0);
    }
    p->depth = depth;
    return CS_OK;
}

int bt_edge(cs_txn *t, const cs_tree_desc *d, bool last, bt_path *p)
{
    p->depth = 0;
    if (d->root == 0) return CS_NOTFOUND;
    if (d->depth == 0 || d->depth > CS_MAX_DEPTH) return cs_fail(CS_ETOODEEP, "tree depth %u", d->depth);
    p->pgno[0] = d->root;
    return descend_edge(t, p, 0, (int)d->depth, last);
}

int bt_step(cs_txn *t, bt_path *p, bool forward)
{
    int leaf = p->depth - 1, l = leaf;
    while (l >= 0) {
        unsigned n = node_n(p->pg[l]);
        if (forward ? p->idx[l] + 1u < n : p->idx[l] > 0) break;
        l--;
    }
    if (l < 0) return CS_NOTFOUND;
    p->idx[l] = (uint16_t)(p->idx[l] + (forward ? 1 : -1));
    if (l == leaf) return CS_OK;
    bt_path save = *p;
    int rc = descend_edge(t, p, l + 1, p->depth, !forward);
    if (rc) *p = save;
    return rc;
}

/* bt_read of entry idx of leaf pg. */
static inline __attribute__((always_inline)) int read_leaf(cs_txn *t, const uint8_t *pg, unsigned idx, uint8_t *kbuf,
                                                           cs_val *key, cs_val *val)
{
    uint32_t psize = t->psize, kl, vl;
    const uint8_t *k, *v;
    bool ovf;
    if (node_is_compact(pg)) {
        leaf6_cell c;
        uint32_t plen = node_prefix_len(pg);
        if (CS_UNLIKELY(!leaf6_parse(pg, psize, idx, &c) || plen + c.sl > CS_MAX_KEY)) return node_bad_cell(pg, idx);
        if (key) {
            memcpy(kbuf, node_prefix(pg, psize), plen);
            memcpy(kbuf + plen, c.sfx, c.sl);
        }
        k = kbuf;
        kl = plen + c.sl;
        v = c.v;
        ovf = c.vw & 1;
        vl = c.vw >> 1;
    } else {
        uint32_t off = node_slot(pg, idx);
        if (CS_UNLIKELY(off < PAGE_HDR || off + LEAF_CELL_HDR > psize)) return node_bad_cell(pg, idx);
        kl = rd16(pg + off);
        vl = rd32(pg + off + 2);
        k = pg + off + LEAF_CELL_HDR;
        v = k + kl;
        ovf = vl & VLEN_OVERFLOW;
        vl &= ~VLEN_OVERFLOW;
        if (CS_UNLIKELY(off + LEAF_CELL_HDR + kl + (ovf ? OVERFLOW_REF : vl) > psize))
            return cs_fail(CS_ECORRUPT, "page %llu: cell %u out of bounds", (unsigned long long)PH(pg)->pgno, idx);
    }
    if (key) {
        key->data = k;
        key->size = kl;
    }
    if (!val) return CS_OK;
    if (ovf) {
        const uint8_t *run;
        uint64_t op = rd64(v);
        uint32_t np = ovf_pages(psize, vl);
        int rc = page_get_run(t, op, np, &run);
        if (rc) return rc;
        if (PH(run)->type != PT_OVERFLOW || PH(run)->npages != np || PH(run)->pgno != op)
            return cs_fail(CS_ECORRUPT, "overflow run at page %llu: bad header", (unsigned long long)op);
        v = run + PAGE_HDR;
    }
    val->data = v;
    val->size = vl;
    return CS_OK;
}

int bt_read(cs_txn *t, const bt_path *p, uint8_t *kbuf, cs_val *key, cs_val *val)
{
    return read_leaf(t, p->pg[p->depth - 1], p->idx[p->depth - 1], kbuf, key, val);
}

int bt_get(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, cs_val *val)
{
    bool exact = false;
    int rc;
    if (t->rdonly) {
        /* A read needs the leaf alone: no path (and no append hints, a
         * write txn's). */
        const uint8_t *pg = NULL;
        unsigned idx = 0;
        if ((rc = descend(t, d, k, kl, false, NULL, &pg, &idx, &exact))) return rc;
        if (!exact) return CS_NOTFOUND;
        return read_leaf(t, pg, idx, NULL, NULL, val);
    }
    bt_path p;
    if (!bt_hint_leaf(t, d, k, kl, &p, &exact) && (rc = bt_descend(t, d, k, kl, &p, &exact))) return rc;
    if (!exact) return CS_NOTFOUND;
    return bt_read(t, &p, NULL, NULL, val);
}
