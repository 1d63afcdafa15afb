/* test_coldopen.c — what an open does for a cold page cache: the lock file
 * is whole memory pages (rebuilding it then reads nothing from the disk),
 * also when an older build left one of another size; and the first tree
 * open asks for the root page of every tree of a one-page catalog, so the
 * descents that follow find them read, and for nothing below them. The
 * metas are read two default pages first, without readahead: files of
 * larger pages, or whose page 0 is damaged, read the rest and still open. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dbfile.h"
#include "test.h"

enum { TREES = 8, ENTRIES = 3000 };

static long page_bytes(void) {
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? pg : 4096;
}

static void test_lock_file_whole_pages(void) {
    tpath p = test_path("lock.db");
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", p.s);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    CHECK_OK(cs_put(t, tr, VS("k"), VS("v"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
    long long size = test_file_size(lock);
    CHECK(size > 0);
    CHECK_EQ(size % page_bytes(), 0);

    /* An older build's lock file: not whole pages, and stale bytes. */
    int fd = open(lock, O_RDWR);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, (off_t)(size - page_bytes() + 1280)) == 0);
    uint8_t junk[1280];
    memset(junk, 0xab, sizeof junk);
    REQUIRE(pwrite(fd, junk, sizeof junk, 0) == (ssize_t)sizeof junk);
    close(fd);
    REQUIRE_OK(test_open(p.s, 0, &env));
    CHECK_EQ(test_file_size(lock) % page_bytes(), 0);
    cs_val v;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
    CHECK_OK(cs_get(t, tr, VS("k"), &v));
    CHECK_VAL(v, "v", 1);
    CHECK_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
}

/* Which of the pages `pgnos` of the file are in the page cache. */
static int resident(const char *path, uint32_t ps, const uint64_t *pgnos, int n) {
    long long size = test_file_size(path);
    int fd = open(path, O_RDONLY);
    REQUIRE(fd >= 0 && size > 0);
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    REQUIRE(m != MAP_FAILED);
    size_t pages = ((size_t)size + (size_t)page_bytes() - 1) / (size_t)page_bytes();
    unsigned char *vec = malloc(pages);
    REQUIRE(vec && mincore(m, (size_t)size, vec) == 0);
    int in = 0;
    for (int i = 0; i < n; i++) in += vec[pgnos[i] * ps / (uint64_t)page_bytes()] & 1;
    free(vec);
    munmap(m, (size_t)size);
    close(fd);
    return in;
}

static void test_first_tree_open_asks_for_roots(void) {
    tpath p = test_path("roots.db");
    cs_env *env;
    char k[32], v[64], name[8];
    /* The classic commit (no unit list for open to read back), so only the
     * hint can bring the roots in. */
    REQUIRE_OK(test_open(p.s, CS_ENV_TWO_FLUSH, &env));
    for (int tr = 0; tr < TREES; tr++) {
        snprintf(name, sizeof name, "t%d", tr);
        cs_tree h = test_open_tree(env, name);
        cs_txn *t;
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        for (int i = 0; i < ENTRIES; i++) {
            snprintf(k, sizeof k, "key%06d", i);
            int vl = snprintf(v, sizeof v, "value-%d-%d-padding-padding", tr, i);
            CHECK_OK(cs_put(t, h, VS(k), V(v, (size_t)vl), 0));
        }
        REQUIRE_OK(cs_txn_commit(t));
    }
    /* One last commit through every tree: their roots move to the end of
     * the file, far from the metas the open reads. */
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int tr = 0; tr < TREES; tr++) {
        cs_tree h;
        snprintf(name, sizeof name, "t%d", tr);
        REQUIRE_OK(cs_tree_open(t, name, 0, &h));
        CHECK_OK(cs_put(t, h, VS("last"), VS("x"), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));

    /* The roots, from the catalog's one leaf. */
    uint64_t roots[TREES];
    int fd = open(p.s, O_RDONLY);
    REQUIRE(fd >= 0);
    cs_meta m;
    REQUIRE(dbfile_newest_meta(fd, &m) >= 0 && m.catalog.depth == 1);
    uint8_t *pg = malloc(m.page_size);
    REQUIRE(pg && dbfile_read(fd, m.page_size, m.catalog.root, pg, 1) == 0);
    cs_page_hdr h;
    memcpy(&h, pg, sizeof h);
    REQUIRE(h.nkeys == TREES);
    for (int i = 0; i < TREES; i++) {
        cs_tree_desc d;
        memcpy(&d, dbfile_leaf(pg, (unsigned)i).val, sizeof d);
        roots[i] = d.root;
        CHECK(d.depth >= 2);
        CHECK(d.root * m.page_size >= (256u << 10)); /* beyond the metas' read */
    }
    free(pg);
    /* Out of the page cache, as after a reboot. */
    REQUIRE(fdatasync(fd) == 0);
    REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    close(fd);
    if (resident(p.s, m.page_size, roots, TREES) != 0) {
        printf("  page cache not droppable here: the roots check is skipped\n");
        return;
    }
    /* As the object layer opens: no readahead on the map. */
    REQUIRE_OK(test_open(p.s, CS_ENV_NORDAHEAD, &env));
    cs_tree h0;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "t0", 0, &h0));
    int in = 0;
    for (int tries = 0; tries < 300 && in < TREES; tries++) { /* the reads run in the background */
        in = resident(p.s, m.page_size, roots, TREES);
        if (in < TREES) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    CHECK_EQ(in, TREES);
    cs_val v0;
    CHECK_OK(cs_get(t, h0, VS("last"), &v0));
    CHECK_VAL(v0, "x", 1);
    CHECK_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
}

