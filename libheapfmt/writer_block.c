/* writer_block.c -- the writer's block layer: file header, blocks out to
 * the sink, and the optional compression worker.
 *
 * With the worker, a filled data block is handed over and the caller goes
 * on filling another buffer; the worker computes the block's CRC and
 * compresses it, and the caller writes encoded blocks at its next
 * hand-overs (or drains them, at flush and finish). So the sink is only
 * ever called from the caller's thread, in file order; up to
 * HF_WTHREAD_SLOTS blocks are in flight. */
#include <errno.h>
#include <pthread.h>

#include "writer_internal.h"

/* Blocks handed to the worker go round a ring of HF_WTHREAD_SLOTS slots.
 * The counters only grow: written <= encoded <= handed <= written + slots.
 * Block k lives in slot k % HF_WTHREAD_SLOTS. More than one block in
 * flight lets each side run ahead of the other for a while: with one, a
 * block that takes a little longer to fill or to compress stalled the
 * other side at every hand-over. */
#define HF_WTHREAD_SLOTS 3

typedef struct hf_wslot {
    hf_wblock job; /* job.raw (job.cap) is the slot's raw buffer: the
                      block's while in flight, else the one the caller
                      fills next */
    uint8_t *out;  /* the slot's compressed bytes (job.payload) */
    size_t out_cap;
} hf_wslot;

struct hf_wthread {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t handed, encoded, written;
    int busy; /* the worker is encoding a block */
    int quit;
    hf_wslot slot[HF_WTHREAD_SLOTS];
};

int hf_sink(heapfmt_writer *w, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        long n = w->write(w->opaque, p, len);
        if (n > 0 && (size_t)n <= len) {
            p += n;
            len -= (size_t)n;
            w->offset += (uint64_t)n;
        } else if (n == -EINTR || n == -EAGAIN) {
            continue;
        } else if (n < 0) {
            return hf_wfail(w, HEAPFMT_E_IO, (int)-n, "write failed: %s",
                            strerror((int)-n));
        } else {
            return hf_wfail(w, HEAPFMT_E_IO, EIO, "%s",
                            n == 0 ? "write callback made no progress"
                                   : "write callback claimed more than asked");
        }
    }
    return HEAPFMT_OK;
}

static int write_file_header(heapfmt_writer *w)
{
    uint8_t h[HF_HEADER_SIZE];
    hf_file_header fh = {HEAPFMT_FORMAT_MAJOR, HEAPFMT_FORMAT_MINOR, 0};
    hf_file_header_encode(h, &fh);
    w->header_written = 1;
    return hf_sink(w, h, sizeof h);
}

/* CRC and compression of a block; the only work the worker does. A block
 * that does not shrink is stored. */
static void encode(hf_compressor *c, int level, hf_wblock *b)
{
    b->crc = hf_crc32(b->raw, b->len);
    b->payload = b->raw;
    b->stored = b->len;
    b->codec = HF_CODEC_STORED;
    b->rc = HEAPFMT_OK;
    if (level == 0)
        return;
    size_t zlen;
    b->rc = hf_compress_block(c, b->raw, b->len, &zlen);
    if (b->rc == HEAPFMT_OK && zlen < b->len) {
        b->payload = c->out;
        b->stored = zlen;
        b->codec = (unsigned)c->codec;
    }
}

/* Writes an encoded block and adds a data block to the index. */
static int write_block(heapfmt_writer *w, const hf_wblock *b)
{
    if (b->rc != HEAPFMT_OK)
        return hf_wfail(w, b->rc, 0, "%s block compression failed",
                        heapfmt_codec_name(w->codec));
    uint8_t h[HF_BLOCK_HEADER_SIZE];
    hf_block_header bh = {(uint8_t)b->kind, (uint8_t)b->codec, 0,
                          (uint32_t)b->len, (uint32_t)b->stored, b->crc};
    hf_block_header_encode(h, &bh);
    uint64_t start = w->offset;
    int rc;
    if ((rc = hf_sink(w, h, sizeof h)) != HEAPFMT_OK ||
        (rc = hf_sink(w, b->payload, b->stored)) != HEAPFMT_OK)
        return rc;
    if (b->kind == HF_KIND_DATA) {
        if (hf_grow(&w->al, (void **)&w->blocks, &w->cblocks, w->nblocks + 1,
                    sizeof *w->blocks) < 0)
            return hf_wfail(w, HEAPFMT_E_NOMEM, 0, "out of memory for the "
                                                   "block index");
        w->blocks[w->nblocks++] =
            (heapfmt_block_entry){start, b->records, b->objects};
        w->raw_bytes += b->len;
        w->codecs |= 1ull << b->codec;
    }
    return HEAPFMT_OK;
}

/* ---- the worker ---- */

/* Encodes a slot's block; the compressed bytes stay with the slot (the
 * compressor takes the slot's spare output buffer in exchange), so the
 * next block can be compressed before this one is written. */
