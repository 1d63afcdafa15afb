/*
 * base.h — layer L0: unaligned fields, error detail, log messages, CRC-32C, extent vectors.
 * Part of internal.h (its header holds the layer table and says what may
 * call what); included through it. Nothing here is public API.
 */
#ifndef CSTORAGE_BASE_H
#define CSTORAGE_BASE_H

#include "cstorage.h"
#include "format.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define CS_UNUSED(x) ((void)(x))
#define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)

_Static_assert(CSTORAGE_FORMAT_VERSION == CS_FORMAT_VERSION, "cstorage.h names the format version format.h defines");

/* ==== L0 base: error.c crc32c.c vec.c ==== */

/* Unaligned little-endian fields (the engine runs on little-endian hosts). */
static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* n bytes at a and b are equal: inline 8-byte words, for the few words of a
 * key or a cell (a libc call each costs more than the compare). */
static inline bool bytes_equal(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    if (n < 8) {
        for (uint32_t i = 0; i < n; i++)
            if (a[i] != b[i]) return false;
        return true;
    }
    for (uint32_t i = 0; i + 8 < n; i += 8)
        if (rd64(a + i) != rd64(b + i)) return false;
    return rd64(a + n - 8) == rd64(b + n - 8); /* the tail, overlapping */
}

/* ---- error.c ---- */
/* Record a detail message for the calling thread and return err. */
int cs_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An env's log function (cs_options.log) and its level, which
 * cs_env_set_log_level may change from any thread. */
typedef struct cs_logger {
    cs_log_fn fn;
    void *ctx;
    _Atomic uint32_t level;
} cs_logger;
/* Whether a message at lv would be sent: test it before gathering what a
 * message needs (a clock read, counts); cs_log tests it again. */
static inline bool log_on(cs_logger *lg, cs_log_level lv)
{
    return lg->fn && lv != CS_LOG_OFF && (uint32_t)lv <= atomic_load_explicit(&lg->level, memory_order_relaxed);
}
/* Format and send one message if lv is on; the calling thread's error
 * detail (cs_last_error_detail) is kept across the call. Callers hold no
 * engine lock (cstorage.h, cs_log_fn). */
void cs_log(cs_logger *lg, cs_log_level lv, cs_log_topic topic, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- crc32c.c ---- */
uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len);
/* Checksum of a page run with its checksum field read as zero. */
uint32_t cs_page_checksum(const uint8_t *page, size_t len);

/* ---- small vectors (vec.c) ---- */
typedef struct cs_extent {
    uint64_t start, len;
} cs_extent;
typedef struct cs_extvec {
    cs_extent *v;
    size_t n, cap;
} cs_extvec;
int extvec_push(cs_extvec *ev, uint64_t start, uint64_t len);
int extvec_append(cs_extvec *dst, const cs_extvec *src);
int extvec_append_n(cs_extvec *dst, const cs_extent *src, size_t n);
int extvec_reserve(cs_extvec *ev, size_t more); /* room for `more` after the n there are */
void extvec_normalize(cs_extvec *ev);   /* sort by start, merge adjacent  */
/* dst = sorted extents a[0..an) merged with add (sorted here); a may be dst's
 * own storage. */
int extvec_merge(cs_extvec *dst, const cs_extent *a, size_t an, cs_extvec *add);
uint64_t extvec_pages(const cs_extvec *ev);
void extvec_free(cs_extvec *ev);

#endif /* CSTORAGE_BASE_H */
