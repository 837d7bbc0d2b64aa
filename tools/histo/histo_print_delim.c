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

#include "cli_escape.h"
#include "histo_print.h"

typedef struct delim {
    FILE *out;
    char sep;
    int csv;
} delim;

static void put_name(const delim *o, const char *s, size_t len)
{
    cli_put_field(o->out, o->csv, s, len);
}

static void put_u64(const delim *o, uint64_t v)
{
    fprintf(o->out, "%c%llu", o->sep, (unsigned long long)v);
}

static void put_delta(const delim *o, uint64_t a, uint64_t b)
{
    fprintf(o->out, "%c%s", o->sep, histo_fmt_delta(a, b, HISTO_FMT_PLAIN).s);
}

static void header(const delim *o, const histo_table *t, const char *word)
{
    size_t nd = t->ndumps;
    char s = o->sep;
    if (nd == 1) {
        fprintf(o->out, "count%cbytes%c%s", s, s, word);
    } else if (nd == 2) {
        fprintf(o->out,
                "%s%ccount_a%ccount_b%cdelta_count%cbytes_a%cbytes_b%c"
                "delta_bytes",
                word, s, s, s, s, s, s);
    } else {
        fprintf(o->out, "%s%cgrowing", word, s);
        for (size_t d = 0; d < nd; d++)
            fprintf(o->out, "%ccount_%zu", s, d + 1);
        for (size_t d = 0; d < nd; d++)
            fprintf(o->out, "%cbytes_%zu", s, d + 1);
    }
}

static void header_life(const delim *o, const histo_table *t)
{
    if (t->life != NULL)
        fprintf(o->out, "%cfrees%cmean_life_us%coldest_us", o->sep, o->sep,
                o->sep);
}

static void row_life(const delim *o, const histo_table *t, const histo_row *r)
{
    const histo_life *l = histo_row_life(t, r, t->ndumps - 1);
    if (l == NULL)
        return;
    put_u64(o, l->frees);
    if (l->frees > 0)
        put_u64(o, l->lifetime_us / l->frees);
    else
        fputc(o->sep, o->out);
    put_u64(o, l->oldest_us);
}

static void row(const delim *o, const histo_table *t, const histo_row *r)
{
    size_t nd = t->ndumps, last = nd - 1;
    if (nd == 1) {
        fprintf(o->out, "%llu", (unsigned long long)histo_count(t, r, 0));
        put_u64(o, histo_bytes(t, r, 0));
        fputc(o->sep, o->out);
        put_name(o, r->name, r->len);
    } else if (nd == 2) {
        put_name(o, r->name, r->len);
        put_u64(o, histo_count(t, r, 0));
        put_u64(o, histo_count(t, r, last));
        put_delta(o, histo_count(t, r, 0), histo_count(t, r, last));
        put_u64(o, histo_bytes(t, r, 0));
        put_u64(o, histo_bytes(t, r, last));
        put_delta(o, histo_bytes(t, r, 0), histo_bytes(t, r, last));
    } else {
        put_name(o, r->name, r->len);
        put_u64(o, (uint64_t)r->growing);
        for (size_t d = 0; d < nd; d++)
            put_u64(o, histo_count(t, r, d));
        for (size_t d = 0; d < nd; d++)
            put_u64(o, histo_bytes(t, r, d));
    }
    row_life(o, t, r);
    fputc('\n', o->out);
}

void histo_print_delimited(FILE *out, const histo_table *t,
                           const histo_options *opt, int csv)
{
    delim o = {out, csv ? ',' : '\t', csv};
    header(&o, t, histo_by_word(opt->by));
    header_life(&o, t);
    fputc('\n', out);
    for (size_t i = 0; i < t->nshown; i++)
        row(&o, t, &t->rows[i]);
}
