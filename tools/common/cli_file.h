/* cli_file.h -- opening the files a tool reads, where "-" means standard
 * input (the file it writes: cli_output.h).
 *
 * On failure these functions print "prog: file: reason" themselves and
 * return -1, so callers only choose the exit code. */
#ifndef CLI_FILE_H
#define CLI_FILE_H

#include <stddef.h>

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

#endif /* CLI_FILE_H */
