/*
 * redo.c — the redo log "<path>-log": records of small commits' entry
 * changes, appended and flushed in place of the commit's pages (format.h
 * REDO LOG; docs/COMMIT_IO.md, design 4).
 *
 * Why entries and not pages: a one-object commit changes about a hundred
 * bytes of entries but d + 1 pages of a copy-on-write tree. The log keeps
 * the bytes; the pages stay in memory until a fold writes them as an
 * ordinary commit, after which the log restarts at offset 0.
 *
 * Why the file is preallocated and written in place: a flush after an
 * append that grows the file also commits the file system's journal (the
 * size changed), which costs as much as the data. So the file is grown in
 * large steps through the grow hook, and records overwrite older ones.
 *
 * The log's writes and flushes go through the env's I/O hooks like the data
 * file's, so the power-loss and fault-injection harnesses see them.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- building a record ---- */

void redo_rec_init(redo_rec *r)
{
    memset(r, 0, sizeof *r);
}

void redo_rec_free(redo_rec *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

static int rec_reserve(redo_rec *r, size_t more)
{
    if (r->len + more <= r->cap) return CS_OK;
    size_t cap = r->cap ? r->cap : 1024;
    while (cap < r->len + more) {
        if (cap > SIZE_MAX / 2) return cs_fail(CS_ENOMEM, "redo record of %zu bytes", r->len + more);
        cap *= 2;
    }
    uint8_t *b = realloc(r->buf, cap);
    if (!b) return cs_fail(CS_ENOMEM, "redo record of %zu bytes", cap);
    r->buf = b;
    r->cap = cap;
    return CS_OK;
}

int redo_rec_begin(redo_rec *r, uint64_t epoch, uint64_t txnid)
{
    r->len = 0;
    r->nops = 0;
    int rc = rec_reserve(r, REDO_HDR);
    if (rc) return rc;
    memset(r->buf, 0, REDO_HDR);
    wr32(r->buf, REDO_MAGIC);
    wr64(r->buf + 8, epoch);
    wr64(r->buf + 16, txnid);
    r->len = REDO_HDR;
    return CS_OK;
}

/* One op: kind, then up to two (length, bytes) fields; a NULL second field
 * is left out, and `word` (if has_word) goes first as a bare varint. */
static int rec_op(redo_rec *r, uint8_t kind, bool has_word, uint32_t word, const void *a, uint32_t al,
                  const void *b, uint32_t bl, bool has_b)
{
    if (r->len < REDO_HDR) return cs_fail(CS_EINVAL, "redo record not begun");
    size_t need = 1 + (has_word ? varint_len(word) : 0) + varint_len(al) + al + (has_b ? varint_len(bl) + bl : 0);
    int rc = rec_reserve(r, need);
    if (rc) return rc;
    uint8_t *p = r->buf + r->len;
    *p++ = kind;
    if (has_word) p += varint_put(p, word);
    p += varint_put(p, al);
    if (al) memcpy(p, a, al), p += al;
    if (has_b) {
        p += varint_put(p, bl);
        if (bl) memcpy(p, b, bl), p += bl;
    }
    r->len = (size_t)(p - r->buf);
    r->nops++;
    return CS_OK;
}

int redo_rec_tree(redo_rec *r, const char *name, uint32_t nlen, uint32_t flags)
{
    return rec_op(r, REDO_TREE, true, flags, name, nlen, NULL, 0, false);
}

int redo_rec_put(redo_rec *r, const uint8_t *k, uint32_t kl, const uint8_t *v, uint32_t vl)
{
    return rec_op(r, REDO_PUT, false, 0, k, kl, v, vl, true);
}

int redo_rec_del(redo_rec *r, const uint8_t *k, uint32_t kl)
{
    return rec_op(r, REDO_DEL, false, 0, k, kl, NULL, 0, false);
}

int redo_rec_drop(redo_rec *r, const char *name, uint32_t nlen)
{
    return rec_op(r, REDO_DROP, false, 0, name, nlen, NULL, 0, false);
}

size_t redo_rec_seal(redo_rec *r)
{
    size_t padded = (r->len + REDO_ALIGN - 1) / REDO_ALIGN * REDO_ALIGN;
    if (rec_reserve(r, padded - r->len)) return 0;
    memset(r->buf + r->len, 0, padded - r->len);
    wr32(r->buf + 4, (uint32_t)r->len);
    wr32(r->buf + 24, r->nops);
    wr32(r->buf + 28, 0);
    wr32(r->buf + 28, cs_crc32c(0, r->buf, r->len));
    return padded;
}

/* ---- decoding ops ---- */

static bool get_bytes(const uint8_t **p, const uint8_t *end, const uint8_t **out, uint32_t *len)
{
    if (!varint_get(p, end, len) || (size_t)(end - *p) < *len) return false;
    *out = *p;
    *p += *len;
    return true;
}

int redo_next_op(const uint8_t **p, const uint8_t *end, redo_op *op)
{
    if (*p >= end) return CS_NOTFOUND;
    memset(op, 0, sizeof *op);
    op->kind = *(*p)++;
    bool ok;
    switch (op->kind) {
    case REDO_TREE:
        ok = varint_get(p, end, &op->flags) && get_bytes(p, end, &op->a, &op->al);
        break;
    case REDO_PUT:
        ok = get_bytes(p, end, &op->a, &op->al) && get_bytes(p, end, &op->b, &op->bl);
        break;
    case REDO_DEL:
    case REDO_DROP:
        ok = get_bytes(p, end, &op->a, &op->al);
        break;
    default:
        ok = false;
    }
    if (!ok) return cs_fail(CS_ECORRUPT, "redo log: op of kind %u runs past its record", op->kind);
    return CS_OK;
}

/* ---- the file ---- */

static int redo_error(int e, const char *what)
{
    if (e == ENOSPC || e == EDQUOT || e == EFBIG)
        return cs_fail(CS_ENOSPACE, "redo log %s: %s (nothing was committed; free space and retry)", what,
                       strerror(e));
    return cs_fail(CS_EIO, "redo log %s: %s", what, strerror(e));
}

bool redo_has_bytes(const char *data_path)
{
    char *path = path_with(data_path, "-log");
    struct stat st;
    bool has = !path || stat(path, &st) != 0 ? errno != ENOENT : st.st_size > 0;
    free(path);
    return has;
}

int redo_open(cs_redo *lg, const char *data_path, bool rdonly, const cs_io_hooks *io)
{
    memset(lg, 0, sizeof *lg);
    lg->fd = -1;
    char *path = path_with(data_path, "-log");
    if (!path) return cs_fail(CS_ENOMEM, "redo log path");
    int fd = open(path, (rdonly ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC, 0644);
    int e = errno;
    free(path);
    if (fd < 0) {
        if (rdonly && e == ENOENT) return CS_NOTFOUND;
        return redo_error(e, "open");
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return redo_error(e, "stat");
    }
    lg->fd = fd;
    lg->size = (uint64_t)st.st_size;
    lg->io = *io;
    return CS_OK;
}

void redo_close(cs_redo *lg)
{
    if (lg->fd >= 0) close(lg->fd);
    lg->fd = -1;
}

int redo_append(cs_redo *lg, uint64_t off, const redo_rec *r, size_t padded)
{
    int rc = redo_write(lg, off, r, padded);
    return rc ? rc : redo_flush(lg);
}

int redo_flush(cs_redo *lg)
{
    int e = lg->fd < 0 ? EBADF : lg->io.sync(lg->io.ctx, lg->fd);
    return e ? redo_error(e, "flush") : CS_OK;
}

int redo_write(cs_redo *lg, uint64_t off, const redo_rec *r, size_t padded)
{
    if (lg->fd < 0 || padded < REDO_HDR || padded % REDO_ALIGN || off % REDO_ALIGN)
        return cs_fail(CS_EINVAL, "redo_append: no log, or an unsealed record or offset");
    if (off + padded > lg->size) {
        uint64_t size = lg->size < REDO_GROW ? REDO_GROW : lg->size * 2;
        while (size < off + padded) size *= 2;
        int e = lg->io.grow(lg->io.ctx, lg->fd, size);
        if (e) return redo_error(e, "growth");
        lg->size = size;
    }
    int e = lg->io.write(lg->io.ctx, lg->fd, r->buf, padded, off);
    return e ? redo_error(e, "write") : CS_OK;
}

/* Reads exactly len bytes at off; false if the file ends first. */
static bool read_at(int fd, uint8_t *buf, size_t len, uint64_t off, int *err)
{
    while (len) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            *err = errno;
            return false;
        }
        if (n == 0) return false;
        buf += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return true;
}

int redo_scan(cs_redo *lg, uint64_t epoch, redo_scan_fn fn, void *ctx, uint64_t *end_off, uint64_t *last_txnid)
{
    uint64_t off = 0, txnid = epoch;
    uint8_t *buf = NULL;
    size_t cap = 0;
    int rc = CS_OK;
    for (;;) {
        uint8_t hdr[REDO_HDR];
        int err = 0;
        /* The size of the open: nothing can append while a scan runs. */
        if (lg->fd < 0 || off + REDO_HDR > lg->size || !read_at(lg->fd, hdr, REDO_HDR, off, &err)) {
            if (err) rc = redo_error(err, "read");
            break;
        }
        uint32_t len = rd32(hdr + 4);
        if (rd32(hdr) != REDO_MAGIC || rd64(hdr + 8) != epoch || rd64(hdr + 16) != txnid + 1 || len < REDO_HDR ||
            len > lg->size - off)
            break;
        if (cap < len) {
            uint8_t *b = realloc(buf, len);
            if (!b) {
                rc = cs_fail(CS_ENOMEM, "redo record of %u bytes", len);
                break;
            }
            buf = b;
            cap = len;
        }
        if (!read_at(lg->fd, buf, len, off, &err)) {
            if (err) rc = redo_error(err, "read");
            break;
        }
        uint32_t crc = rd32(buf + 28);
        wr32(buf + 28, 0);
        if (cs_crc32c(0, buf, len) != crc) break; /* a torn last record ends the log */
        txnid++;
        if (fn && (rc = fn(ctx, txnid, buf + REDO_HDR, len - REDO_HDR, rd32(buf + 24)))) break;
        off += ((uint64_t)len + REDO_ALIGN - 1) / REDO_ALIGN * REDO_ALIGN;
    }
    free(buf);
    if (end_off) *end_off = off;
    if (last_txnid) *last_txnid = txnid;
    return rc;
}
