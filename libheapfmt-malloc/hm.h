/* hm.h -- internals of libheapfmt-malloc, the LD_PRELOAD malloc tracker.
 *
 * The tracker sits between a program and its allocator. Each tracked
 * allocation gets an entry in the live table (hm_live.c) and the id of its
 * interned call stack (hm_stacks.c); a dump (hm_dump.c) writes the live
 * table as a heapfmt file. Everything here runs inside malloc, so:
 *   - nothing here calls the program's malloc: memory comes from mmap or
 *     from the real allocator through hm_real (never through the hooks);
 *   - a thread inside the tracker is marked busy (hm_busy), and any
 *     allocation it makes meanwhile (by libunwind, dladdr, the writer, a
 *     signal handler that calls malloc) goes straight to the allocator;
 *   - no lock of the tracker is held while calling anything that may take
 *     a lock of its own (the unwinder, the loader), so no lock order can
 *     invert. */
#ifndef HM_H
#define HM_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "hm_addr_table.h"

#include "hm_settings.h" /* the depth bound, the dump signal */

#define HM_EXPORT __attribute__((visibility("default")))
#define HM_TLS __attribute__((tls_model("initial-exec")))
#define HM_LIKELY(x) __builtin_expect(!!(x), 1)
#define HM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The allocation calls, as the dump names them (the object's type). */
typedef enum hm_kind {
    HM_KIND_MALLOC,
    HM_KIND_CALLOC,
    HM_KIND_REALLOC,
    HM_KIND_REALLOCARRAY,
    HM_KIND_POSIX_MEMALIGN,
    HM_KIND_ALIGNED_ALLOC,
    HM_KIND_MEMALIGN,
    HM_KIND_VALLOC,
    HM_KIND_PVALLOC,
    HM_KIND_COUNT
} hm_kind;

const char *hm_kind_name(hm_kind k);

/* The allocator underneath, found with dlsym(RTLD_NEXT) at start. */
typedef struct hm_real {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*usable_size)(void *);
} hm_real;

extern hm_real hm_next;

/* 1 when this library stands in for the process's malloc by name
 * (preloaded, or linked first); 0 when heapfmt-malloc -p loaded it into a
 * running process, where it works through patched GOT entries. */
extern int hm_preloaded;

/* Nonzero while this thread runs tracker code (its own allocations are
 * not tracked). */
extern HM_TLS __thread int hm_busy;

/* ------------------------------------------------------------------ */
/* Configuration (hm_config.c), from the environment at start          */
/* ------------------------------------------------------------------ */

typedef enum hm_mode { HM_MODE_SAMPLED, HM_MODE_EXACT } hm_mode;

typedef struct hm_config {
    hm_mode mode;
    uint64_t sample_bytes;   /* mean bytes between samples (sampled mode) */
    unsigned depth;          /* frames kept per stack */
    int signal;              /* 0: no signal */
    unsigned interval;       /* seconds between periodic dumps, 0: none */
    int at_exit;             /* dump when the process exits */
    int ruby;                /* attribute to Ruby's file:line: 1 on, 0 off */
    int log;                 /* one line on stderr per dump */
    int level;               /* zstd level of the dump */
    char dir[1024];          /* where dumps go: absolute, fixed at start */
    char prefix[64];         /* dump file names start with this */
} hm_config;

extern hm_config hm_cfg;

/* Reads HEAPFMT_MALLOC_* into hm_cfg (defaults for what is unset or bad;
 * a bad value is reported once through hm_log when log is on). */
void hm_config_load(hm_config *c);
/* The same from get(name, arg) instead of the environment (the settings
 * heapfmt-malloc -p hands a process it attaches to). */
void hm_config_load_with(hm_config *c,
                         const char *(*get)(const char *name, void *arg),
                         void *arg);

/* ------------------------------------------------------------------ */
/* The program's descriptors (hm_host.c)                                */
/* ------------------------------------------------------------------ */

/* Gives the calling thread a descriptor table of its own, empty: 1, or 0
 * when the kernel refuses and the thread shares the program's. */
int hm_fd_private(void);

