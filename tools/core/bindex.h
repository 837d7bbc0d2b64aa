/* bindex.h -- which used block, if any, a word points into.
 *
 * The reference scan asks this for every aligned word of every used
 * block and root: hundreds of millions of times for a large heap, so it
 * must cost a few loads and at most one cache miss. Most words are not
 * heap addresses: one range test and one bit of a coarse map (a bit per
 * 16 MiB; more when the heaps span more than 2^50 bytes, so that the map
 * stays under 8 MiB) reject them. A word in a heap region is placed by
 * binary search among the regions (the last one found is tried first);
 * an mmapped chunk is its region's only block. In an arena heap, two
 * bitmaps of a bit per 16 bytes, interleaved word by word so that one
 * cache line holds both: the boundaries (every used block's start, and
 * its end: the next chunk's user address) and which boundaries start a
 * used block. The word's block starts at the last boundary at or below
 * it; it is inside when that boundary starts a used block and the word
 * is not in the next chunk's size field. The block list itself is not
 * touched. When a block is long (the last boundary is far below), a
 * directory of the last boundary before each 4 KiB page bounds the
 * search to one page.
 *
 * Memory: 1/64 of the arena heaps' bytes for the bitmaps and 1/512 for
 * the directory (69 MiB for 4 GiB: 3.5 bytes a block at 20M blocks). */
#ifndef CORE_BINDEX_H
#define CORE_BINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"

typedef struct bregion {
    uint64_t start, end;   /* 16-aligned start */
    uint64_t *bits;        /* pairs: boundary word, used-start word */
    uint64_t *page;        /* per 4 KiB page: position of the last
                              boundary before it + 1, 0 none */
    uint64_t block;        /* an mmapped chunk (no bits): its address */
    uint64_t block_size;   /* ... and usable size */
} bregion;

typedef struct bindex {
    uint64_t lo, hi;       /* the span of all regions */
    uint64_t *coarse;      /* a bit per 2^shift bytes of [lo, hi) */
    size_t ncoarse;
    unsigned shift;
    bregion *r;
    size_t nr;
    uint64_t *starts;      /* r[i].start, for the search */
    size_t last;           /* the region found last */
    size_t bytes;          /* memory used */
} bindex;

/* Builds the index of h's used blocks. Returns 0 or -1 out of memory. */
int bindex_build(bindex *x, const heap *h);
void bindex_free(bindex *x);

/* When v points into a used block: 1, and its address in *block; else
 * 0. */
static inline int bindex_find(bindex *x, uint64_t v, uint64_t *block);

/* Starts loading what bindex_find(v) will read (its bitmap word), so that
 * the lookups of many words overlap their cache misses: the scan
 * prefetches a window of blocks' words, then looks them up. */
static inline void bindex_prefetch(bindex *x, uint64_t v);

/* ---- inline ---- */

int bindex_find_slow(bindex *x, uint64_t v, uint64_t *block);
void bindex_prefetch_slow(bindex *x, uint64_t v);

static inline void bindex_prefetch(bindex *x, uint64_t v)
{
    uint64_t off = v - x->lo;
    if (off >= x->hi - x->lo)
        return;
    uint64_t g = off >> x->shift;
    if (x->coarse[g >> 6] >> (g & 63) & 1)
        bindex_prefetch_slow(x, v);
}

static inline int bindex_find(bindex *x, uint64_t v, uint64_t *block)
{
    uint64_t off = v - x->lo;
    if (off >= x->hi - x->lo)
        return 0;
    uint64_t g = off >> x->shift;
    if (!(x->coarse[g >> 6] >> (g & 63) & 1))
        return 0;
    return bindex_find_slow(x, v, block);
}

#endif /* CORE_BINDEX_H */
