/* test_deferred: grouped commits (cs_txn_commit_deferred + cs_env_sync).
 *
 * Deferred commits are visible at once, cost no flush, become durable with
 * the next sync, and a crash before that loses them without touching the
 * durable commit: its pages must not be reused while commits are deferred. */
#include "test.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int syncs;
static int count_sync(void *ctx, int fd)
{
    (void)ctx;
    syncs++;
    return fdatasync(fd) ? 1 : 0;
}
static const cs_io_hooks counting = {.sync = count_sync};

static cs_env *open_counting(const char *path)
{
    cs_options o = {0};
    o.io = &counting;
    cs_env *env = NULL;
    REQUIRE_OK(cs_env_open(path, &o, &env));
    return env;
}

/* Overwrite keys k0..k49 with value v, committing deferred or not. */
static void write_round(cs_env *env, uint32_t v, int deferred)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
    for (int i = 0; i < 50; i++) {
        char k[16], val[200];
        snprintf(k, sizeof k, "k%02d", i);
        memset(val, 0, sizeof val);
        memcpy(val, &v, sizeof v);
        CHECK_OK(cs_put(t, tr, VS(k), V(val, sizeof val), 0));
    }
    if (deferred) CHECK_OK(cs_txn_commit_deferred(t));
    else CHECK_OK(cs_txn_commit(t));
}

/* Every key holds round v? */
static int holds(cs_env *env, uint32_t v)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    int ok = cs_tree_open(t, "t", 0, &tr) == CS_OK;
    for (int i = 0; ok && i < 50; i++) {
        char k[16];
        cs_val val;
        uint32_t got;
        snprintf(k, sizeof k, "k%02d", i);
        ok = cs_get(t, tr, VS(k), &val) == CS_OK && val.size == 200;
        if (ok) memcpy(&got, val.data, 4), ok = got == v;
    }
    cs_txn_abort(t);
    return ok;
}

static void clean(cs_env *env)
{
    cs_check_report r;
    CHECK_OK(cs_check(env, &r));
    CHECK_EQ(r.errors, 0);
}

int main(void)
{
    tpath p = test_path("deferred.db");

    /* Visible at once, no flushes, one group flush. */
    cs_env *env = open_counting(p.s);
    write_round(env, 1, 0);
    syncs = 0;
    uint64_t before, after;
    CHECK_OK(cs_env_last_txnid(env, &before));
    for (uint32_t v = 2; v <= 101; v++) write_round(env, v, 1);
    CHECK_OK(cs_env_last_txnid(env, &after));
    CHECK_EQ(after - before, 100);
    CHECK_EQ(syncs, 0);
    CHECK(holds(env, 101));
    CHECK_OK(cs_env_sync(env));
    CHECK_EQ(syncs, 2); /* data, then meta: for all 100 commits */
    clean(env);
    CHECK_OK(cs_env_close(env));
    env = open_counting(p.s);
    CHECK(holds(env, 101));
    CHECK_OK(cs_env_close(env));

    /* A crash with deferred commits pending: they are lost, the durable
     * commit is whole, even though 300 rounds of overwrites ran. */
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cs_env *e = open_counting(p.s);
        for (uint32_t v = 200; v < 500; v++) write_round(e, v, 1);
        _exit(holds(e, 499) ? 0 : 3); /* no close: a crash */
    }
    int st;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    env = open_counting(p.s);
    CHECK(holds(env, 101));
    clean(env);

    /* After deferred commits, a normal commit makes them all durable. */
    for (uint32_t v = 600; v < 610; v++) write_round(env, v, 1);
    write_round(env, 610, 0);
    CHECK_OK(cs_env_close(env));
    env = open_counting(p.s);
    CHECK(holds(env, 610));
    clean(env);

    /* Close flushes pending deferred commits. */
    write_round(env, 700, 1);
    CHECK_OK(cs_env_close(env));
    env = open_counting(p.s);
    CHECK(holds(env, 700));
    clean(env);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
    return test_report();
}
