/*
 * check.c — the integrity checker.
 *
 * Walks one snapshot and accounts for every page below next_pgno exactly
 * once (I6): meta pages, tree pages (branch, leaf, overflow), the free-list
 * run, and free or pending extents. Also verifies checksums (I2), key order
 * (I3) within the separators (I4), entry counts (I5), node structure (I8),
 * depth (I9), overflow runs (I10), the free list (I11) and the catalog
 * (I12). Each problem is reported with the number of the invariant it
 * breaks. I1 is checked by open; I7 is about time, not one snapshot. Every
 * read is bounds-checked, so a damaged file gives a report, not a crash.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct checker {
    cs_txn *t;
    cs_check_report *r;
    cs_check_fn fn;           /* each problem, or NULL */
    void *ctx;
    uint8_t *seen;            /* one bit per page */
    uint64_t npages;
    uint8_t *vseen;           /* one bit per segment page (logged commits) */
    uint64_t vpages;
} checker;

__attribute__((format(printf, 2, 3))) static void problem(checker *c, const char *fmt, ...)
{
    bool first = c->r->errors++ == 0;
    if (!first && !c->fn) return;
    char line[sizeof c->r->first_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (first) memcpy(c->r->first_error, line, sizeof line);
    if (c->fn) c->fn(c->ctx, line);
}

/* Set bits [from, from + n) of `seen` (`limit` bits); false (and a problem)
 * if the run lies outside or any bit was set already. `where` names the
 * space: "page" of the file or "volatile page" of the segment. */
static bool mark_bits(checker *c, uint8_t *seen, uint64_t limit, uint64_t from, uint64_t n, const char *where,
                      const char *space, const char *what)
{
    if (!seen || from >= limit || n > limit - from) {
        problem(c, "I6 page accounting: %s at %s %llu+%llu is outside the %s", what, where, (unsigned long long)from,
                (unsigned long long)n, space);
        return false;
    }
    for (uint64_t i = from; i < from + n; i++) {
        if (seen[i >> 3] & (1u << (i & 7))) {
            problem(c, "I6 page accounting: %s %llu is used twice (%s)", where, (unsigned long long)i, what);
            return false;
        }
        seen[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    return true;
}

/* Mark a run of pages; false (and a problem) if any was already seen. A
 * logged commit's page is accounted in the segment, within its arena. */
static bool mark(checker *c, uint64_t pgno, uint64_t n, const char *what)
{
    if (!pgno_is_volatile(pgno)) return mark_bits(c, c->seen, c->npages, pgno, n, "page", "file", what);
    bool in_arena = c->vseen && vseg_page(&c->t->env->vseg, pgno, n);
    return mark_bits(c, in_arena ? c->vseen : NULL, c->vpages, pgno - VPAGE_BASE, n, "volatile page", "segment", what);
}

static void check_sum(checker *c, const uint8_t *pg, size_t len, uint64_t pgno)
{
    if (cs_page_checksum(pg, len) != PH(pg)->checksum)
        problem(c, "I2 page checksum: page %llu: checksum mismatch", (unsigned long long)pgno);
}

typedef struct bounds {
    const uint8_t *lo, *hi;   /* lo <= key < hi; NULL = unbounded */
    uint32_t lol, hil;
} bounds;

static void check_overflow(checker *c, cs_tree_desc *d, const uint8_t *leaf, unsigned i, uint64_t *ovf)
{
    const uint8_t *v;
    uint32_t vl;
    bool isovf;
    uint64_t op;
    if (leaf_value(leaf, c->t->psize, i, &v, &vl, &isovf, &op)) {
        problem(c, "I8 node structure: page %llu: value %u out of bounds", (unsigned long long)PH(leaf)->pgno, i);
        return;
    }
    CS_UNUSED(d);
    if (!isovf) return;
    uint64_t np = (PAGE_HDR + (uint64_t)vl + c->t->psize - 1) / c->t->psize;
    if (!mark(c, op, np, "overflow run")) return;
    const uint8_t *run;
    if (page_get_run(c->t, op, np, &run)) {
        problem(c, "I10 overflow run: overflow run at page %llu unreadable", (unsigned long long)op);
        return;
    }
    if (PH(run)->type != PT_OVERFLOW || PH(run)->npages != np || PH(run)->pgno != op) {
        problem(c, "I10 overflow run: overflow run at page %llu: bad header", (unsigned long long)op);
        return;
    }
    check_sum(c, run, np * c->t->psize, op);
    *ovf += np;
}

typedef struct tally {
    uint64_t entries, branch, leaf, ovf;
} tally;

static void walk(checker *c, cs_tree_desc *d, uint64_t pgno, int level, bounds b, tally *out)
{
    cs_txn *t = c->t;
    if (!mark(c, pgno, 1, "tree page")) return;
    const uint8_t *pg;
    if (page_get(t, pgno, &pg) || node_check(pg, t->psize, pgno)) {
        problem(c, "I8 node structure: page %llu: not a valid tree page", (unsigned long long)pgno);
        return;
    }
    check_sum(c, pg, t->psize, pgno);
    bool leaf = level == (int)d->depth - 1;
    if (node_is_leaf(pg) != leaf || node_n(pg) == 0) {
        problem(c, "I9 tree shape: page %llu: %s page at level %d of %u", (unsigned long long)pgno, node_is_leaf(pg) ? "leaf" : "branch",
                level, d->depth);
        return;
    }
    unsigned n = node_n(pg);
    cs_key prev = {0};
    /* A compact leaf's keys are assembled: two buffers, for k and prev. */
    uint8_t kbufs[2][CS_MAX_KEY];
    for (unsigned i = 0; i < n; i++) {
        cs_key k;
        uint32_t sz;
        if ((leaf ? node_leaf_key(pg, t->psize, i, kbufs[i & 1], &k) : node_key(pg, t->psize, i, &k)) ||
            node_cell_size(pg, t->psize, i, &sz)) {
            problem(c, "I8 node structure: page %llu: cell %u out of bounds", (unsigned long long)pgno, i);
            return;
        }
        if (node_is_compact(pg) && node_slot(pg, i) < PH(pg)->upper) {
            problem(c, "I8 node structure: page %llu: cell %u below the cell area", (unsigned long long)pgno, i);
            return;
        }
        bool ignored = !leaf && i == 0;
        if (!ignored) {
            if (k.len == 0 || k.len > CS_MAX_KEY) problem(c, "I3 key order: page %llu: key %u has %u bytes", (unsigned long long)pgno, i, k.len);
            if (i > (leaf ? 0u : 1u) && key_cmp(prev.p, prev.len, k.p, k.len) >= 0)
                problem(c, "I3 key order: page %llu: keys out of order at %u", (unsigned long long)pgno, i);
            if (b.lo && key_cmp(k.p, k.len, b.lo, b.lol) < 0)
                problem(c, "I4 separator range: page %llu: key %u below its separator", (unsigned long long)pgno, i);
            if (b.hi && key_cmp(k.p, k.len, b.hi, b.hil) >= 0)
                problem(c, "I4 separator range: page %llu: key %u above the next separator", (unsigned long long)pgno, i);
            prev = k;
        }
        if (leaf) {
            out->entries++;
            check_overflow(c, d, pg, i, &out->ovf);
            continue;
        }
        bounds cb = b;
        if (i > 0) cb.lo = k.p, cb.lol = k.len;
        if (i + 1 < n) {
            cs_key nk;
            if (node_key(pg, t->psize, i + 1, &nk)) {
                problem(c, "I8 node structure: page %llu: cell %u out of bounds", (unsigned long long)pgno, i + 1);
                return;
            }
            cb.hi = nk.p, cb.hil = nk.len;
        }
        tally sub = {0};
        walk(c, d, branch_child(pg, c->t->psize, i), level + 1, cb, &sub);
        if (sub.entries != branch_count(pg, c->t->psize, i))
            problem(c, "I5 entry count: page %llu: child %u counts %llu entries, has %llu", (unsigned long long)pgno, i,
                    (unsigned long long)branch_count(pg, c->t->psize, i), (unsigned long long)sub.entries);
        out->entries += sub.entries;
        out->branch += sub.branch;
        out->leaf += sub.leaf;
        out->ovf += sub.ovf;
    }
    if (leaf) out->leaf++;
    else out->branch++;
}

static void check_tree(checker *c, cs_tree_desc *d, const char *name, bool user_tree)
{
    tally tl = {0};
    if (d->root) {
        if (d->depth == 0 || d->depth > CS_MAX_DEPTH) {
            problem(c, "I9 tree shape: tree %s: depth %u", name, d->depth);
            return;
        }
        walk(c, d, d->root, 0, (bounds){0}, &tl);
    }
    if (tl.entries != d->entries)
        problem(c, "I5 entry count: tree %s: descriptor says %llu entries, found %llu", name, (unsigned long long)d->entries,
                (unsigned long long)tl.entries);
    if (tl.branch != d->branch_pages || tl.leaf != d->leaf_pages || tl.ovf != d->overflow_pages)
        problem(c, "I5 entry count: tree %s: page counts %llu/%llu/%llu, found %llu/%llu/%llu", name,
                (unsigned long long)d->branch_pages, (unsigned long long)d->leaf_pages,
                (unsigned long long)d->overflow_pages, (unsigned long long)tl.branch, (unsigned long long)tl.leaf,
                (unsigned long long)tl.ovf);
    c->r->pages_branch += tl.branch;
    c->r->pages_leaf += tl.leaf;
    c->r->pages_overflow += tl.ovf;
    if (user_tree) c->r->entries += tl.entries;
}

static void check_catalog(checker *c)
{
    cs_txn *t = c->t;
    check_tree(c, &t->catalog, "(catalog)", false);
    if (c->r->errors) return; /* walking a broken catalog would mislead */
    bt_path p;
    int rc = bt_edge(t, &t->catalog, false, &p);
    while (rc == CS_OK) {
        cs_val k, v;
        uint8_t kb[CS_MAX_KEY];
        if (bt_read(t, &p, kb, &k, &v)) break;
        char name[CS_MAX_TREE_NAME + 1];
        size_t nl = k.size > CS_MAX_TREE_NAME ? CS_MAX_TREE_NAME : k.size;
        memcpy(name, k.data, nl);
        name[nl] = 0;
        cs_tree_desc d;
        if (v.size != sizeof d) {
            problem(c, "I12 catalog: catalog entry %s: %zu bytes", name, v.size);
        } else {
            memcpy(&d, v.data, sizeof d);
            if ((d.root >= c->npages && !pgno_is_volatile(d.root)) || (d.root == 0) != (d.depth == 0))
                problem(c, "I12 catalog: tree %s: bad descriptor", name);
            else check_tree(c, &d, name, true);
            c->r->trees++;
        }
        rc = bt_step(t, &p, true);
    }
    if (rc != CS_NOTFOUND && rc != CS_OK) problem(c, "I8 node structure: catalog walk failed: %s", cs_last_error_detail());
}

/* Marks the run, the base's sequence after the delta's cursor and the
 * delta's extents (I6 finds a page both free and reachable, or lost).
 * CS_EBUSY: the snapshot's delta is gone (newer commits), check again. */
static int check_freelist(checker *c)
{
    cs_txn *t = c->t;
    cs_freelist base = {0}, delta = {0}, fl = {0};
    uint64_t base_txnid, cursor;
    int rc = txn_load_freelist(t, &base, &base_txnid, &cursor, &delta);
    if (rc == CS_EBUSY) return rc;
    bool run_ok = !t->meta.fl_pgno || mark(c, t->meta.fl_pgno, t->meta.fl_npages, "free-list run");
    if (t->meta.fl_pgno) c->r->pages_freelist = t->meta.fl_npages;
    if (rc == CS_OK) rc = freelist_rest(&base, cursor, &fl);
    if (rc == CS_OK) rc = freelist_join(&fl, &delta);
    if (run_ok && rc) { /* else mark reported the run itself */
        const char *detail = cs_last_error_detail();
        /* The details mostly begin with "free list: " already. */
        if (strncmp(detail, "free list: ", 11) == 0) detail += 11;
        problem(c, "I11 free list: %s", detail);
    } else if (run_ok) {
        for (size_t i = 0; i < fl.free.n; i++) {
            mark(c, fl.free.v[i].start, fl.free.v[i].len, "free extent");
            c->r->pages_free += fl.free.v[i].len;
        }
        for (size_t g = 0; g < fl.ngroups; g++)
            for (size_t i = 0; i < fl.groups[g].ext.n; i++) {
                mark(c, fl.groups[g].ext.v[i].start, fl.groups[g].ext.v[i].len, "pending extent");
                c->r->pages_pending += fl.groups[g].ext.v[i].len;
            }
    }
    freelist_free(&base);
    freelist_free(&delta);
    freelist_free(&fl);
    return CS_OK;
}

/* V2: file pages logged commits freed since the last fold are pending.
 * CS_EBUSY: later commits have replaced the snapshot's segment state. */
static int check_logged(checker *c)
{
    cs_env *env = c->t->env;
    if (!env->vol_on) return CS_OK;
    const vseg_state *st = vseg_state_of(&env->vseg, c->t->meta.txnid);
    vseg_state s0 = st ? *st : (vseg_state){0};
    if (!st || s0.npending > VSEG_PENDING_MAX) return CS_EBUSY;
    cs_extvec pend = {0};
    for (uint64_t i = 0; i < s0.npending; i++)
        if (extvec_push(&pend, env->vseg.hdr->pending[i].start, env->vseg.hdr->pending[i].len)) {
            extvec_free(&pend);
            return CS_ENOMEM;
        }
    /* Read while the state still belonged to the snapshot: else retry. */
    st = vseg_state_of(&env->vseg, c->t->meta.txnid);
    if (!st || memcmp(st, &s0, sizeof s0)) {
        extvec_free(&pend);
        return CS_EBUSY;
    }
    for (size_t i = 0; i < pend.n; i++) {
        mark(c, pend.v[i].start, pend.v[i].len, "pending extent (logged commits)");
        c->r->pages_pending += pend.v[i].len;
    }
    extvec_free(&pend);
    return CS_OK;
}

int cs_check(cs_env *env, cs_check_report *report)
{
    return cs_check_each(env, report, NULL, NULL);
}

int cs_check_each(cs_env *env, cs_check_report *report, cs_check_fn fn, void *ctx)
{
    if (!env || !report) return cs_fail(CS_EINVAL, "cs_check: NULL argument");
    cs_txn *t;
    int rc, tries = 0;
again:
    memset(report, 0, sizeof *report);
    if ((rc = cs_txn_begin(env, CS_TXN_RDONLY, &t))) return rc;
    checker c = {.t = t, .r = report, .fn = fn, .ctx = ctx, .npages = t->meta.next_pgno};
    c.seen = calloc(1, (size_t)(c.npages / 8 + 1));
    if (env->vol_on) {
        c.vpages = atomic_load(&env->vseg.hdr->size_pages);
        c.vseen = calloc(1, (size_t)(c.vpages / 8 + 1));
    }
    if (!c.seen || (env->vol_on && !c.vseen)) {
        free(c.seen);
        free(c.vseen);
        cs_txn_abort(t);
        return cs_fail(CS_ENOMEM, "checker bitmap for %llu pages", (unsigned long long)c.npages);
    }
    report->pages_total = c.npages;
    mark(&c, 0, 2, "meta pages");
    report->pages_meta = 2;
    check_catalog(&c);
    int lrc = check_logged(&c);
    if (lrc == CS_ENOMEM) {
        free(c.seen);
        free(c.vseen);
        cs_txn_abort(t);
        return cs_fail(CS_ENOMEM, "checker: pending pages");
    }
    if (lrc == CS_EBUSY || check_freelist(&c) == CS_EBUSY) {
        free(c.seen);
        free(c.vseen);
        cs_txn_abort(t);
        if (++tries < 1000) goto again;
        return cs_fail(CS_EBUSY, "cs_check: commits keep replacing the snapshot's free list: check again");
    }
    uint64_t leaked = 0, first = 0;
    for (uint64_t i = 0; i < c.npages; i++)
        if (!(c.seen[i >> 3] & (1u << (i & 7))) && leaked++ == 0) first = i;
    if (leaked) problem(&c, "I6 page accounting: %llu pages are not reachable (first: %llu)", (unsigned long long)leaked, (unsigned long long)first);
    free(c.seen);
    free(c.vseen);
    cs_txn_abort(t);
    return report->errors ? cs_fail(CS_ECORRUPT, "%s", report->first_error) : CS_OK;
}
