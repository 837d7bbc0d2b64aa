/* cli_file.c -- opening input files, "-" for stdin. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static int is_dash(const char *path)
{
    return strcmp(path, "-") == 0;
}

const char *cli_input_name(const char *path)
{
    return is_dash(path) ? "(stdin)" : path;
}

const char *cli_output_name(const char *path)
{
    return is_dash(path) ? "(stdout)" : path;
}

int cli_open_input(const char *path, int *fd)
{
    if (is_dash(path)) {
        *fd = STDIN_FILENO;
        return 0;
    }
    int f;
    do
        f = open(path, O_RDONLY | O_CLOEXEC);
    while (f < 0 && errno == EINTR);
    if (f < 0) {
        cli_error(path, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(f, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(path, "%s", strerror(EISDIR));
        close(f);
        return -1;
    }
    *fd = f;
    return 0;
}

void cli_close_input(int fd)
{
    if (fd >= 0 && fd != STDIN_FILENO)
        close(fd);
}

int cli_finish_stdout(int code)
{
    int err = 0;
    if (fflush(stdout) != 0)
        err = errno;
    else if (ferror(stdout))
        err = EIO; /* an earlier write failed; its errno is gone */
    if (err != 0) {
        cli_error(NULL, "write error: %s", strerror(err));
        return CLI_EXIT_ERROR;
    }
    return code;
}
