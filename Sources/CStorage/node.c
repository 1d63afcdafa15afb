/*
 * node.c — slotted branch and leaf pages (format.h, BRANCH AND LEAF PAGES,
 * COMPACT LEAF).
 *
 * Leaf cells travel outside a page in the type-3 form (whole key): btree.c
 * merges those, and node_insert/node_rebuild encode them for a compact leaf
 * (prefix stripped, varint lengths), so the tree code never sees the
 * compact encoding; leaf_decode turns a page back into them. The insert
 * path's splits and prefix changes, the writer's most frequent rebuilds,
 * instead move entries as leaf_parts that point into the page
 * (leaf6_part, leaf_write): one encoding pass, no decoding.
 *
 * Every accessor validates offsets against the page before reading, so a
 * damaged page yields CS_ECORRUPT instead of a wild read: the cost is a few
 * predictable compares per cell, cheaper than checksumming on every read.
 */
#include "internal.h"

uint32_t node_max_cell(uint32_t psize) { return (psize - PAGE_HDR) / 3 - 2; }

/* A leaf cell encoded for a compact leaf: at most max_cell + 1 (the value
 * word's varint may take 5 bytes where the type-3 header has 4). */
#define ENC_MAX (CS_MAX_PAGE_SIZE / 3 + 16)

int node_bad_cell(const uint8_t *pg, unsigned i)
{
    return cs_fail(CS_ECORRUPT, "page %llu: cell %u out of bounds", (unsigned long long)PH(pg)->pgno, i);
}

int node_cell_size(const uint8_t *pg, uint32_t psize, unsigned i, uint32_t *size)
{
    uint32_t off = node_slot(pg, i);
    uint32_t s;
    if (node_is_compact(pg)) {
        leaf6_cell c;
        if (!leaf6_parse(pg, psize, i, &c)) return node_bad_cell(pg, i);
        *size = c.size;
        return CS_OK;
    }
    if (node_is_leaf(pg)) {
        if (off < PAGE_HDR || off + LEAF_CELL_HDR > psize) return node_bad_cell(pg, i);
        uint32_t vl = rd32(pg + off + 2);
        s = LEAF_CELL_HDR + rd16(pg + off) + ((vl & VLEN_OVERFLOW) ? OVERFLOW_REF : vl);
    } else {
        if (off < PAGE_HDR || off + BRANCH_CELL_HDR > psize) return node_bad_cell(pg, i);
        s = BRANCH_CELL_HDR + rd16(pg + off + 16);
    }
    if (off + s > psize) return node_bad_cell(pg, i);
    *size = s;
    return CS_OK;
}

int leaf_value(const uint8_t *pg, uint32_t psize, unsigned i, const uint8_t **v, uint32_t *vlen,
               bool *ovf, uint64_t *ovf_pgno)
{
    if (node_is_compact(pg)) {
        leaf6_cell c;
        if (!leaf6_parse(pg, psize, i, &c)) return node_bad_cell(pg, i);
        *ovf = c.vw & 1;
        *vlen = c.vw >> 1;
        *v = c.v;
        if (*ovf) *ovf_pgno = rd64(c.v);
        return CS_OK;
    }
    uint32_t off = node_slot(pg, i);
    if (off < PAGE_HDR || off + LEAF_CELL_HDR > psize) return node_bad_cell(pg, i);
    uint32_t kl = rd16(pg + off), vl = rd32(pg + off + 2);
    const uint8_t *p = pg + off + LEAF_CELL_HDR + kl;
    *ovf = (vl & VLEN_OVERFLOW) != 0;
    *vlen = vl & ~VLEN_OVERFLOW;
    if (*ovf) {
        if (p + OVERFLOW_REF > pg + psize) return node_bad_cell(pg, i);
        *ovf_pgno = rd64(p);
        *v = p;
    } else {
        if (p + *vlen > pg + psize) return node_bad_cell(pg, i);
        *v = p;
    }
    return CS_OK;
}

int node_leaf_key(const uint8_t *pg, uint32_t psize, unsigned i, uint8_t *buf, cs_key *k)
{
    if (!node_is_compact(pg)) return node_cell_key(pg, psize, true, i, k);
    leaf6_cell c;
    uint32_t plen = node_prefix_len(pg);
    if (!leaf6_parse(pg, psize, i, &c) || plen + c.sl > CS_MAX_KEY) return node_bad_cell(pg, i);
    memcpy(buf, node_prefix(pg, psize), plen);
    memcpy(buf + plen, c.sfx, c.sl);
    k->p = buf;
    k->len = plen + c.sl;
    return CS_OK;
}

/* A probe's cell is usually a cache miss, and the next probe depends on it.
 * Ask for the cells of both possible next probes now, so the misses overlap
 * instead of queueing (slots sit in the first lines, which are warm). */
static inline void prefetch_probes(const uint8_t *pg, unsigned lo, unsigned mid, unsigned hi)
{
    unsigned a = (lo + mid) / 2, b = (mid + 1 + hi) / 2;
    if (a < mid) __builtin_prefetch(pg + node_slot(pg, a));
    if (b > mid && b < hi) __builtin_prefetch(pg + node_slot(pg, b));
}

