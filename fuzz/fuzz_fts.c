/*
 * fuzz_fts.c — the full-text tokenizer and query matcher (fts.c) on
 * arbitrary bytes. The input's first byte splits it into a query and a
 * text. Checked for every input, beside ASan/UBSan:
 *   - every token is 1..CS_FTS_TOKEN_MAX bytes of lower-case ASCII letters,
 *     digits and 2-byte UTF-8 Latin-1 letters, and never holds a 0 byte
 *     (index keys end the token with one);
 *   - folding is idempotent: a token tokenizes to itself;
 *   - tokenizing never reads past the text and always ends;
 *   - cs_fts_match accepts or refuses the query whatever the text, and a
 *     text made of the query's own words satisfies a query without
 *     exclusions.
 */
#include <stdbool.h>

#include "cstorage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_fts: %s\n", what);
    abort();
}

static void check_token(const uint8_t *t, size_t n)
{
    if (n == 0 || n > CS_FTS_TOKEN_MAX) fail("token length out of range");
    for (size_t i = 0; i < n; i++) {
        uint8_t c = t[i];
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) continue;
        if (c == 0xC3 && i + 1 < n && t[i + 1] >= 0x80 && t[i + 1] <= 0xBF) { i++; continue; }
        fail("a token byte that folding never writes");
    }
    size_t pos = 0, m;
    uint8_t again[CS_FTS_TOKEN_MAX];
    if (cs_fts_next_token(t, n, &pos, again, &m) != 1 || m != n || memcmp(again, t, n) != 0 || pos != n) {
        fail("folding is not idempotent");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    size_t split = data[0] % 32 < size - 1 ? data[0] % 32 : size - 1;
    const char *query = (const char *)data + 1;
    const uint8_t *text = data + 1 + split;
    size_t text_len = size - 1 - split;

    size_t pos = 0, n, count = 0;
    uint8_t t[CS_FTS_TOKEN_MAX];
    while (cs_fts_next_token(text, text_len, &pos, t, &n) == 1) {
        check_token(t, n);
        if (pos > text_len || ++count > text_len) fail("tokenizer ran past the text");
    }

    int match = -1;
    int rc = cs_fts_match(query, split, text, text_len, &match);
    if (rc != CS_OK && rc != CS_EINVAL) fail("cs_fts_match: unexpected error");
    if (rc == CS_OK && match != 0 && match != 1) fail("cs_fts_match: match not set");
    if (rc != CS_OK) return 0;
    /* The query's own words, prefixes and all, as the text. */
    bool excludes = false;
    for (size_t i = 0; i < split; i++)
        if (query[i] == '-' && (i == 0 || query[i - 1] == ' ' || (query[i - 1] >= '\t' && query[i - 1] <= '\r'))) excludes = true;
    if (!excludes) {
        if (cs_fts_match(query, split, (const uint8_t *)query, split, &match) != CS_OK || match != 1) {
            fail("a text of the query's words does not match it");
        }
    }
    return 0;
}
