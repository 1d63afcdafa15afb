/*
 * internal.h — the engine's in-memory structures and the functions its
 * files offer each other. Nothing here is public API. Layers L0-L3 are
 * declared in base.h, pages.h, os.h and txnstate.h (each includes the one
 * below it); L4 and up here.
 *
 * LAYERS, lowest first. A function may call functions of its own layer and
 * of the layers below, never above (scripts/check_layers.py checks this in
 * `make ctest`; it reads the table below and the "==== L<n>" sections that
 * order the headers' declarations the same way).
 *  L0  base      error.c crc32c.c vec.c: error detail, log messages, CRC-32C, extent vectors; calls libc only
 *  L1  format    meta.c node.c freelist.c: the on-disk structures (meta pages, slotted nodes, the free-list run), bytes in and out; calls L0
 *  L2  os        io.c lock.c redo.c vpage.c: data-file writes/flushes/growth, mappings and the page-buffer pool; the lock file (writer mutex, reader table, published meta); the redo log of small commits and the shared segment of their pages; calls L0-L1
 *  L3  txnstate  txnstate.h: struct cs_txn and the gates txn_check/txn_note (inline); calls L0
 *  L4  pager     pager.c: pages as a txn sees them, dirty pages, allocation, copy-on-write; calls L0-L3
 *  L5  btree     btree_search.c btree_rank.c btree.c relocate.c: search, insert/split, delete/merge, rank over one tree descriptor; auto-shrink's page moves; calls L0-L4
 *  L6  trees     tree.c: the tree-name registry, the catalog, a txn's descriptors, cs_tree_* and cs_get/put/del/count; calls L0-L5
 *  L7  access    cursor.c diff.c filter.c fts.c replay.c: cursors, snapshot diffs, value filters, full-text index and search; a write txn's changes as redo ops and back; calls L0-L6
 *  L8  txn       txn.c: begin (snapshot or writer), clone, reset, renew, abort; calls L0-L7
 *  L9  commit    commit.c: the commit steps C1-C7, flushing deferred commits, the auto-shrink step; calls L0-L8
 *  L10 env       env.c check.c: cs_env_open/close/sync/info, cs_check; calls L0-L9
 *  L11 files     copy.c: cs_env_copy (a compact copy through the public calls), cs_env_compact (that copy renamed over the file); calls L0-L10
 */
#ifndef CSTORAGE_INTERNAL_H
#define CSTORAGE_INTERNAL_H

#include "txnstate.h"

/* ==== L4 pager: pager.c ==== */

/* Page `pgno` as seen by txn; CS_ECORRUPT if out of range. */
int page_get(cs_txn *t, uint64_t pgno, const uint8_t **out);
/* page_get without the dirty-page probe when `clean`: a writer copies
 * whole root-to-leaf paths, so below a page it has not copied, none is. */
int page_get_in(cs_txn *t, uint64_t pgno, bool clean, const uint8_t **out);
static inline bool page_is_mapped(const cs_txn *t, const uint8_t *pg)
{
    return pg >= t->map && pg < t->map + (t->map_pages << t->env->psize_shift);
}
/* Page of a run of npages (overflow/free list), bounds-checked. */
int page_get_run(cs_txn *t, uint64_t pgno, uint64_t npages, const uint8_t **out);
uint8_t *dirty_find(cs_txn *t, uint64_t pgno);
/* Allocate npages contiguous new pages with a zeroed dirty buffer. */
int page_alloc(cs_txn *t, uint32_t npages, uint64_t *pgno, uint8_t **buf);
/* Give up pages: reusable at once if allocated by this txn, else pending. */
int page_free(cs_txn *t, uint64_t pgno, uint64_t npages);
/* Make page writable in this txn (copy-on-write). *pgno is updated when the
 * page moves; *page points at the writable copy. */
