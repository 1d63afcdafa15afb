/*
 * fuzz_file.c — a damaged database file must give error codes, never a
 * crash, a hang or a sanitizer report.
 *
 * A valid file is built once in-process (several trees, a three-level tree,
 * overflow values, a free list with pending groups). Each input is a list
 * of mutations aimed at a page class — meta pages, branch and leaf pages,
 * the free-list run, overflow runs, any page — setting bytes or 16/32/64-bit
 * fields to chosen or "interesting" values (page numbers, counts, 0, ~0) or
 * copying one page over another; the first byte says whether checksums are
 * recomputed afterwards, so that damage gets past the CRC into the parsers.
 * The image is then opened read-only and read-write, listed, scanned both
 * ways, sought, ranked, diffed, written to, committed and checked.
 * A sanitizer report names the invariant whose checks the engine relied on
 * in the phase that crashed (every read of the file is bounds-checked).
 */
#include <fcntl.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "internal.h"
#include "invariants.h"

/* What the harness is doing to the damaged image, and the invariants the
 * engine's checks for that phase enforce. */
static const char *phase = "building the healthy file", *phase_inv = "";
static void set_phase(const char *what, const char *inv) { phase = what, phase_inv = inv; }
/* The sanitizers' hook for their "SUMMARY: ..." line (ASan and UBSan;
 * libFuzzer keeps its death callback, which saves the crashing input). */
void __sanitizer_report_error_summary(const char *summary);
void __sanitizer_report_error_summary(const char *summary)
{
    fprintf(stderr, "%s\nfuzz_file: the engine crashed while %s a damaged file: a broken %s must give CS_ECORRUPT\n",
            summary, phase, phase_inv);
}

#define PSIZE 4096u
static uint8_t *base_img;
static size_t base_size, npages;
static uint16_t *ptype; /* page type per page (0 = inside a run) */
static char path[300];

static void build_base(void)
{
    snprintf(path, sizeof path, "%s/base.db", fz_dir("file"));
    fz_rm(path, ".lock");
    cs_env *env;
    cs_options o = {.durability = CS_DURABLE_NO_SYNC};
    if (cs_env_open(path, &o, &env)) abort();
    static uint8_t v[12000];
    char k[200];
    for (int round = 0; round < 4; round++) {
        cs_txn *t;
        cs_tree a, b, c;
        if (cs_txn_begin(env, 0, &t) || cs_tree_open(t, "deep", CS_CREATE, &a) || cs_tree_open(t, "big", CS_CREATE, &b) ||
            cs_tree_open(t, "small", CS_CREATE, &c))
            abort();
        for (int i = 0; i < 150; i++) { /* 600 long keys: about 18 per page, three levels */
            int kl = snprintf(k, sizeof k, "key-%06d-%d-%0150d", i * 7 % 150, round, i);
            memset(v, 'a' + i % 26, 40);
            if (cs_put(t, a, (cs_val){k, (size_t)kl}, (cs_val){v, 40}, 0)) abort();
        }
        for (int i = 0; i < 6; i++) {
            int kl = snprintf(k, sizeof k, "blob%d", i);
            memset(v, i + round, sizeof v);
            if (cs_put(t, b, (cs_val){k, (size_t)kl}, (cs_val){v, 5000 + 1000 * (size_t)i}, 0)) abort();
        }
        for (int i = 0; i < 20; i++) {
            int kl = snprintf(k, sizeof k, "s%d", i);
            if (cs_put(t, c, (cs_val){k, (size_t)kl}, (cs_val){k, (size_t)kl}, 0)) abort();
        }
        if (round == 3)
            for (int i = 0; i < 150; i += 3) { /* free pages, with a group pending */
                int kl = snprintf(k, sizeof k, "key-%06d-%d-%0150d", i * 7 % 150, 1, i);
                cs_del(t, a, (cs_val){k, (size_t)kl});
            }
        if (cs_txn_commit(t)) abort();
    }
    cs_env_info info;
    if (cs_env_get_info(env, &info)) abort();
    cs_env_close(env);
    npages = info.next_pgno;
    base_size = npages * PSIZE;
    base_img = malloc(base_size);
    int fd = open(path, O_RDONLY);
    if (fd < 0 || pread(fd, base_img, base_size, 0) != (ssize_t)base_size) abort();
    close(fd);
    ptype = calloc(npages, sizeof *ptype);
    for (size_t p = 2; p < npages;) {
        const cs_page_hdr *h = (const cs_page_hdr *)(const void *)(base_img + p * PSIZE);
        ptype[p] = h->pgno == p ? h->type : 0;
        p += (h->pgno == p && (h->type == PT_OVERFLOW || h->type == PT_FREELIST) && h->npages) ? h->npages : 1;
    }
    ptype[0] = ptype[1] = PT_META;
}

