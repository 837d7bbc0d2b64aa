/* print.c -- heapfmt-diff's output: table, TSV, CSV and JSON. */
#include <inttypes.h>
#include <string.h>

#include "cli_code.h"
#include "cli_escape.h"
#include "cli_num.h"
#include "cli_rows.h"
#include "cli_stack.h"
#include "print.h"

/* ---- pieces ---- */

/* The placeholders histo(1) prints too. */
#define NO_SITE "(no site)"
#define NO_TYPE "(no type)"

static const char *const change_names[2][2] = {
    {"new", "freed"},    /* two dumps */
    {"retained", "?"},   /* three dumps */
};

/* --by=stack, frame, imemo or iseq: the name of the rows' column, in
 * lower or upper case; NULL for the other keys. */
static const char *stack_column(unsigned by, int upper)
{
    if (by & DIFF_BY_STACK)
        return upper ? "STACK" : "stack";
    if (by & DIFF_BY_FRAME)
        return upper ? "FRAME" : "frame";
    if (by & DIFF_BY_IMEMO)
        return upper ? "IMEMO" : "imemo";
    if (by & DIFF_BY_ISEQ)
        return upper ? "ISEQ" : "iseq";
    return NULL;
}

static const char *change_name(const diff_result *res, int change)
{
    return change_names[res->ndumps == 3][change];
}

/* A stack, frame, imemo or iseq name id as text: CLI_NO_STACK (...) for
 * DIFF_NONE. */
static const char *stack_text(const diff_result *res, uint32_t id,
                              size_t *len)
{
    if (id == DIFF_NONE) {
        const char *none = (res->by & DIFF_BY_IMEMO)  ? CLI_NOT_IMEMO
                           : (res->by & DIFF_BY_ISEQ) ? CLI_NO_ISEQ
                                                      : CLI_NO_STACK;
        *len = strlen(none);
        return none;
    }
    return nameid_text(&res->names, id, len);
}

/* The cells of the machine formats (cli_rows.h): a name, or for
 * DIFF_NONE JSON's null and the placeholder none elsewhere (the name's
 * text when none is NULL). */
static void name_cell(cli_rows *o, const diff_result *res, uint32_t id,
                      const char *none)
{
    if (id == DIFF_NONE && o->format == CLI_ROW_JSON) {
        cli_rows_null(o);
    } else if (id == DIFF_NONE && none != NULL) {
        cli_rows_word(o, none);
    } else {
        size_t len;
        const char *s = nameid_text(&res->names, id, &len);
        cli_rows_text(o, s, len);
    }
}

/* "file:line", or null (JSON) or "(no site)". */
static void site_cell(cli_rows *o, const diff_result *res, uint32_t file,
                      uint64_t line)
{
    if (file == DIFF_NONE) {
        name_cell(o, res, file, NO_SITE);
        return;
    }
    size_t len;
    const char *s = nameid_text(&res->names, file, &len);
    cli_rows_site(o, s, len, line);
}

/* The columns of the key (--by sets one, or class and site), upper case
 * for the table's header, after the n in cols. Returns the new count. */
static size_t key_columns(const diff_result *res, int upper,
                          const char **cols, size_t n)
{
    const char *column = stack_column(res->by, upper);
    if (column != NULL)
        cols[n++] = column;
    if (res->by & DIFF_BY_CLASS)
        cols[n++] = upper ? "CLASS" : "class";
    if (res->by & DIFF_BY_SITE)
        cols[n++] = upper ? "SITE" : "site";
    return n;
}

static void key_cells(cli_rows *o, const diff_result *res, const diff_row *row)
{
    if (stack_column(res->by, 0) != NULL) {
        size_t len;
        const char *s = stack_text(res, row->stack, &len);
        cli_rows_text(o, s, len);
    }
    if (res->by & DIFF_BY_CLASS)
        name_cell(o, res, row->cls, NULL);
    if (res->by & DIFF_BY_SITE)
        site_cell(o, res, row->file, row->line);
}

