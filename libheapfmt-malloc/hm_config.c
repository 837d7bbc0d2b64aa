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
    /* one write(2): stdio would allocate, and lines must not interleave */
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
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

int hm_parse_signal(const char *s) {
    static const struct { const char *name; int sig; } names[] = {
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"PROF", SIGPROF},
        {"WINCH", SIGWINCH}, {"URG", SIGURG}, {"HUP", SIGHUP},
        {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}};
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    if (strcasecmp(s, "none") == 0 || strcmp(s, "0") == 0)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0)
            return names[i].sig;
    if (strncasecmp(s, "RTMIN", 5) == 0) {
        long long k = s[5] == 0 ? 0 : s[5] == '+' ? number(s + 6, 0, 64) : -1;
        return k < 0 || SIGRTMIN + k > SIGRTMAX ? -1 : SIGRTMIN + (int)k;
    }
    long long v = number(s, 1, SIGRTMAX);
    return v < 0 || v == SIGKILL || v == SIGSTOP ? -1 : (int)v;
}

static void bad(const char *var, const char *value) {
    hm_log("%s=%s is not valid; using the default", var, value);
}

void hm_config_load(hm_config *c) {
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
    if ((v = getenv("HEAPFMT_MALLOC_LOG")) != NULL)
        c->log = strcmp(v, "1") == 0;
    if ((v = getenv("HEAPFMT_MALLOC_MODE")) != NULL) {
        if (strcmp(v, "exact") == 0)
            c->mode = HM_MODE_EXACT;
        else if (strcmp(v, "sampled") != 0)
            bad("HEAPFMT_MALLOC_MODE", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_SAMPLE")) != NULL) {
        if ((n = number(v, 1, (long long)1 << 40)) > 0)
            c->sample_bytes = (uint64_t)n;
        else
            bad("HEAPFMT_MALLOC_SAMPLE", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_DEPTH")) != NULL) {
        if ((n = number(v, 1, HM_MAX_DEPTH)) > 0)
            c->depth = (unsigned)n;
        else
            bad("HEAPFMT_MALLOC_DEPTH", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_SIGNAL")) != NULL) {
        int s = hm_parse_signal(v);
        if (s >= 0)
            c->signal = s;
        else
            bad("HEAPFMT_MALLOC_SIGNAL", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_INTERVAL")) != NULL) {
        if ((n = number(v, 0, 86400 * 365)) >= 0)
            c->interval = (unsigned)n;
        else
            bad("HEAPFMT_MALLOC_INTERVAL", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_AT_EXIT")) != NULL)
        c->at_exit = strcmp(v, "0") != 0;
    if ((v = getenv("HEAPFMT_MALLOC_RUBY")) != NULL)
        c->ruby = strcmp(v, "0") != 0;
    if ((v = getenv("HEAPFMT_MALLOC_LEVEL")) != NULL) {
        if ((n = number(v, 0, 19)) >= 0)
            c->level = (int)n;
        else
            bad("HEAPFMT_MALLOC_LEVEL", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_DIR")) != NULL && v[0] != 0) {
        if (strlen(v) < sizeof c->dir)
            strcpy(c->dir, v);
        else
            bad("HEAPFMT_MALLOC_DIR", v);
    }
    if ((v = getenv("HEAPFMT_MALLOC_PREFIX")) != NULL && v[0] != 0) {
        if (strlen(v) < sizeof c->prefix && strchr(v, '/') == NULL)
            strcpy(c->prefix, v);
        else
            bad("HEAPFMT_MALLOC_PREFIX", v);
    }
}
