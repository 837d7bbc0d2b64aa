/* tuples.c -- dense numbers for small fixed-size keys. */
#include <string.h>

#include "hash.h"
#include "tuples.h"

/* Seeded (hash.h): lines and names come from the file, and an unseeded
 * chain of bijections is inverted in a moment (tests/test_diff_units.c
 * made 160k lines share one hash). */
static uint32_t hash_tuple(uint64_t seed, const tuple *k)
{
    uint64_t h = hf_mix64(((uint64_t)k->klass << 32 | k->type) ^ seed);
    h = hf_mix64(h ^ ((uint64_t)k->stack << 32 | k->file));
    h = hf_mix64(h ^ k->line);
    h = hf_mix64(h ^ k->frame);
    return (uint32_t)(h >> 32);
}

static int same(const tuple *x, const tuple *y)
{
    return x->klass == y->klass && x->type == y->type && x->file == y->file &&
           x->stack == y->stack && x->line == y->line && x->frame == y->frame;
}

static int rehash(tuples *t, size_t nslots)
{
    uint64_t *slots = diff_mem_alloc(t->mem, nslots * sizeof *slots);
    if (slots == NULL)
        return -1;
    memset(slots, 0, nslots * sizeof *slots);
    for (size_t no = 0; no < t->n; no++) {
        uint32_t h = hash_tuple(t->seed, &t->v[no]);
        size_t i = h & (nslots - 1);
        while (slots[i] != 0)
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint64_t)h << 32 | ((uint32_t)no + 1);
    }
    diff_mem_free(t->mem, t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

void tuples_init(tuples *t, const diff_mem *mem, uint32_t limit)
{
    memset(t, 0, sizeof *t);
    t->mem = mem;
    t->limit = limit;
    t->seed = hf_hash_seed(t);
    t->last_no = UINT32_MAX;
}

void tuples_free(tuples *t)
{
    DIFF_MEM_DROP(t->mem, t->v);
    DIFF_MEM_DROP(t->mem, t->slots);
    t->n = t->cap = t->nslots = 0;
    t->last_no = UINT32_MAX;
    t->frozen = 0;
}

/* The slot of k, or the empty slot where it would go. A slot holds the
 * tuple's hash next to its number, so a probe reads the tuple itself
 * only when the hashes agree: one cache miss less per step. */
static size_t probe(const tuples *t, const tuple *k, uint32_t h)
{
    size_t i = h & (t->nslots - 1);
    for (;; i = (i + 1) & (t->nslots - 1)) {
        uint64_t s = t->slots[i];
        if (s == 0 ||
            ((uint32_t)(s >> 32) == h && same(&t->v[(uint32_t)s - 1], k)))
            return i;
    }
}

int tuples_find(const tuples *t, const tuple *k, uint32_t *no)
{
    if (t->nslots == 0)
        return 0;
    size_t i = probe(t, k, hash_tuple(t->seed, k));
    if (t->slots[i] == 0)
        return 0;
    *no = (uint32_t)t->slots[i] - 1;
    return 1;
}

int tuples_intern(tuples *t, const tuple *k, uint32_t *no)
{
    if (t->frozen)
        return -1;
    if (t->last_no != UINT32_MAX && same(&t->last, k)) {
        *no = t->last_no;
        return 0;
    }
    if (t->nslots == 0 && rehash(t, 64) != 0)
        return -1;
    uint32_t h = hash_tuple(t->seed, k);
    size_t i = probe(t, k, h);
    if (t->slots[i] == 0) {
        if (t->n >= t->limit)
            return -2;
        /* Keep the load at or under 3/4: with the hashes in the slots,
         * probing past a few slots costs little. */
        if ((t->n + 1) * 4 > t->nslots * 3) {
            if (rehash(t, t->nslots * 2) != 0)
                return -1;
            i = probe(t, k, h);
        }
        if (diff_mem_reserve(t->mem, (void **)&t->v, &t->cap, t->n + 1,
                        sizeof *t->v) != 0)
            return -1;
        t->v[t->n] = *k;
        t->slots[i] = (uint64_t)h << 32 | ((uint32_t)t->n + 1);
        t->n++;
    }
    *no = (uint32_t)t->slots[i] - 1;
    t->last = *k;
    t->last_no = *no;
    return 0;
}

void tuples_drop_index(tuples *t)
{
    DIFF_MEM_DROP(t->mem, t->slots);
    t->nslots = 0;
    t->last_no = UINT32_MAX;
    t->frozen = 1;
    /* No tuple comes after this: give back the room kept for growth. */
    if (t->cap > t->n && t->n > 0) {
        tuple *v = diff_mem_realloc(t->mem, t->v, t->n * sizeof *v);
        if (v != NULL) {
            t->v = v;
            t->cap = t->n;
        }
    }
}

int tuples_reserve(tuples *t, size_t more)
{
    if (t->frozen)
        return -1;
    if (more > SIZE_MAX / 2 / sizeof(tuple) - t->n)
        return -1;
    size_t want = t->n + more;
    if (diff_mem_reserve(t->mem, (void **)&t->v, &t->cap, want, sizeof *t->v) != 0)
        return -1;
    size_t nslots = t->nslots > 0 ? t->nslots : 64;
    while (want * 4 > nslots * 3)
        nslots *= 2;
    return nslots != t->nslots ? rehash(t, nslots) : 0;
}
