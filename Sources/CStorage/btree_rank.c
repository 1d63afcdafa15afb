/*
 * btree_rank.c — rank access: the entry at a position, and the position of
 * the entry a path ends at. Branch cell i counts the entries under child i
 * (I5), so both are one root-to-leaf walk summing counts.
 */
#include "internal.h"

int bt_seek_rank(cs_txn *t, const cs_tree_desc *d, uint64_t rank, bt_path *p)
{
    p->depth = 0;
    if (rank >= d->entries || d->root == 0) return CS_NOTFOUND;
    uint64_t pgno = d->root;
    for (int level = 0; level < (int)d->depth; level++) {
        bool leaf = level == (int)d->depth - 1;
        int rc = bt_load_node(t, pgno, leaf, false, &p->pg[level]);
        if (rc) return rc;
        const uint8_t *pg = p->pg[level];
        p->pgno[level] = pgno;
        unsigned n = node_n(pg), i = 0;
        if (leaf) {
            if (rank >= n) return cs_fail(CS_ECORRUPT, "page %llu: entry counts disagree", (unsigned long long)pgno);
            p->idx[level] = (uint16_t)rank;
            p->depth = level + 1;
            return CS_OK;
        }
        for (; i < n; i++) {
            uint64_t c = branch_count(pg, t->psize, i);
            if (rank < c) break;
            rank -= c;
        }
        if (i == n) return cs_fail(CS_ECORRUPT, "page %llu: entry counts disagree", (unsigned long long)pgno);
        p->idx[level] = (uint16_t)i;
        pgno = branch_child(pg, t->psize, i);
    }
    return cs_fail(CS_ECORRUPT, "tree depth does not match its pages");
}

int bt_rank(cs_txn *t, const bt_path *p, uint64_t *rank)
{
    CS_UNUSED(t);
    uint64_t r = 0;
    for (int level = 0; level < p->depth - 1; level++)
        for (unsigned i = 0; i < p->idx[level]; i++) r += branch_count(p->pg[level], t->psize, i);
    *rank = r + p->idx[p->depth - 1];
    return CS_OK;
}
