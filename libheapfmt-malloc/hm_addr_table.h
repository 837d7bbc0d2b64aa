/* hm_addr_table.h -- where an address lives in the tracker's tables keyed
 * by the program's addresses (the live table, hm_live.c; the recorder's,
 * hm_rec_table.c), and the probing both do.
 *
 * Each table is sharded, a lock a shard, and each shard is an open-
 * addressing table with linear probing and backward-shift deletion (no
 * tombstones: billions of malloc/free pairs never degrade it).
 *
 * The shard is chosen by the address's 64 KiB region, the slot by its
 * 4 KiB page and its place in the page:
 *   - a thread allocates from memory of its own (glibc gives each thread
 *     an arena; jemalloc and tcmalloc a cache of runs), so with the
 *     shard taken from the region two threads rarely take one lock or
 *     write one line of slots; taken from the page, every thread met
 *     every shard. (On bench/malloc_heavy.c, 4 threads on 2 cores, that
 *     sharing was not what the table cost: its share of exact mode, about
 *     24% or 55 ns a call, is the probing and the misses, issue 39.)
 *   - a page's blocks have neighbouring slots (its 256 16-byte places
 *     map onto 256 slots in order from where its page's hash says), so a
 *     burst of malloc or free touches a few lines of the table, not one
 *     each (a hash of the whole address made insert and remove 35% of
 *     exact mode's time, issue 16); the start is any slot, not a multiple
 *     of 256, or blocks at one offset of their pages (mmap'd chunks,
 *     page-aligned buffers) would share a few homes: runs of hundreds;
 *   - region and page go through a seeded hash (hm_addr_mix): the keys
 *     are the program's, and with a plain placement addresses a fixed
 *     stride apart would share one home slot (long probe runs, quadratic
 *     time); with the seed nobody outside the process knows which do. */
#ifndef HM_ADDR_TABLE_H
#define HM_ADDR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define HM_REGION_SHIFT 16

/* Drawn at start (hm_addr_seed_init). */
extern uint64_t hm_addr_seed[2];
void hm_addr_seed_init(void);

/* MurmurHash3's finaliser over x and the seed: every bit of x moves
 * every bit of the result (a multiply-shift alone spread an arithmetic
 * progression of pages, one offset a table span apart, over a third of
 * the homes for some seeds). */
static inline uint64_t hm_addr_mix(uint64_t x, uint64_t seed) {
    uint64_t h = x ^ seed;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static inline unsigned hm_addr_shard(uintptr_t a, unsigned bits) {
    return (unsigned)(hm_addr_mix((uint64_t)a >> HM_REGION_SHIFT, hm_addr_seed[0]) >> (64 - bits));
}

static inline size_t hm_addr_home(uintptr_t a) {
    return (size_t)((hm_addr_mix((uint64_t)a >> 12, hm_addr_seed[1]) >> 24) +
                    (((uint64_t)a >> 4) & 0xff));
}

/* The probing of a table of TYPE slots whose address is KEY(slot) (0: an
 * empty slot), as static functions named PREFIX_probe, _delete, _rehash:
 * the same code for both tables, inlined with each one's slot. */
#define HM_ADDR_TABLE(PREFIX, TYPE, KEY)                                      \
    /* The slot of a, or the empty slot that ends its run. */                 \
    static inline size_t PREFIX##_probe(const TYPE *slots, size_t mask,       \
                                        uintptr_t a) {                        \
        size_t j = hm_addr_home(a) & mask;                                    \
        while (KEY(slots[j]) != 0 && KEY(slots[j]) != a)                      \
            j = (j + 1) & mask;                                               \
        return j;                                                             \
    }                                                                         \
    /* Empties slot j: later entries of its run move into the hole when      \
     * their home slot is at or before it. */                                 \
    static inline void PREFIX##_delete(TYPE *slots, size_t mask, size_t j) {  \
        size_t hole = j;                                                      \
        for (size_t k = (j + 1) & mask; KEY(slots[k]) != 0;                   \
             k = (k + 1) & mask) {                                            \
            size_t home = hm_addr_home(KEY(slots[k])) & mask;                 \
            if (((k - home) & mask) >= ((k - hole) & mask)) {                 \
                slots[hole] = slots[k];                                       \
                hole = k;                                                     \
            }                                                                 \
        }                                                                     \
        slots[hole] = (TYPE){0};                                              \
    }                                                                         \
    /* Moves the entries of old (mask omask; NULL: none) into to (mask       \
     * nmask, empty). */                                                      \
    static void PREFIX##_rehash(TYPE *to, size_t nmask, const TYPE *old,      \
                                size_t omask) {                               \
        for (size_t i = 0; old != NULL && i <= omask; i++) {                  \
            if (KEY(old[i]) == 0)                                             \
                continue;                                                     \
            to[PREFIX##_probe(to, nmask, KEY(old[i]))] = old[i];              \
        }                                                                     \
    }

#endif /* HM_ADDR_TABLE_H */
