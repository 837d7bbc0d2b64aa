/* rank.h -- the N largest of many values, in O(count log N) time and
 * O(N) memory: a min-heap of the best so far. */
#ifndef GRAPH_RANK_H
#define GRAPH_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "diff_mem.h"

typedef struct rank_item {
    uint64_t key;   /* larger ranks first */
    uint32_t value; /* ties: smaller value first */
} rank_item;

typedef struct rank {
    const diff_mem *mem;
    rank_item *v;
    size_t n, cap; /* cap: N, the most kept */
} rank;

/* Starts keeping the best n (n >= 1). Returns 0 or -1 (no memory). */
int rank_init(rank *r, const diff_mem *mem, size_t n);

void rank_add(rank *r, uint64_t key, uint32_t value);

/* Sorts what is kept, best first, and returns the count. */
size_t rank_sort(rank *r);

void rank_free(rank *r);

#endif /* GRAPH_RANK_H */
