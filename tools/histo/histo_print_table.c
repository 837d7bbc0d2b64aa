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
#include "cli_rows.h"
#include "histo_print.h"

typedef struct layout {
    const histo_table *t;
    const histo_options *opt;
    size_t ncols;   /* numeric columns */
    cli_num *cells; /* ncols, the row being formatted */
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

static const uint64_t *row_numbers(const histo_table *t, const histo_row *r)
{
    return &t->cells[r->id * t->ndumps * 2];
}

/* Rows left out of the table (filtered, unchanged or past --top). */
static size_t omitted_rows(const histo_table *t)
{
    return t->nrows - t->nshown;
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

/* Room for a header label of dump N: "#N". */
typedef char label[24];

/* The header labels: the numbers', the trend's and the name's, then an
 * empty one for a row's "(new)" or "(gone)" (cli_rows_tail). */
static size_t labels(const layout *l, const char **lab, label *numbered)
{
    static const char *const two[] = {"count A", "count B", "+/-count",
                                      "bytes A", "bytes B", "+/-bytes"};
    static const char *const life[LIFE_COLUMNS] = {"frees", "mean life",
                                                   "oldest"};
    size_t nd = l->t->ndumps, n = 0;
    if (nd == 1) {
        lab[n++] = "count";
        lab[n++] = "bytes";
    } else if (nd == 2) {
        for (; n < 6; n++)
            lab[n] = two[n];
    } else {
        for (size_t d = 0; d < nd; d++) {
            snprintf(numbered[d], sizeof numbered[d], "#%zu", d + 1);
            lab[n++] = numbered[d];
        }
        lab[n++] = "+/-count";
        lab[n++] = "+/-bytes";
    }
    for (size_t c = 0; l->life && c < LIFE_COLUMNS; c++)
        lab[n++] = life[c];
    if (l->spark_width > 0)
        lab[n++] = "trend";
    lab[n++] = histo_by_word(l->opt->by);
    lab[n++] = "";
    return n;
}

/* One line: the growth mark (outside the columns: one space after it),
 * the numbers, the trend, the name and what follows it. */
static void line(cli_rows *o, layout *l, const uint64_t *cb,
                 const histo_life *life, int growing, const char *name,
                 size_t len, const char *suffix)
{
    if (l->mark && o->passes == 2)
        fputs(growing ? "* " : "  ", o->f);
    format_cells(l, cb, life);
    for (size_t c = 0; c < l->ncols; c++)
        cli_rows_number(o, l->cells[c].s);
    if (l->spark_width > 0) {
        char buf[4096];
        histo_sparkline(buf, sizeof buf, cb, l->t->ndumps, 2, l->opt->unicode);
        cli_rows_text(o, buf, strlen(buf));
    }
    cli_rows_text(o, name, len);
    cli_rows_tail(o, suffix != NULL ? suffix : "");
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
    const char **lab = calloc(l.ncols + 3, sizeof *lab);
    label *numbered = calloc(nd, sizeof *numbered);
    size_t ncols = 0;
    cli_rows o;
    if (l.cells != NULL && lab != NULL && numbered != NULL) {
        ncols = labels(&l, lab, numbered);
        cli_rows_begin(&o, out, CLI_ROW_TABLE, ncols, lab);
        o.labels = lab;
    }
    if (ncols == 0 || cli_rows_measure(&o) != 0) {
        free(l.cells);
        free(lab);
        free(numbered);
        return -1;
    }
    if (l.spark_width > 0)
        o.width[ncols - 3] = l.spark_width;
    char name[96];
    int any_growing = 0;
    /* Pass 1: column widths over the header and every line printed. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (nd >= 2)
                put_legend(out, t);
            if (l.mark)
                fputs("  ", out);
            o.width[ncols - 2] = 0; /* the name, last, is not padded */
            cli_rows_print(&o);
        }
        for (size_t i = 0; i < t->nshown; i++) {
            const histo_row *r = &t->rows[i];
            const char *suffix = NULL;
            if (nd == 2) {
                const char *st = histo_row_status(t, r);
                suffix = strcmp(st, "new") == 0    ? "(new)"
                         : strcmp(st, "gone") == 0 ? "(gone)"
                                                   : NULL;
            }
            int growing = nd >= 3 && r->growing;
            any_growing |= growing;
            line(&o, &l, row_numbers(t, r), histo_row_life(t, r, nd - 1),
                 growing, r->name, r->len, suffix);
        }
        size_t n = omitted_rows(t);
        if (n > 0) {
            snprintf(name, sizeof name, "(%zu other %s)", n,
                     n == 1 ? histo_by_word(opt->by)
                            : histo_by_plural(opt->by));
            line(&o, &l, t->omitted, NULL, 0, name, strlen(name), NULL);
        }
        /* The rule under the numbers, then the total. */
        if (l.mark && pass == 1)
            fputs("  ", out);
        cli_rows_rule(&o, l.ncols);
        snprintf(name, sizeof name, "total (%zu %s)", t->nrows,
                 t->nrows == 1 ? histo_by_word(opt->by)
                               : histo_by_plural(opt->by));
        line(&o, &l, t->total, NULL, 0, name, strlen(name), NULL);
    }
    cli_rows_finish(&o);
    if (any_growing)
        fputs("\n* grew in every interval: count and bytes never fell, "
              "one of them rose\n",
              out);
    put_native(out, t);
    free(l.cells);
    free(lab);
    free(numbered);
    return 0;
}
