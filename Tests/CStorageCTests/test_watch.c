/* test_watch.c — waiting for commits (cs_env_wait_commit): a commit by
 * another thread or another process wakes a waiting thread without
 * polling; a waiter with nothing to see times out; cs_env_wake_waiters
 * ends a wait early; a commit made before the wait is seen at once. The
 * waits use long timeouts: a wake that never came shows as CS_NOTFOUND. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static tpath g_path;

/* One commit (the tree is opened in the same transaction: a separate
 * commit for it would publish twice, and a waiter woken by the first would
 * see the second as a commit after its wait). */
static void commit_one(cs_env *env, const char *key) {
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "w", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, VS(key), VS("v"), 0));
    REQUIRE_OK(cs_txn_commit(t));
}

typedef struct {
    cs_env *env;
    uint64_t seq;
    int rc;
} waiter;

static void *wait_thread(void *arg) {
    waiter *w = arg;
    w->rc = cs_env_wait_commit(w->env, &w->seq, 60000);
    return NULL;
}

static void same_process(void) {
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    uint64_t seq = 0;
    CHECK_OK(cs_env_commit_seq(env, &seq));
    /* nothing committed: the wait times out */
    uint64_t before = seq;
    CHECK_RC(cs_env_wait_commit(env, &seq, 20), CS_NOTFOUND);
    CHECK_EQ(seq, before);
    /* a commit before the wait is seen at once */
    commit_one(env, "a");
    CHECK_OK(cs_env_wait_commit(env, &seq, 60000));
    CHECK(seq > before);
    /* another thread's commit wakes a waiting thread */
    waiter w = {env, seq, -1};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, wait_thread, &w) == 0);
    usleep(20000);
    commit_one(env, "b");
    pthread_join(th, NULL);
    CHECK_OK(w.rc);
    CHECK(w.seq > seq);
    /* a wakeup without a commit ends the wait */
    waiter idle = {env, w.seq, -1};
    REQUIRE(pthread_create(&th, NULL, wait_thread, &idle) == 0);
    usleep(20000);
    CHECK_OK(cs_env_wake_waiters(env));
    pthread_join(th, NULL);
    CHECK_RC(idle.rc, CS_NOTFOUND);
    CHECK_EQ(idle.seq, w.seq);
    CHECK_RC(cs_env_wait_commit(NULL, &seq, 1), CS_EINVAL);
    CHECK_RC(cs_env_wait_commit(env, NULL, 1), CS_EINVAL);
    CHECK_RC(cs_env_commit_seq(env, NULL), CS_EINVAL);
    CHECK_RC(cs_env_wake_waiters(NULL), CS_EINVAL);
    CHECK_OK(cs_env_close(env));
}

/* A child process commits; the parent, waiting, wakes. */
static void other_process(void) {
    cs_env *env;
    REQUIRE_OK(test_open(g_path.s, 0, &env));
    commit_one(env, "tree exists");
    uint64_t seq = 0;
    CHECK_OK(cs_env_commit_seq(env, &seq));
    int go[2];
    REQUIRE(pipe(go) == 0);
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        char c;
        if (read(go[0], &c, 1) != 1) _exit(2);
        cs_env *child;
        if (test_open(g_path.s, 0, &child) != CS_OK) _exit(3);
        commit_one(child, "from the child");
        cs_env_close(child);
        _exit(atomic_load(&test_failed) ? 1 : 0);
    }
    waiter w = {env, seq, -1};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, wait_thread, &w) == 0);
    usleep(20000);
    REQUIRE(write(go[1], "g", 1) == 1);
    pthread_join(th, NULL);
    CHECK_OK(w.rc);
    CHECK(w.seq > seq);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(go[0]);
    close(go[1]);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    alarm(300);
    g_path = test_path("watch.db");
    test_rm_db(g_path.s);
    same_process();
    other_process();
    return test_report();
}
