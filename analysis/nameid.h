/* nameid.h -- class, type and file names as 32-bit ids.
 *
 * All dumps of a diff share one cli_strmap of names, so that comparing the
 * classes of objects of two dumps is comparing two integers. Id 0
 * (DIFF_NONE) is the empty string, which stands for "no type" and "no
 * site"; nameid_init() puts it there. */
#ifndef DIFF_NAMEID_H
#define DIFF_NAMEID_H

#include <stddef.h>
#include <stdint.h>

#include "cli_strmap.h"

#define DIFF_NONE 0u

/* Starts an empty table holding only id 0. Returns 0 or -1 (no memory). */
static inline int nameid_init(cli_strmap *t)
{
    size_t i;
    cli_strmap_init(t);
    return cli_strmap_add(t, "", 0, &i) < 0 ? -1 : 0;
}

/* Stores the id of the len bytes at s in *id, adding them when new.
 * Returns 0 or -1 (no memory). */
static inline int nameid_get(cli_strmap *t, const char *s, size_t len,
                             uint32_t *id)
{
    size_t i;
    if (cli_strmap_add(t, s, len, &i) < 0)
        return -1;
    *id = (uint32_t)i; /* cli_strmap holds fewer than 2^32 - 1 keys */
    return 0;
}

/* The text of id (NUL-terminated; len may be NULL). */
static inline const char *nameid_text(const cli_strmap *t, uint32_t id,
                                      size_t *len)
{
    return cli_strmap_key(t, id, len);
}

#endif /* DIFF_NAMEID_H */
