/*
 * txnstate.h — layer L3: struct cs_txn and the gates every call passes.
 * Part of internal.h (its header holds the layer table and says what may
 * call what); included through it. Nothing here is public API.
 */
#ifndef CSTORAGE_TXNSTATE_H
#define CSTORAGE_TXNSTATE_H

#include "os.h"

/* ==== L3 txnstate: a transaction's state and the gates every call passes ==== */

typedef struct dirty_entry {
    uint64_t pgno;              /* 0 = empty slot                           */
    uint8_t *page;
    uint32_t npages;
} dirty_entry;

typedef struct txn_tree {
    cs_tree_desc desc;
    cs_tree_desc orig;          /* as in the catalog when loaded            */
    uint8_t known;              /* desc looked up in this snapshot          */
    uint8_t exists;
    uint8_t in_catalog;         /* orig came from the catalog               */
    uint8_t dirty;              /* desc changed: write to catalog at commit */
} txn_tree;

enum { TXN_ACTIVE = 0, TXN_RESET, TXN_FAILED };

/* Where a write txn's last append to a tree went (btree.c, bt_put): a
 * guess at the tree's rightmost path, checked before each use. */
#define BT_HINTS 4
typedef struct bt_hint {
    const cs_tree_desc *desc;   /* which tree (compared, never dereferenced) */
    int depth;
    uint64_t pgno[CS_MAX_DEPTH];
    uint16_t idx[CS_MAX_DEPTH];  /* each branch's slot of the next page     */
    unsigned misses;            /* bt_hint_leaf's misses in a row           */
} bt_hint;

struct cs_txn {
    cs_env *env;
    bool rdonly;
    int state;
    int err;                    /* write txn: sticky first error            */
    uint64_t txnid;
    cs_meta meta;               /* snapshot (read) / base (write)           */
    const uint8_t *map;
    uint64_t map_pages;         /* pages addressable through map            */
    uint32_t psize;
    cs_reader_slot *slot;
    txn_tree *trees;
    uint32_t ntrees;
    cs_tree_desc catalog;
    cs_cursor *cursors;
    uint64_t gen;               /* bumped by every modification             */

    /* write transactions only */
    dirty_entry *dirty;
    size_t dirty_cap, dirty_n;
    uint64_t next_pgno;
    cs_extvec pool;             /* allocatable extents, sorted (the delta's
                                   free pages; all of them in full mode)   */
    size_t pool_head;
    cs_extvec bpool;            /* the base's reusable sequence after the
                                   cursor, in sequence order               */
    size_t bpool_head;
    uint64_t btaken;            /* pages taken from bpool's front           */
    bool bskipped;              /* ... or not from its front: no delta     */
    bool fl_full;               /* this commit writes a whole new run      */
    cs_freelist bgroups;        /* the base's groups not yet reusable       */
    cs_extvec reuse;            /* allocated and freed in this txn          */
    cs_extvec freed;            /* pages of older snapshots freed now       */
    cs_freelist fl;             /* the delta's groups not yet reusable      */
    uint8_t delta[CS_META_TAIL];/* the commit's delta (meta hdr.upper bytes)*/
    uint8_t *scratch;           /* 3 pages for node rebuilds                */
    cs_cellref *refs;           /* cells of two pages plus one (rebuilds)   */
    uint8_t *decode;            /* two decoded compact leaves (lazy)        */
    uint32_t *costs;            /* each cell's bytes, for a split           */
    leaf_part *parts;           /* a compact leaf's entries and one more    */
    bt_hint hints[BT_HINTS];    /* append paths, most recent trees          */
    unsigned next_hint;         /* round-robin replacement                  */
    /* Logged commits (design 4). vol: new pages come from the segment's
     * arena at vol_hwm; once a txn needs more than VOL_TXN_PAGES, or
     * cannot be logged, pages come from the file and vol_all turns false.
     * fold: the base reaches volatile pages, so a commit that is not
     * logged must first move them into the file (V1). */
    bool vol, vol_all, fold;
    bool fl_copied;             /* t->fl is a copy: env's cache stays valid  */
    /* A lower bound on the redo record's op bytes (redo_lower_bound),
     * kept by every entry change outside the catalog so that a commit too
     * big to log folds without building a record it would throw away.
     * rec_grow: the trees' net growth in bytes of (key + value + 3) per
     * entry; rec_dels: (key + 2) per deletion less per insertion;
     * rec_unbounded: a tree was cleared, its bytes are not known. */
    int64_t rec_grow, rec_dels;
    bool rec_unbounded;
    uint64_t vol_hwm, vol_used, vol_cap;
    vseg_state vst;             /* the base's segment state                 */
};

static inline void txn_touch_gen(cs_txn *t) { t->gen++; }
/* Gate of every call on a txn: usable, and writable if need_write. Inline:
 * every get/put/cursor step passes it. */
static inline int txn_check(cs_txn *t, bool need_write)
{
    if (CS_UNLIKELY(!t)) return cs_fail(CS_EINVAL, "NULL transaction");
    if (CS_UNLIKELY(t->state == TXN_RESET)) return cs_fail(CS_EBADTXN, "transaction is reset: renew it first");
    if (CS_UNLIKELY(t->state == TXN_FAILED))
        return cs_fail(CS_EBADTXN, "transaction failed earlier (%s): abort it", cs_strerror(t->err));
    if (CS_UNLIKELY(need_write && t->rdonly)) return cs_fail(CS_EREADONLY, "write in a read-only transaction");
    return CS_OK;
}
/* After a failed write: errors that may leave a tree half-changed poison
 * the txn (only abort remains); returns rc. */
static inline int txn_note(cs_txn *t, int rc)
{
    switch (rc) {
    case CS_OK: case CS_NOTFOUND: case CS_EXISTS: case CS_EKEYSIZE: case CS_EVALSIZE: case CS_EINVAL:
        return rc;
    default:
        if (!t->rdonly) {
            t->err = rc;
            t->state = TXN_FAILED;
        }
        return rc;
    }
}

#endif /* CSTORAGE_TXNSTATE_H */
