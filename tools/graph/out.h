/* out.h -- rows of heapfmt-graph's answers in four formats.
 *
 *   table  aligned columns under a header, numbers to the right; rows are
 *          kept until out_finish to measure the columns
 *   tsv    a header line, then one line per row, tab-separated
 *   csv    the same, comma-separated, RFC 4180 quoting
 *   json   an array of objects, one per row, keyed by column name
 *
 * Text cells are printed in the escaped text form of cli_escape.h (one
 * cell is always one field), or as JSON strings, cut as cli_name_cut cuts
 * names (in every format). A cell may be null (nothing known): empty in
 * table, TSV and CSV, null in JSON.
 *
 * A table measures its columns over its first OUT_TABLE_KEEP rows, then
 * prints them and every later row as it ends (a wider cell then pushes
 * the rest of its line): memory stays that of OUT_TABLE_KEEP rows
 * whatever the number of rows. */
#ifndef GRAPH_OUT_H
#define GRAPH_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_row_format.h"
#include "diff_mem.h"

typedef struct out_cell {
    char *text;   /* escaped text form, NUL-terminated (table only) */
    int number;   /* right-aligned */
} out_cell;

#define OUT_TABLE_KEEP 4096 /* rows measured before a table is printed */
#define OUT_MAX_COLS 64

typedef struct out {
    FILE *f;
    int format;
    const diff_mem *mem;
    size_t ncols;
    const char *const *names; /* column names: headers and JSON keys */
    size_t col;               /* next cell of the current row */
    size_t rows;
    /* table: every cell, row after row */
    out_cell *cells;
    size_t ncells, capcells;
    int failed;               /* out of memory while keeping a row */
    int streaming;            /* table: measured, printed, rows go on */
    size_t width[OUT_MAX_COLS]; /* table: of the columns, once measured */
} out;

/* Starts the output of rows of ncols columns. names must outlive o. */
void out_begin(out *o, FILE *f, int format, const diff_mem *mem,
               size_t ncols, const char *const *names);

/* The cells of a row, left to right; the last one of a row ends it. */
void out_text(out *o, const char *s, size_t len);
void out_u64(out *o, uint64_t v);
void out_id(out *o, uint64_t id);               /* 0x%016x, a string */
void out_site(out *o, const char *file, size_t len, uint64_t line);
void out_null(out *o);

/* Prints what was kept (table) and the end (JSON), and frees what o
 * holds. Returns 0, or -1 when memory ran out while keeping rows (nothing
 * printed: the caller says so). */
int out_finish(out *o);

#endif /* GRAPH_OUT_H */
