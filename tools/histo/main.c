/* main.c -- histo: command line of the per-class histogram tool. */
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "histo_print.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... DUMP...\n"
        "Show where the memory of a heap goes: objects and bytes per class.\n"
        "\n"
        "  histo DUMP          one row per class: count, bytes, class, the\n"
        "                      largest first, then the total\n"
        "  histo OLD NEW       the change per class, growth first; classes\n"
        "                      that appeared or vanished are included\n"
        "  histo D1 D2 D3...   a trend over three or more dumps: the count in\n"
        "                      each, a sparkline; classes that grew in every\n"
        "                      interval come first, marked *\n"
        "\n"
        "DUMP is a heapfmt dump, or - for standard input. Dumps are matched\n"
        "by class name.\n"
        "\n"
        "Rows:\n"
        "  -b, --by=KEY          group objects by class (default), type (the\n"
        "                        VM type, e.g. T_STRING), site (allocation\n"
        "                        file:line, when the dump records it), stack\n"
        "                        (the whole allocation call stack), frame\n"
        "                        (its top frame, past malloc, libc and the\n"
        "                        tracker), imemo (a Ruby T_IMEMO's subtype:\n"
        "                        iseq, env, ment...) or iseq (where the code\n"
        "                        of a Ruby iseq or Proc is: path:line)\n"
        "  -s, --sort=KEY        bytes, count, name, delta (change in bytes)\n"
        "                        or delta-count; the default is bytes for one\n"
        "                        dump and delta for more; oldest or lifetime\n"
        "                        (--by=stack, frame, site of a malloc dump:\n"
        "                        the oldest live block, the mean lifetime of\n"
        "                        the freed ones)\n"
        "  -n, --top=N           show the first N rows only\n"
        "  -m, --match=REGEX     only names matching the POSIX extended REGEX\n"
        "  -c, --min-count=N     hide rows with fewer than N objects; with\n"
        "                        several dumps, rows whose count changed by\n"
        "                        less than N\n"
        "  -B, --min-bytes=SIZE  the same for bytes; SIZE may end in K, M, G\n"
        "                        or T (KiB, MiB, ...)\n"
        "  -a, --all             several dumps: also show unchanged rows\n"
        "\n"
        "Output:\n"
        "  -f, --format=FMT      table (default), tsv, csv, json, or folded:\n"
        "                        one dump's stacks for flamegraph.pl and\n"
        "                        speedscope, outermost frame first, then\n"
        "                        the bytes (the count with --sort=count);\n"
        "                        implies --by=stack\n"
        "  -H, --human           table: counts as 1,234,567, bytes in\n"
        "                        KiB/MiB/GiB\n"
        "  -S, --scan            read every block, even when the footer\n"
        "                        summary of a complete dump could answer\n"
        "  -j, --jobs=N          decode the blocks of a complete dump file\n"
        "                        with N threads (0: one per processor);\n"
        "                        the result is the same (default 1)\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: 0 success; 1 error (nothing on standard output);\n"
        "2 usage error; 3 a dump is incomplete (truncated or damaged): the\n"
        "result covers what could be read and standard error says what was\n"
        "lost.\n"
        "\n"
        "The formats and the rules are described in histo(1).\nThe manual: man histo.\n",
        cli_progname());
}

static const struct option long_options[] = {
    {"by", required_argument, NULL, 'b'},
    {"sort", required_argument, NULL, 's'},
    {"top", required_argument, NULL, 'n'},
    {"match", required_argument, NULL, 'm'},
    {"min-count", required_argument, NULL, 'c'},
    {"min-bytes", required_argument, NULL, 'B'},
    {"all", no_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"human", no_argument, NULL, 'H'},
    {"scan", no_argument, NULL, 'S'},
    {"jobs", required_argument, NULL, 'j'},
    CLI_STANDARD_LONG_OPTIONS,
};

/* Finds arg in a NULL-terminated list of words; returns its index or, after
 * a usage error naming the option and the choices, -1. */
