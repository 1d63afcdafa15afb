/*
 * fuzz_log.c — a damaged redo log ("<path>-log") must give error codes or a
 * shorter log, never a crash, a hang, a sanitizer report or a state that no
 * acknowledged commit made.
 *
 * A valid pair is built once: a data file folded at close, then a process
 * that logs small commits — puts (one with an overflow value), deletes,
 * cursor writes, a tree created, one cleared, one dropped — and exits
 * without closing, so the log holds every commit since the fold. The
 * parent hashes the state after each of those commits (S0..Sn).
 *
 * Each input is a list of mutations of the log: bytes or 32/64-bit fields
 * of a chosen record (header fields or ops) set to chosen or "interesting"
 * values, a record copied over another, the log cut short or extended with
 * garbage. The first byte says whether each record's CRC is recomputed
 * afterwards, so that damage gets past the CRC into the op decoder and the
 * replay. The pair is then opened (the first opener replays the log),
 * read, checked and written to, and closed (which folds).
 *
 * Oracle: without recomputed CRCs, damage can only end the log early, so
 * the state after open is one of S0..Sn. With them, any state is allowed,
 * but cs_check must find no problem in what the replay built.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "fuzz_common.h"
#include "internal.h"

#define NCOMMITS 14
static uint8_t *data_img, *log_img;
static size_t data_size, log_size;
static size_t rec_off[NCOMMITS + 1], nrecs;
static uint64_t state_hash[NCOMMITS + 1];
static char path[300], log_path[310];

static cs_options logged_options(void)
{
    return (cs_options){.durability = CS_DURABLE_FULL, .flags = CS_ENV_LOG_SMALL};
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* A hash of every tree's name, keys and values, in order. */
typedef struct { cs_txn *t; uint64_t h; } hash_ctx;

static int hash_tree(void *ctx, const char *name, size_t len)
{
    hash_ctx *x = ctx;
    x->h = fnv(x->h, name, len);
    char n[CS_MAX_KEY + 1];
    if (len >= sizeof n) return 0;
    memcpy(n, name, len);
    n[len] = 0;
    cs_tree tree;
    cs_cursor *c;
    if (cs_tree_open(x->t, n, 0, &tree) || cs_cursor_open(x->t, tree, &c)) return 0;
    cs_val k, v;
    for (int r = cs_cursor_get(c, &k, &v, CS_FIRST); r == CS_OK; r = cs_cursor_get(c, &k, &v, CS_NEXT)) {
        x->h = fnv(x->h, k.data, k.size);
        x->h = fnv(x->h, v.data, v.size);
    }
    cs_cursor_close(c);
    return 0;
}

static uint64_t hash_state(cs_env *env)
{
    hash_ctx x = {NULL, 0xcbf29ce484222325ull};
    if (cs_txn_begin(env, CS_TXN_RDONLY, &x.t)) return 0;
    cs_tree_list(x.t, hash_tree, &x);
    cs_txn_abort(x.t);
    return x.h;
}

/* The commits the log holds: commit i of the same deterministic sequence
 * on any env. The overflow value and the cleared tree make ops the replay
 * must apply in order. */
static void commit_step(cs_env *env, int i)
{
    static uint8_t big[6000];
    char k[64], v[64];
    cs_txn *t;
    cs_tree a, b;
    if (cs_txn_begin(env, 0, &t) || cs_tree_open(t, "a", CS_CREATE, &a)) abort();
    switch (i % 7) {
    case 0:
        for (int j = 0; j < 5; j++) {
            int kl = snprintf(k, sizeof k, "k%03d-%d", i * 5 + j, i), vl = snprintf(v, sizeof v, "value %d.%d", i, j);
            if (cs_put(t, a, (cs_val){k, (size_t)kl}, (cs_val){v, (size_t)vl}, 0)) abort();
        }
        break;
    case 1:
        memset(big, 'A' + i % 26, sizeof big);
        if (cs_put(t, a, (cs_val){"big", 3}, (cs_val){big, 3000 + (size_t)i * 100}, 0)) abort();
        break;
    case 2: {
        int kl = snprintf(k, sizeof k, "k%03d-%d", (i - 2) * 5, i - 2);
        cs_del(t, a, (cs_val){k, (size_t)kl});
        break;
    }
    case 3:
        if (cs_tree_open(t, "b", CS_CREATE, &b)) abort();
        for (int j = 0; j < 3; j++) {
            int kl = snprintf(k, sizeof k, "b%d-%d", i, j);
            if (cs_put(t, b, (cs_val){k, (size_t)kl}, (cs_val){k, (size_t)kl}, 0)) abort();
        }
        break;
    case 4: {
        cs_cursor *c;
        cs_val ck, cv;
        if (cs_cursor_open(t, a, &c)) abort();
        if (cs_cursor_get(c, &ck, &cv, CS_FIRST) == CS_OK) cs_cursor_del(c);
        cs_cursor_close(c);
        break;
    }
    case 5:
        if (cs_tree_open(t, "b", CS_CREATE, &b) || cs_tree_clear(t, b)) abort();
        break;
    default:
        if (cs_tree_open(t, "c", CS_CREATE, &b) || cs_put(t, b, (cs_val){"x", 1}, (cs_val){"y", 1}, 0)) abort();
        if (i > 10 && cs_tree_drop(t, b)) abort();
        break;
    }
    if (cs_txn_commit(t)) abort();
}

