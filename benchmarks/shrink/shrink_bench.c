/*
 * shrink_bench.c — auto-shrink (cs_options.auto_shrink, issue 15 item 6).
 *
 * 1M entries (10-byte keys, 100-byte values), then 90% deleted (every key
 * but each tenth, 100k per commit) while a reader holds the full snapshot,
 * then 1,000 small commits (one put each) with a reader open throughout
 * (renewed after each commit, so it always holds the previous version).
 * Reports the file size against a fresh file holding the same entries, and
 * the small commits' latency, with the switch on and off; then 1,000 more
 * small commits on the settled file (the steady-state cost of the switch).
 * Then SQLite (WAL, synchronous = FULL, no auto_vacuum) on the same data:
 * its file after the same steps, and what VACUUM takes to give the space
 * back (it needs the database to itself).
 *
 *   shrink_bench [dir] [entries]     (durability FULL: real fdatasyncs)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cstorage.h"

#define OK(x)                                                                                                       \
    do {                                                                                                            \
        int rc_ = (x);                                                                                              \
        if (rc_) {                                                                                                  \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #x, cs_strerror(rc_), cs_last_error_detail()); \
            exit(1);                                                                                                \
        }                                                                                                           \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long fsize(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static void rm_db(const char *p)
{
    char l[600];
    snprintf(l, sizeof l, "%s.lock", p);
    unlink(p);
    unlink(l);
}

static cs_env *open_env(const char *path, int shrink)
{
    cs_options o = {0};
    o.durability = CS_DURABLE_FULL;
    o.auto_shrink = (uint32_t)shrink;
    cs_env *env;
    OK(cs_env_open(path, &o, &env));
    return env;
}

static void put_range(cs_env *env, long from, long to, long step, long per_txn)
{
    char k[16], v[100];
    memset(v, 'v', sizeof v);
    cs_txn *t = NULL;
    cs_tree tr;
    long in = 0;
    for (long i = from; i < to; i += step) {
        if (!t) {
            OK(cs_txn_begin(env, 0, &t));
            OK(cs_tree_open(t, "objects", CS_CREATE, &tr));
        }
        snprintf(k, sizeof k, "%010ld", i);
        memcpy(v, k, 10);
        OK(cs_put(t, tr, (cs_val){k, 10}, (cs_val){v, sizeof v}, 0));
        if (++in == per_txn) {
            OK(cs_txn_commit(t));
            t = NULL, in = 0;
        }
    }
    if (t) OK(cs_txn_commit(t));
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n small commits (one put of a new key each), reader renewed after each;
 * latencies in ms into lat. */
static void small_commits(cs_env *env, cs_txn *reader, long n, long key0, double *lat)
{
    char k[16], v[100];
    memset(v, 's', sizeof v);
    for (long c = 0; c < n; c++) {
        cs_txn *t;
        cs_tree tr;
        double t0 = now();
        OK(cs_txn_begin(env, 0, &t));
        OK(cs_tree_open(t, "objects", 0, &tr));
        snprintf(k, sizeof k, "%010ld", key0 + c * 10);
        OK(cs_put(t, tr, (cs_val){k, 10}, (cs_val){v, sizeof v}, 0));
        OK(cs_txn_commit(t));
        lat[c] = (now() - t0) * 1e3;
        OK(cs_txn_reset(reader));
        OK(cs_txn_renew(reader));
    }
}

static void pct(const char *what, double *lat, long n)
{
    qsort(lat, (size_t)n, sizeof *lat, cmp_d);
    double sum = 0;
    for (long i = 0; i < n; i++) sum += lat[i];
    printf("  %-34s p50 %.3f ms  p99 %.3f ms  mean %.3f ms\n", what, lat[n / 2], lat[n * 99 / 100], sum / (double)n);
}

/* The entries left: every tenth of n, plus keys 3, 13, ... and 5, 15, ...
 * (1,000 each) added by small commits; the fresh file holds the same. */
