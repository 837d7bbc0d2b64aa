/* hm_stacks.c -- capturing and interning allocation call stacks.
 *
 * The unwinder is libunwind's unw_backtrace: it caches each frame's
 * unwinding rule, so a 20-frame stack costs about 70 ns here, against
 * about 1 us for glibc's backtrace() (which walks DWARF tables every
 * time). That difference is what keeps exact mode within 2x of an
 * untracked program, and is why the tracker depends on libunwind.
 *
 * Stacks are interned by their instruction addresses only; names are
 * looked up once per dump (hm_symbols.c), never inside malloc. Each
 * stack keeps its allocation and free counts since start and the summed
 * lifetimes of its freed blocks, the per-site report mwrap gives, without
 * a lock (relaxed atomics). */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "hm.h"

#define SHARD_BITS 4
#define SHARDS (1u << SHARD_BITS)
#define MAX_STACKS (1u << 22)
#define INDEX_CHUNK 4096u
#define ARENA_CHUNK (1u << 20)

typedef struct stack_rec {
    uint64_t hash;
    uint32_t id;
    uint32_t n;
    hm_counters counts;
    uintptr_t ips[];
} stack_rec;

typedef struct shard {
    pthread_mutex_t lock;
    stack_rec **slots;
    size_t mask, count;
    char *arena;   /* current chunk */
    size_t arena_left;
    size_t mapped; /* bytes mapped by this shard */
} shard;

static shard shards[SHARDS];

/* Each thread remembers the stacks it met last, by hash: a program
 * allocates from the same few call paths over and over, and a hit skips
 * the shard's lock and table. Records are never freed, so a remembered
 * pointer stays good (in a forked child too). */
#define THREAD_CACHE 64
typedef struct cached_stack {
    uint64_t hash;
    stack_rec *rec;
} cached_stack;
static HM_TLS __thread cached_stack thread_cache[THREAD_CACHE];
static _Atomic(stack_rec *) *index_chunks[MAX_STACKS / INDEX_CHUNK];
static _Atomic uint32_t next_id = 2; /* 1 is HM_STACK_OVERFLOW */
static stack_rec overflow_rec = {.id = HM_STACK_OVERFLOW};
static uintptr_t self_lo, self_hi; /* the tracker's own code */

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx) {
    (void)size;
    uintptr_t base = (uintptr_t)ctx;
    if (info->dlpi_addr != base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
            continue;
        uintptr_t lo = base + p->p_vaddr, hi = lo + p->p_memsz;
        if (self_lo == 0 || lo < self_lo)
            self_lo = lo;
        if (hi > self_hi)
            self_hi = hi;
    }
    return 1;
}

void hm_stacks_init(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_init(&shards[i].lock, NULL);
    Dl_info di;
    if (dladdr((void *)hm_stacks_init, &di) != 0 && di.dli_fbase != NULL)
        dl_iterate_phdr(find_self, di.dli_fbase);
    index_chunks[0] = hm_map(INDEX_CHUNK * sizeof *index_chunks[0]);
    if (index_chunks[0] != NULL)
        atomic_store(&index_chunks[0][HM_STACK_OVERFLOW], &overflow_rec);
    /* The first unw_backtrace sets up libunwind's caches (and may
     * allocate): do it now, not inside the program's first malloc. */
    uintptr_t warm[4];
    hm_capture(warm, 4);
}

unsigned hm_capture(uintptr_t *ips, unsigned max) {
    void *raw[HM_MAX_DEPTH + 8];
    unsigned want = max + 8 > HM_MAX_DEPTH + 8 ? HM_MAX_DEPTH + 8 : max + 8;
    int got = unw_backtrace(raw, (int)want);
    unsigned n = 0;
    int i = 0;
    /* Leave out the tracker's own frames: the hook and what it called. */
    while (i < got && (uintptr_t)raw[i] >= self_lo && (uintptr_t)raw[i] < self_hi)
        i++;
    for (; i < got && n < max; i++)
        ips[n++] = (uintptr_t)raw[i];
    return n;
}

static uint64_t hash_ips(const uintptr_t *ips, unsigned n) {
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ n;
    for (unsigned i = 0; i < n; i++) {
        h ^= ips[i];
        h *= UINT64_C(0x9E3779B97F4A7C15);
        h ^= h >> 29;
    }
    return h | 1; /* never 0 */
}

static stack_rec *rec_of(uint32_t id) {
    if (id == 0 || id >= MAX_STACKS)
        return NULL;
    _Atomic(stack_rec *) *chunk = index_chunks[id / INDEX_CHUNK];
    return chunk ? atomic_load_explicit(&chunk[id % INDEX_CHUNK],
                                        memory_order_acquire)
                 : NULL;
}

