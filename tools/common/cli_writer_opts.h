/* cli_writer_opts.h -- the writer options of the tools that write dumps
 * (heapfmt-core, -gen, -import): -o/--output, --codec, -l/--level,
 * --threads and --block-size, parsed and checked into the output's name
 * and one heapfmt_writer_options; and the end of the dump they write
 * (cli_writer_finish).
 *
 *     static const struct option long_options[] = {
 *         ...,
 *         CLI_WRITER_LONG_OPTIONS,
 *         CLI_STANDARD_LONG_OPTIONS,
 *     };
 *     CLI_WRITER_OPTION_CASES:
 *         if (cli_writer_option(c, optarg, &wo) != 0)
 *             return CLI_EXIT_USAGE;
 *         break;
 *     ...after the loop:
 *     if (cli_writer_opts_finish(&wo) != 0)
 *         return CLI_EXIT_USAGE;
 *
 * The level comes before the codec may be known (options come in any
 * order), so both are checked together after the option loop
 * (cli_codec_apply). The option codes sit above a tool's own (which start
 * at 256), so they never collide. */
#ifndef CLI_WRITER_OPTS_H
#define CLI_WRITER_OPTS_H

#include <getopt.h>

#include "cli_codec.h"
#include "heapfmt.h"

enum { CLI_OPT_CODEC = 0x1000, CLI_OPT_THREADS, CLI_OPT_BLOCK_SIZE };

/* -o/--output, --codec, -l/--level and --threads, for a tool's long
 * option table (its short options name "o:l:"). */
#define CLI_WRITER_LONG_OPTIONS                                              \
    {"output", required_argument, NULL, 'o'},                                \
    {"codec", required_argument, NULL, CLI_OPT_CODEC},                       \
    {"level", required_argument, NULL, 'l'},                                 \
    {"threads", no_argument, NULL, CLI_OPT_THREADS}

/* The case labels of the codes cli_writer_option takes (a tool without
 * --block-size in its table never sees CLI_OPT_BLOCK_SIZE). */
#define CLI_WRITER_OPTION_CASES                                              \
    case 'o':                                                                \
    case 'l':                                                                \
    case CLI_OPT_CODEC:                                                      \
    case CLI_OPT_THREADS:                                                    \
    case CLI_OPT_BLOCK_SIZE

/* --block-size, for the tools that offer it. */
#define CLI_BLOCK_SIZE_LONG_OPTION                                           \
    {"block-size", required_argument, NULL, CLI_OPT_BLOCK_SIZE}

/* --codec, -l/--level and --threads in a tool's --help (man pages say
 * the same), a printf format with the arguments CLI_WRITER_HELP_ARGS. */
#define CLI_WRITER_HELP                                                      \
    "      --codec=CODEC     compress blocks with zstd (default),\n"         \
    "                        deflate, or store them uncompressed\n"          \
    "  -l, --level L         the codec's level: zstd 1-%d, deflate\n"        \
    "                        1-%d; 0 = store blocks (default 1)\n"           \
    "      --threads         compress on a worker thread while the\n"        \
    "                        next block is filled\n"

#define CLI_WRITER_HELP_ARGS HEAPFMT_ZSTD_MAX_LEVEL, HEAPFMT_DEFLATE_MAX_LEVEL

typedef struct cli_writer_opts {
    heapfmt_writer_options w; /* the result, complete after _finish */
    cli_codec_choice codec;   /* --codec and --level as given */
    const char *output;       /* -o: the dump's file, "-" (the default)
                                 for standard output */
} cli_writer_opts;

#define CLI_WRITER_OPTS_INIT                                                 \
    { HEAPFMT_WRITER_OPTIONS_INIT, CLI_CODEC_CHOICE_INIT, "-" }

/* Takes one writer option: c as getopt_long returned it ('o', 'l',
 * CLI_OPT_CODEC, CLI_OPT_THREADS, CLI_OPT_BLOCK_SIZE), arg its argument.
 * Returns 0, or -1 after a usage error (the caller exits CLI_EXIT_USAGE). */
int cli_writer_option(int c, const char *arg, cli_writer_opts *o);

/* After the option loop: checks the level against the codec and sets
 * o->w.codec and o->w.level (cli_codec_apply). Returns 0, or -1 after
 * printing the problem (the caller exits CLI_EXIT_USAGE). */
int cli_writer_opts_finish(cli_writer_opts *o);

/* Ends the dump w writes: finishes it (heapfmt_writer_finish) when rc,
 * the status of the work that wrote through w, is HEAPFMT_OK. On a
 * failure of either prints "prog: name: message", with the writer's
 * message where it has one for that status, else heapfmt_strerror's.
 * Returns the status. */
int cli_writer_finish(heapfmt_writer *w, int rc, const char *name);

#endif /* CLI_WRITER_OPTS_H */
