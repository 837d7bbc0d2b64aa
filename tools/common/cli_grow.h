/* cli_grow.h -- the tools' arrays: malloc'd, grown by realloc
 * (doubling), freed with free().
 *
 * realloc, not a new buffer and a copy (libheapfmt's hf_grow): a large
 * array is its own mapping, which realloc moves by remapping its pages,
 * so that growing the block list of a large core never holds the old
 * and the new copies at once (at 1M blocks, 16 MiB more at the peak),
 * and the doubled capacity costs no memory until it is written. */
#ifndef CLI_GROW_H
#define CLI_GROW_H

#include <stddef.h>
#include <stdlib.h>

/* cli_grow's realloc, for need > *cap. */
int cli_grow_realloc(void **p, size_t *cap, size_t need, size_t elem);

/* Makes room in *p (capacity *cap elements of elem bytes) for need
 * elements. Returns 0, or -1 out of memory (*p unchanged). Inline: the
 * importers call it for every record, and a call that finds room is a
 * compare (the out-of-line check cost heapfmt-import 3% of its
 * instructions on a 2.8 MB HPROF). */
static inline int cli_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : cli_grow_realloc(p, cap, need, elem);
}

/* cli_grow for an array read at any index below its capacity: the
 * elements it adds are zero bytes. */
int cli_grow_zeroed(void **p, size_t *cap, size_t need, size_t elem);

/* Makes room for one more element after n in buf (capacity cap);
 * 0 or -1 out of memory (buf unchanged). */
#define GROW(buf, cap, n)                                                  \
    cli_grow((void **)&(buf), &(cap), (n) + 1, sizeof *(buf))

/* qsort of n elements of p, none when fewer than two (qsort's pointer
 * must not be NULL, even for none). */
#define SORT(p, n, cmp)                                                    \
    do {                                                                   \
        if ((n) > 1)                                                       \
            qsort((p), (n), sizeof *(p), (cmp));                           \
    } while (0)

#endif /* CLI_GROW_H */
