/* bindex.c -- the used-block index of the reference scan (bindex.h). */
#include <stdlib.h>
#include <string.h>

#include "bindex.h"

#define SHIFT 4 /* 16 bytes a bit */

void bindex_free(bindex *x)
{
    for (size_t i = 0; i < x->nr; i++) {
        free(x->r[i].bits);
        free(x->r[i].rank);
    }
    free(x->r);
    free(x->starts);
    free(x->coarse);
    memset(x, 0, sizeof *x);
}

int bindex_build(bindex *x, const heap *h)
{
    memset(x, 0, sizeof *x);
    x->h = h;
    if (h->nregions == 0 || h->nused == 0) {
        x->lo = 1;
        x->hi = 1;
        return 0;
    }
    x->r = calloc(h->nregions, sizeof *x->r);
    x->starts = calloc(h->nregions, sizeof *x->starts);
    if (x->r == NULL || x->starts == NULL)
        goto nomem;
    /* Regions in address order with their blocks (both lists sorted). */
    size_t b = 0;
    for (size_t i = 0; i < h->nregions; i++) {
        const hregion *g = &h->regions[i];
        while (b < h->nused && HB_ADDR(h->used[b]) < g->start)
            b++; /* a block outside every region: never found */
        size_t first = b;
        while (b < h->nused && HB_ADDR(h->used[b]) < g->end)
            b++;
        if (b == first)
            continue;
        bregion *r = &x->r[x->nr];
        r->start = g->start & ~(uint64_t)15;
        r->end = g->end;
        r->first = first;
        r->count = b - first;
        if (r->count > 1) {
            size_t nbits = (size_t)((r->end - r->start) >> SHIFT) + 1;
            size_t nwords = (nbits + 63) / 64;
            r->bits = calloc(nwords, sizeof *r->bits);
            r->rank = malloc(nwords * sizeof *r->rank);
            if (r->bits == NULL || r->rank == NULL)
                goto nomem;
            x->bytes += nwords * 12;
            for (size_t k = first; k < b; k++) {
                uint64_t o = (HB_ADDR(h->used[k]) - r->start) >> SHIFT;
                r->bits[o >> 6] |= 1ull << (o & 63);
            }
            uint32_t n = 0;
            for (size_t w = 0; w < nwords; w++) {
                r->rank[w] = n;
                n += (uint32_t)__builtin_popcountll(r->bits[w]);
            }
        }
        x->starts[x->nr] = r->start;
        x->nr++;
    }
    if (x->nr == 0) {
        x->lo = 1;
        x->hi = 1;
        return 0;
    }
    x->lo = x->r[0].start;
    x->hi = x->r[x->nr - 1].end;
    uint64_t ng = ((x->hi - x->lo) >> 24) + 1;
    x->ncoarse = (size_t)((ng + 63) / 64);
    x->coarse = calloc(x->ncoarse, sizeof *x->coarse);
    if (x->coarse == NULL)
        goto nomem;
    x->bytes += x->ncoarse * 8 + x->nr * (sizeof *x->r + 8);
    for (size_t i = 0; i < x->nr; i++) {
        uint64_t g0 = (x->r[i].start - x->lo) >> 24;
        uint64_t g1 = (x->r[i].end - 1 - x->lo) >> 24;
        for (uint64_t g = g0; g <= g1; g++)
            x->coarse[g >> 6] |= 1ull << (g & 63);
    }
    return 0;
nomem:
    bindex_free(x);
    return -1;
}

long bindex_find_slow(bindex *x, uint64_t v)
{
    size_t i = x->last;
    if (i >= x->nr || v < x->r[i].start || v >= x->r[i].end) {
        size_t lo = 0, hi = x->nr;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (x->starts[mid] <= v)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || v >= x->r[lo - 1].end)
            return -1;
        i = lo - 1;
        x->last = i;
    }
    const bregion *r = &x->r[i];
    size_t k;
    if (r->count == 1) {
        k = r->first;
    } else {
        uint64_t o = (v - r->start) >> SHIFT;
        uint64_t word = r->bits[o >> 6];
        unsigned bit = (unsigned)(o & 63);
        uint64_t below = bit == 63 ? word : word & ((2ull << bit) - 1);
        long idx = (long)r->rank[o >> 6] + __builtin_popcountll(below) - 1;
        if (idx < 0)
            return -1;
        k = r->first + (size_t)idx;
    }
    const hblock *blk = &x->h->used[k];
    uint64_t a = HB_ADDR(*blk);
    return v >= a && v - a < blk->size ? (long)k : -1;
}
