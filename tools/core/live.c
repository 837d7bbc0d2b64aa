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
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_progress.h"
#include "cli_grow.h"
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
#define RED_ZONE 128u     /* below a stack pointer, as roots.c reads it */


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

/* One line of /proc/PID/maps: the mapping, whether it is one of the
 * kernel's special ones ([vvar], [vsyscall]...), and how many bytes from
 * its start the analysis reads (0: none): writable mappings, anonymous
 * ones, read-only file mappings the process wrote to (dirty), and the
 * first page of the other file mappings (the ELF header, for build ids). */
typedef struct map_line {
    uint64_t start, end, off, want;
    uint32_t prot;
    const char *name;  /* inside the line buffer */
} map_line;

static int parse_map(char *line, const uint64_t *dirty, size_t ndirty,
                     map_line *m)
{
    unsigned long long start, end, off;
    char perms[8];
    int name_at = 0;
    unsigned dmaj, dmin;
    unsigned long inode;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &start, &end, perms,
               &off, &dmaj, &dmin, &inode, &name_at) < 7 ||
        end <= start)
        return -1;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = '\0';
    m->start = start;
    m->end = end;
    m->off = off;
    m->name = name;
    m->prot = (perms[0] == 'r' ? IMG_R : 0) | (perms[1] == 'w' ? IMG_W : 0) |
              (perms[2] == 'x' ? IMG_X : 0);
    int special = name[0] == '[' && strcmp(name, "[heap]") != 0 &&
                  strncmp(name, "[stack", 6) != 0 &&
                  strncmp(name, "[anon", 5) != 0;
    m->want = 0;
    if ((m->prot & IMG_R) && !special) {
        if ((m->prot & IMG_W) || name[0] != '/' || listed(dirty, ndirty, start))
            m->want = end - start;
        else if (off == 0)
            m->want = PAGE;
    }
    return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A buffer for the copy of one mapping, allocated and its pages faulted
 * in before the process is stopped: zeroing fresh pages was a third of
 * the copy's time, and it need not be in the pause. */
typedef struct prebuf {
    uint64_t start, want;
    unsigned char *buf;
} prebuf;

typedef struct prebufs {
    prebuf *b;
    size_t n, cap;
} prebufs;

static unsigned char *alloc_faulted(uint64_t n)
{
    unsigned char *p = malloc(n);
    if (p != NULL && n >= 2 * PAGE) {
        uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);
        if (e > a)
            madvise((void *)a, e - a, MADV_POPULATE_WRITE); /* advice */
    }
    return p;
}

/* Allocates the buffers of the mappings of pid as they are now (sorted
 * by start, as maps lists them). On failure, fewer (the copy allocates
 * the rest). */
static void prealloc(prebufs *pb, int pid, const uint64_t *dirty, size_t ndirty)
{
    char path[64], line[4096 + 256];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        map_line m;
        if (parse_map(line, dirty, ndirty, &m) != 0 || m.want == 0)
            continue;
        if (GROW(pb->b, pb->cap, pb->n) != 0)
            break;
        unsigned char *buf = alloc_faulted(m.want);
        if (buf == NULL)
            break;
        pb->b[pb->n++] = (prebuf){m.start, m.want, buf};
    }
    fclose(f);
}

/* The buffer made for the mapping at start of want bytes, taken, or a new
 * one. */
static unsigned char *take_buf(prebufs *pb, uint64_t start, uint64_t want)
{
    size_t lo = 0, hi = pb->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pb->b[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < pb->n && pb->b[lo].start == start && pb->b[lo].buf != NULL &&
        pb->b[lo].want >= want) {
        unsigned char *b = pb->b[lo].buf;
        pb->b[lo].buf = NULL;
        return b;
    }
    return malloc(want);
}

static void prebufs_free(prebufs *pb)
{
    for (size_t i = 0; i < pb->n; i++)
        free(pb->b[i].buf);
    free(pb->b);
}

/* Copies want bytes at addr of process pid into buf: process_vm_readv
 * (one copy, from the process's pages to buf), else /proc/PID/mem (the
 * kernel copies twice); up to the first byte that cannot be read.
 * Returns the bytes copied. */
static uint64_t copy_mem(int pid, int mem, uint64_t addr, unsigned char *buf,
                         uint64_t want, int *vm_ok)
{
    uint64_t got = 0;
    while (got < want) {
        size_t n = want - got < CHUNK ? (size_t)(want - got) : CHUNK;
        ssize_t r = -1;
        if (*vm_ok) {
            struct iovec l = {buf + got, n};
            struct iovec rm = {(void *)(uintptr_t)(addr + got), n};
            /* the system call: its libc wrapper needs _GNU_SOURCE, whose
             * <signal.h> names clash with image.h's registers */
            r = (ssize_t)syscall(SYS_process_vm_readv, pid, &l, 1ul, &rm, 1ul, 0ul);
            if (r < 0 && (errno == ENOSYS || errno == EPERM))
                *vm_ok = 0; /* not here: the file for the rest */
            if (r == (ssize_t)n) {
                got += n;
                continue;
            }
            /* a partial read stops at an iovec's end: the page that
             * failed is found by the file, a page at a time */
        }
        r = pread(mem, buf + got, n, (off_t)(addr + got));
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (uint64_t)r;
    }
    return got;
}

