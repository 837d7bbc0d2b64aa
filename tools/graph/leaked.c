/* leaked.c -- heapfmt-graph leaked: the objects no root reaches, grouped
 * by class (or site), and the heads among them (analysis/graph_leaked.h
 * finds them; this prints them). */
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cmd.h"
#include "graph_leaked.h"
#include "node.h"

#define DEFAULT_TOP 20

static int by_group(const graph *g, const unsigned char *reached,
                    const unsigned char *pointed, unsigned by, uint64_t top,
                    int format)
{
    tuples groups;
    leaked_row *rows;
    size_t nr;
    if (leaked_groups(g, reached, pointed, by, &groups, &rows, &nr) != 0) {
        tuples_free(&groups);
        return -1;
    }
    static const char *const tail[] = {"objects", "bytes", "heads",
                                       "head_bytes"};
    const char *cols[6];
    cli_rows o;
    out_begin(&o, stdout, format, g->mem,
              node_group_columns(by, tail, 4, cols), cols);
    for (size_t i = 0; i < nr && (top == 0 || i < top); i++) {
        node_group_cells(&o, g, tuples_get(&groups, rows[i].group), by);
        cli_rows_u64(&o, rows[i].objects);
        cli_rows_u64(&o, rows[i].bytes);
        cli_rows_u64(&o, rows[i].heads);
        cli_rows_u64(&o, rows[i].head_bytes);
    }
    int rc = cli_rows_finish(&o);
    diff_mem_free(g->mem, rows);
    tuples_free(&groups);
    return rc;
}

/* One row per leaked object, the heads first, each part by size. */
static int by_object(const graph *g, const unsigned char *reached,
                     const unsigned char *pointed, uint64_t top, int format)
{
    static const char *const cols[] = {NODE_COLUMNS, "head"};
    rank r;
    if (leaked_objects(g, reached, pointed, top, &r) != 0)
        return -1;
    cli_rows o;
    out_begin(&o, stdout, format, g->mem, NODE_NCOLUMNS + 1, cols);
    for (size_t i = 0; i < r.n; i++) {
        uint32_t v = r.v[i].value;
        node_cells(&o, g, v);
        cli_rows_u64(&o, !pointed[v]);
    }
    rank_free(&r);
    return cli_rows_finish(&o);
}

int cmd_leaked(const graph_query *opt, char *const *args, int nargs)
{
    if (cmd_one_dump_by_class_or_site("leaked", opt, nargs) != 0)
        return CLI_EXIT_USAGE;
    graph g;
    int rc = cli_an_exit(opt->ctx,
                         graph_query_load(&g, args[0], opt, LOAD_OBJECTS));
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE) {
        graph_free(&g);
        return rc;
    }
    unsigned char *reached = diff_mem_alloc(g.mem, (size_t)g.nnodes + 1);
    unsigned char *pointed = diff_mem_alloc(g.mem, (size_t)g.nobjects + 1);
    if (reached == NULL || pointed == NULL || leaked_reach(&g, reached) != 0) {
        cli_error(g.d.name, "out of memory");
        rc = CLI_EXIT_ERROR;
        goto out;
    }
    leaked_pointed_at(&g, reached, pointed);
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