/* Length of the common prefix of two keys. */
static inline __attribute__((always_inline)) uint32_t common_prefix(const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl)
{
    uint32_t n = al < bl ? al : bl, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = __builtin_bswap64(rd64(a + i)) ^ __builtin_bswap64(rd64(b + i));
        if (x) return i + (uint32_t)(__builtin_clzll(x) >> 3);
    }
    /* The rest as the word ending at n (its leading bytes were equal). */
    if (i < n && n >= 8) {
        uint64_t x = __builtin_bswap64(rd64(a + n - 8)) ^ __builtin_bswap64(rd64(b + n - 8));
        return x ? n - 8 + (uint32_t)(__builtin_clzll(x) >> 3) : n;
    }
    while (i < n && a[i] == b[i]) i++;
    return i;
}

/* Bytes at..at+7 of a key as a big-endian number, zero past its end. */
static inline __attribute__((always_inline)) uint64_t key_word(const uint8_t *k, uint32_t kl, uint32_t at)
{
    if (at + 8 <= kl) return __builtin_bswap64(rd64(k + at));
    if (at >= kl) return 0;
    /* The key's last 8 bytes, shifted so that byte `at` leads. */
    if (kl >= 8) return __builtin_bswap64(rd64(k + kl - 8)) << (8 * (at + 8 - kl));
    uint64_t w = 0;
    for (uint32_t i = at; i < at + 8; i++) w = w << 8 | (i < kl ? k[i] : 0);
    return w;
}

/* Nodes at least this big start with an interpolation guess. */
enum { INTERPOLATE_MIN = 16 };

/* Text (names, zero-padded decimal numbers) uses few of the 256 byte
 * values and spreads over them unevenly ('45' < '4x' < '46'), so reading it
 * as a number guesses badly and the wasted probes make the search slower
 * than bisection. These tests keep interpolation to binary keys (big-endian
 * integers: object keys, encoded int primary keys and index entries). */
static inline bool printable_byte(uint64_t w, unsigned i)
{
    uint8_t b = (uint8_t)(w >> (56 - 8 * i));
    return b >= 0x20 && b <= 0x7e;
}

/* Both bounds' windows start with two printable bytes. */
static inline bool textual_window(uint64_t a, uint64_t b)
{
    return printable_byte(a, 0) && printable_byte(a, 1) && printable_byte(b, 0) && printable_byte(b, 1);
}

/* Zero-padded decimal numbers and timestamps: their last 8 bytes are
 * digits. Shorter numbers in text (`name123`) are left to bisection. */
bool key_ends_in_digits(const uint8_t *k, uint32_t kl)
{
    if (kl < 8) return false;
    /* Each byte 0x30..0x39: high nibble 3, and adding 6 does not carry. */
    uint64_t w = rd64(k + kl - 8), hi = 0xf0f0f0f0f0f0f0f0ull, three = 0x3030303030303030ull;
    return (w & hi) == three && ((w + 0x0606060606060606ull) & hi) == three;
}

/* Both bounds' windows start with two ASCII digits. */
static inline bool decimal_window(uint64_t a, uint64_t b)
{
    return (uint8_t)((a >> 56) - '0') < 10 && (uint8_t)((a >> 48) - '0') < 10 && (uint8_t)((b >> 56) - '0') < 10 &&
           (uint8_t)((b >> 48) - '0') < 10;
}

/* A window as an 8-digit decimal number, each byte clamped to '0'..'9'
 * (bytes past a key's end are 0, so a short key reads as zero-padded). On
 * zero-padded decimal keys a guess from it is as good as on big-endian
 * integers. The clamp can reorder keys with other bytes among the digits
 * ("/9" < "05", read 09 > 05), so the bounds are checked again after it. */
static inline __attribute__((always_inline)) uint64_t decimal_value(uint64_t w)
{
    const uint64_t L = 0x0101010101010101ull, H = 0x8080808080808080ull, B = 0x00ff00ff00ff00ffull,
                   W = 0x0000ffff0000ffffull;
    /* Per byte, exactly: the high bit of ge(n) says byte >= n (n <= 0x80). */
#define GE(n) ((w | ((w & ~H) + (0x80 - (n)) * L)) & H)
    uint64_t lo = (~GE('0') & H) >> 7, hi = GE('9' + 1) >> 7;
#undef GE
    w = (w & ~(lo * 0xff) & ~(hi * 0xff)) | lo * '0' | hi * '9';
    w -= '0' * L;
    /* Digit pairs, then fours, then the eight (the first digit is the top byte). */
    w = ((w >> 8) & B) * 10 + (w & B);
    w = ((w >> 16) & W) * 100 + (w & W);
    return (w >> 32) * 10000 + (w & 0xffffffffull);
}

/* Where key k would sit among `span` slots after `base` if keys were spread
 * evenly between the bounds fk and lk (the 8 bytes after their common
 * prefix read as numbers: binary, or decimal digits); false when that says
 * nothing (k outside the bounds, equal bounds, text other than digits). */
