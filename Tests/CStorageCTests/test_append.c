/* test_append.c — the append hints of bt_put (btree.c): appends to several
 * trees at once (more trees than hint slots), interleaved with what can
 * make a remembered path wrong — deleting the last keys, puts in the
 * middle, overwrites, splits, overflow values, clearing and dropping a
 * tree — checked against a model after every batch and by cs_check. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

#define NTREES 6     /* more than BT_HINTS */
#define NKEYS 40000u

static bool present[NTREES][NKEYS];
static uint32_t version[NTREES][NKEYS];
static uint32_t top[NTREES]; /* one past the highest key ever used */

static void key_of(uint32_t k, uint8_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)((uint64_t)k >> (56 - 8 * i));
}

static size_t value_of(int tree, uint32_t k, uint32_t ver, uint8_t *buf) {
    /* mostly small; now and then too big for a page (overflow) */
    size_t n = (k % 97 == 0) ? 5000 : 8 + (k + ver) % 40;
    test_fill(buf, n, ((uint64_t)tree << 48) ^ ((uint64_t)k << 16) ^ ver);
    return n;
}

static void put(cs_txn *t, cs_tree tr, int tree, uint32_t k) {
    uint8_t key[8], val[5000];
    key_of(k, key);
    uint32_t ver = version[tree][k] + 1;
    size_t n = value_of(tree, k, ver, val);
    CHECK_OK(cs_put(t, tr, V(key, 8), V(val, n), 0));
    present[tree][k] = true;
    version[tree][k] = ver;
    if (k >= top[tree]) top[tree] = k + 1;
}

static void del(cs_txn *t, cs_tree tr, int tree, uint32_t k) {
    uint8_t key[8];
    key_of(k, key);
    CHECK_RC(cs_del(t, tr, V(key, 8)), present[tree][k] ? CS_OK : CS_NOTFOUND);
    present[tree][k] = false;
}

/* The tree holds exactly the model's keys and values, in order. */
static void verify(cs_txn *t, cs_tree tr, int tree) {
    cs_cursor *c;
    cs_val key, val;
    uint8_t want[5000], wkey[8];
    uint64_t n = 0, expect = 0;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    uint32_t k = 0;
    int rc = cs_cursor_get(c, &key, &val, CS_FIRST);
    for (; rc == CS_OK; rc = cs_cursor_get(c, &key, &val, CS_NEXT), n++) {
        while (k < NKEYS && !present[tree][k]) k++;
        if (k == NKEYS) break;
        key_of(k, wkey);
        size_t wn = value_of(tree, k, version[tree][k], want);
        if (key.size != 8 || memcmp(key.data, wkey, 8) || val.size != wn || memcmp(val.data, want, wn)) {
            CHECK(!"entry differs from the model");
            break;
        }
        k++;
    }
    cs_cursor_close(c);
    for (uint32_t i = 0; i < NKEYS; i++) expect += present[tree][i];
    CHECK_EQ(n, expect);
    uint64_t count = 0;
    CHECK_OK(cs_count(t, tr, &count));
    CHECK_EQ(count, expect);
}

static void run(cs_env *env, uint64_t seed) {
    uint64_t rng = seed;
    char name[16];
    cs_tree trees[NTREES];
    memset(present, 0, sizeof present);
    memset(version, 0, sizeof version);
    memset(top, 0, sizeof top);
    for (int txn = 0; txn < 6; txn++) {
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (int i = 0; i < NTREES; i++) {
            snprintf(name, sizeof name, "t%d", i);
            REQUIRE_OK(cs_tree_open(t, name, CS_CREATE, &trees[i]));
        }
        for (int op = 0; op < 12000; op++) {
            int i = (int)rng_below(&rng, NTREES);
            cs_tree tr = trees[i];
            uint64_t r = rng_below(&rng, 1000);
            if (r < 700) { /* append above every key, sometimes with a gap */
                uint32_t k = top[i] + (uint32_t)rng_below(&rng, 3);
                if (k < NKEYS) put(t, tr, i, k);
            } else if (r < 780) { /* delete the last few keys */
                for (uint32_t n = (uint32_t)rng_below(&rng, 4), k = top[i]; n > 0 && k > 0; n--) del(t, tr, i, --k);
            } else if (r < 860 && top[i] > 0) { /* put in the middle */
                put(t, tr, i, (uint32_t)rng_below(&rng, top[i]));
            } else if (r < 920 && top[i] > 0) { /* overwrite the last key */
                uint32_t k = top[i] - 1;
                if (present[i][k]) put(t, tr, i, k);
            } else if (r < 990 && top[i] > 0) { /* delete anywhere */
                del(t, tr, i, (uint32_t)rng_below(&rng, top[i]));
            } else if (r < 995) { /* clear */
                CHECK_OK(cs_tree_clear(t, tr));
                memset(present[i], 0, sizeof present[i]);
            } else { /* drop and create again under the same name */
                snprintf(name, sizeof name, "t%d", i);
                CHECK_OK(cs_tree_drop(t, tr));
                REQUIRE_OK(cs_tree_open(t, name, CS_CREATE, &trees[i]));
                memset(present[i], 0, sizeof present[i]);
            }
            /* keys below top but deleted at the tail: appends go above
             * the last present key, not above `top` */
            while (top[i] > 0 && !present[i][top[i] - 1]) top[i]--;
            if (op % 3000 == 2999)
                for (int j = 0; j < NTREES; j++) verify(t, trees[j], j);
        }
        for (int j = 0; j < NTREES; j++) verify(t, trees[j], j);
        REQUIRE_OK(cs_txn_commit(t));
        cs_check_report report;
        CHECK_OK(cs_check(env, &report));
    }
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    for (int j = 0; j < NTREES; j++) verify(t, trees[j], j);
    cs_txn_abort(t);
}

int main(void) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char file[32];
        snprintf(file, sizeof file, "append%llu.db", (unsigned long long)seed);
        tpath p = test_path(file);
        cs_env *env = NULL;
        REQUIRE_OK(test_open(p.s, 0, &env));
        run(env, seed * 7919);
        CHECK_OK(cs_env_close(env));
    }
    return test_report();
}
