/* test_check.c — the checker and open() against damaged files. A walker
 * written from format.h finds live pages of each type (and checks the file
 * matches the documented format); each copy of a healthy file gets one
 * kind of damage to one structure, with the page checksum re-sealed
 * (support/dbfile.h) unless the checksum is what the case is about, and
 * the engine must report exactly the error that structure's check gives
 * (code and message), never crash. Random damage then only has to be
 * reported somehow. */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dbfile.h"
#include "format.h"
#include "test.h"

/* ---- reading the file per format.h ---- */
static uint32_t crc32c(const uint8_t *p, size_t n) {
    uint32_t c = ~0u;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    }
    return ~c;
}
/* Meta checksum: the first 512 bytes with the checksum field read as 0
 * (the engine's reading of format.h's "bytes 4..511 ... taken as 0"). */
static uint32_t meta_crc(const uint8_t *p) {
    uint8_t tmp[CS_META_BYTES];
    memcpy(tmp, p, sizeof tmp);
    memset(tmp, 0, 4);
    return crc32c(tmp, sizeof tmp);
}
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

typedef struct {
    uint8_t *map;       /* the whole file */
    size_t size;
    uint32_t ps;
    cs_meta meta;       /* the newest valid meta */
    int meta_page;
    uint64_t leaf, branch, overflow, root; /* a live page of each kind */
    uint64_t pages, bad_crc, bad_hdr;
    uint64_t live[4096];  /* first page of every live page or run */
    size_t nlive;
} walk_t;

static uint8_t *page(walk_t *w, uint64_t pgno) { return w->map + pgno * w->ps; }

static void check_page(walk_t *w, uint64_t pgno, uint16_t type, size_t npages) {
    uint8_t *p = page(w, pgno);
    if (w->nlive < sizeof w->live / sizeof w->live[0]) w->live[w->nlive++] = pgno;
    if (rd16(p + 4) != type || rd64(p + 8) != pgno || rd64(p + 16) > w->meta.txnid) w->bad_hdr++;
    size_t len = npages * w->ps;
    uint8_t *tmp = malloc(len);
    memcpy(tmp, p, len);
    memset(tmp, 0, 4);
    if (crc32c(tmp, len) != rd32(p)) w->bad_crc++;
    free(tmp);
    w->pages += npages;
}

static void walk_tree(walk_t *w, uint64_t pgno, int catalog, int level) {
    if (pgno < 2 || (pgno + 1) * w->ps > w->size || level > CS_MAX_DEPTH) { w->bad_hdr++; return; }
    uint8_t *p = page(w, pgno);
    uint16_t type = rd16(p + 4), n = rd16(p + 6);
    check_page(w, pgno, type, 1);
    for (uint16_t i = 0; i < n; i++) {
        const uint8_t *c = p + rd16(p + PAGE_HDR + 2 * i);
        if (type == PT_BRANCH) {
            if (!catalog && !w->branch) w->branch = pgno;
            walk_tree(w, rd64(c), catalog, level + 1);
        } else if (type == PT_LEAF || type == PT_LEAF6) {
            if (!catalog && !w->leaf && level > 0) w->leaf = pgno;
            dbfile_leaf_cell lc = dbfile_leaf(p, i);
            if (catalog) {
                walk_tree(w, rd64(lc.val), 0, 0); /* descriptor: root first */
            } else if (lc.ovf) {
                uint64_t op = rd64(lc.val);
                size_t np = (PAGE_HDR + lc.vlen + w->ps - 1) / w->ps;
                if (!w->overflow) w->overflow = op;
                check_page(w, op, PT_OVERFLOW, np);
                if (rd32(page(w, op) + 28) != np) w->bad_hdr++;
            }
        } else {
            w->bad_hdr++;
            return;
        }
    }
}

static int walk_file(const char *path, walk_t *w) {
    memset(w, 0, sizeof *w);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    w->size = (size_t)lseek(fd, 0, SEEK_END);
    w->map = malloc(w->size);
    if (pread(fd, w->map, w->size, 0) != (ssize_t)w->size) { close(fd); return -1; }
    close(fd);
    cs_meta m[2];
    int ok[2];
    for (int i = 0; i < 2; i++) {
        const uint8_t *p = w->map + (size_t)i * (CS_DEFAULT_PAGE_SIZE);
        memcpy(&m[i], p, sizeof m[i]);
        ok[i] = m[i].magic == CS_MAGIC && m[i].hdr.type == PT_META &&
                meta_crc(p) == m[i].hdr.checksum;
    }
    CHECK(ok[0] && ok[1]);
    int newest = ok[1] && (!ok[0] || m[1].txnid > m[0].txnid);
    w->meta = m[newest];
    w->meta_page = newest;
    w->ps = w->meta.page_size;
    CHECK_EQ(w->meta.version, CS_FORMAT_VERSION);
    CHECK_EQ(w->meta.txnid % 2, (uint64_t)newest); /* txn N writes meta N % 2 */
    CHECK(w->meta.next_pgno * w->ps <= w->size);
    w->root = w->meta.catalog.root;
    if (w->meta.catalog.root) walk_tree(w, w->meta.catalog.root, 1, 0);
    if (w->meta.fl_pgno) check_page(w, w->meta.fl_pgno, PT_FREELIST, w->meta.fl_npages);
    return 0;
}

