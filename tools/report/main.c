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
    CLI_STANDARD_LONG_OPTIONS,
};

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-report");
    /* histo, heapfmt-diff and heapfmt-graph each read the dumps: say
     * what is wrong with one once, not once per reading */
    cli_warn_once();
    const char *output = "-";
    report_options ropt = {0};
    int c;
    while ((c = cli_getopt(argc, argv, ":o:hV", long_options)) != -1) {
        switch (c) {
        case 'o':
            if (cli_option_file("--output", optarg, &output) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_WEAK:
            ropt.weak = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error("expected one or more dumps");
    for (int i = optind; i < argc; i++) {
        if (argv[i][0] == '\0')
            return cli_usage_error("empty argument");
        if (strcmp(argv[i], "-") == 0)
            return cli_usage_error("standard input (-) cannot be a dump: each "
                                   "dump is read several times");
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
    if (rc != CLI_EXIT_ERROR &&
        cli_output_write_all(output, (const char *const *)argv + optind,
                             (size_t)(argc - optind), page, len) != 0)
        rc = CLI_EXIT_ERROR;
    free(page);
    return cli_finish_stdout(rc);
}
