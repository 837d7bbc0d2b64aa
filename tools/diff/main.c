/* main.c -- heapfmt-diff: command line of the object-level dump diff. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_rows.h"
#include "diff.h"
#include "diff_filter.h"
#include "print.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... BEFORE AFTER\n"
        "  or:  %s [OPTION]... D1 D2 D3\n"
        "Compare heapfmt heap dumps object by object.\n"
        "\n"
        "With two dumps, show the objects that are new in AFTER and those\n"
        "freed since BEFORE, summed per class. With three, show the objects\n"
        "allocated between D1 and D2 that are still alive in D3: the\n"
        "retained objects, where leaks are. An object is the same in two\n"
        "dumps when its id, its class name and its allocation call stack\n"
        "(if it has one) are the same. One dump may be - for standard\n"
        "input.\n"
        "\n"
        "  -b, --by=KEY        group rows by class (default), site (the\n"
        "                      allocation site, file:line), class,site,\n"
        "                      stack (the allocation call stack) or frame\n"
        "                      (its top frame, past malloc, libc and the\n"
        "                      tracker): per-call-site growth of a native\n"
        "                      heap; imemo (a Ruby T_IMEMO's subtype) or\n"
        "                      iseq (where a Ruby iseq's or Proc's code\n"
        "                      is: path:line)\n"
        "  -l, --list          list the objects themselves (change, id,\n"
        "                      class, type, bytes, site), largest first\n"
        "      --class=NAME    only objects of class NAME (repeatable)\n"
        "  -m, --match=REGEX   only objects whose class name matches REGEX,\n"
        "                      a POSIX extended expression (repeatable)\n"
        "  -n, --top=N         show the first N rows or objects only\n"
        "  -s, --sort=KEY      rows by bytes (default: new or retained\n"
        "                      bytes), count, oldest (the oldest live\n"
        "                      block) or lifetime (the mean lifetime of\n"
        "                      the freed ones): lifespans of malloc dumps,\n"
        "                      --by=site, stack or frame\n"
        "  -f, --format=FMT    table (default), tsv, csv or json\n"
        "  -H, --human         in the table, 1,234,567 and KiB, MiB...\n"
        "  -h, --help          show this help and exit\n"
        "  -V, --version       show the version and exit\n"
        "\n"
        "Rows are sorted by new (or retained) bytes, largest first. With\n"
        "lifespans in the last dump (format 1.2), rows also show the blocks\n"
        "freed, their mean lifetime and the age of the oldest live one.\n"
        "Warnings tell when ids cannot be trusted: unstable ids, a heap\n"
        "compaction between dumps, or dumps of different processes.\n"
        "\n"
        "Exit status: 0 success, 1 error, 2 usage error, 3 a dump is\n"
        "incomplete (results cover its readable part).\nThe manual: man heapfmt-diff.\n",
        cli_progname(), cli_progname());
}

/* --class has no short form: histo's -c is --min-count. */
enum { OPT_CLASS = 256 };

static const struct option long_options[] = {
    {"by", required_argument, NULL, 'b'},
    {"list", no_argument, NULL, 'l'},
    {"class", required_argument, NULL, OPT_CLASS},
    {"match", required_argument, NULL, 'm'},
    {"top", required_argument, NULL, 'n'},
    {"sort", required_argument, NULL, 's'},
    {"format", required_argument, NULL, 'f'},
    {"human", no_argument, NULL, 'H'},
    CLI_STANDARD_LONG_OPTIONS,
};

/* Parses the options into opt, f and format; returns CLI_GO_ON, or the
 * exit code after --help, --version or a usage message. */
static int parse(int argc, char **argv, diff_options *opt, filter *f,
                 int *format, int *human)
{
    char err[256];
    int c;
    while ((c = cli_getopt(argc, argv, ":b:lm:n:s:f:HhV", long_options)) !=
           -1) {
        switch (c) {
        case 'b':
            if (cli_summary_by_option(optarg, &opt->by) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'l':
            opt->list = 1;
            break;
        case OPT_CLASS:
            if (diff_filter_add_name(f, optarg) != 0)
                return cli_usage_error("too many --class options (at most %d)",
                                       FILTER_MAX);
            break;
        case 'm':
            if (diff_filter_add_regex(f, optarg, err, sizeof err) != 0)
                return cli_usage_error("invalid --match expression '%s': %s",
                                       optarg, err);
            break;
        case 'n':
            if (cli_option_u64("--top", optarg, 1, UINT64_MAX, &opt->top) !=
                0)
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (strcmp(optarg, "bytes") == 0)
                opt->sort = DIFF_SORT_BYTES;
            else if (strcmp(optarg, "count") == 0)
                opt->sort = DIFF_SORT_COUNT;
            else if (strcmp(optarg, "oldest") == 0)
                opt->sort = DIFF_SORT_OLDEST;
            else if (strcmp(optarg, "lifetime") == 0)
                opt->sort = DIFF_SORT_LIFETIME;
            else
                return cli_usage_error("invalid --sort value '%s': expected "
                                       "bytes, count, oldest or lifetime",
                                       optarg);
            break;
        case 'f':
            if (cli_row_format_option(optarg, format) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'H':
            *human = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    int n = argc - optind;
    if (n < 2 || n > 3)
        return cli_usage_error("expected two or three dumps, got %d", n);
    if (cli_check_operands((const char *const *)argv + optind, (size_t)n,
                           "empty file name",
                           "standard input (-) can be only one of the "
                           "dumps") != 0)
        return CLI_EXIT_USAGE;
    return CLI_GO_ON;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-diff");
    diff_options opt = DIFF_OPTIONS_INIT;
    filter f;
    diff_filter_init(&f);
    int format = CLI_ROW_TABLE, human = 0;
    int rc = parse(argc, argv, &opt, &f, &format, &human);
    if (rc != CLI_GO_ON) {
        diff_filter_free(&f);
        return rc;
    }
    opt.filter = &f;
    cli_ctx ctx; /* the engine's failures and warnings, said here */
    opt.ctx = cli_ctx_init(&ctx);
    diff_result res;
    rc = cli_ctx_exit(&ctx, diff_compute((const char *const *)(argv + optind),
                                         argc - optind, &opt, &res));
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        notes_say(&res.warnings, opt.ctx);
        diff_print(&res, format, human, stdout);
    }
    diff_result_free(&res);
    diff_filter_free(&f);
    return cli_finish_stdout(rc);
}
