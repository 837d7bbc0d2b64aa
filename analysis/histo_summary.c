/* histo_summary.c -- does the footer's per-class summary say what the
 * blocks hold? A scan (-S, -jN) that trusts its blocks checks it, so that
 * a footer that lies is reported the same way by every path. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "histo.h"

static int by_index(const void *a, const void *b)
{
    const histo_class_total *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int summary_by_index(const void *a, const void *b)
{
    const heapfmt_class_summary *x = *(const heapfmt_class_summary *const *)a;
    const heapfmt_class_summary *y = *(const heapfmt_class_summary *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

int histo_summary_check(const heapfmt_footer *f, histo_class_total *v,
                        size_t n, char *why, size_t cap)
{
    /* Sum the counts of each index (several ranges may hold a class). */
    qsort(v, n, sizeof *v, by_index);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && v[m - 1].index == v[i].index) {
            v[m - 1].count += v[i].count;
            v[m - 1].bytes += v[i].bytes;
        } else if (v[i].count > 0) {
            v[m++] = v[i];
        }
    }
    const heapfmt_class_summary **e =
        malloc((f->nclasses ? f->nclasses : 1) * sizeof *e);
    if (e == NULL)
        return -1;
    size_t ne = 0;
    for (size_t i = 0; i < f->nclasses; i++)
        if (f->classes[i].count > 0)
            e[ne++] = &f->classes[i];
    qsort(e, ne, sizeof *e, summary_by_index);
    int rc = 0;
    size_t i = 0, j = 0;
    while ((i < m || j < ne) && rc == 0) {
        uint64_t count = 0, bytes = 0, scount = 0, sbytes = 0;
        uint32_t index;
        if (j == ne || (i < m && v[i].index < e[j]->index)) {
            index = v[i].index;
            count = v[i].count;
            bytes = v[i++].bytes;
        } else if (i == m || e[j]->index < v[i].index) {
            index = e[j]->index;
            scount = e[j]->count;
            sbytes = e[j++]->bytes;
        } else {
            index = v[i].index;
            count = v[i].count;
            bytes = v[i++].bytes;
            scount = e[j]->count;
            sbytes = e[j++]->bytes;
        }
        if (count != scount || bytes != sbytes) {
            snprintf(why, cap,
                     "the footer's summary of class index %" PRIu32
                     " says %" PRIu64 " objects, %" PRIu64
                     " bytes; the blocks hold %" PRIu64 ", %" PRIu64,
                     index, scount, sbytes, count, bytes);
            rc = 1;
        }
    }
    free(e);
    return rc;
}