static void unlink_segment(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0) return;
    char name[VSEG_NAME_MAX];
    vseg_name(st.st_dev, st.st_ino, name);
    vseg_unlink(name);
}

static uint8_t *read_whole(const char *p, size_t *size)
{
    int fd = open(p, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) abort();
    uint8_t *b = malloc((size_t)st.st_size + 1);
    if (!b || pread(fd, b, (size_t)st.st_size, 0) != st.st_size) abort();
    close(fd);
    *size = (size_t)st.st_size;
    return b;
}

static void build_base(void)
{
    snprintf(path, sizeof path, "%s/base.db", fz_dir("log"));
    snprintf(log_path, sizeof log_path, "%s-log", path);
    fz_rm(path, ".lock");
    cs_options o = logged_options();
    cs_env *env;
    if (cs_env_open(path, &o, &env)) abort();
    commit_step(env, 0);
    state_hash[0] = hash_state(env);
    cs_env_close(env); /* folds: the log is empty */

    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        if (cs_env_open(path, &o, &env)) _exit(2);
        for (int i = 1; i <= NCOMMITS; i++) commit_step(env, i);
        _exit(0); /* no close: the log keeps every commit */
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) abort();
    data_img = read_whole(path, &data_size);
    log_img = read_whole(log_path, &log_size);
    unlink_segment(path);

    /* The records' offsets, and the state each commit left. */
    for (size_t off = 0; nrecs < NCOMMITS && off + REDO_HDR <= log_size;) {
        uint32_t len = rd32(log_img + off + 4);
        if (rd32(log_img + off) != REDO_MAGIC || len < REDO_HDR) break;
        rec_off[nrecs++] = off;
        off += (len + REDO_ALIGN - 1) / REDO_ALIGN * REDO_ALIGN;
    }
    if (nrecs != NCOMMITS) {
        fprintf(stderr, "fuzz_log: the base log holds %zu records, not %d (were commits written whole?)\n", nrecs, NCOMMITS);
        abort();
    }
    rec_off[nrecs] = log_size;
    char p2[320];
    snprintf(p2, sizeof p2, "%s/states.db", fz_dir("log"));
    fz_rm(p2, ".lock");
    cs_options plain = {.durability = CS_DURABLE_NO_SYNC};
    if (cs_env_open(p2, &plain, &env)) abort();
    for (int i = 0; i <= NCOMMITS; i++) {
        commit_step(env, i);
        if (i > 0) state_hash[i] = hash_state(env);
    }
    cs_env_close(env);
    fz_rm(p2, ".lock");
}

static uint64_t interesting(fz_in *in, size_t rec)
{
    uint8_t c = fz_u8(in);
    uint64_t epoch = rd64(log_img + rec_off[0] + 8);
    switch (c % 8) {
    case 0: return 0;
    case 1: return ~0ull;
    case 2: return c >> 3;
    case 3: return epoch + (c >> 3) - 4;            /* near the run's txnids */
    case 4: return rd64(log_img + rec_off[rec] + 16) + 1;
    case 5: return REDO_HDR + (c >> 3);              /* short lengths */
    case 6: return 0x10000u + fz_u16(in);            /* past the record cap */
    default: return fz_u64(in);
    }
}

