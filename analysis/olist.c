/* olist.c -- the objects --list prints, biggest first. */
#include <stdlib.h>
#include <string.h>

#include "olist.h"

void olist_init(olist *l, const diff_mem *mem, uint64_t limit)
{
    memset(l, 0, sizeof *l);
    l->mem = mem;
    l->limit = limit;
}

void olist_free(olist *l)
{
    diff_mem_free(l->mem, l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* The order while items come in: everything but the kind, which may still
 * be local. */
static int cmp_partial(const diff_item *a, const diff_item *b)
{
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->change != b->change)
        return a->change < b->change ? -1 : 1;
    return 0;
}

static int cmp_partial_qsort(const void *x, const void *y)
{
    return cmp_partial(x, y);
}

static int cmp_full(const void *x, const void *y)
{
    const diff_item *a = x, *b = y;
    int c = cmp_partial(a, b);
    if (c != 0)
        return c;
    return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* Keeps the first limit items in partial order, and any that tie with the
 * last of them (their final order depends on the kind, not known yet). */
static void prune(olist *l)
{
    qsort(l->v, l->n, sizeof *l->v, cmp_partial_qsort);
    size_t keep = (size_t)l->limit;
    while (keep < l->n && cmp_partial(&l->v[keep - 1], &l->v[keep]) == 0)
        keep++;
    l->n = keep;
}

int olist_add(olist *l, const diff_item *it)
{
    if (l->limit > 0 && l->n >= l->cap && l->n > l->limit &&
        l->n - l->limit >= l->limit / 2 + 1024)
        prune(l);
    if (diff_mem_reserve(l->mem, (void **)&l->v, &l->cap, l->n + 1,
                    sizeof *l->v) != 0)
        return -1;
    l->v[l->n++] = *it;
    return 0;
}

void olist_finish(olist *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_full);
    if (l->limit > 0 && l->n > l->limit)
        l->n = (size_t)l->limit;
}
