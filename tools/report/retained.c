/* retained.c -- the dominator tree of the last dump summed by class, as
 * heapfmt-graph dominators --by=class: a table, and the treemap the
 * script draws from the same rows. */
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "dominators.h"
#include "html.h"
#include "report.h"
#include "rollup.h"

static const html_col columns[] = {
    {"class", 0}, {"objects", 1}, {"bytes", 1}, {"retained size", 1},
};

static void rows_out(report *r, const graph *g, const rollup *ru)
{
    FILE *f = r->body;
    size_t shown = ru->nrows < REPORT_TOP_CLASSES ? ru->nrows
                                                  : REPORT_TOP_CLASSES;
    report_table_begin(r, "dominators", "dominators-table",
                       "Retained size by class (what freeing every object "
                       "of the class would free)",
                       columns, sizeof columns / sizeof columns[0], 1);
    for (size_t i = 0; i < shown; i++) {
        const rollup_row *row = &ru->rows[i];
        const tuple *k = tuples_get(&ru->groups, row->group);
        cli_name buf;
        size_t len;
        const char *name = cli_class_name(
            heapfmt_reader_class(g->d.reader, k->klass), &buf, &len);
        json_open(&r->data, '{');
        json_key(&r->data, "class");
        json_str(&r->data, name, len);
        json_key(&r->data, "objects");
        json_u64(&r->data, row->objects);
        json_key(&r->data, "bytes");
        json_u64(&r->data, row->bytes);
        json_key(&r->data, "retained_size");
        json_u64(&r->data, row->retained);
        json_close(&r->data, '}');
        html_row_begin(f);
        html_cell_text(f, name, len);
        html_cell_u64(f, row->objects);
        html_cell_u64(f, row->bytes);
        html_cell_u64(f, row->retained);
        html_row_end(f);
    }
    report_table_end(r, "classes", shown, ru->nrows);
}

int report_retained(report *r)
{
    const char *path = r->paths[r->ndumps - 1];
    cmd_options opt;
    memset(&opt, 0, sizeof opt);
    graph g;
    dom_tree t;
    int rc = dominators_tree(&opt, path, &g, &t);
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        rollup ru;
        if (rollup_build(&g, &t, GROUP_CLASS, &ru) != 0) {
            cli_error(g.d.name, "out of memory");
            rc = CLI_EXIT_ERROR;
        } else {
            fputs("<section id=\"retained\">\n<h2>Retained size in the "
                  "last dump</h2>\n<div id=\"treemap\"></div>\n",
                  r->body);
            rows_out(r, &g, &ru);
            fputs("</section>\n", r->body);
        }
        rollup_free(&ru);
    }
    dom_free(&t);
    graph_free(&g);
    return rc;
}
