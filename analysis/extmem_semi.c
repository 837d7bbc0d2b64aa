/* extmem_semi.c -- semidominators and immediate dominators of dominators
 * --temp-dir, from predecessor buckets on disk.
 *
 * Why shaped so: domtree.c builds every predecessor list at once (4
 * B/reference + 4 B/object: 16 B/object at heapfmt-gen's 2.97 references
 * an object, plus the class edges) beside the graph's own edges. But the
 * semidominator pass wants the predecessors of one node at a time, in
 * reverse preorder. So one pass over the compressed lists writes each
 * edge as the pair (preorder of target, preorder of source), 8 bytes, to
 * the bucket of its target's preorder range (ranges cut so that each
 * bucket holds about as many edges: a first pass counts them); the
 * lists and the preorder
 * numbers are freed; the buckets are then read from the last to the
 * first, each turned into predecessor lists of its range in memory (at
 * most `budget` bytes, 256 MiB by default: 60M edges), and the pass runs
 * over that range. Resident then: ancestor, semi and label (12
 * B/object), the bucket of the moment. The nearest-common-ancestor pass
 * reads the DFS parents back from their file into idom and needs semi
 * beside it: 8 B/object. The predecessors' order within a list does not
 * change a semidominator (a minimum), so the tree is domtree.c's. */
#include <stdlib.h>
#include <string.h>

#include "extmem.h"

#define XB_MAX 256             /* buckets at most: 256 buffers */
#define XB_BUF (256u << 10)    /* each one's */

typedef struct pair {
    uint32_t target, source;
} pair;

/* Calls fn(ctx, target, source) for each edge of a reachable node, in
 * preorder numbers. Returns 0 or fn's first nonzero value. */
typedef int (*edge_fn)(void *ctx, uint32_t target, uint32_t source);

