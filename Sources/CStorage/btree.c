/*
 * btree.c — changing a copy-on-write B+ tree: insert with split, delete
 * with merge/redistribute, clearing, and the append hints that let puts in
 * key order skip the descent (searching is in btree_search.c, rank access
 * in btree_rank.c).
 *
 * Writes first touch the whole root-to-leaf path (pager.c: each page gets a
 * private copy at a new page number, parents re-pointed top-down), then
 * modify the copies. Committed pages are never written in place, which is
 * what lets readers run without locks and a crash leave the last commit
 * whole.
 *
 * Invariants kept here (format.h): I3 key order within a node; I4
 * separators: key[i] <= every key under child i < key[i+1]; I5 branch cell
 * i counts the entries under child i, so d->entries equals the sum over the
 * root; I9 all leaves at depth d->depth and no page empty; I7 through
 * copy-on-write.
 */
#include "internal.h"
#include "internal.h"

#include <stdlib.h>

#define MAX_CELL_BUF (CS_MAX_PAGE_SIZE / 3 + 64)

/* ---- writing ---- */

static int gather(cs_txn *t, const uint8_t *pg, int which, cs_cellref *refs, unsigned *n);

/* Make every page on the path writable; re-point parents at the copies. A
 * leaf of an older format version becomes a compact leaf as it is copied. */
int bt_touch_path(cs_txn *t, cs_tree_desc *d, bt_path *p)
{
    for (int level = 0; level < p->depth; level++) {
        /* Already copied by this txn: committed pages reachable from the
         * tree all carry older txnids, so no hash lookup is needed. A
         * damaged file can have a mapped page claim our txnid: the map is
         * read-only, so only a page outside it counts as ours. */
        const uint8_t *pg = p->pg[level];
        if (PH(pg)->txnid == t->txnid && !page_is_mapped(t, pg)) continue;
        uint64_t pgno = p->pgno[level];
        uint8_t *w;
        int rc = page_touch(t, &pgno, &w);
        if (rc) return rc;
        if (pgno != p->pgno[level]) {
            if (level == 0) d->root = pgno;
            else branch_set_child((uint8_t *)p->pg[level - 1], t->psize, p->idx[level - 1], pgno);
            p->pgno[level] = pgno;
        }
        p->pg[level] = w;
        if (PH(w)->type == PT_LEAF && level == p->depth - 1) {
            unsigned n = 0;
            if ((rc = gather(t, w, 0, t->refs, &n))) return rc;
            if (!node_rebuild(w, t->psize, t->refs, n, t->scratch + t->psize))
                return cs_fail(CS_ECORRUPT, "page %llu cannot be rebuilt", (unsigned long long)pgno);
        }
    }
    return CS_OK;
}

static void cell_key(const cs_cellref *c, bool leaf, cs_key *k)
{
    if (leaf) {
        k->len = rd16(c->p);
        k->p = c->p + LEAF_CELL_HDR;
    } else {
        k->len = rd16(c->p + 16);
        k->p = c->p + BRANCH_CELL_HDR;
    }
}

/* Collect a page's cells as references into `copy` (a copy of the page). */
static int gather(cs_txn *t, const uint8_t *pg, int which, cs_cellref *refs, unsigned *n)
{
    if (node_is_leaf(pg)) {
        /* Leaf cells in the type-3 form (compact leaves are decoded). */
        if (!t->decode && !(t->decode = malloc(2 * LEAF_DECODE_BYTES(t->psize))))
            return cs_fail(CS_ENOMEM, "leaf decode buffers");
        int rc = leaf_decode(pg, t->psize, t->decode + which * LEAF_DECODE_BYTES(t->psize), refs + *n);
        if (rc) return rc;
        *n += node_n(pg);
        return CS_OK;
    }
    uint8_t *copy = t->scratch + which * (size_t)t->psize;
    memcpy(copy, pg, t->psize);
    unsigned cnt = node_n(copy);
    for (unsigned i = 0; i < cnt; i++) {
        uint32_t sz;
        int rc = node_cell_size(copy, t->psize, i, &sz);
        if (rc) return rc;
        refs[*n + i] = (cs_cellref){copy + node_slot(copy, i), sz};
    }
    *n += cnt;
    return CS_OK;
}

/* What cell i costs in its page: leaf cells are sized for a compact leaf
 * with the prefix of all n cells (each half's own prefix is at least that
 * long, so a half sized so fits), reserving that prefix once per page. */
static uint32_t cell_cost(const cs_cellref *refs, unsigned i, bool leaf, uint32_t plen)
{
    return leaf ? leaf_cell_cost(&refs[i], plen, 0) : refs[i].size + 2u;
}

/* Split point m (entries [0,m) left, [m,n) right, entry i costing cost[i])
 * with both halves within cap and as equal as possible; 0 if impossible. */
