/* compile.c -- from a trace to a replay program (program.h).
 *
 * The threads' streams are merged by sequence number (a heap of the
 * threads alive at that point of the trace, each reading its own stream
 * one chunk at a time), so the events come in the process's order. In
 * that order every block number is checked against the blocks live: a
 * free of a block never made, or already ended, is counted and skipped;
 * a realloc of one is replayed as a malloc. Each block gets a slot (the
 * most recently ended first) and each use of a slot a generation; each
 * thread's operations go to its own stream of the program file; each
 * MARK and each thread's first event becomes a barrier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocks.h"
#include "cli_exit.h"
#include "cli_grow.h"
#include "cli_msg.h"
#include "compile.h"
#include "program.h"

#define OP_MAX (6 * VARINT_MAX)
#define PROG_BUF (64u << 10)

typedef struct cthread {
    trace_cursor cur;
    heapfmt_event ev; /* its next event */
    uint8_t *buf;     /* operations not yet in the file */
    size_t len;
    chunklist chunks;
    uint64_t start_barrier, end_barrier;
    size_t alive_at; /* its place in the alive list */
} cthread;

typedef struct state {
    const trace *t;
    compiled *c;
    cthread *th;       /* by trace thread index */
    size_t *heap;      /* thread indexes, by their next event's number */
    size_t nheap;
    size_t *alive;     /* threads started and not ended */
    size_t nalive;
    size_t *ended;     /* ended since the last barrier */
    size_t nended;
    prog_barrier *barriers;
    size_t cbarriers;
    blocks live;
    uint64_t *free_slots;
    size_t nfree, cfree;
    uint64_t *uses;    /* per slot: the generations it has had */
    size_t cuses;
    uint8_t *made;     /* a bit per block number made, when it fits */
    uint64_t made_bits;
    uint64_t live_bytes, last_seq;
} state;

static int fail_errno(const char *what)
{
    cli_error(NULL, "%s: %s", what, strerror(errno));
    return CLI_EXIT_ERROR;
}

static int nomem(void)
{
    cli_error(NULL, "out of memory");
    return CLI_EXIT_ERROR;
}

/* ---- a thread's operations ---- */

static int flush(state *s, cthread *th)
{
    if (th->len == 0)
        return CLI_EXIT_OK;
    chunk k;
    if (chunk_append(&s->c->prog, th->buf, th->len, &k) != 0)
        return fail_errno("temporary file");
    if (chunklist_push(&th->chunks, k) != 0)
        return nomem();
    th->len = 0;
    return CLI_EXIT_OK;
}

/* Room for one operation at the end of th's buffer. */
static uint8_t *op_begin(state *s, cthread *th)
{
    if (th->len + OP_MAX > PROG_BUF && flush(s, th) != CLI_EXIT_OK)
        return NULL;
    return th->buf + th->len;
}

static void op_end(cthread *th, const uint8_t *p)
{
    th->len = (size_t)(p - th->buf);
}

/* ---- slots ---- */

static int take_slot(state *s, uint64_t *slot, uint64_t *gen)
{
    if (s->nfree > 0) {
        *slot = s->free_slots[--s->nfree];
    } else {
        if (GROW(s->uses, s->cuses, s->c->nslots) != 0)
            return -1;
        *slot = s->c->nslots++;
        s->uses[*slot] = 0;
    }
    *gen = s->uses[*slot]++;
    return 0;
}

static int give_slot(state *s, uint64_t slot)
{
    if (GROW(s->free_slots, s->cfree, s->nfree) != 0)
        return -1;
    s->free_slots[s->nfree++] = slot;
    return 0;
}

static int was_made(const state *s, uint64_t block)
{
    return block < s->made_bits && (s->made[block >> 3] >> (block & 7) & 1);
}

/* A block made by event e: its slot and generation in *info. */
static int make_block(state *s, const heapfmt_event *e, block_info *info)
{
    if (take_slot(s, &info->slot, &info->gen) != 0)
        return -1;
    info->size = e->size;
    if (blocks_put(&s->live, e->seq, info) != 0)
        return -1;
    if (e->seq < s->made_bits)
        s->made[e->seq >> 3] |= (uint8_t)(1u << (e->seq & 7));
    s->live_bytes += e->size;
    if (s->live_bytes > s->c->peak_live)
        s->c->peak_live = s->live_bytes;
    if (s->live.count > s->c->peak_blocks)
        s->c->peak_blocks = s->live.count;
    return 0;
}

/* Ends block (1 with *info), or counts why it cannot (0): in *dead a
 * block that was made and has ended, in *unknown one never made. */
