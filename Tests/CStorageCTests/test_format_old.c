/* test_format_old.c — files written by older engine formats stay readable
 * and writable by this build: every entry of their trees reads back, writes
 * and deletes on them commit, and cs_check finds them clean before and
 * after. fixtures/format-v1.cstore was written by the format-version-1
 * engine (type-3 leaves); fixtures/format-v2.cstore by the version-2 one
 * (compact leaves), churned under a held reader so that its free-list run
 * holds many free extents and pending groups; fixtures/format-v3.cstore by
 * the version-3 one (free-list delta; no redo log), written the same way;
 * fixtures/format-v4.cstore by the version-4 one (compact leaves that all
 * store their suffix lengths; no uniform leaves); fixtures/format-v5.cstore
 * by the version-5 one (compact leaves that all store their value words;
 * no fixed-value leaves). The content of each is a
 * pure function of (tree, index) below, so the test needs no copy of it.
 *
 * Regenerate (only with a build of the format the fixture is named after):
 *   FIXTURE_WRITE=Tests/CStorageCTests/fixtures/format-v2.cstore build/asan/test_format_old
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format.h"
#include "test.h"

#define FORMAT_NOW CS_FORMAT_VERSION

#define FIXTURE_DIR "Tests/CStorageCTests/fixtures/"

/* The fixture's trees: object-style 8-byte keys with record-sized values,
 * list-style 12-byte keys with 8-byte values, text keys, and values large
 * enough to take overflow runs. */
enum { N_PEOPLE = 3000, N_LISTS = 2400, N_NAMES = 600, N_BLOBS = 12 };
static const char *const TREES[] = {"people", "realm:lists", "names", "blobs"};
static const unsigned COUNTS[] = {N_PEOPLE, N_LISTS, N_NAMES, N_BLOBS};

static size_t be64(uint8_t *out, uint64_t v)
{
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (56 - 8 * i));
    return 8;
}

/* Key i of tree t (ascending in i). */
static size_t fx_key(unsigned t, unsigned i, uint8_t *k)
{
    switch (t) {
    case 0: return be64(k, 0x0100000000000000ull + 3u * i);
    case 1:
        be64(k, 0x0200000000000000ull + i / 40);
        k[8] = 0, k[9] = 0, k[10] = (uint8_t)((i % 40) >> 8), k[11] = (uint8_t)(i % 40);
        return 12;
    case 2: return (size_t)snprintf((char *)k, 64, "user.%05u.name", i);
    default: return (size_t)snprintf((char *)k, 64, "blob-%02u", i);
    }
}

/* Value of key i of tree t, in buf (at least 32 KiB). */
static size_t fx_val(unsigned t, unsigned i, uint8_t *buf)
{
    size_t n = t == 0 ? 20 + i % 25 : t == 1 ? 8 : t == 2 ? i % 7 : 3000 + 1700u * i;
    test_fill(buf, n, (uint64_t)t << 32 | i);
    return n;
}

