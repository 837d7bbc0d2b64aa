/* run.c -- a replay program (program.h) played under the allocator of
 * this process: one thread per thread of the trace, barriers at MARKs and
 * thread starts, each block touched as a program that fills it would, and
 * the time of each allocator call measured.
 *
 * Nothing here calls malloc: the program is mapped, the slots and the
 * threads' state are mapped, lines are written with write(2). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chunks.h"
#include "heapfmt.h"
#include "hm_statm.h"
#include "program.h"
#include "run.h"

/* ---- the allocator's functions ---- */

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
} fn;

static int out_fd = -1;
static _Atomic uint64_t substituted;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    for (int done = 0; done < n;) {
        ssize_t w = write(out_fd, line + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the parent is gone */
        done += (int)w;
    }
}

/* The object a function comes from, or NULL. */
static const void *object_of(const void *f)
{
    Dl_info info;
    return f != NULL && dladdr(f, &info) != 0 ? info.dli_fbase : NULL;
}

/* Whether malloc comes from the object expected: a soname (its file's
 * name, or the name its link resolves to, begins so), "libc.so", or an
 * absolute path (the same file). */
static int expected_object(const char *expect, char *found, size_t len)
{
    Dl_info info;
    if (dladdr((const void *)fn.malloc, &info) == 0 || info.dli_fname == NULL) {
        snprintf(found, len, "(unknown)");
        return 0;
    }
    snprintf(found, len, "%s", info.dli_fname);
    char real[PATH_MAX];
    const char *resolved = realpath(info.dli_fname, real) ? real : info.dli_fname;
    if (expect[0] == '/') {
        char want[PATH_MAX];
        return realpath(expect, want) != NULL && strcmp(want, resolved) == 0;
    }
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    const char *rbase = strrchr(resolved, '/');
    rbase = rbase ? rbase + 1 : resolved;
    size_t n = strlen(expect);
    return strncmp(base, expect, n) == 0 || strncmp(rbase, expect, n) == 0;
}

/* What the allocator lacks (an allocator need not define valloc...) is
 * served by what it has, counted, never by another allocator: a block
 * must be freed by the allocator that made it. */
static void *sub_calloc(size_t k, size_t n)
{
    atomic_fetch_add(&substituted, 1);
    void *p = fn.malloc(n * k);
    if (p)
        memset(p, 0, n * k);
    return p;
}

static int have_posix_memalign;
static void *sub_aligned(size_t align, size_t n)
{
    atomic_fetch_add(&substituted, 1);
    void *p = NULL;
    if (have_posix_memalign)
        return fn.posix_memalign(&p, align, n) == 0 ? p : NULL;
    return fn.malloc(n); /* no aligned call at all: the size only */
}
static int sub_posix_memalign(void **out, size_t align, size_t n)
{
    *out = sub_aligned(align, n);
    return *out ? 0 : ENOMEM;
}
static void *sub_valloc(size_t n) { return sub_aligned(4096, n); }
static void *sub_pvalloc(size_t n) { return sub_aligned(4096, (n + 4095) & ~(size_t)4095); }

static int resolve(const char *expect)
{
    fn.malloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
    fn.free = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
    fn.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_DEFAULT, "calloc");
    fn.realloc = (void *(*)(void *, size_t))dlsym(RTLD_DEFAULT, "realloc");
    fn.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_DEFAULT, "posix_memalign");
    fn.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_DEFAULT, "aligned_alloc");
    fn.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_DEFAULT, "memalign");
    fn.valloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "valloc");
    fn.pvalloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "pvalloc");
    char found[PATH_MAX + 32];
    if (fn.malloc == NULL || !expected_object(expect, found, sizeof found)) {
        say("X not-a-malloc malloc comes from %s, not %s", found, expect);
        return RUN_EXIT_NOT_MALLOC;
    }
    const void *obj = object_of((const void *)fn.malloc);
    if (object_of((const void *)fn.free) != obj ||
        object_of((const void *)fn.realloc) != obj) {
        say("X not-a-malloc %s defines malloc but not free and realloc",
            found);
        return RUN_EXIT_NOT_MALLOC;
    }
    if (object_of((const void *)fn.calloc) != obj)
        fn.calloc = sub_calloc;
    have_posix_memalign = object_of((const void *)fn.posix_memalign) == obj;
    if (!have_posix_memalign)
        fn.posix_memalign = sub_posix_memalign;
    if (object_of((const void *)fn.aligned_alloc) != obj)
        fn.aligned_alloc = sub_aligned;
    if (object_of((const void *)fn.memalign) != obj)
        fn.memalign = sub_aligned;
    if (object_of((const void *)fn.valloc) != obj)
        fn.valloc = sub_valloc;
    if (object_of((const void *)fn.pvalloc) != obj)
        fn.pvalloc = sub_pvalloc;
    return RUN_EXIT_OK;
}

