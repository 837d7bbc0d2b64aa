/* histo_print_table.c -- the human table: aligned columns, the name last.
 *
 *   one dump     count  bytes  NAME
 *   two dumps    count A  count B  +/-count  bytes A  bytes B  +/-bytes  NAME
 *   N dumps      [*]  #1 .. #N  +/-count  +/-bytes  trend  NAME
 *
 * and, when the dumps hold lifespans for these rows (format 1.2), three
 * more numbers before the trend and the name, of the last dump: the
 * blocks freed, their mean lifetime and the age of the oldest live one.
 *
 * then, when rows were left out, one line summing them, and a total line
 * under a rule. Numbers are right-aligned; the name column is not padded,
 * so names of any width keep the table aligned. */
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "histo_print.h"

typedef struct layout {
    const histo_table *t;
    const histo_options *opt;
    size_t ncols;   /* numeric columns */
    cli_num *cells; /* ncols, the row being formatted */
    size_t *width;  /* ncols */
    size_t spark_width; /* display columns of the trend column, 0 = none */
    int mark;       /* trends: a leading column for the growth mark */
    int life;       /* three lifespan columns at the end of the numbers */
} layout;

#define LIFE_COLUMNS 3

/* The lifespan cells from k on: frees, mean lifetime, oldest live; empty
 * for a line without lifespans (the omitted and total lines), "-" for a
 * number there is none of. */
static void format_life(layout *l, size_t k, const histo_life *life)
{
    unsigned count = l->opt->human ? HISTO_FMT_HUMAN : HISTO_FMT_PLAIN;
    for (size_t c = 0; c < LIFE_COLUMNS; c++)
        l->cells[k + c].s[0] = '\0';
    if (life == NULL)
        return;
    l->cells[k] = histo_fmt_value(life->frees, count);
    if (life->frees > 0)
        l->cells[k + 1] = cli_fmt_duration_us(life->lifetime_us / life->frees);
    else
        snprintf(l->cells[k + 1].s, sizeof l->cells[0].s, "-");
    if (life->oldest_us > 0)
        l->cells[k + 2] = cli_fmt_duration_us(life->oldest_us);
    else
        snprintf(l->cells[k + 2].s, sizeof l->cells[0].s, "-");
}

/* Formats the numbers of one line (cb: see histo_line_count). */
static void format_cells(layout *l, const uint64_t *cb, const histo_life *life)
{
    const histo_table *t = l->t;
    size_t nd = t->ndumps, last = nd - 1, k = 0;
    unsigned count = l->opt->human ? HISTO_FMT_HUMAN : HISTO_FMT_PLAIN;
    unsigned bytes = count | HISTO_FMT_BYTES;
    unsigned change = HISTO_FMT_SIGNED;
    if (l->life)
        format_life(l, l->ncols - LIFE_COLUMNS, life);
    if (nd == 1) {
        l->cells[k++] = histo_fmt_value(histo_line_count(cb, 0), count);
        l->cells[k++] = histo_fmt_value(histo_line_bytes(cb, 0), bytes);
        return;
    }
    if (nd == 2) {
        uint64_t ca = histo_line_count(cb, 0), cb1 = histo_line_count(cb, 1);
        uint64_t ba = histo_line_bytes(cb, 0), bb = histo_line_bytes(cb, 1);
        l->cells[k++] = histo_fmt_value(ca, count);
        l->cells[k++] = histo_fmt_value(cb1, count);
        l->cells[k++] = histo_fmt_delta(ca, cb1, count | change);
        l->cells[k++] = histo_fmt_value(ba, bytes);
        l->cells[k++] = histo_fmt_value(bb, bytes);
        l->cells[k++] = histo_fmt_delta(ba, bb, bytes | change);
        return;
    }
    for (size_t d = 0; d < nd; d++)
        l->cells[k++] = histo_fmt_value(histo_line_count(cb, d), count);
    l->cells[k++] = histo_fmt_delta(histo_line_count(cb, 0),
                                    histo_line_count(cb, last),
                                    count | change);
    l->cells[k++] = histo_fmt_delta(histo_line_bytes(cb, 0),
                                    histo_line_bytes(cb, last),
                                    bytes | change);
}

