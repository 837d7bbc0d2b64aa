/* cli_names.c -- readable, stable names for classes. */
#include <stdio.h>
#include <string.h>

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
