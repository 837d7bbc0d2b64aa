/* cli_strmap.h -- a map from byte strings to dense indexes 0, 1, 2, ...
 *
 * Tools use it to merge rows by name: the classes of two dumps matched by
 * display name (histo, heapfmt-diff), or any other string key. Keys are
 * copied into the map (NUL-terminated, so they can be handed to regexec or
 * printf; the key itself may contain NUL bytes) and keep their index and
 * address for the map's lifetime. Indexes follow insertion order.
 *
 * Memory is proportional to the number and length of distinct keys; an
 * insert allocates only when the key is new (and then rarely: keys are
 * packed into an arena, the tables grow by doubling). It is the library's
 * string table (libheapfmt/common/strtab.h), indexed from 0.
 *
 * Usage:
 *     cli_strmap m;
 *     cli_strmap_init(&m);
 *     size_t i;
 *     if (cli_strmap_add(&m, name, len, &i) < 0) ... out of memory ...
 *     counts[i] += n;
 *     cli_strmap_free(&m);
 */
#ifndef CLI_STRMAP_H
#define CLI_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

typedef struct cli_strmap {
    hf_strtab table; /* the shared intern table, ids = index + 1 */
} cli_strmap;

/* Makes an empty map. */
void cli_strmap_init(cli_strmap *m);

/* Frees every key and table; the map is then empty and reusable. */
void cli_strmap_free(cli_strmap *m);

/* Finds key (len bytes) and stores its index in *index, adding a copy of
 * the key with the next index when it is new. Returns 1 if the key was
 * added, 0 if it was already there, -1 when out of memory (or past 2^32-2
 * keys); the map is then unchanged. */
int cli_strmap_add(cli_strmap *m, const char *key, size_t len, size_t *index);

/* Finds key without adding it. Returns 0 with *index set, or -1. */
int cli_strmap_find(const cli_strmap *m, const char *key, size_t len,
                    size_t *index);

/* Number of keys. */
size_t cli_strmap_count(const cli_strmap *m);

/* The key of index i (< count): a NUL-terminated copy, length in *len
 * (len may be NULL). */
const char *cli_strmap_key(const cli_strmap *m, size_t i, size_t *len);

#endif /* CLI_STRMAP_H */
