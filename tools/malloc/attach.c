/* attach.c -- heapfmt-malloc -p, --dump, --detach on a running process. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_proc.h"
#include "cli_progress.h"
#include "cli_ptrace.h"
#include "cli_target.h"
#include "heapfmt_malloc.h"

#define MAX_THREADS 4096
#define CALL_TIMEOUT_NS 60000000000ull /* dlopen on a loaded machine */
#define RTLD_NOW_ 2                    /* <dlfcn.h>'s, for the process */
#define TRACKER_NAME "libheapfmt-malloc.so"

typedef struct libc_fns {
    uint64_t mmap, munmap, dlopen, dlerror;
} libc_fns;

static int is_libdl(const char *base)
{
    return strncmp(base, "libdl.so", 8) == 0;
}

static int is_tracker(const char *base)
{
    return strcmp(base, TRACKER_NAME) == 0;
}

static void nap_ms(unsigned ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* libc's mmap, munmap, dlopen and dlerror (dlopen in libdl.so.2 before
 * glibc 2.34). Returns 0, or 1 with err. */
static int find_libc(const cli_target *t, libc_fns *f, char *err, size_t len)
{
    cli_mapped m;
    cli_elf *e = NULL;
    uint64_t bias;
    if (cli_target_find(t, cli_target_is_libc, &m) != 0 ||
        cli_target_open(t, &m, &e, &bias, err, len) != 0) {
        snprintf(err, len, "%s has no GNU C library mapped", t->comm);
        return 1;
    }
    int missing = cli_target_symbol(e, bias, "mmap", &f->mmap, NULL) ||
                  cli_target_symbol(e, bias, "munmap", &f->munmap, NULL);
    if (cli_target_symbol(e, bias, "dlopen", &f->dlopen, NULL) != 0 ||
        cli_target_symbol(e, bias, "dlerror", &f->dlerror, NULL) != 0) {
        cli_elf_close(e);
        e = NULL;
        if (cli_target_find(t, is_libdl, &m) != 0 ||
            cli_target_open(t, &m, &e, &bias, err, len) != 0 ||
            cli_target_symbol(e, bias, "dlopen", &f->dlopen, NULL) != 0 ||
            cli_target_symbol(e, bias, "dlerror", &f->dlerror, NULL) != 0) {
            cli_elf_close(e);
            snprintf(err, len, "%s has no dlopen (a static program?)", t->comm);
            return 1;
        }
    }
    cli_elf_close(e);
    if (missing) {
        snprintf(err, len, "%s: no mmap in its C library", t->comm);
        return 1;
    }
    return 0;
}

/* The address of one of the tracker's functions in the process. */
static int tracker_function(const cli_target *t, const char *name,
                            uint64_t *addr, char *err, size_t len)
{
    cli_mapped m;
    cli_elf *e = NULL;
    uint64_t bias;
    if (cli_target_find(t, is_tracker, &m) != 0) {
        snprintf(err, len, "no heapfmt-malloc tracker in %s", t->comm);
        return 1;
    }
    if (cli_target_open(t, &m, &e, &bias, err, len) != 0)
        return 1;
    int rc = cli_target_symbol(e, bias, name, addr, NULL);
    cli_elf_close(e);
    if (rc != 0) {
        snprintf(err, len, "%.3000s has no %s (an older tracker?)", m.path, name);
        return 1;
    }
    return 0;
}

/* Where a thread waits for an event, holding nothing of the allocator's
 * or the loader's: never inside malloc (its mmap, brk, madvise), never
 * in a futex (a lock, maybe one of theirs), never in read (the loader
 * reads libraries). */
static int safe_syscall(long nr)
{
    switch (nr) {
    case SYS_poll:
    case SYS_ppoll:
    case SYS_select:
    case SYS_pselect6:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_accept:
    case SYS_accept4:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_pause:
    case SYS_rt_sigtimedwait:
    case SYS_rt_sigsuspend:
    case SYS_wait4:
    case SYS_waitid:
    case SYS_recvfrom:
    case SYS_recvmsg:
        return 1;
    default:
        return 0;
    }
}

/* Stops a thread of t that waits in a safe system call, waiting for one
 * up to timeout_ms. Returns 0, or 1 with err. */
