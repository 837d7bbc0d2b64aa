/* histo_table.c -- the merged table: one row per name, a column per dump;
 * filtering, sorting and the totals. */
#include <stdlib.h>
#include <string.h>

#include "histo.h"

int histo_table_init(histo_table *t, size_t ndumps)
{
    memset(t, 0, sizeof *t);
    cli_strmap_init(&t->names);
    t->ndumps = ndumps;
    t->dumps = calloc(ndumps, sizeof *t->dumps);
    t->total = calloc(ndumps * 2, sizeof *t->total);
    t->omitted = calloc(ndumps * 2, sizeof *t->omitted);
    if (t->dumps == NULL || t->total == NULL || t->omitted == NULL) {
        histo_table_free(t);
        return -1;
    }
    return 0;
}

void histo_table_free(histo_table *t)
{
    cli_strmap_free(&t->names);
    free(t->dumps);
    free(t->rows);
    free(t->cells);
    free(t->life);
    free(t->total);
    free(t->omitted);
    memset(t, 0, sizeof *t);
}

/* Grows t->life to cap ids (from old), zeroed; it exists once a dump had
 * lifespans. */
static int grow_life(histo_table *t, size_t old, size_t cap)
{
    size_t per = t->ndumps;
    if (cap > SIZE_MAX / sizeof *t->life / per)
        return -1;
    histo_life *life = realloc(t->life, cap * per * sizeof *life);
    if (life == NULL)
        return -1;
    memset(life + old * per, 0, (cap - old) * per * sizeof *life);
    t->life = life;
    return 0;
}

/* Makes room for the numbers of one more id, zeroed. */
static int grow_cells(histo_table *t)
{
    if (t->nrows < t->capcells)
        return 0;
    size_t cap = t->capcells ? t->capcells * 2 : 256;
    size_t per = t->ndumps * 2;
    if (cap > SIZE_MAX / sizeof *t->cells / per)
        return -1;
    if (t->life != NULL && grow_life(t, t->capcells, cap) != 0)
        return -1; /* a larger life array is harmless */
    uint64_t *cells = realloc(t->cells, cap * per * sizeof *cells);
    if (cells == NULL)
        return -1;
    memset(cells + t->capcells * per, 0,
           (cap - t->capcells) * per * sizeof *cells);
    t->cells = cells;
    t->capcells = cap;
    return 0;
}

void histo_life_add(histo_life *a, const histo_life *b)
{
    a->allocs += b->allocs;
    a->frees += b->frees;
    a->lifetime_us = b->lifetime_us > UINT64_MAX - a->lifetime_us
                         ? UINT64_MAX
                         : a->lifetime_us + b->lifetime_us;
    if (b->oldest_us > a->oldest_us)
        a->oldest_us = b->oldest_us;
}

int histo_table_add_life(histo_table *t, size_t d, const char *name,
                         size_t len, const histo_life *l)
{
    if (histo_table_add(t, d, name, len, 0, 0) != 0) /* finds or makes it */
        return -1;
    if (t->life == NULL && grow_life(t, 0, t->capcells) != 0)
        return -1;
    size_t id;
    if (cli_strmap_find(&t->names, name, len, &id) != 0)
        return -1;
    histo_life_add(&t->life[id * t->ndumps + d], l);
    return 0;
}

int histo_table_add_row(histo_table *t, size_t d, const char *name,
                        size_t len, const histo_total *tot,
                        const histo_life *l)
{
    if (tot != NULL && tot->count > 0 &&
        histo_table_add(t, d, name, len, tot->count, tot->bytes) != 0)
        return -1;
    if (l != NULL && (l->allocs > 0 || l->frees > 0 || l->oldest_us > 0) &&
        histo_table_add_life(t, d, name, len, l) != 0)
        return -1;
    return 0;
}

static int grow_rows(histo_table *t)
{
    if (t->nrows < t->caprows)
        return 0;
    size_t cap = t->caprows ? t->caprows * 2 : 256;
    histo_row *rows = realloc(t->rows, cap * sizeof *rows);
    if (rows == NULL)
        return -1;
    t->rows = rows;
    t->caprows = cap;
    return 0;
}

int histo_table_add(histo_table *t, size_t d, const char *name, size_t len,
                    uint64_t count, uint64_t bytes)
{
    /* Room first, so that a failure leaves the map and rows in step. */
    if (grow_rows(t) != 0 || grow_cells(t) != 0)
        return -1;
    size_t id;
    int added = cli_strmap_add(&t->names, name, len, &id);
    if (added < 0)
        return -1;
    if (added) {
        histo_row *r = &t->rows[t->nrows++];
        memset(r, 0, sizeof *r);
        r->name = cli_strmap_key(&t->names, id, &r->len);
        r->id = id;
    }
    uint64_t *cell = &t->cells[(id * t->ndumps + d) * 2];
    if (cell[0] == 0 && count > 0)
        t->dumps[d].rows++;
    cell[0] += count;
    cell[1] += bytes;
    t->dumps[d].count += count;
    t->dumps[d].bytes += bytes;
    return 0;
}

int histo_row_unchanged(const histo_table *t, const histo_row *r)
{
    for (size_t d = 1; d < t->ndumps; d++)
        if (histo_count(t, r, d) != histo_count(t, r, 0) ||
            histo_bytes(t, r, d) != histo_bytes(t, r, 0))
            return 0;
    return 1;
}

