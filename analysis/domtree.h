/* domtree.h -- the dominator tree of a graph and the retained size of each
 * object.
 *
 * An object d dominates v when every path from the roots to v goes
 * through d; the immediate dominator is the closest such d. Freeing an
 * object frees everything it dominates, so its retained size is its own
 * size plus that of the objects it dominates (Eclipse MAT's meaning; not
 * heapfmt-diff's objects "retained across three dumps").
 *
 * The tree is computed by the Semi-NCA algorithm (Georgiadis 2005; used
 * by LLVM): a depth-first numbering, semidominators by path-compressing
 * evaluation in reverse preorder, then nearest common ancestors in
 * preorder. Near-linear in time, iterative everywhere (a chain of ten
 * million objects needs no deep recursion), and indexed by preorder
 * number so that a dominator always has a smaller number than the nodes
 * it dominates. Nodes that no root reaches are not in the tree. */
#ifndef GRAPH_DOMTREE_H
#define GRAPH_DOMTREE_H

#include <stdint.h>

#include "graph.h"

typedef struct dom_tree {
    const diff_mem *mem;
    uint32_t n;          /* reachable nodes, the virtual root included */
    uint32_t *vertex;    /* [n] preorder number -> graph node; 0 is the
                            virtual root */
    uint32_t *idom;      /* [n] preorder number of the immediate
                            dominator; idom[0] = 0 */
    uint64_t *retained;  /* [n] retained size in bytes */
    uint64_t unreachable;       /* objects no root reaches */
    uint64_t unreachable_bytes; /* and their size */
} dom_tree;

/* Computes the tree of g (vertex and idom; retained is NULL). With
 * drop_edges, frees g's edges as soon as they are no longer needed (less
 * peak memory; g then has no edges, and class edges are taken apart first
 * so that the edges and the predecessors never both hold them: 4 bytes
 * per object less at the peak). g needs no ids, sizes or kinds.
 * Returns 0, or -1 when memory runs out (t is then empty). */
int dom_build(graph *g, dom_tree *t, int drop_edges);

/* Computes the retained sizes and the unreachable counts from g's sizes.
 * Returns 0 or -1 (no memory). */
int dom_retained(const graph *g, dom_tree *t);

/* The preorder number of each graph node (GRAPH_NONE when unreachable),
 * an array of g->nnodes + 1 to free with diff_mem_free(t->mem, ...), or NULL
 * when memory runs out. */
uint32_t *dom_numbers(const graph *g, const dom_tree *t);

void dom_free(dom_tree *t);

/* The path dom_eval compresses, kept between calls (it grows to the
 * longest path met); free node with diff_mem_free(mem, ...). */
typedef struct dom_path {
    const diff_mem *mem;
    uint32_t *node;
    size_t cap;
} dom_path;

/* Semi-NCA's evaluation, for domtree.c and the external-memory build
 * (extmem_semi.c), by preorder number: the node of least semidominator
 * on the path from v up to (not including) the first ancestor numbered
 * below last, compressing that path (anc: the DFS parent, then the
 * compressed ancestor; label: the node of least semi on the compressed
 * part). Returns GRAPH_NONE when memory runs out. Inline: it is the
 * inner loop of the semidominator pass. */
static inline uint32_t dom_eval(uint32_t *anc, uint32_t *label,
                                const uint32_t *semi, dom_path *path,
                                uint32_t v, uint32_t last)
{
    if (anc[v] < last)
        return label[v];
    uint32_t x = v;
    size_t n = 0;
    do {
        if (n == path->cap &&
            diff_mem_reserve(path->mem, (void **)&path->node, &path->cap,
                             n + 1, sizeof *path->node) != 0)
            return GRAPH_NONE;
        path->node[n++] = x;
        x = anc[x];
    } while (anc[x] >= last);
    uint32_t p = x, plabel = label[p];
    do {
        x = path->node[--n];
        anc[x] = anc[p];
        if (semi[plabel] < semi[label[x]])
            label[x] = plabel;
        else
            plabel = label[x];
        p = x;
    } while (n > 0);
    return label[x];
}

#endif /* GRAPH_DOMTREE_H */
