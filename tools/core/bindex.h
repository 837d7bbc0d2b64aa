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
 * A jemalloc slab is a region of regions of one size (its stride): the
 * word's region is its offset over the stride, looked up in a bitmap of
 * a bit per region; a large extent is, like an mmapped chunk, a region
 * of one block.
 *
 * Memory: 1/64 of the arena heaps' bytes for the bitmaps and 1/512 for
 * the directory (69 MiB for 4 GiB: 3.5 bytes a block at 20M blocks). */
#ifndef CORE_BINDEX_H
#define CORE_BINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"

typedef struct bregion {
    uint64_t start, end;   /* 16-aligned start (a slab: its start) */
    uint64_t *bits;        /* pairs: boundary word, used-start word */
    uint64_t *page;        /* per 4 KiB page: position of the last
                              boundary before it + 1, 0 none; NULL:
                              not an arena heap */
    uint64_t block;        /* an mmapped chunk (no bits): its address */
    uint64_t block_size;   /* ... and usable size */
    uint64_t stride;       /* a jemalloc slab: its region size, and bits
                              a bit per region, set when it is used */
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

/* The scan's steps, for words in bulk (dump.c): whether v passes the
 * coarse map (a heap region may hold it); then the region holding v
 * (its index, or -1; the last one found is tried first); then, the
 * region known, the block. bindex_find is the three in a row. */
static inline int bindex_maybe(const bindex *x, uint64_t v);
static inline long bindex_region(bindex *x, uint64_t v);
static inline int bindex_in_region(const bindex *x, size_t region,
                                   uint64_t v, uint64_t *block);

/* The address of the bitmap word bindex_in_region(region, v) reads
 * first, to prefetch. */
static inline const void *bindex_line(const bindex *x, size_t region,
                                      uint64_t v);

/* ---- inline ---- */

#define BINDEX_SHIFT 4 /* 16 bytes a bit */

long bindex_region_slow(bindex *x, uint64_t v);
uint64_t bindex_boundary_slow(const bregion *r, uint64_t w);

static inline int bindex_maybe(const bindex *x, uint64_t v)
{
    uint64_t off = v - x->lo;
    if (off >= x->hi - x->lo)
        return 0;
    uint64_t g = off >> x->shift;
    return (int)(x->coarse[g >> 6] >> (g & 63) & 1);
}

static inline long bindex_region(bindex *x, uint64_t v)
{
    const bregion *r = &x->r[x->last];
    if (v - r->start < r->end - r->start)
        return (long)x->last;
    return bindex_region_slow(x, v);
}

static inline const void *bindex_line(const bindex *x, size_t region,
                                      uint64_t v)
{
    const bregion *r = &x->r[region];
    if (r->page == NULL) /* not an arena heap: a slab, or one block */
        return r->bits == NULL ? (const void *)r : (const void *)r->bits;
    return &r->bits[2 * (((v - r->start) >> BINDEX_SHIFT) >> 6)];
}

static inline int bindex_in_region(const bindex *x, size_t region,
                                   uint64_t v, uint64_t *block)
{
    const bregion *r = &x->r[region];
    if (r->page == NULL) { /* not an arena heap (one test for the rare) */
        if (r->stride != 0) { /* a slab: the region at v, if used */
            uint64_t i = (v - r->start) / r->stride;
            if (!(r->bits[i >> 6] >> (i & 63) & 1))
                return 0;
            *block = r->start + i * r->stride;
            return 1;
        }
        /* an mmapped chunk or a large extent: its one block */
        if (v - r->block >= r->block_size) /* below it too: wraps */
            return 0;
        *block = r->block;
        return 1;
    }
    /* The word's block starts at the last boundary at or below it. */
    uint64_t pos = (v - r->start) >> BINDEX_SHIFT;
    uint64_t w = pos >> 6;
    unsigned bit = (unsigned)(pos & 63);
    uint64_t word = r->bits[2 * w] & (~0ull >> (63 - bit));
    uint64_t b1 = word ? w * 64 + 63 - (uint64_t)__builtin_clzll(word) + 1
                       : bindex_boundary_slow(r, w);
    if (b1 == 0)
        return 0;
    uint64_t b = b1 - 1;
    if (!(r->bits[2 * (b >> 6) + 1] >> (b & 63) & 1))
        return 0; /* free space, or a chunk header */
    /* inside unless v is in the next chunk's size field: the 8 bytes
     * before a boundary at pos + 1 */
    if (((v - r->start) & 15) >= 8) {
        uint64_t n = pos + 1;
        if (r->bits[2 * (n >> 6)] >> (n & 63) & 1)
            return 0;
    }
    *block = r->start + (b << BINDEX_SHIFT);
    return 1;
}

static inline int bindex_find(bindex *x, uint64_t v, uint64_t *block)
{
    if (!bindex_maybe(x, v))
        return 0;
    long r = bindex_region(x, v);
    return r >= 0 && bindex_in_region(x, (size_t)r, v, block);
}

#endif /* CORE_BINDEX_H */