static int choose(const char *opt, const char *arg, const char *const *words)
{
    for (int i = 0; words[i] != NULL; i++)
        if (strcmp(arg, words[i]) == 0)
            return i;
    char list[160] = "";
    for (int i = 0; words[i] != NULL; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    cli_usage_error("invalid %s '%s': expected one of %s", opt, arg, list);
    return -1;
}

/* Whether the terminal's character set can show the sparkline blocks. */
static int unicode_locale(void)
{
    if (setlocale(LC_CTYPE, "") == NULL)
        return 0;
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL &&
           (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

int main(int argc, char **argv)
{
    static const char *const by_words[] = {
        "class", "type", "site", "stack", "frame", "imemo", "iseq", NULL};
    static const char *const sort_words[] = {"bytes", "count", "name",
                                             "delta", "delta-count", "oldest",
                                             "lifetime", NULL};
    static const enum histo_sort sorts[] = {
        HISTO_SORT_BYTES, HISTO_SORT_COUNT, HISTO_SORT_NAME, HISTO_SORT_DELTA,
        HISTO_SORT_DELTA_COUNT, HISTO_SORT_OLDEST, HISTO_SORT_LIFETIME};
    static const char *const format_words[] = {"table", "tsv",    "csv",
                                               "json",  "folded", NULL};
    cli_set_progname("histo");
    histo_options opt = HISTO_OPTIONS_INIT;
    const char *match = NULL;
    int c, i, by_given = 0;

    while ((c = cli_getopt(argc, argv, ":b:s:n:m:c:B:af:HSj:hV",
                           long_options)) != -1) {
        switch (c) {
        case 'b':
            if ((i = choose("--by", optarg, by_words)) < 0)
                return CLI_EXIT_USAGE;
            opt.by = (enum histo_by)i;
            by_given = 1;
            break;
        case 's':
            if ((i = choose("--sort", optarg, sort_words)) < 0)
                return CLI_EXIT_USAGE;
            opt.sort = sorts[i];
            break;
        case 'n':
            if (cli_option_u64("--top", optarg, 1, UINT64_MAX, &opt.top) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            match = optarg;
            break;
        case 'c':
            if (cli_option_u64("--min-count", optarg, 0, UINT64_MAX,
                               &opt.min_count) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'B':
            if (cli_option_size("--min-bytes", optarg, &opt.min_bytes) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'a':
            opt.all = 1;
            break;
        case 'f':
            if ((i = choose("--format", optarg, format_words)) < 0)
                return CLI_EXIT_USAGE;
            opt.format = (enum histo_format)i;
            break;
        case 'H':
            opt.human = 1;
            break;
        case 'S':
            opt.scan = 1;
            break;
        case 'j': {
            uint64_t n;
            if (cli_option_u64("--jobs", optarg, 0, HISTO_MAX_JOBS, &n) != 0)
                return CLI_EXIT_USAGE;
            opt.jobs = n == 0 ? histo_default_jobs() : (unsigned)n;
            break;
        }
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    size_t ndumps = (size_t)(argc - optind);
    const char *const *paths = (const char *const *)argv + optind;
    if (ndumps == 0)
        return cli_usage_error("no dump given");
    if (cli_check_operands(paths, ndumps, "empty file name",
                           "standard input (-) can be read only once") != 0)
        return CLI_EXIT_USAGE;
    if (opt.format == HISTO_FORMAT_FOLDED) {
        /* Folded stacks are stacks: --by=stack unless said otherwise, and
         * nothing else makes sense. */
        if (by_given && opt.by != HISTO_BY_STACK)
            return cli_usage_error(
                "--format=folded needs --by=stack, not --by=%s",
                by_words[opt.by]);
        opt.by = HISTO_BY_STACK;
        if (ndumps > 1)
            return cli_usage_error("--format=folded takes one dump");
    }
    if (ndumps == 1 &&
        (opt.sort == HISTO_SORT_DELTA || opt.sort == HISTO_SORT_DELTA_COUNT)) {
        return cli_usage_error("--sort=%s needs two or more dumps",
                               opt.sort == HISTO_SORT_DELTA ? "delta"
                                                            : "delta-count");
    }

    opt.unicode = unicode_locale();
    regex_t re;
    if (match != NULL) {
        int rc = regcomp(&re, match, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[256];
            regerror(rc, &re, why, sizeof why);
            return cli_usage_error(
                "invalid --match regular expression '%s': %s", match, why);
        }
        opt.match = &re;
    }
    int code = histo_run(stdout, paths, ndumps, &opt);
    if (match != NULL)
        regfree(&re);
    return cli_finish_stdout(code);
}
