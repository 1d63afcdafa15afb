/*
 * fts.c — full-text search: the tokenizer, the postings of an inverted
 * index kept in an ordinary tree, and the search over them.
 *
 * Tokens follow Realm's full-text rules: a token is a run of ASCII letters
 * and digits and Latin-1 letters (U+00C0..U+00FF but for the signs U+00D7
 * and U+00F7), folded to lower case with diacritics removed (é -> e,
 * Ä -> a), except for the letters that are letters of their own in western
 * languages (å æ ð ø þ ß, kept as lower-case UTF-8). Every other character
 * separates tokens. A token keeps at most CS_FTS_TOKEN_MAX bytes: the
 * characters past them are dropped, so a long word and a query for it agree.
 *
 * Index entries: key = token ++ 0x00 ++ object key (u64 big-endian), empty
 * value. Tokens never hold a 0 byte, so the entries of one token are one key
 * range in object-key order (a one-word query is a range scan), and those of
 * every token starting with a prefix are one range too (a prefix query).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Latin-1 U+00C0..U+00FF -> folded byte: < 0x80 an ASCII letter, else the
 * Latin-1 code of a lower-case letter (written back as UTF-8), 0 not a letter. */
static const uint8_t latin1_fold[64] = {
    'a', 'a', 'a', 'a', 'a', 0xe5, 0xe6, 'c', 'e', 'e', 'e', 'e', 'i', 'i', 'i', 'i',
    0xf0, 'n', 'o', 'o', 'o', 'o', 'o', 0, 0xf8, 'u', 'u', 'u', 'u', 'y', 0xfe, 0xdf,
    'a', 'a', 'a', 'a', 'a', 0xe5, 0xe6, 'c', 'e', 'e', 'e', 'e', 'i', 'i', 'i', 'i',
    0xf0, 'n', 'o', 'o', 'o', 'o', 'o', 0, 0xf8, 'u', 'u', 'u', 'u', 'y', 0xfe, 'y',
};

/* The folded form of the character at text[*i] (advancing *i past it) into
 * out[0..2): its byte count, 0 for a separator. */
static size_t fold_char(const uint8_t *text, size_t len, size_t *i, uint8_t out[2])
{
    uint8_t c = text[*i];
    if (c < 0x80) {
        *i += 1;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) { out[0] = c; return 1; }
        if (c >= 'A' && c <= 'Z') { out[0] = (uint8_t)(c + 0x20); return 1; }
        return 0;
    }
    size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    if (n > len - *i) n = len - *i;
    for (size_t k = 1; k < n; k++) {
        if ((text[*i + k] & 0xC0) != 0x80) { n = k; break; } /* broken sequence: skip the lead byte */
    }
    size_t at = *i;
    *i += n;
    if (n != 2) return 0;
    uint32_t u = ((uint32_t)(text[at] & 0x1F) << 6) | (text[at + 1] & 0x3F);
    if (u < 0xC0 || u > 0xFF) return 0; /* not a Latin-1 letter */
    uint8_t f = latin1_fold[u - 0xC0];
    if (f == 0) return 0;
    if (f < 0x80) { out[0] = f; return 1; }
    out[0] = (uint8_t)(0xC0 | (f >> 6));
    out[1] = (uint8_t)(0x80 | (f & 0x3F));
    return 2;
}

int cs_fts_next_token(const uint8_t *text, size_t len, size_t *pos, uint8_t token[CS_FTS_TOKEN_MAX], size_t *token_len)
{
    if (!pos || !token || !token_len || (!text && len)) return cs_fail(CS_EINVAL, "cs_fts_next_token: NULL argument");
    size_t i = *pos, n = 0;
    bool building = false, full = false;
    while (i < len) {
        uint8_t out[2];
        size_t w = fold_char(text, len, &i, out);
        if (w == 0) {
            if (building) break;
            continue;
        }
        building = true;
        if (!full && n + w <= CS_FTS_TOKEN_MAX) {
            memcpy(token + n, out, w);
            n += w;
        } else {
            full = true; /* later characters must not follow a dropped one */
        }
    }
    *pos = i;
    *token_len = n;
    return building ? 1 : 0;
}

/* ---- token sets ---------------------------------------------------------- */

