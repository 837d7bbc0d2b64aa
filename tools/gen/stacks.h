/* stacks.h -- heapfmt-gen --stacks: the call paths of a native heap.
 *
 * GEN_STACK_PATHS call stacks, as a malloc tracker (libheapfmt-malloc)
 * would record them in a Ruby process with native extensions: innermost
 * first, the tracker's own frame, then libc, libstdc++ or the Ruby VM's
 * allocator, a library or extension (libyaml, OpenSSL, zlib, Fiddle...),
 * and the program's or the VM's callers down to _start. Each path is one
 * of GEN_STACK_LEAVES allocating ends joined to one of the callers;
 * frames carry their library's path and an instruction offset, and the
 * program's frames a source file and line.
 *
 * The paths themselves are fixed; which object gets which path is drawn
 * by gen.c from the seed. */
#ifndef GEN_STACKS_H
#define GEN_STACKS_H

#include <stdint.h>

#include "heapfmt.h"

#define GEN_STACK_LEAVES 12u
#define GEN_STACK_CALLERS 4u
#define GEN_STACK_PATHS (GEN_STACK_LEAVES * GEN_STACK_CALLERS)

/* Writes the strings, FRAME and STACK records of every path and stores
 * the stack ids in ids. Returns HEAPFMT_OK or the writer's error. */
int gen_stacks_write(heapfmt_writer *w, uint32_t ids[GEN_STACK_PATHS]);

#endif /* GEN_STACKS_H */
