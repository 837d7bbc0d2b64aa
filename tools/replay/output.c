/* output.c -- the table, its TSV, CSV and JSON forms, the notes and the page.
 *
 * The row "recorded" is the program as the trace measured it: its peak
 * and its resident memory at the last MARK, and its live bytes there.
 * Each allocator's row is its replay: the time spent inside the
 * allocator's calls, its peak and final resident memory (the replay's own
 * slot table left out, as the recorder left out its own), the live bytes
 * at the end, their ratio (the overhead: how much memory each live byte
 * costs), and at how many MARKs the live bytes were exactly the trace's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_rows.h"
#include "cli_json.h"
#include "output.h"
#include "cli_page.h"

double overhead(uint64_t rss, int64_t live)
{
    return live > 0 ? (double)rss / (double)live : 0.0;
}

size_t marks_exact(const replay *r, const alloc_result *a)
{
    size_t n = 0;
    for (size_t m = 0; m < r->t->nmarks; m++)
        n += a->marks[m].seen && a->marks[m].live >= 0 &&
             (uint64_t)a->marks[m].live == r->c->mark_live[m];
    return n;
}

const char *result_word(const replay *r, const alloc_result *a)
{
    switch (a->status) {
    case RUN_OK:
        if (a->failed) /* its live bytes differ for that reason */
            return "ok, some calls failed";
        if (a->live < 0 || (uint64_t)a->live != r->c->end_live ||
            marks_exact(r, a) != r->t->nmarks)
            return "ok, live bytes differ";
        return "ok";
    case RUN_MISSING: return "not installed";
    case RUN_NOT_MALLOC: return "not an allocator";
    case RUN_CRASHED: return "crashed";
    case RUN_OVER_LIMIT: return "over --max-memory";
    case RUN_TIMEOUT: return "timed out";
    default: return "failed";
    }
}

/* The recorded program: peak, and resident and live at the last MARK. */
typedef struct recorded {
    int known;
    uint64_t peak, rss, live;
} recorded;

static recorded recorded_row(const replay *r)
{
    recorded rec = {0, 0, 0, 0};
    const trace *t = r->t;
    for (size_t m = 0; m < t->nmarks; m++) {
        if (t->marks[m].peak > rec.peak)
            rec.peak = t->marks[m].peak;
        if (t->marks[m].rss > rec.peak)
            rec.peak = t->marks[m].rss;
    }
    if (t->nmarks > 0 && t->marks[t->nmarks - 1].rss != 0) {
        rec.known = 1;
        rec.rss = t->marks[t->nmarks - 1].rss;
        rec.live = r->c->mark_live[t->nmarks - 1];
    }
    return rec;
}

static int ran(const alloc_result *a)
{
    return a->status == RUN_OK && a->ended;
}

/* ---- table ---- */

static void bytes_cell(cli_rows *o, int known, uint64_t v)
{
    cli_rows_number(o, known ? cli_fmt_bytes(v).s : "-");
}

static void overhead_cell(cli_rows *o, int known, uint64_t rss, int64_t live)
{
    if (known)
        cli_rows_float(o, overhead(rss, live), 2);
    else
        cli_rows_number(o, "-");
}

/* Columns of fixed widths (cli_rows.h: set after cli_rows_measure, no
 * measuring pass): a longer cell pushes the rest of its line. The labels
 * are cut to the first column's width, 10 to 40 bytes. */