static unsigned split_point(const uint32_t *cost, unsigned n, uint32_t cap)
{
    uint64_t total = 0, left = 0, best = UINT64_MAX;
    unsigned m_best = 0;
    for (unsigned i = 0; i < n; i++) total += cost[i];
    for (unsigned m = 1; m < n; m++) {
        left += cost[m - 1];
        uint64_t right = total - left;
        if (left > cap || right > cap) continue;
        uint64_t diff = left > right ? left - right : right - left;
        if (diff < best) best = diff, m_best = m;
    }
    return m_best;
}

static unsigned choose_split(cs_txn *t, const cs_cellref *refs, unsigned n, uint32_t cap, bool leaf)
{
    uint32_t plen = leaf ? leaf_cells_prefix(refs, n) : 0;
    for (unsigned i = 0; i < n; i++) t->costs[i] = cell_cost(refs, i, leaf, plen);
    return split_point(t->costs, n, cap - plen);
}

/* Shortest key s with a < s <= b (a < b): b's first (common prefix + 1) bytes. */
static uint32_t short_separator(cs_key a, cs_key b)
{
    uint32_t j = 0;
    while (j < a.len && j < b.len && a.p[j] == b.p[j]) j++;
    return j < b.len ? j + 1 : b.len;
}

static uint64_t sum_counts(const cs_cellref *refs, unsigned from, unsigned to)
{
    uint64_t s = 0;
    for (unsigned i = from; i < to; i++) s += rd64(refs[i].p + 8);
    return s;
}

static bool path_is_rightmost(const bt_path *p, int level)
{
    for (int l = 0; l < level; l++)
        if (p->idx[l] + 1u != node_n(p->pg[l])) return false;
    return true;
}

static int insert_at(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, unsigned idx, const uint8_t *cell,
                     uint32_t size);

/* Hang new page rpgno (rcount entries, keys from sep up) right of the page
 * at `level` (now lcount entries): a cell in the parent, or a new root. */
static int link_right(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, uint64_t rpgno, uint64_t lcount,
                      uint64_t rcount, const uint8_t *sep, uint32_t seplen)
{
    uint8_t pcell[BRANCH_CELL_HDR + CS_MAX_KEY];
    if (level == 0) {
        if (d->depth >= CS_MAX_DEPTH) return cs_fail(CS_ETOODEEP, "tree would exceed %d levels", CS_MAX_DEPTH);
        uint64_t rootno;
        uint8_t *root;
        int rc = page_alloc(t, 1, &rootno, &root);
        if (rc) return rc;
        node_init(root, PT_BRANCH, rootno, t->psize);
        uint32_t s0 = branch_cell_build(pcell, p->pgno[0], lcount, NULL, 0);
        node_insert(root, t->psize, 0, pcell, s0);
        uint32_t s1 = branch_cell_build(pcell, rpgno, rcount, sep, seplen);
        node_insert(root, t->psize, 1, pcell, s1);
        d->root = rootno;
        d->depth++;
        d->branch_pages++;
        return CS_OK;
    }
    uint8_t *parent = (uint8_t *)p->pg[level - 1];
    unsigned pidx = p->idx[level - 1];
    branch_set_count(parent, t->psize, pidx, lcount);
    uint32_t ps = branch_cell_build(pcell, rpgno, rcount, sep, seplen);
    return insert_at(t, d, p, level - 1, pidx + 1, pcell, ps);
}

/* An append that does not fit the tree's last leaf starts a new leaf with
 * the cell alone (appends fill pages, not halves), and the full leaf keeps
 * its cells as they are: no decoding and re-encoding them. */
static int split_append(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, const uint8_t *cell, uint32_t size)
{
    const uint8_t *pg = p->pg[level];
    unsigned n = node_n(pg);
    uint8_t lb[CS_MAX_KEY];
    cs_key a, b = {cell + LEAF_CELL_HDR, rd16(cell)};
    int rc = node_leaf_key(pg, t->psize, n - 1, lb, &a);
    if (rc) return rc;
    uint64_t rpgno;
    uint8_t *right;
    if ((rc = page_alloc(t, 1, &rpgno, &right))) return rc;
    node_init(right, PT_LEAF6, rpgno, t->psize);
    cs_cellref ref = {cell, size};
    if (!node_rebuild(right, t->psize, &ref, 1, t->scratch + t->psize))
        return cs_fail(CS_ECORRUPT, "page %llu cannot be split", (unsigned long long)p->pgno[level]);
    d->leaf_pages++;
    return link_right(t, d, p, level, rpgno, n, 1, b.p, short_separator(a, b));
}

/* A cell that compact leaf pg (at `level` of p) refused: its key is outside
 * the prefix, or the page is full. The entries move between pages as
 * leaf_parts, read in place: laid out again with the shorter prefix if they
 * fit one page, else split in two, each half with its own prefix. */
