/* hf_common.h -- what libheapfmt and the tools share (not installed).
 *
 * libheapfmt/common/ holds the code that both the library and the tools
 * use: allocation through a handle's hooks, the arena, seeded hashing
 * (hash.h) and the hash tables, one per key shape:
 *   hf_map     64-bit key -> 32-bit value (ids, addresses, indexes)
 *   hf_idtab   the same, small dense keys in a direct array
 *   hf_strtab  byte string -> dense id 1, 2, 3... (strtab.h)
 * It is compiled into libheapfmt (libheapfmt.a carries it to the tools,
 * which add -Ilibheapfmt/common). A tool that needs a table of another
 * shape says at its table why a shared one would not do.
 */
#ifndef HF_COMMON_H
#define HF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "heapfmt.h"

/* The malloc/free hooks, for callers without a handle (the tools). */
const heapfmt_allocator *hf_default_allocator(void);

/* ---- allocation through the handle's hooks ---- */

void hf_allocator_init(heapfmt_allocator *dst, const heapfmt_allocator *src);
/* A handle (reader, writer) of size bytes, zeroed, from the user's
 * allocator (NULL or incomplete: malloc/free), which keeps the hooks in
 * its heapfmt_allocator at byte al_offset. Returns NULL when out of
 * memory. */
void *hf_handle_alloc(const heapfmt_allocator *user, size_t size,
                      size_t al_offset);
void *hf_alloc(const heapfmt_allocator *a, size_t size);
void hf_free(const heapfmt_allocator *a, void *p);
/* The capacity an array of elem-byte elements doubles to, from cap (16
 * from none), to hold need elements (more than cap); 0 when its bytes
 * would not fit a size_t. The tools' realloc arrays (cli_grow.h) grow
 * the same way. */
size_t hf_grown_capacity(size_t cap, size_t need, size_t elem);
/* Grows *buf (capacity *cap elements of elem bytes) to at least need
 * elements, keeping contents; returns 0 or -1 (buffer unchanged). */
int hf_grow(const heapfmt_allocator *a, void **buf, size_t *cap, size_t need,
            size_t elem);
/* Grows a byte buffer to exactly need bytes (callers grow geometrically
 * themselves: a block buffer of 2^27 bytes must not take 2^28), keeping its
 * first keep bytes. Returns 0 or -1; on failure with keep 0 the old buffer
 * is already freed (*buf NULL, *cap 0). */
int hf_grow_bytes(const heapfmt_allocator *a, uint8_t **buf, size_t *cap,
                  size_t need, size_t keep);

/* ---- arena: stable storage for strings and table entries ---- */

typedef struct hf_arena_chunk hf_arena_chunk;
typedef struct hf_arena {
    const heapfmt_allocator *al;
    hf_arena_chunk *head;
    size_t used, avail; /* in head */
    uint64_t total;     /* bytes allocated from the allocator */
} hf_arena;

void hf_arena_init(hf_arena *ar, const heapfmt_allocator *al);
void *hf_arena_alloc(hf_arena *ar, size_t size); /* 16-byte aligned */
void hf_arena_free(hf_arena *ar);

/* ---- map from 64-bit keys to 32-bit values (open addressing) ---- */

typedef struct hf_map {
    uint64_t *keys;
    uint32_t *vals; /* value + 1; 0 marks an empty slot */
    size_t cap;     /* power of two, or 0 */
    size_t count;
    uint64_t seed;  /* hash.h */
} hf_map;

void hf_map_init(hf_map *m);
void hf_map_free(hf_map *m, const heapfmt_allocator *a);
/* Returns 1 and stores the value if key is present, else 0. */
int hf_map_get(const hf_map *m, uint64_t key, uint32_t *val);
/* Inserts or replaces; returns 0 or -1 (out of memory, map unchanged). */
int hf_map_put(hf_map *m, const heapfmt_allocator *a, uint64_t key,
               uint32_t val);
size_t hf_map_bytes(const hf_map *m);

/* ---- id table: dense small keys in an array, the rest in a map ---- */

typedef struct hf_idtab {
    uint32_t *direct; /* value + 1, indexed by key; 0 = absent */
    size_t ndirect;
    hf_map far;
    size_t count;
} hf_idtab;

void hf_idtab_init(hf_idtab *t);
void hf_idtab_free(hf_idtab *t, const heapfmt_allocator *a);
int hf_idtab_put(hf_idtab *t, const heapfmt_allocator *a, uint64_t key,
                 uint32_t val);
size_t hf_idtab_bytes(const hf_idtab *t);

static inline int hf_idtab_get(const hf_idtab *t, uint64_t key, uint32_t *val)
{
    if (key < t->ndirect) {
        uint32_t v = t->direct[key];
        if (v == 0)
            return 0;
        *val = v - 1;
        return 1;
    }
    return hf_map_get(&t->far, key, val);
}

#endif /* HF_COMMON_H */
