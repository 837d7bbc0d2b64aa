/* cli_ptrace.h -- calling a function inside another process, one thread
 * at a time, the way a debugger's `call` does (Linux x86-64).
 *
 * cli_tracee_stop seizes one thread and stops it where it is; the other
 * threads run on. cli_tracee_call then makes that thread run fn(args) on
 * its own stack, below the red zone, as a signal handler would run there,
 * and return to address 0: the fault that follows is caught here and
 * never delivered. cli_tracee_release puts back every register (general,
 * x87/SSE/AVX state, the system call it was in, which the kernel then
 * restarts) and detaches. The thread is stopped from stop to release:
 * microseconds for a few calls.
 *
 * Only functions that are safe at any instruction of the thread may be
 * called this way (async-signal-safe ones: a system call's wrapper, a
 * lock-free registration). Signals that reach the thread while it is
 * stopped are held back and sent again at release (the same number to
 * the same thread; the sender's identity in siginfo is lost). While a
 * thread is stopped, this process blocks SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT, so that a Ctrl-C cannot leave the thread in the middle of a
 * call. Functions return 0, or -1 with errno (EPERM: not allowed to
 * trace; ESRCH: the thread or the process ended; ETIMEDOUT; EFAULT: the
 * call faulted; ENOSYS: another architecture) and a reason in err. */
#ifndef CLI_PTRACE_H
#define CLI_PTRACE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CLI_TRACEE_MAX_SIGNALS 16

typedef struct cli_tracee {
    pid_t pid, tid;
    int seized, stopped;
    uint64_t regs[32];       /* the registers at the stop (opaque) */
    unsigned char *fpstate;  /* the floating-point and vector state */
    size_t fplen;
    int fpkind;              /* how it was read: 0 not, 1 xstate, 2 fpregs */
    int held[CLI_TRACEE_MAX_SIGNALS];
    size_t nheld;
    sigset_t oldmask;
    int masked;
    uint64_t call_timeout_ns; /* how long a call may take: 2 s unless set
                                 after cli_tracee_stop (a dlopen may take
                                 longer on a loaded machine) */
} cli_tracee;

/* Seizes thread tid of process pid and stops it. */
int cli_tracee_stop(cli_tracee *t, pid_t pid, pid_t tid, char *err,
                    size_t errlen);

/* The system call the thread was stopped in (its number), or -1. */
long cli_tracee_syscall(const cli_tracee *t);

/* Runs fn(args[0], ..., args[nargs - 1]) (at most 6 integer or pointer
 * arguments) on the stopped thread and stores its return value. The
 * registers of the stop are the base of every call, so calls do not see
 * each other's registers. */
int cli_tracee_call(cli_tracee *t, uint64_t fn, const uint64_t *args,
                    size_t nargs, uint64_t *ret, char *err, size_t errlen);

/* Restores the thread as it was stopped, detaches, sends held signals
 * again. Safe to call on a tracee that is not (or no longer) seized. */
void cli_tracee_release(cli_tracee *t);

#endif /* CLI_PTRACE_H */
