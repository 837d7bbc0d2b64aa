/* trend.c -- the classes that grew: histo's table over every dump (its
 * default order for two dumps or more: growth in bytes), with counts and
 * bytes of each dump for the sparklines; for a native heap, the frames
 * that grew (histo --by=frame: its classes are malloc, calloc...). */
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_page.h"
#include "report.h"

static const html_col columns[] = {
    {"class", 0},          {"count growth", 1}, {"byte growth", 1},
    {"count (last)", 1},   {"bytes (last)", 1}, {"counts", 0},
    {"bytes", 0},
};

static const html_col frame_columns[] = {
    {"frame", 0},          {"count growth", 1}, {"byte growth", 1},
    {"count (last)", 1},   {"bytes (last)", 1}, {"counts", 0},
    {"bytes", 0},
};

/* A change b - a, in the blob as histo writes it: a signed number. */
static void delta_json(json *j, uint64_t a, uint64_t b)
{
    int neg;
    uint64_t v = histo_delta(a, b, &neg);
    json_signed(j, neg, v);
}

/* The cell of a change: data-v is signed so that shrinking sorts last. */
static void delta_cell(FILE *f, uint64_t a, uint64_t b)
{
    int neg;
    uint64_t v = histo_delta(a, b, &neg);
    fprintf(f, "<td class=\"num\" data-v=\"%s%llu\">%s%s</td>",
            neg ? "-" : "", (unsigned long long)v, neg ? "-" : "+",
            histo_fmt_value(v, HISTO_FMT_HUMAN).s);
}

int report_trend(report *r)
{
    if (r->ndumps < 2) {
        report_omit(r, "trend", "Trend",
                    "one dump: give two or more to see what grew");
        return CLI_EXIT_OK;
    }
    int native = r->shape.native, rc = CLI_EXIT_OK;
    histo_table frames;
    memset(&frames, 0, sizeof frames);
    const histo_table *t = &r->classes;
    if (native) {
        histo_options opt = HISTO_OPTIONS_INIT;
        opt.by = HISTO_BY_FRAME;
        opt.top = REPORT_TOP_CLASSES;
        opt.empty_ok = 1;
        cli_ctx ctx;
        opt.ctx = cli_ctx_init(&ctx);
        rc = cli_ctx_exit(&ctx,
                          histo_build(&frames, r->paths, r->ndumps, &opt));
        if (rc == CLI_EXIT_ERROR) {
            histo_table_free(&frames);
            return rc;
        }
        t = &frames;
    }
    size_t last = r->ndumps - 1;
    FILE *f = r->body;
    fputs(native ? "<section id=\"trend\">\n<h2>Trend: the frames that "
                   "grew</h2>\n"
                 : "<section id=\"trend\">\n<h2>Trend: the classes that "
                   "grew</h2>\n",
          f);
    report_table_begin(r, "trend", "trend-table",
                       "Change from the first dump to the last (click a "
                       "header to sort)",
                       native ? frame_columns : columns,
                       sizeof columns / sizeof columns[0], 1);
    for (size_t i = 0; i < t->nshown; i++) {
        const histo_row *row = &t->rows[i];
        json_open(&r->data, '{');
        json_key(&r->data, native ? "frame" : "class");
        json_str(&r->data, row->name, row->len);
        json_key(&r->data, "counts");
        json_open(&r->data, '[');
        for (size_t d = 0; d < r->ndumps; d++)
            json_u64(&r->data, histo_count(t, row, d));
        json_close(&r->data, ']');
        json_key(&r->data, "bytes");
        json_open(&r->data, '[');
        for (size_t d = 0; d < r->ndumps; d++)
            json_u64(&r->data, histo_bytes(t, row, d));
        json_close(&r->data, ']');
        json_key(&r->data, "delta_count");
        delta_json(&r->data, histo_count(t, row, 0),
                   histo_count(t, row, last));
        json_key(&r->data, "delta_bytes");
        delta_json(&r->data, histo_bytes(t, row, 0),
                   histo_bytes(t, row, last));
        json_close(&r->data, '}');

        fprintf(f, "<tr data-row=\"%zu\">", i);
        html_cell_text(f, row->name, row->len);
        delta_cell(f, histo_count(t, row, 0), histo_count(t, row, last));
        delta_cell(f, histo_bytes(t, row, 0), histo_bytes(t, row, last));
        html_cell_u64(f, histo_count(t, row, last));
        html_cell_u64(f, histo_bytes(t, row, last));
        fputs("<td class=\"spark-count\"></td><td class=\"spark-bytes\">"
              "</td>",
              f);
        html_row_end(f);
    }
    /* histo shows the classes that changed (all but the unchanged
     * ones), of which --top keeps the first */
    uint64_t changed = 0;
    for (size_t i = 0; i < t->nrows; i++)
        changed += !histo_row_unchanged(t, &t->rows[i]);
    report_table_end(r, native ? "frames that changed" : "classes that changed",
                     t->nshown, changed);
    fputs("</section>\n", f);
    histo_table_free(&frames);
    return rc;
}