/* A file of the tracker's, remembered by device and inode: each write and
 * the close first check that the descriptor still names it (in a shared
 * table the program may have closed it and reused the number). */
typedef struct hm_file {
    int fd;
    int lost;     /* the descriptor no longer names the file */
    uint64_t bytes; /* written through hm_file_write */
    dev_t dev;
    ino_t ino;
} hm_file;
/* Creates path (exclusive: fails with EEXIST if it exists; else truncates
 * an existing file), close-on-exec, readable and writable by its owner
 * whatever the umask. Returns 0 or -1 with errno set. */
int hm_file_open(hm_file *f, const char *path, int exclusive);
/* Takes fd as the tracker's file (its identity now). 0 or -1. */
int hm_file_adopt(hm_file *f, int fd);
/* 1 while f's descriptor still names f's file. */
int hm_file_same(hm_file *f);
/* A heapfmt_write_fn over an hm_file: -EBADF once the file is lost. */
long hm_file_write(void *opaque, const void *buf, size_t len);
/* Closes f's descriptor if it still names f's file. 0, or -1 with errno. */
int hm_file_close(hm_file *f);

/* Holds SIGXFSZ back in the calling thread around a write to a file: a
 * write past RLIMIT_FSIZE then fails with EFBIG instead of killing the
 * program, and the signal it raised is taken (one already pending before
 * hm_xfsz_hold is left alone). */
typedef struct hm_xfsz {
    sigset_t mask;
    int was_pending;
} hm_xfsz;
void hm_xfsz_hold(hm_xfsz *h);
void hm_xfsz_release(hm_xfsz *h);

/* Notes what descriptor 2 is at start; hm_stderr_write writes there only
 * while it is still that file (0, or -1: not written). */
void hm_stderr_note(void);
int hm_stderr_write(const void *buf, size_t len);

/* Points libunwind's pipe, read and syscall imports at descriptor-free
 * stand-ins (hm_unwind_io.c); 0, or -1 when they could not all be found. */
int hm_unwind_io_init(void);
/* 1 when the byte at addr can be read. */
int hm_readable(uintptr_t addr);

/* ------------------------------------------------------------------ */
/* Wake-ups of the dump thread (hm_wake.c): no descriptor               */
/* ------------------------------------------------------------------ */

void hm_wake_init(void);
/* Asks for a dump; async-signal-safe (the signal handler's only call). */
void hm_wake_post(void);
/* Wakes the thread without asking for a dump (it takes up new settings). */
void hm_wake_nudge(void);
/* 1 when a dump was asked for since the last call (and clears it). */
int hm_wake_take(void);
/* Waits for hm_wake_post or until deadline_ns on CLOCK_MONOTONIC (0: no
 * deadline). 0, or -1 when the wait itself failed. */
int hm_wake_wait(uint64_t deadline_ns);
uint64_t hm_wake_now(void);
void hm_wake_atfork_child(void);

/* When a wake-up makes a dump: on a request, or at the interval's
 * deadline; never otherwise. */
typedef struct hm_schedule {
    uint64_t interval_ns; /* 0: no periodic dumps */
    uint64_t next_ns;     /* the next periodic dump's deadline */
} hm_schedule;
void hm_schedule_init(hm_schedule *s, unsigned interval_s, uint64_t now);
uint64_t hm_schedule_deadline(const hm_schedule *s);
/* 1 when a dump is due at now (requested: one was asked for); moves the
 * next deadline past now. */
int hm_schedule_due(hm_schedule *s, uint64_t now, int requested);

/* ------------------------------------------------------------------ */
/* Raw memory (hm_config.c): mmap'd, never from the hooked allocator    */
/* ------------------------------------------------------------------ */

void *hm_map(size_t bytes);
void hm_unmap(void *p, size_t bytes);

/* ------------------------------------------------------------------ */
/* Live allocations (hm_live.c)                                         */
/* ------------------------------------------------------------------ */