static inline __attribute__((always_inline)) bool interp_guess(const uint8_t *fk, uint32_t fl, const uint8_t *lk,
                                                              uint32_t ll, const uint8_t *k, uint32_t kl, unsigned base,
                                                              unsigned span, unsigned *g)
{
    uint32_t p = common_prefix(fk, fl, lk, ll);
    uint64_t a = key_word(fk, fl, p), b = key_word(lk, ll, p), x = key_word(k, kl, p);
    if (!(b > a && x >= a && x <= b)) return false;
    if (textual_window(a, b)) {
        if (!decimal_window(a, b)) return false;
        a = decimal_value(a), b = decimal_value(b), x = decimal_value(x);
        if (!(b > a && x >= a && x <= b)) return false;
    }
    *g = base + (unsigned)((double)(x - a) / (double)(b - a) * (double)span);
    return true;
}

/* The lines reading entry g of leaf pg (n entries) wants: its slot and,
 * for a leaf filled by appends (the append hints keep it so: cells from the
 * page end down, in slot order, about equally sized), its cell. */
static inline void prefetch_leaf_entry(const uint8_t *pg, uint32_t psize, unsigned n, unsigned g)
{
    /* n comes from the parent's count: a damaged one must not make an
     * address outside the page (then (g + 1) * cell < psize below). */
    if (g >= n || PAGE_HDR + 2 * (uint64_t)n >= psize) return;
    __builtin_prefetch(pg + PAGE_HDR + 2 * g);
    uint32_t cell = (psize - PAGE_HDR - 2 * n) / n;
    uint64_t at = psize - (uint64_t)(g + 1) * cell;
    __builtin_prefetch(pg + at);
    if (at + 64 < psize) __builtin_prefetch(pg + at + 64);
}

int node_prefetch_leaf(const uint8_t *pg, uint32_t psize, unsigned n, const uint8_t *k, uint32_t kl, const cs_key *fence)
{
    __builtin_prefetch(pg);
    /* A compact leaf's prefix (its last bytes) is compared before any cell. */
    __builtin_prefetch(pg + psize - 64);
    unsigned g;
    if (n < INTERPOLATE_MIN || !fence || !fence[0].p || !fence[1].p ||
        !interp_guess(fence[0].p, fence[0].len, fence[1].p, fence[1].len, k, kl, 0, n, &g))
        return -1;
    if (g >= n) g = n - 1;
    prefetch_leaf_entry(pg, psize, n, g);
    return (int)g;
}

void node_prefetch_used(const uint8_t *pg, uint32_t psize)
{
    const cs_page_hdr *h = PH(pg);
    uint32_t slots_end = PAGE_HDR + 2u * h->nkeys;
    for (uint32_t off = 64; off < slots_end; off += 64) __builtin_prefetch(pg + off);
    for (uint32_t off = h->upper & ~63u; off < psize; off += 64) __builtin_prefetch(pg + off);
}

void node_prefetch_leaf_entry(const uint8_t *pg, uint32_t psize, unsigned n, unsigned idx)
{
    __builtin_prefetch(pg);
    __builtin_prefetch(pg + psize - 64);
    prefetch_leaf_entry(pg, psize, n, idx);
}


/* The first index i in [lo, hi) whose key is "after" k — leaf: key >= k,
 * branch: key > k — or hi if none; *exact when a leaf key equals k.
 * Binary search, except that nodes of INTERPOLATE_MIN keys or more first
 * probe where k should sit if keys were spread evenly between two bounds
 * (reading the 8 bytes after the bounds' common prefix as numbers), plus
 * one neighbour: dense integer keys (object keys, int primary keys) are
 * found in one or two probes instead of log2(n). The bounds are the
 * node's fences from its parent when the descent knows both (the
 * separators around the child taken: every key of the node is >= fence[0]
 * and < fence[1]), else its own end keys, probed first. Fences spare two
 * cells — two cache misses — per node. No fence array at all (text keys,
 * key_is_text, unless key_ends_in_digits) means plain bisection; so does a
 * window of text between the bounds (textual_window) other than digits
 * (decimal_window). Any probe order gives the same
 * answer; only the number of probes changes (bad fences only make a bad
 * guess). */
