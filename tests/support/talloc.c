/*
 * talloc.c -- a counting, failing allocator for heapfmt_allocator hooks.
 */
#include "talloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The writer's compression worker allocates too (the hooks must be
 * thread-safe): one lock for every talloc's counters. */
static pthread_mutex_t talloc_lock = PTHREAD_MUTEX_INITIALIZER;

#define TALLOC_MAGIC 0x7a110c8e5a1eULL
#define TALLOC_DEAD 0xdeadbeefdeadULL

typedef union theader {
    struct {
        uint64_t magic;
        size_t size;
    } h;
    max_align_t align;
} theader;

static void *talloc_alloc_locked(talloc *a, size_t size)
{
    unsigned long call = ++a->calls;

    if (a->fail_at &&
        (call == a->fail_at || (a->fail_all_after && call > a->fail_at))) {
        a->failed++;
        return NULL;
    }
    if (size > SIZE_MAX - sizeof(theader))
        return NULL;
    theader *h = malloc(sizeof(theader) + size);
    if (h == NULL)
        return NULL;
    h->h.magic = TALLOC_MAGIC;
    h->h.size = size;
    a->live++;
    a->live_bytes += size;
    if (a->live_bytes > a->peak_bytes)
        a->peak_bytes = a->live_bytes;
    /* make use of uninitialised memory visible */
    memset(h + 1, 0xa5, size);
    return h + 1;
}

static void *talloc_alloc(void *opaque, size_t size)
{
    pthread_mutex_lock(&talloc_lock);
    void *p = talloc_alloc_locked(opaque, size);
    pthread_mutex_unlock(&talloc_lock);
    return p;
}

static void talloc_free_locked(talloc *a, void *ptr)
{
    theader *h = (theader *)ptr - 1;
    if (h->h.magic != TALLOC_MAGIC) {
        a->bad_frees++;
        return;
    }
    h->h.magic = TALLOC_DEAD;
    a->frees++;
    a->live--;
    a->live_bytes -= h->h.size;
    free(h);
}

static void talloc_free(void *opaque, void *ptr)
{
    if (ptr == NULL)
        return;
    pthread_mutex_lock(&talloc_lock);
    talloc_free_locked(opaque, ptr);
    pthread_mutex_unlock(&talloc_lock);
}

void talloc_init(talloc *a, unsigned long fail_at)
{
    memset(a, 0, sizeof *a);
    a->fail_at = fail_at;
    a->hooks.alloc = talloc_alloc;
    a->hooks.free = talloc_free;
    a->hooks.opaque = a;
}
