/* hm_rec_table.c -- the recorder's table: address -> block number.
 *
 * A trace names blocks by the sequence number of the event that made
 * them (spec 6.10), so a free must find the number of its address. The
 * live table of the dumps (hm_live.c) keeps stacks, sites and epochs per
 * block and is not started in record mode; this one keeps 16 bytes a
 * block. Sharded by the address's region as the live table is (256
 * locks; the placement and the probing: hm_addr_table.h), grown at 75%
 * load. Memory comes from mmap, never from the allocator under the
 * program. */
#include <string.h>

#include "hm.h"

#define SHARD_BITS 8
#define SHARDS (1u << SHARD_BITS)
#define MIN_SLOTS 512u

typedef struct slot {
    uintptr_t addr; /* 0: empty */
    uint64_t block;
} slot;

typedef struct shard {
    _Alignas(64) pthread_mutex_t lock;
    slot *slots;
    size_t mask; /* nslots - 1; slots is NULL while mask is 0 */
    size_t count;
} shard;

static shard shards[SHARDS];

static inline shard *shard_of(uintptr_t a) { return &shards[hm_addr_shard(a, SHARD_BITS)]; }

#define SLOT_ADDR(e) ((e).addr)
HM_ADDR_TABLE(rec, slot, SLOT_ADDR)

void hm_rec_table_init(void) {
    hm_addr_seed_init();
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_init(&shards[i].lock, NULL);
}

/* Doubles s's slots (or makes the first). Called with s locked. */
static int grow(shard *s) {
    size_t n = s->mask ? (s->mask + 1) * 2 : MIN_SLOTS;
    slot *t = hm_map(n * sizeof *t);
    if (t == NULL)
        return -1;
    rec_rehash(t, n - 1, s->slots, s->mask);
    if (s->mask)
        hm_unmap(s->slots, (s->mask + 1) * sizeof *s->slots);
    s->slots = t;
    s->mask = n - 1;
    return 0;
}

int hm_rec_table_put(uintptr_t addr, uint64_t block) {
    shard *s = shard_of(addr);
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    if ((s->count + 1) * 4 > (s->mask + 1) * 3 && grow(s) != 0) {
        rc = -1;
    } else {
        size_t j = rec_probe(s->slots, s->mask, addr);
        /* the address twice: a free the recorder did not see (before it
         * started, or from a thread it could not follow); the new block
         * wins */
        if (s->slots[j].addr == 0)
            s->count++;
        s->slots[j] = (slot){addr, block};
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void hm_rec_table_prefetch(uintptr_t addr) {
    shard *s = shard_of(addr);
    slot *slots = __atomic_load_n(&s->slots, __ATOMIC_RELAXED);
    size_t mask = __atomic_load_n(&s->mask, __ATOMIC_RELAXED);
    if (slots != NULL)
        __builtin_prefetch(&slots[hm_addr_home(addr) & mask], 1, 3);
}

uint64_t hm_rec_table_take(uintptr_t addr) {
    shard *s = shard_of(addr);
    uint64_t block = 0;
    pthread_mutex_lock(&s->lock);
    if (s->mask != 0) {
        size_t j = rec_probe(s->slots, s->mask, addr);
        if (s->slots[j].addr == addr) {
            block = s->slots[j].block;
            rec_delete(s->slots, s->mask, j);
            s->count--;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return block;
}

size_t hm_rec_table_resident(void) {
    size_t b = 0;
    for (unsigned i = 0; i < SHARDS; i++) {
        pthread_mutex_lock(&shards[i].lock);
        if (shards[i].mask)
            b += hm_resident(shards[i].slots, (shards[i].mask + 1) * sizeof(slot));
        pthread_mutex_unlock(&shards[i].lock);
    }
    return b;
}
