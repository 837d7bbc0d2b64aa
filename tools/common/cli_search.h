/* cli_search.h -- binary search over any array sorted by a key.
 *
 * CLI_LOWER_BOUND(pos, n, i, below) sets pos (a size_t) to the first index
 * i in [0, n) for which the expression `below` is false, or to n: `below`
 * says whether element i's key is below the key sought. Written once
 * here for every sorted table of the tools (footer classes by index,
 * strings by id, labels by edge):
 *
 *     size_t at;
 *     CLI_LOWER_BOUND(at, f->nclasses, i, f->classes[i].index < index);
 *     if (at < f->nclasses && f->classes[at].index == index) ...found...
 */
#ifndef CLI_SEARCH_H
#define CLI_SEARCH_H

#include <stddef.h>

#define CLI_LOWER_BOUND(pos, n, i, below)                                    \
    do {                                                                     \
        size_t cli_hi_ = (n);                                                \
        (pos) = 0;                                                           \
        while ((pos) < cli_hi_) {                                            \
            size_t i = (pos) + (cli_hi_ - (pos)) / 2;                        \
            if (below)                                                       \
                (pos) = i + 1;                                               \
            else                                                             \
                cli_hi_ = i;                                                 \
        }                                                                    \
    } while (0)

#endif /* CLI_SEARCH_H */
