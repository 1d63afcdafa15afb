/* test_redo.c — the redo log on its own (redo.c, format.h REDO LOG):
 * records round-trip with every kind of op; a scan returns exactly the run
 * of records of its epoch with consecutive txnids and valid CRCs, so a log
 * restarted at offset 0 never continues into an older epoch's records, and
 * a torn, damaged, truncated or out-of-order record ends the log; op
 * decoding stays inside its record; writes and flushes go through the
 * hooks, one flush per record, and their errors map to CS_EIO and
 * CS_ENOSPACE. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test.h"

typedef struct hook_count {
    int writes, syncs, grows;
    int fail_write; /* errno to return from the next write, 0 = none */
    int fail_sync;
} hook_count;

static int h_write(void *ctx, int fd, const void *buf, size_t len, uint64_t off)
{
    hook_count *c = ctx;
    c->writes++;
    if (c->fail_write) {
        int e = c->fail_write;
        c->fail_write = 0;
        return e;
    }
    return test_pwrite_all(fd, buf, len, off);
}

static int h_sync(void *ctx, int fd)
{
    hook_count *c = ctx;
    c->syncs++;
    if (c->fail_sync) {
        int e = c->fail_sync;
        c->fail_sync = 0;
        return e;
    }
    return fdatasync(fd) ? errno : 0;
}

static int h_grow(void *ctx, int fd, uint64_t size)
{
    ((hook_count *)ctx)->grows++;
    return ftruncate(fd, (off_t)size) ? errno : 0;
}

static hook_count counts;
static const cs_io_hooks hooks = {.ctx = &counts, .write = h_write, .sync = h_sync, .grow = h_grow};

static cs_redo open_log(const char *name, bool fresh)
{
    tpath p = test_path(name);
    char lp[600];
    snprintf(lp, sizeof lp, "%s-log", p.s);
    if (fresh) unlink(lp);
    cs_redo lg;
    REQUIRE_OK(redo_open(&lg, p.s, false, &hooks));
    return lg;
}

/* Record txnid of epoch with `n` ops derived from txnid: a tree, n puts
 * (key "k<txnid>.<i>", value of VLEN(i) bytes), a delete, a drop. */
#define VLEN(i) ((i) % 100 * 37u)
static size_t build(redo_rec *r, uint64_t epoch, uint64_t txnid, unsigned n)
{
    char k[32];
    static uint8_t v[4096];
    REQUIRE_OK(redo_rec_begin(r, epoch, txnid));
    REQUIRE_OK(redo_rec_tree(r, "people", 6, 5));
    for (unsigned i = 0; i < n; i++) {
        int kl = snprintf(k, sizeof k, "k%llu.%u", (unsigned long long)txnid, i);
        test_fill(v, VLEN(i), txnid * 1000 + i);
        REQUIRE_OK(redo_rec_put(r, (const uint8_t *)k, (uint32_t)kl, v, VLEN(i)));
    }
    REQUIRE_OK(redo_rec_del(r, (const uint8_t *)"gone", 4));
    REQUIRE_OK(redo_rec_drop(r, "old", 3));
    size_t padded = redo_rec_seal(r);
    REQUIRE(padded > 0);
    return padded;
}

typedef struct seen {
    uint64_t txnid[64];
    unsigned n;
    bool ops_ok;
} seen;

/* Checks each record's ops against build()'s. */
static int collect(void *ctx, uint64_t txnid, const uint8_t *ops, size_t len, uint32_t nops)
{
    seen *s = ctx;
    if (s->n < 64) s->txnid[s->n] = txnid;
    s->n++;
    const uint8_t *p = ops, *end = ops + len;
    redo_op op;
    unsigned i = 0, count = 0;
    uint8_t v[4096];
    char k[32];
    int rc;
    while ((rc = redo_next_op(&p, end, &op)) == CS_OK) {
        count++;
        if (count == 1) {
            if (op.kind != REDO_TREE || op.flags != 5 || op.al != 6 || memcmp(op.a, "people", 6)) s->ops_ok = false;
        } else if (op.kind == REDO_PUT) {
            int kl = snprintf(k, sizeof k, "k%llu.%u", (unsigned long long)txnid, i);
            test_fill(v, VLEN(i), txnid * 1000 + i);
            if (op.al != (uint32_t)kl || memcmp(op.a, k, op.al) || op.bl != VLEN(i) || (op.bl && memcmp(op.b, v, op.bl)))
                s->ops_ok = false;
            i++;
        } else if (op.kind == REDO_DEL) {
            if (op.al != 4 || memcmp(op.a, "gone", 4)) s->ops_ok = false;
        } else if (op.kind == REDO_DROP) {
            if (op.al != 3 || memcmp(op.a, "old", 3)) s->ops_ok = false;
        } else {
            s->ops_ok = false;
        }
    }
    if (rc != CS_NOTFOUND || count != nops) s->ops_ok = false;
    return CS_OK;
}

