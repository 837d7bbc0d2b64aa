/* extmem_dominators.c -- heapfmt-graph dominators --temp-dir: the phases
 * in order, each freeing what the next does not read at random.
 *
 * Resident at each phase's peak (B/object, 100M heapfmt-gen objects,
 * 2.97 references an object; the in-memory path: 46):
 *   load, first read       ids 8 + their index 5-10     (extmem_load.c)
 *   numbering              lists ~8 + preorder 4        (extmem_dfs.c)
 *   buckets                the same, read in order      (extmem_semi.c)
 *   semidominators         ancestor, semi, label 12 + one bucket
 *   sizes (a third read)   idom 4 + retained 8 = 12
 *   top objects            12, then the printed objects only (a fourth
 *                          read names them)
 * What goes through files: each list as it is resolved, the vertex and
 * the DFS parent of each preorder number, each object's preorder number
 * (read back in file order by the third read), the predecessor pairs (8
 * B/edge), the DFS stack beyond its ring. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_read.h"
#include "extmem.h"
#include "graph_dominators.h"
#include "rank.h"

/* The third read: each object's size to its preorder slot. */
typedef struct sizer {
    extmem_tree *t;
    xfile *pre;
    uint32_t next;
    uint64_t reached, reached_bytes;
    int failed; /* 1 the file changed, 2 a temporary file failed */
} sizer;

int extmem_next_pre(const extmem_tree *t, xfile *pre, uint32_t *next,
                    uint32_t *p)
{
    if ((*next)++ >= t->meta.nobjects)
        return 1;
    return xfile_get(pre, p, 4) != 0 ? 2 : 0;
}

static int on_size(void *opaque, heapfmt_reader *r, const heapfmt_record *rec)
{
    sizer *s = opaque;
    (void)r;
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    uint32_t p;
    if ((s->failed = extmem_next_pre(s->t, s->pre, &s->next, &p)) != 0)
        return AN_ERROR;
    if (p != GRAPH_NONE) {
        s->t->retained[p] = rec->u.object->size;
        s->reached++;
        s->reached_bytes += rec->u.object->size;
    }
    return 0;
}

static int sizes(extmem_tree *t, const char *path, xfile *pre, int rc1)
{
    const char *name = t->meta.d.name;
    t->retained = diff_mem_alloc(t->x.mem,
                                 (t->n ? t->n : 1) * sizeof *t->retained);
    if (t->retained == NULL) {
        an_no_memory(t->x.ctx, name);
        return AN_ERROR;
    }
    memset(t->retained, 0, (t->n ? t->n : 1) * sizeof *t->retained);
    if (xfile_rewind(pre) != 0)
        return xfile_error(pre);
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &t->meta.alloc;
    an_dump d;
    int rc = an_dump_open(&d, path, &ro, t->x.ctx);
    if (rc == AN_INCOMPLETE && rc1 == rc && t->meta.nobjects == 0 &&
        t->meta.nroots == 0) /* cut inside its header, as the first time */
        return rc;
    if (rc != AN_OK) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        return AN_ERROR;
    }
    d.name = name;
    sizer s = {t, pre, 0, 0, 0, 0};
    rc = an_scan(&d, on_size, &s, t->x.ctx);
    an_dump_close(&d);
    if (s.failed == 2)
        return xfile_error(pre);
    if (s.failed == 1 || ((rc == AN_OK || rc == AN_INCOMPLETE) &&
                          (rc != rc1 || s.next != t->meta.nobjects))) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        return AN_ERROR;
    }
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    t->unreachable = t->meta.nobjects - s.reached;
    t->unreachable_bytes = t->meta.bytes - s.reached_bytes;
    /* A dominator precedes what it dominates: one backward pass sums. */
    for (uint32_t p = t->n; p-- > 1;)
        t->retained[t->idom[p]] += t->retained[p];
    return rc;
}

/* With stats: the resident size after each phase, and the peak so far
 * (VmRSS, VmHWM), to see which phase sets the peak. */
static void phase(const extmem *x, const char *name, const char *what)
{
    if (!x->stats)
        return;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long rss = 0, hwm = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        sscanf(line, "VmRSS: %llu", &rss);
        sscanf(line, "VmHWM: %llu", &hwm);
    }
    if (f != NULL)
        fclose(f);
    an_note(x->ctx, name, "after %s: %llu KiB resident, %llu at most", what,
            rss, hwm);
}

