/* cli_rows.h -- rows of results in every row format: the one printer of
 * the tools' rows (heapfmt-graph's answers, heapfmt-diff's, histo's TSV
 * and CSV, heapfmt-replay's), and the options that shape them (--format,
 * --by). A tool begins
 * with its column names, adds cells left to right, a row ending at its
 * last cell, and finishes; the format is this file's business, as
 * SQLite's shell prints every mode from one callback.
 *
 *   table  aligned columns under an upper-case header, numbers to the
 *          right; rows are kept until cli_rows_finish to measure the
 *          columns (see CLI_ROWS_KEEP)
 *   tsv    a header line, then one line per row, tab-separated
 *   csv    the same, comma-separated, RFC 4180 quoting
 *   json   an array of objects, one per row, keyed by column name
 *
 * One escaper per format, cli_escape.h's: text cells in the text form
 * (tables, TSV; one cell is always one field), its CSV form, or JSON
 * strings. One policy for invalid UTF-8: a byte that does not start a
 * valid sequence is \xHH in the text and CSV forms, U+FFFD in JSON (the
 * JSON stays valid; every tool's tests pin both).
 *
 * A cell may be null (nothing known): empty in table, TSV and CSV, null
 * in JSON; or absent: empty too, but its key left out of the JSON object
 * (heapfmt-diff's lifespans of a row that has none).
 *
 * A table measures its columns over its first CLI_ROWS_KEEP rows, then
 * prints them and every later row as it ends (a wider cell then pushes
 * the rest of its line): memory stays that of CLI_ROWS_KEEP rows
 * whatever the number of rows. Only such a table allocates, through
 * resize.
 *
 * A caller that holds its rows can measure them all instead, with no
 * memory: cli_rows_measure, the cells of every row (measured, nothing
 * printed), cli_rows_print (the header), the same cells again (printed
 * at once, padded to the widths), cli_rows_finish. Such a table may end
 * a row early with a tail (a line's last words, not measured) and draw a
 * rule under its first columns: heapfmt-diff's "total" lines. A table of
 * fixed widths sets width[] and number[] after cli_rows_measure and
 * prints at once (heapfmt-replay's): a longer cell pushes its line. */
#ifndef CLI_ROWS_H
#define CLI_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --format for the tools that print rows of results (heapfmt-graph,
 * heapfmt-diff, heapfmt-replay; histo's enum histo_format has the same
 * four first, then folded): table for people, TSV, CSV and JSON for
 * programs. Each tool says in its man page what its rows hold; the names
 * are the same everywhere. */
enum cli_row_format { CLI_ROW_TABLE, CLI_ROW_TSV, CLI_ROW_CSV, CLI_ROW_JSON };

/* Parses "table", "tsv", "csv" or "json" into *format; returns 0, or -1
 * for any other name (the tool prints its usage error). */
int cli_row_format_parse(const char *name, int *format);

/* --format's argument, as heapfmt-diff and heapfmt-graph take it: parses
 * it into *format, or prints the usage error "invalid --format value
 * 'ARG': expected table, tsv, csv or json" and returns -1 (the caller
 * exits CLI_EXIT_USAGE). */
int cli_row_format_option(const char *arg, int *format);

/* --by of the tools whose rows sum objects by a key (heapfmt-diff,
 * heapfmt-graph's dominators and leaked): parses ARG into *by with
 * analysis/diff_summary.h's summary_parse_by, or prints the usage error
 * "invalid --by value 'ARG': expected DIFF_BY_VALUES" and returns -1. */
int cli_summary_by_option(const char *arg, unsigned *by);

/* resize(opaque, ptr, size) as lua_Alloc: allocates (ptr NULL), resizes,
 * or frees (size 0, returns NULL). */
typedef void *(*cli_rows_resize_fn)(void *opaque, void *ptr, size_t size);

typedef struct cli_rows_cell {
    char *text;   /* escaped text form, NUL-terminated (table only) */
    int number;   /* right-aligned */
} cli_rows_cell;

