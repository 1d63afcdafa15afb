/* test_replay.c — a write txn's redo record (replay.c) carries exactly its
 * changes: random transactions on env A (puts of small and overflow
 * values, overwrites, deletes, cursor puts and deletes, trees created,
 * cleared, dropped and re-created) are each recorded before commit and
 * applied to env B, which must then hold the same trees with the same
 * entries; the lower bound kept as entries change never passes the
 * record, and a commit it puts past the limit builds no record; a record
 * that passes its limit says so; damaged ops give
 * CS_ECORRUPT and fail no check silently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test.h"

#define NTREES 4
static const char *names[NTREES] = {"alpha", "beta", "gamma", "delta"};

typedef struct dump {
    char name[64][CS_MAX_TREE_NAME + 1];
    unsigned n;
} dump;

static int list_one(void *ctx, const char *name, size_t len)
{
    dump *d = ctx;
    if (d->n < 64 && len <= CS_MAX_TREE_NAME) {
        memcpy(d->name[d->n], name, len);
        d->name[d->n][len] = 0;
    }
    d->n++;
    return 0;
}

/* A and B hold the same trees with the same entries. */
static void check_same(cs_env *a, cs_env *b)
{
    cs_txn *ta, *tb;
    REQUIRE_OK(cs_txn_begin(a, CS_TXN_RDONLY, &ta));
    REQUIRE_OK(cs_txn_begin(b, CS_TXN_RDONLY, &tb));
    dump da = {0}, db = {0};
    CHECK_OK(cs_tree_list(ta, list_one, &da));
    CHECK_OK(cs_tree_list(tb, list_one, &db));
    CHECK_EQ(da.n, db.n);
    for (unsigned i = 0; i < da.n && i < db.n && i < 64; i++) {
        CHECK(!strcmp(da.name[i], db.name[i]));
        cs_tree xa, xb;
        REQUIRE_OK(cs_tree_open(ta, da.name[i], 0, &xa));
        REQUIRE_OK(cs_tree_open(tb, db.name[i], 0, &xb));
        uint64_t na, nb;
        CHECK_OK(cs_count(ta, xa, &na));
        CHECK_OK(cs_count(tb, xb, &nb));
        CHECK_EQ(na, nb);
        cs_cursor *ca, *cb;
        REQUIRE_OK(cs_cursor_open(ta, xa, &ca));
        REQUIRE_OK(cs_cursor_open(tb, xb, &cb));
        for (;;) {
            cs_val ka, va, kb, vb;
            int ra = cs_cursor_get(ca, &ka, &va, CS_NEXT), rb = cs_cursor_get(cb, &kb, &vb, CS_NEXT);
            CHECK_EQ(ra, rb);
            if (ra || rb) break;
            CHECK(ka.size == kb.size && !memcmp(ka.data, kb.data, ka.size));
            CHECK(va.size == vb.size && !memcmp(va.data, vb.data, va.size));
        }
        cs_cursor_close(ca);
        cs_cursor_close(cb);
    }
    cs_txn_abort(ta);
    cs_txn_abort(tb);
}

static size_t make_key(uint64_t *rng, char *k)
{
    return (size_t)snprintf(k, 32, "key%06llu", (unsigned long long)rng_below(rng, 3000));
}

/* Value sizes: mostly small, some past a third of a page (overflow runs). */
static size_t make_val(uint64_t *rng, uint8_t *v)
{
    size_t n = rng_below(rng, 10) == 0 ? 2000 + rng_below(rng, 9000) : rng_below(rng, 120);
    test_fill(v, n, rng_next(rng));
    return n;
}

