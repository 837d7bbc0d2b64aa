/* graph_leaked.c -- the objects no root reaches, grouped by class (or
 * site), and the heads among them: the leaked objects that
 * no other leaked object points at, where a leak is looked at first
 * (freeing a head frees what hangs from it).
 *
 * For any dump: a native heap read from a core (heapfmt-core), whose
 * roots are registers, stacks and static data, or a VM's, whose
 * unreachable objects are garbage not yet collected. Weak references do
 * not keep an object alive and are left out. */
#include <stdlib.h>
#include <string.h>

#include "diff_summary.h"
#include "graph_leaked.h"

int leaked_reach(const graph *g, unsigned char *reached)
{
    uint32_t *stack = diff_mem_alloc(g->mem, ((size_t)g->nnodes + 1) * sizeof *stack);
    if (stack == NULL)
        return -1;
    size_t n = 0;
    memset(reached, 0, g->nnodes);
    for (uint32_t r = g->nobjects; r < g->nnodes; r++) {
        reached[r] = 1;
        stack[n++] = r;
    }
    while (n > 0) {
        uint32_t v = stack[--n];
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
            uint32_t t = g->dst[e];
            if (t < g->nnodes && !reached[t]) {
                reached[t] = 1;
                stack[n++] = t; /* each node is pushed once: n <= nnodes */
            }
        }
    }
    diff_mem_free(g->mem, stack);
    return 0;
}

void leaked_pointed_at(const graph *g, const unsigned char *reached,
                       unsigned char *pointed)
{
    memset(pointed, 0, g->nobjects);
    for (uint32_t v = 0; v < g->nobjects; v++) {
        if (reached[v])
            continue;
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
            uint32_t t = g->dst[e];
            if (t < g->nobjects && t != v)
                pointed[t] = 1;
        }
    }
}

static int row_cmp(const void *a, const void *b)
{
    const leaked_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->objects != y->objects)
        return x->objects > y->objects ? -1 : 1;
    return (x->group > y->group) - (x->group < y->group);
}

int leaked_groups(const graph *g, const unsigned char *reached,
                  const unsigned char *pointed, unsigned by, tuples *groups,
                  leaked_row **rows_out, size_t *nrows)
{
    tuples_init(groups, g->mem, UINT32_MAX - 1);
    size_t nk = tuples_count(&g->kinds);
    uint32_t *kind_group = diff_mem_alloc(g->mem, (nk ? nk : 1) * sizeof *kind_group);
    leaked_row *rows = NULL;
    int rc = -1;
    *rows_out = NULL;
    *nrows = 0;
    if (kind_group == NULL)
        goto out;
    for (size_t k = 0; k < nk; k++) {
        tuple key = summary_group_key(tuples_get(&g->kinds, (uint32_t)k), by);
        if (tuples_intern(groups, &key, &kind_group[k]) != 0)
            goto out;
    }
    size_t ng = tuples_count(groups);
    rows = diff_mem_alloc(g->mem, (ng ? ng : 1) * sizeof *rows);
    if (rows == NULL)
        goto out;
    memset(rows, 0, (ng ? ng : 1) * sizeof *rows);
    for (size_t i = 0; i < ng; i++)
        rows[i].group = (uint32_t)i;
    for (uint32_t v = 0; v < g->nobjects; v++) {
        if (reached[v])
            continue;
        leaked_row *r = &rows[kind_group[g->kind[v]]];
        r->objects++;
        r->bytes += g->size[v];
        if (!pointed[v]) {
            r->heads++;
            r->head_bytes += g->size[v];
        }
    }
    size_t nr = 0;
    for (size_t i = 0; i < ng; i++)
        if (rows[i].objects > 0)
            rows[nr++] = rows[i];
    qsort(rows, nr, sizeof *rows, row_cmp);
    *rows_out = rows;
    *nrows = nr;
    rows = NULL;
    rc = 0;
out:
    diff_mem_free(g->mem, kind_group);
    diff_mem_free(g->mem, rows);
    return rc;
}

int leaked_objects(const graph *g, const unsigned char *reached,
                   const unsigned char *pointed, uint64_t top, rank *r)
{
    uint64_t n = 0;
    for (uint32_t v = 0; v < g->nobjects; v++)
        n += !reached[v];
    size_t keep = top != 0 && top < n ? (size_t)top : (size_t)n;
    if (rank_init(r, g->mem, keep ? keep : 1) != 0)
        return -1;
    /* heads above the others whatever their size: the key's top bit */
    for (uint32_t v = 0; v < g->nobjects; v++)
        if (!reached[v]) {
            uint64_t size = g->size[v] < (1ull << 62) ? g->size[v] : (1ull << 62) - 1;
            rank_add(r, (pointed[v] ? 0 : 1ull << 62) | size, v);
        }
    rank_sort(r);
    return 0;
}