static void stats(const extmem_tree *t)
{
    if (t->x.stats)
        an_note(t->x.ctx, t->meta.d.name, "temporary files: %llu bytes at most",
                 (unsigned long long)t->x.disk_peak);
}

int extmem_dominators(const graph_query *q, const char *path,
                      const extmem_settings *s, extmem_tree *t)
{
    memset(t, 0, sizeof *t);
    t->x.mem = q->mem;
    t->x.ctx = q->ctx;
    t->x.dir = s->dir;
    t->x.stats = s->stats;
    t->vertex.fd = -1;
    t->pre.fd = -1;
    t->meta.d.fd = -1;
    xgraph g;
    xfile parent, *pre_file = &t->pre;
    memset(&parent, 0, sizeof parent);
    parent.fd = t->pre.fd = -1;
    xbuckets b;
    memset(&b, 0, sizeof b);
    uint32_t *pre = NULL;
    int rc = extmem_load(&t->x, path, q, &t->meta, &g);
    if (rc != AN_OK && rc != AN_INCOMPLETE) {
        xgraph_free(&g, t->x.mem);
        return rc;
    }
    int rc1 = rc;
    graph_query_warn(&t->meta);
    const char *name = t->meta.d.name;
    phase(&t->x, name, "the load");
    int err = AN_ERROR;
    if (xfile_open(&t->vertex, &t->x, "vertex", XFILE_BUF) != 0 ||
        xfile_open(&parent, &t->x, "parent", XFILE_BUF) != 0 ||
        xfile_open(pre_file, &t->x, "pre", XFILE_BUF) != 0)
        goto fail;
    err = extmem_number(&t->x, &g, name, s->ring,
                        &pre, &t->vertex, &parent, &t->n);
    if (err != 0)
        goto fail;
    phase(&t->x, name, "the numbering");
    for (uint32_t v = 0; v < g.nobjects; v++)
        if (xfile_put(pre_file, &pre[v], 4) != 0) {
            err = xfile_error(pre_file);
            goto fail;
        }
    err = extmem_buckets(&t->x, &g, pre, t->n,
                         s->bucket, &b, name);
    if (err != 0)
        goto fail;
    if (t->x.stats)
        an_note(q->ctx, name,
                 "%llu edges in %llu bytes of lists (%zu wide blocks), %u "
                 "buckets",
                 (unsigned long long)g.nedges, (unsigned long long)g.nbytes,
                 g.nwide, b.k);
    DIFF_MEM_DROP(t->x.mem, pre);
    xgraph_free(&g, t->x.mem);
    diff_mem_trim(t->x.mem); /* the pages too (extmem_load.c) */
    phase(&t->x, name, "the buckets");
    err = extmem_idom(&t->x, &b, &parent, &t->idom, name);
    extmem_buckets_free(&t->x, &b);
    xfile_close(&parent);
    diff_mem_trim(t->x.mem);
    if (err != 0)
        goto fail;
    phase(&t->x, name, "the dominators");
    rc = sizes(t, path, pre_file, rc1);
    phase(&t->x, name, "the sizes");
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    dominators_note_unreachable(q->ctx, name, t->unreachable,
                                t->unreachable_bytes);
    return rc;
fail:
    diff_mem_free(t->x.mem, pre);
    xgraph_free(&g, t->x.mem);
    extmem_buckets_free(&t->x, &b);
    xfile_close(&parent);
    return err;
}

void extmem_tree_free(extmem_tree *t)
{
    stats(t);
    diff_mem_free(t->x.mem, t->idom);
    diff_mem_free(t->x.mem, t->retained);
    xfile_close(&t->vertex);
    xfile_close(&t->pre);
    an_dump_close(&t->meta.d);
    t->idom = NULL;
    t->retained = NULL;
}

/* ---- the top objects ---- */

typedef struct wanted {
    uint32_t p;    /* preorder number, then the node */
    uint32_t row;
} wanted;

static int by_p(const void *a, const void *b)
{
    const wanted *x = a, *y = b;
    return (x->p > y->p) - (x->p < y->p);
}

typedef struct namer {
    extmem_top *out;
    const wanted *w;
    size_t nw, at;
    uint32_t v;
    int failed;
} namer;

