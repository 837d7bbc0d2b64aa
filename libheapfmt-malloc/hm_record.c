/* hm_record.c -- record mode (heapfmt-malloc --record): every allocation
 * call of the program, as a trace of EVENTS records (spec 6.10) that
 * heapfmt-replay plays again under other allocators.
 *
 * The hooks (hm_hooks.c) hand each call here when HEAPFMT_MALLOC_RECORD
 * is set; the live table, the stacks and the dumps are then not started.
 *
 * An event takes a sequence number from one counter (the order of the
 * whole process), finds or files its block's number in the address
 * table (hm_rec_table.c), and is encoded at once (format.h's
 * hf_event_encode: two to five bytes) into a buffer of its thread's, under
 * that thread's own lock, which nobody else takes but the writer's
 * occasional try. A full buffer joins a queue, in order; a thread of the
 * recorder's writes the queue as EVENTS records, and takes a buffer that
 * has waited longer than a MARK interval from a thread gone quiet, so that
 * a cut trace loses little. Every MARK interval (100 ms) it also writes a
 * MARK: the program's resident anonymous bytes (sampled every 10 ms for
 * the peak) without the recorder's own.
 *
 * The rules of the tracker inside its host (docs/robustness.md) hold: the
 * writer's thread takes no signal and has a descriptor table of its own,
 * empty (hm_fd_private), where the trace stays open; where the kernel
 * refuses one, the trace is opened, checked (device, inode), written and
 * closed at each write, so that no descriptor of the recorder's sits in
 * the program's table. Memory comes from mmap (buffers, the table) or
 * from the allocator underneath (the writer's), never through the hooks.
 * A forked child is not recorded (its parent's buffers are not its own);
 * a program it executes is, in a trace of its own. The dump signal asks
 * for the trace so far on disk (the writer's thread takes it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heapfmt.h"
#include "hm.h"
#include "hm_statm.h"
#include "writer_internal.h"

int hm_rec; /* 0: not record mode; 1: recording; 2: stopped */

/* ---- the recorder's own memory ---- */

/* Resident bytes of a mapping (mincore), counted a piece at a time. */
size_t hm_resident(const void *addr, size_t len) {
    static unsigned char vec[4096]; /* the writer's thread only */
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)4095;
    uintptr_t end = (uintptr_t)addr + len;
    size_t pages = 0;
    while (a < end) {
        size_t n = (end - a + 4095) / 4096;
        if (n > sizeof vec)
            n = sizeof vec;
        if (mincore((void *)a, n * 4096, vec) != 0)
            return pages * 4096;
        for (size_t i = 0; i < n; i++)
            pages += vec[i] & 1;
        a += n * 4096;
    }
    return pages * 4096;
}

/* ---- buffers ---- */

#define BUF_BYTES (16u << 10)
#define BUF_DATA (BUF_BYTES - 64)
/* Buffers at most, mapped: 64 MiB. Past it a thread waits for the writer
 * (a trace that drops events cannot be replayed). */
#define MAX_BUFS 4096u

typedef struct rec_buf {
    struct rec_buf *next;
    uint32_t thread;
    uint32_t count;
    uint64_t seq0, time0;  /* the state before the first event */
    hf_event_state st;     /* after the last */
    uint64_t born_ms;      /* the recorder's clock at the first event */
    size_t len;
    uint8_t data[BUF_DATA];
} rec_buf;

typedef struct rec_thread {
    _Atomic int lock;
    uint32_t number;
    rec_buf *buf;
    struct rec_thread *next; /* every thread seen, for the writer */
} rec_thread;

static struct {
    pthread_mutex_t lock; /* the queue, the free list, the counts */
    pthread_cond_t room;  /* a buffer was given back */
    rec_buf *head, *tail; /* full buffers, in the order they were given */
    rec_buf *free;
    unsigned mapped;
    rec_buf **all;        /* every buffer mapped (mapped of them) */
    unsigned call;
    rec_thread *threads;  /* under lock */
    sem_t wake;           /* the writer: buffers are waiting, or stop */
    sem_t done;           /* the writer has finished (or failed) */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .room = PTHREAD_COND_INITIALIZER};

