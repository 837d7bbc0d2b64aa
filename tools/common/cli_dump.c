/* cli_dump.c -- open a heapfmt dump for reading, printing why it fails. */
#include "cli_ctx.h"
#include "cli_dump.h"

int cli_dump_open(cli_dump *d, const char *path,
                  const heapfmt_reader_options *opt)
{
    cli_ctx c;
    return cli_ctx_exit(&c, an_dump_open(d, path, opt, cli_ctx_init(&c)));
}

void cli_dump_close(cli_dump *d)
{
    an_dump_close(d);
}

void cli_dump_error(const cli_dump *d, int status)
{
    cli_ctx c;
    cli_ctx_exit(&c, an_dump_fail(cli_ctx_init(&c), d, status));
}
