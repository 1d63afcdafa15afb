/* test_logged.c — logged small commits (CS_ENV_LOG_SMALL; design 4):
 * a one-put durable commit writes one record to the log and nothing to the
 * data file, with one flush; every so many commits a fold writes the pages;
 * readers of the same and of another env see each commit at once; close
 * folds, so the file alone holds everything; a writer killed without
 * closing loses no acknowledged commit (the next open replays the log);
 * and random transactions across logged commits, folds, reopens and kills
 * match a model, with cs_check clean. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "test.h"

typedef struct io_count {
    uint64_t data_bytes, log_bytes, data_syncs, log_syncs;
} io_count;
static io_count io;

static bool is_log(int fd)
{
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 4) return false;
    target[n] = 0;
    return !strcmp(target + n - 4, "-log");
}

static int c_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    (void)ctx;
    if (is_log(fd)) io.log_bytes += len;
    else io.data_bytes += len;
    return test_pwrite_all(fd, buf, len, off);
}

static int c_sync(void *ctx, int fd)
{
    (void)ctx;
    if (is_log(fd)) io.log_syncs++;
    else io.data_syncs++;
    return fdatasync(fd) ? errno : 0;
}

static int c_grow(void *ctx, int fd, uint64_t size)
{
    (void)ctx;
    return ftruncate(fd, (off_t)size) ? errno : 0;
}

static const cs_io_hooks hooks = {.write = c_write, .sync = c_sync, .grow = c_grow};

static cs_env *open_env_shrink(const char *path, bool log, bool shrink)
{
    cs_options o = {0};
    o.durability = CS_DURABLE_FULL;
    o.io = &hooks;
    o.auto_shrink = shrink;
    o.flags = log ? CS_ENV_LOG_SMALL : 0;
    cs_env *env;
    REQUIRE_OK(cs_env_open(path, &o, &env));
    return env;
}

static cs_env *open_env(const char *path, bool log) { return open_env_shrink(path, log, true); }

static void put_one(cs_env *env, cs_tree tree, unsigned i, unsigned gen)
{
    char k[16], v[100];
    int kl = snprintf(k, sizeof k, "k%08u", i);
    memset(v, 'a' + (int)(gen % 26), sizeof v);
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_put(t, tree, V(k, (size_t)kl), V(v, sizeof v), 0));
    REQUIRE_OK(cs_txn_commit(t));
}

/* The handle of a tree the file already has (opened in a read txn). */
static cs_tree existing_tree(cs_env *env, const char *name)
{
    cs_txn *t;
    cs_tree tree;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, name, 0, &tree));
    cs_txn_abort(t);
    return tree;
}

static int value_gen(cs_env *env, const char *tree_name, unsigned i)
{
    char k[16];
    int kl = snprintf(k, sizeof k, "k%08u", i);
    cs_txn *t;
    cs_tree tree;
    cs_val v;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    int gen = -1;
    if (cs_tree_open(t, tree_name, 0, &tree) == CS_OK && cs_get(t, tree, V(k, (size_t)kl), &v) == CS_OK && v.size == 100)
        gen = ((const char *)v.data)[0] - 'a';
    cs_txn_abort(t);
    return gen;
}

static void check_clean(cs_env *env)
{
    cs_check_report r;
    int rc = cs_check(env, &r);
    CHECK_OK(rc);
    CHECK_EQ(r.errors, 0);
    if (rc || r.errors) printf("check: %s\n", cs_last_error_detail());
}

