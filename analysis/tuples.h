/* tuples.h -- dense numbers for small fixed-size keys.
 *
 * A tuple (class, type, file, stack, line, frame) gets the number 0, 1,
 * 2... in order of first appearance. heapfmt-diff uses it four times:
 *   - per dump, the "local kind" of an object: (class slot, type slot,
 *     site file slot + 1, stack slot + 1, line) as the reader numbers them;
 *   - across dumps, the "kind": (class, type, file, stack, line, frame) as
 *     name ids (the stack's name, and its top frame's for --by=frame);
 *   - for the summary, the row a kind falls in: (class, file, stack, line)
 *     with the parts not grouped on set to 0;
 *   - an object's identity besides its id: (class, stack).
 * Objects store a kind number (4 bytes) instead of their class, type and
 * site. Lookups are on the per-object path: one seeded multiply-mix hash
 * and, in practice, one probe into a table that fits in cache.
 *
 * Why not the shared table (libheapfmt/common): keyed by packed bytes it
 * costs a byte hash, a length and memcmp and a second array per lookup;
 * measured on histo --by=site, the same shape of per-object lookup, it
 * took 0.10 s of CPU instead of 0.08 s for 3M objects (2026-11-24).
 * heapfmt-diff is held to 2.5 s per 10M objects in make bench, and its
 * memory accounting (diff_mem) and kind limit are part of this table. */
#ifndef DIFF_TUPLES_H
#define DIFF_TUPLES_H

#include <stddef.h>
#include <stdint.h>

#include "diff_mem.h"

/* The parts are named for what every use keeps in them: a class, a type,
 * a file, a call stack, a line and the stack's top frame (or, --by=imemo
 * and iseq, the object's name there: cli_code.h). Per dump (a
 * "local kind") the class and type are the reader's slots, file is the
 * reader's file slot + 1 (0: no site) and stack the reader's stack slot +
 * 1 (0: no stack); across dumps they are name ids (nameid.h). Parts a use
 * does not group on are 0. */
typedef struct tuple {
    uint32_t klass;
    uint32_t type;
    uint32_t file;
    uint32_t stack;
    uint64_t line;
    uint32_t frame;
} tuple;

/* A local kind's file part: the reader's file slot + 1, so that 0 means
 * "no allocation site". */
static inline uint32_t tuple_file_of_slot(uint32_t slot)
{
    return slot + 1;
}

static inline uint32_t tuple_slot_of_file(const tuple *k)
{
    return k->file - 1;
}

typedef struct tuples {
    const diff_mem *mem;
    tuple *v;        /* by number */
    size_t n, cap;
    uint64_t *slots; /* hash << 32 | number + 1; 0 = empty */
    size_t nslots;   /* a power of two, or 0 before the first insert */
    uint64_t seed;   /* of the hash (hash.h) */
    uint32_t limit;  /* most numbers allowed */
    tuple last;      /* one-entry cache: objects come in runs */
    uint32_t last_no;
    int frozen;      /* tuples_drop_index was called */
} tuples;

/* Starts an empty table that hands out numbers below limit. */
void tuples_init(tuples *t, const diff_mem *mem, uint32_t limit);
void tuples_free(tuples *t);

/* Stores the number of *k in *no, adding it if new. Returns 0, -1 when
 * memory runs out, or -2 when the table already holds limit tuples. */
int tuples_intern(tuples *t, const tuple *k, uint32_t *no);

/* Frees the hash index and the room kept for growth, keeping the tuples:
 * tuples_get still works, tuples_find finds nothing and tuples_intern
 * fails (-1). For a table that is complete, before memory is needed
 * elsewhere. */
void tuples_drop_index(tuples *t);

/* Makes room for more tuples, so that adding them neither moves the
 * array nor rehashes (a known count, added in one go). Returns 0 or -1
 * (no memory, or the index was dropped). */
int tuples_reserve(tuples *t, size_t more);

/* Stores the number of *k in *no if present; returns 1, else 0. */
int tuples_find(const tuples *t, const tuple *k, uint32_t *no);

static inline const tuple *tuples_get(const tuples *t, uint32_t no)
{
    return &t->v[no];
}

static inline size_t tuples_count(const tuples *t)
{
    return t->n;
}

#endif /* DIFF_TUPLES_H */
