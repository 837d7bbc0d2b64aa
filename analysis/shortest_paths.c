/* shortest_paths.c -- shortest paths from the roots, by breadth-first
 * search. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "shortest_paths.h"

/* Reaches the target of edge e from u, if nothing reached it before. */
static inline void reach(const graph *g, paths *p, uint32_t *queue,
                         size_t *tail, uint32_t u, uint32_t e)
{
    uint32_t w = g->dst[e];
    if (p->dist[w] != GRAPH_NONE)
        return;
    p->dist[w] = p->dist[u] + 1;
    p->pedge[w] = e;
    queue[(*tail)++] = w;
}

/* One layer of the search: the nodes at distance d (queue[lo..hi)) reach
 * those at d + 1 through their references first, then through their
 * class edges (an object's last edge, graph_load.c). */
static void layer(const graph *g, paths *p, uint32_t *queue, size_t lo,
                  size_t hi, size_t *tail)
{
    for (size_t i = lo; i < hi; i++) {
        uint32_t u = queue[i], end = g->off[u + 1];
        if (graph_has_class_edge(g, u))
            end--;
        for (uint32_t e = g->off[u]; e < end; e++)
            reach(g, p, queue, tail, u, e);
    }
    for (size_t i = lo; i < hi; i++) {
        uint32_t u = queue[i];
        if (graph_has_class_edge(g, u))
            reach(g, p, queue, tail, u, g->off[u + 1] - 1);
    }
}

int paths_build(const graph *g, paths *p)
{
    size_t nodes = (size_t)g->nnodes + 1;
    memset(p, 0, sizeof *p);
    p->mem = g->mem;
    p->dist = diff_mem_alloc(g->mem, nodes * sizeof *p->dist);
    p->pedge = diff_mem_alloc(g->mem, nodes * sizeof *p->pedge);
    uint32_t *queue = diff_mem_alloc(g->mem, nodes * sizeof *queue);
    if (p->dist == NULL || p->pedge == NULL || queue == NULL) {
        diff_mem_free(g->mem, queue);
        paths_free(p);
        return -1;
    }
    for (size_t v = 0; v < nodes; v++) {
        p->dist[v] = GRAPH_NONE;
        p->pedge[v] = GRAPH_NONE;
    }
    size_t head = 0, tail = 0;
    p->dist[graph_vroot(g)] = 0;
    for (uint32_t r = g->nobjects; r < g->nnodes; r++) {
        p->dist[r] = 1;
        queue[tail++] = r;
    }
    while (head < tail) {
        size_t hi = tail;
        layer(g, p, queue, head, hi, &tail);
        head = hi;
    }
    diff_mem_free(g->mem, queue);
    return 0;
}

int paths_detach(const graph *g, paths *p)
{
    size_t nodes = (size_t)g->nnodes + 1;
    /* Each node has one first edge: a bit says its entry is a node now,
     * so that no node number is mistaken for an edge number after. */
    unsigned char *done = diff_mem_alloc(g->mem, nodes / 8 + 1);
    if (done == NULL)
        return -1;
    memset(done, 0, nodes / 8 + 1);
    for (uint32_t u = 0; u < g->nnodes; u++) {
        for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++) {
            uint32_t w = g->dst[e];
            if (!(done[w / 8] >> (w % 8) & 1u) && p->pedge[w] == e) {
                p->pedge[w] = u;
                done[w / 8] |= (unsigned char)(1u << (w % 8));
            }
        }
    }
    diff_mem_free(g->mem, done);
    diff_mem_free(g->mem, p->dist);
    p->dist = NULL;
    return 0;
}

/* How many hops lead to v: 0 when unreachable (the virtual root too). */
static uint32_t hops_to(const graph *g, const paths *p, uint32_t v)
{
    if (p->dist != NULL)
        return p->dist[v] == GRAPH_NONE ? 0 : p->dist[v];
    uint32_t n = 0;
    for (; v < g->nobjects; v = p->pedge[v]) {
        if (p->pedge[v] == GRAPH_NONE)
            return 0;
        n++;
    }
    return v < g->nnodes ? n + 1 : 0; /* a root node: hop 1 */
}

long paths_to(const graph *g, const paths *p, uint32_t v, uint32_t **nodes,
              uint32_t **edges)
{
    *nodes = *edges = NULL;
    uint32_t n = hops_to(g, p, v);
    if (n == 0)
        return 0;
    *nodes = diff_mem_alloc(g->mem, (size_t)n * sizeof **nodes);
    *edges = diff_mem_alloc(g->mem, (size_t)n * sizeof **edges);
    if (*nodes == NULL || *edges == NULL) {
        diff_mem_free(g->mem, *nodes);
        diff_mem_free(g->mem, *edges);
        *nodes = *edges = NULL;
        return -1;
    }
    for (uint32_t i = n; i-- > 0;) {
        uint32_t e = p->pedge[v];
        (*nodes)[i] = v;
        if (p->dist == NULL) { /* detached: e is the node before */
            (*edges)[i] = e == GRAPH_NONE ? e : graph_hop_find(g, e, v);
            v = e;
            continue;
        }
        (*edges)[i] = e;
        if (e != GRAPH_NONE)
            v = graph_edge_source(g, e);
    }
    return (long)n;
}

void paths_free(paths *p)
{
    diff_mem_free(p->mem, p->dist);
    diff_mem_free(p->mem, p->pedge);
    p->dist = p->pedge = NULL;
}

static int way_cmp(const void *a, const void *b)
{
    const paths_way *x = a, *y = b;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

int paths_ways_to(const graph *g, const paths *p, uint32_t t,
                  paths_way **out, size_t *nout)
{
    paths_way *ways = NULL;
    size_t n = 0, cap = 0;
    *out = NULL;
    *nout = 0;
    for (size_t e = 0; e < g->nedges; e++) {
        if (g->dst[e] != t)
            continue;
        uint32_t s = graph_edge_source(g, e);
        if (p->dist[s] == GRAPH_NONE)
            continue;
        if (diff_mem_reserve(g->mem, (void **)&ways, &cap, n + 1, sizeof *ways) !=
            0) {
            diff_mem_free(g->mem, ways);
            return -1;
        }
        ways[n++] = (paths_way){p->dist[s], (uint32_t)e};
    }
    if (n > 1)
        qsort(ways, n, sizeof *ways, way_cmp);
    *out = ways;
    *nout = n;
    return 0;
}
