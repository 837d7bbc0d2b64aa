/* gunzip.c -- gzip decoding on a reading thread, or on the caller's. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "gunzip.h"

#define GZ_IN_CAP ((size_t)256 << 10)

/* zlib's side: the compressed input and where the stream stands. */
typedef struct inflater {
    lr_read_fn read;
    void *opaque;
    z_stream z;
    int z_ready;
    int member_done; /* the last member ended; more may follow */
    unsigned char *in;
    size_t in_cap;
    int in_eof;
    int cancellable; /* on the reading thread: a read may be cancelled */
    int done;        /* the end of the stream, or an error */
    int error;       /* enum import_status */
    int sys_errno;
    char message[128];
    uint64_t bytes_read;
} inflater;

struct gz_in {
    inflater f;
    int threaded;
    /* the ring: slabs [head, head + count) are full, the rest the
     * thread's; the first lent of the full ones are the caller's */
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t full, empty;
    unsigned char *slab[GZ_SLABS];
    size_t len[GZ_SLABS];
    uint64_t read_at[GZ_SLABS]; /* f.bytes_read when the slab was full */
    unsigned head, count, lent;
    int done;         /* the thread has finished: f's results are final */
    atomic_int stop;  /* gz_close asks the thread to end */
    uint64_t bytes_read; /* for the bytes handed out */
};

static void fail(inflater *f, int error, int sys_errno, const char *msg)
{
    import_status_keep(&f->error, &f->sys_errno, f->message,
                       sizeof f->message, error, sys_errno, msg);
    f->done = 1;
}

/* One read through the callback; on the reading thread the call may be
 * cancelled (gz_close), and only there. */
static long pull(inflater *f, void *buf, size_t len)
{
    int old;
    if (f->cancellable)
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    long n = lr_pull(f->read, f->opaque, buf, len, &f->bytes_read);
    if (f->cancellable)
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return n;
}

/* Decodes into out[0..want), want > 0: returns the bytes produced, 0 once
 * the stream is done (f->done; f->error says why, if not its end). */
static size_t inflate_some(inflater *f, unsigned char *out, size_t want)
{
    for (;;) {
        if (f->done)
            return 0;
        if (f->z.avail_in == 0 && !f->in_eof) {
            long n = pull(f, f->in, f->in_cap);
            if (n < 0) {
                fail(f, IMP_READ, (int)-n, strerror((int)-n));
                return 0;
            }
            if (n == 0)
                f->in_eof = 1;
            f->z.next_in = f->in;
            f->z.avail_in = (uInt)n;
        }
        if (f->member_done) {
            if (f->z.avail_in == 0) {
                if (f->in_eof) {
                    f->done = 1;
                    return 0;
                }
                continue;
            }
            /* Another member follows (as written by gzip -c a b). */
            if (inflateReset(&f->z) != Z_OK) {
                fail(f, IMP_CORRUPT, 0, "cannot restart zlib");
                return 0;
            }
            f->member_done = 0;
        }
        uInt avail = want > (1u << 30) ? (1u << 30) : (uInt)want;
        f->z.next_out = out;
        f->z.avail_out = avail;
        int rc = inflate(&f->z, Z_NO_FLUSH);
        size_t produced = avail - f->z.avail_out;
        if (rc == Z_STREAM_END) {
            f->member_done = 1;
        } else if (rc == Z_BUF_ERROR) {
            if (f->z.avail_in == 0 && f->in_eof) {
                fail(f, IMP_CUT, 0,
                     "compressed input ends early (truncated)");
                return produced;
            }
        } else if (rc != Z_OK) {
            char msg[96];
            snprintf(msg, sizeof msg, "damaged compressed input (%s)",
                     f->z.msg ? f->z.msg
                     : rc == Z_MEM_ERROR ? "out of memory" : "zlib error");
            fail(f, rc == Z_MEM_ERROR ? IMP_NOMEM : IMP_CORRUPT, 0, msg);
            return produced;
        }
        if (produced > 0)
            return produced;
    }
}

/* The reading thread: fills the free slabs in ring order until the
 * stream is done or gz_close stops it. */
static void *pump(void *arg)
{
    gz_in *g = arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    g->f.cancellable = 1;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (g->count == GZ_SLABS && !atomic_load(&g->stop))
            pthread_cond_wait(&g->empty, &g->mu);
        unsigned i = (g->head + g->count) % GZ_SLABS;
        pthread_mutex_unlock(&g->mu);
        if (atomic_load(&g->stop))
            return NULL;
        /* a slab goes over when full, or before a read that may wait
         * (a pipe) when it holds something: the caller never waits for
         * bytes that are decoded */
        size_t len = 0;
        while (len < GZ_SLAB && !g->f.done && !atomic_load(&g->stop) &&
               !(len > 0 && g->f.z.avail_in == 0 && !g->f.in_eof))
            len += inflate_some(&g->f, g->slab[i] + GZ_ROOM + len,
                               GZ_SLAB - len);
        pthread_mutex_lock(&g->mu);
        g->len[i] = len;
        g->read_at[i] = g->f.bytes_read;
        if (len > 0)
            g->count++;
        g->done = g->f.done;
        pthread_cond_signal(&g->full);
        pthread_mutex_unlock(&g->mu);
        if (g->f.done)
            return NULL;
    }
}

