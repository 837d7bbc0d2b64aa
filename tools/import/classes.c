/* classes.c -- class address table of the importer. */
#include <stdlib.h>
#include <string.h>

#include "classes.h"

void ct_init(ct_table *t)
{
    memset(t, 0, sizeof *t);
    hf_map_init(&t->index); /* seeded: addresses come from the input */
}

void ct_free(ct_table *t)
{
    if (t) {
        hf_map_free(&t->index, hf_default_allocator());
        free(t->entries);
        ct_init(t);
    }
}

ct_entry *ct_get(ct_table *t, uint64_t id)
{
    if (id == 0) {
        memset(&t->none, 0, sizeof t->none);
        return &t->none;
    }
    uint32_t at;
    if (hf_map_get(&t->index, id, &at))
        return &t->entries[at];
    if (t->count >= UINT32_MAX - 1)
        return NULL;
    if (t->count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 256;
        ct_entry *ne = ncap <= SIZE_MAX / sizeof *ne
                           ? realloc(t->entries, ncap * sizeof *ne)
                           : NULL;
        if (!ne)
            return NULL;
        t->entries = ne;
        t->cap = ncap;
    }
    if (hf_map_put(&t->index, hf_default_allocator(), id,
                   (uint32_t)t->count) != 0)
        return NULL;
    ct_entry *e = &t->entries[t->count++];
    memset(e, 0, sizeof *e);
    e->id = id;
    return e;
}
