/* cli_summary_by.c -- --by of heapfmt-diff and heapfmt-graph. */
#include "cli_msg.h"
#include "cli_summary_by.h"
#include "diff_summary.h"

int cli_summary_by_option(const char *arg, unsigned *by)
{
    if (summary_parse_by(arg, by) == 0)
        return 0;
    cli_usage_error("invalid --by value '%s': expected " DIFF_BY_VALUES, arg);
    return -1;
}
