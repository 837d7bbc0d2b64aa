/* diff_mem.h -- every allocation of heapfmt-diff goes through one resize hook.
 *
 * The hook has the shape of lua_Alloc: resize(opaque, ptr, size) allocates
 * (ptr NULL), resizes, or frees (size 0, returns NULL). The default uses
 * realloc(3) and free(3). Growing through realloc matters for the large
 * object arrays: glibc moves big blocks with mremap(2), so growing an array
 * costs neither a copy nor, until the new part is written, resident memory.
 *
 * Tests pass a hook that fails the Nth call, to check that every failure
 * ends in a clean "out of memory" with nothing leaked. */
#ifndef DIFF_MEM_H
#define DIFF_MEM_H

#include <stddef.h>

#include "heapfmt.h"

typedef void *(*diff_resize_fn)(void *opaque, void *ptr, size_t size);

typedef struct diff_mem {
    diff_resize_fn resize; /* NULL: realloc and free */
    void *opaque;
    void (*trim)(void *opaque); /* gives back what the hook keeps for
                                   later blocks; NULL: nothing kept */
} diff_mem;

/* Allocates size bytes (size > 0); NULL on failure. */
void *diff_mem_alloc(const diff_mem *m, size_t size);

/* Resizes p (NULL: allocates) to size > 0 bytes; NULL on failure, p then
 * unchanged. */
void *diff_mem_realloc(const diff_mem *m, void *p, size_t size);

/* Frees p; p may be NULL. */
void diff_mem_free(const diff_mem *m, void *p);

/* Frees the array p points to and makes p NULL. */
#define DIFF_MEM_DROP(m, p) (diff_mem_free((m), (p)), (p) = NULL)

/* Gives the memory the hook keeps for later blocks back to the system,
 * between two tasks that would not reuse it. m may be NULL. */
void diff_mem_trim(const diff_mem *m);

/* Makes room for at least need elements of elem bytes in the array *p of
 * capacity *cap (in elements). Grows by half again at least, so that
 * appending one at a time is amortised O(1). Returns 0, or -1 when the
 * memory is not available or the size overflows; *p and *cap are then
 * unchanged. */
int diff_mem_reserve(const diff_mem *m, void **p, size_t *cap, size_t need,
                size_t elem);

/* The same memory as a libheapfmt allocator, so that the readers' tables
 * count too. m must outlive every reader opened with it. */
heapfmt_allocator diff_mem_heapfmt(const diff_mem *m);

#endif /* DIFF_MEM_H */
