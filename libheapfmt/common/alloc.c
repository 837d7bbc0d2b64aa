/* alloc.c -- allocation through per-handle hooks, and the arena. */
#include <stdlib.h>
#include <string.h>

#include "hf_common.h"

static void *default_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void default_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

const heapfmt_allocator *hf_default_allocator(void)
{
    static const heapfmt_allocator standard = {default_alloc, default_free,
                                               NULL};
    return &standard;
}

void hf_allocator_init(heapfmt_allocator *dst, const heapfmt_allocator *src)
{
    if (src && src->alloc && src->free) {
        *dst = *src;
    } else {
        dst->alloc = default_alloc;
        dst->free = default_free;
        dst->opaque = NULL;
    }
}

void *hf_handle_alloc(const heapfmt_allocator *user, size_t size,
                      size_t al_offset)
{
    heapfmt_allocator al;
    hf_allocator_init(&al, user);
    char *h = hf_alloc(&al, size);
    if (h) {
        memset(h, 0, size);
        memcpy(h + al_offset, &al, sizeof al);
    }
    return h;
}

void *hf_alloc(const heapfmt_allocator *a, size_t size)
{
    return a->alloc(a->opaque, size ? size : 1);
}

void hf_free(const heapfmt_allocator *a, void *p)
{
    if (p)
        a->free(a->opaque, p);
}

size_t hf_grown_capacity(size_t cap, size_t need, size_t elem)
{
    size_t ncap = cap ? cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return 0;
        ncap *= 2;
    }
    return ncap > SIZE_MAX / elem ? 0 : ncap;
}

int hf_grow(const heapfmt_allocator *a, void **buf, size_t *cap, size_t need,
            size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = hf_grown_capacity(*cap, need, elem);
    void *nb = ncap ? hf_alloc(a, ncap * elem) : NULL;
    if (!nb)
        return -1;
    if (*buf) {
        memcpy(nb, *buf, *cap * elem);
        hf_free(a, *buf);
    }
    *buf = nb;
    *cap = ncap;
    return 0;
}

int hf_grow_bytes(const heapfmt_allocator *a, uint8_t **buf, size_t *cap,
                  size_t need, size_t keep)
{
    if (need <= *cap)
        return 0;
    if (keep == 0) { /* nothing to copy: free first, so both never coexist */
        hf_free(a, *buf);
        *buf = NULL;
        *cap = 0;
    }
    uint8_t *nb = hf_alloc(a, need);
    if (!nb)
        return -1;
    if (keep)
        memcpy(nb, *buf, keep);
    hf_free(a, *buf);
    *buf = nb;
    *cap = need;
    return 0;
}

/* Arena chunks: a header followed by data. Large requests get their own. */
struct hf_arena_chunk {
    hf_arena_chunk *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

#define HF_ARENA_CHUNK (64u << 10)

void hf_arena_init(hf_arena *ar, const heapfmt_allocator *al)
{
    memset(ar, 0, sizeof *ar);
    ar->al = al;
}

void *hf_arena_alloc(hf_arena *ar, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (ar->head && ar->avail - ar->used >= size) {
        void *p = ar->head->data + ar->used;
        ar->used += size;
        return p;
    }
    size_t csize = size > HF_ARENA_CHUNK ? size : HF_ARENA_CHUNK;
    if (csize > SIZE_MAX - sizeof(hf_arena_chunk))
        return NULL;
    hf_arena_chunk *c = hf_alloc(ar->al, sizeof *c + csize);
    if (!c)
        return NULL;
    c->size = csize;
    ar->total += sizeof *c + csize;
    if (size == csize && ar->head) {
        /* A big one-off: keep filling the current chunk afterwards. */
        c->next = ar->head->next;
        ar->head->next = c;
        return c->data;
    }
    c->next = ar->head;
    ar->head = c;
    ar->avail = csize;
    ar->used = size;
    return c->data;
}

void hf_arena_free(hf_arena *ar)
{
    hf_arena_chunk *c = ar->head;
    while (c) {
        hf_arena_chunk *n = c->next;
        hf_free(ar->al, c);
        c = n;
    }
    ar->head = NULL;
    ar->used = ar->avail = 0;
    ar->total = 0;
}
