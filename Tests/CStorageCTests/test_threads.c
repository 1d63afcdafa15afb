/* test_threads.c — reader threads verify that each snapshot is one
 * consistent generation and stays identical (including zero-copy pointers)
 * while a writer keeps committing and grows the file by a few hundred MiB
 * (so the map must grow under the readers). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload.h"

enum { READERS = 4, GENS = 120, BLOB = 2 << 20 };

static cs_env *g_env;
static cs_tree g_tr;
static _Atomic uint64_t g_gen;
static _Atomic int g_done;
static _Atomic long g_txns, g_spanning;

static void *reader(void *arg) {
    (void)arg;
    cs_txn *t = NULL;
    int64_t last = -2;
    for (long n = 0; !atomic_load(&g_done); n++) {
        if (t && n % 2) { /* alternate begin/abort with reset/renew */
            CHECK_OK(cs_txn_reset(t));
            CHECK_OK(cs_txn_renew(t));
        } else {
            if (t) CHECK_OK(cs_txn_abort(t));
            t = NULL;
            REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
        }
        int64_t g = inv_verify(t, g_tr);
        if (g == -1) break;
        CHECK(g >= last); /* snapshots never go back in time */
        last = g;
        if (g < 0) continue;
        /* keep zero-copy pointers, then hold the snapshot over a commit */
        cs_val meta, blob;
        char key[32], meta_copy[64];
        snprintf(key, sizeof key, "blob%09lld", (long long)g);
        CHECK_OK(cs_get(t, g_tr, VS("meta"), &meta));
        CHECK_OK(cs_get(t, g_tr, VS(key), &blob));
        REQUIRE(meta.size <= sizeof meta_copy);
        memcpy(meta_copy, meta.data, meta.size);
        uint64_t start = atomic_load(&g_gen);
        while (atomic_load(&g_gen) == start && !atomic_load(&g_done)) usleep(200);
        if (atomic_load(&g_gen) != start) atomic_fetch_add(&g_spanning, 1);
        CHECK(memcmp(meta.data, meta_copy, meta.size) == 0);
        char *want = malloc(blob.size);
        test_fill(want, blob.size, (uint64_t)g);
        CHECK(memcmp(blob.data, want, blob.size) == 0);
        free(want);
        CHECK_EQ(inv_verify(t, g_tr), g);
        atomic_fetch_add(&g_txns, 1);
    }
    if (t) CHECK_OK(cs_txn_abort(t));
    return NULL;
}

/* Meanwhile the checker, env info and reader check run concurrently with
 * the writer: each cs_check sees one snapshot and finds it clean. */
static _Atomic long g_checks;
static void *observer(void *arg) {
    (void)arg;
    while (!atomic_load(&g_done)) {
        struct cs_env_info info;
        CHECK_OK(cs_env_get_info(g_env, &info));
        CHECK(info.readers_used <= READERS + 1);
        uint32_t cleared = 9;
        CHECK_OK(cs_reader_check(g_env, &cleared));
        CHECK_EQ(cleared, 0);
        cs_check_report rep;
        memset(&rep, 0, sizeof rep);
        int r = cs_check(g_env, &rep);
        CHECK_OK(r);
        if (r) fprintf(stderr, "concurrent cs_check: %s\n", rep.first_error);
        atomic_fetch_add(&g_checks, 1);
        usleep(20000);
    }
    return NULL;
}

int main(void) {
    tpath p = test_path("threads.db");
    cs_txn *t;
    REQUIRE_OK(test_open(p.s, 0, &g_env));
    g_tr = test_open_tree(g_env, "inv");
    pthread_t th[READERS];
    for (int i = 0; i < READERS; i++) REQUIRE(pthread_create(&th[i], NULL, reader, NULL) == 0);
    pthread_t obs;
    REQUIRE(pthread_create(&obs, NULL, observer, NULL) == 0);
    double t0 = test_now();
    for (uint64_t gen = 1; gen <= GENS; gen++) {
        REQUIRE_OK(cs_txn_begin(g_env, 0, &t));
        CHECK_OK(inv_write(t, g_tr, gen, BLOB, 1));
        REQUIRE_OK(cs_txn_commit(t));
        atomic_store(&g_gen, gen);
        usleep(2000); /* let readers take snapshots of most generations */
    }
    atomic_store(&g_done, 1);
    for (int i = 0; i < READERS; i++) pthread_join(th[i], NULL);
    pthread_join(obs, NULL);
    struct cs_env_info info;
    CHECK_OK(cs_env_get_info(g_env, &info));
    printf("%d gens in %.1fs, %ld reader txns (%ld spanning a commit), %ld concurrent checks, "
           "file %llu MiB\n", GENS, test_now() - t0, atomic_load(&g_txns), atomic_load(&g_spanning),
           atomic_load(&g_checks),
           (unsigned long long)(info.file_size >> 20));
    CHECK(info.file_size >= (uint64_t)GENS * BLOB);
    CHECK(atomic_load(&g_spanning) > 0);
    CHECK_EQ(info.readers_used, 0);
    REQUIRE_OK(cs_txn_begin(g_env, CS_TXN_RDONLY, &t));
    CHECK_EQ(inv_verify(t, g_tr), GENS);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(g_env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(g_env));
    return test_report();
}
