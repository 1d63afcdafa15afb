/* test_diff_lmdb.c — differential test: one seeded random operation stream
 * (puts with varied key/value sizes incl. overflow values, deletes, gets,
 * cursor walks, counts, clears, drops, commits/aborts, old snapshots,
 * reopens) applied to CStorage and LMDB through kv.h; every result must
 * agree, full contents are compared after each commit, and cs_check must
 * stay clean. DIFF_OPS, DIFF_SEED and DIFF_PAGE_SIZE (CStorage page size)
 * override the defaults. */
#include <stdio.h>
#include <stdlib.h>

#include "kv.h"
#include "test.h"

enum { NTREES = 4, KEYSPACE = 24000, VBUF = 32768 };

typedef struct side {
    const kv_backend *be;
    tpath path;
    kv_env *env;
    kv_txn *txn, *old;     /* current txn, an old snapshot (or NULL) */
    kv_tree tree[NTREES];
} side;

static side S[2];
static uint64_t g_rng;
static long g_ops, g_commits, g_aborts, g_reads, g_mismatch, g_pc_steps, g_pc_dels, g_pc_puts;
static char g_vbuf[VBUF];

/* ---- keys and values ---- */
static const char *const prefixes[] = {
    "", "u:", "user:profile:", "item/2024/11/", "",
    "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP:",
};
/* Unique per id: family prefix, hex id, then 'z' padding (not a hex
 * digit), or 8 raw big-endian bytes for one family. 1..~300 bytes. */
static kv_val mkkey(char *buf, uint32_t id) {
    uint32_t fam = id % 7, h = id * 2654435761u;
    if (fam == 6) {
        for (int i = 0; i < 8; i++) buf[i] = (char)(i < 4 ? 0 : id >> (8 * (7 - i)));
        return V(buf, 8);
    }
    size_t n = (size_t)sprintf(buf, "%s%x", prefixes[fam], id);
    size_t pad = (h >> 8) % 8 == 0 ? (h >> 12) % 100 : 0;
    memset(buf + n, 'z', pad);
    return V(buf, n + pad);
}
static size_t vsize(void) {
    uint64_t r = rng_below(&g_rng, 1000);
    if (r < 600) return (size_t)rng_below(&g_rng, 101);
    if (r < 870) return 100 + (size_t)rng_below(&g_rng, 1400);
    if (r < 985) return 1500 + (size_t)rng_below(&g_rng, 4600);
    return 15000 + (size_t)rng_below(&g_rng, 10000);
}

/* ---- comparing ---- */
static int same_val(kv_val a, kv_val b) {
    return a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
}
#define AGREE(cond, ...)                                                     \
    do {                                                                     \
        if (cond) atomic_fetch_add(&test_passed, 1);                         \
        else { g_mismatch++; test_fail_(__FILE__, __LINE__, __VA_ARGS__); }  \
    } while (0)

static void cmp_get(kv_txn *ta, kv_txn *tb, int tr, uint32_t id) {
    char kb[400];
    kv_val k = mkkey(kb, id), va = {0}, vb = {0};
    int ra = kv_get(ta, S[0].tree[tr], k, &va), rb = kv_get(tb, S[1].tree[tr], k, &vb);
    AGREE(ra == rb && (ra || same_val(va, vb)), "op %ld get tree %d id %u: rc %d/%d size %zu/%zu",
          g_ops, tr, id, ra, rb, va.size, vb.size);
}

/* Seek (or start at an end) and walk a few steps; compare every step. */
static void cmp_walk(kv_txn *ta, kv_txn *tb, int tr) {
    kv_cursor *ca, *cb;
    if (kv_cursor_open(ta, S[0].tree[tr], &ca) != CS_OK) { g_mismatch++; CHECK(0); return; }
    if (kv_cursor_open(tb, S[1].tree[tr], &cb) != CS_OK) { kv_cursor_close(ca); g_mismatch++; CHECK(0); return; }
    char kb[400];
    kv_val ka = {0}, kb_ = {0}, va = {0}, vb = {0};
    uint64_t mode = rng_below(&g_rng, 10);
    kv_op op = mode == 0 ? KV_FIRST : mode == 1 ? KV_LAST : mode == 2 ? KV_EXACT : KV_SEEK;
    if (op == KV_SEEK || op == KV_EXACT) ka = kb_ = mkkey(kb, (uint32_t)rng_below(&g_rng, KEYSPACE));
    kv_op step = rng_below(&g_rng, 2) ? KV_NEXT : KV_PREV;
    int steps = 1 + (int)rng_below(&g_rng, 20);
    for (int s = 0; s <= steps; s++) {
        int ra = kv_cursor_get(ca, &ka, &va, op), rb = kv_cursor_get(cb, &kb_, &vb, op);
        AGREE(ra == rb && (ra || (same_val(ka, kb_) && same_val(va, vb))),
              "op %ld walk tree %d step %d (op %d): rc %d/%d", g_ops, tr, s, (int)op, ra, rb);
        if (ra || rb) break;
        op = step;
    }
    kv_cursor_close(ca);
    kv_cursor_close(cb);
}

