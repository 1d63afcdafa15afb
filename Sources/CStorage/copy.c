/*
 * copy.c — a compact copy of a database, compaction in place, and the
 * removal of a closed database's files.
 *
 * The copy goes through the public calls only: one read snapshot of the
 * source, every tree walked in key order and put into a new file, where
 * each put is an append (btree.c fills the page before it splits), so the
 * copy's pages are full and it has no free pages but the few that its own
 * intermediate commits leave. It is written under a temporary name,
 * flushed, checked, and only then given its final name, so no crash leaves
 * a partial file under that name.
 *
 * Compaction renames such a copy over the original. The rename is the one
 * step that changes what the path holds, and it is atomic; before it the
 * original is untouched, after it the copy is whole and flushed. What must
 * not happen is another process opening the old file (or mapping the old
 * lock-file state onto the new one) across the rename: it runs only when
 * this env is the file's only opener, and holds the lock file's open lock
 * (lock_hold_opens) from the last check until the env is closed, so the
 * next opener is the first one and rebuilds the lock file from the new
 * file.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of keys and values per commit of the copy: bounds the dirty pages
 * held in memory. */
#define COPY_COMMIT_BYTES (64u << 20)
#define COPY_BATCH 256

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static int collect_name(void *ctx, const char *name, size_t len)
{
    name_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) return cs_fail(CS_ENOMEM, "tree names");
        l->v = v;
        l->cap = cap;
    }
    char *s = malloc(len + 1);
    if (!s) return cs_fail(CS_ENOMEM, "tree name");
    memcpy(s, name, len);
    s[len] = 0;
    l->v[l->n++] = s;
    return CS_OK;
}

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

/* Remove a database's files (missing ones are fine): the page segment a
 * killed process left (named from the data file's device and inode, so
 * before the data file), the data file, its log and its lock file. 0, or
 * the errno of the data file's removal (the others are then kept). */
static int remove_db(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        char name[VSEG_NAME_MAX];
        vseg_name(st.st_dev, st.st_ino, name);
        vseg_unlink(name);
    }
    if (unlink(path) != 0 && errno != ENOENT) return errno;
    char *log = path_with(path, "-log");
    if (log) unlink(log);
    free(log);
    char *lock = path_with(path, ".lock");
    if (lock) unlink(lock);
    free(lock);
    return 0;
}

int cs_env_remove(const char *path)
{
    if (!path) return cs_fail(CS_EINVAL, "cs_env_remove: NULL path");
    int lock_fd;
    int rc = lock_claim_closed(path, &lock_fd);
    if (rc) return rc;
    /* The lock file goes while it is held: an opener waiting on it finds
     * it unlinked and starts over (lock_open). */
    int e = remove_db(path);
    if (e) rc = cs_fail(CS_EIO, "cannot remove %s: %s", path, strerror(e));
    if (lock_fd >= 0) close(lock_fd);
    return rc;
}

/* The directory holding path, opened (O_DIRECTORY), or -1 (errno set). */
static int open_dir_of(const char *path)
{
    char *dir = strdup(path);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    char *slash = strrchr(dir, '/');
    const char *name = ".";
    if (slash == dir) name = "/";
    else if (slash) {
        *slash = 0;
        name = dir;
    }
    int fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    free(dir);
    errno = e;
    return fd;
}

/* Flush the directory holding path, so a rename or link in it survives a
 * power loss. */
static int sync_dir(const char *path)
{
    int fd = open_dir_of(path);
    int rc = fd < 0 || fsync(fd) != 0 ? cs_fail(CS_EIO, "cannot flush the directory of %s: %s", path, strerror(errno)) : CS_OK;
    if (fd >= 0) close(fd);
    return rc;
}

/* Copy one tree of snapshot rt into the write txn *wt of dst, committing
 * every COPY_COMMIT_BYTES (which replaces *wt). */
