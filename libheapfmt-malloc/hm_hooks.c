/* hm_hooks.c -- the allocation functions the program calls instead of its
 * allocator's, and the tracker's start.
 *
 * Each hook calls the real function (found with dlsym(RTLD_NEXT) at start)
 * and then records the result; a free is forgotten before the memory goes
 * back, so that no other thread can be handed the same address while the
 * old entry is still in the table. What the program gets back is always
 * exactly what the allocator returned.
 *
 * Start-up: dlsym itself may call calloc (for its error buffer) before the
 * real calloc is known; those few early allocations come from a static
 * arena and are never freed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "heapfmt_malloc.h"
#include "hm.h"

hm_real hm_next;
HM_TLS __thread int hm_busy;
int hm_preloaded;

enum { STATE_NEW, STATE_RESOLVING, STATE_RESOLVED, STATE_TRACKING,
       STATE_DETACHED };
static _Atomic int state = STATE_NEW;

/* 1 while tracking in sampled mode (not recording): an allocation then
 * pays only its thread's countdown, a free only its page's filter byte,
 * both inline; everything else (exact mode, record mode, before start,
 * after a detach, the tracker's own allocations, a forked child's first
 * call) goes through the out-of-line paths. Set with the state, read
 * without ordering: a call that sees it a moment late takes the slow
 * path, which checks everything again. */
static _Atomic int fast;

static void set_state(int s) {
    atomic_store_explicit(&fast, s == STATE_TRACKING && !hm_rec &&
                                     hm_cfg.mode == HM_MODE_SAMPLED,
                          memory_order_relaxed);
    atomic_store(&state, s);
}

static inline int is_fast(void) {
    return atomic_load_explicit(&fast, memory_order_relaxed);
}

/* ---- the arena for allocations made while dlsym runs ---- */

static _Alignas(64) char boot[64 * 1024];
static _Atomic size_t boot_used;

static void *boot_alloc(size_t n) {
    size_t need = (n + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&boot_used, need);
    if (n > sizeof boot || at + need > sizeof boot)
        return NULL;
    return boot + at; /* static: already zero, as calloc wants */
}

static int in_boot(const void *p) {
    return (const char *)p >= boot && (const char *)p < boot + sizeof boot;
}

/* The allocator's functions, as the handle finds them: RTLD_NEXT for a
 * preloaded tracker (the next definition is the allocator's), RTLD_DEFAULT
 * for an attached one (loaded out of the global scope, whose first
 * definition is then the process's allocator: glibc's, or a preloaded
 * jemalloc's). */
static void resolve_with(void *handle) {
    hm_next.malloc = dlsym(handle, "malloc");
    hm_next.calloc = dlsym(handle, "calloc");
    hm_next.realloc = dlsym(handle, "realloc");
    hm_next.free = dlsym(handle, "free");
    hm_next.posix_memalign = dlsym(handle, "posix_memalign");
    hm_next.aligned_alloc = dlsym(handle, "aligned_alloc");
    hm_next.memalign = dlsym(handle, "memalign");
    hm_next.valloc = dlsym(handle, "valloc");
    hm_next.pvalloc = dlsym(handle, "pvalloc");
    hm_next.usable_size = dlsym(handle, "malloc_usable_size");
}

static void resolve(void) {
    int expected = STATE_NEW;
    if (!atomic_compare_exchange_strong(&state, &expected, STATE_RESOLVING))
        return;
    resolve_with(RTLD_NEXT);
    atomic_store(&state, STATE_RESOLVED);
}

/* 1 when the real functions are known; 0 while dlsym runs (the caller
 * then serves from the boot arena). */
static inline int ready(void) {
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (HM_LIKELY(s >= STATE_RESOLVED))
        return 1;
    if (s == STATE_NEW)
        resolve();
    return atomic_load(&state) >= STATE_RESOLVED;
}

static void prepare_fork(void) {
    hm_busy++;
    hm_ruby_lock_all();
    hm_stacks_lock_all();
    hm_live_lock_all();
}

static void parent_fork(void) {
    hm_live_unlock_all();
    hm_stacks_unlock_all();
    hm_ruby_unlock_all();
    hm_busy--;
}

static void child_fork(void) {
    parent_fork();
    hm_dump_atfork_child();
    /* the child's one thread: its next allocation takes the slow path,
     * which starts the child's dump thread (hm_child_due) */
    hm_sample_left = 0;
}

