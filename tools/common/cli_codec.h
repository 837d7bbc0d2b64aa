/* cli_codec.h -- the block codec options of the tools that write dumps
 * (--codec, -l/--level), and codec names for the tools that read them.
 *
 *     heapfmt-import --codec=deflate -l 6 ...
 *     heapfmt-info:  codecs  deflate, stored
 *
 * The level is parsed before the codec may be known (options come in any
 * order), so a tool collects both in a cli_codec_choice and checks them
 * together with cli_codec_apply() after its option loop. */
#ifndef CLI_CODEC_H
#define CLI_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* Names accepted by --codec, for messages. */
#define CLI_CODEC_NAMES "zstd, deflate or stored"

typedef struct cli_codec_choice {
    int codec;         /* enum heapfmt_codec; -1 until --codec is given */
    int level;         /* -1 until -l/--level is given */
    const char *level_arg; /* the -l argument as given, for messages */
} cli_codec_choice;

#define CLI_CODEC_CHOICE_INIT { -1, -1, NULL }

/* The codec used when --codec is not given: Zstandard, or DEFLATE in a
 * libheapfmt built without it. */
int cli_codec_default(void);

/* Parses the argument of --codec ("zstd", "deflate", "stored") into
 * c->codec. On failure prints a usage error and returns -1; the caller
 * exits with CLI_EXIT_USAGE. */
int cli_option_codec(const char *arg, cli_codec_choice *c);

/* Parses the argument of -l/--level (a whole number 0 to the largest level
 * of any codec) into c->level. On failure prints a usage error and returns
 * -1. */
int cli_option_level(const char *arg, cli_codec_choice *c);

/* Checks the choice and sets opt->codec and opt->level: the codec given
 * (or cli_codec_default()), the level given (or 1; stored: 0). The level
 * must suit the codec: zstd 0-HEAPFMT_ZSTD_MAX_LEVEL, deflate
 * 0-HEAPFMT_DEFLATE_MAX_LEVEL (0 stores the blocks), stored 0 only. A
 * codec this build of libheapfmt lacks is refused in one line. Returns 0,
 * or -1 after printing the problem; the caller exits with CLI_EXIT_USAGE. */
int cli_codec_apply(const cli_codec_choice *c, heapfmt_writer_options *opt);

/* Longest text of cli_codec_list. */
#define CLI_CODEC_LIST_MAX 64

typedef struct cli_codec_text {
    char s[CLI_CODEC_LIST_MAX];
} cli_codec_text;

/* The codecs of a heapfmt_totals.codecs / heapfmt_progress.codecs mask,
 * in codec order, comma-separated: "zstd", "deflate, stored"; a bit of a
 * codec this library does not know is shown as "codec N". Empty for 0. */
cli_codec_text cli_codec_list(uint64_t mask);

#endif /* CLI_CODEC_H */