static _Atomic uint64_t next_seq = 1;
static _Atomic uint32_t next_thread = 1;
static _Atomic uint64_t lost, untracked;
static uint64_t events;           /* written; the writer's */
static unsigned nthreads_mapped;  /* under q.lock */
static _Atomic int stopping;
static volatile sig_atomic_t flush_asked; /* the dump signal came */
static uint64_t start_ns;
static unsigned mark_ms = 100;
static pthread_key_t exit_key;
static HM_TLS __thread rec_thread *self_t;
static HM_TLS __thread uint32_t self_number; /* kept across a thread's end */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_us(void) { return (now_ns() - start_ns) / 1000u; }

static void lock_thread(rec_thread *t) {
    while (atomic_exchange_explicit(&t->lock, 1, memory_order_acquire))
        sched_yield();
}

static void unlock_thread(rec_thread *t) {
    atomic_store_explicit(&t->lock, 0, memory_order_release);
}

static void queue_push(rec_buf *b) {
    b->next = NULL;
    pthread_mutex_lock(&q.lock);
    int was_empty = q.head == NULL;
    if (q.tail)
        q.tail->next = b;
    else
        q.head = b;
    q.tail = b;
    pthread_mutex_unlock(&q.lock);
    if (was_empty)
        sem_post(&q.wake);
}

/* Files b among the buffers mapped (for own_bytes). Under q.lock. */
static int note_buf(rec_buf *b) {
    if (q.mapped == q.call) {
        unsigned cap = q.call ? q.call * 2 : 256;
        rec_buf **v = hm_map(cap * sizeof *v);
        if (v == NULL)
            return -1;
        if (q.all) {
            memcpy(v, q.all, q.mapped * sizeof *v);
            hm_unmap(q.all, q.call * sizeof *v);
        }
        q.all = v;
        q.call = cap;
    }
    q.all[q.mapped++] = b;
    return 0;
}

/* A buffer for thread t's next events; waits while MAX_BUFS are out. */
static rec_buf *take_buf(void) {
    rec_buf *b = NULL;
    pthread_mutex_lock(&q.lock);
    for (;;) {
        if ((b = q.free) != NULL) {
            q.free = b->next;
            break;
        }
        if (q.mapped < MAX_BUFS || atomic_load(&stopping) ||
            __atomic_load_n(&hm_rec, __ATOMIC_RELAXED) != 1) {
            pthread_mutex_unlock(&q.lock);
            b = hm_map(sizeof *b);
            pthread_mutex_lock(&q.lock);
            if (b != NULL && note_buf(b) != 0) {
                hm_unmap(b, sizeof *b);
                b = NULL;
            }
            break;
        }
        pthread_cond_wait(&q.room, &q.lock);
    }
    pthread_mutex_unlock(&q.lock);
    return b;
}

static void give_back(rec_buf *b) {
    pthread_mutex_lock(&q.lock);
    b->next = q.free;
    q.free = b;
    pthread_cond_signal(&q.room);
    pthread_mutex_unlock(&q.lock);
}

/* ---- threads ---- */

static void thread_ends(void *arg) {
    rec_thread *t = arg;
    int was = hm_busy;
    hm_busy = 1;
    lock_thread(t);
    rec_buf *b = t->buf;
    t->buf = NULL;
    unlock_thread(t);
    if (b != NULL && b->count > 0)
        queue_push(b);
    else if (b != NULL)
        give_back(b);
    /* the structure is reused (a spare has number 0); the writer may
     * still try its lock, which stays valid memory */
    pthread_mutex_lock(&q.lock);
    t->number = 0;
    pthread_mutex_unlock(&q.lock);
    self_t = NULL;
    hm_busy = was;
}

/* The calling thread's structure, made at its first event (or a spare
 * one of a thread that ended). Its number stays the thread's for life,
 * also for the frees other threads' key destructors make after its own. */
