/* map.c -- integer maps for string ids, class indexes and class ids. */
#include "hf_common.h"

/* Seeded (hash.h): the keys come from files. */
static size_t slot_of(uint64_t seed, uint64_t key, size_t cap)
{
    return (size_t)hf_hash_u64(seed, key) & (cap - 1);
}

void hf_map_init(hf_map *m)
{
    memset(m, 0, sizeof *m);
    m->seed = hf_hash_seed(m);
}

void hf_map_free(hf_map *m, const heapfmt_allocator *a)
{
    hf_free(a, m->keys);
    hf_free(a, m->vals);
    hf_map_init(m);
}

int hf_map_get(const hf_map *m, uint64_t key, uint32_t *val)
{
    if (m->cap == 0)
        return 0;
    for (size_t i = slot_of(m->seed, key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        uint32_t v = m->vals[i];
        if (v == 0)
            return 0;
        if (m->keys[i] == key) {
            *val = v - 1;
            return 1;
        }
    }
}

static void insert(uint64_t seed, uint64_t *keys, uint32_t *vals, size_t cap,
                   uint64_t key, uint32_t v1)
{
    size_t i = slot_of(seed, key, cap);
    while (vals[i] != 0 && keys[i] != key)
        i = (i + 1) & (cap - 1);
    keys[i] = key;
    vals[i] = v1;
}

int hf_map_put(hf_map *m, const heapfmt_allocator *a, uint64_t key,
               uint32_t val)
{
    if ((m->count + 1) * 4 > m->cap * 3) { /* keep load under 3/4 */
        size_t ncap = m->cap ? m->cap * 2 : 64;
        uint64_t *nk = hf_alloc(a, ncap * sizeof *nk);
        uint32_t *nv = hf_alloc(a, ncap * sizeof *nv);
        if (!nk || !nv) {
            hf_free(a, nk);
            hf_free(a, nv);
            return -1;
        }
        memset(nv, 0, ncap * sizeof *nv);
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i])
                insert(m->seed, nk, nv, ncap, m->keys[i], m->vals[i]);
        hf_free(a, m->keys);
        hf_free(a, m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    uint32_t old;
    if (!hf_map_get(m, key, &old))
        m->count++;
    insert(m->seed, m->keys, m->vals, m->cap, key, val + 1);
    return 0;
}

size_t hf_map_bytes(const hf_map *m)
{
    return m->cap * (sizeof(uint64_t) + sizeof(uint32_t));
}

void hf_idtab_init(hf_idtab *t)
{
    memset(t, 0, sizeof *t);
    hf_map_init(&t->far);
}

void hf_idtab_free(hf_idtab *t, const heapfmt_allocator *a)
{
    hf_free(a, t->direct);
    hf_map_free(&t->far, a);
    hf_idtab_init(t);
}

/* Keys up to a few times the entry count live in the array, so dense ids
 * (what writers produce) never hash, while a file of scattered huge ids
 * cannot make the array large. */
int hf_idtab_put(hf_idtab *t, const heapfmt_allocator *a, uint64_t key,
                 uint32_t val)
{
    uint32_t old;
    int existed = hf_idtab_get(t, key, &old);
    if (key >= t->ndirect && key < 4 * (uint64_t)t->count + 1024) {
        size_t ncap = t->ndirect;
        if (hf_grow(a, (void **)&t->direct, &ncap, (size_t)key + 1,
                    sizeof *t->direct) < 0)
            return -1;
        memset(t->direct + t->ndirect, 0,
               (ncap - t->ndirect) * sizeof *t->direct);
        t->ndirect = ncap;
        /* Move far entries that now fall in the array. */
        if (t->far.count) {
            hf_map old_far = t->far;
            hf_map_init(&t->far);
            for (size_t i = 0; i < old_far.cap; i++) {
                if (!old_far.vals[i])
                    continue;
                uint64_t k = old_far.keys[i];
                if (k < t->ndirect)
                    t->direct[k] = old_far.vals[i];
                else if (hf_map_put(&t->far, a, k, old_far.vals[i] - 1) < 0) {
                    /* Roll the rest back into a usable state. */
                    hf_map_free(&t->far, a);
                    t->far = old_far;
                    return -1;
                }
            }
            hf_map_free(&old_far, a);
        }
    }
    if (key < t->ndirect) {
        t->direct[key] = val + 1;
    } else if (hf_map_put(&t->far, a, key, val) < 0) {
        return -1;
    }
    if (!existed)
        t->count++;
    return 0;
}

size_t hf_idtab_bytes(const hf_idtab *t)
{
    return t->ndirect * sizeof *t->direct + hf_map_bytes(&t->far);
}
