/* path.c -- heapfmt-graph path: the shortest path from a root to each
 * given object, one row per hop; with -k N, up to N distinct paths, each
 * reaching the object through a different reference (nearest first). */
#include <stdio.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "node.h"
#include "shortest_paths.h"

static const char *const columns[] = {"target", "path", "hop", "via",
                                      NODE_COLUMNS};
#define NCOLUMNS (4 + NODE_NCOLUMNS)

typedef struct walk {
    const graph *g;
    const paths *p;
    cli_rows o;
} walk;

/* Prints the path to src followed by the edge e (GRAPH_NONE: the path to
 * src alone). Returns 0, 1 when that path would go through the target
 * before reaching it (nothing printed), or -1 (no memory). */
static int print_path(walk *w, uint32_t target, uint64_t number, uint32_t src,
                      uint32_t e)
{
    uint32_t *nodes, *edges;
    long n = paths_to(w->g, w->p, src, &nodes, &edges);
    if (n < 0)
        return -1;
    if (e != GRAPH_NONE) { /* a way back through the target: no */
        for (long i = 0; i < n; i++) {
            if (nodes[i] == target) {
                diff_mem_free(w->g->mem, nodes);
                diff_mem_free(w->g->mem, edges);
                return 1;
            }
        }
    }
    long hops = n + (e != GRAPH_NONE);
    for (long i = 0; i < hops; i++) {
        uint32_t v = i < n ? nodes[i] : target;
        uint32_t via = i < n ? edges[i] : e;
        cli_rows_id(&w->o, w->g->id[target]);
        cli_rows_u64(&w->o, number);
        cli_rows_u64(&w->o, (uint64_t)i);
        node_via_cell(&w->o, w->g, via);
        node_cells(&w->o, w->g, v);
    }
    diff_mem_free(w->g->mem, nodes);
    diff_mem_free(w->g->mem, edges);
    return 0;
}

/* Up to k paths to t, each through a different reference to it, those
 * from the referrers nearest a root first. Returns 0 or -1. */
static int distinct_paths(walk *w, uint32_t t, uint64_t k)
{
    const graph *g = w->g;
    paths_way *ways;
    size_t n;
    if (paths_ways_to(g, w->p, t, &ways, &n) != 0)
        return -1;
    int rc = 0;
    uint64_t printed = 0;
    for (size_t i = 0; i < n && printed < k && rc >= 0; i++) {
        rc = print_path(w, t, printed + 1,
                        graph_edge_source(g, ways[i].edge), ways[i].edge);
        printed += rc == 0;
    }
    diff_mem_free(g->mem, ways);
    return rc < 0 ? -1 : 0;
}

int cmd_path(const graph_query *opt, char *const *args, int nargs)
{
    if (nargs < 2) {
        return cli_usage_error("path: expected a dump and object ids");
    }
    graph g;
    int rc = cmd_load_for_ids(&g, args, nargs, opt, LOAD_INDEX);
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE)
        return rc;
    paths p;
    if (paths_build(&g, &p) != 0) {
        cli_error(g.d.name, "out of memory");
        graph_free(&g);
        return CLI_EXIT_ERROR;
    }
    walk w = {&g, &p, {0}};
    out_begin(&w.o, stdout, opt->format, opt->mem, NCOLUMNS, columns);
    int found = CLI_EXIT_OK, nomem = 0;
    for (int i = 1; i < nargs && !nomem; i++) {
        uint64_t id;
        uint32_t t;
        cmd_parse_id(args[i], &id);
        if (!graph_find(&g, id, &t)) {
            cli_error(g.d.name, "no object %s in the dump", args[i]);
            found = CLI_EXIT_ERROR;
        } else if (p.dist[t] == GRAPH_NONE) {
            cli_warn(g.d.name,
                     "%s is not reachable from any root%s (garbage not yet "
                     "collected, or held by something the dump does not "
                     "record)",
                     args[i], opt->weak ? "" : " by strong references");
        } else if (opt->npaths <= 1) {
            nomem = print_path(&w, t, 1, t, GRAPH_NONE) != 0;
        } else {
            nomem = distinct_paths(&w, t, opt->npaths) != 0;
        }
    }
    if (cli_rows_finish(&w.o) != 0)
        nomem = 1;
    if (nomem) {
        cli_error(g.d.name, "out of memory");
        found = CLI_EXIT_ERROR;
    }
    paths_free(&p);
    graph_free(&g);
    return graph_worse(rc, found);
}
