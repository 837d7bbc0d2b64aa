/* leaked.c -- heapfmt-graph leaked: the objects no root reaches, grouped
 * by class (or site), and the heads among them: the leaked objects that
 * no other leaked object points at, where a leak is looked at first
 * (freeing a head frees what hangs from it).
 *
 * For any dump: a native heap read from a core (heapfmt-core), whose
 * roots are registers, stacks and static data, or a VM's, whose
 * unreachable objects are garbage not yet collected. Weak references do
 * not keep an object alive and are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "node.h"
#include "rank.h"

#define DEFAULT_TOP 20

/* Marks what the roots reach: reached[v] = 1. Returns 0 or -1. */
static int reach(const graph *g, unsigned char *reached)
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

/* Flags the leaked objects that another leaked object points at
 * (pointed[v] = 1): the others are the heads. */
static void pointed_at(const graph *g, const unsigned char *reached,
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

typedef struct group_row {
    uint32_t group;
    uint64_t objects, bytes, heads, head_bytes;
} group_row;

static int row_cmp(const void *a, const void *b)
{
    const group_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->objects != y->objects)
        return x->objects > y->objects ? -1 : 1;
    return (x->group > y->group) - (x->group < y->group);
}

static int by_group(const graph *g, const unsigned char *reached,
                    const unsigned char *pointed, unsigned by, uint64_t top,
                    int format)
{
    tuples groups;
    tuples_init(&groups, g->mem, UINT32_MAX - 1);
    size_t nk = tuples_count(&g->kinds);
    uint32_t *kind_group = diff_mem_alloc(g->mem, (nk ? nk : 1) * sizeof *kind_group);
    group_row *rows = NULL;
    int rc = -1;
    if (kind_group == NULL)
        goto out;
    for (size_t k = 0; k < nk; k++) {
        tuple key = summary_group_key(tuples_get(&g->kinds, (uint32_t)k), by);
        if (tuples_intern(&groups, &key, &kind_group[k]) != 0)
            goto out;
    }
    size_t ng = tuples_count(&groups);
    rows = diff_mem_alloc(g->mem, (ng ? ng : 1) * sizeof *rows);
    if (rows == NULL)
        goto out;
    memset(rows, 0, (ng ? ng : 1) * sizeof *rows);
    for (size_t i = 0; i < ng; i++)
        rows[i].group = (uint32_t)i;
    for (uint32_t v = 0; v < g->nobjects; v++) {
        if (reached[v])
            continue;
        group_row *r = &rows[kind_group[g->kind[v]]];
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
    static const char *const cols_class[] = {"class", "objects", "bytes",
                                             "heads", "head_bytes"};
    static const char *const cols_site[] = {"site", "objects", "bytes",
                                            "heads", "head_bytes"};
    static const char *const cols_both[] = {"class", "site", "objects",
                                            "bytes", "heads", "head_bytes"};
    int both = by == (GROUP_CLASS | GROUP_SITE);
    out o;
    out_begin(&o, stdout, format, g->mem, both ? 6 : 5,
              by == GROUP_CLASS ? cols_class : by == GROUP_SITE ? cols_site
                                                                : cols_both);
    for (size_t i = 0; i < nr && (top == 0 || i < top); i++) {
        node_group_cells(&o, g, tuples_get(&groups, rows[i].group), by);
        out_u64(&o, rows[i].objects);
        out_u64(&o, rows[i].bytes);
        out_u64(&o, rows[i].heads);
        out_u64(&o, rows[i].head_bytes);
    }
    rc = out_finish(&o);
out:
    diff_mem_free(g->mem, kind_group);
    diff_mem_free(g->mem, rows);
    tuples_free(&groups);
    return rc;
}

/* One row per leaked object, the heads first, each part by size. */
static int by_object(const graph *g, const unsigned char *reached,
                     const unsigned char *pointed, uint64_t top, int format)
{
    static const char *const cols[] = {NODE_COLUMNS, "head"};
    uint64_t n = 0;
    for (uint32_t v = 0; v < g->nobjects; v++)
        n += !reached[v];
    size_t keep = top != 0 && top < n ? (size_t)top : (size_t)n;
    rank r;
    if (rank_init(&r, g->mem, keep ? keep : 1) != 0)
        return -1;
    /* heads above the others whatever their size: the key's top bit */
    for (uint32_t v = 0; v < g->nobjects; v++)
        if (!reached[v]) {
            uint64_t size = g->size[v] < (1ull << 62) ? g->size[v] : (1ull << 62) - 1;
            rank_add(&r, (pointed[v] ? 0 : 1ull << 62) | size, v);
        }
    size_t m = rank_sort(&r);
    out o;
    out_begin(&o, stdout, format, g->mem, NODE_NCOLUMNS + 1, cols);
    for (size_t i = 0; i < m; i++) {
        uint32_t v = r.v[i].value;
        node_cells(&o, g, v);
        out_u64(&o, !pointed[v]);
    }
    rank_free(&r);
    return out_finish(&o);
}

int cmd_leaked(const graph_query *opt, char *const *args, int nargs)
{
    if (cmd_one_dump_by_class_or_site("leaked", opt, nargs) != 0)
        return CLI_EXIT_USAGE;
    graph g;
    int rc = graph_query_load(&g, args[0], opt, LOAD_OBJECTS);
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE) {
        graph_free(&g);
        return rc;
    }
    unsigned char *reached = diff_mem_alloc(g.mem, (size_t)g.nnodes + 1);
    unsigned char *pointed = diff_mem_alloc(g.mem, (size_t)g.nobjects + 1);
    if (reached == NULL || pointed == NULL || reach(&g, reached) != 0) {
        cli_error(g.d.name, "out of memory");
        rc = CLI_EXIT_ERROR;
        goto out;
    }
    pointed_at(&g, reached, pointed);
    if (g.nroots == 0 && g.nobjects > 0)
        cli_warn(g.d.name, "the dump has no roots: every object counts as "
                           "leaked");
    /* As owners: an empty answer said on stderr; stdout keeps its form
     * (no rows; the header in tsv and csv, [] in json). */
    if (memchr(reached, 0, g.nobjects) == NULL)
        cli_warn(g.d.name, "every object is reachable from a root: nothing "
                           "leaked");
    int r = opt->objects
                ? by_object(&g, reached, pointed, opt->top, opt->format)
                : by_group(&g, reached, pointed, opt->by ? opt->by : GROUP_CLASS,
                           opt->top_given ? opt->top : DEFAULT_TOP, opt->format);
    if (r != 0) {
        cli_error(g.d.name, "out of memory");
        rc = CLI_EXIT_ERROR;
        goto out;
    }
out:
    diff_mem_free(g.mem, reached);
    diff_mem_free(g.mem, pointed);
    graph_free(&g);
    return rc;
}
