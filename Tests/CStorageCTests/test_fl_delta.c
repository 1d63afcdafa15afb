/* test_fl_delta.c — the free list's delta in the meta (format.h, FREE-LIST
 * DELTA): small commits on a fragmented file leave the free-list run alone
 * (counted at the I/O hooks), the list they describe survives reopen and a
 * second env handle, a held reader's pages are not reused while commits
 * keep deltas, and cs_check reports a delta that loses or double-uses a
 * page or whose cursor runs past the base. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "dbfile.h"
#include "test.h"

enum { N = 20000, PS = 4096 };

/* What the commits handed to the write hook: bytes, and the pages of
 * free-list runs among them. */
typedef struct io_count {
    uint64_t bytes, run_writes;
} io_count;

static int count_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    io_count *c = ctx;
    c->bytes += len;
    const uint8_t *p = buf;
    if (len % PS == 0 && off % PS == 0)
        for (size_t at = 0; at < len;) {
            cs_page_hdr h;
            memcpy(&h, p + at, sizeof h);
            if (h.type == PT_FREELIST) c->run_writes++;
            at += (size_t)((h.type == PT_FREELIST || h.type == PT_OVERFLOW) && h.npages ? h.npages : 1) * PS;
        }
    return test_pwrite_all(fd, buf, len, off);
}

static int count_sync(void *ctx, int fd)
{
    (void)ctx;
    return fdatasync(fd) ? errno : 0;
}

static int count_grow(void *ctx, int fd, uint64_t size)
{
    (void)ctx;
    return ftruncate(fd, (off_t)size) ? errno : 0;
}

static cs_env *open_counted(const char *path, io_count *c)
{
    static cs_io_hooks hooks = {.write = count_write, .sync = count_sync, .grow = count_grow};
    hooks.ctx = c;
    cs_options o = {0};
    o.durability = CS_DURABLE_FULL;
    o.io = &hooks;
    cs_env *env;
    REQUIRE_OK(cs_env_open(path, &o, &env));
    return env;
}

static size_t key_of(unsigned i, char *k) { return (size_t)snprintf(k, 16, "k%08u", i); }

/* fill deletes runs of 100 keys (whole leaves: scattered free pages). */
static bool deleted(unsigned i) { return (i / 100) % 3 == 0; }

static void put_one(cs_env *env, unsigned i, unsigned gen)
{
    char k[16], v[100];
    cs_txn *t;
    cs_tree tr;
    size_t kl = key_of(i, k);
    memset(v, 'a' + (int)(gen % 26), sizeof v);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
    CHECK_OK(cs_put(t, tr, V(k, kl), V(v, sizeof v), 0));
    REQUIRE_OK(cs_txn_commit(t));
}

/* N entries, then a third of them deleted in runs of 100 keys, in four
 * commits: a fragmented free list (many extents) in a run of its own. */
