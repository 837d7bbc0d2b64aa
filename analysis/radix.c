/* radix.c -- in-place radix sort of objects by id (American flag sort).
 *
 * Most objects of a set are entries with their region and the low word
 * of their id: with regions numbered in the order of their high words,
 * region and low word make a key that orders like the id and is read
 * from the entry alone. Those are sorted by that key; the few objects on the side (huge
 * sizes, a 64th region) by their whole id, apart, and merged in. */
#include <string.h>

#include "radix.h"

/* Below this many objects, insertion sort beats another radix pass. */
#define SMALL 48

/* The key of an entry not on the side: region and low word, which order
 * like ids once regions are numbered in order. low and tag are adjacent:
 * on a little-endian machine one load and a mask give the key. */
static inline uint64_t entry_key(const objset *s, const dobj *o)
{
    (void)s;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, o, sizeof x);
    return x & ((uint64_t)OBJSET_SIDE << (32 + OBJSET_REGION_SHIFT) | UINT32_MAX);
#else
    return (uint64_t)objset_region(o) << (32 + OBJSET_REGION_SHIFT) |
           objset_load32(o->low);
#endif
}

/* The sort, once per key: entry_key for the entries, objset_id for the
 * objects on the side. differ has the bits where keys differ: bytes where
 * none does are skipped without a pass. */
#define DEFINE_SORT(name, key)                                                 \
    static void name##_insertion(const objset *s, dobj *v, size_t n)          \
    {                                                                          \
        for (size_t i = 1; i < n; i++) {                                       \
            dobj x = v[i];                                                     \
            uint64_t k = key(s, &x);                                           \
            size_t j = i;                                                      \
            for (; j > 0 && key(s, &v[j - 1]) > k; j--)                        \
                v[j] = v[j - 1];                                               \
            v[j] = x;                                                          \
        }                                                                      \
    }                                                                          \
                                                                               \
    /* Sorts v[0..n) whose keys agree on every byte above shift. */           \
    static void name##_flag(const objset *s, dobj *v, size_t n,               \
                            unsigned shift, uint64_t differ)                   \
    {                                                                          \
        for (;;) {                                                             \
            if (n <= SMALL) {                                                  \
                name##_insertion(s, v, n);                                     \
                return;                                                        \
            }                                                                  \
            while (shift > 0 && ((differ >> shift) & 0xffu) == 0)              \
                shift -= 8;                                                    \
            size_t count[256] = {0};                                           \
            for (size_t i = 0; i < n; i++)                                     \
                count[(key(s, &v[i]) >> shift) & 0xffu]++;                     \
            if (count[(key(s, &v[0]) >> shift) & 0xffu] == n) {                \
                /* One bucket: nothing to move at this byte. */               \
                if (shift == 0)                                                \
                    return;                                                    \
                shift -= 8;                                                    \
                continue;                                                      \
            }                                                                  \
            size_t head[256], tail[256], at = 0;                               \
            for (unsigned b = 0; b < 256; b++) {                               \
                head[b] = at;                                                  \
                at += count[b];                                                \
                tail[b] = at;                                                  \
            }                                                                  \
            /* Cycle each misplaced object to the head of its bucket. */      \
            for (unsigned b = 0; b < 256; b++) {                               \
                while (head[b] < tail[b]) {                                    \
                    dobj x = v[head[b]];                                       \
                    unsigned d = (unsigned)(key(s, &x) >> shift) & 0xffu;      \
                    while (d != b) {                                           \
                        dobj y = v[head[d]];                                   \
                        v[head[d]++] = x;                                      \
                        x = y;                                                 \
                        d = (unsigned)(key(s, &x) >> shift) & 0xffu;           \
                    }                                                          \
                    v[head[b]++] = x;                                          \
                }                                                              \
            }                                                                  \
            if (shift == 0)                                                    \
                return;                                                        \
            at = 0;                                                            \
            for (unsigned b = 0; b < 256; b++) {                               \
                if (count[b] > 1)                                              \
                    name##_flag(s, v + at, count[b], shift - 8, differ);       \
                at += count[b];                                                \
            }                                                                  \
            return;                                                            \
        }                                                                      \
    }                                                                          \
                                                                               \
    static void name##_sort(const objset *s, dobj *v, size_t n)               \
    {                                                                          \
        if (n < 2)                                                             \
            return;                                                            \
        uint64_t differ = 0, first = key(s, &v[0]);                            \
        for (size_t i = 1; i < n; i++)                                         \
            differ |= key(s, &v[i]) ^ first;                                   \
        if (differ == 0)                                                       \
            return;                                                            \
        unsigned top = 63;                                                     \
        while (!(differ >> top))                                               \
            top--;                                                             \
        name##_flag(s, v, n, top / 8 * 8, differ);                             \
    }

DEFINE_SORT(entries, entry_key)
DEFINE_SORT(ids, objset_id)

/* Numbers the regions of s in the order of their high words. */
static void order_regions(objset *s)
{
    unsigned rank[OBJSET_SIDE], r, k;
    int moved = 0;
    for (r = 0; r < s->nregions; r++) {
        rank[r] = 0;
        for (k = 0; k < s->nregions; k++)
            rank[r] += s->high[k] < s->high[r];
        moved |= rank[r] != r;
    }
    if (!moved)
        return;
    for (size_t i = 0; i < s->n; i++) {
        dobj *o = &s->v[i];
        r = objset_region(o);
        if (r != OBJSET_SIDE) {
            uint32_t tag = objset_load32(o->tag);
            tag &= ~((uint32_t)OBJSET_SIDE << OBJSET_REGION_SHIFT);
            objset_store32(o->tag, tag | rank[r] << OBJSET_REGION_SHIFT);
        }
    }
    uint32_t high[OBJSET_SIDE];
    for (r = 0; r < s->nregions; r++)
        high[rank[r]] = s->high[r];
    memcpy(s->high, high, s->nregions * sizeof *high);
    s->last = rank[s->last];
}

/* v[0..m) and v[m..n) are sorted by id: merges them, with the second
 * (the smaller) copied to tmp. */
static void merge_back(const objset *s, dobj *v, size_t m, size_t n, dobj *tmp)
{
    size_t k = n - m;
    memcpy(tmp, v + m, k * sizeof *v);
    size_t i = m, j = k, out = n;
    while (j > 0) {
        if (i > 0 && objset_id(s, &v[i - 1]) > objset_id(s, &tmp[j - 1]))
            v[--out] = v[--i];
        else
            v[--out] = tmp[--j];
    }
}

void radix_sort(objset *s)
{
    dobj *v = s->v;
    size_t n = s->n, m = n;
    order_regions(s);
    if (s->nside > 0) {
        /* The objects on the side to the end: v[m..n). */
        for (size_t i = 0; i < m;) {
            if (objset_region(&v[i]) == OBJSET_SIDE) {
                dobj x = v[i];
                v[i] = v[--m];
                v[m] = x;
            } else {
                i++;
            }
        }
    }
    dobj *tmp = NULL;
    if (m < n) {
        tmp = diff_mem_alloc(s->mem, (n - m) * sizeof *tmp);
        if (tmp == NULL) { /* no room to merge: every object by its id */
            ids_sort(s, v, n);
            return;
        }
    }
    entries_sort(s, v, m);
    if (m < n) {
        ids_sort(s, v + m, n - m);
        merge_back(s, v, m, n, tmp);
        diff_mem_free(s->mem, tmp);
    }
}
