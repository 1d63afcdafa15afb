/* leaf_bytes.c — bytes per entry of the two file-size shapes of RESULTS.md
 * ("File size: where the bytes go"), written through the engine alone:
 * 100k objects (8-byte big-endian keys, 32-byte records like the objects
 * tier's Person) appended in one write, and a 1M-element list (12-byte
 * keys: list id + length byte + 3-byte counter, 8-byte values) appended in
 * writes of 100k. Prints, per tree, leaf pages and bytes per entry in the
 * trees' pages, and the file size. Build against any engine revision:
 *
 *   cc -O2 -ISources/CStorage/include -o /tmp/leaf_bytes \
 *      benchmarks/scripts/leaf_bytes.c Sources/CStorage/(all .c) -lpthread
 *   /tmp/leaf_bytes DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cstorage.h"

#define OK(x)                                                                     \
    do {                                                                          \
        int rc_ = (x);                                                            \
        if (rc_) {                                                                \
            fprintf(stderr, "%s: %s (%s)\n", #x, cs_strerror(rc_), cs_last_error_detail()); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static void be(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void report(cs_env *env, const char *name, uint64_t n, uint32_t ps)
{
    cs_txn *t;
    cs_tree tr;
    cs_tree_stat st;
    OK(cs_txn_begin(env, CS_TXN_RDONLY, &t));
    OK(cs_tree_open(t, name, 0, &tr));
    OK(cs_tree_get_stat(t, tr, &st));
    printf("%-12s %8llu entries: %6llu leaf + %4llu branch pages, %.2f bytes/entry in leaves, %.2f in tree pages\n", name,
           (unsigned long long)n, (unsigned long long)st.leaf_pages, (unsigned long long)st.branch_pages,
           (double)st.leaf_pages * ps / (double)n, (double)(st.leaf_pages + st.branch_pages) * ps / (double)n);
    cs_txn_abort(t);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/leaf_bytes.cstore", dir);
    unlink(path);
    snprintf(path + strlen(path), sizeof path - strlen(path), ".lock");
    unlink(path);
    path[strlen(path) - 5] = 0;
    cs_options o = {.durability = CS_DURABLE_NO_SYNC};
    cs_env *env;
    OK(cs_env_open(path, &o, &env));
    cs_txn *t;
    cs_tree people, lists;
    uint8_t k[16], v[32];
    OK(cs_txn_begin(env, 0, &t));
    OK(cs_tree_open(t, "people", CS_CREATE, &people));
    for (uint64_t i = 0; i < 100000; i++) {
        be(k, i ^ 0x8000000000000000ull, 8); /* a primary key, sign flipped */
        memset(v, (int)(i & 0x7f), sizeof v);
        OK(cs_put(t, people, (cs_val){k, 8}, (cs_val){v, sizeof v}, 0));
    }
    OK(cs_txn_commit(t));
    for (uint64_t w = 0; w < 10; w++) {
        OK(cs_txn_begin(env, 0, &t));
        OK(cs_tree_open(t, "realm:lists", CS_CREATE, &lists));
        for (uint64_t i = w * 100000; i < (w + 1) * 100000; i++) {
            be(k, 1, 8);
            k[8] = 3;
            be(k + 9, i, 3);
            be(v, i, 8);
            OK(cs_put(t, lists, (cs_val){k, 12}, (cs_val){v, 8}, 0));
        }
        OK(cs_txn_commit(t));
    }
    report(env, "people", 100000, 4096);
    report(env, "realm:lists", 1000000, 4096);
    OK(cs_env_close(env));
    struct stat s;
    stat(path, &s);
    printf("file %lld bytes\n", (long long)s.st_size);
    return 0;
}
