/* info.h -- the work of heapfmt-info, separate from its command line. */
#ifndef INFO_H
#define INFO_H

#include <stdio.h>

#include "cli_dump.h"

typedef struct info_options {
    int plain; /* numbers without thousands separators or units */
} info_options;

/* Prints the summary of an open dump to out: format, status, META pairs and
 * totals. Uses the footer when the input is seekable and complete, else
 * reads every block. Returns an exit code: CLI_EXIT_OK; CLI_EXIT_INCOMPLETE
 * when the dump is truncated or damaged (the summary, printed anyway,
 * covers the readable part, and stderr says what is missing);
 * CLI_EXIT_ERROR when nothing useful could be read (nothing printed). */
int info_show(cli_dump *d, const info_options *opt, FILE *out);

/* Decodes every block and record of an open dump and checks it is whole
 * and self-consistent (see verify.c). Prints "OK: N objects verified" to
 * out and returns CLI_EXIT_OK, or prints the first problem to stderr and
 * returns CLI_EXIT_ERROR (CLI_EXIT_INCOMPLETE for a truncated dump). */
int info_verify(cli_dump *d, const info_options *opt, FILE *out);

#endif /* INFO_H */