/* ---- damage ---- */
static void copy_file(const char *from, const char *to) {
    walk_t w;
    REQUIRE(walk_file(from, &w) == 0);
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0 && write(fd, w.map, w.size) == (ssize_t)w.size);
    close(fd);
    free(w.map);
}
static void scribble(const char *path, uint64_t off, size_t len, uint64_t seed) {
    uint8_t buf[256];
    test_fill(buf, sizeof buf, seed);
    int fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0 && len <= sizeof buf && pwrite(fd, buf, len, (off_t)off) == (ssize_t)len);
    close(fd);
}

/* Read everything reachable; any result but a crash is acceptable. */
static void read_all(cs_env *env) {
    cs_txn *t;
    if (cs_txn_begin(env, CS_TXN_RDONLY, &t)) return;
    const char *names[] = {"data", "small"};
    for (int i = 0; i < 2; i++) {
        cs_tree tr;
        cs_cursor *c;
        if (cs_tree_open(t, names[i], 0, &tr) || cs_cursor_open(t, tr, &c)) continue;
        cs_val k, v;
        volatile uint8_t sink = 0;
        for (int r = cs_cursor_get(c, &k, &v, CS_FIRST), n = 0; r == CS_OK && n < 1000000;
             r = cs_cursor_get(c, &k, &v, CS_NEXT), n++)
            if (v.size) sink ^= ((const uint8_t *)v.data)[v.size - 1];
        for (int r = cs_cursor_get(c, &k, &v, CS_LAST), n = 0; r == CS_OK && n < 1000000;
             r = cs_cursor_get(c, &k, &v, CS_PREV), n++) {}
        cs_cursor_close(c);
        (void)sink;
    }
    cs_txn_abort(t);
}

static const char *g_healthy;
static int g_case;

/* What one damage must produce: the error code, where it is reported
 * (open or cs_check), and up to two substrings of the message (today's
 * text; an invariant id in front of it does not matter). */
typedef struct {
    int rc;
    int at_open;
    const char *inv; /* the invariant (format.h) cs_check names, e.g. "I6" */
    char s1[96], s2[96];
} want_t;

static void want_check(want_t *x, const char *inv, const char *s1, const char *s2) {
    x->rc = CS_ECORRUPT;
    x->at_open = 0;
    x->inv = inv;
    snprintf(x->s1, sizeof x->s1, "%s", s1);
    snprintf(x->s2, sizeof x->s2, "%s", s2 ? s2 : "");
}
static void want_open(want_t *x, int rc, const char *s1) {
    want_check(x, NULL, s1, NULL);
    x->rc = rc;
    x->at_open = 1;
}
/* "page N" as cs_check names a page */
static const char *pg_name(uint64_t pgno) {
    static char b[4][32];
    static int i;
    i = (i + 1) & 3;
    snprintf(b[i], sizeof b[i], "page %llu", (unsigned long long)pgno);
    return b[i];
}

static int has(const char *msg, const char *sub) { return !sub[0] || strstr(msg, sub) != NULL; }
/* cs_check's messages start with the id of the invariant they break
 * ("I4 separator range: ...", format.h): if this one does, it must be the
 * invariant the damage was aimed at. */
static int names(const char *msg, const char *inv) {
    if (!inv || msg[0] != 'I' || msg[1] < '0' || msg[1] > '9') return 1;
    size_t n = strlen(inv);
    return strncmp(msg, inv, n) == 0 && (msg[n] < '0' || msg[n] > '9');
}

/* cs_check_each's callback: counts the problems, keeps the first, and
 * checks that each one names an invariant ("I<n> "). */
typedef struct each_t {
    uint64_t n;
    char first[256];
    int unnamed;
} each_t;
static void each_problem(void *ctx, const char *problem) {
    each_t *e = ctx;
    if (e->n++ == 0) snprintf(e->first, sizeof e->first, "%s", problem);
    if (problem[0] != 'I' || problem[1] < '1' || problem[1] > '9') e->unnamed++;
}

/* Copy the healthy file, damage it, and expect exactly the error that
 * damage must produce (not just any: a damage that the checksum check
 * reports would pass for any structure). */