/* ---- memory and time ---- */

static void *map_anon(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}


static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct slot {
    _Atomic uint64_t state; /* 2n: empty after n uses; 2n+1: holding use n */
    void *ptr;
    uint64_t size;
} slot;

static slot *slots;
static size_t slots_bytes;
static unsigned char *slots_vec; /* mincore's answer */

/* The replay's own resident memory: the slot table's pages in use. */
static uint64_t own_resident(void)
{
    if (slots_bytes == 0 || mincore(slots, slots_bytes, slots_vec) != 0)
        return 0;
    uint64_t pages = 0;
    size_t np = (slots_bytes + 4095) / 4096;
    for (size_t i = 0; i < np; i++)
        pages += slots_vec[i] & 1;
    return pages * 4096;
}

static uint64_t program_rss(void)
{
    uint64_t a = hm_anon_resident(), own = own_resident();
    return a > own ? a - own : 0;
}

static _Atomic uint64_t peak;
static void note_rss(uint64_t rss)
{
    uint64_t p = atomic_load(&peak);
    while (rss > p && !atomic_compare_exchange_weak(&peak, &p, rss))
        ;
}

static uint64_t max_rss;
static _Atomic int finished;

static void *sampler(void *arg)
{
    (void)arg;
    const struct timespec pause = {0, 5000000};
    while (!atomic_load(&finished)) {
        uint64_t a = hm_anon_resident();
        uint64_t own = own_resident();
        note_rss(a > own ? a - own : 0);
        if (max_rss && a > max_rss) {
            say("X rss-limit resident memory %llu bytes passed the limit of %llu",
                (unsigned long long)a, (unsigned long long)max_rss);
            _exit(RUN_EXIT_LIMIT);
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

/* ---- the program ---- */

static const uint8_t *prog;
static const prog_header *hdr;
static const prog_thread *pthreads;
static const prog_barrier *pbarriers;
static const prog_chunk *pchunks;

static int in_file(uint64_t off, uint64_t n, uint64_t elem, uint64_t size)
{
    return elem != 0 && n <= (size - (off <= size ? off : size)) / elem &&
           off <= size;
}

static int map_program(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < sizeof(prog_header))
        return -1;
    uint64_t size = (uint64_t)st.st_size;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return -1;
    prog = m;
    hdr = m;
    if (memcmp(hdr->magic, PROG_MAGIC, 8) != 0 || hdr->size != size ||
        !in_file(hdr->threads_off, hdr->nthreads, sizeof *pthreads, size) ||
        !in_file(hdr->barriers_off, hdr->nbarriers, sizeof *pbarriers, size) ||
        !in_file(hdr->chunks_off, hdr->nchunks, sizeof *pchunks, size))
        return -1;
    pthreads = (const prog_thread *)(prog + hdr->threads_off);
    pbarriers = (const prog_barrier *)(prog + hdr->barriers_off);
    pchunks = (const prog_chunk *)(prog + hdr->chunks_off);
    for (uint64_t i = 0; i < hdr->nchunks; i++)
        if (!in_file(pchunks[i].off, pchunks[i].len, 1, size))
            return -1;
    for (uint32_t i = 0; i < hdr->nthreads; i++)
        if (pthreads[i].first_chunk > hdr->nchunks ||
            pthreads[i].nchunks > hdr->nchunks - pthreads[i].first_chunk)
            return -1;
    return 0;
}

/* ---- threads ---- */

typedef struct tstate {
    pthread_t tid;
    int started, joined;
    int64_t live;   /* bytes allocated less bytes freed */
    uint64_t alloc_ns, calls, failed;
} tstate;

static tstate *ts;
static uint64_t clock_cost; /* ns of one clock pair, taken off each call */

static pthread_mutex_t bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_arrived = PTHREAD_COND_INITIALIZER;
static pthread_cond_t bar_released = PTHREAD_COND_INITIALIZER;
static uint64_t arrived;
static int64_t released = -1;

static void arrive(uint64_t b)
{
    pthread_mutex_lock(&bar_lock);
    arrived++;
    pthread_cond_signal(&bar_arrived);
    while (released < (int64_t)b)
        pthread_cond_wait(&bar_released, &bar_lock);
    pthread_mutex_unlock(&bar_lock);
}

/* Waits until a slot holds want: the other thread's call is done. */
static void wait_state(slot *s, uint64_t want)
{
    unsigned spins = 0;
    uint64_t since = 0;
    while (atomic_load_explicit(&s->state, memory_order_acquire) != want) {
        if (++spins < 100) {
            sched_yield();
            continue;
        }
        const struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
        if (since == 0)
            since = now_ns();
        else if (now_ns() - since > 120ull * 1000000000u) {
            say("X stuck a slot waited two minutes for its block");
            _exit(RUN_EXIT_STUCK);
        }
    }
}

/* The first write of a program that fills its block: a byte in each
 * page, and the last one. */
static void touch(void *p, uint64_t from, uint64_t to)
{
    volatile char *c = p;
    for (uint64_t off = from; off < to; off += 4096)
        c[off] = 1;
    if (to > from)
        c[to - 1] = 1;
}

__attribute__((noreturn)) static void bad_program(void)
{
    say("X bad the replay program does not decode");
    _exit(RUN_EXIT_BAD);
}

static slot *slot_at(uint64_t i)
{
    if (i >= hdr->nslots)
        bad_program();
    return &slots[i];
}

#define TIMED(st, expr)                                  \
    do {                                                 \
        uint64_t t0_ = now_ns();                         \
        expr;                                            \
        uint64_t d_ = now_ns() - t0_;                    \
        (st)->alloc_ns += d_ > clock_cost ? d_ - clock_cost : 0; \
        (st)->calls++;                                   \
    } while (0)

static void allocate(tstate *st, unsigned op, const uint8_t **p,
                     const uint8_t *end)
{
    uint64_t si, gen, size, align = 0;
    if (varint_get(p, end, &si) || varint_get(p, end, &gen) ||
        varint_get(p, end, &size) ||
        ((op == HEAPFMT_EV_POSIX_MEMALIGN || op == HEAPFMT_EV_ALIGNED_ALLOC ||
          op == HEAPFMT_EV_MEMALIGN) && varint_get(p, end, &align)))
        bad_program();
    slot *s = slot_at(si);
    wait_state(s, 2 * gen);
    void *r = NULL;
    switch (op) {
    case HEAPFMT_EV_MALLOC: TIMED(st, r = fn.malloc(size)); break;
    case HEAPFMT_EV_CALLOC: TIMED(st, r = fn.calloc(1, size)); break;
    case HEAPFMT_EV_REALLOC:
    case HEAPFMT_EV_REALLOCARRAY: TIMED(st, r = fn.realloc(NULL, size)); break;
    case HEAPFMT_EV_POSIX_MEMALIGN:
        TIMED(st, if (fn.posix_memalign(&r, align, size) != 0) r = NULL);
        break;
    case HEAPFMT_EV_ALIGNED_ALLOC: TIMED(st, r = fn.aligned_alloc(align, size)); break;
    case HEAPFMT_EV_MEMALIGN: TIMED(st, r = fn.memalign(align, size)); break;
    case HEAPFMT_EV_VALLOC: TIMED(st, r = fn.valloc(size)); break;
    default: TIMED(st, r = fn.pvalloc(size)); break;
    }
    if (r != NULL) {
        touch(r, 0, size);
        st->live += (int64_t)size;
    } else {
        st->failed++;
    }
    s->ptr = r;
    s->size = r ? size : 0;
    atomic_store_explicit(&s->state, 2 * gen + 1, memory_order_release);
}

static void release(tstate *st, const uint8_t **p, const uint8_t *end)
{
    uint64_t si, gen;
    if (varint_get(p, end, &si) || varint_get(p, end, &gen))
        bad_program();
    slot *s = slot_at(si);
    wait_state(s, 2 * gen + 1);
    if (s->ptr != NULL)
        TIMED(st, fn.free(s->ptr));
    st->live -= (int64_t)s->size;
    s->ptr = NULL;
    s->size = 0;
    atomic_store_explicit(&s->state, 2 * gen + 2, memory_order_release);
}

static void resize(tstate *st, const uint8_t **p, const uint8_t *end)
{
    uint64_t osi, ogen, nsi, ngen, size;
    if (varint_get(p, end, &osi) || varint_get(p, end, &ogen) ||
        varint_get(p, end, &nsi) || varint_get(p, end, &ngen) ||
        varint_get(p, end, &size))
        bad_program();
    slot *o = slot_at(osi), *n = slot_at(nsi);
    wait_state(o, 2 * ogen + 1);
    void *r;
    uint64_t old = o->size;
    TIMED(st, r = fn.realloc(o->ptr, size));
    if (r == NULL && size != 0) { /* the old block stays, as it was */
        st->failed++;
        r = o->ptr;
        size = old;
    } else if (r != NULL) {
        touch(r, old < size ? old : size, size);
    }
    st->live += (int64_t)size - (int64_t)old;
    o->ptr = NULL;
    o->size = 0;
    if (n != o) {
        atomic_store_explicit(&o->state, 2 * ogen + 2, memory_order_release);
        wait_state(n, 2 * ngen);
    }
    n->ptr = r;
    n->size = r ? size : 0;
    if (r == NULL)
        st->live -= (int64_t)size;
    atomic_store_explicit(&n->state, 2 * ngen + 1, memory_order_release);
}

static void *thread_main(void *arg)
{
    size_t ti = (size_t)(uintptr_t)arg;
    const prog_thread *pt = &pthreads[ti];
    tstate *st = &ts[ti];
    for (uint64_t k = 0; k < pt->nchunks; k++) {
        const prog_chunk *c = &pchunks[pt->first_chunk + k];
        const uint8_t *p = prog + c->off, *end = p + c->len;
        while (p < end) {
            uint64_t op;
            if (varint_get(&p, end, &op))
                bad_program();
            if (op <= HEAPFMT_EV_LAST_ALLOC) {
                allocate(st, (unsigned)op, &p, end);
            } else if (op == OP_FREE) {
                release(st, &p, end);
            } else if (op == OP_REALLOC) {
                resize(st, &p, end);
            } else if (op == OP_BARRIER) {
                uint64_t b;
                if (varint_get(&p, end, &b) || b >= hdr->nbarriers)
                    bad_program();
                arrive(b);
            } else {
                bad_program();
            }
        }
    }
    return NULL;
}

static void start(size_t ti)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 256u << 10);
    int rc = pthread_create(&ts[ti].tid, &a, thread_main, (void *)(uintptr_t)ti);
    pthread_attr_destroy(&a);
    if (rc != 0) {
        say("X thread cannot start the replay of thread %u: %s",
            pthreads[ti].number, strerror(rc));
        _exit(RUN_EXIT_BAD);
    }
    ts[ti].started = 1;
}

