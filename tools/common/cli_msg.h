/* cli_msg.h -- program name and "prog: file: message" diagnostics.
 *
 * Every message goes to stderr as one line: the program name, the file it
 * is about (if any), then the text. stdout is never touched, so a failing
 * tool leaves its standard output clean. */
#ifndef CLI_MSG_H
#define CLI_MSG_H

#include <getopt.h>

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

/* Sets the name used in messages. Tools pass their fixed name (so messages
 * do not depend on how the program was invoked). */
void cli_set_progname(const char *name);
const char *cli_progname(void);

/* "prog: file: message" (or "prog: message" when file is NULL). */
void cli_error(const char *file, const char *fmt, ...) CLI_PRINTF(2, 3);

/* "prog: file: warning: message" (or "prog: warning: message"). */
void cli_warn(const char *file, const char *fmt, ...) CLI_PRINTF(2, 3);

/* cli_error and cli_warn with a va_list (an engine's hook), and
 * cli_vnote: "prog: file: note: message", what a reader of the results
 * should know about the heap (references to objects the dump does not
 * hold, objects no root reaches), which is not wrong with the dump: a
 * dump that breaks no rule gets notes, never warnings. */
#include <stdarg.h>
void cli_verror(const char *file, const char *fmt, va_list ap)
    CLI_PRINTF(2, 0);
void cli_vwarn(const char *file, const char *fmt, va_list ap)
    CLI_PRINTF(2, 0);
void cli_vnote(const char *file, const char *fmt, va_list ap)
    CLI_PRINTF(2, 0);

/* From now on, cli_warn (and cli_vnote) prints a warning (file and text) only the first
 * time: for a tool that reads each dump several times (heapfmt-report),
 * whose every reading warns about the same truncation. Set once in
 * main. */
void cli_warn_once(void);

/* "prog: message" followed by "Try 'prog --help' for more information."
 * Returns CLI_EXIT_USAGE, the exit code that follows it, for main's
 * `return cli_usage_error(...);` (a helper that returns -1 to its caller
 * ignores it). */
int cli_usage_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* Reports a getopt_long failure (unknown option, missing argument) the way
 * cli_usage_error does. c is what getopt_long returned ('?' or ':' with a
 * leading ':' in the option string); argv and optind as after the call. */
void cli_getopt_error(int c, char *const argv[]);

/* The file name given to option opt (-o/--output, heapfmt-core's
 * --free): stores arg in *file, or reports an empty one as the usage
 * error "OPT: empty file name" and returns -1 (the caller exits
 * CLI_EXIT_USAGE). */
int cli_option_file(const char *opt, const char *arg, const char **file);

/* Prints "prog VERSION (libheapfmt X, format M.N)" to stdout. */
void cli_print_version(void);

/* getopt_long(argc, argv, shortopts, longopts, NULL) with getopt's own
 * messages off (opterr = 0): a bad option comes back as '?', a missing
 * argument as ':' (shortopts starts with ':', after a '+' if any), for
 * cli_standard_option to report in the tools' words. Every tool's option
 * loop: `while ((c = cli_getopt(argc, argv, ":o:hV", long_options)) !=
 * -1)`. */
int cli_getopt(int argc, char *const argv[], const char *shortopts,
               const struct option *longopts);

/* The end of every tool's option switch: -h prints usage(), -V the
 * version (both to stdout, exit 0); anything else is a getopt error (exit
 * 2). Returns the exit code for main: `default: return
 * cli_standard_option(c, argv, usage);`. */
int cli_standard_option(int c, char *const argv[], void (*usage)(void));

/* The last entries of every tool's long option table: --help and
 * --version (handled by cli_standard_option), then the end mark. */
#define CLI_STANDARD_LONG_OPTIONS                                            \
    {"help", no_argument, NULL, 'h'},                                        \
    {"version", no_argument, NULL, 'V'},                                     \
    {NULL, 0, NULL, 0}

#endif /* CLI_MSG_H */
