/* cli_row_format.c -- the names of the row formats, and --by's keys. */
#include <string.h>

#include "cli_msg.h"
#include "cli_row_format.h"
#include "diff_summary.h"

int cli_row_format_parse(const char *name, int *format)
{
    static const char *const names[] = {"table", "tsv", "csv", "json"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (strcmp(name, names[i]) == 0) {
            *format = i;
            return 0;
        }
    }
    return -1;
}

int cli_row_format_option(const char *arg, int *format)
{
    if (cli_row_format_parse(arg, format) == 0)
        return 0;
    cli_usage_error("invalid --format value '%s': expected table, tsv, csv "
                    "or json",
                    arg);
    return -1;
}

int cli_summary_by_option(const char *arg, unsigned *by)
{
    if (summary_parse_by(arg, by) == 0)
        return 0;
    cli_usage_error("invalid --by value '%s': expected " DIFF_BY_VALUES, arg);
    return -1;
}
