/* cli_ctx.h -- an engine's context (analysis/status.h) the tools' way.
 *
 * A front end makes one, passes cli_ctx_an(&c) down to the engine, and
 * turns what the engine returns into "prog: file: message" on stderr and
 * an exit code of cli_exit.h (cli_ctx_exit). Warnings and notes go to
 * stderr as they arise (cli_warn, cli_vnote), the progress line to a
 * terminal (cli_progress.h). */
#ifndef CLI_CTX_H
#define CLI_CTX_H

#include "cli_progress.h"
#include "status.h"

typedef struct cli_ctx {
    an_ctx an;
    cli_progress progress;
} cli_ctx;

/* Sets up c with the tools' hooks; returns the context for the engine. */
an_ctx *cli_ctx_init(cli_ctx *c);

/* The exit code of a status: CLI_EXIT_OK, CLI_EXIT_INCOMPLETE or
 * CLI_EXIT_ERROR. */
int cli_exit_of(int status);

/* Prints the failure the engine set on c when status is AN_ERROR (as
 * "prog: file: message"; then forgets it), and returns status's exit
 * code. */
int cli_ctx_exit(cli_ctx *c, int status);

/* The same for a bare an_ctx made by cli_ctx_init. */
int cli_an_exit(an_ctx *an, int status);

#endif /* CLI_CTX_H */