static inline __attribute__((always_inline)) int node_search(const uint8_t *pg, uint32_t psize, bool leaf, bool compact,
                                                              unsigned lo, unsigned hi, const uint8_t *k, uint32_t kl,
                                                              const cs_key *fence, int guess, unsigned *first, bool *exact)
{
    const uint8_t *mk;
    uint32_t ml;
    cs_key cell;
    leaf6_cell c6;
    int rc, c;
    *exact = false;
#define PROBE(i)                                                                                 \
    do {                                                                                         \
        if (compact) {                                                                           \
            if (CS_UNLIKELY(!leaf6_parse(pg, psize, (i), &c6))) return node_bad_cell(pg, (i));  \
            cell.p = c6.sfx;                                                                     \
            cell.len = c6.sl;                                                                    \
        } else if ((rc = node_cell_key(pg, psize, leaf, (i), &cell))) return rc;                 \
        mk = cell.p;                                                                             \
        ml = cell.len;                                                                           \
        c = key_cmp(mk, ml, k, kl);                                                              \
        if (leaf && c == 0) {                                                                    \
            *first = (i);                                                                        \
            *exact = true;                                                                       \
            return CS_OK;                                                                        \
        }                                                                                        \
    } while (0)
#define AFTER (c > 0)
    bool fenced = fence && fence[0].p && fence[1].p;
    if (hi - lo >= INTERPOLATE_MIN && fence) {
        const uint8_t *fk, *lk;
        uint32_t fl, ll;
        unsigned base, span; /* key[base] ~ the low bound; `span` slots up to the high one */
        if (fenced) {
            fk = fence[0].p;
            fl = fence[0].len;
            lk = fence[1].p;
            ll = fence[1].len;
            base = lo;
            span = hi - lo;
        } else {
            PROBE(lo);
            if (AFTER) {
                *first = lo;
                return CS_OK;
            }
            fk = mk;
            fl = ml;
            PROBE(hi - 1);
            if (!AFTER) {
                *first = hi;
                return CS_OK;
            }
            lk = mk;
            ll = ml;
            lo++;
            hi--;
            /* Now key[lo-1] < k < key[hi] (branch: <=): the answer is in [lo, hi]. */
            base = lo - 1;
            span = hi - lo + 1;
        }
        /* A fenced node's guess depends on its fences alone: a caller that
         * made it already (node_prefetch_leaf) passes it in. */
        unsigned g = (unsigned)guess;
        if (lo < hi && ((fenced && guess >= 0) || interp_guess(fk, fl, lk, ll, k, kl, base, span, &g))) {
            if (g < lo) g = lo;
            if (g > hi - 1) g = hi - 1;
            /* Then outwards from the guess at distances 1, 3, 7, ... until
             * a probe lands on the other side: a guess off by d costs
             * about 2 log2(d) probes, not a bisection of the node's rest
             * (leaves of unequal fill space separators unevenly). */
            PROBE(g);
            unsigned step = 1;
            if (AFTER) {
                hi = g;
                while (lo < hi) {
                    unsigned at = hi - lo > step ? hi - step : lo;
                    PROBE(at);
                    if (!AFTER) {
                        lo = at + 1;
                        break;
                    }
                    hi = at;
                    step *= 2;
                }
            } else {
                lo = g + 1;
                while (lo < hi) {
                    unsigned at = hi - lo > step ? lo + step - 1 : hi - 1;
                    PROBE(at);
                    if (AFTER) {
                        hi = at;
                        break;
                    }
                    lo = at + 1;
                    step *= 2;
                }
            }
        }
    }
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        prefetch_probes(pg, lo, mid, hi);
        PROBE(mid);
        if (AFTER) hi = mid;
        else lo = mid + 1;
    }
#undef AFTER
#undef PROBE
    *first = lo;
    return CS_OK;
}

int node_search_leaf(const uint8_t *pg, uint32_t psize, const uint8_t *k, uint32_t kl, const cs_key *fence,
                     int guess, unsigned *idx, bool *exact)
{
    /* Lower bound: a leaf key equal to k stops the search (*exact). */
    if (!node_is_compact(pg)) return node_search(pg, psize, true, false, 0, node_n(pg), k, kl, fence, guess, idx, exact);
    /* Every key starts with the prefix: compare k with it once, then
     * search the suffixes with k's own. */
    uint32_t plen = node_prefix_len(pg), n = plen < kl ? plen : kl;
    int c = key_cmp(k, n, node_prefix(pg, psize), n);
    if (c != 0 || kl < plen) {
        *exact = false;
        *idx = c > 0 ? node_n(pg) : 0;
        return CS_OK;
    }
    /* Fences outside the prefix bound nothing useful here: read the ends. */
    cs_key f[2] = {{NULL, 0}, {NULL, 0}};
    for (int j = 0; fence && j < 2; j++)
        if (fence[j].p && fence[j].len >= plen && key_cmp(fence[j].p, plen, k, plen) == 0)
            f[j] = (cs_key){fence[j].p + plen, fence[j].len - plen};
    /* Both suffix fences: the same window after their common prefix, so
     * the same guess as on whole keys. */
    return node_search(pg, psize, true, true, 0, node_n(pg), k + plen, kl - plen, fence ? f : NULL, guess, idx, exact);
}

int node_search_branch(const uint8_t *pg, uint32_t psize, const uint8_t *k, uint32_t kl, const cs_key *fence,
                       unsigned *idx)
{
    /* key[0] is ignored: the last of keys 1..n-1 that is <= k. */
    unsigned first;
    bool exact;
    int rc = node_search(pg, psize, false, false, 1, node_n(pg), k, kl, fence, -1, &first, &exact);
    if (rc) return rc;
    *idx = first - 1;
    return CS_OK;
}

