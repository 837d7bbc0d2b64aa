/* heapfmt_internal.h -- shared internals of libheapfmt (not installed). */
#ifndef HEAPFMT_INTERNAL_H
#define HEAPFMT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format.h"
#include "hash.h"
#include "heapfmt.h"

/* ---- allocation through the handle's hooks ---- */

void hf_allocator_init(heapfmt_allocator *dst, const heapfmt_allocator *src);
/* A handle (reader, writer) of size bytes, zeroed, from the user's
 * allocator (NULL or incomplete: malloc/free); *al receives the hooks the
 * handle keeps. Returns NULL when out of memory. */
void *hf_handle_alloc(const heapfmt_allocator *user, size_t size,
                      heapfmt_allocator *al);
void *hf_alloc(const heapfmt_allocator *a, size_t size);
void hf_free(const heapfmt_allocator *a, void *p);
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

/* ---- errors ---- */

/* Where an error is: the handle's position when it was found. */
typedef struct hf_where {
    uint64_t offset, block, record;
} hf_where;

/* The one error setter: code, errno, position and a printf-style detail
 * (limits in messages come from the HEAPFMT_MAX_* constants). Returns
 * code. The reader's hf_rfail and the writer's hf_wfail supply where. */
int hf_error_vset(heapfmt_error *e, int code, int sys_errno, hf_where at,
                  const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 0)))
#endif
    ;

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

/* Copies options that begin with their own size (the INIT macros set it)
 * over the defaults in dst (cap bytes): the fields the caller's header
 * knew, the later ones keeping their defaults. src may be NULL (all
 * defaults). Returns HEAPFMT_OK, or HEAPFMT_E_ARG for a size no version
 * of the struct had. */
static inline int hf_copy_options(void *dst, size_t cap, const void *src)
{
    size_t size;
    if (!src)
        return HEAPFMT_OK;
    memcpy(&size, src, sizeof size);
    if (size < sizeof size || size > cap)
        return HEAPFMT_E_ARG;
    memcpy(dst, src, size);
    return HEAPFMT_OK;
}

#endif /* HEAPFMT_INTERNAL_H */
