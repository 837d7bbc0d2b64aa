/* bindex.h -- which used block, if any, a word points into.
 *
 * The reference scan asks this for every aligned word of every used
 * block and root: billions of times for a large heap, so it must cost a
 * few loads. Most words are not heap addresses: one range test and one
 * bit of a coarse map (a bit per 16 MiB) reject them. A word in a heap
 * region is placed by binary search among the regions (the last one
 * found is tried first), then, in an arena heap, by a bitmap of block
 * starts (a bit per 16 bytes) and a rank directory (the blocks before
 * each 64-bit word of it): the block is the last start at or below the
 * word, found with one popcount. Memory: 1/128 + 1/256 of the heaps'
 * span (48 MiB for 4 GiB), about 2.4 bytes a block for 20M blocks. */
#ifndef CORE_BINDEX_H
#define CORE_BINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"

typedef struct bregion {
    uint64_t start, end;   /* 16-aligned start */
    uint64_t *bits;        /* a bit per 16 bytes: a used block starts */
    uint32_t *rank;        /* blocks before each word of bits */
    size_t first;          /* index in heap.used of its first block */
    size_t count;          /* its blocks */
} bregion;

typedef struct bindex {
    const heap *h;
    uint64_t lo, hi;       /* the span of all regions */
    uint64_t *coarse;      /* a bit per 16 MiB of [lo, hi) */
    size_t ncoarse;
    bregion *r;
    size_t nr;
    uint64_t *starts;      /* r[i].start, for the search */
    size_t last;           /* the region found last */
    size_t bytes;          /* memory used */
} bindex;

/* Builds the index of h's used blocks. Returns 0 or -1 out of memory. */
int bindex_build(bindex *x, const heap *h);
void bindex_free(bindex *x);

/* The index in h->used of the used block whose usable bytes hold v, or
 * -1. */
static inline long bindex_find(bindex *x, uint64_t v);

/* ---- inline ---- */

long bindex_find_slow(bindex *x, uint64_t v);

static inline long bindex_find(bindex *x, uint64_t v)
{
    uint64_t off = v - x->lo;
    if (off >= x->hi - x->lo)
        return -1;
    uint64_t g = off >> 24;
    if (!(x->coarse[g >> 6] >> (g & 63) & 1))
        return -1;
    return bindex_find_slow(x, v);
}

#endif /* CORE_BINDEX_H */
