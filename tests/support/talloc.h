/*
 * talloc.h -- a counting, failing allocator for heapfmt_allocator hooks.
 *
 * Each block carries a header with a magic number and its size, so frees of
 * foreign or already freed pointers are counted (bad_frees) instead of
 * crashing the test. Thread-safe, as the writer's worker needs.
 */
#ifndef TALLOC_H
#define TALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

typedef struct talloc {
    heapfmt_allocator hooks; /* pass &a->hooks in the options */
    unsigned long calls;     /* alloc calls so far */
    unsigned long fail_at;   /* 1-based alloc call that returns NULL; 0 never */
    int fail_all_after;      /* also fail every call after fail_at */
    unsigned long failed;    /* NULLs returned */
    long live;               /* blocks allocated and not freed */
    size_t live_bytes;
    size_t peak_bytes;
    size_t frees;            /* free calls with a non-NULL pointer */
    unsigned long bad_frees; /* frees of pointers this allocator did not give */
} talloc;

void talloc_init(talloc *a, unsigned long fail_at);

#endif