static void write_fixture(const char *path)
{
    cs_env *env;
    REQUIRE_OK(test_open(path, 0, &env));
    static uint8_t val[32768];
    uint8_t key[64];
    for (unsigned t = 0; t < 4; t++) {
        cs_tree tr = test_open_tree(env, TREES[t]);
        cs_txn *txn;
        REQUIRE_OK(cs_txn_begin(env, 0, &txn));
        /* Interleaved insertion order: leaves split in the middle, not only by appends. */
        for (unsigned j = 0; j < COUNTS[t]; j++) {
            unsigned i = (unsigned)((j * 7919ull) % COUNTS[t]);
            size_t kl = fx_key(t, i, key), vl = fx_val(t, i, val);
            REQUIRE_OK(cs_put(txn, tr, V(key, kl), V(val, vl), 0));
        }
        REQUIRE_OK(cs_txn_commit(txn));
    }
    /* Churn that leaves the content as it was: commit c rewrites every 8th
     * person and deletes every 8th list entry, and the entries come back in
     * later commits. Readers held over commits 4-9 and 12-15 keep the pages
     * those commits free pending (the second reader's until the end), and
     * the rewritten leaves scatter free pages across the file. */
    cs_tree people = test_open_tree(env, TREES[0]), lists = test_open_tree(env, TREES[1]);
    cs_txn *reader = NULL;
    for (unsigned c = 0; c < 16; c++) {
        if (c == 4 || c == 12) REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &reader));
        if (c == 10) cs_txn_abort(reader);
        cs_txn *txn;
        REQUIRE_OK(cs_txn_begin(env, 0, &txn));
        for (unsigned i = c % 8; i < N_PEOPLE; i += 8) {
            size_t kl = fx_key(0, i, key), vl = fx_val(0, i, val);
            REQUIRE_OK(cs_put(txn, people, V(key, kl), V(val, vl), 0));
        }
        for (unsigned i = c % 8; i < N_LISTS; i += 8) {
            size_t kl = fx_key(1, i, key), vl = fx_val(1, i, val);
            if (c < 8) REQUIRE_OK(cs_del(txn, lists, V(key, kl)));
            else REQUIRE_OK(cs_put(txn, lists, V(key, kl), V(val, vl), 0));
        }
        REQUIRE_OK(cs_txn_commit(txn));
    }
    cs_env_info info;
    REQUIRE_OK(cs_env_get_info(env, &info));
    REQUIRE(info.free_pages > 20 && info.pending_pages > 20);
    cs_txn_abort(reader);
    cs_check_report rep;
    REQUIRE_OK(cs_check(env, &rep));
    REQUIRE_OK(cs_env_close(env));
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
    printf("wrote %s\n", path);
}

/* Every tree holds exactly its fixture entries, in order; once `changed`,
 * with the test's writes: every 5th list entry deleted, every 100th person
 * rewritten to "new", one more blob. */
static void verify(cs_env *env, bool changed)
{
    static uint8_t val[32768];
    uint8_t key[64];
    cs_txn *txn;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &txn));
    for (unsigned t = 0; t < 4; t++) {
        cs_tree tr;
        REQUIRE_OK(cs_tree_open(txn, TREES[t], 0, &tr));
        cs_cursor *cur;
        REQUIRE_OK(cs_cursor_open(txn, tr, &cur));
        cs_val k, v;
        int rc = cs_cursor_get(cur, &k, &v, CS_FIRST);
        unsigned seen = 0, bad = 0;
        for (unsigned i = 0; i < COUNTS[t]; i++) {
            if (changed && t == 1 && i % 5 == 0) continue;
            size_t kl = fx_key(t, i, key), vl = fx_val(t, i, val);
            if (changed && t == 0 && i % 100 == 0) vl = 3, memcpy(val, "new", 3);
            if (rc != CS_OK || k.size != kl || memcmp(k.data, key, kl) || v.size != vl || memcmp(v.data, val, vl)) bad++;
            cs_val g;
            if (cs_get(txn, tr, V(key, kl), &g) != CS_OK || g.size != vl || memcmp(g.data, val, vl)) bad++;
            seen++;
            rc = cs_cursor_get(cur, &k, &v, CS_NEXT);
        }
        CHECK_EQ(bad, 0);
        if (changed && t == 3) {
            CHECK(rc == CS_OK && k.size == 7 && memcmp(k.data, "blob-zz", 7) == 0 && v.size == 20000);
            rc = cs_cursor_get(cur, &k, &v, CS_NEXT);
        }
        CHECK_RC(rc, CS_NOTFOUND);
        uint64_t n;
        CHECK_OK(cs_count(txn, tr, &n));
        CHECK_EQ(n, seen + (changed && t == 3 ? 1 : 0));
        cs_cursor_close(cur);
    }
    cs_txn_abort(txn);
}

