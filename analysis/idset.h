/* idset.h -- how many times each object id was met, in one pass.
 *
 * A heap has one object per id, but a damaged or hostile dump may repeat
 * one. Two readers count ids as they stream a dump, holding no object:
 * heapfmt-export --format=mongo (a MongoDB collection refuses a second
 * document with an _id it holds, so the nth object with an id, n > 1,
 * gets "#n" after it in its _id and in its edges' _ids) and heapfmt-info
 * --verify (which names a repeated id). The graph's id_index.h is the
 * other index of ids: built once over the loaded object array for
 * lookups, where this one grows as the ids come and keeps their counts.
 *
 * Producers write objects in address order (a VM walks its heap pages
 * in order), so most ids come ascending: those are appended to a sorted
 * array, 8 bytes an object written in sequence, and cannot have been met
 * before. Only an id at or below the largest met goes to an
 * open-addressing hash (12 bytes a slot, at most 70% full) and is looked
 * up in the array by bisection. A dump in random order costs what a hash
 * alone would; one in order costs an append. The hash is seeded, so that
 * a dump cannot be made whose ids all take one slot (before, 160k ids
 * j * K^-1 - 1 under a larger one took 13 s; issue 31). */
#ifndef IDSET_H
#define IDSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct idset {
    /* ids that came each above all before them, ascending */
    uint64_t *run;
    size_t nrun, runcap;
    /* the others: id + 1 (0 marks an empty slot; id ~0 is kept apart) and
     * how many times each came outside the run */
    uint64_t *keys;
    uint32_t *counts;
    size_t cap;       /* a power of two, or 0 */
    uint64_t seed;    /* of the hash (hash.h): the ids come from the file */
    size_t n;
    uint32_t max_id_count; /* of the id UINT64_MAX */
} idset;

void idset_init(idset *s);
void idset_free(idset *s);

/* Counts one more object with this id; returns how many there were with
 * it so far, this one included (1 the first time), or 0 when memory runs
 * out. */
uint32_t idset_add(idset *s, uint64_t id);

/* How many objects with this id were counted (0: none). */
uint32_t idset_count(const idset *s, uint64_t id);

#endif /* IDSET_H */
