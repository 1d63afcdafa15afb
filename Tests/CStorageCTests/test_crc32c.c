/* test_crc32c.c — CRC-32C as page checksums use it: the known check value,
 * every length from 0 to past three long lanes at every alignment of a
 * word, and a CRC continued across split points, each against a bitwise
 * reference (the hardware path splits long inputs into interleaved lanes
 * and joins them; a wrong join shows here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* crc32c.c (the same declaration as internal.h's). */
uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len);

static uint32_t reference(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
    }
    return ~crc;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint8_t next_byte(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint8_t)rng;
}

enum { MAX_LEN = 3 * 1024 * 3 + 3 * 128 + 64 };

static void test_check_value(void)
{
    CHECK_EQ(cs_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(cs_crc32c(0, "", 0), 0u);
}

static void test_every_length_and_alignment(void)
{
    uint8_t *buf = malloc(MAX_LEN + 8);
    REQUIRE(buf != NULL);
    for (size_t i = 0; i < MAX_LEN + 8; i++) buf[i] = next_byte();
    unsigned bad = 0;
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; n <= MAX_LEN; n++)
            if (cs_crc32c(0, buf + off, n) != reference(0, buf + off, n)) bad++;
    CHECK_EQ(bad, 0u);
    /* Zero runs and all-ones runs: lanes whose state stays 0 or saturates. */
    memset(buf, 0, MAX_LEN);
    CHECK_EQ(cs_crc32c(0, buf, MAX_LEN), reference(0, buf, MAX_LEN));
    memset(buf, 0xff, MAX_LEN);
    CHECK_EQ(cs_crc32c(7, buf, MAX_LEN), reference(7, buf, MAX_LEN));
    free(buf);
}

static void test_continued(void)
{
    uint8_t *buf = malloc(MAX_LEN);
    REQUIRE(buf != NULL);
    for (size_t i = 0; i < MAX_LEN; i++) buf[i] = next_byte();
    uint32_t whole = reference(0, buf, MAX_LEN);
    unsigned bad = 0;
    for (int round = 0; round < 2000; round++) {
        size_t cut = (size_t)(next_byte() | next_byte() << 8) % (MAX_LEN + 1);
        uint32_t c = cs_crc32c(0, buf, cut);
        if (cs_crc32c(c, buf + cut, MAX_LEN - cut) != whole) bad++;
    }
    CHECK_EQ(bad, 0u);
    free(buf);
}

int main(void)
{
    test_check_value();
    test_every_length_and_alignment();
    test_continued();
    printf("crc32c: lengths 0..%d at 8 alignments against a bitwise reference\n", MAX_LEN);
    return test_report();
}