static void expect_damage(const char *what, void (*damage)(const char *path, walk_t *w, want_t *want)) {
    char name[64];
    snprintf(name, sizeof name, "case%02d.db", g_case++);
    tpath p = test_path(name);
    copy_file(g_healthy, p.s);
    walk_t w;
    REQUIRE(walk_file(g_healthy, &w) == 0);
    want_t want;
    memset(&want, 0, sizeof want);
    damage(p.s, &w, &want);
    free(w.map);
    /* A copy of each damaged file, named by its kind, for the realmlite
     * tool's corpus run (fuzz/cli_corpus.sh: make -C fuzz cli-corpus). */
    const char *keep = getenv("CS_DAMAGE_KEEP_DIR");
    if (keep) {
        char kept[512];
        int n = snprintf(kept, sizeof kept, "%s/%s.db", keep, what);
        for (int i = n - 3 - (int)strlen(what); i < n - 3; i++)
            if (kept[i] == ' ') kept[i] = '-';
        /* byte for byte: copy_file walks its source, which is damaged now */
        static uint8_t buf[1 << 16];
        int in = open(p.s, O_RDONLY), out = open(kept, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        REQUIRE(in >= 0 && out >= 0);
        for (ssize_t got; (got = read(in, buf, sizeof buf)) > 0;) REQUIRE(write(out, buf, (size_t)got) == got);
        close(in);
        close(out);
    }
    cs_env *env = NULL;
    int r = test_open(p.s, 0, &env);
    if (r != CS_OK) {
        const char *msg = cs_last_error_detail();
        printf("%-24s open: %s (%s)\n", what, cs_strerror(r), msg);
        if (!want.at_open || r != want.rc || !has(msg, want.s1) || !has(msg, want.s2))
            test_fail_(__FILE__, __LINE__, "%s: open gave %s (%s); want %s %s with \"%s\" \"%s\"", what,
                       cs_strerror(r), msg, want.at_open ? "open" : "cs_check", cs_strerror(want.rc), want.s1, want.s2);
        else atomic_fetch_add(&test_passed, 1);
        return;
    }
    cs_check_report rep;
    memset(&rep, 0, sizeof rep);
    r = cs_check(env, &rep);
    printf("%-24s check: %s, %llu errors: %s\n", what, cs_strerror(r),
           (unsigned long long)rep.errors, rep.first_error);
    if (want.at_open || r != want.rc || rep.errors == 0 || !has(rep.first_error, want.s1) ||
        !has(rep.first_error, want.s2) || !names(rep.first_error, want.inv))
        test_fail_(__FILE__, __LINE__, "%s: cs_check gave %s, %llu errors, first \"%s\"; want %s %s with %s \"%s\" \"%s\"",
                   what, cs_strerror(r), (unsigned long long)rep.errors, rep.first_error,
                   want.at_open ? "open" : "cs_check", cs_strerror(want.rc), want.inv ? want.inv : "", want.s1, want.s2);
    else atomic_fetch_add(&test_passed, 1);
    /* cs_check's return carries the first error as the detail */
    if (r != CS_OK) CHECK(strcmp(cs_last_error_detail(), rep.first_error) == 0);
    /* cs_check_each reports every problem cs_check counts, the first one
     * first, each naming its invariant (realmlite check prints them) */
    each_t each;
    memset(&each, 0, sizeof each);
    cs_check_report rep2;
    CHECK_EQ(cs_check_each(env, &rep2, each_problem, &each), r);
    CHECK_EQ(each.n, rep.errors);
    CHECK_EQ(rep2.errors, rep.errors);
    CHECK(strcmp(each.first, rep.first_error) == 0);
    CHECK_EQ(each.unnamed, 0);
    read_all(env);
    CHECK_OK(cs_env_close(env));
}

/* ---- targeted damage: one structure each, checksums re-sealed unless the
 * checksum is what the case is about ---- */
static uint8_t g_pg[CS_MAX_PAGE_SIZE * 16];

/* Page pgno of the healthy file (npages) into g_pg, for patching. */
static uint8_t *load(walk_t *w, uint64_t pgno, size_t npages) {
    REQUIRE(npages * w->ps <= sizeof g_pg && (pgno + npages) * w->ps <= w->size);
    memcpy(g_pg, page(w, pgno), npages * w->ps);
    return g_pg;
}
/* Write g_pg back at pgno of the damaged copy, checksum re-sealed. */
static void seal(const char *path, walk_t *w, uint64_t pgno, size_t npages) {
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0 && dbfile_reseal(fd, w->ps, pgno, g_pg, npages) == 0);
    close(fd);
}
/* ... or without re-sealing (the checksum must catch it). */
static void put_raw(const char *path, walk_t *w, uint64_t pgno, size_t npages) {
    int fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0 && pwrite(fd, g_pg, npages * w->ps, (off_t)(pgno * w->ps)) == (ssize_t)(npages * w->ps));
    close(fd);
}
static uint8_t *cell(uint8_t *pg, unsigned i) { return dbfile_cell(pg, i); }
static void set_slot(uint8_t *pg, unsigned i, uint16_t off) { memcpy(pg + PAGE_HDR + 2 * i, &off, 2); }
static uint16_t slot(const uint8_t *pg, unsigned i) { return rd16(pg + PAGE_HDR + 2 * i); }
static uint64_t child(const uint8_t *pg, unsigned i) { return rd64(pg + slot(pg, i)); }
/* The rightmost leaf of the tree whose root branch is w->branch. */
static uint64_t rightmost_leaf(walk_t *w) {
    uint64_t pg = w->branch;
    for (int d = 0; d < CS_MAX_DEPTH && rd16(page(w, pg) + 4) == PT_BRANCH; d++)
        pg = child(page(w, pg), rd16(page(w, pg) + 6) - 1u);
    REQUIRE(rd16(page(w, pg) + 4) == PT_LEAF || rd16(page(w, pg) + 4) == PT_LEAF6);
    return pg;
}
/* The catalog leaf's cell for tree `name` and its descriptor. */
static uint8_t *catalog_desc(uint8_t *cat, const char *name) {
    for (unsigned i = 0; i < rd16(cat + 6); i++) {
        uint8_t k[CS_MAX_KEY];
        uint32_t kl = dbfile_leaf_key(cat, CS_DEFAULT_PAGE_SIZE, i, k);
        if (kl == strlen(name) && memcmp(k, name, kl) == 0) return dbfile_leaf(cat, i).val;
    }
    REQUIRE(!"tree not in the catalog");
    return NULL;
}