/* Starts the rows of a machine format; JSON's are the array of key
 * (rows, objects) in the document json_head began. */
static void rows_begin(cli_rows *o, FILE *out, int format, const char *key,
                       size_t ncols, const char *const *cols)
{
    if (format == CLI_ROW_JSON)
        fprintf(out, "  \"%s\": ", key);
    cli_rows_begin(o, out, format, ncols, cols);
    o->json_indent = "    ";
    o->json_outdent = "  ";
    o->json_tail = ",\n";
}

/* How a number is written. */
enum { NUM_PLAIN, NUM_COUNT, NUM_BYTES };

/* 1234567 as "1234567", "1,234,567" or "1.2 MiB". */
static cli_num fmt_num(uint64_t v, int style)
{
    return style == NUM_COUNT   ? cli_fmt_count(v)
           : style == NUM_BYTES ? cli_fmt_bytes(v)
                                : cli_fmt_plain(v);
}

/* a - b with a sign: "+12", "-3", "0"; with plus 0 (JSON) a positive
 * number has no sign. */
static cli_num fmt_delta(uint64_t a, uint64_t b, int style, int plus)
{
    uint64_t m = a >= b ? a - b : b - a;
    cli_num digits = fmt_num(m, style);
    cli_num n;
    size_t at = 0;
    if (m != 0 && (a < b || plus))
        n.s[at++] = a > b ? '+' : '-';
    /* At most 26 characters ("18,446,744,073,709,551,615"): room left. */
    size_t len = strlen(digits.s);
    memcpy(n.s + at, digits.s, len + 1);
    return n;
}

static void json_head(FILE *out, const diff_result *res)
{
    static const char *const by_names[] = {"", "class", "site", "class,site"};
    fputs("{\n  \"mode\": ", out);
    fputs(res->ndumps == 3 ? "\"retained\"" : "\"diff\"", out);
    fputs(",\n  \"dumps\": [", out);
    for (int i = 0; i < res->ndumps; i++) {
        fputs(i > 0 ? ",\n    {\"file\": " : "\n    {\"file\": ", out);
        cli_put_json(out, res->paths[i], strlen(res->paths[i]));
        fprintf(out, ", \"complete\": %s}",
                res->dump_complete[i] ? "true" : "false");
    }
    fprintf(out, "\n  ],\n  \"complete\": %s,\n",
            res->complete ? "true" : "false");
    if (!res->list)
        fprintf(out, "  \"by\": \"%s\",\n",
                stack_column(res->by, 0) ? stack_column(res->by, 0)
                                         : by_names[res->by & 3]);
    fputs("  \"warnings\": [", out);
    for (size_t i = 0; i < res->warnings.n; i++) {
        const note *w = &res->warnings.v[i];
        fputs(i > 0 ? ",\n    {\"dump\": " : "\n    {\"dump\": ", out);
        if (w->file != NULL)
            cli_put_json(out, w->file, strlen(w->file));
        else
            fputs("null", out);
        fputs(", \"message\": ", out);
        cli_put_json(out, w->text, strlen(w->text));
        fputc('}', out);
    }
    fputs(res->warnings.n > 0 ? "\n  ],\n" : "],\n", out);
}

/* ---- summary ---- */

#define MAX_CELLS 6

/* The number cells of a row: counts and bytes (and changes, for two
 * dumps), plain or for people. Returns how many. */
static int cells(const diff_result *res, const diff_stat *s, cli_num *c,
                 int human)
{
    int cs = human ? NUM_COUNT : NUM_PLAIN, bs = human ? NUM_BYTES : NUM_PLAIN;
    c[0] = fmt_num(s->count[0], cs);
    c[1] = fmt_num(s->bytes[0], bs);
    if (res->ndumps == 3)
        return 2;
    c[2] = fmt_num(s->count[1], cs);
    c[3] = fmt_num(s->bytes[1], bs);
    c[4] = fmt_delta(s->count[0], s->count[1], cs, 1);
    c[5] = fmt_delta(s->bytes[0], s->bytes[1], bs, 1);
    return 6;
}

