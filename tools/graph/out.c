/* out.c -- rows of heapfmt-graph's answers in table, TSV, CSV and JSON. */
#include <inttypes.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_names.h"
#include "out.h"

/* The escaped text form of a cut name: each byte at most 4 ("\xHH"). */
#define OUT_TEXT_MAX (4 * sizeof(cli_name) + 24)

void out_begin(out *o, FILE *f, int format, const diff_mem *mem,
               size_t ncols, const char *const *names)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->format = format;
    o->mem = mem;
    o->ncols = ncols;
    o->names = names;
    if (format == CLI_ROW_TSV || format == CLI_ROW_CSV) {
        for (size_t i = 0; i < ncols; i++)
            fprintf(f, "%s%s", i ? (format == CLI_ROW_TSV ? "\t" : ",") : "",
                    names[i]);
        fputc('\n', f);
    } else if (format == CLI_ROW_JSON) {
        fputc('[', f);
    }
}

static void print_row(out *o, const out_cell *cells);
static void print_kept(out *o);

/* Keeps a table cell: its escaped text. Once OUT_TABLE_KEEP rows are kept,
 * they are printed and the columns' widths stay as they are: later rows
 * are printed as they end, so that a table of millions of rows (a path of
 * 2M hops, the referrers of a popular object) takes the memory of one
 * row, not 475 bytes a row (issue 31). */
static void keep(out *o, const char *s, size_t len, int number)
{
    if (o->failed)
        return;
    char *t = diff_mem_alloc(o->mem, len + 1);
    if (t == NULL ||
        diff_mem_reserve(o->mem, (void **)&o->cells, &o->capcells, o->ncells + 1,
                    sizeof *o->cells) != 0) {
        diff_mem_free(o->mem, t);
        o->failed = 1;
        return;
    }
    memcpy(t, s, len);
    t[len] = '\0';
    o->cells[o->ncells++] = (out_cell){t, number};
}

/* Escaped text of len bytes at s, for a table cell. */
static void keep_text(out *o, const char *s, size_t len)
{
    char buf[OUT_TEXT_MAX];
    cli_text_format(buf, sizeof buf, s, len);
    keep(o, buf, strlen(buf), 0);
}

static void free_cells(out *o)
{
    for (size_t i = 0; i < o->ncells; i++)
        diff_mem_free(o->mem, o->cells[i].text);
    o->ncells = 0;
}

/* Before a cell: separators and, in JSON, the key. */
static void open_cell(out *o)
{
    FILE *f = o->f;
    if (o->format == CLI_ROW_JSON) {
        if (o->col == 0)
            fputs(o->rows ? ",\n {" : "\n {", f);
        else
            fputs(", ", f);
        fprintf(f, "\"%s\": ", o->names[o->col]);
    } else if (o->col > 0 && o->format != CLI_ROW_TABLE) {
        fputc(o->format == CLI_ROW_TSV ? '\t' : ',', f);
    }
}

static void close_cell(out *o)
{
    if (++o->col < o->ncols)
        return;
    o->col = 0;
    o->rows++;
    if (o->format == CLI_ROW_JSON) {
        fputc('}', o->f);
    } else if (o->format != CLI_ROW_TABLE) {
        fputc('\n', o->f);
    } else if (o->streaming && !o->failed) { /* the row just kept */
        print_row(o, o->cells);
        free_cells(o);
    } else if (o->rows == OUT_TABLE_KEEP && !o->failed) {
        print_kept(o);
        free_cells(o);
        o->streaming = 1;
    }
}

void out_text(out *o, const char *s, size_t len)
{
    cli_name cut;
    s = cli_name_cut(s, len, &cut, &len);
    open_cell(o);
    switch (o->format) {
    case CLI_ROW_TABLE:
        keep_text(o, s, len);
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

/* A cell of plain ASCII made here: a count (right-aligned in a table, a
 * JSON number) or an id (left-aligned, a JSON string). */
static void ascii_cell(out *o, const char *s, size_t len, int number)
{
    open_cell(o);
    if (o->format == CLI_ROW_TABLE)
        keep(o, s, len, number);
    else if (o->format == CLI_ROW_JSON && !number)
        fprintf(o->f, "\"%s\"", s);
    else
        fputs(s, o->f);
    close_cell(o);
}

void out_u64(out *o, uint64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
    ascii_cell(o, buf, (size_t)n, 1);
}

void out_id(out *o, uint64_t id)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "0x%016" PRIx64, id);
    ascii_cell(o, buf, (size_t)n, 0);
}

