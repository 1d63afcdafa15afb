/*
 * driver_lmdb.c — LMDB through the bench driver vtable.
 *
 * Settings: one unnamed database, default flags, mapsize 1 GiB + 16x the
 * data. Non-sync databases are opened with MDB_NOSYNC (no fdatasync at all,
 * the equivalent of CS_DURABLE_NO_SYNC); fillsync uses LMDB's default, fully
 * durable commit (data fdatasync, then the meta page written through the
 * O_DSYNC descriptor). MDB_NOMETASYNC, MDB_WRITEMAP, MDB_MAPASYNC and
 * MDB_APPEND are not used. Read transactions are reused with
 * mdb_txn_reset/renew.
 */
#include "bench.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_db {
    MDB_env *env;
    MDB_dbi dbi;
};

struct bench_sess {
    bench_db *db;
    MDB_txn *txn;     /* the open transaction, or NULL                */
    MDB_txn *rtxn;    /* reusable read transaction (reset when idle)  */
    MDB_cursor *cur;  /* cursor bound to rtxn, reused by scans        */
};

#define CHECK(call) do { int rc_ = (call); \
    if (rc_ != MDB_SUCCESS) return bench_fail("lmdb: %s: %s", #call, mdb_strerror(rc_)); } while (0)

static const char *l_describe(void)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s; MDB_NOSYNC except fillsync (default sync: data fdatasync + O_DSYNC meta)",
             mdb_version(NULL, NULL, NULL));
    return buf;
}

static int l_open(const char *dir, bench_sync sync, uint64_t data_hint, bench_db **out)
{
    bench_db *db = xmalloc(sizeof *db);
    *db = (bench_db){0};
    *out = db;
    CHECK(mdb_env_create(&db->env));
    CHECK(mdb_env_set_mapsize(db->env, (size_t)((1ull << 30) + 16 * data_hint)));
    CHECK(mdb_env_set_maxreaders(db->env, 126));
    CHECK(mdb_env_open(db->env, dir, sync == BENCH_FULLSYNC ? 0 : MDB_NOSYNC, 0644));
    MDB_txn *txn;
    CHECK(mdb_txn_begin(db->env, NULL, 0, &txn));
    CHECK(mdb_dbi_open(txn, NULL, 0, &db->dbi));
    CHECK(mdb_txn_commit(txn));
    return BENCH_OK;
}

static int l_close(bench_db *db)
{
    if (db->env)
        mdb_env_close(db->env);
    free(db);
    return BENCH_OK;
}

static int l_session(bench_db *db, bench_sess **out)
{
    bench_sess *s = xmalloc(sizeof *s);
    *s = (bench_sess){.db = db};
    *out = s;
    return BENCH_OK;
}

static void l_session_close(bench_sess *s)
{
    if (s->txn && s->txn != s->rtxn)
        mdb_txn_abort(s->txn);
    if (s->cur)
        mdb_cursor_close(s->cur);
    if (s->rtxn)
        mdb_txn_abort(s->rtxn);
    free(s);
}

static int l_begin(bench_sess *s, bool write)
{
    if (write) {
        CHECK(mdb_txn_begin(s->db->env, NULL, 0, &s->txn));
    } else if (s->rtxn) {
        CHECK(mdb_txn_renew(s->rtxn));
        s->txn = s->rtxn;
    } else {
        CHECK(mdb_txn_begin(s->db->env, NULL, MDB_RDONLY, &s->rtxn));
        s->txn = s->rtxn;
    }
    return BENCH_OK;
}

static int l_commit(bench_sess *s)
{
    MDB_txn *t = s->txn;
    s->txn = NULL;
    if (t == s->rtxn) {
        mdb_txn_reset(t);
        return BENCH_OK;
    }
    CHECK(mdb_txn_commit(t));
    return BENCH_OK;
}

static int l_put(bench_sess *s, const void *k, size_t kl, const void *v, size_t vl)
{
    MDB_val key = {kl, (void *)k}, val = {vl, (void *)v};
    CHECK(mdb_put(s->txn, s->db->dbi, &key, &val, 0));
    return BENCH_OK;
}

static int l_get(bench_sess *s, const void *k, size_t kl, bench_val *out)
{
    MDB_val key = {kl, (void *)k}, val;
    int rc = mdb_get(s->txn, s->db->dbi, &key, &val);
    if (rc == MDB_NOTFOUND)
        return BENCH_NOTFOUND;
    CHECK(rc);
    out->data = val.mv_data;
    out->size = val.mv_size;
    return BENCH_OK;
}

static int l_del(bench_sess *s, const void *k, size_t kl)
{
    MDB_val key = {kl, (void *)k};
    int rc = mdb_del(s->txn, s->db->dbi, &key, NULL);
    if (rc == MDB_NOTFOUND)
        return BENCH_NOTFOUND;
    CHECK(rc);
    return BENCH_OK;
}

static int l_scan(bench_sess *s, bool reverse, uint64_t *count, uint64_t *sum)
{
    bool reuse = s->txn == s->rtxn; /* read txn: keep the cursor for next time */
    MDB_cursor *cur;
    if (reuse && s->cur) {
        CHECK(mdb_cursor_renew(s->txn, s->cur));
        cur = s->cur;
    } else {
        CHECK(mdb_cursor_open(s->txn, s->db->dbi, &cur));
        if (reuse)
            s->cur = cur;
    }
    MDB_val k, v;
    uint64_t n = 0, f = 0;
    MDB_cursor_op op = reverse ? MDB_LAST : MDB_FIRST;
    int rc;
    while ((rc = mdb_cursor_get(cur, &k, &v, op)) == MDB_SUCCESS) {
        n++;
        f += ((const uint8_t *)k.mv_data)[0] + (v.mv_size ? ((const uint8_t *)v.mv_data)[0] : 0);
        op = reverse ? MDB_PREV : MDB_NEXT;
    }
    if (!reuse)
        mdb_cursor_close(cur);
    if (rc != MDB_NOTFOUND)
        return bench_fail("lmdb: mdb_cursor_get: %s", mdb_strerror(rc));
    *count = n;
    *sum = f;
    return BENCH_OK;
}

static int l_used_bytes(bench_db *db, uint64_t *out)
{
    MDB_envinfo info;
    MDB_stat st;
    CHECK(mdb_env_info(db->env, &info));
    CHECK(mdb_env_stat(db->env, &st));
    *out = (uint64_t)(info.me_last_pgno + 1) * st.ms_psize;
    return BENCH_OK;
}

static int l_shape(bench_db *db, char *buf, size_t len)
{
    MDB_txn *txn;
    MDB_stat st;
    CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    int rc = mdb_stat(txn, db->dbi, &st);
    mdb_txn_abort(txn);
    CHECK(rc);
    snprintf(buf, len, "depth %u, %zu branch + %zu leaf + %zu overflow pages", st.ms_depth,
             st.ms_branch_pages, st.ms_leaf_pages, st.ms_overflow_pages);
    return BENCH_OK;
}

const bench_driver driver_lmdb = {
    .name = "lmdb",
    .describe = l_describe,
    .open = l_open,
    .close = l_close,
    .session = l_session,
    .session_close = l_session_close,
    .begin = l_begin,
    .commit = l_commit,
    .put = l_put,
    .get = l_get,
    .del = l_del,
    .scan = l_scan,
    .used_bytes = l_used_bytes,
    .shape = l_shape,
};
