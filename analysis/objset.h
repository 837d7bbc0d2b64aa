/* objset.h -- a compact array of objects: 10 bytes each.
 *
 * An object is reduced to what a diff needs: its id, its kind (a number
 * standing for class, type and site, see tuples.h) and its size. The held
 * dump of heapfmt-diff is one of these, so its size per object is the
 * tool's memory per object (issue 19: at most 12 bytes, process included).
 *
 * Ids are mostly addresses, and the objects of a heap live in a few 4 GiB
 * regions: an entry keeps the low 32 bits of its id and the number of its
 * region, whose high 32 bits are kept once per set. Sizes below 65,535
 * (nearly every object of a VM heap) fit in 16 bits. An object that does
 * not fit -- a 64th region, a kind of 2^24 or more, a larger size -- is
 * kept whole in a side array, its entry holding the index there: the set
 * stays exact for any input, at 34 bytes for such an object.
 *
 * The two top bits of an entry's tag are marks set while matching dumps
 * ("seen in the other dump"), for every object alike.
 *
 * Why the diff keeps its own model rather than the graph's (graph.h's
 * arrays and id_index.h): the diff matches dumps by walking them sorted
 * by id side by side, never looking an id up, and holds a dump at 10.6
 * bytes an object (`make bench`, two 10M dumps: 101 MiB peak, issue 19's
 * goal at most 16 + 32 MiB), where the graph's ids, sizes and kinds take
 * 20 and its index 5-10 more. */
#ifndef DIFF_OBJSET_H
#define DIFF_OBJSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diff_mem.h"

/* Byte arrays, not integers: no padding, so an entry is 10 bytes. */
typedef struct dobj {
    unsigned char low[4];  /* the id's low 32 bits, or the side index */
    unsigned char tag[4];  /* marks (2 bits) | region (6) | kind (24) */
    unsigned char size[2]; /* bytes, when the object is not on the side */
} dobj;

/* An object that does not fit an entry. */
typedef struct objset_side {
    uint64_t id;
    uint64_t size;
    uint32_t kind;
} objset_side;

#define OBJSET_MAX_KINDS (1u << 30) /* kinds are below this */
#define OBJSET_MARK1 0x40000000u
#define OBJSET_MARK2 0x80000000u
#define OBJSET_MARKS (OBJSET_MARK1 | OBJSET_MARK2)
#define OBJSET_REGION_SHIFT 24
#define OBJSET_SIDE 63u /* the region number of an object on the side */
#define OBJSET_INLINE_KINDS (1u << OBJSET_REGION_SHIFT)
#define OBJSET_INLINE_SIZES 0xffffu /* sizes below this fit */

typedef struct objset {
    const diff_mem *mem;
    dobj *v;
    size_t n, cap;
    uint32_t high[OBJSET_SIDE]; /* the high id word of each region */
    unsigned nregions;
    unsigned last; /* the region of the last push: ids come in runs */
    objset_side *side;
    size_t nside, capside;
} objset;

void objset_init(objset *s, const diff_mem *mem);
void objset_free(objset *s);

/* Empties the set, keeping its memory. */
void objset_clear(objset *s);

/* Makes room for n objects in all. Returns 0 or -1 (no memory). */
int objset_reserve(objset *s, size_t n);

/* Appends an object (kind below OBJSET_MAX_KINDS, marks clear). Returns 0
 * or -1 (no memory). */
int objset_push(objset *s, uint64_t id, uint32_t kind, uint64_t size);

static inline uint32_t objset_load32(const unsigned char *p)
{
    uint32_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline void objset_store32(unsigned char *p, uint32_t x)
{
    memcpy(p, &x, sizeof x);
}

static inline unsigned objset_region(const dobj *o)
{
    return (objset_load32(o->tag) >> OBJSET_REGION_SHIFT) & OBJSET_SIDE;
}

static inline uint64_t objset_id(const objset *s, const dobj *o)
{
    unsigned r = objset_region(o);
    uint32_t low = objset_load32(o->low);
    return r != OBJSET_SIDE ? (uint64_t)s->high[r] << 32 | low
                            : s->side[low].id;
}

/* The kind of an object, marks removed. */
static inline uint32_t objset_kind(const objset *s, const dobj *o)
{
    return objset_region(o) != OBJSET_SIDE
               ? objset_load32(o->tag) & (OBJSET_INLINE_KINDS - 1)
               : s->side[objset_load32(o->low)].kind;
}

static inline uint64_t objset_size(const objset *s, const dobj *o)
{
    if (objset_region(o) == OBJSET_SIDE)
        return s->side[objset_load32(o->low)].size;
    uint16_t size;
    memcpy(&size, o->size, sizeof size);
    return size;
}

/* The marks of an object (OBJSET_MARK1, OBJSET_MARK2). */
static inline uint32_t objset_marks(const dobj *o)
{
    return objset_load32(o->tag) & OBJSET_MARKS;
}

static inline void objset_mark(dobj *o, uint32_t mark)
{
    objset_store32(o->tag, objset_load32(o->tag) | mark);
}

/* Gives an object of s another kind (below OBJSET_MAX_KINDS), keeping
 * its marks. Returns 0 or -1 (no memory: the object is unchanged). */
int objset_set_kind(objset *s, dobj *o, uint32_t kind);

/* Sorts the objects by id (objects with equal ids end up next to each
 * other, in no particular order). In place: no memory beyond a few KiB of
 * stack. */
void objset_sort(objset *s);

/* The lowest index i >= from with the id of s->v[i] >= id, or s->n; the
 * objects from `from` on must be sorted. Gallops from `from`, so that
 * walking a sorted sequence of ids costs O(log gap) per step. */
size_t objset_seek(const objset *s, size_t from, uint64_t id);

#endif /* DIFF_OBJSET_H */
