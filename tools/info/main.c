/* main.c -- heapfmt-info: command line. */
#include <getopt.h>
#include <stdio.h>

#include "cli_dump.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "info.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... FILE\n"
        "Show what a heapfmt dump holds: format version, status, metadata\n"
        "and totals. FILE may be - for standard input.\n"
        "\n"
        "      --verify   decode every block and record and check that the\n"
        "                 dump is whole and consistent; prints\n"
        "                 \"OK: N objects verified\"\n"
        "  -p, --plain    print numbers without thousands separators or\n"
        "                 units, for scripts\n"
        "  -h, --help     show this help and exit\n"
        "  -V, --version  show the version and exit\n"
        "\n"
        "Output is one \"label value\" line per fact (file, format, status,\n"
        "meta.KEY, file-size, objects, object-bytes, records, classes,\n"
        "strings, roots, blocks, raw-bytes, codecs, compression,\n"
        "bytes-per-object; for heapfmt-malloc dumps native-rss,\n"
        "native-live, native-overhead, native-free). A complete dump that\n"
        "can be seeked is summarised from its footer without reading the\n"
        "blocks; otherwise (also for a format 1.0 dump, whose footer lacks\n"
        "the codecs) every block is read.\n"
        "\n"
        "Exit status:\n"
        "  0  success (--verify: every check passed)\n"
        "  1  error: not a heapfmt dump, unreadable, or a check failed\n"
        "  2  usage error\n"
        "  3  the dump is incomplete (truncated, or blocks are corrupt); the\n"
        "     figures printed cover what could be read\nThe manual: man heapfmt-info.\n",
        cli_progname());
}

enum { OPT_VERIFY = 256 };

static const struct option long_options[] = {
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"plain", no_argument, NULL, 'p'},
    CLI_STANDARD_LONG_OPTIONS,
};

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-info");
    info_options opt = {0};
    int verify = 0;
    int c;

    while ((c = cli_getopt(argc, argv, ":phV", long_options)) != -1) {
        switch (c) {
        case OPT_VERIFY:
            verify = 1;
            break;
        case 'p':
            opt.plain = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind == argc)
        return cli_usage_error("missing FILE (use - for standard input)");
    if (argc - optind > 1)
        return cli_usage_error("unexpected argument '%s' (one FILE at a time)",
                               argv[optind + 1]);

    cli_dump d;
    int code = cli_dump_open(&d, argv[optind], NULL);
    if (code != CLI_EXIT_OK)
        return code;
    code = verify ? info_verify(&d, &opt, stdout) : info_show(&d, &opt, stdout);
    cli_dump_close(&d);
    return cli_finish_stdout(code);
}
