/* referrers.c -- heapfmt-graph referrers: the objects (and roots) that
 * reference the given objects, one row per reference
 * (analysis/graph_referrers.h walks them). */
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "graph_referrers.h"
#include "node.h"

static const char *const columns[] = {"target", NODE_COLUMNS, "via"};
#define NCOLUMNS (2 + NODE_NCOLUMNS)

typedef struct listing {
    const graph *g;
    cli_rows o;
    uint64_t rows, top;
} listing;

static int full(const listing *l)
{
    return l->top != 0 && l->rows >= l->top;
}

/* One row: the target, the referrer (the source of edge e), the label.
 * Returns nonzero when the listing is full. */
static int row(void *ctx, uint32_t target, size_t e)
{
    listing *l = ctx;
    cli_rows_id(&l->o, l->g->id[target]);
    node_cells(&l->o, l->g, graph_edge_source(l->g, e));
    node_via_cell(&l->o, l->g, e);
    l->rows++;
    return full(l);
}

static int by_class(listing *l, const graph_query *opt)
{
    const graph *g = l->g;
    unsigned char *want = graph_class_kinds(g, opt->classes, opt->nclasses);
    if (want == NULL) {
        cli_error(g->d.name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    uint64_t targets = 0;
    for (uint32_t v = 0; v < g->nobjects; v++)
        targets += want[g->kind[v]];
    if (!full(l))
        graph_referrers_of_kinds(g, want, row, l);
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
        if (graph_referrers_of(g, id, t, row, l) == 0)
            cli_warn(g->d.name, "nothing in the dump references %s", ids[i]);
    }
    return rc;
}

int cmd_referrers(const graph_query *opt, char *const *args, int nargs)
{
    if (nargs < 1 || (nargs < 2 && opt->nclasses == 0)) {
        return cli_usage_error("referrers: expected a dump and object ids, or "
                               "--class NAME");
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
    if (cli_rows_finish(&l.o) != 0) {
        cli_error(g.d.name, "out of memory");
        found = CLI_EXIT_ERROR;
    }
    graph_free(&g);
    return graph_worse(rc, found);
}