/* A byte of an inline value: only the checksum can tell. */
static void d_leaf_value(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->leaf, 1);
    unsigned i = 0;
    while (i < rd16(pg + 6) && (dbfile_leaf(pg, i).ovf || dbfile_leaf(pg, i).vlen == 0)) i++;
    REQUIRE(i < rd16(pg + 6));
    dbfile_leaf_cell c = dbfile_leaf(pg, i);
    c.val[c.vlen - 1] ^= 0x5a;
    put_raw(p, w, w->leaf, 1);
    want_check(x, "I2", pg_name(w->leaf), "checksum mismatch");
}
/* Two slots swapped: the page's keys are out of order. */
static void d_leaf_order(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->leaf, 1);
    uint16_t s0 = slot(pg, 0);
    set_slot(pg, 0, slot(pg, 1));
    set_slot(pg, 1, s0);
    seal(p, w, w->leaf, 1);
    want_check(x, "I3", pg_name(w->leaf), "keys out of order at 1");
}
/* A slot pointing at the last byte of the page: the cell is cut off. */
static void d_leaf_slot(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->leaf, 1);
    set_slot(pg, 0, (uint16_t)(w->ps - 1));
    seal(p, w, w->leaf, 1);
    want_check(x, "I8", pg_name(w->leaf), "cell 0 out of bounds");
}
/* nkeys larger than the slot area: the header does not add up. */
static void d_leaf_nkeys(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->leaf, 1);
    uint16_t n = (uint16_t)((rd16(pg + 24) - PAGE_HDR) / 2 + 1);
    memcpy(pg + 6, &n, 2);
    seal(p, w, w->leaf, 1);
    want_check(x, "I8", pg_name(w->leaf), "not a valid tree page");
}
/* Two children of a branch are the same page. */
static void d_branch_child(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->branch, 1);
    uint64_t c0 = child(pg, 0);
    memcpy(cell(pg, 1), &c0, 8);
    seal(p, w, w->branch, 1);
    want_check(x, "I6", pg_name(c0), "is used twice (tree page)");
}
/* A branch slot pointing past the page. */
static void d_branch_slot(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->branch, 1);
    set_slot(pg, 0, (uint16_t)(w->ps - 4));
    seal(p, w, w->branch, 1);
    want_check(x, "I8", pg_name(w->branch), "cell 0 out of bounds");
}
/* A later branch slot past the page: the walk meets it first as the upper
 * bound of child 0's keys, and must report it there. */
static void d_branch_slot_next(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->branch, 1);
    set_slot(pg, 1, (uint16_t)(w->ps - 4));
    seal(p, w, w->branch, 1);
    want_check(x, "I8", pg_name(w->branch), "cell 1 out of bounds");
}
/* A branch cell's entry count (the rank index) off by one. */
static void d_branch_count(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->branch, 1);
    uint64_t n = rd64(cell(pg, 0) + 8) + 1;
    memcpy(cell(pg, 0) + 8, &n, 8);
    seal(p, w, w->branch, 1);
    want_check(x, "I5", pg_name(w->branch), "child 0 counts");
}
/* The leftmost leaf's last key moved past its parent's next separator
 * (still in order within the leaf). */
static void d_sep_above(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->leaf, 1);
    unsigned last = rd16(pg + 6) - 1u;
    uint32_t plen;
    uint8_t *pfx = dbfile_leaf_prefix(pg, w->ps, &plen);
    /* A compact leaf's first key byte is its prefix's: all keys move. */
    if (plen) pfx[0] = 0x7f, last = 0;
    else dbfile_leaf(pg, last).key[0] = 0x7f;
    seal(p, w, w->leaf, 1);
    char s[48];
    snprintf(s, sizeof s, "key %u above the next separator", last);
    want_check(x, "I4", pg_name(w->leaf), s);
}
/* The rightmost leaf's first key moved below its separator. */
static void d_sep_below(const char *p, walk_t *w, want_t *x) {
    uint64_t leaf = rightmost_leaf(w);
    uint8_t *pg = load(w, leaf, 1);
    uint32_t plen;
    uint8_t *pfx = dbfile_leaf_prefix(pg, w->ps, &plen);
    if (plen) pfx[0] = 0x01;
    else dbfile_leaf(pg, 0).key[0] = 0x01;
    seal(p, w, leaf, 1);
    want_check(x, "I4", pg_name(leaf), "key 0 below its separator");
}
/* Descriptors in the catalog that disagree with their trees. */
static void d_desc_depth0(const char *p, walk_t *w, want_t *x) {
    uint8_t *d = catalog_desc(load(w, w->root, 1), "data");
    memset(d + 16, 0, 4); /* depth 0 with a root */
    seal(p, w, w->root, 1);
    want_check(x, "I12", "tree data", "bad descriptor");
}
static void d_desc_depth(const char *p, walk_t *w, want_t *x) {
    uint8_t *d = catalog_desc(load(w, w->root, 1), "data");
    uint32_t depth = rd32(d + 16) + 1; /* the leaves are now one level short */
    memcpy(d + 16, &depth, 4);
    seal(p, w, w->root, 1);
    want_check(x, "I9", "leaf page at level", NULL);
}
static void d_desc_entries(const char *p, walk_t *w, want_t *x) {
    uint8_t *d = catalog_desc(load(w, w->root, 1), "data");
    uint64_t n = rd64(d + 8) + 1;
    memcpy(d + 8, &n, 8);
    seal(p, w, w->root, 1);
    want_check(x, "I5", "tree data", "descriptor says 5006 entries, found 5005");
}
static void d_desc_pages(const char *p, walk_t *w, want_t *x) {
    uint8_t *d = catalog_desc(load(w, w->root, 1), "data");
    uint64_t n = rd64(d + 24) + 1; /* branch_pages */
    memcpy(d + 24, &n, 8);
    seal(p, w, w->root, 1);
    want_check(x, "I5", "tree data", "page counts");
}
/* Overflow data: only the checksum of the run covers it. */
static void d_overflow_data(const char *p, walk_t *w, want_t *x) {
    uint32_t np = rd32(page(w, w->overflow) + 28);
    uint8_t *pg = load(w, w->overflow, np);
    pg[w->ps + 10] ^= 0x5a;
    put_raw(p, w, w->overflow, np);
    want_check(x, "I2", pg_name(w->overflow), "checksum mismatch");
}
static void d_overflow_npages(const char *p, walk_t *w, want_t *x) {
    uint32_t np = rd32(page(w, w->overflow) + 28);
    uint8_t *pg = load(w, w->overflow, np);
    uint32_t bad = np + 1;
    memcpy(pg + 28, &bad, 4);
    seal(p, w, w->overflow, np);
    char s[64];
    snprintf(s, sizeof s, "overflow run at page %llu: bad header", (unsigned long long)w->overflow);
    want_check(x, "I10", s, NULL);
}
/* The free-list run: its checksum, an extent over a live page, a page
 * that nothing accounts for (a leak). */