/* One live allocation: 24 bytes. size is what the program asked for
 * (HM_SIZE_MAX if larger); epoch is the number of dumps taken before it
 * was made, so that an address reused after a dump gets a new object id
 * (hm_dump.c); born is when it was made, in ticks of HM_TICK_US of the
 * coarse monotonic clock (41 bits: 1.1 years; hm_clock.c), for the
 * lifespans of its stack and site. Each field has the bits its range needs (an address of 48
 * bits: user space on x86-64 and AArch64; stack ids below 2^22, site ids
 * up to 2^20), so that born fits without a larger slot: a live allocation
 * costs at most 64 bytes of table (issue 16). */
#define HM_SIZE_BITS 40
#define HM_SIZE_MAX ((UINT64_C(1) << HM_SIZE_BITS) - 1)
#define HM_ADDR_BITS 48
#define HM_TICK_US 16
#define HM_BORN_BITS 41
typedef struct hm_entry {
    uint64_t addr : HM_ADDR_BITS; /* 0: empty slot */
    uint64_t born_a : 16;         /* born, bits 0-15 */
    uint64_t size : HM_SIZE_BITS;
    uint64_t kind : 4;
    uint64_t epoch : 16;
    uint64_t born_c : 4;          /* born, bits 37-40 */
    uint64_t stack : 22;          /* hm_stacks id, 0: none */
    uint64_t site : 21;           /* hm_ruby site id, 0: none */
    uint64_t born_b : 21;         /* born, bits 16-36 */
} hm_entry;

static inline uint64_t hm_entry_born(const hm_entry *e) {
    return (uint64_t)e->born_a | (uint64_t)e->born_b << 16 |
           (uint64_t)e->born_c << 37;
}
static inline void hm_entry_set_born(hm_entry *e, uint64_t ticks) {
    e->born_a = ticks & 0xffffu;
    e->born_b = (ticks >> 16) & ((UINT64_C(1) << 21) - 1);
    e->born_c = (ticks >> 37) & 0xfu;
}
/* The entry of these fields, made as three whole words: filled field by
 * field, GCC read back words it had just written in part, a store-
 * forwarding stall each (8% of exact mode's time on a malloc-heavy
 * program, issue 39). Bit-fields fill each word from its low bits on
 * x86-64 and AArch64 (their ABIs); test_malloc_live checks the fields
 * read back. */
static inline hm_entry hm_entry_make(uintptr_t addr, uint64_t size, unsigned kind,
                                     unsigned epoch, uint32_t stack, uint32_t site,
                                     uint64_t born) {
    uint64_t w[3];
    w[0] = ((uint64_t)addr & ((UINT64_C(1) << HM_ADDR_BITS) - 1)) | (born & 0xffff) << 48;
    w[1] = (size > HM_SIZE_MAX ? HM_SIZE_MAX : size) | (uint64_t)(kind & 0xf) << 40 |
           (uint64_t)(epoch & 0xffff) << 44 | ((born >> 37) & 0xf) << 60;
    w[2] = (uint64_t)(stack & 0x3fffff) | (uint64_t)(site & 0x1fffff) << 22 |
           ((born >> 16) & 0x1fffff) << 43;
    hm_entry e;
    memcpy(&e, w, sizeof e);
    return e;
}
/* The clock (hm_clock.c) in ticks of HM_TICK_US, modulo 2^HM_BORN_BITS;
 * the age of a tick t is hm_ticks_since(now, t) (wraps after 1.1 years). */
uint64_t hm_ticks_now(void);
static inline uint64_t hm_ticks_since(uint64_t now, uint64_t t) {
    return (now - t) & ((UINT64_C(1) << HM_BORN_BITS) - 1);
}

void hm_live_init(void);
/* Adds e. Returns 0, or -1 when no memory could be mapped (not tracked). */
int hm_live_insert(const hm_entry *e);
/* Removes addr; copies its entry to *out and returns 1, or returns 0 when
 * addr is not tracked. */
int hm_live_remove(uintptr_t addr, hm_entry *out);
/* Starts loading addr's slot into the cache: the table is read at random
 * (a freed block's address is reused in any order), so the insert after a
 * stack capture finds it there instead of waiting for memory. */
