/* test_shrink.c — auto-shrink (cs_options.auto_shrink, format.h I13): after
 * large deletes, ordinary commits give the end of the file back to the OS,
 * never while a reader (of this or another process) holds a snapshot that
 * reaches those pages; the checker stays clean after every step. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

enum { VSIZE = 100 };

static int open_shrink(const char *path, cs_durability dur, cs_env **env)
{
    cs_options o = {0};
    o.durability = dur;
    o.auto_shrink = 1;
    return cs_env_open(path, &o, env);
}

static void key_of(char *k, int i) { snprintf(k, 16, "%09d", i); }
static void val_of(char *v, int i) { test_fill(v, VSIZE, (uint64_t)i); }

static void fill(cs_env *env, cs_tree tr, int n)
{
    char k[16], v[VSIZE];
    cs_txn *t;
    for (int base = 0; base < n; base += 20000) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (int i = base; i < base + 20000 && i < n; i++) {
            key_of(k, i);
            val_of(v, i);
            CHECK_OK(cs_put(t, tr, VS(k), V(v, VSIZE), 0));
        }
        REQUIRE_OK(cs_txn_commit(t));
    }
}

static void del_range(cs_env *env, cs_tree tr, int from, int to, int step)
{
    char k[16];
    cs_txn *t;
    for (int base = from; base < to; base += 20000) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (int i = base; i < base + 20000 && i < to; i++) {
            if (step > 1 && i % step == 0) continue;
            key_of(k, i);
            CHECK_OK(cs_del(t, tr, VS(k)));
        }
        REQUIRE_OK(cs_txn_commit(t));
    }
}

/* Every key in [0, n) with i % keep == 0 (keep 1: all) reads back intact. */
static void verify(cs_txn *t, cs_tree tr, int n, int keep)
{
    char k[16], v[VSIZE];
    long bad = 0;
    for (int i = 0; i < n; i += keep) {
        cs_val got;
        key_of(k, i);
        val_of(v, i);
        if (cs_get(t, tr, VS(k), &got) != CS_OK || got.size != VSIZE || memcmp(got.data, v, VSIZE)) bad++;
    }
    CHECK_EQ(bad, 0);
}

static void check_clean(cs_env *env)
{
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    if (rep.errors) printf("check: %s\n", rep.first_error);
}

static void small_commits(cs_env *env, cs_tree tr, int n, int key0)
{
    char k[16], v[VSIZE];
    for (int c = 0; c < n; c++) {
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        key_of(k, key0 + c);
        val_of(v, key0 + c);
        CHECK_OK(cs_put(t, tr, VS(k), V(v, VSIZE), 0));
        REQUIRE_OK(cs_txn_commit(t));
    }
}

/* Keys appended in order fill pages in order: deleting the upper 90% frees
 * the end of the file. A reader holding the old snapshot keeps the file
 * whole (and reads it intact); once it ends, a few commits cut the end. */
static void test_tail_truncation(cs_durability dur)
{
    enum { N = 100000 };
    tpath p = test_path(dur == CS_DURABLE_FULL ? "tail_full.db" : "tail.db");
    test_rm_db(p.s);
    cs_env *env;
    REQUIRE_OK(open_shrink(p.s, dur, &env));
    cs_tree tr = test_open_tree(env, "t");
    fill(env, tr, N);
    check_clean(env);
    long long full = test_file_size(p.s);

    cs_txn *old;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    del_range(env, tr, N / 10, N, 1);
    check_clean(env);
    small_commits(env, tr, 20, N + 1);
    check_clean(env);
    CHECK(test_file_size(p.s) >= full); /* the old snapshot reaches the end */
    verify(old, tr, N, 1);
    CHECK_OK(cs_txn_abort(old));

    small_commits(env, tr, 60, N + 100);
    check_clean(env);
    long long after = test_file_size(p.s);
    cs_env_info in;
    CHECK_OK(cs_env_get_info(env, &in));
    printf("next_pgno %llu free %llu pending %llu\n", (unsigned long long)in.next_pgno,
           (unsigned long long)in.free_pages, (unsigned long long)in.pending_pages);
    printf("tail (%s): %lld KiB full, %lld KiB after deleting 90%%\n", dur == CS_DURABLE_FULL ? "full" : "no-sync",
           full >> 10, after >> 10);
    CHECK(after * 10 < full * 3);
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    verify(old, tr, N / 10, 1);
    CHECK_OK(cs_txn_abort(old));
    /* grows again after shrinking, and survives reopen */
    fill(env, tr, N / 5);
    CHECK_OK(cs_env_close(env));
    REQUIRE_OK(open_shrink(p.s, dur, &env));
    check_clean(env);
    tr = test_open_tree(env, "t");
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    verify(old, tr, N / 5, 1);
    CHECK_OK(cs_txn_abort(old));
    CHECK_OK(cs_env_close(env));
}

