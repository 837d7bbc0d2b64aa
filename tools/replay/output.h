/* output.h -- what heapfmt-replay prints: one table of the allocators (or
 * the same as TSV, CSV or JSON), and a page with the table and resident
 * memory over the trace's time for each. */
#ifndef REPLAY_OUTPUT_H
#define REPLAY_OUTPUT_H

#include <stdio.h>

#include "allocators.h"
#include "compile.h"
#include "trace.h"

typedef struct replay {
    const char *name; /* the trace, for messages and the page */
    const trace *t;
    const compiled *c;
    const alloc_spec *specs;
    const alloc_result *results;
    size_t n;
} replay;

/* The overhead of a result: resident bytes per live byte at the end,
 * or 0 when nothing is live. */
double overhead(uint64_t rss, int64_t live);
/* The MARKs at which a replay's live bytes were the trace's. */
size_t marks_exact(const replay *r, const alloc_result *a);
/* What one result says in the table's last column. */
const char *result_word(const replay *r, const alloc_result *a);

void print_table(FILE *f, const replay *r);
/* TSV (csv 0) or CSV (csv 1): the same columns and rows, each label and
 * result one field (cli_escape.h: text form, or CSV form). */
void print_delim(FILE *f, const replay *r, int csv);
void print_json(FILE *f, const replay *r);
/* The notes under the table: what the trace held, what was skipped. */
void print_notes(FILE *f, const replay *r);
/* The page, made in memory and written whole, never over the trace
 * (trace_path as given, "-": standard input). Returns 0 or -1 (message
 * printed). */
int write_page(const char *path, const char *trace_path, const replay *r);

#endif /* REPLAY_OUTPUT_H */
