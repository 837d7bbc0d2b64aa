/* idset.c -- how many times each object id was met. */
#include <stdlib.h>
#include <string.h>

#include "cli_search.h"
#include "hash.h"
#include "idset.h"

void idset_init(idset *s)
{
    memset(s, 0, sizeof *s);
    s->seed = hf_hash_seed(s);
}

void idset_free(idset *s)
{
    free(s->run);
    free(s->keys);
    free(s->counts);
    idset_init(s);
}

static size_t slot_of(uint64_t seed, uint64_t key, size_t mask)
{
    return (size_t)hf_hash_u64(seed, key) & mask;
}

/* Doubles the table (or makes the first). Returns 0 or -1. */
static int grow(idset *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *counts = calloc(cap, sizeof *counts);
    if (keys == NULL || counts == NULL) {
        free(keys);
        free(counts);
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (s->keys[i] == 0)
            continue;
        size_t j = slot_of(s->seed, s->keys[i], cap - 1);
        while (keys[j] != 0)
            j = (j + 1) & (cap - 1);
        keys[j] = s->keys[i];
        counts[j] = s->counts[i];
    }
    free(s->keys);
    free(s->counts);
    s->keys = keys;
    s->counts = counts;
    s->cap = cap;
    return 0;
}

/* Counts id in the hash; returns its count there, or 0 when memory runs
 * out. */
static uint32_t hash_add(idset *s, uint64_t id)
{
    if (10 * (s->n + 1) > 7 * s->cap && grow(s) != 0)
        return 0;
    uint64_t key = id + 1;
    size_t j = slot_of(s->seed, key, s->cap - 1);
    while (s->keys[j] != 0 && s->keys[j] != key)
        j = (j + 1) & (s->cap - 1);
    if (s->keys[j] == 0) {
        s->keys[j] = key;
        s->n++;
    }
    if (s->counts[j] < UINT32_MAX)
        s->counts[j]++;
    return s->counts[j];
}

/* 1 if id is in the ascending run. */
static int in_run(const idset *s, uint64_t id)
{
    size_t lo;
    CLI_LOWER_BOUND(lo, s->nrun, i, s->run[i] < id);
    return lo < s->nrun && s->run[lo] == id;
}

uint32_t idset_add(idset *s, uint64_t id)
{
    if (id == UINT64_MAX) /* id + 1 would be the empty mark */
        return s->max_id_count < UINT32_MAX ? ++s->max_id_count : UINT32_MAX;
    if (s->nrun == 0 || id > s->run[s->nrun - 1]) {
        if (s->nrun == s->runcap) {
            size_t cap = s->runcap ? 2 * s->runcap : 4096;
            uint64_t *run = realloc(s->run, cap * sizeof *run);
            if (run == NULL)
                return 0;
            s->run = run;
            s->runcap = cap;
        }
        s->run[s->nrun++] = id;
        return 1;
    }
    uint32_t k = hash_add(s, id);
    if (k == 0)
        return 0;
    return k < UINT32_MAX && in_run(s, id) ? k + 1 : k;
}

uint32_t idset_count(const idset *s, uint64_t id)
{
    if (id == UINT64_MAX)
        return s->max_id_count;
    uint32_t k = 0;
    if (s->cap != 0) {
        uint64_t key = id + 1;
        size_t j = slot_of(s->seed, key, s->cap - 1);
        while (s->keys[j] != 0 && s->keys[j] != key)
            j = (j + 1) & (s->cap - 1);
        k = s->keys[j] == key ? s->counts[j] : 0;
    }
    return k < UINT32_MAX && in_run(s, id) ? k + 1 : k;
}