/* The index-th page of a type, or any page. */
static size_t pick_page(uint16_t type, uint8_t index)
{
    size_t count = 0;
    for (size_t p = 0; p < npages; p++) count += ptype[p] == type;
    if (!count) return index % npages;
    size_t want = index % count;
    for (size_t p = 0; p < npages; p++)
        if (ptype[p] == type && want-- == 0) return p;
    return 0;
}

static uint64_t interesting(fz_in *in)
{
    uint8_t c = fz_u8(in);
    switch (c % 8) {
    case 0: return 0;
    case 1: return ~0ull;
    case 2: return c >> 3;                 /* small counts, meta pgnos    */
    case 3: return npages + (c >> 3) - 16; /* near the end of the file    */
    case 4: return (uint64_t)fz_u8(in) % npages;
    case 5: return 0x7fffffffull + (c >> 3);
    case 6: return 0x80000000ull | fz_u16(in);
    default: return fz_u64(in);
    }
}

static void reseal(uint8_t *img, size_t p)
{
    cs_page_hdr *h = (cs_page_hdr *)(void *)(img + p * PSIZE);
    if (p < 2) {
        h->checksum = cs_page_checksum(img + p * PSIZE, CS_META_BYTES);
        return;
    }
    size_t len = PSIZE;
    if ((h->type == PT_OVERFLOW || h->type == PT_FREELIST) && h->npages && h->npages <= npages - p)
        len = (size_t)h->npages * PSIZE;
    h->checksum = cs_page_checksum(img + p * PSIZE, len);
}

static void mutate(uint8_t *img, fz_in *in, bool fix)
{
    static const uint16_t cls[8] = {PT_META, PT_META, PT_BRANCH, PT_LEAF6, PT_FREELIST, PT_OVERFLOW, 0xffff, PT_LEAF6};
    int n = 0;
    while (fz_more(in) && n++ < 16) {
        uint8_t sel = fz_u8(in), kind = fz_u8(in);
        uint16_t off = fz_u16(in);
        size_t p = sel % 8 == 0 ? 0 : sel % 8 == 1 ? 1 : pick_page(cls[sel % 8], sel >> 3);
        if (p >= npages) continue;
        uint8_t *pg = img + p * PSIZE;
        size_t o = p < 2 ? off % 128u : (kind & 0x80) ? off % 64u : off % PSIZE;
        switch (kind % 8) {
        case 0: pg[o] = fz_u8(in); break;
        case 1: pg[o] ^= (uint8_t)(1u << (fz_u8(in) % 8)); break;
        case 2: { uint16_t v = (uint16_t)interesting(in); if (o + 2 <= PSIZE) memcpy(pg + o, &v, 2); break; }
        case 3: { uint32_t v = (uint32_t)interesting(in); if (o + 4 <= PSIZE) memcpy(pg + o, &v, 4); break; }
        case 4: case 5: { uint64_t v = interesting(in); if (o + 8 <= PSIZE) memcpy(pg + o, &v, 8); break; }
        case 6: { /* copy another page over this one (keeps its pgno field if asked) */
            size_t q = fz_u8(in) % npages;
            if (q != p && q >= 2 && p >= 2) {
                uint64_t keep;
                memcpy(&keep, pg + 8, 8);
                memcpy(pg, img + q * PSIZE, PSIZE);
                if (kind & 0x40) memcpy(pg + 8, &keep, 8);
            }
            break;
        }
        default: { /* zero a range (read the length once: it is bounded) */
            size_t len = fz_u8(in) % 64u;
            memset(pg + o, 0, len < PSIZE - o ? len : PSIZE - o);
        }
        }
        if (fix) reseal(img, p);
    }
}

