/* test_freespace.c — page reuse: an update loop stays bounded without long
 * readers, grows while a snapshot is held, and reuses the space once the
 * snapshot is released. */
#include <stdio.h>

#include "workload.h"

enum { KEYS = 1000, VSIZE = 100 };

static struct cs_env_info info(cs_env *env) {
    struct cs_env_info i;
    memset(&i, 0, sizeof i);
    CHECK_OK(cs_env_get_info(env, &i));
    return i;
}

static void print(const char *what, struct cs_env_info i) {
    printf("%-22s next_pgno %6llu file %5llu KiB free %6llu pending %6llu\n", what,
           (unsigned long long)i.next_pgno, (unsigned long long)(i.file_size >> 10),
           (unsigned long long)i.free_pages, (unsigned long long)i.pending_pages);
}

int main(void) {
    tpath p = test_path("free.db");
    cs_env *env;
    cs_txn *t, *r;
    cs_tree tr;
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "f", CS_CREATE, &tr));
    REQUIRE_OK(cs_txn_commit(t));
    uint64_t round = 0;

    /* 1. no readers: bounded */
    for (int i = 0; i < 50; i++) churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info warm = info(env);
    print("warm", warm);
    for (int i = 0; i < 1950; i++) churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info end = info(env);
    print("2000 commits", end);
    CHECK(end.next_pgno <= warm.next_pgno + 8);
    CHECK_EQ(end.file_size, warm.file_size);
    CHECK(end.next_pgno * end.page_size < (2u << 20)); /* ~120 KiB of data */

    /* 2. short readers, renewed as they go: still bounded */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r));
    for (int i = 0; i < 300; i++) {
        churn(env, tr, KEYS, VSIZE, round++);
        if (i % 5 == 0) { CHECK_OK(cs_txn_reset(r)); CHECK_OK(cs_txn_renew(r)); }
    }
    CHECK_OK(cs_txn_abort(r));
    struct cs_env_info shortr = info(env);
    print("short readers", shortr);
    CHECK(shortr.next_pgno * shortr.page_size < (4u << 20));

    /* 3. one long snapshot: freed pages stay pending, the file grows */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r));
    uint64_t snap = cs_txn_id(r), snap_round = round;
    struct cs_env_info pin0 = info(env);
    for (int i = 0; i < 200; i++) churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info pinned = info(env);
    print("pinned 200 commits", pinned);
    CHECK(pinned.next_pgno > pin0.next_pgno + 200 * 20); /* ~30 leaves per commit */
    CHECK(pinned.pending_pages > 200 * 20);
    CHECK_EQ(pinned.oldest_reader, snap);
    CHECK_EQ(pinned.readers_used, 1);
    /* the snapshot is intact */
    cs_val v;
    CHECK_OK(cs_get(r, tr, VS("churn000007"), &v));
    CHECK_EQ(v.size, VSIZE);
    CHECK_EQ(((const unsigned char *)v.data)[VSIZE - 1], (unsigned char)(snap_round - 1 + 7));
    CHECK_OK(cs_txn_abort(r));

    /* 4. released: space is reused, the file stops growing */
    churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info rel = info(env);
    print("released", rel);
    CHECK(rel.free_pages > pinned.free_pages + 200 * 10);
    CHECK_EQ(rel.oldest_reader, 0);
    for (int i = 0; i < 20; i++) churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info warm2 = info(env);
    for (int i = 0; i < 500; i++) churn(env, tr, KEYS, VSIZE, round++);
    struct cs_env_info end2 = info(env);
    print("500 more", end2);
    CHECK(end2.next_pgno <= warm2.next_pgno + 8);
    CHECK_EQ(end2.file_size, warm2.file_size);
    CHECK(end2.free_pages > 200 * 10); /* the big free area is still free */

    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_EQ(rep.pages_total, end2.next_pgno);
    CHECK_EQ(rep.pages_free + rep.pages_pending, end2.free_pages + end2.pending_pages);
    CHECK_OK(cs_env_close(env));
    return test_report();
}
