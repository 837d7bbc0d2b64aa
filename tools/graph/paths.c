/* paths.c -- shortest paths from the roots, by breadth-first search. */
#include <string.h>

#include "node.h"
#include "paths.h"

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
 * class edges (an object's last edge, load.c). */
static void layer(const graph *g, paths *p, uint32_t *queue, size_t lo,
                  size_t hi, size_t *tail)
{
    for (size_t i = lo; i < hi; i++) {
        uint32_t u = queue[i], end = g->off[u + 1];
        if (end > g->off[u] && graph_edge_is_class(g, end - 1))
            end--;
        for (uint32_t e = g->off[u]; e < end; e++)
            reach(g, p, queue, tail, u, e);
    }
    for (size_t i = lo; i < hi; i++) {
        uint32_t u = queue[i], end = g->off[u + 1];
        if (end > g->off[u] && graph_edge_is_class(g, end - 1))
            reach(g, p, queue, tail, u, end - 1);
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

long paths_to(const graph *g, const paths *p, uint32_t v, uint32_t **nodes,
              uint32_t **edges)
{
    *nodes = *edges = NULL;
    uint32_t n = p->dist[v];
    if (n == GRAPH_NONE || n == 0)
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
        (*edges)[i] = e;
        if (e != GRAPH_NONE)
            v = node_edge_source(g, e);
    }
    return (long)n;
}

void paths_free(paths *p)
{
    diff_mem_free(p->mem, p->dist);
    diff_mem_free(p->mem, p->pedge);
    p->dist = p->pedge = NULL;
}
