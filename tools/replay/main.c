/* main.c -- heapfmt-replay: a program's allocation trace (heapfmt-malloc
 * --record) replayed under each allocator asked for, each in a child of
 * its own, and the memory and time of each in one table.
 *
 * The trace is read once (trace.c) and compiled once (compile.c) into a
 * program every child runs (child/run.c): heapfmt-replay-child, executed
 * with the allocator in its environment (allocators.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocators.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_rows.h"
#include "compile.h"
#include "output.h"
#include "trace.h"

#define DEFAULT_ALLOCATORS "glibc,jemalloc,tcmalloc,mimalloc"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... TRACE\n"
        "Replay a program's allocations, recorded with heapfmt-malloc\n"
        "--record, under each allocator, and show the time spent in the\n"
        "allocator, the memory it kept and its overhead (RSS / live bytes).\n"
        "\n"
        "  -a, --allocator=LIST  the allocators, comma-separated: glibc,\n"
        "                        jemalloc, tcmalloc, mimalloc, or the path\n"
        "                        of a shared object that defines malloc;\n"
        "                        each may add :VAR=VALUE settings for its\n"
        "                        environment (glibc:MALLOC_ARENA_MAX=2).\n"
        "                        Default: those of the four installed\n"
        "  -f, --format=FMT      table (default), tsv, csv or json\n"
        "  -o, --output=PAGE     also write an HTML page with the table\n"
        "                        and resident memory over the trace's time\n"
        "  -M, --max-memory=SIZE stop a replay whose resident memory passes\n"
        "                        SIZE (K, M, G; default: 90%% of the memory\n"
        "                        available at start; 0: no limit)\n"
        "  -t, --timeout=SECS    stop a replay after SECS seconds (0, the\n"
        "                        default: no limit)\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "TRACE is a file, or - for standard input.\n"
        "Exit status: 0 every replay ran to its end; 1 error, or an\n"
        "allocator that could not replay the trace (its row says why);\n"
        "2 usage error; 3 the trace is incomplete (cut or damaged: what\n"
        "was read was replayed).\n"
        "The manual: man heapfmt-replay.\n",
        cli_progname());
}

static const struct option long_options[] = {
    {"allocator", required_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"max-memory", required_argument, NULL, 'M'},
    {"timeout", required_argument, NULL, 't'},
    CLI_STANDARD_LONG_OPTIONS,
};

/* 90% of MemAvailable, or 0 when /proc/meminfo does not say. */
static uint64_t default_limit(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb / 10 * 9 * 1024;
}

typedef struct options {
    const char *allocators;
    int explicit_allocators;
    int format; /* enum cli_row_format */
    const char *page;
    run_opts run;
} options;

