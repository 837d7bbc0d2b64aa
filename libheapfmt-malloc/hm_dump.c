/* hm_dump.c -- writing the live allocations as a heapfmt dump, and when.
 *
 * When: on a signal, every N seconds, at exit, and on request
 * (heapfmt_malloc_dump). The signal handler only posts a wake-up
 * (hm_wake.c: a flag and a semaphore, no descriptor); a thread of the
 * tracker's own waits for it and asks for the dumps. It is marked busy for
 * its whole life, so what it allocates is not tracked.
 *
 * Where: each dump is written by a thread made for it, which takes no
 * signal and has a descriptor table of its own (hm_host.c), so the
 * program's descriptors, its fork and exec, its signals (SIGXFSZ from a
 * file size limit goes to the thread that wrote, and dies with it) and its
 * exit status are untouched. Its result is logged by the thread that
 * asked, which shares the program's standard error.
 *
 * What: the live table is copied with every shard locked, so a dump is
 * one consistent moment (the program's malloc and free wait for the copy,
 * some 10 ns an allocation), then written with no lock held. Each dump
 * starts a new epoch: an object's id is its address (the low 48 bits)
 * with the epoch it was made in above it, so an address that is freed and
 * reused between two dumps is two objects to heapfmt-diff, not one
 * "retained" object. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "heapfmt.h"
#include "hf_common.h"
#include "hm.h"
#include "hm_statm.h"
#include "hm_symbols.h"

volatile uint16_t hm_epoch;

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static int thread_started;        /* this process has its dump thread */
static unsigned seq;              /* the last N of this process's dump names */
volatile int hm_child_due;      /* a forked child needs its thread */
static time_t started;

static void *real_alloc(void *opaque, size_t n) { (void)opaque; return hm_next.malloc(n); }
static void real_free(void *opaque, void *p) { (void)opaque; hm_next.free(p); }
static const heapfmt_allocator real_allocator = {real_alloc, real_free, NULL};

/* ------------------------------------------------------------------ */
/* Writing one dump                                                    */
/* ------------------------------------------------------------------ */

typedef struct dumper {
    heapfmt_writer *w;
    hm_symbolizer *symbols;
    hf_map frames;      /* instruction address -> frame id */
    uint32_t *stack_ids; /* tracker stack id -> dump stack id, 0: not yet */
    hm_stack_counts *counts; /* per tracker stack, read once per dump */
    uint32_t nstacks;
    uint32_t *site_files; /* Ruby site id -> string id */
    uint32_t nsites;
    uint32_t kind_str[HM_KIND_COUNT];
} dumper;

static int put_string(dumper *d, const char *s, uint32_t *id) {
    if (s == NULL) {
        *id = 0;
        return HEAPFMT_OK;
    }
    size_t n = strnlen(s, 4096);
    return heapfmt_write_string(d->w, s, n, id);
}

static int put_frame(dumper *d, uintptr_t ip, uint32_t *id) {
    if (hf_map_get(&d->frames, ip, id))
        return HEAPFMT_OK;
    hm_symbol sym;
    hm_symbolize(d->symbols, ip, &sym);
    heapfmt_frame f = {0};
    int rc;
    if ((rc = put_string(d, sym.function, &f.function)) != HEAPFMT_OK ||
        (rc = put_string(d, sym.library, &f.library)) != HEAPFMT_OK ||
        (rc = put_string(d, sym.file, &f.file)) != HEAPFMT_OK)
        return rc;
    f.offset = sym.offset;
    f.line = f.file ? sym.line : 0;
    if ((rc = heapfmt_write_frame(d->w, &f, id)) != HEAPFMT_OK)
        return rc;
    return hf_map_put(&d->frames, &real_allocator, ip, *id) == 0
               ? HEAPFMT_OK : HEAPFMT_E_NOMEM;
}

