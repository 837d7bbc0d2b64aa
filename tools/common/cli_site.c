/* cli_site.c -- allocation sites as the tools name them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_names.h"
#include "cli_site.h"

int cli_site_name(char **buf, size_t *cap, const heapfmt_rstring *file,
                    uint64_t line, size_t *len)
{
    char ph[48];
    cli_name cut;
    size_t tlen;
    const char *text = cli_name_cut(file->ptr, file->len, &cut, &tlen);
    if (file->undefined) {
        snprintf(ph, sizeof ph, "#<undefined string %u>", (unsigned)file->id);
        text = ph;
        tlen = strlen(ph);
    } else if (file->slot == 0 || file->len == 0) {
        text = "(no file)";
        tlen = strlen(text);
    }
    size_t need = tlen + 1 + 20 + 1; /* ':' and up to 20 digits */
    if (need > *cap || *buf == NULL) {
        char *b = realloc(*buf, need);
        if (b == NULL)
            return -1;
        *buf = b;
        *cap = need;
    }
    memcpy(*buf, text, tlen);
    int n = snprintf(*buf + tlen, *cap - tlen, ":%llu",
                     (unsigned long long)line);
    *len = tlen + (size_t)n;
    return 0;
}