void node_init(uint8_t *pg, uint16_t type, uint64_t pgno, uint32_t psize)
{
    cs_page_hdr *h = PHW(pg);
    /* Keep the allocator's txnid: it marks the page as this txn's, so that
     * bt_touch_path passes it without a lookup. */
    uint64_t txnid = h->txnid;
    memset(h, 0, PAGE_HDR);
    h->txnid = txnid;
    h->type = type;
    h->pgno = pgno;
    h->upper = (uint16_t)psize;
    h->npages = type == PT_LEAF6 ? 0 : 1; /* a compact leaf's prefix length */
}

uint32_t node_free_space(const uint8_t *pg)
{
    const cs_page_hdr *h = PH(pg);
    return (uint32_t)h->upper - PAGE_HDR - 2u * h->nkeys + h->frag;
}

uint32_t node_used(const uint8_t *pg, uint32_t psize) { return psize - PAGE_HDR - node_free_space(pg); }

/* Squeeze out holes: rewrite cells contiguously at the page end. False if
 * the cells do not add up (a damaged page whose header lies about its free
 * space): nothing is moved then, and the caller's split path reports it. */
static bool node_compact(uint8_t *pg, uint32_t psize, uint32_t extra)
{
    cs_page_hdr *h = PHW(pg);
    uint32_t total = 0;
    for (unsigned i = 0; i < h->nkeys; i++) {
        uint32_t sz;
        if (node_cell_size(pg, psize, i, &sz)) return false;
        total += sz;
    }
    uint32_t top = psize - node_prefix_len(pg);
    if (PAGE_HDR + 2u * (h->nkeys + 1u) + total + extra > top) return false;
    uint8_t scratch[CS_MAX_PAGE_SIZE];
    memcpy(scratch, pg, psize);
    uint32_t upper = top;
    for (unsigned i = 0; i < h->nkeys; i++) {
        uint32_t sz = 0;
        node_cell_size(scratch, psize, i, &sz);
        upper -= sz;
        memcpy(pg + upper, scratch + node_slot(scratch, i), sz);
        wr16(pg + PAGE_HDR + 2 * i, (uint16_t)upper);
    }
    h->upper = (uint16_t)upper;
    h->frag = 0;
    return true;
}

/* Encode type-3 leaf cell `cell` for a compact leaf whose prefix has plen
 * bytes (the key must start with it) into out; its size. A leaf of shape
 * U | V << 8 (leaf6_shape; the cell must match it) leaves the suffix
 * length out when U > 0 and the value word when V > 0. */
static uint32_t leaf6_encode(uint8_t *out, const uint8_t *cell, uint32_t plen, uint32_t shape)
{
    uint32_t kl = rd16(cell), vw = rd32(cell + 2);
    bool ovf = vw & VLEN_OVERFLOW;
    uint32_t vl = vw & ~VLEN_OVERFLOW, vb = ovf ? OVERFLOW_REF : vl, sl = kl - plen;
    uint8_t *p = out;
    if (!(shape & 0xffu)) p += varint_put(p, sl);
    if (!(shape >> 8)) p += varint_put(p, vl << 1 | (ovf ? 1u : 0u));
    memcpy(p, cell + LEAF_CELL_HDR + plen, sl + vb);
    return (uint32_t)(p - out) + sl + vb;
}

/* Whether a fixed-value leaf (fv = leaf6_fixed) takes a cell whose header
 * says vw (an overflow flag makes it differ from any fixed length). */
static inline bool fits_fixed(uint32_t fv, uint32_t vw) { return !fv || vw == fv - 1u; }

bool leaf_in_prefix(const uint8_t *pg, uint32_t psize, const uint8_t *cell)
{
    uint32_t plen = node_prefix_len(pg), ul = leaf6_uniform(pg), kl = rd16(cell);
    return kl >= plen && (!ul || kl == plen + ul - 1) && fits_fixed(leaf6_fixed(pg), rd32(cell + 2)) &&
           memcmp(cell + LEAF_CELL_HDR, node_prefix(pg, psize), plen) == 0;
}

bool node_insert(uint8_t *pg, uint32_t psize, unsigned i, const uint8_t *cell, uint32_t size)
{
    cs_page_hdr *h = PHW(pg);
    uint8_t enc[ENC_MAX];
    if (node_is_compact(pg)) {
        /* A key outside the prefix needs a shorter one, and a key or value
         * of another length in a uniform or fixed-value leaf needs its
         * length stored: the caller lays the leaf out again (leaf_write). */
        if (!leaf_in_prefix(pg, psize, cell)) return false;
        size = leaf6_encode(enc, cell, node_prefix_len(pg), leaf6_shape(pg));
        cell = enc;
    }
    if (node_free_space(pg) < size + 2) return false;
    if ((uint32_t)h->upper - PAGE_HDR - 2u * h->nkeys < size + 2 && !node_compact(pg, psize, size)) return false;
    h->upper = (uint16_t)(h->upper - size);
    memcpy(pg + h->upper, cell, size);
    uint8_t *slots = pg + PAGE_HDR;
    memmove(slots + 2 * (i + 1), slots + 2 * i, 2u * (h->nkeys - i));
    wr16(slots + 2 * i, h->upper);
    h->nkeys++;
    return true;
}