static int insert_compact(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, unsigned idx, const uint8_t *cell,
                          uint32_t size, bool append)
{
    uint8_t *pg = (uint8_t *)p->pg[level];
    unsigned n = node_n(pg) + 1u;
    /* Full, an append, and the prefix is all the full leaf's keys share (it
     * is unless a tree's first leaf, which starts with none): the new
     * leaf takes the cell, the full one stays as it is. */
    if (append && leaf_in_prefix(pg, t->psize, cell)) {
        leaf_part f, l;
        if (!leaf6_part(pg, t->psize, 0, &f) || !leaf6_part(pg, t->psize, n - 2, &l)) return node_bad_cell(pg, 0);
        if (leaf_parts_prefix(&f, &l) == node_prefix_len(pg)) return split_append(t, d, p, level, cell, size);
    }
    leaf_part *e = t->parts;
    for (unsigned i = 0, j = 0; i < n; i++) {
        if (i == idx) leaf_part_of_cell(cell, &e[i]);
        else if (!leaf6_part(pg, t->psize, j++, &e[i])) return node_bad_cell(pg, j - 1);
    }
    uint32_t cap = t->psize - PAGE_HDR, plen = leaf_parts_prefix(&e[0], &e[n - 1]);
    /* A shape of all the entries is one of each half too (each half's own
     * prefix is at least as long, its suffixes and values as equal). */
    uint32_t shape = leaf_parts_shape(e, n, plen);
    uint64_t bytes = plen;
    for (unsigned i = 0; i < n; i++) bytes += t->costs[i] = leaf_part_cost(&e[i], plen, shape);
    /* A key outside the prefix (or a prefix shorter than the keys share,
     * after deletes): the entries may still fit one page. */
    if (bytes <= cap && leaf_write(pg, t->psize, e, n, plen, t->scratch)) return CS_OK;
    if (append) {
        uint32_t lp = leaf_parts_prefix(&e[0], &e[n - 2]);
        if (lp != node_prefix_len(pg) && !leaf_write(pg, t->psize, e, n - 1, lp, t->scratch))
            return cs_fail(CS_ECORRUPT, "page %llu cannot be rebuilt", (unsigned long long)p->pgno[level]);
        return split_append(t, d, p, level, cell, size);
    }
    unsigned m = split_point(t->costs, n, cap - plen);
    if (m == 0) return cs_fail(CS_ECORRUPT, "page %llu cannot be split", (unsigned long long)p->pgno[level]);
    /* The separator before the halves overwrite what e points at. */
    uint8_t ab[CS_MAX_KEY], bb[CS_MAX_KEY];
    cs_key a = {ab, leaf_part_key(&e[m - 1], ab)}, b = {bb, leaf_part_key(&e[m], bb)};
    uint32_t lp = leaf_parts_prefix(&e[0], &e[m - 1]), rp = leaf_parts_prefix(&e[m], &e[n - 1]);
    uint64_t rpgno;
    uint8_t *right;
    int rc = page_alloc(t, 1, &rpgno, &right);
    if (rc) return rc;
    node_init(right, PT_LEAF6, rpgno, t->psize);
    if (!leaf_write(right, t->psize, e + m, n - m, rp, t->scratch) || !leaf_write(pg, t->psize, e, m, lp, t->scratch))
        return cs_fail(CS_ECORRUPT, "page %llu cannot be split", (unsigned long long)p->pgno[level]);
    d->leaf_pages++;
    return link_right(t, d, p, level, rpgno, m, n - m, b.p, short_separator(a, b));
}

