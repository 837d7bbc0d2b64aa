/* cli_ptrace.c -- a function call inside another process's thread. */
#define _GNU_SOURCE 1 /* tgkill, __WALL */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_proc.h"
#include "cli_progress.h"
#include "cli_ptrace.h"

#if defined(__linux__) && defined(__x86_64__)

#include <elf.h> /* NT_X86_XSTATE */
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(((cli_tracee *)0)->regs),
               "cli_tracee.regs holds the registers");

/* How long a stop or a call may take before it counts as stuck. A call
 * of the functions this is meant for takes microseconds. */
#define STEP_TIMEOUT_NS 2000000000ull
#define RETURN_ADDRESS 0 /* a call returns here: a fault we catch */
#define RED_ZONE 128
#define XSTATE_MAX 16384 /* AVX-512 takes 2.7 KiB, AMX tiles 11 KiB */

static int fail(char *err, size_t errlen, int code, const char *fmt,
                const char *what)
{
    snprintf(err, errlen, fmt, what);
    errno = code;
    return -1;
}

/* Waits for a change of tid until deadline: 0 with *status, -1 with
 * ESRCH (gone) or ETIMEDOUT. A tracee's stop sends this process SIGCHLD,
 * blocked while a thread is stopped (block_signals) and waited for here,
 * so that the stop is seen at once and a stuck one can be given up. */
static int wait_change(pid_t tid, int *status, uint64_t deadline)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        pid_t r = waitpid(tid, status, __WALL | WNOHANG);
        if (r == tid)
            return 0;
        if (r < 0 && errno != EINTR) {
            errno = ESRCH;
            return -1;
        }
        uint64_t now = cli_now_ns();
        if (now > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        uint64_t left = deadline - now;
        if (left > 10000000ull) /* look again at least every 10 ms */
            left = 10000000ull;
        struct timespec ts = {0, (long)left};
        sigtimedwait(&chld, NULL, &ts);
    }
}

static void hold(cli_tracee *t, int sig)
{
    for (size_t i = 0; i < t->nheld; i++)
        if (t->held[i] == sig && sig < SIGRTMIN)
            return; /* standard signals do not queue */
    if (t->nheld < CLI_TRACEE_MAX_SIGNALS)
        t->held[t->nheld++] = sig;
}

static void block_signals(cli_tracee *t)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGCHLD); /* wait_change waits for it */
    t->masked = sigprocmask(SIG_BLOCK, &set, &t->oldmask) == 0;
}

static void save_fpstate(cli_tracee *t)
{
    t->fpstate = malloc(XSTATE_MAX);
    if (t->fpstate == NULL)
        return;
    struct iovec iov = {t->fpstate, XSTATE_MAX};
    if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov) == 0) {
        t->fplen = iov.iov_len;
        t->fpkind = 1;
    } else if (ptrace(PTRACE_GETFPREGS, t->tid, NULL, t->fpstate) == 0) {
        t->fplen = sizeof(struct user_fpregs_struct);
        t->fpkind = 2;
    }
}

static void restore_fpstate(cli_tracee *t)
{
    if (t->fpkind == 1) {
        struct iovec iov = {t->fpstate, t->fplen};
        ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov);
    } else if (t->fpkind == 2) {
        ptrace(PTRACE_SETFPREGS, t->tid, NULL, t->fpstate);
    }
}

int cli_tracee_stop(cli_tracee *t, pid_t pid, pid_t tid, char *err,
                    size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->tid = tid;
    t->call_timeout_ns = STEP_TIMEOUT_NS;
    block_signals(t);
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
        int e = errno;
        cli_tracee_release(t);
        return fail(err, errlen, e == ESRCH ? ESRCH : e, "ptrace: %s",
                    strerror(e));
    }
    t->seized = 1;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
        int e = errno;
        cli_tracee_release(t);
        return fail(err, errlen, e, "ptrace interrupt: %s", strerror(e));
    }
    int status;
    uint64_t deadline = cli_now_ns() + STEP_TIMEOUT_NS;
    for (;;) {
        if (wait_change(tid, &status, deadline) != 0) {
            int e = errno;
            cli_tracee_release(t);
            return fail(err, errlen, e, "%s",
                        e == ESRCH ? "the thread ended"
                                   : "the thread did not stop in 2 s");
        }
        if (!WIFSTOPPED(status)) {
            t->seized = 0;
            cli_tracee_release(t);
            return fail(err, errlen, ESRCH, "%s", "the thread ended");
        }
        int event = status >> 16, sig = WSTOPSIG(status);
        if (event == 0 && sig != SIGTRAP)
            hold(t, sig); /* a signal on its way: later */
        else if (event == PTRACE_EVENT_STOP && sig != SIGTRAP)
            hold(t, sig); /* a group stop (SIGSTOP...): again at release */
        break;
    }
    t->stopped = 1;
    struct user_regs_struct r;
    if (ptrace(PTRACE_GETREGS, tid, NULL, &r) != 0) {
        int e = errno;
        cli_tracee_release(t);
        return fail(err, errlen, e, "ptrace getregs: %s", strerror(e));
    }
    memcpy(t->regs, &r, sizeof r);
    save_fpstate(t);
    if (t->fpkind == 0) {
        cli_tracee_release(t);
        return fail(err, errlen, EIO, "%s",
                    "cannot read the thread's floating-point registers");
    }
    return 0;
}