static rec_thread *self(void) {
    if (HM_LIKELY(self_t != NULL))
        return self_t;
    if (self_number == 0)
        self_number = atomic_fetch_add(&next_thread, 1);
    rec_thread *t = NULL;
    pthread_mutex_lock(&q.lock);
    for (rec_thread *s = q.threads; s != NULL; s = s->next)
        if (s->number == 0) {
            t = s;
            t->number = self_number;
            break;
        }
    pthread_mutex_unlock(&q.lock);
    if (t == NULL) {
        if ((t = hm_map(sizeof *t)) == NULL)
            return NULL;
        t->number = self_number;
        pthread_mutex_lock(&q.lock);
        t->next = q.threads;
        q.threads = t;
        nthreads_mapped++;
        pthread_mutex_unlock(&q.lock);
    }
    self_t = t;
    /* its end hands its last buffer over (may allocate: hm_busy is set) */
    pthread_setspecific(exit_key, t);
    return t;
}

/* ---- events ---- */

/* Appends e to the calling thread's buffer. */
static void append(rec_thread *t, const heapfmt_event *e) {
    lock_thread(t);
    rec_buf *b = t->buf;
    if (b != NULL && (b->len + HF_EVENT_BOUND > BUF_DATA ||
                      b->count == HEAPFMT_MAX_EVENTS)) {
        queue_push(b);
        b = t->buf = NULL;
    }
    if (b == NULL) {
        if ((b = take_buf()) == NULL) {
            unlock_thread(t);
            atomic_fetch_add(&lost, 1);
            return;
        }
        b->thread = t->number;
        b->count = 0;
        b->len = 0;
        b->seq0 = e->seq - 1;
        b->time0 = e->time_us;
        b->st = (hf_event_state){b->seq0, b->time0};
        b->born_ms = (now_ns() - start_ns) / 1000000u;
        t->buf = b;
    }
    b->len = (size_t)(hf_event_encode(b->data + b->len, &b->st, e) - b->data);
    b->count++;
    unlock_thread(t);
}

/* The clock is monotonic for the whole process, so a thread's events
 * come in non-decreasing times, as a record wants them. */
static void record(heapfmt_event *e, rec_thread *t) {
    e->time_us = now_us();
    append(t, e);
}

static inline int recording(void) {
    return __atomic_load_n(&hm_rec, __ATOMIC_RELAXED) == 1;
}

void hm_record_alloc(void *p, size_t size, unsigned kind, size_t align) {
    if (p == NULL || hm_busy || !recording())
        return;
    hm_busy = 1;
    hm_rec_table_prefetch((uintptr_t)p); /* its miss overlaps the rest */
    rec_thread *t = self();
    if (t != NULL) {
        heapfmt_event e = {.op = kind, .size = size, .align = align};
        e.seq = atomic_fetch_add(&next_seq, 1);
        if (hm_rec_table_put((uintptr_t)p, e.seq) != 0)
            atomic_fetch_add(&lost, 1); /* its free will not be found */
        record(&e, t);
    } else {
        atomic_fetch_add(&lost, 1);
    }
    hm_busy = 0;
}

void hm_record_free(void *p) {
    if (p == NULL || hm_busy || !recording())
        return;
    hm_busy = 1;
    uint64_t block = hm_rec_table_take((uintptr_t)p);
    rec_thread *t;
    if (block == 0) {
        atomic_fetch_add(&untracked, 1); /* made before the recording */
    } else if ((t = self()) != NULL) {
        heapfmt_event e = {.op = HEAPFMT_EV_FREE, .block = block};
        e.seq = atomic_fetch_add(&next_seq, 1);
        record(&e, t);
    } else {
        atomic_fetch_add(&lost, 1);
    }
    hm_busy = 0;
}

