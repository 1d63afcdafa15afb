/*
 * diff.c — what changed in a tree between two snapshots.
 *
 * Copy-on-write gives this for free: a page number seen in both snapshots
 * names the same, unchanged page, so a whole shared subtree is skipped
 * without reading it. Only the paths a writer touched are compared entry by
 * entry, and the cost follows the size of the change, not of the tree. The
 * object layer turns these key-level changes into Realm changesets.
 */
#include "internal.h"

typedef struct side {
    cs_txn *t;
    bt_path p;
    bool end;
    uint8_t kbuf[CS_MAX_KEY]; /* the current key, from a compact leaf */
} side;

/* d NULL or empty: a tree missing on one side is empty there. */
static int side_start(side *s, const cs_tree_desc *d)
{
    if (!d || !d->root) {
        s->end = true;
        return CS_OK;
    }
    int rc = bt_edge(s->t, d, false, &s->p);
    s->end = rc == CS_NOTFOUND;
    return rc == CS_NOTFOUND ? CS_OK : rc;
}

static int side_next(side *s)
{
    int rc = bt_step(s->t, &s->p, true);
    s->end = rc == CS_NOTFOUND;
    return rc == CS_NOTFOUND ? CS_OK : rc;
}

/* Highest level whose subtree starts at the cursor's entry. */
static int subtree_start(const side *s)
{
    int l = s->p.depth - 1;
    while (l > 0 && s->p.idx[l] == 0) l--;
    return s->p.idx[l] == 0 ? l : l + 1;
}

/* Move past the subtree rooted at level l (the cursor is at its start).
 * `moved`: the parent's index has moved on, so level l is read afresh. */
static int skip_subtree(side *s, int l, bool moved)
{
    bt_path *p = &s->p;
    for (int level = l; level < p->depth; level++) {
        if (level > l || moved) {
            p->pgno[level] = branch_child(p->pg[level - 1], s->t->psize, p->idx[level - 1]);
            int rc = page_get(s->t, p->pgno[level], &p->pg[level]);
            if (rc) return rc;
            if ((rc = node_check(p->pg[level], s->t->psize, p->pgno[level]))) return rc;
            if (node_n(p->pg[level]) == 0) return cs_fail(CS_ECORRUPT, "empty page %llu", (unsigned long long)p->pgno[level]);
        }
        p->idx[level] = (uint16_t)(node_n(p->pg[level]) - 1);
    }
    return side_next(s);
}

/* Both cursors at the start of one same page: skip it on both sides, and
 * with it the siblings after it that both parents share. A one-put commit
 * copies one path, so most of a tree's children are runs of shared
 * siblings: crossing each run costs one step, not a descent per child. */
static int skip_shared(side *a, side *b, bool *skipped)
{
    *skipped = false;
    if (a->end || b->end) return CS_OK;
    int sa = subtree_start(a), sb = subtree_start(b);
    for (int la = sa; la < a->p.depth; la++)
        for (int lb = sb; lb < b->p.depth; lb++)
            if (a->p.pgno[la] == b->p.pgno[lb]) {
                bool moved = false;
                if (la > 0 && lb > 0) {
                    const uint8_t *pa = a->p.pg[la - 1], *pb = b->p.pg[lb - 1];
                    uint16_t *ia = &a->p.idx[la - 1], *ib = &b->p.idx[lb - 1];
                    uint32_t psize = a->t->psize;
                    uint64_t c;
                    /* 0: a damaged cell, left to the descent to report. */
                    while (*ia + 1 < node_n(pa) && *ib + 1 < node_n(pb) &&
                           (c = branch_child(pa, psize, *ia + 1)) != 0 && c == branch_child(pb, psize, *ib + 1)) {
                        ++*ia;
                        ++*ib;
                        moved = true;
                    }
                }
                int rc = skip_subtree(a, la, moved);
                if (rc == CS_OK) rc = skip_subtree(b, lb, moved);
                *skipped = true;
                return rc;
            }
    return CS_OK;
}

/* n bytes at x and y are equal: bytes_equal's inline words for a cell of a
 * few words, memcmp's vector loop for longer ones. */
static inline bool same_bytes(const uint8_t *x, const uint8_t *y, uint32_t n)
{
    return n > 32 ? memcmp(x, y, n) == 0 : bytes_equal(x, y, n);
}

/* Both cursors in compact leaves with one key prefix: a cell whose bytes
 * are the same on both sides is the same key and value (the encoding is
 * canonical), so a copied leaf's unchanged entries are passed with one
 * cell compare each, not two reads, a key compare and a value compare.
 * Overflow cells are left to the full compare; so is a damaged cell, for
 * bt_read to report. *skipped: at least one entry was passed. */