/* One random transaction's operations on t. */
static void random_ops(cs_txn *t, uint64_t *rng, unsigned nops)
{
    static uint8_t v[12000];
    char k[32];
    for (unsigned i = 0; i < nops; i++) {
        const char *name = names[rng_below(rng, NTREES)];
        cs_tree tree;
        unsigned what = (unsigned)rng_below(rng, 100);
        if (what < 2) { /* drop */
            if (cs_tree_open(t, name, 0, &tree) == CS_OK) REQUIRE_OK(cs_tree_drop(t, tree));
            continue;
        }
        REQUIRE_OK(cs_tree_open(t, name, CS_CREATE, &tree));
        if (what < 4) {
            REQUIRE_OK(cs_tree_clear(t, tree));
        } else if (what < 70) {
            size_t kl = make_key(rng, k), vl = make_val(rng, v);
            REQUIRE_OK(cs_put(t, tree, V(k, kl), V(v, vl), 0));
        } else if (what < 90) {
            size_t kl = make_key(rng, k);
            int rc = cs_del(t, tree, V(k, kl));
            REQUIRE(rc == CS_OK || rc == CS_NOTFOUND);
        } else { /* through a cursor: overwrite or delete the entry at a key */
            cs_cursor *c;
            REQUIRE_OK(cs_cursor_open(t, tree, &c));
            size_t kl = make_key(rng, k);
            cs_val key = V(k, kl), val;
            if (cs_cursor_get(c, &key, &val, CS_SEEK) == CS_OK) {
                if (what < 95) {
                    char kc[CS_MAX_KEY];
                    memcpy(kc, key.data, key.size);
                    size_t vl = make_val(rng, v);
                    REQUIRE_OK(cs_cursor_put(c, V(kc, key.size), V(v, vl), 0));
                } else {
                    REQUIRE_OK(cs_cursor_del(c));
                }
            }
            cs_cursor_close(c);
        }
    }
}

static void test_random_transactions_replay(void)
{
    tpath pa = test_path("a"), pb = test_path("b");
    test_rm_db(pa.s);
    test_rm_db(pb.s);
    cs_env *a, *b;
    REQUIRE_OK(test_open(pa.s, 0, &a));
    REQUIRE_OK(test_open(pb.s, 0, &b));
    uint64_t rng = 0x5eed;
    redo_rec r;
    redo_rec_init(&r);
    unsigned records = 0, empty = 0, bounded = 0;
    size_t biggest = 0;
    for (unsigned round = 0; round < 300; round++) {
        cs_txn *ta, *tb;
        REQUIRE_OK(cs_txn_begin(a, 0, &ta));
        /* Mostly small transactions, now and then a big one. */
        unsigned nops = round % 25 == 0 ? 600 : 1 + (unsigned)rng_below(&rng, 12);
        random_ops(ta, &rng, nops);
        REQUIRE_OK(tree_flush_catalog(ta));
        bool fits;
        REQUIRE_OK(redo_build(ta, 7, &r, SIZE_MAX, &fits));
        CHECK(fits);
        /* The bound a big commit folds on never passes the record built. */
        CHECK(redo_lower_bound(ta) <= r.len - REDO_HDR);
        if (redo_lower_bound(ta) > 0) bounded++;
        CHECK_EQ(rd64(r.buf + 16), ta->txnid);
        if (r.nops == 0) empty++;
        if (r.len > biggest) biggest = r.len;
        REQUIRE_OK(cs_txn_commit(ta));

        REQUIRE_OK(cs_txn_begin(b, 0, &tb));
        REQUIRE_OK(redo_apply(tb, r.buf + REDO_HDR, r.len - REDO_HDR));
        REQUIRE_OK(cs_txn_commit(tb));
        records++;
        if (round % 10 == 9) check_same(a, b);
    }
    check_same(a, b);
    CHECK(empty < records / 4);    /* the diff found changes, not nothing */
    CHECK(bounded > records / 4);  /* ... and the bound was not always 0 */
    printf("replay: %u records, %u without ops, biggest %zu bytes\n", records, empty, biggest);
    redo_rec_free(&r);
    cs_env_close(a);
    cs_env_close(b);
}

/* The record stops at its limit and says so; a record of one put stays
 * near the put's own bytes. */
