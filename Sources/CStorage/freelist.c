/*
 * freelist.c — persistent free space.
 *
 * The free list is a run of pages (format.h, FREE-LIST RUN). It holds `free` extents, reusable at once, and groups of
 * pages freed by a commit T, which stay untouched while any reader holds a
 * snapshot older than T: those pages are still part of that snapshot. The
 * writer moves groups into `free` once no reader needs them
 * (freelist_release). Extents keep the list small: a large delete frees long
 * runs of neighbouring pages.
 *
 * The run is a base that small commits keep: their meta carries the change
 * (format.h, FREE-LIST DELTA), encoded and decoded here; freelist_rest and
 * freelist_join rebuild the whole list from base and delta.
 */
#include "internal.h"

#include <stdlib.h>

void freelist_free(cs_freelist *fl)
{
    extvec_free(&fl->free);
    for (size_t i = 0; i < fl->ngroups; i++) extvec_free(&fl->groups[i].ext);
    free(fl->groups);
    memset(fl, 0, sizeof *fl);
}

int freelist_add_group(cs_freelist *fl, uint64_t txnid, cs_extvec *ext)
{
    if (fl->ngroups == fl->cap) {
        size_t cap = fl->cap ? fl->cap * 2 : 8;
        fl_group *g = realloc(fl->groups, cap * sizeof *g);
        if (!g) return cs_fail(CS_ENOMEM, "free-list groups");
        fl->groups = g;
        fl->cap = cap;
    }
    fl->groups[fl->ngroups++] = (fl_group){txnid, *ext};
    memset(ext, 0, sizeof *ext);
    return CS_OK;
}

int freelist_copy(cs_freelist *dst, const cs_freelist *src)
{
    memset(dst, 0, sizeof *dst);
    int rc = extvec_append(&dst->free, &src->free);
    for (size_t g = 0; rc == CS_OK && g < src->ngroups; g++) {
        cs_extvec ext = {0};
        if ((rc = extvec_append(&ext, &src->groups[g].ext)) == CS_OK) rc = freelist_add_group(dst, src->groups[g].txnid, &ext);
        extvec_free(&ext);
    }
    if (rc) freelist_free(dst);
    return rc;
}

int freelist_release(cs_freelist *fl, uint64_t limit)
{
    size_t k = 0;
    cs_extvec released = {0};
    for (; k < fl->ngroups && fl->groups[k].txnid <= limit; k++) {
        int rc = extvec_append(&released, &fl->groups[k].ext);
        if (rc) {
            extvec_free(&released);
            return rc;
        }
        extvec_free(&fl->groups[k].ext);
    }
    if (k) {
        memmove(fl->groups, fl->groups + k, (fl->ngroups - k) * sizeof *fl->groups);
        fl->ngroups -= k;
    }
    int rc = released.n ? extvec_merge(&fl->free, fl->free.v, fl->free.n, &released) : CS_OK;
    extvec_free(&released);
    return rc;
}

size_t freelist_serial_size(const cs_freelist *fl, size_t extra_extents)
{
    size_t n = 16 + (fl->free.n + extra_extents) * 16;
    for (size_t i = 0; i < fl->ngroups; i++) n += 16 + fl->groups[i].ext.n * 16;
    return n;
}

static uint8_t *put_extents(uint8_t *p, const cs_extvec *ev)
{
    for (size_t i = 0; i < ev->n; i++) {
        wr64(p, ev->v[i].start);
        wr64(p + 8, ev->v[i].len);
        p += 16;
    }
    return p;
}

void freelist_serialize(const cs_freelist *fl, uint8_t *p)
{
    wr64(p, fl->free.n);
    wr64(p + 8, fl->ngroups);
    p = put_extents(p + 16, &fl->free);
    for (size_t i = 0; i < fl->ngroups; i++) {
        wr64(p, fl->groups[i].txnid);
        wr64(p + 8, fl->groups[i].ext.n);
        p = put_extents(p + 16, &fl->groups[i].ext);
    }
}

/* Read n extents, each within [2, next_pgno). */
static int get_extents(const uint8_t **pp, const uint8_t *end, uint64_t n, uint64_t next_pgno,
                       cs_extvec *out)
{
    const uint8_t *p = *pp;
    if (n > (uint64_t)(end - p) / 16) return cs_fail(CS_ECORRUPT, "free list: extent count %llu past end of run", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++, p += 16) {
        uint64_t s = rd64(p), l = rd64(p + 8);
        if (s < 2 || l == 0 || s >= next_pgno || l > next_pgno - s)
            return cs_fail(CS_ECORRUPT, "free list: extent %llu+%llu outside the file",
                           (unsigned long long)s, (unsigned long long)l);
        int rc = extvec_push(out, s, l);
        if (rc) return rc;
    }
    *pp = p;
    return CS_OK;
}

