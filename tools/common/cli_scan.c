/* cli_scan.c -- read every record of an open dump, printing what was lost. */
#include "cli_ctx.h"
#include "cli_scan.h"

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
