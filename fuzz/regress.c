/*
 * regress.c — one regression test per engine bug the reliability harness
 * found (the fuzz finds also have corpus entries in corpus/file/regress-*).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "rel.h"

static const char *dir;
static long cases;

#define EXPECT(c, ...) do { if (!(c)) rel_fail(__VA_ARGS__); } while (0)

/* A database with tree "t" holding n small keys; returns its meta. */
static void make_db(const char *path, int n)
{
    rel_rm_db(path);
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, 0, &t) || cs_tree_open(t, "t", CS_CREATE, &tr)) abort();
    char k[16];
    for (int i = 0; i < n; i++) {
        int kl = snprintf(k, sizeof k, "k%05d", i);
        if (cs_put(t, tr, (cs_val){k, (size_t)kl}, (cs_val){k, (size_t)kl}, 0)) abort();
    }
    if (cs_txn_commit(t) || cs_env_close(env)) abort();
}

/* The newest of the two meta pages of a closed file. */
static int newest_meta(int fd, cs_meta *m)
{
    cs_meta a, b;
    if (pread(fd, &a, sizeof a, 0) != (ssize_t)sizeof a || pread(fd, &b, sizeof b, 4096) != (ssize_t)sizeof b) abort();
    *m = a.txnid > b.txnid ? a : b;
    return a.txnid > b.txnid ? 0 : 1;
}

/* Bug 1 (env.c read_meta): a power loss during creation left a valid meta
 * page 0 of the empty database in a 1536-byte file; open failed forever
 * with "truncated". It must be created again. */
static void creation_cut_by_power_loss(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "cut.db");
    make_db(path, 0);
    rel_rm_db(path);
    cs_env *env;
    if (cs_env_open(path, NULL, &env) || cs_env_close(env)) abort(); /* empty database */
    if (truncate(path, 1536)) abort();
    int rc = cs_env_open(path, NULL, &env);
    EXPECT(rc == CS_OK, "creation cut by power loss: open: %s (%s)", cs_strerror(rc), cs_last_error_detail());
    if (rc == CS_OK) {
        cs_txn *t;
        cs_tree tr;
        char why[300];
        rc = cs_txn_begin(env, 0, &t);
        if (rc == CS_OK && (rc = cs_tree_open(t, "t", CS_CREATE, &tr)) == CS_OK)
            rc = cs_put(t, tr, (cs_val){"a", 1}, (cs_val){"b", 1}, 0);
        if (rc == CS_OK) rc = cs_txn_commit(t);
        EXPECT(rc == CS_OK, "creation cut by power loss: commit: %s", cs_strerror(rc));
        EXPECT(rel_check(env, why, sizeof why) == 0, "creation cut by power loss: %s", why);
        cs_env_close(env);
    }
    cases++;
}

/* Bug 2 (btree.c touch_path): a damaged leaf whose header txnid equals the
 * txnid of the next write txn was taken for the writer's own dirty copy and
 * modified in place — in the read-only map: SIGSEGV. It must be copied. */
static void page_claims_writer_txnid(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "claim.db");
    make_db(path, 20); /* one leaf: the root */
    int fd = open(path, O_RDWR);
    cs_meta m;
    newest_meta(fd, &m);
    uint8_t pg[4096];
    uint64_t root;
    /* catalog root is a leaf holding "t" -> descriptor; its root leaf: */
    if (pread(fd, pg, sizeof pg, (off_t)(m.catalog.root * 4096)) != (ssize_t)sizeof pg) abort();
    uint16_t slot = rd16(pg + PAGE_HDR);
    memcpy(&root, pg + slot + LEAF_CELL_HDR + rd16(pg + slot), 8);
    if (pread(fd, pg, sizeof pg, (off_t)(root * 4096)) != (ssize_t)sizeof pg) abort();
    PHW(pg)->txnid = m.txnid + 1; /* what the next writer will use */
    PHW(pg)->checksum = cs_page_checksum(pg, sizeof pg);
    if (pwrite(fd, pg, sizeof pg, (off_t)(root * 4096)) != (ssize_t)sizeof pg) abort();
    close(fd);
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    if (cs_env_open(path, NULL, &env) || cs_txn_begin(env, 0, &t) || cs_tree_open(t, "t", 0, &tr)) abort();
    int rc = cs_del(t, tr, (cs_val){"k00003", 6}); /* crashed here */
    EXPECT(rc == CS_OK || rc == CS_ECORRUPT, "page claiming the writer's txnid: del: %s", cs_strerror(rc));
    cs_txn_abort(t);
    cs_env_close(env);
    cases++;
}

/* Bug 3 (env.c read_meta): next_pgno * page_size overflowed for a damaged
 * meta with a huge next_pgno, so the truncation check passed and cs_check
 * tried to allocate a bitmap of 2^53 bytes. Open must say CS_ECORRUPT. */
static void huge_next_pgno(void)
{
    char path[600];
    rel_path(path, sizeof path, dir, "huge.db");
    make_db(path, 5);
    int fd = open(path, O_RDWR);
    cs_meta m;
    int slot = newest_meta(fd, &m);
    m.next_pgno = (1ull << 52) + 2; /* * 4096 wraps to 8192 */
    meta_seal(&m);
    if (pwrite(fd, &m, sizeof m, (off_t)slot * 4096) != (ssize_t)sizeof m) abort();
    close(fd);
    cs_env *env;
    int rc = cs_env_open(path, NULL, &env);
    EXPECT(rc == CS_ECORRUPT, "huge next_pgno: open gave %s, want CS_ECORRUPT", cs_strerror(rc));
    if (rc == CS_OK) cs_env_close(env);
    cases++;
}

int main(void)
{
    dir = rel_mkdir("regress");
    creation_cut_by_power_loss();
    page_claims_writer_txnid();
    huge_next_pgno();
    if (rel_failures == 0) rel_rmdir(dir);
    return rel_report("regress", cases);
}
