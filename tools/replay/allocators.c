/* allocators.c -- allocator specs, and a replay under each in a child. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "allocators.h"
#include "cli_installed.h"
#include "cli_msg.h"
#include "run.h"

extern char **environ;

static const struct known {
    const char *name, *soname;
} known[] = {
    {"glibc", NULL},
    {"jemalloc", "libjemalloc.so.2"},
    {"tcmalloc", "libtcmalloc_minimal.so.4"},
    {"mimalloc", "libmimalloc.so.2"},
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* Whether p (not past end) begins VAR=: a name of letters, digits and
 * '_' not starting with a digit. */
static int starts_setting(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && (*q == '_' || (*q >= 'A' && *q <= 'Z') ||
                       (*q >= 'a' && *q <= 'z') ||
                       (q > p && *q >= '0' && *q <= '9')))
        q++;
    return q > p && q < end && *q == '=';
}

/* Whether the text after a ',' begins another allocator (a name of the
 * four, or a path), so that a ',' inside a setting (MALLOC_CONF's list)
 * stays there. */
static int starts_allocator(const char *p)
{
    if (*p == '/' || *p == '.')
        return 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t n = strlen(known[i].name);
        if (strncmp(p, known[i].name, n) == 0 &&
            (p[n] == 0 || p[n] == ',' || p[n] == ':'))
            return 1;
    }
    return 0;
}

static int parse_one(const char *s, size_t len, alloc_spec *a)
{
    memset(a, 0, sizeof *a);
    if ((a->label = dup_n(s, len)) == NULL)
        return -1;
    const char *colon = memchr(s, ':', len);
    size_t nlen = colon ? (size_t)(colon - s) : len;
    char *name = dup_n(s, nlen);
    if (name == NULL)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i].name) == 0) {
            a->known = 1;
            a->preload = known[i].soname ? strdup(known[i].soname) : NULL;
            a->expect = strdup(known[i].soname ? known[i].soname : "libc.so");
        }
    if (!a->known) {
        struct stat st;
        char real[PATH_MAX];
        if (strchr(name, '/') == NULL) {
            cli_usage_error("--allocator: '%s' is not glibc, jemalloc, "
                            "tcmalloc, mimalloc or the path of a shared "
                            "object", name);
            rc = -2;
        } else if (stat(name, &st) != 0 || !S_ISREG(st.st_mode) ||
                   realpath(name, real) == NULL) {
            cli_usage_error("--allocator: %s: %s", name,
                            errno && !S_ISDIR(st.st_mode) ? strerror(errno)
                                                          : "not a file");
            rc = -2;
        } else {
            a->preload = strdup(real);
            a->expect = strdup(real);
        }
    }
    free(name);
    if (rc != 0)
        return rc;
    if (a->expect == NULL)
        return -1;
    /* :VAR=VALUE... (a value may hold ':', as jemalloc's MALLOC_CONF
     * does: a ':' ends it only before another VAR=) */
    const char *p = colon ? colon + 1 : NULL, *end = s + len;
    while (p != NULL && p <= end) {
        const char *next = p;
        while ((next = memchr(next, ':', (size_t)(end - next))) != NULL &&
               !starts_setting(next + 1, end))
            next++;
        size_t n = next ? (size_t)(next - p) : (size_t)(end - p);
        const char *eq = memchr(p, '=', n);
        if (eq == NULL || eq == p) {
            cli_usage_error("--allocator: '%.*s' in '%s' is not VAR=VALUE",
                            (int)n, p, a->label);
            return -2;
        }
        char **env = realloc(a->env, (a->nenv + 1) * sizeof *env);
        if (env == NULL)
            return -1;
        a->env = env;
        if ((a->env[a->nenv] = dup_n(p, n)) == NULL)
            return -1;
        a->nenv++;
        p = next ? next + 1 : NULL;
    }
    return 0;
}

