/* heap.h -- the blocks of a native heap as an allocator reader (glibc.c)
 * finds them: used blocks (the objects of the dump), free blocks (counted,
 * listed with --free), the regions they lie in, per-arena totals, and
 * what could not be read.
 *
 * 16 bytes per block: the user address (8-aligned, so its low three bits
 * carry flags) and the usable size. */
#ifndef CORE_HEAP_H
#define CORE_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Flags in the low bits of hblock.addr. */
#define HB_MMAPPED 1u  /* used: a chunk of its own mapping */
#define HB_INTERNAL 2u /* used: the allocator's own (a tcache) */
#define HB_FLAGS 7u

/* Free block kinds (free hblock.addr's low bits). */
enum hfree_kind {
    HF_BIN = 0,      /* a small or large bin (or not found in any bin) */
    HF_UNSORTED = 1,
    HF_FAST = 2,
    HF_TCACHE = 3,
    HF_TOP = 4
};

extern const char *const hfree_kind_names[5];

typedef struct hblock {
    uint64_t addr; /* user address | flags */
    uint64_t size; /* usable bytes; free blocks: chunk bytes, the arena
                      number in the top 16 bits */
} hblock;

#define HB_ADDR(b) ((b).addr & ~(uint64_t)HB_FLAGS)
#define HF_ARENA(b) ((unsigned)((b).size >> 48))
#define HF_SIZE(b) ((b).size & ((1ull << 48) - 1))

/* Per arena: what malloc_info(3) prints for it, and what was found. */
typedef struct harena {
    uint64_t addr;             /* the malloc_state */
    uint64_t system_mem;       /* system_mem (malloc_info: system current) */
    uint64_t max_system_mem;
    uint64_t heaps;            /* heaps walked (the main arena: 1) */
    uint64_t used, used_bytes; /* used blocks, usable bytes */
    uint64_t fast, fast_bytes; /* fastbins (malloc_info: total fast) */
    uint64_t bins, bins_bytes; /* bins, unsorted included, top excluded */
    uint64_t bins_raw;         /* their size fields as stored, flag bits
                                  included: what malloc_info adds up */
    uint64_t top_bytes;        /* malloc_info's total rest = bins + top */
    uint64_t tcache, tcache_bytes; /* tcaches of the threads using it */
    uint64_t walk_free, walk_free_bytes; /* free by boundary tags */
} harena;

/* A range of the address space that holds blocks: an arena heap, one
 * mmapped chunk (or jemalloc large extent), or a jemalloc slab: blocks
 * of stride bytes from start. */
typedef struct hregion {
    uint64_t start, end;
    uint32_t arena;  /* index, or UINT32_MAX for a single-block region */
    uint32_t stride; /* a slab's region size, 0: not a slab */
} hregion;

#define HEAP_MAX_PROBLEMS 32

typedef struct heap {
    hblock *used;            /* sorted by address */
    size_t nused, capused;
    hblock *free;            /* sorted by address */
    size_t nfree, capfree;
    harena *arenas;
    size_t narenas, caparenas;
    hregion *regions;        /* sorted by start */
    size_t nregions, capregions;
    uint64_t mmapped, mmapped_bytes;
    uint64_t mp_mmapped;     /* malloc's own count (mp_.n_mmaps), or
                                UINT64_MAX when unknown */
    uint64_t own_lo, own_hi; /* the allocator's own static data (the main
                                arena): not a root, its pointers are to
                                chunk headers, which the usable bytes of
                                the chunk before cover */
    hregion *own;            /* the allocator's own memory outside
                                modules (jemalloc's metadata): neither
                                blocks nor roots */
    size_t nown, capown;
    uint64_t chunk_hdr;      /* --free lists a block's address less this
                                (glibc: 16, its chunk; jemalloc: 0) */
    const char *internal;    /* the class of HB_INTERNAL blocks */
    char allocator[64];      /* "glibc 2.36" */
    char found_by[64];       /* "symbols (main_arena)" or "structure" */
    int complete;            /* every arena and region read */
    char *problems[HEAP_MAX_PROBLEMS];
    size_t nproblems;        /* more than HEAP_MAX_PROBLEMS: counted */
} heap;

void heap_init(heap *h);
void heap_free(heap *h);

/* Releases the free list (nfree becomes 0). */
void heap_drop_free(heap *h);

/* Records a problem (printf format); marks the heap incomplete. */
void heap_problem(heap *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends; 0 or -1 out of memory. The walk adds a block per chunk: the
 * room is checked inline, the list grown out of line. */
static inline int heap_add_used(heap *h, uint64_t addr, uint64_t size);
static inline int heap_add_free(heap *h, uint64_t addr, uint64_t size);
int heap_add_region(heap *h, uint64_t start, uint64_t end, uint32_t arena);
int heap_add_slab(heap *h, uint64_t start, uint64_t end, uint32_t arena,
                  uint32_t stride);
int heap_add_own(heap *h, uint64_t start, uint64_t end);

/* The region holding address a (regions sorted by start), or NULL. */
const hregion *heap_region_of(const heap *h, uint64_t a);

/* The used block holding address a (start or interior): its index, or
 * -1. Binary search: the scanner has a faster index (refs.h). */
long heap_find_used(const heap *h, uint64_t a);

/* ---- inline ---- */

/* Makes room for one more block in *list (n blocks, capacity *cap). */
int heap_grow_list(hblock **list, size_t *cap, size_t n);

static inline int heap_add_used(heap *h, uint64_t addr, uint64_t size)
{
    if (h->nused == h->capused && heap_grow_list(&h->used, &h->capused, h->nused) != 0)
        return -1;
    h->used[h->nused++] = (hblock){addr, size};
    return 0;
}

static inline int heap_add_free(heap *h, uint64_t addr, uint64_t size)
{
    if (h->nfree == h->capfree && heap_grow_list(&h->free, &h->capfree, h->nfree) != 0)
        return -1;
    h->free[h->nfree++] = (hblock){addr, size};
    return 0;
}

#endif /* CORE_HEAP_H */