static void test_one_put_commits_write_the_log(void)
{
    tpath p = test_path("logged");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, true);
    cs_tree tree = test_open_tree(env, "t");
    /* A big commit (not logged): 5000 entries. */
    cs_txn *t;
    char k[16], v[100];
    memset(v, 'a', sizeof v);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (unsigned i = 0; i < 5000; i++)
        REQUIRE_OK(cs_put(t, tree, V(k, (size_t)snprintf(k, sizeof k, "k%08u", i * 2)), V(v, sizeof v), 0));
    REQUIRE_OK(cs_txn_commit(t));

    /* A second env of the same file reads through the segment. */
    cs_env *other = open_env(p.s, false);
    memset(&io, 0, sizeof io);
    unsigned n = 300, folds_seen = 0;
    uint64_t data_before = 0;
    for (unsigned c = 0; c < n; c++) {
        data_before = io.data_bytes;
        put_one(env, tree, c * 2 + 1, c);
        if (io.data_bytes > data_before) folds_seen++;
        CHECK_EQ(value_gen(env, "t", c * 2 + 1), (int)(c % 26));
        CHECK_EQ(value_gen(other, "t", c * 2 + 1), (int)(c % 26));
    }
    printf("logged: %u one-put commits: log %.0f B and %.2f flushes per commit, data %.0f B per commit, %u folds\n", n,
           (double)io.log_bytes / n, (double)(io.log_syncs + io.data_syncs) / n, (double)io.data_bytes / n, folds_seen);
    /* Each commit writes one 512-byte record; a fold every VOL_FOLD_EVERY
     * commits writes the pages they changed. */
    CHECK(io.log_bytes >= (uint64_t)(n - folds_seen) * REDO_ALIGN);
    CHECK(io.log_bytes <= (uint64_t)n * 2 * REDO_ALIGN);
    CHECK(folds_seen >= n / VOL_FOLD_EVERY - 1 && folds_seen <= n / VOL_FOLD_EVERY + 1);
    CHECK(io.data_bytes / n < 4096); /* against 16+ KiB written whole */
    CHECK(io.log_syncs + io.data_syncs <= (uint64_t)n + 2 * folds_seen);
    /* The arena starts over after folds: it holds about one fold's pages. */
    CHECK(atomic_load(&env->vseg.hdr->size_pages) < 4 * VOL_FOLD_EVERY * 4);
    check_clean(env);

    /* Close folds: the file alone holds everything. */
    REQUIRE_OK(cs_env_close(other));
    REQUIRE_OK(cs_env_close(env));
    char lp[600];
    snprintf(lp, sizeof lp, "%s-log", p.s);
    CHECK_EQ(test_file_size(lp), 0);
    env = open_env(p.s, false);
    for (unsigned c = 0; c < n; c += 7) CHECK_EQ(value_gen(env, "t", c * 2 + 1), (int)(c % 26));
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
}

/* Leaves `n` logged commits of tree "t" (keys 0..n-1, generation = key)
 * in p's log, from a writer that exits without closing. */
