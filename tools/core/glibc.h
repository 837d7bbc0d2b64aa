/* glibc.h -- reading glibc's malloc (ptmalloc) out of a process image.
 *
 * The main arena is found from libc's symbols when a debug file names it
 * (main_arena, mp_), else by its structure: the malloc_state in libc's
 * writable data whose 127 bin headers are each empty (pointing at
 * themselves) or the ends of a doubly linked list that points back. From
 * it: every arena (the next ring), their heaps (heap_info chains of the
 * thread arenas, the brk heap of the main one), the chunks of each heap
 * in address order, the fastbins, the bins, every thread's tcache
 * (recognised by structure: the counts match chains of chunks of the
 * right size, safe-linking decoded), and the mmapped chunks (chunk
 * headers with IS_MMAPPED at the start of anonymous mappings).
 *
 * Layouts: glibc 2.27 to 2.36+ (have_fastchunks), 2.23 to 2.26 (no
 * have_fastchunks); tcache of 2.26-2.29 (8-bit counts) and 2.30+ (16-bit);
 * heap_info of 32 or 48 bytes; safe-linking from 2.32. */
#ifndef CORE_GLIBC_H
#define CORE_GLIBC_H

#include "heap.h"
#include "image.h"
#include "modules.h"

typedef struct glibc_options {
    int no_symbols; /* find the arenas by structure even with symbols */
} glibc_options;

/* Reads glibc malloc's blocks into h (heap_init first). Returns 1 when
 * the main arena was found (h holds what could be read; h->complete says
 * whether that is everything), 0 when there is no glibc malloc heap
 * (no arena found, or malloc never ran), -1 out of memory. */
int glibc_read(heap *h, const image *im, const modules *ms,
               const glibc_options *opt);

#endif /* CORE_GLIBC_H */
