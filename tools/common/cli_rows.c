/* cli_rows.c -- rows of results in table, TSV, CSV and JSON, and the
 * options that choose the format and the key of summed rows. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "cli_rows.h"
#include "diff_summary.h"

int cli_row_format_parse(const char *name, int *format)
{
    static const char *const names[] = {"table", "tsv", "csv", "json"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (strcmp(name, names[i]) == 0) {
            *format = i;
            return 0;
        }
    }
    return -1;
}

int cli_row_format_option(const char *arg, int *format)
{
    if (cli_row_format_parse(arg, format) == 0)
        return 0;
    cli_usage_error("invalid --format value '%s': expected table, tsv, csv "
                    "or json",
                    arg);
    return -1;
}

int cli_summary_by_option(const char *arg, unsigned *by)
{
    if (summary_parse_by(arg, by) == 0)
        return 0;
    cli_usage_error("invalid --by value '%s': expected " DIFF_BY_VALUES, arg);
    return -1;
}

void cli_rows_begin(cli_rows *o, FILE *f, int format, size_t ncols,
                    const char *const *names)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->format = format;
    o->ncols = ncols;
    o->names = names;
    o->json_indent = " ";
    o->json_outdent = "";
    o->json_tail = "\n";
    o->width = o->width_in;
    o->number = o->number_in;
    o->wcap = CLI_ROWS_MAX_COLS;
    if (format == CLI_ROW_TSV || format == CLI_ROW_CSV) {
        for (size_t i = 0; i < ncols; i++)
            fprintf(f, "%s%s", i ? (format == CLI_ROW_TSV ? "\t" : ",") : "",
                    names[i]);
        fputc('\n', f);
    } else if (format == CLI_ROW_JSON) {
        fputc('[', f);
    }
}

static void *resize(const cli_rows *o, void *p, size_t size)
{
    if (o->resize != NULL)
        return o->resize(o->opaque, p, size);
    if (size > 0)
        return realloc(p, size);
    free(p);
    return NULL;
}

static void print_row(cli_rows *o, const cli_rows_cell *cells);
static void print_kept(cli_rows *o);

/* Keeps a table cell: t, allocated through resize, becomes o's. Once
 * CLI_ROWS_KEEP rows are kept, they are printed and the columns' widths
 * stay as they are: later rows are printed as they end, so that a table
 * of millions of rows (a path of 2M hops, the referrers of a popular
 * object) takes the memory of one row, not 475 bytes a row (issue 31). */
static void keep_owned(cli_rows *o, char *t, int number)
{
    if (o->failed || t == NULL || o->ncells == o->capcells) {
        size_t cap = o->capcells + o->capcells / 2 + 16;
        void *c = o->failed || t == NULL || cap > SIZE_MAX / sizeof *o->cells
                      ? NULL
                      : resize(o, o->cells, cap * sizeof *o->cells);
        if (c == NULL) {
            resize(o, t, 0);
            o->failed = 1;
            return;
        }
        o->cells = c;
        o->capcells = cap;
    }
    o->cells[o->ncells++] = (cli_rows_cell){t, number};
}

/* A table cell's text: the len bytes at s, escaped when escape is set
 * (each byte at most 4: "\xHH", so nothing is cut), then suffix. */
static void keep(cli_rows *o, const char *s, size_t len, int escape,
                 const char *suffix, int number)
{
    size_t extra = strlen(suffix) + 1;
    char *t = NULL;
    if (!o->failed && len <= (SIZE_MAX - extra) / 4)
        t = resize(o, NULL, (escape ? 4 * len : len) + extra);
    if (t != NULL) {
        if (escape) {
            cli_text_format(t, 4 * len + 1, s, len);
        } else {
            memcpy(t, s, len);
            t[len] = '\0';
        }
        strcat(t, suffix);
    }
    keep_owned(o, t, number);
}

static size_t cell_width(const char *s, size_t len, int escape,
                         const char *suffix)
{
    return (escape ? cli_text_width(s, len) : len) + strlen(suffix);
}

