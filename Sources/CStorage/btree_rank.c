/*
 * btree_rank.c — rank access: the entry at a position, and the position of
 * the entry a path ends at. Branch cell i counts the entries under child i
 * (I5), so both are one root-to-leaf walk summing counts.
 *
 * The counts of a branch are spread over its cells (about one cache line
 * each), so a walk costs the cells it sums. Each node's own total is known
 * before it is read (the tree's entries for the root, the parent cell's
 * count below), so both walks sum from whichever end of the node is nearer:
 * on average a quarter of a node's cells instead of half.
 */
#include "internal.h"

/* Child i of branch pg (n cells, `total` entries) holding the entry of rank
 * *rank, which becomes its rank within that child. False if the counts do
 * not add up to a child. */
static inline bool rank_child(const uint8_t *pg, uint32_t psize, uint64_t total, uint64_t *rank, unsigned *idx)
{
    unsigned n = node_n(pg);
    uint64_t r = *rank;
    if (r < total / 2) {
        for (unsigned i = 0; i < n; i++) {
            uint64_t c = branch_count(pg, psize, i);
            if (r < c) {
                *rank = r;
                *idx = i;
                return true;
            }
            r -= c;
        }
        return false;
    }
    /* From the end: `after` entries from rank r up to the node's last. */
    uint64_t after = total - r;
    for (unsigned i = n; i-- > 0;) {
        uint64_t c = branch_count(pg, psize, i);
        if (after <= c) {
            *rank = c - after;
            *idx = i;
            return true;
        }
        after -= c;
    }
    return false;
}

int bt_seek_rank(cs_txn *t, const cs_tree_desc *d, uint64_t rank, bt_path *p)
{
    p->depth = 0;
    if (rank >= d->entries || d->root == 0) return CS_NOTFOUND;
    if (d->depth == 0 || d->depth > CS_MAX_DEPTH) return cs_fail(CS_ETOODEEP, "tree depth %u", d->depth);
    uint64_t pgno = d->root, total = d->entries;
    bool clean = t->rdonly;
    for (int level = 0;; level++) {
        bool leaf = level == (int)d->depth - 1;
        const uint8_t *pg;
        int rc = bt_load_node(t, pgno, leaf, clean, &pg);
        if (rc) return rc;
        clean = clean || page_is_mapped(t, pg);
        p->pg[level] = pg;
        p->pgno[level] = pgno;
        if (leaf) {
            if (rank >= node_n(pg)) return cs_fail(CS_ECORRUPT, "page %llu: entry counts disagree", (unsigned long long)pgno);
            p->idx[level] = (uint16_t)rank;
            p->depth = level + 1;
            return CS_OK;
        }
        unsigned i;
        if (!rank_child(pg, t->psize, total, &rank, &i))
            return cs_fail(CS_ECORRUPT, "page %llu: entry counts disagree", (unsigned long long)pgno);
        p->idx[level] = (uint16_t)i;
        total = branch_count(pg, t->psize, i);
        pgno = branch_child(pg, t->psize, i);
        /* The leaf and the entry in it are known here: ask for its lines now. */
        if (clean && level + 2 == (int)d->depth && pgno >= 2 && pgno < t->map_pages && total <= UINT16_MAX)
            node_prefetch_leaf_entry(t->map + (pgno << t->env->psize_shift), t->psize, (unsigned)total, (unsigned)rank);
    }
}

int bt_rank(cs_txn *t, const cs_tree_desc *d, const bt_path *p, uint64_t *rank)
{
    uint64_t r = 0, total = d->entries;
    for (int level = 0; level < p->depth - 1; level++) {
        const uint8_t *pg = p->pg[level];
        unsigned idx = p->idx[level], n = node_n(pg);
        uint64_t before = 0;
        if (idx <= n / 2) {
            for (unsigned i = 0; i < idx; i++) before += branch_count(pg, t->psize, i);
        } else {
            uint64_t from = 0; /* entries under children idx..n-1 */
            for (unsigned i = idx; i < n; i++) from += branch_count(pg, t->psize, i);
            if (from > total) return cs_fail(CS_ECORRUPT, "page %llu: entry counts disagree", (unsigned long long)p->pgno[level]);
            before = total - from;
        }
        r += before;
        total = branch_count(pg, t->psize, idx);
    }
    *rank = r + p->idx[p->depth - 1];
    return CS_OK;
}