/* The parts that start once per process, preloaded or attached. */
static void start_once(void) {
    /* Before the first stack capture, which makes libunwind's pipe. */
    if (hm_unwind_io_init() != 0)
        hm_log("libunwind's memory checks could not be redirected: "
               "they use a pipe in the program's descriptor table");
    hm_live_init();
    hm_stacks_init();
    if (hm_cfg.ruby)
        hm_cfg.ruby = hm_ruby_init();
    pthread_atfork(prepare_fork, parent_fork, child_fork);
}

__attribute__((constructor)) static void hm_start(void) {
    if (!ready())
        return;
    /* dlopen'ed into a running process (heapfmt-malloc -p): nobody calls
     * the hooks until heapfmt_malloc_attach patches the GOTs */
    hm_preloaded = dlsym(RTLD_DEFAULT, "malloc") == (void *)hm_hook_malloc;
    if (!hm_preloaded)
        return;
    hm_busy = 1;
    hm_stderr_note();
    hm_config_load(&hm_cfg);
    if (hm_record_start()) { /* a trace instead of dumps (hm_record.c) */
        hm_busy = 0;
        set_state(STATE_TRACKING);
        return;
    }
    start_once();
    hm_dump_start();
    hm_log("tracking (%s mode)", hm_cfg.mode == HM_MODE_EXACT ? "exact" : "sampled");
    hm_busy = 0;
    set_state(STATE_TRACKING);
}

/* ---- recording ---- */

/* Captures the stack of p's allocation and enters p in the live table.
 * Out of line: its frame (the stack buffer, six saved registers) would
 * otherwise be set up by every allocation, sampled or not. */
__attribute__((noinline)) static void track_block(void *p, size_t size, hm_kind kind) {
    hm_busy = 1;
    hm_live_prefetch((uintptr_t)p);
    uintptr_t ips[HM_MAX_DEPTH];
    unsigned n = hm_capture(ips, hm_cfg.depth);
    uint32_t stack = hm_stacks_intern(ips, n, size);
    uint32_t site = hm_cfg.ruby ? hm_ruby_site() : 0;
    hm_entry e = hm_entry_make((uintptr_t)p, size, kind, hm_epoch, stack, site,
                               hm_ticks_now());
    if (site != 0)
        hm_ruby_site_count_alloc(site, size);
    hm_live_insert(&e);
    hm_busy = 0;
}

/* Everything an allocation may need but the countdown: record mode,
 * the checks, the forked child's start, the sampling draw. The countdown
 * has been taken (hm_sample_left, by track). */
__attribute__((noinline)) static void track_slow(void *p, size_t size, hm_kind kind) {
    if (HM_UNLIKELY(hm_rec)) {
        hm_record_alloc(p, size, kind, 0);
        return;
    }
    if (p == NULL || hm_busy ||
        atomic_load_explicit(&state, memory_order_relaxed) != STATE_TRACKING ||
        HM_UNLIKELY((uintptr_t)p >> HM_ADDR_BITS)) /* a 57-bit address space */
        return; /* a countdown at or below 0 samples the next one */
    if (HM_UNLIKELY(hm_child_due))
        hm_dump_child_poll();
    if (hm_cfg.mode == HM_MODE_SAMPLED) {
        if (hm_sample_left > 0 || !hm_sample_slow(size))
            return;
    } else if (hm_sample_left < INT64_MIN / 2) {
        hm_sample_left = 0; /* exact mode counts down for nothing */
    }
    track_block(p, size, kind);
}

/* What every allocation pays: in sampled mode, the thread's countdown by
 * the bytes asked for (no atomic, no lock, no call) while it stays above
 * 0; the rest is track_slow's. */
static inline void track(void *p, size_t size, hm_kind kind) {
    if (HM_LIKELY(hm_sample_take(size)) && HM_LIKELY(is_fast()))
        return;
    track_slow(p, size, kind);
}

/* The aligned allocations: record mode keeps the alignment asked for. */
static void track_aligned(void *p, size_t size, hm_kind kind, size_t align) {
    if (HM_UNLIKELY(hm_rec))
        hm_record_alloc(p, size, kind, align);
    else
        track(p, size, kind);
}

/* Counts the free of old, a block the table forgot: on its stack and its
 * site, with how long it lived. */
static void count_free(const hm_entry *old) {
    uint64_t life = hm_ticks_since(hm_ticks_now(), hm_entry_born(old)) * HM_TICK_US;
    hm_stacks_count_free(old->stack, old->size, life);
    if (old->site != 0)
        hm_ruby_site_count_free(old->site, old->size, life);
}

/* Forgets p if tracked; the removed entry goes to *old. */
static int untrack(void *p, hm_entry *old) {
    if (HM_UNLIKELY(hm_rec)) {
        hm_record_free(p);
        return 0;
    }
    if (p == NULL || !hm_live_maybe((uintptr_t)p))
        return 0;
    if (!hm_live_remove((uintptr_t)p, old))
        return 0;
    count_free(old);
    return 1;
}

