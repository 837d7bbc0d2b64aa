/* main.c -- heapfmt-gen: command line of the synthetic dump generator. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_writer_opts.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "gen.h"
#include "heapfmt.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]...\n"
        "Write a synthetic heapfmt dump that looks like the heap of a Ruby\n"
        "application. The same options always give the same dump.\n"
        "\n"
        "The default profile, app, models how a real heap is laid out: an\n"
        "object sits next to the strings, arrays and hashes it holds (40-byte\n"
        "slots in 16 KiB pages), the instances of a class share their shape,\n"
        "literals and allocation site, many references go to a few shared\n"
        "frozen strings and symbols, and values repeat. It compresses like a\n"
        "real Ruby heap, about 9x with zstd level 1. --profile=random draws\n"
        "every object on its own (earlier versions' data, ~1.4x).\n"
        "\n"
        "  -n, --objects N       objects to write, class objects included\n"
        "                        (default 100000)\n"
        "  -s, --seed S          random seed (default 1)\n"
        "  -c, --classes K       classes to define (default 500)\n"
        "  -o, --output FILE     write to FILE; - for standard output, which\n"
        "                        must not be a terminal (default -)\n"
        "      --profile=P       app (default) or random, see above\n"
        CLI_WRITER_HELP
        "      --block-size B    target uncompressed bytes per block\n"
        "                        (%u to %u, default %u; %u with\n"
        "                        --threads)\n"
        "      --no-sites        omit allocation sites (file, line,\n"
        "                        generation)\n"
        "      --no-labels       omit reference labels (instance variable\n"
        "                        names, array indexes, hash keys)\n"
        "      --listed-indexes  write an array's index labels one by one\n"
        "                        (format 1.1), not implied by the elements'\n"
        "                        positions (format 1.3): the same labels\n"
        "      --stacks          give ~98%% of objects a native allocation\n"
        "                        call stack, one of 48 made-up paths\n"
        "                        through a malloc tracker, libc and\n"
        "                        libraries (format 1.1 FRAME and STACK)\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: 0 success, 1 error (nothing is left behind in FILE),\n"
        "2 usage error.\nThe manual: man heapfmt-gen.\n",
        cli_progname(), CLI_WRITER_HELP_ARGS, HEAPFMT_MIN_BLOCK_SIZE, HEAPFMT_MAX_BLOCK,
        HEAPFMT_DEFAULT_BLOCK_SIZE, HEAPFMT_THREAD_BLOCK_SIZE);
}

enum { OPT_NO_SITES = 256, OPT_NO_LABELS, OPT_PROFILE, OPT_STACKS,
       OPT_LISTED_INDEXES };

static const struct option long_options[] = {
    {"objects", required_argument, NULL, 'n'},
    {"seed", required_argument, NULL, 's'},
    {"classes", required_argument, NULL, 'c'},
    CLI_WRITER_LONG_OPTIONS,
    CLI_BLOCK_SIZE_LONG_OPTION,
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"no-sites", no_argument, NULL, OPT_NO_SITES},
    {"no-labels", no_argument, NULL, OPT_NO_LABELS},
    {"stacks", no_argument, NULL, OPT_STACKS},
    {"listed-indexes", no_argument, NULL, OPT_LISTED_INDEXES},
    CLI_STANDARD_LONG_OPTIONS,
};

/* Writes the dump to path; returns the exit code. */
static int generate(const char *path, const gen_options *gopt,
                    const heapfmt_writer_options *wopt)
{
    const char *name = cli_output_name(path);
    cli_output o;
    if (cli_output_open(&o, path, 1, NULL, 0) != 0)
        return CLI_EXIT_ERROR;
    heapfmt_writer *w = NULL;
    int rc = heapfmt_writer_open_fd(&w, wopt, o.fd);
    if (rc != HEAPFMT_OK) {
        cli_error(name, "%s", heapfmt_strerror(rc));
    } else {
        rc = cli_writer_finish(w, gen_write(w, gopt), name);
    }
    heapfmt_writer_free(w);
    return cli_output_end(&o, rc == HEAPFMT_OK ? CLI_EXIT_OK : CLI_EXIT_ERROR);
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-gen");
    gen_options gopt = GEN_OPTIONS_INIT;
    cli_writer_opts wo = CLI_WRITER_OPTS_INIT;
    uint64_t v;
    int c;

    while ((c = cli_getopt(argc, argv, ":n:s:c:o:l:hV", long_options)) != -1) {
        switch (c) {
        case 'n':
            if (cli_option_u64("--objects", optarg, 0, GEN_MAX_OBJECTS,
                               &gopt.objects) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (cli_option_u64("--seed", optarg, 0, UINT64_MAX,
                               &gopt.seed) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'c':
            if (cli_option_u64("--classes", optarg, 1, GEN_MAX_CLASSES,
                               &v) != 0)
                return CLI_EXIT_USAGE;
            gopt.classes = (uint32_t)v;
            break;
        CLI_WRITER_OPTION_CASES:
            if (cli_writer_option(c, optarg, &wo) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_PROFILE:
            if (strcmp(optarg, gen_profile_name(GEN_PROFILE_APP)) == 0) {
                gopt.profile = GEN_PROFILE_APP;
            } else if (strcmp(optarg,
                              gen_profile_name(GEN_PROFILE_RANDOM)) == 0) {
                gopt.profile = GEN_PROFILE_RANDOM;
            } else {
                return cli_usage_error("invalid --profile '%s': expected app "
                                       "or random",
                                       optarg);
            }
            break;
        case OPT_NO_SITES:
            gopt.sites = 0;
            break;
        case OPT_NO_LABELS:
            gopt.labels = 0;
            break;
        case OPT_STACKS:
            gopt.stacks = 1;
            break;
        case OPT_LISTED_INDEXES:
            gopt.listed_indexes = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind < argc)
        return cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (cli_writer_opts_finish(&wo) != 0)
        return CLI_EXIT_USAGE;
    return generate(wo.output, &gopt, &wo.w);
}
