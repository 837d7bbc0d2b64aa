/* id_index.c -- building the index of ids: near ids in near slots, or a
 * plain hash. */
#include <stdlib.h>
#include <string.h>

#include "id_index.h"

/* How far ahead of the object being entered its slot is fetched. */
#define ID_PREFETCH 64

/* Pairs of consecutive ids sampled to choose the shift. */
#define ID_SAMPLES 1024

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The shift that puts consecutive objects two to four slots apart where
 * their ids are closest (the tenth percentile of the sampled spacings:
 * closer ids would collide); ID_PLAIN when the ids mostly do not ascend. */
static unsigned choose_shift(const uint64_t *id, uint32_t n)
{
    uint64_t d[ID_SAMPLES];
    size_t nd = 0, tried = 0, step = n / ID_SAMPLES + 1;
    for (size_t v = 1; v < n && tried < ID_SAMPLES; v += step, tried++)
        if (id[v] > id[v - 1])
            d[nd++] = id[v] - id[v - 1];
    if (tried == 0 || nd * 4 < tried * 3)
        return ID_PLAIN;
    qsort(d, nd, sizeof *d, cmp_u64);
    uint64_t close = d[nd / 10];
    return close < 4 ? 0 : 62u - (unsigned)__builtin_clzll(close);
}

static uint32_t *table(const diff_mem *m, unsigned bits)
{
    size_t bytes = ((size_t)1 << bits) * sizeof(uint32_t);
    uint32_t *t = diff_mem_alloc(m, bytes);
    if (t != NULL)
        memset(t, 0, bytes);
    return t;
}

/* The least bits for a table of entries at most 80% full. */
static unsigned bits_for(size_t entries)
{
    unsigned bits = 4;
    while (((size_t)1 << bits) < entries + entries / 4)
        bits++;
    return bits;
}

/* Enters node v into the table from slot s on, within limit slots.
 * Returns 0 (entered, or counted as a duplicate: the earlier node keeps
 * the id) or -1 (no free slot within the limit). */
static int enter(id_index *x, uint32_t *slot, unsigned bits, size_t s,
                 uint32_t v, size_t limit)
{
    size_t mask = ((size_t)1 << bits) - 1;
    uint64_t id = x->id[v];
    for (size_t i = 0; i < limit; i++, s = (s + 1) & mask) {
        uint32_t e = slot[s];
        if (e == 0) {
            slot[s] = v + 1;
            return 0;
        }
        if (x->id[e - 1] == id) {
            x->duplicates++;
            return 0;
        }
    }
    return -1;
}

/* Near ids in near slots; the objects whose window is full are listed in
 * *over (at most n / ID_OVERFLOW_MAX). Returns 0, 1 when more would
 * overflow (the table is then to be built plain), -1 (no memory). */
static int build_near(id_index *x, const diff_mem *m, uint32_t n,
                      uint32_t **over)
{
    size_t cap = 0, most = n / ID_OVERFLOW_MAX;
    for (uint32_t v = 0; v < n; v++) {
        if (v + ID_PREFETCH < n)
            __builtin_prefetch(&x->slot[id_home(x, x->id[v + ID_PREFETCH])],
                               1);
        if (enter(x, x->slot, x->bits, id_home(x, x->id[v]), v, ID_WINDOW) ==
            0)
            continue;
        if (x->noverflow == most)
            return 1;
        if (diff_mem_reserve(m, (void **)over, &cap, x->noverflow + 1,
                             sizeof **over) != 0)
            return -1;
        (*over)[x->noverflow++] = v;
    }
    return 0;
}

/* The overflow's own plain hash, in node order (so the first of repeated
 * ids keeps it: a later object with an id already in the table has the
 * same full window, so it overflows too). */
static int build_overflow(id_index *x, const diff_mem *m,
                          const uint32_t *over)
{
    x->over_bits = bits_for(x->noverflow);
    x->over = table(m, x->over_bits);
    if (x->over == NULL)
        return -1;
    for (size_t i = 0; i < x->noverflow; i++)
        enter(x, x->over, x->over_bits,
              id_hash(x->seed, x->id[over[i]], x->over_bits), over[i],
              SIZE_MAX);
    return 0;
}

static void build_plain(id_index *x, uint32_t n)
{
    for (uint32_t v = 0; v < n; v++) {
        if (v + ID_PREFETCH < n)
            __builtin_prefetch(&x->slot[id_home(x, x->id[v + ID_PREFETCH])],
                               1);
        enter(x, x->slot, x->bits, id_home(x, x->id[v]), v, SIZE_MAX);
    }
}

int id_index_build(id_index *x, const diff_mem *m, const uint64_t *id,
                   uint32_t n)
{
    memset(x, 0, sizeof *x);
    x->id = id;
    x->seed = hf_hash_seed(x);
    x->shift = choose_shift(id, n);
    x->bits = bits_for(n);
    x->slot = table(m, x->bits);
    if (x->slot == NULL)
        return -1;
    uint32_t *over = NULL;
    int rc = 0;
    if (x->shift != ID_PLAIN) {
        rc = build_near(x, m, n, &over);
        if (rc == 1) { /* the ids' spacing defeats the regions */
            memset(x->slot, 0, ((size_t)1 << x->bits) * sizeof *x->slot);
            x->shift = ID_PLAIN;
            x->noverflow = 0;
            x->duplicates = 0;
            rc = 0;
        } else if (rc == 0 && x->noverflow > 0) {
            rc = build_overflow(x, m, over);
        }
    }
    if (rc == 0 && x->shift == ID_PLAIN)
        build_plain(x, n);
    diff_mem_free(m, over);
    if (rc != 0)
        id_index_free(x, m);
    return rc;
}

void id_index_free(id_index *x, const diff_mem *m)
{
    diff_mem_free(m, x->slot);
    diff_mem_free(m, x->over);
    memset(x, 0, sizeof *x);
}
