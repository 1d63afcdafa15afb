/*
 * tree.c — named trees and the key/value calls on them.
 *
 * The name registry (env->names: handle -> name, env-wide, guarded by
 * env->mu) is written and read only here; env close frees it through
 * tree_names_free.
 *
 * The catalog tree maps a name to its tree descriptor. A transaction loads
 * a descriptor the first time it uses a handle, works on its own copy, and
 * writes changed copies back to the catalog at commit (tree_flush_catalog):
 * so a tree's root moves with no catalog traffic until commit.
 */
#include "internal.h"

#include <stdlib.h>

/* The name of handle t; CS_EINVAL for a handle never opened. */
static int tree_name(cs_env *env, cs_tree t, const char **name, uint32_t *len)
{
    pthread_mutex_lock(&env->mu);
    int rc = t < env->names.n ? CS_OK : CS_EINVAL;
    if (rc == CS_OK) {
        *name = env->names.name[t];
        *len = env->names.len[t];
    }
    pthread_mutex_unlock(&env->mu);
    return rc;
}

/* The handle of `name`, registered if new. */
static int tree_name_register(cs_env *env, const char *name, size_t len, cs_tree *out)
{
    tree_registry *r = &env->names;
    int rc = CS_OK;
    pthread_mutex_lock(&env->mu);
    for (uint32_t i = 0; i < r->n; i++)
        if (r->len[i] == len && !memcmp(r->name[i], name, len)) {
            *out = i;
            goto out;
        }
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        char **nn = realloc(r->name, cap * sizeof *nn);
        if (nn) r->name = nn;
        uint32_t *nl = realloc(r->len, cap * sizeof *nl);
        if (nl) r->len = nl;
        if (!nn || !nl) {
            rc = cs_fail(CS_ENOMEM, "tree names");
            goto out;
        }
        r->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) {
        rc = cs_fail(CS_ENOMEM, "tree name");
        goto out;
    }
    r->name[r->n] = copy;
    r->len[r->n] = (uint32_t)len;
    *out = r->n++;
out:
    pthread_mutex_unlock(&env->mu);
    return rc;
}

void tree_names_free(cs_env *env)
{
    tree_registry *r = &env->names;
    for (uint32_t i = 0; i < r->n; i++) free(r->name[i]);
    free(r->name);
    free(r->len);
    memset(r, 0, sizeof *r);
}

static int tree_load_desc(cs_txn *t, const uint8_t *name, uint32_t len, cs_tree_desc *d, bool *exists)
{
    cs_val v;
    int rc = bt_get(t, &t->catalog, name, len, &v);
    *exists = false;
    if (rc == CS_NOTFOUND) return CS_OK;
    if (rc) return rc;
    if (v.size != sizeof *d) return cs_fail(CS_ECORRUPT, "catalog entry '%.*s' has %zu bytes", (int)len, name, v.size);
    memcpy(d, v.data, sizeof *d);
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    if ((d->root >= limit && !pgno_is_volatile(d->root)) || d->depth > CS_MAX_DEPTH || (d->root == 0) != (d->depth == 0))
        return cs_fail(CS_ECORRUPT, "catalog entry '%.*s' is invalid", (int)len, name);
    *exists = true;
    return CS_OK;
}

int tree_desc_get(cs_txn *t, cs_tree tree, bool for_write, cs_tree_desc **out)
{
    if (tree >= t->ntrees) {
        const char *nm;
        uint32_t nl;
        if (tree_name(t->env, tree, &nm, &nl)) return cs_fail(CS_EINVAL, "unknown tree handle %u", tree);
        uint32_t n = tree + 8;
        txn_tree *tt = realloc(t->trees, n * sizeof *tt);
        if (!tt) return cs_fail(CS_ENOMEM, "tree table");
        memset(tt + t->ntrees, 0, (n - t->ntrees) * sizeof *tt);
        t->trees = tt;
        t->ntrees = n;
    }
    txn_tree *tt = &t->trees[tree];
    if (!tt->known) {
        const char *nm;
        uint32_t nl;
        if (tree_name(t->env, tree, &nm, &nl)) return cs_fail(CS_EINVAL, "unknown tree handle %u", tree);
        bool exists;
        int rc = tree_load_desc(t, (const uint8_t *)nm, nl, &tt->desc, &exists);
        if (rc) return rc;
        tt->known = 1;
        tt->exists = tt->in_catalog = exists;
        tt->orig = tt->desc;
    }
    if (!tt->exists) return CS_NOTFOUND;
    if (for_write) tt->dirty = 1;
    *out = &tt->desc;
    return CS_OK;
}