/* A table cell: s (escaped when escape is set) then suffix. Kept; or, in
 * a table of two passes, measured, or printed at once: every cell after
 * the spaces pending from the last one, even an empty cell, as printf's
 * "%*s  " would. */
static void table_cell(cli_rows *o, const char *s, size_t len, int escape,
                       const char *suffix, int number)
{
    size_t c = o->col < o->wcap ? o->col : o->wcap - 1;
    if (o->passes == 0) {
        keep(o, s, len, escape, suffix, number);
        return;
    }
    size_t w = cell_width(s, len, escape, suffix);
    if (o->passes == 1) {
        if (w > o->width[c])
            o->width[c] = w;
        o->number[c] |= (unsigned char)number;
        return;
    }
    size_t pad = o->width[c] > w ? o->width[c] - w : 0;
    fprintf(o->f, "%*s", (int)(o->pending + (number ? pad : 0)), "");
    if (escape)
        cli_put_text(o->f, s, len);
    else
        fwrite(s, 1, len, o->f);
    fputs(suffix, o->f);
    o->pending = (number ? 0 : pad) + 2;
}

static void free_cells(cli_rows *o)
{
    for (size_t i = 0; i < o->ncells; i++)
        resize(o, o->cells[i].text, 0);
    o->ncells = 0;
}

/* Before a cell: separators and, in JSON, the key. */
static void open_cell(cli_rows *o)
{
    FILE *f = o->f;
    if (o->format == CLI_ROW_JSON) {
        if (o->col == 0)
            fprintf(f, "%s\n%s{", o->rows ? "," : "", o->json_indent);
        if (o->keys++ > 0)
            fputs(", ", f);
        fprintf(f, "\"%s\": ", o->names[o->col]);
    } else if (o->col > 0 && o->format != CLI_ROW_TABLE) {
        fputc(o->format == CLI_ROW_TSV ? '\t' : ',', f);
    }
}

static void close_cell(cli_rows *o)
{
    if (++o->col < o->ncols)
        return;
    o->col = 0;
    o->keys = 0;
    o->rows++;
    if (o->format == CLI_ROW_JSON) {
        fputc('}', o->f);
    } else if (o->format != CLI_ROW_TABLE || o->passes == 2) {
        fputc('\n', o->f);
        o->pending = 0;
    } else if (o->passes == 1) {
        return;
    } else if (o->streaming && !o->failed) { /* the row just kept */
        print_row(o, o->cells);
        free_cells(o);
    } else if (o->rows == CLI_ROWS_KEEP && !o->failed) {
        print_kept(o);
        free_cells(o);
        o->streaming = 1;
    }
}

void cli_rows_text(cli_rows *o, const char *s, size_t len)
{
    cli_name cut;
    if (o->cut)
        s = cli_name_cut(s, len, &cut, &len);
    open_cell(o);
    switch (o->format) {
    case CLI_ROW_TABLE:
        table_cell(o, s, len, 1, "", 0);
        break;
    case CLI_ROW_TSV:
        cli_put_text(o->f, s, len);
        break;
    case CLI_ROW_CSV:
        cli_put_csv(o->f, s, len);
        break;
    default:
        cli_put_json(o->f, s, len);
    }
    close_cell(o);
}

/* A cell of plain ASCII made by the tool: a number (right-aligned in a
 * table, a JSON number) or a word (left-aligned, a JSON string). */
static void ascii_cell(cli_rows *o, const char *s, int number)
{
    open_cell(o);
    if (o->format == CLI_ROW_TABLE)
        table_cell(o, s, strlen(s), 0, "", number);
    else if (o->format == CLI_ROW_JSON && !number)
        cli_put_json(o->f, s, strlen(s));
    else
        fputs(s, o->f);
    close_cell(o);
}

void cli_rows_number(cli_rows *o, const char *s)
{
    ascii_cell(o, s, 1);
}

void cli_rows_word(cli_rows *o, const char *s)
{
    ascii_cell(o, s, 0);
}