int page_touch(cs_txn *t, uint64_t *pgno, uint8_t **page);
void dirty_release_all(cs_txn *t);
/* Fold (V1): give volatile page *pgno (npages long) a page of the file,
 * copying it from the segment or moving this txn's dirty copy; *page is the
 * writable copy. A file page is left alone. */
int page_rehome(cs_txn *t, uint64_t *pgno, uint32_t npages, uint8_t **page);
/* Logged commit: copy the dirty pages (all volatile) into the segment, with
 * their checksums. CS_ENOSPACE when the segment cannot grow. */
int pager_put_volatile(cs_txn *t);
/* Commit: write the dirty pages, sorted. The first `cap` units written go
 * to `units` (may be NULL); *nunits = how many were written in all. */
int pager_write_dirty(cs_txn *t, cs_commit_unit *units, uint32_t cap, uint32_t *nunits);

/* ==== L5 btree: btree_search.c btree_rank.c btree.c relocate.c ==== */

/* Overflow pages of a value of vlen bytes (I10). */
static inline uint32_t ovf_pages(uint32_t psize, uint64_t vlen)
{
    return (uint32_t)((PAGE_HDR + vlen + psize - 1) / psize);
}

/* A root-to-leaf path. In write txns pg[] points at writable pages. */
typedef struct bt_path {
    int depth;
    uint64_t pgno[CS_MAX_DEPTH];
    const uint8_t *pg[CS_MAX_DEPTH];
    uint16_t idx[CS_MAX_DEPTH];
} bt_path;
/* Page pgno of a descent, checked as a non-empty node of the kind expected
 * (I8, I9). `clean`: the page is known not to be dirty in this txn (an
 * ancestor was a mapped page), so a page inside the map is read from it
 * without the dirty-page lookup. */
static inline __attribute__((always_inline)) int bt_load_node(cs_txn *t, uint64_t pgno, bool want_leaf, bool clean,
                                                              const uint8_t **out)
{
    int rc;
    clean = clean || t->rdonly;
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    /* A clean page inside the file and the map: page_get_in's answer, inline. */
    if (clean && CS_LIKELY(pgno >= 2 && pgno < limit && pgno < t->map_pages))
        *out = t->map + (pgno << t->env->psize_shift);
    else if ((rc = page_get_in(t, pgno, clean, out)))
        return rc;
    if ((rc = node_check(*out, t->psize, pgno))) return rc;
    if (node_is_leaf(*out) != want_leaf || node_n(*out) == 0)
        return cs_fail(CS_ECORRUPT, "page %llu: expected a non-empty %s page", (unsigned long long)pgno,
                       want_leaf ? "leaf" : "branch");
    return CS_OK;
}
int bt_descend(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact);
int bt_edge(cs_txn *t, const cs_tree_desc *d, bool last, bt_path *p);
int bt_step(cs_txn *t, bt_path *p, bool forward);   /* CS_NOTFOUND at end */
/* Ask the CPU for the whole leaf after (or before) the path's leaf, read
 * from its parent: scans cross leaves without waiting on memory (hardware
 * prefetchers stop at page boundaries). Read txns only: a write txn's
 * dirty pages are not in the map. */
static inline void bt_prefetch_sibling(const cs_txn *t, const bt_path *p, bool forward)
{
    int leaf = p->depth - 1;
    if (leaf == 0 || !t->rdonly) return;
    const uint8_t *parent = p->pg[leaf - 1];
    unsigned pidx = p->idx[leaf - 1];
    if (forward ? pidx + 1u >= node_n(parent) : pidx == 0) return;
    uint64_t next = branch_child(parent, t->psize, forward ? pidx + 1 : pidx - 1);
    if (next >= t->map_pages) return;
    const uint8_t *np = t->map + (next << t->env->psize_shift);
    for (uint32_t off = 0; off < t->psize; off += 64) __builtin_prefetch(np + off);
}
int bt_seek_rank(cs_txn *t, const cs_tree_desc *d, uint64_t rank, bt_path *p);
/* The rank of the entry the path ends at (d: the tree it was taken in). */
int bt_rank(cs_txn *t, const cs_tree_desc *d, const bt_path *p, uint64_t *rank);
/* The path's entry. A compact leaf's key is assembled into kbuf
 * (CS_MAX_KEY bytes; may be NULL when key is): key->data points there. */
