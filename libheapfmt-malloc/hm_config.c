/* hm_config.c -- the tracker's settings, from HEAPFMT_MALLOC_* variables
 * (the launcher, tools/malloc, sets them from its options), and the small
 * services every part uses: raw memory and the log line. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hm.h"

hm_config hm_cfg;

static const char *const kind_names[HM_KIND_COUNT] = {
    "malloc", "calloc", "realloc", "reallocarray", "posix_memalign",
    "aligned_alloc", "memalign", "valloc", "pvalloc"};

const char *hm_kind_name(hm_kind k) {
    return (unsigned)k < HM_KIND_COUNT ? kind_names[k] : "unknown";
}

void *hm_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void hm_unmap(void *p, size_t bytes) {
    if (p != NULL)
        munmap(p, bytes);
}

void hm_log(const char *fmt, ...) {
    if (!hm_cfg.log)
        return;
    char line[512];
    int n = snprintf(line, sizeof line, "heapfmt-malloc[%ld]: ", (long)getpid());
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* one write(2): stdio would allocate, and lines must not interleave;
     * only to the standard error the program started with */
    hm_stderr_write(line, (size_t)n);
}

/* A whole number in [lo, hi], or -1. */
static long long number(const char *s, long long lo, long long hi) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != 0 || v < lo || v > hi)
        return -1;
    return v;
}

/* Every signal by name, and why it cannot be the dump signal. The tracker's
 * handler replaces the program's disposition of its signal, and each of
 * these has a meaning that the program, the kernel, the C library or the
 * terminal relies on; only the user signals and the real-time ones have
 * none until the program gives them one. */
#define WHY_FAULT "carries faults: a program that faults would fault again forever"
#define WHY_ENDS "ends the program: the tracker's handler would keep it running"
#define WHY_JOB "is job control's: the terminal and the shell send it"
#define WHY_TIMER "is the program's timers' (alarm, setitimer, profilers)"
#define WHY_LIMIT "is raised by resource limits (a dump itself may raise SIGXFSZ)"
static const struct signal_rule {
    const char *name;
    int sig;
    const char *why; /* NULL: may be the dump signal */
} signal_rules[] = {
    {"HUP", SIGHUP, "is the program's (hangup, or a daemon's reload): "
                    "the tracker's handler would replace its own"},
    {"INT", SIGINT, WHY_ENDS},
    {"QUIT", SIGQUIT, WHY_ENDS},
    {"ILL", SIGILL, WHY_FAULT},
    {"TRAP", SIGTRAP, WHY_FAULT},
    {"ABRT", SIGABRT, "is raised by abort(): the program must die of it"},
    {"IOT", SIGIOT, "is raised by abort(): the program must die of it"},
    {"BUS", SIGBUS, WHY_FAULT},
    {"FPE", SIGFPE, WHY_FAULT},
    {"KILL", SIGKILL, "cannot be caught"},
    {"USR1", SIGUSR1, NULL},
    {"SEGV", SIGSEGV, WHY_FAULT},
    {"USR2", SIGUSR2, NULL},
    {"PIPE", SIGPIPE, "is raised by every write to a closed pipe or socket"},
    {"ALRM", SIGALRM, WHY_TIMER},
    {"TERM", SIGTERM, WHY_ENDS},
#ifdef SIGSTKFLT
    {"STKFLT", SIGSTKFLT, "is reserved (coprocessor faults)"},
#endif
    {"CHLD", SIGCHLD, "tells the program that a child stopped or ended"},
    {"CLD", SIGCHLD, "tells the program that a child stopped or ended"},
    {"CONT", SIGCONT, WHY_JOB},
    {"STOP", SIGSTOP, "cannot be caught"},
    {"TSTP", SIGTSTP, WHY_JOB},
    {"TTIN", SIGTTIN, WHY_JOB},
    {"TTOU", SIGTTOU, WHY_JOB},
    {"URG", SIGURG, "comes with urgent socket data"},
    {"XCPU", SIGXCPU, WHY_LIMIT},
    {"XFSZ", SIGXFSZ, WHY_LIMIT},
    {"VTALRM", SIGVTALRM, WHY_TIMER},
    {"PROF", SIGPROF, WHY_TIMER},
    {"WINCH", SIGWINCH, "comes with every resize of the terminal"},
    {"IO", SIGIO, "comes with asynchronous I/O"},
    {"POLL", SIGPOLL, "comes with asynchronous I/O"},
#ifdef SIGPWR
    {"PWR", SIGPWR, "is the power supervisor's"},
#endif
    {"SYS", SIGSYS, WHY_FAULT},
};
#define NRULES (sizeof signal_rules / sizeof signal_rules[0])