/* Reads of every kind; results are ignored, only crashes matter. */
static void read_all(cs_env *env)
{
    cs_txn *t;
    if (cs_txn_begin(env, CS_TXN_RDONLY, &t)) return;
    static const char *names[] = {"deep", "big", "small", "nope"};
    for (int i = 0; i < 4; i++) {
        cs_tree tr;
        if (cs_tree_open(t, names[i], 0, &tr)) continue;
        uint64_t n;
        cs_tree_stat st;
        cs_count(t, tr, &n);
        cs_tree_get_stat(t, tr, &st);
        cs_val k, v;
        cs_get(t, tr, (cs_val){"key-000007-1-0", 14}, &v);
        cs_get(t, tr, (cs_val){"blob3", 5}, &v);
        /* Filtered counts read every value in place: damaged cells and
         * values shorter than the filter must give an error, not a read
         * out of bounds. */
        cs_value_test tests[3] = {
            {.kind = CS_TEST_BYTES_EQ, .offset = 0, .on_true = CS_FILTER_TRUE, .on_false = CS_FILTER_FALSE, .high = 3},
            {.kind = CS_TEST_BOOL, .null_mask = 2, .null_byte = 1, .offset = 5, .flag = 1, .on_true = 0,
             .on_false = CS_FILTER_FALSE},
            {.kind = CS_TEST_I64_RANGE, .offset = 2, .low = 0, .high = 1 << 20, .on_true = 1, .on_false = 0},
        };
        cs_filter filter = {tests, 3, 2, (const uint8_t *)"abc", 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0};
        cs_count_matching(t, tr, &filter, &n);
        /* and the record-by-record path: an AND of int and bool tests */
        cs_value_test plain[2] = {
            {.kind = CS_TEST_BOOL, .offset = 9, .flag = 1, .on_true = CS_FILTER_TRUE, .on_false = CS_FILTER_FALSE},
            {.kind = CS_TEST_I64_RANGE, .offset = 1, .low = -5, .high = 1 << 30, .on_true = 0, .on_false = CS_FILTER_FALSE},
        };
        cs_filter conj = {plain, 2, 1, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        cs_count_matching(t, tr, &conj, &n);
        plain[0].bit_mask = 0x10; /* a Bool held in a bit of the byte */
        cs_count_matching(t, tr, &conj, &n);
        plain[0].bit_mask = 0;
        conj.has_tag = 1; /* values of another layout are refused, never misread */
        cs_count_matching(t, tr, &conj, &n);
        cs_cursor *c;
        if (cs_cursor_open(t, tr, &c)) continue;
        cs_val batch[64];
        size_t got = 0, matched;
        if (cs_cursor_next_batch(c, NULL, batch, 64, &got) == CS_OK) {
            cs_filter_values(&filter, batch, got, NULL, &matched);
            filter.has_tag = 1;
            filter.tag = 'k';
            cs_filter_values(&filter, batch, got, NULL, &matched);
        }
        /* Filtered scans read every value in place too: through chunks,
         * and through the tag check. */
        uint64_t ids[16];
        int calls = 0;
        filter.has_tag = 0;
        while (cs_cursor_next_matching(c, &filter, ids, batch, 16, &got) == CS_OK && ++calls < 2000) {}
        cs_cursor_close(c);
        if (cs_cursor_open(t, tr, &c)) continue;
        calls = 0;
        while (cs_cursor_next_matching(c, &conj, ids, batch, 7, &got) == CS_OK && ++calls < 2000) {}
        int steps = 0;
        for (int rc = cs_cursor_get(c, &k, &v, CS_FIRST); rc == CS_OK && steps < 8000; rc = cs_cursor_get(c, &k, &v, CS_NEXT))
            steps++;
        steps = 0;
        for (int rc = cs_cursor_get(c, &k, &v, CS_LAST); rc == CS_OK && steps < 300; rc = cs_cursor_get(c, &k, &v, CS_PREV))
            steps++;
        k = (cs_val){"key-0005", 8};
        cs_cursor_get(c, &k, &v, CS_SEEK);
        uint64_t idx;
        cs_cursor_index(c, &idx);
        cs_cursor_seek_index(c, n / 2, &k, &v);
        cs_cursor_seek_index(c, n ? n - 1 : 0, &k, &v);
        cs_cursor_close(c);
    }
    cs_txn_abort(t);
}

static int count_cb(void *ctx, const char *name, size_t len)
{
    (void)name, (void)len;
    return ++*(int *)ctx > 100;
}
static int diff_cb(void *ctx, cs_diff_kind kind, cs_val key, cs_val o, cs_val n)
{
    (void)kind, (void)key, (void)o, (void)n;
    return ++*(int *)ctx > 20000;
}

static void write_some(cs_env *env)
{
    cs_txn *r = NULL, *t;
    cs_txn_begin(env, CS_TXN_RDONLY, &r);
    if (cs_txn_begin(env, 0, &t) == CS_OK) {
        int n = 0;
        cs_tree_list(t, count_cb, &n);
        cs_tree a, b, c;
        static uint8_t v[7000];
        if (cs_tree_open(t, "deep", CS_CREATE, &a) == CS_OK) {
            char k[200];
            for (int i = 0; i < 60; i++) {
                int kl = snprintf(k, sizeof k, "key-%06d-%d-%0150d", i * 5, i % 4, i);
                if (i % 3) cs_put(t, a, (cs_val){k, (size_t)kl}, (cs_val){v, (size_t)(i % 90)}, 0);
                else cs_del(t, a, (cs_val){k, (size_t)kl});
            }
            if (r) {
                int d = 0;
                cs_tree_diff(r, t, a, diff_cb, &d);
            }
        }
        if (cs_tree_open(t, "big", CS_CREATE, &b) == CS_OK) {
            cs_put(t, b, (cs_val){"blob1", 5}, (cs_val){v, 6500}, 0);
            cs_del(t, b, (cs_val){"blob2", 5});
        }
        if (cs_tree_open(t, "small", 0, &c) == CS_OK) {
            /* cursor writes: delete every other entry, update the rest */
            cs_cursor *cur;
            cs_val k, v;
            if (cs_cursor_open(t, c, &cur) == CS_OK) {
                int steps = 0;
                for (int rc = cs_cursor_get(cur, &k, &v, CS_FIRST); rc == CS_OK && steps < 200;
                     rc = cs_cursor_get(cur, &k, &v, CS_NEXT), steps++) {
                    if (steps % 2) rc = cs_cursor_del(cur);
                    else if (k.size && k.size <= 64) {
                        uint8_t kb[64];
                        memcpy(kb, k.data, k.size);
                        rc = cs_cursor_put(cur, (cs_val){kb, k.size}, (cs_val){"v", 1}, 0);
                    }
                    if (rc) break;
                }
                cs_cursor_close(cur);
            }
            if (n % 2) cs_tree_clear(t, c);
            else cs_tree_drop(t, c);
        }
        if (cs_tree_open(t, "new", CS_CREATE, &c) == CS_OK) cs_put(t, c, (cs_val){"x", 1}, (cs_val){"y", 1}, 0);
        cs_txn_commit(t);
    }
    if (r) cs_txn_abort(r);
}

/* Writes the damaged image that input `data` describes to path p. */
static void write_image(const uint8_t *data, size_t size, const char *p)
{
    if (!base_img) build_base();
    fz_in in = {data + 1, size - 1};
    uint8_t *img = malloc(base_size);
    memcpy(img, base_img, base_size);
    mutate(img, &in, (data[0] & 3) != 0);
    fz_rm(p, ".lock");
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, img, base_size, 0) != (ssize_t)base_size) abort();
    close(fd);
    free(img);
}

