/* rel.c — see rel.h. */
#include "rel.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

long rel_failures;

const char *rel_mkdir(const char *tag)
{
    static char dir[512];
    const char *base = getenv("RELDIR");
    struct stat st;
    if (!base || !*base) base = stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/rel-%s.XXXXXX", base, tag);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    return dir;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

void rel_rmdir(const char *dir) { nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

void rel_path(char *buf, size_t n, const char *dir, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

void rel_rm_db(const char *path)
{
    /* Takes the segment of logged commits a killed process left too: the
     * loops kill writers by the thousand. */
    if (cs_env_remove(path) == CS_OK) return;
    char l[600];
    snprintf(l, sizeof l, "%s.lock", path);
    unlink(path);
    unlink(l);
    snprintf(l, sizeof l, "%s-log", path);
    unlink(l);
}

double rel_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t rel_seed(const char *prog)
{
    const char *s = getenv("SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    printf("%s: SEED=%llu\n", prog, (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

void rel_fail(const char *fmt, ...)
{
    if (rel_failures++ < 30) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
}

int rel_report(const char *name, long scenarios)
{
    printf("%s: %ld scenarios, %ld failed\n", name, scenarios, rel_failures);
    fflush(stdout);
    return rel_failures ? 1 : 0;
}

/* ---- batch workload ---- */

uint32_t wl_nkeys(uint64_t s) { return 1 + (uint32_t)(mix64(s * 7919) % 40); }

size_t wl_value(uint64_t s, uint32_t i, uint8_t *buf, size_t cap)
{
    uint64_t h = mix64(s * 1000003 + i);
    size_t len = h % 16 == 0 ? 2000 + (h >> 8) % 9000 : (h >> 8) % 120; /* 1 in 16 overflows */
    if (len > cap) len = cap;
    for (size_t j = 0; j < len; j++) buf[j] = (uint8_t)(h >> ((j & 7) * 8)) ^ (uint8_t)j;
    return len;
}

static size_t wl_key(char *k, uint64_t s, uint32_t i)
{
    return (size_t)snprintf(k, 32, "b%08llu/%03u", (unsigned long long)s, i);
}

static int open_trees(cs_txn *t, unsigned flags, cs_tree tr[WL_NTREES], cs_tree *meta)
{
    char name[16];
    int rc = cs_tree_open(t, "meta", flags, meta);
    for (unsigned i = 0; rc == CS_OK && i < WL_NTREES; i++) {
        snprintf(name, sizeof name, "t%u", i);
        rc = cs_tree_open(t, name, flags, &tr[i]);
    }
    return rc;
}

uint64_t wl_current(cs_txn *t)
{
    cs_tree meta;
    cs_val v;
    uint64_t s = 0;
    if (cs_tree_open(t, "meta", 0, &meta) == CS_OK && cs_get(t, meta, (cs_val){"seq", 3}, &v) == CS_OK && v.size == 8)
        memcpy(&s, v.data, 8);
    return s;
}

int wl_apply(cs_txn *t, uint64_t s)
{
    cs_tree tr[WL_NTREES], meta;
    int rc = open_trees(t, CS_CREATE, tr, &meta);
    static uint8_t val[WL_MAX_VALUE];
    char k[32];
    for (uint32_t i = 0; rc == CS_OK && i < wl_nkeys(s); i++) {
        size_t vl = wl_value(s, i, val, sizeof val);
        rc = cs_put(t, tr[s % WL_NTREES], (cs_val){k, wl_key(k, s, i)}, (cs_val){val, vl}, 0);
    }
    if (s > WL_WINDOW) {
        uint64_t old = s - WL_WINDOW;
        for (uint32_t i = 0; rc == CS_OK && i < wl_nkeys(old); i++)
            rc = cs_del(t, tr[old % WL_NTREES], (cs_val){k, wl_key(k, old, i)});
    }
    if (rc == CS_OK) rc = cs_put(t, meta, (cs_val){"seq", 3}, (cs_val){&s, sizeof s}, 0);
    return rc;
}

static int verify_state(cs_env *env, uint64_t *kout, char *why, size_t n)
{
    cs_txn *t;
    int rc = cs_txn_begin(env, CS_TXN_RDONLY, &t);
    if (rc) {
        snprintf(why, n, "read txn: %s (%s)", cs_strerror(rc), cs_last_error_detail());
        return -1;
    }
    cs_tree tr[WL_NTREES], meta;
    uint64_t k = 0;
    int res = 0;
    rc = open_trees(t, 0, tr, &meta);
    cs_val v;
    if (rc == CS_NOTFOUND) {
        /* state(0): nothing committed yet, so no tree at all */
        uint64_t ntrees = 0;
        cs_txn_abort(t);
        cs_check_report r;
        if (cs_check(env, &r) == CS_OK) ntrees = r.trees;
        *kout = 0;
        if (ntrees) snprintf(why, n, "no seq but %llu trees", (unsigned long long)ntrees), res = -1;
        return res;
    }
    if (rc || (rc = cs_get(t, meta, (cs_val){"seq", 3}, &v)) || v.size != 8) {
        snprintf(why, n, "seq: %s (%s)", cs_strerror(rc), cs_last_error_detail());
        cs_txn_abort(t);
        return -1;
    }
    memcpy(&k, v.data, 8);
    *kout = k;
    uint64_t want[WL_NTREES] = {0};
    uint64_t lo = k > WL_WINDOW ? k - WL_WINDOW + 1 : 1;
    static uint8_t val[WL_MAX_VALUE];
    char key[32];
    for (uint64_t s = lo; s <= k && res == 0; s++) {
        want[s % WL_NTREES] += wl_nkeys(s);
        for (uint32_t i = 0; i < wl_nkeys(s); i++) {
            size_t vl = wl_value(s, i, val, sizeof val);
            rc = cs_get(t, tr[s % WL_NTREES], (cs_val){key, wl_key(key, s, i)}, &v);
            if (rc || v.size != vl || memcmp(v.data, val, vl)) {
                snprintf(why, n, "seq %llu: key %s: %s, %zu bytes (want %zu)", (unsigned long long)k, key,
                         cs_strerror(rc), rc ? 0 : v.size, vl);
                res = -1;
                break;
            }
        }
    }
    for (unsigned i = 0; i < WL_NTREES && res == 0; i++) {
        uint64_t c = 0;
        rc = cs_count(t, tr[i], &c);
        if (rc || c != want[i]) {
            snprintf(why, n, "seq %llu: tree t%u has %llu entries (%s), want %llu", (unsigned long long)k, i,
                     (unsigned long long)c, cs_strerror(rc), (unsigned long long)want[i]);
            res = -1;
        }
    }
    cs_txn_abort(t);
    return res;
}

int wl_verify(cs_env *env, uint64_t *kout, char *why, size_t n)
{
    char reason[400];
    int res = verify_state(env, kout, reason, sizeof reason);
    if (res) snprintf(why, n, "%s: %s", INV_STATE, reason);
    return res;
}

int rel_check(cs_env *env, char *why, size_t n)
{
    cs_check_report r;
    int rc = cs_check(env, &r);
    if (rc == CS_OK) return 0;
    if (r.errors) inv_describe_check(why, n, r.first_error);
    else snprintf(why, n, "cs_check: %s (%s)", cs_strerror(rc), cs_last_error_detail());
    return -1;
}