static int on_name(void *opaque, heapfmt_reader *r, const heapfmt_record *rec)
{
    namer *nm = opaque;
    (void)r;
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    uint32_t v = nm->v++;
    if (nm->at >= nm->nw || nm->w[nm->at].p != v)
        return 0;
    const heapfmt_robject *o = rec->u.object;
    graph *g = &nm->out->g;
    uint32_t i = nm->w[nm->at++].row;
    tuple k = xkind_of(o);
    g->id[i] = o->id;
    g->size[i] = o->size;
    if (tuples_intern(&g->kinds, &k, &g->kind[i]) != 0) {
        nm->failed = 1;
        return AN_ERROR;
    }
    return 0;
}

int extmem_top_objects(extmem_tree *t, const char *path, uint64_t top,
                       extmem_top *out)
{
    const diff_mem *m = t->x.mem;
    const char *name = t->meta.d.name;
    memset(out, 0, sizeof *out);
    out->g.mem = m;
    out->g.d.fd = -1;
    tuples_init(&out->g.kinds, m, UINT32_MAX - 1);
    rank r;
    size_t keep = top < t->n ? (size_t)top : t->n;
    if (rank_init(&r, m, keep ? keep : 1) != 0) {
        an_no_memory(t->x.ctx, name);
        return AN_ERROR;
    }
    int rc = AN_ERROR;
    wanted *w = NULL;
    if (xfile_rewind(&t->vertex) != 0)
        goto io;
    for (uint32_t p = 0; p < t->n; p++) {
        uint32_t v;
        if (xfile_get(&t->vertex, &v, 4) != 0)
            goto io;
        if (v < t->meta.nobjects)
            rank_add(&r, t->retained[p], p);
    }
    size_t rows = rank_sort(&r);
    out->rows = rows;
    size_t nr = rows ? rows : 1;
    w = diff_mem_alloc(m, nr * sizeof *w);
    out->retained = diff_mem_alloc(m, nr * sizeof *out->retained);
    out->g.id = diff_mem_alloc(m, nr * sizeof *out->g.id);
    out->g.size = diff_mem_alloc(m, nr * sizeof *out->g.size);
    out->g.kind = diff_mem_alloc(m, nr * sizeof *out->g.kind);
    if (w == NULL || out->retained == NULL || out->g.id == NULL ||
        out->g.size == NULL || out->g.kind == NULL) {
        an_no_memory(t->x.ctx, name);
        goto out;
    }
    for (size_t i = 0; i < rows; i++) {
        w[i] = (wanted){r.v[i].value, (uint32_t)i};
        out->retained[i] = r.v[i].key;
    }
    /* each row's node: the vertex file once more, in preorder */
    qsort(w, rows, sizeof *w, by_p);
    if (xfile_rewind(&t->vertex) != 0)
        goto io;
    size_t at = 0;
    for (uint32_t p = 0; p < t->n && at < rows; p++) {
        uint32_t v;
        if (xfile_get(&t->vertex, &v, 4) != 0)
            goto io;
        if (w[at].p == p)
            w[at++].p = v;
    }
    qsort(w, rows, sizeof *w, by_p);
    if (rows == 0) {
        rc = AN_OK;
        goto out;
    }
    /* their ids, sizes and kinds: the dump once more */
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    out->g.alloc = diff_mem_heapfmt(m);
    ro.allocator = &out->g.alloc;
    if (an_dump_open(&out->g.d, path, &ro, t->x.ctx) != AN_OK) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        goto out;
    }
    out->g.d.name = name;
    namer nm = {out, w, rows, 0, 0, 0};
    int src = an_scan(&out->g.d, on_name, &nm, t->x.ctx);
    if (nm.failed) {
        an_fail(t->x.ctx, AN_ERROR, name, "too many classes, types and sites");
        goto out;
    }
    if ((src != AN_OK && src != AN_INCOMPLETE) || nm.at != rows) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        goto out;
    }
    out->g.nobjects = out->g.nnodes = (uint32_t)rows;
    rc = AN_OK;
    goto out;
io:
    rc = xfile_error(&t->vertex);
out:
    rank_free(&r);
    diff_mem_free(m, w);
    return rc;
}

void extmem_top_free(extmem_top *out)
{
    diff_mem_free(out->g.mem, out->retained);
    out->retained = NULL;
    graph_free(&out->g);
}
