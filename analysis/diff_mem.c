/* diff_mem.c -- every allocation of heapfmt-diff goes through one resize hook. */
#include <stdint.h>
#include <stdlib.h>

#include "diff_mem.h"

static void *resize(const diff_mem *m, void *p, size_t size)
{
    if (m != NULL && m->resize != NULL)
        return m->resize(m->opaque, p, size);
    if (size == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, size);
}

void *diff_mem_alloc(const diff_mem *m, size_t size)
{
    return size == 0 ? NULL : resize(m, NULL, size);
}

void *diff_mem_realloc(const diff_mem *m, void *p, size_t size)
{
    return size == 0 ? NULL : resize(m, p, size);
}

void diff_mem_free(const diff_mem *m, void *p)
{
    if (p != NULL)
        resize(m, p, 0);
}

void diff_mem_trim(const diff_mem *m)
{
    if (m != NULL && m->trim != NULL)
        m->trim(m->opaque);
}

int diff_mem_reserve(const diff_mem *m, void **p, size_t *cap, size_t need,
                size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t want = *cap + *cap / 2;
    if (want < need)
        want = need;
    if (want < 16)
        want = 16;
    if (want > SIZE_MAX / elem) {
        if (need > SIZE_MAX / elem)
            return -1;
        want = need;
    }
    void *q = resize(m, *p, want * elem);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = want;
    return 0;
}

static void *hf_alloc(void *opaque, size_t size)
{
    return resize(opaque, NULL, size == 0 ? 1 : size);
}

static void hf_free(void *opaque, void *p)
{
    if (p != NULL)
        resize(opaque, p, 0);
}

heapfmt_allocator diff_mem_heapfmt(const diff_mem *m)
{
    heapfmt_allocator a = {hf_alloc, hf_free, (void *)m};
    return a;
}
