/* retained.c -- the dominator tree of the last dump summed by class, as
 * heapfmt-graph dominators --by=class: a table, and the treemap the
 * script draws from the same rows; and by class and site (--by=class,site)
 * for the shown classes, the treemap's drill-down. */
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "graph_dominators.h"
#include "cli_page.h"
#include "report.h"
#include "rollup.h"

static const html_col columns[] = {
    {"class", 0}, {"objects", 1}, {"bytes", 1}, {"retained size", 1},
};

/* A row of either table starts with its class, in the blob and the page,
 * and ends with its numbers. */
static void row_begin(report *r, const graph *g, const tuple *k)
{
    cli_name buf;
    size_t len;
    const char *name =
        cli_class_shown(heapfmt_reader_class(g->d.reader, k->klass), &buf, &len);
    json_open(&r->data, '{');
    json_key(&r->data, "class");
    json_str(&r->data, name, len);
    html_row_begin(r->body);
    html_cell_text(r->body, name, len);
}

static void row_end(report *r, const rollup_row *row)
{
    json_key(&r->data, "objects");
    json_u64(&r->data, row->objects);
    json_key(&r->data, "bytes");
    json_u64(&r->data, row->bytes);
    json_key(&r->data, "retained_size");
    json_u64(&r->data, row->retained);
    json_close(&r->data, '}');
    html_cell_u64(r->body, row->objects);
    html_cell_u64(r->body, row->bytes);
    html_cell_u64(r->body, row->retained);
    html_row_end(r->body);
}

static void rows_out(report *r, const graph *g, const rollup *ru)
{
    size_t shown = ru->nrows < REPORT_TOP_CLASSES ? ru->nrows
                                                  : REPORT_TOP_CLASSES;
    report_table_begin(r, "dominators", "dominators-table",
                       "Retained size by class (what freeing every object "
                       "of the class would free)",
                       columns, sizeof columns / sizeof columns[0], 1);
    for (size_t i = 0; i < shown; i++) {
        const rollup_row *row = &ru->rows[i];
        row_begin(r, g, tuples_get(&ru->groups, row->group));
        row_end(r, row);
    }
    report_table_end(r, "classes", shown, ru->nrows);
}

static const html_col site_columns[] = {
    {"class", 0}, {"site", 0}, {"objects", 1}, {"bytes", 1},
    {"retained size", 1},
};

/* The rows of the class,site rollup whose class is one of the shown
 * classes (shown[0..nshown), their slots), the first
 * REPORT_TOP_CLASS_SITES of each, in the rollup's order. */
static void class_sites_out(report *r, const graph *g, const rollup *ru,
                            const uint32_t *shown, size_t nshown)
{
    FILE *f = r->body;
    unsigned kept[REPORT_TOP_CLASSES] = {0};
    size_t nkept = 0;
    fputs("<details><summary>By class and allocation site</summary>\n", f);
    report_table_begin(r, "dominator_sites", "dominator-sites-table",
                       "Retained size by class and site (the first sites "
                       "of each class above)",
                       site_columns, 5, 1);
    for (size_t i = 0; i < ru->nrows; i++) {
        const rollup_row *row = &ru->rows[i];
        const tuple *k = tuples_get(&ru->groups, row->group);
        size_t c = 0;
        while (c < nshown && shown[c] != k->klass)
            c++;
        if (c == nshown || kept[c] == REPORT_TOP_CLASS_SITES)
            continue;
        kept[c]++;
        nkept++;
        row_begin(r, g, k);
        json_key(&r->data, "site");
        if (k->file == 0) {
            json_null(&r->data);
            html_cell_none(f);
        } else {
            const heapfmt_rstring *file =
                heapfmt_reader_string(g->d.reader, tuple_slot_of_file(k));
            char site[HTML_MAX_NAME];
            report_site_text(site, sizeof site, file->ptr, file->len,
                             k->line);
            json_cstr(&r->data, site);
            html_cell_text(f, site, strlen(site));
        }
        row_end(r, row);
    }
    report_table_end(r, "rows", nkept, nkept);
    fputs("</details>\n", f);
}

int report_retained(report *r)
{
    const char *path = r->paths[r->ndumps - 1];
    if (!r->shape.roots) {
        report_omit(r, "retained", "Retained sizes",
                    "the last dump has no roots (no ROOT record), so "
                    "nothing in it holds anything else: no object retains "
                    "more than itself (a native heap of heapfmt-malloc "
                    "records its blocks, not the pointers between them)");
        return CLI_EXIT_OK;
    }
    cli_ctx ctx;
    graph_query opt = report_graph_query(r, &ctx);
    graph g;
    dom_tree t;
    int rc = cli_ctx_exit(&ctx, dominators_tree(&opt, path, &g, &t));
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
            uint32_t shown[REPORT_TOP_CLASSES];
            size_t nshown = 0;
            for (; nshown < ru.nrows && nshown < REPORT_TOP_CLASSES; nshown++)
                shown[nshown] =
                    tuples_get(&ru.groups, ru.rows[nshown].group)->klass;
            rollup_free(&ru);
            if (rollup_build(&g, &t, GROUP_CLASS | GROUP_SITE, &ru) != 0) {
                cli_error(g.d.name, "out of memory");
                rc = CLI_EXIT_ERROR;
            } else {
                class_sites_out(r, &g, &ru, shown, nshown);
            }
            fputs("</section>\n", r->body);
        }
        rollup_free(&ru);
    }
    dom_free(&t);
    graph_free(&g);
    return rc;
}
