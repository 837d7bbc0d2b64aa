/* status.c -- the engines' one error setter, and their warning and
 * progress hooks (status.h). */
#include <stdio.h>

#include "status.h"

static void say(an_ctx *c, const char *file, enum an_say kind,
                const char *fmt, va_list ap)
{
    if (c != NULL && c->warn != NULL)
        c->warn(c->user, file, kind, fmt, ap);
}

int an_fail(an_ctx *c, int status, const char *file, const char *fmt, ...)
{
    if (c == NULL)
        return status;
    va_list ap;
    va_start(ap, fmt);
    if (status == AN_INCOMPLETE) {
        say(c, file, AN_SAY_ERROR, fmt, ap);
    } else {
        c->status = status;
        c->file = file;
        vsnprintf(c->message, sizeof c->message, fmt, ap);
    }
    va_end(ap);
    return status;
}

void an_clear(an_ctx *c)
{
    if (c != NULL) {
        c->status = AN_OK;
        c->file = NULL;
        c->message[0] = '\0';
    }
}

int an_no_memory(an_ctx *c, const char *file)
{
    return an_fail(c, AN_ERROR, file, "out of memory");
}

void an_warn(an_ctx *c, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, file, AN_SAY_WARNING, fmt, ap);
    va_end(ap);
}

void an_note(an_ctx *c, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, file, AN_SAY_NOTE, fmt, ap);
    va_end(ap);
}

void an_progress_begin(an_ctx *c, const char *file, uint64_t total)
{
    if (c != NULL && c->progress != NULL)
        c->progress->begin(c->user, file, total);
}

void an_progress_tick(an_ctx *c, uint64_t done, uint64_t objects)
{
    if (c != NULL && c->progress != NULL)
        c->progress->tick(c->user, done, objects);
}

void an_progress_end(an_ctx *c)
{
    if (c != NULL && c->progress != NULL)
        c->progress->end(c->user);
}
