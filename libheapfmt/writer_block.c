/* writer_block.c -- the writer's block layer: file header, blocks out to
 * the sink, and the optional compression worker.
 *
 * With the worker, a filled data block is handed over and the caller goes
 * on filling a second buffer; the worker computes the block's CRC and
 * compresses it, and the caller writes it when it hands over the next one
 * (or drains, at flush and finish). So the sink is only ever called from
 * the caller's thread, in file order, and at most one block is in flight. */
#include <errno.h>
#include <pthread.h>

#include "writer_internal.h"

struct hf_wthread {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pending; /* a block was handed over and not written yet */
    int done;    /* the worker has encoded it */
    int quit;
    hf_wblock job;
    uint8_t *spare; /* the buffer the caller fills next */
    size_t spare_cap;
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

static void *worker(void *arg)
{
    heapfmt_writer *w = arg;
    hf_wthread *t = w->thread;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->quit && !(t->pending && !t->done))
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->quit)
            break;
        pthread_mutex_unlock(&t->mu);
        encode(&w->comp, w->level, &t->job);
        pthread_mutex_lock(&t->mu);
        t->done = 1;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int hf_wthread_start(heapfmt_writer *w)
{
    hf_wthread *t = hf_alloc(&w->al, sizeof *t);
    if (!t)
        return HEAPFMT_E_NOMEM;
    memset(t, 0, sizeof *t);
    t->spare_cap = w->cap;
    if (!(t->spare = hf_alloc(&w->al, t->spare_cap))) {
        hf_free(&w->al, t);
        return HEAPFMT_E_NOMEM;
    }
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        hf_free(&w->al, t->spare);
        hf_free(&w->al, t);
        return HEAPFMT_E_NOMEM;
    }
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        hf_free(&w->al, t->spare);
        hf_free(&w->al, t);
        return HEAPFMT_E_NOMEM;
    }
    w->thread = t;
    if (pthread_create(&t->tid, NULL, worker, w) != 0) {
        w->thread = NULL;
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        hf_free(&w->al, t->spare);
        hf_free(&w->al, t);
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
    /* A block being encoded is finished first: it uses the compressor. */
    while (t->pending && !t->done)
        pthread_cond_wait(&t->cv, &t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->tid, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    hf_free(&w->al, t->pending ? t->job.raw : t->spare);
    hf_free(&w->al, t);
    w->thread = NULL;
}

int hf_drain_blocks(heapfmt_writer *w)
{
    hf_wthread *t = w->thread;
    if (!t || !t->pending)
        return HEAPFMT_OK;
    pthread_mutex_lock(&t->mu);
    while (!t->done)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    t->pending = t->done = 0;
    t->spare = t->job.raw;
    t->spare_cap = t->job.cap;
    return write_block(w, &t->job);
}

/* Hands the current buffer to the worker and takes the spare one. */
static void hand_over(heapfmt_writer *w, const hf_wblock *b)
{
    hf_wthread *t = w->thread;
    pthread_mutex_lock(&t->mu);
    t->job = *b;
    t->pending = 1;
    t->done = 0;
    w->buf = t->spare;
    w->cap = t->spare_cap;
    t->spare = NULL;
    t->spare_cap = 0;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

int hf_emit_block(heapfmt_writer *w, unsigned kind)
{
    int rc;
    if (!w->header_written && (rc = write_file_header(w)) != HEAPFMT_OK)
        return rc;
    hf_wblock b = {w->buf, w->len, w->cap, kind, w->block_records,
                   w->block_objects, NULL, 0, 0, 0, 0};
    if ((rc = hf_drain_blocks(w)) != HEAPFMT_OK)
        return rc;
    if (w->thread && kind == HF_KIND_DATA) {
        hand_over(w, &b);
    } else {
        encode(&w->comp, w->level, &b);
        if ((rc = write_block(w, &b)) != HEAPFMT_OK)
            return rc;
    }
    w->len = 0;
    w->prev_id = 0;
    w->block_records = w->block_objects = 0;
    return HEAPFMT_OK;
}