static seen scan(cs_redo *lg, uint64_t epoch, uint64_t *end, uint64_t *last)
{
    seen s = {.ops_ok = true};
    CHECK_OK(redo_scan(lg, epoch, collect, &s, end, last));
    return s;
}

static void test_round_trip_and_epochs(void)
{
    cs_redo lg = open_log("rt", true);
    redo_rec r;
    redo_rec_init(&r);
    uint64_t off = 0, offs[4];
    memset(&counts, 0, sizeof counts);
    for (unsigned t = 0; t < 4; t++) {
        size_t padded = build(&r, 100, 101 + t, 40 - t * 10);
        CHECK_EQ(padded % REDO_ALIGN, 0);
        offs[t] = off;
        CHECK_OK(redo_append(&lg, off, &r, padded));
        off += padded;
    }
    CHECK_EQ(counts.writes, 4);
    CHECK_EQ(counts.syncs, 4); /* one flush per record */
    CHECK_EQ(counts.grows, 1);  /* preallocated in one step */
    CHECK(lg.size >= REDO_GROW);

    uint64_t end, last;
    seen s = scan(&lg, 100, &end, &last);
    CHECK_EQ(s.n, 4);
    CHECK(s.ops_ok);
    CHECK_EQ(end, off);
    CHECK_EQ(last, 104);
    for (unsigned t = 0; t < 4; t++) CHECK_EQ(s.txnid[t], 101 + t);

    /* Another epoch's scan sees nothing of these. */
    s = scan(&lg, 99, &end, &last);
    CHECK_EQ(s.n, 0);
    CHECK_EQ(end, 0);
    CHECK_EQ(last, 99);

    /* A fold at 105 restarts the log at 0: one new record, shorter than the
     * old first one; the old records behind it are not taken. */
    size_t padded = build(&r, 105, 106, 0);
    CHECK(padded < offs[1]);
    CHECK_OK(redo_append(&lg, 0, &r, padded));
    s = scan(&lg, 105, &end, &last);
    CHECK_EQ(s.n, 1);
    CHECK(s.ops_ok);
    CHECK_EQ(end, padded);
    CHECK_EQ(last, 106);
    /* The old epoch's log is gone from its start, so it is empty. */
    CHECK_EQ(scan(&lg, 100, &end, &last).n, 0);

    /* Replay folds records 101..103 of epoch 100 into commit 101 (the
     * durable meta's txnid + 1), so the next epoch's records reuse txnids
     * the old ones had: a new record 102 of two sectors ends where the old
     * 103 starts, and only the epoch tells them apart. */
    uint64_t o = 0;
    for (unsigned t = 0; t < 3; t++) {
        padded = build(&r, 100, 101 + t, 0);
        REQUIRE(padded == REDO_ALIGN);
        REQUIRE_OK(redo_append(&lg, o, &r, padded));
        o += padded;
    }
    CHECK_EQ(scan(&lg, 100, &end, &last).n, 3);
    padded = build(&r, 101, 102, 6);
    REQUIRE(padded == 2 * REDO_ALIGN);
    CHECK_OK(redo_append(&lg, 0, &r, padded));
    s = scan(&lg, 101, &end, &last);
    CHECK_EQ(s.n, 1);
    CHECK_EQ(last, 102);
    CHECK_EQ(end, 2 * REDO_ALIGN);
    padded = build(&r, 105, 106, 0);
    CHECK_OK(redo_append(&lg, 0, &r, padded));

    /* Reopen: the file keeps its records. */
    redo_close(&lg);
    lg = open_log("rt", false);
    CHECK_EQ(scan(&lg, 105, &end, &last).n, 1);
    redo_rec_free(&r);
    redo_close(&lg);
}

/* Writes records 101..105 of epoch 100 and returns their offsets. */
static void write_five(cs_redo *lg, redo_rec *r, uint64_t offs[6])
{
    uint64_t off = 0;
    for (unsigned t = 0; t < 5; t++) {
        size_t padded = build(r, 100, 101 + t, 3 + t * 4);
        offs[t] = off;
        REQUIRE_OK(redo_append(lg, off, r, padded));
        off += padded;
    }
    offs[5] = off;
}

static void poke(cs_redo *lg, uint64_t off, uint8_t x)
{
    uint8_t b;
    REQUIRE(pread(lg->fd, &b, 1, (off_t)off) == 1);
    b ^= x;
    REQUIRE(pwrite(lg->fd, &b, 1, (off_t)off) == 1);
}

