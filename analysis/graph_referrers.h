/* graph_referrers.h -- the references to given objects, or to every
 * object of given classes: the work of heapfmt-graph referrers, apart
 * from its printing. */
#ifndef GRAPH_REFERRERS_H
#define GRAPH_REFERRERS_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Called for each reference e to target, in edge order; a nonzero
 * return stops the walk. */
typedef int (*graph_referrer_fn)(void *ctx, uint32_t target, size_t e);

/* Walks the references to the object id (node t): compared by id when
 * the graph kept its references as ids (target_ids), else by node.
 * Returns the number of references visited. */
uint64_t graph_referrers_of(const graph *g, uint64_t id, uint32_t t,
                            graph_referrer_fn visit, void *ctx);

/* Walks the references to every object whose kind is flagged in want
 * (a graph with resolved references). Returns the number visited. */
uint64_t graph_referrers_of_kinds(const graph *g, const unsigned char *want,
                                  graph_referrer_fn visit, void *ctx);

/* The kinds whose class is one of the n names: a flag per kind,
 * allocated (diff_mem_free with g->mem), or NULL (no memory). */
unsigned char *graph_class_kinds(const graph *g, const char *const *names,
                                 size_t n);

#endif /* GRAPH_REFERRERS_H */
