/* cli_codec.c -- block codec options and codec names. */
#include <stdio.h>
#include <string.h>

#include "cli_codec.h"
#include "cli_msg.h"
#include "cli_num.h"

/* The codecs --codec names, in codec order. */
static const int codecs[] = {HEAPFMT_CODEC_STORED, HEAPFMT_CODEC_DEFLATE,
                             HEAPFMT_CODEC_ZSTD};

#define NCODECS (sizeof codecs / sizeof codecs[0])

/* Largest level of a codec; 0 for stored. */
static int max_level(int codec)
{
    switch (codec) {
    case HEAPFMT_CODEC_ZSTD:
        return HEAPFMT_ZSTD_MAX_LEVEL;
    case HEAPFMT_CODEC_DEFLATE:
        return HEAPFMT_DEFLATE_MAX_LEVEL;
    default:
        return 0;
    }
}

int cli_codec_default(void)
{
    return heapfmt_codec_supported(HEAPFMT_CODEC_ZSTD) ? HEAPFMT_CODEC_ZSTD
                                                       : HEAPFMT_CODEC_DEFLATE;
}

int cli_option_codec(const char *arg, cli_codec_choice *c)
{
    for (size_t i = 0; i < NCODECS; i++) {
        if (strcmp(arg, heapfmt_codec_name(codecs[i])) == 0) {
            c->codec = codecs[i];
            return 0;
        }
    }
    cli_usage_error("invalid --codec '%s': expected " CLI_CODEC_NAMES, arg);
    return -1;
}

int cli_option_level(const char *arg, cli_codec_choice *c)
{
    uint64_t v;
    if (cli_option_u64("--level", arg, 0, HEAPFMT_ZSTD_MAX_LEVEL, &v) != 0)
        return -1;
    c->level = (int)v;
    c->level_arg = arg;
    return 0;
}

int cli_codec_apply(const cli_codec_choice *c, heapfmt_writer_options *opt)
{
    int codec = c->codec >= 0 ? c->codec : cli_codec_default();
    const char *name = heapfmt_codec_name(codec);
    int level = c->level >= 0 ? c->level : 1;
    if (codec == HEAPFMT_CODEC_STORED) {
        if (c->level > 0) {
            cli_usage_error("invalid --level value '%s': --codec=stored "
                            "does not compress (level 0 only)",
                            c->level_arg);
            return -1;
        }
        level = 0;
    } else if (level > max_level(codec)) {
        cli_usage_error("invalid --level value '%s': %s levels are 0 "
                        "(store) to %d",
                        c->level_arg, name, max_level(codec));
        return -1;
    }
    /* Level 0 stores every block: no codec needed. */
    if (level > 0 && !heapfmt_codec_supported(codec)) {
        cli_error(NULL, "--codec=%s: this libheapfmt %s was built without "
                        "%s support; use --codec=deflate",
                  name, heapfmt_version(), name);
        return -1;
    }
    opt->codec = codec;
    opt->level = level;
    return 0;
}

cli_codec_text cli_codec_list(uint64_t mask)
{
    cli_codec_text t;
    size_t len = 0;
    t.s[0] = '\0';
    for (unsigned bit = 0; bit < 64 && len < sizeof t.s; bit++) {
        if (!(mask & (UINT64_C(1) << bit)))
            continue;
        const char *name = heapfmt_codec_name((int)bit);
        const char *sep = len > 0 ? ", " : "";
        int n = strcmp(name, "unknown") != 0
                    ? snprintf(t.s + len, sizeof t.s - len, "%s%s", sep, name)
                    : snprintf(t.s + len, sizeof t.s - len, "%scodec %u", sep,
                               bit);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return t;
}
