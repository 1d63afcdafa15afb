/* kv_cstorage.c — kv.h over CStorage: a direct mapping. */
#include <stdlib.h>

#include "kv.h"

static _Thread_local int g_native;
int kv_native_error(void) { return g_native; }
void kv_set_native_error_(int e) { g_native = e; }

static int rc(int r) { g_native = r; return r; }

static int env_open(const char *path, const kv_options *o, kv_env **out) {
    kv_options d = {0};
    if (!o) o = &d;
    cs_options co = {0};
    if (o->flags & KV_RDONLY) co.flags |= CS_ENV_RDONLY;
    if (o->flags & KV_IN_MEMORY) co.flags |= CS_ENV_IN_MEMORY;
    if (o->flags & KV_LOG_SMALL) co.flags |= CS_ENV_LOG_SMALL;
    co.durability = (o->flags & KV_NOSYNC) ? CS_DURABLE_NO_SYNC : CS_DURABLE_FULL;
    co.page_size = o->page_size;
    co.auto_shrink = (o->flags & KV_AUTO_SHRINK) != 0;
    kv_env *e = calloc(1, sizeof *e);
    if (!e) return CS_ENOMEM;
    int r = cs_env_open(path, &co, (cs_env **)&e->native);
    if (r) { free(e); return rc(r); }
    e->be = &kv_cstorage;
    *out = e;
    return rc(CS_OK);
}

static int env_close(kv_env *e) {
    int r = cs_env_close(e->native);
    if (r == CS_OK) free(e);
    return rc(r);
}

static int txn_begin(kv_env *e, unsigned kind, kv_txn **out) {
    kv_txn *t = calloc(1, sizeof *t);
    if (!t) return CS_ENOMEM;
    int r = cs_txn_begin(e->native, kind == KV_READ ? CS_TXN_RDONLY : 0, (cs_txn **)&t->native);
    if (r) { free(t); return rc(r); }
    t->env = e;
    t->write = kind != KV_READ;
    *out = t;
    return rc(CS_OK);
}

static int txn_commit(kv_txn *t) { int r = cs_txn_commit(t->native); free(t); return rc(r); }
static int txn_abort(kv_txn *t) { int r = cs_txn_abort(t->native); free(t); return rc(r); }

static int tree_open(kv_txn *t, const char *name, int create, kv_tree *out) {
    return rc(cs_tree_open(t->native, name, create ? CS_CREATE : 0, out));
}
static int tree_drop(kv_txn *t, kv_tree tr) { return rc(cs_tree_drop(t->native, tr)); }
static int tree_clear(kv_txn *t, kv_tree tr) { return rc(cs_tree_clear(t->native, tr)); }
static int get(kv_txn *t, kv_tree tr, kv_val k, kv_val *v) { return rc(cs_get(t->native, tr, k, v)); }
static int put(kv_txn *t, kv_tree tr, kv_val k, kv_val v, unsigned f) {
    return rc(cs_put(t->native, tr, k, v, f));
}
static int del(kv_txn *t, kv_tree tr, kv_val k) { return rc(cs_del(t->native, tr, k)); }
static int count(kv_txn *t, kv_tree tr, uint64_t *out) { return rc(cs_count(t->native, tr, out)); }

static int cursor_open(kv_txn *t, kv_tree tr, kv_cursor **out) {
    kv_cursor *c = calloc(1, sizeof *c);
    if (!c) return CS_ENOMEM;
    int r = cs_cursor_open(t->native, tr, (cs_cursor **)&c->native);
    if (r) { free(c); return rc(r); }
    c->txn = t;
    *out = c;
    return rc(CS_OK);
}
static void cursor_close(kv_cursor *c) { cs_cursor_close(c->native); free(c); }
static int cursor_get(kv_cursor *c, kv_val *k, kv_val *v, kv_op op) {
    return rc(cs_cursor_get(c->native, k, v, (cs_cursor_op)op));
}

const kv_backend kv_cstorage = {
    "cstorage", env_open, env_close, txn_begin, txn_commit, txn_abort,
    tree_open, tree_drop, tree_clear, get, put, del, count,
    cursor_open, cursor_close, cursor_get,
};
