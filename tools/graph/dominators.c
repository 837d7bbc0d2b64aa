/* dominators.c -- heapfmt-graph dominators: the objects with the largest
 * retained size (what freeing them would free), or retained sizes by
 * class and by allocation site. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cmd.h"
#include "domtree.h"
#include "extmem.h"
#include "graph_dominators.h"
#include "node.h"
#include "rank.h"
#include "rollup.h"

#define DEFAULT_TOP 20

static const char *const object_columns[] = {NODE_COLUMNS, "retained_size"};

static int top_objects(const graph *g, const dom_tree *t, uint64_t top,
                       int format)
{
    rank r;
    if (rank_init(&r, g->mem, top < t->n ? (size_t)top : t->n) != 0)
        return -1;
    for (uint32_t p = 1; p < t->n; p++)
        if (t->vertex[p] < g->nobjects)
            rank_add(&r, t->retained[p], p);
    size_t n = rank_sort(&r);
    cli_rows o;
    out_begin(&o, stdout, format, g->mem, NODE_NCOLUMNS + 1, object_columns);
    for (size_t i = 0; i < n; i++) {
        node_cells(&o, g, t->vertex[r.v[i].value]);
        cli_rows_u64(&o, r.v[i].key);
    }
    rank_free(&r);
    return cli_rows_finish(&o);
}

/* The rows of r; g names their classes and sites. */
static int print_groups(const graph *g, const rollup *rp, unsigned by,
                        uint64_t top, int format)
{
    static const char *const tail[] = {"objects", "bytes", "retained_size"};
    const rollup r = *rp;
    const char *cols[5];
    cli_rows o;
    out_begin(&o, stdout, format, g->mem,
              node_group_columns(by, tail, 3, cols), cols);
    for (size_t i = 0; i < r.nrows && i < top; i++) {
        const rollup_row *row = &r.rows[i];
        node_group_cells(&o, g, tuples_get(&r.groups, row->group), by);
        cli_rows_u64(&o, row->objects);
        cli_rows_u64(&o, row->bytes);
        cli_rows_u64(&o, row->retained);
    }
    return cli_rows_finish(&o);
}

static int top_groups(const graph *g, const dom_tree *t, unsigned by,
                      uint64_t top, int format)
{
    rollup r;
    int rc = rollup_build(g, t, by, &r) != 0
                 ? -1
                 : print_groups(g, &r, by, top, format);
    rollup_free(&r);
    return rc;
}

/* A size from the environment, or dflt when unset or not a positive
 * number (heapfmt-graph(1), ENVIRONMENT: testing and measuring knobs). */
static size_t env_size(const char *name, size_t dflt)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return *end == '\0' && v > 0 ? (size_t)v : dflt;
}

/* --temp-dir: the same rows from the external-memory path (extmem.h).
 * Returns the exit code; the engines' failures are said here. */
static int external(const graph_query *opt, const char *path)
{
    extmem_tree t;
    extmem_settings s = EXTMEM_SETTINGS_INIT;
    s.dir = opt->temp_dir;
    s.ring = env_size("HEAPFMT_EXTMEM_RING", s.ring);
    s.bucket = env_size("HEAPFMT_EXTMEM_BUCKET", s.bucket);
    s.stats = getenv("HEAPFMT_EXTMEM_STATS") != NULL;
    int rc = extmem_dominators(opt, path, &s, &t);
    uint64_t ntop = opt->top_given ? opt->top : DEFAULT_TOP;
    if ((rc == AN_OK || rc == AN_INCOMPLETE) && opt->by != 0) {
        rollup r;
        graph names;
        int grc = extmem_rollup(&t, path, opt->by, &r, &names);
        if (grc != AN_OK) {
            rc = grc;
        } else if (print_groups(&names, &r, opt->by, ntop, opt->format) !=
                   0) {
            cli_error(t.meta.d.name, "out of memory");
            rc = AN_ERROR;
        }
        rollup_free(&r);
        graph_free(&names);
    } else if (rc == AN_OK || rc == AN_INCOMPLETE) {
        extmem_top top;
        int trc = extmem_top_objects(&t, path, ntop, &top);
        if (trc != AN_OK) {
            rc = trc;
        } else {
            cli_rows o;
            out_begin(&o, stdout, opt->format, opt->mem, NODE_NCOLUMNS + 1,
                      object_columns);
            for (size_t i = 0; i < top.rows; i++) {
                node_cells(&o, &top.g, (uint32_t)i);
                cli_rows_u64(&o, top.retained[i]);
            }
            if (cli_rows_finish(&o) != 0) {
                cli_error(t.meta.d.name, "out of memory");
                rc = AN_ERROR;
            }
        }
        extmem_top_free(&top);
    }
    extmem_tree_free(&t);
    return cli_an_exit(opt->ctx, rc);
}

int cmd_dominators(const graph_query *opt, char *const *args, int nargs)
{
    if (cmd_one_dump_by_class_or_site("dominators", opt, nargs) != 0)
        return CLI_EXIT_USAGE;
    if (opt->temp_dir != NULL) {
        if (strcmp(args[0], "-") == 0) { /* read four times */
            return cli_usage_error("--temp-dir reads the dump four times: give "
                                   "a file, not standard input");
        }
        return external(opt, args[0]);
    }
    graph g;
    dom_tree t;
    int rc = cli_an_exit(opt->ctx, dominators_tree(opt, args[0], &g, &t));
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        uint64_t top = opt->top_given ? opt->top : DEFAULT_TOP;
        if ((opt->by == 0 ? top_objects(&g, &t, top, opt->format)
                          : top_groups(&g, &t, opt->by, top, opt->format)) !=
            0) {
            cli_error(g.d.name, "out of memory");
            rc = CLI_EXIT_ERROR;
        }
    }
    dom_free(&t);
    graph_free(&g);
    return rc;
}
