/* main.c -- heapfmt-import: command line of the ObjectSpace.dump_all and
 * V8 heap snapshot importer. The work is in import.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_progress.h"
#include "cli_writer_opts.h"
#include "heapfmt.h"
#include "import.h"
#include "jscan.h"
#include "hprof_android.h"
#include "jvm_layout.h"
#include "sniff.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... [FILE]\n"
        "Convert the JSON lines of Ruby's ObjectSpace.dump_all (Ruby 2.1 to\n"
        "3.4, plain or gzip-compressed), a V8 heap snapshot (.heapsnapshot,\n"
        "Node and Chrome) or a Java HPROF dump (jmap, jcmd, Android; plain or\n"
        "gzip) into a heapfmt dump. FILE - or no FILE reads standard input.\n"
        "\n"
        "  -o, --output FILE     write to FILE; - for standard output, which\n"
        "                        must not be a terminal (default -)\n"
        CLI_WRITER_HELP
        "      --from=KIND       read FILE as ruby (dump_all), v8\n"
        "                        (.heapsnapshot) or hprof; default: from\n"
        "                        its first bytes\n"
        "      --jvm=MODEL       HPROF object sizes: compressed (4-byte\n"
        "                        references), compressed-class, wide,\n"
        "                        32-bit or art (Android); default: detected\n"
        "                        from the dump\n"
        "      --dump=N          HPROF: import the Nth heap dump of a file\n"
        "                        that holds several (default: the first)\n"
        "      --heap=LIST       Android HPROF: the heaps whose objects are\n"
        "                        imported, names separated by commas (app,\n"
        "                        zygote, image) or all (default: app)\n"
        "      --strict          stop at the first line that cannot be\n"
        "                        imported (exit 1, no output file left)\n"
        "      --preview N       bytes of each string value to keep\n"
        "                        (0 to %d, default %d)\n"
        "      --max-line N      skip lines longer than N bytes\n"
        "                        (default 1 GiB)\n"
        "      --one-pass        read a regular file once: classes are\n"
        "                        named where their line comes, not before\n"
        "                        the first object (pipes are always read\n"
        "                        once)\n"
        "      --listed-indexes  write index labels one by one (format\n"
        "                        1.1), not implied by the elements'\n"
        "                        positions (format 1.3): the same labels\n"
        "  -v, --verbose         print counts and speed to stderr at the end\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "A line that cannot be imported is reported as FILE:LINE: reason and\n"
        "skipped; so is a line cut short at the end of the input.\n"
        "\n"
        "Exit status: 0 success, 1 error (nothing is left behind in FILE),\n"
        "2 usage error, 3 lines were skipped or the input was truncated (the\n"
        "dump holds everything else).\nThe manual: man heapfmt-import.\n",
        cli_progname(), CLI_WRITER_HELP_ARGS, JS_VALUE_MAX, IMPORT_PREVIEW);
}

enum {
    OPT_STRICT = 256,
    OPT_PREVIEW,
    OPT_MAX_LINE,
    OPT_ONE_PASS,
    OPT_FROM,
    OPT_JVM,
    OPT_DUMP,
    OPT_HEAP,
    OPT_LISTED_INDEXES
};

static const struct option long_options[] = {
    CLI_WRITER_LONG_OPTIONS,
    {"strict", no_argument, NULL, OPT_STRICT},
    {"from", required_argument, NULL, OPT_FROM},
    {"jvm", required_argument, NULL, OPT_JVM},
    {"dump", required_argument, NULL, OPT_DUMP},
    {"heap", required_argument, NULL, OPT_HEAP},
    {"preview", required_argument, NULL, OPT_PREVIEW},
    {"max-line", required_argument, NULL, OPT_MAX_LINE},
    {"one-pass", no_argument, NULL, OPT_ONE_PASS},
    {"listed-indexes", no_argument, NULL, OPT_LISTED_INDEXES},
    {"verbose", no_argument, NULL, 'v'},
    CLI_STANDARD_LONG_OPTIONS,
};

/* Reads from a file descriptor (the lr_read_fn of the tool). */
static long fd_read(void *opaque, void *buf, size_t len)
{
    int fd = *(const int *)opaque;
    if (len > ((size_t)1 << 30))
        len = (size_t)1 << 30;
    ssize_t n = read(fd, buf, len);
    return n < 0 ? -(long)errno : (long)n;
}

