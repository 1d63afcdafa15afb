/*
 * fuzz_ops.c — differential fuzzing of CStorage against LMDB.
 *
 * The input is decoded into operations on three named trees — put (plain
 * or no-overwrite, small or overflow-sized values), delete, get, count,
 * clear, cursor walks (first/last/next/prev/seek/exact), commit, deferred
 * commit (CStorage; LMDB commits normally), abort, fresh read snapshots, a
 * snapshot held across later commits (free-space reuse must not disturb
 * it), and close/reopen — applied to both engines through the
 * kv.h adapter. Every result code, key and value must agree, and after
 * each commit and reopen cs_check must report a clean file. Keys come from
 * a small alphabet so that operations collide.
 */
#include <stdbool.h>

#include "cstorage.h"
#include "fuzz_common.h"
#include "invariants.h"
#include "kv.h"

#define NTREES 3
static const char *tree_names[NTREES] = {"alpha", "beta", "gamma"};

typedef struct {
    kv_env *e[2];
    kv_txn *w[2];       /* open write txns (both or neither) */
    kv_txn *snap[2];    /* a read snapshot held across commits, or NULL */
    kv_tree tr[2][NTREES];
    char path[2][300];
    bool shrink; /* CStorage with auto-shrink (odd-length inputs) */
    bool logged; /* CStorage durable, small commits logged (length % 4 >= 2) */
} world;

/* Which invariant a disagreement with LMDB breaks: a held snapshot that
 * changes (I7), O(1) counts (I5: descriptor and branch counts), cursor
 * order (I3/I4), or plain key-value semantics. */
static const char *broken(const char *what)
{
    if (!strncmp(what, "snapshot", 8)) return INV_I7 " (a held snapshot changed)";
    if (strstr(what, "count")) return INV_I5 " (O(1) counts)";
    if (!strncmp(what, "cursor", 6)) return INV_I3 " / " INV_I4 " (cursor order)";
    return INV_SEMANTICS;
}

static _Noreturn void mismatch(const char *what, int a, int b)
{
    fprintf(stderr, "MISMATCH in %s, breaks %s: cstorage %s (%d), lmdb %s (%d) [%s]\n", what, broken(what),
            cs_strerror(a), a, cs_strerror(b), b, cs_last_error_detail());
    abort();
}

static void same_rc(const char *what, int a, int b)
{
    if (a != b) mismatch(what, a, b);
}

static void same_val(const char *what, kv_val a, kv_val b)
{
    if (a.size != b.size || (a.size && memcmp(a.data, b.data, a.size))) {
        fprintf(stderr, "MISMATCH in %s, breaks %s: values of %zu and %zu bytes differ\n", what, broken(what), a.size,
                b.size);
        abort();
    }
}

static void check_clean(world *w, const char *when)
{
    cs_check_report r;
    int rc = cs_check((cs_env *)w->e[0]->native, &r);
    if (rc != CS_OK) {
        char why[400];
        if (r.errors) inv_describe_check(why, sizeof why, r.first_error);
        else snprintf(why, sizeof why, "cs_check: %s (%s)", cs_strerror(rc), cs_last_error_detail());
        fprintf(stderr, "after %s: %s\n", when, why);
        abort();
    }
}

static void open_envs(world *w)
{
    /* Inputs of odd length run CStorage with auto-shrink (pages moved and
     * the file cut by ordinary commits), which must not change any result. */
    kv_options o = {.flags = (w->shrink ? KV_AUTO_SHRINK : 0), .map_size = 256u << 20};
    /* Inputs of length 2 or 3 modulo 4 log CStorage's small commits (a
     * durable env, on /dev/shm where a flush costs nothing): logged
     * commits, folds and the reads of both must not change any result. */
    o.flags |= w->logged ? KV_LOG_SMALL : KV_NOSYNC;
    const kv_backend *be[2] = {&kv_cstorage, &kv_lmdb};
    for (int i = 0; i < 2; i++) {
        int rc = kv_env_open(be[i], w->path[i], &o, &w->e[i]);
        if (rc) {
            fprintf(stderr, "%s open: %s\n", be[i]->name, cs_strerror(rc));
            abort();
        }
        kv_txn *t;
        if (kv_txn_begin(w->e[i], KV_WRITE, &t)) abort();
        for (int k = 0; k < NTREES; k++)
            if (kv_tree_open(t, tree_names[k], 1, &w->tr[i][k])) abort();
        if (kv_txn_commit(t)) abort();
    }
}

static void close_envs(world *w)
{
    for (int i = 0; i < 2; i++) kv_env_close(w->e[i]);
}