/* Insert a cell at (level, idx) of the touched path, splitting upwards. */
static int insert_at(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, unsigned idx, const uint8_t *cell,
                     uint32_t size)
{
    uint8_t *pg = (uint8_t *)p->pg[level];
    if (node_insert(pg, t->psize, idx, cell, size)) return CS_OK;

    bool leaf = node_is_leaf(pg);
    unsigned oldn = node_n(pg), n = 0;
    bool append = idx == oldn && path_is_rightmost(p, level);
    if (leaf && node_is_compact(pg) && oldn > 0) return insert_compact(t, d, p, level, idx, cell, size, append);
    /* Branches, and leaves of type 3 (which become compact if they fit). */
    cs_cellref *refs = t->refs;
    int rc = gather(t, pg, 0, refs, &n);
    if (rc) return rc;
    memmove(refs + idx + 1, refs + idx, (n - idx) * sizeof *refs);
    refs[idx] = (cs_cellref){cell, size};
    n++;
    uint32_t cap = t->psize - PAGE_HDR;
    if (leaf && leaf_cells_bytes(refs, n) <= cap) {
        if (!node_rebuild(pg, t->psize, refs, n, t->scratch + t->psize))
            return cs_fail(CS_ECORRUPT, "page %llu cannot be rebuilt", (unsigned long long)p->pgno[level]);
        return CS_OK;
    }
    unsigned m = append ? oldn : choose_split(t, refs, n, cap, leaf);
    if (m == 0 || m >= n) return cs_fail(CS_ECORRUPT, "page %llu cannot be split", (unsigned long long)p->pgno[level]);

    uint64_t rpgno;
    uint8_t *right;
    if ((rc = page_alloc(t, 1, &rpgno, &right))) return rc;
    node_init(right, leaf ? PT_LEAF6 : PT_BRANCH, rpgno, t->psize);
    uint8_t sep[CS_MAX_KEY];
    uint32_t seplen;
    cs_key a, b;
    cell_key(&refs[m], leaf, &b);
    uint8_t first_right[BRANCH_CELL_HDR];
    if (leaf) {
        cell_key(&refs[m - 1], leaf, &a);
        seplen = short_separator(a, b);
        memcpy(sep, b.p, seplen);
    } else {
        /* The right page's first key moves up; its cell keeps an empty key. */
        seplen = b.len;
        memcpy(sep, b.p, seplen);
        branch_cell_build(first_right, rd64(refs[m].p), rd64(refs[m].p + 8), NULL, 0);
        refs[m] = (cs_cellref){first_right, BRANCH_CELL_HDR};
    }
    uint64_t lcount = leaf ? m : sum_counts(refs, 0, m);
    uint64_t rcount = leaf ? n - m : sum_counts(refs, m, n);
    if (!node_rebuild(right, t->psize, refs + m, n - m, t->scratch + t->psize) ||
        !node_rebuild(pg, t->psize, refs, m, t->scratch + t->psize))
        return cs_fail(CS_ECORRUPT, "page %llu cannot be split", (unsigned long long)p->pgno[level]);
    if (leaf) d->leaf_pages++;
    else d->branch_pages++;
    return link_right(t, d, p, level, rpgno, lcount, rcount, sep, seplen);
}

static int check_sizes(cs_txn *t, uint32_t kl, size_t vl)
{
    CS_UNUSED(t);
    if (kl == 0 || kl > CS_MAX_KEY) return cs_fail(CS_EKEYSIZE, "key of %u bytes (allowed: 1..%u)", kl, CS_MAX_KEY);
    if (vl > CS_MAX_VALUE) return cs_fail(CS_EVALSIZE, "value of %zu bytes (max %u)", vl, CS_MAX_VALUE);
    return CS_OK;
}

/* Build the leaf cell for (k, v), writing v to an overflow run if needed. */
static int make_leaf_cell(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl, const void *v, size_t vl,
                          uint8_t *cell, uint32_t *size)
{
    if (LEAF_CELL_HDR + kl + vl <= node_max_cell(t->psize)) {
        *size = leaf_cell_build(cell, k, kl, v, (uint32_t)vl, false, 0);
        return CS_OK;
    }
    uint32_t np = ovf_pages(t->psize, vl);
    uint64_t pgno;
    uint8_t *run;
    int rc = page_alloc(t, np, &pgno, &run);
    if (rc) return rc;
    PHW(run)->type = PT_OVERFLOW;
    if (vl) memcpy(run + PAGE_HDR, v, vl);
    size_t tail = (size_t)np * t->psize - PAGE_HDR - vl;
    memset(run + PAGE_HDR + vl, 0, tail);
    d->overflow_pages += np;
    *size = leaf_cell_build(cell, k, kl, NULL, (uint32_t)vl, true, pgno);
    return CS_OK;
}

/* Free the overflow run of leaf cell idx, if it has one. */
static int free_cell_overflow(cs_txn *t, cs_tree_desc *d, const uint8_t *pg, unsigned idx)
{
    const uint8_t *v;
    uint32_t vl;
    bool ovf;
    uint64_t op;
    int rc = leaf_value(pg, t->psize, idx, &v, &vl, &ovf, &op);
    if (rc || !ovf) return rc;
    uint32_t np = ovf_pages(t->psize, vl);
    d->overflow_pages -= np;
    return page_free(t, op, np);
}

/* An entry change for redo_lower_bound (see there); the catalog's own
 * entries are left out (its changes are tree ops in the record). */
static void note_change(cs_txn *t, const cs_tree_desc *d, int64_t grow, int64_t dels)
{
    if (d == &t->catalog) return;
    t->rec_grow += grow;
    t->rec_dels += dels;
}

static void add_counts(const cs_txn *t, bt_path *p, int64_t delta)
{
    for (int l = 0; l < p->depth - 1; l++) {
        uint8_t *pg = (uint8_t *)p->pg[l];
        branch_set_count(pg, t->psize, p->idx[l], branch_count(pg, t->psize, p->idx[l]) + (uint64_t)delta);
    }
}

/* ---- Append hints ----
 * Appends (keys above every key in the tree: object keys, sequences) are
 * the common bulk insert, and each would search every level again. A write
 * txn remembers, per tree, the pages of the rightmost path its last append
 * went down. A hint is only a guess, checked against the tree as it is now
 * before use: the root is the tree's root, each branch's last child is the
 * next page, every page is dirty in this txn (so its buffer is current) and
 * the key is above the rightmost leaf's last key. That is exactly where a
 * search would land, so no other operation has to maintain the hints. */
