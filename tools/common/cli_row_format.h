/* cli_row_format.h -- the options that shape rows. --format for the tools that print rows of results
 * (heapfmt-graph, heapfmt-diff, heapfmt-replay; histo's enum histo_format
 * has the same four first, then folded): table for people, TSV, CSV and
 * JSON for programs, printed by cli_rows.h. Each tool says in its man
 * page what its rows hold; the names are the same everywhere. */
#ifndef CLI_ROW_FORMAT_H
#define CLI_ROW_FORMAT_H

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

#endif /* CLI_ROW_FORMAT_H */