/* Applies the input's mutations to a copy of the log; returns its size. */
static size_t mutate(uint8_t *img, size_t cap, fz_in *in, bool fix_crc)
{
    size_t size = log_size;
    for (int n = 0; n < 16 && fz_more(in); n++) {
        uint8_t op = fz_u8(in);
        size_t rec = fz_u8(in) % nrecs;
        size_t start = rec_off[rec], span = rec_off[rec + 1] - start;
        size_t off = start + fz_u16(in) % span;
        switch (op % 8) {
        case 0: img[off] = fz_u8(in); break;
        case 1: img[off] ^= (uint8_t)(1u << (fz_u8(in) % 8)); break;
        case 2: /* a header field */
            off = start + 4 * (fz_u8(in) % 8);
            if ((fz_u8(in) & 1) && off % 8 == 0) wr64(img + off, interesting(in, rec));
            else wr32(img + off, (uint32_t)interesting(in, rec));
            break;
        case 3: /* an op's length varint: a large value */
            if (off + 5 <= size) memcpy(img + off, "\xff\xff\xff\xff\x0f", 5);
            break;
        case 4: { /* a record copied over another */
            size_t to = fz_u8(in) % nrecs, len = rec_off[to + 1] - rec_off[to];
            memcpy(img + rec_off[to], log_img + start, span < len ? span : len);
            break;
        }
        case 5: size = start + fz_u16(in) % span; break; /* cut short */
        case 6: /* garbage after the end */
            if (size + REDO_ALIGN <= cap) {
                memset(img + size, fz_u8(in), REDO_ALIGN);
                if (fz_u8(in) & 1) memcpy(img + size, log_img + start, REDO_HDR);
                size += REDO_ALIGN;
            }
            break;
        default: /* an op byte set to a kind */
            img[off] = (uint8_t)(fz_u8(in) % 6);
            break;
        }
        if (size > log_size + REDO_ALIGN * 4) size = log_size;
    }
    if (fix_crc)
        for (size_t r = 0; r < nrecs; r++) {
            size_t o = rec_off[r];
            uint32_t len = rd32(img + o + 4);
            if (o + REDO_HDR > size || len < REDO_HDR || len > size - o) continue;
            wr32(img + o + 28, 0);
            wr32(img + o + 28, cs_crc32c(0, img + o, len));
        }
    return size;
}

static void write_file(const char *p, const uint8_t *b, size_t n)
{
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (n && pwrite(fd, b, n, 0) != (ssize_t)n)) abort();
    close(fd);
}

static void write_some(cs_env *env)
{
    cs_txn *t;
    cs_tree a;
    if (cs_txn_begin(env, 0, &t)) return;
    if (cs_tree_open(t, "a", CS_CREATE, &a) == CS_OK) {
        cs_put(t, a, (cs_val){"after", 5}, (cs_val){"open", 4}, 0);
        cs_del(t, a, (cs_val){"big", 3});
    }
    if (cs_txn_commit(t)) return;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if (!data_img) build_base();
    bool fix_crc = data[0] & 1;
    fz_in in = {data + 1, size - 1};
    size_t cap = log_size + REDO_ALIGN * 4;
    uint8_t *img = calloc(1, cap);
    memcpy(img, log_img, log_size);
    size_t n = mutate(img, cap, &in, fix_crc);

    char p[300], lp[310];
    snprintf(p, sizeof p, "%s/img.db", fz_dir("log"));
    snprintf(lp, sizeof lp, "%s-log", p);
    unlink_segment(p);
    fz_rm(p, ".lock");
    write_file(p, data_img, data_size);
    write_file(lp, img, n);
    free(img);

    cs_options o = logged_options();
    cs_env *env;
    int rc = cs_env_open(p, &o, &env);
    if (rc == CS_OK) {
        uint64_t h = hash_state(env);
        if (!fix_crc) {
            bool known = false;
            for (int i = 0; i <= NCOMMITS; i++) known |= h == state_hash[i];
            if (!known) {
                fprintf(stderr, "fuzz_log: a damaged log (CRCs not recomputed) replayed to a state no commit made\n");
                abort();
            }
        }
        cs_check_report r;
        if (cs_check(env, &r) != CS_OK || r.errors) {
            fprintf(stderr, "fuzz_log: after replaying a damaged log, cs_check: %s\n", r.first_error);
            abort();
        }
        write_some(env);
        hash_state(env);
        cs_env_close(env); /* folds */
        if (cs_env_open(p, &o, &env) == CS_OK) {
            if (cs_check(env, &r) != CS_OK || r.errors) {
                fprintf(stderr, "fuzz_log: after the fold of a damaged log's replay, cs_check: %s\n", r.first_error);
                abort();
            }
            cs_env_close(env);
        }
    } else if (rc != CS_ECORRUPT && rc != CS_EINVAL) {
        fprintf(stderr, "fuzz_log: opening with a damaged log gave %s, not CS_ECORRUPT\n", cs_strerror(rc));
        abort();
    }
    unlink_segment(p);
    return 0;
}