static void test_limit_and_size(void)
{
    tpath pa = test_path("lim");
    test_rm_db(pa.s);
    cs_env *a;
    REQUIRE_OK(test_open(pa.s, 0, &a));
    cs_tree tree = test_open_tree(a, "people");
    cs_txn *t;
    char k[32], v[100];
    memset(v, 'v', sizeof v);
    REQUIRE_OK(cs_txn_begin(a, 0, &t));
    for (unsigned i = 0; i < 5000; i++)
        REQUIRE_OK(cs_put(t, tree, V(k, (size_t)snprintf(k, sizeof k, "p%05u", i)), V(v, sizeof v), 0));
    REQUIRE_OK(cs_txn_commit(t));

    redo_rec r;
    redo_rec_init(&r);
    bool fits;
    REQUIRE_OK(cs_txn_begin(a, 0, &t));
    REQUIRE_OK(cs_put(t, tree, VS("p02500"), V(v, 50), 0));
    REQUIRE_OK(tree_flush_catalog(t));
    REQUIRE_OK(redo_build(t, 1, &r, 4096, &fits));
    CHECK(fits);
    CHECK_EQ(r.nops, 2); /* the tree, the put */
    CHECK_EQ(r.len, REDO_HDR + (1 + 1 + 1 + 6) + (1 + 1 + 6 + 1 + 50)); /* kind, flags, lengths, bytes */
    cs_txn_abort(t);

    REQUIRE_OK(cs_txn_begin(a, 0, &t));
    for (unsigned i = 0; i < 100; i++)
        REQUIRE_OK(cs_put(t, tree, V(k, (size_t)snprintf(k, sizeof k, "q%05u", i)), V(v, sizeof v), 0));
    REQUIRE_OK(tree_flush_catalog(t));
    REQUIRE_OK(redo_build(t, 1, &r, 4096, &fits));
    CHECK(!fits);
    CHECK_EQ(r.len, REDO_HDR); /* 100 puts of 109+ bytes: known too big, no diff run */
    REQUIRE_OK(redo_build(t, 1, &r, 1 << 20, &fits));
    CHECK(fits);
    CHECK_EQ(r.nops, 101);
    cs_txn_abort(t);

    /* Deletes count too: 100 deletes of 6-byte keys are at least 800
     * bytes of ops, and a delete of a key put in the same txn is none. */
    REQUIRE_OK(cs_txn_begin(a, 0, &t));
    for (unsigned i = 0; i < 100; i++)
        REQUIRE_OK(cs_del(t, tree, V(k, (size_t)snprintf(k, sizeof k, "p%05u", i))));
    REQUIRE_OK(cs_put(t, tree, VS("r00000"), V(v, 10), 0));
    REQUIRE_OK(cs_del(t, tree, VS("r00000")));
    REQUIRE_OK(tree_flush_catalog(t));
    CHECK_EQ(redo_lower_bound(t), 100u * (6 + 2));
    REQUIRE_OK(redo_build(t, 1, &r, 512, &fits));
    CHECK(!fits);
    CHECK_EQ(r.len, REDO_HDR);
    REQUIRE_OK(redo_build(t, 1, &r, 1 << 20, &fits));
    CHECK(fits);
    CHECK_EQ(r.nops, 101);
    cs_txn_abort(t);

    /* Damaged ops: an entry before its tree, a delete of a missing key, a
     * drop of a missing tree, a bad name, a put and a delete of an empty
     * key (refused by cs_put/cs_del as the caller's misuse, but in a record
     * it is damage). Each is CS_ECORRUPT. */
    static const uint8_t entry_first[] = {REDO_PUT, 1, 'k', 1, 'v'};
    static const uint8_t del_missing[] = {REDO_TREE, 0, 6, 'p', 'e', 'o', 'p', 'l', 'e', REDO_DEL, 2, 'z', 'z'};
    static const uint8_t drop_missing[] = {REDO_DROP, 4, 'n', 'o', 'n', 'e'};
    static const uint8_t bad_name[] = {REDO_TREE, 0, 2, 'a', 0};
    static const uint8_t empty_put[] = {REDO_TREE, 0, 6, 'p', 'e', 'o', 'p', 'l', 'e', REDO_PUT, 0, 1, 'v'};
    static const uint8_t empty_del[] = {REDO_TREE, 0, 6, 'p', 'e', 'o', 'p', 'l', 'e', REDO_DEL, 0};
    const uint8_t *cases[] = {entry_first, del_missing, drop_missing, bad_name, empty_put, empty_del};
    size_t lens[] = {sizeof entry_first, sizeof del_missing, sizeof drop_missing, sizeof bad_name, sizeof empty_put,
                     sizeof empty_del};
    for (unsigned i = 0; i < 6; i++) {
        REQUIRE_OK(cs_txn_begin(a, 0, &t));
        CHECK_RC(redo_apply(t, cases[i], lens[i]), CS_ECORRUPT);
        cs_txn_abort(t);
    }
    redo_rec_free(&r);
    cs_env_close(a);
}

int main(void)
{
    test_random_transactions_replay();
    test_limit_and_size();
    return test_report();
}
