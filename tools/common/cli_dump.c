/* cli_dump.c -- open a heapfmt dump for reading, from a path or "-". */
#include <errno.h>
#include <string.h>

#include "cli_dump.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"

int cli_dump_open(cli_dump *d, const char *path,
                  const heapfmt_reader_options *opt)
{
    d->path = path;
    d->name = cli_input_name(path);
    d->fd = -1;
    d->reader = NULL;
    memset(&d->undef, 0, sizeof d->undef);
    if (cli_open_input(path, &d->fd) != 0)
        return CLI_EXIT_ERROR;
    errno = 0;
    int rc = heapfmt_reader_open_fd(&d->reader, opt, d->fd);
    if (rc != HEAPFMT_OK) {
        if (d->reader != NULL)
            cli_dump_error(d, rc);
        else if (rc == HEAPFMT_E_NOMEM)
            cli_error(d->name, "%s", heapfmt_strerror(rc));
        else
            cli_error(d->name, "%s",
                      errno != 0 ? strerror(errno) : heapfmt_strerror(rc));
        cli_dump_close(d);
        return cli_dump_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

void cli_dump_close(cli_dump *d)
{
    heapfmt_reader_free(d->reader);
    d->reader = NULL;
    cli_close_input(d->fd);
    d->fd = -1;
}

void cli_dump_error(const cli_dump *d, int status)
{
    const heapfmt_error *e =
        d->reader != NULL ? heapfmt_reader_error(d->reader) : NULL;
    if (e != NULL && e->code == status && e->message[0] != '\0')
        cli_error(d->name, "%s", e->message);
    else
        cli_error(d->name, "%s", heapfmt_strerror(status));
}

int cli_dump_exit_code(int status)
{
    return status == HEAPFMT_E_TRUNCATED ? CLI_EXIT_INCOMPLETE
                                         : CLI_EXIT_ERROR;
}
