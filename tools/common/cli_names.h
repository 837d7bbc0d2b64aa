/* cli_names.h -- readable, stable names for classes, shared by every tool
 * so that histo, heapfmt-diff and heapfmt-export print the same text.
 *
 *   named class           its name, as recorded
 *   anonymous class       #<Class:0x00007f3a8c0d1e28>   (from its id)
 *   anonymous module      #<Module:0x00007f3a8c0d1e28>
 *   no class (index 0)    (no class)
 *   never defined         #<Class:index 17>  (its CLASS record was lost)
 *
 * Two dumps of different processes give an anonymous class different ids,
 * so such classes only match across dumps by id, never by accident. */
#ifndef CLI_NAMES_H
#define CLI_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

typedef struct cli_name {
    char s[64];
} cli_name;

/* Formats the placeholder for a class without a name into *out and returns
 * out->s. index 0 means "no class"; id 0 with a nonzero index means the
 * class was never defined. */
const char *cli_placeholder(cli_name *out, uint32_t index, uint64_t id,
                            uint64_t flags);

/* The display name of a reader class: its name, or the placeholder. The
 * result points into the reader's table or into *buf. *len gets the length
 * (names may contain NUL bytes). */
const char *cli_class_name(const heapfmt_rclass *c, cli_name *buf,
                           size_t *len);

/* The same for a footer summary entry. */
const char *cli_summary_name(const heapfmt_class_summary *s, cli_name *buf,
                             size_t *len);

#endif /* CLI_NAMES_H */
