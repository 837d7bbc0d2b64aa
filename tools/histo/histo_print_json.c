/* histo_print_json.c -- one JSON object: the dumps, the shown rows (one
 * per line), what was left out and the totals. Layout in histo(1),
 * "OUTPUT FORMATS". Numbers are JSON integers; changes may be negative. */
#include <inttypes.h>
#include <string.h>

#include "cli_escape.h"
#include "histo_print.h"

static void put_u64(FILE *out, const char *key, uint64_t v)
{
    fprintf(out, ", \"%s\": %llu", key, (unsigned long long)v);
}

static void put_delta(FILE *out, const char *key, uint64_t a, uint64_t b)
{
    fprintf(out, ", \"%s\": %s", key,
            histo_fmt_delta(a, b, HISTO_FMT_PLAIN).s);
}

/* "key": [v0, v1, ...] over every dump: the counts, or with bytes set
 * the bytes (cb: see histo_line_count). */
static void put_list(FILE *out, const char *key, const uint64_t *cb,
                     size_t nd, int bytes)
{
    fprintf(out, ", \"%s\": [", key);
    for (size_t d = 0; d < nd; d++)
        fprintf(out, "%s%llu", d ? ", " : "",
                (unsigned long long)(bytes ? histo_line_bytes(cb, d)
                                           : histo_line_count(cb, d)));
    fputc(']', out);
}

/* The numbers of a row, or of the omitted and total lines. */
static void put_numbers(FILE *out, const histo_table *t, const uint64_t *cb)
{
    size_t nd = t->ndumps, last = nd - 1;
    uint64_t c0 = histo_line_count(cb, 0), b0 = histo_line_bytes(cb, 0);
    uint64_t cn = histo_line_count(cb, last), bn = histo_line_bytes(cb, last);
    if (nd == 1) {
        put_u64(out, "count", c0);
        put_u64(out, "bytes", b0);
    } else if (nd == 2) {
        put_u64(out, "count_a", c0);
        put_u64(out, "count_b", cn);
        put_delta(out, "delta_count", c0, cn);
        put_u64(out, "bytes_a", b0);
        put_u64(out, "bytes_b", bn);
        put_delta(out, "delta_bytes", b0, bn);
    } else {
        put_list(out, "counts", cb, nd, 0);
        put_list(out, "bytes", cb, nd, 1);
        put_delta(out, "delta_count", c0, cn);
        put_delta(out, "delta_bytes", b0, bn);
    }
}

static void put_dumps(FILE *out, const histo_table *t)
{
    fputs("  \"dumps\": [\n", out);
    for (size_t d = 0; d < t->ndumps; d++) {
        const histo_dump *hd = &t->dumps[d];
        const char *path = hd->path != NULL ? hd->path : "";
        fputs("    {\"file\": ", out);
        cli_put_json(out, path, strlen(path));
        fprintf(out, ", \"complete\": %s, \"source\": \"%s\"",
                hd->status == 0 ? "true" : "false",
                hd->from_footer ? "footer" : "scan");
        if (hd->native_known) {
            const cli_native *n = &hd->native;
            fprintf(out, ", \"native\": {\"rss\": %" PRIu64
                    ", \"live\": %" PRIu64 ", \"overhead\": %.4f"
                    ", \"estimated\": %s",
                    n->rss, n->live, cli_native_overhead(n),
                    n->estimated ? "true" : "false");
            if (n->have_free)
                fprintf(out, ", \"arena_free\": %" PRIu64, n->arena_free);
            fputc('}', out);
        }
        fprintf(out, "}%s\n", d + 1 < t->ndumps ? "," : "");
    }
    fputs("  ],\n", out);
}

void histo_print_json(FILE *out, const histo_table *t,
                      const histo_options *opt)
{
    const char *word = histo_by_word(opt->by);
    fprintf(out, "{\n  \"by\": \"%s\",\n", word);
    put_dumps(out, t);
    fputs("  \"rows\": [", out);
    for (size_t i = 0; i < t->nshown; i++) {
        const histo_row *r = &t->rows[i];
        fprintf(out, "%s\n    {\"%s\": ", i ? "," : "", word);
        cli_put_json(out, r->name, r->len);
        put_numbers(out, t, &t->cells[r->id * t->ndumps * 2]);
        const histo_life *l = histo_row_life(t, r, t->ndumps - 1);
        if (l != NULL) { /* lifespans (format 1.2), of the last dump */
            put_u64(out, "allocs", l->allocs);
            put_u64(out, "frees", l->frees);
            put_u64(out, "lifetime_us", l->lifetime_us);
            put_u64(out, "oldest_us", l->oldest_us);
        }
        if (t->ndumps == 2)
            fprintf(out, ", \"status\": \"%s\"", histo_row_status(t, r));
        else if (t->ndumps > 2)
            fprintf(out, ", \"growing\": %s", r->growing ? "true" : "false");
        fputc('}', out);
    }
    fputs(t->nshown ? "\n  ],\n" : "],\n", out);
    fprintf(out, "  \"omitted\": {\"rows\": %zu", t->nrows - t->nshown);
    put_numbers(out, t, t->omitted);
    fprintf(out, "},\n  \"totals\": {\"rows\": %zu", t->nrows);
    put_numbers(out, t, t->total);
    fputs("}\n}\n", out);
}