void cli_rows_u64(cli_rows *o, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    ascii_cell(o, buf, 1);
}

void cli_rows_i64(cli_rows *o, int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    ascii_cell(o, buf, 1);
}

void cli_rows_float(cli_rows *o, double v, int decimals)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    ascii_cell(o, buf, 1);
}

void cli_rows_id(cli_rows *o, uint64_t id)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%016" PRIx64, id);
    ascii_cell(o, buf, 0);
}

void cli_rows_site(cli_rows *o, const char *file, size_t len, uint64_t line)
{
    if (file == NULL) {
        cli_rows_null(o);
        return;
    }
    cli_name cut;
    if (o->cut)
        file = cli_name_cut(file, len, &cut, &len);
    char num[24];
    snprintf(num, sizeof num, ":%" PRIu64, line);
    open_cell(o);
    switch (o->format) {
    case CLI_ROW_TABLE:
        table_cell(o, file, len, 1, num, 0);
        break;
    case CLI_ROW_TSV:
        cli_put_text(o->f, file, len);
        fputs(num, o->f);
        break;
    case CLI_ROW_CSV: /* the raw name decides the quotes, escaped once */
        cli_put_csv_site(o->f, file, len, line);
        break;
    default:
        fputc('"', o->f);
        cli_put_json_chars(o->f, file, len);
        fprintf(o->f, "%s\"", num);
    }
    close_cell(o);
}

void cli_rows_null(cli_rows *o)
{
    open_cell(o);
    if (o->format == CLI_ROW_TABLE)
        table_cell(o, "", 0, 0, "", 0);
    else if (o->format == CLI_ROW_JSON)
        fputs("null", o->f);
    close_cell(o);
}

void cli_rows_mean(cli_rows *o, uint64_t total, uint64_t n)
{
    if (n > 0)
        cli_rows_u64(o, total / n);
    else
        cli_rows_null(o);
}

void cli_rows_absent(cli_rows *o)
{
    if (o->format != CLI_ROW_JSON) {
        cli_rows_null(o);
        return;
    }
    if (o->col == 0) /* the row's start, even without its first key */
        fprintf(o->f, "%s\n%s{", o->rows ? "," : "", o->json_indent);
    close_cell(o);
}

/* Writes n spaces later, only if text follows on the line: no line ends
 * in blanks. */
typedef struct line {
    FILE *f;
    size_t pending;
} line;

static void put(line *l, const char *s)
{
    if (*s == '\0')
        return;
    fprintf(l->f, "%*s%s", (int)l->pending, "", s);
    l->pending = 0;
}

/* The columns a kept cell takes: its text is already in the text form
 * (valid UTF-8, escapes spelled out), so each character is one column;
 * measuring it with cli_text_width would escape its escapes again. */
