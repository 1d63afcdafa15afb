/* test_fts.c — full-text search (fts.c): the tokenizer's rules (case and
 * diacritic folding, separators, the token length limit, invalid UTF-8),
 * index maintenance by cs_fts_index_update, cs_fts_search's query rules
 * (all words, -exclusions, prefixes, refused queries), and a randomized
 * comparison of cs_fts_search and cs_fts_match with a naive evaluation over
 * the same texts. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* The tokens of text joined by '|'. */
static const char *tokens(const char *text) {
    static char out[4096];
    size_t pos = 0, n, at = 0, len = strlen(text);
    uint8_t t[CS_FTS_TOKEN_MAX];
    out[0] = 0;
    while (cs_fts_next_token((const uint8_t *)text, len, &pos, t, &n) == 1) {
        if (at) out[at++] = '|';
        memcpy(out + at, t, n);
        at += n;
        out[at] = 0;
    }
    return out;
}

#define CHECK_TOKENS(text, want)                                              \
    do {                                                                      \
        const char *got_ = tokens(text);                                      \
        if (strcmp(got_, want) != 0) {                                        \
            test_fail_(__FILE__, __LINE__, "tokens(%s) = '%s', want '%s'", text, got_, want); \
        }                                                                     \
    } while (0)

static void tokenizer(void) {
    CHECK_TOKENS("", "");
    CHECK_TOKENS(" This is a test, with  spaces!", "this|is|a|test|with|spaces");
    CHECK_TOKENS("object-oriented C++ 1990s", "object|oriented|c|1990s");
    CHECK_TOKENS("Crème BRÛLÉE naïve Ångström", "creme|brulee|naive|\xc3\xa5ngstrom");
    CHECK_TOKENS("Ål, ø og 你好世界Æbler", "\xc3\xa5l|\xc3\xb8|og|\xc3\xa6" "bler");
    CHECK_TOKENS("Großarl STRASSE", "gro\xc3\x9f" "arl|strasse");
    CHECK_TOKENS("3×4÷2 = 6", "3|4|2|6");          /* × and ÷ are not letters */
    CHECK_TOKENS("ÿý Ýes ÑÇ", "yy|yes|nc");
    CHECK_TOKENS("emoji😀split", "emoji|split");     /* 4-byte characters separate */
    CHECK_TOKENS("aŸbāc\xdf\xbf" "d", "a|b|c|d");     /* so do 2-byte ones past Latin-1 */
    CHECK_TOKENS("a\xff" "b\xc3" "c\xe2\x82", "a|b|c"); /* invalid UTF-8 separates */
    CHECK_TOKENS("tab\there\nnew_line", "tab|here|new|line");
    /* 70 letters: the token keeps 64 bytes; a 2-byte letter that does not fit
     * ends the token even if ASCII letters follow. */
    char lng[128];
    memset(lng, 'x', 70);
    lng[70] = 0;
    char want[65];
    memset(want, 'x', 64);
    want[64] = 0;
    CHECK_TOKENS(lng, want);
    memset(lng, 'x', 63);
    strcpy(lng + 63, "\xc3\xa6yz q");
    memset(want, 'x', 63);
    want[63] = 0;
    char want2[80];
    snprintf(want2, sizeof want2, "%s|q", want);
    CHECK_TOKENS(lng, want2);
    size_t pos = 0, n;
    uint8_t t[CS_FTS_TOKEN_MAX];
    CHECK_RC(cs_fts_next_token(NULL, 3, &pos, t, &n), CS_EINVAL);
    CHECK_RC(cs_fts_next_token((const uint8_t *)"a", 1, NULL, t, &n), CS_EINVAL);
    CHECK_EQ(cs_fts_next_token(NULL, 0, &pos, t, &n), 0);
}

/* Searches and returns the keys as "1,2,3", or "E" for CS_EINVAL. */
static const char *search(cs_env *env, cs_tree idx, cs_tree objs, const char *q) {
    static char out[4096];
    cs_txn *txn;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &txn));
    uint64_t *keys;
    size_t n;
    int rc = cs_fts_search(txn, idx, objs, q, strlen(q), &keys, &n);
    cs_txn_abort(txn);
    if (rc == CS_EINVAL) return "E";
    CHECK_OK(rc);
    size_t at = 0;
    out[0] = 0;
    for (size_t k = 0; k < n; k++) at += (size_t)snprintf(out + at, sizeof out - at, k ? ",%llu" : "%llu", (unsigned long long)keys[k]);
    free(keys);
    return out;
}

