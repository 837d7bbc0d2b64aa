/* rank.c -- the N largest of many values: a min-heap of the best so far. */
#include <stdlib.h>

#include "rank.h"

/* a ranks before b. */
static int before(const rank_item *a, const rank_item *b)
{
    return a->key != b->key ? a->key > b->key : a->value < b->value;
}

int rank_init(rank *r, const diff_mem *mem, size_t n)
{
    r->mem = mem;
    r->n = 0;
    r->cap = n;
    r->v = diff_mem_alloc(mem, n * sizeof *r->v);
    return r->v == NULL ? -1 : 0;
}

/* The heap's root is the worst kept item. */
static void sift_down(rank *r, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, w = i;
        if (l < r->n && before(&r->v[w], &r->v[l]))
            w = l;
        if (l + 1 < r->n && before(&r->v[w], &r->v[l + 1]))
            w = l + 1;
        if (w == i)
            return;
        rank_item t = r->v[i];
        r->v[i] = r->v[w];
        r->v[w] = t;
        i = w;
    }
}

void rank_add(rank *r, uint64_t key, uint32_t value)
{
    rank_item it = {key, value};
    if (r->n < r->cap) {
        size_t i = r->n++;
        r->v[i] = it;
        while (i > 0 && before(&r->v[(i - 1) / 2], &r->v[i])) {
            rank_item t = r->v[i];
            r->v[i] = r->v[(i - 1) / 2];
            r->v[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
        return;
    }
    if (!before(&it, &r->v[0]))
        return;
    r->v[0] = it;
    sift_down(r, 0);
}

static int cmp(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

size_t rank_sort(rank *r)
{
    qsort(r->v, r->n, sizeof *r->v, cmp);
    return r->n;
}

void rank_free(rank *r)
{
    diff_mem_free(r->mem, r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}
