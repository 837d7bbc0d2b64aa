/* cli_file.h -- the files a tool reads and the file it writes, where "-"
 * means standard input or standard output.
 *
 * On failure these functions print "prog: file: reason" themselves and
 * return -1, so callers only choose the exit code. */
#ifndef CLI_FILE_H
#define CLI_FILE_H

#include <stddef.h>

#include "outfile.h"

/* The name to use in messages for path: "(stdin)" / "(stdout)" for "-". */
const char *cli_input_name(const char *path);
const char *cli_output_name(const char *path);

/* Opens path for reading, or returns standard input for "-". Refuses
 * directories. Returns 0 and stores the descriptor, or -1 after the
 * message "prog: path: reason". */
int cli_open_input(const char *path, int *fd);

/* The same without a message (for analysis/): returns 0 and stores the
 * descriptor, or the errno value of the failure (EISDIR: a directory). */
int cli_open_input_quiet(const char *path, int *fd);

/* Checks the n file operands of a tool (argv after the options): an
 * empty one is the usage error empty_msg; when stdin_msg is not NULL, so
 * is "-" (standard input) given more than once, as stdin_msg. Empty
 * names are looked for first. Returns 0, or -1 after the message (the
 * caller exits CLI_EXIT_USAGE). */
int cli_check_operands(const char *const *ops, size_t n,
                       const char *empty_msg, const char *stdin_msg);

/* Closes a descriptor from cli_open_input (standard input is left open). */
void cli_close_input(int fd);

/* Flushes stdio's stdout and reports a write error (disk full, closed
 * pipe) as "prog: write error: reason". Returns the exit code to use:
 * code unchanged on success, CLI_EXIT_ERROR if the flush failed. Tools
 * call it last: return cli_finish_stdout(code); */
int cli_finish_stdout(int code);

/* The file a tool writes (-o FILE, or "-" for standard output). Every
 * tool that writes a file opens it here: heapfmt-export, heapfmt-import,
 * heapfmt-gen, heapfmt-report, heapfmt-replay (-o), heapfmt-core (-o and
 * --free), heapfmt-ruby (the terminal check for "-");
 * tests/cli/output_tools.sh holds each to it.
 *
 *   - An output that is one of the tool's inputs (the same device and
 *     inode: through a symbolic or a hard link too, and standard input
 *     redirected from it) is refused before anything is written.
 *   - A regular file is written through a temporary one in its directory
 *     (.FILE.XXXXXX.tmp, libheapfmt/common/outfile.h) and renamed over
 *     FILE only when the tool succeeds: a failed or interrupted run never
 *     leaves a half-written FILE, and a FILE that was there stays whole
 *     until then; two runs writing one FILE do not mix (the last wins).
 *   - The temporary is removed on failure and on SIGINT, SIGTERM, SIGHUP
 *     and SIGQUIT (the signal then ends the tool as it would have); only
 *     SIGKILL or a crash leaves it behind.
 *   - "-", a FIFO or a device is written directly. */

typedef struct cli_output {
    const char *path; /* as given; "-" for standard output */
    int fd;           /* the descriptor to write */
    hf_outfile file;  /* unless "-" */
} cli_output;

/* Opens path for writing. inputs (ninputs of them, "-" for standard
 * input) are the files the tool reads: path must not be one of them.
 * When binary is nonzero a terminal is refused, with a message suggesting
 * -o or a redirection. Returns 0, or -1 after a message (nothing is
 * created). */
int cli_output_open(cli_output *o, const char *path, int binary,
                    const char *const *inputs, size_t ninputs);

/* The refusal alone, for a tool that checks its outputs before long work
 * and opens them after: returns -1 after the message when path is one of
 * the inputs, else 0 (also for "-"). */
int cli_output_check(const char *path, const char *const *inputs,
                     size_t ninputs);

/* Ends a successful output: closes it (reporting close(2)'s late write
 * errors) and renames the temporary over the final name. Standard output
 * is left open. Returns 0, or -1 after a message (the output is then
 * discarded). */
int cli_output_commit(cli_output *o);

/* Ends a failed output: closes it and removes what was written (the
 * temporary; a regular file written directly). Standard output is left
 * open. */
void cli_output_discard(cli_output *o);

/* Ends an output by the exit code of the work that wrote it: discards it
 * after CLI_EXIT_ERROR, else commits it. Returns code, or CLI_EXIT_ERROR
 * when the commit fails. */
int cli_output_end(cli_output *o, int code);

/* A whole output made in memory: opens path as cli_output_open does
 * (text: a terminal is accepted), writes the len bytes at data, and
 * commits, or discards what was written on a failure. heapfmt-report's
 * and heapfmt-replay's pages. Returns 0, or -1 after a message. */
int cli_output_write_all(const char *path, const char *const *inputs,
                         size_t ninputs, const void *data, size_t len);

#endif /* CLI_FILE_H */
