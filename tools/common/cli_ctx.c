/* cli_ctx.c -- an engine's context the tools' way. */
#include <stddef.h>
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_msg.h"

static void say(void *user, const char *file, enum an_say kind,
                const char *fmt, va_list ap)
{
    (void)user;
    if (kind == AN_SAY_NOTE)
        cli_vnote(file, fmt, ap);
    else if (kind == AN_SAY_ERROR)
        cli_verror(file, fmt, ap);
    else
        cli_vwarn(file, fmt, ap);
}

static void begin(void *user, const char *file, uint64_t total)
{
    cli_progress_begin(&((cli_ctx *)user)->progress, file, total);
}

static void tick(void *user, uint64_t done, uint64_t objects)
{
    cli_progress_tick(&((cli_ctx *)user)->progress, done, objects);
}

static void end(void *user)
{
    cli_progress_end(&((cli_ctx *)user)->progress);
}

static const an_progress_hooks progress_hooks = {begin, tick, end};

an_ctx *cli_ctx_init(cli_ctx *c)
{
    memset(c, 0, sizeof *c); /* the progress line starts disabled */
    c->an.warn = say;
    c->an.progress = &progress_hooks;
    c->an.user = c;
    return &c->an;
}

int cli_exit_of(int status)
{
    switch (status) {
    case AN_OK:
        return CLI_EXIT_OK;
    case AN_INCOMPLETE:
        return CLI_EXIT_INCOMPLETE;
    default:
        return CLI_EXIT_ERROR;
    }
}

int cli_an_exit(an_ctx *an, int status)
{
    if (status == AN_ERROR && an->status == AN_ERROR) {
        cli_error(an->file, "%s", an->message);
        an->status = AN_OK; /* said: a later failure's message is its own */
        an->message[0] = '\0';
    }
    return cli_exit_of(status);
}

int cli_ctx_exit(cli_ctx *c, int status)
{
    return cli_an_exit(&c->an, status);
}
