/* live.c -- a running process as an image (live.h): every thread seized
 * and interrupted with ptrace, its registers read, the writable memory
 * copied through /proc/PID/mem, then every thread let go. The pause is
 * the copy: the analysis runs on the copy after the process resumed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "live.h"

#ifndef PTRACE_SEIZE
#define PTRACE_SEIZE 0x4206
#define PTRACE_INTERRUPT 0x4207
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif

#define MAX_THREADS 65536
#define CHUNK (64u << 20) /* bytes per pread of /proc/PID/mem */
#define PAGE 4096u

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

long proc_status(int pid, const char *key)
{
    char path[64], line[256];
    if (pid > 0)
        snprintf(path, sizeof path, "/proc/%d/status", pid);
    else
        snprintf(path, sizeof path, "/proc/self/status");
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static long ptrace_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    if (f == NULL)
        return -1;
    long v = -1;
    if (fscanf(f, "%ld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

typedef struct tracee {
    int *tid;
    size_t n, cap;
} tracee;

static int seized(const tracee *t, int tid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->tid[i] == tid)
            return 1;
    return 0;
}

static void release(tracee *t)
{
    for (size_t i = 0; i < t->n; i++)
        ptrace(PTRACE_DETACH, t->tid[i], NULL, NULL);
    free(t->tid);
    t->tid = NULL;
    t->n = 0;
}

/* Waits for tid's stop, up to about two seconds. */
static int wait_stop(int tid)
{
    for (int i = 0; i < 2000; i++) {
        int st;
        pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
        if (r == tid) {
            if (WIFSTOPPED(st))
                return 0;
            if (WIFEXITED(st) || WIFSIGNALED(st))
                return 1; /* gone */
        } else if (r < 0 && errno != EINTR) {
            return 1;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Seizes and stops every thread, again until no new one appears. */
static int stop_all(int pid, tracee *t, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    for (int round = 0; round < 100; round++) {
        DIR *d = opendir(path);
        if (d == NULL) {
            snprintf(err, errlen, "%s", errno == ENOENT ? "no such process"
                                                        : strerror(errno));
            return -1;
        }
        int added = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            int tid = atoi(e->d_name);
            if (tid <= 0 || seized(t, tid))
                continue;
            if (t->n >= MAX_THREADS) {
                closedir(d);
                snprintf(err, errlen, "more than %d threads", MAX_THREADS);
                return -1;
            }
            if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
                if (errno == ESRCH)
                    continue; /* exited meanwhile */
                int e0 = errno;
                closedir(d);
                if (e0 == EPERM) {
                    long tracer = proc_status(pid, "TracerPid");
                    long scope = ptrace_scope();
                    if (tracer > 0)
                        snprintf(err, errlen, "cannot trace it: process %ld "
                                              "traces it already (a debugger?)",
                                 tracer);
                    else if (scope > 0)
                        snprintf(err, errlen, "cannot trace it: permission "
                                              "denied (kernel.yama.ptrace_scope"
                                              " is %ld; run as root, or as its "
                                              "user with ptrace_scope 0)",
                                 scope);
                    else
                        snprintf(err, errlen, "cannot trace it: permission "
                                              "denied (another user's process,"
                                              " or no CAP_SYS_PTRACE)");
                } else {
                    snprintf(err, errlen, "cannot trace it: %s", strerror(e0));
                }
                return -1;
            }
            if (GROW(t->tid, t->cap, t->n) != 0) {
                ptrace(PTRACE_DETACH, tid, NULL, NULL);
                closedir(d);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            t->tid[t->n++] = tid;
            ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
            added = 1;
        }
        closedir(d);
        if (!added)
            return 0;
    }
    snprintf(err, errlen, "threads keep appearing; cannot stop them all");
    return -1;
}

/* The start addresses of the read-only file mappings the process has
 * written to (relocated data made read-only after: RELRO, whose vtables
 * and type_info differ from the file), sorted: from /proc/PID/smaps,
 * read before the process is stopped. NULL (none known) on failure. */
static uint64_t *dirty_file_maps(int pid, size_t *n)
{
    char path[64], line[4096 + 256];
    snprintf(path, sizeof path, "/proc/%d/smaps", pid);
    FILE *f = fopen(path, "re");
    *n = 0;
    if (f == NULL)
        return NULL;
    uint64_t *v = NULL, start = 0;
    size_t cap = 0;
    int file = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long a, b, kb;
        int at = 0;
        if (sscanf(line, "%llx-%llx %*s %*x %*x:%*x %*u %n", &a, &b, &at) == 2 &&
            at > 0) {
            start = a;
            file = line[at] == '/';
        } else if (file && sscanf(line, "Anonymous: %llu kB", &kb) == 1 && kb > 0) {
            if (GROW(v, cap, *n) != 0)
                break;
            v[(*n)++] = start;
        }
    }
    fclose(f);
    return v; /* in address order, as smaps lists them */
}

static int listed(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

/* Reads /proc/PID/maps into the image, copying the memory that the
 * analysis reads: writable mappings, anonymous ones, read-only file
 * mappings the process wrote to (dirty), and the first page of the other
 * file mappings (the ELF header, for build ids). */
static int read_maps(image *im, int pid, int mem, const uint64_t *dirty,
                     size_t ndirty, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096 + 256];
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long start, end, off;
        char perms[8];
        int name_at = 0;
        unsigned dmaj, dmin;
        unsigned long inode;
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &start, &end,
                   perms, &off, &dmaj, &dmin, &inode, &name_at) < 7 ||
            end <= start)
            continue;
        char *name = line + name_at;
        name[strcspn(name, "\n")] = '\0';
        img_seg s;
        memset(&s, 0, sizeof s);
        s.start = start;
        s.end = end;
        s.prot = (perms[0] == 'r' ? IMG_R : 0) | (perms[1] == 'w' ? IMG_W : 0) |
                 (perms[2] == 'x' ? IMG_X : 0);
        s.file = -1;
        s.file_off = off;
        if (name[0] == '/') {
            s.file = img_add_file(im, name, strlen(name));
            if (s.file < 0)
                goto nomem;
        }
        int special = name[0] == '[' && strcmp(name, "[heap]") != 0 &&
                      strncmp(name, "[stack", 6) != 0 &&
                      strncmp(name, "[anon", 5) != 0;
        uint64_t want = 0;
        if ((s.prot & IMG_R) && !special) {
            if ((s.prot & IMG_W) || s.file < 0 || listed(dirty, ndirty, start))
                want = end - start;
            else if (off == 0)
                want = PAGE;
        }
        if (want > 0) {
            unsigned char *buf = malloc(want);
            if (buf == NULL) {
                snprintf(err, errlen, "out of memory copying %s of the "
                                      "process", "a mapping");
                fclose(f);
                return -1;
            }
            uint64_t got = 0;
            while (got < want) {
                size_t n = want - got < CHUNK ? (size_t)(want - got) : CHUNK;
                ssize_t r = pread(mem, buf + got, n, (off_t)(start + got));
                if (r <= 0) {
                    if (r < 0 && errno == EINTR)
                        continue;
                    break;
                }
                got += (uint64_t)r;
            }
            if (img_add_buf(im, buf) != 0) {
                free(buf);
                goto nomem;
            }
            s.data = buf;
            s.avail = got;
            im->copied += got;
            if (got < want && ((s.prot & IMG_W) || s.file < 0))
                im->missing += want - got;
        }
        if (img_add(im, &s) != 0)
            goto nomem;
    }
    fclose(f);
    return img_sort(im);
nomem:
    fclose(f);
    snprintf(err, errlen, "out of memory");
    return -1;
}

