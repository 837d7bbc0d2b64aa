/* malloc_unwind_floor.c -- the floor of an exact allocation tracker
 * (issue 39): malloc_shim_floor.c's forwarding shim that also unwinds
 * the stack of every allocation (malloc, calloc, realloc; not free) with
 * libunwind's unw_backtrace, as heapfmt-malloc's exact mode does
 * (libheapfmt-malloc/hm_stacks.c, up to HM_MAX_DEPTH + 8 frames), and
 * throws the frames away. A tracker that names each live block's stack
 * pays at least this much; what exact mode does beyond it (interning the
 * stack, the live table, the clock) is its own, so `make bench-malloc`
 * reports exact mode against this floor beside its ratio to the program
 * alone.
 *
 * The first unw_backtrace of a process sets up libunwind's caches and
 * may allocate: a thread-local flag keeps the shim from unwinding inside
 * its own unwinding. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stddef.h>

#define FRAMES (128 + 8) /* hm_settings.h's HM_MAX_DEPTH + 8 */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

__attribute__((tls_model("initial-exec"))) __thread int in_unwind;
/* Read nowhere: the frames count keeps the unwind from being optimised
 * away. */
__attribute__((tls_model("initial-exec"))) __thread unsigned long frames_seen;

static void unwind(void) {
    void *ips[FRAMES];
    if (in_unwind)
        return;
    in_unwind = 1;
    frames_seen += (unsigned long)unw_backtrace(ips, FRAMES);
    in_unwind = 0;
}

void *malloc(size_t n) {
    unwind();
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n) {
    unwind();
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    unwind();
    return __libc_realloc(p, n);
}

void free(void *p) {
    __libc_free(p);
}
