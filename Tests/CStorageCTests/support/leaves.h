/* leaves.h — for tests that look inside a tree's leaf pages (internal.h):
 * every leaf of a tree as the newest snapshot has it, in key order. */
#ifndef CSTORAGE_TEST_LEAVES_H
#define CSTORAGE_TEST_LEAVES_H

#include "internal.h"
#include "test.h"

typedef void (*test_leaf_fn)(const uint8_t *pg, void *ctx);

static void test_leaf_pages(cs_txn *t, uint64_t pgno, test_leaf_fn fn, void *ctx)
{
    const uint8_t *pg;
    REQUIRE_OK(page_get(t, pgno, &pg));
    if (!node_is_leaf(pg)) {
        for (unsigned i = 0; i < node_n(pg); i++) test_leaf_pages(t, branch_child(pg, t->psize, i), fn, ctx);
        return;
    }
    fn(pg, ctx);
}

/* fn(leaf, ctx) for each leaf of tr in a read txn of env. */
static inline void test_each_leaf(cs_env *env, cs_tree tr, test_leaf_fn fn, void *ctx)
{
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    cs_tree_desc *d;
    REQUIRE_OK(tree_desc_get(t, tr, false, &d));
    if (d->root) test_leaf_pages(t, d->root, fn, ctx);
    cs_txn_abort(t);
}

#endif