static int end_block(state *s, uint64_t block, block_info *info,
                     uint64_t *dead, uint64_t *unknown)
{
    if (!blocks_take(&s->live, block, info)) {
        if (was_made(s, block))
            (*dead)++;
        else
            (*unknown)++;
        return 0;
    }
    s->live_bytes -= info->size;
    return give_slot(s, info->slot) == 0 ? 1 : -1;
}

static int is_aligned_op(uint32_t op)
{
    return op == HEAPFMT_EV_POSIX_MEMALIGN || op == HEAPFMT_EV_ALIGNED_ALLOC ||
           op == HEAPFMT_EV_MEMALIGN;
}

static int event(state *s, cthread *th, const heapfmt_event *e)
{
    compiled *c = s->c;
    if (e->seq == s->last_seq) { /* two threads, one number */
        c->duplicates++;
        return CLI_EXIT_OK;
    }
    s->last_seq = e->seq;
    uint8_t *p = op_begin(s, th);
    if (p == NULL)
        return CLI_EXIT_ERROR;
    block_info old, now;
    int had = 0;
    uint32_t op = e->op;
    if (op == HEAPFMT_EV_FREE) {
        if ((had = end_block(s, e->block, &old, &c->double_frees,
                             &c->unknown_frees)) < 0)
            return nomem();
        if (had) {
            p = varint_put(p, OP_FREE);
            p = varint_put(p, old.slot);
            p = varint_put(p, old.gen);
            op_end(th, p);
            c->frees++;
        }
        return CLI_EXIT_OK;
    }
    if (op > HEAPFMT_EV_LAST_ALLOC)
        return CLI_EXIT_OK; /* a MARK in a thread: the reader refuses them */
    if ((op == HEAPFMT_EV_REALLOC || op == HEAPFMT_EV_REALLOCARRAY) &&
        e->block != 0 &&
        (had = end_block(s, e->block, &old, &c->unknown_reallocs,
                          &c->unknown_reallocs)) < 0)
        return nomem();
    if (make_block(s, e, &now) != 0)
        return nomem();
    if (had) {
        p = varint_put(p, OP_REALLOC);
        p = varint_put(p, old.slot);
        p = varint_put(p, old.gen);
        p = varint_put(p, now.slot);
        p = varint_put(p, now.gen);
        p = varint_put(p, e->size);
        c->reallocs++;
    } else {
        p = varint_put(p, op);
        p = varint_put(p, now.slot);
        p = varint_put(p, now.gen);
        p = varint_put(p, e->size);
        if (is_aligned_op(op))
            p = varint_put(p, e->align);
        c->allocs++;
    }
    op_end(th, p);
    return CLI_EXIT_OK;
}

/* ---- barriers ---- */

static int barrier(state *s, uint64_t seq, int64_t mark)
{
    compiled *c = s->c;
    if (GROW(s->barriers, s->cbarriers, c->nbarriers) != 0)
        return nomem();
    uint64_t b = c->nbarriers++;
    s->barriers[b] = (prog_barrier){seq, s->nalive, mark};
    for (size_t i = 0; i < s->nalive; i++) {
        cthread *th = &s->th[s->alive[i]];
        uint8_t *p = op_begin(s, th);
        if (p == NULL)
            return CLI_EXIT_ERROR;
        p = varint_put(p, OP_BARRIER);
        op_end(th, varint_put(p, b));
    }
    for (size_t i = 0; i < s->nended; i++)
        s->th[s->ended[i]].end_barrier = b;
    s->nended = 0;
    if (mark >= 0)
        c->mark_live[mark] = s->live_bytes;
    return CLI_EXIT_OK;
}

/* ---- the merge ---- */

static uint64_t next_seq(const state *s, size_t i) { return s->th[i].ev.seq; }

static void heap_up(state *s, size_t k)
{
    while (k > 0 && next_seq(s, s->heap[(k - 1) / 2]) > next_seq(s, s->heap[k])) {
        size_t up = (k - 1) / 2, tmp = s->heap[up];
        s->heap[up] = s->heap[k];
        s->heap[k] = tmp;
        k = up;
    }
}

static void heap_down(state *s, size_t k)
{
    for (;;) {
        size_t l = 2 * k + 1, r = l + 1, m = k;
        if (l < s->nheap && next_seq(s, s->heap[l]) < next_seq(s, s->heap[m]))
            m = l;
        if (r < s->nheap && next_seq(s, s->heap[r]) < next_seq(s, s->heap[m]))
            m = r;
        if (m == k)
            return;
        size_t tmp = s->heap[m];
        s->heap[m] = s->heap[k];
        s->heap[k] = tmp;
        k = m;
    }
}

