/*
 * relocate.c — auto-shrink's part in a tree (format.h I13): walk leaves in
 * key order and copy on write the paths and overflow runs that sit near the
 * end of the file, so that the allocator (lowest free pages first) moves
 * them down, and pack leaves that deletes left part-empty. The commit that
 * calls this (commit.c, shrink_step via tree.c) later cuts the free end.
 */
#include "internal.h"

/* Auto-shrink (I13): move the overflow runs of the (touched) leaf that sit
 * at or past threshold into new runs, which the allocator takes from the
 * lowest free pages. */
static int relocate_overflow(cs_txn *t, uint8_t *leaf, uint64_t threshold)
{
    for (unsigned i = 0; i < node_n(leaf); i++) {
        const uint8_t *v, *src;
        uint32_t vl;
        bool ovf;
        uint64_t op, np;
        int rc = leaf_value(leaf, t->psize, i, &v, &vl, &ovf, &op);
        if (rc) return rc;
        if (!ovf || op < threshold || dirty_find(t, op)) continue;
        uint32_t n = ovf_pages(t->psize, vl);
        uint8_t *buf;
        if ((rc = page_get_run(t, op, n, &src)) || (rc = page_alloc(t, n, &np, &buf))) return rc;
        memcpy(buf, src, (size_t)n * t->psize);
        PHW(buf)->pgno = np;
        PHW(buf)->txnid = t->txnid;
        wr64((uint8_t *)v, np); /* the cell's overflow reference (leaf_value checked it) */
        if ((rc = page_free(t, op, n))) return rc;
    }
    return CS_OK;
}

static bool leaf_has_high_overflow(cs_txn *t, const uint8_t *leaf, uint64_t threshold)
{
    for (unsigned i = 0; i < node_n(leaf); i++) {
        const uint8_t *v;
        uint32_t vl;
        bool ovf;
        uint64_t op;
        if (leaf_value(leaf, t->psize, i, &v, &vl, &ovf, &op) == CS_OK && ovf && op >= threshold && !dirty_find(t, op))
            return true;
    }
    return false;
}

int bt_relocate(cs_txn *t, cs_tree_desc *d, uint64_t threshold, uint8_t *key, uint32_t *klen, unsigned *budget,
                unsigned *moved)
{
    bt_path p;
    bool exact;
    int rc = *klen ? bt_descend(t, d, key, *klen, &p, &exact) : bt_edge(t, d, false, &p);
    if (rc == CS_NOTFOUND) {
        *klen = 0;
        return CS_OK;
    }
    if (rc) return rc;
    int leaf = p.depth - 1;
    for (; *budget; (*budget)--) {
        bool high = false;
        for (int l = 0; l < p.depth && !high; l++)
            high = p.pgno[l] >= threshold && (PH(p.pg[l])->txnid != t->txnid || page_is_mapped(t, p.pg[l]));
        bool high_ovf = leaf_has_high_overflow(t, p.pg[leaf], threshold);
        /* Packing: leaves that deletes left part-empty merge with a
         * neighbour, so the tree needs fewer pages (a fresh file's leaves
         * are full). */
        bool pack = leaf > 0 && node_n(p.pg[leaf - 1]) > 1 &&
                    node_used(p.pg[leaf], t->psize) < (t->psize - PAGE_HDR) / 4 * 3;
        if (high || high_ovf || pack) {
            if ((rc = bt_touch_path(t, d, &p))) return rc;
            if (high_ovf && (rc = relocate_overflow(t, (uint8_t *)p.pg[leaf], threshold))) return rc;
            (*moved)++;
        }
        if (pack) {
            cs_key k;
            uint8_t kb[CS_MAX_KEY];
            uint64_t leaves = d->leaf_pages;
            bool done;
            if ((rc = node_leaf_key(p.pg[leaf], t->psize, 0, kb, &k))) return rc;
            memcpy(key, k.p, k.len);
            *klen = k.len;
            if ((rc = bt_rebalance_level(t, d, &p, leaf, true, &done))) return rc;
            /* merged: the path may name a freed page; find the key again */
            if (d->leaf_pages != leaves && (rc = bt_descend(t, d, key, *klen, &p, &exact))) return rc;
        }
        p.idx[leaf] = (uint16_t)(node_n(p.pg[leaf]) - 1);
        if ((rc = bt_step(t, &p, true)) == CS_NOTFOUND) {
            *klen = 0;
            return CS_OK;
        }
        if (rc) return rc;
    }
    cs_key k;
    uint8_t kb[CS_MAX_KEY];
    if ((rc = node_leaf_key(p.pg[leaf], t->psize, 0, kb, &k))) return rc;
    memcpy(key, k.p, k.len);
    *klen = k.len;
    return CS_OK;
}

/* Fold (V1): page *pgno and what it reaches that is volatile move into the
 * file. A page that is neither volatile nor dirty is a committed file page,
 * and nothing below it is volatile, so the walk stops there; a dirty page
 * is walked because this txn may have made it in the arena's place.
 * `clean`: the parent was not dirty in this txn, so neither is this page
 * (a txn copies the whole path to a page it changes): a branch of an
 * earlier logged commit checks its children for volatility alone, without
 * a dirty-page lookup each. */
static int fold_node(cs_txn *t, uint64_t *pgno, bool clean, int levels_left)
{
    uint8_t *pg = clean ? NULL : dirty_find(t, *pgno);
    if (!pg && !pgno_is_volatile(*pgno)) return CS_OK;
    if (levels_left <= 0) return cs_fail(CS_ETOODEEP, "tree deeper than %d levels", CS_MAX_DEPTH);
    bool children_clean = !pg;
    int rc = page_rehome(t, pgno, 1, &pg);
    if (rc || (rc = node_check(pg, t->psize, *pgno))) return rc;
    if (!node_is_leaf(pg)) {
        for (unsigned i = 0; i < node_n(pg); i++) {
            if (!branch_cell_ok(pg, t->psize, i)) return node_bad_cell(pg, i);
            uint64_t c = branch_child(pg, t->psize, i), nc = c;
            if ((rc = fold_node(t, &nc, children_clean, levels_left - 1))) return rc;
            if (nc != c) branch_set_child(pg, t->psize, i, nc);
        }
        return CS_OK;
    }
    for (unsigned i = 0; i < node_n(pg); i++) {
        const uint8_t *v;
        uint32_t vl;
        bool ovf;
        uint64_t op;
        if ((rc = leaf_value(pg, t->psize, i, &v, &vl, &ovf, &op))) return rc;
        if (!ovf || !pgno_is_volatile(op)) continue;
        uint8_t *run;
        if ((rc = page_rehome(t, &op, ovf_pages(t->psize, vl), &run))) return rc;
        wr64((uint8_t *)v, op); /* the cell's overflow reference (leaf_value checked it) */
    }
    return CS_OK;
}

int bt_fold(cs_txn *t, cs_tree_desc *d)
{
    if (!d->root) return CS_OK;
    return fold_node(t, &d->root, false, CS_MAX_DEPTH);
}
