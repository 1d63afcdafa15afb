/*
 * meta.c — the two meta pages.
 *
 * A commit writes the meta page that does not hold the newest durable meta,
 * so that one is never overwritten by the commit that follows it: if the new
 * meta is torn or never reaches the disk, its checksum fails and open falls
 * back to the other page, whose pages the free list has kept intact (I1,
 * I7; the commit steps are in commit.c).
 */
#include "internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

void meta_seal(cs_meta *m)
{
    uint8_t buf[CS_META_BYTES];
    memset(buf, 0, sizeof buf);
    m->hdr.checksum = 0;
    memcpy(buf, m, sizeof *m);
    m->hdr.checksum = cs_page_checksum(buf, CS_META_BYTES);
}

/* A meta page (first 512 bytes) with our magic and a good checksum. */
bool meta_valid(const uint8_t *page, uint32_t psize_hint)
{
    CS_UNUSED(psize_hint);
    cs_meta m;
    memcpy(&m, page, sizeof m);
    if (m.magic != CS_MAGIC || m.hdr.type != PT_META) return false;
    if (cs_page_checksum(page, CS_META_BYTES) != m.hdr.checksum) return false;
    if (m.version < CS_FORMAT_VERSION_MIN || m.version > CS_FORMAT_VERSION) return false;
    if (!is_pow2(m.page_size) || m.page_size < CS_MIN_PAGE_SIZE ||
        m.page_size > CS_MAX_PAGE_SIZE)
        return false;
    if (m.next_pgno < 2 || m.catalog.root >= m.next_pgno || m.catalog.depth > CS_MAX_DEPTH ||
        (m.catalog.root == 0) != (m.catalog.depth == 0))
        return false;
    if (m.fl_pgno && (m.fl_pgno < 2 || m.fl_npages == 0 || m.fl_pgno >= m.next_pgno ||
                      m.fl_npages > m.next_pgno - m.fl_pgno))
        return false;
    if (m.version >= 3 && (uint32_t)m.hdr.nkeys * sizeof(cs_commit_unit) + m.hdr.upper > CS_META_TAIL) return false;
    return true;
}

uint32_t meta_delta_len(const cs_meta *m) { return m->version >= 3 ? m->hdr.upper : 0; }

const uint8_t *meta_delta(const uint8_t *page, const cs_meta *m)
{
    return page + sizeof *m + (size_t)m->hdr.nkeys * sizeof(cs_commit_unit);
}

bool meta_other_version(const uint8_t *page, uint32_t *version)
{
    cs_meta m;
    memcpy(&m, page, sizeof m);
    if (m.magic != CS_MAGIC || (m.version >= CS_FORMAT_VERSION_MIN && m.version <= CS_FORMAT_VERSION)) return false;
    if (cs_page_checksum(page, CS_META_BYTES) != m.hdr.checksum) return false;
    *version = m.version;
    return true;
}

int meta_choose(const uint8_t *p0, const uint8_t *p1, size_t avail, cs_meta *out, uint32_t *slot)
{
    cs_meta m0, m1;
    bool ok0 = avail >= CS_META_BYTES && meta_valid(p0, 0);
    bool magic0 = avail >= sizeof m0 && rd64(p0 + 32) == CS_MAGIC;
    bool ok1 = false, magic1 = false;
    if (ok0) memcpy(&m0, p0, sizeof m0);
    /* Page 1 sits at the page size the file was created with. */
    if (p1 && avail >= (size_t)(p1 - p0) + CS_META_BYTES) {
        ok1 = meta_valid(p1, 0);
        magic1 = rd64(p1 + 32) == CS_MAGIC;
        if (ok1) memcpy(&m1, p1, sizeof m1);
    }
    if (ok0 && ok1 && m0.page_size != m1.page_size) ok1 = false;
    if (!ok0 && !ok1) {
        if (magic0 || magic1) return cs_fail(CS_ECORRUPT, "both meta pages are damaged");
        return cs_fail(CS_ENOTDB, "file is not a CStorage database (no valid meta page)");
    }
    bool take0 = ok0 && (!ok1 || m0.txnid > m1.txnid);
    *out = take0 ? m0 : m1;
    if (slot) *slot = take0 ? 0 : 1;
    return CS_OK;
}

/* A unit listed by a single-flush meta is on disk as that commit wrote it. */
static bool unit_on_disk(int fd, uint32_t psize, uint64_t txnid, const cs_commit_unit *u)
{
    size_t bytes = (size_t)u->npages * psize;
    if (u->npages == 0 || u->npages > (1u << 30) / psize) return false;
    uint8_t *buf = malloc(bytes);
    if (!buf) return false;
    bool ok = pread(fd, buf, bytes, (off_t)(u->pgno * psize)) == (ssize_t)bytes;
    if (ok) {
        cs_page_hdr h;
        memcpy(&h, buf, sizeof h);
        ok = h.pgno == u->pgno && h.txnid == txnid && h.checksum == u->checksum &&
             cs_page_checksum(buf, bytes) == u->checksum;
    }
    free(buf);
    return ok;
}

int meta_choose_durable(const uint8_t *p0, const uint8_t *p1, size_t avail, int fd, cs_meta *out, uint32_t *slot)
{
    uint32_t s;
    int rc = meta_choose(p0, p1, avail, out, &s);
    if (rc) return rc;
    const uint8_t *page = s ? p1 : p0;
    uint32_t n = out->hdr.nkeys;
    bool whole = n <= CS_META_UNITS;
    /* The units are read one after another below: ask for all of them at
     * once first, so a cold open waits for one round of reads, not one per
     * unit (advice only: its failure changes nothing). */
    for (uint32_t i = 0; whole && n > 1 && i < n; i++) {
        cs_commit_unit u;
        memcpy(&u, page + sizeof(cs_meta) + i * sizeof u, sizeof u);
        if (u.npages > 0 && u.npages <= (1u << 30) / out->page_size)
            (void)posix_fadvise(fd, (off_t)(u.pgno * out->page_size), (off_t)u.npages * out->page_size, POSIX_FADV_WILLNEED);
    }
    for (uint32_t i = 0; whole && i < n; i++) {
        cs_commit_unit u;
        memcpy(&u, page + sizeof(cs_meta) + i * sizeof u, sizeof u);
        whole = unit_on_disk(fd, out->page_size, out->txnid, &u);
    }
    if (!whole) {
        /* Its flush never completed: the other meta is the last durable one. */
        const uint8_t *other = s ? p0 : p1;
        if (!other || !meta_valid(other, 0)) return cs_fail(CS_ECORRUPT, "the last commit is incomplete and the previous meta is damaged");
        memcpy(out, other, sizeof *out);
        s ^= 1;
    }
    if (slot) *slot = s;
    return CS_OK;
}