/* ---- the hooks ---- */

HM_EXPORT void *malloc(size_t n) {
    if (HM_UNLIKELY(!ready()))
        return boot_alloc(n);
    void *p = hm_next.malloc(n);
    track(p, n, HM_KIND_MALLOC);
    return p;
}

HM_EXPORT void *calloc(size_t k, size_t n) {
    if (HM_UNLIKELY(!ready())) {
        size_t total;
        return __builtin_mul_overflow(k, n, &total) ? NULL : boot_alloc(total);
    }
    void *p = hm_next.calloc(k, n);
    track(p, k * n, HM_KIND_CALLOC);
    return p;
}

/* free outside the fast case: exact mode, record mode, a sampled page. */
__attribute__((noinline)) static void free_slow(void *p) {
    /* In exact mode two cache misses are coming, the table's slot and the
     * allocator's chunk header: start both, so that they overlap. (In
     * sampled mode the slot is rarely wanted: the filter says so.) */
    if (HM_UNLIKELY(hm_rec)) {
        hm_rec_table_prefetch((uintptr_t)p);
        __builtin_prefetch((const char *)p - 16, 1, 3);
    } else if (hm_cfg.mode == HM_MODE_EXACT) {
        hm_live_prefetch((uintptr_t)p);
        __builtin_prefetch((const char *)p - 16, 1, 3);
    }
    hm_entry old;
    untrack(p, &old);
    hm_next.free(p);
}

HM_EXPORT void free(void *p) {
    if (p == NULL || in_boot(p))
        return;
    if (HM_LIKELY(is_fast()) && !hm_live_filter_hit((uintptr_t)p)) {
        hm_next.free(p); /* sampled mode, a page without a sampled block */
        return;
    }
    free_slow(p);
}

static void *realloc_as(void *p, size_t n, hm_kind kind) {
    if (HM_UNLIKELY(!ready()))
        return NULL;
    if (in_boot(p)) { /* out of the arena, into the real heap */
        void *q = hm_next.malloc(n);
        if (q != NULL) {
            size_t room = (size_t)(boot + sizeof boot - (char *)p);
            memcpy(q, p, n < room ? n : room);
            track(q, n, kind);
        }
        return q;
    }
    if (HM_UNLIKELY(hm_rec))
        return hm_record_realloc(p, n, kind);
    /* The old block is forgotten first (as in free), but its free is
     * counted only once realloc has succeeded. */
    hm_entry old;
    int had = p != NULL && hm_live_maybe((uintptr_t)p) &&
              hm_live_remove((uintptr_t)p, &old);
    void *q = hm_next.realloc(p, n);
    if (q == NULL && (p == NULL || n != 0)) {
        if (had) /* failed: p is still the program's, as it was */
            hm_live_insert(&old);
        return NULL;
    }
    if (had)
        count_free(&old);
    track(q, n, kind);
    return q;
}

HM_EXPORT void *realloc(void *p, size_t n) { return realloc_as(p, n, HM_KIND_REALLOC); }

