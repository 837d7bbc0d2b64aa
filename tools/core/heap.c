/* heap.c -- the block lists an allocator reader fills (heap.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "heap.h"

const char *const hfree_kind_names[5] = {"bin", "unsorted", "fast",
                                         "tcache", "top"};

void heap_init(heap *h)
{
    memset(h, 0, sizeof *h);
    h->complete = 1;
    h->mp_mmapped = UINT64_MAX;
    h->chunk_hdr = 16;
    h->internal = "glibc tcache";
}

void heap_free(heap *h)
{
    free(h->used);
    free(h->free);
    free(h->arenas);
    free(h->regions);
    free(h->own);
    for (size_t i = 0; i < h->nproblems && i < HEAP_MAX_PROBLEMS; i++)
        free(h->problems[i]);
    memset(h, 0, sizeof *h);
}

void heap_drop_free(heap *h)
{
    free(h->free);
    h->free = NULL;
    h->nfree = h->capfree = 0;
}

void heap_problem(heap *h, const char *fmt, ...)
{
    h->complete = 0;
    if (h->nproblems < HEAP_MAX_PROBLEMS) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        h->problems[h->nproblems] = strdup(buf);
        if (h->problems[h->nproblems] == NULL)
            return; /* counted below as a problem all the same */
    }
    h->nproblems++;
}

int heap_grow_list(hblock **list, size_t *cap, size_t n)
{
    return GROW(*list, *cap, n);
}

int heap_add_region(heap *h, uint64_t start, uint64_t end, uint32_t arena)
{
    if (GROW(h->regions, h->capregions, h->nregions) != 0)
        return -1;
    h->regions[h->nregions++] = (hregion){start, end, arena, 0};
    return 0;
}

int heap_add_slab(heap *h, uint64_t start, uint64_t end, uint32_t arena,
                  uint32_t stride)
{
    if (GROW(h->regions, h->capregions, h->nregions) != 0)
        return -1;
    h->regions[h->nregions++] = (hregion){start, end, arena, stride};
    return 0;
}

int heap_add_own(heap *h, uint64_t start, uint64_t end)
{
    if (GROW(h->own, h->capown, h->nown) != 0)
        return -1;
    h->own[h->nown++] = (hregion){start, end, UINT32_MAX, 0};
    return 0;
}

const hregion *heap_region_of(const heap *h, uint64_t a)
{
    size_t lo = 0, hi = h->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->regions[mid].start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || a >= h->regions[lo - 1].end)
        return NULL;
    return &h->regions[lo - 1];
}

long heap_find_used(const heap *h, uint64_t a)
{
    size_t lo = 0, hi = h->nused;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (HB_ADDR(h->used[mid]) <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const hblock *b = &h->used[lo - 1];
    return a - HB_ADDR(*b) < b->size ? (long)(lo - 1) : -1;
}