int live_open(image *im, int pid, uint64_t *pause_us, char *err,
              size_t errlen)
{
    img_init(im);
    im->pid = pid;
    im->live = 1;
    *pause_us = 0;
    if (pid == getpid()) {
        snprintf(err, errlen, "is heapfmt-core itself");
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *c = fopen(path, "re");
    if (c == NULL) {
        snprintf(err, errlen, "%s", errno == ENOENT ? "no such process"
                                                    : strerror(errno));
        return -1;
    }
    if (fgets(im->exe, sizeof im->exe, c) != NULL)
        im->exe[strcspn(im->exe, "\n")] = '\0';
    fclose(c);
    size_t ndirty;
    uint64_t *dirty = dirty_file_maps(pid, &ndirty);
    tracee t = {NULL, 0, 0};
    uint64_t t0 = now_us();
    if (stop_all(pid, &t, err, errlen) != 0) {
        release(&t);
        free(dirty);
        return -1;
    }
    for (size_t i = 0; i < t.n; i++) {
        int r = wait_stop(t.tid[i]);
        if (r < 0) {
            snprintf(err, errlen, "thread %d did not stop", t.tid[i]);
            release(&t);
            free(dirty);
            return -1;
        }
        if (r > 0) /* exited: not a thread any more */
            continue;
        struct user_regs_struct regs;
        if (ptrace(PTRACE_GETREGS, t.tid[i], NULL, &regs) != 0)
            continue;
        img_thread th;
        memset(&th, 0, sizeof th);
        th.tid = (uint32_t)t.tid[i];
        _Static_assert(sizeof regs == IMG_NREGS * 8, "user_regs_struct");
        memcpy(th.reg, &regs, sizeof regs);
        if (img_add_thread(im, &th) != 0) {
            snprintf(err, errlen, "out of memory");
            release(&t);
            free(dirty);
            return -1;
        }
    }
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int mem = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;
    if (mem < 0)
        snprintf(err, errlen, "cannot read its memory: %s", strerror(errno));
    else
        rc = read_maps(im, pid, mem, dirty, ndirty, err, errlen);
    if (mem >= 0)
        close(mem);
    release(&t);
    *pause_us = now_us() - t0;
    free(dirty);
    /* the main thread first, as in a core */
    for (size_t i = 1; i < im->nthr; i++)
        if (im->thr[i].tid == (uint32_t)pid) {
            img_thread m = im->thr[i];
            memmove(&im->thr[1], &im->thr[0], i * sizeof m);
            im->thr[0] = m;
        }
    return rc;
}