static size_t shown_width(const char *s)
{
    size_t w = 0;
    for (; *s != '\0'; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80; /* not a continuation */
    return w;
}

static void put_cell(line *l, const char *s, int number, size_t width,
                     int last)
{
    size_t tw = shown_width(s);
    size_t pad = width > tw ? width - tw : 0;
    if (number)
        l->pending += pad;
    put(l, s);
    if (!number)
        l->pending += pad;
    l->pending += 2;
    if (last) {
        fputc('\n', l->f);
        l->pending = 0;
    }
}

/* The columns' widths over the header and the rows kept. */
static void measure(cli_rows *o)
{
    size_t nc = o->ncols < o->wcap ? o->ncols : o->wcap;
    for (size_t c = 0; c < nc; c++)
        o->width[c] = strlen(o->labels ? o->labels[c] : o->names[c]);
    for (size_t i = 0; i < o->ncells; i++) {
        size_t c = i % o->ncols;
        size_t len = shown_width(o->cells[i].text);
        if (c < nc && len > o->width[c])
            o->width[c] = len;
    }
}

/* The header: the labels as they are, or the names in upper case,
 * aligned as the
 * column's cells (numbers to the right). */
static void print_header(cli_rows *o)
{
    size_t nc = o->ncols < o->wcap ? o->ncols : o->wcap;
    line l = {o->f, 0};
    for (size_t c = 0; c < nc; c++) {
        char h[64];
        const char *name = o->labels ? o->labels[c] : o->names[c];
        size_t len = strlen(name);
        if (len >= sizeof h)
            len = sizeof h - 1;
        for (size_t k = 0; k < len; k++) {
            char ch = name[k];
            if (o->labels == NULL && ch >= 'a' && ch <= 'z')
                ch = (char)(ch - 'a' + 'A');
            h[k] = ch;
        }
        h[len] = '\0';
        put_cell(&l, h, o->number[c], o->width[c], c + 1 == nc);
    }
}

static void print_row(cli_rows *o, const cli_rows_cell *cells)
{
    size_t nc = o->ncols < o->wcap ? o->ncols : o->wcap;
    line l = {o->f, 0};
    for (size_t c = 0; c < nc; c++)
        put_cell(&l, cells[c].text, cells[c].number, o->width[c], c + 1 == nc);
}

/* The rows kept, under a header, in columns as wide as they need. */
static void print_kept(cli_rows *o)
{
    measure(o);
    for (size_t c = 0; c < o->ncols && c < o->wcap; c++)
        o->number[c] = (unsigned char)o->cells[c].number; /* the first row's */
    print_header(o);
    for (size_t i = 0; i + o->ncols <= o->ncells; i += o->ncols)
        print_row(o, &o->cells[i]);
}

int cli_rows_measure(cli_rows *o)
{
    o->passes = 1;
    if (o->ncols > o->wcap) { /* histo's columns, two per dump */
        size_t *w = NULL;
        unsigned char *num = NULL;
        if (o->ncols <= SIZE_MAX / sizeof *w) {
            w = resize(o, NULL, o->ncols * sizeof *w);
            num = resize(o, NULL, o->ncols);
        }
        if (w == NULL || num == NULL) {
            resize(o, w, 0);
            resize(o, num, 0);
            o->failed = 1;
            return -1;
        }
        memset(num, 0, o->ncols);
        o->width = w;
        o->number = num;
        o->wcap = o->ncols;
    }
    measure(o); /* the labels' widths */
    return 0;
}

void cli_rows_print(cli_rows *o)
{
    o->passes = 2;
    o->col = 0;
    print_header(o);
}

void cli_rows_tail(cli_rows *o, const char *s)
{
    if (o->passes == 2) { /* an empty tail ends the line, no blanks */
        fprintf(o->f, "%*s%s\n", *s ? (int)o->pending : 0, "", s);
        o->pending = 0;
    }
    o->col = 0;
}

void cli_rows_rule(cli_rows *o, size_t n)
{
    if (o->passes != 2)
        return;
    for (size_t c = 0; c < n && c < o->wcap; c++) {
        if (c > 0)
            fputs("  ", o->f);
        for (size_t k = 0; k < o->width[c]; k++)
            fputc('-', o->f);
    }
    fputc('\n', o->f);
}

int cli_rows_finish(cli_rows *o)
{
    int rc = 0;
    if (o->format == CLI_ROW_TABLE && o->passes > 0) {
        /* printed as the second pass went */
    } else if (o->format == CLI_ROW_TABLE) {
        if (o->failed) {
            rc = -1;
        } else if (o->rows > 0 && !o->streaming) {
            print_kept(o);
        }
    } else if (o->format == CLI_ROW_JSON) {
        fprintf(o->f, "%s%s]%s", o->rows ? "\n" : "",
                o->rows ? o->json_outdent : "", o->json_tail);
    }
    free_cells(o);
    resize(o, o->cells, 0);
    if (o->width != o->width_in) {
        resize(o, o->width, 0);
        resize(o, o->number, 0);
        o->width = o->width_in;
        o->number = o->number_in;
        o->wcap = CLI_ROWS_MAX_COLS;
    }
    o->cells = NULL;
    o->ncells = o->capcells = 0;
    return rc;
}
