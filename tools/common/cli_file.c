/* cli_file.c -- the files a tool reads and writes, "-" for stdin and
 * stdout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* ---- the temporary's removal on a signal ---- */

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

static char armed_name[PATH_MAX]; /* the temporary to remove */
static volatile sig_atomic_t armed;
static struct sigaction saved[NSIGNALS];
static unsigned char installed[NSIGNALS];

static void on_signal(int sig)
{
    if (armed)
        unlink(armed_name); /* async-signal-safe */
    armed = 0;
    signal(sig, SIG_DFL);
    raise(sig); /* ends the tool as the signal would have */
}

/* Removes the temporary if a signal ends the tool. A signal the caller
 * ignores (nohup) or handles stays as it is. */
static void arm(const char *tmp)
{
    size_t len = strlen(tmp);
    if (len >= sizeof armed_name)
        return;
    memcpy(armed_name, tmp, len + 1);
    armed = 1;
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 ||
            old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(cleanup_signals[i], &sa, &saved[i]) == 0)
            installed[i] = 1;
    }
}

static void disarm(void)
{
    armed = 0;
    for (size_t i = 0; i < NSIGNALS; i++) {
        if (installed[i])
            sigaction(cleanup_signals[i], &saved[i], NULL);
        installed[i] = 0;
    }
}

/* ---- never the input ---- */

/* The regular file an input names, if any. */
static int input_stat(const char *input, struct stat *st)
{
    int rc = is_dash(input) ? fstat(STDIN_FILENO, st) : stat(input, st);
    return rc == 0 && S_ISREG(st->st_mode) ? 0 : -1;
}

int cli_output_check(const char *path, const char *const *inputs,
                     size_t ninputs)
{
    struct stat out;
    if (is_dash(path) || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
        return 0; /* nothing there yet, or nothing a write destroys */
    for (size_t i = 0; i < ninputs; i++) {
        struct stat in;
        if (input_stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
            in.st_ino == out.st_ino) {
            if (strcmp(inputs[i], path) == 0)
                cli_error(path, "is the input too; not overwriting it");
            else
                cli_error(path, "is the same file as the input %s; not "
                                "overwriting it",
                          cli_input_name(inputs[i]));
            return -1;
        }
    }
    return 0;
}

static void refuse_terminal(const char *path)
{
    cli_error(cli_output_name(path),
              "refusing to write a binary dump to a terminal "
              "(use -o FILE or redirect the output)");
}

int cli_output_open(cli_output *o, const char *path, int binary,
                    const char *const *inputs, size_t ninputs)
{
    o->path = path;
    o->fd = -1;
    o->file.fd = -1;
    o->file.temp = 0;
    if (is_dash(path)) {
        if (binary && isatty(STDOUT_FILENO)) {
            refuse_terminal(path);
            return -1;
        }
        o->fd = STDOUT_FILENO;
        return 0;
    }
    if (cli_output_check(path, inputs, ninputs) != 0)
        return -1;
    int rc;
    do /* a FIFO's open waits for a reader: a signal may come meanwhile */
        rc = hf_outfile_open(&o->file, path);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        cli_error(path, "%s", strerror(errno));
        return -1;
    }
    o->fd = o->file.fd;
    if (binary && isatty(o->fd)) {
        refuse_terminal(path);
        hf_outfile_discard(&o->file);
        o->fd = -1;
        return -1;
    }
    if (o->file.temp)
        arm(o->file.tmp);
    return 0;
}

/* After a failure, what was written directly: a regular file is
 * removed (it was truncated anyway), never a device such as /dev/null. */
static void remove_direct(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        unlink(path);
}

int cli_output_commit(cli_output *o)
{
    if (o->fd == STDOUT_FILENO || o->fd < 0)
        return 0;
    int temp = o->file.temp;
    int rc = hf_outfile_commit(&o->file);
    int e = errno;
    disarm();
    o->fd = -1;
    if (rc != 0) {
        cli_error(o->path, "%s", strerror(e));
        if (!temp)
            remove_direct(o->path);
        return -1;
    }
    return 0;
}

void cli_output_discard(cli_output *o)
{
    if (o->fd == STDOUT_FILENO || o->fd < 0)
        return;
    int temp = o->file.temp;
    hf_outfile_discard(&o->file);
    disarm();
    o->fd = -1;
    if (!temp)
        remove_direct(o->path);
}

int cli_output_end(cli_output *o, int code)
{
    if (code == CLI_EXIT_ERROR) {
        cli_output_discard(o);
        return code;
    }
    return cli_output_commit(o) == 0 ? code : CLI_EXIT_ERROR;
}

int cli_output_write_all(const char *path, const char *const *inputs,
                         size_t ninputs, const void *data, size_t len)
{
    cli_output o;
    if (cli_output_open(&o, path, 0, inputs, ninputs) != 0)
        return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(o.fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            cli_error(cli_output_name(path), "%s",
                      strerror(n == 0 ? EIO : errno));
            cli_output_discard(&o);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return cli_output_commit(&o);
}
