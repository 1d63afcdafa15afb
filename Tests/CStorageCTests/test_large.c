/* test_large: a 1 GiB value, zero-copy, across a remap of the file.
 *
 * The map starts at 1 GiB of address space; committing a 1 GiB value makes
 * the file outgrow it, so later transactions get a new, larger mapping. A
 * reader that began before must keep valid pointers into the old mapping. */
#include "test.h"

#include <stdlib.h>

#define BIG ((size_t)1 << 30)

static uint64_t pattern_at(size_t i) { return (uint64_t)i * 0x9E3779B97F4A7C15ull; }

static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v = pattern_at(i);
        memcpy(p + i, &v, 8);
    }
}

static int matches(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        if (v != pattern_at(i)) return 0;
    }
    return 1;
}

int main(void)
{
    tpath p = test_path("large.db");
    cs_env *env;
    cs_txn *w, *old;
    cs_tree tr;
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    REQUIRE_OK(cs_tree_open(w, "t", CS_CREATE, &tr));
    CHECK_OK(cs_put(w, tr, VS("small"), VS("before the big one"), 0));
    REQUIRE_OK(cs_txn_commit(w));

    /* An old reader holds a zero-copy pointer into the first mapping. */
    cs_val small;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &old));
    REQUIRE_OK(cs_get(old, tr, VS("small"), &small));

    uint8_t *big = malloc(BIG);
    REQUIRE(big);
    fill(big, BIG);
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    CHECK_OK(cs_put(w, tr, VS("big"), V(big, BIG), 0));
    REQUIRE_OK(cs_txn_commit(w));
    free(big);

    /* The old snapshot: pointer still valid, big value invisible. */
    CHECK_VAL(small, "before the big one", 18);
    cs_val v;
    CHECK_RC(cs_get(old, tr, VS("big"), &v), CS_NOTFOUND);
    CHECK_OK(cs_txn_commit(old));

    /* A new snapshot reads the whole value in place. */
    cs_txn *r;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r));
    REQUIRE_OK(cs_get(r, tr, VS("big"), &v));
    CHECK_EQ(v.size, BIG);
    CHECK(matches(v.data, v.size));
    CHECK_OK(cs_txn_commit(r));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));

    /* After reopening: same value; then deleting it frees the run. */
    REQUIRE_OK(test_open(p.s, 0, &env));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &r));
    REQUIRE_OK(cs_tree_open(r, "t", 0, &tr));
    REQUIRE_OK(cs_get(r, tr, VS("big"), &v));
    CHECK(v.size == BIG && matches(v.data, v.size));
    CHECK_OK(cs_txn_commit(r));
    REQUIRE_OK(cs_txn_begin(env, 0, &w));
    CHECK_OK(cs_del(w, tr, VS("big")));
    REQUIRE_OK(cs_txn_commit(w));
    for (int i = 0; i < 3; i++) { /* let the freed group become free */
        REQUIRE_OK(cs_txn_begin(env, 0, &w));
        CHECK_OK(cs_put(w, tr, VS("tick"), V(&i, sizeof i), 0));
        REQUIRE_OK(cs_txn_commit(w));
    }
    cs_env_info info;
    CHECK_OK(cs_env_get_info(env, &info));
    CHECK(info.free_pages >= BIG / info.page_size);
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
    test_rm_db(p.s);
    return test_report();
}
