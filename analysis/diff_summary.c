/* diff_summary.c -- per-class (or per-site) totals of a diff. */
#include <stdlib.h>
#include <string.h>

#include "diff_summary.h"

/* qsort has no context argument: each row carries a pointer to the names
 * while it is sorted, instead of a global. */
typedef struct sort_row {
    diff_row row;
    const cli_strmap *t;
    uint64_t key; /* --sort's, when not bytes */
} sort_row;

void diff_life_add(diff_life *a, const diff_life *b)
{
    a->allocs += b->allocs;
    a->frees += b->frees;
    stat_add(&a->lifetime_us, b->lifetime_us);
    if (b->oldest_us > a->oldest_us)
        a->oldest_us = b->oldest_us;
}

static int cmp_text(const cli_strmap *t, uint32_t a, uint32_t b)
{
    size_t la, lb;
    const char *sa = nameid_text(t, a, &la), *sb = nameid_text(t, b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb;
}

static int cmp_desc(uint64_t a, uint64_t b)
{
    return a > b ? -1 : a < b;
}

static int cmp_rows(const void *x, const void *y)
{
    const sort_row *ra = x, *rb = y;
    const diff_row *a = &ra->row, *b = &rb->row;
    int c;
    if ((c = cmp_desc(ra->key, rb->key)) != 0 ||
        (c = cmp_desc(a->s.bytes[0], b->s.bytes[0])) != 0 ||
        (c = cmp_desc(a->s.bytes[1], b->s.bytes[1])) != 0 ||
        (c = cmp_desc(a->s.count[0], b->s.count[0])) != 0 ||
        (c = cmp_desc(a->s.count[1], b->s.count[1])) != 0 ||
        (c = cmp_text(ra->t, a->cls, b->cls)) != 0 ||
        (c = cmp_text(ra->t, a->file, b->file)) != 0 ||
        (c = cmp_text(ra->t, a->stack, b->stack)) != 0)
        return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The sort key of a row besides its bytes (0 for DIFF_SORT_BYTES). */
static uint64_t sort_key(const diff_row *r, enum diff_sort sort)
{
    switch (sort) {
    case DIFF_SORT_COUNT:
        return r->s.count[0];
    case DIFF_SORT_OLDEST:
        return r->has_life ? r->life.oldest_us : 0;
    case DIFF_SORT_LIFETIME:
        return r->has_life && r->life.frees > 0
                   ? r->life.lifetime_us / r->life.frees
                   : 0;
    case DIFF_SORT_BYTES:
    default:
        return 0;
    }
}

int summary_rows(const tuples *kinds, const diff_stat *kstat,
                 const unsigned char *pass, unsigned by, const cli_strmap *t,
                 const diff_life_entry *life, size_t nlife,
                 enum diff_sort sort, const diff_mem *mem, diff_row **rows,
                 size_t *nrows, diff_stat *total)
{
    tuples keys;
    tuples_init(&keys, mem, UINT32_MAX);
    sort_row *v = NULL;
    size_t n = 0, cap = 0;
    memset(total, 0, sizeof *total);
    for (size_t k = 0; k < tuples_count(kinds); k++) {
        const diff_stat *s = &kstat[k];
        const tuple *kind = tuples_get(kinds, (uint32_t)k);
        if (s->count[0] == 0 && s->count[1] == 0)
            continue;
        if (pass != NULL && !pass[kind->klass])
            continue;
        tuple key = summary_group_key(kind, by);
        uint32_t r;
        if (tuples_intern(&keys, &key, &r) != 0)
            goto fail;
        if (r == n) {
            if (diff_mem_reserve(mem, (void **)&v, &cap, n + 1, sizeof *v) != 0)
                goto fail;
            memset(&v[n], 0, sizeof v[n]);
            v[n].row.cls = key.klass;
            v[n].row.file = key.file;
            v[n].row.line = key.line;
            v[n].row.stack = key.stack;
            v[n].t = t;
            n++;
        }
        for (int i = 0; i < 2; i++) {
            stat_add(&v[r].row.s.count[i], s->count[i]);
            stat_add(&v[r].row.s.bytes[i], s->bytes[i]);
            stat_add(&total->count[i], s->count[i]);
            stat_add(&total->bytes[i], s->bytes[i]);
        }
    }
    /* Lifespans to the rows of their key; a key without a row (nothing
     * new, freed or retained there) makes none. */
    for (size_t i = 0; i < nlife; i++) {
        uint32_t r;
        if (tuples_find(&keys, &life[i].key, &r) != 1)
            continue;
        v[r].row.has_life = 1;
        diff_life_add(&v[r].row.life, &life[i].life);
    }
    tuples_free(&keys);
    for (size_t i = 0; i < n; i++)
        v[i].key = sort_key(&v[i].row, sort);
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_rows);
    diff_row *out = diff_mem_alloc(mem, (n > 0 ? n : 1) * sizeof *out);
    if (out == NULL)
        goto fail_sorted;
    for (size_t i = 0; i < n; i++)
        out[i] = v[i].row;
    diff_mem_free(mem, v);
    *rows = out;
    *nrows = n;
    return 0;
fail:
    tuples_free(&keys);
fail_sorted:
    diff_mem_free(mem, v);
    return -1;
}

int summary_parse_by(const char *s, unsigned *by)
{
    if (strcmp(s, "class") == 0)
        *by = DIFF_BY_CLASS;
    else if (strcmp(s, "site") == 0)
        *by = DIFF_BY_SITE;
    else if (strcmp(s, "class,site") == 0 || strcmp(s, "site,class") == 0)
        *by = DIFF_BY_CLASS | DIFF_BY_SITE;
    else if (strcmp(s, "stack") == 0)
        *by = DIFF_BY_STACK;
    else if (strcmp(s, "frame") == 0)
        *by = DIFF_BY_FRAME;
    else if (strcmp(s, "imemo") == 0)
        *by = DIFF_BY_IMEMO;
    else if (strcmp(s, "iseq") == 0)
        *by = DIFF_BY_ISEQ;
    else
        return -1;
    return 0;
}
