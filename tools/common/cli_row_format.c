/* cli_row_format.c -- the names of the row formats. */
#include <string.h>

#include "cli_row_format.h"

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