/* Starts the thread; 0, or -1 (nothing to undo) to decode serially. */
static int start_thread(gz_in *g)
{
    int i = 0;
    for (; i < GZ_SLABS; i++)
        if (!(g->slab[i] = malloc(GZ_ROOM + GZ_SLAB + 1)))
            break;
    if (i == GZ_SLABS && pthread_mutex_init(&g->mu, NULL) == 0) {
        if (pthread_cond_init(&g->full, NULL) == 0) {
            if (pthread_cond_init(&g->empty, NULL) == 0) {
                if (pthread_create(&g->tid, NULL, pump, g) == 0)
                    return 0;
                pthread_cond_destroy(&g->empty);
            }
            pthread_cond_destroy(&g->full);
        }
        pthread_mutex_destroy(&g->mu);
    }
    while (i > 0)
        free(g->slab[--i]);
    return -1;
}

int gz_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    return CPU_COUNT(&set);
}

gz_in *gz_open(lr_read_fn read, void *opaque, const void *head, size_t have,
               int eof, int serial)
{
    gz_in *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    inflater *f = &g->f;
    f->read = read;
    f->opaque = opaque;
    f->in_cap = have > GZ_IN_CAP ? have : GZ_IN_CAP;
    if (!(f->in = malloc(f->in_cap)) || inflateInit2(&f->z, 15 + 16) != Z_OK) {
        free(f->in);
        free(g);
        return NULL;
    }
    f->z_ready = 1;
    memcpy(f->in, head, have);
    f->z.next_in = f->in;
    f->z.avail_in = (uInt)have;
    f->in_eof = eof;
    f->bytes_read = g->bytes_read = have; /* the head counts */
    atomic_init(&g->stop, 0);
    g->threaded = !serial && gz_cores() >= 2 && start_thread(g) == 0;
    return g;
}

size_t gz_read(gz_in *g, unsigned char *out, size_t want)
{
    size_t n = want ? inflate_some(&g->f, out, want) : 0;
    g->bytes_read = g->f.bytes_read;
    return n;
}

size_t gz_slab(gz_in *g, unsigned char **p)
{
    pthread_mutex_lock(&g->mu);
    if (g->lent == 2) { /* the one before last goes back */
        g->head = (g->head + 1) % GZ_SLABS;
        g->count--;
        g->lent = 1;
        pthread_cond_signal(&g->empty);
    }
    while (g->count == g->lent && !g->done)
        pthread_cond_wait(&g->full, &g->mu);
    if (g->count == g->lent) {
        g->bytes_read = g->f.bytes_read;
        pthread_mutex_unlock(&g->mu);
        return 0;
    }
    unsigned i = (g->head + g->lent) % GZ_SLABS;
    g->lent++;
    g->bytes_read = g->read_at[i];
    pthread_mutex_unlock(&g->mu);
    *p = g->slab[i] + GZ_ROOM;
    return g->len[i];
}

int gz_error(const gz_in *g, int *sys_errno, const char **message)
{
    /* serially, or once gz_read returned 0 (the thread is done) */
    *sys_errno = g->f.sys_errno;
    *message = g->f.message;
    return g->f.error;
}

uint64_t gz_bytes_read(const gz_in *g)
{
    return g->bytes_read;
}

int gz_threaded(const gz_in *g)
{
    return g->threaded;
}

void gz_close(gz_in *g)
{
    if (!g)
        return;
    if (g->threaded) {
        atomic_store(&g->stop, 1);
        pthread_mutex_lock(&g->mu);
        int running = !g->done;
        pthread_cond_signal(&g->empty);
        pthread_mutex_unlock(&g->mu);
        if (running) /* acts only inside the read callback */
            pthread_cancel(g->tid);
        pthread_join(g->tid, NULL);
        pthread_cond_destroy(&g->empty);
        pthread_cond_destroy(&g->full);
        pthread_mutex_destroy(&g->mu);
        for (int i = 0; i < GZ_SLABS; i++)
            free(g->slab[i]);
    }
    if (g->f.z_ready)
        inflateEnd(&g->f.z);
    free(g->f.in);
    free(g);
}