long cli_tracee_syscall(const cli_tracee *t)
{
    struct user_regs_struct r;
    memcpy(&r, t->regs, sizeof r);
    return t->stopped ? (long)r.orig_rax : -1;
}

int cli_tracee_call(cli_tracee *t, uint64_t fn, const uint64_t *args,
                    size_t nargs, uint64_t *ret, char *err, size_t errlen)
{
    if (!t->stopped || nargs > 6)
        return fail(err, errlen, EINVAL, "%s", "bad call");
    struct user_regs_struct r;
    memcpy(&r, t->regs, sizeof r);
    /* Below the red zone, 16-byte aligned before the return address is
     * pushed, as the ABI has it at a function's entry. */
    uint64_t sp = ((r.rsp - RED_ZONE - 64) & ~(uint64_t)15) - 8;
    uint64_t ra = RETURN_ADDRESS;
    if (cli_proc_write(t->pid, sp, &ra, sizeof ra) != 0)
        return fail(err, errlen, errno, "writing the stack: %s",
                    strerror(errno));
    unsigned long long *argreg[6] = {&r.rdi, &r.rsi, &r.rdx,
                                     &r.rcx, &r.r8,  &r.r9};
    for (size_t i = 0; i < 6; i++)
        *argreg[i] = i < nargs ? args[i] : 0;
    r.rsp = sp;
    r.rip = fn;
    r.rax = 0;
    r.orig_rax = (unsigned long long)-1; /* no system call to restart */
    r.eflags &= ~(0x400ull | 0x100ull);  /* DF and TF clear */
    if (ptrace(PTRACE_SETREGS, t->tid, NULL, &r) != 0 ||
        ptrace(PTRACE_CONT, t->tid, NULL, NULL) != 0)
        return fail(err, errlen, errno, "ptrace: %s", strerror(errno));
    uint64_t deadline = cli_now_ns() + t->call_timeout_ns;
    for (;;) {
        int status;
        if (wait_change(t->tid, &status, deadline) != 0) {
            int e = errno;
            if (e == ETIMEDOUT) {
                /* Stop it again so that release can put it back. */
                int st2;
                if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) == 0 &&
                    wait_change(t->tid, &st2, cli_now_ns() + STEP_TIMEOUT_NS) == 0 &&
                    WIFSTOPPED(st2))
                    return fail(err, errlen, ETIMEDOUT, "%s",
                                "the call did not return in time");
            }
            t->stopped = t->seized = 0;
            return fail(err, errlen, ESRCH, "%s", "the thread ended");
        }
        if (!WIFSTOPPED(status)) {
            t->stopped = t->seized = 0;
            return fail(err, errlen, ESRCH, "%s", "the thread ended");
        }
        int event = status >> 16, sig = WSTOPSIG(status);
        if (event == 0 && sig == SIGSEGV) {
            struct user_regs_struct now;
            if (ptrace(PTRACE_GETREGS, t->tid, NULL, &now) != 0)
                return fail(err, errlen, errno, "ptrace getregs: %s",
                            strerror(errno));
            if (now.rip == RETURN_ADDRESS) {
                *ret = now.rax;
                return 0;
            }
            char where[32];
            snprintf(where, sizeof where, "0x%llx", now.rip);
            return fail(err, errlen, EFAULT, "the call faulted at %s", where);
        }
        if (event == 0 && sig != SIGTRAP)
            hold(t, sig);
        else if (event == PTRACE_EVENT_STOP && sig != SIGTRAP)
            hold(t, sig);
        if (ptrace(PTRACE_CONT, t->tid, NULL, NULL) != 0)
            return fail(err, errlen, errno, "ptrace: %s", strerror(errno));
    }
}

void cli_tracee_release(cli_tracee *t)
{
    if (t->seized && t->stopped) {
        struct user_regs_struct r;
        memcpy(&r, t->regs, sizeof r);
        ptrace(PTRACE_SETREGS, t->tid, NULL, &r);
        restore_fpstate(t);
    }
    if (t->seized)
        ptrace(PTRACE_DETACH, t->tid, NULL, NULL);
    if (t->seized || t->stopped)
        for (size_t i = 0; i < t->nheld; i++) {
            int s = t->held[i];
            if (s == SIGSTOP || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU)
                kill(t->pid, s);
            else
                syscall(SYS_tgkill, t->pid, t->tid, s);
        }
    t->seized = t->stopped = 0;
    t->nheld = 0;
    free(t->fpstate);
    t->fpstate = NULL;
    t->fpkind = 0;
    if (t->masked) {
        sigprocmask(SIG_SETMASK, &t->oldmask, NULL);
        t->masked = 0;
    }
}

#else /* not Linux x86-64 */

int cli_tracee_stop(cli_tracee *t, pid_t pid, pid_t tid, char *err,
                    size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->tid = tid;
    snprintf(err, errlen, "attaching is implemented for Linux x86-64 only");
    errno = ENOSYS;
    return -1;
}

long cli_tracee_syscall(const cli_tracee *t)
{
    (void)t;
    return -1;
}

int cli_tracee_call(cli_tracee *t, uint64_t fn, const uint64_t *args,
                    size_t nargs, uint64_t *ret, char *err, size_t errlen)
{
    (void)t, (void)fn, (void)args, (void)nargs, (void)ret;
    snprintf(err, errlen, "attaching is implemented for Linux x86-64 only");
    errno = ENOSYS;
    return -1;
}

void cli_tracee_release(cli_tracee *t)
{
    (void)t;
}

#endif
