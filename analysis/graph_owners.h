/* graph_owners.h -- the work of heapfmt-graph owners, apart from its
 * printing, for it and heapfmt-report. */
#ifndef GRAPH_OWNERS_H
#define GRAPH_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#include "domtree.h"
#include "graph.h"
#include "graph_query.h"
#include "shortest_paths.h"

/* What one owner holds of the leak. */
typedef struct owner_sum {
    uint32_t owner; /* preorder number in the dominator tree */
    uint64_t objects, bytes;
} owner_sum;

/* The owners of the leak in D3, ranked: top[i] is the i-th owner (by
 * leaked bytes, ties by first in preorder), its node is
 * t.vertex[top[i].owner]; p gives its path from a root. */
typedef struct owners_result {
    graph g; /* D3's objects, without its edges; the labels of the top
                owners' paths only (g.hops) */
    dom_tree t; /* vertex; idom holds each node's owner instead */
    paths p;    /* detached: each node's predecessor */
    owner_sum *top;
    size_t ntop;
    uint64_t nleaked; /* objects new in D2 and still alive in D3 */
} owners_result;

/* Computes the owners of the objects new in args[1] and still alive in
 * args[2] (args[0] is the first dump), keeping the best top (0: all).
 * Warnings go through opt->ctx. Returns AN_OK or AN_INCOMPLETE with res
 * filled, else AN_ERROR (the message on opt->ctx). res must be freed
 * with owners_free in every case. */
int owners_compute(const graph_query *opt, char *const *args, uint64_t top,
                   owners_result *res);

void owners_free(owners_result *res);

#endif /* GRAPH_OWNERS_H */
