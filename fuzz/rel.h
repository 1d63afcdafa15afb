/*
 * rel.h — shared pieces of the reliability programs (crash loop, power
 * loss, stress, disk full): a PRNG, temp dirs, failure reporting, and the
 * "batch" workload whose every committed state can be verified exactly.
 *
 * Batch workload: commit number s (s = 1, 2, ...) writes batch s, nkeys(s)
 * keys "b<s>/<i>" into tree t<s % NTREES> with values wl_value(s, i)
 * (some large enough to need overflow pages), deletes batch s - WINDOW,
 * and sets meta/"seq" = s. So state(k) = batches k-WINDOW+1..k and seq k,
 * and wl_verify can tell "exactly commit k" from anything partial or mixed.
 */
#ifndef REL_H
#define REL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cstorage.h"
#include "invariants.h"

#define WL_NTREES 3
#define WL_WINDOW 8

/* splitmix64 */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }
static inline uint64_t mix64(uint64_t x) { return rng_next(&x); }

/* A fresh directory under $RELDIR, /dev/shm or /tmp; removed by rel_rmdir. */
const char *rel_mkdir(const char *tag);
void rel_rmdir(const char *dir);
/* dir/name into buf. */
void rel_path(char *buf, size_t n, const char *dir, const char *name);
void rel_rm_db(const char *path);
double rel_now(void);
/* Seed from $SEED or the clock; printed so that a failure can be replayed. */
uint64_t rel_seed(const char *prog);

/* Failure counting: rel_fail prints (first 30) and counts. */
extern long rel_failures;
void rel_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The final line the Makefile greps: "<name>: N scenarios, F failed". */
int rel_report(const char *name, long scenarios);

/* ---- batch workload ---- */
uint32_t wl_nkeys(uint64_t s);
size_t wl_value(uint64_t s, uint32_t i, uint8_t *buf, size_t cap); /* cap >= WL_MAX_VALUE */
#define WL_MAX_VALUE 12000
/* The seq the write txn t builds on (0 if none): the next commit is +1.
 * Read inside the write txn, which may see a commit that a dead writer
 * made durable but never published. */
uint64_t wl_current(cs_txn *t);
/* Write commit s into the write txn (opens/creates the trees itself). */
int wl_apply(cs_txn *t, uint64_t s);
/* Check that env's newest snapshot is exactly state(k) for some k; *k set.
 * Returns 0, or -1 with a reason in why (naming the invariant, INV_STATE). */
int wl_verify(cs_env *env, uint64_t *k, char *why, size_t n);
/* cs_check; 0 if clean, else -1 with the first error in why (naming the
 * invariant it breaks: "cs_check: I6 page accounting: ..."). */
int rel_check(cs_env *env, char *why, size_t n);

#endif