static int skip_same_cells(side *a, side *b, bool *skipped)
{
    *skipped = false;
    if (a->end || b->end) return CS_OK;
    int la = a->p.depth - 1, lb = b->p.depth - 1;
    const uint8_t *pa = a->p.pg[la], *pb = b->p.pg[lb];
    uint32_t psize = a->t->psize, plen = node_prefix_len(pa);
    /* The same npages word: the same prefix length and shape. */
    if (!node_is_compact(pa) || !node_is_compact(pb) || PH(pa)->npages != PH(pb)->npages ||
        memcmp(node_prefix(pa, psize), node_prefix(pb, psize), plen))
        return CS_OK;
    unsigned na = node_n(pa), nb = node_n(pb);
    uint16_t *ia = &a->p.idx[la], *ib = &b->p.idx[lb];
    for (;;) {
        leaf6_cell ca, cb;
        uint32_t oa = node_slot(pa, *ia), ob = node_slot(pb, *ib);
        if (!leaf6_parse(pa, psize, *ia, &ca) || (ca.vw & 1)) return CS_OK;
        /* At one offset (a copied leaf's unmoved cell) in leaves of one
         * prefix length, equal bytes parse alike: b's cell is not parsed. */
        if (oa == ob ? !same_bytes(pa + oa, pb + oa, ca.size)
                     : !leaf6_parse(pb, psize, *ib, &cb) || ca.size != cb.size || memcmp(pa + oa, pb + ob, ca.size))
            return CS_OK;
        *skipped = true;
        if (*ia + 1u >= na || *ib + 1u >= nb) break;
        ++*ia;
        ++*ib;
    }
    /* The last entry of a leaf: the next is found by a step, on both sides. */
    int rc = side_next(a);
    return rc ? rc : side_next(b);
}

static bool same_value(const cs_val *x, const cs_val *y)
{
    return x->size == y->size && (x->data == y->data || !memcmp(x->data, y->data, x->size));
}

/* The tree descriptor of `tree` in t, NULL if the tree is missing there. */
static int desc_or_null(cs_txn *t, cs_tree tree, const cs_tree_desc **out)
{
    cs_tree_desc *d;
    int rc = tree_desc_get(t, tree, false, &d);
    *out = rc == CS_OK ? d : NULL;
    return rc == CS_NOTFOUND ? CS_OK : rc;
}

int cs_tree_diff(cs_txn *from, cs_txn *to, cs_tree tree, cs_diff_fn fn, void *ctx)
{
    int rc = txn_check(from, false);
    if (rc || (rc = txn_check(to, false))) return rc;
    if (!fn || from->env != to->env) return cs_fail(CS_EINVAL, "cs_tree_diff: needs a callback and two txns of one env");
    const cs_tree_desc *dfrom, *dto;
    if ((rc = desc_or_null(from, tree, &dfrom)) || (rc = desc_or_null(to, tree, &dto))) return rc;
    return diff_trees(from, dfrom, to, dto, fn, ctx);
}

int diff_trees(cs_txn *from, const cs_tree_desc *dfrom, cs_txn *to, const cs_tree_desc *dto, cs_diff_fn fn, void *ctx)
{
    int rc;
    side a = {.t = from}, b = {.t = to};
    if ((rc = side_start(&a, dfrom)) || (rc = side_start(&b, dto))) return rc;
    cs_val none = {NULL, 0};
    while (!a.end || !b.end) {
        bool skipped;
        if ((rc = skip_shared(&a, &b, &skipped))) return rc;
        if (skipped) continue;
        if ((rc = skip_same_cells(&a, &b, &skipped))) return rc;
        if (skipped) continue;
        cs_val ka, va, kb, vb;
        if (!a.end && (rc = bt_read(a.t, &a.p, a.kbuf, &ka, &va))) return rc;
        if (!b.end && (rc = bt_read(b.t, &b.p, b.kbuf, &kb, &vb))) return rc;
        int c = a.end ? 1 : b.end ? -1 : key_cmp(ka.data, (uint32_t)ka.size, kb.data, (uint32_t)kb.size);
        int r = 0;
        if (c < 0) {
            r = fn(ctx, CS_DIFF_DELETE, ka, va, none);
            rc = side_next(&a);
        } else if (c > 0) {
            r = fn(ctx, CS_DIFF_INSERT, kb, none, vb);
            rc = side_next(&b);
        } else {
            if (!same_value(&va, &vb)) r = fn(ctx, CS_DIFF_UPDATE, kb, va, vb);
            if ((rc = side_next(&a)) == CS_OK) rc = side_next(&b);
        }
        if (r) return r;
        if (rc) return rc;
    }
    return CS_OK;
}