void print_table(FILE *f, const replay *r)
{
    static const char *const labels[] = {
        "ALLOCATOR", "TIME",     "PEAK RSS", "END RSS",
        "END LIVE",  "OVERHEAD", "MARKS",    "RESULT"};
    static const size_t widths[] = {10, 10, 10, 10, 10, 8, 9, 0};
    cli_rows o;
    cli_rows_begin(&o, f, CLI_ROW_TABLE, 8, labels);
    o.labels = labels;
    cli_rows_measure(&o); /* 8 columns: no allocation, no failure */
    for (size_t c = 0; c < 8; c++) {
        o.width[c] = widths[c];
        o.number[c] = c > 0 && c < 7;
    }
    for (size_t i = 0; i < r->n; i++)
        if (strlen(r->specs[i].label) > o.width[0])
            o.width[0] = strlen(r->specs[i].label);
    if (o.width[0] > 40)
        o.width[0] = 40;
    cli_rows_print(&o);
    recorded rec = recorded_row(r);
    cli_rows_word(&o, "(recorded)");
    cli_rows_number(&o, "-");
    bytes_cell(&o, rec.peak != 0, rec.peak);
    bytes_cell(&o, rec.known, rec.rss);
    bytes_cell(&o, rec.known, rec.live);
    overhead_cell(&o, rec.known && rec.live > 0, rec.rss, (int64_t)rec.live);
    cli_rows_number(&o, "-");
    cli_rows_word(&o, "-");
    for (size_t i = 0; i < r->n; i++) {
        const alloc_result *a = &r->results[i];
        char name[64], text[sizeof a->why + 64];
        size_t w = o.width[0];
        cli_text_format(name, sizeof name < w + 1 ? sizeof name : w + 1,
                        r->specs[i].label, strlen(r->specs[i].label));
        cli_rows_word(&o, name);
        if (ran(a)) {
            snprintf(text, sizeof text, "%.1f ms", (double)a->alloc_ns / 1e6);
            cli_rows_number(&o, text);
            bytes_cell(&o, 1, a->peak);
            bytes_cell(&o, 1, a->rss);
            bytes_cell(&o, a->live >= 0, (uint64_t)a->live);
            overhead_cell(&o, a->live > 0, a->rss, a->live);
            snprintf(text, sizeof text, "%zu/%zu", marks_exact(r, a),
                     r->t->nmarks);
            cli_rows_number(&o, text);
            cli_rows_word(&o, result_word(r, a));
        } else {
            cli_rows_number(&o, "-");
            bytes_cell(&o, a->peak != 0, a->peak);
            bytes_cell(&o, 0, 0);
            bytes_cell(&o, 0, 0);
            overhead_cell(&o, 0, 0, 0);
            cli_rows_number(&o, "-");
            /* the reason may hold a path or the child's words: escaped */
            snprintf(text, sizeof text, "%s: %s", result_word(r, a), a->why);
            cli_rows_text(&o, text, strlen(text));
        }
    }
    cli_rows_finish(&o);
}

/* ---- TSV and CSV: the same columns, a tab or a comma between them ---- */

static void nulls(cli_rows *o, int n)
{
    while (n-- > 0)
        cli_rows_null(o);
}

void print_delim(FILE *f, const replay *r, int csv)
{
    static const char *const cols[] = {
        "allocator", "alloc_ns",    "peak_rss", "end_rss",
        "end_live",  "overhead",    "marks_exact", "marks",
        "calls",     "failed",      "substituted", "result"};
    cli_rows o;
    cli_rows_begin(&o, f, csv ? CLI_ROW_CSV : CLI_ROW_TSV,
                   sizeof cols / sizeof cols[0], cols);
    recorded rec = recorded_row(r);
    cli_rows_word(&o, "(recorded)");
    cli_rows_null(&o);
    cli_rows_u64(&o, rec.peak);
    if (rec.known) {
        cli_rows_u64(&o, rec.rss);
        cli_rows_u64(&o, rec.live);
        cli_rows_float(&o, overhead(rec.rss, (int64_t)rec.live), 4);
    } else {
        nulls(&o, 3);
    }
    cli_rows_null(&o);
    cli_rows_u64(&o, r->t->nmarks);
    nulls(&o, 4);
    for (size_t i = 0; i < r->n; i++) {
        const alloc_result *a = &r->results[i];
        cli_rows_text(&o, r->specs[i].label, strlen(r->specs[i].label));
        if (ran(a)) {
            cli_rows_u64(&o, a->alloc_ns);
            cli_rows_u64(&o, a->peak);
            cli_rows_u64(&o, a->rss);
            cli_rows_i64(&o, a->live);
            cli_rows_float(&o, overhead(a->rss, a->live), 4);
            cli_rows_u64(&o, marks_exact(r, a));
            cli_rows_u64(&o, r->t->nmarks);
            cli_rows_u64(&o, a->calls);
            cli_rows_u64(&o, a->failed);
            cli_rows_u64(&o, a->substituted);
            const char *word = result_word(r, a);
            cli_rows_text(&o, word, strlen(word));
        } else {
            char why[sizeof a->why + 64];
            snprintf(why, sizeof why, "%s: %s", result_word(r, a), a->why);
            nulls(&o, 6);
            cli_rows_u64(&o, r->t->nmarks);
            nulls(&o, 3);
            cli_rows_text(&o, why, strlen(why));
        }
    }
    cli_rows_finish(&o);
}

