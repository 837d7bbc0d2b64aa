/* inject.c -- heapfmt-ruby: a postponed job in a live Ruby process. */
#define _GNU_SOURCE 1 /* SYS_tgkill */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli_proc.h"
#include "cli_progress.h"
#include "cli_ptrace.h"
#include "cli_target.h"
#include "inject.h"

volatile int inject_interrupted;

#define MAX_THREADS 4096
#define WAKE_EVERY_NS 100000000ull /* SIGVTALRM again every 100 ms */
#define POLL_NS 2000000ull         /* started() every 2 ms */

enum { RANK_RUNNING, RANK_POLL, RANK_SYSCALL, RANK_FUTEX, RANK_SKIP };

typedef struct cand {
    pid_t tid;
    int rank;
} cand;

/* A wait Ruby ends with SIGVTALRM (its unblocking function for I/O
 * waits and for the sleeping thread that watches for signals). */
static int poll_like(long nr)
{
#ifdef __x86_64__
    return nr == SYS_ppoll || nr == SYS_poll || nr == SYS_select ||
           nr == SYS_pselect6 || nr == SYS_epoll_wait ||
           nr == SYS_epoll_pwait;
#else
    (void)nr;
    return 0;
#endif
}

static const char *syscall_name(long nr)
{
    switch (nr) {
#ifdef __x86_64__
    case SYS_futex: return "futex (a lock, a condition variable, sleep)";
    case SYS_ppoll: case SYS_poll: return "poll";
    case SYS_select: case SYS_pselect6: return "select";
    case SYS_read: return "read";
    case SYS_accept: case SYS_accept4: return "accept";
    case SYS_nanosleep: case SYS_clock_nanosleep: return "nanosleep";
    case SYS_wait4: return "wait4";
    case SYS_epoll_wait: case SYS_epoll_pwait: return "epoll_wait";
#endif
    case -1: return "running code";
    default: return "a system call";
    }
}

static int rank_of(pid_t pid, pid_t tid)
{
    char state;
    long nr;
    if (cli_proc_state(pid, tid, &state, NULL, 0) != 0 || state == 'D' ||
        state == 'Z' || state == 'X' || state == 'T' || state == 't')
        return RANK_SKIP; /* a stop would wait for it, or it is gone */
    if (cli_proc_syscall(pid, tid, &nr) != 0)
        return RANK_SKIP;
    if (nr < 0)
        return RANK_RUNNING;
    if (poll_like(nr))
        return RANK_POLL;
#ifdef __x86_64__
    if (nr == SYS_futex)
        return RANK_FUTEX;
#endif
    return RANK_SYSCALL;
}

