/* test_cursor_batch.c — scans that cross leaves without a fresh descent:
 * cs_cursor_next_batch (keys or values only) and cs_cursor_next_ids
 * batches, mixed with single NEXT steps, and whole NEXT and PREV scans,
 * against a model of the tree, over compact leaves (keys of 2..12 bytes,
 * overflow values among them) and type-3 leaves (the format-1 fixture), in
 * read txns and in write txns that delete entries between batches (ahead
 * of the cursor, in the next leaf, and the cursor's own entry). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* One entry of the model: its key, and its value as test_fill(vl, seed). */
typedef struct ment {
    uint8_t k[16];
    uint32_t kl, vl;
    uint64_t seed;
    bool alive;
} ment;

typedef struct model {
    ment *e;
    size_t n;
} model;

enum { MAXCAP = 300 };
static uint8_t g_val[4096];

static void be64(uint8_t *out, uint64_t v)
{
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static int ment_cmp(const void *x, const void *y)
{
    const ment *a = x, *b = y;
    int c = memcmp(a->k, b->k, a->kl < b->kl ? a->kl : b->kl);
    return c ? c : (int)a->kl - (int)b->kl;
}

/* Object keys as the format-1 fixture's "people" tree has them: 8-byte
 * big-endian 0x01<<56 + 3i, values of 20 + i % 25 bytes with seed i;
 * `big`: every 97th value takes an overflow run. */
static model objects_model(size_t n, bool big)
{
    model m = {calloc(n, sizeof(ment)), n};
    for (size_t i = 0; i < n; i++) {
        be64(m.e[i].k, 0x0100000000000000ull + 3u * i);
        m.e[i].kl = 8;
        m.e[i].vl = big && i % 97 == 5 ? 3000 : 20 + (uint32_t)(i % 25);
        m.e[i].seed = i;
        m.e[i].alive = true;
    }
    return m;
}

/* List-style 12-byte keys (an owner id, then a position): leaf prefixes
 * longer than 8 bytes, suffixes shorter. */
static model lists_model(size_t n)
{
    model m = {calloc(n, sizeof(ment)), n};
    for (size_t i = 0; i < n; i++) {
        be64(m.e[i].k, 0x0200000000000000ull + i / 50);
        uint32_t pos = (uint32_t)(i % 50) * 7;
        m.e[i].k[8] = 0, m.e[i].k[9] = 0, m.e[i].k[10] = (uint8_t)(pos >> 8), m.e[i].k[11] = (uint8_t)pos;
        m.e[i].kl = 12;
        m.e[i].vl = 8;
        m.e[i].seed = 1000000 + i;
        m.e[i].alive = true;
    }
    return m;
}

/* Text keys of 2..5 bytes ("k0".."k2999"), shorter than an id. */
static model names_model(size_t n)
{
    model m = {calloc(n, sizeof(ment)), n};
    for (size_t i = 0; i < n; i++) {
        m.e[i].kl = (uint32_t)snprintf((char *)m.e[i].k, sizeof m.e[i].k, "k%zu", i);
        m.e[i].vl = (uint32_t)(i % 11);
        m.e[i].seed = 2000000 + i;
        m.e[i].alive = true;
    }
    qsort(m.e, n, sizeof(ment), ment_cmp);
    return m;
}

static void fill(cs_env *env, const char *name, const model *m)
{
    cs_tree tr = test_open_tree(env, name);
    cs_txn *t;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    for (size_t i = 0; i < m->n; i++) {
        test_fill(g_val, m->e[i].vl, m->e[i].seed);
        REQUIRE_OK(cs_put(t, tr, V(m->e[i].k, m->e[i].kl), V(g_val, m->e[i].vl), 0));
    }
    REQUIRE_OK(cs_txn_commit(t));
}

static size_t next_alive(const model *m, size_t from)
{
    while (from < m->n && !m->e[from].alive) from++;
    return from;
}

/* The id cs_cursor_next_ids gives for a key: its last 8 bytes, big-endian. */
static uint64_t key_id(const ment *e)
{
    uint64_t id = 0;
    for (uint32_t i = e->kl > 8 ? e->kl - 8 : 0; i < e->kl; i++) id = id << 8 | e->k[i];
    return id;
}

static bool same_val(const ment *e, cs_val v)
{
    test_fill(g_val, e->vl, e->seed);
    return v.size == e->vl && (e->vl == 0 || memcmp(v.data, g_val, e->vl) == 0);
}

static bool same_key(const ment *e, cs_val k)
{
    return k.size == e->kl && memcmp(k.data, e->k, e->kl) == 0;
}

/* Batches to the end from a fresh cursor, cycling through capacities and
 * the three kinds (keys, ids, values only), with a single NEXT every fourth
 * batch. `write`: every other batch deletes the next entry, one about a
 * leaf ahead, and (every sixth) the cursor's own. Returns entries read. */
static size_t scan_batches(cs_txn *t, cs_tree tr, model *m, bool write)
{
    static const size_t caps[] = {1, 3, 64, MAXCAP, 2, 17};
    cs_val keys[MAXCAP], vals[MAXCAP];
    uint64_t ids[MAXCAP];
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    size_t pos = 0, read = 0, bad = 0, got = 0;
    int rc;
    for (unsigned b = 0;; b++) {
        size_t cap = caps[b % (sizeof caps / sizeof caps[0])];
        unsigned kind = b % 3;
        rc = kind == 0 ? cs_cursor_next_batch(c, keys, vals, cap, &got)
             : kind == 1 ? cs_cursor_next_ids(c, ids, vals, cap, &got)
                         : cs_cursor_next_batch(c, NULL, vals, cap, &got);
        if (rc != CS_OK) break;
        if (got == 0 || got > cap) bad++;
        for (size_t i = 0; i < got; i++) {
            size_t e = next_alive(m, pos);
            if (e >= m->n) {
                bad++;
                break;
            }
            const ment *x = &m->e[e];
            if ((kind == 0 && !same_key(x, keys[i])) || (kind == 1 && ids[i] != key_id(x)) || !same_val(x, vals[i])) bad++;
            pos = e + 1;
            read++;
        }
        if (b % 4 == 3) {
            cs_val k, v;
            size_t e = next_alive(m, pos);
            int r = cs_cursor_get(c, &k, &v, CS_NEXT);
            if (e < m->n ? r != CS_OK || !same_key(&m->e[e], k) || !same_val(&m->e[e], v) : r != CS_NOTFOUND) bad++;
            if (e < m->n) pos = e + 1, read++;
        }
        if (write && b % 2 == 1) {
            size_t ahead = next_alive(m, pos), far = next_alive(m, pos + 150);
            if (ahead < m->n) {
                CHECK_OK(cs_del(t, tr, V(m->e[ahead].k, m->e[ahead].kl)));
                m->e[ahead].alive = false;
            }
            if (far < m->n) {
                CHECK_OK(cs_del(t, tr, V(m->e[far].k, m->e[far].kl)));
                m->e[far].alive = false;
            }
            if (b % 6 == 5 && pos > 0 && m->e[pos - 1].alive) {
                CHECK_OK(cs_cursor_del(c));
                m->e[pos - 1].alive = false;
            }
        }
    }
    CHECK_RC(rc, CS_NOTFOUND);
    CHECK_EQ(got, 0);
    CHECK_EQ(next_alive(m, pos), m->n);
    CHECK_EQ(bad, 0);
    CHECK_OK(cs_cursor_close(c));
    return read;
}

/* Single steps from one end to the other; `write`: every seventh entry is
 * deleted through the cursor on the way. Returns entries read. */
static size_t scan_steps(cs_txn *t, cs_tree tr, model *m, bool forward, bool write)
{
    cs_cursor *c;
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    cs_val k, v;
    size_t read = 0, bad = 0, e = forward ? 0 : m->n;
    int rc = cs_cursor_get(c, &k, &v, forward ? CS_FIRST : CS_LAST);
    for (; rc == CS_OK; rc = cs_cursor_get(c, &k, &v, forward ? CS_NEXT : CS_PREV)) {
        if (forward) {
            e = next_alive(m, e);
        } else {
            size_t j = e;
            while (j > 0 && !m->e[j - 1].alive) j--;
            e = j > 0 ? j - 1 : m->n;
        }
        if (e >= m->n || !same_key(&m->e[e], k) || !same_val(&m->e[e], v)) {
            bad++;
            break;
        }
        if (write && read % 7 == 3) {
            CHECK_OK(cs_cursor_del(c));
            m->e[e].alive = false;
        }
        if (forward) e++;
        read++;
    }
    CHECK_RC(rc, CS_NOTFOUND);
    CHECK_EQ(bad, 0);
    CHECK_OK(cs_cursor_close(c));
    return read;
}

static size_t alive_count(const model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) n += m->e[i].alive;
    return n;
}