enum { HINT_MISS_RUN = 8 };

static bt_hint *hint_find(cs_txn *t, const cs_tree_desc *d)
{
    for (unsigned i = 0; i < BT_HINTS; i++)
        if (t->hints[i].desc == d) return &t->hints[i];
    return NULL;
}

static void hint_record(cs_txn *t, const cs_tree_desc *d, const bt_path *p)
{
    bt_hint *h = hint_find(t, d);
    if (!h) {
        h = &t->hints[t->next_hint++ % BT_HINTS];
        h->misses = 0;
    }
    h->desc = d;
    h->depth = p->depth;
    memcpy(h->pgno, p->pgno, (size_t)p->depth * sizeof p->pgno[0]);
    memcpy(h->idx, p->idx, (size_t)p->depth * sizeof p->idx[0]);
}


/* k against the keys of leaf pg (not empty), key_cmp's sign: *lo against
 * the first (if lo is not NULL), *hi against the last. A compact leaf's
 * prefix is compared once: a key outside it lies below or above every key.
 * False if a cell is damaged. */
static bool leaf_bounds(const uint8_t *pg, uint32_t psize, const uint8_t *k, uint32_t kl, int *lo, int *hi)
{
    unsigned last = node_n(pg) - 1u;
    if (!node_is_compact(pg)) {
        cs_key a, b;
        if ((lo && node_cell_key(pg, psize, true, 0, &a)) || node_cell_key(pg, psize, true, last, &b)) return false;
        if (lo) *lo = key_cmp(k, kl, a.p, a.len);
        *hi = key_cmp(k, kl, b.p, b.len);
        return true;
    }
    uint32_t plen = node_prefix_len(pg), m = plen < kl ? plen : kl;
    const uint8_t *pfx = node_prefix(pg, psize);
    if (!bytes_equal(k, pfx, m) || kl < plen) {
        int c = bytes_equal(k, pfx, m) ? -1 : key_cmp(k, m, pfx, m); /* a proper prefix of it: below */
        if (lo) *lo = c;
        *hi = c;
        return true;
    }
    leaf6_cell a, b;
    if ((lo && !leaf6_parse(pg, psize, 0, &a)) || !leaf6_parse(pg, psize, last, &b)) return false;
    if (lo) *lo = key_cmp(k + plen, kl - plen, a.sfx, a.sl);
    *hi = key_cmp(k + plen, kl - plen, b.sfx, b.sl);
    return true;
}

/* The path of this txn's last put in d, if it still leads to the leaf
 * holding k: every page dirty (its buffer current), each branch's child at
 * the recorded slot the next page (so the path is in the tree now), and k
 * within the leaf's first..last keys (so a search would land there too).
 * Puts and gets in key order (an update loop, a migration rewriting every
 * object) then skip the branch searches. False if it does not hold. The
 * leaf's range is tested first: a put elsewhere (random order) fails after
 * one lookup instead of validating the whole path. */
bool bt_hint_leaf(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact)
{
    if (t->rdonly) return false;
    bt_hint *h = hint_find(t, d);
    if (!h || h->depth != (int)d->depth || h->pgno[0] != d->root) return false;
    /* After a run of misses (puts in random order) only every 8th put
     * tries: each try costs a lookup and the leaf's bounds. */
    if (h->misses >= HINT_MISS_RUN && (++h->misses & 7)) return false;
    int last = h->depth - 1;
    const uint8_t *leaf = dirty_find(t, h->pgno[last]);
    int lo, hi;
    if (!leaf || !node_is_leaf(leaf) || node_n(leaf) == 0 || !leaf_bounds(leaf, t->psize, k, kl, &lo, &hi) ||
        lo < 0 || hi > 0) {
        if (h->misses < HINT_MISS_RUN) h->misses++;
        return false;
    }
    h->misses = 0;
    for (int level = 0; level < last; level++) {
        const uint8_t *pg = dirty_find(t, h->pgno[level]);
        unsigned idx = h->idx[level];
        if (!pg || node_is_leaf(pg) || idx >= node_n(pg) || branch_child(pg, t->psize, idx) != h->pgno[level + 1])
            return false;
        p->pgno[level] = h->pgno[level];
        p->pg[level] = pg;
        p->idx[level] = (uint16_t)idx;
    }
    unsigned idx;
    if (node_search_leaf(leaf, t->psize, k, kl, NULL, -1, &idx, exact)) return false;
    p->pgno[last] = h->pgno[last];
    p->pg[last] = leaf;
    p->idx[last] = (uint16_t)idx;
    p->depth = h->depth;
    return true;
}

/* The path a search for k would take, from the hint; false if the hint
 * does not hold (then search). */