static void nap(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull),
                          (long)(ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

/* Unmaps the page from any thread that can be stopped (munmap is a plain
 * system call: any thread will do). */
static void unmap_page(const target *t, pid_t prefer, uint64_t page,
                       uint64_t len, uint64_t *stop_ns)
{
    pid_t tids[MAX_THREADS];
    size_t n = 0;
    tids[n++] = prefer;
    size_t more = 0;
    if (cli_proc_threads(t->pid, tids + 1, MAX_THREADS - 1, &more) == 0)
        n += more < MAX_THREADS - 1 ? more : MAX_THREADS - 1;
    for (size_t i = 0; i < n; i++) {
        if (rank_of(t->pid, tids[i]) == RANK_SKIP)
            continue;
        cli_tracee tr;
        char why[128];
        uint64_t ret;
        if (cli_tracee_stop(&tr, t->pid, tids[i], why, sizeof why) != 0)
            continue;
        uint64_t t0 = cli_now_ns(); /* stopped from here */
        uint64_t args[2] = {page, len};
        int rc = cli_tracee_call(&tr, t->munmap, args, 2, &ret, why, sizeof why);
        cli_tracee_release(&tr);
        uint64_t d = cli_now_ns() - t0;
        if (d > *stop_ns)
            *stop_ns = d;
        if (rc == 0)
            return;
    }
}

/* Gives the job to the first Ruby thread of the candidates that can be
 * stopped. Returns 0 with *page mapped; or 1 with err. */
static int give_job(const target *t, const cand *c, size_t n,
                    const char *code, uint64_t len, uint64_t *page,
                    inject_report *rep, char *err, size_t errlen)
{
    size_t codelen = strlen(code) + 1;
    for (size_t i = 0; i < n; i++) {
        if (c[i].rank == RANK_SKIP)
            continue;
        cli_tracee tr;
        char why[160];
        uint64_t ret;
        if (cli_tracee_stop(&tr, t->pid, c[i].tid, why, sizeof why) != 0) {
            if (errno == ESRCH && cli_target_alive(t->pid))
                continue; /* that thread ended */
            cli_target_stop_failure(t->pid, why, err, errlen);
            return 1;
        }
        uint64_t t0 = cli_now_ns(); /* stopped from here */
        if (cli_tracee_call(&tr, t->native_thread_p, NULL, 0, &ret, why,
                            sizeof why) != 0)
            goto failed;
        if ((ret & 0xffffffffu) == 0) { /* not a Ruby thread */
            cli_tracee_release(&tr);
            continue;
        }
        /* A VM still booting (ruby_setup defines the core classes) cannot
         * run the job: Ruby code there can even fail to raise. rb_argv0
         * is set once it is up, and stays set. */
        uint64_t argv0 = 0;
        if (cli_proc_read(t->pid, t->argv0, &argv0, sizeof argv0) != 0 ||
            argv0 == 0) {
            snprintf(why, sizeof why, "the Ruby VM is still starting");
            goto failed;
        }
        uint64_t margs[6] = {0, len, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0};
        if (cli_tracee_call(&tr, t->mmap, margs, 6, page, why, sizeof why) != 0)
            goto failed;
        if (*page >= (uint64_t)-4095 || *page == 0) {
            snprintf(why, sizeof why, "mmap in the process failed: %s",
                     strerror((int)-(int64_t)*page));
            *page = 0;
            goto failed;
        }
        if (cli_proc_write(t->pid, *page, code, codelen) != 0) {
            snprintf(why, sizeof why, "writing the request: %s",
                     strerror(errno));
            goto unmap;
        }
        uint64_t rargs[3] = {0, t->eval_string, *page};
        if (cli_tracee_call(&tr, t->register_one, rargs, 3, &ret, why,
                            sizeof why) != 0)
            goto unmap;
        ret &= 0xffffffffu;
        if (ret != 1) {
            snprintf(why, sizeof why, "%s",
                     ret == 2 ? "another request is pending in the process "
                                "(another heapfmt-ruby?): try again"
                              : "the VM's postponed job buffer is full");
            goto unmap;
        }
        rep->tid = c[i].tid;
        rep->syscall = cli_tracee_syscall(&tr);
        cli_tracee_release(&tr);
        rep->stop_ns = cli_now_ns() - t0;
        return 0;
    unmap: {
        uint64_t uargs[2] = {*page, len}, r2;
        char why2[128];
        cli_tracee_call(&tr, t->munmap, uargs, 2, &r2, why2, sizeof why2);
        *page = 0;
    }
    failed:
        cli_tracee_release(&tr);
        if (!cli_target_alive(t->pid))
            snprintf(err, errlen, "the process exited during the attach");
        else
            snprintf(err, errlen, "%s", why);
        return 1;
    }
    snprintf(err, errlen, cli_target_alive(t->pid) ? "no Ruby thread could be stopped"
                                        : "the process exited during the attach");
    return 1;
}

int inject_ruby(const target *t, const char *code, unsigned timeout_ms,
                inject_started_fn started, void *arg, inject_report *rep,
                char *err, size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    rep->syscall = -1;
    /* A VM that is starting: wait for it (within the timeout). */
    uint64_t start = cli_now_ns();
    uint64_t deadline = start + (uint64_t)timeout_ms * 1000000ull;
    for (uint64_t argv0 = 0;;) {
        if (cli_proc_read(t->pid, t->argv0, &argv0, sizeof argv0) != 0) {
            snprintf(err, errlen, "the process exited during the attach");
            return 1;
        }
        if (argv0 != 0)
            break;
        if (cli_now_ns() > deadline || inject_interrupted) {
            snprintf(err, errlen, "the Ruby VM is still starting");
            return 1;
        }
        nap(POLL_NS);
    }
    pid_t tids[MAX_THREADS];
    size_t n = 0;
    if (cli_proc_threads(t->pid, tids, MAX_THREADS, &n) != 0) {
        snprintf(err, errlen, "the process exited during the attach");
        return 1;
    }
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    cand *c = malloc((n ? n : 1) * sizeof *c);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++) { /* insertion by rank, stable */
        cand x = {tids[i], rank_of(t->pid, tids[i])};
        size_t j = i;
        while (j > 0 && c[j - 1].rank > x.rank) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    uint64_t len = (strlen(code) + 1 + 4095) & ~(uint64_t)4095, page = 0;
    int rc = give_job(t, c, n, code, len, &page, rep, err, errlen);
    free(c);
    if (rc != 0)
        return rc;

    int vtalrm = cli_proc_catches(t->pid, SIGVTALRM) == 1;
    uint64_t next_wake = cli_now_ns();
    start = next_wake;
    int up = 0, gone = 0;
    long sc = rep->syscall;
    while (!(up = started(arg))) {
        uint64_t now = cli_now_ns();
        if (inject_interrupted || now > deadline)
            break;
        if (!cli_target_alive(t->pid)) {
            gone = 1;
            break;
        }
        if (vtalrm && now >= next_wake) {
            long nr;
            if (cli_proc_syscall(t->pid, rep->tid, &nr) == 0)
                sc = nr;
            if (poll_like(sc)) {
                syscall(SYS_tgkill, t->pid, rep->tid, SIGVTALRM);
                rep->woken = 1;
            }
            next_wake = now + WAKE_EVERY_NS;
        }
        nap(POLL_NS);
    }
    if (!up && !gone) {
        /* Cancel: the job may still run, later; it will find `nil`. */
        static const char nil[] = "nil";
        cli_proc_write(t->pid, page, nil, sizeof nil);
        up = started(arg);
    }
    rep->wait_ns = cli_now_ns() - start;
    if (up) {
        unmap_page(t, rep->tid, page, len, &rep->stop_ns);
        return 0;
    }
    if (gone || !cli_target_alive(t->pid))
        snprintf(err, errlen, "the process exited before the dump started");
    else if (inject_interrupted)
        snprintf(err, errlen, "interrupted before the dump started (the "
                              "request is cancelled)");
    else
        snprintf(err, errlen,
                 "no safe point in %u.%u s: thread %ld, given the request, "
                 "stays in %s; nothing was dumped (--timeout waits longer)",
                 timeout_ms / 1000, timeout_ms % 1000 / 100, (long)rep->tid,
                 syscall_name(sc));
    return 1;
}