/* The dump's id of tracker stack sid, writing its frames on first use. */
static int put_stack(dumper *d, uint32_t sid, uint32_t *id) {
    *id = 0;
    if (sid == 0 || sid > d->nstacks)
        return HEAPFMT_OK;
    if (d->stack_ids[sid - 1] != 0) {
        *id = d->stack_ids[sid - 1];
        return HEAPFMT_OK;
    }
    const uintptr_t *ips;
    hm_stack_counts c;
    unsigned n = hm_stacks_get(sid, &ips, &c);
    uint32_t frames[HM_MAX_DEPTH];
    int rc;
    if (n == 0) { /* the overflow stack: one frame that says so */
        heapfmt_frame f = {0};
        if ((rc = put_string(d, "(stack table full)", &f.function)) != HEAPFMT_OK ||
            (rc = heapfmt_write_frame(d->w, &f, &frames[0])) != HEAPFMT_OK)
            return rc;
        n = 1;
    } else {
        for (unsigned i = 0; i < n; i++)
            if ((rc = put_frame(d, ips[i], &frames[i])) != HEAPFMT_OK)
                return rc;
    }
    if ((rc = heapfmt_write_stack(d->w, frames, n, id)) != HEAPFMT_OK)
        return rc;
    d->stack_ids[sid - 1] = *id;
    return HEAPFMT_OK;
}

static uint64_t rss_bytes(void) {
    uint64_t resident, shared;
    return hm_statm(&resident, &shared) == 0 ? resident : 0;
}

int hm_write_meta_head(struct heapfmt_writer *w, time_t start) {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int rc = 0;
    rc |= heapfmt_write_meta_text(w, "producer", "heapfmt-malloc " HEAPFMT_LIB_VERSION_STRING);
    rc |= heapfmt_write_meta_text(w, "vm.name", "native");
    rc |= heapfmt_write_meta_uint(w, "pid", (uint64_t)getpid());
    if (host[0])
        rc |= heapfmt_write_meta_text(w, "host", host);
    rc |= heapfmt_write_meta_uint(w, "time", (uint64_t)time(NULL));
    rc |= heapfmt_write_meta_uint(w, "process.start", (uint64_t)start);
    rc |= heapfmt_write_meta_uint(w, "pointer_size", sizeof(void *));
    return rc;
}

static int write_meta(dumper *d, size_t nlive, uint64_t live_bytes,
                      uint64_t allocs, uint64_t frees, int private_fds) {
    heapfmt_writer *w = d->w;
    struct mallinfo2 mi = mallinfo2();
    int rc = hm_write_meta_head(w, started);
    rc |= heapfmt_write_meta_uint(w, "ids_stable", 1);
    rc |= heapfmt_write_meta_text(w, "malloc.mode",
                                  hm_cfg.mode == HM_MODE_EXACT ? "exact" : "sampled");
    rc |= heapfmt_write_meta_uint(w, "malloc.estimates", hm_cfg.mode == HM_MODE_SAMPLED);
    if (hm_cfg.mode == HM_MODE_SAMPLED)
        rc |= heapfmt_write_meta_uint(w, "malloc.sample_bytes", hm_cfg.sample_bytes);
    rc |= heapfmt_write_meta_uint(w, "malloc.depth", hm_cfg.depth);
    rc |= heapfmt_write_meta_uint(w, "malloc.epoch", hm_epoch);
    rc |= heapfmt_write_meta_uint(w, "malloc.live.objects", nlive);
    rc |= heapfmt_write_meta_uint(w, "malloc.live.bytes", live_bytes);
    rc |= heapfmt_write_meta_uint(w, "malloc.allocs", allocs);
    rc |= heapfmt_write_meta_uint(w, "malloc.frees", frees);
    rc |= heapfmt_write_meta_uint(w, "malloc.table_bytes", hm_live_memory());
    rc |= heapfmt_write_meta_uint(w, "malloc.tracker_bytes",
                                  hm_live_memory() + hm_stacks_memory());
    rc |= heapfmt_write_meta_uint(w, "malloc.ruby", hm_ruby_site_count() > 0);
    uint64_t rss = private_fds ? rss_bytes() : 0; /* no file in a shared table */
    if (rss != 0)
        rc |= heapfmt_write_meta_uint(w, "rss", rss);
    rc |= heapfmt_write_meta_uint(w, "mallinfo2.arena", mi.arena);
    rc |= heapfmt_write_meta_uint(w, "mallinfo2.hblkhd", mi.hblkhd);
    rc |= heapfmt_write_meta_uint(w, "mallinfo2.uordblks", mi.uordblks);
    rc |= heapfmt_write_meta_uint(w, "mallinfo2.fordblks", mi.fordblks);
    rc |= heapfmt_write_meta_uint(w, "mallinfo2.keepcost", mi.keepcost);
    return rc == 0 ? HEAPFMT_OK : HEAPFMT_E_IO;
}