static bool hint_path(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p)
{
    bt_hint *h = hint_find(t, d);
    if (!h || h->depth != (int)d->depth || h->pgno[0] != d->root) return false;
    for (int level = 0; level < h->depth; level++) {
        const uint8_t *pg = dirty_find(t, h->pgno[level]);
        bool leaf = level + 1 == h->depth;
        if (!pg || node_n(pg) == 0 || node_is_leaf(pg) != leaf) return false;
        unsigned n = node_n(pg);
        p->pgno[level] = h->pgno[level];
        p->pg[level] = pg;
        if (leaf) {
            int hi;
            if (!leaf_bounds(pg, t->psize, k, kl, NULL, &hi) || hi <= 0) return false;
            p->idx[level] = (uint16_t)n;
            p->depth = h->depth;
            return true;
        }
        if (branch_child(pg, t->psize, n - 1) != h->pgno[level + 1]) return false;
        p->idx[level] = (uint16_t)(n - 1);
    }
    return false;
}

int bt_put(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl, const void *v, size_t vl, unsigned flags)
{
    int rc = check_sizes(t, kl, vl);
    if (rc) return rc;
    uint8_t cell[MAX_CELL_BUF];
    uint32_t csize;
    if (d->root == 0) {
        uint64_t pgno;
        uint8_t *leaf;
        if ((rc = make_leaf_cell(t, d, k, kl, v, vl, cell, &csize))) return rc;
        if ((rc = page_alloc(t, 1, &pgno, &leaf))) return rc;
        node_init(leaf, PT_LEAF6, pgno, t->psize);
        node_insert(leaf, t->psize, 0, cell, csize);
        d->root = pgno;
        d->depth = 1;
        d->entries = 1;
        d->leaf_pages = 1;
        t->gen++;
        note_change(t, d, (int64_t)kl + (int64_t)vl + 3, -((int64_t)kl + 2));
        return CS_OK;
    }
    bt_path p;
    bool exact = false;
    if (!hint_path(t, d, k, kl, &p) && !bt_hint_leaf(t, d, k, kl, &p, &exact) &&
        (rc = bt_descend(t, d, k, kl, &p, &exact)))
        return rc;
    if (exact && (flags & CS_NOOVERWRITE)) return CS_EXISTS;
    /* Build the new cell before touching anything: k and v may point into
     * pages this put is about to change or free. */
    if ((rc = make_leaf_cell(t, d, k, kl, v, vl, cell, &csize))) return rc;
    if ((rc = bt_touch_path(t, d, &p))) return rc;
    int leaf_level = p.depth - 1;
    uint8_t *leaf = (uint8_t *)p.pg[leaf_level];
    unsigned idx = p.idx[leaf_level];
    t->gen++;
    if (exact) {
        /* An inline value of the old one's length keeps the cell's size
         * and header: copy the bytes over, reading the cell once. */
        const uint8_t *ov;
        uint32_t ovl;
        bool oovf;
        uint64_t opg;
        if ((rc = leaf_value(leaf, t->psize, idx, &ov, &ovl, &oovf, &opg))) return rc;
        if (!oovf && ovl == vl && !(rd32(cell + 2) & VLEN_OVERFLOW)) {
            memcpy((uint8_t *)ov, cell + LEAF_CELL_HDR + kl, vl);
            return CS_OK;
        }
        uint32_t old;
        if ((rc = node_cell_size(leaf, t->psize, idx, &old))) return rc;
        note_change(t, d, (int64_t)vl - (int64_t)ovl, 0);
        if ((rc = free_cell_overflow(t, d, leaf, idx))) return rc;
        if (leaf_overwrite(leaf, t->psize, idx, cell, csize)) return CS_OK; /* same size: in place */
        node_remove(leaf, t->psize, idx, old);
    } else {
        d->entries++;
        add_counts(t, &p, 1);
        note_change(t, d, (int64_t)kl + (int64_t)vl + 3, -((int64_t)kl + 2));
    }
    /* An append: remember the path (after a split it no longer holds, and
     * the next put searches and records the new one). */
    hint_record(t, d, &p); /* appends take hint_path, other puts hint_leaf */
    return insert_at(t, d, &p, leaf_level, idx, cell, csize);
}

/* Merge or rebalance an underfull page at `level` with a sibling. Returns
 * CS_OK and sets *done when no further level needs a look. `pack`
 * (auto-shrink): a page under 3/4 full merges with its sibling if both fit
 * in 7/8 of a page, else the left one is filled to 7/8 from the right. */
