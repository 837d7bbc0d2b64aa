/* bindex.c -- the used-block index of the reference scan (bindex.h). */
#include <stdlib.h>
#include <string.h>

#include "bindex.h"

#define SHIFT BINDEX_SHIFT
#define PAGE_WORDS 4  /* 4 KiB: 256 positions, 4 words */

void bindex_free(bindex *x)
{
    for (size_t i = 0; i < x->nr; i++) {
        free(x->r[i].bits);
        free(x->r[i].page);
    }
    free(x->r);
    free(x->starts);
    free(x->coarse);
    memset(x, 0, sizeof *x);
}

static void set_bit(uint64_t *bits, uint64_t pos, int used)
{
    bits[2 * (pos >> 6) + (used ? 1 : 0)] |= 1ull << (pos & 63);
}

/* Fills region r's bitmaps and page directory from blocks [first, end). */
static int fill(bregion *r, const heap *h, size_t first, size_t end,
                size_t *bytes)
{
    uint64_t npos = ((r->end - r->start) >> SHIFT) + 2; /* + the last end */
    size_t nwords = (size_t)((npos + 63) / 64);
    size_t npages = (nwords + PAGE_WORDS - 1) / PAGE_WORDS;
    r->bits = calloc(2 * nwords, sizeof *r->bits);
    r->page = malloc(npages * sizeof *r->page);
    if (r->bits == NULL || r->page == NULL)
        return -1;
    *bytes += 2 * nwords * 8 + npages * 8;
    for (size_t k = first; k < end; k++) {
        uint64_t a = HB_ADDR(h->used[k]);
        uint64_t s = (a - r->start) >> SHIFT;
        /* the block's end: the next chunk's user address */
        uint64_t e = (a + h->used[k].size + 8 - r->start) >> SHIFT;
        set_bit(r->bits, s, 0);
        set_bit(r->bits, s, 1);
        if (e < npos)
            set_bit(r->bits, e, 0);
    }
    uint64_t last = 0; /* position + 1 */
    for (size_t p = 0; p < npages; p++) {
        r->page[p] = last;
        for (size_t w = p * PAGE_WORDS; w < (p + 1) * PAGE_WORDS && w < nwords; w++)
            if (r->bits[2 * w])
                last = (uint64_t)w * 64 + 63 - (uint64_t)__builtin_clzll(r->bits[2 * w]) + 1;
    }
    return 0;
}

/* A slab's used bitmap from its blocks [first, end). */
static int fill_slab(bregion *r, uint32_t stride, const heap *h, size_t first,
                     size_t end, size_t *bytes)
{
    uint64_t n = (r->end - r->start) / stride + 1;
    size_t nwords = (size_t)((n + 63) / 64);
    r->stride = stride;
    r->bits = calloc(nwords, sizeof *r->bits);
    if (r->bits == NULL)
        return -1;
    *bytes += nwords * 8;
    for (size_t k = first; k < end; k++) {
        uint64_t off = HB_ADDR(h->used[k]) - r->start;
        if (off % stride == 0)
            r->bits[off / stride >> 6] |= 1ull << (off / stride & 63);
    }
    return 0;
}

int bindex_build(bindex *x, const heap *h)
{
    memset(x, 0, sizeof *x);
    x->lo = x->hi = 1; /* empty: every lookup fails the range test */
    if (h->nregions == 0 || h->nused == 0)
        return 0;
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
        if (g->stride != 0) { /* a jemalloc slab */
            r->start = g->start;
            if (fill_slab(r, g->stride, h, first, b, &x->bytes) != 0) {
                x->nr++;
                goto nomem;
            }
        } else if (g->arena == UINT32_MAX) { /* an mmapped chunk */
            r->block = HB_ADDR(h->used[first]);
            r->block_size = h->used[first].size;
        } else if (fill(r, h, first, b, &x->bytes) != 0) {
            x->nr++; /* freed with the others */
            goto nomem;
        }
        x->starts[x->nr] = r->start;
        x->nr++;
    }
    if (x->nr == 0)
        return 0;
    x->lo = x->r[0].start;
    x->hi = x->r[x->nr - 1].end;
    x->shift = 24;
    while (((x->hi - x->lo) >> x->shift) >= (1ull << 26))
        x->shift++;
    uint64_t ng = ((x->hi - x->lo) >> x->shift) + 1;
    x->ncoarse = (size_t)((ng + 63) / 64);
    x->coarse = calloc(x->ncoarse, sizeof *x->coarse);
    if (x->coarse == NULL)
        goto nomem;
    x->bytes += x->ncoarse * 8 + x->nr * (sizeof *x->r + 8);
    for (size_t i = 0; i < x->nr; i++) {
        uint64_t g0 = (x->r[i].start - x->lo) >> x->shift;
        uint64_t g1 = (x->r[i].end - 1 - x->lo) >> x->shift;
        for (uint64_t g = g0; g <= g1; g++)
            x->coarse[g >> 6] |= 1ull << (g & 63);
    }
    return 0;
nomem:
    bindex_free(x);
    x->lo = x->hi = 1;
    return -1;
}

/* The last boundary below bitmap word w of region r (whose bits at or
 * below the position asked are clear), + 1 (0: none). */
uint64_t bindex_boundary_slow(const bregion *r, uint64_t w)
{
    for (;;) {
        if (w % PAGE_WORDS == 0) /* the page directory has the rest */
            return r->page[w / PAGE_WORDS];
        w--;
        uint64_t word = r->bits[2 * w];
        if (word)
            return w * 64 + 63 - (uint64_t)__builtin_clzll(word) + 1;
    }
}

long bindex_region_slow(bindex *x, uint64_t v)
{
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
    x->last = lo - 1;
    return (long)(lo - 1);
}