void *hm_record_realloc(void *p, size_t n, unsigned kind) {
    if (hm_busy || !recording())
        return hm_next.realloc(p, n);
    hm_busy = 1;
    /* the old number is taken first, as a free does: once realloc has
     * moved the block, another thread may be given its address */
    uint64_t old = p != NULL ? hm_rec_table_take((uintptr_t)p) : 0;
    if (p != NULL && old == 0)
        atomic_fetch_add(&untracked, 1);
    hm_busy = 0;
    void *r = hm_next.realloc(p, n);
    hm_busy = 1;
    rec_thread *t = self();
    if (r == NULL && (p == NULL || n != 0)) { /* failed: p is unchanged */
        if (old != 0)
            hm_rec_table_put((uintptr_t)p, old);
    } else if (t == NULL) {
        atomic_fetch_add(&lost, 1);
    } else if (r == NULL) { /* realloc(p, 0) freed p */
        if (old != 0) {
            heapfmt_event e = {.op = HEAPFMT_EV_FREE, .block = old};
            e.seq = atomic_fetch_add(&next_seq, 1);
            record(&e, t);
        }
    } else {
        heapfmt_event e = {.op = kind, .block = old, .size = n};
        e.seq = atomic_fetch_add(&next_seq, 1);
        if (hm_rec_table_put((uintptr_t)r, e.seq) != 0)
            atomic_fetch_add(&lost, 1);
        record(&e, t);
    }
    hm_busy = 0;
    return r;
}

/* ---- the writer ---- */

typedef struct trace_out {
    hm_file f;
    int shared;      /* the program's descriptor table: open per write */
    char path[1200];
} trace_out;