static void format_header(layout *l)
{
    size_t nd = l->t->ndumps, k = 0;
    if (l->life) {
        static const char *const life[LIFE_COLUMNS] = {"frees", "mean life",
                                                       "oldest"};
        for (size_t c = 0; c < LIFE_COLUMNS; c++)
            snprintf(l->cells[l->ncols - LIFE_COLUMNS + c].s,
                     sizeof l->cells[0].s, "%s", life[c]);
    }
    static const char *const two[] = {"count A", "count B", "+/-count",
                                      "bytes A", "bytes B", "+/-bytes"};
    if (nd == 1) {
        snprintf(l->cells[k++].s, sizeof l->cells[0].s, "count");
        snprintf(l->cells[k++].s, sizeof l->cells[0].s, "bytes");
    } else if (nd == 2) {
        for (; k < 6; k++)
            snprintf(l->cells[k].s, sizeof l->cells[0].s, "%s", two[k]);
    } else {
        for (size_t d = 0; d < nd; d++)
            snprintf(l->cells[k++].s, sizeof l->cells[0].s, "#%zu", d + 1);
        snprintf(l->cells[k++].s, sizeof l->cells[0].s, "+/-count");
        snprintf(l->cells[k++].s, sizeof l->cells[0].s, "+/-bytes");
    }
}

static void measure(layout *l)
{
    for (size_t c = 0; c < l->ncols; c++) {
        size_t w = strlen(l->cells[c].s);
        if (w > l->width[c])
            l->width[c] = w;
    }
}

static const uint64_t *row_numbers(const histo_table *t, const histo_row *r)
{
    return &t->cells[r->id * t->ndumps * 2];
}

/* Rows left out of the table (filtered, unchanged or past --top). */
static size_t omitted_rows(const histo_table *t)
{
    return t->nrows - t->nshown;
}

static void put_numbers(FILE *out, const layout *l)
{
    for (size_t c = 0; c < l->ncols; c++)
        fprintf(out, "%s%*s", c ? "  " : "", (int)l->width[c], l->cells[c].s);
}

/* The trend column: the sparkline of the counts (or a title), padded. */
static void put_trend(FILE *out, const layout *l, const uint64_t *cb,
                      const char *title)
{
    if (l->spark_width == 0)
        return;
    size_t nd = l->t->ndumps, shown;
    if (cb != NULL) {
        char buf[4096];
        histo_sparkline(buf, sizeof buf, cb, nd, 2, l->opt->unicode);
        fprintf(out, "  %s", buf);
        shown = nd < sizeof buf / 3 ? nd : sizeof buf / 3;
    } else {
        title = title != NULL ? title : "";
        fprintf(out, "  %s", title);
        shown = strlen(title);
    }
    for (; shown < l->spark_width; shown++)
        fputc(' ', out);
}

static void put_mark(FILE *out, const layout *l, int growing)
{
    if (l->mark)
        fputs(growing ? "* " : "  ", out);
}

static void put_line(FILE *out, layout *l, const uint64_t *cb,
                     const histo_life *life, int growing, const char *name,
                     size_t len, const char *suffix)
{
    format_cells(l, cb, life);
    put_mark(out, l, growing);
    put_numbers(out, l);
    put_trend(out, l, cb, NULL);
    fputs("  ", out);
    cli_put_text(out, name, len);
    if (suffix != NULL)
        fputs(suffix, out);
    fputc('\n', out);
}