static void fill(const char *path)
{
    cs_env *env;
    REQUIRE_OK(test_open(path, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    cs_txn *t;
    char k[16], v[100];
    memset(v, 'a', sizeof v);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (unsigned i = 0; i < N; i++) CHECK_OK(cs_put(t, tr, V(k, key_of((unsigned)((i * 7919ull) % N), k)), V(v, sizeof v), 0));
    REQUIRE_OK(cs_txn_commit(t));
    for (unsigned c = 0; c < 4; c++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (unsigned i = 0; i < N; i++)
            if (deleted(i) && (i / 300) % 4 == c) CHECK_OK(cs_del(t, tr, V(k, key_of(i, k))));
        REQUIRE_OK(cs_txn_commit(t));
    }
    REQUIRE_OK(cs_env_close(env));
}

static cs_env_info info_of(cs_env *env)
{
    cs_env_info i;
    REQUIRE_OK(cs_env_get_info(env, &i));
    return i;
}

static void check_clean(cs_env *env)
{
    cs_check_report r;
    CHECK_OK(cs_check(env, &r));
    CHECK_EQ(r.errors, 0);
}

/* Every key reads back with the value of generation gen[i], or is absent
 * if fill deleted it and no commit put it back. */
static void verify(cs_env *env, const uint8_t *gen)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
    unsigned bad = 0;
    char k[16];
    for (unsigned i = 0; i < N; i++) {
        cs_val v;
        int rc = cs_get(t, tr, V(k, key_of(i, k)), &v);
        if (deleted(i) && gen[i] == 0) bad += rc != CS_NOTFOUND;
        else bad += rc != CS_OK || v.size != 100 || ((const char *)v.data)[0] != 'a' + gen[i] % 26;
    }
    CHECK_EQ(bad, 0);
    cs_txn_abort(t);
}

static void test_small_commits(void)
{
    tpath p = test_path("small.db");
    fill(p.s);
    static uint8_t gen[N];
    io_count c = {0};
    cs_env *env = open_counted(p.s, &c);
    cs_env_info before = info_of(env);
    CHECK(before.free_pages > 200);
    /* The first commit upgrades nothing (the file is current) and keeps
     * the run as the base: one-put commits write the path, the catalog
     * leaf and the meta only, until a delta outgrows the meta. */
    enum { COMMITS = 300 };
    for (unsigned j = 0; j < COMMITS; j++) {
        unsigned i = (j * 4001u) % N;
        gen[i] = (uint8_t)(1 + j % 200);
        put_one(env, i, gen[i]);
    }
    printf("one-put commits: %.1f KiB written per commit, %llu free-list runs in %u commits\n",
           (double)c.bytes / COMMITS / 1024, (unsigned long long)c.run_writes, COMMITS);
    CHECK(c.run_writes * 10 <= COMMITS);
    CHECK(c.bytes / COMMITS < 5 * PS);
    check_clean(env);
    verify(env, gen);
    cs_env_info mid = info_of(env);
    /* Freed pages are reused: the file does not grow by a path per commit. */
    CHECK(mid.next_pgno <= before.next_pgno + 8);
    REQUIRE_OK(cs_env_close(env));

    /* Reopened: base + delta give the same free space, and commits go on. */
    env = open_counted(p.s, &c);
    cs_env_info again = info_of(env);
    CHECK_EQ(again.free_pages + again.pending_pages, mid.free_pages + mid.pending_pages);
    check_clean(env);
    verify(env, gen);
    for (unsigned j = 0; j < 50; j++) put_one(env, j, gen[j] = 7);
    check_clean(env);
    verify(env, gen);
    REQUIRE_OK(cs_env_close(env));
}

/* A reader's snapshot stays whole while commits keep deltas (its pages are
 * pending, not reused), and its pages come back once it ends. */
static void test_reader_pin(void)
{
    tpath p = test_path("pin.db");
    fill(p.s);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_txn *r;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r));
    REQUIRE_OK(cs_tree_open(r, "t", 0, &tr));
    /* Zero-copy pointers into the snapshot: a reused page would change them. */
    enum { SEEN = 64 };
    const uint8_t *vals[SEEN];
    char k[16];
    for (unsigned i = 0; i < SEEN; i++) {
        cs_val v;
        REQUIRE_OK(cs_get(r, tr, V(k, key_of(i * 300 + 150, k)), &v));
        vals[i] = v.data;
    }
    for (unsigned j = 0; j < 200; j++) put_one(env, (j * 150 + 150) % N, 3);
    unsigned changed = 0;
    for (unsigned i = 0; i < SEEN; i++) changed += vals[i][0] != 'a' || vals[i][99] != 'a';
    CHECK_EQ(changed, 0);
    cs_env_info held = info_of(env);
    CHECK(held.pending_pages > 200);
    check_clean(env);
    cs_txn_abort(r);
    for (unsigned j = 0; j < 200; j++) put_one(env, (j * 150 + 151) % N, 4);
    cs_env_info after = info_of(env);
    CHECK(after.next_pgno <= held.next_pgno + 8);
    CHECK(after.pending_pages < held.pending_pages);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
}