static size_t make_key(fz_in *in, uint8_t *k)
{
    /* 1..4 bytes from a 6-letter alphabet, sometimes long: lots of
     * collisions, and long shared prefixes */
    uint8_t c = fz_u8(in);
    size_t n = 1 + (c & 3);
    if (c & 0x80) n += 20 + fz_u8(in) % 200;
    for (size_t i = 0; i < n; i++) k[i] = (uint8_t)('a' + (i < 4 ? fz_u8(in) % 6 : i % 7));
    return n;
}

static size_t make_val(fz_in *in, uint8_t *v)
{
    uint8_t c = fz_u8(in);
    size_t n = (c & 0xC0) == 0xC0 ? 1500 + (size_t)fz_u16(in) % 9000 : c % 64; /* some overflow */
    uint8_t seed = fz_u8(in);
    for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(seed + i * 31);
    return n;
}

static void begin_write(world *w)
{
    if (w->w[0]) return;
    for (int i = 0; i < 2; i++)
        if (kv_txn_begin(w->e[i], KV_WRITE, &w->w[i])) abort();
}

static void end_write(world *w, int commit) /* 0 abort, 1 commit, 2 deferred commit */
{
    if (!w->w[0]) return;
    if (commit) {
        int a, b = kv_txn_commit(w->w[1]);
        if (commit == 2) { /* CStorage only; LMDB commits normally */
            a = cs_txn_commit_deferred((cs_txn *)w->w[0]->native);
            free(w->w[0]);
        } else {
            a = kv_txn_commit(w->w[0]);
        }
        same_rc("commit", a, b);
        check_clean(w, "commit");
    } else {
        kv_txn_abort(w->w[0]);
        kv_txn_abort(w->w[1]);
    }
    w->w[0] = w->w[1] = NULL;
}

/* A cursor walk of a few moves on tree k of txns t[0], t[1]. */
static void cursor_walk(world *w, kv_txn *t[2], int k, fz_in *in)
{
    kv_cursor *c[2];
    for (int i = 0; i < 2; i++)
        if (kv_cursor_open(t[i], w->tr[i][k], &c[i])) abort();
    int moves = 1 + fz_u8(in) % 12;
    bool positioned = false;
    uint8_t kb[300];
    for (int m = 0; m < moves; m++) {
        kv_op op = (kv_op)(fz_u8(in) % 6);
        /* After a failed seek the engines leave the cursor in different
         * places (documented: LMDB unpositions it), so re-anchor first. */
        if (!positioned && (op == KV_NEXT || op == KV_PREV)) op = op == KV_NEXT ? KV_FIRST : KV_LAST;
        kv_val key[2] = {{0}}, val[2] = {{0}};
        if (op == KV_SEEK || op == KV_EXACT) {
            size_t kl = make_key(in, kb);
            key[0] = key[1] = (kv_val){kb, kl};
        }
        int a = kv_cursor_get(c[0], &key[0], &val[0], op), b = kv_cursor_get(c[1], &key[1], &val[1], op);
        same_rc("cursor_get", a, b);
        if (a == CS_OK) {
            same_val("cursor key", key[0], key[1]);
            same_val("cursor value", val[0], val[1]);
            positioned = true;
        } else if (op == KV_SEEK || op == KV_EXACT || op == KV_FIRST || op == KV_LAST) {
            positioned = false;
        }
    }
    kv_cursor_close(c[0]);
    kv_cursor_close(c[1]);
}

static void drop_snapshot(world *w)
{
    if (!w->snap[0]) return;
    kv_txn_abort(w->snap[0]);
    kv_txn_abort(w->snap[1]);
    w->snap[0] = w->snap[1] = NULL;
}

/* Compare a fresh snapshot, or the held one (taken now if there is none:
 * later commits must not disturb what it sees). */
