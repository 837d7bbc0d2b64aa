/* main.c -- heapfmt-export: command line of the JSON exporter. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli_dump.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "export.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... DUMP\n"
        "Write the records of a heapfmt dump as JSON, for jq, notebooks,\n"
        "mongoimport and SQL engines, or as a pprof heap profile. DUMP is a\n"
        "file, or - for standard input.\n"
        "\n"
        "  -f, --format=FORMAT   ndjson: one document per line (default);\n"
        "                        json: one JSON value; mongo: MongoDB\n"
        "                        Extended JSON v2, one document per line;\n"
        "                        rows: flat rows of one table for\n"
        "                        ClickHouse and DuckDB; pprof: a gzip'd\n"
        "                        profile.proto heap profile\n"
        "  -r, --records=KINDS   what to write, comma-separated: objects,\n"
        "                        edges, roots, classes, meta, or all\n"
        "                        (default objects; json: objects,roots,\n"
        "                        classes,meta)\n"
        "  -t, --dump-tag=NAME   add \"dump\": NAME to every document and\n"
        "                        prefix MongoDB _id values with NAME:, so\n"
        "                        that many dumps share one collection\n"
        "                        (1-%d characters of A-Z a-z 0-9 . _ -)\n"
        "      --host=NAME, --pid=N, --time=T, --release=TAG\n"
        "                        the dump's identity in every row (rows;\n"
        "                        other formats when one is given); T is\n"
        "                        seconds since 1970 or YYYY-MM-DDTHH:MM:SSZ;\n"
        "                        default: the dump's META\n"
        "      --max-refs=N      references kept in one object or root\n"
        "                        document (default %u, at most %u for\n"
        "                        mongo); edges always carry all of them\n"
        "  -o, --output=FILE     write to FILE; - for standard output\n"
        "                        (default -)\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: 0 success (also when a pipe reader stops early), 1\n"
        "error, 2 usage error, 3 incomplete dump (everything readable was\n"
        "exported).\nThe manual: man heapfmt-export.\n",
        cli_progname(), DOC_MAX_TAG, DOC_DEFAULT_MAX_REFS,
        DOC_MONGO_MAX_REFS);
}

enum {
    OPT_MAX_REFS = 256,
    OPT_HOST,
    OPT_PID,
    OPT_TIME,
    OPT_RELEASE
};

static const struct option long_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"records", required_argument, NULL, 'r'},
    {"dump-tag", required_argument, NULL, 't'},
    {"max-refs", required_argument, NULL, OPT_MAX_REFS},
    {"host", required_argument, NULL, OPT_HOST},
    {"pid", required_argument, NULL, OPT_PID},
    {"time", required_argument, NULL, OPT_TIME},
    {"release", required_argument, NULL, OPT_RELEASE},
    {"output", required_argument, NULL, 'o'},
    CLI_STANDARD_LONG_OPTIONS,
};

/* Checks the text of --host or --release: 1 to IDENT_MAX_TEXT bytes.
 * Returns 0, or -1 after a usage error. */
static int ident_text_option(const char *name, const char *arg)
{
    size_t n = strlen(arg);
    if (n == 0 || n > IDENT_MAX_TEXT) {
        cli_usage_error("invalid %s: expected 1 to %u bytes", name,
                        IDENT_MAX_TEXT);
        return -1;
    }
    return 0;
}