/* ---- JSON: the same, with the series of every MARK ---- */

static void json_num(json *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_u64(j, v);
}

static void write_json(json *j, const replay *r)
{
    const trace *t = r->t;
    const compiled *c = r->c;
    json_open(j, '{');
    json_key(j, "trace");
    json_open(j, '{');
    json_key(j, "file");
    json_cstr(j, r->name);
    json_key(j, "complete");
    json_bool(j, !t->incomplete);
    json_num(j, "threads", t->nthreads);
    json_num(j, "events", t->events);
    json_num(j, "duration_us", t->last_time_us);
    json_num(j, "peak_live", c->peak_live);
    json_num(j, "end_live", c->end_live);
    json_key(j, "skipped");
    json_open(j, '{');
    json_num(j, "out_of_order", t->out_of_order);
    json_num(j, "duplicate_numbers", c->duplicates);
    json_num(j, "frees_of_unknown_blocks", c->unknown_frees);
    json_num(j, "double_frees", c->double_frees);
    json_num(j, "reallocs_of_unknown_blocks", c->unknown_reallocs);
    json_close(j, '}');
    json_key(j, "marks");
    json_open(j, '[');
    for (size_t m = 0; m < t->nmarks; m++) {
        json_open(j, '{');
        json_num(j, "time_us", t->marks[m].time_us);
        json_num(j, "rss", t->marks[m].rss);
        json_num(j, "peak", t->marks[m].peak);
        json_num(j, "own", t->marks[m].own);
        json_num(j, "live", c->mark_live[m]);
        json_close(j, '}');
    }
    json_close(j, ']');
    json_close(j, '}');
    json_key(j, "allocators");
    json_open(j, '[');
    for (size_t i = 0; i < r->n; i++) {
        const alloc_result *a = &r->results[i];
        json_open(j, '{');
        json_key(j, "allocator");
        json_cstr(j, r->specs[i].label);
        json_key(j, "result");
        json_cstr(j, result_word(r, a));
        if (!ran(a)) {
            json_key(j, "why");
            json_cstr(j, a->why);
        } else {
            json_num(j, "alloc_ns", a->alloc_ns);
            json_num(j, "calls", a->calls);
            json_num(j, "failed", a->failed);
            json_num(j, "substituted", a->substituted);
            json_num(j, "elapsed_ns", a->elapsed_ns);
            json_num(j, "peak_rss", a->peak);
            json_num(j, "end_rss", a->rss);
            json_key(j, "end_live");
            json_signed(j, a->live < 0, a->live < 0 ? (uint64_t)-a->live
                                                     : (uint64_t)a->live);
            json_num(j, "marks_exact", marks_exact(r, a));
        }
        json_key(j, "marks");
        json_open(j, '[');
        for (size_t m = 0; m < t->nmarks; m++) {
            const mark_result *mr = &a->marks[m];
            if (!mr->seen) {
                json_null(j);
                continue;
            }
            json_open(j, '{');
            json_num(j, "rss", mr->rss);
            json_key(j, "live");
            json_signed(j, mr->live < 0, mr->live < 0 ? (uint64_t)-mr->live
                                                       : (uint64_t)mr->live);
            json_num(j, "alloc_ns", mr->alloc_ns);
            json_close(j, '}');
        }
        json_close(j, ']');
        json_close(j, '}');
    }
    json_close(j, ']');
    json_close(j, '}');
}