/* The distinct tokens of a text, sorted by bytes. */
typedef struct tok {
    uint8_t n;
    uint8_t b[CS_FTS_TOKEN_MAX];
} tok;
typedef struct tokset {
    tok *t;
    size_t n, cap;
} tokset;

static int tok_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

static int tok_sort_cmp(const void *x, const void *y)
{
    const tok *a = x, *b = y;
    return tok_cmp(a->b, a->n, b->b, b->n);
}

static int tokset_build(tokset *s, const uint8_t *text, size_t len)
{
    memset(s, 0, sizeof *s);
    if (!text) return CS_OK;
    size_t pos = 0, n;
    uint8_t t[CS_FTS_TOKEN_MAX];
    while (cs_fts_next_token(text, len, &pos, t, &n) == 1) {
        if (n == 0) continue;
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 16;
            tok *p = realloc(s->t, cap * sizeof *p);
            if (!p) { free(s->t); return cs_fail(CS_ENOMEM, "full-text index: out of memory"); }
            s->t = p, s->cap = cap;
        }
        s->t[s->n].n = (uint8_t)n;
        memcpy(s->t[s->n++].b, t, n);
    }
    if (s->n < 2) return CS_OK;
    qsort(s->t, s->n, sizeof *s->t, tok_sort_cmp);
    size_t m = 1;
    for (size_t k = 1; k < s->n; k++)
        if (tok_sort_cmp(&s->t[m - 1], &s->t[k]) != 0) s->t[m++] = s->t[k];
    s->n = m;
    return CS_OK;
}

/* key = token ++ 0 ++ object key (BE); returns its size. */
static size_t entry_key(uint8_t *key, const uint8_t *tok, size_t n, uint64_t object)
{
    memcpy(key, tok, n);
    key[n] = 0;
    for (int b = 0; b < 8; b++) key[n + 1 + b] = (uint8_t)(object >> (56 - 8 * b));
    return n + 9;
}

int cs_fts_index_update(cs_txn *txn, cs_tree tree, uint64_t key, const uint8_t *old_text, size_t old_len,
                        const uint8_t *new_text, size_t new_len)
{
    if (!txn || (!old_text && old_len) || (!new_text && new_len)) return cs_fail(CS_EINVAL, "cs_fts_index_update: NULL argument");
    tokset old, now;
    int rc = tokset_build(&old, old_text, old_len);
    if (rc) return rc;
    rc = tokset_build(&now, new_text, new_len);
    if (rc) { free(old.t); return rc; }
    uint8_t entry[CS_FTS_TOKEN_MAX + 9];
    size_t i = 0, j = 0;
    while (rc == CS_OK && (i < old.n || j < now.n)) {
        int c = i == old.n ? 1 : j == now.n ? -1 : tok_sort_cmp(&old.t[i], &now.t[j]);
        if (c < 0) {
            size_t n = entry_key(entry, old.t[i].b, old.t[i].n, key);
            rc = cs_del(txn, tree, (cs_val){entry, n});
            if (rc == CS_NOTFOUND) rc = CS_OK; /* already absent: the result is the same */
            i++;
        } else if (c > 0) {
            size_t n = entry_key(entry, now.t[j].b, now.t[j].n, key);
            rc = cs_put(txn, tree, (cs_val){entry, n}, (cs_val){NULL, 0}, 0);
            j++;
        } else {
            i++, j++;
        }
    }
    free(old.t);
    free(now.t);
    return rc;
}

/* ---- search -------------------------------------------------------------- */

typedef struct keylist {
    uint64_t *k;
    size_t n, cap;
} keylist;

static int keylist_push(keylist *l, uint64_t k)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uint64_t *p = realloc(l->k, cap * sizeof *p);
        if (!p) return cs_fail(CS_ENOMEM, "full-text search: out of memory");
        l->k = p, l->cap = cap;
    }
    l->k[l->n++] = k;
    return CS_OK;
}

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) v = (v << 8) | p[b];
    return v;
}

static int u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void sort_unique(keylist *l)
{
    if (l->n < 2) return;
    qsort(l->k, l->n, sizeof *l->k, u64_cmp);
    size_t m = 0;
    for (size_t k = 0; k < l->n; k++)
        if (m == 0 || l->k[m - 1] != l->k[k]) l->k[m++] = l->k[k];
    l->n = m;
}

