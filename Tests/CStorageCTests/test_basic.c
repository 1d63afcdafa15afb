/* test_basic.c — single-key operations, limits, value sizes, persistence,
 * argument checking, in-memory and read-only envs, error strings. */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "test.h"

static cs_env *open_db(const char *path) {
    cs_env *env = NULL;
    REQUIRE_OK(test_open(path, 0, &env));
    return env;
}

static void test_put_get_del(void) {
    tpath p = test_path("basic.db");
    cs_env *env = open_db(p.s);
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK(!cs_txn_is_readonly(t));
    REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
    CHECK_RC(cs_get(t, tr, VS("a"), &v), CS_NOTFOUND);
    CHECK_OK(cs_put(t, tr, VS("a"), VS("1"), 0));
    CHECK_OK(cs_get(t, tr, VS("a"), &v));
    CHECK_VAL(v, "1", 1);
    CHECK_OK(cs_put(t, tr, VS("a"), VS("two"), 0)); /* overwrite */
    CHECK_OK(cs_get(t, tr, VS("a"), &v));
    CHECK_VAL(v, "two", 3);
    CHECK_RC(cs_put(t, tr, VS("a"), VS("x"), CS_NOOVERWRITE), CS_EXISTS);
    CHECK_OK(cs_get(t, tr, VS("a"), &v));
    CHECK_VAL(v, "two", 3);
    CHECK_OK(cs_put(t, tr, VS("b"), VS(""), CS_NOOVERWRITE)); /* empty value */
    CHECK_OK(cs_get(t, tr, VS("b"), &v));
    CHECK_EQ(v.size, 0);
    CHECK_RC(cs_del(t, tr, VS("zz")), CS_NOTFOUND);
    CHECK_OK(cs_del(t, tr, VS("b")));
    CHECK_RC(cs_del(t, tr, VS("b")), CS_NOTFOUND);
    CHECK_RC(cs_get(t, tr, VS("b"), &v), CS_NOTFOUND);
    /* prefixes are distinct keys */
    CHECK_OK(cs_put(t, tr, VS("ab"), VS("AB"), 0));
    CHECK_OK(cs_put(t, tr, VS("abc"), VS("ABC"), 0));
    CHECK_OK(cs_get(t, tr, VS("ab"), &v));
    CHECK_VAL(v, "AB", 2);
    uint64_t n = 0;
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 3);
    REQUIRE_OK(cs_txn_commit(t));

    /* read txn: zero-copy means the same bytes in the map each time */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK(cs_txn_is_readonly(t));
    cs_val v2;
    CHECK_OK(cs_get(t, tr, VS("abc"), &v));
    CHECK_OK(cs_get(t, tr, VS("abc"), &v2));
    CHECK(v.data == v2.data);
    CHECK_VAL(v, "ABC", 3);
    CHECK_RC(cs_put(t, tr, VS("q"), VS("q"), 0), CS_EREADONLY);
    CHECK_RC(cs_del(t, tr, VS("a")), CS_EREADONLY);
    CHECK_OK(cs_txn_commit(t)); /* commit of a read txn ends it */
    CHECK_OK(cs_env_close(env));

    env = open_db(p.s); /* persistence */
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
    CHECK_OK(cs_get(t, tr, VS("a"), &v));
    CHECK_VAL(v, "two", 3);
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 3);
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

