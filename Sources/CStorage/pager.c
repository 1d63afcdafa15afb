/*
 * pager.c — pages as a transaction sees them, and dirty pages of a writer.
 *
 * Readers get pages straight from the read-only map (zero-copy). A writer
 * never modifies a mapped page: page_touch copies it into a dirty buffer at
 * a newly allocated page number (copy-on-write), and the old page is freed
 * into this commit's group of the free list. Dirty buffers are found by an
 * open-addressing hash on pgno and written, sorted, at commit.
 */
#include "internal.h"

#include <stdlib.h>

static inline size_t dh(uint64_t pgno, size_t cap)
{
    return (size_t)((pgno * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

uint8_t *dirty_find(cs_txn *t, uint64_t pgno)
{
    if (!t->dirty_n) return NULL;
    size_t mask = t->dirty_cap - 1;
    for (size_t i = dh(pgno, t->dirty_cap);; i = (i + 1) & mask) {
        dirty_entry *e = &t->dirty[i];
        if (e->pgno == pgno) return e->page;
        if (e->pgno == 0) return NULL;
    }
}

static dirty_entry *dirty_slot(cs_txn *t, uint64_t pgno)
{
    size_t mask = t->dirty_cap - 1;
    for (size_t i = dh(pgno, t->dirty_cap);; i = (i + 1) & mask)
        if (t->dirty[i].pgno == pgno || t->dirty[i].pgno == 0) return &t->dirty[i];
}

static int dirty_insert(cs_txn *t, uint64_t pgno, uint8_t *page, uint32_t npages)
{
    if ((t->dirty_n + 1) * 4 > t->dirty_cap * 3) {
        /* Small first: a one-object commit dirties a handful of pages, and
         * the table is zeroed at allocation and walked at commit and release. */
        size_t cap = t->dirty_cap ? t->dirty_cap * 2 : 64;
        dirty_entry *old = t->dirty, *nw = calloc(cap, sizeof *nw);
        if (!nw) return cs_fail(CS_ENOMEM, "dirty page table of %zu entries", cap);
        size_t oldcap = t->dirty_cap;
        t->dirty = nw;
        t->dirty_cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].pgno) *dirty_slot(t, old[i].pgno) = old[i];
        free(old);
    }
    dirty_entry *e = dirty_slot(t, pgno);
    /* Only a damaged free list hands out a page this txn already holds:
     * overwriting its entry would lose the buffer and the page's content. */
    if (e->pgno == pgno)
        return cs_fail(CS_ECORRUPT, "free list: page %llu handed out twice (the free list is damaged)",
                       (unsigned long long)pgno);
    *e = (dirty_entry){pgno, page, npages};
    t->dirty_n++;
    return CS_OK;
}

/* Remove an entry, shifting later members of its probe run back. */
static dirty_entry dirty_remove(cs_txn *t, uint64_t pgno)
{
    if (!t->dirty_n) return (dirty_entry){0};
    size_t mask = t->dirty_cap - 1, i = dh(pgno, t->dirty_cap);
    while (t->dirty[i].pgno != pgno) {
        if (t->dirty[i].pgno == 0) return (dirty_entry){0};
        i = (i + 1) & mask;
    }
    dirty_entry gone = t->dirty[i];
    for (size_t j = (i + 1) & mask; t->dirty[j].pgno; j = (j + 1) & mask) {
        size_t home = dh(t->dirty[j].pgno, t->dirty_cap);
        /* Move j into the hole at i if its home is not in (i, j]. */
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            t->dirty[i] = t->dirty[j];
            i = j;
        }
    }
    t->dirty[i] = (dirty_entry){0};
    t->dirty_n--;
    return gone;
}

static void buf_release(cs_txn *t, uint8_t *p, uint32_t npages)
{
    if (npages == 1) io_page_buf_put(t->env, p);
    else free(p);
}

void dirty_release_all(cs_txn *t)
{
    for (size_t i = 0; i < t->dirty_cap; i++)
        if (t->dirty[i].pgno) buf_release(t, t->dirty[i].page, t->dirty[i].npages);
    free(t->dirty);
    t->dirty = NULL;
    t->dirty_cap = t->dirty_n = 0;
}

/* A volatile page (design 4): this txn's dirty copy, else the segment's. */
static int volatile_get(cs_txn *t, uint64_t pgno, uint64_t npages, bool clean, const uint8_t **out)
{
    if (!clean) {
        uint8_t *d = dirty_find(t, pgno);
        if (d) {
            *out = d;
            return CS_OK;
        }
    }
    const uint8_t *p = t->env->vol_on ? vseg_page(&t->env->vseg, pgno, npages) : NULL;
    if (!p)
        return cs_fail(CS_ECORRUPT, "reference to volatile page %llu outside the segment",
                       (unsigned long long)(pgno - VPAGE_BASE));
    *out = p;
    return CS_OK;
}