int tree_relocate(cs_txn *t, uint64_t threshold, unsigned budget, unsigned *moved)
{
    cs_env *env = t->env; /* reloc_* belong to the writer (mutex held) */
    if (!env->reloc_key && !(env->reloc_key = malloc(CS_MAX_KEY))) return cs_fail(CS_ENOMEM, "relocation key");
    /* The catalog first, whole (a few pages): C1 copies only the paths of
     * changed descriptors, so leaves of untouched trees' names would stay. */
    uint8_t ck[CS_MAX_KEY];
    uint32_t cklen = 0;
    unsigned cbudget = 16;
    int crc = bt_relocate(t, &t->catalog, threshold, ck, &cklen, &cbudget, moved);
    if (crc) return crc;
    for (unsigned pass = 0; budget && pass < 2; pass++) { /* wrap around once */
        bt_path p;
        int rc = bt_edge(t, &t->catalog, false, &p);
        if (rc == CS_NOTFOUND) return CS_OK;
        for (uint32_t i = 0; rc == CS_OK && i < env->reloc_tree; i++) rc = bt_step(t, &p, true);
        if (rc == CS_NOTFOUND) { /* the trees ended: start again */
            env->reloc_tree = env->reloc_klen = 0;
            continue;
        }
        while (rc == CS_OK && budget) {
            cs_val k;
            char name[CS_MAX_KEY + 1];
            uint8_t kb[CS_MAX_KEY];
            cs_tree h;
            cs_tree_desc *d;
            if ((rc = bt_read(t, &p, kb, &k, NULL))) return rc;
            memcpy(name, k.data, k.size);
            name[k.size] = 0;
            if (!memchr(name, 0, k.size) && tree_name_register(env, name, k.size, &h) == CS_OK &&
                tree_desc_get(t, h, false, &d) == CS_OK) {
                cs_tree_desc before = *d;
                if ((rc = bt_relocate(t, d, threshold, env->reloc_key, &env->reloc_klen, &budget, moved))) return rc;
                if (memcmp(&before, d, sizeof before)) t->trees[h].dirty = 1;
                if (env->reloc_klen) return CS_OK; /* budget spent inside this tree */
            }
            env->reloc_tree++;
            env->reloc_klen = 0;
            rc = bt_step(t, &p, true);
        }
        if (rc != CS_OK && rc != CS_NOTFOUND) return rc;
        if (rc == CS_NOTFOUND) env->reloc_tree = 0;
    }
    return CS_OK;
}

int tree_fold(cs_txn *t)
{
    cs_env *env = t->env;
    bt_path p;
    int rc = bt_edge(t, &t->catalog, false, &p);
    while (rc == CS_OK) {
        cs_val k, v;
        uint8_t kb[CS_MAX_KEY];
        char name[CS_MAX_KEY + 1];
        cs_tree h;
        cs_tree_desc *d, stored;
        if ((rc = bt_read(t, &p, kb, &k, &v))) return rc;
        if (v.size != sizeof stored) return cs_fail(CS_ECORRUPT, "catalog value of %zu bytes", v.size);
        memcpy(&stored, v.data, sizeof stored);
        memcpy(name, k.data, k.size);
        name[k.size] = 0;
        /* The txn's descriptor is the current one (the catalog's may be
         * older); a tree dropped in this txn leaves the catalog at C1. */
        if (!memchr(name, 0, k.size) && (rc = tree_name_register(env, name, k.size, &h)) == CS_OK &&
            (rc = tree_desc_get(t, h, false, &d)) == CS_OK) {
            cs_tree_desc before = *d;
            if ((rc = bt_fold(t, d))) return rc;
            if (memcmp(&before, d, sizeof before)) t->trees[h].dirty = 1;
        } else if (rc != CS_NOTFOUND) {
            return rc;
        }
        rc = bt_step(t, &p, true);
    }
    if (rc != CS_NOTFOUND) return rc;
    /* Trees created in this txn are not in the catalog yet. */
    for (uint32_t i = 0; i < t->ntrees; i++)
        if (t->trees[i].known && t->trees[i].exists && !t->trees[i].in_catalog) {
            cs_tree_desc before = t->trees[i].desc;
            if ((rc = bt_fold(t, &t->trees[i].desc))) return rc;
            if (memcmp(&before, &t->trees[i].desc, sizeof before)) t->trees[i].dirty = 1;
        }
    if ((rc = tree_flush_catalog(t))) return rc; /* C1 */
    return bt_fold(t, &t->catalog);
}

