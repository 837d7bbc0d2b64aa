/* cli_native.h -- what a heapfmt-malloc dump says about the process's
 * memory beside its blocks: resident memory against the bytes the
 * program holds in malloc'd blocks. Their ratio is the allocator's
 * overhead: much above 1 is fragmentation or the allocator's caches,
 * memory the program does not use and no dump of its blocks shows (the
 * "leak" that is not one). heapfmt-info, histo and heapfmt-report say it
 * the same way. */
#ifndef CLI_NATIVE_H
#define CLI_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

typedef struct cli_native {
    uint64_t rss;        /* resident bytes of the process, the tracker's
                            own memory taken off */
    uint64_t tracker;    /* META malloc.tracker_bytes (0 when absent) */
    uint64_t live;       /* META malloc.live.bytes */
    int estimated;       /* META malloc.estimates = 1: live is an estimate */
    int have_free;
    uint64_t arena_free; /* META mallinfo2.fordblks: free inside glibc's
                            arenas */
} cli_native;

/* Fills *n from r's META. Returns 1 when the dump has both META rss and
 * malloc.live.bytes (a heapfmt-malloc dump), 0 otherwise. */
int cli_native_read(const heapfmt_reader *r, cli_native *n);

/* rss / live, or 0 when nothing is live. */
double cli_native_overhead(const cli_native *n);

/* One sentence for people, without a final newline: "resident 18.1 MiB
 * for 942.8 KiB live in malloc'd blocks: 19.7x ...". */
void cli_native_sentence(const cli_native *n, char *buf, size_t cap);

#endif /* CLI_NATIVE_H */
