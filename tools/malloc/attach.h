/* attach.h -- heapfmt-malloc -p PID, --dump PID, --detach PID: the
 * tracker in a process that was not started with it.
 *
 * Attaching loads libheapfmt-malloc.so into the process and calls its
 * heapfmt_malloc_attach, which points every module's malloc family at the
 * tracker (hm_attach.c). Both run on one thread of the process, stopped
 * with ptrace while it waits in a system call where nothing of the
 * allocator or the loader can be held (poll, epoll_wait, accept, a
 * sleep...: never inside malloc, never in futex); the other threads run
 * on meanwhile, so a lock dlopen needs is always released in time.
 * Detaching calls heapfmt_malloc_detach the same way. A dump is asked for
 * with the tracker's signal, as in launch mode. */
#ifndef MALLOC_ATTACH_H
#define MALLOC_ATTACH_H

#include <signal.h>
#include <sys/types.h>

/* Loads lib (an absolute path) into pid and starts tracking with settings
 * (NAME=VALUE lines of HEAPFMT_MALLOC_* variables). Waits up to
 * timeout_ms for a thread at a safe point. Returns a CLI_EXIT_* code
 * after printing any error. */
int malloc_attach(pid_t pid, const char *lib, const char *settings,
                  unsigned timeout_ms, int verbose);

/* Stops tracking in pid and puts its modules' entries back. */
int malloc_detach(pid_t pid, unsigned timeout_ms, int verbose);

/* Sends pid the tracker's dump signal sig, after checking that the
 * tracker is there and takes it. */
int malloc_dump_request(pid_t pid, int sig, int verbose);

#endif /* MALLOC_ATTACH_H */