#ifdef FUZZ_FILE_IMAGES
/* Writes IMAGE minus ".db" plus ".verdict": what cs_check says on a
 * read-only open (as the realmlite tool opens): "cannot open", "clean", or
 * "problems" and the first problem on the next line. */
static int write_verdict(const char *image)
{
    char v[600];
    size_t n = strlen(image);
    snprintf(v, sizeof v, "%.*s.verdict", (int)(n > 3 ? n - 3 : n), image);
    FILE *out = fopen(v, "w");
    if (!out) { perror(v); return 1; }
    cs_env *env;
    cs_options o = {.flags = CS_ENV_RDONLY};
    cs_check_report r;
    int rc = CS_EIO;
    if (cs_env_open(image, &o, &env) == CS_OK) {
        rc = cs_check(env, &r);
        cs_env_close(env);
    }
    if (rc != CS_OK && rc != CS_ECORRUPT) fprintf(out, "cannot open\n");
    else if (r.errors == 0) fprintf(out, "clean\n");
    else fprintf(out, "problems\n%s\n", r.first_error);
    fclose(out);
    char l[620];
    snprintf(l, sizeof l, "%s.lock", image);
    unlink(l);
    return 0;
}

/* file_images OUTDIR INPUT...: the damaged image of each corpus input as
 * OUTDIR/<input name>.db, with its verdict (write_verdict) beside it.
 * file_images --verdicts IMAGE.db...: the verdicts of existing images (the
 * damage kinds test_check keeps). cli_corpus.sh runs the realmlite tool on
 * both (make -C fuzz cli-corpus). */