static int copy_tree(cs_txn *rt, cs_env *dst, cs_txn **wt, const char *name, size_t *pending)
{
    cs_tree from, to;
    int rc = cs_tree_open(rt, name, 0, &from);
    if (rc == CS_OK) rc = cs_tree_open(*wt, name, CS_CREATE, &to);
    if (rc) return rc;
    cs_cursor *cur;
    if ((rc = cs_cursor_open(rt, from, &cur))) return rc;
    cs_val keys[COPY_BATCH], vals[COPY_BATCH];
    size_t n;
    while ((rc = cs_cursor_next_batch(cur, keys, vals, COPY_BATCH, &n)) == CS_OK) {
        for (size_t i = 0; i < n && rc == CS_OK; i++) {
            rc = cs_put(*wt, to, keys[i], vals[i], 0);
            *pending += keys[i].size + vals[i].size;
        }
        if (rc == CS_OK && *pending >= COPY_COMMIT_BYTES) {
            rc = cs_txn_commit(*wt);
            *wt = NULL;
            if (rc == CS_OK) rc = cs_txn_begin(dst, 0, wt);
            *pending = 0;
        }
        if (rc) break;
    }
    cs_cursor_close(cur);
    return rc == CS_NOTFOUND ? CS_OK : rc;
}

/* Build the copy of env's newest version at tmp (which must not exist):
 * written, flushed and checked; tmp's lock file removed. *txnid = the
 * version copied. On failure tmp is removed. */
static int copy_build(cs_env *env, const char *tmp, uint32_t mode, uint64_t *txnid)
{
    cs_options o = {0};
    o.page_size = env->psize;
    o.durability = CS_DURABLE_NO_SYNC; /* one fsync at the end instead */
    o.file_mode = mode;
    cs_env *dst = NULL;
    cs_txn *rt = NULL, *wt = NULL;
    name_list names = {0};
    int rc = cs_env_open(tmp, &o, &dst);
    if (rc == CS_OK) rc = cs_txn_begin(env, CS_TXN_RDONLY, &rt);
    if (rc == CS_OK) {
        *txnid = cs_txn_id(rt);
        rc = cs_tree_list(rt, collect_name, &names);
    }
    if (rc == CS_OK) rc = cs_txn_begin(dst, 0, &wt);
    size_t pending = 0;
    for (size_t i = 0; rc == CS_OK && i < names.n; i++) rc = copy_tree(rt, dst, &wt, names.v[i], &pending);
    if (wt) {
        int rc2 = rc == CS_OK ? cs_txn_commit(wt) : cs_txn_abort(wt);
        if (rc == CS_OK) rc = rc2;
    }
    if (rt) cs_txn_abort(rt);
    names_free(&names);
    /* The file grew in chunks: cut it to the pages in use. */
    cs_env_info info;
    if (rc == CS_OK) rc = cs_env_get_info(dst, &info);
    if (rc == CS_OK && ftruncate(dst->fd, (off_t)(info.next_pgno * info.page_size)) != 0)
        rc = cs_fail(CS_EIO, "cannot truncate %s: %s", tmp, strerror(errno));
    if (rc == CS_OK && fsync(dst->fd) != 0)
        rc = cs_fail(errno == ENOSPC ? CS_ENOSPACE : CS_EIO, "cannot flush %s: %s", tmp, strerror(errno));
    if (rc == CS_OK) {
        cs_check_report report;
        rc = cs_check(dst, &report);
        if (rc == CS_ECORRUPT) rc = cs_fail(CS_ECORRUPT, "the copy %s does not pass check: %s", tmp, report.first_error);
    }
    if (dst) cs_env_close(dst);
    char *lock = path_with(tmp, ".lock");
    if (lock) unlink(lock);
    free(lock);
    if (rc) {
        int saved = rc;
        char detail[256];
        snprintf(detail, sizeof detail, "%s", cs_last_error_detail());
        unlink(tmp);
        rc = cs_fail(saved, "%s", detail);
    }
    return rc;
}