/* A tree three levels deep: its first open asks for nothing below its
 * root (the roots alone were asked for): several reads at once arrive
 * later than the one page a lookup needs. */
static void test_deep_tree_open_asks_for_no_children(void) {
    tpath p = test_path("deep.db");
    cs_env *env;
    char k[32], v[900];
    memset(v, 'v', sizeof v);
    REQUIRE_OK(test_open(p.s, CS_ENV_TWO_FLUSH, &env));
    cs_tree deep = test_open_tree(env, "a_deep"), small = test_open_tree(env, "z_small");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < ENTRIES; i++) { /* four entries a leaf: 750 leaves under a few branches */
        snprintf(k, sizeof k, "key%06d", i);
        CHECK_OK(cs_put(t, deep, VS(k), V(v, sizeof v), 0));
    }
    CHECK_OK(cs_put(t, small, VS("k"), VS("v"), 0));
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));

    int fd = open(p.s, O_RDONLY);
    REQUIRE(fd >= 0);
    cs_meta m;
    REQUIRE(dbfile_newest_meta(fd, &m) >= 0 && m.catalog.depth == 1);
    uint8_t *pg = malloc(m.page_size);
    REQUIRE(pg && dbfile_read(fd, m.page_size, m.catalog.root, pg, 1) == 0);
    cs_tree_desc d;
    memcpy(&d, dbfile_leaf(pg, 0).val, sizeof d); /* "a_deep" sorts first */
    REQUIRE(d.depth == 3);
    REQUIRE(dbfile_read(fd, m.page_size, d.root, pg, 1) == 0);
    cs_page_hdr h;
    memcpy(&h, pg, sizeof h);
    REQUIRE(h.type == PT_BRANCH && h.nkeys >= 2 && h.nkeys <= 32);
    uint64_t children[32];
    for (unsigned i = 0; i < h.nkeys; i++) children[i] = dbfile_rd64(dbfile_cell(pg, i));
    int n = h.nkeys;
    free(pg);
    REQUIRE(fdatasync(fd) == 0);
    REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    close(fd);
    if (resident(p.s, m.page_size, children, n) != 0) {
        printf("  page cache not droppable here: the children check is skipped\n");
        return;
    }
    REQUIRE_OK(test_open(p.s, CS_ENV_NORDAHEAD, &env));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "z_small", 0, &small)); /* the first open: the roots are asked for */
    for (int tries = 0; tries < 300 && !resident(p.s, m.page_size, &d.root, 1); tries++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    CHECK_EQ(resident(p.s, m.page_size, &d.root, 1), 1);
    CHECK_EQ(resident(p.s, m.page_size, children, n), 0);
    REQUIRE_OK(cs_tree_open(t, "a_deep", 0, &deep));
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL); /* time for any read asked for */
    CHECK_EQ(resident(p.s, m.page_size, children, n), 0);
    cs_val got;
    CHECK_OK(cs_get(t, deep, VS("key001234"), &got));
    CHECK_VAL(got, v, sizeof v);
    CHECK_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
}