void hm_live_prefetch(uintptr_t addr);
/* Cheap, lock-free test: 0 means addr is certainly not tracked. In
 * sampled mode most freed blocks were never tracked; a counting filter (a
 * byte per 4 KiB page, 64 KiB: 256 MiB of address space before two pages
 * share a byte) says so without the shard's lock. By page, not by a hash
 * of the address: a free's byte is then the one its neighbours read, in
 * a line already in the cache (a hashed byte cost a cache miss per free,
 * 8% of a malloc-heavy program's time, issue 39). A page with a sampled
 * block sends its other frees to the table: with a sample per 512 KiB
 * allocated, few pages hold one. Counters saturate at 255 and then stay:
 * false positives, never false negatives; a false positive costs one
 * lookup, so the filter needs no seed. Inline: it is all an untracked
 * free pays. */
#define HM_FILTER_BITS 16
extern _Atomic unsigned char hm_live_filter[1u << HM_FILTER_BITS];
extern int hm_live_filter_on;
static inline size_t hm_live_filter_slot(uintptr_t a) {
    return (size_t)(a >> 12) & ((1u << HM_FILTER_BITS) - 1);
}
/* The filter's answer alone, for a caller that knows it is on. */
static inline int hm_live_filter_hit(uintptr_t addr) {
    return __atomic_load_n((unsigned char *)&hm_live_filter[hm_live_filter_slot(addr)],
                           __ATOMIC_RELAXED) != 0;
}
static inline int hm_live_maybe(uintptr_t addr) {
    return !hm_live_filter_on || hm_live_filter_hit(addr);
}
/* Entries in the table now (racy: for sizing). */
size_t hm_live_count(void);
/* With every shard locked (hm_live_lock_all): copies every entry to buf
 * (room for cap) and its usable size to usable; returns the number of
 * entries, more than cap when buf is too small (then only cap copied). */
size_t hm_live_snapshot(hm_entry *buf, uint64_t *usable, size_t cap);
/* Bytes of memory the table holds now. */
size_t hm_live_memory(void);
void hm_live_lock_all(void);
void hm_live_unlock_all(void);

/* ------------------------------------------------------------------ */
/* Call stacks (hm_stacks.c)                                            */
/* ------------------------------------------------------------------ */

/* Counters of one stack (or one Ruby site) since start, as read.
 * lifetime_us sums the lifetimes of the freed blocks. */
typedef struct hm_stack_counts {
    uint64_t allocs, frees;
    uint64_t alloc_bytes, free_bytes;
    uint64_t lifetime_us;
} hm_stack_counts;

/* The same, kept by a stack or a site and updated without a lock
 * (relaxed atomics: each counter is exact, a reader may see one a moment
 * ahead of another). 2^64 microseconds of lifetimes is 584,000 years: no
 * saturation needed. */
typedef struct hm_counters {
    _Atomic uint64_t allocs, frees, alloc_bytes, free_bytes, lifetime_us;
} hm_counters;

