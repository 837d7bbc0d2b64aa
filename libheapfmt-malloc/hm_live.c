/* hm_live.c -- the table of live allocations: address -> hm_entry.
 *
 * Sharded by address so that threads rarely share a lock (where an
 * address lives, and the probing: hm_addr_table.h). Slots are 24 bytes
 * and a shard grows at 80% load, so a live allocation costs 30 to 60
 * bytes (issue 16 asks for at most 64).
 *
 * In sampled mode most freed pointers were never tracked; a counting
 * filter (a byte per page, read without a lock) lets free() skip the
 * shard lock for them. Its counters saturate at 255 and then stay, so
 * they can give false positives but never false negatives. */
#include <stdatomic.h>
#include <string.h>

#include "hm.h"

#define SHARD_BITS 8
#define SHARDS (1u << SHARD_BITS)
#define MIN_SLOTS 256u

/* A cache line each (64 bytes on x86-64), so that threads working on
 * different shards do not share lines. */
typedef struct shard {
    _Alignas(64) pthread_mutex_t lock;
    hm_entry *slots;
    size_t mask;  /* nslots - 1; slots is NULL while mask is 0 */
    size_t count;
} shard;

static shard shards[SHARDS];
_Atomic unsigned char hm_live_filter[1u << HM_FILTER_BITS];
int hm_live_filter_on;

static inline shard *shard_of(uintptr_t a) { return &shards[hm_addr_shard(a, SHARD_BITS)]; }

#define ENTRY_ADDR(e) ((uintptr_t)(e).addr)
HM_ADDR_TABLE(live, hm_entry, ENTRY_ADDR)

void hm_live_init(void) {
    hm_addr_seed_init();
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_init(&shards[i].lock, NULL);
    hm_live_filter_on = hm_cfg.mode == HM_MODE_SAMPLED;
}

/* Doubles s's slots (or makes the first ones). Called with s locked. */
static int grow(shard *s) {
    size_t n = s->mask ? (s->mask + 1) * 2 : MIN_SLOTS;
    hm_entry *t = hm_map(n * sizeof *t);
    if (t == NULL)
        return -1;
    live_rehash(t, n - 1, s->slots, s->mask);
    if (s->mask)
        hm_unmap(s->slots, (s->mask + 1) * sizeof *s->slots);
    s->slots = t;
    s->mask = n - 1;
    return 0;
}

int hm_live_insert(const hm_entry *e) {
    shard *s = shard_of(e->addr);
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    if ((s->count + 1) * 5 > (s->mask + 1) * 4 && grow(s) != 0) {
        rc = -1;
    } else {
        size_t j = live_probe(s->slots, s->mask, e->addr);
        /* The same address twice means the program freed it behind our
         * back (a free the tracker did not see): the new entry wins. */
        if (s->slots[j].addr == 0)
            s->count++;
        s->slots[j] = *e;
        if (hm_live_filter_on) {
            _Atomic unsigned char *f = &hm_live_filter[hm_live_filter_slot(e->addr)];
            if (atomic_load_explicit(f, memory_order_relaxed) < 255)
                atomic_fetch_add_explicit(f, 1, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void hm_live_prefetch(uintptr_t addr) {
    /* Read without the lock: a stale pointer or mask only prefetches the
     * wrong line, and a prefetch never faults. */
    shard *s = shard_of(addr);
    hm_entry *slots = __atomic_load_n(&s->slots, __ATOMIC_RELAXED);
    size_t mask = __atomic_load_n(&s->mask, __ATOMIC_RELAXED);
    if (slots != NULL)
        __builtin_prefetch(&slots[hm_addr_home(addr) & mask], 1, 3);
}

int hm_live_remove(uintptr_t addr, hm_entry *out) {
    shard *s = shard_of(addr);
    int found = 0;
    pthread_mutex_lock(&s->lock);
    if (s->mask != 0) {
        size_t j = live_probe(s->slots, s->mask, addr);
        if (s->slots[j].addr == addr) {
            found = 1;
            *out = s->slots[j];
            live_delete(s->slots, s->mask, j);
            s->count--;
            if (hm_live_filter_on) {
                _Atomic unsigned char *f = &hm_live_filter[hm_live_filter_slot(addr)];
                unsigned char v = atomic_load_explicit(f, memory_order_relaxed);
                if (v != 0 && v != 255)
                    atomic_fetch_sub_explicit(f, 1, memory_order_relaxed);
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

size_t hm_live_count(void) {
    size_t n = 0;
    for (unsigned i = 0; i < SHARDS; i++)
        n += __atomic_load_n(&shards[i].count, __ATOMIC_RELAXED);
    return n;
}

size_t hm_live_snapshot(hm_entry *buf, uint64_t *usable, size_t cap) {
    size_t n = 0;
    for (unsigned i = 0; i < SHARDS; i++) {
        shard *s = &shards[i];
        for (size_t j = 0; s->mask && j <= s->mask; j++) {
            if (s->slots[j].addr == 0)
                continue;
            if (n < cap) {
                buf[n] = s->slots[j];
                /* Still live: its free is waiting for this lock. */
                usable[n] = hm_next.usable_size
                    ? hm_next.usable_size((void *)(uintptr_t)s->slots[j].addr) : 0;
            }
            n++;
        }
    }
    return n;
}

size_t hm_live_memory(void) {
    size_t b = sizeof shards + (hm_live_filter_on ? sizeof hm_live_filter : 0);
    for (unsigned i = 0; i < SHARDS; i++)
        b += shards[i].mask ? (shards[i].mask + 1) * sizeof(hm_entry) : 0;
    return b;
}

void hm_live_lock_all(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_lock(&shards[i].lock);
}

void hm_live_unlock_all(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_unlock(&shards[i].lock);
}

void hm_live_reset(void) {
    hm_live_lock_all();
    for (unsigned i = 0; i < SHARDS; i++) {
        shard *s = &shards[i];
        if (s->mask)
            memset(s->slots, 0, (s->mask + 1) * sizeof *s->slots);
        s->count = 0;
    }
    for (size_t i = 0; i < sizeof hm_live_filter; i++)
        atomic_store_explicit(&hm_live_filter[i], 0, memory_order_relaxed);
    hm_live_filter_on = hm_cfg.mode == HM_MODE_SAMPLED;
    hm_live_unlock_all();
}
