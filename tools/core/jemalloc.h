/* jemalloc.h -- reading jemalloc 5.3's heap (Debian's libjemalloc2) out
 * of a process image, without its symbols (the library exports none of
 * its internals).
 *
 * Every extent jemalloc owns is in its extent map, a radix tree whose root
 * (an array of 2^18 pointers, for 48-bit addresses and 4 KiB pages) is in
 * the library's .bss: found by structure, as the array whose leaves' first
 * entries name extent descriptors (edata_t) that cover the very page the
 * entry stands for. From each active extent: a slab of small regions (its
 * size class from the descriptor, the used ones from its bitmap) or one
 * large allocation (its address and usable size); dirty and muzzy extents
 * are free. The regions the threads' caches (tcache) hold are allocated
 * in their slabs but free to the program: each thread's cache is found
 * in its static TLS by structure (cache_bin_t stacks whose entries are
 * used regions of the bin's size), its entries counted free, and the block
 * that holds its stacks marked the allocator's own. jemalloc's metadata
 * (base blocks: descriptors, tree leaves, arenas), whose words point at
 * every extent, is neither heap nor root. */
#ifndef CORE_JEMALLOC_H
#define CORE_JEMALLOC_H

#include "heap.h"
#include "image.h"
#include "modules.h"

/* Reads jemalloc's blocks into h (heap_init first), when the image maps
 * libjemalloc.so. Returns 1 when its extent map was found (h holds what
 * could be read, h->complete says whether that is all), 0 when not (no
 * libjemalloc, or a layout this reader does not know: *why says which),
 * -1 out of memory. */
int jemalloc_read(heap *h, const image *im, const modules *ms,
                  const char **why);

#endif /* CORE_JEMALLOC_H */
