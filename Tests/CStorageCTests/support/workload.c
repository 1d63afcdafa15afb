/* workload.c — see workload.h. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

enum { KMAX = 450 };

static uint64_t nkeys_of(uint64_t gen) { return 50 + gen * 37 % 400; }

int inv_write(cs_txn *t, cs_tree tr, uint64_t gen, size_t blob_size, int keep_blobs) {
    char k[32];
    uint64_t n = nkeys_of(gen), rec[3];
    int r;
    for (uint64_t i = 0; i < KMAX; i++) {
        snprintf(k, sizeof k, "n%06llu", (unsigned long long)i);
        uint64_t v[2] = {gen, i};
        r = i < n ? cs_put(t, tr, VS(k), V(v, sizeof v), 0) : cs_del(t, tr, VS(k));
        if (r && r != CS_NOTFOUND) return r;
    }
    uint64_t nblobs = 0;
    cs_val old;
    if (cs_get(t, tr, VS("meta"), &old) == CS_OK && old.size == sizeof rec) {
        memcpy(rec, old.data, sizeof rec);
        nblobs = rec[2];
    }
    if (blob_size) {
        char *b = malloc(blob_size);
        if (!b) return CS_ENOMEM;
        test_fill(b, blob_size, gen);
        if (keep_blobs) snprintf(k, sizeof k, "blob%09llu", (unsigned long long)gen);
        else snprintf(k, sizeof k, "blob");
        r = cs_put(t, tr, VS(k), V(b, blob_size), 0);
        free(b);
        if (r) return r;
        nblobs = keep_blobs ? nblobs + 1 : 1;
    }
    rec[0] = gen; rec[1] = n; rec[2] = nblobs;
    return cs_put(t, tr, VS("meta"), V(rec, sizeof rec), 0);
}

int64_t inv_verify(cs_txn *t, cs_tree tr) {
    cs_val v, k;
    uint64_t rec[3], cnt = 0;
    int r = cs_get(t, tr, VS("meta"), &v);
    if (r == CS_NOTFOUND) return -2;
    CHECK_OK(r);
    CHECK_EQ(v.size, sizeof rec);
    if (r || v.size != sizeof rec) return -1;
    memcpy(rec, v.data, sizeof rec);
    uint64_t gen = rec[0], n = rec[1], nblobs = rec[2];
    CHECK_EQ(n, nkeys_of(gen));
    CHECK_OK(cs_count(t, tr, &cnt));
    CHECK_EQ(cnt, n + 1 + nblobs);
    if (n != nkeys_of(gen) || cnt != n + 1 + nblobs) return -1;
    cs_cursor *c;
    CHECK_OK(cs_cursor_open(t, tr, &c));
    k = VS("n");
    uint64_t i = 0;
    long bad = 0;
    for (r = cs_cursor_get(c, &k, &v, CS_SEEK); r == CS_OK && k.size && ((const char *)k.data)[0] == 'n';
         r = cs_cursor_get(c, &k, &v, CS_NEXT), i++) {
        uint64_t want[2] = {gen, i};
        if (v.size != sizeof want || memcmp(v.data, want, sizeof want)) bad++;
    }
    CHECK_EQ(i, n);
    CHECK_EQ(bad, 0);
    /* the newest blob (the last blob key) was written with this meta */
    if (nblobs) {
        k = VS("blob");
        int found = 0;
        cs_val lk = {0}, lv = {0};
        for (r = cs_cursor_get(c, &k, &v, CS_SEEK); r == CS_OK && k.size >= 4 && !memcmp(k.data, "blob", 4);
             r = cs_cursor_get(c, &k, &v, CS_NEXT)) {
            lk = k; lv = v; found++;
        }
        CHECK_EQ(found, nblobs);
        char num[16] = {0};
        if (lk.size == 13) memcpy(num, (const char *)lk.data + 4, 9);
        if (found && (lk.size == 4 || strtoull(num, NULL, 10) == gen)) {
            char *b = malloc(lv.size ? lv.size : 1);
            test_fill(b, lv.size, gen);
            if (memcmp(b, lv.data, lv.size)) bad++;
            free(b);
        }
        CHECK_EQ(bad, 0);
    }
    cs_cursor_close(c);
    return bad || i != n ? -1 : (int64_t)gen;
}

void churn(cs_env *env, cs_tree tr, int nkeys, size_t vsize, uint64_t round) {
    cs_txn *t;
    char k[32], v[4096];
    if (vsize > sizeof v) vsize = sizeof v;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < nkeys; i++) {
        snprintf(k, sizeof k, "churn%06d", i);
        memset(v, (int)(round + (uint64_t)i), vsize);
        CHECK_OK(cs_put(t, tr, VS(k), V(v, vsize), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
}