int alloc_parse(const char *list, alloc_spec **specs, size_t *n)
{
    *specs = NULL;
    *n = 0;
    const char *p = list;
    for (;;) {
        const char *comma = p;
        while ((comma = strchr(comma, ',')) != NULL &&
               !starts_allocator(comma + 1) && comma[1] != 0 && comma[1] != ',')
            comma++;
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            cli_usage_error("--allocator: an empty name in '%s'", list);
            alloc_free(*specs, *n);
            return -1;
        }
        alloc_spec *v = realloc(*specs, (*n + 1) * sizeof *v);
        if (v == NULL) {
            cli_error(NULL, "out of memory");
            alloc_free(*specs, *n);
            return -1;
        }
        *specs = v;
        int rc = parse_one(p, len, &v[*n]);
        (*n)++;
        if (rc != 0) {
            if (rc == -1)
                cli_error(NULL, "out of memory");
            alloc_free(*specs, *n);
            *specs = NULL;
            *n = 0;
            return -1;
        }
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

void alloc_clear(alloc_spec *a)
{
    free(a->label);
    free(a->preload);
    free(a->expect);
    for (size_t k = 0; k < a->nenv; k++)
        free(a->env[k]);
    free(a->env);
    memset(a, 0, sizeof *a);
}

void alloc_free(alloc_spec *specs, size_t n)
{
    for (size_t i = 0; specs && i < n; i++)
        alloc_clear(&specs[i]);
    free(specs);
}

/* ---- the child ---- */

/* The replay program: HEAPFMT_REPLAY_CHILD when set, else
 * BINDIR/../lib/heapfmt-replay-child beside this program. */
static int child_exe(char *buf, size_t len)
{
    if (cli_installed_path("HEAPFMT_REPLAY_CHILD",
                           "../lib/heapfmt-replay-child", buf, len) != 0)
        return -1;
    return access(buf, X_OK);
}

/* In the forked child: the environment of the allocator, the descriptors
 * at 3 and 4, then heapfmt-replay-child. Never returns. */
/* dup2 to a number, or, when the descriptor has it already, only its
 * close-on-exec flag cleared. */
static int move_fd(int fd, int to)
{
    if (fd == to)
        return fcntl(fd, F_SETFD, 0);
    return dup2(fd, to) < 0 ? -1 : 0;
}

static void exec_child(const alloc_spec *a, int prog_fd, int out_fd,
                       int err_fd, const char *exe, const char *max_rss,
                       int probe)
{
    /* out to 4 first: a descriptor at 3 or 2 must not be overwritten
     * before it moves (the pipes were made after the program file, so
     * none of them is below the program's) */
    if (out_fd == 3 || out_fd == 2 || err_fd == 3 || err_fd == 4) {
        out_fd = fcntl(out_fd, F_DUPFD, 10);
        err_fd = fcntl(err_fd, F_DUPFD, 10);
        if (out_fd < 0 || err_fd < 0)
            _exit(127);
    }
    if (prog_fd >= 0 && prog_fd != 3 && prog_fd < 5) {
        prog_fd = fcntl(prog_fd, F_DUPFD, 10);
        if (prog_fd < 0)
            _exit(127);
    }
    if (move_fd(out_fd, 4) != 0 || (prog_fd >= 0 && move_fd(prog_fd, 3) != 0) ||
        dup2(err_fd, 2) < 0)
        _exit(127);
    if (a->preload)
        setenv("LD_PRELOAD", a->preload, 1);
    else
        unsetenv("LD_PRELOAD");
    /* a tracker the user runs heapfmt-replay under is not the child's */
    unsetenv("HEAPFMT_MALLOC_RECORD");
    setenv(RUN_EXPECT_ENV, a->expect, 1);
    for (size_t i = 0; i < a->nenv; i++)
        putenv(a->env[i]);
    char *argv[] = {"heapfmt-replay-child", probe ? "probe" : "3", "4",
                    (char *)max_rss, NULL};
    execve(exe, argv, environ);
    _exit(127);
}

typedef struct lines {
    char buf[4096];
    size_t len;
} lines;

static void parse_line(char *l, size_t nmarks, alloc_result *r)
{
    unsigned long long a, b, c, d, e, f, g;
    long long sl, mk;
    switch (l[0]) {
    case 'M':
        if (sscanf(l, "M %lld %llu %lld %llu %llu %llu", &mk, &a, &sl, &b, &c,
                   &d) == 6 &&
            mk >= 0 && (uint64_t)mk < nmarks) {
            mark_result *m = &r->marks[mk];
            if (!m->seen)
                r->marks_seen++;
            *m = (mark_result){1, a, b, c, d, sl};
        }
        break;
    case 'E':
        if (sscanf(l, "E %llu %lld %llu %llu %llu %llu %llu %llu", &a, &sl, &b,
                   &c, &d, &e, &f, &g) == 8) {
            r->ended = 1;
            r->rss = a;
            r->live = sl;
            r->peak = b;
            r->alloc_ns = c;
            r->calls = d;
            r->failed = e;
            r->substituted = f;
            r->elapsed_ns = g;
        }
        break;
    case 'X': {
        const char *why = strchr(l, ' ');
        why = why ? why + 1 : "";
        const char *text = strchr(why, ' ');
        snprintf(r->why, sizeof r->why, "%s", text ? text + 1 : why);
        if (strncmp(why, "not-a-malloc", 12) == 0)
            r->status = RUN_NOT_MALLOC;
        else if (strncmp(why, "rss-limit", 9) == 0)
            r->status = RUN_OVER_LIMIT;
        else
            r->status = RUN_FAILED;
        break;
    }
    default:
        break;
    }
}

static void take_lines(lines *ls, size_t nmarks, alloc_result *r)
{
    char *nl;
    while ((nl = memchr(ls->buf, '\n', ls->len)) != NULL) {
        *nl = 0;
        parse_line(ls->buf, nmarks, r);
        size_t used = (size_t)(nl - ls->buf) + 1;
        memmove(ls->buf, nl + 1, ls->len - used);
        ls->len -= used;
    }
    if (ls->len == sizeof ls->buf) /* a line longer than any the child writes */
        ls->len = 0;
}

/* The first line of what the child printed on stderr (the loader's
 * message when a library cannot be preloaded). */
static void first_line(const char *err, size_t n, char *out, size_t len)
{
    size_t k = 0;
    while (k < n && err[k] != '\n')
        k++;
    snprintf(out, len, "%.*s", (int)k, err);
}

static int run_child_process(const alloc_spec *a, int prog_fd,
                             const char *max_rss, unsigned timeout,
                             int probe, size_t nmarks, alloc_result *r,
                             char *err, size_t *nerr, size_t errcap,
                             int *wstatus)
{
    char exe[PATH_MAX] = "";
    if (child_exe(exe, sizeof exe) != 0) {
        cli_error(NULL, "%s: %s (the replay program, installed beside "
                  "the malloc tracker; HEAPFMT_REPLAY_CHILD names another)",
                  exe[0] ? exe : "heapfmt-replay-child", strerror(errno));
        return -1;
    }
    int out[2], errp[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        cli_error(NULL, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(NULL, "fork: %s", strerror(errno));
        close(out[0]);
        close(out[1]);
        close(errp[0]);
        close(errp[1]);
        return -1;
    }
    if (pid == 0)
        exec_child(a, prog_fd, out[1], errp[1], exe, max_rss, probe);
    close(out[1]);
    close(errp[1]);
    lines ls;
    ls.len = 0;
    struct pollfd pf[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int open_fds = 2;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int timed_out = 0;
    while (open_fds > 0) {
        int wait_ms = -1;
        if (timeout) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long left = (long long)timeout * 1000 -
                             ((now.tv_sec - t0.tv_sec) * 1000 +
                              (now.tv_nsec - t0.tv_nsec) / 1000000);
            if (left <= 0) {
                timed_out = 1;
                kill(pid, SIGKILL);
                break;
            }
            wait_ms = left > 1000 ? 1000 : (int)left;
        }
        int n = poll(pf, 2, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (pf[0].revents) {
            ssize_t k = read(out[0], ls.buf + ls.len, sizeof ls.buf - ls.len);
            if (k > 0) {
                ls.len += (size_t)k;
                take_lines(&ls, nmarks, r);
            } else if (k == 0 || errno != EINTR) {
                pf[0].fd = -1;
                open_fds--;
            }
        }
        if (pf[1].revents) {
            char tmp[1024];
            ssize_t k = read(errp[0], tmp, sizeof tmp);
            if (k > 0) {
                size_t keep = (size_t)k < errcap - *nerr ? (size_t)k : errcap - *nerr;
                memcpy(err + *nerr, tmp, keep);
                *nerr += keep;
            } else if (k == 0 || errno != EINTR) {
                pf[1].fd = -1;
                open_fds--;
            }
        }
    }
    close(out[0]);
    close(errp[0]);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    if (timed_out) {
        r->status = RUN_TIMEOUT;
        snprintf(r->why, sizeof r->why, "stopped after %u s (--timeout)",
                 timeout);
    }
    return 0;
}

int alloc_installed(const alloc_spec *a)
{
    alloc_result r;
    memset(&r, 0, sizeof r);
    char err[1024];
    size_t nerr = 0;
    int ws;
    if (run_child_process(a, -1, "0", 30, 1, 0, &r, err, &nerr, sizeof err,
                          &ws) != 0)
        return 0;
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

int alloc_run(const alloc_spec *a, const compiled *c, size_t nmarks,
              const run_opts *o, alloc_result *r)
{
    memset(r, 0, sizeof *r);
    r->marks = calloc(nmarks ? nmarks : 1, sizeof *r->marks);
    if (r->marks == NULL) {
        cli_error(NULL, "out of memory");
        return -1;
    }
    char max_rss[32];
    snprintf(max_rss, sizeof max_rss, "%llu", (unsigned long long)o->max_rss);
    char err[8192];
    size_t nerr = 0;
    int ws = 0;
    r->status = RUN_OK;
    if (run_child_process(a, c->prog.fd, max_rss, o->timeout, 0, nmarks, r,
                          err, &nerr, sizeof err, &ws) != 0)
        return -1;
    if (r->status == RUN_TIMEOUT)
        return 0;
    if (WIFSIGNALED(ws)) {
        r->status = RUN_CRASHED;
        int sig = WTERMSIG(ws);
        char line[256] = "";
        first_line(err, nerr, line, sizeof line);
        snprintf(r->why, sizeof r->why, "%s (signal %d)%s%s",
                 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", sig,
                 line[0] ? "; " : "", line);
        return 0;
    }
    int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    if (code == RUN_EXIT_OK && r->ended && r->status == RUN_OK)
        return 0;
    if (code == RUN_EXIT_NOT_MALLOC || r->status == RUN_NOT_MALLOC) {
        /* the loader's complaint, when it could not load the library */
        char line[256] = "";
        first_line(err, nerr, line, sizeof line);
        const char *lib = a->preload ? a->preload : a->label;
        if (strstr(line, "cannot be preloaded") != NULL && a->known) {
            r->status = RUN_MISSING;
            snprintf(r->why, sizeof r->why, "%s is not installed", lib);
        } else if (strstr(line, "cannot be preloaded") != NULL) {
            r->status = RUN_NOT_MALLOC;
            snprintf(r->why, sizeof r->why, "%s cannot be loaded", lib);
        } else if (r->why[0] == 0 || strstr(r->why, "comes from") != NULL) {
            r->status = RUN_NOT_MALLOC;
            snprintf(r->why, sizeof r->why, "%s defines no malloc", lib);
        } else {
            r->status = RUN_NOT_MALLOC; /* its own words: free, realloc */
        }
        return 0;
    }
    if (r->status == RUN_OK) {
        r->status = RUN_FAILED;
        char line[256] = "";
        first_line(err, nerr, line, sizeof line);
        snprintf(r->why, sizeof r->why, "the replay ended with status %d%s%s",
                 code, line[0] ? ": " : "", line);
    }
    return 0;
}

void alloc_result_free(alloc_result *r)
{
    free(r->marks);
    r->marks = NULL;
}
