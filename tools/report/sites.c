/* sites.c -- the allocation sites of the last dump (histo --by=site) and,
 * for a native dump, its allocation stacks (histo --by=stack, folded
 * names: outermost frame first, joined by ';') for the flame graph. */
#include <string.h>

#include "cli_exit.h"
#include "cli_stack.h"
#include "html.h"
#include "report.h"

/* histo's one-dump table of the last dump by, cut to top rows. */
static int last_dump_table(report *r, histo_table *t, enum histo_by by,
                           enum histo_format format, uint64_t top)
{
    histo_options opt = HISTO_OPTIONS_INIT;
    opt.by = by;
    opt.format = format;
    opt.top = top;
    opt.empty_ok = 1;
    return histo_build(t, r->paths + r->ndumps - 1, 1, &opt);
}

/* How a one-dump histo table is shown: its blob key, the name of a row's
 * key, and whether the count is shown (the flame graph needs bytes
 * only). */
typedef struct table_view {
    const char *key, *id, *caption, *name_key, *plural;
    const html_col *cols;
    size_t ncols;
    int with_count;
} table_view;

static void rows_out(report *r, const histo_table *t, const table_view *v)
{
    FILE *f = r->body;
    report_table_begin(r, v->key, v->id, v->caption, v->cols, v->ncols, 1);
    for (size_t i = 0; i < t->nshown; i++) {
        const histo_row *row = &t->rows[i];
        json_open(&r->data, '{');
        json_key(&r->data, v->name_key);
        json_str(&r->data, row->name, row->len);
        html_row_begin(f);
        html_cell_text(f, row->name, row->len);
        if (v->with_count) {
            json_key(&r->data, "count");
            json_u64(&r->data, histo_count(t, row, 0));
            html_cell_u64(f, histo_count(t, row, 0));
        }
        json_key(&r->data, "bytes");
        json_u64(&r->data, histo_bytes(t, row, 0));
        json_close(&r->data, '}');
        html_cell_u64(f, histo_bytes(t, row, 0));
        html_row_end(f);
    }
    report_table_end(r, v->plural, t->nshown, t->nrows);
}

/* Whether any object of the table has a stack. */
static int has_stacks(const histo_table *t)
{
    for (size_t i = 0; i < t->nshown; i++)
        if (strcmp(t->rows[i].name, CLI_NO_STACK) != 0)
            return 1;
    return 0;
}

static const html_col site_cols[] = {
    {"site (file:line)", 0}, {"objects", 1}, {"bytes", 1}};
static const table_view sites_view = {
    "sites", "sites-table",
    "Allocation sites of the last dump (click a header to sort)", "site",
    "sites", site_cols, 3, 1};

static const html_col stack_cols[] = {{"stack (outermost first)", 0},
                                      {"bytes", 1}};
static const table_view stacks_view = {
    "stacks", "stacks-table", "The stacks of the flame graph", "stack",
    "stacks", stack_cols, 2, 0};

int report_sites(report *r)
{
    fputs("<section id=\"sites\">\n<h2>Allocation sites</h2>\n", r->body);
    histo_table t;
    int rc = last_dump_table(r, &t, HISTO_BY_SITE, HISTO_FORMAT_JSON,
                             REPORT_TOP_SITES);
    if (rc != CLI_EXIT_ERROR)
        rows_out(r, &t, &sites_view);
    histo_table_free(&t);
    if (rc != CLI_EXIT_ERROR) {
        int src = last_dump_table(r, &t, HISTO_BY_STACK, HISTO_FORMAT_FOLDED,
                                  REPORT_TOP_STACKS);
        if (src != CLI_EXIT_ERROR && has_stacks(&t)) {
            fputs("<h3>Allocation stacks by bytes (flame graph: the "
                  "outermost frame on top)</h3>\n<div id=\"flame\"></div>\n",
                  r->body);
            rows_out(r, &t, &stacks_view);
        }
        histo_table_free(&t);
        rc = report_worse(rc, src);
    }
    fputs("</section>\n", r->body);
    return rc;
}