static size_t shown_rows(const diff_result *res)
{
    return res->top > 0 && res->top < res->nrows ? (size_t)res->top
                                                   : res->nrows;
}

/* "class" or "classes", "site"..., "row"... for n rows of by. */
static const char *noun(unsigned by, uint64_t n)
{
    static const char *const words[7][2] = {
        {"class", "classes"}, {"site", "sites"},   {"row", "rows"},
        {"stack", "stacks"},  {"frame", "frames"}, {"imemo", "imemos"},
        {"iseq", "iseqs"}};
    int w = by == (DIFF_BY_CLASS | DIFF_BY_SITE) ? 2
            : by == DIFF_BY_SITE                 ? 1
            : by == DIFF_BY_STACK                ? 3
            : by == DIFF_BY_FRAME                ? 4
            : by == DIFF_BY_IMEMO                ? 5
            : by == DIFF_BY_ISEQ                 ? 6
                                                 : 0;
    return words[w][n != 1];
}

/* The sum of the rows --top leaves out. */
static diff_stat omitted(const diff_result *res)
{
    diff_stat sum;
    memset(&sum, 0, sizeof sum);
    for (size_t r = shown_rows(res); r < res->nrows; r++)
        for (int i = 0; i < 2; i++) {
            stat_add(&sum.count[i], res->rows[r].s.count[i]);
            stat_add(&sum.bytes[i], res->rows[r].s.bytes[i]);
        }
    return sum;
}

/* The lifespan cells of a row (format 1.2): frees, mean lifetime and the
 * oldest live block's age; "-" where there is none, empty for a line
 * without lifespans. */
#define LIFE_CELLS 3
static void life_cells(const diff_row *row, int human, cli_num *c)
{
    for (int i = 0; i < LIFE_CELLS; i++)
        c[i].s[0] = '\0';
    if (row == NULL || !row->has_life)
        return;
    const diff_life *l = &row->life;
    c[0] = human ? cli_fmt_count(l->frees) : cli_fmt_plain(l->frees);
    if (l->frees > 0)
        c[1] = cli_fmt_duration_us(l->lifetime_us / l->frees);
    else
        snprintf(c[1].s, sizeof c[1].s, "-");
    if (l->oldest_us > 0)
        c[2] = cli_fmt_duration_us(l->oldest_us);
    else
        snprintf(c[2].s, sizeof c[2].s, "-");
}

/* The number and lifespan cells of a table's row (row NULL: the lines
 * "other" and "total", without lifespans). */
static void table_cells(cli_rows *o, const diff_result *res,
                        const diff_stat *s, const diff_row *row, int human)
{
    cli_num c[MAX_CELLS];
    int n = cells(res, s, c, human);
    for (int i = 0; i < n; i++)
        cli_rows_number(o, c[i].s);
    if (!res->has_life)
        return;
    life_cells(row, human, c);
    for (int i = 0; i < LIFE_CELLS; i++)
        cli_rows_number(o, c[i].s);
}

/* The table: the rows, the other rows' sums, a rule, the total; counted
 * and measured over all of them in a first pass (cli_rows.h). */