static void leave_logged_commits(const char *path, unsigned n)
{
    cs_env *env = open_env(path, true);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cs_env *e = open_env(path, true);
        cs_tree tree = existing_tree(e, "t");
        for (unsigned c = 0; c < n; c++) put_one(e, tree, c, c);
        _exit(0); /* no close: nothing folded since the last fold */
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static bool segment_exists(const char *path)
{
    struct stat st;
    REQUIRE(stat(path, &st) == 0);
    char name[VSEG_NAME_MAX], shm[VSEG_NAME_MAX + 16];
    vseg_name(st.st_dev, st.st_ino, name);
    snprintf(shm, sizeof shm, "/dev/shm%s", name);
    return access(shm, F_OK) == 0;
}

/* Remove a segment a killed process of an earlier run left under this
 * file's device and inode (a new file may reuse a deleted one's inode). */
static void forget_stale_segment(const char *path)
{
    struct stat st;
    REQUIRE(stat(path, &st) == 0);
    char name[VSEG_NAME_MAX];
    vseg_name(st.st_dev, st.st_ino, name);
    vseg_unlink(name);
}

static bool log_exists(const char *path)
{
    char lp[600];
    snprintf(lp, sizeof lp, "%s-log", path);
    return access(lp, F_OK) == 0;
}

/* Logging turns on at the first write that would log, not at the open: an
 * open that only reads makes no segment and opens no log. The write makes
 * both, and is logged; the close removes the segment. */
static void test_open_that_only_reads_makes_no_segment(void)
{
    tpath p = test_path("lazy-segment");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, false);
    cs_tree tree = test_open_tree(env, "t");
    put_one(env, tree, 1, 1);
    REQUIRE_OK(cs_env_close(env));
    forget_stale_segment(p.s);
    CHECK(!log_exists(p.s));

    env = open_env(p.s, true);
    CHECK(!segment_exists(p.s));
    CHECK_EQ(value_gen(env, "t", 1), 1);
    check_clean(env);
    CHECK(!segment_exists(p.s));
    CHECK(!log_exists(p.s));
    CHECK(!env->vol_on);
    REQUIRE_OK(cs_env_close(env));
    CHECK(!segment_exists(p.s));
    CHECK(!log_exists(p.s));

    env = open_env(p.s, true);
    tree = existing_tree(env, "t");
    memset(&io, 0, sizeof io);
    put_one(env, tree, 2, 2);
    CHECK(segment_exists(p.s));
    CHECK(env->vol_on);
    CHECK_EQ(io.data_bytes, 0);
    CHECK_EQ(io.log_bytes, REDO_ALIGN);
    CHECK_EQ(value_gen(env, "t", 2), 2);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
    CHECK(!segment_exists(p.s));
    env = open_env(p.s, false);
    CHECK_EQ(value_gen(env, "t", 1), 1);
    CHECK_EQ(value_gen(env, "t", 2), 2);
    REQUIRE_OK(cs_env_close(env));
}

/* Envs opened before another turned logging on map the segment when they
 * next begin a transaction: they read its logged commits (whose pages are
 * only in the segment), log their own, and the last to close removes it. */
static void test_open_envs_map_a_segment_made_later(void)
{
    tpath p = test_path("lazy-join");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, false);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    forget_stale_segment(p.s);

    cs_env *a = open_env(p.s, true);
    cs_env *b = open_env(p.s, false); /* would not log on its own */
    cs_options ro = {.durability = CS_DURABLE_FULL, .flags = CS_ENV_RDONLY | CS_ENV_LOG_SMALL};
    cs_env *r;
    REQUIRE_OK(cs_env_open(p.s, &ro, &r));
    CHECK_EQ(value_gen(b, "t", 0), -1);
    CHECK_EQ(value_gen(r, "t", 0), -1);
    CHECK(!segment_exists(p.s));

    cs_tree ta = existing_tree(a, "t");
    for (unsigned c = 0; c < 5; c++) put_one(a, ta, c, c);
    CHECK(segment_exists(p.s));
    CHECK(!b->vol_on && !r->vol_on);
    for (unsigned c = 0; c < 5; c++) {
        CHECK_EQ(value_gen(b, "t", c), (int)c);
        CHECK_EQ(value_gen(r, "t", c), (int)c);
    }
    CHECK(b->vol_on && r->vol_on);

    /* b writes after a's logged commits: it logs too (durable), and a sees it. */
    cs_tree tb = existing_tree(b, "t");
    memset(&io, 0, sizeof io);
    put_one(b, tb, 5, 5);
    CHECK_EQ(io.data_bytes, 0);
    CHECK_EQ(io.log_bytes, REDO_ALIGN);
    CHECK_EQ(value_gen(a, "t", 5), 5);
    CHECK_EQ(value_gen(r, "t", 5), 5);
    check_clean(r);

    REQUIRE_OK(cs_env_close(a));
    CHECK(segment_exists(p.s));
    REQUIRE_OK(cs_env_close(b));
    CHECK(segment_exists(p.s));
    REQUIRE_OK(cs_env_close(r));
    CHECK(!segment_exists(p.s));
    env = open_env(p.s, false);
    for (unsigned c = 0; c < 6; c++) CHECK_EQ(value_gen(env, "t", c), (int)c);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
}

