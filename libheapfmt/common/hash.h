/*
 * hash.h -- seeded hashing for every hash table in heapfmt, the library's
 * and the tools'.
 *
 * The keys of these tables come from input files: string ids, class ids,
 * names, allocation sites. With a fixed hash function a file can be made
 * whose keys all fall into one probe run, so that every insert walks the
 * whole run and reading turns quadratic ("hash flooding"). Each table
 * draws its own seed when it is created, so keys that collide in one run
 * do not collide in the next. Header-only so that the tools share it
 * without new library symbols; never written to a file.
 */
#ifndef HEAPFMT_HASH_H
#define HEAPFMT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* A bijective 64-bit finalizer (MurmurHash3's constants): every input
 * bit moves every output bit, so the low bits used as a slot depend on
 * the seed and the whole key. */
static inline uint64_t hf_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* A seed for one table: the monotonic clock and the table's address
 * (randomised by ASLR). Not secret against a local user, but unknown to
 * whoever wrote the file. No global state: safe in threads and in a
 * forked child. */
static inline uint64_t hf_hash_seed(const void *table)
{
    struct timespec ts = {0, 0};
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return hf_mix64(hf_mix64(t) ^ (uint64_t)(uintptr_t)table);
}

static inline uint64_t hf_hash_u64(uint64_t seed, uint64_t key)
{
    return hf_mix64(key ^ seed);
}

/* Eight bytes per step: each step multiplies and folds, so a difference
 * in one word reaches the next step through a seed-dependent state. */
static inline uint64_t hf_hash_bytes(uint64_t seed, const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15ull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n)
        memcpy(&w, s, n);
    return hf_mix64(h ^ w);
}

#endif
