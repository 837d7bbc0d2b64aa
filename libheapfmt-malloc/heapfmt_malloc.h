/* heapfmt_malloc.h -- the C API of libheapfmt-malloc, the malloc tracker.
 *
 * A program run under the tracker (heapfmt-malloc -- PROG, or
 * LD_PRELOAD=libheapfmt-malloc.so), or linked with -lheapfmt-malloc, may
 * ask for a dump of its native heap at a moment of its choosing. A program
 * that may run without the tracker declares these functions weak and
 * checks them for NULL:
 *
 *     #pragma weak heapfmt_malloc_dump
 *     if (heapfmt_malloc_dump) heapfmt_malloc_dump(NULL, NULL, 0);
 *
 * See heapfmt-malloc(1) for what a dump holds. */
#ifndef HEAPFMT_MALLOC_H
#define HEAPFMT_MALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a dump of the allocations live now to path, or, when path is
 * NULL, to DIR/PREFIX-PID-N.hfd as configured (HEAPFMT_MALLOC_DIR,
 * HEAPFMT_MALLOC_PREFIX; the first N whose name is free). When written is
 * not NULL, the path written is copied there (len bytes at most,
 * NUL-terminated). Blocks other threads' malloc and free for the copy of
 * the table (about 10 ns an allocation), not for the writing, which a
 * thread of the tracker's does (no descriptor of the program's is used or
 * taken, no signal of its raised). Thread-safe; dumps are serialised. Not
 * async-signal-safe: from a signal handler, send the tracker's signal
 * instead. Returns 0, or -1 with errno set (EAGAIN: the tracker is not
 * running yet; ECANCELED: the process is exiting and its exit dump has
 * begun; the errno of a failed open or write: EFBIG past RLIMIT_FSIZE,
 * EBADF when the program closed the dump's descriptor where the kernel
 * refuses the tracker a descriptor table of its own). */
int heapfmt_malloc_dump(const char *path, char *written, size_t len);

/* 1 when the tracker is recording allocations, else 0. */
int heapfmt_malloc_tracking(void);

/* For heapfmt-malloc -p, which loads the tracker into a running process
 * and calls these (a program has no use for them):
 * heapfmt_malloc_attach starts tracking with settings (NAME=VALUE lines
 * of the HEAPFMT_MALLOC_* variables) by pointing every loaded module's
 * malloc family at the tracker; heapfmt_malloc_detach puts them back and
 * stops the dumps. Each returns 0 or one of: */
#define HEAPFMT_MALLOC_PRELOADED 1    /* tracking from the start: nothing to do */
#define HEAPFMT_MALLOC_ATTACHED 2     /* attach: already attached */
#define HEAPFMT_MALLOC_NOT_ATTACHED 3 /* detach: not attached */
#define HEAPFMT_MALLOC_NO_ALLOCATOR 4 /* attach: no malloc in the process */
#define HEAPFMT_MALLOC_NO_MEMORY 5    /* attach: no memory for the records */
int heapfmt_malloc_attach(const char *settings);
int heapfmt_malloc_detach(void);

#ifdef __cplusplus
}
#endif

#endif /* HEAPFMT_MALLOC_H */
