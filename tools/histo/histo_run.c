/* histo_run.c -- the whole job: every dump into the table, then print. */
#include <stdio.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "histo_print.h"

int histo_run(FILE *out, const char *const *paths, size_t npaths,
              const histo_options *opt)
{
    histo_options o = *opt;
    cli_ctx ctx; /* the engine's failures and warnings, said here */
    o.ctx = cli_ctx_init(&ctx);
    histo_table t;
    int result = cli_ctx_exit(&ctx, histo_build(&t, paths, npaths, &o));
    if (result != CLI_EXIT_ERROR) {
        if (histo_print(out, &t, opt) != 0) {
            cli_error(NULL, "out of memory");
            result = CLI_EXIT_ERROR;
        }
    }
    histo_table_free(&t);
    return result;
}
