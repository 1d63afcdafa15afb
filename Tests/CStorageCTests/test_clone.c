/* test_clone: cs_txn_clone and cs_env_active_versions.
 *
 * A clone reads exactly its source's snapshot through its own slot, so that
 * threads can share one pinned version (frozen Realms), and it keeps that
 * snapshot alive after the source ends. Active versions count the distinct
 * snapshots readers pin, which is what lets a caller cap file growth. */
#include "test.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define KEYS 2000

/* Round v: every key k0000..k1999 holds v; returns nothing. */
static void write_round(cs_env *env, uint32_t v)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
    for (int i = 0; i < KEYS; i++) {
        char k[16], val[64] = {0};
        snprintf(k, sizeof k, "k%04d", i);
        memcpy(val, &v, sizeof v);
        CHECK_OK(cs_put(t, tr, VS(k), V(val, sizeof val), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
}

/* True if txn sees round v on every key. */
static int sees(cs_txn *t, uint32_t v)
{
    cs_tree tr;
    if (cs_tree_open(t, "t", 0, &tr) != CS_OK) return 0;
    for (int i = 0; i < KEYS; i++) {
        char k[16];
        cs_val val;
        uint32_t got;
        snprintf(k, sizeof k, "k%04d", i);
        if (cs_get(t, tr, VS(k), &val) != CS_OK || val.size != 64) return 0;
        memcpy(&got, val.data, sizeof got);
        if (got != v) return 0;
    }
    return 1;
}

struct reader { cs_txn *src; uint32_t want; int ok; };

/* cs_env_readers' callback: collects (pid, txnid) pairs. */
struct slots { int n; uint32_t pid[8]; uint64_t txnid[8]; int stop_at; };
static int collect(void *ctx, uint32_t pid, uint64_t txnid)
{
    struct slots *s = ctx;
    if (s->n < 8) s->pid[s->n] = pid, s->txnid[s->n] = txnid;
    s->n++;
    return s->n == s->stop_at ? 77 : 0;
}

static void *read_clone(void *arg)
{
    struct reader *r = arg;
    cs_txn *c;
    r->ok = cs_txn_clone(r->src, &c) == CS_OK;
    for (int i = 0; r->ok && i < 20; i++) r->ok = sees(c, r->want);
    if (r->ok) cs_txn_abort(c);
    return NULL;
}

int main(void)
{
    tpath p = test_path("clone.db");
    cs_env *env;
    REQUIRE_OK(cs_env_open(p.s, NULL, &env));
    write_round(env, 1);

    cs_txn *src, *clone;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &src));
    uint32_t versions;
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 1); /* the reader holds the newest */

    write_round(env, 2);
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 1); /* still the one it holds; the newest is unpinned */

    /* The clone sees the source's version, not the newest. */
    REQUIRE_OK(cs_txn_clone(src, &clone));
    CHECK_EQ(cs_txn_id(clone), cs_txn_id(src));
    CHECK(sees(clone, 1));
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 1); /* same snapshot twice counts once */
    cs_txn *newest;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &newest));
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 2);
    /* cs_env_readers: each reader slot with its pid and snapshot */
    struct slots sl = {0};
    CHECK_OK(cs_env_readers(env, collect, &sl));
    CHECK_EQ(sl.n, 3); /* src, its clone, newest */
    int at_src = 0, at_newest = 0;
    for (int i = 0; i < sl.n && i < 8; i++) {
        CHECK_EQ(sl.pid[i], (uint32_t)getpid());
        at_src += sl.txnid[i] == cs_txn_id(src);
        at_newest += sl.txnid[i] == cs_txn_id(newest);
    }
    CHECK_EQ(at_src, 2);
    CHECK_EQ(at_newest, 1);
    struct slots stop = {.stop_at = 1};
    CHECK_EQ(cs_env_readers(env, collect, &stop), 77); /* fn's non-zero stops the walk */
    CHECK_EQ(stop.n, 1);
    CHECK_EQ(cs_env_readers(env, NULL, NULL), CS_EINVAL);
    CHECK_OK(cs_txn_abort(newest));

    /* Four threads read the same version at once, each through a clone,
     * while a writer keeps overwriting (their pages must not be reused). */
    struct reader rs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        rs[i] = (struct reader){src, 1, 0};
        REQUIRE(pthread_create(&th[i], NULL, read_clone, &rs[i]) == 0);
    }
    for (uint32_t v = 3; v < 8; v++) write_round(env, v);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(rs[i].ok);
    }

    /* The clone outlives its source and still pins the snapshot. */
    CHECK_OK(cs_txn_abort(src));
    for (uint32_t v = 8; v < 12; v++) write_round(env, v);
    CHECK(sees(clone, 1));
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 1);
    CHECK_OK(cs_txn_abort(clone));
    CHECK_OK(cs_env_active_versions(env, &versions));
    CHECK_EQ(versions, 0);

    /* A reset source cannot be cloned; a write txn neither. */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &src));
    CHECK_OK(cs_txn_reset(src));
    CHECK_RC(cs_txn_clone(src, &clone), CS_EINVAL);
    CHECK_OK(cs_txn_renew(src));
    CHECK_OK(cs_txn_clone(src, &clone));
    CHECK(sees(clone, 11));
    CHECK_OK(cs_txn_abort(clone));
    CHECK_OK(cs_txn_abort(src));
    cs_txn *w;
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    CHECK_RC(cs_txn_clone(w, &clone), CS_EINVAL);
    CHECK_OK(cs_txn_abort(w));
    CHECK_RC(cs_txn_clone(NULL, &clone), CS_EINVAL);

    /* Without readers, versions freed by old commits are reused: the file
     * stops growing under repeated overwrites. */
    cs_env_info a, b;
    for (uint32_t v = 20; v < 30; v++) write_round(env, v);
    CHECK_OK(cs_env_get_info(env, &a));
    for (uint32_t v = 30; v < 60; v++) write_round(env, v);
    CHECK_OK(cs_env_get_info(env, &b));
    CHECK_EQ(b.next_pgno, a.next_pgno);

    CHECK_OK(cs_env_close(env));
    return test_report();
}
