/*
 * driver_cstorage.c — CStorage through the bench driver vtable.
 *
 * Settings: default page size (4 KiB), one named tree "bench".
 * CS_DURABLE_NO_SYNC for every database except fillsync and synccommit_*,
 * which use CS_DURABLE_FULL (the default: data and meta flushed before the
 * commit returns) with CS_ENV_LOG_SMALL, as RealmLite opens its files:
 * small commits flush a record to the redo log and fold every 64 commits
 * and at close. Writes and flushes go through I/O hooks that do what the
 * default ones do (pwrite, fdatasync) and count. Read transactions
 * are reused with cs_txn_reset/renew; scans reuse one cursor per session
 * via cs_cursor_renew.
 */
#include "bench.h"

#include <cstorage.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"

struct bench_db {
    cs_env *env;
    cs_tree tree;
    uint64_t hook_bytes, hook_flushes; /* what the I/O hooks saw */
    uint64_t pages[BENCH_PAGE_KINDS];  /* pages written, by kind */
    int log_fd, data_fd;               /* the descriptors, once told apart */
};

struct bench_sess {
    bench_db *db;
    cs_txn *txn;     /* the open transaction, or NULL               */
    cs_txn *rtxn;    /* reusable read transaction (reset when idle) */
    cs_cursor *cur;  /* cursor of rtxn, reused by scans             */
};

#define CHECK(call) do { int rc_ = (call); if (rc_ != CS_OK) \
    return bench_fail("cstorage: %s: %s (%s)", #call, cs_strerror(rc_), cs_last_error_detail()); } while (0)

static const char *c_describe(void)
{
    return "CStorage (this tree, -O2); CS_DURABLE_NO_SYNC except fillsync and synccommit_* (CS_DURABLE_FULL, "
           "CS_ENV_LOG_SMALL); 4 KiB pages";
}

/* The default I/O (pwrite, fdatasync), counted: the engine's own view of
 * what it wrote, which the durable-commit workloads compare with iocount's. */
/* The kinds of the pages in one write: each page's header says its type
 * and how many pages it spans (format.h); a meta is a 512-byte write. */
static void tally_pages(bench_db *db, const uint8_t *buf, size_t len)
{
    enum { PSIZE = 4096 };
    for (size_t at = 0; at + sizeof(cs_page_hdr) <= len;) {
        cs_page_hdr h;
        memcpy(&h, buf + at, sizeof h);
        static const int kind[] = {[PT_META] = BENCH_PAGE_META, [PT_BRANCH] = BENCH_PAGE_BRANCH,
                                   [PT_LEAF] = BENCH_PAGE_LEAF, [PT_OVERFLOW] = BENCH_PAGE_OVERFLOW,
                                   [PT_FREELIST] = BENCH_PAGE_FREELIST, [PT_LEAF6] = BENCH_PAGE_LEAF};
        /* Only overflow and free-list runs span pages: a compact leaf keeps
         * its prefix length where a run keeps its page count. */
        bool run = h.type == PT_FREELIST || h.type == PT_OVERFLOW;
        if (h.type >= 1 && h.type <= PT_LEAF6) db->pages[kind[h.type]] += run ? h.npages : 1;
        at += (size_t)(run && h.npages ? h.npages : 1) * PSIZE;
    }
}

/* The redo log is the file whose name ends in "-log". */
static bool is_log(bench_db *db, int fd)
{
    if (fd == db->log_fd) return true;
    if (fd == db->data_fd) return false;
    char link[64], target[4200];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 4 && !memcmp(target + n - 4, "-log", 4)) return db->log_fd = fd, true;
    db->data_fd = fd;
    return false;
}

static int c_hook_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    bench_db *db = ctx;
    if (is_log(db, fd)) db->pages[BENCH_PAGE_LOG]++;
    else tally_pages(db, buf, len);
    for (const char *p = buf; len;) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        db->hook_bytes += (uint64_t)n;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int c_hook_sync(void *ctx, int fd)
{
    bench_db *db = ctx;
    if (fdatasync(fd) != 0)
        return errno;
    db->hook_flushes++;
    return 0;
}

static void c_io_hooks(bench_db *db, uint64_t *bytes, uint64_t *flushes, uint64_t pages[])
{
    *bytes = db->hook_bytes;
    *flushes = db->hook_flushes;
    memcpy(pages, db->pages, sizeof db->pages);
}

static int c_open(const char *dir, bench_sync sync, uint64_t data_hint, bench_db **out)
{
    (void)data_hint;
    bench_db *db = xmalloc(sizeof *db);
    *db = (bench_db){.log_fd = -1, .data_fd = -1};
    *out = db;
    char path[4200];
    snprintf(path, sizeof path, "%s/data.cs", dir);
    cs_io_hooks io = {.ctx = db, .write = c_hook_write, .sync = c_hook_sync};
    cs_options opts = {
        .flags = sync == BENCH_FULLSYNC ? CS_ENV_LOG_SMALL : 0,
        .durability = sync == BENCH_FULLSYNC ? CS_DURABLE_FULL : CS_DURABLE_NO_SYNC,
        .io = &io,
    };
    CHECK(cs_env_open(path, &opts, &db->env));
    cs_txn *txn;
    CHECK(cs_txn_begin(db->env, 0, &txn));
    int rc = cs_tree_open(txn, "bench", CS_CREATE, &db->tree);
    if (rc != CS_OK) {
        cs_txn_abort(txn);
        CHECK(rc);
    }
    CHECK(cs_txn_commit(txn));
    return BENCH_OK;
}

