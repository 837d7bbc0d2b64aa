/* objset.h -- a compact array of objects: 16 bytes each.
 *
 * An object is reduced to what a diff needs: its id, its kind (a number
 * standing for class, type and site, see tuples.h) and its size. The two
 * top bits of the kind field are free for marks set while matching dumps
 * ("seen in the other dump"); kinds are therefore below 2^30.
 *
 * Sizes below 2 GiB are stored as they are. A larger size (the VM's rare
 * huge buffer) goes to a side array, and the size field holds
 * OBJSET_BIG | its index there; objset_size() hides the difference. */
#ifndef DIFF_OBJSET_H
#define DIFF_OBJSET_H

#include <stddef.h>
#include <stdint.h>

#include "diff_mem.h"

typedef struct dobj {
    uint64_t id;
    uint32_t kind; /* kind number | marks */
    uint32_t size; /* bytes, or OBJSET_BIG | index into the side array */
} dobj;

#define OBJSET_KIND_MASK 0x3fffffffu
#define OBJSET_MAX_KINDS (OBJSET_KIND_MASK + 1u)
#define OBJSET_MARK1 0x40000000u
#define OBJSET_MARK2 0x80000000u
#define OBJSET_BIG 0x80000000u

typedef struct objset {
    const diff_mem *mem;
    dobj *v;
    size_t n, cap;
    uint64_t *big; /* sizes of 2 GiB and more */
    size_t nbig, capbig;
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

/* The size of an object of s. */
static inline uint64_t objset_size(const objset *s, const dobj *o)
{
    return (o->size & OBJSET_BIG) ? s->big[o->size & ~OBJSET_BIG] : o->size;
}

/* Sorts the objects by id (objects with equal ids end up next to each
 * other, in no particular order). In place: no memory beyond a few KiB of
 * stack. */
void objset_sort(objset *s);

/* The lowest index i >= from with s->v[i].id >= id, or s->n; the objects
 * from `from` on must be sorted. Gallops from `from`, so that walking a
 * sorted sequence of ids costs O(log gap) per step. */
size_t objset_seek(const objset *s, size_t from, uint64_t id);

#endif /* DIFF_OBJSET_H */