static void join(size_t ti)
{
    if (ts[ti].started && !ts[ti].joined) {
        pthread_join(ts[ti].tid, NULL);
        ts[ti].joined = 1;
    }
}

/* The threads each barrier starts and joins, bucketed once: a scan of
 * every thread at every barrier would be their product. */
static uint64_t *starts_first, *joins_first; /* nbarriers + 2 offsets */
static uint32_t *starts, *joins;

static int bucket(uint64_t (*key)(const prog_thread *), uint64_t **first,
                  uint32_t **list)
{
    uint64_t nb = hdr->nbarriers + 1; /* the last: at the end */
    *first = map_anon((nb + 1) * sizeof **first);
    *list = map_anon((hdr->nthreads + 1) * sizeof **list);
    if (*first == NULL || *list == NULL)
        return -1;
    for (uint32_t i = 0; i < hdr->nthreads; i++) {
        uint64_t b = key(&pthreads[i]);
        if (b < nb)
            (*first)[b + 1]++;
    }
    for (uint64_t b = 0; b < nb; b++)
        (*first)[b + 1] += (*first)[b];
    uint64_t *at = map_anon(nb * sizeof *at);
    if (at == NULL)
        return -1;
    memcpy(at, *first, nb * sizeof *at);
    for (uint32_t i = 0; i < hdr->nthreads; i++) {
        uint64_t b = key(&pthreads[i]);
        if (b < nb)
            (*list)[at[b]++] = i;
    }
    munmap(at, nb * sizeof *at);
    return 0;
}