int bt_rebalance_level(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, bool pack, bool *done)
{
    uint8_t *pg = (uint8_t *)p->pg[level];
    uint32_t cap = t->psize - PAGE_HDR;
    bool leaf = node_is_leaf(pg);
    unsigned n = node_n(pg);
    *done = false;
    if (n > 0 && node_used(pg, t->psize) >= (pack ? cap / 4 * 3 : cap / 4) && (leaf || n >= 2)) {
        *done = true;
        return CS_OK;
    }
    uint8_t *parent = (uint8_t *)p->pg[level - 1];
    unsigned pidx = p->idx[level - 1], pn = node_n(parent);
    if (pn < 2) return CS_OK; /* only child: the parent is underfull too */
    unsigned L = pidx > 0 ? pidx - 1 : pidx, R = L + 1;
    unsigned sib = pidx > 0 ? L : R;
    uint64_t spg = branch_child(parent, t->psize, sib);
    uint8_t *sibling;
    int rc = page_touch(t, &spg, &sibling);
    if (rc) return rc;
    branch_set_child(parent, t->psize, sib, spg);
    if ((rc = node_check(sibling, t->psize, spg))) return rc;
    if (node_is_leaf(sibling) != leaf) return cs_fail(CS_ECORRUPT, "page %llu: sibling of another kind", (unsigned long long)spg);
    uint8_t *lpg = sib == L ? sibling : pg, *rpg = sib == R ? sibling : pg;
    uint64_t rpgno = branch_child(parent, t->psize, R);

    /* The parent's separator for R comes down into R's first branch cell. */
    cs_key psep;
    if ((rc = node_key(parent, t->psize, R, &psep))) return rc;
    uint8_t sepcopy[CS_MAX_KEY];
    uint32_t pseplen = psep.len > CS_MAX_KEY ? CS_MAX_KEY : psep.len;
    memcpy(sepcopy, psep.p, pseplen);

    cs_cellref *refs = t->refs;
    unsigned total = 0, nl;
    if ((rc = gather(t, lpg, 0, refs, &total))) return rc;
    nl = total;
    if ((rc = gather(t, rpg, 1, refs, &total))) return rc;
    uint8_t rfirst[BRANCH_CELL_HDR + CS_MAX_KEY];
    if (!leaf) {
        uint32_t s = branch_cell_build(rfirst, rd64(refs[nl].p), rd64(refs[nl].p + 8), sepcopy, pseplen);
        refs[nl] = (cs_cellref){rfirst, s};
    }
    uint32_t plen = leaf ? leaf_cells_prefix(refs, total) : 0;
    uint64_t bytes = plen;
    for (unsigned i = 0; i < total; i++) bytes += cell_cost(refs, i, leaf, plen);
    uint8_t *rebuild_scratch = t->scratch + 2 * (size_t)t->psize;

    /* pack: leave an eighth free, so that the next inserts do not split */
    if (bytes <= (pack ? cap - cap / 8 : cap)) { /* merge R into L */
        uint64_t lc = branch_count(parent, t->psize, L) + branch_count(parent, t->psize, R);
        if (!node_rebuild(lpg, t->psize, refs, total, rebuild_scratch))
            return cs_fail(CS_ECORRUPT, "page %llu cannot be merged", (unsigned long long)p->pgno[level]);
        branch_set_count(parent, t->psize, L, lc);
        uint32_t rsz;
        if ((rc = node_cell_size(parent, t->psize, R, &rsz))) return rc;
        node_remove(parent, t->psize, R, rsz);
        if (leaf) d->leaf_pages--;
        else d->branch_pages--;
        if (p->idx[level - 1] == R) p->idx[level - 1] = (uint16_t)L;
        return page_free(t, rpgno, 1);
    }

    /* Too big to merge: redistribute, if the new separator fits the parent.
     * pack: fill L to 7/8 from R, if that moves something and R fits. */
    unsigned m;
    if (pack) {
        uint64_t sum = plen, limit = cap - cap / 8;
        for (m = 0; m < total && sum + cell_cost(refs, m, leaf, plen) <= limit; m++) sum += cell_cost(refs, m, leaf, plen);
        if (m <= nl || m >= total || bytes - sum + plen > cap) m = 0;
    } else {
        m = choose_split(t, refs, total, cap, leaf);
    }
    if (m == 0) {
        *done = true;
        return CS_OK;
    }
    uint8_t sep[CS_MAX_KEY];
    uint32_t seplen;
    cs_key a, b;
    cell_key(&refs[m], leaf, &b);
    if (leaf) {
        cell_key(&refs[m - 1], leaf, &a);
        seplen = short_separator(a, b);
    } else {
        seplen = b.len;
    }
    memcpy(sep, b.p, seplen);
    uint32_t oldsz;
    if ((rc = node_cell_size(parent, t->psize, R, &oldsz))) return rc;
    if (node_free_space(parent) + oldsz < BRANCH_CELL_HDR + seplen) {
        *done = true;
        return CS_OK;
    }
    uint8_t rcell[BRANCH_CELL_HDR];
    if (!leaf) {
        branch_cell_build(rcell, rd64(refs[m].p), rd64(refs[m].p + 8), NULL, 0);
        refs[m] = (cs_cellref){rcell, BRANCH_CELL_HDR};
    }
    uint64_t lcount = leaf ? m : sum_counts(refs, 0, m);
    uint64_t rcount = leaf ? total - m : sum_counts(refs, m, total);
    if (!node_rebuild(rpg, t->psize, refs + m, total - m, rebuild_scratch) ||
        !node_rebuild(lpg, t->psize, refs, m, rebuild_scratch))
        return cs_fail(CS_ECORRUPT, "page %llu cannot be rebalanced", (unsigned long long)p->pgno[level]);
    branch_set_count(parent, t->psize, L, lcount);
    node_remove(parent, t->psize, R, oldsz);
    uint8_t pcell[BRANCH_CELL_HDR + CS_MAX_KEY];
    uint32_t ps = branch_cell_build(pcell, rpgno, rcount, sep, seplen);
    if (!node_insert(parent, t->psize, R, pcell, ps))
        return cs_fail(CS_ECORRUPT, "page %llu: separator did not fit after check", (unsigned long long)p->pgno[level - 1]);
    *done = true;
    return CS_OK;
}

