/* trace.c -- a trace split by thread, and its MARKs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_dump.h"
#include "cli_file.h"
#include "cli_exit.h"
#include "cli_grow.h"
#include "cli_msg.h"
#include "trace.h"

/* Each event in a thread's stream: op, then the differences from the
 * previous event of the stream (number, time), then its fields. */
static uint8_t *put_event(uint8_t *p, const heapfmt_event *e, uint64_t seq,
                          uint64_t time)
{
    p = varint_put(p, e->op);
    p = varint_put(p, e->seq - seq);
    p = varint_put(p, e->time_us - time);
    p = varint_put(p, e->block);
    p = varint_put(p, e->size);
    return varint_put(p, e->align);
}

#define EVENT_MAX (6 * VARINT_MAX)

/* Events are encoded into a buffer of this size, a chunk each time it
 * fills (the deltas go on across chunks): memory stays the same whatever
 * a record claims. */
#define BUF_BYTES (64u << 10)

typedef struct reading {
    trace *t;
    uint8_t buf[BUF_BYTES];
    const char *name;
} reading;

static trace_thread *thread_of(reading *g, uint32_t number)
{
    trace *t = g->t;
    uint32_t i;
    if (hf_map_get(&t->index, number, &i))
        return &t->threads[i];
    if (GROW(t->threads, t->cthreads, t->nthreads) != 0)
        return NULL;
    if (hf_map_put(&t->index, hf_default_allocator(), number,
                   (uint32_t)t->nthreads) != 0)
        return NULL;
    trace_thread *th = &t->threads[t->nthreads++];
    memset(th, 0, sizeof *th);
    th->number = number;
    return th;
}

static int add_mark(trace *t, const heapfmt_event *e)
{
    if (t->nmarks > 0 && e->seq <= t->marks[t->nmarks - 1].seq) {
        t->out_of_order++;
        return 0;
    }
    if (GROW(t->marks, t->cmarks, t->nmarks) != 0)
        return -1;
    t->marks[t->nmarks++] =
        (trace_mark){e->seq, e->time_us, e->rss, e->peak, e->own};
    return 0;
}

static int nomem(reading *g)
{
    cli_error(g->name, "out of memory");
    return CLI_EXIT_ERROR;
}