/* Two env handles on one file take turns writing: each loads the other's
 * delta from the lock file (its cache is stale). */
static void test_two_handles(void)
{
    tpath p = test_path("two.db");
    fill(p.s);
    static uint8_t gen[N];
    cs_env *a, *b;
    REQUIRE_OK(test_open(p.s, 0, &a));
    REQUIRE_OK(test_open(p.s, 0, &b));
    for (unsigned j = 0; j < 120; j++) {
        unsigned i = (j * 4001u + 3) % N;
        gen[i] = (uint8_t)(1 + j % 50);
        put_one(j % 3 ? a : b, i, gen[i]);
        if (j % 40 == 39) check_clean(j % 2 ? a : b);
    }
    verify(a, gen);
    verify(b, gen);
    REQUIRE_OK(cs_env_close(a));
    REQUIRE_OK(cs_env_close(b));
    REQUIRE_OK(test_open(p.s, 0, &a));
    check_clean(a);
    REQUIRE_OK(cs_env_close(a));
}

/* The newest meta and its delta, read from the closed file. */
typedef struct delta_at {
    int fd;
    uint64_t slot;
    uint8_t page[PS];
    cs_meta m;
    uint8_t *d; /* the delta in page */
} delta_at;

static void delta_open(const char *path, delta_at *x)
{
    x->fd = open(path, O_RDWR);
    REQUIRE(x->fd >= 0);
    int s = dbfile_newest_meta(x->fd, &x->m);
    REQUIRE(s >= 0);
    x->slot = (uint64_t)s;
    REQUIRE(dbfile_read(x->fd, PS, x->slot, x->page, 1) == 0);
    x->d = x->page + sizeof x->m + (size_t)x->m.hdr.nkeys * sizeof(cs_commit_unit);
}

/* A copy of `src` whose newest meta's delta `damage` changed; cs_check's
 * first error must name `want`. */
static void damaged(const char *src, const char *name, void (*damage)(delta_at *), const char *want)
{
    tpath p = test_path(name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, p.s);
    REQUIRE(system(cmd) == 0);
    delta_at x;
    delta_open(p.s, &x);
    REQUIRE(x.m.version == CS_FORMAT_VERSION && x.m.hdr.upper >= 24);
    damage(&x);
    memcpy(x.page, &x.m, sizeof x.m);
    REQUIRE(dbfile_reseal(x.fd, PS, x.slot, x.page, 1) == 0);
    close(x.fd);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_check_report r;
    CHECK_RC(cs_check(env, &r), CS_ECORRUPT);
    CHECK(r.errors > 0 && strstr(r.first_error, want) != NULL);
    if (!strstr(r.first_error, want)) printf("%s: %s\n", name, r.first_error);
    REQUIRE_OK(cs_env_close(env));
}

static void no_delta(delta_at *x) { x->m.hdr.upper = 0; } /* its pages are lost */
static void cursor_past(delta_at *x)
{
    uint64_t c = dbfile_rd64(x->d) + 1000000;
    memcpy(x->d, &c, 8);
}
static void cursor_back(delta_at *x)
{
    /* One page of the base's sequence counted free again although a
     * commit since has used it (or it is both in the delta and the base). */
    uint64_t c = dbfile_rd64(x->d);
    REQUIRE(c > 0);
    c--;
    memcpy(x->d, &c, 8);
}

static void test_check_delta(void)
{
    tpath p = test_path("chk.db");
    fill(p.s);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    for (unsigned j = 0; j < 40; j++) put_one(env, (j * 4001u) % N, 2);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
    damaged(p.s, "nodelta.db", no_delta, "I6 page accounting");
    damaged(p.s, "past.db", cursor_past, "I11 free list");
    damaged(p.s, "back.db", cursor_back, "I6 page accounting");
}

int main(void)
{
    test_small_commits();
    test_reader_pin();
    test_two_handles();
    test_check_delta();
    return test_report();
}