static void cmp_count(kv_txn *ta, kv_txn *tb, int tr) {
    uint64_t na = 0, nb = 0;
    int ra = kv_count(ta, S[0].tree[tr], &na), rb = kv_count(tb, S[1].tree[tr], &nb);
    AGREE(ra == rb && na == nb, "op %ld count tree %d: %llu/%llu", g_ops, tr,
          (unsigned long long)na, (unsigned long long)nb);
}

/* Full contents of every tree, in a fresh read txn on each side; on
 * CStorage also the rank of every entry. */
static cs_cursor *g_rank_cur[NTREES];
static void cmp_all(void) {
    kv_txn *ta, *tb;
    REQUIRE_OK(kv_txn_begin(S[0].env, KV_READ, &ta));
    REQUIRE_OK(kv_txn_begin(S[1].env, KV_READ, &tb));
    for (int tr = 0; tr < NTREES; tr++) {
        kv_cursor *ca, *cb;
        REQUIRE_OK(kv_cursor_open(ta, S[0].tree[tr], &ca));
        REQUIRE_OK(cs_cursor_open((cs_txn *)ta->native, S[0].tree[tr], &g_rank_cur[tr]));
        REQUIRE_OK(kv_cursor_open(tb, S[1].tree[tr], &cb));
        kv_val ka, kb, va, vb;
        long n = 0;
        int ra = kv_cursor_get(ca, &ka, &va, KV_FIRST), rb = kv_cursor_get(cb, &kb, &vb, KV_FIRST);
        for (;;) {
            if (ra != rb || (ra == 0 && !(same_val(ka, kb) && same_val(va, vb)))) {
                AGREE(0, "commit %ld tree %d entry %ld differs: rc %d/%d", g_commits, tr, n, ra, rb);
                break;
            }
            if (ra) break;
            /* rank counts agree with positions, both ways */
            uint64_t idx = n % 5 ? (uint64_t)n : ~0ull; /* every 5th: it costs a root walk */
            cs_cursor *cc = (cs_cursor *)ca->native;
            if ((n % 5 == 0 && cs_cursor_index(cc, &idx) != CS_OK) || idx != (uint64_t)n) {
                AGREE(0, "commit %ld tree %d entry %ld: cs_cursor_index %llu", g_commits, tr, n,
                      (unsigned long long)idx);
                break;
            }
            if (n % 97 == 0) {
                cs_val ik = {0};
                int ri = cs_cursor_seek_index(g_rank_cur[tr], (uint64_t)n, &ik, NULL);
                AGREE(ri == 0 && same_val(ik, ka), "commit %ld tree %d: seek_index(%ld) rc %d",
                      g_commits, tr, n, ri);
            }
            n++;
            ra = kv_cursor_get(ca, &ka, &va, KV_NEXT);
            rb = kv_cursor_get(cb, &kb, &vb, KV_NEXT);
        }
        atomic_fetch_add(&test_passed, 1);
        cmp_count(ta, tb, tr);
        kv_cursor_close(ca);
        kv_cursor_close(cb);
        cs_cursor_close(g_rank_cur[tr]);
    }
    CHECK_OK(kv_txn_abort(ta));
    CHECK_OK(kv_txn_abort(tb));
}

/* ---- the two sides in lockstep ---- */
static void open_trees(int create) {
    for (int s = 0; s < 2; s++) {
        kv_txn *t;
        REQUIRE_OK(kv_txn_begin(S[s].env, KV_WRITE, &t));
        for (int tr = 0; tr < NTREES; tr++) {
            char name[16];
            snprintf(name, sizeof name, "tree%d", tr);
            REQUIRE_OK(kv_tree_open(t, name, create, &S[s].tree[tr]));
        }
        REQUIRE_OK(kv_txn_commit(t));
    }
}
static unsigned g_page_size;

