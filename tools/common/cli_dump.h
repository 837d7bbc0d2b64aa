/* cli_dump.h -- a heapfmt dump read by a tool: opened from a path or "-",
 * then scanned record by record.
 *
 * The printing wrapper of analysis/dump_read.h for the tools that read
 * dumps themselves: a failed open becomes one line on stderr, e.g.
 *     heapfmt-info: notes.json: not a heapfmt dump (looks like JSON ...)
 *     heapfmt-info: missing.dump: No such file or directory
 * The scan keeps what survives: records go to a callback; a corrupt block
 * is reported as a warning and skipped; a truncated or damaged dump ends
 * with a warning that says what was lost, and the exit code
 * CLI_EXIT_INCOMPLETE, so the tool still prints what it read. */
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

/* Called for each record. Return 0 to go on; any other value stops the
 * scan and is returned by cli_scan (an exit code; the callback prints its
 * own message). */
typedef an_scan_fn cli_scan_fn;

/* Reads d to its end. Returns CLI_EXIT_OK for a complete dump,
 * CLI_EXIT_INCOMPLETE (after warnings on stderr) when blocks were lost or
 * the dump was cut, CLI_EXIT_ERROR (after a message) for an I/O error, out
 * of memory, a limit or a block codec this build cannot decode
 * (HEAPFMT_E_UNSUPPORTED, like a version error), or the callback's
 * nonzero value. */
int cli_scan(cli_dump *d, cli_scan_fn fn, void *ctx);

/* How read errors are met (an_scan_policy): CLI_SCAN_KEEP_GOING skips
 * corrupt blocks and ends a cut or damaged dump with CLI_EXIT_INCOMPLETE;
 * CLI_SCAN_STRICT (verification) ends at the first damage, as an error
 * (cli_dump_error), with its exit code: CLI_EXIT_INCOMPLETE for a cut
 * dump, else CLI_EXIT_ERROR. */
#define CLI_SCAN_KEEP_GOING AN_SCAN_KEEP_GOING
#define CLI_SCAN_STRICT AN_SCAN_STRICT

/* What a scan met: corrupt blocks skipped, and what ended it (HEAPFMT_DONE,
 * or the reader's status). */
typedef an_scan_report cli_scan_report;

/* cli_scan with a policy; rep (may be NULL) receives what the scan met. */
int cli_scan_with(cli_dump *d, enum an_scan_policy policy, cli_scan_fn fn,
                  void *ctx, cli_scan_report *rep);

#endif /* CLI_DUMP_H */