int tree_flush_catalog(cs_txn *t)
{
    for (uint32_t i = 0; i < t->ntrees; i++) {
        txn_tree *tt = &t->trees[i];
        if (!tt->dirty) continue;
        const char *nm;
        uint32_t nl;
        if (tree_name(t->env, i, &nm, &nl)) return cs_fail(CS_EINVAL, "tree handle %u vanished", i);
        int rc = CS_OK;
        if (tt->exists) {
            if (!tt->in_catalog || memcmp(&tt->desc, &tt->orig, sizeof tt->desc))
                rc = bt_put(t, &t->catalog, (const uint8_t *)nm, nl, &tt->desc, sizeof tt->desc, 0);
        } else if (tt->in_catalog) {
            rc = bt_del(t, &t->catalog, (const uint8_t *)nm, nl);
        }
        if (rc) return rc;
        tt->dirty = 0;
        tt->in_catalog = tt->exists;
        tt->orig = tt->desc;
    }
    return CS_OK;
}

/* On the env's first tree open, ask the kernel for the root page of every
 * tree a one-page catalog lists: on a cold page cache the trees the caller
 * then descends, one after another, find their roots read together in one
 * round instead of a round each. A deeper catalog is left alone (walking
 * it would cost reads of its own); so is a damaged page (the descents
 * report it). Only the roots: asking for a deep tree's next level too (its
 * root's children) made a cold lookup wait longer, as the several reads
 * arrive later than the one page the lookup needs would alone. */
static void tree_hint_roots(cs_txn *t)
{
    cs_env *env = t->env;
    const uint8_t *pg;
    if (t->catalog.depth != 1 || (env->flags & CS_ENV_IN_MEMORY) || atomic_exchange(&env->roots_hinted, true)) return;
    if (page_get(t, t->catalog.root, &pg) || node_check(pg, env->psize, t->catalog.root) || !node_is_leaf(pg)) return;
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    for (unsigned i = 0, n = node_n(pg); i < n; i++) {
        const uint8_t *v;
        uint32_t vlen;
        bool ovf;
        uint64_t ovf_pgno;
        cs_tree_desc d;
        if (leaf_value(pg, env->psize, i, &v, &vlen, &ovf, &ovf_pgno) || ovf || vlen != sizeof d) continue;
        memcpy(&d, v, sizeof d);
        if (!d.root || d.root >= limit) continue;
        io_willneed(env->fd, d.root << env->psize_shift, env->psize);
    }
}

int cs_tree_open(cs_txn *txn, const char *name, unsigned flags, cs_tree *out)
{
    if (!name || !out || (flags & ~CS_CREATE)) return cs_fail(CS_EINVAL, "cs_tree_open: bad arguments");
    size_t len = strlen(name);
    if (len == 0 || len > CS_MAX_TREE_NAME)
        return cs_fail(CS_EINVAL, "tree name of %zu bytes (allowed: 1..%u)", len, CS_MAX_TREE_NAME);
    int rc = txn_check(txn, false);
    if (rc) return rc;
    cs_tree id;
    if ((rc = tree_name_register(txn->env, name, len, &id))) return rc;
    if (!atomic_load_explicit(&txn->env->roots_hinted, memory_order_relaxed)) tree_hint_roots(txn);
    cs_tree_desc *d;
    rc = tree_desc_get(txn, id, false, &d);
    if (rc == CS_NOTFOUND && (flags & CS_CREATE)) {
        if (txn->rdonly) return cs_fail(CS_EREADONLY, "cannot create tree '%s' in a read transaction", name);
        txn_tree *tt = &txn->trees[id];
        memset(&tt->desc, 0, sizeof tt->desc);
        tt->exists = 1;
        tt->dirty = 1;
        txn->gen++;
        rc = CS_OK;
    }
    if (rc == CS_OK) *out = id;
    return rc;
}

int cs_tree_drop(cs_txn *txn, cs_tree tree)
{
    int rc = txn_check(txn, true);
    cs_tree_desc *d;
    if (rc || (rc = tree_desc_get(txn, tree, true, &d))) return rc;
    if ((rc = bt_clear(txn, d))) return txn_note(txn, rc);
    txn->trees[tree].exists = 0;
    return CS_OK;
}

