/* id_index.h -- the node of an object, found by its id.
 *
 * Dumps list their objects in heap order, so their ids ascend through long
 * stretches (99.999% of heapfmt-gen's consecutive pairs, 99.7% of a Ruby
 * heap's), and most references point near their referrer (60-70% within
 * 16,384 objects). A hash that scatters every id throws both away: once
 * the table outgrows the caches, every insert and every lookup is a miss.
 *
 * So near ids get near slots. An id's position is id >> shift, with the
 * shift chosen from the dump's usual spacing of ids so that consecutive
 * objects land two to four slots apart; positions go by regions of
 * ID_REGION, each placed at a hashed base: the slot is the base plus the
 * position within the region. Building the index then writes the table
 * nearly in order, and the targets near a referrer are looked up in a
 * part of the table (and of the ids) already in the cache.
 *
 * Ids that regions overlap on collide. A collision takes the next free
 * slot within ID_WINDOW slots, never further (linear probing across
 * regions piles up clusters at some sizes and not at others); an object
 * whose window is full goes to a plain hash on the side, the overflow
 * (well under 1% of the objects of heapfmt-gen's dumps and of a Ruby
 * heap). A dump whose ids do not mostly ascend, or that would overflow
 * more than one object in ID_OVERFLOW_MAX, gets a plain hash of every id.
 *
 * The ids come from the file: every hash here (the regions' bases, the
 * overflow, the plain hash) is seeded per build (hash.h), so that a file
 * cannot be made whose ids all take one slot (before: 160k ids i * K^-1
 * took 13 s under the unseeded Fibonacci hash; issue 31). The window
 * bounds a near insert at ID_WINDOW probes, and the overflow at 1 in
 * ID_OVERFLOW_MAX objects, whatever the ids.
 *
 * 4 bytes per slot, at most 80% full: 5 to 10 bytes per object. An
 * object whose id an earlier one has is counted, and lookups find the
 * first.
 *
 * This is the analysis library's index of ids over a loaded object array
 * (the graph tools and owners). Two other structures keep ids for what it
 * does not do: objset.h, the diff's sorted 10-byte objects (matched in
 * order, no lookup), and idset.h, counts of ids as a stream meets them
 * with no object array (export's MongoDB _ids, info --verify). */
#ifndef GRAPH_ID_INDEX_H
#define GRAPH_ID_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "diff_mem.h"
#include "hash.h"

#define ID_NONE UINT32_MAX   /* not found */
#define ID_REGION_BITS 10    /* 1,024 positions, 4 KiB of table */
#define ID_WINDOW 16         /* slots a collision may move on */
#define ID_OVERFLOW_MAX 16   /* more than 1 in 16 overflowing: plain */
#define ID_PLAIN 64u         /* shift of the plain hash */

typedef struct id_index {
    const uint64_t *id;  /* the graph's ids, by node; not owned */
    uint32_t *slot;      /* node + 1 per slot, 0 empty */
    uint64_t seed;       /* of every hash of the index (hash.h) */
    unsigned bits;       /* 2^bits slots */
    unsigned shift;      /* position = id >> shift; ID_PLAIN: hashed */
    uint32_t *over;      /* the overflow: node + 1 per slot, or NULL */
    unsigned over_bits;
    size_t noverflow;    /* objects in the overflow */
    uint64_t duplicates; /* objects whose id an earlier one has */
} id_index;

/* Builds the index of the n ids (by node), which must stay in place while
 * it is used. Returns 0, or -1 when memory runs out (x is then empty). */
int id_index_build(id_index *x, const diff_mem *m, const uint64_t *id,
                   uint32_t n);

void id_index_free(id_index *x, const diff_mem *m);

/* The seeded hash of key: its top bits, a slot of 2^bits. */
static inline size_t id_hash(uint64_t seed, uint64_t key, unsigned bits)
{
    return (size_t)(hf_hash_u64(seed, key) >> (64 - bits));
}