static int start_thread(state *s, size_t i)
{
    cthread *th = &s->th[i];
    if (s->nalive >= COMPILE_MAX_ALIVE) {
        cli_error(s->t->name, "more than %u threads alive at once: too "
                  "many to replay", COMPILE_MAX_ALIVE);
        return CLI_EXIT_ERROR;
    }
    int rc = barrier(s, s->t->threads[i].first_seq, -1);
    if (rc != CLI_EXIT_OK)
        return rc;
    th->start_barrier = s->c->nbarriers - 1;
    if ((th->buf = malloc(PROG_BUF)) == NULL)
        return nomem();
    cursor_init(&th->cur, s->t, &s->t->threads[i]);
    int got = cursor_next(&th->cur, &th->ev);
    if (got <= 0) /* it has events: the file changed under us */
        return fail_errno("temporary file");
    th->alive_at = s->nalive;
    s->alive[s->nalive++] = i;
    if (s->nalive > s->c->max_alive)
        s->c->max_alive = (uint32_t)s->nalive;
    s->heap[s->nheap++] = i;
    heap_up(s, s->nheap - 1);
    return CLI_EXIT_OK;
}

static int end_thread(state *s, size_t i)
{
    cthread *th = &s->th[i];
    int rc = flush(s, th);
    free(th->buf);
    th->buf = NULL;
    cursor_free(&th->cur);
    size_t at = th->alive_at;
    s->alive[at] = s->alive[--s->nalive];
    s->th[s->alive[at]].alive_at = at;
    s->ended[s->nended++] = i;
    return rc;
}

/* threads in the order of their first event */
static const trace *sort_t;
static int by_first(const void *a, const void *b)
{
    uint64_t x = sort_t->threads[*(const size_t *)a].first_seq;
    uint64_t y = sort_t->threads[*(const size_t *)b].first_seq;
    return x < y ? -1 : x > y;
}

static int merge(state *s, const size_t *order, size_t norder)
{
    const trace *t = s->t;
    size_t next_thread = 0, next_mark = 0;
    for (;;) {
        uint64_t ev = s->nheap ? next_seq(s, s->heap[0]) : UINT64_MAX;
        uint64_t st = next_thread < norder
                          ? t->threads[order[next_thread]].first_seq
                          : UINT64_MAX;
        uint64_t mk = next_mark < t->nmarks ? t->marks[next_mark].seq
                                            : UINT64_MAX;
        int rc;
        if (ev == UINT64_MAX && st == UINT64_MAX && mk == UINT64_MAX)
            return CLI_EXIT_OK;
        if (mk <= st && mk <= ev) {
            rc = barrier(s, mk, (int64_t)next_mark++);
        } else if (st <= ev) {
            rc = start_thread(s, order[next_thread++]);
        } else {
            size_t i = s->heap[0];
            cthread *th = &s->th[i];
            heapfmt_event e = th->ev;
            rc = event(s, th, &e);
            int got = rc == CLI_EXIT_OK ? cursor_next(&th->cur, &th->ev) : 1;
            if (got < 0)
                return fail_errno("temporary file");
            if (got == 0) {
                s->heap[0] = s->heap[--s->nheap];
                heap_down(s, 0);
                if (rc == CLI_EXIT_OK)
                    rc = end_thread(s, i);
            } else {
                heap_down(s, 0);
            }
        }
        if (rc != CLI_EXIT_OK)
            return rc;
    }
}

/* ---- the file ---- */

static int put_table(compiled *c, const void *p, size_t len, uint64_t *off)
{
    chunk k;
    if (chunk_append(&c->prog, p, len, &k) != 0)
        return fail_errno("temporary file");
    *off = k.off;
    return CLI_EXIT_OK;
}

