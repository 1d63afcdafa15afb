/*
 * driver_sqlite.c — SQLite through the bench driver vtable.
 *
 * Settings: one table `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`,
 * journal_mode=WAL, synchronous=FULL for fillsync and NORMAL otherwise (in
 * WAL mode NORMAL does not flush on commit: the same durability as the other
 * engines' no-sync mode), default WAL auto-checkpoint, mmap_size=1 GiB and
 * cache_size=256 MiB so that it, too, reads from memory. Each session is its
 * own connection (SQLITE_OPEN_NOMUTEX) with prepared statements. Writes run
 * in BEGIN IMMEDIATE, reads in BEGIN (deferred); puts are INSERT OR REPLACE.
 */
#include "bench.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_db {
    char path[4200];
    bench_sync sync;
    bench_sess *admin; /* keeps the database open; used for page counts */
};

enum { ST_BEGIN_W, ST_BEGIN_R, ST_COMMIT, ST_PUT, ST_GET, ST_DEL, ST_SCAN, ST_RSCAN, ST_COUNT };

static const char *const sql_text[ST_COUNT] = {
    "BEGIN IMMEDIATE",
    "BEGIN",
    "COMMIT",
    "INSERT OR REPLACE INTO kv(k, v) VALUES(?1, ?2)",
    "SELECT v FROM kv WHERE k = ?1",
    "DELETE FROM kv WHERE k = ?1",
    "SELECT k, v FROM kv ORDER BY k",
    "SELECT k, v FROM kv ORDER BY k DESC",
};

struct bench_sess {
    bench_db *db;
    sqlite3 *conn;
    sqlite3_stmt *st[ST_COUNT];
};

static int fail_conn(sqlite3 *c, const char *what)
{
    return bench_fail("sqlite: %s: %s", what, c ? sqlite3_errmsg(c) : "out of memory");
}

static const char *q_describe(void)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "SQLite %s; WAL, WITHOUT ROWID, synchronous=NORMAL (FULL for fillsync), "
             "mmap_size=1GiB, cache_size=256MiB", sqlite3_libversion());
    return buf;
}

/* Run a statement that returns no rows and reset it. */
static int step_done(bench_sess *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? BENCH_OK : fail_conn(s->conn, sqlite3_sql(st));
}

static void q_session_close(bench_sess *s)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->conn);
    free(s);
}

static int q_session(bench_db *db, bench_sess **out)
{
    bench_sess *s = xmalloc(sizeof *s);
    *s = (bench_sess){.db = db};
    *out = s;
    int rc = sqlite3_open_v2(db->path, &s->conn,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return fail_conn(s->conn, "open");
    sqlite3_busy_timeout(s->conn, 60000);
    char pragmas[512];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA mmap_size=1073741824; "
             "PRAGMA cache_size=-262144; "
             "CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;",
             db->sync == BENCH_FULLSYNC ? "FULL" : "NORMAL");
    if (sqlite3_exec(s->conn, pragmas, NULL, NULL, NULL) != SQLITE_OK)
        return fail_conn(s->conn, "set-up");
    for (int i = 0; i < ST_COUNT; i++)
        if (sqlite3_prepare_v2(s->conn, sql_text[i], -1, &s->st[i], NULL) != SQLITE_OK)
            return fail_conn(s->conn, sql_text[i]);
    return BENCH_OK;
}

static int q_open(const char *dir, bench_sync sync, uint64_t data_hint, bench_db **out)
{
    (void)data_hint;
    bench_db *db = xmalloc(sizeof *db);
    *db = (bench_db){.sync = sync};
    *out = db;
    snprintf(db->path, sizeof db->path, "%s/data.sqlite", dir);
    return q_session(db, &db->admin);
}

static int q_close(bench_db *db)
{
    if (db->admin)
        q_session_close(db->admin);
    free(db);
    return BENCH_OK;
}

static int q_begin(bench_sess *s, bool write)
{
    return step_done(s, s->st[write ? ST_BEGIN_W : ST_BEGIN_R]);
}

static int q_commit(bench_sess *s)
{
    sqlite3_reset(s->st[ST_GET]); /* a pending row would hold the snapshot */
    return step_done(s, s->st[ST_COMMIT]);
}

static int q_put(bench_sess *s, const void *k, size_t kl, const void *v, size_t vl)
{
    sqlite3_stmt *st = s->st[ST_PUT];
    sqlite3_bind_blob(st, 1, k, (int)kl, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, v, (int)vl, SQLITE_STATIC);
    return step_done(s, st);
}

static int q_get(bench_sess *s, const void *k, size_t kl, bench_val *out)
{
    sqlite3_stmt *st = s->st[ST_GET];
    sqlite3_reset(st); /* releases the previous row */
    sqlite3_bind_blob(st, 1, k, (int)kl, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return BENCH_NOTFOUND;
    if (rc != SQLITE_ROW)
        return fail_conn(s->conn, "get");
    out->data = sqlite3_column_blob(st, 0);
    out->size = (size_t)sqlite3_column_bytes(st, 0);
    return BENCH_OK;
}

static int q_del(bench_sess *s, const void *k, size_t kl)
{
    sqlite3_stmt *st = s->st[ST_DEL];
    sqlite3_bind_blob(st, 1, k, (int)kl, SQLITE_STATIC);
    if (step_done(s, st) != BENCH_OK)
        return BENCH_ERR;
    return sqlite3_changes(s->conn) ? BENCH_OK : BENCH_NOTFOUND;
}

static int q_scan(bench_sess *s, bool reverse, uint64_t *count, uint64_t *sum)
{
    sqlite3_stmt *st = s->st[reverse ? ST_RSCAN : ST_SCAN];
    uint64_t n = 0, f = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        f += ((const uint8_t *)sqlite3_column_blob(st, 0))[0] +
             ((const uint8_t *)sqlite3_column_blob(st, 1))[0];
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail_conn(s->conn, "scan");
    *count = n;
    *sum = f;
    return BENCH_OK;
}

static int q_used_bytes(bench_db *db, uint64_t *out)
{
    sqlite3_stmt *st;
    sqlite3 *c = db->admin->conn;
    if (sqlite3_prepare_v2(c, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
                           -1, &st, NULL) != SQLITE_OK)
        return fail_conn(c, "page_count");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? BENCH_OK : fail_conn(c, "page_count");
}

const bench_driver driver_sqlite = {
    .name = "sqlite",
    .describe = q_describe,
    .open = q_open,
    .close = q_close,
    .session = q_session,
    .session_close = q_session_close,
    .begin = q_begin,
    .commit = q_commit,
    .put = q_put,
    .get = q_get,
    .del = q_del,
    .scan = q_scan,
    .used_bytes = q_used_bytes,
};
