/* rollup.c -- retained sizes summed by class and/or allocation site. */
#include <stdlib.h>
#include <string.h>

#include "graph_query.h"
#include "rollup.h"

/* The group of each kind of g. Returns an array of kind count, or NULL. */
static uint32_t *kind_groups(const graph *g, unsigned by, rollup *r)
{
    size_t nk = tuples_count(&g->kinds);
    uint32_t *group = diff_mem_alloc(r->mem, (nk ? nk : 1) * sizeof *group);
    if (group == NULL)
        return NULL;
    for (size_t k = 0; k < nk; k++) {
        tuple key = summary_group_key(tuples_get(&g->kinds, (uint32_t)k), by);
        if (tuples_intern(&r->groups, &key, &group[k]) != 0) {
            diff_mem_free(r->mem, group);
            return NULL;
        }
    }
    return group;
}

/* Children lists of the dominator tree: start[p] .. start[p + 1] index
 * child. Returns 0 or -1. */
static int children(const dom_tree *t, uint32_t **start, uint32_t **child)
{
    *start = diff_mem_alloc(t->mem, ((size_t)t->n + 1) * sizeof **start);
    *child = diff_mem_alloc(t->mem, ((size_t)t->n + 1) * sizeof **child);
    if (*start == NULL || *child == NULL)
        return -1;
    memset(*start, 0, ((size_t)t->n + 1) * sizeof **start);
    for (uint32_t p = 1; p < t->n; p++)
        (*start)[t->idom[p] + 1]++;
    for (uint32_t p = 0; p < t->n; p++)
        (*start)[p + 1] += (*start)[p];
    for (uint32_t p = t->n; p-- > 1;)
        (*child)[--(*start)[t->idom[p] + 1]] = p;
    memmove(*start, *start + 1, (size_t)t->n * sizeof **start);
    (*start)[t->n] = t->n - 1;
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const rollup_row *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained > y->retained ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return (x->group > y->group) - (x->group < y->group);
}

/* Walks the dominator tree depth first, keeping on `path` the nodes from
 * the virtual root to the current one, and per group how many of them
 * belong to it: an object counts its retained size for its group when
 * none of its dominators is of that group. */
static int walk(const graph *g, const dom_tree *t, const uint32_t *group,
                rollup *r)
{
    uint32_t *start = NULL, *child = NULL, *stack = NULL, *path = NULL;
    uint32_t *active = NULL;
    size_t nstack = 0, capstack = 0, npath = 0, cappath = 0;
    int rc = -1;
    size_t ng = tuples_count(&r->groups);
    active = diff_mem_alloc(r->mem, (ng ? ng : 1) * sizeof *active);
    if (active == NULL || children(t, &start, &child) != 0)
        goto out;
    memset(active, 0, (ng ? ng : 1) * sizeof *active);
    if (diff_mem_reserve(r->mem, (void **)&stack, &capstack, 1, sizeof *stack))
        goto out;
    stack[nstack++] = 0;
    while (nstack > 0) {
        uint32_t p = stack[--nstack];
        while (npath > 0 && path[npath - 1] != t->idom[p]) {
            uint32_t q = t->vertex[path[--npath]];
            if (q < g->nobjects)
                active[group[g->kind[q]]]--;
        }
        if (diff_mem_reserve(r->mem, (void **)&path, &cappath, npath + 1,
                        sizeof *path) != 0)
            goto out;
        path[npath++] = p;
        uint32_t v = t->vertex[p];
        if (v < g->nobjects) {
            rollup_row *row = &r->rows[group[g->kind[v]]];
            row->objects++;
            row->bytes += g->size[v];
            if (active[row->group]++ == 0)
                row->retained += t->retained[p];
        }
        uint32_t b = start[p], e = start[p + 1];
        if (diff_mem_reserve(r->mem, (void **)&stack, &capstack,
                        nstack + (e - b), sizeof *stack) != 0)
            goto out;
        for (uint32_t i = e; i-- > b;)
            stack[nstack++] = child[i];
    }
    rc = 0;
out:
    diff_mem_free(r->mem, start);
    diff_mem_free(r->mem, child);
    diff_mem_free(r->mem, stack);
    diff_mem_free(r->mem, path);
    diff_mem_free(r->mem, active);
    return rc;
}

int rollup_build(const graph *g, const dom_tree *t, unsigned by, rollup *r)
{
    memset(r, 0, sizeof *r);
    r->mem = t->mem;
    tuples_init(&r->groups, r->mem, UINT32_MAX - 1);
    uint32_t *group = kind_groups(g, by, r);
    if (group == NULL)
        return -1;
    size_t ng = tuples_count(&r->groups);
    r->rows = diff_mem_alloc(r->mem, (ng ? ng : 1) * sizeof *r->rows);
    if (r->rows == NULL) {
        diff_mem_free(r->mem, group);
        return -1;
    }
    memset(r->rows, 0, (ng ? ng : 1) * sizeof *r->rows);
    for (size_t i = 0; i < ng; i++)
        r->rows[i].group = (uint32_t)i;
    r->nrows = ng;
    int rc = walk(g, t, group, r);
    diff_mem_free(r->mem, group);
    if (rc != 0)
        return -1;
    rollup_sort(r);
    return 0;
}

void rollup_sort(rollup *r)
{
    /* Groups with no reachable object go. */
    size_t w = 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].objects > 0)
            r->rows[w++] = r->rows[i];
    r->nrows = w;
    qsort(r->rows, r->nrows, sizeof *r->rows, row_cmp);
}

void rollup_free(rollup *r)
{
    tuples_free(&r->groups);
    diff_mem_free(r->mem, r->rows);
    r->rows = NULL;
    r->nrows = 0;
}