static int stop_safe_thread(const cli_target *t, unsigned timeout_ms,
                            cli_tracee *tr, char *err, size_t errlen)
{
    uint64_t deadline = cli_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    static pid_t tids[MAX_THREADS];
    for (;;) {
        size_t n = 0;
        if (cli_proc_threads(t->pid, tids, MAX_THREADS, &n) != 0 ||
            !cli_target_alive(t->pid)) {
            snprintf(err, errlen, "the process exited during the attach");
            return 1;
        }
        if (n > MAX_THREADS)
            n = MAX_THREADS;
        for (size_t i = 0; i < n; i++) {
            long nr;
            if (cli_proc_syscall(t->pid, tids[i], &nr) != 0 || !safe_syscall(nr))
                continue;
            char why[160];
            if (cli_tracee_stop(tr, t->pid, tids[i], why, sizeof why) != 0) {
                if (errno == ESRCH && cli_target_alive(t->pid))
                    continue;
                cli_target_stop_failure(t->pid, why, err, errlen);
                return 1;
            }
            if (safe_syscall(cli_tracee_syscall(tr))) { /* still there */
                tr->call_timeout_ns = CALL_TIMEOUT_NS;
                return 0;
            }
            cli_tracee_release(tr);
        }
        if (cli_now_ns() > deadline) {
            snprintf(err, errlen,
                     "no thread of %s waited, in %u s, in a system call where "
                     "the tracker can be loaded safely (poll, epoll_wait, "
                     "accept, a sleep...): --timeout waits longer",
                     t->comm, timeout_ms / 1000);
            return 1;
        }
        nap_ms(5);
    }
}

static int call(cli_tracee *tr, uint64_t fn, uint64_t a0, uint64_t a1,
                uint64_t *ret, const char *what, char *err, size_t len)
{
    uint64_t args[2] = {a0, a1};
    char why[160];
    if (cli_tracee_call(tr, fn, args, 2, ret, why, sizeof why) == 0)
        return 0;
    snprintf(err, len, "%s: %s", what, why);
    return 1;
}

/* dlerror()'s message in the process, into msg. */
static void remote_dlerror(cli_tracee *tr, uint64_t fn, char *msg, size_t len)
{
    uint64_t p = 0;
    char why[64];
    snprintf(msg, len, "unknown error");
    if (cli_tracee_call(tr, fn, NULL, 0, &p, why, sizeof why) != 0 || p == 0)
        return;
    char buf[512];
    if (cli_proc_read(tr->pid, p, buf, sizeof buf - 1) != 0)
        return;
    buf[sizeof buf - 1] = '\0';
    snprintf(msg, len, "%s", buf);
}

static const char *result_text(int rc)
{
    switch (rc) {
    case HEAPFMT_MALLOC_PRELOADED:
        return "it runs under heapfmt-malloc already, tracked from its start";
    case HEAPFMT_MALLOC_ATTACHED:
        return "the tracker is attached already";
    case HEAPFMT_MALLOC_NOT_ATTACHED:
        return "the tracker is not attached (detached already)";
    case HEAPFMT_MALLOC_NO_ALLOCATOR:
        return "the tracker found no malloc in the process";
    case HEAPFMT_MALLOC_NO_MEMORY:
        return "the tracker found no memory for its records";
    default:
        return "the tracker failed";
    }
}

/* The settings and the tracker's path, in a page mapped in the process. */
static int attach_on(cli_tracee *tr, const cli_target *t, const libc_fns *f,
                     const char *lib, const char *settings, char *err,
                     size_t errlen)
{
    size_t nlib = strlen(lib) + 1, nset = strlen(settings) + 1;
    uint64_t len = (nlib + nset + 4095) & ~(uint64_t)4095, page = 0, ret;
    uint64_t margs[6] = {0, len, 3 /* PROT_READ | PROT_WRITE */,
                         0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, (uint64_t)-1, 0};
    char why[160];
    if (cli_tracee_call(tr, f->mmap, margs, 6, &page, why, sizeof why) != 0) {
        snprintf(err, errlen, "mmap: %s", why);
        return 1;
    }
    if (page == 0 || page >= (uint64_t)-4095) {
        snprintf(err, errlen, "mmap in the process failed");
        return 1;
    }
    int rc = 1;
    uint64_t handle = 0, fn;
    if (cli_proc_write(t->pid, page, lib, nlib) != 0 ||
        cli_proc_write(t->pid, page + nlib, settings, nset) != 0) {
        snprintf(err, errlen, "writing the request: %s", strerror(errno));
    } else if (call(tr, f->dlopen, page, RTLD_NOW_, &handle, "dlopen", err,
                    errlen) == 0) {
        if (handle == 0) {
            char msg[512];
            remote_dlerror(tr, f->dlerror, msg, sizeof msg);
            snprintf(err, errlen, "cannot load the tracker: %s", msg);
        } else if (tracker_function(t, "heapfmt_malloc_attach", &fn, err,
                                    errlen) == 0 &&
                   call(tr, fn, page + nlib, 0, &ret, "attach", err,
                        errlen) == 0) {
            int r = (int)(ret & 0xffffffffu);
            if (r == 0)
                rc = 0;
            else
                snprintf(err, errlen, "%s", result_text(r));
        }
    }
    uint64_t uargs[2] = {page, len};
    cli_tracee_call(tr, f->munmap, uargs, 2, &ret, why, sizeof why);
    return rc;
}

