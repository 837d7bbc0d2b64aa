/* malloc_shim_floor.c -- the floor of any LD_PRELOAD allocation tracker
 * (issue 39): a shared object whose malloc, free, calloc and realloc do
 * nothing but count the call in an initial-exec thread-local and forward
 * it to glibc's own entry points. Whatever a tracker does beyond this
 * (sampling countdown, free filter, stack capture) is its own cost; this
 * much every interposer pays, so `make bench-malloc` reports the
 * malloc-heavy program under it beside the tracker's modes.
 *
 * callgrind, bench/malloc_heavy 2 1 (2M calls): alone 160 instructions a
 * call, under this shim 164, without the counter 162. */
#define _GNU_SOURCE
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

/* Read nowhere: the count stands for the least state a tracker keeps. */
__attribute__((tls_model("initial-exec"))) __thread unsigned long shim_calls;

void *malloc(size_t n) {
    shim_calls++;
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n) {
    shim_calls++;
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    shim_calls++;
    return __libc_realloc(p, n);
}

void free(void *p) {
    shim_calls++;
    __libc_free(p);
}