void node_remove(uint8_t *pg, uint32_t psize, unsigned i, uint32_t cell_size)
{
    CS_UNUSED(psize);
    cs_page_hdr *h = PHW(pg);
    uint16_t off = node_slot(pg, i);
    uint8_t *slots = pg + PAGE_HDR;
    memmove(slots + 2 * i, slots + 2 * (i + 1), 2u * (h->nkeys - i - 1));
    h->nkeys--;
    if (off == h->upper) h->upper = (uint16_t)(h->upper + cell_size);
    else h->frag = (uint16_t)(h->frag + cell_size);
    if (h->nkeys == 0) {
        h->upper = (uint16_t)psize;
        h->frag = 0;
        if (node_is_compact(pg)) h->npages = 0;
    }
}

bool leaf6_part(const uint8_t *pg, uint32_t psize, unsigned i, leaf_part *e)
{
    leaf6_cell c;
    uint32_t plen = node_prefix_len(pg);
    if (!leaf6_parse(pg, psize, i, &c) || plen + c.sl == 0 || plen + c.sl > CS_MAX_KEY) return false;
    *e = (leaf_part){node_prefix(pg, psize), c.sfx, c.v, plen, c.sl, c.vw, (c.vw & 1) ? OVERFLOW_REF : c.vw >> 1};
    return true;
}

void leaf_part_of_cell(const uint8_t *cell, leaf_part *e)
{
    uint32_t kl = rd16(cell), vw = rd32(cell + 2);
    bool ovf = vw & VLEN_OVERFLOW;
    uint32_t vl = vw & ~VLEN_OVERFLOW;
    const uint8_t *v = cell + LEAF_CELL_HDR + kl;
    *e = (leaf_part){cell + LEAF_CELL_HDR, v, v, kl, 0, vl << 1 | (ovf ? 1u : 0u), ovf ? OVERFLOW_REF : vl};
}

/* A compact cell's bytes with its slot: suffix sl, value word vw, value
 * bytes vb, in a leaf of the given shape (leaf6_shape). */
static inline uint32_t cell6_cost(uint32_t sl, uint32_t vw, uint32_t vb, uint32_t shape)
{
    return ((shape & 0xffu) ? 0 : varint_len(sl)) + ((shape >> 8) ? 0 : varint_len(vw)) + sl + vb + 2u;
}

/* The shape of a leaf whose first key has kl bytes and first value word is
 * vw, given whether every key and every value word match them. No cell is
 * left empty (readers find a cell by its first byte): empty suffixes and
 * empty values keep their value words. */
static inline uint32_t shape_of(uint32_t kl, uint32_t plen, uint32_t vw, bool same_keys, bool same_values)
{
    bool u = same_keys && kl >= plen && kl - plen <= LEAF6_UNIFORM_MAX;
    bool v = same_values && !(vw & 1) && (vw >> 1) <= LEAF6_FIXED_MAX && !(u && kl == plen && vw == 0);
    return (u ? kl - plen + 1u : 0u) | (v ? (vw >> 1) + 1u : 0u) << 8;
}

uint32_t leaf_part_cost(const leaf_part *e, uint32_t plen, uint32_t shape)
{
    return cell6_cost(e->l1 + e->l2 - plen, e->vw, e->vb, shape);
}

uint32_t leaf_parts_shape(const leaf_part *e, unsigned n, uint32_t plen)
{
    if (n == 0) return 0;
    uint32_t kl = e[0].l1 + e[0].l2, vw = e[0].vw;
    bool same_keys = true, same_values = true;
    for (unsigned i = 1; i < n && (same_keys || same_values); i++) {
        same_keys &= e[i].l1 + e[i].l2 == kl;
        same_values &= e[i].vw == vw;
    }
    return shape_of(kl, plen, vw, same_keys, same_values);
}

/* Key bytes [from, to) of e into out. */
static void part_key_bytes(const leaf_part *e, uint32_t from, uint32_t to, uint8_t *out)
{
    if (from < e->l1) {
        uint32_t n = (to < e->l1 ? to : e->l1) - from;
        memcpy(out, e->k1 + from, n);
        out += n;
        from += n;
    }
    if (to > from) memcpy(out, e->k2 + (from - e->l1), to - from);
}

uint32_t leaf_part_key(const leaf_part *e, uint8_t *buf)
{
    part_key_bytes(e, 0, e->l1 + e->l2, buf);
    return e->l1 + e->l2;
}

uint32_t leaf_parts_prefix(const leaf_part *a, const leaf_part *b)
{
    uint8_t x[LEAF6_PREFIX_MAX], y[LEAF6_PREFIX_MAX];
    uint32_t al = a->l1 + a->l2, bl = b->l1 + b->l2;
    al = al < LEAF6_PREFIX_MAX ? al : LEAF6_PREFIX_MAX;
    bl = bl < LEAF6_PREFIX_MAX ? bl : LEAF6_PREFIX_MAX;
    part_key_bytes(a, 0, al, x);
    part_key_bytes(b, 0, bl, y);
    return common_prefix(x, al, y, bl);
}

