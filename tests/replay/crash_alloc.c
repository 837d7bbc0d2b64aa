/* crash_alloc.c -- an allocator that crashes: glibc's malloc for 2999
 * calls, then at the 3000th a write through NULL, as a
 * broken allocator would. tests/cli/replay.sh replays a trace under it:
 * the crash must be that allocator's result, not heapfmt-replay's. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long calls;

static void count(void) {
    if (++calls == 3000)
        *(volatile int *)(uintptr_t)0 = 1;
}

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { count(); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