HM_EXPORT void *reallocarray(void *p, size_t k, size_t n) {
    size_t total;
    if (__builtin_mul_overflow(k, n, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc_as(p, total, HM_KIND_REALLOCARRAY);
}

HM_EXPORT int posix_memalign(void **out, size_t align, size_t n) {
    if (HM_UNLIKELY(!ready()))
        return ENOMEM;
    int rc = hm_next.posix_memalign(out, align, n);
    if (rc == 0)
        track_aligned(*out, n, HM_KIND_POSIX_MEMALIGN, align);
    return rc;
}

/* The hooks that need nothing but the real call and the record. */
static void *tracked(void *p, size_t n, hm_kind kind) {
    track(p, n, kind);
    return p;
}

static void *tracked_aligned(void *p, size_t n, hm_kind kind, size_t align) {
    track_aligned(p, n, kind, align);
    return p;
}

HM_EXPORT void *aligned_alloc(size_t align, size_t n) {
    return ready() ? tracked_aligned(hm_next.aligned_alloc(align, n), n,
                                     HM_KIND_ALIGNED_ALLOC, align) : NULL;
}

HM_EXPORT void *memalign(size_t align, size_t n) {
    return ready() ? tracked_aligned(hm_next.memalign(align, n), n,
                                     HM_KIND_MEMALIGN, align) : NULL;
}

HM_EXPORT void *valloc(size_t n) {
    return ready() ? tracked(hm_next.valloc(n), n, HM_KIND_VALLOC) : NULL;
}

HM_EXPORT void *pvalloc(size_t n) {
    return ready() ? tracked(hm_next.pvalloc(n), n, HM_KIND_PVALLOC) : NULL;
}

/* The hooks' own addresses for hm_attach.c: inside this library the
 * names malloc... may resolve to the allocator's. */
#define HM_ALIAS(type, name, hook) \
    extern __typeof__(name) hook \
        __attribute__((alias(#name), copy(name), visibility("hidden")))
HM_ALIAS(void *, malloc, hm_hook_malloc);
HM_ALIAS(void *, calloc, hm_hook_calloc);
HM_ALIAS(void *, realloc, hm_hook_realloc);
HM_ALIAS(void *, reallocarray, hm_hook_reallocarray);
HM_ALIAS(void, free, hm_hook_free);
HM_ALIAS(int, posix_memalign, hm_hook_posix_memalign);
HM_ALIAS(void *, aligned_alloc, hm_hook_aligned_alloc);
HM_ALIAS(void *, memalign, hm_hook_memalign);
HM_ALIAS(void *, valloc, hm_hook_valloc);
HM_ALIAS(void *, pvalloc, hm_hook_pvalloc);

/* ---- attaching (heapfmt-malloc -p) ---- */

/* settings: NAME=VALUE lines of the HEAPFMT_MALLOC_* variables */
static const char *from_settings(const char *name, void *arg) {
    static char value[1100]; /* under the attach lock: one caller */
    size_t n = strlen(name);
    for (const char *p = arg; p != NULL && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > n && p[n] == '=' && memcmp(p, name, n) == 0 &&
            len - n - 1 < sizeof value) {
            memcpy(value, p + n + 1, len - n - 1);
            value[len - n - 1] = 0;
            return value;
        }
        p = eol ? eol + 1 : NULL;
    }
    return NULL;
}

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static int started_once;

HM_EXPORT int heapfmt_malloc_attach(const char *settings) {
    if (hm_preloaded)
        return HEAPFMT_MALLOC_PRELOADED;
    pthread_mutex_lock(&attach_lock);
    int rc = 0;
    int was_busy = hm_busy;
    hm_busy = 1;
    if (atomic_load(&state) == STATE_TRACKING) {
        rc = HEAPFMT_MALLOC_ATTACHED;
        goto out;
    }
    resolve_with(RTLD_DEFAULT);
    if (hm_next.malloc == NULL || hm_next.free == NULL) {
        rc = HEAPFMT_MALLOC_NO_ALLOCATOR;
        goto out;
    }
    hm_stderr_note(); /* the log's: the process's standard error now */
    hm_config_load_with(&hm_cfg, from_settings, (void *)settings);
    if (!started_once) {
        start_once();
        started_once = 1;
    } else { /* attached before: start afresh */
        hm_live_reset();
        hm_stacks_reset_counts();
        hm_ruby_reset_counts();
    }
    hm_dump_start();
    /* tracking first: a call through an entry patched a moment later is
     * then counted */
    set_state(STATE_TRACKING);
    if (hm_attach_patch_all() < 0) {
        hm_attach_unpatch_all();
        set_state(STATE_DETACHED);
        hm_dump_stop();
        rc = HEAPFMT_MALLOC_NO_MEMORY;
        goto out;
    }
    hm_log("attached (%s mode)", hm_cfg.mode == HM_MODE_EXACT ? "exact" : "sampled");
out:
    hm_busy = was_busy;
    pthread_mutex_unlock(&attach_lock);
    return rc;
}

HM_EXPORT int heapfmt_malloc_detach(void) {
    if (hm_preloaded)
        return HEAPFMT_MALLOC_PRELOADED;
    pthread_mutex_lock(&attach_lock);
    int rc = 0;
    if (atomic_load(&state) != STATE_TRACKING) {
        rc = HEAPFMT_MALLOC_NOT_ATTACHED;
    } else {
        int was_busy = hm_busy;
        hm_busy = 1;
        hm_attach_unpatch_all();
        set_state(STATE_DETACHED);
        hm_dump_stop();
        hm_log("detached");
        hm_busy = was_busy;
    }
    pthread_mutex_unlock(&attach_lock);
    return rc;
}

/* ---- the C API (heapfmt_malloc.h) ---- */

HM_EXPORT int heapfmt_malloc_dump(const char *path, char *written, size_t len) {
    if (atomic_load(&state) != STATE_TRACKING) {
        errno = EAGAIN;
        return -1;
    }
    return hm_dump_write(path, written, len);
}

HM_EXPORT int heapfmt_malloc_tracking(void) {
    return atomic_load(&state) == STATE_TRACKING;
}
