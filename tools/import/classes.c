/* classes.c -- class address table of the importer. */
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "hash.h"

void ct_init(ct_table *t)
{
    memset(t, 0, sizeof *t);
    t->seed = hf_hash_seed(t); /* addresses come from the input (hash.h) */
}

void ct_free(ct_table *t)
{
    if (t) {
        free(t->slots);
        ct_init(t);
    }
}

static size_t slot_of(uint64_t seed, uint64_t id, size_t cap)
{
    return (size_t)hf_hash_u64(seed, id) & (cap - 1);
}

static int rehash(ct_table *t, size_t ncap)
{
    ct_entry *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const ct_entry *e = &t->slots[i];
        if (e->id == 0)
            continue;
        size_t j = slot_of(t->seed, e->id, ncap);
        while (ns[j].id != 0)
            j = (j + 1) & (ncap - 1);
        ns[j] = *e;
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

ct_entry *ct_get(ct_table *t, uint64_t id)
{
    if (t->cap == 0 || (t->count + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 1024;
        if (ncap < t->cap || ncap > ((size_t)-1) / sizeof(ct_entry) ||
            rehash(t, ncap) < 0) {
            /* Still room? Then go on without growing. */
            if (t->cap == 0 || t->count + 1 >= t->cap)
                return NULL;
        }
    }
    size_t i = slot_of(t->seed, id, t->cap);
    while (t->slots[i].id != 0) {
        if (t->slots[i].id == id)
            return &t->slots[i];
        i = (i + 1) & (t->cap - 1);
    }
    ct_entry *e = &t->slots[i];
    memset(e, 0, sizeof *e);
    e->id = id;
    t->count++;
    return e;
}
