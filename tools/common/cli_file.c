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

int cli_open_input_quiet(const char *path, int *fd)
{
    if (is_dash(path)) {
        *fd = STDIN_FILENO;
        return 0;
    }
    int f;
    do
        f = open(path, O_RDONLY | O_CLOEXEC);
    while (f < 0 && errno == EINTR);
    if (f < 0)
        return errno;
    struct stat st;
    if (fstat(f, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(f);
        return EISDIR;
    }
    *fd = f;
    return 0;
}

int cli_open_input(const char *path, int *fd)
{
    int err = cli_open_input_quiet(path, fd);
    if (err != 0) {
        cli_error(path, "%s", strerror(err));
        return -1;
    }
    return 0;
}

int cli_check_operands(const char *const *ops, size_t n,
                       const char *empty_msg, const char *stdin_msg)
{
    size_t stdin_uses = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i][0] == '\0') {
            cli_usage_error("%s", empty_msg);
            return -1;
        }
        stdin_uses += strcmp(ops[i], "-") == 0;
    }
    if (stdin_msg != NULL && stdin_uses > 1) {
        cli_usage_error("%s", stdin_msg);
        return -1;
    }
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
