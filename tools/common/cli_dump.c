/* cli_dump.c -- open and scan a heapfmt dump, printing why it fails and
 * what was lost. */
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

int cli_scan_with(cli_dump *d, enum an_scan_policy policy, cli_scan_fn fn,
                  void *ctx, cli_scan_report *rep)
{
    cli_ctx c;
    cli_scan_report own;
    if (rep == NULL)
        rep = &own;
    int st = an_scan_with(d, policy, fn, ctx, rep, cli_ctx_init(&c));
    return rep->stopped ? st : cli_ctx_exit(&c, st);
}

int cli_scan(cli_dump *d, cli_scan_fn fn, void *ctx)
{
    return cli_scan_with(d, CLI_SCAN_KEEP_GOING, fn, ctx, NULL);
}
