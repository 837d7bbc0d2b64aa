/* cli_file.c -- opening input and output files, "-" for stdin/stdout. */
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

static void refuse_terminal(const char *path)
{
    cli_error(cli_output_name(path),
              "refusing to write a binary dump to a terminal "
              "(use -o FILE or redirect the output)");
}

int cli_open_output(const char *path, int binary, int *fd)
{
    if (is_dash(path)) {
        if (binary && isatty(STDOUT_FILENO)) {
            refuse_terminal(path);
            return -1;
        }
        *fd = STDOUT_FILENO;
        return 0;
    }
    int f;
    do
        f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    while (f < 0 && errno == EINTR);
    if (f < 0) {
        cli_error(path, "%s", strerror(errno));
        return -1;
    }
    if (binary && isatty(f)) {
        refuse_terminal(path);
        close(f);
        return -1;
    }
    *fd = f;
    return 0;
}

int cli_close_output(const char *path, int fd)
{
    if (fd == STDOUT_FILENO)
        return 0;
    if (close(fd) != 0 && errno != EINTR) {
        cli_error(cli_output_name(path), "%s", strerror(errno));
        return -1;
    }
    return 0;
}

void cli_remove_output(const char *path)
{
    if (!is_dash(path)) {
        struct stat st;
        /* Only regular files: never unlink a device such as /dev/null. */
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
    }
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