/* Where the copy of the mapping [start, end) begins: when it holds a
 * thread's stack pointer, the page of the lowest one less the red zone
 * (roots.c scans stacks from there up), else start. */
static uint64_t stack_cut(const image *im, uint64_t start, uint64_t end)
{
    uint64_t cut = end;
    for (size_t t = 0; t < im->nthr; t++) {
        uint64_t sp = im->thr[t].reg[REG_RSP];
        if (sp < start || sp >= end)
            continue;
        uint64_t from = sp - start > RED_ZONE ? (sp - RED_ZONE) & ~(uint64_t)(PAGE - 1)
                                              : start;
        if (from < cut)
            cut = from;
    }
    return cut < end ? cut : start;
}

/* Reads /proc/PID/maps into the image, copying the memory that the
 * analysis reads (parse_map). */
static int read_maps(image *im, int pid, int mem, const uint64_t *dirty,
                     size_t ndirty, prebufs *pb, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096 + 256];
    int vm_ok = 1;
    while (fgets(line, sizeof line, f) != NULL) {
        map_line m;
        if (parse_map(line, dirty, ndirty, &m) != 0)
            continue;
        img_seg s;
        memset(&s, 0, sizeof s);
        s.start = m.start;
        s.end = m.end;
        s.prot = m.prot;
        s.file = -1;
        s.file_off = m.off;
        if (m.name[0] == '/') {
            s.file = img_add_file(im, m.name, strlen(m.name));
            if (s.file < 0)
                goto nomem;
        }
        uint64_t cut = m.want == m.end - m.start && (m.prot & IMG_W)
                           ? stack_cut(im, m.start, m.end)
                           : m.start;
        if (cut > m.start) {
            /* a stack: below its pointer, nothing is scanned or copied */
            s.end = cut;
            if (img_add(im, &s) != 0)
                goto nomem;
            s.start = cut;
            s.end = m.end;
            s.file_off += cut - m.start;
            m.start = cut;
            m.want = m.end - cut;
        }
        if (m.want > 0) {
            unsigned char *buf = take_buf(pb, m.start, m.want);
            if (buf == NULL) {
                snprintf(err, errlen, "out of memory copying %s of the "
                                      "process", "a mapping");
                fclose(f);
                return -1;
            }
            uint64_t got = copy_mem(pid, mem, m.start, buf, m.want, &vm_ok);
            if (img_add_buf(im, buf) != 0) {
                free(buf);
                goto nomem;
            }
            s.data = buf;
            s.avail = got;
            im->copied += got;
            if (got < m.want && ((s.prot & IMG_W) || s.file < 0))
                im->missing += m.want - got;
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
    prebufs pb = {NULL, 0, 0};
    prealloc(&pb, pid, dirty, ndirty);
    tracee t = {NULL, 0, 0};
    uint64_t t0 = cli_clock_ns(CLOCK_MONOTONIC) / 1000u;
    uint64_t c0 = cli_clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000u;
    if (stop_all(pid, &t, err, errlen) != 0) {
        release(&t);
        free(dirty);
        prebufs_free(&pb);
        return -1;
    }
    for (size_t i = 0; i < t.n; i++) {
        int r = wait_stop(t.tid[i]);
        if (r < 0) {
            snprintf(err, errlen, "thread %d did not stop", t.tid[i]);
            release(&t);
            free(dirty);
            prebufs_free(&pb);
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
            prebufs_free(&pb);
            return -1;
        }
    }
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int mem = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;
    if (mem < 0)
        snprintf(err, errlen, "cannot read its memory: %s", strerror(errno));
    else
        rc = read_maps(im, pid, mem, dirty, ndirty, &pb, err, errlen);
    if (mem >= 0)
        close(mem);
    release(&t);
    *pause_us = cli_clock_ns(CLOCK_MONOTONIC) / 1000u - t0;
    im->pause_cpu_us = cli_clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000u - c0;
    free(dirty);
    prebufs_free(&pb);
    /* the main thread first, as in a core */
    for (size_t i = 1; i < im->nthr; i++)
        if (im->thr[i].tid == (uint32_t)pid) {
            img_thread m = im->thr[i];
            memmove(&im->thr[1], &im->thr[0], i * sizeof m);
            im->thr[0] = m;
        }
    return rc;
}
