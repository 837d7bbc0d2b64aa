/* histo_print_delim.c -- TSV and CSV: a header line, then one line per
 * shown row; no total and no "other" line, so every line after the header
 * is data. Numbers are plain digits; changes carry a '-' when negative and
 * no sign otherwise. The columns are part of histo's documented interface
 * (histo(1), "OUTPUT FORMATS") and only ever gain new columns at the end.
 *
 *   one dump   count  bytes  NAME
 *   two dumps  NAME  count_a  count_b  delta_count  bytes_a  bytes_b  delta_bytes
 *   N dumps    NAME  growing  count_1 .. count_N  bytes_1 .. bytes_N
 *
 * NAME is the --by word: class, type or site. When the dumps hold
 * lifespans for these rows (format 1.2), three columns follow, of the
 * last dump: frees, mean_life_us (empty when nothing was freed) and
 * oldest_us (0 when no block is alive). */
#include <stdio.h>
#include <stdlib.h>

#include "cli_rows.h"
#include "histo_print.h"

/* Room for the column names of nd dumps: "count_N" and "bytes_N". */
typedef char col_name[32];

/* The column names: cols (3 + 2 nd + 3 entries at most), the numbered
 * ones written in numbered (2 nd). Returns how many. */
static size_t columns(const histo_table *t, const char *word,
                      const char **cols, col_name *numbered)
{
    static const char *const two[] = {"count_a", "count_b", "delta_count",
                                      "bytes_a", "bytes_b", "delta_bytes"};
    size_t nd = t->ndumps, n = 0;
    if (nd == 1) {
        cols[n++] = "count";
        cols[n++] = "bytes";
        cols[n++] = word;
    } else if (nd == 2) {
        cols[n++] = word;
        for (size_t i = 0; i < 6; i++)
            cols[n++] = two[i];
    } else {
        cols[n++] = word;
        cols[n++] = "growing";
        for (size_t k = 0; k < 2 * nd; k++) {
            snprintf(numbered[k], sizeof numbered[k], "%s_%zu",
                     k < nd ? "count" : "bytes", k % nd + 1);
            cols[n++] = numbered[k];
        }
    }
    if (t->life != NULL) {
        cols[n++] = "frees";
        cols[n++] = "mean_life_us";
        cols[n++] = "oldest_us";
    }
    return n;
}

static void delta(cli_rows *o, uint64_t a, uint64_t b)
{
    cli_rows_number(o, histo_fmt_delta(a, b, HISTO_FMT_PLAIN).s);
}

static void row(cli_rows *o, const histo_table *t, const histo_row *r)
{
    size_t nd = t->ndumps, last = nd - 1;
    if (nd == 1) {
        cli_rows_u64(o, histo_count(t, r, 0));
        cli_rows_u64(o, histo_bytes(t, r, 0));
        cli_rows_text(o, r->name, r->len);
    } else if (nd == 2) {
        cli_rows_text(o, r->name, r->len);
        cli_rows_u64(o, histo_count(t, r, 0));
        cli_rows_u64(o, histo_count(t, r, last));
        delta(o, histo_count(t, r, 0), histo_count(t, r, last));
        cli_rows_u64(o, histo_bytes(t, r, 0));
        cli_rows_u64(o, histo_bytes(t, r, last));
        delta(o, histo_bytes(t, r, 0), histo_bytes(t, r, last));
    } else {
        cli_rows_text(o, r->name, r->len);
        cli_rows_u64(o, (uint64_t)r->growing);
        for (size_t d = 0; d < nd; d++)
            cli_rows_u64(o, histo_count(t, r, d));
        for (size_t d = 0; d < nd; d++)
            cli_rows_u64(o, histo_bytes(t, r, d));
    }
    const histo_life *l = histo_row_life(t, r, last);
    if (l != NULL) {
        cli_rows_u64(o, l->frees);
        cli_rows_mean(o, l->lifetime_us, l->frees);
        cli_rows_u64(o, l->oldest_us);
    }
}

int histo_print_delimited(FILE *out, const histo_table *t,
                          const histo_options *opt, int csv)
{
    size_t nd = t->ndumps;
    const char **cols = malloc((8 + 2 * nd) * sizeof *cols);
    col_name *numbered = malloc(2 * nd * sizeof *numbered);
    if (cols == NULL || numbered == NULL) {
        free(cols);
        free(numbered);
        return -1;
    }
    cli_rows o;
    cli_rows_begin(&o, out, csv ? CLI_ROW_CSV : CLI_ROW_TSV,
                   columns(t, histo_by_word(opt->by), cols, numbered), cols);
    for (size_t i = 0; i < t->nshown; i++)
        row(&o, t, &t->rows[i]);
    cli_rows_finish(&o);
    free(cols);
    free(numbered);
    return 0;
}