static uint64_t start_key(const prog_thread *t) { return t->start_barrier; }
static uint64_t join_key(const prog_thread *t) { return t->end_barrier; }

static void totals(int64_t *live, uint64_t *alloc_ns, uint64_t *calls,
                   uint64_t *failed)
{
    *live = 0;
    *alloc_ns = *calls = *failed = 0;
    for (uint32_t i = 0; i < hdr->nthreads; i++) {
        *live += ts[i].live;
        *alloc_ns += ts[i].alloc_ns;
        *calls += ts[i].calls;
        *failed += ts[i].failed;
    }
}

static uint64_t calibrate(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 2000; i++) {
        uint64_t a = now_ns(), b = now_ns();
        if (b - a < best)
            best = b - a;
    }
    return best;
}


int run_child(int argc, char **argv)
{
    if (argc != 3)
        return RUN_EXIT_BAD;
    int prog_fd = atoi(argv[0]); /* or "probe": only resolve() */
    out_fd = atoi(argv[1]);
    max_rss = strtoull(argv[2], NULL, 10);
    const char *expect = getenv(RUN_EXPECT_ENV);
    if (expect == NULL || expect[0] == 0) {
        say("X bad no allocator named");
        return RUN_EXIT_BAD;
    }
    int rc = resolve(expect);
    if (rc != RUN_EXIT_OK || strcmp(argv[0], "probe") == 0)
        return rc;
    if (map_program(prog_fd) != 0) {
        say("X bad the replay program cannot be read");
        return RUN_EXIT_BAD;
    }
    slots_bytes = (size_t)hdr->nslots * sizeof *slots;
    slots = map_anon(slots_bytes);
    slots_vec = map_anon(slots_bytes / 4096 + 1);
    ts = map_anon(hdr->nthreads * sizeof *ts);
    if (slots == NULL || slots_vec == NULL || ts == NULL ||
        bucket(start_key, &starts_first, &starts) != 0 ||
        bucket(join_key, &joins_first, &joins) != 0) {
        say("X bad no memory for %llu slots", (unsigned long long)hdr->nslots);
        return RUN_EXIT_BAD;
    }
    clock_cost = calibrate();
    say("R %llu", (unsigned long long)clock_cost);
    pthread_t samp;
    if (pthread_create(&samp, NULL, sampler, NULL) != 0) {
        say("X thread cannot start the memory sampler");
        return RUN_EXIT_BAD;
    }
    uint64_t t0 = now_ns();
    int64_t live;
    uint64_t alloc_ns, calls, failed;
    for (uint64_t b = 0; b < hdr->nbarriers; b++) {
        const prog_barrier *pb = &pbarriers[b];
        pthread_mutex_lock(&bar_lock);
        while (arrived < pb->arrivals)
            pthread_cond_wait(&bar_arrived, &bar_lock);
        arrived = 0; /* threads started below may arrive at the next one */
        pthread_mutex_unlock(&bar_lock);
        for (uint64_t k = joins_first[b]; k < joins_first[b + 1]; k++)
            join(joins[k]);
        if (pb->mark >= 0) {
            uint64_t rss = program_rss();
            note_rss(rss);
            totals(&live, &alloc_ns, &calls, &failed);
            say("M %lld %llu %lld %llu %llu %llu", (long long)pb->mark,
                (unsigned long long)rss, (long long)live,
                (unsigned long long)atomic_load(&peak),
                (unsigned long long)alloc_ns,
                (unsigned long long)(now_ns() - t0));
        }
        for (uint64_t k = starts_first[b]; k < starts_first[b + 1]; k++)
            start(starts[k]);
        pthread_mutex_lock(&bar_lock);
        released = (int64_t)b;
        pthread_cond_broadcast(&bar_released);
        pthread_mutex_unlock(&bar_lock);
    }
    for (uint32_t i = 0; i < hdr->nthreads; i++)
        join(i);
    uint64_t elapsed = now_ns() - t0;
    uint64_t rss = program_rss();
    note_rss(rss);
    atomic_store(&finished, 1);
    pthread_join(samp, NULL);
    totals(&live, &alloc_ns, &calls, &failed);
    say("E %llu %lld %llu %llu %llu %llu %llu %llu", (unsigned long long)rss,
        (long long)live, (unsigned long long)atomic_load(&peak),
        (unsigned long long)alloc_ns, (unsigned long long)calls,
        (unsigned long long)failed,
        (unsigned long long)atomic_load(&substituted),
        (unsigned long long)elapsed);
    return RUN_EXIT_OK;
}