/* An env that never began a transaction after another process turned
 * logging on and closed: if it closes last, it removes the segment without
 * mapping it (read-only), or maps it to fold and then removes it (writable). */
static void test_last_closer_removes_a_segment_it_never_mapped(void)
{
    tpath p = test_path("lazy-last");
    for (int writable = 0; writable < 2; writable++) {
        test_rm_db(p.s);
        cs_env *env = open_env(p.s, false);
        test_open_tree(env, "t");
        REQUIRE_OK(cs_env_close(env));
        forget_stale_segment(p.s);
        cs_options ro = {.durability = CS_DURABLE_FULL, .flags = CS_ENV_RDONLY};
        cs_env *late;
        if (writable) late = open_env(p.s, false);
        else REQUIRE_OK(cs_env_open(p.s, &ro, &late));
        cs_env *a = open_env(p.s, true);
        cs_tree ta = existing_tree(a, "t");
        put_one(a, ta, 7, 7);
        REQUIRE_OK(cs_env_close(a)); /* not the last: the segment stays */
        CHECK(segment_exists(p.s));
        CHECK(!late->vol_on);
        REQUIRE_OK(cs_env_close(late));
        CHECK(!segment_exists(p.s));
        env = open_env(p.s, false);
        CHECK_EQ(value_gen(env, "t", 7), 7);
        check_clean(env);
        REQUIRE_OK(cs_env_close(env));
    }
}

/* The txnid of the data file's durable meta, which must name file pages
 * only (V1); 0 if there is none. */
static uint64_t file_meta_txnid(const char *path)
{
    int fd = open(path, O_RDONLY);
    REQUIRE(fd >= 0);
    uint8_t pages[2 * 4096];
    REQUIRE(pread(fd, pages, sizeof pages, 0) == (ssize_t)sizeof pages);
    cs_meta m;
    uint32_t slot;
    int rc = meta_choose_durable(pages, pages + 4096, sizeof pages, fd, &m, &slot);
    close(fd);
    if (rc) return 0;
    CHECK(!pgno_is_volatile(m.catalog.root) && !pgno_is_volatile(m.fl_pgno));
    return m.txnid;
}

/* A writable env that never mapped the segment, closing while another's
 * logged commits wait for their fold: it maps the segment and folds them,
 * and never writes their meta (whose pages are in the segment) to the file. */
static void test_close_folds_commits_it_never_mapped(void)
{
    tpath p = test_path("lazy-fold");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, false);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    forget_stale_segment(p.s);
    cs_env *late = open_env(p.s, false);
    cs_env *a = open_env(p.s, true);
    cs_tree ta = existing_tree(a, "t");
    for (unsigned c = 0; c < 3; c++) put_one(a, ta, c, c + 3);
    CHECK(!late->vol_on);
    memset(&io, 0, sizeof io);
    REQUIRE_OK(cs_env_close(late));
    cs_meta published;
    lock_read_meta(&a->lock, &published);
    CHECK_EQ(file_meta_txnid(p.s), published.txnid); /* folded: the file holds a's commits */
    CHECK_EQ(a->lock.hdr->durable_txnid, published.txnid);
    CHECK_EQ(value_gen(a, "t", 2), 5);
    check_clean(a);
    REQUIRE_OK(cs_env_close(a));
    CHECK(!segment_exists(p.s));
    env = open_env(p.s, false);
    for (unsigned c = 0; c < 3; c++) CHECK_EQ(value_gen(env, "t", c), (int)c + 3);
    REQUIRE_OK(cs_env_close(env));
}

/* cs_env_remove: refused while the database is open anywhere; otherwise
 * it takes the data file, the log, the lock file and the segment a killed
 * writer left (which deleting the files alone would leak until a reboot),
 * and an open afterwards makes a new database. */
