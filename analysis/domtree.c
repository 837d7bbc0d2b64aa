/* domtree.c -- dominator tree by Semi-NCA, and retained sizes. */
#include <string.h>

#include "domtree.h"

/* Arrays of the computation, by preorder number unless said otherwise. */
typedef struct work {
    graph *g;
    const diff_mem *mem;
    uint32_t n;
    uint32_t *pre;      /* [nnodes + 1] graph node -> preorder number;
                           NULL once the edges are renumbered */
    uint32_t *root_pre; /* then: preorder number of each root node */
    uint32_t *vertex;   /* preorder -> graph node */
    uint32_t *parent;   /* DFS tree parent; then the compressed ancestor */
    uint32_t *aux;      /* DFS edge cursor; then the predecessor offsets */
    uint32_t *pred;     /* predecessors, by aux */
    /* With drop_edges, the class edges' predecessors apart (split):
     * ctarget[0..nct) the class objects (preorder, ascending), cstart
     * their lists' starts in cpred (cstart[nct] its end). */
    uint32_t *ctarget, *cstart, *cpred;
    uint32_t nct;
    uint32_t *idom;
    uint32_t *semi;
    uint32_t *label;
    dom_path path;      /* dom_eval's */
} work;

static void *alloc_u32(const diff_mem *m, size_t n)
{
    return diff_mem_alloc(m, (n == 0 ? 1 : n) * sizeof(uint32_t));
}

/* Depth-first numbering from the virtual root. The DFS stack is the tree
 * path itself: going back up follows parent[]; aux[] holds where each
 * node's edges resume. */
static void number(work *w)
{
    graph *g = w->g;
    uint32_t vroot = graph_vroot(g), n = 0;
    for (size_t v = 0; v <= vroot; v++)
        w->pre[v] = GRAPH_NONE;
    w->pre[vroot] = 0;
    w->vertex[0] = vroot;
    w->parent[0] = 0;
    w->aux[0] = 0;
    n = 1;
    uint32_t cur = 0;
    for (;;) {
        uint32_t v = w->vertex[cur], next = GRAPH_NONE;
        if (v == vroot) {
            if (w->aux[cur] < g->nroots)
                next = g->nobjects + w->aux[cur]++;
        } else if (w->aux[cur] < g->off[v + 1]) {
            next = g->dst[w->aux[cur]++];
        }
        if (next == GRAPH_NONE) {
            if (cur == 0)
                break;
            cur = w->parent[cur];
            continue;
        }
        if (w->pre[next] != GRAPH_NONE)
            continue;
        w->pre[next] = n;
        w->vertex[n] = next;
        w->parent[n] = cur;
        w->aux[n] = next == vroot ? 0 : g->off[next];
        cur = n++;
    }
    w->n = n;
}

/* The successors of a graph node, for the virtual root too. */
static inline void successors(const graph *g, uint32_t v, uint32_t *begin,
                              uint32_t *end)
{
    if (v == graph_vroot(g)) {
        *begin = 0;
        *end = g->nroots;
    } else {
        *begin = g->off[v];
        *end = g->off[v + 1];
    }
}

static inline uint32_t successor(const graph *g, uint32_t v, uint32_t i)
{
    return v == graph_vroot(g) ? g->nobjects + i : g->dst[i];
}

/* The preorder number of successor i of v. */
static inline uint32_t successor_number(const work *w, uint32_t v, uint32_t i)
{
    if (w->pre != NULL)
        return w->pre[successor(w->g, v, i)];
    return v == graph_vroot(w->g) ? w->root_pre[i] : w->g->dst[i];
}

/* Predecessor lists by preorder number, built by counting: aux[p] ..
 * aux[p + 1] index pred. Returns 0 or -1. */
static int predecessors(work *w)
{
    graph *g = w->g;
    uint32_t n = w->n;
    memset(w->aux, 0, ((size_t)n + 1) * sizeof *w->aux);
    size_t m = 0;
    for (uint32_t p = 0; p < n; p++) {
        uint32_t b, e, v = w->vertex[p];
        successors(g, v, &b, &e);
        for (uint32_t i = b; i < e; i++)
            w->aux[successor_number(w, v, i) + 1]++;
        m += e - b;
    }
    for (uint32_t p = 0; p < n; p++)
        w->aux[p + 1] += w->aux[p];
    w->pred = alloc_u32(w->mem, m);
    if (w->pred == NULL)
        return -1;
    /* Fill from the back so that aux[p] ends at the start of p's list. */
    for (uint32_t p = n; p-- > 0;) {
        uint32_t b, e, v = w->vertex[p];
        successors(g, v, &b, &e);
        for (uint32_t i = e; i-- > b;) {
            uint32_t q = successor_number(w, v, i);
            w->pred[--w->aux[q + 1]] = p;
        }
    }
    /* aux[q + 1] now holds the start of q's list; shift down by one. */
    memmove(w->aux, w->aux + 1, (size_t)n * sizeof *w->aux);
    w->aux[n] = (uint32_t)m;
    return 0;
}

