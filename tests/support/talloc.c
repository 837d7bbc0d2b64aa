/*
 * talloc.c -- a counting, failing allocator for heapfmt_allocator hooks.
 */
#include "talloc.h"

#include <stdlib.h>
#include <string.h>

#define TALLOC_MAGIC 0x7a110c8e5a1eULL
#define TALLOC_DEAD 0xdeadbeefdeadULL

typedef union theader {
    struct {
        uint64_t magic;
        size_t size;
    } h;
    max_align_t align;
} theader;

static void *talloc_alloc(void *opaque, size_t size)
{
    talloc *a = opaque;
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

static void talloc_free(void *opaque, void *ptr)
{
    talloc *a = opaque;
    if (ptr == NULL)
        return;
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

void talloc_init(talloc *a, unsigned long fail_at)
{
    memset(a, 0, sizeof *a);
    a->fail_at = fail_at;
    a->hooks.alloc = talloc_alloc;
    a->hooks.free = talloc_free;
    a->hooks.opaque = a;
}