static void encode_slot(heapfmt_writer *w, hf_wslot *s)
{
    encode(&w->comp, w->level, &s->job);
    if (s->job.payload == w->comp.out) {
        uint8_t *o = s->out;
        size_t c = s->out_cap;
        s->out = w->comp.out;
        s->out_cap = w->comp.cap;
        w->comp.out = o;
        w->comp.cap = c;
    }
}

static void *worker(void *arg)
{
    heapfmt_writer *w = arg;
    hf_wthread *t = w->thread;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->quit && t->encoded == t->handed)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->quit)
            break;
        hf_wslot *s = &t->slot[t->encoded % HF_WTHREAD_SLOTS];
        t->busy = 1;
        pthread_mutex_unlock(&t->mu);
        encode_slot(w, s);
        pthread_mutex_lock(&t->mu);
        t->busy = 0;
        t->encoded++;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static void free_slots(heapfmt_writer *w, hf_wthread *t)
{
    for (int i = 0; i < HF_WTHREAD_SLOTS; i++) {
        hf_free(&w->al, t->slot[i].job.raw);
        hf_free(&w->al, t->slot[i].out);
    }
    hf_free(&w->al, t);
}

int hf_wthread_start(heapfmt_writer *w)
{
    hf_wthread *t = hf_alloc(&w->al, sizeof *t);
    if (!t)
        return HEAPFMT_E_NOMEM;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < HF_WTHREAD_SLOTS; i++) {
        t->slot[i].job.cap = w->cap;
        if (!(t->slot[i].job.raw = hf_alloc(&w->al, w->cap))) {
            free_slots(w, t);
            return HEAPFMT_E_NOMEM;
        }
    }
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        free_slots(w, t);
        return HEAPFMT_E_NOMEM;
    }
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        free_slots(w, t);
        return HEAPFMT_E_NOMEM;
    }
    w->thread = t;
    if (pthread_create(&t->tid, NULL, worker, w) != 0) {
        w->thread = NULL;
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        free_slots(w, t);
        return HEAPFMT_E_NOMEM;
    }
    return HEAPFMT_OK;
}

void hf_wthread_stop(heapfmt_writer *w)
{
    hf_wthread *t = w->thread;
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    /* A block being encoded is finished first: it uses the compressor.
     * Blocks not yet started are dropped (the writer failed or is being
     * closed without finishing). */
    while (t->busy)
        pthread_cond_wait(&t->cv, &t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->tid, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free_slots(w, t);
    w->thread = NULL;
}

/* Writes the blocks the worker has encoded, oldest first, after waiting
 * until it has encoded the blocks before number `upto`. */
static int write_encoded(heapfmt_writer *w, uint64_t upto)
{
    hf_wthread *t = w->thread;
    pthread_mutex_lock(&t->mu);
    while (t->encoded < upto)
        pthread_cond_wait(&t->cv, &t->mu);
    uint64_t encoded = t->encoded;
    pthread_mutex_unlock(&t->mu);
    int rc = HEAPFMT_OK;
    while (rc == HEAPFMT_OK && t->written < encoded)
        rc = write_block(w, &t->slot[t->written++ % HF_WTHREAD_SLOTS].job);
    return rc;
}

int hf_drain_blocks(heapfmt_writer *w)
{
    hf_wthread *t = w->thread;
    if (!t || t->written == t->handed)
        return HEAPFMT_OK;
    return write_encoded(w, t->handed);
}

/* Hands the current buffer to the worker, after writing what it has
 * encoded (and waiting for a slot when all are in flight), and takes the
 * free slot's buffer to fill next. */
static int hand_over(heapfmt_writer *w, const hf_wblock *b)
{
    hf_wthread *t = w->thread;
    uint64_t oldest = t->handed >= HF_WTHREAD_SLOTS
                          ? t->handed - HF_WTHREAD_SLOTS + 1
                          : 0;
    int rc = write_encoded(w, oldest);
    if (rc != HEAPFMT_OK)
        return rc;
    hf_wslot *s = &t->slot[t->handed % HF_WTHREAD_SLOTS];
    w->buf = s->job.raw; /* the slot's block was written: its buffer is free */
    w->cap = s->job.cap;
    pthread_mutex_lock(&t->mu);
    s->job = *b;
    t->handed++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return HEAPFMT_OK;
}

int hf_emit_block(heapfmt_writer *w, unsigned kind)
{
    int rc;
    if (!w->header_written && (rc = write_file_header(w)) != HEAPFMT_OK)
        return rc;
    hf_wblock b = {w->buf, w->len, w->cap, kind, w->block_records,
                   w->block_objects, NULL, 0, 0, 0, 0};
    if (w->thread && kind == HF_KIND_DATA) {
        if ((rc = hand_over(w, &b)) != HEAPFMT_OK)
            return rc;
    } else {
        if ((rc = hf_drain_blocks(w)) != HEAPFMT_OK)
            return rc;
        encode(&w->comp, w->level, &b);
        if ((rc = write_block(w, &b)) != HEAPFMT_OK)
            return rc;
    }
    w->len = 0;
    w->prev_id = 0;
    w->block_records = w->block_objects = 0;
    return HEAPFMT_OK;
}
