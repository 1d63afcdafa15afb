/*
 * kv.h — one small key-value interface over CStorage and LMDB, so the same
 * operation sequence can drive both engines (differential tests, fuzzers,
 * benchmarks).
 *
 *   kv_env *e; kv_txn *t; kv_tree tr;
 *   kv_env_open(&kv_cstorage, path, NULL, &e);      // or &kv_lmdb
 *   kv_txn_begin(e, KV_WRITE, &t);
 *   kv_tree_open(t, "items", 1, &tr);
 *   kv_put(t, tr, key, val, 0);
 *   kv_txn_commit(t);
 *   kv_env_close(e);
 *
 * Conventions
 *  - Return codes are cs_error values for both backends. LMDB codes are
 *    mapped (MDB_NOTFOUND -> CS_NOTFOUND, MDB_KEYEXIST -> CS_EXISTS, size
 *    errors -> CS_EKEYSIZE, MDB_READERS_FULL -> CS_EREADERS, MDB_MAP_FULL ->
 *    CS_ENOSPACE, anything else -> CS_EIO); kv_native_error() gives the
 *    backend's own code of the last call on this thread.
 *  - Values from get/cursors point into the backend's map and follow
 *    cstorage.h's zero-copy lifetime rules (LMDB's are at least as long).
 *  - Cursors must be closed before their transaction ends.
 *  - Tree handles are env-wide. Open them in a write txn and commit (LMDB
 *    forgets handles first opened in a txn that aborts). Reopen them after
 *    reopening the env.
 *  - LMDB is opened with MDB_NOSUBDIR (path is a file, "<path>-lock" beside
 *    it) and MDB_NOTLS (a thread may hold several read txns).
 */
#ifndef KV_H
#define KV_H

#include <stdint.h>

#include "cstorage.h"

typedef cs_val kv_val;
typedef uint32_t kv_tree;
typedef struct kv_backend kv_backend;

/* Every handle starts with its backend / parent, so calls dispatch. */
typedef struct kv_env { const kv_backend *be; void *native; } kv_env;
typedef struct kv_txn { kv_env *env; void *native; int write; } kv_txn;
typedef struct kv_cursor { kv_txn *txn; void *native; } kv_cursor;

/* Env flags. */
#define KV_RDONLY 0x1u    /* read-only env                                  */
#define KV_NOSYNC 0x2u    /* no flush on commit (tests, benchmarks)         */
#define KV_IN_MEMORY 0x4u /* CStorage only: CS_ENV_IN_MEMORY                */
#define KV_AUTO_SHRINK 0x8u /* CStorage only: cs_options.auto_shrink = 1     */
#define KV_LOG_SMALL 0x10u  /* CStorage only: CS_ENV_LOG_SMALL (durable envs) */

typedef struct kv_options {
    unsigned flags;       /* KV_*                                           */
    uint64_t map_size;    /* LMDB map size; 0 = 8 GiB                       */
    unsigned max_trees;   /* LMDB maxdbs; 0 = 1024                          */
    unsigned page_size;   /* CStorage page size at creation; 0 = default    */
} kv_options;

#define KV_WRITE 0u
#define KV_READ 1u
#define KV_NOOVERWRITE CS_NOOVERWRITE

/* Cursor ops have cs_cursor_op's meaning (SEEK = lower bound). */
typedef enum kv_op {
    KV_FIRST = CS_FIRST, KV_LAST = CS_LAST, KV_NEXT = CS_NEXT,
    KV_PREV = CS_PREV, KV_SEEK = CS_SEEK, KV_EXACT = CS_SEEK_EXACT,
} kv_op;

struct kv_backend {
    const char *name;
    int (*env_open)(const char *path, const kv_options *o, kv_env **out);
    int (*env_close)(kv_env *e);
    int (*txn_begin)(kv_env *e, unsigned kind, kv_txn **out);
    int (*txn_commit)(kv_txn *t);
    int (*txn_abort)(kv_txn *t);
    int (*tree_open)(kv_txn *t, const char *name, int create, kv_tree *out);
    int (*tree_drop)(kv_txn *t, kv_tree tr);
    int (*tree_clear)(kv_txn *t, kv_tree tr);
    int (*get)(kv_txn *t, kv_tree tr, kv_val key, kv_val *val);
    int (*put)(kv_txn *t, kv_tree tr, kv_val key, kv_val val, unsigned flags);
    int (*del)(kv_txn *t, kv_tree tr, kv_val key);
    int (*count)(kv_txn *t, kv_tree tr, uint64_t *out);
    int (*cursor_open)(kv_txn *t, kv_tree tr, kv_cursor **out);
    void (*cursor_close)(kv_cursor *c);
    /* key is input for SEEK/EXACT; either out-pointer may be NULL. */
    int (*cursor_get)(kv_cursor *c, kv_val *key, kv_val *val, kv_op op);
};

extern const kv_backend kv_cstorage;
extern const kv_backend kv_lmdb;

/* Native error code of the last kv call on this thread. */
int kv_native_error(void);
void kv_set_native_error_(int e);

static inline int kv_env_open(const kv_backend *be, const char *path,
                              const kv_options *o, kv_env **out) {
    return be->env_open(path, o, out);
}
static inline int kv_env_close(kv_env *e) { return e->be->env_close(e); }
static inline int kv_txn_begin(kv_env *e, unsigned kind, kv_txn **out) {
    return e->be->txn_begin(e, kind, out);
}
static inline int kv_txn_commit(kv_txn *t) { return t->env->be->txn_commit(t); }
static inline int kv_txn_abort(kv_txn *t) { return t->env->be->txn_abort(t); }
static inline int kv_tree_open(kv_txn *t, const char *name, int create, kv_tree *out) {
    return t->env->be->tree_open(t, name, create, out);
}
static inline int kv_tree_drop(kv_txn *t, kv_tree tr) { return t->env->be->tree_drop(t, tr); }
static inline int kv_tree_clear(kv_txn *t, kv_tree tr) { return t->env->be->tree_clear(t, tr); }
static inline int kv_get(kv_txn *t, kv_tree tr, kv_val k, kv_val *v) {
    return t->env->be->get(t, tr, k, v);
}
static inline int kv_put(kv_txn *t, kv_tree tr, kv_val k, kv_val v, unsigned f) {
    return t->env->be->put(t, tr, k, v, f);
}
static inline int kv_del(kv_txn *t, kv_tree tr, kv_val k) { return t->env->be->del(t, tr, k); }
static inline int kv_count(kv_txn *t, kv_tree tr, uint64_t *out) {
    return t->env->be->count(t, tr, out);
}
static inline int kv_cursor_open(kv_txn *t, kv_tree tr, kv_cursor **out) {
    return t->env->be->cursor_open(t, tr, out);
}
static inline void kv_cursor_close(kv_cursor *c) { c->txn->env->be->cursor_close(c); }
static inline int kv_cursor_get(kv_cursor *c, kv_val *k, kv_val *v, kv_op op) {
    return c->txn->env->be->cursor_get(c, k, v, op);
}

#endif /* KV_H */
