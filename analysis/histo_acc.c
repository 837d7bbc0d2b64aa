/* histo_acc.c -- what one reader counted, by slot or by site. */
#include <stdlib.h>
#include <string.h>

#include "histo.h"

void histo_acc_init(histo_acc *a, enum histo_by by)
{
    memset(a, 0, sizeof *a);
    a->by = by;
    histo_sites_init(&a->sites);
    cli_strmap_init(&a->codes);
}

void histo_acc_free(histo_acc *a)
{
    free(a->v);
    free(a->life);
    free(a->stack_of);
    histo_sites_free(&a->sites);
    cli_strmap_free(&a->codes);
    free(a->code);
    histo_acc_init(a, a->by);
}

/* Makes v[slot] valid. Rare: slots are dense and grow one at a time. */
static int grow(histo_acc *a, size_t slot)
{
    size_t cap = a->cap ? a->cap : 256;
    while (cap <= slot)
        cap *= 2;
    histo_total *v = realloc(a->v, cap * sizeof *v);
    if (v == NULL)
        return -1;
    memset(v + a->cap, 0, (cap - a->cap) * sizeof *v);
    a->v = v;
    if (a->by == HISTO_BY_STACK || a->by == HISTO_BY_FRAME) {
        /* v, life and stack_of grow, then cap: a failure midway leaves
         * cap as it was, and the next call grows them again */
        histo_life *l = realloc(a->life, cap * sizeof *l);
        if (l == NULL)
            return -1;
        memset(l + a->cap, 0, (cap - a->cap) * sizeof *l);
        a->life = l;
        const heapfmt_rstack **s =
            realloc(a->stack_of, cap * sizeof *s);
        if (s == NULL)
            return -1;
        memset(s + a->cap, 0, (cap - a->cap) * sizeof *s);
        a->stack_of = s;
    }
    a->cap = cap;
    return 0;
}

/* --by=imemo, iseq: counts o under its name. Returns 0 or -1. */
static int add_code(histo_acc *a, const heapfmt_robject *o)
{
    char buf[CLI_CODE_MAX];
    const char *key;
    size_t len, i;
    histo_total *t = &a->no_code;
    if (cli_code_key(a->by == HISTO_BY_IMEMO ? CLI_CODE_IMEMO : CLI_CODE_ISEQ,
                     o, buf, &key, &len)) {
        if (cli_strmap_add(&a->codes, key, len, &i) < 0)
            return -1;
        if (i >= a->ccode) {
            size_t cap = a->ccode ? 2 * a->ccode : 64;
            histo_total *v = realloc(a->code, cap * sizeof *v);
            if (v == NULL)
                return -1;
            memset(v + a->ccode, 0, (cap - a->ccode) * sizeof *v);
            a->code = v;
            a->ccode = cap;
        }
        t = &a->code[i];
    }
    t->count++;
    t->bytes += o->size;
    return 0;
}

int histo_acc_add(histo_acc *a, const heapfmt_robject *o)
{
    size_t slot;
    switch (a->by) {
    case HISTO_BY_IMEMO:
    case HISTO_BY_ISEQ:
        return add_code(a, o);
    case HISTO_BY_SITE:
        if (o->fields & HEAPFMT_F_SITE)
            return histo_sites_add(&a->sites, o->file->slot, o->line,
                                   o->size);
        a->no_site.count++;
        a->no_site.bytes += o->size;
        return 0;
    case HISTO_BY_STACK:
    case HISTO_BY_FRAME:
        if (!(o->fields & HEAPFMT_F_STACK) || o->stack == NULL) {
            a->no_stack.count++;
            a->no_stack.bytes += o->size;
            return 0;
        }
        slot = o->stack->slot;
        if (slot >= a->cap && grow(a, slot) != 0)
            return -1;
        a->stack_of[slot] = o->stack;
        break;
    case HISTO_BY_TYPE:
        slot = o->type->slot;
        break;
    case HISTO_BY_CLASS:
    default:
        slot = o->klass->slot;
        break;
    }
    if (slot >= a->cap && grow(a, slot) != 0)
        return -1;
    a->v[slot].count++;
    a->v[slot].bytes += o->size;
    return 0;
}

int histo_acc_add_lifespan(histo_acc *a, const heapfmt_rlifespan *l)
{
    histo_life v = {l->allocs, l->frees, l->lifetime_us, l->oldest_us};
    if (a->by == HISTO_BY_SITE) {
        if (l->key != HEAPFMT_LIFESPAN_SITE)
            return 0;
        a->has_life = 1;
        return histo_sites_add_life(&a->sites, l->file->slot, l->line, &v);
    }
    if ((a->by != HISTO_BY_STACK && a->by != HISTO_BY_FRAME) ||
        l->key != HEAPFMT_LIFESPAN_STACK || l->stack == NULL)
        return 0;
    size_t slot = l->stack->slot;
    if (slot >= a->cap && grow(a, slot) != 0)
        return -1;
    a->stack_of[slot] = l->stack;
    histo_life_add(&a->life[slot], &v);
    a->has_life = 1;
    return 0;
}
