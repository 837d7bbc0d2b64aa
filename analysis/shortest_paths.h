/* shortest_paths.h -- shortest paths from the roots, by breadth-first
 * search.
 *
 * One search from the virtual root gives every reachable node its
 * distance (in references, the ROOT record being 1) and the edge it was
 * first reached by; following those edges back gives a shortest path
 * from a root. Weak references are in the search only when the graph
 * kept them.
 *
 * Of the shortest paths, those through references are preferred to
 * those through class edges (an object's reference to its class,
 * graph.h): a node is reached by its class edge only when no reference
 * from as near reaches it. Every instance reaches its class, so a hop
 * from some instance to its class says less about why an object is
 * alive than a reference of the same length (a constant, say); where the
 * class edge is shorter, it is taken: what a singleton class holds is
 * reached through the singleton's object, even when a call cache
 * somewhere reaches it by a longer way.
 */
#ifndef GRAPH_SHORTEST_PATHS_H
#define GRAPH_SHORTEST_PATHS_H

#include "graph.h"

typedef struct paths {
    const diff_mem *mem;
    uint32_t *dist;  /* [nnodes + 1] GRAPH_NONE when unreachable; NULL
                        once detached */
    uint32_t *pedge; /* [nnodes + 1] edge first reached by; GRAPH_NONE for
                        root nodes and the virtual root. Once detached:
                        the node it was first reached from */
} paths;

/* Returns 0 or -1 (no memory). */
int paths_build(const graph *g, paths *p);

/* Makes the paths independent of g's edges, which may then go: each
 * node keeps the node it was reached from (4 bytes a node, dist freed).
 * An edge of paths_to is then a hop of g->hops (graph_hop_labels), or
 * GRAPH_NONE for a hop not there. Returns 0 or -1 (no memory). */
int paths_detach(const graph *g, paths *p);

/* The shortest path to v as n = dist[v] hops: nodes[0] is a root node,
 * nodes[n-1] is v, edges[i] the edge into nodes[i] (GRAPH_NONE for the
 * root). Arrays of n entries, allocated; the caller frees them with
 * diff_mem_free. Returns n, 0 when v is unreachable, or -1 (no memory). */
long paths_to(const graph *g, const paths *p, uint32_t v, uint32_t **nodes,
              uint32_t **edges);

/* A reference to an object, and how far its referrer is from a root. */
typedef struct paths_way {
    uint32_t dist; /* of the referrer */
    uint32_t edge;
} paths_way;

/* The references to t whose referrers a root reaches, those nearest a
 * root first (ties by edge): the start of each distinct path to t.
 * *ways is allocated (diff_mem_free; NULL when none), *n its entries.
 * Returns 0 or -1 (no memory). */
int paths_ways_to(const graph *g, const paths *p, uint32_t t,
                  paths_way **ways, size_t *n);

void paths_free(paths *p);

#endif /* GRAPH_SHORTEST_PATHS_H */