int hm_parse_signal(const char *s) {
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    if (strcasecmp(s, "none") == 0 || strcmp(s, "0") == 0)
        return 0;
    for (size_t i = 0; i < NRULES; i++)
        if (strcasecmp(s, signal_rules[i].name) == 0)
            return signal_rules[i].sig;
    if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
        int max = s[4] == 'x' || s[4] == 'X';
        char sign = max ? '-' : '+';
        long long k = s[5] == 0 ? 0 : s[5] == sign ? number(s + 6, 0, 64) : -1;
        long long sig = max ? SIGRTMAX - k : SIGRTMIN + k;
        return k < 0 || sig < SIGRTMIN || sig > SIGRTMAX ? -1 : (int)sig;
    }
    long long v = number(s, 1, SIGRTMAX);
    return v < 0 ? -1 : (int)v;
}

const char *hm_signal_refused(int sig) {
    if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        return NULL;
    for (size_t i = 0; i < NRULES; i++)
        if (signal_rules[i].sig == sig)
            return signal_rules[i].why;
    if (sig > 0 && sig < SIGRTMIN) /* 32 and 33 in glibc */
        return "is reserved by the C library's threads (cancellation, set*id)";
    return "is not a signal";
}

void hm_signal_name(int sig, char *buf, size_t len) {
    for (size_t i = 0; i < NRULES; i++)
        if (signal_rules[i].sig == sig) {
            snprintf(buf, len, "SIG%s", signal_rules[i].name);
            return;
        }
    if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        snprintf(buf, len, sig == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+%d", sig - SIGRTMIN);
    else
        snprintf(buf, len, "signal %d", sig);
}

int hm_signal_explain(const char *s, char *msg, size_t len) {
    int sig = hm_parse_signal(s);
    if (sig < 0) {
        snprintf(msg, len, "'%s' is not a signal", s);
        return -1;
    }
    const char *why = sig == 0 ? NULL : hm_signal_refused(sig);
    if (why != NULL) {
        char name[32], num[16] = "";
        hm_signal_name(sig, name, sizeof name);
        if (strncmp(name, "SIG", 3) == 0)
            snprintf(num, sizeof num, " (%d)", sig);
        snprintf(msg, len, "%s%s %s; choose USR1, USR2 or RTMIN+N", name, num, why);
        return -1;
    }
    return sig;
}

static void bad(const char *var, const char *value) {
    hm_log("%s=%s is not valid; using the default", var, value);
}

/* The dump directory as an absolute path, fixed now: a daemon's chdir
 * must neither move its dumps nor lose them in a directory it cannot
 * write. When the working directory has no name (deleted, or longer than
 * the buffer) the directory stays relative, and says so in the log. */
static void resolve_dir(hm_config *c) {
    if (c->dir[0] == '/')
        return;
    char cwd[sizeof c->dir];
    if (getcwd(cwd, sizeof cwd) == NULL || cwd[0] != '/') {
        hm_log("the working directory has no name (%s); dumps follow it",
               strerror(errno));
        return;
    }
    char abs[sizeof c->dir];
    int n = strcmp(c->dir, ".") == 0
                ? snprintf(abs, sizeof abs, "%s", cwd)
                : snprintf(abs, sizeof abs, "%s%s%s", cwd,
                           cwd[1] != 0 ? "/" : "", c->dir);
    if (n > 0 && (size_t)n < sizeof abs)
        memcpy(c->dir, abs, (size_t)n + 1);
    else
        hm_log("%s/%s: path too long; dumps follow the working directory", cwd, c->dir);
}

static const char *from_env(const char *name, void *arg) {
    (void)arg;
    return getenv(name);
}

void hm_config_load(hm_config *c) {
    hm_config_load_with(c, from_env, NULL);
}

void hm_config_load_with(hm_config *c,
                         const char *(*get)(const char *name, void *arg),
                         void *arg) {
    const char *v;
    long long n;
    memset(c, 0, sizeof *c);
    c->mode = HM_MODE_SAMPLED;
    c->sample_bytes = 512 * 1024;
    c->depth = 32;
    c->signal = SIGRTMIN + HM_DEFAULT_SIGNAL_OFFSET;
    c->at_exit = 1;
    c->ruby = 1;
    c->level = 1;
    strcpy(c->dir, ".");
    strcpy(c->prefix, "heapfmt-malloc");
    if ((v = get("HEAPFMT_MALLOC_LOG", arg)) != NULL)
        c->log = strcmp(v, "1") == 0;
    if ((v = get("HEAPFMT_MALLOC_MODE", arg)) != NULL) {
        if (strcmp(v, "exact") == 0)
            c->mode = HM_MODE_EXACT;
        else if (strcmp(v, "sampled") != 0)
            bad("HEAPFMT_MALLOC_MODE", v);
    }
    if ((v = get("HEAPFMT_MALLOC_SAMPLE", arg)) != NULL) {
        if ((n = number(v, 1, (long long)1 << 40)) > 0)
            c->sample_bytes = (uint64_t)n;
        else
            bad("HEAPFMT_MALLOC_SAMPLE", v);
    }
    if ((v = get("HEAPFMT_MALLOC_DEPTH", arg)) != NULL) {
        if ((n = number(v, 1, HM_MAX_DEPTH)) > 0)
            c->depth = (unsigned)n;
        else
            bad("HEAPFMT_MALLOC_DEPTH", v);
    }
    if ((v = get("HEAPFMT_MALLOC_SIGNAL", arg)) != NULL) {
        char why[160];
        int s = hm_signal_explain(v, why, sizeof why);
        if (s >= 0)
            c->signal = s;
        else
            hm_log("HEAPFMT_MALLOC_SIGNAL: %s; using the default", why);
    }
    if ((v = get("HEAPFMT_MALLOC_INTERVAL", arg)) != NULL) {
        if ((n = number(v, 0, 86400 * 365)) >= 0)
            c->interval = (unsigned)n;
        else
            bad("HEAPFMT_MALLOC_INTERVAL", v);
    }
    if ((v = get("HEAPFMT_MALLOC_AT_EXIT", arg)) != NULL)
        c->at_exit = strcmp(v, "0") != 0;
    if ((v = get("HEAPFMT_MALLOC_RUBY", arg)) != NULL)
        c->ruby = strcmp(v, "0") != 0;
    if ((v = get("HEAPFMT_MALLOC_LEVEL", arg)) != NULL) {
        if ((n = number(v, 0, 19)) >= 0)
            c->level = (int)n;
        else
            bad("HEAPFMT_MALLOC_LEVEL", v);
    }
    if ((v = get("HEAPFMT_MALLOC_DIR", arg)) != NULL && v[0] != 0) {
        if (strlen(v) < sizeof c->dir)
            strcpy(c->dir, v);
        else
            bad("HEAPFMT_MALLOC_DIR", v);
    }
    resolve_dir(c);
    if ((v = get("HEAPFMT_MALLOC_PREFIX", arg)) != NULL && v[0] != 0) {
        if (strlen(v) < sizeof c->prefix && strchr(v, '/') == NULL)
            strcpy(c->prefix, v);
        else
            bad("HEAPFMT_MALLOC_PREFIX", v);
    }
}