static void d_freelist_sum(const char *p, walk_t *w, want_t *x) {
    uint8_t *pg = load(w, w->meta.fl_pgno, w->meta.fl_npages);
    pg[PAGE_HDR + 20] ^= 0x01;
    put_raw(p, w, w->meta.fl_pgno, w->meta.fl_npages);
    char s[64];
    snprintf(s, sizeof s, "free list run at page %llu", (unsigned long long)w->meta.fl_pgno);
    want_check(x, "I11", s, "checksum mismatch");
}
/* The first extent of the run (free ones first, then the groups'); *count
 * points at its count, *kind is how cs_check names it. */
static uint8_t *first_extent(uint8_t *run, uint8_t **count, const char **kind) {
    uint8_t *q = run + PAGE_HDR;
    if (rd64(q) > 0) { *count = q; *kind = "(free extent)"; return q + 16; }
    REQUIRE(rd64(q + 8) > 0 && rd64(q + 24) > 0); /* a group with an extent */
    *count = q + 24;
    *kind = "(pending extent)";
    return q + 32;
}
static void d_freelist_twice(const char *p, walk_t *w, want_t *x) {
    uint8_t *cnt;
    const char *kind;
    uint8_t *e = first_extent(load(w, w->meta.fl_pgno, w->meta.fl_npages), &cnt, &kind);
    uint64_t len = 1;
    memcpy(e, &w->leaf, 8); /* the extent now frees a live leaf */
    memcpy(e + 8, &len, 8);
    seal(p, w, w->meta.fl_pgno, w->meta.fl_npages);
    char s[64];
    snprintf(s, sizeof s, "page %llu is used twice %s", (unsigned long long)w->leaf, kind);
    want_check(x, "I6", s, NULL);
}
static void d_freelist_leak(const char *p, walk_t *w, want_t *x) {
    const char *kind;
    uint8_t *run = load(w, w->meta.fl_pgno, w->meta.fl_npages), *cnt, *e = first_extent(run, &cnt, &kind);
    uint64_t start = rd64(e), len = rd64(e + 8), lost;
    if (len > 1) { /* the extent's last page is forgotten */
        len--;
        memcpy(e + 8, &len, 8);
        lost = start + len;
    } else { /* the whole extent is */
        uint64_t n = rd64(cnt) - 1;
        memcpy(cnt, &n, 8);
        memmove(e, e + 16, (size_t)(run + w->meta.fl_npages * w->ps - (e + 16)));
        lost = start;
    }
    seal(p, w, w->meta.fl_pgno, w->meta.fl_npages);
    char s[48];
    snprintf(s, sizeof s, "(first: %llu)", (unsigned long long)lost);
    want_check(x, "I6", "pages are not reachable", s);
}
/* A valid page in the wrong place: checksum fine, pgno wrong. */
static void d_misplaced(const char *p, walk_t *w, want_t *x) {
    int fd = open(p, O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(pwrite(fd, page(w, w->root), w->ps, (off_t)(w->leaf * w->ps)) == (ssize_t)w->ps);
    close(fd);
    want_check(x, "I8", pg_name(w->leaf), "not a valid tree page");
}
static void d_both_metas(const char *p, walk_t *w, want_t *x) {
    (void)w;
    scribble(p, 40, 8, 10);
    scribble(p, CS_DEFAULT_PAGE_SIZE + 40, 8, 11);
    want_open(x, CS_ECORRUPT, "both meta pages are damaged");
}
static void d_truncate(const char *p, walk_t *w, want_t *x) {
    REQUIRE(truncate(p, (off_t)(w->meta.next_pgno / 2 * w->ps)) == 0);
    want_open(x, CS_ECORRUPT, "is truncated");
}
static void d_truncate_tiny(const char *p, walk_t *w, want_t *x) {
    (void)w;
    REQUIRE(truncate(p, 100) == 0);
    want_open(x, CS_ECORRUPT, "both meta pages are damaged");
}

/* ---- the healthy file ---- */
static void build(const char *path) {
    cs_env *env;
    cs_txn *t;
    cs_tree data, small;
    char k[48], v[100];
    static char big[20000];
    test_fill(big, sizeof big, 42);
    REQUIRE_OK(test_open(path, 0, &env));
    for (int c = 0; c < 6; c++) {
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "data", CS_CREATE, &data));
        REQUIRE_OK(cs_tree_open(t, "small", CS_CREATE, &small));
        for (int i = 0; i < 5000; i++) {
            snprintf(k, sizeof k, "key-%06d-with-some-padding", i);
            snprintf(v, sizeof v, "value %d %d", i, c);
            CHECK_OK(cs_put(t, data, VS(k), VS(v), 0));
        }
        for (int i = 0; i < 5; i++) {
            snprintf(k, sizeof k, "blob%d", i);
            CHECK_OK(cs_put(t, data, VS(k), V(big, sizeof big - (size_t)(c * 100)), 0));
        }
        snprintf(v, sizeof v, "%d", c);
        CHECK_OK(cs_put(t, small, VS("version"), VS(v), 0));
        REQUIRE_OK(cs_txn_commit(t));
    }
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    CHECK_EQ(rep.errors, 0);
    CHECK_EQ(rep.trees, 2);
    CHECK_EQ(rep.entries, 5006);
    CHECK(rep.pages_branch > 0 && rep.pages_leaf > 0 && rep.pages_overflow > 0);
    CHECK_EQ(rep.pages_meta, 2);
    CHECK_EQ(rep.pages_meta + rep.pages_branch + rep.pages_leaf + rep.pages_overflow +
                 rep.pages_freelist + rep.pages_free + rep.pages_pending,
             rep.pages_total);
    CHECK_OK(cs_env_close(env));
}

