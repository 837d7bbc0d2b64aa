/* page_pool.c -- big arrays whose pages are handed on, not given back. */
#define _GNU_SOURCE /* mremap, malloc_usable_size */
#include "page_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
    static size_t size;
    if (size == 0) {
        long v = sysconf(_SC_PAGESIZE);
        size = v > 0 ? (size_t)v : 4096;
    }
    return size;
}

/* size rounded up to whole pages, or 0 on overflow. */
static size_t whole_pages(size_t size)
{
    size_t ps = page_size();
    return size > SIZE_MAX - (ps - 1) ? 0 : (size + ps - 1) / ps * ps;
}

static page_pool_block *find_live(page_pool *pool, const void *p)
{
    for (size_t i = 0; i < pool->nlive; i++)
        if (pool->live[i].p == p)
            return &pool->live[i];
    return NULL;
}

/* Keeps the pages [p, p + size) as a spare, or unmaps them when the
 * table is full. */
static void keep(page_pool *pool, char *p, size_t size)
{
    if (size == 0)
        return;
    if (pool->nspare == PAGE_POOL_SLOTS) {
        munmap(p, size);
        return;
    }
    pool->spare[pool->nspare++] = (page_pool_block){p, size};
}

/* Moves spare pages over [dst, dst + len), a range of the pool's own
 * fresh mappings, the latest spares first, until either runs out. */
static void fill_from_spares(page_pool *pool, char *dst, size_t len)
{
    while (len > 0 && pool->nspare > 0) {
        page_pool_block *s = &pool->spare[pool->nspare - 1];
        size_t take = s->size < len ? s->size : len;
        if (mremap(s->p, take, take, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
            MAP_FAILED) {
            /* The spare cannot move (the kernel's map limit): give its
             * pages back, so that fresh ones do not raise the peak. */
            munmap(s->p, s->size);
            pool->nspare--;
            continue;
        }
        dst += take;
        len -= take;
        if (take == s->size) {
            pool->nspare--;
        } else {
            s->p += take;
            s->size -= take;
        }
    }
}

static void *big_alloc(page_pool *pool, size_t size)
{
    size_t len = whole_pages(size);
    if (len == 0 || pool->nlive == PAGE_POOL_SLOTS)
        return NULL;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    fill_from_spares(pool, p, len);
    pool->live[pool->nlive++] = (page_pool_block){p, len};
    return p;
}

static void big_free(page_pool *pool, page_pool_block *b)
{
    keep(pool, b->p, b->size);
    *b = pool->live[--pool->nlive];
}

/* Resizes the big block b to size bytes (PAGE_POOL_BIG or more). */
static void *big_resize(page_pool *pool, page_pool_block *b, size_t size)
{
    size_t len = whole_pages(size);
    if (len == 0)
        return NULL;
    if (len <= b->size) { /* the tail's pages become a spare */
        keep(pool, b->p + len, b->size - len);
        b->size = len;
        return b->p;
    }
    char *q = mremap(b->p, b->size, len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        /* A block put together from spares is several mappings, which
         * mremap cannot move as one: copy it, as realloc would. */
        if ((q = big_alloc(pool, size)) == NULL) /* appends: b stays */
            return NULL;
        memcpy(q, b->p, b->size);
        big_free(pool, b);
        return q;
    }
    fill_from_spares(pool, q + b->size, len - b->size);
    b->p = q;
    b->size = len;
    return q;
}

void *page_pool_resize(void *opaque, void *ptr, size_t size)
{
    page_pool *pool = opaque;
    page_pool_block *b = ptr != NULL ? find_live(pool, ptr) : NULL;
    if (size == 0) { /* free */
        if (b != NULL)
            big_free(pool, b);
        else
            free(ptr);
        return NULL;
    }
    if (b != NULL && size >= PAGE_POOL_BIG)
        return big_resize(pool, b, size);
    if (b != NULL) { /* big to small: into malloc's memory */
        void *q = malloc(size);
        if (q == NULL)
            return NULL;
        memcpy(q, b->p, size);
        big_free(pool, b);
        return q;
    }
    if (size >= PAGE_POOL_BIG) { /* new, or grown out of malloc's memory */
        void *q = big_alloc(pool, size);
        if (q == NULL)
            return realloc(ptr, size); /* tables full: malloc's way */
        if (ptr != NULL) {
            size_t old = malloc_usable_size(ptr);
            memcpy(q, ptr, old < size ? old : size);
            free(ptr);
        }
        return q;
    }
    return realloc(ptr, size);
}

void page_pool_trim(page_pool *pool)
{
    while (pool->nspare > 0) {
        page_pool_block *s = &pool->spare[--pool->nspare];
        munmap(s->p, s->size);
    }
}

#else /* not Linux: no mremap; malloc alone */

void *page_pool_resize(void *opaque, void *ptr, size_t size)
{
    (void)opaque;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

void page_pool_trim(page_pool *pool)
{
    (void)pool;
}

#endif

void page_pool_trim_hook(void *opaque)
{
    page_pool_trim(opaque);
}