#define CHECK_SEARCH(q, want)                                                 \
    do {                                                                      \
        const char *got_ = search(env, idx, objs, q);                         \
        if (strcmp(got_, want) != 0) test_fail_(__FILE__, __LINE__, "search(%s) = '%s', want '%s'", q, got_, want); \
    } while (0)

static void put_doc(cs_env *env, cs_tree idx, cs_tree objs, uint64_t key, const char *old, const char *now) {
    cs_txn *txn;
    REQUIRE_OK(cs_txn_begin(env, 0, &txn));
    uint8_t k[8];
    for (int b = 0; b < 8; b++) k[b] = (uint8_t)(key >> (56 - 8 * b));
    if (now) CHECK_OK(cs_put(txn, objs, V(k, 8), V(NULL, 0), 0));
    else CHECK(cs_del(txn, objs, V(k, 8)) != CS_ECORRUPT); /* CS_NOTFOUND: it never was */
    CHECK_OK(cs_fts_index_update(txn, idx, key, (const uint8_t *)old, old ? strlen(old) : 0,
                                 (const uint8_t *)now, now ? strlen(now) : 0));
    CHECK_OK(cs_txn_commit(txn));
}

static void queries(void) {
    tpath p = test_path("queries.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree idx = test_open_tree(env, "fts"), objs = test_open_tree(env, "objs");
    static const char *docs[] = {
        "An object database is a database management system",
        "Object databases are different from relational databases",
        "The ORION project had more published papers",
        "object-oriented programming in the 1990s with C++",
        "Manage your managers: management for the rest of us",
        "Abby Abba Ada Bellamy Blaire",
        "Abigail Abba Barbara Bella Blake",
        "one two three",
        "one three",
        "one",
    };
    for (uint64_t k = 0; k < 10; k++) put_doc(env, idx, objs, k + 1, NULL, docs[k]);
    CHECK_SEARCH("object", "1,2,4");
    CHECK_SEARCH("OBJECT database", "1");
    CHECK_SEARCH("databases", "2");
    CHECK_SEARCH("1990s c", "4");
    CHECK_SEARCH("three one", "8,9");
    CHECK_SEARCH("one -three", "10");
    CHECK_SEARCH("-three one", "10");
    CHECK_SEARCH("-one", "1,2,3,4,5,6,7");
    CHECK_SEARCH("-one -object -abba", "3,5");
    CHECK_SEARCH("manage*", "1,5");
    CHECK_SEARCH("manage* -managers", "1");
    CHECK_SEARCH("ab*", "6,7");
    CHECK_SEARCH("bel*", "6,7");
    CHECK_SEARCH("bel* abba -ada", "7");
    CHECK_SEARCH("abbe*", "");
    CHECK_SEARCH("-ab* one", "8,9,10");
    CHECK_SEARCH("nothing", "");
    CHECK_SEARCH("C# -obj*", "");
    CHECK_SEARCH("  \tone\n two  ", "8");
    /* Refused: no word, a word of no letters, a separator inside a word, the
     * same word searched and excluded. */
    CHECK_SEARCH("", "E");
    CHECK_SEARCH("   ", "E");
    CHECK_SEARCH("- one", "E");
    CHECK_SEARCH("#", "E");
    CHECK_SEARCH("object-oriented", "E");
    CHECK_SEARCH("a*b", "E");
    CHECK_SEARCH("one -one", "E");
    CHECK_SEARCH("C# -c++", "E");
    /* Updates move the entries; deletes remove them. */
    put_doc(env, idx, objs, 1, docs[0], "A relational store");
    CHECK_SEARCH("object", "2,4");
    CHECK_SEARCH("relational", "1,2");
    put_doc(env, idx, objs, 2, docs[1], NULL);
    CHECK_SEARCH("relational", "1");
    CHECK_SEARCH("-one", "1,3,4,5,6,7");
    for (uint64_t k = 1; k <= 10; k++) if (k != 2) put_doc(env, idx, objs, k, k == 1 ? "A relational store" : docs[k - 1], NULL);
    uint64_t count = 1;
    cs_txn *txn;
    REQUIRE_OK(cs_txn_begin(env, CS_TXN_RDONLY, &txn));
    CHECK_OK(cs_count(txn, idx, &count));
    uint64_t *keys = (uint64_t *)1;
    size_t n = 1;
    CHECK_RC(cs_fts_search(txn, idx, objs, NULL, 0, &keys, &n), CS_EINVAL);
    CHECK(keys == NULL && n == 0);
    CHECK_RC(cs_fts_search(txn, idx, objs, "x", 1, NULL, &n), CS_EINVAL);
    int m;
    CHECK_RC(cs_fts_match("a-b", 3, (const uint8_t *)"a", 1, &m), CS_EINVAL);
    CHECK_OK(cs_fts_match("b* -c", 5, NULL, 0, &m));
    CHECK_EQ(m, 0);
    CHECK_OK(cs_fts_match("-c", 2, NULL, 0, &m));
    CHECK_EQ(m, 1);
    cs_txn_abort(txn);
    CHECK_EQ(count, 0);
    CHECK_OK(cs_env_close(env));
}

/* Random texts over a small vocabulary; random queries of 1-3 words with
 * prefixes and exclusions, compared with a naive evaluation. */
static const char *vocab[] = {"alpha", "alps", "Beta", "bet", "gamma", "gam", "Délta", "delta", "eps", "zeta9"};
#define NV 10
#define ND 300

static bool doc_has(const char *doc, const char *word, bool prefix) {
    char w[CS_FTS_TOKEN_MAX + 1];
    size_t wn = strlen(word);
    size_t pos = 0, n, len = strlen(doc);
    uint8_t t[CS_FTS_TOKEN_MAX];
    memcpy(w, word, wn);
    while (cs_fts_next_token((const uint8_t *)doc, len, &pos, t, &n) == 1) {
        if (prefix ? (n >= wn && memcmp(t, w, wn) == 0) : (n == wn && memcmp(t, w, wn) == 0)) return true;
    }
    return false;
}

static void randomized(void) {
    tpath p = test_path("random.db");
    cs_env *env;
    REQUIRE_OK(test_open(p.s, 0, &env));
    cs_tree idx = test_open_tree(env, "fts"), objs = test_open_tree(env, "objs");
    static char docs[ND][256];
    static bool live[ND];
    uint64_t seed = 18;
    for (int round = 0; round < 3; round++) {
        for (int d = 0; d < ND; d++) {
            if (round > 0 && rng_below(&seed, 3) != 0) continue;
            bool del = round > 0 && rng_below(&seed, 4) == 0;
            char text[256] = "";
            size_t words = rng_below(&seed, 8);
            for (size_t w = 0; w < words; w++) {
                strcat(text, vocab[rng_below(&seed, NV)]);
                strcat(text, rng_below(&seed, 2) ? " " : ", ");
            }
            put_doc(env, idx, objs, (uint64_t)d, live[d] ? docs[d] : NULL, del ? NULL : text);
            live[d] = !del;
            strcpy(docs[d], del ? "" : text);
        }
        for (int q = 0; q < 200; q++) {
            static const char *words[] = {"alpha", "alp", "beta", "bet", "gam", "delta", "eps", "zeta9", "ze", "x"};
            char query[128] = "";
            const char *w[3];
            bool pre[3], ex[3];
            size_t nw = 1 + rng_below(&seed, 3);
            for (size_t k = 0; k < nw; k++) {
                w[k] = words[rng_below(&seed, 10)];
                pre[k] = rng_below(&seed, 3) == 0;
                ex[k] = rng_below(&seed, 3) == 0;
                for (size_t j = 0; j < k; j++) if (w[j] == w[k] && pre[j] == pre[k]) ex[k] = ex[j];
                snprintf(query + strlen(query), sizeof query - strlen(query), "%s%s%s ", ex[k] ? "-" : "", w[k], pre[k] ? "*" : "");
            }
            char want[4096] = "";
            size_t at = 0;
            for (int d = 0; d < ND; d++) {
                if (!live[d]) continue;
                bool ok = true;
                for (size_t k = 0; k < nw && ok; k++) ok = doc_has(docs[d], w[k], pre[k]) != ex[k];
                if (ok) at += (size_t)snprintf(want + at, sizeof want - at, at ? ",%d" : "%d", d);
            }
            CHECK_SEARCH(query, want);
            /* cs_fts_match agrees document by document. */
            for (int d = 0; d < ND; d++) {
                if (!live[d]) continue;
                int m = -1;
                CHECK_OK(cs_fts_match(query, strlen(query), (const uint8_t *)docs[d], strlen(docs[d]), &m));
                bool ok = true;
                for (size_t k = 0; k < nw && ok; k++) ok = doc_has(docs[d], w[k], pre[k]) != ex[k];
                CHECK_EQ(m, ok ? 1 : 0);
            }
        }
    }
    CHECK_OK(cs_env_close(env));
}

int main(void) {
    tokenizer();
    queries();
    randomized();
    return test_report();
}