static void expect_version(const char *path, const char *want) {
    cs_env *env;
    cs_txn *t;
    cs_tree tr;
    cs_val v;
    int r = test_open(path, 0, &env);
    CHECK_OK(r);
    if (r) return;
    cs_check_report rep;
    CHECK_OK(cs_check(env, &rep));
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    REQUIRE_OK(cs_tree_open(t, "small", 0, &tr));
    CHECK_OK(cs_get(t, tr, VS("version"), &v));
    CHECK_VAL(v, want, strlen(want));
    CHECK_OK(cs_txn_abort(t));
    CHECK_OK(cs_env_close(env));
}

static void test_one_meta(void) {
    walk_t w;
    REQUIRE(walk_file(g_healthy, &w) == 0);
    free(w.map);
    /* newest meta damaged: the previous commit is used */
    tpath p = test_path("meta-newest.db");
    copy_file(g_healthy, p.s);
    scribble(p.s, (uint64_t)w.meta_page * CS_DEFAULT_PAGE_SIZE + 60, 1, 12);
    expect_version(p.s, "4");
    /* older meta damaged: nothing lost */
    p = test_path("meta-older.db");
    copy_file(g_healthy, p.s);
    scribble(p.s, (uint64_t)(1 - w.meta_page) * CS_DEFAULT_PAGE_SIZE + 100, 1, 13);
    expect_version(p.s, "5");
    /* damage past the first 512 bytes of a meta page is not covered */
    p = test_path("meta-tail.db");
    copy_file(g_healthy, p.s);
    scribble(p.s, (uint64_t)w.meta_page * CS_DEFAULT_PAGE_SIZE + 600, 8, 14);
    expect_version(p.s, "5");
}

/* The lock file is rebuilt by the first process to open the database, so
 * garbage in it (with no process attached) is harmless. */