static void summary_table(const diff_result *res, int human, FILE *out)
{
    static const char *const heads[2][MAX_CELLS] = {
        {"NEW", "NEW BYTES", "FREED", "FREED BYTES", "DELTA", "DELTA BYTES"},
        {"RETAINED", "RETAINED BYTES"},
    };
    static const char *const life_head[LIFE_CELLS] = {"FREES", "MEAN LIFE",
                                                       "OLDEST"};
    int ncells = res->ndumps == 3 ? 2 : 6;
    const char *labels[MAX_CELLS + LIFE_CELLS + 2];
    size_t n = 0;
    for (int i = 0; i < ncells; i++)
        labels[n++] = heads[res->ndumps == 3][i];
    for (int i = 0; res->has_life && i < LIFE_CELLS; i++)
        labels[n++] = life_head[i];
    n = key_columns(res, 1, labels, n);
    size_t shown = shown_rows(res);
    diff_stat rest = omitted(res);
    char tail[96];
    cli_rows o;
    cli_rows_begin(&o, out, CLI_ROW_TABLE, n, labels);
    o.labels = labels;
    cli_rows_measure(&o);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            cli_rows_print(&o);
        for (size_t r = 0; r < shown; r++) {
            const diff_row *row = &res->rows[r];
            table_cells(&o, res, &row->s, row, human);
            key_cells(&o, res, row);
        }
        if (shown < res->nrows) {
            table_cells(&o, res, &rest, NULL, human);
            snprintf(tail, sizeof tail, "(%s other %s)",
                     cli_fmt_count(res->nrows - shown).s,
                     noun(res->by, res->nrows - shown));
            cli_rows_tail(&o, tail);
        }
        cli_rows_rule(&o, (size_t)ncells);
        table_cells(&o, res, &res->total, NULL, human);
        snprintf(tail, sizeof tail, "total (%s %s)",
                 cli_fmt_count(res->nrows).s, noun(res->by, res->nrows));
        cli_rows_tail(&o, tail);
    }
    cli_rows_finish(&o);
}

/* TSV, CSV and JSON's rows: one column each (class, site, or the
 * stack-like key: --by sets one of them, or class and site), the numbers,
 * the lifespans: in TSV and CSV frees, mean_life_us and oldest_us when
 * any row has them; in JSON allocs, frees, lifetime_us and oldest_us in
 * the rows that have them. */
static void summary_cells(const diff_result *res, cli_rows *o, FILE *out,
                         int format)
{
    static const char *const num_cols[2][6] = {
        {"new_count", "new_bytes", "freed_count", "freed_bytes",
         "delta_count", "delta_bytes"},
        {"retained_count", "retained_bytes"},
    };
    static const char *const life_cols[2][4] = {
        {"frees", "mean_life_us", "oldest_us"},
        {"allocs", "frees", "lifetime_us", "oldest_us"},
    };
    int json = format == CLI_ROW_JSON;
    const char *cols[16];
    size_t n = 0;
    n = key_columns(res, 0, cols, n);
    int nnum = res->ndumps == 3 ? 2 : json ? 6 : 4;
    for (int i = 0; i < nnum; i++)
        cols[n++] = num_cols[res->ndumps == 3][i];
    int nlife = json ? 4 : res->has_life ? 3 : 0;
    for (int i = 0; i < nlife; i++)
        cols[n++] = life_cols[json][i];
    rows_begin(o, out, format, "rows", n, cols);
    size_t shown = shown_rows(res);
    for (size_t r = 0; r < shown; r++) {
        const diff_row *row = &res->rows[r];
        key_cells(o, res, row);
        const diff_stat *st = &row->s;
        for (int i = 0; i < (res->ndumps == 3 ? 1 : 2); i++) {
            cli_rows_u64(o, st->count[i]);
            cli_rows_u64(o, st->bytes[i]);
        }
        if (json && res->ndumps == 2) {
            cli_rows_number(o, fmt_delta(st->count[0], st->count[1],
                                         NUM_PLAIN, 0).s);
            cli_rows_number(o, fmt_delta(st->bytes[0], st->bytes[1],
                                         NUM_PLAIN, 0).s);
        }
        const diff_life *l = &row->life;
        if (json && row->has_life) {
            cli_rows_u64(o, l->allocs);
            cli_rows_u64(o, l->frees);
            cli_rows_u64(o, l->lifetime_us);
            cli_rows_u64(o, l->oldest_us);
        } else if (!json && nlife > 0 && row->has_life) {
            cli_rows_u64(o, l->frees);
            cli_rows_mean(o, l->lifetime_us, l->frees);
            cli_rows_u64(o, l->oldest_us);
        } else {
            for (int i = 0; i < nlife; i++)
                cli_rows_absent(o);
        }
    }
    cli_rows_finish(o);
}

