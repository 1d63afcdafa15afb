/*
 * test.h — tiny test harness for the CStorage C tests.
 *
 * CHECK* macros count passes and failures (thread-safe) and print file:line
 * on failure without stopping; REQUIRE* stop the test binary at once (use
 * them where continuing would only crash). main() ends with
 * `return test_report();`, which prints "N passed, N failed" and gives the
 * exit status. Each binary gets one temp dir under $TMPDIR, removed at exit
 * when every check passed (kept for inspection otherwise).
 */
#ifndef TEST_H
#define TEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cstorage.h"

extern _Atomic long test_passed, test_failed;

void test_fail_(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void test_abort_(void);
int test_report(void);

#define CHECK(c)                                                            \
    ((c) ? (void)atomic_fetch_add(&test_passed, 1)                          \
         : test_fail_(__FILE__, __LINE__, "CHECK(%s)", #c))

#define CHECK_EQ(a, b)                                                      \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ == b_) atomic_fetch_add(&test_passed, 1);                    \
        else test_fail_(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %lld != %lld", \
                        #a, #b, a_, b_);                                    \
    } while (0)

/* expr returns a cs_error; compare with want and name both on failure. */
#define CHECK_RC(expr, want)                                                \
    do {                                                                    \
        int r_ = (expr), w_ = (want);                                       \
        if (r_ == w_) atomic_fetch_add(&test_passed, 1);                    \
        else test_fail_(__FILE__, __LINE__, "%s: got %s (%d), want %s (%d) [%s]", \
                        #expr, cs_strerror(r_), r_, cs_strerror(w_), w_,    \
                        cs_last_error_detail());                            \
    } while (0)
#define CHECK_OK(expr) CHECK_RC(expr, CS_OK)

/* Byte-string equality of a cs_val with (ptr, len). */
#define CHECK_VAL(v, ptr, len)                                              \
    do {                                                                    \
        cs_val v_ = (v);                                                    \
        size_t l_ = (len);                                                  \
        if (v_.size == l_ && (l_ == 0 || memcmp(v_.data, (ptr), l_) == 0))  \
            atomic_fetch_add(&test_passed, 1);                              \
        else test_fail_(__FILE__, __LINE__, "CHECK_VAL(%s): size %zu, want %zu%s", \
                        #v, v_.size, l_, v_.size == l_ ? " (bytes differ)" : ""); \
    } while (0)

#define REQUIRE(c)                                                          \
    do { if (!(c)) { test_fail_(__FILE__, __LINE__, "REQUIRE(%s)", #c);     \
                     test_abort_(); } } while (0)
#define REQUIRE_OK(expr)                                                    \
    do {                                                                    \
        long f_ = atomic_load(&test_failed);                                \
        CHECK_OK(expr);                                                     \
        if (atomic_load(&test_failed) != f_) test_abort_();                 \
    } while (0)

/* ---- temp files ---- */
typedef struct { char s[512]; } tpath;
/* The per-binary temp dir (created on first use). */
const char *test_dir(void);
/* test_dir()/name */
tpath test_path(const char *name);
/* Remove a database (data file and its lock file). */
void test_rm_db(const char *path);
/* Size of a file in bytes, -1 if missing. */
long long test_file_size(const char *path);
/* Copy file src to dst (a fixture to a scratch path); false on failure. */
bool test_copy_file(const char *src, const char *dst);

/* ---- helpers ---- */
static inline cs_val V(const void *p, size_t n) { cs_val v = {p, n}; return v; }
static inline cs_val VS(const char *s) { cs_val v = {s, strlen(s)}; return v; }
/* A list element's key as the object layer builds it: the list id (u64
 * big-endian), a length byte and a 3-byte counter. Its length (12). */
static inline size_t test_list_key(uint8_t *k, uint64_t id, uint32_t i) {
    for (int b = 0; b < 8; b++) k[b] = (uint8_t)(id >> (56 - 8 * b));
    k[8] = 3, k[9] = (uint8_t)(i >> 16), k[10] = (uint8_t)(i >> 8), k[11] = (uint8_t)i;
    return 12;
}

/* splitmix64: small, fast, reproducible PRNG. */
static inline uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }
/* Deterministic bytes: fill buf with a pattern derived from seed. */
void test_fill(void *buf, size_t n, uint64_t seed);
/* Open with NO_SYNC (tests do not need power-loss durability). */
int test_open(const char *path, uint32_t flags, cs_env **out);
/* Create tree `name` if missing, in a write txn of its own, and return
 * its handle (REQUIREs success). */
cs_tree test_open_tree(cs_env *env, const char *name);
/* Write all of buf at off, retrying short writes: 0 or an errno. The body
 * of the tests' cs_io_hooks.write hooks (fault injection, power loss). */
int test_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
/* Monotonic seconds (for progress messages only, never asserted). */
double test_now(void);

#endif /* TEST_H */
