/* objset.c -- a compact array of objects: 10 bytes each. */
#include <stdint.h>
#include <string.h>

#include "objset.h"
#include "radix.h"

void objset_init(objset *s, const diff_mem *mem)
{
    memset(s, 0, sizeof *s);
    s->mem = mem;
}

void objset_free(objset *s)
{
    DIFF_MEM_DROP(s->mem, s->v);
    DIFF_MEM_DROP(s->mem, s->side);
    s->n = s->cap = s->nside = s->capside = 0;
    s->nregions = s->last = 0;
}

void objset_clear(objset *s)
{
    s->n = 0;
    s->nside = 0;
    s->nregions = s->last = 0;
}

int objset_reserve(objset *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    /* Exactly n: a caller that knows the count (from the footer) asks
     * once; objset_push grows geometrically on its own. */
    if (n > SIZE_MAX / sizeof *s->v)
        return -1;
    dobj *v = diff_mem_realloc(s->mem, s->v, n * sizeof *v);
    if (v == NULL)
        return -1;
    s->v = v;
    s->cap = n;
    return 0;
}

/* The region of the high id word high, numbered on first sight; OBJSET_SIDE
 * when every number is taken. */
static unsigned region_of(objset *s, uint32_t high)
{
    for (unsigned r = 0; r < s->nregions; r++)
        if (s->high[r] == high)
            return s->last = r;
    if (s->nregions == OBJSET_SIDE)
        return OBJSET_SIDE;
    s->high[s->nregions] = high;
    return s->last = s->nregions++;
}

/* Writes o as an object on the side with the given marks. */
static int put_side(objset *s, dobj *o, uint64_t id, uint32_t kind,
                    uint64_t size, uint32_t marks)
{
    if (s->nside >= UINT32_MAX ||
        diff_mem_reserve(s->mem, (void **)&s->side, &s->capside, s->nside + 1,
                         sizeof *s->side) != 0)
        return -1;
    s->side[s->nside] = (objset_side){.id = id, .size = size, .kind = kind};
    objset_store32(o->low, (uint32_t)s->nside++);
    objset_store32(o->tag, marks | OBJSET_SIDE << OBJSET_REGION_SHIFT);
    memset(o->size, 0, sizeof o->size);
    return 0;
}

static void put_entry(dobj *o, uint64_t id, unsigned r, uint32_t kind,
                      uint64_t size)
{
    uint16_t size16 = (uint16_t)size;
    objset_store32(o->low, (uint32_t)id);
    objset_store32(o->tag, (uint32_t)r << OBJSET_REGION_SHIFT | kind);
    memcpy(o->size, &size16, sizeof size16);
}

/* objset_push when the array is full, the region is not the last one,
 * or the object goes to the side. */
static int push_slow(objset *s, uint64_t id, uint32_t kind, uint64_t size)
{
    if (s->n == s->cap &&
        diff_mem_reserve(s->mem, (void **)&s->v, &s->cap, s->n + 1,
                         sizeof *s->v) != 0)
        return -1;
    dobj *o = &s->v[s->n];
    unsigned r = region_of(s, (uint32_t)(id >> 32));
    if (r == OBJSET_SIDE || kind >= OBJSET_INLINE_KINDS ||
        size >= OBJSET_INLINE_SIZES) {
        if (put_side(s, o, id, kind, size, 0) != 0)
            return -1;
    } else {
        put_entry(o, id, r, kind, size);
    }
    s->n++;
    return 0;
}

int objset_push(objset *s, uint64_t id, uint32_t kind, uint64_t size)
{
    unsigned r = s->last;
    if (s->n == s->cap || r >= s->nregions ||
        s->high[r] != (uint32_t)(id >> 32) || kind >= OBJSET_INLINE_KINDS ||
        size >= OBJSET_INLINE_SIZES)
        return push_slow(s, id, kind, size);
    put_entry(&s->v[s->n++], id, r, kind, size);
    return 0;
}

int objset_set_kind(objset *s, dobj *o, uint32_t kind)
{
    if (objset_region(o) == OBJSET_SIDE) {
        s->side[objset_load32(o->low)].kind = kind;
        return 0;
    }
    if (kind >= OBJSET_INLINE_KINDS)
        return put_side(s, o, objset_id(s, o), kind, objset_size(s, o),
                        objset_marks(o));
    uint32_t tag = objset_load32(o->tag);
    objset_store32(o->tag, (tag & ~(OBJSET_INLINE_KINDS - 1)) | kind);
    return 0;
}

void objset_sort(objset *s)
{
    radix_sort(s);
}

size_t objset_seek(const objset *s, size_t from, uint64_t id)
{
    size_t n = s->n;
    if (from >= n || objset_id(s, &s->v[from]) >= id)
        return from;
    /* id of v[lo] < id: gallop until id of v[hi] >= id or hi == n. */
    size_t lo = from, step = 1, hi;
    for (;;) {
        hi = lo + step;
        if (hi >= n || hi < lo) {
            hi = n;
            break;
        }
        if (objset_id(s, &s->v[hi]) >= id)
            break;
        lo = hi;
        step *= 2;
    }
    /* Invariant: id of v[lo] < id, and hi == n or id of v[hi] >= id. */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (objset_id(s, &s->v[mid]) < id)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}