int malloc_attach(pid_t pid, const char *lib, const char *settings,
                  unsigned timeout_ms, int verbose)
{
    char name[32], err[4096];
    snprintf(name, sizeof name, "%ld", (long)pid);
    cli_target t;
    libc_fns f;
    if (cli_target_probe(&t, pid, err, sizeof err) != 0 ||
        find_libc(&t, &f, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    cli_tracee tr;
    uint64_t t0 = cli_now_ns();
    if (stop_safe_thread(&t, timeout_ms, &tr, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    uint64_t t1 = cli_now_ns();
    pid_t tid = tr.tid;
    long sc = cli_tracee_syscall(&tr);
    int rc = attach_on(&tr, &t, &f, lib, settings, err, sizeof err);
    cli_tracee_release(&tr);
    uint64_t t2 = cli_now_ns();
    if (rc != 0) {
        cli_error(name, "%s", cli_target_alive(pid) ? err
                                                    : "the process exited during the attach");
        return CLI_EXIT_ERROR;
    }
    if (verbose)
        fprintf(stderr, "%s: %s: attached to %s through thread %ld (in system "
                        "call %ld) after %.1f ms; it was stopped %.1f ms\n",
                cli_progname(), name, t.comm, (long)tid, sc,
                (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
    return CLI_EXIT_OK;
}

int malloc_detach(pid_t pid, unsigned timeout_ms, int verbose)
{
    char name[32], err[4096];
    snprintf(name, sizeof name, "%ld", (long)pid);
    cli_target t;
    uint64_t fn, ret;
    if (cli_target_probe(&t, pid, err, sizeof err) != 0 ||
        tracker_function(&t, "heapfmt_malloc_detach", &fn, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    cli_tracee tr;
    if (stop_safe_thread(&t, timeout_ms, &tr, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    int rc = call(&tr, fn, 0, 0, &ret, "detach", err, sizeof err);
    cli_tracee_release(&tr);
    int r = (int)(ret & 0xffffffffu);
    if (rc != 0 || r != 0) {
        cli_error(name, "%s", rc != 0 ? err : result_text(r));
        return CLI_EXIT_ERROR;
    }
    if (verbose)
        fprintf(stderr, "%s: %s: detached from %s\n", cli_progname(), name,
                t.comm);
    return CLI_EXIT_OK;
}

int malloc_dump_request(pid_t pid, int sig, int verbose)
{
    char name[32], err[4096];
    snprintf(name, sizeof name, "%ld", (long)pid);
    cli_target t;
    cli_mapped m;
    if (cli_target_probe(&t, pid, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    if (cli_target_find(&t, is_tracker, &m) != 0) {
        cli_error(name, "no heapfmt-malloc tracker in %s", t.comm);
        return CLI_EXIT_ERROR;
    }
    if (cli_proc_catches(pid, sig) != 1) {
        cli_error(name, "%s does not take signal %d: the tracker is detached, "
                        "or listens to another signal (-S)",
                  t.comm, sig);
        return CLI_EXIT_ERROR;
    }
    if (kill(pid, sig) != 0) {
        cli_error(name, "%s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    if (verbose)
        fprintf(stderr, "%s: %s: dump asked of %s (signal %d)\n",
                cli_progname(), name, t.comm, sig);
    return CLI_EXIT_OK;
}