void print_json(FILE *f, const replay *r)
{
    json j;
    json_init(&j, f);
    write_json(&j, r);
    fputc('\n', f);
}

void print_notes(FILE *f, const replay *r)
{
    const trace *t = r->t;
    const compiled *c = r->c;
    fprintf(f, "\n%s: %s events of %zu thread%s over %.1f s, %zu mark%s; "
               "live bytes at most %s, %s at the end\n",
            r->name, cli_fmt_count(t->events).s, t->nthreads,
            t->nthreads == 1 ? "" : "s", (double)t->last_time_us / 1e6,
            t->nmarks, t->nmarks == 1 ? "" : "s", cli_fmt_bytes(c->peak_live).s,
            cli_fmt_bytes(c->end_live).s);
    uint64_t skipped = t->out_of_order + c->duplicates + c->unknown_frees +
                       c->double_frees;
    if (skipped + c->unknown_reallocs > 0)
        fprintf(f, "skipped: %s events out of their thread's order, %s with "
                   "a number already taken, %s frees of blocks never made, "
                   "%s double frees; %s reallocs of blocks not live replayed "
                   "as mallocs\n",
                cli_fmt_count(t->out_of_order).s,
                cli_fmt_count(c->duplicates).s,
                cli_fmt_count(c->unknown_frees).s,
                cli_fmt_count(c->double_frees).s,
                cli_fmt_count(c->unknown_reallocs).s);
    if (t->has_meta_lost && t->meta_lost > 0)
        fprintf(f, "the recorder lost %s events (out of memory)\n",
                cli_fmt_count(t->meta_lost).s);
    if (t->incomplete) {
        fputs("the trace is incomplete: replayed what was read (", f);
        cli_put_text(f, t->why, strlen(t->why));
        fputs(")\n", f);
    }
    for (size_t i = 0; i < r->n; i++) {
        const alloc_result *a = &r->results[i];
        if (ran(a) && (a->failed || a->substituted)) {
            cli_put_text(f, r->specs[i].label, strlen(r->specs[i].label));
            fprintf(f, ": %s calls failed; %s calls the allocator lacks "
                       "made with the ones it has\n",
                    cli_fmt_count(a->failed).s,
                    cli_fmt_count(a->substituted).s);
        }
    }
}

/* ---- the page ---- */

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#9467bd", "#ff7f0e", "#8c564b",
                                      "#e377c2", "#17becf"};

/* One line of the chart: n points of (mark time, value), the values of
 * MARKs not reached left out. */
static void polyline(FILE *f, const replay *r, const uint64_t *v,
                     const int *have, double xs, double ys, const char *colour,
                     const char *dash, double width)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s "
               "points=\"",
            colour, width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
            dash ? "\"" : "");
    for (size_t m = 0; m < r->t->nmarks; m++)
        if (have[m])
            fprintf(f, "%.1f,%.1f ", 60 + r->t->marks[m].time_us * xs,
                    290 - v[m] * ys);
    fputs("\"/>\n", f);
}