/* Opens the dump and the output, exports, closes. Returns the exit code. */
static int run(const char *input, const char *output,
               const export_options *opt)
{
    cli_dump d;
    int rc = cli_dump_open(&d, input, NULL);
    if (rc != CLI_EXIT_OK)
        return rc;
    cli_output o;
    if (cli_output_open(&o, output, opt->format == EXPORT_PPROF, &input, 1) !=
        0) {
        cli_dump_close(&d);
        return CLI_EXIT_ERROR;
    }
    jout out;
    if (jout_init(&out, 0, jout_fd_write, &o.fd) != 0) {
        cli_error(NULL, "out of memory");
        rc = CLI_EXIT_ERROR;
    } else {
        rc = export_dump(&d, opt, &out, cli_output_name(output));
    }
    jout_free(&out);
    cli_dump_close(&d);
    return cli_output_end(&o, rc);
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-export");
    export_options opt = EXPORT_OPTIONS_INIT;
    const char *output = "-";
    int max_refs_given = 0, records_given = 0;
    int c;

    while ((c = cli_getopt(argc, argv, ":f:r:t:o:hV", long_options)) != -1) {
        switch (c) {
        case 'f':
            if (export_parse_format(optarg, &opt.format) != 0)
                return cli_usage_error(
                    "invalid --format '%s': expected ndjson, "
                    "json, mongo, rows or pprof",
                    optarg);
            break;
        case 'r': {
            const char *bad;
            int bad_len;
            if (records_parse(optarg, &opt.records, &bad, &bad_len) != 0)
                return cli_usage_error(
                    "invalid --records kind '%.*s': expected a "
                    "comma-separated list of " RECORDS_NAMES,
                    bad_len, bad);
            records_given = 1;
            break;
        }
        case 't':
            if (!doc_tag_valid(optarg))
                return cli_usage_error(
                    "invalid --dump-tag '%s': expected 1 to %d "
                    "characters of A-Z a-z 0-9 . _ -",
                    optarg, DOC_MAX_TAG);
            opt.tag = optarg;
            break;
        case OPT_MAX_REFS:
            if (cli_option_u64("--max-refs", optarg, 0, HEAPFMT_MAX_REFS,
                               &opt.max_refs) != 0)
                return CLI_EXIT_USAGE;
            max_refs_given = 1;
            break;
        case OPT_HOST:
        case OPT_RELEASE:
            if (ident_text_option(c == OPT_HOST ? "--host" : "--release",
                                  optarg) != 0)
                return CLI_EXIT_USAGE;
            if (c == OPT_HOST) {
                opt.id.host = optarg;
                opt.id.host_len = strlen(optarg);
                opt.id.given |= IDENT_HOST;
            } else {
                opt.id.release = optarg;
                opt.id.release_len = strlen(optarg);
                opt.id.given |= IDENT_RELEASE;
            }
            break;
        case OPT_PID:
            if (cli_option_u64("--pid", optarg, 0, UINT64_MAX, &opt.id.pid) !=
                0)
                return CLI_EXIT_USAGE;
            opt.id.given |= IDENT_PID;
            break;
        case OPT_TIME:
            if (ident_parse_time(optarg, &opt.id.time) != 0)
                return cli_usage_error(
                    "invalid --time '%s': expected seconds since "
                    "1970 or YYYY-MM-DDTHH:MM:SS[Z] (UTC)",
                    optarg);
            opt.id.given |= IDENT_TIME;
            break;
        case 'o':
            if (cli_option_file("--output", optarg, &output) != 0)
                return CLI_EXIT_USAGE;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error(
            "missing DUMP argument (use - for standard input)");
    if (argc - optind > 1)
        return cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (opt.format == EXPORT_ROWS && records_given &&
        records_several(opt.records)) {
        return cli_usage_error("--format=rows writes one table: give --records "
                               "one kind");
    }
    if (opt.format == EXPORT_ROWS && opt.tag != NULL)
        return cli_usage_error(
            "--format=rows has no --dump-tag: each row names "
            "its dump by --host, --pid, --time and --release");
    if (opt.format == EXPORT_PPROF && (records_given || max_refs_given))
        return cli_usage_error("--format=pprof writes a profile: --records and "
                               "--max-refs do not apply");
    if (opt.format == EXPORT_MONGO && max_refs_given &&
        opt.max_refs > DOC_MONGO_MAX_REFS) {
        return cli_usage_error(
            "--max-refs %llu is too large for --format=mongo "
            "(at most %u keep every document under 16 MiB)",
            (unsigned long long)opt.max_refs, DOC_MONGO_MAX_REFS);
    }
    /* A pipe reader that goes away (heapfmt-export ... | head) must end
     * the export quietly: see EPIPE in export.c rather than die. */
    signal(SIGPIPE, SIG_IGN);
    return run(argv[optind], output, &opt);
}