bool leaf_write(uint8_t *pg, uint32_t psize, const leaf_part *e, unsigned n, uint32_t plen, uint8_t *scratch)
{
    uint64_t total = plen;
    uint32_t shape = leaf_parts_shape(e, n, plen);
    /* Every key must hold the prefix: a damaged page's keys out of order can
     * be shorter than the prefix of its ends (the suffix length would wrap)
     * or differ inside it (the key would change). */
    for (unsigned i = 0; i < n; i++) {
        if (e[i].l1 + e[i].l2 < plen) return false;
        total += leaf_part_cost(&e[i], plen, shape);
    }
    if (total > psize - PAGE_HDR || plen > LEAF6_PREFIX_MAX || (n == 0 && plen)) return false;
    /* Parts may point into pg: lay the page out in scratch, then copy back. */
    uint32_t upper = psize - plen;
    if (n) part_key_bytes(&e[0], 0, plen, scratch + upper);
    const uint8_t *prefix = scratch + upper;
    for (unsigned i = 0; i < n; i++) {
        uint8_t head[LEAF6_PREFIX_MAX];
        part_key_bytes(&e[i], 0, plen, head);
        if (memcmp(head, prefix, plen) != 0) return false;
        uint32_t kl = e[i].l1 + e[i].l2, sz = leaf_part_cost(&e[i], plen, shape) - 2u;
        upper -= sz;
        uint8_t *o = scratch + upper;
        if (!(shape & 0xffu)) o += varint_put(o, kl - plen);
        if (!(shape >> 8)) o += varint_put(o, e[i].vw);
        /* Key bytes from plen on, then the value: the suffix and the value
         * are contiguous (k2 + l2 == v), so one copy unless the prefix got
         * shorter. */
        uint32_t from = plen;
        if (from < e[i].l1) {
            memcpy(o, e[i].k1 + from, e[i].l1 - from);
            o += e[i].l1 - from;
            from = e[i].l1;
        }
        memcpy(o, e[i].k2 + (from - e[i].l1), kl - from + e[i].vb);
        wr16(scratch + PAGE_HDR + 2 * i, (uint16_t)upper);
    }
    memcpy(pg + PAGE_HDR, scratch + PAGE_HDR, 2u * n);
    memcpy(pg + upper, scratch + upper, psize - upper);
    cs_page_hdr *h = PHW(pg);
    h->type = PT_LEAF6;
    h->npages = plen | shape << 8;
    h->nkeys = (uint16_t)n;
    h->upper = (uint16_t)upper;
    h->frag = 0;
    return true;
}

uint32_t leaf_cells_prefix(const cs_cellref *cells, unsigned n)
{
    if (n == 0) return 0;
    uint32_t al = rd16(cells[0].p), bl = rd16(cells[n - 1].p);
    uint32_t p = common_prefix(cells[0].p + LEAF_CELL_HDR, al, cells[n - 1].p + LEAF_CELL_HDR, bl);
    return p < LEAF6_PREFIX_MAX ? p : LEAF6_PREFIX_MAX;
}

/* A type-3 cell header's value word in the compact form (vlen << 1 | overflow). */
static inline uint32_t cell_value_word(const uint8_t *cell)
{
    uint32_t vw = rd32(cell + 2);
    return (vw & ~VLEN_OVERFLOW) << 1 | ((vw & VLEN_OVERFLOW) ? 1u : 0u);
}

uint32_t leaf_cell_cost(const cs_cellref *c, uint32_t plen, uint32_t shape)
{
    uint32_t vw = cell_value_word(c->p);
    return cell6_cost(rd16(c->p) - plen, vw, (vw & 1) ? OVERFLOW_REF : vw >> 1, shape);
}

uint32_t leaf_cells_shape(const cs_cellref *cells, unsigned n, uint32_t plen)
{
    if (n == 0) return 0;
    uint32_t kl = rd16(cells[0].p), vw = rd32(cells[0].p + 2);
    bool same_keys = true, same_values = true;
    for (unsigned i = 1; i < n && (same_keys || same_values); i++) {
        same_keys &= rd16(cells[i].p) == kl;
        same_values &= rd32(cells[i].p + 2) == vw;
    }
    return shape_of(kl, plen, cell_value_word(cells[0].p), same_keys, same_values);
}

uint32_t leaf_cells_bytes(const cs_cellref *cells, unsigned n)
{
    uint32_t plen = leaf_cells_prefix(cells, n), total = plen;
    uint32_t shape = leaf_cells_shape(cells, n, plen);
    for (unsigned i = 0; i < n; i++) total += leaf_cell_cost(&cells[i], plen, shape);
    return total;
}

