/* print.h -- heapfmt-diff's output: a table for people, TSV, CSV and
 * JSON for programs. The layouts are described in man/heapfmt-diff.1. */
#ifndef DIFF_PRINT_H
#define DIFF_PRINT_H

#include <stdio.h>

#include "cli_rows.h"
#include "diff.h"

/* Writes the result to out in format (enum cli_row_format). human: in the
 * table, counts with thousands separators and bytes in binary units
 * (1.5 MiB); the machine formats always hold plain integers. Write errors are left
 * in out's error flag for the caller (cli_finish_stdout). */
void diff_print(const diff_result *res, int format, int human, FILE *out);

#endif /* DIFF_PRINT_H */