static void test_key_limits(void) {
    tpath p = test_path("keys.db");
    cs_env *env = open_db(p.s);
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    char big[CS_MAX_KEY + 2];
    test_fill(big, sizeof big, 7);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "k", CS_CREATE, &tr));
    CHECK_RC(cs_put(t, tr, V("", 0), VS("x"), 0), CS_EKEYSIZE);
    CHECK_RC(cs_put(t, tr, V(big, CS_MAX_KEY + 1), VS("x"), 0), CS_EKEYSIZE);
    int r = cs_get(t, tr, V(big, CS_MAX_KEY + 1), &v);
    CHECK(r == CS_EKEYSIZE || r == CS_NOTFOUND);
    CHECK_OK(cs_put(t, tr, V(big, CS_MAX_KEY), VS("max"), 0));
    CHECK_OK(cs_put(t, tr, V(big, 1), VS("one"), 0));
    /* many max-size keys force splits of pages full of big cells */
    for (int i = 0; i < 300; i++) {
        big[0] = (char)i; big[1] = (char)(i >> 8);
        CHECK_OK(cs_put(t, tr, V(big, CS_MAX_KEY), V(big, (size_t)i), 0));
    }
    /* max-size keys with values around the point where the cell no longer
     * fits inline */
    static char val[4000], big2[CS_MAX_KEY];
    test_fill(val, sizeof val, 8);
    test_fill(big2, sizeof big2, 9);
    for (int i = 0; i < 200; i++) {
        big2[0] = (char)i;
        CHECK_OK(cs_put(t, tr, V(big2, CS_MAX_KEY), V(val, 200 + (size_t)i * 10), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    for (int i = 0; i < 200; i++) {
        big2[0] = (char)i;
        CHECK_OK(cs_get(t, tr, V(big2, CS_MAX_KEY), &v));
        CHECK_VAL(v, val, 200 + (size_t)i * 10);
    }
    for (int i = 0; i < 300; i++) {
        big[0] = (char)i; big[1] = (char)(i >> 8);
        CHECK_OK(cs_get(t, tr, V(big, CS_MAX_KEY), &v));
        CHECK_VAL(v, big, (size_t)i);
    }
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
}

static void test_value_sizes(void) {
    static const size_t sizes[] = {0, 1, 1000, 1400, 2000, 4000, 4096, 5000, 12288,
                                   1u << 20, 64u << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    tpath p = test_path("vals.db");
    cs_env *env = open_db(p.s);
    size_t maxsz = 64u << 20;
    char *buf = malloc(maxsz);
    REQUIRE(buf);
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    char key[16];
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "v", CS_CREATE, &tr));
    for (int i = 0; i < NS; i++) {
        snprintf(key, sizeof key, "k%02d", i);
        test_fill(buf, sizes[i], (uint64_t)i);
        CHECK_OK(cs_put(t, tr, VS(key), V(buf, sizes[i]), 0));
        CHECK_OK(cs_get(t, tr, VS(key), &v));
        CHECK_VAL(v, buf, sizes[i]);
    }
    struct cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, tr, &st));
    CHECK_EQ(st.entries, NS);
    CHECK(st.overflow_pages >= (64u << 20) / 4096);
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));

    env = open_db(p.s);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "v", 0, &tr));
    for (int i = 0; i < NS; i++) {
        snprintf(key, sizeof key, "k%02d", i);
        test_fill(buf, sizes[i], (uint64_t)i);
        CHECK_OK(cs_get(t, tr, VS(key), &v));
        CHECK_VAL(v, buf, sizes[i]);
    }
    /* shrink overflow values to inline, grow inline ones to overflow */
    for (int i = 0; i < NS; i++) {
        snprintf(key, sizeof key, "k%02d", i);
        size_t sz = sizes[NS - 1 - i] > (8u << 20) ? 9000 : sizes[NS - 1 - i];
        test_fill(buf, sz, 100u + (uint64_t)i);
        CHECK_OK(cs_put(t, tr, VS(key), V(buf, sz), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < NS; i++) {
        snprintf(key, sizeof key, "k%02d", i);
        size_t sz = sizes[NS - 1 - i] > (8u << 20) ? 9000 : sizes[NS - 1 - i];
        test_fill(buf, sz, 100u + (uint64_t)i);
        CHECK_OK(cs_get(t, tr, VS(key), &v));
        CHECK_VAL(v, buf, sz);
        if (i % 2) CHECK_OK(cs_del(t, tr, VS(key)));
    }
    uint64_t n;
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, NS - NS / 2);
    REQUIRE_OK(cs_txn_commit(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
    free(buf);
}

/* cs_count and cs_tree_stat track many puts and deletes. */
static void test_count(void) {
    tpath p = test_path("count.db");
    cs_env *env = open_db(p.s);
    cs_txn *t;
    cs_tree tr;
    char k[32];
    uint64_t n;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "c", CS_CREATE, &tr));
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 0);
    for (int i = 0; i < 20000; i++) {
        snprintf(k, sizeof k, "key%07d", i);
        CHECK_OK(cs_put(t, tr, VS(k), VS(k), 0));
    }
    for (int i = 0; i < 20000; i += 3) { /* overwrites do not count */
        snprintf(k, sizeof k, "key%07d", i);
        CHECK_OK(cs_put(t, tr, VS(k), VS("x"), 0));
    }
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 20000);
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < 20000; i += 2) {
        snprintf(k, sizeof k, "key%07d", i);
        CHECK_OK(cs_del(t, tr, VS(k)));
    }
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 10000);
    struct cs_tree_stat st;
    CHECK_OK(cs_tree_get_stat(t, tr, &st));
    CHECK_EQ(st.entries, 10000);
    CHECK(st.depth >= 2);
    CHECK(st.leaf_pages > 1);
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_OK(cs_count(t, tr, &n));
    CHECK_EQ(n, 10000);
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