static void open_envs(void) {
    kv_options o = {0};
    o.flags = KV_NOSYNC;
    o.page_size = g_page_size;
    for (int s = 0; s < 2; s++) REQUIRE_OK(kv_env_open(S[s].be, S[s].path.s, &o, &S[s].env));
    open_trees(1);
}
static void close_envs(void) {
    for (int s = 0; s < 2; s++) {
        if (S[s].old) CHECK_OK(kv_txn_abort(S[s].old));
        S[s].old = NULL;
        CHECK_OK(kv_env_close(S[s].env));
    }
}
static void begin_all(unsigned kind) {
    for (int s = 0; s < 2; s++) REQUIRE_OK(kv_txn_begin(S[s].env, kind, &S[s].txn));
}
static void check_engine(void) {
    cs_check_report rep;
    memset(&rep, 0, sizeof rep);
    int r = cs_check((cs_env *)S[0].env->native, &rep);
    CHECK_OK(r);
    if (r || rep.errors) {
        fprintf(stderr, "cs_check after commit %ld: %llu errors: %s\n", g_commits,
                (unsigned long long)rep.errors, rep.first_error);
        g_mismatch++;
    }
}

static void pc_close_all(void);

static void end_txn(int commit) {
    int ra, rb;
    pc_close_all();
    if (commit) {
        ra = kv_txn_commit(S[0].txn);
        rb = kv_txn_commit(S[1].txn);
    } else {
        ra = kv_txn_abort(S[0].txn);
        rb = kv_txn_abort(S[1].txn);
    }
    CHECK_OK(ra);
    CHECK_OK(rb);
    S[0].txn = S[1].txn = NULL;
}

/* ---- a long-lived CStorage cursor per tree in write txns ----
 * It must stay valid across the txn's other modifications. The oracle is a
 * fresh LMDB cursor: from key K, NEXT is the first key > K and PREV the
 * last key < K, whether K is still there or was just deleted through the
 * cursor (cs_cursor_del leaves it between its neighbours). */
static cs_cursor *g_pc[NTREES];

static void pc_close_all(void) {
    for (int tr = 0; tr < NTREES; tr++)
        if (g_pc[tr]) { cs_cursor_close(g_pc[tr]); g_pc[tr] = NULL; }
}

/* LMDB's neighbour of K: dir KV_NEXT = first key > K, KV_PREV = last < K. */
static int lm_neighbour(int tr, kv_val k, kv_op dir, kv_val *ok, kv_val *ov) {
    kv_cursor *c;
    if (kv_cursor_open(S[1].txn, S[1].tree[tr], &c)) return -1;
    kv_val fk = k;
    int r = kv_cursor_get(c, &fk, ov, KV_SEEK);
    if (dir == KV_NEXT) {
        if (r == CS_OK && same_val(fk, k)) r = kv_cursor_get(c, &fk, ov, KV_NEXT);
    } else {
        r = r == CS_NOTFOUND ? kv_cursor_get(c, &fk, ov, KV_LAST) : kv_cursor_get(c, &fk, ov, KV_PREV);
    }
    *ok = fk;
    kv_cursor_close(c);
    return r;
}

static void pc_step(int tr, kv_op dir, kv_val k, const char *what) {
    cs_val ck = {0}, cv = {0};
    kv_val lk = {0}, lv = {0};
    int ra = cs_cursor_get(g_pc[tr], &ck, &cv, (cs_cursor_op)dir);
    int rb = lm_neighbour(tr, k, dir, &lk, &lv);
    AGREE(ra == rb && (ra || (same_val(ck, lk) && same_val(cv, lv))),
          "op %ld long-lived cursor tree %d %s %s: rc %d/%d", g_ops, tr, what,
          dir == KV_NEXT ? "NEXT" : "PREV", ra, rb);
}

