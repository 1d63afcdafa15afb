/*
 * regress.c — one regression test per engine bug the reliability harness
 * found (the fuzz finds also have corpus entries in corpus/file/regress-*).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dbfile.h"
#include "internal.h"
#include "rel.h"

static const char *dir;
static long cases;

#define EXPECT(c, ...) do { if (!(c)) rel_fail(__VA_ARGS__); } while (0)

/* A database with tree "t" holding n small keys. Written with the classic
 * two-flush commit: a single-flush meta lists the CRC of every page it
 * wrote, so a page damaged after the commit would make open fall back to
 * the previous meta instead of reaching the damaged page these bugs need. */
static void make_db(const char *path, int n)
{
    rel_rm_db(path);
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    cs_options o = {.flags = CS_ENV_TWO_FLUSH};
    if (cs_env_open(path, &o, &env) || cs_txn_begin(env, 0, &t) || cs_tree_open(t, "t", CS_CREATE, &tr)) abort();
    char k[16];
    for (int i = 0; i < n; i++) {
        int kl = snprintf(k, sizeof k, "k%05d", i);
        if (cs_put(t, tr, (cs_val){k, (size_t)kl}, (cs_val){k, (size_t)kl}, 0)) abort();
    }
    if (cs_txn_commit(t) || cs_env_close(env)) abort();
}

/* Reads the root page of tree "t" (the catalog's first entry) into pg and
 * returns its number. */
static uint64_t read_t_root(int fd, uint8_t pg[4096])
{
    uint64_t root = dbfile_first_tree_root(fd, pg);
    if (!root) abort();
    return root;
}

/* Writes page pgno back with a valid checksum (damage the harness meant). */
static void reseal_page(int fd, uint8_t pg[4096], uint64_t pgno)
{
    if (dbfile_reseal(fd, 4096, pgno, pg, 1)) abort();
}

/* Bug 1 (env.c read_meta): a power loss during creation left a valid meta
 * page 0 of the empty database in a 1536-byte file; open failed forever
 * with "truncated". It must be created again. */
static void creation_cut_by_power_loss(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "cut.db");
    make_db(path, 0);
    rel_rm_db(path);
    cs_env *env;
    if (cs_env_open(path, NULL, &env) || cs_env_close(env)) abort(); /* empty database */
    if (truncate(path, 1536)) abort();
    int rc = cs_env_open(path, NULL, &env);
    EXPECT(rc == CS_OK, "creation cut by power loss: open: %s (%s)", cs_strerror(rc), cs_last_error_detail());
    if (rc == CS_OK) {
        cs_txn *t;
        cs_tree tr;
        char why[300];
        rc = cs_txn_begin(env, 0, &t);
        if (rc == CS_OK && (rc = cs_tree_open(t, "t", CS_CREATE, &tr)) == CS_OK)
            rc = cs_put(t, tr, (cs_val){"a", 1}, (cs_val){"b", 1}, 0);
        if (rc == CS_OK) rc = cs_txn_commit(t);
        EXPECT(rc == CS_OK, "creation cut by power loss: commit: %s", cs_strerror(rc));
        EXPECT(rel_check(env, why, sizeof why) == 0, "creation cut by power loss: %s", why);
        cs_env_close(env);
    }
    cases++;
}

/* Bug 2 (btree.c touch_path): a damaged leaf whose header txnid equals the
 * txnid of the next write txn was taken for the writer's own dirty copy and
 * modified in place — in the read-only map: SIGSEGV. It must be copied. */
static void page_claims_writer_txnid(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "claim.db");
    make_db(path, 20); /* one leaf: the root */
    int fd = open(path, O_RDWR);
    cs_meta m;
    dbfile_newest_meta(fd, &m);
    uint8_t pg[4096];
    uint64_t root = read_t_root(fd, pg);
    PHW(pg)->txnid = m.txnid + 1; /* what the next writer will use */
    reseal_page(fd, pg, root);
    close(fd);
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, 0, &t) || cs_tree_open(t, "t", 0, &tr)) abort();
    int rc = cs_del(t, tr, (cs_val){"k00003", 6}); /* crashed here */
    EXPECT(rc == CS_OK || rc == CS_ECORRUPT, "page claiming the writer's txnid: del: %s", cs_strerror(rc));
    cs_txn_abort(t);
    cs_env_close(env);
    cases++;
}

/* Bug 3 (env.c read_meta): next_pgno * page_size overflowed for a damaged
 * meta with a huge next_pgno, so the truncation check passed and cs_check
 * tried to allocate a bitmap of 2^53 bytes. Open must say CS_ECORRUPT. */
