/* vec.c — growable vectors of page extents (free space bookkeeping). */
#include "internal.h"

#include <stdlib.h>

int extvec_reserve(cs_extvec *ev, size_t more)
{
    if (ev->cap - ev->n >= more) return CS_OK;
    size_t cap = ev->cap ? ev->cap * 2 : 16;
    if (cap < ev->n + more) cap = ev->n + more;
    cs_extent *v = realloc(ev->v, cap * sizeof *v);
    if (!v) return cs_fail(CS_ENOMEM, "extent vector of %zu entries", cap);
    ev->v = v;
    ev->cap = cap;
    return CS_OK;
}

int extvec_push(cs_extvec *ev, uint64_t start, uint64_t len)
{
    int rc = ev->n == ev->cap ? extvec_reserve(ev, 1) : CS_OK;
    if (rc) return rc;
    ev->v[ev->n++] = (cs_extent){start, len};
    return CS_OK;
}

/* One copy, not a push per extent: a writer copies the base's list (every
 * free extent of a fragmented file) at each begin. */
int extvec_append_n(cs_extvec *dst, const cs_extent *src, size_t n)
{
    int rc = n ? extvec_reserve(dst, n) : CS_OK;
    if (rc) return rc;
    if (n) memcpy(dst->v + dst->n, src, n * sizeof *src);
    dst->n += n;
    return CS_OK;
}

int extvec_append(cs_extvec *dst, const cs_extvec *src) { return extvec_append_n(dst, src->v, src->n); }

static int ext_cmp(const void *a, const void *b)
{
    const cs_extent *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

void extvec_normalize(cs_extvec *ev)
{
    if (ev->n < 2) return;
    qsort(ev->v, ev->n, sizeof *ev->v, ext_cmp);
    size_t w = 0;
    for (size_t i = 1; i < ev->n; i++) {
        cs_extent *last = &ev->v[w];
        if (last->start + last->len >= ev->v[i].start) {
            uint64_t end = ev->v[i].start + ev->v[i].len;
            if (end > last->start + last->len) last->len = end - last->start;
        } else {
            ev->v[++w] = ev->v[i];
        }
    }
    ev->n = w + 1;
}

int extvec_merge(cs_extvec *dst, const cs_extent *a, size_t an, cs_extvec *add)
{
    /* Sorting only the (small) addition and merging keeps a commit's free
     * space work linear in the free list, instead of n log n. */
    extvec_normalize(add);
    size_t cap = an + add->n;
    cs_extent *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v) return cs_fail(CS_ENOMEM, "extent merge of %zu entries", cap);
    size_t i = 0, j = 0, n = 0;
    while (i < an || j < add->n) {
        cs_extent e = (j >= add->n || (i < an && a[i].start < add->v[j].start)) ? a[i++] : add->v[j++];
        if (n && v[n - 1].start + v[n - 1].len >= e.start) {
            uint64_t end = e.start + e.len;
            if (end > v[n - 1].start + v[n - 1].len) v[n - 1].len = end - v[n - 1].start;
        } else {
            v[n++] = e;
        }
    }
    free(dst->v);
    dst->v = v;
    dst->n = n;
    dst->cap = cap ? cap : 1;
    return CS_OK;
}

uint64_t extvec_pages(const cs_extvec *ev)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ev->n; i++) n += ev->v[i].len;
    return n;
}

void extvec_free(cs_extvec *ev)
{
    free(ev->v);
    ev->v = NULL;
    ev->n = ev->cap = 0;
}