static inline void hm_counters_alloc(hm_counters *c, uint64_t size) {
    __atomic_fetch_add((uint64_t *)&c->allocs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add((uint64_t *)&c->alloc_bytes, size, __ATOMIC_RELAXED);
}
static inline void hm_counters_free(hm_counters *c, uint64_t size,
                                    uint64_t life_us) {
    __atomic_fetch_add((uint64_t *)&c->frees, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add((uint64_t *)&c->free_bytes, size, __ATOMIC_RELAXED);
    __atomic_fetch_add((uint64_t *)&c->lifetime_us, life_us, __ATOMIC_RELAXED);
}
static inline void hm_counters_read(hm_counters *c, hm_stack_counts *out) {
    out->allocs = __atomic_load_n((uint64_t *)&c->allocs, __ATOMIC_RELAXED);
    out->frees = __atomic_load_n((uint64_t *)&c->frees, __ATOMIC_RELAXED);
    out->alloc_bytes = __atomic_load_n((uint64_t *)&c->alloc_bytes, __ATOMIC_RELAXED);
    out->free_bytes = __atomic_load_n((uint64_t *)&c->free_bytes, __ATOMIC_RELAXED);
    out->lifetime_us = __atomic_load_n((uint64_t *)&c->lifetime_us, __ATOMIC_RELAXED);
}

void hm_stacks_init(void);
/* The id (>= 1) of the stack of ips (innermost first), interned; counts
 * one allocation of size bytes on it. Returns HM_STACK_OVERFLOW when the
 * table is full. */
uint32_t hm_stacks_intern(const uintptr_t *ips, unsigned n, uint64_t size);
#define HM_STACK_OVERFLOW 1u /* id 1: "stack table full", no frames */
/* Counts one free of size bytes on stack id, of a block that lived
 * life_us microseconds. */
void hm_stacks_count_free(uint32_t id, uint64_t size, uint64_t life_us);
/* Number of ids given so far (ids are 1..n). */
uint32_t hm_stacks_count(void);
/* Frames and counters of id (1..hm_stacks_count()). */
unsigned hm_stacks_get(uint32_t id, const uintptr_t **ips,
                       hm_stack_counts *counts);
size_t hm_stacks_memory(void);
void hm_stacks_lock_all(void);
void hm_stacks_unlock_all(void);

/* Captures the caller's stack, innermost first, without the tracker's own
 * frames; returns the number of frames (<= max). */
unsigned hm_capture(uintptr_t *ips, unsigned max);

/* ------------------------------------------------------------------ */
/* Sampling (hm_sample.c)                                               */
/* ------------------------------------------------------------------ */

/* Whether an allocation of size bytes is sampled (sampled mode):
 * hm_sample_take counts it down, and while the count stays above 0 it is
 * not; else hm_sample_slow decides (and draws the next count). The hooks
 * take the countdown inline, with no atomic, lock or call: it is all an
 * unsampled malloc pays. */
extern HM_TLS __thread int64_t hm_sample_left;
int hm_sample_slow(size_t size);
static inline int hm_sample_take(size_t size) {
    hm_sample_left -= (int64_t)(size > INT64_MAX ? INT64_MAX : size);
    return hm_sample_left > 0;
}
static inline int hm_sample(size_t size) {
    return HM_LIKELY(hm_sample_take(size)) ? 0 : hm_sample_slow(size);
}
/* The number of allocations one sampled allocation of size bytes stands
 * for: 1 / P(sampled). */
double hm_sample_weight(uint64_t size, uint64_t mean);

/* ------------------------------------------------------------------ */
/* Ruby attribution (hm_ruby.c)                                         */
/* ------------------------------------------------------------------ */

/* Finds the Ruby VM's symbols; returns 1 when the process is a Ruby VM. */
int hm_ruby_init(void);
/* The site id (>= 1) of the Ruby file:line the calling thread runs now,
 * or 0 (no Ruby code running on this thread). */
uint32_t hm_ruby_site(void);
/* File and line of site id. */
const char *hm_ruby_site_get(uint32_t id, size_t *len, uint32_t *line);
/* Counts one allocation of size bytes at site id; one free of a block
 * that lived life_us; reads the counters of site id. */
void hm_ruby_site_count_alloc(uint32_t id, uint64_t size);
void hm_ruby_site_count_free(uint32_t id, uint64_t size, uint64_t life_us);
void hm_ruby_site_counts(uint32_t id, hm_stack_counts *out);
uint32_t hm_ruby_site_count(void);
void hm_ruby_lock_all(void);
void hm_ruby_unlock_all(void);

/* ------------------------------------------------------------------ */
/* Dumps (hm_dump.c)                                                    */
/* ------------------------------------------------------------------ */

/* Dumps taken so far, mod 2^16 (hm_entry.epoch). */
extern volatile uint16_t hm_epoch;

/* Starts the dump thread, the signal handler and the exit dump. */
void hm_dump_start(void);
/* Writes one dump to path (NULL: a new name in the configured dir).
 * Returns 0 or -1 with errno set; the path written goes to out (size
 * outlen) when out is not NULL. */
int hm_dump_write(const char *path, char *out, size_t outlen);
void hm_dump_atfork_child(void);
/* In a forked child: starts the child's dump thread if it is due. */
void hm_dump_child_poll(void);
extern volatile int hm_child_due; /* hm_dump_child_poll is due */

/* The META records every file of the tracker starts with (producer,
 * vm.name, pid, host, time, process.start = start, pointer_size), dump
 * or trace; 0, or nonzero when a write failed. */
struct heapfmt_writer;
int hm_write_meta_head(struct heapfmt_writer *w, time_t start);

/* Stops the dumps of an attached tracker that detaches (hm_attach.c):
 * the dump signal's former action comes back, no interval or exit dump
 * is written; hm_dump_start starts them again at the next attach. */
void hm_dump_stop(void);

/* ------------------------------------------------------------------ */
/* Attaching to a running process (hm_attach.c)                        */
/* ------------------------------------------------------------------ */

/* The hooks by their own addresses (hidden aliases of malloc...): what
 * the symbol names would give depends on who asks. */
void *hm_hook_malloc(size_t);
void *hm_hook_calloc(size_t, size_t);
void *hm_hook_realloc(void *, size_t);
void *hm_hook_reallocarray(void *, size_t, size_t);
void hm_hook_free(void *);
int hm_hook_posix_memalign(void **, size_t, size_t);
void *hm_hook_aligned_alloc(size_t, size_t);
void *hm_hook_memalign(size_t, size_t);
void *hm_hook_valloc(size_t);
void *hm_hook_pvalloc(size_t);
int hm_hook_ruby_vm_destruct(void *);

/* Points the GOT entries of the malloc family (and dlopen, and the Ruby
 * VM's destructor) of every loaded module but the tracker's own and the
 * loader's at the hooks, remembering what they held; modules dlopen'ed
 * later are patched when they load. Returns the entries patched, or -1. */
long hm_attach_patch_all(void);
/* Patches the modules that a dlopen bound to its caller loaded since the
 * last scan (hm_attach.c), if any: the dump thread calls it. */
void hm_attach_patch_pending(void);
/* Puts every patched entry of a module still loaded back as it was. */
void hm_attach_unpatch_all(void);

/* Clears the live table (hm_live.c), and the counts of every stack and
 * Ruby site: a second attach starts afresh. Nothing may use them then. */
void hm_live_reset(void);
void hm_stacks_reset_counts(void);
void hm_ruby_reset_counts(void);

/* Writes a one-line message to stderr when logging is on. */
void hm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ */
/* Record mode (hm_record.c, hm_rec_table.c): a trace of every call     */
/* ------------------------------------------------------------------ */

/* 0: not record mode; 1: recording; 2: record mode, stopped (a forked
 * child, a failed trace, after exit). Record mode replaces the live
 * table and the dumps: the hooks hand every call to hm_record_*. */
extern int hm_rec;

/* Starts record mode when HEAPFMT_MALLOC_RECORD=1 (after
 * hm_config_load: the trace goes to the dump directory); returns 1 in
 * record mode (recording or not: the trace may have failed to open),
 * 0 otherwise. */
int hm_record_start(void);
/* The calls, after the allocator's (kind: an hm_kind, the trace's op;
 * align: the alignment asked for, 0 for the others). */
void hm_record_alloc(void *p, size_t size, unsigned kind, size_t align);
/* Before the allocator's free. */
void hm_record_free(void *p);
/* realloc and reallocarray in record mode: calls the allocator itself. */
void *hm_record_realloc(void *p, size_t n, unsigned kind);

/* address -> block number (spec 6.10) */
void hm_rec_table_init(void);
/* 0, or -1 when no memory could be mapped */
int hm_rec_table_put(uintptr_t addr, uint64_t block);
/* Starts loading addr's home slot (no lock: a stale line costs only the
 * prefetch) so that the miss overlaps other work. */
void hm_rec_table_prefetch(uintptr_t addr);
/* the block number of addr, forgotten; 0 when addr is not there */
uint64_t hm_rec_table_take(uintptr_t addr);
/* resident bytes of the table (hm_resident) */
size_t hm_rec_table_resident(void);
/* Resident bytes of the pages of addr..addr+len (mincore). */
size_t hm_resident(const void *addr, size_t len);

#endif /* HM_H */