static void pc_op(int tr) {
    cs_txn *ct = (cs_txn *)S[0].txn->native;
    if (!g_pc[tr] && cs_cursor_open(ct, S[0].tree[tr], &g_pc[tr]) != CS_OK) { CHECK(0); return; }
    cs_cursor *c = g_pc[tr];
    char kb[400], kb2[400];
    cs_val ck = {0}, cv = {0};
    kv_val lv = {0};
    int r = cs_cursor_get(c, &ck, &cv, CS_CURRENT);
    /* (re)position when unpositioned or its entry was deleted elsewhere */
    if (r != CS_OK || ck.size > sizeof kb || kv_get(S[1].txn, S[1].tree[tr], ck, &lv) != CS_OK) {
        kv_val sk = mkkey(kb, (uint32_t)rng_below(&g_rng, KEYSPACE)), lk = sk;
        ck = sk;
        int ra = cs_cursor_get(c, &ck, &cv, CS_SEEK);
        kv_cursor *lc;
        if (kv_cursor_open(S[1].txn, S[1].tree[tr], &lc)) return;
        int rb = kv_cursor_get(lc, &lk, &lv, KV_SEEK);
        AGREE(ra == rb && (ra || (same_val(ck, lk) && same_val(cv, lv))),
              "op %ld long-lived cursor tree %d SEEK: rc %d/%d", g_ops, tr, ra, rb);
        kv_cursor_close(lc);
        return;
    }
    /* it sees the current value of its own entry */
    AGREE(same_val(cv, lv), "op %ld long-lived cursor tree %d: stale value", g_ops, tr);
    memcpy(kb, ck.data, ck.size);
    kv_val k = V(kb, ck.size);
    kv_op dir = rng_below(&g_rng, 2) ? KV_NEXT : KV_PREV;
    uint64_t what = rng_below(&g_rng, 10);
    if (what < 6) {
        pc_step(tr, dir, k, "step");
        g_pc_steps++;
    } else if (what < 8) { /* delete through the cursor, then step off the hole */
        int ra = cs_cursor_del(c), rb = kv_del(S[1].txn, S[1].tree[tr], k);
        AGREE(ra == 0 && rb == 0, "op %ld cursor_del tree %d: rc %d/%d", g_ops, tr, ra, rb);
        pc_step(tr, dir, k, "after cursor_del");
        g_pc_dels++;
    } else { /* put through the cursor: it moves to that key */
        kv_val k2 = mkkey(kb2, (uint32_t)rng_below(&g_rng, KEYSPACE));
        size_t n = vsize(), off = (size_t)rng_below(&g_rng, VBUF - n + 1);
        int ra = cs_cursor_put(c, k2, V(g_vbuf + off, n), 0);
        int rb = kv_put(S[1].txn, S[1].tree[tr], k2, V(g_vbuf + off, n), 0);
        AGREE(ra == rb, "op %ld cursor_put tree %d: rc %d/%d", g_ops, tr, ra, rb);
        ra = cs_cursor_get(c, &ck, &cv, CS_CURRENT);
        AGREE(ra == 0 && same_val(ck, k2) && same_val(cv, V(g_vbuf + off, n)),
              "op %ld cursor_put tree %d: cursor not on the new entry (rc %d)", g_ops, tr, ra);
        g_pc_puts++;
    }
}

static void write_op(void) {
    kv_txn *ta = S[0].txn, *tb = S[1].txn;
    int tr = (int)rng_below(&g_rng, NTREES);
    uint32_t id = (uint32_t)rng_below(&g_rng, KEYSPACE);
    char kb[400];
    kv_val k = mkkey(kb, id);
    uint64_t r = rng_below(&g_rng, 1000);
    if (r < 400) {
        size_t n = vsize();
        size_t off = (size_t)rng_below(&g_rng, VBUF - n + 1);
        unsigned fl = rng_below(&g_rng, 10) == 0 ? KV_NOOVERWRITE : 0;
        int ra = kv_put(ta, S[0].tree[tr], k, V(g_vbuf + off, n), fl);
        int rb = kv_put(tb, S[1].tree[tr], k, V(g_vbuf + off, n), fl);
        AGREE(ra == rb, "op %ld put tree %d id %u size %zu flags %u: rc %d/%d", g_ops, tr, id, n, fl, ra, rb);
    } else if (r < 560) {
        /* half the deletes aim at keys likely present: the next key >= id */
        if (r < 480) {
            kv_cursor *c;
            kv_val probe = k;
            if (kv_cursor_open(tb, S[1].tree[tr], &c) == CS_OK) {
                if (kv_cursor_get(c, &probe, NULL, KV_SEEK) == CS_OK && probe.size < sizeof kb) {
                    memmove(kb, probe.data, probe.size);
                    k = V(kb, probe.size);
                }
                kv_cursor_close(c);
            }
        }
        int ra = kv_del(ta, S[0].tree[tr], k), rb = kv_del(tb, S[1].tree[tr], k);
        AGREE(ra == rb, "op %ld del tree %d id %u: rc %d/%d", g_ops, tr, id, ra, rb);
    } else if (r < 800) {
        cmp_get(ta, tb, tr, id);
    } else if (r < 900) {
        cmp_walk(ta, tb, tr);
    } else if (r < 920) {
        cmp_count(ta, tb, tr);
    } else if (r < 950) {
        if (S[0].old) { /* an old snapshot still agrees */
            cmp_get(S[0].old, S[1].old, tr, id);
            if (r % 4 == 0) cmp_walk(S[0].old, S[1].old, tr);
        }
    } else if (r < 999) {
        pc_op(tr);
    } else if (r == 999 && rng_below(&g_rng, 300) == 0) {
        int ra = kv_tree_clear(ta, S[0].tree[tr]), rb = kv_tree_clear(tb, S[1].tree[tr]);
        AGREE(ra == 0 && rb == 0, "op %ld clear tree %d: rc %d/%d", g_ops, tr, ra, rb);
    }
}