static void test_damage_ends_the_log(void)
{
    redo_rec r;
    redo_rec_init(&r);
    uint64_t offs[6], end, last;

    /* A flipped byte in any part of record 3 (header, ops, CRC) ends the
     * log after record 2. */
    uint64_t where[] = {0, 4, 8, 16, 24, 28, REDO_HDR, REDO_HDR + 9};
    for (unsigned w = 0; w < sizeof where / sizeof *where; w++) {
        cs_redo lg = open_log("dmg", true);
        write_five(&lg, &r, offs);
        poke(&lg, offs[2] + where[w], 0x40);
        seen s = scan(&lg, 100, &end, &last);
        CHECK_EQ(s.n, 2);
        CHECK_EQ(end, offs[2]);
        CHECK_EQ(last, 102);
        redo_close(&lg);
    }

    /* A torn last record: only its first sector reached the file. */
    cs_redo lg = open_log("torn", true);
    write_five(&lg, &r, offs);
    REQUIRE(offs[5] - offs[4] > REDO_ALIGN);
    static uint8_t zeros[65536];
    REQUIRE(pwrite(lg.fd, zeros, (size_t)(offs[5] - offs[4] - REDO_ALIGN), (off_t)(offs[4] + REDO_ALIGN)) > 0);
    CHECK_EQ(scan(&lg, 100, &end, &last).n, 4);
    CHECK_EQ(end, offs[4]);

    /* A record that claims to run past the file's end. */
    REQUIRE(ftruncate(lg.fd, (off_t)(offs[4] + REDO_ALIGN)) == 0);
    lg.size = offs[4] + REDO_ALIGN;
    CHECK_EQ(scan(&lg, 100, &end, &last).n, 4);
    redo_close(&lg);

    /* A gap in txnids (101, 102, 104): the log ends at the gap. */
    lg = open_log("gap", true);
    uint64_t off = 0;
    uint64_t ids[] = {101, 102, 104};
    for (unsigned t = 0; t < 3; t++) {
        size_t padded = build(&r, 100, ids[t], 2);
        REQUIRE_OK(redo_append(&lg, off, &r, padded));
        off += padded;
    }
    CHECK_EQ(scan(&lg, 100, &end, &last).n, 2);
    CHECK_EQ(last, 102);
    redo_close(&lg);
    redo_rec_free(&r);
}

/* Every prefix of a valid op stream decodes to CS_ECORRUPT or a shorter
 * run of whole ops, never reading past its end (ASan watches the copy). */
static void test_op_bounds(void)
{
    redo_rec r;
    redo_rec_init(&r);
    size_t padded = build(&r, 1, 2, 12);
    CHECK(padded > 0);
    size_t len = r.len - REDO_HDR;
    for (size_t cut = 0; cut <= len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        REQUIRE(copy);
        memcpy(copy, r.buf + REDO_HDR, cut);
        const uint8_t *p = copy, *end = copy + cut;
        redo_op op;
        int rc;
        unsigned n = 0;
        while ((rc = redo_next_op(&p, end, &op)) == CS_OK) {
            n++;
            CHECK(op.a + op.al <= end && (!op.b || op.b + op.bl <= end));
        }
        CHECK(rc == CS_NOTFOUND || rc == CS_ECORRUPT);
        if (cut == len) CHECK(rc == CS_NOTFOUND && n == r.nops);
        free(copy);
    }
    /* An unknown kind is damage. */
    uint8_t bad[] = {9, 1, 'x'};
    const uint8_t *p = bad;
    redo_op op;
    CHECK_RC(redo_next_op(&p, bad + sizeof bad, &op), CS_ECORRUPT);
    redo_rec_free(&r);
}

static void test_io_errors(void)
{
    cs_redo lg = open_log("err", true);
    redo_rec r;
    redo_rec_init(&r);
    size_t padded = build(&r, 7, 8, 4);
    counts.fail_write = ENOSPC;
    CHECK_RC(redo_append(&lg, 0, &r, padded), CS_ENOSPACE);
    counts.fail_write = EIO;
    CHECK_RC(redo_append(&lg, 0, &r, padded), CS_EIO);
    counts.fail_sync = EIO;
    CHECK_RC(redo_append(&lg, 0, &r, padded), CS_EIO);
    CHECK_RC(redo_append(&lg, 100, &r, padded), CS_EINVAL); /* not on a sector */
    CHECK_RC(redo_append(&lg, 0, &r, padded - 1), CS_EINVAL);
    CHECK_OK(redo_append(&lg, 0, &r, padded));
    uint64_t end, last;
    CHECK_EQ(scan(&lg, 7, &end, &last).n, 1);
    redo_close(&lg);

    /* Read-only open of a missing log. */
    tpath p = test_path("nolog");
    cs_redo ro;
    CHECK_RC(redo_open(&ro, p.s, true, &hooks), CS_NOTFOUND);
    /* A scan of a closed log finds nothing. */
    CHECK_EQ(scan(&ro, 7, &end, &last).n, 0);
    redo_rec_free(&r);
}

int main(void)
{
    test_round_trip_and_epochs();
    test_damage_ends_the_log();
    test_op_bounds();
    test_io_errors();
    printf("redo: round trip, epochs, damage, op bounds, I/O errors\n");
    return test_report();
}