/* The events encoded in g->buf up to *p become a chunk of th's. */
static int flush(reading *g, trace_thread *th, uint8_t **p)
{
    if (*p == g->buf)
        return CLI_EXIT_OK;
    chunk c;
    if (chunk_append(&g->t->file, g->buf, (size_t)(*p - g->buf), &c) != 0 ||
        chunklist_push(&th->chunks, c) != 0) {
        cli_error(g->name, "temporary file: %s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    *p = g->buf;
    return CLI_EXIT_OK;
}

static int on_events(reading *g, heapfmt_reader *r, const heapfmt_revents *v)
{
    trace *t = g->t;
    heapfmt_event e;
    if (v->thread == 0) { /* the recorder's marks */
        while (heapfmt_reader_event(r, &e) == 1) {
            if (add_mark(t, &e) != 0)
                return nomem(g);
            if (e.seq > t->max_seq)
                t->max_seq = e.seq;
        }
        return 0;
    }
    trace_thread *th = thread_of(g, v->thread);
    if (th == NULL)
        return nomem(g);
    uint8_t *p = g->buf;
    uint64_t seq = th->last_seq, time = th->last_time;
    while (heapfmt_reader_event(r, &e) == 1) {
        if (p + EVENT_MAX > g->buf + BUF_BYTES &&
            flush(g, th, &p) != CLI_EXIT_OK)
            return CLI_EXIT_ERROR;
        /* a thread's numbers only grow: an event at or below its last
         * (a damaged or doctored trace) has no place in its order */
        if (e.seq <= th->last_seq || e.time_us < th->last_time) {
            t->out_of_order++;
            continue;
        }
        if (th->events == 0)
            th->first_seq = e.seq;
        p = put_event(p, &e, seq, time);
        seq = th->last_seq = e.seq;
        time = th->last_time = e.time_us;
        th->events++;
        t->events++;
        if (e.seq > t->max_seq)
            t->max_seq = e.seq;
        if (e.time_us > t->last_time_us)
            t->last_time_us = e.time_us;
    }
    return flush(g, th, &p);
}

static int on_record(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    reading *g = ctx;
    if (rec->tag == HEAPFMT_TAG_EVENTS)
        return on_events(g, r, rec->u.events);
    if (rec->tag == HEAPFMT_TAG_META &&
        strcmp(rec->u.meta->key, "trace.lost") == 0 &&
        rec->u.meta->type == HEAPFMT_META_UINT) {
        g->t->meta_lost = rec->u.meta->uint_value;
        g->t->has_meta_lost = 1;
    }
    return 0;
}

int trace_read(trace *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->name = cli_input_name(path);
    t->file.fd = -1;
    hf_map_init(&t->index);
    cli_dump d;
    int rc = cli_dump_open(&d, path, NULL);
    if (rc != CLI_EXIT_OK)
        return rc == CLI_EXIT_INCOMPLETE ? CLI_EXIT_ERROR : rc;
    if (chunkfile_open(&t->file) != 0) {
        cli_error(NULL, "temporary file: %s", strerror(errno));
        cli_dump_close(&d);
        return CLI_EXIT_ERROR;
    }
    reading *g = malloc(sizeof *g);
    if (g == NULL) {
        cli_error(NULL, "out of memory");
        cli_dump_close(&d);
        return CLI_EXIT_ERROR;
    }
    g->t = t;
    g->name = d.name;
    cli_scan_report rep;
    rc = cli_scan_with(&d, CLI_SCAN_KEEP_GOING, on_record, g, &rep);
    if (rc == CLI_EXIT_INCOMPLETE) {
        t->incomplete = 1;
        snprintf(t->why, sizeof t->why, "%s",
                 heapfmt_reader_error(d.reader)->message);
    }
    free(g);
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        if (t->events == 0) {
            cli_error(d.name, "no allocation events to replay%s",
                      t->incomplete ? " in its readable part"
                                    : " (record a trace with "
                                      "heapfmt-malloc --record)");
            rc = CLI_EXIT_ERROR;
        }
    }
    cli_dump_close(&d);
    return rc;
}

void trace_free(trace *t)
{
    for (size_t i = 0; i < t->nthreads; i++)
        chunklist_free(&t->threads[i].chunks);
    free(t->threads);
    free(t->marks);
    hf_map_free(&t->index, hf_default_allocator());
    chunkfile_close(&t->file);
    memset(t, 0, sizeof *t);
    t->file.fd = -1;
}

/* ---- cursors ---- */

void cursor_init(trace_cursor *c, const trace *t, const trace_thread *th)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->th = th;
}

int cursor_next(trace_cursor *c, heapfmt_event *ev)
{
    while (c->p == c->end) {
        if (c->chunk == c->th->chunks.n)
            return 0;
        const chunk *k = &c->th->chunks.v[c->chunk++];
        if (k->len > c->cap) {
            uint8_t *b = realloc(c->buf, k->len);
            if (b == NULL) {
                errno = ENOMEM;
                return -1;
            }
            c->buf = b;
            c->cap = k->len;
        }
        if (chunk_read(&c->t->file, k, c->buf) != 0)
            return -1;
        c->p = c->buf;
        c->end = c->buf + k->len;
    }
    /* written by put_event: it decodes, or the file is not what was
     * written (EIO) */
    uint64_t op, dseq, dtime;
    memset(ev, 0, sizeof *ev);
    if (varint_get(&c->p, c->end, &op) < 0 ||
        varint_get(&c->p, c->end, &dseq) < 0 ||
        varint_get(&c->p, c->end, &dtime) < 0 ||
        varint_get(&c->p, c->end, &ev->block) < 0 ||
        varint_get(&c->p, c->end, &ev->size) < 0 ||
        varint_get(&c->p, c->end, &ev->align) < 0) {
        errno = EIO;
        return -1;
    }
    ev->op = (uint32_t)op;
    ev->seq = c->seq += dseq;
    ev->time_us = c->time += dtime;
    return 1;
}

void cursor_free(trace_cursor *c)
{
    free(c->buf);
    c->buf = NULL;
}