static void test_remove_takes_a_killed_writers_segment(void)
{
    tpath p = test_path("remove");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, true);
    test_open_tree(env, "t");
    CHECK_EQ(cs_env_remove(p.s), CS_EBUSY);
    CHECK(access(p.s, F_OK) == 0);
    REQUIRE_OK(cs_env_close(env));
    forget_stale_segment(p.s);

    leave_logged_commits(p.s, 5);
    CHECK(segment_exists(p.s));
    char lp[600], lk[600];
    snprintf(lp, sizeof lp, "%s-log", p.s);
    snprintf(lk, sizeof lk, "%s.lock", p.s);
    struct stat st;
    REQUIRE(stat(p.s, &st) == 0);
    REQUIRE_OK(cs_env_remove(p.s));
    CHECK(access(p.s, F_OK) != 0 && access(lp, F_OK) != 0 && access(lk, F_OK) != 0);
    char name[VSEG_NAME_MAX], shm[VSEG_NAME_MAX + 16];
    vseg_name(st.st_dev, st.st_ino, name);
    snprintf(shm, sizeof shm, "/dev/shm%s", name);
    CHECK(access(shm, F_OK) != 0);
    CHECK_EQ(cs_env_remove(p.s), CS_OK); /* nothing left: fine */
    CHECK_EQ(cs_env_remove(NULL), CS_EINVAL);

    env = open_env(p.s, false);
    cs_txn *t;
    cs_tree tree;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_EQ(cs_tree_open(t, "t", 0, &tree), CS_NOTFOUND);
    cs_txn_abort(t);
    REQUIRE_OK(cs_env_close(env));
}

static void *open_in_thread(void *arg)
{
    cs_env *env = open_env((const char *)arg, false);
    return env;
}

/* An open that waited on the lock file of a database being removed starts
 * over on a new lock file: were it first on the unlinked one, the next
 * opener would be first too, on another lock file, and the two would not
 * see each other's readers or writer. */
static void test_open_waiting_on_a_removal_starts_over(void)
{
    tpath p = test_path("remove-race");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, false);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    int fd;
    REQUIRE_OK(lock_claim_closed(p.s, &fd));
    REQUIRE(fd >= 0);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, open_in_thread, (void *)p.s) == 0);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL); /* the open waits on byte 0 */
    /* As cs_env_remove does while it holds the lock file (test_rm_db would
     * wait on the lock held here). */
    char aux[600];
    unlink(p.s);
    snprintf(aux, sizeof aux, "%s-log", p.s);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s.lock", p.s);
    unlink(aux);
    close(fd);
    void *res;
    REQUIRE(pthread_join(th, &res) == 0);
    cs_env *first = res;
    cs_env *second = open_env(p.s, false);
    int others = -1;
    REQUIRE_OK(cs_env_shared(second, &others));
    CHECK_EQ(others, 1);
    REQUIRE_OK(cs_env_close(second));
    REQUIRE_OK(cs_env_close(first));
}

static void count_warnings(void *ctx, cs_log_level level, cs_log_topic topic, const char *message)
{
    (void)topic;
    if (level == CS_LOG_WARN && strstr(message, "written whole")) (*(int *)ctx)++;
}

/* A segment that cannot be made (here a directory holds its name in
 * /dev/shm) leaves the env writing its commits whole, with a warning,
 * rather than refusing every write. */