/* Per-stack counts since start, one META per stack that allocated:
 * malloc.stack.ID = "ALLOCS FREES ALLOC_BYTES FREE_BYTES". */
static int write_stack_counts(dumper *d) {
    for (uint32_t sid = 1; sid <= d->nstacks; sid++) {
        const hm_stack_counts c = d->counts[sid - 1];
        if (c.allocs == 0)
            continue;
        uint32_t id;
        int rc = put_stack(d, sid, &id);
        if (rc != HEAPFMT_OK)
            return rc;
        char key[48], val[96];
        snprintf(key, sizeof key, "malloc.stack.%u", id);
        snprintf(val, sizeof val, "%llu %llu %llu %llu",
                 (unsigned long long)c.allocs, (unsigned long long)c.frees,
                 (unsigned long long)c.alloc_bytes, (unsigned long long)c.free_bytes);
        if ((rc = heapfmt_write_meta_text(d->w, key, val)) != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}

/* The lifespans of every stack and Ruby site that allocated (LIFESPAN
 * records, format 1.2): the counts since start, and the age of the oldest
 * block of each still alive, from the snapshot e (n entries) taken at
 * tick now. */
static int write_lifespans(dumper *d, const hm_entry *e, size_t n, uint64_t now) {
    uint64_t *oldest_stack = hm_next.calloc(d->nstacks + 1, sizeof *oldest_stack);
    uint64_t *oldest_site = hm_next.calloc(d->nsites + 1, sizeof *oldest_site);
    int rc = HEAPFMT_E_NOMEM;
    if (oldest_stack == NULL || oldest_site == NULL)
        goto out;
    for (size_t i = 0; i < n; i++) {
        /* an age of 0 ticks still counts as alive: store it plus one */
        uint64_t age = hm_ticks_since(now, hm_entry_born(&e[i])) + 1;
        if (e[i].stack <= d->nstacks && age > oldest_stack[e[i].stack])
            oldest_stack[e[i].stack] = age;
        if (e[i].site <= d->nsites && age > oldest_site[e[i].site])
            oldest_site[e[i].site] = age;
    }
    rc = HEAPFMT_OK;
    for (uint32_t sid = 1; sid <= d->nstacks && rc == HEAPFMT_OK; sid++) {
        const hm_stack_counts *c = &d->counts[sid - 1];
        if (c->allocs == 0)
            continue;
        heapfmt_lifespan l = {.key = HEAPFMT_LIFESPAN_STACK,
                              .allocs = c->allocs, .frees = c->frees,
                              .alloc_bytes = c->alloc_bytes,
                              .free_bytes = c->free_bytes,
                              .lifetime_us = c->lifetime_us};
        if (oldest_stack[sid] != 0)
            l.oldest_us = (oldest_stack[sid] - 1) * HM_TICK_US + HM_TICK_US / 2;
        if ((rc = put_stack(d, sid, &l.stack)) == HEAPFMT_OK)
            rc = heapfmt_write_lifespan(d->w, &l);
    }
    for (uint32_t site = 1; site <= d->nsites && rc == HEAPFMT_OK; site++) {
        hm_stack_counts c;
        hm_ruby_site_counts(site, &c);
        size_t flen;
        uint32_t line;
        const char *file = hm_ruby_site_get(site, &flen, &line);
        if (c.allocs == 0 || file == NULL)
            continue;
        heapfmt_lifespan l = {.key = HEAPFMT_LIFESPAN_SITE, .line = line,
                              .allocs = c.allocs, .frees = c.frees,
                              .alloc_bytes = c.alloc_bytes,
                              .free_bytes = c.free_bytes,
                              .lifetime_us = c.lifetime_us};
        if (oldest_site[site] != 0)
            l.oldest_us = (oldest_site[site] - 1) * HM_TICK_US + HM_TICK_US / 2;
        if (d->site_files[site - 1] == 0 &&
            (rc = heapfmt_write_string(d->w, file, flen,
                                       &d->site_files[site - 1])) != HEAPFMT_OK)
            break;
        l.file = d->site_files[site - 1];
        rc = heapfmt_write_lifespan(d->w, &l);
    }
out:
    hm_next.free(oldest_stack);
    hm_next.free(oldest_site);
    return rc;
}

static int write_objects(dumper *d, const hm_entry *e, const uint64_t *usable,
                         size_t n) {
    int rc;
    for (unsigned k = 0; k < HM_KIND_COUNT; k++) {
        if ((rc = put_string(d, hm_kind_name((hm_kind)k), &d->kind_str[k])) != HEAPFMT_OK)
            return rc;
        heapfmt_class c = {.id = k + 1, .name = hm_kind_name((hm_kind)k),
                           .name_len = strlen(hm_kind_name((hm_kind)k))};
        if ((rc = heapfmt_write_class(d->w, &c)) != HEAPFMT_OK)
            return rc;
    }
    for (size_t i = 0; i < n; i++) {
        heapfmt_object o = {0};
        o.id = (uint64_t)e[i].addr | ((uint64_t)e[i].epoch << 48);
        o.class_id = e[i].kind + 1;
        o.type = d->kind_str[e[i].kind < HM_KIND_COUNT ? e[i].kind : 0];
        o.size = e[i].size;
        if (hm_cfg.mode == HM_MODE_SAMPLED)
            o.size = (uint64_t)(e[i].size * hm_sample_weight(e[i].size, hm_cfg.sample_bytes) + 0.5);
        char value[48];
        if (usable[i] != 0 && usable[i] != e[i].size) {
            o.fields |= HEAPFMT_F_VALUE;
            o.value_len = (size_t)snprintf(value, sizeof value, "usable %llu",
                                           (unsigned long long)usable[i]);
            o.value = value;
        }
        if ((rc = put_stack(d, e[i].stack, &o.stack)) != HEAPFMT_OK)
            return rc;
        if (o.stack != 0)
            o.fields |= HEAPFMT_F_STACK;
        size_t flen;
        uint32_t line;
        const char *file = e[i].site ? hm_ruby_site_get(e[i].site, &flen, &line) : NULL;
        if (file != NULL) {
            if (e[i].site <= d->nsites && d->site_files[e[i].site - 1] == 0 &&
                (rc = heapfmt_write_string(d->w, file, flen,
                                           &d->site_files[e[i].site - 1])) != HEAPFMT_OK)
                return rc;
            o.file = e[i].site <= d->nsites ? d->site_files[e[i].site - 1] : 0;
            o.line = line;
            if (o.file != 0)
                o.fields |= HEAPFMT_F_SITE;
        }
        if ((rc = heapfmt_write_object(d->w, &o)) != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}

/* Copies the live table at one moment: every shard locked, epoch moved. */
static size_t snapshot(hm_entry **entries, uint64_t **usable, size_t *mapped) {
    size_t live = hm_live_count(); /* racy: a first guess */
    size_t cap = live + live / 8 + 1024;
    for (;;) {
        size_t bytes = cap * (sizeof **entries + sizeof **usable);
        char *m = hm_map(bytes);
        if (m == NULL)
            return (size_t)-1;
        hm_live_lock_all();
        size_t n = hm_live_snapshot((hm_entry *)m,
                                    (uint64_t *)(m + cap * sizeof **entries), cap);
        if (n <= cap)
            hm_epoch++;
        hm_live_unlock_all();
        if (n <= cap) {
            *entries = (hm_entry *)m;
            *usable = (uint64_t *)(m + cap * sizeof **entries);
            *mapped = bytes;
            return n;
        }
        hm_unmap(m, bytes);
        cap = n + n / 4;
    }
}

static int write_dump(heapfmt_writer *w, int private_fds) {
    dumper d = {.w = w};
    hm_entry *e = NULL;
    uint64_t *usable = NULL;
    size_t mapped = 0;
    size_t n = snapshot(&e, &usable, &mapped);
    if (n == (size_t)-1)
        return HEAPFMT_E_NOMEM;
    uint64_t now = hm_ticks_now(); /* the moment of the snapshot */
    hf_map_init(&d.frames);
    d.symbols = hm_symbols_open(private_fds);
    d.nstacks = hm_stacks_count();
    d.nsites = hm_ruby_site_count();
    d.stack_ids = hm_next.calloc(d.nstacks + 1, sizeof *d.stack_ids);
    d.counts = hm_next.calloc(d.nstacks + 1, sizeof *d.counts);
    d.site_files = hm_next.calloc(d.nsites + 1, sizeof *d.site_files);
    int rc = HEAPFMT_E_NOMEM;
    if (d.stack_ids != NULL && d.counts != NULL && d.site_files != NULL) {
        /* The counters move on while the dump is written: read them once,
         * so that the totals are the sums of the per-stack lines. */
        uint64_t live_bytes = 0, allocs = 0, frees = 0;
        for (size_t i = 0; i < n; i++)
            live_bytes += e[i].size;
        for (uint32_t sid = 1; sid <= d.nstacks; sid++) {
            const uintptr_t *ips;
            hm_stacks_get(sid, &ips, &d.counts[sid - 1]);
            allocs += d.counts[sid - 1].allocs;
            frees += d.counts[sid - 1].frees;
        }
        rc = write_meta(&d, n, live_bytes, allocs, frees, private_fds);
        if (rc == HEAPFMT_OK)
            rc = write_objects(&d, e, usable, n);
        if (rc == HEAPFMT_OK)
            rc = write_stack_counts(&d);
        if (rc == HEAPFMT_OK)
            rc = write_lifespans(&d, e, n, now);
    }
    hm_next.free(d.stack_ids);
    hm_next.free(d.counts);
    hm_next.free(d.site_files);
    hf_map_free(&d.frames, &real_allocator);
    hm_symbols_close(d.symbols);
    hm_unmap(e, mapped);
    return rc;
}

/* One dump to write: what was asked, and what came of it. */
typedef struct dump_job {
    const char *path;  /* NULL: the next free name in the dump directory */
    int rc;            /* HEAPFMT_OK or an error */
    int err;           /* errno of a failure, 0 if none */
    int private_fds;   /* written from a descriptor table of its own */
    char written[1200];
    char temp[1216];   /* where it is written until whole */
    int direct;        /* a path that is not a regular file (a FIFO, a
                          device): written in place */
    char message[256]; /* why it failed */
} dump_job;

/* A dump is written to a hidden temporary beside its name, DIR/.NAME.tmp,
 * and takes its name only once whole: a dump cut short (the program
 * killed while it writes) or failed never shows under a dump's name
 * (issue 31). */
static void temp_of(char *out, size_t cap, const char *path) {
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) + 1 : 0;
    snprintf(out, cap, "%.*s.%s.tmp", dir, path, path + dir);
}

/* Gives the whole dump its name. An automatic name never replaces a file
 * (link(2) fails on one that exists: the next N is taken); a path the
 * program gave is replaced, as open(2) with O_TRUNC did. A file system
 * without hard links gets rename(2). Returns 0 or -1 with errno set. */
static int publish(dump_job *j) {
    if (j->direct)
        return 0;
    if (j->path != NULL)
        return rename(j->temp, j->written);
    unsigned n = seq;
    while (link(j->temp, j->written) != 0) {
        if (errno != EEXIST)
            return rename(j->temp, j->written);
        if (++n - seq >= 10000)
            return -1;
        snprintf(j->written, sizeof j->written, "%s/%s-%ld-%u.hfd",
                 hm_cfg.dir, hm_cfg.prefix, (long)getpid(), n);
    }
    seq = n > seq ? n : seq;
    return unlink(j->temp);
}

/* Writes j: on the thread run_job made, or on the asking thread when no
 * thread could be made. */
static void write_job(dump_job *j) {
    hm_file f;
    const char *path = j->path;
    if (path == NULL) {
        /* The next N whose name is free: a dump never replaces a file (a
         * pid comes back: every container's first process is pid 1). */
        unsigned n = seq;
        int r;
        do {
            n++;
            snprintf(j->written, sizeof j->written, "%s/%s-%ld-%u.hfd",
                     hm_cfg.dir, hm_cfg.prefix, (long)getpid(), n);
            temp_of(j->temp, sizeof j->temp, j->written);
            r = -1;
            errno = EEXIST;
            if (access(j->written, F_OK) != 0)
                r = hm_file_open(&f, j->temp, 1);
        } while (r != 0 && errno == EEXIST && n - seq < 10000);
        seq = r == 0 || errno == EEXIST ? n : n - 1;
        if (r != 0)
            goto open_failed;
    } else {
        struct stat st;
        snprintf(j->written, sizeof j->written, "%s", path);
        j->direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
        if (j->direct)
            snprintf(j->temp, sizeof j->temp, "%s", path);
        else
            temp_of(j->temp, sizeof j->temp, path);
        if (hm_file_open(&f, j->temp, 0) != 0)
            goto open_failed;
    }
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.allocator = &real_allocator;
    opt.level = hm_cfg.level;
    heapfmt_writer *w = NULL;
    j->rc = heapfmt_writer_open(&w, &opt, hm_file_write, &f);
    if (j->rc == HEAPFMT_OK) {
        j->rc = write_dump(w, j->private_fds);
        if (j->rc == HEAPFMT_OK)
            j->rc = heapfmt_writer_finish(w);
        if (j->rc != HEAPFMT_OK) {
            j->err = heapfmt_writer_error(w)->sys_errno;
            snprintf(j->message, sizeof j->message, "%s", heapfmt_writer_error(w)->message);
        }
        heapfmt_writer_free(w);
    } else {
        j->err = ENOMEM;
        snprintf(j->message, sizeof j->message, "%s", strerror(j->err));
    }
    if (hm_file_close(&f) != 0 && j->rc == HEAPFMT_OK) {
        j->rc = HEAPFMT_E_IO;
        j->err = f.lost ? EBADF : errno;
        snprintf(j->message, sizeof j->message, "%s", strerror(j->err));
    }
    if (f.lost)
        snprintf(j->message, sizeof j->message,
                 "the program closed or replaced the dump's descriptor; dump stopped");
    else if (j->rc != HEAPFMT_OK && j->message[0] == 0)
        snprintf(j->message, sizeof j->message, "%s",
                 j->rc == HEAPFMT_E_NOMEM ? "out of memory" : "failed");
    /* A whole dump takes its name; a failed one (no memory, no room) is
     * no dump, and its temporary goes. */
    if (j->rc == HEAPFMT_OK && publish(j) != 0) {
        j->rc = HEAPFMT_E_IO;
        j->err = errno;
        snprintf(j->message, sizeof j->message, "%s", strerror(j->err));
    }
    if (j->rc != HEAPFMT_OK && !j->direct)
        unlink(j->temp);
    return;
open_failed:
    j->rc = HEAPFMT_E_IO;
    j->err = errno;
    snprintf(j->message, sizeof j->message, "%s", strerror(j->err));
}

static void *job_thread(void *arg) {
    dump_job *j = arg;
    hm_busy = 1;
    pthread_setname_np(pthread_self(), "heapfmt-write"); /* for ps and top */
    j->private_fds = hm_fd_private();
    write_job(j);
    return NULL;
}

/* Runs j on a thread of its own (no signals, a descriptor table of its
 * own) and waits for it. Without a thread (RLIMIT_NPROC, no memory) it
 * runs here, sharing the table, with SIGXFSZ held back: a file size limit
 * must fail the dump, not kill the program. */
static void run_job(dump_job *j) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, NULL, job_thread, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        pthread_join(t, NULL);
        return;
    }
    hm_xfsz h;
    hm_xfsz_hold(&h);
    j->private_fds = 0;
    write_job(j);
    hm_xfsz_release(&h);
}

/* Who asks for a dump: after the exit dump no other starts, or the
 * process's end would cut it short and leave an empty file behind (seen
 * with an interval dump due just as a program exited). */
typedef enum dump_caller { DUMP_BY_THREAD, DUMP_BY_API, DUMP_AT_EXIT } dump_caller;
static int exited; /* the exit dump ran; under dump_lock */

static int dump(const char *path, char *out, size_t outlen, dump_caller who) {
    int was_busy = hm_busy;
    hm_busy = 1;
    pthread_mutex_lock(&dump_lock);
    if (exited) {
        pthread_mutex_unlock(&dump_lock);
        hm_busy = was_busy;
        errno = ECANCELED;
        return -1;
    }
    if (who == DUMP_AT_EXIT)
        exited = 1;
    dump_job j = {.path = path, .rc = HEAPFMT_OK};
    run_job(&j);
    if (j.rc == HEAPFMT_OK) {
        hm_log("wrote %s", j.written);
        if (out != NULL && outlen > 0)
            snprintf(out, outlen, "%s", j.written);
    } else {
        hm_log("%s: %s", j.written[0] ? j.written : "dump", j.message);
    }
    pthread_mutex_unlock(&dump_lock);
    hm_busy = was_busy;
    if (j.rc != HEAPFMT_OK) {
        errno = j.err != 0 ? j.err : j.rc == HEAPFMT_E_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    return 0;
}

int hm_dump_write(const char *path, char *out, size_t outlen) {
    return dump(path, out, outlen, DUMP_BY_API);
}

/* ------------------------------------------------------------------ */
/* When: the signal, the thread, exit, fork                            */
/* ------------------------------------------------------------------ */

static void on_signal(int sig) {
    (void)sig;
    hm_wake_post();
}

/* An attached tracker that detached writes no dump until it attaches
 * again (hm_dump_stop); its thread stays, waiting. config_gen counts the
 * attaches and detaches, for the thread to take up the new settings. */
static volatile int dumps_stopped;
static _Atomic unsigned config_gen = 1;

static void *dump_thread(void *arg) {
    (void)arg;
    hm_busy = 1;
    pthread_setname_np(pthread_self(), "heapfmt-malloc");
    /* The dump signal may arrive here: a program that blocks every signal
     * in every thread of its own still gets its dumps, and the handler
     * then runs on a thread that is never inside malloc. An attach or a
     * detach (hm_dump_start, hm_dump_stop) changes the signal and the
     * interval: the thread takes them up when woken. */
    hm_schedule when;
    unsigned gen = 0;
    int unblocked = 0;
    for (;;) {
        unsigned now_gen = atomic_load(&config_gen);
        if (now_gen != gen) {
            gen = now_gen;
            int sig = dumps_stopped ? 0 : hm_cfg.signal;
            if (sig != unblocked) {
                sigset_t s;
                if (unblocked != 0) {
                    sigemptyset(&s);
                    sigaddset(&s, unblocked);
                    pthread_sigmask(SIG_BLOCK, &s, NULL);
                }
                if (sig != 0) {
                    sigemptyset(&s);
                    sigaddset(&s, sig);
                    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
                }
                unblocked = sig;
            }
            hm_schedule_init(&when, dumps_stopped ? 0 : hm_cfg.interval,
                             hm_wake_now());
        }
        if (hm_wake_wait(hm_schedule_deadline(&when)) != 0) {
            const struct timespec pause = {1, 0}; /* never a busy loop */
            nanosleep(&pause, NULL);
        }
        int due = hm_schedule_due(&when, hm_wake_now(), hm_wake_take());
        if (due && !dumps_stopped)
            hm_attach_patch_pending(); /* modules loaded since, tracked */
        if (due && !dumps_stopped && dump(NULL, NULL, 0, DUMP_BY_THREAD) != 0 &&
            errno == ECANCELED)
            return NULL; /* the exit dump has begun */
    }
}

static int start_thread(void) {
    /* The thread takes no signal but the dump signal (dump_thread). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, dump_thread, NULL);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    thread_started = rc == 0;
    return rc == 0 ? 0 : -1;
}

static void at_exit_dump(void) {
    if (hm_cfg.at_exit && !dumps_stopped) {
        dump(NULL, NULL, 0, DUMP_AT_EXIT);
    } else { /* no dump, but none may start now either */
        pthread_mutex_lock(&dump_lock);
        exited = 1;
        pthread_mutex_unlock(&dump_lock);
    }
}

/* What the dump signal did before the tracker took it (an attached
 * tracker gives it back when it detaches). */
static struct sigaction old_action;
static int signal_taken, exit_registered;

void hm_dump_start(void) {
    started = time(NULL);
    dumps_stopped = 0;
    atomic_fetch_add(&config_gen, 1);
    if (thread_started) {
        hm_wake_nudge(); /* an attach again: new signal and interval */
    } else if (hm_cfg.signal != 0 || hm_cfg.interval != 0) {
        hm_wake_init();
        start_thread();
    }
    if (thread_started && hm_cfg.signal != 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(hm_cfg.signal, &sa, &old_action) == 0)
            signal_taken = hm_cfg.signal;
    }
    if (!exit_registered)
        exit_registered = atexit(at_exit_dump) == 0;
}

void hm_dump_stop(void) {
    dumps_stopped = 1;
    atomic_fetch_add(&config_gen, 1);
    if (thread_started)
        hm_wake_nudge(); /* no interval dumps, the signal blocked again */
    if (signal_taken != 0) {
        struct sigaction now;
        /* the program may have taken the signal since: then it keeps it */
        if (sigaction(signal_taken, NULL, &now) == 0 && now.sa_handler == on_signal)
            sigaction(signal_taken, &old_action, NULL);
        signal_taken = 0;
    }
}

/* In the child of fork(): the parent's thread is not here, and a request
 * the parent had pending is the parent's. Only async-signal-safe calls
 * here; the thread starts at the child's next allocation
 * (hm_dump_child_poll). */
void hm_dump_atfork_child(void) {
    hm_wake_atfork_child();
    if (thread_started) {
        thread_started = 0;
        hm_child_due = 1;
    }
    seq = 0;
    exited = 0;
    pthread_mutex_init(&dump_lock, NULL);
}

void hm_dump_child_poll(void) {
    hm_child_due = 0;
    int was_busy = hm_busy;
    hm_busy = 1;
    start_thread();
    hm_busy = was_busy;
}
