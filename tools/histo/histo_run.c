/* histo_run.c -- the whole job: every dump into the table, then print. */
#include <stdio.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "histo_print.h"

int histo_run(FILE *out, const char *const *paths, size_t npaths,
              const histo_options *opt)
{
    histo_table t;
    int result = histo_build(&t, paths, npaths, opt);
    if (result != CLI_EXIT_ERROR) {
        if (histo_print(out, &t, opt) != 0) {
            cli_error(NULL, "out of memory");
            result = CLI_EXIT_ERROR;
        }
    }
    histo_table_free(&t);
    return result;
}
