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

/* How many leaves leave a length out of their cells (format.h, COMPACT
 * LEAF: U for key suffixes, V for values) and how many store it, with the
 * least and greatest U or V among the former. */
typedef struct shape_count {
    unsigned with, without;
    uint32_t min, max;
} shape_count;
typedef struct leaf_shapes {
    shape_count keys, values;
} leaf_shapes;

static inline void count_shape(shape_count *s, uint32_t v)
{
    if (!v) {
        s->without++;
        return;
    }
    s->with++;
    if (!s->min || v < s->min) s->min = v;
    if (v > s->max) s->max = v;
}

static void tally_shapes(const uint8_t *pg, void *ctx)
{
    leaf_shapes *out = ctx;
    REQUIRE(node_is_compact(pg));
    count_shape(&out->keys, leaf6_uniform(pg));
    count_shape(&out->values, leaf6_fixed(pg));
}

/* The shapes of tr's leaves as the newest snapshot has them. */
static inline leaf_shapes test_leaf_shapes(cs_env *env, cs_tree tr)
{
    leaf_shapes out = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    test_each_leaf(env, tr, tally_shapes, &out);
    return out;
}

#endif