int cs_env_copy(cs_env *env, const char *path, unsigned flags)
{
    if (!env || !path || flags) return cs_fail(CS_EINVAL, "cs_env_copy: NULL env or path, or unknown flags");
    struct stat st;
    if (lstat(path, &st) == 0) return cs_fail(CS_EXISTS, "%s exists: a copy is written to a new file", path);
    int dfd = open_dir_of(path);
    if (dfd < 0) return cs_fail(errno == ENOENT || errno == ENOTDIR ? CS_NOTFOUND : CS_EIO, "cannot open the directory of %s: %s", path, strerror(errno));
    close(dfd);
    /* A name of our own beside path: the same directory, so link() works,
     * and unique per process and call. */
    static _Atomic unsigned counter;
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".copy-%ld-%u", (long)getpid(), atomic_fetch_add(&counter, 1));
    char *tmp = path_with(path, suffix);
    if (!tmp) return cs_fail(CS_ENOMEM, "temporary path");
    remove_db(tmp);
    uint64_t txnid;
    int rc = copy_build(env, tmp, 0644, &txnid);
    if (rc == CS_OK) {
        /* link, not rename: fails rather than replace a file that appeared
         * meanwhile. */
        if (link(tmp, path) != 0)
            rc = cs_fail(errno == EEXIST ? CS_EXISTS : errno == ENOSPC ? CS_ENOSPACE : CS_EIO,
                         "cannot create %s: %s", path, strerror(errno));
        unlink(tmp);
        if (rc == CS_OK) rc = sync_dir(path);
    }
    free(tmp);
    return rc;
}

int cs_env_compact(cs_env *env, unsigned flags)
{
    if (!env || flags) return cs_fail(CS_EINVAL, "cs_env_compact: NULL env or unknown flags");
    if (env->flags & CS_ENV_IN_MEMORY) return cs_fail(CS_EINVAL, "cs_env_compact: an in-memory database has no file");
    if (env->flags & CS_ENV_RDONLY) return cs_fail(CS_EREADONLY, "cs_env_compact: %s is open read-only", env->path);
    if (atomic_load(&env->live_txns))
        return cs_fail(CS_EINVAL, "cs_env_compact: %d transactions are open", atomic_load(&env->live_txns));
    if (lock_shared_with_others(&env->lock))
        return cs_fail(CS_EBUSY, "%s is open in another process: close it there to compact", env->path);
    struct stat st;
    if (fstat(env->fd, &st) != 0) return cs_fail(CS_EIO, "cannot stat %s: %s", env->path, strerror(errno));
    /* Logged commits first go into the file: the copy gets the durable
     * meta's txnid, and no record of the log may follow it. */
    bool flushed;
    int frc = atomic_load(&env->lock.hdr->vol_on) ? commit_flush_deferred(env, &flushed) : CS_OK;
    if (frc) return frc;
    char *tmp = path_with(env->path, ".compact");
    if (!tmp) return cs_fail(CS_ENOMEM, "temporary path");
    remove_db(tmp); /* left by a compaction that was killed */
    uint64_t txnid = 0;
    int rc = copy_build(env, tmp, st.st_mode & 07777, &txnid);
    bool held = false;
    if (rc == CS_OK) held = (rc = lock_hold_opens(&env->lock)) == CS_OK;
    if (rc == CS_OK) {
        cs_meta m;
        lock_read_meta(&env->lock, &m);
        if (lock_shared_with_others(&env->lock))
            rc = cs_fail(CS_EBUSY, "%s was opened by another process during compaction: close it there", env->path);
        else if (m.txnid != txnid || atomic_load(&env->live_txns))
            rc = cs_fail(CS_EBUSY, "%s changed during compaction: compact it again", env->path);
    }
    if (rc == CS_OK && rename(tmp, env->path) != 0)
        rc = cs_fail(CS_EIO, "cannot rename %s over %s: %s", tmp, env->path, strerror(errno));
    if (rc) {
        if (held) lock_release_opens(&env->lock);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    /* Old or new file, each is whole: a failed directory flush only means
     * a power loss may bring the old one back, so it is not an error. */
    sync_dir(env->path);
    /* Logged after the close, which releases the open lock (cs_log_fn). */
    cs_logger log = {.fn = env->log.fn, .ctx = env->log.ctx};
    atomic_store(&log.level, atomic_load(&env->log.level));
    char *path = log_on(&log, CS_LOG_INFO) ? strdup(env->path) : NULL;
    cs_env_close(env); /* releases the open lock: the next opener is first */
    struct stat after;
    if (path && stat(path, &after) == 0)
        cs_log(&log, CS_LOG_INFO, CS_LOG_TOPIC_ENV, "Compacted %s: %lld -> %lld bytes", path, (long long)st.st_size,
               (long long)after.st_size);
    free(path);
    return CS_OK;
}
