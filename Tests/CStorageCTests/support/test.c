/* test.c — implementation of test.h. */
#include "test.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Atomic long test_passed, test_failed;

/* Line-buffered stdout: progress lines survive a crash (the point of some
 * tests is to find one). */
__attribute__((constructor)) static void line_buffered(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

static char g_dir[400];
static pid_t g_dir_owner;
enum { MAX_PRINTED = 40 };

void test_fail_(const char *file, int line, const char *fmt, ...) {
    long n = atomic_fetch_add(&test_failed, 1);
    if (n >= MAX_PRINTED) {
        if (n == MAX_PRINTED) fprintf(stderr, "(further failures not printed)\n");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static void cleanup(void) {
    if (!g_dir[0] || getpid() != g_dir_owner) return; /* forked children keep it */
    if (atomic_load(&test_failed) == 0) nftw(g_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    else fprintf(stderr, "temp files kept in %s\n", g_dir);
}

const char *test_dir(void) {
    if (!g_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/cstest.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(g_dir)) { perror("mkdtemp"); exit(2); }
        g_dir_owner = getpid();
        atexit(cleanup);
    }
    return g_dir;
}

tpath test_path(const char *name) {
    tpath p;
    snprintf(p.s, sizeof p.s, "%s/%s", test_dir(), name);
    return p;
}

void test_rm_db(const char *path) {
    /* Takes the segment of logged commits a killed process left too. */
    if (cs_env_remove(path) == CS_OK) return;
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    snprintf(lock, sizeof lock, "%s-log", path);
    unlink(lock);
}

bool test_copy_file(const char *src, const char *dst) {
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    bool ok = in && out;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = false;
    return ok;
}

long long test_file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

void test_fill(void *buf, size_t n, uint64_t seed) {
    unsigned char *b = buf;
    uint64_t s = seed, r = 0;
    for (size_t i = 0; i < n; i++) {
        if ((i & 7) == 0) r = rng_next(&s);
        b[i] = (unsigned char)(r >> ((i & 7) * 8));
    }
}

int test_open(const char *path, uint32_t flags, cs_env **out) {
    cs_options o = {0};
    o.flags = flags;
    o.durability = CS_DURABLE_NO_SYNC;
    return cs_env_open(path, &o, out);
}

cs_tree test_open_tree(cs_env *env, const char *name) {
    cs_txn *t;
    cs_tree tr;
    REQUIRE_OK(cs_txn_begin(env, 0, &t));
    REQUIRE_OK(cs_tree_open(t, name, CS_CREATE, &tr));
    REQUIRE_OK(cs_txn_commit(t));
    return tr;
}

int test_pwrite_all(int fd, const void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return EIO;
        done += (size_t)n;
    }
    return 0;
}

double test_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void test_abort_(void) {
    fprintf(stderr, "aborting this test binary after a failed REQUIRE\n");
    fflush(stdout);
    exit(test_report());
}

int test_report(void) {
    long p = atomic_load(&test_passed), f = atomic_load(&test_failed);
    printf("%ld passed, %ld failed\n", p, f);
    fflush(stdout);
    return f ? 1 : 0;
}
