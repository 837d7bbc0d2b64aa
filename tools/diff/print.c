/* print.c -- heapfmt-diff's output: table, TSV, CSV and JSON. */
#include <inttypes.h>
#include <string.h>

#include "cli_code.h"
#include "cli_escape.h"
#include "cli_num.h"
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

static void pad(FILE *out, size_t n)
{
    while (n-- > 0)
        fputc(' ', out);
}

/* Writes the text form of name id, padded with spaces to width (0: no
 * padding). */
static void put_name(FILE *out, const diff_result *res, uint32_t id,
                     size_t width)
{
    size_t len;
    const char *s = nameid_text(&res->names, id, &len);
    cli_put_text(out, s, len);
    size_t w = cli_text_width(s, len);
    if (w < width)
        pad(out, width - w);
}

static size_t name_width(const diff_result *res, uint32_t id)
{
    size_t len;
    const char *s = nameid_text(&res->names, id, &len);
    return cli_text_width(s, len);
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

static void put_stack(FILE *out, const diff_result *res, uint32_t id)
{
    size_t len;
    const char *s = stack_text(res, id, &len);
    cli_put_text(out, s, len);
}

/* "file:line", or none when the object has no site. */
static void put_site(FILE *out, const diff_result *res, uint32_t file,
                     uint64_t line, const char *none)
{
    if (file == DIFF_NONE) {
        fputs(none, out);
        return;
    }
    put_name(out, res, file, 0);
    fprintf(out, ":%" PRIu64, line);
}

/* TSV and CSV: the same columns, a tab or a comma between them; names as
 * one field each (cli_escape.h: text form, or CSV form). */
typedef struct delim {
    FILE *out;
    char sep;
    int csv;
} delim;

/* A header whose columns are separated by tabs, with o's separator. */
static void put_header(const delim *o, const char *cols)
{
    for (; *cols != '\0'; cols++)
        fputc(*cols == '\t' ? o->sep : *cols, o->out);
}

static void field_name(const delim *o, const diff_result *res, uint32_t id)
{
    size_t len;
    const char *s = nameid_text(&res->names, id, &len);
    cli_put_field(o->out, o->csv, s, len);
}

static void field_site(const delim *o, const diff_result *res, uint32_t file,
                       uint64_t line)
{
    if (!o->csv || file == DIFF_NONE) {
        put_site(o->out, res, file, line, NO_SITE);
        return;
    }
    size_t len;
    const char *s = nameid_text(&res->names, file, &len);
    cli_put_csv_site(o->out, s, len, line);
}

/* The JSON value of a site: "file:line" or null. */
static void json_site(FILE *out, const diff_result *res, uint32_t file,
                      uint64_t line)
{
    if (file == DIFF_NONE) {
        fputs("null", out);
        return;
    }
    size_t len;
    const char *s = nameid_text(&res->names, file, &len);
    fputc('"', out);
    cli_put_json_chars(out, s, len);
    fprintf(out, ":%" PRIu64 "\"", line);
}

static void json_name(FILE *out, const diff_result *res, uint32_t id)
{
    if (id == DIFF_NONE) {
        fputs("null", out);
        return;
    }
    size_t len;
    const char *s = nameid_text(&res->names, id, &len);
    cli_put_json(out, s, len);
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

/* Widens width[] to the cells of s. */
static void widen(const diff_result *res, const diff_stat *s, int human,
                  size_t *width)
{
    cli_num c[MAX_CELLS];
    int n = cells(res, s, c, human);
    for (int i = 0; i < n; i++)
        if (strlen(c[i].s) > width[i])
            width[i] = strlen(c[i].s);
}

static void put_cells(FILE *out, const diff_result *res, const diff_stat *s,
                      int human, const size_t *width)
{
    cli_num c[MAX_CELLS];
    int n = cells(res, s, c, human);
    for (int i = 0; i < n; i++)
        fprintf(out, "%*s  ", (int)width[i], c[i].s);
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

static void put_life(FILE *out, const diff_result *res, const diff_row *row,
                     int human, const size_t *width)
{
    if (!res->has_life)
        return;
    cli_num c[LIFE_CELLS];
    life_cells(row, human, c);
    for (int i = 0; i < LIFE_CELLS; i++)
        fprintf(out, "%*s  ", (int)width[i], c[i].s);
}

static void summary_table(const diff_result *res, int human, FILE *out)
{
    static const char *const heads[2][MAX_CELLS] = {
        {"NEW", "NEW BYTES", "FREED", "FREED BYTES", "DELTA", "DELTA BYTES"},
        {"RETAINED", "RETAINED BYTES"},
    };
    const char *const *head = heads[res->ndumps == 3];
    int ncells = res->ndumps == 3 ? 2 : 6;
    int by_class = (res->by & DIFF_BY_CLASS) != 0;
    int by_site = (res->by & DIFF_BY_SITE) != 0;
    size_t shown = shown_rows(res);
    diff_stat rest = omitted(res);

    static const char *const life_head[LIFE_CELLS] = {"FREES", "MEAN LIFE",
                                                       "OLDEST"};
    size_t width[MAX_CELLS], class_width = strlen("CLASS"), lwidth[LIFE_CELLS];
    for (int i = 0; i < ncells; i++)
        width[i] = strlen(head[i]);
    for (int i = 0; i < LIFE_CELLS; i++)
        lwidth[i] = strlen(life_head[i]);
    for (size_t r = 0; r < shown; r++) {
        widen(res, &res->rows[r].s, human, width);
        size_t w = name_width(res, res->rows[r].cls);
        if (w > class_width)
            class_width = w;
        cli_num c[LIFE_CELLS];
        life_cells(&res->rows[r], human, c);
        for (int i = 0; i < LIFE_CELLS; i++)
            if (strlen(c[i].s) > lwidth[i])
                lwidth[i] = strlen(c[i].s);
    }
    widen(res, &rest, human, width);
    widen(res, &res->total, human, width);

    for (int i = 0; i < ncells; i++)
        fprintf(out, "%*s  ", (int)width[i], head[i]);
    if (res->has_life)
        for (int i = 0; i < LIFE_CELLS; i++)
            fprintf(out, "%*s  ", (int)lwidth[i], life_head[i]);
    if (stack_column(res->by, 1) != NULL)
        fprintf(out, "%s\n", stack_column(res->by, 1));
    else if (by_class && by_site)
        fprintf(out, "%-*s  SITE\n", (int)class_width, "CLASS");
    else
        fputs(by_class ? "CLASS\n" : "SITE\n", out);
    for (size_t r = 0; r < shown; r++) {
        const diff_row *row = &res->rows[r];
        put_cells(out, res, &row->s, human, width);
        put_life(out, res, row, human, lwidth);
        if (stack_column(res->by, 0) != NULL)
            put_stack(out, res, row->stack);
        if (by_class)
            put_name(out, res, row->cls, by_site ? class_width + 2 : 0);
        if (by_site)
            put_site(out, res, row->file, row->line, NO_SITE);
        fputc('\n', out);
    }
    if (shown < res->nrows) {
        put_cells(out, res, &rest, human, width);
        put_life(out, res, NULL, human, lwidth);
        fprintf(out, "(%s other %s)\n", cli_fmt_count(res->nrows - shown).s,
                noun(res->by, res->nrows - shown));
    }
    for (int i = 0; i < ncells; i++) {
        if (i > 0)
            fputs("  ", out);
        for (size_t k = 0; k < width[i]; k++)
            fputc('-', out);
    }
    fputc('\n', out);
    put_cells(out, res, &res->total, human, width);
    put_life(out, res, NULL, human, lwidth);
    fprintf(out, "total (%s %s)\n", cli_fmt_count(res->nrows).s,
            noun(res->by, res->nrows));
}

static void summary_delim(const diff_result *res, const delim *o)
{
    FILE *out = o->out;
    char sep = o->sep;
    int by_class = (res->by & DIFF_BY_CLASS) != 0;
    int by_site = (res->by & DIFF_BY_SITE) != 0;
    const char *column = stack_column(res->by, 0);
    if (column != NULL)
        fprintf(out, "%s%c", column, sep);
    else if (by_class)
        put_header(o, by_site ? "class\tsite\t" : "class\t");
    else
        put_header(o, "site\t");
    put_header(o, res->ndumps == 3
                      ? "retained_count\tretained_bytes"
                      : "new_count\tnew_bytes\tfreed_count\tfreed_bytes");
    put_header(o, res->has_life ? "\tfrees\tmean_life_us\toldest_us\n" : "\n");
    size_t shown = shown_rows(res);
    for (size_t r = 0; r < shown; r++) {
        const diff_row *row = &res->rows[r];
        if (column != NULL) {
            size_t len;
            const char *s = stack_text(res, row->stack, &len);
            cli_put_field(o->out, o->csv, s, len);
            fputc(sep, out);
        }
        if (by_class) {
            field_name(o, res, row->cls);
            fputc(sep, out);
        }
        if (by_site) {
            field_site(o, res, row->file, row->line);
            fputc(sep, out);
        }
        fprintf(out, "%" PRIu64 "%c%" PRIu64, row->s.count[0], sep,
                row->s.bytes[0]);
        if (res->ndumps == 2)
            fprintf(out, "%c%" PRIu64 "%c%" PRIu64, sep, row->s.count[1],
                    sep, row->s.bytes[1]);
        if (res->has_life && row->has_life) {
            fprintf(out, "%c%" PRIu64 "%c", sep, row->life.frees, sep);
            if (row->life.frees > 0)
                fprintf(out, "%" PRIu64, row->life.lifetime_us / row->life.frees);
            fprintf(out, "%c%" PRIu64, sep, row->life.oldest_us);
        } else if (res->has_life) {
            fprintf(out, "%c%c%c", sep, sep, sep);
        }
        fputc('\n', out);
    }
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
    json_head(out, res);
    size_t shown = shown_rows(res);
    fputs("  \"rows\": [", out);
    for (size_t r = 0; r < shown; r++) {
        const diff_row *row = &res->rows[r];
        fputs(r > 0 ? ",\n    {" : "\n    {", out);
        if (res->by & DIFF_BY_CLASS) {
            fputs("\"class\": ", out);
            json_name(out, res, row->cls);
            fputs(", ", out);
        }
        if (res->by & DIFF_BY_SITE) {
            fputs("\"site\": ", out);
            json_site(out, res, row->file, row->line);
            fputs(", ", out);
        }
        if (stack_column(res->by, 0) != NULL) {
            size_t len;
            const char *s = stack_text(res, row->stack, &len);
            fprintf(out, "\"%s\": ", stack_column(res->by, 0));
            cli_put_json(out, s, len);
            fputs(", ", out);
        }
        json_stat(out, res, &row->s);
        if (row->has_life)
            fprintf(out,
                    ", \"allocs\": %" PRIu64 ", \"frees\": %" PRIu64
                    ", \"lifetime_us\": %" PRIu64 ", \"oldest_us\": %" PRIu64,
                    row->life.allocs, row->life.frees, row->life.lifetime_us,
                    row->life.oldest_us);
        fputc('}', out);
    }
    fputs(shown > 0 ? "\n  ],\n" : "],\n", out);
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
    int bs = human ? NUM_BYTES : NUM_PLAIN;
    size_t wchange = strlen("CHANGE"), wbytes = strlen("BYTES"),
           wtype = strlen("TYPE"), wclass = strlen("CLASS");
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        const tuple *k = item_kind(res, it);
        size_t w = strlen(change_name(res, it->change));
        if (w > wchange)
            wchange = w;
        if ((w = strlen(fmt_num(it->size, bs).s)) > wbytes)
            wbytes = w;
        if ((w = k->type != DIFF_NONE ? name_width(res, k->type)
                                   : strlen(NO_TYPE)) > wtype)
            wtype = w;
        if ((w = name_width(res, k->klass)) > wclass)
            wclass = w;
    }
    fprintf(out, "%-*s  %-18s  %*s  %-*s  %-*s  SITE\n", (int)wchange,
            "CHANGE", "ID", (int)wbytes, "BYTES", (int)wtype, "TYPE",
            (int)wclass, "CLASS");
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        const tuple *k = item_kind(res, it);
        fprintf(out, "%-*s  0x%016" PRIx64 "  %*s  ", (int)wchange,
                change_name(res, it->change), it->id, (int)wbytes,
                fmt_num(it->size, bs).s);
        if (k->type != DIFF_NONE)
            put_name(out, res, k->type, wtype + 2);
        else
            fprintf(out, "%-*s", (int)wtype + 2, NO_TYPE);
        put_name(out, res, k->klass, wclass + 2);
        put_site(out, res, k->file, k->line, NO_SITE);
        fputc('\n', out);
    }
}

static void list_delim(const diff_result *res, const delim *o)
{
    FILE *out = o->out;
    char sep = o->sep;
    put_header(o, "change\tid\tclass\ttype\tbytes\tsite\n");
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        const tuple *k = item_kind(res, it);
        fprintf(out, "%s%c0x%016" PRIx64 "%c", change_name(res, it->change),
                sep, it->id, sep);
        field_name(o, res, k->klass);
        fputc(sep, out);
        if (k->type != DIFF_NONE)
            field_name(o, res, k->type);
        else
            fputs(NO_TYPE, out);
        fprintf(out, "%c%" PRIu64 "%c", sep, it->size, sep);
        field_site(o, res, k->file, k->line);
        fputc('\n', out);
    }
}

