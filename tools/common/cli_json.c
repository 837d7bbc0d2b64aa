/* cli_json.c -- the JSON writer of the HTML pages (heapfmt-report,
 * heapfmt-replay). */
#include <inttypes.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_json.h"

void json_init(json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

/* The comma before a value, unless it is the first of its container or
 * follows its key. */
static void value_begins(json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (j->has[j->depth - 1])
            fputc(',', j->f);
        j->has[j->depth - 1] = 1;
    }
}

void json_open(json *j, char bracket)
{
    value_begins(j);
    fputc(bracket, j->f);
    /* Deeper than the report ever nests is a bug, not input: the commas
     * are then only as right as the last level kept. */
    if (j->depth < JSON_MAX_DEPTH)
        j->has[j->depth++] = 0;
}

void json_close(json *j, char bracket)
{
    fputc(bracket, j->f);
    if (j->depth > 0)
        j->depth--;
}

void json_key(json *j, const char *key)
{
    value_begins(j);
    cli_put_json(j->f, key, strlen(key));
    fputc(':', j->f);
    j->after_key = 1;
}

void json_str(json *j, const char *s, size_t len)
{
    value_begins(j);
    cli_put_json(j->f, s, len);
}

void json_cstr(json *j, const char *s)
{
    json_str(j, s, strlen(s));
}

void json_u64(json *j, uint64_t v)
{
    value_begins(j);
    fprintf(j->f, "%" PRIu64, v);
}

void json_signed(json *j, int negative, uint64_t magnitude)
{
    value_begins(j);
    fprintf(j->f, "%s%" PRIu64, negative && magnitude ? "-" : "", magnitude);
}

void json_bool(json *j, int v)
{
    value_begins(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(json *j)
{
    value_begins(j);
    fputs("null", j->f);
}