int cs_tree_clear(cs_txn *txn, cs_tree tree)
{
    int rc = txn_check(txn, true);
    cs_tree_desc *d;
    if (rc || (rc = tree_desc_get(txn, tree, true, &d))) return rc;
    return txn_note(txn, bt_clear(txn, d));
}

int cs_tree_get_stat(cs_txn *txn, cs_tree tree, cs_tree_stat *out)
{
    int rc = txn_check(txn, false);
    cs_tree_desc *d;
    if (!out) return cs_fail(CS_EINVAL, "cs_tree_get_stat: NULL out");
    if (rc || (rc = tree_desc_get(txn, tree, false, &d))) return rc;
    *out = (cs_tree_stat){d->entries, d->depth, d->branch_pages, d->leaf_pages, d->overflow_pages};
    return CS_OK;
}

int cs_tree_list(cs_txn *txn, cs_tree_list_fn fn, void *ctx)
{
    int rc = txn_check(txn, false);
    if (rc) return rc;
    if (!fn) return cs_fail(CS_EINVAL, "cs_tree_list: NULL callback");
    if (!txn->rdonly && (rc = tree_flush_catalog(txn))) return txn_note(txn, rc);
    bt_path p;
    rc = bt_edge(txn, &txn->catalog, false, &p);
    while (rc == CS_OK) {
        cs_val k;
        uint8_t kb[CS_MAX_KEY];
        if ((rc = bt_read(txn, &p, kb, &k, NULL))) return rc;
        int r = fn(ctx, k.data, k.size);
        if (r) return r;
        rc = bt_step(txn, &p, true);
    }
    return rc == CS_NOTFOUND ? CS_OK : rc;
}

/* ---- key/value calls ---- */

static int key_ok(cs_val key)
{
    if (!key.data && key.size) return cs_fail(CS_EINVAL, "key has a size but NULL data");
    if (!key.data || key.size == 0 || key.size > CS_MAX_KEY)
        return cs_fail(CS_EKEYSIZE, "key of %zu bytes (allowed: 1..%u)", key.size, CS_MAX_KEY);
    return CS_OK;
}

int cs_get(cs_txn *txn, cs_tree tree, cs_val key, cs_val *val)
{
    int rc = txn_check(txn, false);
    cs_tree_desc *d;
    if (rc) return rc;
    if (!val) return cs_fail(CS_EINVAL, "cs_get: NULL val");
    if ((rc = key_ok(key)) || (rc = tree_desc_get(txn, tree, false, &d))) return rc;
    return bt_get(txn, d, key.data, (uint32_t)key.size, val);
}

int cs_get_index(cs_txn *txn, cs_tree tree, uint64_t index, cs_val *val)
{
    int rc = txn_check(txn, false);
    cs_tree_desc *d;
    bt_path p;
    if (rc) return rc;
    if (!val) return cs_fail(CS_EINVAL, "cs_get_index: NULL val");
    if ((rc = tree_desc_get(txn, tree, false, &d)) || (rc = bt_seek_rank(txn, d, index, &p))) return rc;
    return bt_read(txn, &p, NULL, NULL, val);
}

int cs_put(cs_txn *txn, cs_tree tree, cs_val key, cs_val val, unsigned flags)
{
    int rc = txn_check(txn, true);
    cs_tree_desc *d;
    if (rc) return rc;
    if (flags & ~CS_NOOVERWRITE) return cs_fail(CS_EINVAL, "cs_put: unknown flags %#x", flags);
    if (!val.data && val.size) return cs_fail(CS_EINVAL, "cs_put: NULL value data");
    if ((rc = key_ok(key)) || (rc = tree_desc_get(txn, tree, true, &d))) return rc;
    return txn_note(txn, bt_put(txn, d, key.data, (uint32_t)key.size, val.data, val.size, flags));
}

int cs_del(cs_txn *txn, cs_tree tree, cs_val key)
{
    int rc = txn_check(txn, true);
    cs_tree_desc *d;
    if (rc) return rc;
    if ((rc = key_ok(key)) || (rc = tree_desc_get(txn, tree, true, &d))) return rc;
    return txn_note(txn, bt_del(txn, d, key.data, (uint32_t)key.size));
}

int cs_count(cs_txn *txn, cs_tree tree, uint64_t *out)
{
    int rc = txn_check(txn, false);
    cs_tree_desc *d;
    if (rc) return rc;
    if (!out) return cs_fail(CS_EINVAL, "cs_count: NULL out");
    if ((rc = tree_desc_get(txn, tree, false, &d))) return rc;
    *out = d->entries;
    return CS_OK;
}