static void list_json(const diff_result *res, FILE *out)
{
    json_head(out, res);
    fputs("  \"objects\": [", out);
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        const tuple *k = item_kind(res, it);
        fprintf(out, "%s{\"change\": \"%s\", \"id\": \"0x%016" PRIx64 "\", ",
                i > 0 ? ",\n    " : "\n    ", change_name(res, it->change),
                it->id);
        fputs("\"class\": ", out);
        json_name(out, res, k->klass);
        fputs(", \"type\": ", out);
        json_name(out, res, k->type);
        fprintf(out, ", \"bytes\": %" PRIu64 ", \"site\": ", it->size);
        json_site(out, res, k->file, k->line);
        fputc('}', out);
    }
    fputs(res->items.n > 0 ? "\n  ],\n" : "],\n", out);
    fprintf(out, "  \"count\": %zu\n}\n", res->items.n);
}

void diff_print(const diff_result *res, int format, int human, FILE *out)
{
    switch (format) {
    case DIFF_FORMAT_TSV:
    case DIFF_FORMAT_CSV: {
        delim o = {out, format == DIFF_FORMAT_CSV ? ',' : '\t',
                   format == DIFF_FORMAT_CSV};
        (res->list ? list_delim : summary_delim)(res, &o);
        break;
    }
    case DIFF_FORMAT_JSON:
        (res->list ? list_json : summary_json)(res, out);
        break;
    default:
        if (res->list)
            list_table(res, human, out);
        else
            summary_table(res, human, out);
        break;
    }
}
