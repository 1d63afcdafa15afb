/* data.h — the shared benchmark data (data.c), used by workloads.c. */
#ifndef BENCH_DATA_H
#define BENCH_DATA_H

#include "bench.h"

#define VBUF_SIZE (1u << 20)

typedef struct bench_data {
    uint64_t n;
    uint32_t ks, vs;
    char *present, *missing; /* n keys each, ks bytes apiece */
    uint8_t *vbuf;
    uint32_t *perm_fill;     /* permutation: fillrandom, fillsync, refill */
    uint32_t *perm_del;      /* permutation: deleterandom, delete half   */
    uint32_t *rnd_read;      /* with replacement: readrandom, readmissing */
    uint32_t *rnd_write;     /* with replacement: overwrite              */
    uint32_t *rnd_rww;       /* with replacement: readwhilewriting reader */
} bench_data;

extern bench_data D;

uint64_t splitmix(uint64_t *state);

/* Present key i. */
static inline const char *key(uint64_t i) { return D.present + i * D.ks; }
/* The c-th value written: a different window of the buffer each time. */
static inline const uint8_t *value(uint64_t c) { return D.vbuf + (c * 97u) % VBUF_SIZE; }

#endif