/* The least semidominator among the predecessors list[begin..end) of
 * node i; s if none is less. Returns GRAPH_NONE when memory runs out. */
static uint32_t least_semi(work *w, const uint32_t *list, uint32_t begin,
                           uint32_t end, uint32_t i, uint32_t s)
{
    for (uint32_t k = begin; k < end; k++) {
        uint32_t u =
            dom_eval(w->parent, w->label, w->semi, &w->path, list[k], i + 1);
        if (u == GRAPH_NONE)
            return GRAPH_NONE;
        if (w->semi[u] < s)
            s = w->semi[u];
    }
    return s;
}

static int semi_nca(work *w)
{
    uint32_t n = w->n, t = w->nct;
    w->path.mem = w->mem;
    for (uint32_t p = 0; p < n; p++) {
        w->idom[p] = w->parent[p];
        w->semi[p] = p;
        w->label[p] = p;
    }
    for (uint32_t i = n; i-- > 1;) {
        uint32_t s = least_semi(w, w->pred, w->aux[i], w->aux[i + 1], i,
                                w->parent[i]);
        if (t > 0 && w->ctarget[t - 1] == i && s != GRAPH_NONE) {
            t--;
            s = least_semi(w, w->cpred, w->cstart[t], w->cstart[t + 1], i,
                           s);
        }
        if (s == GRAPH_NONE)
            return -1;
        w->semi[i] = s;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t c = w->idom[i];
        while (c > w->semi[i])
            c = w->idom[c];
        w->idom[i] = c;
    }
    return 0;
}

static void work_free(work *w)
{
    const diff_mem *m = w->mem;
    diff_mem_free(m, w->pre);
    diff_mem_free(m, w->root_pre);
    diff_mem_free(m, w->vertex);
    diff_mem_free(m, w->parent);
    diff_mem_free(m, w->aux);
    diff_mem_free(m, w->pred);
    diff_mem_free(m, w->ctarget);
    diff_mem_free(m, w->cstart);
    diff_mem_free(m, w->cpred);
    diff_mem_free(m, w->idom);
    diff_mem_free(m, w->semi);
    diff_mem_free(m, w->label);
    diff_mem_free(m, w->path.node);
    memset(w, 0, sizeof *w);
}

#define FREE(w, field)                                                        \
    do {                                                                      \
        diff_mem_free((w)->mem, (w)->field);                                       \
        (w)->field = NULL;                                                    \
    } while (0)

/* For the dominators alone: the targets of the edges become preorder
 * numbers in place, so that pre[] can go before the predecessors are
 * built (the edges are dropped afterwards anyway). The root nodes keep
 * theirs in root_pre. */
static int renumber(work *w)
{
    graph *g = w->g;
    for (size_t e = 0; e < g->nedges; e++)
        g->dst[e] = w->pre[g->dst[e]];
    w->root_pre = alloc_u32(w->mem, g->nroots);
    if (w->root_pre == NULL)
        return -1;
    for (uint32_t i = 0; i < g->nroots; i++)
        w->root_pre[i] = w->pre[g->nobjects + i];
    FREE(w, pre);
    return 0;
}

/* For the dominators alone, on a graph with class edges: each object's
 * class edge (its last, renumbered already) moves out of the edges into
 * ctarget_of[v], and the edges close up. The predecessors are then built
 * without them, and the class edges' apart once the edges are gone
 * (class_predecessors), so that the class edges are never held twice:
 * in the edges and in the predecessors. Returns the array, or NULL (no
 * memory). */
static uint32_t *split_classes(work *w)
{
    graph *g = w->g;
    uint32_t *of = alloc_u32(w->mem, g->nobjects);
    if (of == NULL)
        return NULL;
    uint32_t out = 0, start = g->off[0];
    for (uint32_t v = 0; v < g->nnodes; v++) {
        uint32_t end = g->off[v + 1];
        g->off[v] = out;
        int cls = v < g->nobjects && end > start && graph_has_class_edge(g, v);
        if (v < g->nobjects)
            of[v] = cls ? g->dst[end - 1] : GRAPH_NONE;
        for (uint32_t e = start; e < end - (uint32_t)cls; e++)
            g->dst[out++] = g->dst[e];
        start = end;
    }
    g->off[g->nnodes] = out;
    g->nedges = out;
    void *p = out > 0 ? diff_mem_realloc(w->mem, g->dst, out * sizeof *g->dst)
                      : NULL;
    if (p != NULL)
        g->dst = p; /* keeping the larger block is harmless */
    return of;
}

/* The class edges' predecessors, by target: the reachable objects whose
 * class each class object is (of: split_classes's, by object). Returns 0
 * or -1. */
