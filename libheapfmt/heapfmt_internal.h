/* heapfmt_internal.h -- shared internals of libheapfmt (not installed). */
#ifndef HEAPFMT_INTERNAL_H
#define HEAPFMT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "heapfmt.h"

/* ---- layout constants (spec/FORMAT.md sections 4, 5, 8) ---- */

#define HF_MAGIC "\x89HFMT\r\n\x1a"
#define HF_END_MAGIC "\x89HFMTEND"
#define HF_HEADER_SIZE 16u
#define HF_BLOCK_HEADER_SIZE 20u
#define HF_TRAILER_SIZE 24u
#define HF_KIND_DATA 0x44u
#define HF_KIND_FOOTER 0x46u
#define HF_CODEC_STORED 0u
#define HF_CODEC_DEFLATE 1u
#define HF_DEFLATE_MAX_RATIO 1032u /* DEFLATE's largest expansion */
#define HF_VARINT_MAX 10u
#define HF_OBJ_FIELDS_KNOWN 0x0fu
#define HF_CLASS_FLAGS_KNOWN 0x07u

/* ---- fixed-size little-endian fields ---- */

static inline void hf_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void hf_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void hf_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t hf_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t hf_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t hf_get_u64(const uint8_t *p)
{
    return (uint64_t)hf_get_u32(p) | ((uint64_t)hf_get_u32(p + 4) << 32);
}

/* ---- varints and zigzag deltas (spec section 2) ---- */

static inline size_t hf_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v at p (room for HF_VARINT_MAX bytes); returns the end. */
static inline uint8_t *hf_put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) { /* most fields of most records: one or two bytes */
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a varint from *pp (not past end) into *v and advances *pp.
 * Returns 0, or -1 if it runs past end or does not fit 64 bits. */
static inline int hf_get_varint(const uint8_t **pp, const uint8_t *end,
                                uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return -1;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* Zero bytes the reader keeps after every decoded block payload, so that
 * the record decoder can read varints with hf_get_varint_padded(): a run
 * of varints that starts inside the payload can only step into the
 * padding one zero byte per varint, and each varint reads at most
 * HF_VARINT_MAX bytes. Callers check their position against the end of
 * the record after a bounded number of reads. */
#define HF_RAW_PAD 64u

/* Reads a varint from *pp without an end check: at least HF_VARINT_MAX
 * readable bytes must follow *pp (see HF_RAW_PAD). Returns 0 with *v set
 * and *pp advanced, or -1 if it does not fit 64 bits (more than 10 bytes,
 * or a 10th byte above 1); the caller then reports a truncated or
 * invalid field, as hf_get_varint would. */
static inline int hf_get_varint_padded(const uint8_t **pp, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = p[0];
    if (x < 0x80) { /* the common one-byte case */
        *v = x;
        *pp = p + 1;
        return 0;
    }
    x &= 0x7f;
    for (unsigned i = 1; i < HF_VARINT_MAX; i++) {
        uint64_t b = p[i];
        x |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            if (i == HF_VARINT_MAX - 1 && b > 1)
                return -1;
            *v = x;
            *pp = p + i + 1;
            return 0;
        }
    }
    return -1;
}

static inline uint64_t hf_zigzag(uint64_t diff)
{
    return (diff << 1) ^ (uint64_t)((int64_t)diff >> 63);
}

static inline uint64_t hf_unzigzag(uint64_t z)
{
    return (z >> 1) ^ ((uint64_t)0 - (z & 1));
}

/* ---- CRC32 (zlib's) ---- */

uint32_t hf_crc32(const void *data, size_t len);

/* ---- allocation through the handle's hooks ---- */

void hf_allocator_init(heapfmt_allocator *dst, const heapfmt_allocator *src);
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

void hf_set_error(heapfmt_error *e, int code, int sys_errno, uint64_t offset,
                  uint64_t block, uint64_t record, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
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

#endif /* HEAPFMT_INTERNAL_H */
