/* cli_dump.h -- open a heapfmt dump for reading, from a path or "-".
 *
 * The printing wrapper of analysis/dump_read.h for the tools that read
 * dumps themselves: a failed open becomes one line on stderr, e.g.
 *     heapfmt-info: notes.json: not a heapfmt dump (looks like JSON ...)
 *     heapfmt-info: missing.dump: No such file or directory */
#ifndef CLI_DUMP_H
#define CLI_DUMP_H

#include "dump_read.h"

typedef an_dump cli_dump;

/* Opens path ("-" for standard input) and reads the file header. opt may
 * be NULL. Returns CLI_EXIT_OK with d filled, or, after printing the
 * reason, the exit code to use (CLI_EXIT_ERROR, or CLI_EXIT_INCOMPLETE
 * when the input ends inside the file header); d is then closed. */
int cli_dump_open(cli_dump *d, const char *path,
                  const heapfmt_reader_options *opt);

/* Frees the reader and closes the file; safe on a closed cli_dump. */
void cli_dump_close(cli_dump *d);

/* Prints the reader's last error, for a call that returned status, as
 * "prog: name: message". */
void cli_dump_error(const cli_dump *d, int status);

#endif /* CLI_DUMP_H */