int bt_read(cs_txn *t, const bt_path *p, uint8_t *kbuf, cs_val *key, cs_val *val);
int bt_get(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, cs_val *val);
/* A write txn's path to the leaf holding k from its last put in d, if it
 * still holds (btree.c, "Append hints"); false otherwise (then descend). */
bool bt_hint_leaf(cs_txn *t, const cs_tree_desc *d, const uint8_t *k, uint32_t kl, bt_path *p, bool *exact);
int bt_put(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl, const void *v, size_t vl, unsigned flags);
int bt_del(cs_txn *t, cs_tree_desc *d, const uint8_t *k, uint32_t kl);
int bt_clear(cs_txn *t, cs_tree_desc *d);
/* Make every page on the path writable (copy-on-write), re-pointing parents
 * at the copies and d->root at a new root. */
int bt_touch_path(cs_txn *t, cs_tree_desc *d, bt_path *p);
/* Merge or redistribute the underfull page at `level` of a touched path with
 * a sibling; *done when no level above needs a look. pack (auto-shrink): a
 * leaf under 3/4 full merges into 7/8 of a page, else the left page is
 * filled to 7/8 from the right; nothing else. */
int bt_rebalance_level(cs_txn *t, cs_tree_desc *d, bt_path *p, int level, bool pack, bool *done);
/* Auto-shrink (I13): visit up to *budget leaves in key order from `key`
 * (*klen bytes; 0 = the first leaf), and copy-on-write the path of each
 * leaf that has a page or an overflow run at or past `threshold`, so that
 * the allocator (lowest free pages first) moves them down. Counts the
 * leaves visited off *budget and those moved in *moved. On return key and
 * *klen hold where to resume (the first key of the next leaf; *klen = 0:
 * the tree is done). key holds CS_MAX_KEY bytes. */
int bt_relocate(cs_txn *t, cs_tree_desc *d, uint64_t threshold, uint8_t *key, uint32_t *klen, unsigned *budget,
                unsigned *moved);

/* Fold (V1, design 4): move every volatile page tree d reaches into the
 * file (the txn allocates from the file by then); d->root may change. */
int bt_fold(cs_txn *t, cs_tree_desc *d);

/* ==== L6 trees: tree.c ==== */

/* C1: write the changed descriptors of this txn's trees into the catalog. */
int tree_flush_catalog(cs_txn *t);
/* This txn's descriptor of `tree` (loaded from the catalog on first use);
 * CS_NOTFOUND if the tree does not exist in its snapshot. for_write marks
 * it for tree_flush_catalog. */
int tree_desc_get(cs_txn *t, cs_tree tree, bool for_write, cs_tree_desc **out);
void tree_names_free(cs_env *env);              /* env close              */
/* Auto-shrink step (I13): bt_relocate over the named trees, resuming where
 * this process's previous step stopped (env->reloc_*), visiting at most
 * `budget` leaves. Moved trees are marked for tree_flush_catalog. */
int tree_relocate(cs_txn *t, uint64_t threshold, unsigned budget, unsigned *moved);
/* Fold (design 4): bt_fold over every named tree and then the catalog, with
 * C1 in between; afterwards no page the txn reaches is volatile. */
int tree_fold(cs_txn *t);

/* ==== L7 access: cursor.c diff.c filter.c fts.c replay.c ==== */