/* Rewinds a regular file for the importer's second pass. */
static int fd_rewind(void *opaque)
{
    int fd = *(const int *)opaque;
    return lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* Diagnostics as "prog: FILE:LINE: message". */
static void report(void *ctx, int kind, uint64_t line, const char *msg)
{
    const char *name = ctx;
    char where[4096];
    const char *file = name;
    if (line > 0) {
        snprintf(where, sizeof where, "%s:%llu", name, (unsigned long long)line);
        file = where;
    }
    if (kind == IMPORT_DIAG_WARNING)
        cli_warn(file, "%s", msg);
    else
        cli_error(file, "%s", msg);
}

static void print_stats(const char *in_name, const import_stats *st,
                        const heapfmt_writer_options *wopt,
                        uint64_t out_bytes, double secs, double cpu)
{
    double mb = (double)st->bytes_json / 1e6;
    char codec[32] = "stored";
    if (wopt->level > 0)
        snprintf(codec, sizeof codec, "%s level %d",
                 heapfmt_codec_name(wopt->codec), wopt->level);
    if (st->lines > 0)
        fprintf(stderr, "%s: %s: lines %s, ", cli_progname(), in_name,
                cli_fmt_count(st->lines).s);
    else /* a V8 snapshot or an HPROF dump: no lines, ROOT records */
        fprintf(stderr, "%s: %s: ", cli_progname(), in_name);
    fprintf(stderr, "objects %s, %s %s, references %s, classes %s\n",
            cli_fmt_count(st->objects).s, st->lines > 0 ? "root lines" : "roots",
            cli_fmt_count(st->roots).s, cli_fmt_count(st->refs).s,
            cli_fmt_count(st->classes).s);
    if (st->free_slots || st->shapes || st->malformed)
        fprintf(stderr,
                "%s: %s: skipped: free slots %s, shapes %s, problem lines %s\n",
                cli_progname(), in_name, cli_fmt_count(st->free_slots).s,
                cli_fmt_count(st->shapes).s, cli_fmt_count(st->malformed).s);
    fprintf(stderr,
            "%s: %s: %s of %s%s in %.2f s (%.0f MB/s); CPU %.2f s "
            "(%.0f MB/s per core); dump %s (%s)\n",
            cli_progname(), in_name, cli_fmt_bytes(st->bytes_json).s,
            st->kind == SNIFF_HPROF ? "HPROF" : "JSON", st->gzip ? " (gzip)" : "", secs, secs > 0 ? mb / secs : 0.0, cpu,
            cpu > 0 ? mb / cpu : 0.0, cli_fmt_bytes(out_bytes).s, codec);
}

typedef struct run_args {
    const char *input;
    const char *output;
    heapfmt_writer_options wopt;
    import_options iopt;
    int verbose;
    int one_pass;
} run_args;

static int run(run_args *a)
{
    const char *in_name = cli_input_name(a->input);
    const char *out_name = cli_output_name(a->output);
    int in_fd;
    if (cli_open_input(a->input, &in_fd) != 0)
        return CLI_EXIT_ERROR;
    struct stat si;
    if (fstat(in_fd, &si) != 0)
        memset(&si, 0, sizeof si);
    cli_output o;
    if (cli_output_open(&o, a->output, 1, &a->input, 1) != 0) {
        cli_close_input(in_fd);
        return CLI_EXIT_ERROR;
    }
    heapfmt_writer *w = NULL;
    int rc = heapfmt_writer_open_fd(&w, &a->wopt, o.fd);
    int code = CLI_EXIT_OK;
    if (rc != HEAPFMT_OK) {
        cli_error(out_name, "%s", heapfmt_strerror(rc));
        code = CLI_EXIT_ERROR;
    } else {
        a->iopt.source = in_name;
        a->iopt.report = report;
        a->iopt.report_ctx = (void *)in_name;
        if (!a->one_pass && S_ISREG(si.st_mode))
            a->iopt.rewind = fd_rewind;
        import_stats st;
        double t0 = cli_seconds(CLOCK_MONOTONIC);
        double c0 = cli_seconds(CLOCK_PROCESS_CPUTIME_ID);
        int r = import_run(w, fd_read, &in_fd, &a->iopt, &st);
        if (r == IMPORT_FAILED) {
            code = CLI_EXIT_ERROR;
        } else {
            code = r == IMPORT_INCOMPLETE ? CLI_EXIT_INCOMPLETE : CLI_EXIT_OK;
            if (cli_writer_finish(w, HEAPFMT_OK, out_name) != HEAPFMT_OK)
                code = CLI_EXIT_ERROR;
        }
        if (a->verbose && code != CLI_EXIT_ERROR)
            print_stats(in_name, &st, &a->wopt, heapfmt_writer_offset(w),
                        cli_seconds(CLOCK_MONOTONIC) - t0,
                        cli_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0);
    }
    heapfmt_writer_free(w);
    cli_close_input(in_fd);
    return cli_output_end(&o, code);
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-import");
    run_args a;
    memset(&a, 0, sizeof a);
    import_options iopt = IMPORT_OPTIONS_INIT;
    a.iopt = iopt;
    cli_writer_opts wo = CLI_WRITER_OPTS_INIT;
    uint64_t v;
    int c;

    while ((c = cli_getopt(argc, argv, ":o:l:vhV", long_options)) != -1) {
        switch (c) {
        CLI_WRITER_OPTION_CASES:
            if (cli_writer_option(c, optarg, &wo) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FROM:
            if (strcmp(optarg, "ruby") == 0) {
                a.iopt.from = SNIFF_RUBY;
            } else if (strcmp(optarg, "v8") == 0) {
                a.iopt.from = SNIFF_V8;
            } else if (strcmp(optarg, "hprof") == 0) {
                a.iopt.from = SNIFF_HPROF;
            } else {
                return cli_usage_error("--from: '%s' is not ruby, v8 or hprof",
                                       optarg);
            }
            break;
        case OPT_JVM:
            if (!jl_model_named(optarg))
                return cli_usage_error("--jvm: '%s' is not compressed, "
                                       "compressed-class, wide, 32-bit or art",
                                       optarg);
            a.iopt.jvm = optarg;
            break;
        case OPT_DUMP:
            if (cli_option_u64("--dump", optarg, 1, UINT32_MAX, &v) != 0)
                return CLI_EXIT_USAGE;
            a.iopt.hprof_dump = (unsigned)v;
            break;
        case OPT_HEAP:
            if (!hpa_heaps_valid(optarg))
                return cli_usage_error(
                    "--heap: '%s' is not all or heap names "
                    "separated by commas (app, zygote, image)",
                    optarg);
            a.iopt.hprof_heaps = optarg;
            break;
        case OPT_STRICT:
            a.iopt.strict = 1;
            break;
        case OPT_PREVIEW:
            if (cli_option_u64("--preview", optarg, 0, JS_VALUE_MAX, &v) != 0)
                return CLI_EXIT_USAGE;
            a.iopt.preview = (size_t)v;
            break;
        case OPT_MAX_LINE:
            if (cli_option_u64("--max-line", optarg, 1, (uint64_t)1 << 40,
                               &v) != 0)
                return CLI_EXIT_USAGE;
            if (v > (uint64_t)((size_t)-1 / 4))
                return cli_usage_error("--max-line: too large for this system");
            a.iopt.max_line = (size_t)v;
            break;
        case OPT_ONE_PASS:
            a.one_pass = 1;
            break;
        case OPT_LISTED_INDEXES:
            a.iopt.listed_indexes = 1;
            break;
        case 'v':
            a.verbose = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (argc - optind > 1)
        return cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (cli_writer_opts_finish(&wo) != 0)
        return CLI_EXIT_USAGE;
    a.wopt = wo.w;
    a.output = wo.output;
    a.input = optind < argc ? argv[optind] : "-";
    if (*a.input == '\0')
        return cli_usage_error("empty input file name");
    return run(&a);
}
