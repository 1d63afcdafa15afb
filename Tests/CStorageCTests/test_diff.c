/* test_diff: cs_tree_diff against a brute-force merge of two full scans,
 * over random changes of every size, across snapshots and a write txn. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "test.h"

typedef struct change {
    int kind;
    char key[32];
    size_t klen;
} change;

typedef struct changes {
    change *v;
    size_t n, cap;
} changes;

static int record(void *ctx, cs_diff_kind kind, cs_val key, cs_val ov, cs_val nv)
{
    changes *c = ctx;
    (void)ov;
    (void)nv;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        REQUIRE(c->v);
    }
    change *e = &c->v[c->n++];
    e->kind = (int)kind;
    e->klen = key.size < sizeof e->key ? key.size : sizeof e->key;
    memcpy(e->key, key.data, e->klen);
    return 0;
}

/* The same, by scanning both snapshots completely. */
static void brute(cs_txn *a, cs_txn *b, cs_tree tr, changes *out)
{
    cs_cursor *ca, *cb;
    cs_val ka, va, kb, vb;
    REQUIRE_OK(cs_cursor_open(a, tr, &ca));
    REQUIRE_OK(cs_cursor_open(b, tr, &cb));
    int ra = cs_cursor_get(ca, &ka, &va, CS_FIRST), rb = cs_cursor_get(cb, &kb, &vb, CS_FIRST);
    while (ra == CS_OK || rb == CS_OK) {
        int c = ra ? 1 : rb ? -1 : memcmp(ka.data, kb.data, ka.size < kb.size ? ka.size : kb.size);
        if (!ra && !rb && c == 0) c = (ka.size > kb.size) - (ka.size < kb.size);
        cs_val none = {0};
        if (c < 0) {
            record(out, CS_DIFF_DELETE, ka, va, none);
            ra = cs_cursor_get(ca, &ka, &va, CS_NEXT);
        } else if (c > 0) {
            record(out, CS_DIFF_INSERT, kb, none, vb);
            rb = cs_cursor_get(cb, &kb, &vb, CS_NEXT);
        } else {
            if (va.size != vb.size || memcmp(va.data, vb.data, va.size)) record(out, CS_DIFF_UPDATE, kb, va, vb);
            ra = cs_cursor_get(ca, &ka, &va, CS_NEXT);
            rb = cs_cursor_get(cb, &kb, &vb, CS_NEXT);
        }
    }
    cs_cursor_close(ca);
    cs_cursor_close(cb);
}

static void same(const changes *x, const changes *y)
{
    CHECK_EQ(x->n, y->n);
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        CHECK_EQ(x->v[i].kind, y->v[i].kind);
        CHECK(x->v[i].klen == y->v[i].klen && !memcmp(x->v[i].key, y->v[i].key, x->v[i].klen));
    }
}

static void mutate(cs_txn *w, cs_tree tr, uint64_t *rng, int ops, int keyspace)
{
    char k[32], v[3000];
    for (int i = 0; i < ops; i++) {
        int kl = snprintf(k, sizeof k, "key%06d", (int)rng_below(rng, (uint64_t)keyspace));
        uint64_t r = rng_below(rng, 10);
        if (r < 3) {
            int rc = cs_del(w, tr, V(k, (size_t)kl));
            CHECK(rc == CS_OK || rc == CS_NOTFOUND);
        } else {
            size_t vl = r == 9 ? 2000 + rng_below(rng, 900) : rng_below(rng, 120);
            test_fill(v, vl, rng_next(rng));
            CHECK_OK(cs_put(w, tr, V(k, (size_t)kl), V(v, vl), 0));
        }
    }
}

/* A one-key change reads only the changed path and the ends of the runs of
 * children the two snapshots share, not every child: a shared child in the
 * middle of a run is zeroed in the file (the map sees it) and the diff still
 * reports exactly the one update. */
static void diff_skips_shared_runs(void)
{
    tpath p = test_path("diffrun.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_txn *w, *old, *cur;
    cs_tree tr;
    char k[16], v[64];
    memset(v, 'v', sizeof v);
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    REQUIRE_OK(cs_tree_open(w, "t", CS_CREATE, &tr));
    for (int i = 0; i < 20000; i++) {
        snprintf(k, sizeof k, "k%06d", i);
        REQUIRE_OK(cs_put(w, tr, (cs_val){k, 7}, (cs_val){v, sizeof v}, 0));
    }
    REQUIRE_OK(cs_txn_commit(w));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    REQUIRE_OK(cs_put(w, tr, VS("k019999"), VS("changed"), 0));
    REQUIRE_OK(cs_txn_commit(w));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &cur));
    cs_tree_desc *d;
    const uint8_t *root;
    REQUIRE_OK(tree_desc_get(old, tr, false, &d));
    REQUIRE_OK(page_get(old, d->root, &root));
    /* The parent of the last leaf: the changed path runs through its last
     * child, and the children before it are one shared run. */
    const uint8_t *pg = root, *child;
    REQUIRE(!node_is_leaf(root));
    for (;;) {
        REQUIRE_OK(page_get(old, branch_child(pg, old->psize, node_n(pg) - 1u), &child));
        if (node_is_leaf(child)) break;
        pg = child;
    }
    REQUIRE(node_n(pg) > 8);
    uint64_t victim = branch_child(pg, old->psize, 5);
    uint32_t ps = old->psize;
    uint8_t *saved = malloc(ps), *zero = calloc(1, ps);
    REQUIRE(saved && zero);
    int fd = open(p.s, O_RDWR);
    REQUIRE(fd >= 0);
    REQUIRE(pread(fd, saved, ps, (off_t)(victim * ps)) == (ssize_t)ps);
    REQUIRE(pwrite(fd, zero, ps, (off_t)(victim * ps)) == (ssize_t)ps);
    changes c = {0};
    CHECK_OK(cs_tree_diff(old, cur, tr, record, &c));
    CHECK_EQ(c.n, 1);
    CHECK(c.n == 1 && c.v[0].kind == CS_DIFF_UPDATE && c.v[0].klen == 7 && !memcmp(c.v[0].key, "k019999", 7));
    REQUIRE(pwrite(fd, saved, ps, (off_t)(victim * ps)) == (ssize_t)ps);
    close(fd);
    free(saved), free(zero), free(c.v);
    cs_txn_abort(cur);
    cs_txn_abort(old);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
}

