/*
 * replay.c — a write transaction's changes as redo ops, and redo ops
 * applied to a write transaction (format.h REDO LOG; docs/COMMIT_IO.md,
 * design 4).
 *
 * Why a diff and not a log of calls: values reserved by cs_put are written
 * after the call returns, and cursors, full-text updates and relocation
 * change pages too. What the commit will publish is the catalog and the
 * trees it names, so the record is their diff against the base snapshot:
 * copy-on-write leaves the base's pages untouched while the transaction
 * runs, and the diff skips every subtree the two share, so it reads only
 * the paths the transaction copied.
 */
#include "internal.h"

typedef struct build_ctx {
    cs_txn *t;
    redo_rec *r;
    size_t limit;
    bool over;
} build_ctx;

/* A distinct code that stops a diff when the record passes its limit. */
#define BUILD_FULL (-1)

static int check_size(build_ctx *b, int rc)
{
    if (rc) return rc;
    if (b->r->len > b->limit) {
        b->over = true;
        return BUILD_FULL;
    }
    return CS_OK;
}

static int emit_entry(void *ctx, cs_diff_kind kind, cs_val key, cs_val old_val, cs_val new_val)
{
    build_ctx *b = ctx;
    CS_UNUSED(old_val);
    int rc = kind == CS_DIFF_DELETE
                 ? redo_rec_del(b->r, key.data, (uint32_t)key.size)
                 : redo_rec_put(b->r, key.data, (uint32_t)key.size, new_val.data, (uint32_t)new_val.size);
    return check_size(b, rc);
}

static int read_desc(cs_val v, cs_tree_desc *d)
{
    if (v.size != sizeof *d) return cs_fail(CS_ECORRUPT, "catalog value of %zu bytes is not a tree descriptor", v.size);
    memcpy(d, v.data, sizeof *d);
    return CS_OK;
}

/* One change of the catalog: a tree created, dropped or changed. */
static int emit_tree(void *ctx, cs_diff_kind kind, cs_val name, cs_val old_val, cs_val new_val)
{
    build_ctx *b = ctx;
    if (kind == CS_DIFF_DELETE) return check_size(b, redo_rec_drop(b->r, name.data, (uint32_t)name.size));
    cs_tree_desc from, to;
    int rc = read_desc(new_val, &to);
    if (rc == CS_OK && kind == CS_DIFF_UPDATE) rc = read_desc(old_val, &from);
    if (rc || (rc = check_size(b, redo_rec_tree(b->r, name.data, (uint32_t)name.size, 0)))) return rc;
    return diff_trees(b->t, kind == CS_DIFF_UPDATE ? &from : NULL, b->t, &to, emit_entry, b);
}

/* Why these counts bound the record, per tree (the catalog's changes are
 * tree ops, not counted). Puts: with s = key + value + 3 (an op's kind and
 * two length bytes at least) summed over a tree's entries, s(new) - s(base)
 * adds the puts of new keys, adds the value growth of changed keys and
 * subtracts deleted keys, so it is at most the put ops' bytes. Deletes: a
 * key's changes alternate insert and delete, and the record deletes it
 * once when it was in the base and is not in the new tree, i.e. exactly
 * when its deletions outnumber its insertions; so (key + 2) per deletion
 * less per insertion is at most the delete ops' bytes. */
uint64_t redo_lower_bound(const cs_txn *t)
{
    if (t->rec_unbounded) return 0;
    return (uint64_t)(t->rec_grow > 0 ? t->rec_grow : 0) + (uint64_t)(t->rec_dels > 0 ? t->rec_dels : 0);
}

int redo_build(cs_txn *t, uint64_t epoch, redo_rec *r, size_t limit, bool *fits)
{
    build_ctx b = {.t = t, .r = r, .limit = limit};
    int rc = redo_rec_begin(r, epoch, t->txnid);
    /* A big commit's diff would run until the limit and be thrown away. */
    if (rc == CS_OK && redo_lower_bound(t) > limit) {
        *fits = false;
        return CS_OK;
    }
    if (rc == CS_OK) rc = diff_trees(t, &t->meta.catalog, t, &t->catalog, emit_tree, &b);
    *fits = !b.over;
    return rc == BUILD_FULL ? CS_OK : rc;
}

/* The ops' tree name as a C string for cs_tree_open. */
static int op_name(const redo_op *op, char name[CS_MAX_TREE_NAME + 1])
{
    if (op->al == 0 || op->al > CS_MAX_TREE_NAME || memchr(op->a, 0, op->al))
        return cs_fail(CS_ECORRUPT, "redo log: tree name of %u bytes", op->al);
    memcpy(name, op->a, op->al);
    name[op->al] = 0;
    return CS_OK;
}

/* A delete or drop of something the transaction does not hold means the
 * record was not built on this snapshot: damage, not a no-op. */
static int must_exist(int rc, const char *what)
{
    return rc == CS_NOTFOUND ? cs_fail(CS_ECORRUPT, "redo log: %s that does not exist", what) : rc;
}

/* An op the engine refuses as an argument (an empty or oversized key or
 * value, a tree of the wrong kind) was never built by a commit: damage,
 * reported as such rather than as the caller's misuse. */
static int op_refused(int rc, const char *what)
{
    if (rc == CS_EKEYSIZE || rc == CS_EVALSIZE || rc == CS_EINVAL || rc == CS_EXISTS)
        return cs_fail(CS_ECORRUPT, "redo log: %s the engine refuses (%s)", what, cs_strerror(rc));
    return rc;
}

int redo_apply(cs_txn *t, const uint8_t *ops, size_t len)
{
    const uint8_t *p = ops, *end = ops + len;
    char name[CS_MAX_TREE_NAME + 1];
    cs_tree tree = 0;
    bool have_tree = false;
    redo_op op;
    int rc;
    while ((rc = redo_next_op(&p, end, &op)) == CS_OK) {
        switch (op.kind) {
        case REDO_TREE:
            if ((rc = op_name(&op, name)) || (rc = op_refused(cs_tree_open(t, name, CS_CREATE, &tree), "a tree")))
                return rc;
            have_tree = true;
            break;
        case REDO_PUT:
        case REDO_DEL:
            if (!have_tree) return cs_fail(CS_ECORRUPT, "redo log: an entry before its tree");
            if (op.kind == REDO_PUT)
                rc = op_refused(cs_put(t, tree, (cs_val){op.a, op.al}, (cs_val){op.b, op.bl}, 0), "a put");
            else
                rc = op_refused(must_exist(cs_del(t, tree, (cs_val){op.a, op.al}), "a delete of a key"), "a delete");
            if (rc) return rc;
            break;
        case REDO_DROP: {
            cs_tree gone;
            if ((rc = op_name(&op, name)) ||
                (rc = op_refused(must_exist(cs_tree_open(t, name, 0, &gone), "a drop of a tree"), "a drop")) ||
                (rc = op_refused(cs_tree_drop(t, gone), "a drop")))
                return rc;
            if (have_tree && gone == tree) have_tree = false;
            break;
        }
        default:
            return cs_fail(CS_ECORRUPT, "redo log: op of kind %u", op.kind);
        }
    }
    return rc == CS_NOTFOUND ? CS_OK : rc;
}
