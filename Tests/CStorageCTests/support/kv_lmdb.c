/* kv_lmdb.c — kv.h over LMDB (the reference backend). */
#include <errno.h>
#include <lmdb.h>
#include <stdlib.h>

#include "kv.h"

static int rc(int r) {
    kv_set_native_error_(r);
    switch (r) {
    case MDB_SUCCESS: return CS_OK;
    case MDB_NOTFOUND: return CS_NOTFOUND;
    case MDB_KEYEXIST: return CS_EXISTS;
    case MDB_BAD_VALSIZE: return CS_EKEYSIZE;
    case MDB_READERS_FULL: return CS_EREADERS;
    case MDB_MAP_FULL: return CS_ENOSPACE;
    case EINVAL: return CS_EINVAL;
    case EACCES: return CS_EREADONLY;
    case ENOMEM: return CS_ENOMEM;
    case MDB_CORRUPTED: return CS_ECORRUPT;
    case MDB_INVALID: case MDB_VERSION_MISMATCH: return CS_EFORMAT;
    default: return CS_EIO;
    }
}

static MDB_val mv(kv_val v) { MDB_val m = {v.size, (void *)v.data}; return m; }
static kv_val kv(MDB_val m) { kv_val v = {m.mv_data, m.mv_size}; return v; }

static int env_open(const char *path, const kv_options *o, kv_env **out) {
    kv_options d = {0};
    if (!o) o = &d;
    if (o->flags & KV_IN_MEMORY) return CS_EINVAL;
    MDB_env *m;
    int r = mdb_env_create(&m);
    if (r) return rc(r);
    unsigned fl = MDB_NOSUBDIR | MDB_NOTLS;
    if (o->flags & KV_RDONLY) fl |= MDB_RDONLY;
    if (o->flags & KV_NOSYNC) fl |= MDB_NOSYNC;
    if ((r = mdb_env_set_mapsize(m, o->map_size ? o->map_size : (8ull << 30))) ||
        (r = mdb_env_set_maxdbs(m, o->max_trees ? o->max_trees : 1024)) ||
        (r = mdb_env_open(m, path, fl, 0644))) {
        mdb_env_close(m);
        return rc(r);
    }
    kv_env *e = calloc(1, sizeof *e);
    if (!e) { mdb_env_close(m); return CS_ENOMEM; }
    e->be = &kv_lmdb;
    e->native = m;
    *out = e;
    return rc(0);
}

static int env_close(kv_env *e) { mdb_env_close(e->native); free(e); return rc(0); }

static int txn_begin(kv_env *e, unsigned kind, kv_txn **out) {
    kv_txn *t = calloc(1, sizeof *t);
    if (!t) return CS_ENOMEM;
    int r = mdb_txn_begin(e->native, NULL, kind == KV_READ ? MDB_RDONLY : 0,
                          (MDB_txn **)&t->native);
    if (r) { free(t); return rc(r); }
    t->env = e;
    t->write = kind != KV_READ;
    *out = t;
    return rc(0);
}

static int txn_commit(kv_txn *t) { int r = mdb_txn_commit(t->native); free(t); return rc(r); }
static int txn_abort(kv_txn *t) { mdb_txn_abort(t->native); free(t); return rc(0); }

static int tree_open(kv_txn *t, const char *name, int create, kv_tree *out) {
    MDB_dbi d;
    int r = mdb_dbi_open(t->native, name, create && t->write ? MDB_CREATE : 0, &d);
    if (r == 0) *out = d;
    return rc(r);
}
/* mdb_drop(..., 1) also closes the handle; the kv contract keeps handles,
 * and callers reopen by name, as with CStorage's env-wide handles. */
static int tree_drop(kv_txn *t, kv_tree tr) { return rc(mdb_drop(t->native, tr, 1)); }
static int tree_clear(kv_txn *t, kv_tree tr) { return rc(mdb_drop(t->native, tr, 0)); }

static int get(kv_txn *t, kv_tree tr, kv_val k, kv_val *v) {
    MDB_val mk = mv(k), md;
    int r = mdb_get(t->native, tr, &mk, &md);
    if (r == 0 && v) *v = kv(md);
    return rc(r);
}
static int put(kv_txn *t, kv_tree tr, kv_val k, kv_val v, unsigned f) {
    MDB_val mk = mv(k), md = mv(v);
    return rc(mdb_put(t->native, tr, &mk, &md, (f & KV_NOOVERWRITE) ? MDB_NOOVERWRITE : 0));
}
static int del(kv_txn *t, kv_tree tr, kv_val k) {
    MDB_val mk = mv(k);
    return rc(mdb_del(t->native, tr, &mk, NULL));
}
static int count(kv_txn *t, kv_tree tr, uint64_t *out) {
    MDB_stat st;
    int r = mdb_stat(t->native, tr, &st);
    if (r == 0) *out = st.ms_entries;
    return rc(r);
}

static int cursor_open(kv_txn *t, kv_tree tr, kv_cursor **out) {
    kv_cursor *c = calloc(1, sizeof *c);
    if (!c) return CS_ENOMEM;
    int r = mdb_cursor_open(t->native, tr, (MDB_cursor **)&c->native);
    if (r) { free(c); return rc(r); }
    c->txn = t;
    *out = c;
    return rc(0);
}
static void cursor_close(kv_cursor *c) { mdb_cursor_close(c->native); free(c); }

static int cursor_get(kv_cursor *c, kv_val *k, kv_val *v, kv_op op) {
    static const MDB_cursor_op map[] = {
        [KV_FIRST] = MDB_FIRST, [KV_LAST] = MDB_LAST, [KV_NEXT] = MDB_NEXT,
        [KV_PREV] = MDB_PREV, [KV_SEEK] = MDB_SET_RANGE, [KV_EXACT] = MDB_SET_KEY,
    };
    if ((unsigned)op > KV_EXACT) return CS_EINVAL;
    MDB_val mk = {0, NULL}, md = {0, NULL};
    if ((op == KV_SEEK || op == KV_EXACT) && k) mk = mv(*k);
    int r = mdb_cursor_get(c->native, &mk, &md, map[op]);
    if (r == 0) {
        if (k) *k = kv(mk);
        if (v) *v = kv(md);
    }
    return rc(r);
}

const kv_backend kv_lmdb = {
    "lmdb", env_open, env_close, txn_begin, txn_commit, txn_abort,
    tree_open, tree_drop, tree_clear, get, put, del, count,
    cursor_open, cursor_close, cursor_get,
};