/* The switch off: the file keeps its size. */
static void test_switch_off(void)
{
    enum { N = 60000 };
    tpath p = test_path("off.db");
    test_rm_db(p.s);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    fill(env, tr, N);
    long long full = test_file_size(p.s);
    del_range(env, tr, N / 10, N, 1);
    small_commits(env, tr, 10, N + 1);
    CHECK(test_file_size(p.s) >= full);
    check_clean(env);
    CHECK_OK(cs_env_close(env));
    cs_options o = {0};
    o.auto_shrink = 2;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
}

/* A reader in another process holds the old snapshot while this one deletes
 * and commits: it must read every old entry (a page cut from under its
 * mapping would kill it with SIGBUS), then the file shrinks. */
static void test_other_process_reader(void)
{
    enum { N = 100000 };
    tpath p = test_path("mp.db");
    test_rm_db(p.s);
    cs_env *env;
    REQUIRE_OK(open_shrink(p.s, CS_DURABLE_NO_SYNC, &env));
    cs_tree tr = test_open_tree(env, "t");
    fill(env, tr, N);
    long long full = test_file_size(p.s);
    int up[2], go[2];
    REQUIRE(pipe(up) == 0 && pipe(go) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cs_env *ce;
        cs_txn *t;
        char c = 0;
        if (open_shrink(p.s, CS_DURABLE_NO_SYNC, &ce) || cs_txn_begin(ce, CS_TXN_RDONLY, &t)) _exit(2);
        cs_tree ct;
        if (cs_tree_open(t, "t", 0, &ct)) _exit(3);
        test_failed = 0;
        if (write(up[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(4);
        verify(t, ct, N, 1);
        cs_txn_abort(t);
        cs_env_close(ce);
        _exit(test_failed ? 1 : 0);
    }
    char c;
    REQUIRE(read(up[0], &c, 1) == 1);
    del_range(env, tr, N / 10, N, 1);
    small_commits(env, tr, 20, N + 1);
    check_clean(env);
    CHECK(test_file_size(p.s) >= full);
    REQUIRE(write(go[1], &c, 1) == 1);
    int st;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) printf("child: exited %d signal %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    small_commits(env, tr, 60, N + 100);
    check_clean(env);
    CHECK(test_file_size(p.s) * 10 < full * 3);
    close(up[0]), close(up[1]), close(go[0]), close(go[1]);
    CHECK_OK(cs_env_close(env));
}

/* Scattered deletes (every key but each tenth) with some overflow values:
 * small commits move live pages and runs down and pack part-empty leaves,
 * while a reader holding the previous version reads it whole after every
 * commit and the checker stays clean; the file ends near a fresh one's. */
static void test_scattered(void)
{
    enum { N = 60000, BIG = 5000 };
    tpath p = test_path("scatter.db"), f = test_path("fresh.db");
    test_rm_db(p.s), test_rm_db(f.s);
    cs_env *env, *fe;
    REQUIRE_OK(open_shrink(p.s, CS_DURABLE_NO_SYNC, &env));
    cs_tree tr = test_open_tree(env, "t"), big = test_open_tree(env, "big");
    fill(env, tr, N);
    static char bv[BIG];
    char k[16];
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < 400; i++) {
        key_of(k, i);
        test_fill(bv, BIG, (uint64_t)i + 7);
        CHECK_OK(cs_put(t, big, VS(k), V(bv, BIG), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    cs_txn *reader;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &reader));
    del_range(env, tr, 0, N, 10);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < 400; i++)
        if (i % 10) {
            key_of(k, i);
            CHECK_OK(cs_del(t, big, VS(k)));
        }
    REQUIRE_OK(cs_txn_commit(t));
    verify(reader, tr, N, 1);
    long long before = test_file_size(p.s);
    for (int c = 0; c < 150; c++) {
        CHECK_OK(cs_txn_reset(reader));
        CHECK_OK(cs_txn_renew(reader));
        small_commits(env, tr, 1, 10 * c + 5);
        if (c % 10 == 0) check_clean(env);
        verify(reader, tr, N, 10);
    }
    check_clean(env);
    CHECK_OK(cs_txn_abort(reader));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &reader));
    verify(reader, tr, N, 10);
    long bad = 0;
    for (int i = 0; i < 400; i += 10) {
        cs_val got;
        key_of(k, i);
        test_fill(bv, BIG, (uint64_t)i + 7);
        if (cs_get(reader, big, VS(k), &got) || got.size != BIG || memcmp(got.data, bv, BIG)) bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_OK(cs_txn_abort(reader));
    /* the same entries written fresh */
    REQUIRE_OK(open_shrink(f.s, CS_DURABLE_NO_SYNC, &fe));
    cs_tree ftr = test_open_tree(fe, "t"), fbig = test_open_tree(fe, "big");
    char v[VSIZE];
    REQUIRE_OK(cs_txn_begin(fe, 0, &t));
    for (int i = 0; i < N + 1500; i += 5) {
        if (!(i < N && i % 10 == 0) && !(i < 1500 && i % 10 == 5)) continue;
        key_of(k, i);
        val_of(v, i);
        CHECK_OK(cs_put(t, ftr, VS(k), V(v, VSIZE), 0));
    }
    for (int i = 0; i < 400; i += 10) {
        key_of(k, i);
        CHECK_OK(cs_put(t, fbig, VS(k), V(bv, BIG), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    cs_env_info a, b;
    CHECK_OK(cs_env_get_info(env, &a));
    CHECK_OK(cs_env_get_info(fe, &b));
    printf("scattered: %lld KiB after the deletes, %lld KiB after 150 commits (%llu pages; fresh %llu)\n",
           before >> 10, test_file_size(p.s) >> 10, (unsigned long long)a.next_pgno, (unsigned long long)b.next_pgno);
    CHECK(a.next_pgno * 10 <= b.next_pgno * 13);
    CHECK(test_file_size(p.s) * 3 < before);
    CHECK_OK(cs_env_close(fe));
    CHECK_OK(cs_env_close(env));
}

/* A writer that does not shrink (another open of the file, as another
 * process would be) must not trust its memory of the file's size after a
 * shrinking writer cut the file: a commit whose top pages it never writes
 * (allocated and freed in the same transaction) still needs the file to
 * reach its next_pgno, or the next open finds the file truncated. */
static void test_other_writer_after_cut(void)
{
    enum { N = 100000 };
    tpath p = test_path("two.db");
    test_rm_db(p.s);
    cs_env *a, *b;
    REQUIRE_OK(test_open(p.s, 0, &b));
    cs_tree tb = test_open_tree(b, "t");
    fill(b, tb, N);
    del_range(b, tb, N / 10, N, 1);
    REQUIRE_OK(open_shrink(p.s, CS_DURABLE_NO_SYNC, &a));
    cs_tree ta = test_open_tree(a, "t");
    small_commits(a, ta, 30, N + 1);
    long long cut = test_file_size(p.s);
    cs_txn *t;
    char k[16];
    static char big[3000];
    REQUIRE_OK(cs_txn_begin(b, 0, &t));
    for (int i = 0; i < 4000; i++) {
        key_of(k, 2 * N + i);
        CHECK_OK(cs_put(t, tb, VS(k), V(big, sizeof big), 0));
    }
    for (int i = 0; i < 4000; i++) {
        key_of(k, 2 * N + i);
        CHECK_OK(cs_del(t, tb, VS(k)));
    }
    key_of(k, 3 * N);
    CHECK_OK(cs_put(t, tb, VS(k), V(big, 10), 0));
    REQUIRE_OK(cs_txn_commit(t));
    cs_env_info in;
    CHECK_OK(cs_env_get_info(b, &in));
    printf("two writers: cut to %lld KiB, then next_pgno %llu pages, file %lld KiB\n", cut >> 10,
           (unsigned long long)in.next_pgno, test_file_size(p.s) >> 10);
    CHECK(test_file_size(p.s) >= (long long)(in.next_pgno * 4096));
    CHECK_OK(cs_env_close(a));
    CHECK_OK(cs_env_close(b));
    REQUIRE_OK(test_open(p.s, 0, &b));
    check_clean(b);
    CHECK_OK(cs_env_close(b));
}

/* Catalog pages near the end move too: many trees are created last (their
 * names fill several catalog leaves), then the data before them is deleted;
 * later commits change one tree only (C1 copies just its catalog path). */
static void test_catalog_moves(void)
{
    enum { N = 60000, TREES = 300 };
    tpath p = test_path("catalog.db");
    test_rm_db(p.s);
    cs_env *env;
    REQUIRE_OK(open_shrink(p.s, CS_DURABLE_NO_SYNC, &env));
    cs_tree tr = test_open_tree(env, "t");
    fill(env, tr, N);
    cs_txn *t;
    char name[160];
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < TREES; i++) {
        cs_tree x;
        snprintf(name, sizeof name, "tree-%04d-%0120d", i, i);
        CHECK_OK(cs_tree_open(t, name, CS_CREATE, &x));
    }
    REQUIRE_OK(cs_txn_commit(t));
    long long full = test_file_size(p.s);
    del_range(env, tr, 10, N, 1);
    small_commits(env, tr, 200, N + 1);
    check_clean(env);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.trees, TREES + 1);
    printf("catalog: %lld KiB full, %lld KiB after\n", full >> 10, test_file_size(p.s) >> 10);
    CHECK(test_file_size(p.s) * 3 < full);
    CHECK_OK(cs_env_close(env));
}

int main(void)
{
    test_catalog_moves();
    test_other_writer_after_cut();
    test_scattered();
    test_tail_truncation(CS_DURABLE_NO_SYNC);
    test_tail_truncation(CS_DURABLE_FULL);
    test_switch_off();
    test_other_process_reader();
    return test_report();
}