static int write_tables(state *s)
{
    compiled *c = s->c;
    const trace *t = s->t;
    prog_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, PROG_MAGIC, 8);
    h.nthreads = (uint32_t)t->nthreads;
    h.nslots = c->nslots;
    h.nbarriers = c->nbarriers;
    prog_thread *pt = calloc(t->nthreads, sizeof *pt);
    size_t nchunks = 0;
    for (size_t i = 0; i < t->nthreads; i++)
        nchunks += s->th[i].chunks.n;
    prog_chunk *pc = calloc(nchunks ? nchunks : 1, sizeof *pc);
    if (pt == NULL || pc == NULL) {
        free(pt);
        free(pc);
        return nomem();
    }
    size_t k = 0;
    for (size_t i = 0; i < t->nthreads; i++) {
        const cthread *th = &s->th[i];
        pt[i] = (prog_thread){t->threads[i].number, 0, th->start_barrier,
                              th->end_barrier, k, th->chunks.n};
        for (size_t j = 0; j < th->chunks.n; j++, k++)
            pc[k] = (prog_chunk){th->chunks.v[j].off, th->chunks.v[j].len};
    }
    h.nchunks = nchunks;
    int rc = put_table(c, pt, t->nthreads * sizeof *pt, &h.threads_off);
    if (rc == CLI_EXIT_OK)
        rc = put_table(c, s->barriers,
                       (c->nbarriers ? c->nbarriers : 1) * sizeof *s->barriers,
                       &h.barriers_off);
    if (rc == CLI_EXIT_OK)
        rc = put_table(c, pc, (nchunks ? nchunks : 1) * sizeof *pc,
                       &h.chunks_off);
    free(pt);
    free(pc);
    if (rc != CLI_EXIT_OK)
        return rc;
    h.size = c->prog.size;
    if (pwrite(c->prog.fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        return fail_errno("temporary file");
    return CLI_EXIT_OK;
}

int compile_trace(const trace *t, compiled *c)
{
    memset(c, 0, sizeof *c);
    c->prog.fd = -1;
    c->nthreads = (uint32_t)t->nthreads;
    state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.c = c;
    blocks_init(&s.live);
    int rc = CLI_EXIT_ERROR;
    size_t *order = malloc((t->nthreads ? t->nthreads : 1) * sizeof *order);
    s.th = calloc(t->nthreads ? t->nthreads : 1, sizeof *s.th);
    s.heap = malloc((t->nthreads ? t->nthreads : 1) * sizeof *s.heap);
    s.alive = malloc((t->nthreads ? t->nthreads : 1) * sizeof *s.alive);
    s.ended = malloc((t->nthreads ? t->nthreads : 1) * sizeof *s.ended);
    c->mark_live = calloc(t->nmarks ? t->nmarks : 1, sizeof *c->mark_live);
    /* a bit per block number, when numbers are about as many as events
     * (a trace numbers every event): tells a double free from a free of
     * a block never made */
    uint64_t numbers = t->events + t->nmarks;
    if (t->max_seq < numbers * 64 + (1u << 20)) {
        s.made_bits = t->max_seq + 1;
        s.made = calloc((size_t)(s.made_bits / 8 + 1), 1);
        if (s.made == NULL)
            s.made_bits = 0;
    }
    if (order == NULL || s.th == NULL || s.heap == NULL || s.alive == NULL ||
        s.ended == NULL || c->mark_live == NULL) {
        rc = nomem();
        goto out;
    }
    if (chunkfile_open(&c->prog) != 0) {
        rc = fail_errno("temporary file");
        goto out;
    }
    prog_header zero;
    memset(&zero, 0, sizeof zero);
    chunk k;
    if (chunk_append(&c->prog, &zero, sizeof zero, &k) != 0) {
        rc = fail_errno("temporary file");
        goto out;
    }
    /* threads whose every event was out of order are never started */
    size_t norder = 0;
    for (size_t i = 0; i < t->nthreads; i++) {
        s.th[i].start_barrier = s.th[i].end_barrier = UINT64_MAX;
        if (t->threads[i].events > 0)
            order[norder++] = i;
    }
    sort_t = t;
    qsort(order, norder, sizeof *order, by_first);
    if ((rc = merge(&s, order, norder)) != CLI_EXIT_OK)
        goto out;
    for (size_t i = 0; i < s.nended; i++)
        s.th[s.ended[i]].end_barrier = c->nbarriers; /* joined at the end */
    c->end_live = s.live_bytes;
    c->end_blocks = s.live.count;
    rc = write_tables(&s);
out:
    for (size_t i = 0; s.th && i < t->nthreads; i++) {
        free(s.th[i].buf);
        cursor_free(&s.th[i].cur);
        chunklist_free(&s.th[i].chunks);
    }
    free(order);
    free(s.th);
    free(s.heap);
    free(s.alive);
    free(s.ended);
    free(s.barriers);
    free(s.free_slots);
    free(s.uses);
    free(s.made);
    blocks_free(&s.live);
    return rc;
}

void compiled_free(compiled *c)
{
    chunkfile_close(&c->prog);
    free(c->mark_live);
    memset(c, 0, sizeof *c);
    c->prog.fd = -1;
}
