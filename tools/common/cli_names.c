/* cli_names.c -- readable, stable names for classes and allocation sites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_names.h"

const char *cli_placeholder(cli_name *out, uint32_t index, uint64_t id,
                            uint64_t flags)
{
    if (index == 0)
        snprintf(out->s, sizeof out->s, "(no class)");
    else if (id == 0)
        snprintf(out->s, sizeof out->s, "#<Class:index %u>", (unsigned)index);
    else
        snprintf(out->s, sizeof out->s, "#<%s:0x%016llx>",
                 (flags & HEAPFMT_CF_MODULE) ? "Module" : "Class",
                 (unsigned long long)id);
    return out->s;
}

const char *cli_class_name(const heapfmt_rclass *c, cli_name *buf,
                           size_t *len)
{
    if (c->name != NULL && c->name->len > 0 && !c->name->undefined) {
        *len = c->name->len;
        return c->name->ptr;
    }
    const char *s = cli_placeholder(buf, c->index, c->undefined ? 0 : c->id,
                                    c->flags);
    *len = strlen(s);
    return s;
}

const char *cli_summary_name(const heapfmt_class_summary *s, cli_name *buf,
                             size_t *len)
{
    if (s->name != NULL && s->name_len > 0) {
        *len = s->name_len;
        return s->name;
    }
    const char *p = cli_placeholder(buf, s->index, s->id, s->flags);
    *len = strlen(p);
    return p;
}

const char *cli_name_cut(const char *s, size_t len, cli_name *buf,
                         size_t *out_len)
{
    size_t fit = cli_escaped_prefix(s, len, CLI_NAME_MAX + CLI_CUT_SLACK);
    if (fit == len) {
        *out_len = len;
        return s;
    }
    size_t keep = cli_escaped_prefix(s, fit, CLI_NAME_MAX);
    memcpy(buf->s, s, keep);
    int n = snprintf(buf->s + keep, sizeof buf->s - keep,
                     CLI_CUT_MARK "%zu bytes)", len - keep);
    *out_len = keep + (size_t)n;
    return buf->s;
}

const char *cli_class_shown(const heapfmt_rclass *c, cli_name *buf,
                            size_t *len)
{
    const char *s = cli_class_name(c, buf, len);
    return cli_name_cut(s, *len, buf, len);
}

const char *cli_summary_shown(const heapfmt_class_summary *s, cli_name *buf,
                              size_t *len)
{
    const char *p = cli_summary_name(s, buf, len);
    return cli_name_cut(p, *len, buf, len);
}

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