static void test_bad_args(void) {
    tpath p = test_path("args.db");
    cs_env *env = NULL;
    cs_options o = {0};
    CHECK_RC(cs_env_open(NULL, NULL, &env), CS_EINVAL);
    CHECK_RC(cs_env_open(p.s, NULL, NULL), CS_EINVAL);
    o.flags = 0x100;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
    o.flags = 0;
    o.page_size = 5000;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
    o.page_size = CS_MAX_PAGE_SIZE * 2;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
    o.page_size = 0;
    o.durability = (cs_durability)42;
    CHECK_RC(cs_env_open(p.s, &o, &env), CS_EINVAL);
    CHECK_RC(cs_env_close(NULL), CS_EINVAL);
    CHECK_RC(cs_env_sync(NULL), CS_EINVAL);
    CHECK_RC(cs_env_get_info(NULL, NULL), CS_EINVAL);

    env = open_db(p.s);
    struct cs_env_info info;
    cs_txn *t = NULL;
    cs_tree tr;
    cs_val v;
    cs_cursor *c;
    CHECK_RC(cs_env_get_info(env, NULL), CS_EINVAL);
    CHECK_RC(cs_txn_begin(NULL, 0, &t), CS_EINVAL);
    CHECK_RC(cs_txn_begin(env, 0, NULL), CS_EINVAL);
    CHECK_RC(cs_txn_begin(env, 0x80, &t), CS_EINVAL);
    CHECK_RC(cs_txn_commit(NULL), CS_EINVAL);
    CHECK_RC(cs_txn_abort(NULL), CS_EINVAL);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_RC(cs_tree_open(t, NULL, CS_CREATE, &tr), CS_EINVAL);
    CHECK_RC(cs_tree_open(t, "", CS_CREATE, &tr), CS_EINVAL);
    char longname[CS_MAX_TREE_NAME + 2];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_RC(cs_tree_open(t, longname, CS_CREATE, &tr), CS_EINVAL);
    longname[CS_MAX_TREE_NAME] = 0; /* exactly the limit is fine */
    CHECK_OK(cs_tree_open(t, longname, CS_CREATE, &tr));
    CHECK_RC(cs_tree_open(t, "t", CS_CREATE, NULL), CS_EINVAL);
    CHECK_RC(cs_tree_open(t, "missing", 0, &tr), CS_NOTFOUND);
    REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
    CHECK_RC(cs_put(NULL, tr, VS("a"), VS("b"), 0), CS_EINVAL);
    CHECK_RC(cs_put(t, tr, V(NULL, 3), VS("b"), 0), CS_EINVAL);
    CHECK_RC(cs_put(t, tr, VS("a"), V(NULL, 3), 0), CS_EINVAL);
    CHECK_RC(cs_put(t, tr, VS("a"), VS("b"), 0x40), CS_EINVAL);
    CHECK_OK(cs_put(t, tr, VS("a"), V(NULL, 0), 0)); /* empty value, no data */
    CHECK_RC(cs_get(NULL, tr, VS("a"), &v), CS_EINVAL);
    CHECK_RC(cs_get(t, tr, VS("a"), NULL), CS_EINVAL);
    CHECK_RC(cs_del(NULL, tr, VS("a")), CS_EINVAL);
    CHECK_RC(cs_count(t, tr, NULL), CS_EINVAL);
    CHECK_RC(cs_count(NULL, tr, &(uint64_t){0}), CS_EINVAL);
    CHECK_RC(cs_tree_get_stat(t, tr, NULL), CS_EINVAL);
    CHECK_RC(cs_cursor_open(NULL, tr, &c), CS_EINVAL);
    CHECK_RC(cs_cursor_open(t, tr, NULL), CS_EINVAL);
    CHECK_RC(cs_cursor_close(NULL), CS_EINVAL);
    CHECK_RC(cs_cursor_get(NULL, NULL, NULL, CS_FIRST), CS_EINVAL);
    int r = cs_get(t, 999999, VS("a"), &v); /* never-issued handle */
    CHECK(r == CS_EINVAL || r == CS_NOTFOUND);
    CHECK_RC(cs_tree_list(t, NULL, NULL), CS_EINVAL);
    CHECK_RC(cs_check(NULL, NULL), CS_EINVAL);
    CHECK_RC(cs_reader_check(NULL, NULL), CS_EINVAL);
    r = cs_txn_reset(t); /* read txns only */
    CHECK(r == CS_EBADTXN || r == CS_EINVAL);
    /* closing with a live txn is refused and closes nothing */
    CHECK_RC(cs_env_close(env), CS_EINVAL);
    CHECK_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_OK(cs_env_close(env));
}

