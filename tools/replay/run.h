/* run.h -- the replay itself, in a child process of its own whose malloc
 * is the allocator being measured (child/run.c), and the lines it reports.
 *
 * The child is heapfmt-replay-child (tools/replay/child/, beside the
 * tracker in BINDIR/../lib), executed with the allocator preloaded (or
 * glibc's, with the environment the user gave), so that everything in it
 * allocates as the allocator does. Its own memory comes
 * from mmap and its output is write(2) of text lines, so that the only
 * calls the allocator sees are the trace's.
 *
 * Lines on the result descriptor, one per fact, numbers in decimal:
 *   R clock_ns                       start: the cost of one clock pair
 *   M mark rss live peak alloc_ns elapsed_ns
 *                                    at each barrier of a MARK
 *   E rss live peak alloc_ns calls failed substituted elapsed_ns
 *                                    the end, all threads joined
 *   X why...                         the replay cannot go on (then exit
 *                                    RUN_EXIT_*)
 * rss is the resident anonymous memory less the replay's own (its slot
 * table); peak the most sampled (every 5 ms, and at each barrier). */
#ifndef REPLAY_RUN_H
#define REPLAY_RUN_H

#include <stdint.h>

enum {
    RUN_EXIT_OK = 0,
    RUN_EXIT_NOT_MALLOC = 4, /* malloc is not the allocator's: X says why */
    RUN_EXIT_LIMIT = 5,      /* resident memory passed the limit */
    RUN_EXIT_BAD = 6,        /* the program file, a thread, memory */
    RUN_EXIT_STUCK = 7       /* a wait that never ended */
};

/* The environment variable naming the allocator the child must find
 * serving malloc: "libc.so" for glibc, a soname (libjemalloc.so.2), or
 * an absolute path. */
#define RUN_EXPECT_ENV "HEAPFMT_REPLAY_EXPECT"

/* The child's main: argv after its name: PROGRAM_FD (or "probe": only
 * check that malloc is the allocator's) RESULT_FD MAX_RSS. Returns the
 * exit status. */
int run_child(int argc, char **argv);

#endif /* REPLAY_RUN_H */