static void huge_next_pgno(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "huge.db");
    make_db(path, 5);
    int fd = open(path, O_RDWR);
    cs_meta m;
    int slot = dbfile_newest_meta(fd, &m);
    m.next_pgno = (1ull << 52) + 2; /* * 4096 wraps to 8192 */
    meta_seal(&m);
    if (pwrite(fd, &m, sizeof m, (off_t)slot * 4096) != (ssize_t)sizeof m) abort();
    close(fd);
    cs_env *env;
    int rc = cs_env_open(path, NULL, &env);
    EXPECT(rc == CS_ECORRUPT, "huge next_pgno: open gave %s, want CS_ECORRUPT", cs_strerror(rc));
    if (rc == CS_OK) cs_env_close(env);
    cases++;
}

/* Bug 6 (btree.c branch_child): descents along a tree's edge (cursor
 * steps, diffs) read a branch cell's child without checking that the slot
 * points inside the page. A damaged slot in a page the write txn had
 * copied to the heap read past the copy (found by fuzz_file as a
 * heap-buffer-overflow in cs_tree_diff). Now such a cell reads as child 0,
 * which loading reports as damage. */
static int count_change(void *ctx, cs_diff_kind kind, cs_val key, cs_val old_val, cs_val new_val)
{
    (void)kind, (void)key, (void)old_val, (void)new_val;
    ++*(int *)ctx;
    return 0;
}

static void branch_cell_outside_page(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "branch.db");
    make_db(path, 2000); /* a root branch over ~10 leaves */
    int fd = open(path, O_RDWR);
    uint8_t pg[4096];
    uint64_t root = read_t_root(fd, pg);
    unsigned n = node_n(pg);
    EXPECT(PH(pg)->type == PT_BRANCH && n >= 3, "branch regression: root is not a branch of 3+ children");
    wr16(pg + PAGE_HDR + 2 * (n - 1), 4096 - 4); /* the last child's cell: 4 bytes before the page end */
    reseal_page(fd, pg, root);
    close(fd);
    cs_env *env;
    cs_txn *r, *t;
    cs_tree tr;
    cs_cursor *c;
    if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, CS_TXN_RDONLY, &r) || cs_txn_begin(env, 0, &t) ||
        cs_tree_open(t, "t", 0, &tr))
        abort();
    /* A put near the start copies the root to the heap without probing the damaged cell. */
    int rc = cs_put(t, tr, (cs_val){"k00000a", 7}, (cs_val){"v", 1}, 0);
    EXPECT(rc == CS_OK, "branch regression: put gave %s", cs_strerror(rc));
    cs_val k, v;
    int steps = 0;
    if (cs_cursor_open(t, tr, &c) == CS_OK) {
        for (rc = cs_cursor_get(c, &k, &v, CS_FIRST); rc == CS_OK && steps < 5000; rc = cs_cursor_get(c, &k, &v, CS_NEXT))
            steps++;
        EXPECT(rc == CS_ECORRUPT, "branch regression: stepping into the damaged cell gave %s", cs_strerror(rc));
        rc = cs_cursor_get(c, &k, &v, CS_LAST);
        EXPECT(rc == CS_ECORRUPT, "branch regression: CS_LAST gave %s", cs_strerror(rc));
        cs_cursor_close(c);
    }
    int changes = 0;
    rc = cs_tree_diff(r, t, tr, count_change, &changes);
    EXPECT(rc == CS_ECORRUPT, "branch regression: diff gave %s", cs_strerror(rc));
    cs_txn_abort(t);
    cs_txn_abort(r);
    cs_env_close(env);
    cases++;
}

/* Hooks for bug 4: a durable shadow of the file. A failed flush drops the
 * pending writes, as Linux may after a writeback error ("fsyncgate"): a
 * later flush then succeeds without them ever reaching the disk. */
static struct { uint8_t *dur; size_t cap; struct { uint64_t off; size_t len; uint8_t *d; } p[4096]; size_t n; bool fail; } G;
static int g_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    (void)ctx;
    if (G.n < 4096) {
        G.p[G.n].off = off, G.p[G.n].len = len, G.p[G.n].d = malloc(len);
        memcpy(G.p[G.n++].d, buf, len);
    }
    return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : EIO;
}
static int g_sync(void *ctx, int fd)
{
    (void)ctx, (void)fd;
    for (size_t i = 0; i < G.n; i++) {
        if (!G.fail) {
            if (G.p[i].off + G.p[i].len > G.cap) {
                size_t cap = (size_t)(G.p[i].off + G.p[i].len) * 2;
                G.dur = realloc(G.dur, cap);
                memset(G.dur + G.cap, 0, cap - G.cap);
                G.cap = cap;
            }
            memcpy(G.dur + G.p[i].off, G.p[i].d, G.p[i].len);
        }
        free(G.p[i].d);
    }
    G.n = 0;
    return G.fail ? EIO : 0;
}