/* nfree | ngroups | extents | groups, from p (at most end). */
static int parse_list(const uint8_t *p, const uint8_t *end, uint64_t next_pgno, cs_freelist *out)
{
    if ((size_t)(end - p) < 16) return cs_fail(CS_ECORRUPT, "free list: counts past end");
    uint64_t nfree = rd64(p), ngroups = rd64(p + 8);
    p += 16;
    int rc = get_extents(&p, end, nfree, next_pgno, &out->free);
    extvec_normalize(&out->free); /* the writer merges into it: keep it sorted even if damaged */
    uint64_t prev = 0;
    for (uint64_t g = 0; rc == CS_OK && g < ngroups; g++) {
        if ((size_t)(end - p) < 16) { rc = cs_fail(CS_ECORRUPT, "free list: group past end"); break; }
        uint64_t txnid = rd64(p), n = rd64(p + 8);
        p += 16;
        if (txnid <= prev) { rc = cs_fail(CS_ECORRUPT, "free list: groups out of order"); break; }
        prev = txnid;
        cs_extvec ev = {0};
        rc = get_extents(&p, end, n, next_pgno, &ev);
        if (rc == CS_OK) rc = freelist_add_group(out, txnid, &ev);
        extvec_free(&ev);
    }
    return rc;
}

int freelist_load(const uint8_t *run, uint64_t npages, uint32_t psize, uint64_t next_pgno,
                  cs_freelist *out)
{
    memset(out, 0, sizeof *out);
    const cs_page_hdr *h = PH(run);
    size_t len = (size_t)npages * psize;
    if (h->type != PT_FREELIST || h->npages != npages)
        return cs_fail(CS_ECORRUPT, "free list run at page %llu: bad header", (unsigned long long)h->pgno);
    if (cs_page_checksum(run, len) != h->checksum)
        return cs_fail(CS_ECORRUPT, "free list run at page %llu: checksum mismatch", (unsigned long long)h->pgno);
    int rc = parse_list(run + PAGE_HDR, run + len, next_pgno, out);
    if (rc) freelist_free(out);
    return rc;
}

size_t freelist_delta_size(const cs_freelist *delta) { return 8 + freelist_serial_size(delta, 0); }

void freelist_delta_encode(uint64_t cursor, const cs_freelist *delta, uint8_t *out)
{
    wr64(out, cursor);
    freelist_serialize(delta, out + 8);
}

int freelist_delta_decode(const uint8_t *p, size_t len, uint64_t base_txnid, uint64_t txnid, uint64_t next_pgno,
                          uint64_t *cursor, cs_freelist *out)
{
    memset(out, 0, sizeof *out);
    if (len < 24) return cs_fail(CS_ECORRUPT, "free list: delta of %zu bytes", len);
    *cursor = rd64(p);
    int rc = parse_list(p + 8, p + len, next_pgno, out);
    if (rc == CS_OK && out->ngroups &&
        (out->groups[0].txnid <= base_txnid || out->groups[out->ngroups - 1].txnid > txnid))
        rc = cs_fail(CS_ECORRUPT, "free list: delta groups %llu..%llu outside commits %llu..%llu",
                     (unsigned long long)out->groups[0].txnid, (unsigned long long)out->groups[out->ngroups - 1].txnid,
                     (unsigned long long)base_txnid + 1, (unsigned long long)txnid);
    if (rc) freelist_free(out);
    return rc;
}

/* Push what is left of ev after skipping *skip pages from its front. */
static int rest_of(const cs_extvec *ev, uint64_t *skip, cs_extvec *out)
{
    size_t i = 0;
    for (; i < ev->n && *skip >= ev->v[i].len; i++) *skip -= ev->v[i].len;
    if (i == ev->n) return CS_OK;
    int rc = extvec_push(out, ev->v[i].start + *skip, ev->v[i].len - *skip);
    *skip = 0;
    return rc ? rc : extvec_append_n(out, ev->v + i + 1, ev->n - i - 1);
}

int freelist_rest(const cs_freelist *base, uint64_t cursor, cs_freelist *out)
{
    memset(out, 0, sizeof *out);
    /* Room for the groups too: a writer appends the reusable ones to `free`,
     * which would otherwise grow (and be copied) at every begin. */
    size_t all = base->free.n;
    for (size_t g = 0; g < base->ngroups; g++) all += base->groups[g].ext.n;
    uint64_t skip = cursor;
    int rc = extvec_reserve(&out->free, all);
    if (rc == CS_OK) rc = rest_of(&base->free, &skip, &out->free);
    for (size_t g = 0; rc == CS_OK && g < base->ngroups; g++) {
        cs_extvec ev = {0};
        rc = rest_of(&base->groups[g].ext, &skip, &ev);
        if (rc == CS_OK && ev.n) rc = freelist_add_group(out, base->groups[g].txnid, &ev);
        extvec_free(&ev);
    }
    if (rc == CS_OK && skip)
        rc = cs_fail(CS_ECORRUPT, "free list: delta cursor %llu past the base's %llu pages", (unsigned long long)cursor,
                     (unsigned long long)(cursor - skip));
    if (rc) freelist_free(out);
    return rc;
}

int freelist_join(cs_freelist *dst, cs_freelist *src)
{
    int rc = src->free.n ? extvec_merge(&dst->free, dst->free.v, dst->free.n, &src->free) : CS_OK;
    for (size_t g = 0; rc == CS_OK && g < src->ngroups; g++) {
        if (dst->ngroups && dst->groups[dst->ngroups - 1].txnid >= src->groups[g].txnid)
            rc = cs_fail(CS_ECORRUPT, "free list: groups out of order");
        else rc = freelist_add_group(dst, src->groups[g].txnid, &src->groups[g].ext);
    }
    freelist_free(src);
    return rc;
}