/* The objects holding `tok` (prefix: a token starting with it), sorted. */
static int postings(cs_txn *txn, cs_tree tree, const uint8_t *tok, size_t n, bool prefix, keylist *out)
{
    memset(out, 0, sizeof *out);
    cs_cursor *cur;
    int rc = cs_cursor_open(txn, tree, &cur);
    if (rc == CS_NOTFOUND) return CS_OK;
    if (rc) return rc;
    uint8_t seek[CS_FTS_TOKEN_MAX + 1];
    memcpy(seek, tok, n);
    seek[n] = 0;
    size_t want = prefix ? n : n + 1; /* bytes every key of the range starts with */
    cs_val key = {seek, n + 1};
    rc = cs_cursor_get(cur, &key, NULL, CS_SEEK);
    bool done = false;
    enum { BATCH = 256 };
    cs_val keys[BATCH];
    size_t got = 0;
    if (rc == CS_OK) { keys[0] = key; got = 1; }
    while (rc == CS_OK && !done) {
        for (size_t k = 0; k < got && !done; k++) {
            const uint8_t *p = keys[k].data;
            if (keys[k].size < want + 8 || memcmp(p, seek, want) != 0) { done = true; break; }
            if (keys[k].size < 9 || p[keys[k].size - 9] != 0) { rc = cs_fail(CS_ECORRUPT, "full-text index: an entry has no token end"); break; }
            rc = keylist_push(out, be64(p + keys[k].size - 8));
            if (rc) break;
        }
        if (rc || done) break;
        rc = cs_cursor_next_batch(cur, keys, NULL, BATCH, &got);
    }
    cs_cursor_close(cur);
    if (rc == CS_NOTFOUND) rc = CS_OK;
    if (rc) { free(out->k); memset(out, 0, sizeof *out); return rc; }
    if (prefix) sort_unique(out);
    return CS_OK;
}

/* Every object key of `objects` (keys are 8-byte big-endian), sorted. */
static int all_objects(cs_txn *txn, cs_tree objects, keylist *out)
{
    memset(out, 0, sizeof *out);
    cs_cursor *cur;
    int rc = cs_cursor_open(txn, objects, &cur);
    if (rc == CS_NOTFOUND) return CS_OK;
    if (rc) return rc;
    enum { BATCH = 256 };
    cs_val keys[BATCH];
    size_t got;
    while ((rc = cs_cursor_next_batch(cur, keys, NULL, BATCH, &got)) == CS_OK) {
        for (size_t k = 0; k < got && rc == CS_OK; k++)
            if (keys[k].size == 8) rc = keylist_push(out, be64(keys[k].data));
        if (rc) break;
    }
    cs_cursor_close(cur);
    if (rc == CS_NOTFOUND) rc = CS_OK;
    if (rc) { free(out->k); memset(out, 0, sizeof *out); }
    return rc;
}

/* a := a AND b (keep) or a AND NOT b (!keep); both sorted. */
static void merge(keylist *a, const keylist *b, bool keep)
{
    size_t i = 0, j = 0, m = 0;
    while (i < a->n) {
        while (j < b->n && b->k[j] < a->k[i]) j++;
        bool in_b = j < b->n && b->k[j] == a->k[i];
        if (in_b == keep) a->k[m++] = a->k[i];
        i++;
    }
    a->n = m;
}

typedef struct term {
    uint8_t tok[CS_FTS_TOKEN_MAX];
    size_t n;
    bool prefix, exclude;
} term;

