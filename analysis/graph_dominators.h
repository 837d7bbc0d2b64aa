/* graph_dominators.h -- the work of heapfmt-graph dominators, apart from
 * its printing, for it and heapfmt-report. */
#ifndef GRAPH_DOMINATORS_H
#define GRAPH_DOMINATORS_H

#include "domtree.h"
#include "graph.h"
#include "graph_query.h"

/* Loads the dump at path into g (objects, no edges) and computes its
 * dominator tree with retained sizes into t; warns about unreachable
 * objects (through opt->ctx). Returns AN_OK or AN_INCOMPLETE, else
 * AN_ERROR (the message on opt->ctx). g and t must be freed (graph_free,
 * dom_free) in every case. */
int dominators_tree(const graph_query *opt, const char *path, graph *g,
                    dom_tree *t);

/* The note both dominator paths give when n objects (bytes in all) are
 * reachable from no root; nothing when n is 0. */
void dominators_note_unreachable(an_ctx *ctx, const char *name, uint64_t n,
                                 uint64_t bytes);

#endif /* GRAPH_DOMINATORS_H */
