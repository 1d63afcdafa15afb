/* crc32c.c — CRC-32C (Castagnoli) for page checksums: SSE4.2 when the CPU
 * has it (three interleaved chains for long inputs), a slicing-by-8 table
 * otherwise. */
#include "internal.h"

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 8; s++) table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&table_once, table_init);
    while (n >= 8) {
        uint64_t w = rd64(p) ^ crc;
        crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
              table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
              table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
    return crc;
}

#if defined(__x86_64__)
/* One chain of crc32 instructions runs at the instruction's latency (three
 * cycles per 8 bytes); three independent chains over three lanes of a block
 * run at its throughput. The lanes' results are joined by shifting a state
 * over a lane of zero bytes, which is linear in the state: four lookups in
 * tables made once per lane length. */
#define LANE_LONG 1024
#define LANE_SHORT 128

static uint32_t shift_long[4][256], shift_short[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static uint32_t crc_hw_chain(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = crc;
    while (n >= 8) {
        c = __builtin_ia32_crc32di(c, rd64(p));
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}

static void shift_table_init(uint32_t t[4][256], size_t lane)
{
    static const uint8_t zeros[LANE_LONG];
    uint32_t basis[32];
    for (int b = 0; b < 32; b++) basis[b] = crc_hw_chain(1u << b, zeros, lane);
    /* Linear: v's entry is that of v without its lowest set bit, xor that
     * bit's basis (one xor per entry: this runs on the first open). */
    for (int k = 0; k < 4; k++) {
        t[k][0] = 0;
        for (uint32_t v = 1; v < 256; v++) t[k][v] = t[k][v & (v - 1)] ^ basis[8 * k + __builtin_ctz(v)];
    }
}

static void shift_init(void)
{
    shift_table_init(shift_long, LANE_LONG);
    shift_table_init(shift_short, LANE_SHORT);
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t s)
{
    return t[0][s & 0xff] ^ t[1][(s >> 8) & 0xff] ^ t[2][(s >> 16) & 0xff] ^ t[3][s >> 24];
}

/* The state after 3 * lane bytes at p, from state crc. */
__attribute__((target("sse4.2"))) static inline uint32_t crc_hw_lanes(uint32_t crc, const uint8_t *p, size_t lane,
                                                                      const uint32_t t[4][256])
{
    uint64_t a = crc, b = 0, c = 0;
    for (size_t i = 0; i < lane; i += 8) {
        a = __builtin_ia32_crc32di(a, rd64(p + i));
        b = __builtin_ia32_crc32di(b, rd64(p + lane + i));
        c = __builtin_ia32_crc32di(c, rd64(p + 2 * lane + i));
    }
    uint32_t ab = shift(t, (uint32_t)a) ^ (uint32_t)b;
    return shift(t, ab) ^ (uint32_t)c;
}

/* Lanes only from three long lanes up: shorter inputs (the metas' 512
 * bytes at every open, small log records) take one chain, so a process
 * that only opens and reads never builds the tables. */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
    if (n >= 3 * LANE_LONG) {
        pthread_once(&shift_once, shift_init);
        for (; n >= 3 * LANE_LONG; p += 3 * LANE_LONG, n -= 3 * LANE_LONG)
            crc = crc_hw_lanes(crc, p, LANE_LONG, shift_long);
        for (; n >= 3 * LANE_SHORT; p += 3 * LANE_SHORT, n -= 3 * LANE_SHORT)
            crc = crc_hw_lanes(crc, p, LANE_SHORT, shift_short);
    }
    return crc_hw_chain(crc, p, n);
}
#endif

uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len)
{
    crc = ~crc;
#if defined(__x86_64__)
    static int hw = -1;
    if (hw < 0) hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (hw) return ~crc_hw(crc, data, len);
#endif
    return ~crc_sw(crc, data, len);
}

uint32_t cs_page_checksum(const uint8_t *page, size_t len)
{
    static const uint8_t zero[4];
    uint32_t c = cs_crc32c(0, zero, 4);
    return cs_crc32c(c, page + 4, len - 4);
}
