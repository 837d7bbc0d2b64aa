/* hm_wake.c -- how the dump thread learns that a dump is due, without a
 * descriptor.
 *
 * The signal handler sets a flag and posts a semaphore (sem_post is
 * async-signal-safe, and a process-private semaphore is a futex in the
 * tracker's memory): nothing the program does to its descriptors can
 * break the wake-up, make it spin, or make the tracker read the program's
 * data. A dump is written only when the flag was set or the interval's
 * deadline has passed (hm_schedule_due), so a spurious or failed wait
 * writes nothing; signals that arrive while a dump is written make one
 * more dump, not one each. */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>

#include "hm.h"

static sem_t sem;
static _Atomic int requested;

void hm_wake_init(void) {
    sem_init(&sem, 0, 0);
    atomic_store(&requested, 0);
}

void hm_wake_post(void) {
    int saved = errno;
    atomic_store(&requested, 1);
    sem_post(&sem); /* EOVERFLOW: a wake-up is pending anyway */
    errno = saved;
}

void hm_wake_nudge(void) {
    sem_post(&sem); /* a wake-up without a request: no dump */
}

int hm_wake_take(void) {
    return atomic_exchange(&requested, 0);
}

uint64_t hm_wake_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int hm_wake_wait(uint64_t deadline_ns) {
    int r;
    if (deadline_ns == 0) {
        r = sem_wait(&sem);
    } else {
        struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                              .tv_nsec = (long)(deadline_ns % 1000000000u)};
        r = sem_clockwait(&sem, CLOCK_MONOTONIC, &ts);
    }
    if (r != 0 && errno != EINTR && errno != ETIMEDOUT)
        return -1;
    /* A flood of signals posts many times: one wake-up serves them all. */
    while (sem_trywait(&sem) == 0)
        ;
    return 0;
}

/* In a forked child: the parent's waiter and requests are not the child's. */
void hm_wake_atfork_child(void) {
    hm_wake_init();
}

/* ---- the schedule: when a wake-up makes a dump ---- */

void hm_schedule_init(hm_schedule *s, unsigned interval_s, uint64_t now) {
    s->interval_ns = (uint64_t)interval_s * 1000000000u;
    s->next_ns = s->interval_ns ? now + s->interval_ns : 0;
}

uint64_t hm_schedule_deadline(const hm_schedule *s) {
    return s->next_ns;
}

int hm_schedule_due(hm_schedule *s, uint64_t now, int requested_now) {
    int due = requested_now != 0;
    if (s->interval_ns != 0 && now >= s->next_ns) {
        due = 1;
        /* Missed periods (a stopped process, a long dump) are skipped, not
         * caught up in a burst. */
        s->next_ns += s->interval_ns;
        if (s->next_ns <= now)
            s->next_ns = now + s->interval_ns;
    }
    return due;
}