static void test_no_shared_memory_writes_commits_whole(void)
{
    tpath p = test_path("no-shm");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, false);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    forget_stale_segment(p.s);
    struct stat st;
    REQUIRE(stat(p.s, &st) == 0);
    char name[VSEG_NAME_MAX], shm[VSEG_NAME_MAX + 16];
    vseg_name(st.st_dev, st.st_ino, name);
    snprintf(shm, sizeof shm, "/dev/shm%s", name);
    REQUIRE(mkdir(shm, 0700) == 0);

    int warnings = 0;
    cs_options o = {.durability = CS_DURABLE_FULL, .io = &hooks, .flags = CS_ENV_LOG_SMALL,
                    .log = count_warnings, .log_ctx = &warnings, .log_level = CS_LOG_WARN};
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    cs_tree tree = existing_tree(env, "t");
    memset(&io, 0, sizeof io);
    for (unsigned c = 0; c < 3; c++) put_one(env, tree, c, c);
    CHECK(!env->vol_on);
    CHECK_EQ(io.log_bytes, 0);
    CHECK(io.data_bytes > 0);
    CHECK_EQ(warnings, 1);
    CHECK_EQ(value_gen(env, "t", 2), 2);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
    REQUIRE(rmdir(shm) == 0);
    env = open_env(p.s, false);
    for (unsigned c = 0; c < 3; c++) CHECK_EQ(value_gen(env, "t", c), (int)c);
    REQUIRE_OK(cs_env_close(env));
}

/* A read-only first open after a crash replays the log into the segment
 * (writing nothing to either file), so a reader sees every acknowledged
 * commit; a writer that opens next continues from there; the last process
 * to close, read-only or not, removes the segment. */
static void test_read_only_first_open_replays(void)
{
    tpath p = test_path("rdonly-replay");
    test_rm_db(p.s);
    leave_logged_commits(p.s, 40);
    struct stat before, log_before;
    char lp[600];
    snprintf(lp, sizeof lp, "%s-log", p.s);
    REQUIRE(stat(p.s, &before) == 0 && stat(lp, &log_before) == 0);
    cs_options ro = {.durability = CS_DURABLE_FULL, .flags = CS_ENV_RDONLY | CS_ENV_LOG_SMALL};
    cs_env *reader;
    REQUIRE_OK(cs_env_open(p.s, &ro, &reader));
    for (unsigned c = 0; c < 40; c++) CHECK_EQ(value_gen(reader, "t", c), (int)(c % 26));
    check_clean(reader);
    struct stat after, log_after;
    REQUIRE(stat(p.s, &after) == 0 && stat(lp, &log_after) == 0);
    CHECK_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    CHECK_EQ(log_after.st_mtim.tv_nsec, log_before.st_mtim.tv_nsec);

    /* A writer joins, commits (logged after the replayed ones) and closes
     * first: the reader keeps the segment. */
    cs_env *writer = open_env(p.s, true);
    cs_tree tree = existing_tree(writer, "t");
    put_one(writer, tree, 40, 7);
    CHECK_EQ(value_gen(reader, "t", 40), 7);
    REQUIRE_OK(cs_env_close(writer));
    CHECK(segment_exists(p.s));
    CHECK_EQ(value_gen(reader, "t", 39), 39 % 26);
    REQUIRE_OK(cs_env_close(reader));
    CHECK(!segment_exists(p.s));

    cs_env *env = open_env(p.s, false);
    for (unsigned c = 0; c < 40; c++) CHECK_EQ(value_gen(env, "t", c), (int)(c % 26));
    CHECK_EQ(value_gen(env, "t", 40), 7);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));

    /* Alone, a read-only replay leaves the log to the next opener. */
    test_rm_db(p.s);
    leave_logged_commits(p.s, 10);
    REQUIRE_OK(cs_env_open(p.s, &ro, &reader));
    CHECK_EQ(value_gen(reader, "t", 9), 9);
    REQUIRE_OK(cs_env_close(reader));
    CHECK(!segment_exists(p.s));
    env = open_env(p.s, true);
    for (unsigned c = 0; c < 10; c++) CHECK_EQ(value_gen(env, "t", c), (int)(c % 26));
    REQUIRE_OK(cs_env_close(env));
}

