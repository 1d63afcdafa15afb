/* test_log.c — cs_options.log: which messages come at which level, that
 * nothing is formatted or sent above the level, that the function runs with
 * no engine lock held (it starts a write transaction on the same env from
 * a commit's message), and that a failure's detail survives the message. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dbfile.h"
#include "test.h"

typedef struct {
    char text[16][256];
    cs_log_level level[16];
    cs_log_topic topic[16];
    int n;
    cs_env *reenter; /* begin and commit a write on it from a commit message */
    int reentered;
} sink;

static void collect(void *ctx, cs_log_level level, cs_log_topic topic, const char *message)
{
    sink *s = ctx;
    if (s->n < 16) {
        snprintf(s->text[s->n], sizeof s->text[0], "%s", message);
        s->level[s->n] = level;
        s->topic[s->n] = topic;
    }
    s->n++;
    if (s->reenter && topic == CS_LOG_TOPIC_TXN && strncmp(message, "Commit of txn", 13) == 0) {
        cs_env *env = s->reenter;
        s->reenter = NULL; /* once: this commit logs too */
        cs_txn *t;
        if (cs_txn_begin(env, CS_TXN_TRY, &t) == CS_OK && cs_txn_commit(t) == CS_OK) s->reentered = 1;
    }
}

static int find(const sink *s, const char *prefix)
{
    for (int i = 0; i < s->n && i < 16; i++)
        if (strncmp(s->text[i], prefix, strlen(prefix)) == 0) return i;
    return -1;
}

static void put_one(cs_env *env)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
    REQUIRE_OK(cs_txn_commit(t));
}

static void test_levels(void)
{
    tpath p = test_path("log.db");
    sink s = {0};
    cs_options o = {0};
    o.log = collect;
    o.log_ctx = &s;
    o.log_level = CS_LOG_INFO; /* open, close and commits are below it */
    cs_env *env;
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    put_one(env);
    CHECK_EQ(s.n, 0);

    CHECK_OK(cs_env_set_log_level(env, CS_LOG_DEBUG));
    put_one(env);
    int i = find(&s, "Commit of txn");
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_EQ(s.level[i], CS_LOG_DEBUG);
        CHECK_EQ(s.topic[i], CS_LOG_TOPIC_TXN);
        CHECK(strstr(s.text[i], "pages written") != NULL);
    }
    CHECK_RC(cs_env_set_log_level(env, (cs_log_level)99), CS_EINVAL);
    CHECK_RC(cs_env_set_log_level(NULL, CS_LOG_OFF), CS_EINVAL);

    /* The function uses the env (a whole write transaction) from inside a
     * commit's message: it would deadlock on the writer mutex if the
     * engine still held it. */
    s.reenter = env;
    put_one(env);
    CHECK(s.reentered);
    CHECK_OK(cs_env_close(env));
    CHECK(find(&s, "Closed ") >= 0);

    /* Open at DETAIL: the open message. */
    s.n = 0;
    o.log_level = CS_LOG_DETAIL;
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    i = find(&s, "Opened ");
    CHECK(i >= 0);
    if (i >= 0) CHECK_EQ(s.level[i], CS_LOG_DETAIL);
    CHECK_OK(cs_env_close(env));

    o.log_level = (cs_log_level)(CS_LOG_ALL + 1);
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
    test_rm_db(p.s);
}

static void test_failure_keeps_detail(void)
{
    sink s = {0};
    cs_options o = {0};
    o.log = collect;
    o.log_ctx = &s;
    o.log_level = CS_LOG_ERROR;
    o.flags = CS_ENV_RDONLY;
    tpath p = test_path("log-missing.db");
    cs_env *env = NULL;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_NOTFOUND);
    int i = find(&s, "Cannot open ");
    CHECK(i >= 0);
    if (i >= 0) CHECK_EQ(s.level[i], CS_LOG_ERROR);
    /* The detail the caller reads is the failure's, not the message's. */
    CHECK(strstr(cs_last_error_detail(), "cannot open") != NULL);
}

/* Open after a crash that left the newest meta damaged: the first opener
 * falls back to the other meta and says so at WARN. */
static void test_recovery_at_open(void)
{
    tpath p = test_path("log-recover.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    put_one(env);
    put_one(env);
    CHECK_OK(cs_env_close(env));
    int fd = open(p.s, O_RDWR);
    REQUIRE(fd >= 0);
    cs_meta m;
    int slot = dbfile_newest_meta(fd, &m);
    REQUIRE(slot >= 0);
    uint64_t damaged = m.next_pgno + 7; /* checksum no longer matches */
    REQUIRE(pwrite(fd, &damaged, sizeof damaged, (off_t)slot * m.page_size + (off_t)offsetof(cs_meta, next_pgno)) ==
            (ssize_t)sizeof damaged);
    close(fd);

    sink s = {0};
    cs_options o = {0};
    o.log = collect;
    o.log_ctx = &s;
    o.log_level = CS_LOG_WARN;
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    int i = find(&s, p.s);
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_EQ(s.level[i], CS_LOG_WARN);
        CHECK(strstr(s.text[i], "recovered at the last durable commit") != NULL);
    }
    CHECK_EQ(s.n, 1);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
}

/* A reader process dies holding its slot; a later write transaction of
 * this process clears the slot (under the writer mutex) and the message
 * comes after, at INFO. */
static void test_dead_reader_cleared(void)
{
    tpath p = test_path("log-dead.db");
    sink s = {0};
    cs_options o = {0};
    o.log = collect;
    o.log_ctx = &s;
    o.log_level = CS_LOG_INFO;
    cs_env *env;
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    put_one(env);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cs_env *child;
        cs_txn *t;
        if (cs_env_open(p.s, NULL, &child) != CS_OK || cs_txn_begin(child, CS_TXN_RDONLY, &t) != CS_OK) _exit(2);
        _exit(0); /* dies with its reader slot taken */
    }
    int st;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    put_one(env); /* the dead reader's snapshot is the newest: not yet in the way */
    put_one(env); /* now it is older than the newest: cleared */
    int i = find(&s, p.s);
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_EQ(s.level[i], CS_LOG_INFO);
        CHECK(strstr(s.text[i], "cleared 1 reader slot of dead processes") != NULL);
    }
    CHECK_EQ(s.n, 1);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
}

int main(void)
{
    test_levels();
    test_failure_keeps_detail();
    test_recovery_at_open();
    test_dead_reader_cleared();
    return test_report();
}