/* filter.c, for cursor.c's filtered scans. filter_validate checks a
 * filter (CS_EINVAL, as cs_filter_values) and sets *need, the bytes every
 * value must have. filter_leaf_matches evaluates it on the entries of the
 * leaf p ends at from `from` on, in order: the indexes of the first `cap`
 * matches go to hits[], their number to *nhits, and *last is the last entry
 * read (the cap-th match, else the leaf's last entry). Errors as
 * cs_count_matching (*nhits = 0 then); p->idx[leaf] may be moved. */
int filter_validate(const cs_filter *f, size_t *need);
int filter_leaf_matches(cs_txn *t, bt_path *p, const cs_filter *f, size_t need, unsigned from, uint16_t *hits,
                        size_t cap, size_t *nhits, unsigned *last);
void cursor_close_all(cs_txn *t);
void cursor_unset_all(cs_txn *t);
/* cs_tree_diff over two descriptors (NULL = an empty tree), each read in
 * its own txn; the two txns may be one write txn, whose base pages are
 * never rewritten in place (copy-on-write), so a descriptor of its base
 * still reads the base's tree. */
int diff_trees(cs_txn *from, const cs_tree_desc *dfrom, cs_txn *to, const cs_tree_desc *dto, cs_diff_fn fn, void *ctx);
/* The redo record of write txn t's changes since its base meta (call after
 * tree_flush_catalog, C1): the catalog's diff names the trees created,
 * dropped and changed, and each changed tree's diff gives its puts and
 * deletes. *fits = false (r then holds part of the record, or only its
 * header when redo_lower_bound already passes `limit`) when the record
 * would pass `limit` bytes. CS_ENOMEM, CS_ECORRUPT. */
int redo_build(cs_txn *t, uint64_t epoch, redo_rec *r, size_t limit, bool *fits);
/* At most the bytes of the ops redo_build would put in write txn t's
 * record (0 when unknown), from counts kept as entries change. No errors. */
uint64_t redo_lower_bound(const cs_txn *t);
/* Apply a record's ops (redo_scan's ops, len) to write txn t. CS_ECORRUPT
 * when they do not parse (a record whose CRC held); else cs_put/cs_del/
 * cs_tree_drop's errors. */
int redo_apply(cs_txn *t, const uint8_t *ops, size_t len);

/* ==== L8 txn: txn.c ==== */

/* End a transaction: close its cursors, release its slot or the writer
 * mutex and its buffers, free it. */
void txn_free(cs_txn *t);
/* The writer after a dead one (writer mutex held): adopt a meta it wrote
 * but did not publish. */
int txn_resync_dead_writer(cs_env *env);
/* The free list of t's snapshot: its base run's list, the delta's cursor
 * and the delta's own list (txn_load_freelist), or all of it in one list
 * (txn_snapshot_freelist: what cs_check and cs_env_get_info count).
 * CS_EBUSY if newer commits have replaced the snapshot's delta in the lock
 * file and in both meta pages: take a newer snapshot. */
int txn_load_freelist(cs_txn *t, cs_freelist *base, uint64_t *base_txnid, uint64_t *cursor, cs_freelist *delta);
int txn_snapshot_freelist(cs_txn *t, cs_freelist *out);
/* Logs what was noted under a lock (a dead writer's recovery, dead
 * readers cleared). Call it holding no engine lock. */
void txn_log_pending(cs_env *env);

/* ==== L9 commit: commit.c ==== */

/* Open's replay (design 4): t holds the log's records up to log_end, its
 * txnid the last record's. Its pages go to the segment as the logged
 * commits' did, with no write (the records are durable already); if they
 * do not fit, t is committed whole. Frees t either way. */
int commit_replayed(cs_txn *t, uint64_t log_end);

/* Make deferred commits durable (C4-C6). *flushed = there were some. */
int commit_flush_deferred(cs_env *env, bool *flushed);

/* ==== L10 env: env.c check.c (public API only) ==== */

/* ==== L11 files: copy.c (public API only) ==== */

#endif /* CSTORAGE_INTERNAL_H */
