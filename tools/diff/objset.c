/* objset.c -- a compact array of objects: 16 bytes each. */
#include <stdint.h>
#include <string.h>

#include "objset.h"
#include "radix.h"

void objset_init(objset *s, const diff_mem *mem)
{
    memset(s, 0, sizeof *s);
    s->mem = mem;
}

void objset_free(objset *s)
{
    DIFF_MEM_DROP(s->mem, s->v);
    DIFF_MEM_DROP(s->mem, s->big);
    s->n = s->cap = s->nbig = s->capbig = 0;
}

void objset_clear(objset *s)
{
    s->n = 0;
    s->nbig = 0;
}

int objset_reserve(objset *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    /* Exactly n: a caller that knows the count (from the footer) asks
     * once; objset_push grows geometrically on its own. */
    if (n > SIZE_MAX / sizeof *s->v)
        return -1;
    dobj *v = diff_mem_realloc(s->mem, s->v, n * sizeof *v);
    if (v == NULL)
        return -1;
    s->v = v;
    s->cap = n;
    return 0;
}

int objset_push(objset *s, uint64_t id, uint32_t kind, uint64_t size)
{
    if (s->n == s->cap &&
        diff_mem_reserve(s->mem, (void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) !=
            0)
        return -1;
    uint32_t field;
    if (size < OBJSET_BIG) {
        field = (uint32_t)size;
    } else {
        if (s->nbig >= OBJSET_BIG ||
            diff_mem_reserve(s->mem, (void **)&s->big, &s->capbig, s->nbig + 1,
                        sizeof *s->big) != 0)
            return -1;
        s->big[s->nbig] = size;
        field = OBJSET_BIG | (uint32_t)s->nbig++;
    }
    s->v[s->n++] = (dobj){id, kind, field};
    return 0;
}

void objset_sort(objset *s)
{
    radix_sort(s->v, s->n);
}

size_t objset_seek(const objset *s, size_t from, uint64_t id)
{
    size_t n = s->n;
    if (from >= n || s->v[from].id >= id)
        return from;
    /* s->v[lo].id < id: gallop until s->v[hi].id >= id or hi == n. */
    size_t lo = from, step = 1, hi;
    for (;;) {
        hi = lo + step;
        if (hi >= n || hi < lo) {
            hi = n;
            break;
        }
        if (s->v[hi].id >= id)
            break;
        lo = hi;
        step *= 2;
    }
    /* Invariant: v[lo].id < id, and hi == n or v[hi].id >= id. */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].id < id)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}
