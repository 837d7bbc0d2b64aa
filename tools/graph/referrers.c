/* referrers.c -- heapfmt-graph referrers: the objects (and roots) that
 * reference the given objects, one row per reference. */
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "node.h"

static const char *const columns[] = {"target", NODE_COLUMNS, "via"};
#define NCOLUMNS (2 + NODE_NCOLUMNS)

typedef struct listing {
    const graph *g;
    out o;
    uint64_t rows, top;
} listing;

/* One row: the target, the referrer (the source of edge e), the label. */
static void row(listing *l, uint32_t target, size_t e)
{
    out_id(&l->o, l->g->id[target]);
    node_cells(&l->o, l->g, graph_edge_source(l->g, e));
    node_via_cell(&l->o, l->g, e);
    l->rows++;
}

static int full(const listing *l)
{
    return l->top != 0 && l->rows >= l->top;
}

/* The kinds whose class is one of names: a flag per kind. */
static unsigned char *class_kinds(const graph *g, const graph_query *opt)
{
    size_t nk = tuples_count(&g->kinds);
    unsigned char *want = diff_mem_alloc(g->mem, nk ? nk : 1);
    if (want == NULL)
        return NULL;
    for (size_t k = 0; k < nk; k++) {
        graph_kind_text t;
        graph_kind_text_of(g, (uint32_t)k, &t);
        want[k] = 0;
        for (size_t i = 0; i < opt->nclasses; i++)
            if (strlen(opt->classes[i]) == t.klass_len &&
                memcmp(opt->classes[i], t.klass, t.klass_len) == 0)
                want[k] = 1;
    }
    return want;
}

static int by_class(listing *l, const graph_query *opt)
{
    const graph *g = l->g;
    unsigned char *want = class_kinds(g, opt);
    if (want == NULL) {
        cli_error(g->d.name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    uint64_t targets = 0;
    for (uint32_t v = 0; v < g->nobjects; v++)
        targets += want[g->kind[v]];
    for (size_t e = 0; e < g->nedges && !full(l); e++) {
        uint32_t t = g->dst[e];
        if (t < g->nobjects && want[g->kind[t]])
            row(l, t, e);
    }
    diff_mem_free(g->mem, want);
    if (targets == 0)
        cli_warn(g->d.name, "no object of %s%s in the dump", opt->classes[0],
                 opt->nclasses > 1 ? " or the other classes given" : "");
    return CLI_EXIT_OK;
}

static int by_ids(listing *l, char *const *ids, int nids)
{
    const graph *g = l->g;
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < nids && !full(l); i++) {
        uint64_t id;
        uint32_t t;
        if (cmd_parse_id(ids[i], &id) != 0)
            return CLI_EXIT_USAGE;
        if (!graph_find(g, id, &t)) {
            cli_error(g->d.name, "no object %s in the dump", ids[i]);
            rc = CLI_EXIT_ERROR;
            continue;
        }
        uint64_t before = l->rows;
        for (size_t e = 0; e < g->nedges && !full(l); e++)
            if (g->target_id != NULL ? g->target_id[e] == id
                                     : g->dst[e] == t)
                row(l, t, e);
        if (l->rows == before)
            cli_warn(g->d.name, "nothing in the dump references %s", ids[i]);
    }
    return rc;
}

int cmd_referrers(const graph_query *opt, char *const *args, int nargs)
{
    if (nargs < 1 || (nargs < 2 && opt->nclasses == 0)) {
        cli_usage_error("referrers: expected a dump and object ids, or "
                        "--class NAME");
        return CLI_EXIT_USAGE;
    }
    graph g;
    /* Given ids alone are found by comparing each reference with them:
     * resolving every reference first would cost more than the answer
     * (--class needs the targets' classes, so resolves). */
    /* Every reference is listed, weak ones marked, unless --no-weak. */
    int rc = cmd_load_for_ids(
        &g, args, nargs, opt,
        (opt->nclasses > 0 ? 0 : LOAD_TARGET_IDS) |
            (opt->no_weak ? 0 : LOAD_WEAK));
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE)
        return rc;
    listing l = {&g, {0}, 0, opt->top};
    out_begin(&l.o, stdout, opt->format, opt->mem, NCOLUMNS, columns);
    int found = CLI_EXIT_OK;
    if (nargs > 1)
        found = by_ids(&l, args + 1, nargs - 1);
    if (opt->nclasses > 0 && found != CLI_EXIT_USAGE)
        found = graph_worse(found, by_class(&l, opt));
    if (out_finish(&l.o) != 0) {
        cli_error(g.d.name, "out of memory");
        found = CLI_EXIT_ERROR;
    }
    graph_free(&g);
    return graph_worse(rc, found);
}
