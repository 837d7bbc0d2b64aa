/* live.h -- reading a running process without a core: ptrace seize and
 * interrupt of every thread, registers, a copy of its writable memory
 * from /proc/PID/mem, then every thread resumed (a thread stopped by a
 * signal before stays stopped). */
#ifndef CORE_LIVE_H
#define CORE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

/* Fills im from process pid (img_free frees it in every case). *pause_us
 * is how long the process was stopped: the copy. Returns 0, or -1 with a
 * one-line reason in err (no such process, permission, another tracer). */
int live_open(image *im, int pid, uint64_t *pause_us, char *err,
              size_t errlen);

/* The number of a "Key:  N" line of /proc/PID/status (pid 0: this
 * process; "RssAnon" is in kB), or -1. */
long proc_status(int pid, const char *key);

#endif /* CORE_LIVE_H */