static int each_edge(const xgraph *g, const uint32_t *pre, edge_fn fn,
                     void *ctx)
{
    for (uint32_t v = 0; v <= g->nnodes; v++) {
        uint32_t s = pre[v];
        if (s == GRAPH_NONE)
            continue;
        int rc = 0;
        if (v == g->nnodes) { /* the virtual root: the root nodes */
            for (uint32_t i = 0; i < g->nroots && rc == 0; i++)
                rc = fn(ctx, pre[g->nobjects + i], s);
        } else {
            const unsigned char *at = g->bytes + xg_start(g, v);
            const unsigned char *end = g->bytes + xg_start(g, v + 1);
            while (at < end && rc == 0)
                rc = fn(ctx, pre[xzz_decode(v, xvar_get(&at))], s);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int count_edge(void *ctx, uint32_t target, uint32_t source)
{
    (void)source;
    ((uint64_t *)ctx)[target >> XB_CELL_BITS]++;
    return 0;
}

static int put_edge(void *ctx, uint32_t target, uint32_t source)
{
    xbuckets *b = ctx;
    pair p = {target, source};
    xfile *f = &b->file[b->cell[target >> XB_CELL_BITS]];
    if (xfile_put(f, &p, sizeof p) != 0)
        return -1;
    b->edges++;
    return 0;
}

/* Cuts the cells into buckets of at most budget bytes in memory (4 per
 * predecessor, 4 per node), at most XB_MAX of them: a bucket by preorder
 * range alone put 21M of 37M edges in one of seven (the class objects,
 * reached first, have every instance as a predecessor). */
static uint32_t cut(xbuckets *b, const uint64_t *count, size_t cells,
                    uint64_t budget)
{
    uint32_t k = 0;
    uint64_t used = 0;
    for (size_t c = 0; c < cells; c++) {
        uint64_t cost = 4 * count[c] + (4u << XB_CELL_BITS);
        if (c == 0 || (used > 0 && used + cost > budget)) {
            b->lo[k++] = (uint32_t)(c << XB_CELL_BITS);
            used = 0;
        }
        used += cost;
        b->cell[c] = (uint16_t)(k - 1);
    }
    b->lo[k] = b->n;
    return k;
}

int extmem_buckets(extmem *x, const xgraph *g, const uint32_t *pre,
                   uint32_t n, size_t budget, xbuckets *b, const char *name)
{
    const diff_mem *m = x->mem;
    memset(b, 0, sizeof *b);
    b->n = n;
    size_t cells = ((size_t)n >> XB_CELL_BITS) + 1;
    uint64_t *count = diff_mem_alloc(m, cells * sizeof *count);
    b->cell = diff_mem_alloc(m, cells * sizeof *b->cell);
    b->lo = diff_mem_alloc(m, (cells + 1) * sizeof *b->lo);
    if (count == NULL || b->cell == NULL || b->lo == NULL) {
        diff_mem_free(m, count);
        an_no_memory(x->ctx, name);
        return AN_ERROR;
    }
    memset(count, 0, cells * sizeof *count);
    each_edge(g, pre, count_edge, count);
    uint64_t total = 0;
    for (size_t c = 0; c < cells; c++)
        total += 4 * count[c] + (4u << XB_CELL_BITS);
    uint64_t want = budget ? budget : 1;
    if (total / want + 1 > XB_MAX) /* a larger budget, not more files */
        want = total / (XB_MAX / 2) + 1;
    /* a target of more than 1/64 of the budget's predecessors keeps them
     * in a file of its own (load_bucket) */
    b->giant = want / 4 / 64 > 1 ? want / 4 / 64 : 1;
    b->k = cut(b, count, cells, want);
    while (b->k > XB_MAX)
        b->k = cut(b, count, cells, want *= 2);
    diff_mem_free(m, count);
    b->file = diff_mem_alloc(m, b->k * sizeof *b->file);
    if (b->file == NULL) {
        an_no_memory(x->ctx, name);
        return AN_ERROR;
    }
    for (uint32_t i = 0; i < b->k; i++) {
        memset(&b->file[i], 0, sizeof b->file[i]);
        b->file[i].fd = -1;
    }
    for (uint32_t i = 0; i < b->k; i++)
        if (xfile_open(&b->file[i], x, "pred", XB_BUF) != 0)
            return AN_ERROR;
    if (each_edge(g, pre, put_edge, b) != 0) {
        for (uint32_t i = 0; i < b->k; i++)
            if (b->file[i].err != 0)
                return xfile_error(&b->file[i]);
        return xfile_error(&b->file[0]);
    }
    for (uint32_t i = 0; i < b->k; i++)
        if (xfile_flush(&b->file[i]) != 0)
            return xfile_error(&b->file[i]);
    return 0;
}

void extmem_buckets_free(extmem *x, xbuckets *b)
{
    if (b->file != NULL)
        for (uint32_t i = 0; i < b->k; i++)
            xfile_close(&b->file[i]);
    diff_mem_free(x->mem, b->file);
    diff_mem_free(x->mem, b->lo);
    diff_mem_free(x->mem, b->cell);
    memset(b, 0, sizeof *b);
}

typedef struct semi_work {
    const diff_mem *mem;
    uint32_t *anc;   /* DFS parent, then the compressed ancestor */
    uint32_t *semi;
    uint32_t *label;
    dom_path path;   /* dom_eval's */
} semi_work;

static int read_u32s(xfile *f, uint32_t *a, uint32_t n)
{
    if (xfile_rewind(f) != 0)
        return -1;
    for (uint32_t i = 0; i < n;) {
        uint32_t k = n - i > (1u << 28) ? (1u << 28) : n - i;
        if (xfile_get(f, a + i, (size_t)k * 4) != 0)
            return -1;
        i += k;
    }
    return 0;
}

/* A bucket's targets of most predecessors (the class objects: every
 * instance points at its class) keep theirs in a file each, read when
 * the target's turn comes, instead of in the bucket's lists: a bucket
 * cannot be cut inside one target, and at 100M objects the cell of the
 * class objects held more predecessors than the budget. */
#define XB_GIANTS 64

typedef struct giants {
    uint32_t n;
    uint32_t target[XB_GIANTS]; /* ascending */
    xfile file[XB_GIANTS];
} giants;

static int giant_of(const giants *gs, uint32_t t)
{
    uint32_t lo = 0, hi = gs->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (gs->target[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < gs->n && gs->target[lo] == t ? (int)lo : -1;
}

static void giants_free(giants *gs)
{
    for (uint32_t i = 0; i < gs->n; i++)
        xfile_close(&gs->file[i]);
    gs->n = 0;
}

/* The predecessor lists of bucket f's range [lo, lo + range): start
 * (range + 1 entries) indexes list, but the targets of more than `giant`
 * predecessors have theirs in gs. Returns 0, -1 (no memory), -2 (f
 * failed), -3 (a giant's file failed, said). */
static int load_bucket(extmem *x, xfile *f, uint32_t lo, uint32_t range,
                       uint64_t giant, uint32_t **start, uint32_t **list,
                       giants *gs)
{
    const diff_mem *m = x->mem;
    uint64_t edges = f->size / sizeof(pair);
    *start = diff_mem_alloc(m, ((size_t)range + 1) * sizeof **start);
    if (*start == NULL)
        return -1;
    uint32_t *st = *start;
    memset(st, 0, ((size_t)range + 1) * sizeof *st);
    pair p;
    int rc;
    if (xfile_rewind(f) != 0)
        return -2;
    while ((rc = xfile_get(f, &p, sizeof p)) == 0)
        st[p.target - lo + 1]++;
    if (rc < 0)
        return -2;
    for (uint32_t i = 0; i < range && gs->n < XB_GIANTS; i++)
        if (st[i + 1] > giant) {
            if (xfile_open(&gs->file[gs->n], x, "giant", 64u << 10) != 0)
                return -3;
            gs->target[gs->n++] = lo + i;
            edges -= st[i + 1];
            st[i + 1] = 0;
        }
    *list = diff_mem_alloc(m, (edges ? (size_t)edges : 1) * sizeof **list);
    if (*list == NULL)
        return -1;
    for (uint32_t i = 0; i < range; i++)
        st[i + 1] += st[i];
    if (xfile_rewind(f) != 0)
        return -2;
    while ((rc = xfile_get(f, &p, sizeof p)) == 0) {
        int gi = gs->n > 0 ? giant_of(gs, p.target) : -1;
        if (gi < 0) {
            (*list)[st[p.target - lo]++] = p.source;
        } else if (xfile_put(&gs->file[gi], &p.source, 4) != 0) {
            xfile_error(&gs->file[gi]);
            return -3;
        }
    }
    if (rc < 0)
        return -2;
    /* st[i] is now the end of i's list: the start of i + 1's */
    memmove(st + 1, st, (size_t)range * sizeof *st);
    st[0] = 0;
    return 0;
}

int extmem_idom(extmem *x, xbuckets *b, xfile *parent, uint32_t **idom,
                const char *name)
{
    const diff_mem *m = x->mem;
    uint32_t n = b->n;
    semi_work w;
    memset(&w, 0, sizeof w);
    w.mem = m;
    w.path.mem = m;
    uint32_t *start = NULL, *list = NULL;
    uint64_t most = 0;
    giants gs;
    memset(&gs, 0, sizeof gs);
    int rc = AN_ERROR;
    *idom = NULL;
    size_t bytes = (n ? n : 1) * sizeof(uint32_t);
    w.anc = diff_mem_alloc(m, bytes);
    w.semi = diff_mem_alloc(m, bytes);
    w.label = diff_mem_alloc(m, bytes);
    if (w.anc == NULL || w.semi == NULL || w.label == NULL)
        goto nomem;
    if (read_u32s(parent, w.anc, n) != 0) {
        rc = xfile_error(parent);
        goto out;
    }
    for (uint32_t p = 0; p < n; p++)
        w.semi[p] = w.label[p] = p;
    for (uint32_t k = b->k; k-- > 0;) {
        uint32_t lo = b->lo[k], hi = b->lo[k + 1];
        int lrc = load_bucket(x, &b->file[k], lo, hi - lo, b->giant, &start,
                              &list, &gs);
        if (lrc == -1)
            goto nomem;
        if (lrc == -2) {
            rc = xfile_error(&b->file[k]);
            goto out;
        }
        if (lrc == -3)
            goto out;
        int gi = (int)gs.n - 1;
        if (b->file[k].size / sizeof(pair) > most)
            most = b->file[k].size / sizeof(pair);
        xfile_close(&b->file[k]); /* its disk goes back */
        for (uint32_t i = hi; i-- > (lo > 1 ? lo : 1);) {
            uint32_t s = w.anc[i]; /* still i's DFS parent */
            for (uint32_t e = start[i - lo]; e < start[i - lo + 1]; e++) {
                uint32_t u = dom_eval(w.anc, w.label, w.semi, &w.path,
                                      list[e], i + 1);
                if (u == GRAPH_NONE)
                    goto nomem;
                if (w.semi[u] < s)
                    s = w.semi[u];
            }
            if (gi >= 0 && gs.target[gi] == i) { /* a giant: from its file */
                xfile *gf = &gs.file[gi--];
                uint32_t v;
                int grc;
                if (xfile_rewind(gf) != 0) {
                    rc = xfile_error(gf);
                    goto out;
                }
                while ((grc = xfile_get(gf, &v, 4)) == 0) {
                    uint32_t u =
                        dom_eval(w.anc, w.label, w.semi, &w.path, v, i + 1);
                    if (u == GRAPH_NONE)
                        goto nomem;
                    if (w.semi[u] < s)
                        s = w.semi[u];
                }
                if (grc < 0) {
                    rc = xfile_error(gf);
                    goto out;
                }
                xfile_close(gf);
            }
            w.semi[i] = s;
        }
        giants_free(&gs);
        DIFF_MEM_DROP(m, start);
        DIFF_MEM_DROP(m, list);
    }
    if (x->stats)
        an_note(x->ctx, name, "largest bucket %llu edges, eval stack %zu",
                 (unsigned long long)most, w.path.cap);
    DIFF_MEM_DROP(m, w.label);
    DIFF_MEM_DROP(m, w.path.node);
    diff_mem_trim(m); /* their pages too (extmem_load.c) */
    /* nearest common ancestors, in preorder: idom starts as the parent */
    uint32_t *d = w.anc;
    if (read_u32s(parent, d, n) != 0) {
        rc = xfile_error(parent);
        goto out;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t c = d[i];
        while (c > w.semi[i])
            c = d[c];
        d[i] = c;
    }
    *idom = d;
    w.anc = NULL;
    rc = AN_OK;
    goto out;
nomem:
    an_no_memory(x->ctx, name);
out:
    giants_free(&gs);
    diff_mem_free(m, start);
    diff_mem_free(m, list);
    diff_mem_free(m, w.anc);
    diff_mem_free(m, w.semi);
    diff_mem_free(m, w.label);
    diff_mem_free(m, w.path.node);
    return rc;
}