/* Drop single-child branch roots and an empty leaf root. */
static int collapse_root(cs_txn *t, cs_tree_desc *d)
{
    while (d->depth > 1) {
        const uint8_t *root;
        int rc = page_get(t, d->root, &root);
        if (rc) return rc;
        if (node_n(root) != 1) return CS_OK;
        uint64_t child = branch_child(root, t->psize, 0), old = d->root;
        d->root = child;
        d->depth--;
        d->branch_pages--;
        if ((rc = page_free(t, old, 1))) return rc;
    }
    if (d->depth == 1) {
        const uint8_t *root;
        int rc = page_get(t, d->root, &root);
        if (rc) return rc;
        if (node_n(root) == 0) {
            uint64_t old = d->root;
            d->root = 0;
            d->depth = 0;
            d->leaf_pages--;
            return page_free(t, old, 1);
        }
    }
    return CS_OK;
}

int bt_del(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl)
{
    if (kl == 0 || kl > CS_MAX_KEY) return cs_fail(CS_EKEYSIZE, "key of %u bytes (allowed: 1..%u)", kl, CS_MAX_KEY);
    bt_path p;
    bool exact;
    int rc = bt_descend(t, d, k, kl, &p, &exact);
    if (rc) return rc;
    if (!exact) return CS_NOTFOUND;
    if ((rc = bt_touch_path(t, d, &p))) return rc;
    t->gen++;
    int leaf_level = p.depth - 1;
    uint8_t *leaf = (uint8_t *)p.pg[leaf_level];
    unsigned idx = p.idx[leaf_level];
    uint32_t sz, vl;
    const uint8_t *v;
    bool ovf;
    uint64_t opg;
    if ((rc = node_cell_size(leaf, t->psize, idx, &sz)) || (rc = leaf_value(leaf, t->psize, idx, &v, &vl, &ovf, &opg)))
        return rc;
    note_change(t, d, -((int64_t)kl + (int64_t)vl + 3), (int64_t)kl + 2);
    if ((rc = free_cell_overflow(t, d, leaf, idx))) return rc;
    node_remove(leaf, t->psize, idx, sz);
    d->entries--;
    add_counts(t, &p, -1);
    for (int level = leaf_level; level > 0; level--) {
        bool done;
        if ((rc = bt_rebalance_level(t, d, &p, level, false, &done))) return rc;
        if (done) break;
    }
    return collapse_root(t, d);
}

static int free_subtree(cs_txn *t, cs_tree_desc *d, uint64_t pgno, int level)
{
    if (level >= (int)d->depth) return cs_fail(CS_ECORRUPT, "tree deeper than its descriptor");
    const uint8_t *pg;
    bool leaf = level == (int)d->depth - 1;
    int rc = bt_load_node(t, pgno, leaf, false, &pg);
    if (rc) return rc;
    unsigned n = node_n(pg);
    for (unsigned i = 0; i < n && rc == CS_OK; i++) {
        if (leaf) rc = free_cell_overflow(t, d, pg, i);
        else rc = free_subtree(t, d, branch_child(pg, t->psize, i), level + 1);
        if (rc == CS_OK && (rc = page_get(t, pgno, &pg))) break; /* re-fetch: frees do not move it */
    }
    if (rc) return rc;
    if (leaf) d->leaf_pages--;
    else d->branch_pages--;
    return page_free(t, pgno, 1);
}

int bt_clear(cs_txn *t, cs_tree_desc *d)
{
    t->rec_unbounded = true; /* its entries' bytes are not counted here */
    if (d->root) {
        int rc = free_subtree(t, d, d->root, 0);
        if (rc) return rc;
    }
    t->gen++;
    uint32_t flags = d->flags;
    memset(d, 0, sizeof *d);
    d->flags = flags;
    return CS_OK;
}