/* Open a copy of fixture `name`, read it, write to it, check it, reopen it. */
static void test_fixture(const char *name, bool churned)
{
    /* A copy: the test writes to it. */
    char src[256];
    snprintf(src, sizeof src, FIXTURE_DIR "%s", name);
    tpath p = test_path(name);
    REQUIRE(test_copy_file(src, p.s));

    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK(rep.pages_leaf > 20 && rep.pages_overflow > 10 && rep.trees == 4);
    if (churned) {
        /* What the fixture is for: a free list of many extents, some pending. */
        cs_env_info info;
        CHECK_OK(cs_env_get_info(env, &info));
        CHECK(info.free_pages > 20 && info.pending_pages > 20);
        CHECK(rep.pages_freelist >= 1);
    }
    verify(env, false);
    /* Writes: overwrite, delete, and add a tree entry; pages the commit copies are rewritten. */
    static uint8_t val[32768];
    uint8_t key[64];
    cs_txn *txn;
    REQUIRE_OK(cs_txn_begin(env, 0, &txn));
    cs_tree people, lists, blobs;
    REQUIRE_OK(cs_tree_open(txn, "people", 0, &people));
    REQUIRE_OK(cs_tree_open(txn, "realm:lists", 0, &lists));
    REQUIRE_OK(cs_tree_open(txn, "blobs", 0, &blobs));
    for (unsigned i = 0; i < N_PEOPLE; i += 100) CHECK_OK(cs_put(txn, people, V(key, fx_key(0, i, key)), VS("new"), 0));
    for (unsigned i = 0; i < N_LISTS; i += 5) CHECK_OK(cs_del(txn, lists, V(key, fx_key(1, i, key))));
    test_fill(val, 20000, 99);
    CHECK_OK(cs_put(txn, blobs, VS("blob-zz"), V(val, 20000), 0));
    REQUIRE_OK(cs_txn_commit(txn));
    verify(env, true);
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));

    /* Both metas now say the current version (a build of an older format
     * refuses the file instead of falling back to an old meta whose snapshot
     * this build may have rewritten); in the version-1 file the leaves the
     * commit copied are compact and the others still type 3. */
    {
        FILE *f = fopen(p.s, "rb");
        REQUIRE(f);
        static uint8_t page[4096];
        unsigned leaf3 = 0, leaf6 = 0, pgno = 0;
        while (fread(page, 1, sizeof page, f) == sizeof page) {
            uint16_t type;
            uint32_t version;
            memcpy(&type, page + 4, 2);
            memcpy(&version, page + 40, 4);
            if (pgno < 2) CHECK_EQ(version, FORMAT_NOW);
            leaf3 += type == 3, leaf6 += type == 6;
            pgno++;
        }
        fclose(f);
        if (!churned) CHECK(leaf3 > 0 && leaf6 > 0);
        else CHECK(leaf6 > 0);
    }

    /* Reopened: still all there and clean, and more commits on it too. */
    REQUIRE_OK(test_open(p.s, 0, &env));
    verify(env, true);
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    for (unsigned c = 0; c < 40; c++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &txn));
        REQUIRE_OK(cs_tree_open(txn, "people", 0, &people));
        for (unsigned i = c; i < N_PEOPLE; i += 400) CHECK_OK(cs_put(txn, people, V(key, fx_key(0, i, key)), V(val, fx_val(0, i, val)), 0));
        REQUIRE_OK(cs_txn_commit(txn));
    }
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
    REQUIRE_OK(test_open(p.s, 0, &env));
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    REQUIRE_OK(cs_env_close(env));
}

int main(void)
{
    const char *out = getenv("FIXTURE_WRITE");
    if (out) {
        write_fixture(out);
        return test_report();
    }
    test_fixture("format-v1.cstore", false);
    test_fixture("format-v2.cstore", true);
    test_fixture("format-v3.cstore", true);
    test_fixture("format-v4.cstore", true);
    test_fixture("format-v5.cstore", true);
    return test_report();
}