/* Bug 4 (commit.c commit_flush_deferred, then txn.c env_flush_deferred): after a failed flush the env is in
 * panic (the kernel may have dropped the pages), but cs_env_sync and
 * cs_env_close still flushed again and wrote the meta of deferred commits
 * whose data never reached the disk: after a power loss the file's newest
 * meta pointed at pages never written. A panicked env must write no meta. */
static void no_meta_after_failed_flush(void)
{
    char path[600], img[600], why[300];
    rel_path(path, sizeof path, dir, "panic.db");
    rel_path(img, sizeof img, dir, "panic-image.db");
    rel_rm_db(path);
    cs_io_hooks io = {.write = g_write, .sync = g_sync};
    cs_options o = {.io = &io};
    cs_env *env;
    cs_txn *t;
    if (cs_env_open(path, &o, &env)) abort();
    for (uint64_t s = 1; s <= 3; s++) { /* durable commits 1..3 */
        if (cs_txn_begin(env, 0, &t) || wl_apply(t, s) || cs_txn_commit(t)) abort();
    }
    if (cs_txn_begin(env, 0, &t) || wl_apply(t, 4) || cs_txn_commit_deferred(t)) abort();
    G.fail = true;
    int rc = cs_env_sync(env); /* fails: commit 4's pages are dropped */
    G.fail = false;
    EXPECT(rc == CS_EIO, "failed flush: cs_env_sync gave %s, want CS_EIO", cs_strerror(rc));
    rc = cs_env_sync(env);
    EXPECT(rc != CS_OK, "cs_env_sync after a failed flush succeeded: must report the panic");
    cs_env_close(env); /* must not write commit 4's meta either */
    /* Power loss now: reboot from the durable shadow. */
    int fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, G.dur, G.cap, 0) != (ssize_t)G.cap) abort();
    close(fd);
    uint64_t k = 0;
    rc = cs_env_open(img, NULL, &env);
    EXPECT(rc == CS_OK, "after a failed flush and power loss: open: %s", cs_strerror(rc));
    if (rc == CS_OK) {
        EXPECT(rel_check(env, why, sizeof why) == 0, "after a failed flush and power loss: %s", why);
        EXPECT(wl_verify(env, &k, why, sizeof why) == 0 && k == 3, "after a failed flush and power loss: seq %llu (%s)",
               (unsigned long long)k, why);
        cs_env_close(env);
    }
    free(G.dur);
    cases++;
}

/* In a child with a 10 s alarm: open, begin a txn of this kind, verify
 * commit 1, close; true if all of it finished. */
static bool in_child_ok(const char *path, unsigned flags)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        cs_env *env;
        cs_txn *t;
        char why[300];
        uint64_t k = 0;
        if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, flags, &t)) _exit(2);
        cs_txn_abort(t);
        if (wl_verify(env, &k, why, sizeof why) || k != 1) _exit(3);
        _exit(cs_env_close(env) == CS_OK ? 0 : 4);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Bug 5 (lock.c lock_publish_meta): the meta in the lock file sat behind an
 * odd/even sequence lock; a writer killed inside publish (between its two
 * stores) left the sequence odd, and every later read txn, the next
 * writer's resync and cs_env_close spun forever while any process kept the
 * env open. The meta is now double-buffered: a writer dies here after
 * scribbling over the copy it was filling, holding the writer mutex, and
 * readers and the next writer must go on with commit 1. */
static void writer_killed_inside_publish(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "publish.db");
    rel_rm_db(path);
    cs_env *env;
    cs_txn *t;
    if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, 0, &t) || wl_apply(t, 1) || cs_txn_commit(t)) abort();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        cs_env *e;
        if (cs_env_open(path, NULL, &e) || cs_txn_begin(e, 0, &t)) _exit(2);
        cs_lock_hdr *h = e->lock.hdr;
        memset((void *)&h->meta[(atomic_load(&h->meta_seq) + 1) & 1], 0xab, 64); /* mid-publish */
        raise(SIGKILL);
    }
    waitpid(pid, NULL, 0);
    EXPECT(in_child_ok(path, CS_TXN_RDONLY), "writer killed inside publish: a reader hangs or fails");
    EXPECT(in_child_ok(path, 0), "writer killed inside publish: the next writer hangs or fails");
    cs_env_close(env);
    cases++;
}

int main(void)
{
    dir = rel_mkdir("regress");
    creation_cut_by_power_loss();
    page_claims_writer_txnid();
    huge_next_pgno();
    no_meta_after_failed_flush();
    writer_killed_inside_publish();
    branch_cell_outside_page();
    if (rel_failures == 0) rel_rmdir(dir);
    return rel_report("regress", cases);
}