static void test_metas_of_every_page_size(void) {
    for (uint32_t ps = CS_MIN_PAGE_SIZE; ps <= CS_MAX_PAGE_SIZE; ps *= 2) {
        for (int damage = 0; damage < 2; damage++) {
            char name[32];
            snprintf(name, sizeof name, "ps%u-%d.db", ps, damage);
            tpath p = test_path(name);
            cs_options o = {0};
            o.page_size = ps;
            o.durability = CS_DURABLE_NO_SYNC;
            cs_env *env;
            REQUIRE_OK(cs_env_open(p.s, &o, &env));
            cs_tree tr = test_open_tree(env, "t");
            for (int i = 0; i < 3; i++) { /* both metas hold a commit */
                cs_txn *t;
                REQUIRE_OK(cs_txn_begin(env, 0, &t));
                CHECK_OK(cs_put(t, tr, VS("k"), V(&i, sizeof i), 0));
                REQUIRE_OK(cs_txn_commit(t));
            }
            CHECK_OK(cs_env_close(env));
            int fd = open(p.s, O_RDWR);
            REQUIRE(fd >= 0);
            cs_meta m;
            int slot = dbfile_newest_meta(fd, &m);
            REQUIRE(slot >= 0);
            if (damage) { /* page 0's meta unreadable: page 1 found by the scan */
                uint8_t junk[64];
                memset(junk, 0x5a, sizeof junk);
                REQUIRE(pwrite(fd, junk, sizeof junk, 0) == (ssize_t)sizeof junk);
            }
            close(fd);
            REQUIRE_OK(cs_env_open(p.s, &o, &env));
            cs_env_info info;
            CHECK_OK(cs_env_get_info(env, &info));
            CHECK_EQ(info.page_size, ps);
            cs_txn *t;
            cs_val v;
            int want = damage && slot == 0 ? 1 : 2; /* the newest, or the one before */
            REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
            REQUIRE_OK(cs_tree_open(t, "t", 0, &tr));
            CHECK_OK(cs_get(t, tr, VS("k"), &v));
            CHECK_VAL(v, &want, sizeof want);
            CHECK_OK(cs_txn_commit(t));
            CHECK_OK(cs_env_close(env));
        }
    }
}

/* The metas' read brings in what it asks for and no more: the kernel's
 * readahead read several times those bytes, and a cold open waited for
 * all of them. */
static void test_metas_read_without_readahead(void) {
    tpath p = test_path("metas.db");
    cs_env *env;
    char k[32], v[64];
    REQUIRE_OK(test_open(p.s, CS_ENV_TWO_FLUSH, &env)); /* no unit list to read back */
    cs_tree h = test_open_tree(env, "t");
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (int i = 0; i < ENTRIES; i++) {
        snprintf(k, sizeof k, "key%06d", i);
        int vl = snprintf(v, sizeof v, "value-%d-padding-padding", i);
        CHECK_OK(cs_put(t, h, VS(k), V(v, (size_t)vl), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
    CHECK_OK(cs_env_close(env));
    int fd = open(p.s, O_RDONLY);
    REQUIRE(fd >= 0);
    cs_meta m;
    REQUIRE(dbfile_newest_meta(fd, &m) >= 0);
    REQUIRE(m.page_size == CS_DEFAULT_PAGE_SIZE && m.next_pgno > 16);
    /* Pages 2..7: what the readahead of the first read would bring in,
     * less the catalog's root, which the open asks for. */
    uint64_t near[6];
    int n = 0;
    for (uint64_t pg = 2; pg < 8; pg++)
        if (pg != m.catalog.root) near[n++] = pg;
    REQUIRE(fdatasync(fd) == 0);
    REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    close(fd);
    uint64_t metas[2] = {0, 1};
    if (resident(p.s, m.page_size, near, n) != 0 || resident(p.s, m.page_size, metas, 2) != 0) {
        printf("  page cache not droppable here: the metas' read check is skipped\n");
        return;
    }
    REQUIRE_OK(test_open(p.s, CS_ENV_NORDAHEAD, &env));
    CHECK_EQ(resident(p.s, m.page_size, metas, 2), 2);
    CHECK_EQ(resident(p.s, m.page_size, near, n), 0);
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    test_metas_of_every_page_size();
    test_lock_file_whole_pages();
    test_first_tree_open_asks_for_roots();
    test_deep_tree_open_asks_for_no_children();
    test_metas_read_without_readahead();
    return test_report();
}
