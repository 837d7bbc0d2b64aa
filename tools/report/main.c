/* main.c -- heapfmt-report: one self-contained HTML page about one or
 * more dumps of a heap. The command line; the work is report.c's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "report.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... DUMP...\n"
        "Write one self-contained HTML page about the dumps of a heap:\n"
        "their totals, the classes that grew (two dumps or more), who holds\n"
        "the leak (three dumps), retained sizes and allocation sites.\n"
        "\n"
        "Options:\n"
        "  -o, --output=FILE    write the page to FILE (default: standard\n"
        "                       output; - is standard output)\n"
        "      --weak           weak references hold what they reference\n"
        "                       (owners, retained sizes; by default they\n"
        "                       hold nothing)\n"
        "  -h, --help           show this help and exit\n"
        "  -V, --version        show the version and exit\n"
        "\n"
        "Each dump is read several times: standard input is not a DUMP.\n"
        "Exit status: 0 success, 1 error, 2 usage error, 3 a dump is\n"
        "incomplete (the page says so and covers its readable part).\n"
        "The manual: man heapfmt-report.\n",
        cli_progname());
}

enum { OPT_WEAK = 256 };

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"weak", no_argument, NULL, OPT_WEAK},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Writes len bytes to the output. Returns 0 or -1 (message printed). */
static int write_page(const char *output, const char *page, size_t len)
{
    int fd;
    if (cli_open_output(output, 0, &fd) != 0)
        return -1;
    int failed = 0;
    while (len > 0 && !failed) {
        ssize_t n = write(fd, page, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            cli_error(cli_output_name(output), "%s", strerror(errno));
            failed = 1;
        } else {
            page += n;
            len -= (size_t)n;
        }
    }
    if (cli_close_output(output, fd) != 0)
        failed = 1;
    if (failed)
        cli_remove_output(output);
    return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-report");
    /* histo, heapfmt-diff and heapfmt-graph each read the dumps: say
     * what is wrong with one once, not once per reading */
    cli_warn_once();
    const char *output = "-";
    report_options ropt = {0};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:hV", long_options, NULL)) !=
           -1) {
        switch (c) {
        case 'o':
            if (cli_output_option(optarg, &output) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_WEAK:
            ropt.weak = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind >= argc) {
        cli_usage_error("expected one or more dumps");
        return CLI_EXIT_USAGE;
    }
    for (int i = optind; i < argc; i++) {
        if (argv[i][0] == '\0') {
            cli_usage_error("empty argument");
            return CLI_EXIT_USAGE;
        }
        if (strcmp(argv[i], "-") == 0) {
            cli_usage_error("standard input (-) cannot be a dump: each "
                            "dump is read several times");
            return CLI_EXIT_USAGE;
        }
    }
    /* The page is made in memory first: a failure leaves no half page
     * behind, and stdout stays clean. */
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (f == NULL) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_ERROR;
    }
    int rc = report_write(f, (const char *const *)argv + optind,
                          (size_t)(argc - optind), &ropt);
    if (fclose(f) != 0 && rc != CLI_EXIT_ERROR) {
        cli_error(NULL, "out of memory");
        rc = CLI_EXIT_ERROR;
    }
    if (rc != CLI_EXIT_ERROR && write_page(output, page, len) != 0)
        rc = CLI_EXIT_ERROR;
    free(page);
    return cli_finish_stdout(rc);
}
