/* strtab.c -- the string intern table (strtab.h). */
#include "strtab.h"

void hf_strtab_init(hf_strtab *t, const heapfmt_allocator *al)
{
    memset(t, 0, sizeof *t);
    t->al = al;
    /* seeded: a VM's strings may come from whoever talks to it */
    t->seed = hf_hash_seed(t);
    hf_arena_init(&t->arena, al);
}

void hf_strtab_free(hf_strtab *t)
{
    hf_arena_free(&t->arena);
    hf_free(t->al, t->ents);
    hf_free(t->al, t->index);
    t->ents = NULL;
    t->index = NULL;
    t->count = t->cents = t->icap = 0;
}

static size_t find(const hf_strtab *t, const char *s, size_t len, uint32_t h)
{
    size_t i = h & (t->icap - 1);
    for (;; i = (i + 1) & (t->icap - 1)) {
        uint32_t e = t->index[i];
        if (e == 0)
            return i;
        const hf_strent *x = &t->ents[e - 1];
        if (x->hash == h && x->len == len &&
            (len == 0 || memcmp(x->text, s, len) == 0))
            return i;
    }
}

static int rehash(hf_strtab *t, size_t ncap)
{
    uint32_t *ni = hf_alloc(t->al, ncap * sizeof *ni);
    if (!ni)
        return -1;
    memset(ni, 0, ncap * sizeof *ni);
    for (size_t e = 0; e < t->count; e++) {
        size_t i = t->ents[e].hash & (ncap - 1);
        while (ni[i])
            i = (i + 1) & (ncap - 1);
        ni[i] = (uint32_t)e + 1;
    }
    hf_free(t->al, t->index);
    t->index = ni;
    t->icap = ncap;
    return 0;
}

int hf_strtab_intern(hf_strtab *t, const char *s, size_t len, uint32_t new_id,
                     uint32_t *id, int *found)
{
    uint32_t h = (uint32_t)hf_hash_bytes(t->seed, s, len);
    if ((t->count + 1) * 2 > t->icap &&
        rehash(t, t->icap ? t->icap * 2 : 256) < 0)
        return -1;
    size_t i = find(t, s, len, h);
    if (t->index[i]) {
        *id = t->index[i];
        *found = 1;
        return 0;
    }
    if (hf_grow(t->al, (void **)&t->ents, &t->cents, t->count + 1,
                sizeof *t->ents) < 0)
        return -1;
    char *copy = hf_arena_alloc(&t->arena, len + 1);
    if (!copy)
        return -1;
    if (len)
        memcpy(copy, s, len);
    copy[len] = '\0';
    t->ents[t->count] = (hf_strent){copy, len, h};
    t->count++;
    t->index[i] = (uint32_t)t->count;
    *id = new_id;
    *found = 0;
    return 0;
}

int hf_strtab_find(const hf_strtab *t, const char *s, size_t len,
                   uint32_t *id)
{
    if (t->count == 0)
        return 0;
    uint32_t h = (uint32_t)hf_hash_bytes(t->seed, s, len);
    size_t i = find(t, s, len, h);
    if (t->index[i] == 0)
        return 0;
    *id = t->index[i];
    return 1;
}

void hf_strtab_forget_last(hf_strtab *t)
{
    if (t->count == 0)
        return;
    const hf_strent *e = &t->ents[t->count - 1];
    size_t i = find(t, e->text, e->len, e->hash);
    t->count--;
    /* Linear-probing delete: clear the slot, re-place the rest of the run. */
    t->index[i] = 0;
    for (size_t j = (i + 1) & (t->icap - 1); t->index[j];
         j = (j + 1) & (t->icap - 1)) {
        uint32_t moved = t->index[j];
        t->index[j] = 0;
        size_t k = t->ents[moved - 1].hash & (t->icap - 1);
        while (t->index[k])
            k = (k + 1) & (t->icap - 1);
        t->index[k] = moved;
    }
}

const char *hf_strtab_text(const hf_strtab *t, uint32_t id, size_t *len)
{
    const hf_strent *e = &t->ents[id - 1];
    *len = e->len;
    return e->text;
}