static int class_predecessors(work *w, const uint32_t *of)
{
    graph *g = w->g;
    uint32_t n = w->n;
    uint32_t *count = alloc_u32(w->mem, (size_t)n + 1);
    if (count == NULL)
        return -1;
    memset(count, 0, ((size_t)n + 1) * sizeof *count);
    size_t m = 0;
    for (uint32_t p = 0; p < n; p++) {
        uint32_t v = w->vertex[p];
        if (v < g->nobjects && of[v] != GRAPH_NONE) {
            count[of[v]]++;
            m++;
        }
    }
    uint32_t nct = 0;
    for (uint32_t q = 0; q < n; q++)
        nct += count[q] > 0;
    w->ctarget = alloc_u32(w->mem, nct);
    w->cstart = alloc_u32(w->mem, (size_t)nct + 1);
    w->cpred = alloc_u32(w->mem, m);
    if (w->ctarget == NULL || w->cstart == NULL || w->cpred == NULL) {
        diff_mem_free(w->mem, count);
        return -1;
    }
    /* count[q] becomes where q's list is filled next */
    uint32_t at = 0, k = 0;
    for (uint32_t q = 0; q < n; q++) {
        if (count[q] == 0)
            continue;
        w->ctarget[k] = q;
        w->cstart[k++] = at;
        uint32_t c = count[q];
        count[q] = at;
        at += c;
    }
    w->cstart[nct] = at;
    w->nct = nct;
    for (uint32_t p = 0; p < n; p++) {
        uint32_t v = w->vertex[p];
        if (v < g->nobjects && of[v] != GRAPH_NONE)
            w->cpred[count[of[v]]++] = p;
    }
    diff_mem_free(w->mem, count);
    return 0;
}

int dom_build(graph *g, dom_tree *t, int drop_edges)
{
    memset(t, 0, sizeof *t);
    t->mem = g->mem;
    work w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.mem = g->mem;
    size_t nodes = (size_t)g->nnodes + 1;
    w.pre = alloc_u32(w.mem, nodes);
    w.vertex = alloc_u32(w.mem, nodes);
    w.parent = alloc_u32(w.mem, nodes);
    w.aux = alloc_u32(w.mem, nodes + 1);
    if (w.pre == NULL || w.vertex == NULL || w.parent == NULL ||
        w.aux == NULL)
        goto fail;
    number(&w);
    uint32_t *class_of = NULL;
    if (drop_edges && renumber(&w) != 0)
        goto fail;
    if (drop_edges && g->class_bits != NULL &&
        (class_of = split_classes(&w)) == NULL)
        goto fail;
    if (predecessors(&w) != 0) {
        diff_mem_free(w.mem, class_of);
        goto fail;
    }
    FREE(&w, pre);
    FREE(&w, root_pre);
    if (drop_edges)
        graph_drop_edges(g);
    if (class_of != NULL) {
        int failed = class_predecessors(&w, class_of) != 0;
        diff_mem_free(w.mem, class_of);
        if (failed)
            goto fail;
    }
    w.idom = alloc_u32(w.mem, w.n);
    w.semi = alloc_u32(w.mem, w.n);
    w.label = alloc_u32(w.mem, w.n);
    if (w.idom == NULL || w.semi == NULL || w.label == NULL ||
        semi_nca(&w) != 0)
        goto fail;
    t->n = w.n;
    t->vertex = w.vertex;
    t->idom = w.idom;
    w.vertex = w.idom = NULL;
    work_free(&w);
    return 0;
fail:
    work_free(&w);
    dom_free(t);
    return -1;
}

int dom_retained(const graph *g, dom_tree *t)
{
    t->retained = diff_mem_alloc(t->mem, (size_t)t->n * sizeof *t->retained);
    if (t->retained == NULL)
        return -1;
    uint64_t reached = 0, reached_bytes = 0;
    for (uint32_t p = 0; p < t->n; p++) {
        uint32_t v = t->vertex[p];
        t->retained[p] = v < g->nobjects ? g->size[v] : 0;
        reached += v < g->nobjects;
        reached_bytes += t->retained[p];
    }
    t->unreachable = g->nobjects - reached;
    t->unreachable_bytes = g->bytes - reached_bytes;
    /* A dominator precedes what it dominates: one backward pass sums. */
    for (uint32_t p = t->n; p-- > 1;)
        t->retained[t->idom[p]] += t->retained[p];
    return 0;
}

uint32_t *dom_numbers(const graph *g, const dom_tree *t)
{
    size_t nodes = (size_t)g->nnodes + 1;
    uint32_t *pre = alloc_u32(t->mem, nodes);
    if (pre == NULL)
        return NULL;
    for (size_t v = 0; v < nodes; v++)
        pre[v] = GRAPH_NONE;
    for (uint32_t p = 0; p < t->n; p++)
        pre[t->vertex[p]] = p;
    return pre;
}

void dom_free(dom_tree *t)
{
    diff_mem_free(t->mem, t->vertex);
    diff_mem_free(t->mem, t->idom);
    diff_mem_free(t->mem, t->retained);
    const diff_mem *m = t->mem;
    memset(t, 0, sizeof *t);
    t->mem = m;
}
