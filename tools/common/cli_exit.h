/* cli_exit.h -- exit codes shared by every heapfmt tool.
 *
 * The values are part of the tools' documented interface (see the EXIT
 * STATUS section of each man page) and never change. */
#ifndef CLI_EXIT_H
#define CLI_EXIT_H

enum cli_exit {
    CLI_EXIT_OK = 0,         /* success */
    CLI_EXIT_ERROR = 1,      /* error: bad input, I/O failure, failed check */
    CLI_EXIT_USAGE = 2,      /* usage error: bad option or argument */
    CLI_EXIT_INCOMPLETE = 3  /* input incomplete (truncated or damaged);
                                results cover the readable part only */
};

/* Not an exit code: what an option parser returns when the tool goes on
 * (otherwise it returns the code to exit with, after --help, --version or
 * a usage message). */
#define CLI_GO_ON (-1)

#endif /* CLI_EXIT_H */
