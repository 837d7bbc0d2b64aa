/* grow.h -- the arrays of heapfmt-core grow through libheapfmt's hf_grow
 * (doubling, malloc'd: freed with free()). */
#ifndef CORE_GROW_H
#define CORE_GROW_H

#include <stdlib.h>

#include "hf_common.h"

/* Makes room for one more element after n in buf (capacity cap);
 * 0 or -1 out of memory (buf unchanged). */
#define GROW(buf, cap, n)                                                  \
    hf_grow(hf_default_allocator(), (void **)&(buf), &(cap), (n) + 1,      \
            sizeof *(buf))

/* qsort of n elements of p, none when fewer than two (qsort's pointer
 * must not be NULL, even for none). */
#define SORT(p, n, cmp)                                                    \
    do {                                                                   \
        if ((n) > 1)                                                       \
            qsort((p), (n), sizeof *(p), (cmp));                           \
    } while (0)

#endif /* CORE_GROW_H */