int leaf_decode(const uint8_t *pg, uint32_t psize, uint8_t *out, cs_cellref *refs)
{
    unsigned n = node_n(pg);
    uint8_t *at = out;
    for (unsigned i = 0; i < n; i++) {
        uint32_t sz;
        if (!node_is_compact(pg)) {
            int rc = node_cell_size(pg, psize, i, &sz);
            if (rc) return rc;
            memcpy(at, pg + node_slot(pg, i), sz);
        } else {
            leaf6_cell c;
            uint32_t plen = node_prefix_len(pg);
            if (!leaf6_parse(pg, psize, i, &c) || plen + c.sl == 0 || plen + c.sl > CS_MAX_KEY) return node_bad_cell(pg, i);
            bool ovf = c.vw & 1;
            uint32_t vl = c.vw >> 1;
            sz = leaf_cell_build(at, NULL, 0, ovf ? NULL : c.v, vl, ovf, ovf ? rd64(c.v) : 0);
            /* leaf_cell_build wrote an empty key: make room for the real one. */
            uint32_t kl = plen + c.sl;
            memmove(at + LEAF_CELL_HDR + kl, at + LEAF_CELL_HDR, sz - LEAF_CELL_HDR);
            wr16(at, (uint16_t)kl);
            memcpy(at + LEAF_CELL_HDR, node_prefix(pg, psize), plen);
            memcpy(at + LEAF_CELL_HDR + plen, c.sfx, c.sl);
            sz += kl;
        }
        refs[i] = (cs_cellref){at, sz};
        at += sz;
    }
    return CS_OK;
}

bool leaf_overwrite(uint8_t *pg, uint32_t psize, unsigned idx, const uint8_t *cell, uint32_t size)
{
    uint32_t old;
    if (node_cell_size(pg, psize, idx, &old)) return false;
    uint8_t enc[ENC_MAX];
    if (node_is_compact(pg)) {
        /* Same key, so it shares the prefix (and has the page's length);
         * a fixed-value leaf takes only a value of its length. */
        if (!fits_fixed(leaf6_fixed(pg), rd32(cell + 2))) return false;
        size = leaf6_encode(enc, cell, node_prefix_len(pg), leaf6_shape(pg));
        cell = enc;
    }
    if (size != old) return false;
    memcpy(pg + node_slot(pg, idx), cell, size);
    return true;
}

bool node_rebuild(uint8_t *pg, uint32_t psize, const cs_cellref *cells, unsigned n, uint8_t *scratch)
{
    /* Cells may point into pg: lay them out in scratch, then copy back. */
    cs_page_hdr *h = PHW(pg);
    bool leaf = node_is_leaf(pg), compact = leaf && leaf_cells_bytes(cells, n) <= psize - PAGE_HDR;
    uint32_t plen = compact ? leaf_cells_prefix(cells, n) : 0, upper = psize - plen;
    uint32_t shape = compact ? leaf_cells_shape(cells, n, plen) : 0;
    if (!compact) {
        uint64_t total = 0;
        for (unsigned i = 0; i < n; i++) total += cells[i].size + 2u;
        if (total > psize - PAGE_HDR) return false;
    }
    memcpy(scratch, pg, PAGE_HDR);
    if (compact && n) memcpy(scratch + upper, cells[0].p + LEAF_CELL_HDR, plen);
    for (unsigned i = 0; i < n; i++) {
        if (compact) {
            uint8_t enc[ENC_MAX];
            uint32_t sz = leaf6_encode(enc, cells[i].p, plen, shape);
            upper -= sz;
            memcpy(scratch + upper, enc, sz);
        } else {
            upper -= cells[i].size;
            memcpy(scratch + upper, cells[i].p, cells[i].size);
        }
        wr16(scratch + PAGE_HDR + 2 * i, (uint16_t)upper);
    }
    memcpy(pg + PAGE_HDR, scratch + PAGE_HDR, 2u * n);
    memcpy(pg + upper, scratch + upper, psize - upper);
    if (leaf) {
        h->type = compact ? PT_LEAF6 : PT_LEAF;
        h->npages = compact ? plen | shape << 8 : 1;
    }
    h->nkeys = (uint16_t)n;
    h->upper = (uint16_t)upper;
    h->frag = 0;
    return true;
}

uint32_t leaf_cell_build(uint8_t *out, const uint8_t *k, uint32_t kl, const uint8_t *v, uint32_t vl, bool ovf,
                         uint64_t ovf_pgno)
{
    wr16(out, (uint16_t)kl);
    wr32(out + 2, vl | (ovf ? VLEN_OVERFLOW : 0));
    if (kl) memcpy(out + LEAF_CELL_HDR, k, kl);
    if (ovf) {
        wr64(out + LEAF_CELL_HDR + kl, ovf_pgno);
        return LEAF_CELL_HDR + kl + OVERFLOW_REF;
    }
    if (vl) memcpy(out + LEAF_CELL_HDR + kl, v, vl);
    return LEAF_CELL_HDR + kl + vl;
}

uint32_t branch_cell_build(uint8_t *out, uint64_t child, uint64_t count, const uint8_t *k, uint32_t kl)
{
    wr64(out, child);
    wr64(out + 8, count);
    wr16(out + 16, (uint16_t)kl);
    if (kl) memcpy(out + BRANCH_CELL_HDR, k, kl);
    return BRANCH_CELL_HDR + kl;
}