/* Every kind of scan over one tree: read txn, then write txns deleting. */
static void scan_all(cs_env *env, const char *name, model *m)
{
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, name, 0, &tr));
    CHECK_EQ(scan_batches(t, tr, m, false), m->n);
    CHECK_EQ(scan_steps(t, tr, m, true, false), m->n);
    CHECK_EQ(scan_steps(t, tr, m, false, false), m->n);
    cs_txn_abort(t);

    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, name, 0, &tr));
    size_t before = alive_count(m);
    size_t read = scan_batches(t, tr, m, true);
    CHECK(read < before && read > before / 2);
    size_t alive = alive_count(m);
    CHECK_EQ(scan_steps(t, tr, m, false, true), alive);
    CHECK(alive_count(m) < alive);
    CHECK_EQ(scan_steps(t, tr, m, true, false), alive_count(m));
    CHECK_EQ(scan_batches(t, tr, m, false), alive_count(m));
    REQUIRE_OK(cs_txn_commit(t));

    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, name, 0, &tr));
    CHECK_EQ(scan_batches(t, tr, m, false), alive_count(m));
    CHECK_EQ(scan_steps(t, tr, m, false, false), alive_count(m));
    cs_txn_abort(t);
}

/* Compact leaves: object, list and short text keys. */
static void test_compact(void)
{
    cs_env *env;
    REQUIRE_OK(test_open(test_path("batch.db").s, 0, &env));
    model objs = objects_model(6000, true), lists = lists_model(5000), names = names_model(3000);
    fill(env, "objs", &objs);
    fill(env, "lists", &lists);
    fill(env, "names", &names);
    scan_all(env, "objs", &objs);
    scan_all(env, "lists", &lists);
    scan_all(env, "names", &names);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
    free(objs.e), free(lists.e), free(names.e);
}