/* The base of a region: Fibonacci hashing of the region's number, which
 * spreads a run of consecutive regions evenly over the table (a mixing
 * hash scatters them at random, and their overlaps sent the test dumps
 * with a dense stretch to the plain hash one time in ten), xored with the
 * seed above its low ID_SEED_SHIFT bits first. The xor moves each aligned
 * run of 2^ID_SEED_SHIFT regions (27M objects of a heap) whole, so the
 * run stays as evenly spread (heapfmt-gen at 1M and 10M objects: 0.51-0.57%
 * and 1.64-1.72% overflow, against 0.57% and 1.67% unseeded), while
 * regions chosen to collide under the bare product (i * K^-1) scatter. An
 * attacker who made bases collide anyway would only fill windows, which
 * sends the build to the plain hash past 1 in ID_OVERFLOW_MAX. */
#define ID_SEED_SHIFT 16

static inline size_t id_base(uint64_t seed, uint64_t region, unsigned bits)
{
    return (size_t)(((region ^ (seed << ID_SEED_SHIFT)) *
                     0x9E3779B97F4A7C15ull) >>
                    (64 - bits));
}

/* Where id's search starts in the table. */
static inline size_t id_home(const id_index *x, uint64_t id)
{
    if (x->shift == ID_PLAIN)
        return id_hash(x->seed, id, x->bits);
    uint64_t pos = id >> x->shift;
    size_t base = id_base(x->seed, pos >> ID_REGION_BITS, x->bits);
    size_t within = (size_t)pos & (((size_t)1 << ID_REGION_BITS) - 1);
    return (base + within) & (((size_t)1 << x->bits) - 1);
}

/* The node of id in a table of 2^bits slots from slot s on, looking at
 * most at limit slots. Sets *full when all of them were taken. */
static inline uint32_t id_probe(const uint64_t *ids, const uint32_t *slot,
                                unsigned bits, size_t s, uint64_t id,
                                size_t limit, int *full)
{
    size_t mask = ((size_t)1 << bits) - 1;
    for (size_t i = 0; i < limit; i++, s = (s + 1) & mask) {
        uint32_t e = slot[s];
        if (e == 0) {
            *full = 0;
            return ID_NONE;
        }
        if (ids[e - 1] == id) {
            *full = 0;
            return e - 1;
        }
    }
    *full = 1;
    return ID_NONE;
}

/* Whether x is built (a zeroed or freed index is not). */
static inline int id_index_built(const id_index *x)
{
    return x->slot != NULL;
}

/* The node of the object with this id, or ID_NONE. */
static inline uint32_t id_index_find(const id_index *x, uint64_t id)
{
    if (!id_index_built(x))
        return ID_NONE;
    int full;
    size_t limit = x->shift == ID_PLAIN ? SIZE_MAX : ID_WINDOW;
    uint32_t v = id_probe(x->id, x->slot, x->bits, id_home(x, id), id,
                          limit, &full);
    if (v == ID_NONE && full && x->over != NULL)
        v = id_probe(x->id, x->over, x->over_bits,
                     id_hash(x->seed, id, x->over_bits), id, SIZE_MAX, &full);
    return v;
}

/* What to fetch into the cache for a lookup to come: far ahead, id's home
 * slot; nearer, once that slot is in the cache, the id it holds. They
 * return the address for the caller's __builtin_prefetch: GCC 12 drops a
 * prefetch made in a branch of an inline function like these. */
static inline const void *id_index_slot_addr(const id_index *x, uint64_t id)
{
    return x->slot != NULL ? (const void *)&x->slot[id_home(x, id)]
                           : (const void *)x;
}

static inline const void *id_index_id_addr(const id_index *x, uint64_t id)
{
    if (x->slot == NULL)
        return x;
    uint32_t e = x->slot[id_home(x, id)];
    return e != 0 ? (const void *)&x->id[e - 1] : (const void *)x;
}

#endif /* GRAPH_ID_INDEX_H */