/* In a shared table: open, check it is the trace, write, close. */
static long shared_write(void *opaque, const void *buf, size_t len) {
    trace_out *o = opaque;
    int fd = open(o->path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    long rc;
    if (fstat(fd, &st) != 0 || st.st_dev != o->f.dev || st.st_ino != o->f.ino) {
        rc = -ESTALE; /* another file took its name */
    } else {
        ssize_t n = write(fd, buf, len);
        rc = n > 0 ? (long)n : n == 0 ? -EIO : -errno;
    }
    close(fd);
    return rc;
}

static long trace_write(void *opaque, const void *buf, size_t len) {
    trace_out *o = opaque;
    return o->shared ? shared_write(o, buf, len) : hm_file_write(&o->f, buf, len);
}

/* The writer's own allocations (its block buffers, the compressor's
 * state) are mappings of their own, listed: they stay out of the
 * program's heap, and their resident pages are counted as the
 * recorder's, not the program's. */
typedef struct own_map {
    struct own_map *next, *prev;
    size_t bytes;
    uint64_t pad; /* keeps what follows 16-byte aligned */
} own_map;
static own_map own_maps = {&own_maps, &own_maps, 0, 0};
static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

static void *own_alloc(void *opaque, size_t n) {
    (void)opaque;
    if (n > SIZE_MAX - sizeof(own_map) - 4095)
        return NULL;
    size_t bytes = (n + sizeof(own_map) + 4095) & ~(size_t)4095;
    own_map *m = hm_map(bytes);
    if (m == NULL)
        return NULL;
    m->bytes = bytes;
    pthread_mutex_lock(&own_lock);
    m->next = own_maps.next;
    m->prev = &own_maps;
    own_maps.next->prev = m;
    own_maps.next = m;
    pthread_mutex_unlock(&own_lock);
    return m + 1;
}

static void own_free(void *opaque, void *p) {
    (void)opaque;
    if (p == NULL)
        return;
    own_map *m = (own_map *)p - 1;
    pthread_mutex_lock(&own_lock);
    m->prev->next = m->next;
    m->next->prev = m->prev;
    pthread_mutex_unlock(&own_lock);
    hm_unmap(m, m->bytes);
}
static const heapfmt_allocator own_allocator = {own_alloc, own_free, NULL};

/* The recorder's own resident memory: its buffers, threads, table and
 * the writer's mappings. */
static uint64_t own_bytes(void) {
    uint64_t b = 0;
    pthread_mutex_lock(&q.lock);
    for (unsigned i = 0; i < q.mapped; i++)
        b += hm_resident(q.all[i], sizeof *q.all[i]);
    b += (uint64_t)nthreads_mapped * 4096; /* a page each (hm_map) */
    pthread_mutex_unlock(&q.lock);
    pthread_mutex_lock(&own_lock);
    for (own_map *m = own_maps.next; m != &own_maps; m = m->next)
        b += hm_resident(m, m->bytes);
    pthread_mutex_unlock(&own_lock);
    return b + hm_rec_table_resident();
}

typedef struct writer_state {
    heapfmt_writer *w;
    trace_out out;
    int private_fds;
    int failed;
    uint64_t peak; /* the largest program rss since the last MARK */
    int started_ok;
    sem_t started;
    char msg[1600]; /* what to log: the writer's thread has no stderr */
} writer_state;

static writer_state ws;

static void fail(writer_state *s, const char *what) {
    if (!s->failed)
        snprintf(s->msg, sizeof s->msg, "%s: %s; recording stopped",
                 s->out.path[0] ? s->out.path : "trace", what);
    s->failed = 1;
    __atomic_store_n(&hm_rec, 2, __ATOMIC_RELAXED);
    pthread_mutex_lock(&q.lock); /* threads waiting for a buffer go on */
    pthread_cond_broadcast(&q.room);
    pthread_mutex_unlock(&q.lock);
}

static uint64_t program_rss(writer_state *s, uint64_t *own) {
    *own = own_bytes();
    if (!s->private_fds)
        return 0; /* no file of /proc in a shared table */
    uint64_t r = hm_anon_resident();
    return r > *own ? r - *own : 0;
}

static void write_mark(writer_state *s) {
    uint64_t own, rss = program_rss(s, &own);
    if (rss > s->peak)
        s->peak = rss;
    heapfmt_event m = {.op = HEAPFMT_EV_MARK, .rss = rss, .peak = s->peak,
                       .own = own};
    m.seq = atomic_fetch_add(&next_seq, 1);
    m.time_us = now_us();
    s->peak = rss;
    if (heapfmt_write_events(s->w, 0, &m, 1) != HEAPFMT_OK)
        fail(s, heapfmt_writer_error(s->w)->message);
}

static void drain(writer_state *s);

/* Hands over the buffers of threads that have kept theirs a MARK
 * interval or more (all of them when stopping): through the queue, so
 * that each thread's buffers stay in order. The writer never waits for a
 * thread's lock: a thread may hold it while it waits for a buffer that
 * only the writer gives back. At the stop it tries again, draining the
 * queue between tries. */
static void collect(writer_state *s, int all) {
    uint64_t now_ms = (now_ns() - start_ns) / 1000000u;
    pthread_mutex_lock(&q.lock);
    rec_thread *list = q.threads;
    pthread_mutex_unlock(&q.lock);
    for (rec_thread *t = list; t != NULL; t = t->next) {
        int tries = 0;
        while (atomic_exchange_explicit(&t->lock, 1, memory_order_acquire)) {
            if (!all || ++tries > 10000)
                goto next; /* busy: next time (or lost at the stop) */
            drain(s);
            sched_yield();
        }
        rec_buf *b = t->buf;
        if (b != NULL && b->count > 0 && (all || now_ms - b->born_ms >= mark_ms)) {
            t->buf = NULL;
            queue_push(b);
        }
        unlock_thread(t);
    next:;
    }
}

static void drain(writer_state *s) {
    pthread_mutex_lock(&q.lock);
    rec_buf *b = q.head;
    q.head = q.tail = NULL;
    pthread_mutex_unlock(&q.lock);
    while (b != NULL) {
        rec_buf *next = b->next;
        if (!s->failed &&
            hf_write_events_encoded(s->w, b->thread, b->seq0, b->time0,
                                    b->count, b->data, b->len) != HEAPFMT_OK)
            fail(s, heapfmt_writer_error(s->w)->message);
        if (!s->failed)
            events += b->count;
        give_back(b);
        b = next;
    }
}

static int open_trace(writer_state *s) {
    unsigned n = 0;
    int r;
    do { /* never replace a file: the next free name */
        n++;
        if (n == 1)
            snprintf(s->out.path, sizeof s->out.path, "%s/%s-%ld-trace.hfd",
                     hm_cfg.dir, hm_cfg.prefix, (long)getpid());
        else
            snprintf(s->out.path, sizeof s->out.path, "%s/%s-%ld-trace-%u.hfd",
                     hm_cfg.dir, hm_cfg.prefix, (long)getpid(), n);
        r = hm_file_open(&s->out.f, s->out.path, 1);
    } while (r != 0 && errno == EEXIST && n < 10000);
    if (r != 0)
        return -1;
    if (!s->private_fds) { /* nothing kept in the program's table */
        s->out.shared = 1;
        hm_file_close(&s->out.f);
    }
    return 0;
}

static int write_head(writer_state *s) {
    heapfmt_writer *w = s->w;
    int rc = hm_write_meta_head(w, time(NULL));
    rc |= heapfmt_write_meta_text(w, "malloc.mode", "record");
    rc |= heapfmt_write_meta_text(w, "trace.clock", "monotonic_coarse");
    rc |= heapfmt_write_meta_uint(w, "trace.mark_ms", mark_ms);
    return rc == 0 ? HEAPFMT_OK : HEAPFMT_E_IO;
}

static int write_tail(writer_state *s) {
    heapfmt_writer *w = s->w;
    int rc = 0;
    rc |= heapfmt_write_meta_uint(w, "trace.events", events);
    rc |= heapfmt_write_meta_uint(w, "trace.threads", atomic_load(&next_thread) - 1);
    rc |= heapfmt_write_meta_uint(w, "trace.lost", atomic_load(&lost));
    rc |= heapfmt_write_meta_uint(w, "trace.untracked_frees", atomic_load(&untracked));
    return rc == 0 ? HEAPFMT_OK : HEAPFMT_E_IO;
}

#define SAMPLE_MS 10u
#define FLUSH_MS 1000u

static void *writer_main(void *arg) {
    writer_state *s = arg;
    hm_busy = 1;
    pthread_setname_np(pthread_self(), "heapfmt-record");
    s->private_fds = hm_fd_private();
    /* The dump signal may arrive here (a program may block it in all of
     * its own threads): it asks for the trace so far on disk. */
    if (hm_cfg.signal != 0) {
        sigset_t sig;
        sigemptyset(&sig);
        sigaddset(&sig, hm_cfg.signal);
        pthread_sigmask(SIG_UNBLOCK, &sig, NULL);
    }
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.allocator = &own_allocator;
    opt.level = hm_cfg.level;
    opt.block_size = 1u << 20;
    if (open_trace(s) != 0) {
        snprintf(s->msg, sizeof s->msg, "%s: %s; not recording", s->out.path,
                 strerror(errno));
        sem_post(&s->started);
        return NULL;
    }
    if (heapfmt_writer_open(&s->w, &opt, trace_write, &s->out) != HEAPFMT_OK ||
        write_head(s) != HEAPFMT_OK || heapfmt_writer_flush(s->w) != HEAPFMT_OK) {
        snprintf(s->msg, sizeof s->msg, "%s: %s; not recording", s->out.path,
                 s->w ? heapfmt_writer_error(s->w)->message : "out of memory");
        if (s->w)
            heapfmt_writer_free(s->w);
        s->w = NULL;
        if (!s->out.shared)
            hm_file_close(&s->out.f);
        unlink(s->out.path);
        sem_post(&s->started);
        return NULL;
    }
    s->started_ok = 1;
    sem_post(&s->started);
    uint64_t next_mark = mark_ms, next_flush = FLUSH_MS, next_sample = SAMPLE_MS;
    for (;;) {
        uint64_t now_ms = (now_ns() - start_ns) / 1000000u;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until); /* sem_timedwait's clock */
        until.tv_nsec += (long)SAMPLE_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (now_ms < next_sample)
            sem_timedwait(&q.wake, &until);
        now_ms = (now_ns() - start_ns) / 1000000u;
        int stop = atomic_load(&stopping);
        int asked = flush_asked;
        if (asked)
            flush_asked = 0;
        if (stop || asked)
            collect(s, 1);
        drain(s);
        if (s->failed)
            break;
        if (now_ms >= next_sample && s->private_fds) {
            uint64_t own, rss = program_rss(s, &own);
            if (rss > s->peak)
                s->peak = rss;
            next_sample = now_ms + SAMPLE_MS;
        }
        if (now_ms >= next_mark || stop || asked) {
            collect(s, stop);
            drain(s);
            write_mark(s);
            next_mark = now_ms + mark_ms;
        }
        if ((now_ms >= next_flush || stop || asked) && !s->failed) {
            if (heapfmt_writer_flush(s->w) != HEAPFMT_OK)
                fail(s, heapfmt_writer_error(s->w)->message);
            next_flush = now_ms + FLUSH_MS;
        }
        if (stop || s->failed)
            break;
    }
    if (!s->failed && (write_tail(s) != HEAPFMT_OK ||
                       heapfmt_writer_finish(s->w) != HEAPFMT_OK))
        fail(s, heapfmt_writer_error(s->w)->message);
    heapfmt_writer_free(s->w);
    s->w = NULL;
    if (!s->out.shared && hm_file_close(&s->out.f) != 0 && !s->failed)
        fail(s, strerror(errno));
    if (!s->failed)
        snprintf(s->msg, sizeof s->msg, "wrote %s (%llu events)", s->out.path,
                 (unsigned long long)events);
    /* a failed writer leaves the buffers to whoever waits for them */
    pthread_mutex_lock(&q.lock);
    pthread_cond_broadcast(&q.room);
    pthread_mutex_unlock(&q.lock);
    sem_post(&q.done);
    return NULL;
}