/* Splits the query into terms; CS_EINVAL with a detail saying what to fix. */
static int parse_query(const char *q, size_t len, term **terms, size_t *nterms)
{
    *terms = NULL;
    *nterms = 0;
    size_t cap = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (q[i] == ' ' || (q[i] >= '\t' && q[i] <= '\r'))) i++;
        if (i == len) break;
        size_t start = i;
        while (i < len && !(q[i] == ' ' || (q[i] >= '\t' && q[i] <= '\r'))) i++;
        term t = {.exclude = q[start] == '-'};
        size_t ws = start + (t.exclude ? 1 : 0);
        t.prefix = i > ws && q[i - 1] == '*';
        const uint8_t *word = (const uint8_t *)q + ws;
        size_t wlen = i - ws, pos = 0, extra;
        uint8_t rest[CS_FTS_TOKEN_MAX];
        int w = cs_fts_next_token(word, wlen, &pos, t.tok, &t.n);
        if (w != 1 || t.n == 0) {
            free(*terms);
            return cs_fail(CS_EINVAL, "the search word '%.*s' has no letter or digit", (int)(i - start), q + start);
        }
        if (cs_fts_next_token(word, wlen, &pos, rest, &extra) == 1) {
            free(*terms);
            return cs_fail(CS_EINVAL, "the search word '%.*s' holds a character that is not a letter or digit; "
                                      "search for its parts as separate words", (int)(i - start), q + start);
        }
        for (size_t k = 0; k < *nterms; k++) {
            term *o = &(*terms)[k];
            if (o->exclude != t.exclude && o->prefix == t.prefix && tok_cmp(o->tok, o->n, t.tok, t.n) == 0) {
                free(*terms);
                return cs_fail(CS_EINVAL, "the word '%.*s' is both searched for and excluded", (int)t.n, (const char *)t.tok);
            }
        }
        if (*nterms == cap) {
            cap = cap ? cap * 2 : 8;
            term *p = realloc(*terms, cap * sizeof *p);
            if (!p) { free(*terms); return cs_fail(CS_ENOMEM, "full-text search: out of memory"); }
            *terms = p;
        }
        (*terms)[(*nterms)++] = t;
    }
    if (*nterms == 0) return cs_fail(CS_EINVAL, "the search text has no words");
    return CS_OK;
}

int cs_fts_search(cs_txn *txn, cs_tree index, cs_tree objects, const char *query, size_t len, uint64_t **keys, size_t *n)
{
    if (keys) *keys = NULL;
    if (n) *n = 0;
    if (!txn || !keys || !n || (!query && len)) return cs_fail(CS_EINVAL, "cs_fts_search: NULL argument");
    term *terms;
    size_t nterms;
    int rc = parse_query(query, len, &terms, &nterms);
    if (rc) return rc;
    keylist acc = {0};
    bool have = false;
    /* Includes first (each narrows the result), then excludes. */
    for (int pass = 0; pass < 2 && rc == CS_OK; pass++) {
        for (size_t t = 0; t < nterms && rc == CS_OK; t++) {
            if (terms[t].exclude != (pass == 1)) continue;
            if (have && acc.n == 0) break;
            if (pass == 1 && !have) {
                rc = all_objects(txn, objects, &acc);
                have = true;
                if (rc) break;
            }
            keylist p;
            rc = postings(txn, index, terms[t].tok, terms[t].n, terms[t].prefix, &p);
            if (rc) break;
            if (!have) {
                acc = p;
                have = true;
                continue;
            }
            merge(&acc, &p, pass == 0);
            free(p.k);
        }
    }
    free(terms);
    if (rc) { free(acc.k); return rc; }
    *keys = acc.k;
    *n = acc.n;
    return CS_OK;
}

/* Whether the sorted token set holds tok (prefix: a token starting with it). */
static bool tokset_has(const tokset *s, const uint8_t *t, size_t n, bool prefix)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) { /* first token >= t */
        size_t mid = lo + (hi - lo) / 2;
        if (tok_cmp(s->t[mid].b, s->t[mid].n, t, n) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == s->n) return false;
    if (prefix) return s->t[lo].n >= n && memcmp(s->t[lo].b, t, n) == 0;
    return tok_cmp(s->t[lo].b, s->t[lo].n, t, n) == 0;
}

int cs_fts_match(const char *query, size_t qlen, const uint8_t *text, size_t len, int *match)
{
    if (match) *match = 0;
    if (!match || (!query && qlen) || (!text && len)) return cs_fail(CS_EINVAL, "cs_fts_match: NULL argument");
    term *terms;
    size_t nterms;
    int rc = parse_query(query, qlen, &terms, &nterms);
    if (rc) return rc;
    tokset s;
    rc = tokset_build(&s, text ? text : (const uint8_t *)"", len);
    if (rc) { free(terms); return rc; }
    bool ok = true;
    for (size_t t = 0; t < nterms && ok; t++)
        ok = tokset_has(&s, terms[t].tok, terms[t].n, terms[t].prefix) != terms[t].exclude;
    free(terms);
    free(s.t);
    *match = ok;
    return CS_OK;
}
