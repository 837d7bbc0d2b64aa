/* hm_ruby.c -- attributing native allocations to the Ruby line running.
 *
 * When the process is a Ruby VM, an allocation made on a Ruby thread is
 * also attributed to the file:line of the innermost Ruby frame, as mwrap
 * does, so that memory taken through Fiddle, FFI or a C extension points
 * at the Ruby code that asked for it.
 *
 * The VM is found through weak references resolved when the program
 * loads: rb_source_location_cstr (exported by libruby) and the VM's
 * thread-local execution context, ruby_current_ec. A thread without an
 * execution context (the VM's timer thread, any thread Ruby did not make,
 * the VM before it has booted) is never asked: the call would read
 * through a NULL context. rb_source_location_cstr reads the thread's own
 * control frames and allocates nothing; a context that exists but has no
 * stack yet (early boot) gives no frame and so no site.
 *
 * Nor is it asked while the GC runs: what the GC allocates is not the
 * running line's doing, and compaction may be moving the very strings
 * the answer is read from.
 *
 * The VM's end: ruby_vm_destruct frees the threads and their contexts but
 * leaves ruby_current_ec pointing at them, and exit handlers that run
 * after it (OpenSSL's, for one) still call malloc: asking the VM then
 * reads freed memory (it crashed). libruby calls ruby_vm_destruct through
 * its PLT, so the tracker stands in for it, turns attribution off, and
 * calls the real one.
 *
 * Sites are interned by text (file and line): the file name's pointer
 * belongs to the VM and may be freed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "hm.h"

extern const char *rb_source_location_cstr(int *pline) __attribute__((weak));
extern int rb_during_gc(void) __attribute__((weak));
extern __thread void *ruby_current_ec __attribute__((weak));

#define MAX_SITES (1u << 20)
#define ARENA_CHUNK (1u << 20)

typedef struct site {
    uint64_t hash;
    uint32_t id;
    uint32_t line;
    uint32_t len;
    hm_counters counts; /* since start, as hm_stacks keeps them per stack */
    char file[];
} site;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static site **slots;       /* open addressing, by hash */
static size_t mask, count;
static site **by_id;       /* by_id[id - 1] */
static char *arena;
static size_t arena_left;
static _Atomic int enabled;

int hm_ruby_init(void) {
    enabled = rb_source_location_cstr != NULL && rb_during_gc != NULL &&
              &ruby_current_ec != NULL;
    if (!enabled)
        return 0;
    slots = hm_map((size_t)MAX_SITES * 2 * sizeof *slots);
    by_id = hm_map((size_t)MAX_SITES * sizeof *by_id);
    if (slots == NULL || by_id == NULL) {
        enabled = 0;
        return 0;
    }
    mask = (size_t)MAX_SITES * 2 - 1;
    return 1;
}

static uint64_t hash_site(const char *f, size_t len, uint32_t line) {
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ line;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)f[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

HM_EXPORT int ruby_vm_destruct(void *vm) {
    return hm_hook_ruby_vm_destruct(vm);
}

/* Its own address, for a tracker that patches libruby's call to it
 * (hm_attach.c) instead of standing in for it by name. */
int hm_hook_ruby_vm_destruct(void *vm) {
    atomic_store(&enabled, 0);
    int was_busy = hm_busy;
    hm_busy = 1;
    /* preloaded, the next definition is libruby's; attached (dlopen'ed,
     * out of the global scope), the default one is */
    int (*real)(void *) = (int (*)(void *))dlsym(
        hm_preloaded ? RTLD_NEXT : RTLD_DEFAULT, "ruby_vm_destruct");
    hm_busy = was_busy;
    return real != NULL ? real(vm) : 0;
}

uint32_t hm_ruby_site(void) {
    if (!atomic_load_explicit(&enabled, memory_order_relaxed) ||
        ruby_current_ec == NULL || rb_during_gc())
        return 0;
    int line = 0;
    const char *f = rb_source_location_cstr(&line);
    if (f == NULL)
        return 0;
    size_t len = strnlen(f, 4096);
    uint64_t h = hash_site(f, len, (uint32_t)line);
    uint32_t id = 0;
    pthread_mutex_lock(&lock);
    size_t j = (size_t)h & mask;
    for (; slots[j] != NULL; j = (j + 1) & mask) {
        site *s = slots[j];
        if (s->hash == h && s->line == (uint32_t)line && s->len == len &&
            memcmp(s->file, f, len) == 0) {
            id = s->id;
            break;
        }
    }
    if (id == 0 && count < MAX_SITES) {
        size_t need = (sizeof(site) + len + 1 + 7) & ~(size_t)7;
        if (need > arena_left) {
            arena = hm_map(ARENA_CHUNK);
            arena_left = arena ? ARENA_CHUNK : 0;
        }
        if (need <= arena_left) {
            site *s = (site *)arena;
            arena += need;
            arena_left -= need;
            memset(s, 0, sizeof *s);
            s->hash = h;
            s->id = id = (uint32_t)++count;
            s->line = (uint32_t)line;
            s->len = (uint32_t)len;
            memcpy(s->file, f, len);
            s->file[len] = 0;
            slots[j] = s;
            by_id[id - 1] = s;
        }
    }
    pthread_mutex_unlock(&lock);
    return id;
}

const char *hm_ruby_site_get(uint32_t id, size_t *len, uint32_t *line) {
    pthread_mutex_lock(&lock);
    site *s = id >= 1 && id <= count ? by_id[id - 1] : NULL;
    pthread_mutex_unlock(&lock);
    if (s == NULL)
        return NULL;
    *len = s->len;
    *line = s->line;
    return s->file;
}

/* A site by id, without the lock: by_id[id - 1] is written before count
 * grows past id (under the lock), and a site is never moved or freed. */
static site *site_of(uint32_t id) {
    if (id == 0 || id > __atomic_load_n(&count, __ATOMIC_ACQUIRE))
        return NULL;
    return by_id[id - 1];
}

void hm_ruby_site_count_alloc(uint32_t id, uint64_t size) {
    site *s = site_of(id);
    if (s != NULL)
        hm_counters_alloc(&s->counts, size);
}

void hm_ruby_site_count_free(uint32_t id, uint64_t size, uint64_t life_us) {
    site *s = site_of(id);
    if (s != NULL)
        hm_counters_free(&s->counts, size, life_us);
}

void hm_ruby_site_counts(uint32_t id, hm_stack_counts *out) {
    site *s = site_of(id);
    memset(out, 0, sizeof *out);
    if (s != NULL)
        hm_counters_read(&s->counts, out);
}

void hm_ruby_reset_counts(void) {
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++)
        memset(&by_id[i]->counts, 0, sizeof by_id[i]->counts);
    pthread_mutex_unlock(&lock);
}

uint32_t hm_ruby_site_count(void) {
    pthread_mutex_lock(&lock);
    uint32_t n = (uint32_t)count;
    pthread_mutex_unlock(&lock);
    return n;
}

void hm_ruby_lock_all(void) { pthread_mutex_lock(&lock); }
void hm_ruby_unlock_all(void) { pthread_mutex_unlock(&lock); }
