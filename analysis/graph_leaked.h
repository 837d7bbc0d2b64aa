/* graph_leaked.h -- the work of heapfmt-graph leaked, apart from its
 * printing: what the roots reach, the heads of what they do not, the
 * leaked objects by group or ranked one by one. */
#ifndef GRAPH_LEAKED_H
#define GRAPH_LEAKED_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "rank.h"
#include "tuples.h"

/* Marks what the roots reach: reached[v] = 1 (nnodes flags). Returns 0
 * or -1 (no memory). */
int leaked_reach(const graph *g, unsigned char *reached);

/* Flags the leaked objects that another leaked object points at
 * (pointed[v] = 1, nobjects flags): the others are the heads. */
void leaked_pointed_at(const graph *g, const unsigned char *reached,
                       unsigned char *pointed);

/* What one group (a class, a site, or both) holds of the leak. */
typedef struct leaked_row {
    uint32_t group; /* number in the groups table */
    uint64_t objects, bytes, heads, head_bytes;
} leaked_row;

/* The leaked objects summed by group (by: GROUP_CLASS and/or GROUP_SITE
 * bits): groups is initialised here and holds the keys, *rows the groups
 * with leaked objects, by bytes, then objects, largest first (freed with
 * diff_mem_free(g->mem, ...); groups with tuples_free, in every case).
 * Returns 0 or -1 (no memory). */
int leaked_groups(const graph *g, const unsigned char *reached,
                  const unsigned char *pointed, unsigned by, tuples *groups,
                  leaked_row **rows, size_t *nrows);

/* The top (0: all) leaked objects into r, heads first, each part by
 * size, sorted (r->v[0 .. r->n), value the node; rank_free it). Returns
 * 0 or -1 (no memory, r freed). */
int leaked_objects(const graph *g, const unsigned char *reached,
                   const unsigned char *pointed, uint64_t top, rank *r);

#endif /* GRAPH_LEAKED_H */