static void run(const char *dir, long n, int shrink)
{
    char path[512], fresh[512];
    snprintf(path, sizeof path, "%s/shrink-%d.db", dir, shrink);
    snprintf(fresh, sizeof fresh, "%s/fresh-%d.db", dir, shrink);
    rm_db(path), rm_db(fresh);
    cs_env *env = open_env(path, shrink);
    double t0 = now();
    put_range(env, 0, n, 1, 100000);
    cs_txn *reader;
    OK(cs_txn_begin(env, CS_TXN_RDONLY, &reader));
    enum { SMALL = 1000 };
    double *lat = malloc(SMALL * sizeof *lat);
    double *lat0 = malloc(SMALL * sizeof *lat0);
    small_commits(env, reader, SMALL, 3, lat0); /* the fresh file: the switch's own cost */
    long long full = fsize(path);
    OK(cs_txn_reset(reader));
    OK(cs_txn_renew(reader)); /* holds the full snapshot during the deletes */
    double t1 = now();
    {
        char k[16];
        cs_txn *t = NULL;
        cs_tree tr;
        long in = 0;
        for (long i = 0; i < n; i++) {
            if (i % 10 == 0) continue;
            if (!t) {
                OK(cs_txn_begin(env, 0, &t));
                OK(cs_tree_open(t, "objects", 0, &tr));
            }
            snprintf(k, sizeof k, "%010ld", i);
            OK(cs_del(t, tr, (cs_val){k, 10}));
            if (++in == 100000) {
                OK(cs_txn_commit(t));
                t = NULL, in = 0;
            }
        }
        if (t) OK(cs_txn_commit(t));
    }
    double t2 = now();
    long long after_del = fsize(path);
    OK(cs_txn_reset(reader));
    OK(cs_txn_renew(reader));
    double t3 = now();
    small_commits(env, reader, SMALL, 5, lat); /* keys ending in 5: new entries */
    double t4 = now();
    long long after = fsize(path);
    cs_check_report rep;
    OK(cs_check(env, &rep));
    uint64_t entries = rep.entries;
    printf("auto_shrink %s (%ld entries):\n", shrink ? "ON" : "OFF", n);
    printf("  fill %.1f s, delete 90%% %.1f s, 1000 small commits %.2f s\n", t1 - t0, t2 - t1, t4 - t3);
    pct("small commits, full file:", lat0, SMALL);
    pct("small commits after the deletes:", lat, SMALL);
    /* the settled file: the cost of the switch on ordinary commits */
    small_commits(env, reader, SMALL, 7, lat);
    pct("1000 more (settled file):", lat, SMALL);
    long long settled = fsize(path);
    cs_env_info in;
    OK(cs_env_get_info(env, &in));
    printf("  settled: next_pgno %llu, free %llu, pending %llu pages\n", (unsigned long long)in.next_pgno,
           (unsigned long long)in.free_pages, (unsigned long long)in.pending_pages);
    OK(cs_txn_abort(reader));
    OK(cs_env_close(env));
    /* a fresh file holding the entries left after the first 1000 commits */
    cs_env *fe = open_env(fresh, 0);
    put_range(fe, 0, n, 10, 100000);
    put_range(fe, 3, 3 + SMALL * 10, 10, SMALL);
    put_range(fe, 5, 5 + SMALL * 10, 10, SMALL);
    OK(cs_env_close(fe));
    long long fr = fsize(fresh);
    printf("  file: full %.1f MiB, after deletes %.1f MiB, after 1000 commits %.1f MiB (%llu entries), "
           "after 2000 %.1f MiB\n",
           full / 1048576.0, after_del / 1048576.0, after / 1048576.0, (unsigned long long)entries,
           settled / 1048576.0);
    printf("  fresh file with the same entries %.1f MiB: ratio %.2f (bar <= 1.30 with the switch on)\n",
           fr / 1048576.0, (double)after / (double)fr);
    free(lat);
    free(lat0);
    rm_db(path), rm_db(fresh);
}

static void sql(sqlite3 *db, const char *text)
{
    char *err = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s: %s\n", text, err ? err : "?");
        exit(1);
    }
}

static void sqlite_run(const char *dir, long n)
{
    char path[600], wal[620], shm[620];
    snprintf(path, sizeof path, "%s/shrink-bench.sqlite", dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    unlink(path), unlink(wal), unlink(shm);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) exit(1);
    sql(db, "PRAGMA journal_mode = WAL");
    sql(db, "PRAGMA synchronous = FULL");
    sql(db, "CREATE TABLE objects (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
    sqlite3_stmt *put, *del;
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO objects VALUES (?, ?)", -1, &put, NULL);
    sqlite3_prepare_v2(db, "DELETE FROM objects WHERE k = ?", -1, &del, NULL);
    char k[16], v[100];
    memset(v, 'v', sizeof v);
    sql(db, "BEGIN");
    for (long i = 0; i < n; i++) {
        snprintf(k, sizeof k, "%010ld", i);
        sqlite3_reset(put);
        sqlite3_bind_blob(put, 1, k, 10, SQLITE_TRANSIENT);
        sqlite3_bind_blob(put, 2, v, sizeof v, SQLITE_TRANSIENT);
        if (sqlite3_step(put) != SQLITE_DONE) exit(1);
    }
    sql(db, "COMMIT");
    for (long from = 0; from < n; from += 100000) {
        sql(db, "BEGIN");
        for (long i = from; i < from + 100000 && i < n; i++) {
            if (i % 10 == 0) continue;
            snprintf(k, sizeof k, "%010ld", i);
            sqlite3_reset(del);
            sqlite3_bind_blob(del, 1, k, 10, SQLITE_TRANSIENT);
            if (sqlite3_step(del) != SQLITE_DONE) exit(1);
        }
        sql(db, "COMMIT");
    }
    for (long c = 0; c < 1000; c++) {
        snprintf(k, sizeof k, "%010ld", n + c * 10);
        sqlite3_reset(put);
        sqlite3_bind_blob(put, 1, k, 10, SQLITE_TRANSIENT);
        sqlite3_bind_blob(put, 2, v, sizeof v, SQLITE_TRANSIENT);
        if (sqlite3_step(put) != SQLITE_DONE) exit(1);
    }
    sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    long long before = fsize(path);
    double t0 = now();
    sql(db, "VACUUM");
    sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    double took = now() - t0;
    printf("sqlite (no auto_vacuum), same steps: file %.1f MiB; VACUUM (exclusive) %.0f ms -> %.1f MiB\n",
           (double)before / 1048576.0, took * 1e3, (double)fsize(path) / 1048576.0);
    sqlite3_finalize(put);
    sqlite3_finalize(del);
    sqlite3_close(db);
    unlink(path), unlink(wal), unlink(shm);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    run(dir, n, 1);
    run(dir, n, 0);
    sqlite_run(dir, n);
    return 0;
}
