/* classes.h -- what the importer knows about each class address.
 *
 * ObjectSpace.dump_all names a class only on the class's own line, which
 * may come after objects of that class. The importer lets the writer define
 * a class anonymously when an object first uses it, and names it (a second
 * CLASS record for the same id) when its line arrives. This table records,
 * per class address, which of those steps happened. It is the importer's
 * only per-class memory: about 24 bytes per class; nothing is kept per
 * object. */
#ifndef CLASSES_H
#define CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "hf_common.h"

/* ct_entry.state bits */
enum {
    CT_USED = 1u, /* the writer knows the id: used by an object, or written */
    CT_INFO = 2u, /* its CLASS / MODULE / ICLASS line was seen */
    CT_FINAL = 4u, /* defined from its line by the first pass: its line,
                      met again, needs no new CLASS record */
    CT_LATER = 8u  /* first pass only: the address's first line is an
                      include class's, left for the second pass */
};

typedef struct ct_entry {
    uint64_t id;    /* the class's address; never 0 */
    uint64_t super; /* superclass address from its line, 0 if unknown */
    uint32_t flags; /* HEAPFMT_CF_* from its line */
    uint32_t state; /* CT_* */
} ct_entry;

typedef struct ct_table {
    hf_map index;      /* class address -> position in entries (shared
                          table, libheapfmt/common) */
    ct_entry *entries; /* in order of first use */
    size_t count, cap;
    ct_entry none;     /* what id 0 (no class) gets: blank at every call */
} ct_table;

void ct_init(ct_table *t);
void ct_free(ct_table *t);

/* The entry for id, added zeroed (with its id) if new; id 0 is no class
 * and gets a blank entry that nothing is kept in. Returns NULL when the
 * table cannot grow. The pointer is valid until the next
 * ct_get call. */
ct_entry *ct_get(ct_table *t, uint64_t id);

#endif /* CLASSES_H */