static void test_txn_ids(void) {
    tpath p = test_path("ids.db");
    cs_env *env = open_db(p.s);
    struct cs_env_info info;
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.page_size, CS_DEFAULT_PAGE_SIZE);
    uint64_t base = info.last_txnid;
    for (int i = 1; i <= 5; i++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        CHECK_EQ(cs_txn_id(t), base + (uint64_t)i);
        REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
        CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
        REQUIRE_OK(cs_txn_commit(t));
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        CHECK_EQ(cs_txn_id(t), base + (uint64_t)i);
        CHECK_OK(cs_txn_abort(t));
    }
    REQUIRE_OK(cs_txn_begin(env, 0, &t)); /* aborted: the id is not used up */
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK_EQ(info.last_txnid, base + 5);
    CHECK(info.file_size >= info.next_pgno * info.page_size);
    CHECK_EQ(info.readers_used, 0);
    CHECK_EQ(info.oldest_reader, 0);
    CHECK_OK(cs_env_close(env));
}

static void test_page_sizes(void) {
    for (uint32_t ps = CS_MIN_PAGE_SIZE; ps <= CS_MAX_PAGE_SIZE; ps *= 2) {
        char name[32];
        snprintf(name, sizeof name, "ps%u.db", ps);
        tpath p = test_path(name);
        cs_options o = {0};
        o.page_size = ps;
        o.durability = CS_DURABLE_NO_SYNC;
        cs_env *env;
        REQUIRE_OK(cs_env_open(p.s, &o, &env));
        cs_txn *t;
        cs_tree tr;
        char k[16], val[3000];
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
        for (int i = 0; i < 3000; i++) {
            snprintf(k, sizeof k, "%08d", i * 7919 % 3000);
            test_fill(val, (size_t)(i % 3000), (uint64_t)i);
            CHECK_OK(cs_put(t, tr, VS(k), V(val, (size_t)(i % 3000)), 0));
        }
        REQUIRE_OK(cs_txn_commit(t));
        CHECK_OK(cs_env_close(env));
        REQUIRE_OK(test_open(p.s, 0, &env)); /* page size comes from the file */
        struct cs_env_info info;
        CHECK_OK(cs_env_get_info(env, &info));
        CHECK_EQ(info.page_size, ps);
        cs_check_report rep;
        CHECK_OK(cs_check(env, &rep));
        CHECK_EQ(rep.entries, 3000);
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
        cs_val v;
        for (int i = 0; i < 3000; i++) {
            snprintf(k, sizeof k, "%08d", i * 7919 % 3000);
            test_fill(val, (size_t)(i % 3000), (uint64_t)i);
            CHECK_OK(cs_get(t, tr, VS(k), &v));
            CHECK_VAL(v, val, (size_t)(i % 3000));
        }
        CHECK_OK(cs_txn_abort(t));
        CHECK_OK(cs_env_close(env));
    }
}

static void test_in_memory(void) {
    tpath p = test_path("mem.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, CS_ENV_IN_MEMORY, &env));
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    char k[16];
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "m", CS_CREATE, &tr));
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "%d", i);
        CHECK_OK(cs_put(t, tr, VS(k), VS(k), 0));
    }
    char big[20000];
    test_fill(big, sizeof big, 3);
    CHECK_OK(cs_put(t, tr, VS("big"), V(big, sizeof big), 0));
    REQUIRE_OK(cs_txn_commit(t));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    CHECK_OK(cs_get(t, tr, VS("4999"), &v));
    CHECK_VAL(v, "4999", 4);
    CHECK_OK(cs_get(t, tr, VS("big"), &v));
    CHECK_VAL(v, big, sizeof big);
    CHECK_OK(cs_txn_abort(t));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_EQ(test_file_size(p.s), -1); /* nothing on disk */
    CHECK_OK(cs_env_close(env));
    CHECK_EQ(test_file_size(p.s), -1);
}