static void read_snapshot(world *w, fz_in *in)
{
    kv_txn *t[2];
    uint8_t how = fz_u8(in);
    if (how & 1) {
        if (how & 2) drop_snapshot(w);
        for (int i = 0; !w->snap[1] && i < 2; i++)
            if (kv_txn_begin(w->e[i], KV_READ, &w->snap[i])) abort();
        int k = fz_u8(in) % NTREES;
        uint64_t n[2];
        same_rc("snapshot count", kv_count(w->snap[0], w->tr[0][k], &n[0]), kv_count(w->snap[1], w->tr[1][k], &n[1]));
        if (n[0] != n[1]) mismatch("snapshot count value", (int)n[0], (int)n[1]);
        cursor_walk(w, w->snap, k, in);
        return;
    }
    for (int i = 0; i < 2; i++)
        if (kv_txn_begin(w->e[i], KV_READ, &t[i])) abort();
    int k = fz_u8(in) % NTREES;
    uint64_t n[2];
    same_rc("read count", kv_count(t[0], w->tr[0][k], &n[0]), kv_count(t[1], w->tr[1][k], &n[1]));
    if (n[0] != n[1]) mismatch("read count value", (int)n[0], (int)n[1]);
    cursor_walk(w, t, k, in);
    kv_txn_abort(t[0]);
    kv_txn_abort(t[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static world w;
    const char *dir = fz_dir("ops");
    snprintf(w.path[0], sizeof w.path[0], "%s/cs.db", dir);
    snprintf(w.path[1], sizeof w.path[1], "%s/lmdb.db", dir);
    fz_rm(w.path[0], ".lock");
    fz_rm(w.path[1], "-lock");
    w.shrink = size & 1;
    w.logged = size % 4 >= 2;
    open_envs(&w);
    fz_in in = {data, size};
    static uint8_t kb[300], vb[11000];
    int ops = 0;
    while (fz_more(&in) && ops++ < 600) {
        uint8_t op = fz_u8(&in);
        int k = (op >> 4) % NTREES;
        switch (op & 15) {
        case 0: case 1: case 2: case 3: { /* put */
            begin_write(&w);
            size_t kl = make_key(&in, kb), vl = make_val(&in, vb);
            unsigned f = (op & 15) == 3 ? KV_NOOVERWRITE : 0;
            same_rc("put", kv_put(w.w[0], w.tr[0][k], (kv_val){kb, kl}, (kv_val){vb, vl}, f),
                    kv_put(w.w[1], w.tr[1][k], (kv_val){kb, kl}, (kv_val){vb, vl}, f));
            break;
        }
        case 4: case 5: { /* delete */
            begin_write(&w);
            size_t kl = make_key(&in, kb);
            same_rc("del", kv_del(w.w[0], w.tr[0][k], (kv_val){kb, kl}), kv_del(w.w[1], w.tr[1][k], (kv_val){kb, kl}));
            break;
        }
        case 6: { /* get, in the write txn if any, else a read txn */
            size_t kl = make_key(&in, kb);
            kv_txn *t[2] = {w.w[0], w.w[1]};
            bool own = !t[0];
            for (int i = 0; own && i < 2; i++)
                if (kv_txn_begin(w.e[i], KV_READ, &t[i])) abort();
            kv_val v[2] = {{0}};
            int a = kv_get(t[0], w.tr[0][k], (kv_val){kb, kl}, &v[0]), b = kv_get(t[1], w.tr[1][k], (kv_val){kb, kl}, &v[1]);
            same_rc("get", a, b);
            if (a == CS_OK) same_val("get", v[0], v[1]);
            if (own) kv_txn_abort(t[0]), kv_txn_abort(t[1]);
            break;
        }
        case 7: { /* count */
            if (!w.w[0]) break;
            uint64_t n[2];
            same_rc("count", kv_count(w.w[0], w.tr[0][k], &n[0]), kv_count(w.w[1], w.tr[1][k], &n[1]));
            if (n[0] != n[1]) mismatch("count value", (int)n[0], (int)n[1]);
            break;
        }
        case 8: /* cursor walk in the write txn */
            begin_write(&w);
            cursor_walk(&w, w.w, k, &in);
            break;
        case 9: read_snapshot(&w, &in); break;
        case 10: case 11: end_write(&w, 1); break;
        case 12: end_write(&w, fz_u8(&in) % 4 == 0 ? 2 : 0); break;
        case 13: /* clear a tree */
            if (fz_u8(&in) % 4) break;
            begin_write(&w);
            same_rc("clear", kv_tree_clear(w.w[0], w.tr[0][k]), kv_tree_clear(w.w[1], w.tr[1][k]));
            break;
        case 14: /* close and reopen both (an open write txn commits first) */
            end_write(&w, fz_u8(&in) & 1);
            drop_snapshot(&w);
            close_envs(&w);
            open_envs(&w);
            check_clean(&w, "reopen");
            break;
        case 15: { /* a burst of sequential puts: grows trees past one page */
            begin_write(&w);
            int n = fz_u8(&in) % 64; /* small: cs_check runs after every commit */
            uint8_t seed = fz_u8(&in);
            for (int i = 0; i < n * 4; i++) {
                int kl = snprintf((char *)kb, sizeof kb, "s%c%05d", 'a' + seed % 6, i * (seed | 1) % 3000);
                size_t vl = (size_t)(i * 7 + seed) % 200;
                memset(vb, seed + i, vl);
                same_rc("burst put", kv_put(w.w[0], w.tr[0][k], (kv_val){kb, (size_t)kl}, (kv_val){vb, vl}, 0),
                        kv_put(w.w[1], w.tr[1][k], (kv_val){kb, (size_t)kl}, (kv_val){vb, vl}, 0));
            }
            break;
        }
        }
    }
    end_write(&w, 1);
    drop_snapshot(&w);
    close_envs(&w);
    return 0;
}