static void test_lock_garbage(void) {
    tpath p = test_path("lockjunk.db");
    copy_file(g_healthy, p.s);
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", p.s);
    for (int round = 0; round < 2; round++) {
        int fd = open(lock, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        static uint8_t junk[70000];
        test_fill(junk, sizeof junk, 77u + (uint64_t)round);
        size_t n = round ? 100 : sizeof junk; /* short and long garbage */
        REQUIRE(fd >= 0 && write(fd, junk, n) == (ssize_t)n);
        close(fd);
        expect_version(p.s, "5");
    }
    /* Garbage of exactly the lock file's size: the first opener rebuilds it
     * in place, without resizing it. */
    int fd = open(lock, O_WRONLY);
    struct stat st;
    REQUIRE(fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 && (size_t)st.st_size <= 70000);
    static uint8_t junk[70000];
    test_fill(junk, sizeof junk, 79u);
    REQUIRE(pwrite(fd, junk, (size_t)st.st_size, 0) == (ssize_t)st.st_size);
    close(fd);
    expect_version(p.s, "5");
    cs_env *env;
    CHECK_RC(test_open(p.s, 0, &env), CS_OK);
    cs_txn *t;
    CHECK_RC(cs_txn_begin(env, 0, &t), CS_OK); /* the writer mutex and reader table work */
    cs_txn_abort(t);
    cs_env_close(env);
    REQUIRE(stat(lock, &st) == 0 && (size_t)st.st_size <= 70000);
}

static void test_foreign(void) {
    tpath p = test_path("random.db");
    int fd = open(p.s, O_WRONLY | O_CREAT, 0644);
    static uint8_t buf[65536];
    test_fill(buf, sizeof buf, 99);
    REQUIRE(fd >= 0 && write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
    close(fd);
    cs_env *env;
    CHECK_RC(test_open(p.s, 0, &env), CS_ENOTDB);
    p = test_path("text.db");
    FILE *f = fopen(p.s, "w");
    REQUIRE(f);
    for (int i = 0; i < 2000; i++) fprintf(f, "line %d: this is not a database\n", i);
    fclose(f);
    CHECK_RC(test_open(p.s, 0, &env), CS_ENOTDB);
    CHECK_RC(test_open(p.s, CS_ENV_RDONLY, &env), CS_ENOTDB);
    /* a valid file of a newer format version */
    p = test_path("version.db");
    copy_file(g_healthy, p.s);
    walk_t w;
    REQUIRE(walk_file(p.s, &w) == 0);
    for (int i = 0; i < 2; i++) {
        uint8_t *m = w.map + (size_t)i * CS_DEFAULT_PAGE_SIZE;
        uint32_t ver = CS_FORMAT_VERSION + 1, crc;
        memcpy(m + 40, &ver, 4);
        crc = meta_crc(m);
        memcpy(m, &crc, 4);
    }
    fd = open(p.s, O_WRONLY);
    REQUIRE(fd >= 0 && pwrite(fd, w.map, 2 * CS_DEFAULT_PAGE_SIZE, 0) == 2 * CS_DEFAULT_PAGE_SIZE);
    close(fd);
    free(w.map);
    CHECK_RC(test_open(p.s, 0, &env), CS_EFORMAT);
}

/* Random damage to live pages (headers, slots, cells, overflow data, the
 * free list; checksums left stale or fixed up so that only the bounds
 * checks stand between the engine and a crash). Open, check, read
 * everything and write: errors are fine, crashes (ASan) are not. */
static void test_random_damage(void) {
    walk_t w;
    REQUIRE(walk_file(g_healthy, &w) == 0);
    const char *e = getenv("DAMAGE_ROUNDS"); /* more rounds / other seeds by hand */
    int ROUNDS = e ? atoi(e) : 150;
    e = getenv("DAMAGE_SEED");
    uint64_t rng = e ? strtoull(e, NULL, 0) : 4242;
    int opened = 0, detected = 0, wrote = 0;
    for (int round = 0; round < ROUNDS; round++) {
        tpath p = test_path("fuzz.db");
        test_rm_db(p.s);
        copy_file(g_healthy, p.s);
        int fd = open(p.s, O_RDWR);
        REQUIRE(fd >= 0);
        int pages = 1 + (int)rng_below(&rng, 3);
        for (int i = 0; i < pages; i++) {
            uint64_t pg = w.live[rng_below(&rng, w.nlive)];
            uint8_t buf[CS_DEFAULT_PAGE_SIZE];
            memcpy(buf, page(&w, pg), sizeof buf);
            int n = 1 + (int)rng_below(&rng, 8);
            for (int j = 0; j < n; j++) {
                /* mostly the header and slot area, where offsets live */
                size_t off = rng_below(&rng, 3) ? 4 + rng_below(&rng, 120) : rng_below(&rng, sizeof buf);
                buf[off] = (uint8_t)rng_next(&rng);
            }
            if (rng_below(&rng, 2)) { /* valid checksum: only structure checks can catch it */
                uint16_t type = rd16(buf + 4);
                if (type == PT_LEAF || type == PT_LEAF6 || type == PT_BRANCH) {
                    memset(buf, 0, 4);
                    uint32_t c = crc32c(buf, sizeof buf);
                    memcpy(buf, &c, 4);
                }
            }
            REQUIRE(pwrite(fd, buf, sizeof buf, (off_t)(pg * w.ps)) == (ssize_t)sizeof buf);
        }
        close(fd);
        if (getenv("DAMAGE_VERBOSE")) { printf("round %d\n", round); fflush(stdout); }
        const char *stop = getenv("DAMAGE_KEEP"); /* DAMAGE_KEEP=round:path saves that file */
        if (stop && atoi(stop) == round && strchr(stop, ':')) copy_file(p.s, strchr(stop, ':') + 1);
        cs_env *env;
        if (test_open(p.s, 0, &env) != CS_OK) continue;
        opened++;
        cs_check_report rep;
        if (cs_check(env, &rep) != CS_OK) detected++;
        read_all(env);
        cs_txn *t;
        cs_tree tr;
        if (!getenv("DAMAGE_NO_WRITES") && cs_txn_begin(env, 0, &t) == CS_OK) {
            int r = cs_tree_open(t, "data", 0, &tr);
            char k[48];
            for (int i = 0; r == CS_OK && i < 300; i++) {
                snprintf(k, sizeof k, "key-%06d-with-some-padding", (int)rng_below(&rng, 6000));
                r = i % 3 ? cs_put(t, tr, VS(k), VS("new value"), 0) : cs_del(t, tr, VS(k));
                if (r == CS_NOTFOUND) r = CS_OK;
            }
            if (r == CS_OK && cs_txn_commit(t) == CS_OK) wrote++;
            else if (r != CS_OK) cs_txn_abort(t);
        }
        cs_check(env, &rep);
        CHECK_OK(cs_env_close(env));
    }
    printf("random damage: %d rounds, %d opened, %d detected by cs_check, %d write txns committed\n",
           ROUNDS, opened, detected, wrote);
    CHECK(detected > 0);
    free(w.map);
}

/* Header fields that lie, with a valid checksum: writes must not trust
 * them either (frag/upper size memcpys in the write path; a txnid equal to
 * the writer's makes a committed page look like its own private copy). */
static void test_lying_headers(void) {
    walk_t w;
    REQUIRE(walk_file(g_healthy, &w) == 0);
    static const char *const names[] = {"frag", "upper", "txnid"};
    for (int which = 0; which < 3; which++) {
        char fname[32];
        snprintf(fname, sizeof fname, "lie-%s.db", names[which]);
        tpath p = test_path(fname);
        copy_file(g_healthy, p.s);
        uint8_t buf[CS_DEFAULT_PAGE_SIZE];
        memcpy(buf, page(&w, w.leaf), sizeof buf);
        uint16_t nkeys = rd16(buf + 6), v16;
        uint64_t next_txn = w.meta.txnid + 1;
        if (which == 0) { v16 = 4000; memcpy(buf + 26, &v16, 2); }       /* frag: phantom holes */
        else if (which == 1) { v16 = (uint16_t)(PAGE_HDR + 2 * nkeys); memcpy(buf + 24, &v16, 2); } /* upper */
        else memcpy(buf + 16, &next_txn, 8); /* txnid of the next writer: looks already copied */
        memset(buf, 0, 4);
        uint32_t c = crc32c(buf, sizeof buf);
        memcpy(buf, &c, 4);
        int fd = open(p.s, O_WRONLY);
        REQUIRE(fd >= 0 && pwrite(fd, buf, sizeof buf, (off_t)(w.leaf * w.ps)) == (ssize_t)sizeof buf);
        close(fd);
        /* a key that lands in that leaf, with a value big enough to need room */
        uint8_t key[CS_MAX_KEY + 1];
        uint32_t kl = dbfile_leaf_key(buf, w.ps, 0, key);
        REQUIRE(kl < 64);
        key[kl] = 'x';
        static char val[1200];
        cs_env *env;
        cs_txn *t;
        cs_tree tr;
        REQUIRE_OK(test_open(p.s, 0, &env));
        REQUIRE_OK(cs_txn_begin(env, 0, &t));
        REQUIRE_OK(cs_tree_open(t, "data", 0, &tr));
        int r = CS_OK;
        for (int i = 0; i < 4 && r == CS_OK; i++) {
            key[kl] = (char)('x' + i);
            r = cs_put(t, tr, V(key, (size_t)kl + 1), V(val, sizeof val), 0);
        }
        printf("lying %s: put gave %s\n", names[which], cs_strerror(r));
        CHECK(r == CS_OK || r == CS_ECORRUPT); /* reaching here without a crash is the test */
        cs_txn_abort(t);
        CHECK_OK(cs_env_close(env));
    }
    free(w.map);
}

int main(void) {
    tpath healthy = test_path("healthy.db");
    g_healthy = healthy.s;
    build(g_healthy);
    walk_t w;
    REQUIRE(walk_file(g_healthy, &w) == 0);
    printf("walked %llu pages: leaf %llu branch %llu overflow %llu freelist %llu; "
           "%llu bad checksums, %llu bad headers\n",
           (unsigned long long)w.pages, (unsigned long long)w.leaf,
           (unsigned long long)w.branch, (unsigned long long)w.overflow,
           (unsigned long long)w.meta.fl_pgno, (unsigned long long)w.bad_crc,
           (unsigned long long)w.bad_hdr);
    CHECK_EQ(w.bad_crc, 0);  /* the file matches format.h */
    CHECK_EQ(w.bad_hdr, 0);
    REQUIRE(w.leaf && w.branch && w.overflow && w.root);
    CHECK(w.meta.fl_pgno != 0);
    uint64_t fl = w.meta.fl_pgno;
    free(w.map);

    expect_damage("leaf value", d_leaf_value);
    expect_damage("leaf key order", d_leaf_order);
    expect_damage("leaf slot", d_leaf_slot);
    expect_damage("leaf nkeys", d_leaf_nkeys);
    expect_damage("branch child twice", d_branch_child);
    expect_damage("branch slot", d_branch_slot);
    expect_damage("next branch slot", d_branch_slot_next);
    expect_damage("branch count", d_branch_count);
    expect_damage("separator above", d_sep_above);
    expect_damage("separator below", d_sep_below);
    expect_damage("descriptor depth 0", d_desc_depth0);
    expect_damage("descriptor depth", d_desc_depth);
    expect_damage("descriptor entries", d_desc_entries);
    expect_damage("descriptor pages", d_desc_pages);
    expect_damage("overflow data", d_overflow_data);
    expect_damage("overflow npages", d_overflow_npages);
    if (fl) {
        expect_damage("free-list checksum", d_freelist_sum);
        expect_damage("free-list over a leaf", d_freelist_twice);
        expect_damage("free-list leak", d_freelist_leak);
    }
    expect_damage("misplaced page", d_misplaced);
    expect_damage("both metas", d_both_metas);
    expect_damage("truncated half", d_truncate);
    expect_damage("truncated tiny", d_truncate_tiny);
    test_one_meta();
    test_lock_garbage();
    test_random_damage();
    test_foreign();
    test_lying_headers(); /* last: if it crashes, the rest has run */
    return test_report();
}
