/* sites.c -- where the objects of the last dump were allocated: by site
 * (histo --by=site) and, when the dump has call stacks, by stack (folded
 * names: outermost frame first, joined by ';', for the flame graph) and
 * by frame (histo --by=frame: the first frame past the allocator). The
 * tables are shape.c's; a dump without sites or stacks gets a line that
 * says so instead of a table of one "(no site)" row. */
#include <string.h>

#include "cli_exit.h"
#include "cli_page.h"
#include "report.h"

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

static const html_col site_cols[] = {
    {"site (file:line)", 0}, {"objects", 1}, {"bytes", 1}};
static const table_view sites_view = {
    "sites", "sites-table",
    "Allocation sites of the last dump (click a header to sort)", "site",
    "sites", site_cols, 3, 1};

static const html_col frame_cols[] = {
    {"frame (the first past the allocator)", 0}, {"objects", 1},
    {"bytes", 1}};
static const table_view frames_view = {
    "frames", "frames-table",
    "Allocation frames of the last dump (click a header to sort)", "frame",
    "frames", frame_cols, 3, 1};

static const html_col stack_cols[] = {{"stack (outermost first)", 0},
                                      {"bytes", 1}};
static const table_view stacks_view = {
    "stacks", "stacks-table", "The stacks of the flame graph", "stack",
    "stacks", stack_cols, 2, 0};

int report_sites(report *r)
{
    if (!r->shape.sites) {
        report_omit(r, "sites", "Allocation sites",
                    r->shape.stacks
                        ? "the last dump records no file:line for its "
                          "objects; their frames and stacks say where "
                          "they were allocated"
                        : "the last dump records no file:line for its "
                          "objects (Ruby records them after "
                          "ObjectSpace.trace_object_allocations_start)");
        return CLI_EXIT_OK;
    }
    fputs("<section id=\"sites\">\n<h2>Allocation sites</h2>\n", r->body);
    rows_out(r, &r->by_site, &sites_view);
    fputs("</section>\n", r->body);
    return CLI_EXIT_OK;
}

int report_stacks(report *r)
{
    if (!r->shape.stacks) {
        report_omit(r, "stacks", "Allocation stacks (flame graph)",
                    "the last dump records no call stacks (heapfmt-malloc "
                    "writes them for native heaps)");
        return CLI_EXIT_OK;
    }
    fputs("<section id=\"stacks\">\n<h2>Allocation stacks by bytes (flame "
          "graph: the outermost frame on top)</h2>\n<div id=\"flame\">"
          "</div>\n",
          r->body);
    rows_out(r, &r->by_frame, &frames_view);
    rows_out(r, &r->by_stack, &stacks_view);
    fputs("</section>\n", r->body);
    return CLI_EXIT_OK;
}
