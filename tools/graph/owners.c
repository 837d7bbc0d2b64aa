/* owners.c -- heapfmt-graph owners D1 D2 D3: who holds the leak, each
 * owner printed with its path from a root (analysis/graph_owners.h finds
 * them). */
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "graph_owners.h"
#include "node.h"

#define DEFAULT_TOP 10

static const char *const columns[] = {"owner", "leaked_objects",
                                      "leaked_bytes", "hop", "via",
                                      NODE_COLUMNS};
#define NCOLUMNS (5 + NODE_NCOLUMNS)

/* Prints the owner's path from a root (the owner itself last), each row
 * with the owner's rank and what it holds. Returns 0 or -1. */
static int print_owner(cli_rows *o, const graph *g, const paths *p, uint64_t rank_no,
                       uint32_t v, const owner_sum *s)
{
    uint32_t *nodes = NULL, *edges = NULL, vroot = graph_vroot(g);
    long n = 1;
    if (v != vroot) {
        n = paths_to(g, p, v, &nodes, &edges);
        if (n < 0)
            return -1;
    }
    for (long i = 0; i < n; i++) {
        cli_rows_u64(o, rank_no);
        cli_rows_u64(o, s->objects);
        cli_rows_u64(o, s->bytes);
        cli_rows_u64(o, (uint64_t)i);
        node_via_cell(o, g, nodes != NULL ? edges[i] : GRAPH_NONE);
        node_cells(o, g, nodes != NULL ? nodes[i] : vroot);
    }
    diff_mem_free(g->mem, nodes);
    diff_mem_free(g->mem, edges);
    return 0;
}

int cmd_owners(const graph_query *opt, char *const *args, int nargs)
{
    if (nargs != 3) {
        return cli_usage_error("owners: expected three dumps D1 D2 D3");
    }
    if (strcmp(args[2], "-") == 0) {
        return cli_usage_error("owners: D3 is read twice and cannot be "
                               "standard input");
    }
    if (strcmp(args[0], "-") == 0 && strcmp(args[1], "-") == 0) {
        return cli_usage_error("standard input (-) can be only one of the "
                               "dumps");
    }
    owners_result res;
    int rc = cli_an_exit(opt->ctx,
                         owners_compute(opt, args,
                                        opt->top_given ? opt->top : DEFAULT_TOP,
                                        &res));
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        cli_rows o;
        int failed = 0;
        out_begin(&o, stdout, opt->format, res.g.mem, NCOLUMNS, columns);
        for (size_t i = 0; i < res.ntop && !failed; i++)
            failed = print_owner(&o, &res.g, &res.p, i + 1,
                                 res.t.vertex[res.top[i].owner],
                                 &res.top[i]) != 0;
        if (cli_rows_finish(&o) != 0 || failed) {
            cli_error(res.g.d.name, "out of memory");
            rc = CLI_EXIT_ERROR;
        }
    }
    owners_free(&res);
    return rc;
}
