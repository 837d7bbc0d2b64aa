/* scrub_stack.h -- for the test programs of tests/core/ (C and C++).
 *
 * Overwrites the stack below the caller, where dead frames left
 * pointers: heapfmt-core scans stacks for roots, and a leaked block
 * whose address lingers in a dead frame would look held. */
#ifndef SCRUB_STACK_H
#define SCRUB_STACK_H

#include <string.h>

static void __attribute__((noinline)) scrub_stack(void)
{
    volatile unsigned char pad[64 * 1024];
    memset((void *)pad, 0, sizeof pad);
    __asm__ volatile("" ::"r"(pad) : "memory");
}

#endif