static void test_read_only(void) {
    tpath p = test_path("ro.db");
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    CHECK(test_open(test_path("missing.db").s, CS_ENV_RDONLY, &env) != CS_OK);
    CHECK_EQ(test_file_size(test_path("missing.db").s), -1);
    env = open_db(p.s);
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, "r", CS_CREATE, &tr));
    CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));

    REQUIRE_OK(test_open(p.s, CS_ENV_RDONLY, &env));
    int r = cs_txn_begin(env, 0, &t);
    if (r == CS_OK) { /* either begin or the first write must refuse */
        CHECK_RC(cs_tree_open(t, "r", 0, &tr), CS_OK);
        CHECK_RC(cs_put(t, tr, VS("k"), VS("w"), 0), CS_EREADONLY);
        CHECK_OK(cs_txn_abort(t));
    } else {
        CHECK_RC(r, CS_EREADONLY);
    }
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "r", 0, &tr));
    CHECK_RC(cs_tree_open(t, "new", CS_CREATE, &tr), CS_EREADONLY);
    CHECK_OK(cs_get(t, tr, VS("k"), &v));
    CHECK_VAL(v, "v", 1);
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

static void test_paths_and_mode(void) {
    cs_env *env;
    int r = test_open("/nonexistent-dir-for-cstorage/x.db", 0, &env);
    CHECK(r != CS_OK);
    CHECK(r == CS_EIO || r == CS_ELOCK);
    r = test_open(test_dir(), 0, &env); /* a directory */
    CHECK(r != CS_OK);
    tpath p = test_path("mode.db");
    cs_options o = {0};
    o.file_mode = 0600;
    REQUIRE_OK(cs_env_open(p.s, &o, &env));
    CHECK_OK(cs_env_close(env));
    struct stat st;
    CHECK(stat(p.s, &st) == 0 && (st.st_mode & 0777) == 0600);
}

static void test_strerror(void) {
    const char *seen[CS_ENOTDB + 1];
    for (int e = -5; e < 40; e++) {
        const char *s = cs_strerror(e);
        CHECK(s != NULL && s[0] != 0);
        if (e >= 0 && e <= CS_ENOTDB) {
            seen[e] = s;
            for (int j = 0; j < e; j++) CHECK(strcmp(seen[j], s) != 0);
        }
    }
    CHECK(cs_last_error_detail() != NULL);
}

/* The VmFlags line of /proc/self/smaps for the mapping that holds addr
 * ("rr" = random-read advice, i.e. no readahead). */
static void map_vmflags(const void *addr, char *out, size_t cap) {
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    out[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, cap, "%s", line + 8);
            break;
        }
    }
    if (f) fclose(f);
}

/* CS_ENV_NORDAHEAD advises the kernel against readahead on the map. */
static void test_no_readahead(void) {
    for (int advise = 0; advise < 2; advise++) {
        tpath p = test_path("nordahead.db");
        cs_env *env = NULL;
        REQUIRE_OK(test_open(p.s, advise ? CS_ENV_NORDAHEAD : 0, &env));
        cs_txn *t;
        cs_tree tr;
        cs_val v;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "t", CS_CREATE, &tr));
        CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
        REQUIRE_OK(cs_txn_commit(t));
        REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
        CHECK_OK(cs_get(t, tr, VS("k"), &v)); /* v.data points into the map */
        char flags[256];
        map_vmflags(v.data, flags, sizeof flags);
        CHECK(strstr(flags, " rd") != NULL); /* found the mapping */
        CHECK((strstr(flags, " rr") != NULL) == (advise == 1));
        cs_txn_abort(t);
        CHECK_OK(cs_env_close(env));
    }
}

int main(void) {
    test_put_get_del();
    test_key_limits();
    test_value_sizes();
    test_count();
    test_bad_args();
    test_txn_ids();
    test_page_sizes();
    test_in_memory();
    test_read_only();
    test_paths_and_mode();
    test_strerror();
    test_no_readahead();
    return test_report();
}