void out_site(out *o, const char *file, size_t len, uint64_t line)
{
    if (file == NULL) {
        out_null(o);
        return;
    }
    cli_name cut;
    file = cli_name_cut(file, len, &cut, &len);
    char buf[OUT_TEXT_MAX];
    cli_text_format(buf, sizeof buf - 24, file, len);
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, ":%" PRIu64, line);
    open_cell(o);
    switch (o->format) {
    case CLI_ROW_TABLE:
        keep(o, buf, strlen(buf), 0);
        break;
    case CLI_ROW_TSV:
        fputs(buf, o->f);
        break;
    case CLI_ROW_CSV: /* the raw name decides the quotes, escaped once */
        cli_put_csv_site(o->f, file, len, line);
        break;
    default:
        fputc('"', o->f);
        cli_put_json_chars(o->f, file, len);
        fprintf(o->f, ":%" PRIu64 "\"", line);
    }
    close_cell(o);
}

void out_null(out *o)
{
    open_cell(o);
    if (o->format == CLI_ROW_TABLE)
        keep(o, "", 0, 0);
    else if (o->format == CLI_ROW_JSON)
        fputs("null", o->f);
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

static void put_cell(line *l, const char *s, int number, size_t width,
                     int last)
{
    size_t tw = cli_text_width(s, strlen(s));
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
static void measure(out *o)
{
    size_t nc = o->ncols < OUT_MAX_COLS ? o->ncols : OUT_MAX_COLS;
    for (size_t c = 0; c < nc; c++)
        o->width[c] = strlen(o->names[c]);
    for (size_t i = 0; i < o->ncells; i++) {
        size_t c = i % o->ncols;
        size_t len = cli_text_width(o->cells[i].text, strlen(o->cells[i].text));
        if (c < nc && len > o->width[c])
            o->width[c] = len;
    }
}

/* The header: upper case, aligned as the column's cells (numbers to the
 * right: the first row's cells say which). */
static void print_header(out *o)
{
    size_t nc = o->ncols < OUT_MAX_COLS ? o->ncols : OUT_MAX_COLS;
    line l = {o->f, 0};
    for (size_t c = 0; c < nc; c++) {
        char h[64];
        size_t len = strlen(o->names[c]);
        if (len >= sizeof h)
            len = sizeof h - 1;
        for (size_t k = 0; k < len; k++) {
            char ch = o->names[c][k];
            h[k] = (char)(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
        }
        h[len] = '\0';
        put_cell(&l, h, o->cells[c].number, o->width[c], c + 1 == nc);
    }
}

static void print_row(out *o, const out_cell *cells)
{
    size_t nc = o->ncols < OUT_MAX_COLS ? o->ncols : OUT_MAX_COLS;
    line l = {o->f, 0};
    for (size_t c = 0; c < nc; c++)
        put_cell(&l, cells[c].text, cells[c].number, o->width[c], c + 1 == nc);
}

/* The rows kept, under a header, in columns as wide as they need. */
static void print_kept(out *o)
{
    measure(o);
    print_header(o);
    for (size_t i = 0; i + o->ncols <= o->ncells; i += o->ncols)
        print_row(o, &o->cells[i]);
}

int out_finish(out *o)
{
    int rc = 0;
    if (o->format == CLI_ROW_TABLE) {
        if (o->failed) {
            rc = -1;
        } else if (o->rows > 0 && !o->streaming) {
            print_kept(o);
        }
    } else if (o->format == CLI_ROW_JSON) {
        fputs(o->rows ? "\n]\n" : "]\n", o->f);
    }
    free_cells(o);
    diff_mem_free(o->mem, o->cells);
    o->cells = NULL;
    o->ncells = o->capcells = 0;
    return rc;
}