static void put_legend(FILE *out, const histo_table *t)
{
    size_t nd = t->ndumps;
    for (size_t d = 0; d < nd; d++) {
        const histo_dump *hd = &t->dumps[d];
        if (nd == 2)
            fprintf(out, "%c: ", d == 0 ? 'A' : 'B');
        else
            fprintf(out, "#%zu: ", d + 1);
        cli_put_text(out, hd->name, strlen(hd->name));
        if (hd->status != 0)
            fputs("  (incomplete: partial counts)", out);
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* Under the table: each heapfmt-malloc dump's resident memory against
 * its live bytes (cli_native.h). */
static void put_native(FILE *out, const histo_table *t)
{
    int first = 1;
    for (size_t d = 0; d < t->ndumps; d++) {
        if (!t->dumps[d].native_known)
            continue;
        char line[512];
        cli_native_sentence(&t->dumps[d].native, line, sizeof line);
        fputs(first ? "\n" : "", out);
        first = 0;
        if (t->ndumps == 1)
            fprintf(out, "native heap: %s\n", line);
        else if (t->ndumps == 2)
            fprintf(out, "native heap %c: %s\n", d == 0 ? 'A' : 'B', line);
        else
            fprintf(out, "native heap #%zu: %s\n", d + 1, line);
    }
}

int histo_print_table(FILE *out, const histo_table *t,
                      const histo_options *opt)
{
    size_t nd = t->ndumps;
    layout l;
    memset(&l, 0, sizeof l);
    l.t = t;
    l.opt = opt;
    l.ncols = nd == 1 ? 2 : nd == 2 ? 6 : nd + 2;
    l.life = t->life != NULL;
    if (l.life)
        l.ncols += LIFE_COLUMNS;
    l.mark = nd >= 3;
    l.spark_width = nd >= 3 ? (nd > 5 ? nd : 5) : 0;
    l.cells = calloc(l.ncols, sizeof *l.cells);
    l.width = calloc(l.ncols, sizeof *l.width);
    if (l.cells == NULL || l.width == NULL) {
        free(l.cells);
        free(l.width);
        return -1;
    }

    /* Pass 1: column widths over the header and every line printed. */
    format_header(&l);
    measure(&l);
    for (size_t i = 0; i < t->nshown; i++) {
        format_cells(&l, row_numbers(t, &t->rows[i]),
                     histo_row_life(t, &t->rows[i], nd - 1));
        measure(&l);
    }
    if (omitted_rows(t) > 0) {
        format_cells(&l, t->omitted, NULL);
        measure(&l);
    }
    format_cells(&l, t->total, NULL);
    measure(&l);

    /* Pass 2. */
    if (nd >= 2)
        put_legend(out, t);
    format_header(&l);
    put_mark(out, &l, 0);
    put_numbers(out, &l);
    put_trend(out, &l, NULL, "trend");
    fprintf(out, "  %s\n", histo_by_word(opt->by));
    int any_growing = 0;
    for (size_t i = 0; i < t->nshown; i++) {
        const histo_row *r = &t->rows[i];
        const char *suffix = NULL;
        if (nd == 2) {
            const char *st = histo_row_status(t, r);
            suffix = strcmp(st, "new") == 0    ? "  (new)"
                     : strcmp(st, "gone") == 0 ? "  (gone)"
                                               : NULL;
        }
        int growing = nd >= 3 && r->growing;
        any_growing |= growing;
        put_line(out, &l, row_numbers(t, r), histo_row_life(t, r, nd - 1),
                 growing, r->name, r->len, suffix);
    }
    char name[96];
    size_t n = omitted_rows(t);
    if (n > 0) {
        snprintf(name, sizeof name, "(%zu other %s)", n,
                 n == 1 ? histo_by_word(opt->by) : histo_by_plural(opt->by));
        put_line(out, &l, t->omitted, NULL, 0, name, strlen(name), NULL);
    }
    /* The rule under the numbers, then the total. */
    put_mark(out, &l, 0);
    for (size_t c = 0; c < l.ncols; c++) {
        fputs(c ? "  " : "", out);
        for (size_t k = 0; k < l.width[c]; k++)
            fputc('-', out);
    }
    fputc('\n', out);
    snprintf(name, sizeof name, "total (%zu %s)", t->nrows,
             t->nrows == 1 ? histo_by_word(opt->by) : histo_by_plural(opt->by));
    put_line(out, &l, t->total, NULL, 0, name, strlen(name), NULL);
    if (any_growing)
        fputs("\n* grew in every interval: count and bytes never fell, "
              "one of them rose\n",
              out);
    put_native(out, t);
    free(l.cells);
    free(l.width);
    return 0;
}