static void chart(FILE *f, const replay *r)
{
    const trace *t = r->t;
    size_t nm = t->nmarks;
    if (nm == 0)
        return;
    uint64_t *v = calloc(nm, sizeof *v);
    int *have = calloc(nm, sizeof *have);
    if (v == NULL || have == NULL) {
        free(v);
        free(have);
        return;
    }
    uint64_t ymax = 1, tmax = t->marks[nm - 1].time_us ? t->marks[nm - 1].time_us : 1;
    for (size_t m = 0; m < nm; m++) {
        if (t->marks[m].rss > ymax)
            ymax = t->marks[m].rss;
        if (r->c->mark_live[m] > ymax)
            ymax = r->c->mark_live[m];
        for (size_t i = 0; i < r->n; i++)
            if (r->results[i].marks[m].seen && r->results[i].marks[m].rss > ymax)
                ymax = r->results[i].marks[m].rss;
    }
    double xs = 640.0 / (double)tmax, ys = 260.0 / (double)ymax;
    fputs("<figure>\n<svg width=\"720\" height=\"330\" role=\"img\" "
          "aria-label=\"resident memory at each mark of the trace, "
          "recorded and replayed\">\n",
          f);
    fprintf(f, "<line x1=\"60\" y1=\"290\" x2=\"700\" y2=\"290\" stroke=\"#888\"/>"
               "<line x1=\"60\" y1=\"30\" x2=\"60\" y2=\"290\" stroke=\"#888\"/>\n");
    for (int k = 0; k <= 4; k++) {
        uint64_t yv = ymax / 4 * (uint64_t)k;
        fprintf(f, "<text x=\"55\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                290 - yv * ys + 4, cli_fmt_bytes(yv).s);
        fprintf(f, "<text x=\"%.1f\" y=\"305\" text-anchor=\"middle\">%.2f s</text>\n",
                60 + tmax / 4.0 * k * xs, tmax / 4.0 * k / 1e6);
    }
    for (size_t m = 0; m < nm; m++) {
        v[m] = r->c->mark_live[m];
        have[m] = 1;
    }
    polyline(f, r, v, have, xs, ys, "#999", NULL, 1.0);
    int any_rss = 0;
    for (size_t m = 0; m < nm; m++) {
        v[m] = t->marks[m].rss;
        have[m] = v[m] != 0;
        any_rss |= have[m];
    }
    if (any_rss)
        polyline(f, r, v, have, xs, ys, "#000", "6 3", 1.5);
    for (size_t i = 0; i < r->n; i++) {
        for (size_t m = 0; m < nm; m++) {
            v[m] = r->results[i].marks[m].rss;
            have[m] = r->results[i].marks[m].seen;
        }
        polyline(f, r, v, have, xs, ys, colours[i % 8], NULL, 1.5);
    }
    /* the legend */
    double lx = 70;
    fprintf(f, "<text x=\"%.0f\" y=\"20\" fill=\"#999\">live bytes</text>\n", lx);
    lx += 80;
    if (any_rss) {
        fprintf(f, "<text x=\"%.0f\" y=\"20\">recorded</text>\n", lx);
        lx += 70;
    }
    for (size_t i = 0; i < r->n && lx < 690; i++) {
        fprintf(f, "<text x=\"%.0f\" y=\"20\" fill=\"%s\">", lx, colours[i % 8]);
        html_text(f, r->specs[i].label, strlen(r->specs[i].label));
        fputs("</text>\n", f);
        lx += 12 + 7.0 * (double)(strlen(r->specs[i].label) < 40
                                      ? strlen(r->specs[i].label) : 40);
    }
    fputs("</svg>\n<figcaption>Resident memory at each mark of the trace: "
          "the program as recorded (dashed), each allocator's replay, and "
          "the program's live bytes (grey).</figcaption>\n</figure>\n",
          f);
    free(v);
    free(have);
}

static const html_col page_cols[] = {
    {"allocator", 0},  {"time in the allocator (ns)", 1},
    {"peak RSS", 1},   {"RSS at the end", 1},
    {"live at the end", 1}, {"overhead (RSS / live, x1000)", 1},
    {"marks exact", 1}, {"result", 0},
};

static void page_body(FILE *f, const replay *r)
{
    fputs("<section id=\"replay\">\n<p>Trace: ", f);
    html_text(f, r->name, strlen(r->name));
    fprintf(f, ", %s events of %zu thread%s, %zu marks.%s</p>\n",
            cli_fmt_count(r->t->events).s, r->t->nthreads,
            r->t->nthreads == 1 ? "" : "s", r->t->nmarks,
            r->t->incomplete ? " <strong class=\"warn\">The trace is "
                               "incomplete: what was read was replayed."
                               "</strong>"
                             : "");
    html_table_begin(f, "allocators", "One replay of the trace per "
                     "allocator (click a header to sort)",
                     page_cols, sizeof page_cols / sizeof page_cols[0], 1);
    recorded rec = recorded_row(r);
    html_row_begin(f);
    html_cell_text(f, "(recorded)", 10);
    html_cell_none(f);
    html_cell_u64(f, rec.peak);
    if (rec.known) {
        html_cell_u64(f, rec.rss);
        html_cell_u64(f, rec.live);
        html_cell_u64(f, (uint64_t)(overhead(rec.rss, (int64_t)rec.live) * 1000));
    } else {
        html_cell_none(f);
        html_cell_none(f);
        html_cell_none(f);
    }
    html_cell_none(f);
    html_cell_text(f, "", 0);
    html_row_end(f);
    for (size_t i = 0; i < r->n; i++) {
        const alloc_result *a = &r->results[i];
        html_row_begin(f);
        html_cell_text(f, r->specs[i].label, strlen(r->specs[i].label));
        if (ran(a)) {
            html_cell_u64(f, a->alloc_ns);
            html_cell_u64(f, a->peak);
            html_cell_u64(f, a->rss);
            html_cell_u64(f, a->live > 0 ? (uint64_t)a->live : 0);
            html_cell_u64(f, (uint64_t)(overhead(a->rss, a->live) * 1000));
            html_cell_u64(f, marks_exact(r, a));
            const char *w = result_word(r, a);
            html_cell_text(f, w, strlen(w));
        } else {
            for (int k = 0; k < 6; k++)
                html_cell_none(f);
            char why[700];
            snprintf(why, sizeof why, "%s: %s", result_word(r, a), a->why);
            html_cell_text(f, why, strlen(why));
        }
        html_row_end(f);
    }
    html_table_end(f);
    chart(f, r);
    fputs("<pre class=\"notes\">", f);
    char *notes = NULL;
    size_t nlen = 0;
    FILE *nf = open_memstream(&notes, &nlen);
    if (nf != NULL) {
        print_notes(nf, r);
        fclose(nf);
        html_text(f, notes, nlen > 1 ? nlen - 1 : 0);
        free(notes);
    }
    fputs("</pre>\n</section>\n", f);
}

int write_page(const char *path, const char *trace_path, const replay *r)
{
    char *body = NULL, *data = NULL, *page = NULL;
    size_t body_len = 0, data_len = 0, page_len = 0;
    FILE *bf = open_memstream(&body, &body_len);
    FILE *df = open_memstream(&data, &data_len);
    int rc = -1;
    if (bf != NULL && df != NULL) {
        page_body(bf, r);
        json j;
        json_init(&j, df);
        write_json(&j, r);
    }
    if (bf == NULL || fclose(bf) != 0 || df == NULL || fclose(df) != 0) {
        cli_error(NULL, "out of memory");
        goto out;
    }
    FILE *pf = open_memstream(&page, &page_len);
    if (pf == NULL) {
        cli_error(NULL, "out of memory");
        goto out;
    }
    page_write_titled(pf, "heapfmt replay", body, body_len, data, data_len);
    if (fclose(pf) != 0) {
        cli_error(NULL, "out of memory");
        goto out;
    }
    rc = cli_output_write_all(path, &trace_path, 1, page, page_len);
out:
    free(body);
    free(data);
    free(page);
    return rc;
}
