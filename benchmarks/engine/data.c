/*
 * data.c — the keys, values and random orders every engine shares.
 *
 * Keys are zero-padded decimal numbers (db_bench style): present key i is
 * the number 2*i, missing key i is 2*i+1, so lookups of absent keys land in
 * the same leaves as lookups of present ones. Values are windows into one
 * random buffer. Random orders come from a fixed seed, so every engine sees
 * the same keys in the same order.
 */
#include "data.h"

#include <stdlib.h>

bench_data D;

uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void format_key(char *out, uint32_t ks, uint64_t num)
{
    for (uint32_t i = ks; i-- > 0; num /= 10)
        out[i] = (char)('0' + num % 10);
}

static uint32_t *random_perm(uint64_t n, uint64_t *seed)
{
    uint32_t *p = xmalloc(n * sizeof *p);
    for (uint64_t i = 0; i < n; i++)
        p[i] = (uint32_t)i;
    for (uint64_t i = n; i > 1; i--) {
        uint64_t j = splitmix(seed) % i;
        uint32_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return p;
}

static uint32_t *random_picks(uint64_t n, uint64_t *seed)
{
    uint32_t *p = xmalloc(n * sizeof *p);
    for (uint64_t i = 0; i < n; i++)
        p[i] = (uint32_t)(splitmix(seed) % n);
    return p;
}

void data_init(const bench_cfg *cfg)
{
    uint64_t seed = cfg->seed;
    D.n = cfg->n;
    D.ks = cfg->key_size;
    D.vs = cfg->value_size;
    D.present = xmalloc(D.n * D.ks);
    D.missing = xmalloc(D.n * D.ks);
    for (uint64_t i = 0; i < D.n; i++) {
        format_key(D.present + i * D.ks, D.ks, 2 * i);
        format_key(D.missing + i * D.ks, D.ks, 2 * i + 1);
    }
    D.vbuf = xmalloc(VBUF_SIZE + D.vs);
    for (size_t i = 0; i < VBUF_SIZE + D.vs; i++)
        D.vbuf[i] = (uint8_t)splitmix(&seed);
    D.perm_fill = random_perm(D.n, &seed);
    D.perm_del = random_perm(D.n, &seed);
    D.rnd_read = random_picks(D.n, &seed);
    D.rnd_write = random_picks(D.n, &seed);
    D.rnd_rww = random_picks(D.n, &seed);
}

void data_free(void)
{
    free(D.present);
    free(D.missing);
    free(D.vbuf);
    free(D.perm_fill);
    free(D.perm_del);
    free(D.rnd_read);
    free(D.rnd_write);
    free(D.rnd_rww);
}
