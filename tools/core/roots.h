/* roots.h -- where a process holds its heap from: each thread's
 * registers and live stack (from its stack pointer, less the 128-byte red
 * zone a leaf function may use, to the end of its stack mapping), the
 * writable data of the executable and every library (.data and .bss, as
 * their program headers place them), and every other anonymous writable
 * mapping that is neither a malloc heap nor a stack (thread-local storage,
 * memory a program maps itself). The red zone counts only for a thread
 * stopped in user code, not in a system call (the usual case: a waiting
 * thread), where it holds dead frames. Free memory and the dead part of a
 * stack below its pointer are not roots: stale pointers there would hide
 * leaks. */
#ifndef CORE_ROOTS_H
#define CORE_ROOTS_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"
#include "image.h"
#include "modules.h"

enum root_kind { ROOT_STACK, ROOT_STATIC, ROOT_MAPPING };

extern const char *const root_kind_names[3];

typedef struct root_range {
    uint64_t start, end;   /* 8-aligned words in [start, end) */
    int kind;
    unsigned thread;       /* ROOT_STACK: the thread's number, from 1 */
    uint64_t sp;           /* ROOT_STACK: its stack pointer */
    const module *mod;     /* ROOT_STATIC */
} root_range;

typedef struct roots {
    root_range *r;
    size_t n, cap;
    unsigned no_stack;     /* threads whose stack is not in the image */
} roots;

/* Finds the root ranges. Returns 0 or -1 out of memory. */
int roots_find(roots *rs, const image *im, const modules *ms, const heap *h);
void roots_free(roots *rs);

#endif /* CORE_ROOTS_H */