static int parse(int argc, char **argv, options *o)
{
    int c;
    uint64_t v;
    int limit_given = 0;
    while ((c = cli_getopt(argc, argv, ":a:f:o:M:t:hV", long_options)) != -1) {
        switch (c) {
        case 'a':
            o->allocators = optarg;
            o->explicit_allocators = 1;
            break;
        case 'f':
            if (cli_row_format_parse(optarg, &o->format) != 0)
                return cli_usage_error("invalid --format '%s': expected one of "
                                       "table, tsv, csv, json",
                                       optarg);
            break;
        case 'o':
            if (cli_option_file("--output", optarg, &o->page) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'M':
            if (cli_option_size("--max-memory", optarg, &o->run.max_rss) != 0)
                return CLI_EXIT_USAGE;
            limit_given = 1;
            break;
        case 't':
            if (cli_option_u64("--timeout", optarg, 0, 86400 * 7, &v) != 0)
                return CLI_EXIT_USAGE;
            o->run.timeout = (unsigned)v;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (!limit_given)
        o->run.max_rss = default_limit();
    return CLI_GO_ON;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-replay");
    options o = {DEFAULT_ALLOCATORS, 0, CLI_ROW_TABLE, NULL, {0, 0}};
    int rc = parse(argc, argv, &o);
    if (rc != CLI_GO_ON)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(optind >= argc ? "expected a TRACE"
                                              : "expected one TRACE");
    if (argv[optind][0] == 0)
        return cli_usage_error("empty argument");
    alloc_spec *specs;
    size_t n;
    if (alloc_parse(o.allocators, &specs, &n) != 0)
        return CLI_EXIT_USAGE;
    if (!o.explicit_allocators) { /* the default: those installed */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (alloc_installed(&specs[i]))
                specs[k++] = specs[i];
            else
                alloc_clear(&specs[i]);
        }
        n = k;
    }
    const char *path = argv[optind];
    /* the page is written after the replays: refuse the trace as it
     * now, before that work (cli_file.h) */
    if (o.page != NULL && cli_output_check(o.page, &path, 1) != 0) {
        alloc_free(specs, n);
        return CLI_EXIT_ERROR;
    }
    trace t;
    int read_rc = trace_read(&t, path);
    if (read_rc == CLI_EXIT_ERROR) {
        trace_free(&t);
        alloc_free(specs, n);
        return CLI_EXIT_ERROR;
    }
    compiled c;
    if (compile_trace(&t, &c) != CLI_EXIT_OK) {
        compiled_free(&c);
        trace_free(&t);
        alloc_free(specs, n);
        return CLI_EXIT_ERROR;
    }
    if (o.run.max_rss && c.peak_live > o.run.max_rss) {
        cli_error(cli_input_name(path), "the trace keeps up to %s live, more "
                  "than --max-memory (%s)", cli_fmt_bytes(c.peak_live).s,
                  cli_fmt_bytes(o.run.max_rss).s);
        compiled_free(&c);
        trace_free(&t);
        alloc_free(specs, n);
        return CLI_EXIT_ERROR;
    }
    alloc_result *results = calloc(n ? n : 1, sizeof *results);
    if (results == NULL) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_ERROR;
    }
    int failed = 0, stopped = 0;
    size_t nrun = n;
    for (size_t i = 0; i < n; i++) {
        if (isatty(2))
            fprintf(stderr, "%s: replaying under %s...\r", cli_progname(),
                    specs[i].label);
        if (alloc_run(&specs[i], &c, t.nmarks, &o.run, &results[i]) != 0) {
            stopped = 1; /* no replay can start: said, nothing printed */
            nrun = i;
            break;
        }
        if (isatty(2))
            fprintf(stderr, "\r\033[K");
        if (results[i].status != RUN_OK)
            failed = 1;
    }
    replay r = {cli_input_name(path), &t, &c, specs, results, nrun};
    int page_on_stdout = o.page != NULL && strcmp(o.page, "-") == 0;
    if (stopped) {
        failed = 1;
    } else if (page_on_stdout) {
        /* the page is the output */
    } else if (o.format == CLI_ROW_TABLE) {
        print_table(stdout, &r);
        print_notes(stdout, &r);
    } else if (o.format == CLI_ROW_TSV || o.format == CLI_ROW_CSV) {
        print_delim(stdout, &r, o.format == CLI_ROW_CSV);
    } else {
        print_json(stdout, &r);
    }
    if (!stopped && o.page != NULL && write_page(o.page, path, &r) != 0)
        failed = 1;
    if (t.incomplete)
        cli_warn(r.name, "the trace is incomplete: the replays cover the "
                 "%s events that were read", cli_fmt_count(t.events).s);
    for (size_t i = 0; i < nrun; i++)
        alloc_result_free(&results[i]);
    free(results);
    compiled_free(&c);
    trace_free(&t);
    alloc_free(specs, n);
    rc = failed ? CLI_EXIT_ERROR
                : read_rc == CLI_EXIT_INCOMPLETE ? CLI_EXIT_INCOMPLETE
                                                 : CLI_EXIT_OK;
    return cli_finish_stdout(rc);
}