/* ---- start, stop, fork ---- */

static void at_exit_stop(void) {
    int was = hm_busy;
    hm_busy = 1;
    if (__atomic_load_n(&hm_rec, __ATOMIC_RELAXED) != 1) {
        if (ws.msg[0]) /* the writer failed earlier */
            hm_log("%s", ws.msg);
        hm_busy = was;
        return;
    }
    atomic_store(&stopping, 1);
    pthread_mutex_lock(&q.lock); /* threads waiting for a buffer go on */
    pthread_cond_broadcast(&q.room);
    pthread_mutex_unlock(&q.lock);
    sem_post(&q.wake);
    /* The writer collects every thread's buffer and finishes the trace.
     * A writer stuck on a slow disk gets a minute; then the process ends
     * and the trace reads as cut. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    while (sem_timedwait(&q.done, &until) != 0 && errno == EINTR)
        ;
    __atomic_store_n(&hm_rec, 2, __ATOMIC_RELAXED);
    if (ws.msg[0])
        hm_log("%s", ws.msg);
    hm_busy = was;
}

/* The dump signal in record mode: the trace so far is written out (its
 * buffers, a MARK, the block flushed), as a dump would be. */
static void on_signal(int sig) {
    (void)sig;
    int e = errno;
    flush_asked = 1;
    sem_post(&q.wake);
    errno = e;
}

static void child_stop(void) {
    /* the parent's buffers and writer are not here */
    __atomic_store_n(&hm_rec, 2, __ATOMIC_RELAXED);
}

int hm_record_start(void) {
    const char *v = getenv("HEAPFMT_MALLOC_RECORD");
    if (v == NULL || strcmp(v, "1") != 0)
        return 0;
    if ((v = getenv("HEAPFMT_MALLOC_MARK_MS")) != NULL) {
        char *end;
        unsigned long ms = strtoul(v, &end, 10);
        if (*v && *end == 0 && ms >= 10 && ms <= 60000)
            mark_ms = (unsigned)ms;
        else
            hm_log("HEAPFMT_MALLOC_MARK_MS=%s is not valid; using %u", v, mark_ms);
    }
    hm_rec = 2; /* record mode, not recording yet */
    start_ns = now_ns();
    hm_rec_table_init();
    sem_init(&q.wake, 0, 0);
    sem_init(&q.done, 0, 0);
    sem_init(&ws.started, 0, 0);
    if (pthread_key_create(&exit_key, thread_ends) != 0) {
        hm_log("no thread key left; not recording");
        return 1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, writer_main, &ws);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        hm_log("cannot start the recorder's thread (%s); not recording", strerror(rc));
        return 1;
    }
    while (sem_wait(&ws.started) != 0 && errno == EINTR)
        ;
    if (!ws.started_ok) {
        hm_log("%s", ws.msg);
        return 1;
    }
    pthread_atfork(NULL, NULL, child_stop);
    atexit(at_exit_stop);
    if (hm_cfg.signal != 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(hm_cfg.signal, &sa, NULL);
    }
    hm_log("recording to %s", ws.out.path);
    __atomic_store_n(&hm_rec, 1, __ATOMIC_RELEASE);
    return 1;
}
