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

/* Scattered deletes fragment the free space into many extents: the free
 * list grows past one page, survives reopen, and is reused correctly. */
static void test_fragmented(void) {
    tpath p = test_path("frag.db");
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    char k[32], v[200];
    enum { N = 60000 };
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "frag", CS_CREATE, &tr));
    for (int i = 0; i < N; i++) {
        snprintf(k, sizeof k, "%08d", (int)((uint64_t)i * 7919 % N));
        memset(v, 'a' + i % 26, sizeof v);
        CHECK_OK(cs_put(t, tr, VS(k), V(v, 40 + (size_t)(i % 150)), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    /* delete runs of keys scattered over the key space, one commit each */
    uint64_t rng = 5;
    for (int c = 0; c < 60; c++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        int start = (int)rng_below(&rng, N - 600);
        for (int i = start; i < start + 500; i++) {
            snprintf(k, sizeof k, "%08d", i);
            int r = cs_del(t, tr, VS(k));
            CHECK(r == CS_OK || r == CS_NOTFOUND);
        }
        REQUIRE_OK(cs_txn_commit(t));
    }
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    printf("fragmented: %llu free + %llu pending pages, free list run %llu pages\n",
           (unsigned long long)rep.pages_free, (unsigned long long)rep.pages_pending,
           (unsigned long long)rep.pages_freelist);
    CHECK(rep.pages_freelist >= 2);
    uint64_t entries = rep.entries;
    CHECK_OK(cs_env_close(env));
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &t)); /* handles do not outlive the env */
    REQUIRE_OK(cs_tree_open(t, "frag", 0, &tr));
    REQUIRE_OK(cs_txn_commit(t));
    struct cs_env_info before = info(env);
    for (uint64_t r = 0; r < 30; r++) churn(env, tr, 3000, 150, r); /* reuses the holes */
    struct cs_env_info after = info(env);
    CHECK(after.free_pages < before.free_pages);
    CHECK_EQ(after.next_pgno, before.next_pgno);
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_EQ(rep.entries, entries + 3000);
    CHECK_OK(cs_env_close(env));
}

/* The room the file is grown by ahead of its pages is allocated disk that
 * its size reports: it stays within a 32nd of the file (64 KiB when small),
 * so a 5 MiB file does not carry a 1 MiB tail; the file stays whole pages. */
static void test_growth_room(void) {
    tpath p = test_path("room.db");
    cs_env *env;
    cs_txn *t;
    char k[32], v[100];
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "room");
    uint64_t worst = 0;
    for (int c = 0, i = 0; c < 40; c++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (int end = i + 1000; i < end; i++) {
            snprintf(k, sizeof k, "%08d", i);
            memset(v, 'a' + i % 26, sizeof v);
            CHECK_OK(cs_put(t, tr, VS(k), V(v, sizeof v), 0));
        }
        REQUIRE_OK(cs_txn_commit(t));
        struct cs_env_info in = info(env);
        uint64_t used = in.next_pgno * in.page_size, room = in.file_size - used;
        uint64_t bound = in.file_size / 32 > (64u << 10) ? in.file_size / 32 : (64u << 10);
        CHECK(in.file_size >= used);
        CHECK_EQ(in.file_size % in.page_size, 0);
        CHECK(room <= bound);
        if (room > worst) worst = room;
    }
    print("growth room", info(env));
    printf("growth room: at most %llu KiB past the last page\n", (unsigned long long)(worst >> 10));
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    tpath p = test_path("free.db");
    cs_env *env;
    cs_txn *r;
    cs_tree tr;
    REQUIRE_OK(test_open(p.s, 0, &env));
    tr = test_open_tree(env, "f");
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
    test_fragmented();
    test_growth_room();
    return test_report();
}