/* Drop a tree and recreate it, then commit (LMDB closes dropped handles). */
static void drop_recreate(void) {
    pc_close_all();
    int tr = (int)rng_below(&g_rng, NTREES);
    char name[16];
    snprintf(name, sizeof name, "tree%d", tr);
    for (int s = 0; s < 2; s++) {
        CHECK_OK(kv_tree_drop(S[s].txn, S[s].tree[tr]));
        CHECK_OK(kv_tree_open(S[s].txn, name, 1, &S[s].tree[tr]));
    }
    /* the old snapshot may hold the dropped tree under the old handle on
     * CStorage but not on LMDB: retire it */
    for (int s = 0; s < 2; s++) {
        if (S[s].old) CHECK_OK(kv_txn_abort(S[s].old));
        S[s].old = NULL;
    }
}

int main(void) {
    const char *e = getenv("DIFF_OPS");
    long total = e ? atol(e) : 1000000;
    e = getenv("DIFF_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 0) : 20261122;
    e = getenv("DIFF_PAGE_SIZE");
    g_page_size = e ? (unsigned)atoi(e) : 0;
    g_rng = seed;
    test_fill(g_vbuf, sizeof g_vbuf, seed);
    S[0].be = &kv_cstorage;
    S[1].be = &kv_lmdb;
    S[0].path = test_path("diff.cs");
    S[1].path = test_path("diff.mdb");
    open_envs();
    double t0 = test_now();
    long in_txn = 0, txn_len = 0;
    int reading = 0;
    while (g_ops < total && g_mismatch < 20) {
        if (!S[0].txn) {
            reading = rng_below(&g_rng, 10) == 0;
            begin_all(reading ? KV_READ : KV_WRITE);
            in_txn = 0;
            txn_len = 1 + (long)rng_below(&g_rng, rng_below(&g_rng, 4) ? 1500 : 3000);
        }
        g_ops++;
        if (reading) {
            int tr = (int)rng_below(&g_rng, NTREES);
            if (rng_below(&g_rng, 4)) cmp_get(S[0].txn, S[1].txn, tr, (uint32_t)rng_below(&g_rng, KEYSPACE));
            else cmp_walk(S[0].txn, S[1].txn, tr);
        } else {
            write_op();
        }
        if (++in_txn < txn_len) continue;
        if (reading) { end_txn(0); g_reads++; continue; }
        if (rng_below(&g_rng, 10) == 0) { end_txn(0); g_aborts++; continue; }
        if (rng_below(&g_rng, 60) == 0) drop_recreate();
        end_txn(1);
        g_commits++;
        cmp_all();
        if (g_commits % 8 == 0) check_engine();
        if (rng_below(&g_rng, 15) == 0) { /* take or renew an old snapshot */
            for (int s = 0; s < 2; s++) {
                if (S[s].old) CHECK_OK(kv_txn_abort(S[s].old));
                REQUIRE_OK(kv_txn_begin(S[s].env, KV_READ, &S[s].old));
            }
        }
        if (rng_below(&g_rng, 60) == 0) { close_envs(); open_envs(); }
    }
    if (S[0].txn) { end_txn(1); g_commits++; cmp_all(); }
    check_engine();
    cs_check_report rep;
    CHECK_OK(cs_check((cs_env *)S[0].env->native, &rep));
    printf("page size %u, seed %llu: %ld ops, %ld commits, %ld aborts, %ld read txns in %.1fs; "
           "%llu entries, %llu pages; long-lived cursors: %ld steps, %ld dels, %ld puts; "
           "%ld mismatches\n",
           g_page_size, (unsigned long long)seed, g_ops, g_commits, g_aborts, g_reads, test_now() - t0,
           (unsigned long long)rep.entries, (unsigned long long)rep.pages_total, g_pc_steps, g_pc_dels, g_pc_puts, g_mismatch);
    CHECK_EQ(g_mismatch, 0);
    close_envs();
    return test_report();
}