#define CLI_ROWS_KEEP 4096 /* rows measured before a table is printed */
#define CLI_ROWS_MAX_COLS 64

typedef struct cli_rows {
    FILE *f;
    int format;               /* enum cli_row_format */
    size_t ncols;
    const char *const *names; /* column names: headers and JSON keys */
    /* Options, set after cli_rows_begin, before the first cell: */
    int cut;                  /* text cut as cli_name_cut cuts names */
    cli_rows_resize_fn resize; /* NULL: realloc and free */
    void *opaque;
    const char *json_indent;  /* before each row's '{' (" ") */
    const char *json_outdent; /* before the closing ']' ("") */
    const char *json_tail;    /* after it ("\n") */
    const char *const *labels; /* table headers as they are;
                                  NULL: the names in upper case */
    /* State: */
    size_t col;               /* next cell of the current row */
    size_t keys;              /* JSON keys written in the current row */
    size_t rows;
    cli_rows_cell *cells;     /* table: every cell, row after row */
    size_t ncells, capcells;
    int failed;               /* out of memory while keeping a row */
    int streaming;            /* table: measured, printed, rows go on */
    int passes;               /* table: 0 kept, 1 measuring, 2 printing */
    size_t pending;           /* spaces owed before the next cell */
    unsigned char *number;    /* table: right-aligned columns */
    /* table: of the columns, once measured (a caller may widen one after
     * cli_rows_measure) */
    size_t *width;
    size_t wcap;              /* columns width and number hold */
    size_t width_in[CLI_ROWS_MAX_COLS];
    unsigned char number_in[CLI_ROWS_MAX_COLS];
} cli_rows;

/* Starts the output of rows of ncols columns in format: the header of TSV
 * and CSV, the '[' of JSON. names must outlive o. */
void cli_rows_begin(cli_rows *o, FILE *f, int format, size_t ncols,
                    const char *const *names);

/* The cells of a row, left to right; the last one of a row ends it. */
void cli_rows_text(cli_rows *o, const char *s, size_t len);
void cli_rows_u64(cli_rows *o, uint64_t v);
void cli_rows_i64(cli_rows *o, int64_t v);
/* v with decimals digits after the point ("%.*f"). */
void cli_rows_float(cli_rows *o, double v, int decimals);
/* A number the tool wrote (digits, a sign, a point): right-aligned, a
 * JSON number. */
void cli_rows_number(cli_rows *o, const char *s);
/* A word of ASCII the tool made ("new", an id): left-aligned, a string. */
void cli_rows_word(cli_rows *o, const char *s);
void cli_rows_id(cli_rows *o, uint64_t id);     /* 0x%016x, a word */
/* "file:line"; null when file is NULL. */
void cli_rows_site(cli_rows *o, const char *file, size_t len, uint64_t line);
void cli_rows_null(cli_rows *o);
/* total / n, null when n is 0 (a mean over nothing). */
void cli_rows_mean(cli_rows *o, uint64_t total, uint64_t n);
void cli_rows_absent(cli_rows *o);

/* A table in two passes: starts measuring (after the options; returns 0,
 * or -1 when out of memory for more than CLI_ROWS_MAX_COLS columns),
 * then prints the header and starts printing. */
int cli_rows_measure(cli_rows *o);
void cli_rows_print(cli_rows *o);
/* Ends the row with the text s (ASCII) after the cells so far, not
 * measured: printed in a table's second pass, nothing elsewhere. An
 * empty s ends the line where the last cell does. */
void cli_rows_tail(cli_rows *o, const char *s);
/* The second pass's rule: dashes under each of the first n columns. */
void cli_rows_rule(cli_rows *o, size_t n);

/* Prints what was kept (table) and the end (JSON), and frees what o
 * holds. Returns 0, or -1 when memory ran out while keeping rows (nothing
 * printed: the caller says so). */
int cli_rows_finish(cli_rows *o);

#endif /* CLI_ROWS_H */