static void test_killed_writer_loses_nothing(void)
{
    tpath p = test_path("killed");
    test_rm_db(p.s);
    cs_env *env = open_env(p.s, true);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env));
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cs_env *e = open_env(p.s, true);
        cs_tree tree = existing_tree(e, "t");
        for (unsigned c = 0; c < 100; c++) {
            put_one(e, tree, c, c);
            uint32_t acked = c + 1;
            if (write(pipefd[1], &acked, sizeof acked) != sizeof acked) _exit(2);
        }
        _exit(0); /* no close: nothing folded since the last fold */
    }
    close(pipefd[1]);
    uint32_t acked = 0, x;
    while (read(pipefd[0], &x, sizeof x) == sizeof x) acked = x;
    close(pipefd[0]);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(acked, 100);
    env = open_env(p.s, false);
    for (unsigned c = 0; c < acked; c++) CHECK_EQ(value_gen(env, "t", c), (int)(c % 26));
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
}

/* A version-3 file (written by the build before logged commits): its
 * first commit is written whole, making both metas version 4 so that an
 * older build refuses the file; only then are commits logged. */
static void test_older_format_upgrades_before_logging(void)
{
    tpath p = test_path("v3");
    test_rm_db(p.s);
    REQUIRE(test_copy_file("Tests/CStorageCTests/fixtures/format-v3.cstore", p.s));
    /* No auto-shrink: the fixture's many free pages would have its commits
     * written whole while it drains (FORMAT.md, "Logged commits"). */
    cs_env *env = open_env_shrink(p.s, true, false);
    memset(&io, 0, sizeof io);
    cs_tree tree = test_open_tree(env, "extra"); /* the first commit */
    CHECK(io.data_bytes > 0);
    CHECK_EQ(io.log_bytes, 0);
    uint8_t page[64];
    int fd = open(p.s, O_RDONLY);
    REQUIRE(fd >= 0);
    for (int slot = 0; slot < 2; slot++) {
        REQUIRE(pread(fd, page, sizeof page, (off_t)slot * 4096) == (ssize_t)sizeof page);
        CHECK_EQ(rd32(page + 40), CS_FORMAT_VERSION);
    }
    close(fd);
    memset(&io, 0, sizeof io);
    put_one(env, tree, 2, 2);
    CHECK_EQ(io.data_bytes, 0);
    CHECK_EQ(io.log_bytes, REDO_ALIGN);
    check_clean(env);
    REQUIRE_OK(cs_env_close(env));
}

/* A clean open and close leave an empty log as it was: truncating it to
 * its own size still changes its inode (a journal write) at every close. */
static void test_empty_log_left_alone(void)
{
    tpath p = test_path("emptylog.db");
    cs_env *env = open_env(p.s, true);
    test_open_tree(env, "t");
    REQUIRE_OK(cs_env_close(env)); /* folds the logged commit: the log is emptied */
    char lp[600];
    snprintf(lp, sizeof lp, "%s-log", p.s);
    struct stat before, after;
    REQUIRE(stat(lp, &before) == 0);
    CHECK_EQ(before.st_size, 0);
    nanosleep(&(struct timespec){0, 30 * 1000 * 1000}, NULL); /* past the clock's granularity */
    env = open_env(p.s, true);
    REQUIRE_OK(cs_env_close(env));
    REQUIRE(stat(lp, &after) == 0);
    CHECK_EQ(after.st_size, 0);
    CHECK(after.st_ctim.tv_sec == before.st_ctim.tv_sec && after.st_ctim.tv_nsec == before.st_ctim.tv_nsec);
    CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
}

int main(void)
{
    test_older_format_upgrades_before_logging();
    test_one_put_commits_write_the_log();
    test_killed_writer_loses_nothing();
    test_read_only_first_open_replays();
    test_empty_log_left_alone();
    test_open_that_only_reads_makes_no_segment();
    test_open_envs_map_a_segment_made_later();
    test_last_closer_removes_a_segment_it_never_mapped();
    test_close_folds_commits_it_never_mapped();
    test_remove_takes_a_killed_writers_segment();
    test_open_waiting_on_a_removal_starts_over();
    test_no_shared_memory_writes_commits_whole();
    return test_report();
}