/* Grew in every interval: neither count nor bytes ever went down, and at
 * least one of them went up each time. */
static int row_growing(const histo_table *t, const histo_row *r)
{
    for (size_t d = 1; d < t->ndumps; d++) {
        uint64_t c0 = histo_count(t, r, d - 1), c1 = histo_count(t, r, d);
        uint64_t b0 = histo_bytes(t, r, d - 1), b1 = histo_bytes(t, r, d);
        if (c1 < c0 || b1 < b0 || (c1 == c0 && b1 == b0))
            return 0;
    }
    return t->ndumps > 1;
}

static int row_passes(const histo_table *t, const histo_row *r,
                      const histo_options *opt)
{
    size_t last = t->ndumps - 1;
    if (t->ndumps > 1 && !opt->all && histo_row_unchanged(t, r))
        return 0;
    uint64_t c, b;
    if (t->ndumps == 1) {
        c = histo_count(t, r, 0);
        b = histo_bytes(t, r, 0);
    } else {
        int neg;
        c = histo_delta(histo_count(t, r, 0), histo_count(t, r, last), &neg);
        b = histo_delta(histo_bytes(t, r, 0), histo_bytes(t, r, last), &neg);
    }
    if (c < opt->min_count || b < opt->min_bytes)
        return 0;
    if (opt->match != NULL && regexec(opt->match, r->name, 0, NULL, 0) != 0)
        return 0;
    return 1;
}

static void set_key(const histo_table *t, histo_row *r, enum histo_sort sort)
{
    size_t last = t->ndumps - 1;
    r->key_neg = 0;
    switch (sort) {
    case HISTO_SORT_COUNT:
        r->key = histo_count(t, r, last);
        break;
    case HISTO_SORT_NAME:
        r->key = 0;
        break;
    case HISTO_SORT_DELTA:
        r->key = histo_delta(histo_bytes(t, r, 0), histo_bytes(t, r, last),
                             &r->key_neg);
        break;
    case HISTO_SORT_DELTA_COUNT:
        r->key = histo_delta(histo_count(t, r, 0), histo_count(t, r, last),
                             &r->key_neg);
        break;
    case HISTO_SORT_OLDEST:
    case HISTO_SORT_LIFETIME: {
        const histo_life *l = histo_row_life(t, r, last);
        r->key = l == NULL                     ? 0
                 : sort == HISTO_SORT_OLDEST   ? l->oldest_us
                 : l->frees > 0                ? l->lifetime_us / l->frees
                                               : 0;
        break;
    }
    case HISTO_SORT_BYTES:
    case HISTO_SORT_DEFAULT:
        r->key = histo_bytes(t, r, last);
        break;
    }
}

static int compare_names(const histo_row *a, const histo_row *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c != 0)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Growing rows of a trend first; then the key, largest first (a signed
 * key: growth before shrinkage); then the name. Names are unique, so the
 * order is total and the output deterministic. */
static int compare_rows(const void *pa, const void *pb)
{
    const histo_row *a = pa, *b = pb;
    if (a->key_neg != b->key_neg)
        return a->key_neg ? 1 : -1;
    if (a->key != b->key) {
        int a_first = a->key > b->key;
        if (a->key_neg)
            a_first = !a_first;
        return a_first ? -1 : 1;
    }
    return compare_names(a, b);
}

static int compare_trend_rows(const void *pa, const void *pb)
{
    const histo_row *a = pa, *b = pb;
    if (a->growing != b->growing)
        return a->growing ? -1 : 1;
    return compare_rows(pa, pb);
}

void histo_table_finish(histo_table *t, const histo_options *opt)
{
    size_t nd = t->ndumps;
    enum histo_sort sort = opt->sort;
    if (sort == HISTO_SORT_DEFAULT)
        sort = nd == 1 ? HISTO_SORT_BYTES : HISTO_SORT_DELTA;
    if (nd == 1 && (sort == HISTO_SORT_DELTA || sort == HISTO_SORT_DELTA_COUNT))
        sort = sort == HISTO_SORT_DELTA ? HISTO_SORT_BYTES : HISTO_SORT_COUNT;
    t->sort = sort;

    memset(t->total, 0, nd * 2 * sizeof *t->total);
    size_t shown = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        histo_row *r = &t->rows[i];
        for (size_t d = 0; d < nd; d++) {
            t->total[2 * d] += histo_count(t, r, d);
            t->total[2 * d + 1] += histo_bytes(t, r, d);
        }
        r->growing = row_growing(t, r);
        set_key(t, r, sort);
        if (row_passes(t, r, opt)) { /* move it into the shown prefix */
            histo_row tmp = t->rows[shown];
            t->rows[shown] = *r;
            *r = tmp;
            shown++;
        }
    }
    if (shown > 1)
        qsort(t->rows, shown, sizeof *t->rows,
              nd >= 3 ? compare_trend_rows : compare_rows);
    if (opt->top != 0 && shown > opt->top)
        shown = (size_t)opt->top;
    t->nshown = shown;

    memcpy(t->omitted, t->total, nd * 2 * sizeof *t->total);
    for (size_t i = 0; i < shown; i++)
        for (size_t d = 0; d < nd; d++) {
            t->omitted[2 * d] -= histo_count(t, &t->rows[i], d);
            t->omitted[2 * d + 1] -= histo_bytes(t, &t->rows[i], d);
        }
}