int page_get_in(cs_txn *t, uint64_t pgno, bool clean, const uint8_t **out)
{
    if (CS_UNLIKELY(pgno_is_volatile(pgno))) return volatile_get(t, pgno, 1, clean, out);
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    if (CS_UNLIKELY(pgno < 2 || pgno >= limit))
        return cs_fail(CS_ECORRUPT, "reference to page %llu outside the file (%llu pages)",
                       (unsigned long long)pgno, (unsigned long long)limit);
    if (!clean) {
        uint8_t *d = dirty_find(t, pgno);
        if (d) {
            *out = d;
            return CS_OK;
        }
    }
    if (CS_UNLIKELY(pgno >= t->map_pages))
        return cs_fail(CS_ECORRUPT, "page %llu is beyond the mapped file", (unsigned long long)pgno);
    *out = t->map + (pgno << t->env->psize_shift);
    return CS_OK;
}

int page_get(cs_txn *t, uint64_t pgno, const uint8_t **out) { return page_get_in(t, pgno, t->rdonly, out); }

int page_get_run(cs_txn *t, uint64_t pgno, uint64_t npages, const uint8_t **out)
{
    if (pgno_is_volatile(pgno)) return volatile_get(t, pgno, npages, t->rdonly, out);
    uint64_t limit = t->rdonly ? t->meta.next_pgno : t->next_pgno;
    if (npages == 0 || pgno >= limit || npages > limit - pgno)
        return cs_fail(CS_ECORRUPT, "run of %llu pages at %llu outside the file", (unsigned long long)npages,
                       (unsigned long long)pgno);
    int rc = page_get(t, pgno, out);
    if (rc) return rc;
    if (!t->rdonly && dirty_find(t, pgno)) return CS_OK;
    if (pgno + npages > t->map_pages) return cs_fail(CS_ECORRUPT, "run at page %llu beyond the map", (unsigned long long)pgno);
    return CS_OK;
}

/* First fit in v from *head: the page taken, or 0 (*at = its extent). */
static uint64_t take_from(cs_extvec *v, size_t *head, uint32_t npages, size_t *at)
{
    for (size_t i = *head; i < v->n; i++) {
        cs_extent *e = &v->v[i];
        if (e->len < npages) continue;
        uint64_t p = e->start;
        e->start += npages;
        e->len -= npages;
        *at = i;
        if (e->len == 0) {
            if (i == *head) ++*head;
            else memmove(e, e + 1, (v->n - i - 1) * sizeof *e), v->n--;
        }
        return p;
    }
    return 0;
}

/* Take npages contiguous pages: from pages this txn freed itself, the
 * delta's free pages (first fit), the base's sequence (in order, so that
 * the delta's cursor says what was taken: format.h), or the end of the
 * file. */
static uint64_t take_pages(cs_txn *t, uint32_t npages)
{
    if (t->vol) {
        if (t->vol_used + npages <= t->vol_cap && t->vol_hwm + npages <= t->env->vseg.span_pages) {
            uint64_t p = VPAGE_BASE + t->vol_hwm;
            t->vol_hwm += npages;
            t->vol_used += npages;
            return p;
        }
        t->vol = t->vol_all = false; /* too big to log: this commit folds */
    }
    if (npages == 1 && t->reuse.n) {
        cs_extent *e = &t->reuse.v[t->reuse.n - 1];
        uint64_t p = e->start + --e->len;
        if (e->len == 0) t->reuse.n--;
        return p;
    }
    size_t at, head = t->bpool_head;
    uint64_t p = take_from(&t->pool, &t->pool_head, npages, &at);
    if (p) return p;
    if ((p = take_from(&t->bpool, &t->bpool_head, npages, &at))) {
        if (at == head) t->btaken += npages;
        else t->bskipped = true;
        return p;
    }
    p = t->next_pgno;
    t->next_pgno += npages;
    return p;
}

/* zero: clear the whole page (else only the header: the caller fills it). */
static int alloc_buf(cs_txn *t, uint32_t npages, bool zero, uint64_t *pgno, uint8_t **buf)
{
    uint8_t *b;
    if (npages == 1) b = io_page_buf(t->env);
    else b = malloc((size_t)npages * t->psize);
    if (!b) return cs_fail(CS_ENOMEM, "page buffer of %u pages", npages);
    memset(b, 0, npages == 1 && zero ? t->psize : PAGE_HDR);
    uint64_t p = take_pages(t, npages);
    int rc = dirty_insert(t, p, b, npages);
    if (rc) {
        buf_release(t, b, npages);
        return rc;
    }
    PHW(b)->pgno = p;
    PHW(b)->npages = npages;
    PHW(b)->txnid = t->txnid; /* marks it ours: see touch_path */
    *pgno = p;
    *buf = b;
    return CS_OK;
}

int page_alloc(cs_txn *t, uint32_t npages, uint64_t *pgno, uint8_t **buf)
{
    return alloc_buf(t, npages, true, pgno, buf);
}