/* Copied compact leaves whose entries are mostly the base's: the equal
 * cells are passed by one compare each, and every change still shows,
 * whether at a leaf's first or last entry, a same-size value edit (cells
 * of one size that differ), an overflow value or a key that changes a
 * leaf's prefix. */
static void diff_passes_equal_cells(void)
{
    tpath p = test_path("diffcells.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_txn *w, *old;
    cs_tree tr;
    char k[16], v[3000];
    memset(v, 'a', sizeof v);
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    REQUIRE_OK(cs_tree_open(w, "t", CS_CREATE, &tr));
    for (int i = 0; i < 600; i++) {
        snprintf(k, sizeof k, "c%05d", i);
        REQUIRE_OK(cs_put(w, tr, V(k, 6), V(v, i == 250 ? 2500 : 20), 0));
    }
    REQUIRE_OK(cs_txn_commit(w));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    memset(v, 'b', sizeof v);
    const char *edits[] = {"c00000", "c00150", "c00599", "c00251"};
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) REQUIRE_OK(cs_put(w, tr, V(edits[i], 6), V(v, 20), 0));
    REQUIRE_OK(cs_put(w, tr, VS("c00250"), V(v, 2500), 0));
    REQUIRE_OK(cs_del(w, tr, VS("c00100")));
    REQUIRE_OK(cs_put(w, tr, VS("c00200x"), V(v, 20), 0));
    REQUIRE_OK(cs_put(w, tr, VS("b"), V(v, 20), 0));
    /* In-place edits of one late byte: the cell stays at its offset and
     * only a word past its first differs. */
    char one[20];
    memset(one, 'a', sizeof one);
    one[19] = 'z';
    REQUIRE_OK(cs_put(w, tr, VS("c00300"), V(one, 20), 0));
    one[19] = 'a', one[11] = 'z';
    REQUIRE_OK(cs_put(w, tr, VS("c00400"), V(one, 20), 0));
    changes d = {0}, bf = {0};
    CHECK_OK(cs_tree_diff(old, w, tr, record, &d));
    brute(old, w, tr, &bf);
    same(&d, &bf);
    CHECK_EQ(d.n, 10);
    free(d.v), free(bf.v);
    cs_txn_abort(w);
    cs_txn_abort(old);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
}

int main(void)
{
    diff_skips_shared_runs();
    diff_passes_equal_cells();
    tpath p = test_path("diff.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    uint64_t rng = 42;
    cs_txn *w, *old, *cur;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    REQUIRE_OK(cs_tree_open(w, "t", CS_CREATE, &tr));
    mutate(w, tr, &rng, 30000, 40000);
    REQUIRE_OK(cs_txn_commit(w));
    int sizes[] = {0, 1, 2, 10, 100, 1000, 20000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (int round = 0; round < 3; round++) {
            REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
            REQUIRE_OK(cs_txn_begin(env, 0, &w));
            mutate(w, tr, &rng, sizes[s], 40000);
            changes d = {0}, bf = {0}, back = {0}, bfb = {0};
            /* A write txn against its base snapshot... */
            CHECK_OK(cs_tree_diff(old, w, tr, record, &d));
            brute(old, w, tr, &bf);
            same(&d, &bf);
            REQUIRE_OK(cs_txn_commit(w));
            /* ...and two committed snapshots, both directions. */
            REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &cur));
            d.n = bf.n = 0;
            CHECK_OK(cs_tree_diff(old, cur, tr, record, &d));
            brute(old, cur, tr, &bf);
            same(&d, &bf);
            CHECK_OK(cs_tree_diff(cur, old, tr, record, &back));
            brute(cur, old, tr, &bfb);
            same(&back, &bfb);
            if (sizes[s] == 0) CHECK_EQ(d.n, 0);
            cs_txn_abort(cur);
            cs_txn_abort(old);
            free(d.v), free(bf.v), free(back.v), free(bfb.v);
        }
    }
    /* A tree created after the old snapshot: everything is an insert. */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    cs_tree t2;
    REQUIRE_OK(cs_tree_open(w, "new", CS_CREATE, &t2));
    CHECK_OK(cs_put(w, t2, VS("a"), VS("1"), 0));
    CHECK_OK(cs_put(w, t2, VS("b"), VS("2"), 0));
    changes d = {0};
    CHECK_OK(cs_tree_diff(old, w, t2, record, &d));
    CHECK_EQ(d.n, 2);
    CHECK(d.n == 2 && d.v[0].kind == CS_DIFF_INSERT && d.v[1].kind == CS_DIFF_INSERT);
    free(d.v);
    cs_txn_abort(w);
    cs_txn_abort(old);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
    return test_report();
}
