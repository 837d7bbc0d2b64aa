/* notes.c -- the warnings of a diff. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"

void notes_init(notes *w, const diff_mem *mem)
{
    memset(w, 0, sizeof *w);
    w->mem = mem;
}

void notes_free(notes *w)
{
    for (size_t i = 0; i < w->n; i++)
        diff_mem_free(w->mem, w->v[i].text);
    diff_mem_free(w->mem, w->v);
    w->v = NULL;
    w->n = w->cap = 0;
}

int notes_add(notes *w, const char *file, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = strlen(buf);
    char *copy = diff_mem_alloc(w->mem, len + 1);
    if (copy == NULL ||
        diff_mem_reserve(w->mem, (void **)&w->v, &w->cap, w->n + 1,
                    sizeof *w->v) != 0) {
        diff_mem_free(w->mem, copy);
        return -1;
    }
    memcpy(copy, buf, len + 1);
    w->v[w->n++] = (note){file, copy};
    return 0;
}

void notes_say(const notes *w, an_ctx *c)
{
    for (size_t i = 0; i < w->n; i++)
        an_warn(c, w->v[i].file, "%s", w->v[i].text);
}