static int c_close(bench_db *db)
{
    int rc = db->env ? cs_env_close(db->env) : CS_OK;
    free(db);
    CHECK(rc);
    return BENCH_OK;
}

static int c_session(bench_db *db, bench_sess **out)
{
    bench_sess *s = xmalloc(sizeof *s);
    *s = (bench_sess){.db = db};
    *out = s;
    return BENCH_OK;
}

static void c_session_close(bench_sess *s)
{
    if (s->cur)
        cs_cursor_close(s->cur);
    if (s->txn && s->txn != s->rtxn)
        cs_txn_abort(s->txn);
    if (s->rtxn)
        cs_txn_abort(s->rtxn);
    free(s);
}

static int c_begin(bench_sess *s, bool write)
{
    if (write) {
        CHECK(cs_txn_begin(s->db->env, 0, &s->txn));
    } else if (s->rtxn) {
        CHECK(cs_txn_renew(s->rtxn));
        s->txn = s->rtxn;
    } else {
        CHECK(cs_txn_begin(s->db->env, CS_TXN_RDONLY, &s->rtxn));
        s->txn = s->rtxn;
    }
    return BENCH_OK;
}

static int c_commit(bench_sess *s)
{
    cs_txn *t = s->txn;
    s->txn = NULL;
    if (t == s->rtxn) {
        CHECK(cs_txn_reset(t));
        return BENCH_OK;
    }
    CHECK(cs_txn_commit(t));
    return BENCH_OK;
}

static int c_put(bench_sess *s, const void *k, size_t kl, const void *v, size_t vl)
{
    CHECK(cs_put(s->txn, s->db->tree, (cs_val){k, kl}, (cs_val){v, vl}, 0));
    return BENCH_OK;
}

static int c_get(bench_sess *s, const void *k, size_t kl, bench_val *out)
{
    cs_val v;
    int rc = cs_get(s->txn, s->db->tree, (cs_val){k, kl}, &v);
    if (rc == CS_NOTFOUND)
        return BENCH_NOTFOUND;
    CHECK(rc);
    out->data = v.data;
    out->size = v.size;
    return BENCH_OK;
}

static int c_del(bench_sess *s, const void *k, size_t kl)
{
    int rc = cs_del(s->txn, s->db->tree, (cs_val){k, kl});
    if (rc == CS_NOTFOUND)
        return BENCH_NOTFOUND;
    CHECK(rc);
    return BENCH_OK;
}

static int c_scan(bench_sess *s, bool reverse, uint64_t *count, uint64_t *sum)
{
    bool reuse = s->txn == s->rtxn; /* read txn: keep the cursor for next time */
    cs_cursor *cur;
    if (reuse && s->cur) {
        CHECK(cs_cursor_renew(s->txn, s->cur));
        cur = s->cur;
    } else {
        CHECK(cs_cursor_open(s->txn, s->db->tree, &cur));
        if (reuse)
            s->cur = cur;
    }
    cs_val k, v;
    uint64_t n = 0, f = 0;
    cs_cursor_op op = reverse ? CS_LAST : CS_FIRST;
    int rc;
    while ((rc = cs_cursor_get(cur, &k, &v, op)) == CS_OK) {
        n++;
        f += ((const uint8_t *)k.data)[0] + (v.size ? ((const uint8_t *)v.data)[0] : 0);
        op = reverse ? CS_PREV : CS_NEXT;
    }
    if (!reuse)
        cs_cursor_close(cur);
    if (rc != CS_NOTFOUND)
        CHECK(rc);
    *count = n;
    *sum = f;
    return BENCH_OK;
}

static int c_used_bytes(bench_db *db, uint64_t *out)
{
    cs_env_info info;
    CHECK(cs_env_get_info(db->env, &info));
    *out = info.next_pgno * info.page_size;
    return BENCH_OK;
}

static int c_shape(bench_db *db, char *buf, size_t len)
{
    cs_txn *txn;
    cs_tree_stat st;
    CHECK(cs_txn_begin(db->env, CS_TXN_RDONLY, &txn));
    int rc = cs_tree_get_stat(txn, db->tree, &st);
    cs_txn_abort(txn);
    CHECK(rc);
    snprintf(buf, len, "depth %u, %llu branch + %llu leaf + %llu overflow pages", st.depth,
             (unsigned long long)st.branch_pages, (unsigned long long)st.leaf_pages,
             (unsigned long long)st.overflow_pages);
    return BENCH_OK;
}

const bench_driver driver_cstorage = {
    .name = "cstorage",
    .describe = c_describe,
    .open = c_open,
    .close = c_close,
    .session = c_session,
    .session_close = c_session_close,
    .begin = c_begin,
    .commit = c_commit,
    .put = c_put,
    .get = c_get,
    .del = c_del,
    .scan = c_scan,
    .used_bytes = c_used_bytes,
    .shape = c_shape,
    .io_hooks = c_io_hooks,
};
