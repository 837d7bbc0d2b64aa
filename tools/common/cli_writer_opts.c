/* cli_writer_opts.c -- the writer options of the tools that write dumps,
 * and the end of the dump. */
#include <stdint.h>

#include "cli_msg.h"
#include "cli_num.h"
#include "cli_writer_opts.h"

int cli_writer_option(int c, const char *arg, cli_writer_opts *o)
{
    uint64_t v;
    switch (c) {
    case 'o':
        return cli_option_file("--output", arg, &o->output);
    case 'l':
        return cli_option_level(arg, &o->codec);
    case CLI_OPT_CODEC:
        return cli_option_codec(arg, &o->codec);
    case CLI_OPT_THREADS:
        o->w.threads = 1;
        return 0;
    case CLI_OPT_BLOCK_SIZE:
        if (cli_option_u64("--block-size", arg, HEAPFMT_MIN_BLOCK_SIZE,
                           HEAPFMT_MAX_BLOCK, &v) != 0)
            return -1;
        o->w.block_size = (uint32_t)v;
        return 0;
    default:
        cli_usage_error("internal: option %d is not a writer option", c);
        return -1;
    }
}

int cli_writer_opts_finish(cli_writer_opts *o)
{
    return cli_codec_apply(&o->codec, &o->w);
}

int cli_writer_finish(heapfmt_writer *w, int rc, const char *name)
{
    if (rc == HEAPFMT_OK)
        rc = heapfmt_writer_finish(w);
    if (rc != HEAPFMT_OK) {
        const heapfmt_error *e = heapfmt_writer_error(w);
        cli_error(name, "%s",
                  e->code == rc && e->message[0] != '\0'
                      ? e->message
                      : heapfmt_strerror(rc));
    }
    return rc;
}