int page_free(cs_txn *t, uint64_t pgno, uint64_t npages)
{
    dirty_entry e = dirty_remove(t, pgno);
    if (e.pgno) buf_release(t, e.page, e.npages);
    /* Arena pages come back all at once when the segment resets (txn.c),
     * never through the free list, which holds file pages only. */
    if (pgno_is_volatile(pgno)) return CS_OK;
    /* Never committed: nobody can see it, reuse it in this txn. */
    if (e.pgno) return extvec_push(&t->reuse, pgno, npages);
    return extvec_push(&t->freed, pgno, npages);
}

/* I7: a committed page is copied, never written; the old one joins this
 * commit's freed group (page_free). */
int page_touch(cs_txn *t, uint64_t *pgno, uint8_t **page)
{
    uint8_t *d = dirty_find(t, *pgno);
    if (d) {
        *page = d;
        return CS_OK;
    }
    const uint8_t *src;
    int rc = page_get(t, *pgno, &src);
    if (rc) return rc;
    uint64_t np;
    uint8_t *buf;
    if ((rc = alloc_buf(t, 1, false, &np, &buf))) return rc;
    memcpy(buf, src, t->psize);
    PHW(buf)->pgno = np;
    PHW(buf)->txnid = t->txnid;
    if ((rc = page_free(t, *pgno, 1))) return rc;
    *pgno = np;
    *page = buf;
    return CS_OK;
}

int page_rehome(cs_txn *t, uint64_t *pgno, uint32_t npages, uint8_t **page)
{
    uint8_t *d = dirty_find(t, *pgno);
    if (!pgno_is_volatile(*pgno)) {
        *page = d;
        return CS_OK;
    }
    const uint8_t *src = d;
    int rc = src ? CS_OK : volatile_get(t, *pgno, npages, true, &src);
    uint64_t np;
    uint8_t *buf;
    if (rc || (rc = alloc_buf(t, npages, false, &np, &buf))) return rc;
    memcpy(buf, src, (size_t)npages * t->psize);
    PHW(buf)->pgno = np;
    PHW(buf)->txnid = t->txnid;
    if ((rc = page_free(t, *pgno, npages))) return rc;
    *pgno = np;
    *page = buf;
    return CS_OK;
}

int pager_put_volatile(cs_txn *t)
{
    for (size_t i = 0; i < t->dirty_cap; i++) {
        dirty_entry *e = &t->dirty[i];
        if (!e->pgno) continue;
        if (!pgno_is_volatile(e->pgno))
            return cs_fail(CS_EINVAL, "logged commit with file page %llu dirty", (unsigned long long)e->pgno);
        cs_page_hdr *h = PHW(e->page);
        h->txnid = t->txnid;
        h->checksum = cs_page_checksum(e->page, (size_t)e->npages * t->psize);
        int rc = vseg_put(&t->env->vseg, e->pgno, e->page, e->npages);
        if (rc) return rc;
    }
    return CS_OK;
}

static int entry_cmp(const void *a, const void *b)
{
    const dirty_entry *x = a, *y = b;
    return (x->pgno > y->pgno) - (x->pgno < y->pgno);
}

#define STAGE_BYTES (1u << 20)

int pager_write_dirty(cs_txn *t, cs_commit_unit *units, uint32_t cap, uint32_t *nunits)
{
    cs_env *env = t->env;
    size_t n = 0;
    dirty_entry *list = malloc((t->dirty_n + 1) * sizeof *list);
    if (!env->stage) env->stage = malloc(STAGE_BYTES);
    uint8_t *stage = env->stage;
    int rc = CS_OK;
    if (!list || !stage) {
        rc = cs_fail(CS_ENOMEM, "commit buffers");
        goto out;
    }
    for (size_t i = 0; i < t->dirty_cap; i++)
        if (t->dirty[i].pgno) list[n++] = t->dirty[i];
    qsort(list, n, sizeof *list, entry_cmp);
    for (size_t i = 0; i < n; i++) {
        cs_page_hdr *h = PHW(list[i].page);
        h->txnid = t->txnid;
        h->checksum = cs_page_checksum(list[i].page, (size_t)list[i].npages * t->psize);
        if (units && i < cap) units[i] = (cs_commit_unit){list[i].pgno, list[i].npages, h->checksum};
    }
    if (nunits) *nunits = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
    rc = io_grow_file(env, t->next_pgno * t->psize);
    for (size_t i = 0; rc == CS_OK && i < n;) {
        size_t bytes = (size_t)list[i].npages * t->psize;
        uint64_t off = list[i].pgno * t->psize;
        if (bytes >= STAGE_BYTES) { /* a large run: write it from its buffer */
            rc = io_write(env, list[i].page, bytes, off);
            i++;
            continue;
        }
        size_t used = 0;
        uint64_t next = list[i].pgno;
        while (i < n && list[i].pgno == next && used + (size_t)list[i].npages * t->psize <= STAGE_BYTES) {
            size_t b = (size_t)list[i].npages * t->psize;
            memcpy(stage + used, list[i].page, b);
            used += b;
            next += list[i].npages;
            i++;
        }
        rc = io_write(env, stage, used, off);
    }
out:
    free(list);
    return rc;
}