static void json_stat(FILE *out, const diff_result *res, const diff_stat *s)
{
    if (res->ndumps == 3) {
        fprintf(out, "\"retained_count\": %" PRIu64
                     ", \"retained_bytes\": %" PRIu64,
                s->count[0], s->bytes[0]);
        return;
    }
    fprintf(out,
            "\"new_count\": %" PRIu64 ", \"new_bytes\": %" PRIu64
            ", \"freed_count\": %" PRIu64 ", \"freed_bytes\": %" PRIu64
            ", \"delta_count\": %s, \"delta_bytes\": %s",
            s->count[0], s->bytes[0], s->count[1], s->bytes[1],
            fmt_delta(s->count[0], s->count[1], NUM_PLAIN, 0).s,
            fmt_delta(s->bytes[0], s->bytes[1], NUM_PLAIN, 0).s);
}

static void summary_json(const diff_result *res, FILE *out)
{
    cli_rows o;
    json_head(out, res);
    summary_cells(res, &o, out, CLI_ROW_JSON);
    size_t shown = shown_rows(res);
    diff_stat rest = omitted(res);
    fprintf(out, "  \"omitted\": {\"rows\": %zu, ", res->nrows - shown);
    json_stat(out, res, &rest);
    fprintf(out, "},\n  \"totals\": {\"rows\": %zu, ", res->nrows);
    json_stat(out, res, &res->total);
    fputs("}\n}\n", out);
}

/* ---- list ---- */

static const tuple *item_kind(const diff_result *res, const diff_item *it)
{
    return tuples_get(&res->kinds, it->kind);
}

static void list_table(const diff_result *res, int human, FILE *out)
{
    static const char *const labels[] = {"CHANGE", "ID",    "BYTES",
                                         "TYPE",   "CLASS", "SITE"};
    cli_rows o;
    cli_rows_begin(&o, out, CLI_ROW_TABLE, 6, labels);
    o.labels = labels;
    cli_rows_measure(&o);
    o.width[1] = 18; /* "0x%016x", with no object too */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            cli_rows_print(&o);
        for (size_t i = 0; i < res->items.n; i++) {
            const diff_item *it = &res->items.v[i];
            const tuple *k = item_kind(res, it);
            cli_rows_word(&o, change_name(res, it->change));
            cli_rows_id(&o, it->id);
            cli_rows_number(&o, fmt_num(it->size, human ? NUM_BYTES
                                                        : NUM_PLAIN).s);
            name_cell(&o, res, k->type, NO_TYPE);
            name_cell(&o, res, k->klass, NULL);
            site_cell(&o, res, k->file, k->line);
        }
    }
    cli_rows_finish(&o);
}

/* TSV, CSV and JSON: one row per object, the document's "objects". */
static void list_rows(const diff_result *res, FILE *out, int format)
{
    static const char *const cols[] = {"change", "id",    "class",
                                       "type",   "bytes", "site"};
    cli_rows o;
    if (format == CLI_ROW_JSON)
        json_head(out, res);
    rows_begin(&o, out, format, "objects", 6, cols);
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        const tuple *k = item_kind(res, it);
        cli_rows_word(&o, change_name(res, it->change));
        cli_rows_id(&o, it->id);
        name_cell(&o, res, k->klass, NULL);
        name_cell(&o, res, k->type, NO_TYPE);
        cli_rows_u64(&o, it->size);
        site_cell(&o, res, k->file, k->line);
    }
    cli_rows_finish(&o);
    if (format == CLI_ROW_JSON)
        fprintf(out, "  \"count\": %zu\n}\n", res->items.n);
}

void diff_print(const diff_result *res, int format, int human, FILE *out)
{
    if (format == CLI_ROW_TABLE) {
        (res->list ? list_table : summary_table)(res, human, out);
    } else if (res->list) {
        list_rows(res, out, format);
    } else if (format == CLI_ROW_JSON) {
        summary_json(res, out);
    } else {
        cli_rows o;
        summary_cells(res, &o, out, format);
    }
}
