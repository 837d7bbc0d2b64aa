/* cli_dump.h -- open a heapfmt dump for reading, from a path or "-".
 *
 * A failed open becomes one line on stderr, e.g.
 *     heapfmt-info: notes.json: not a heapfmt dump (looks like JSON ...)
 *     heapfmt-info: missing.dump: No such file or directory */
#ifndef CLI_DUMP_H
#define CLI_DUMP_H

#include "cli_undefined.h"
#include "heapfmt.h"

typedef struct cli_dump {
    const char *path;       /* as given on the command line */
    const char *name;       /* for messages: the path, or "(stdin)" */
    int fd;                 /* -1 when closed */
    heapfmt_reader *reader; /* NULL when closed */
    cli_undefined undef;    /* ids used but not defined before: cli_scan
                               counts them, a tool that decodes labels
                               adds theirs (cli_undefined_labels) */
} cli_dump;

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

/* The exit code for a reader failure with this status:
 * CLI_EXIT_INCOMPLETE for HEAPFMT_E_TRUNCATED, else CLI_EXIT_ERROR (among
 * them HEAPFMT_E_VERSION and HEAPFMT_E_UNSUPPORTED alike: a dump, or a
 * block codec, this build cannot read). */
int cli_dump_exit_code(int status);

#endif /* CLI_DUMP_H */