/* Type-3 leaves: a copy of the format-1 fixture (test_format_old.c checks
 * that its leaves are type 3); the deleting write txn leaves the tree a mix
 * of both kinds, which the later scans cross. */
static void test_plain(void)
{
    tpath p = test_path("format-v1.cstore");
    FILE *in = fopen("Tests/CStorageCTests/fixtures/format-v1.cstore", "rb"), *out = fopen(p.s, "wb");
    REQUIRE(in && out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) REQUIRE(fwrite(buf, 1, n, out) == n);
    fclose(in);
    fclose(out);
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    model people = objects_model(3000, false);
    scan_all(env, "people", &people);
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_OK(cs_env_close(env));
    free(people.e);
}

/* Argument errors. */
static void test_errors(void)
{
    cs_env *env;
    REQUIRE_OK(test_open(test_path("errors.db").s, 0, &env));
    cs_tree tr = test_open_tree(env, "t");
    cs_txn *t;
    cs_cursor *c;
    uint64_t ids[4];
    size_t got = 9;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_cursor_open(t, tr, &c));
    CHECK_RC(cs_cursor_next_ids(c, NULL, NULL, 4, &got), CS_EINVAL);
    CHECK_RC(cs_cursor_next_ids(c, ids, NULL, 0, &got), CS_EINVAL);
    CHECK_RC(cs_cursor_next_ids(c, ids, NULL, 4, &got), CS_NOTFOUND);
    CHECK_EQ(got, 0);
    CHECK_OK(cs_cursor_close(c));
    cs_txn_abort(t);
    CHECK_OK(cs_env_close(env));
}

int main(void)
{
    test_compact();
    test_plain();
    test_errors();
    return test_report();
}
