/* page_pool.h -- big arrays whose pages are handed on, not given back.
 *
 * heapfmt-graph works in phases, and each phase frees arrays of one per
 * object and allocates the next phase's. Arrays that big come from
 * mmap(2) and go back with munmap(2), so every phase faults its pages in
 * again: at ten million objects a fifth of the time went to the kernel
 * (270,975 page faults for a peak of 104,686 resident pages), and that
 * share grows with the heap.
 *
 * A page pool is a diff_mem resize hook (diff_mem.h). Blocks of
 * PAGE_POOL_BIG bytes or more are mappings of its own; a freed one keeps
 * its pages as a spare, and the next big block is assembled from spares
 * by mremap(2), which moves pages without copying or faulting them, and
 * from fresh pages only when the spares are used up. Fresh pages are
 * therefore taken only when no spare is resident, so the peak resident
 * size is the one plain malloc would reach. A block grows in place with
 * mremap, its new part from spares; one put together from several
 * spares is several mappings, which mremap cannot grow, and is copied as
 * realloc would. Smaller blocks, and big ones when the pool's tables are
 * full, go to malloc.
 *
 * The memory of a block is not cleared: it may hold an earlier array's
 * bytes. Not thread-safe: one pool per thread of allocation. */
#ifndef GRAPH_PAGE_POOL_H
#define GRAPH_PAGE_POOL_H

#include <stddef.h>

#define PAGE_POOL_BIG ((size_t)1 << 20)
#define PAGE_POOL_SLOTS 64

typedef struct page_pool_block {
    char *p;
    size_t size; /* a multiple of the page size */
} page_pool_block;

typedef struct page_pool {
    page_pool_block live[PAGE_POOL_SLOTS];  /* handed out */
    page_pool_block spare[PAGE_POOL_SLOTS]; /* freed, pages kept */
    size_t nlive, nspare;
} page_pool;

/* The diff_mem resize hook; opaque is a page_pool, zeroed to start. */
void *page_pool_resize(void *opaque, void *ptr, size_t size);

/* Unmaps the spares (blocks still handed out stay). */
void page_pool_trim(page_pool *pool);

/* page_pool_trim as a diff_mem trim hook. */
void page_pool_trim_hook(void *opaque);

#endif /* GRAPH_PAGE_POOL_H */