int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: file_images OUTDIR INPUT... | file_images --verdicts IMAGE.db...\n");
        return 2;
    }
    if (strcmp(argv[1], "--verdicts") == 0) {
        for (int i = 2; i < argc; i++)
            if (write_verdict(argv[i])) return 1;
        return 0;
    }
    int written = 0;
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 1; }
        static uint8_t data[1 << 16];
        size_t size = fread(data, 1, sizeof data, f);
        fclose(f);
        if (size < 1) continue;
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        char p[600];
        snprintf(p, sizeof p, "%s/%s.db", argv[1], name);
        write_image(data, size, p);
        if (write_verdict(p)) return 1;
        written++;
    }
    if (base_img) {
        fz_rm(path, ".lock");
        rmdir(fz_dir("file"));
    }
    printf("file_images: %d damaged images in %s\n", written, argv[1]);
    return 0;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    char p[300];
    snprintf(p, sizeof p, "%s/img.db", fz_dir("file"));
    write_image(data, size, p);
    cs_env *env;
    cs_options o = {.durability = CS_DURABLE_NO_SYNC, .flags = CS_ENV_RDONLY};
    set_phase("opening (read-only)", INV_I1 " or " INV_I6 " (meta, next_pgno vs file size)");
    if (cs_env_open(p, &o, &env) == CS_OK) {
        set_phase("reading", INV_I8 ", " INV_I9 " or " INV_I10);
        read_all(env);
        cs_check_report r;
        set_phase("checking (cs_check)", "invariant I1-I12");
        cs_check(env, &r);
        cs_env_close(env);
    }
    o.flags = 0;
    set_phase("opening (read-write)", INV_I1 " or " INV_I6 " (meta, next_pgno vs file size)");
    if (cs_env_open(p, &o, &env) == CS_OK) {
        cs_env_info info;
        cs_env_get_info(env, &info);
        set_phase("writing to", INV_I8 ", " INV_I11 " or " INV_I7 " (node headers, free list, page txnids)");
        write_some(env);
        set_phase("reading", INV_I8 ", " INV_I9 " or " INV_I10);
        read_all(env);
        cs_check_report r;
        set_phase("checking (cs_check)", "invariant I1-I12");
        cs_check(env, &r);
        set_phase("writing to", INV_I8 ", " INV_I11 " or " INV_I7 " (node headers, free list, page txnids)");
        write_some(env);
        cs_env_close(env);
    }
    return 0;
}