/* Makes a record for a new stack. Called with s locked. */
static stack_rec *new_rec(shard *s, uint64_t h, const uintptr_t *ips,
                          unsigned n) {
    size_t need = (sizeof(stack_rec) + n * sizeof(uintptr_t) + 15) & ~(size_t)15;
    if (need > s->arena_left) {
        char *a = hm_map(ARENA_CHUNK);
        if (a == NULL)
            return NULL;
        s->arena = a;
        s->arena_left = ARENA_CHUNK;
        s->mapped += ARENA_CHUNK;
    }
    uint32_t id = atomic_fetch_add(&next_id, 1);
    if (id >= MAX_STACKS)
        return NULL;
    _Atomic(stack_rec *) **chunk = &index_chunks[id / INDEX_CHUNK];
    /* A chunk is made by the shard that first needs it; another shard may
     * race for the same one, so it is published with a compare-exchange. */
    if (__atomic_load_n(chunk, __ATOMIC_ACQUIRE) == NULL) {
        _Atomic(stack_rec *) *c = hm_map(INDEX_CHUNK * sizeof *c);
        if (c == NULL)
            return NULL;
        _Atomic(stack_rec *) *expected = NULL;
        if (!__atomic_compare_exchange_n(chunk, &expected, c, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            hm_unmap(c, INDEX_CHUNK * sizeof *c);
        else
            s->mapped += INDEX_CHUNK * sizeof *c;
    }
    stack_rec *r = (stack_rec *)s->arena;
    s->arena += need;
    s->arena_left -= need;
    r->hash = h;
    r->id = id;
    r->n = n;
    memcpy(r->ips, ips, n * sizeof *ips);
    atomic_store_explicit(&(*chunk)[id % INDEX_CHUNK], r, memory_order_release);
    return r;
}

static int grow(shard *s) {
    size_t n = s->mask ? (s->mask + 1) * 2 : 1024;
    stack_rec **t = hm_map(n * sizeof *t);
    if (t == NULL)
        return -1;
    for (size_t i = 0; s->mask && i <= s->mask; i++) {
        stack_rec *r = s->slots[i];
        if (r == NULL)
            continue;
        size_t j = (size_t)r->hash & (n - 1);
        while (t[j] != NULL)
            j = (j + 1) & (n - 1);
        t[j] = r;
    }
    if (s->mask) {
        hm_unmap(s->slots, (s->mask + 1) * sizeof *s->slots);
        s->mapped -= (s->mask + 1) * sizeof *s->slots;
    }
    s->slots = t;
    s->mask = n - 1;
    s->mapped += n * sizeof *t;
    return 0;
}

uint32_t hm_stacks_intern(const uintptr_t *ips, unsigned n, uint64_t size) {
    uint64_t h = hash_ips(ips, n);
    cached_stack *hit = &thread_cache[h % THREAD_CACHE];
    stack_rec *r = hit->hash == h ? hit->rec : NULL;
    if (r != NULL && r->n == n && memcmp(r->ips, ips, n * sizeof *ips) == 0)
        goto count;
    r = NULL;
    shard *s = &shards[h >> (64 - SHARD_BITS)];
    pthread_mutex_lock(&s->lock);
    if ((s->count + 1) * 4 <= (s->mask + 1) * 3 || grow(s) == 0) {
        size_t j = (size_t)h & s->mask;
        for (; s->slots[j] != NULL; j = (j + 1) & s->mask) {
            stack_rec *c = s->slots[j];
            if (c->hash == h && c->n == n &&
                memcmp(c->ips, ips, n * sizeof *ips) == 0) {
                r = c;
                break;
            }
        }
        if (r == NULL && (r = new_rec(s, h, ips, n)) != NULL) {
            s->slots[j] = r;
            s->count++;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (r == NULL)
        r = &overflow_rec;
    else
        *hit = (cached_stack){h, r};
count:
    hm_counters_alloc(&r->counts, size);
    return r->id;
}

void hm_stacks_count_free(uint32_t id, uint64_t size, uint64_t life_us) {
    stack_rec *r = rec_of(id);
    if (r != NULL)
        hm_counters_free(&r->counts, size, life_us);
}

uint32_t hm_stacks_count(void) {
    uint32_t n = atomic_load(&next_id) - 1;
    return n >= MAX_STACKS ? MAX_STACKS - 1 : n;
}

unsigned hm_stacks_get(uint32_t id, const uintptr_t **ips,
                       hm_stack_counts *counts) {
    stack_rec *r = rec_of(id);
    if (r == NULL) { /* an id handed out, its record not yet published */
        memset(counts, 0, sizeof *counts);
        *ips = NULL;
        return 0;
    }
    hm_counters_read(&r->counts, counts);
    *ips = r->ips;
    return r->n;
}

size_t hm_stacks_memory(void) {
    size_t b = sizeof shards + sizeof index_chunks;
    for (unsigned i = 0; i < SHARDS; i++)
        b += shards[i].mapped;
    return b;
}

void hm_stacks_lock_all(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_lock(&shards[i].lock);
}

void hm_stacks_unlock_all(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_unlock(&shards[i].lock);
}

void hm_stacks_reset_counts(void) {
    uint32_t n = hm_stacks_count();
    for (uint32_t id = 1; id <= n; id++) {
        stack_rec *r = rec_of(id);
        if (r != NULL)
            memset(&r->counts, 0, sizeof r->counts);
    }
}
