/*
 * workload.h — shared workloads for the concurrency and space tests.
 *
 * The snapshot invariant: generation g of a tree holds
 *   "meta"          -> {g, k, nblobs}            (3 x u64)
 *   "n000000".."n<k-1>" -> {g, i}                (k = 50 + g*37 % 400)
 *   "blob" or "blob<g>" -> bytes test_fill(size, seed g)
 * so a reader can verify that everything it sees comes from one commit.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include "test.h"

/* Write generation gen in the write txn t. blob_size 0 = no blob;
 * keep_blobs: each generation adds its own blob (the data set grows)
 * instead of overwriting the single "blob". */
int inv_write(cs_txn *t, cs_tree tr, uint64_t gen, size_t blob_size, int keep_blobs);
/* Verify t's snapshot; returns its generation, or -1 (after failing a
 * CHECK) if it is inconsistent, -2 if the tree is still empty. */
int64_t inv_verify(cs_txn *t, cs_tree tr);

/* One write txn overwriting keys 0..nkeys-1 with vsize-byte values. */
void churn(cs_env *env, cs_tree tr, int nkeys, size_t vsize, uint64_t round);

#endif /* WORKLOAD_H */
