/* inject.h -- heapfmt-ruby: running Ruby code in a live Ruby process at a
 * VM safe point.
 *
 * The code is registered as a postponed job, the VM's own way for code
 * that runs at any instruction (a signal handler, a GC hook) to have
 * something run later where Ruby code may run: rb_postponed_job_register_one
 * (async-signal-safe, lock-free) is called on one Ruby thread stopped for
 * a few microseconds, with rb_eval_string as the job and the code, copied
 * to a page mapped in the target for it, as its argument. That thread runs
 * the job the next time it checks its interrupts (between two VM
 * instructions, or back from a blocking call), holding the GVL. The page
 * is unmapped once the code has started.
 *
 * The thread is chosen so that it gets there soon: one running in user
 * space first, then one waiting in poll/select (which is sent SIGVTALRM,
 * the signal Ruby sends its own threads to interrupt such a wait, when
 * Ruby catches it), then any other Ruby thread. */
#ifndef RUBY_INJECT_H
#define RUBY_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

/* Polled while waiting: returns 1 once the code has started, 0 not yet. */
typedef int (*inject_started_fn)(void *arg);

/* Set by a signal handler to give up a wait (Ctrl-C). */
extern volatile int inject_interrupted;

typedef struct inject_report {
    pid_t tid;            /* the thread the job was given to */
    long syscall;         /* the system call it was in, -1 none */
    int woken;            /* SIGVTALRM sent to it */
    uint64_t stop_ns;     /* longest time a thread was stopped */
    uint64_t wait_ns;     /* from the registration to the start */
} inject_report;

/* Runs code in t at a safe point and waits (up to timeout_ms) for
 * started() to say it has started. Returns 0, or 1 with one line in err;
 * the target is then left as it was (a cancelled request leaves its page,
 * 4 KiB, whose code is replaced by `nil`). */
int inject_ruby(const target *t, const char *code, unsigned timeout_ms,
                inject_started_fn started, void *arg, inject_report *rep,
                char *err, size_t errlen);

#endif /* RUBY_INJECT_H */
