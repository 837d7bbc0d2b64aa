/*
 * test_graph_dom.c -- heapfmt-graph's dominator tree (Semi-NCA) checked
 * against the textbook iterative data-flow definition on thousands of
 * random graphs and on crafted shapes: cycles, self-loops, unreachable
 * objects, several roots, diamonds, a ten-million-object chain, class
 * edges (taken apart when the edges are dropped); and the retained
 * sizes, rollups, top-N ranking and shortest paths built on it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domtree.h"
#include "shortest_paths.h"
#include "rank.h"
#include "tio.h"

/* A graph built by hand: nobjects objects, nroots root nodes, edges given
 * as (source node, target node) pairs. */
typedef struct tgraph {
    graph g;
} tgraph;

static void tgraph_build(graph *g, uint32_t nobjects, uint32_t nroots,
                         const uint32_t (*edges)[2], size_t nedges,
                         const uint64_t *sizes)
{
    memset(g, 0, sizeof *g);
    g->nobjects = nobjects;
    g->nroots = nroots;
    g->nnodes = nobjects + nroots;
    g->size = calloc(nobjects ? nobjects : 1, sizeof *g->size);
    g->id = calloc(nobjects ? nobjects : 1, sizeof *g->id);
    g->kind = calloc(nobjects ? nobjects : 1, sizeof *g->kind);
    g->off = calloc((size_t)g->nnodes + 1, sizeof *g->off);
    g->dst = calloc(nedges ? nedges : 1, sizeof *g->dst);
    cr_assert(g->size && g->id && g->kind && g->off && g->dst);
    for (uint32_t v = 0; v < nobjects; v++) {
        g->size[v] = sizes ? sizes[v] : 1;
        g->id[v] = 0x1000 + 40ull * v;
    }
    /* Counting sort of the edges by source. */
    uint32_t *count = calloc((size_t)g->nnodes + 1, sizeof *count);
    for (size_t i = 0; i < nedges; i++)
        count[edges[i][0] + 1]++;
    for (uint32_t v = 0; v < g->nnodes; v++)
        count[v + 1] += count[v];
    memcpy(g->off, count, ((size_t)g->nnodes + 1) * sizeof *count);
    for (size_t i = 0; i < nedges; i++)
        g->dst[count[edges[i][0]]++] = edges[i][1];
    g->nedges = nedges;
    tuples_init(&g->kinds, NULL, 1000);
    free(count);
}

/* Marks the last edge of about half the objects that have edges as
 * their class edge (graph.h), as graph_load.c does for the class references. */
static void tgraph_classes(graph *g, tprng *r)
{
    g->class_bits = calloc((size_t)g->nobjects / 8 + 1, 1);
    cr_assert(g->class_bits);
    for (uint32_t v = 0; v < g->nobjects; v++)
        if (g->off[v + 1] > g->off[v] && tprng_below(r, 2)) {
            g->class_bits[v / 8] |= (unsigned char)(1u << (v % 8));
            g->class_edges++;
        }
}

static void tgraph_free(graph *g)
{
    free(g->class_bits);
    free(g->size);
    free(g->id);
    free(g->kind);
    free(g->off);
    free(g->dst);
    tuples_free(&g->kinds);
}

/* ---- the reference: Dom(v) = {v} + intersection of Dom(preds) ---- */

#define MAXN 96 /* nodes, the virtual root included */
typedef struct bits {
    uint64_t w[(MAXN + 63) / 64];
} bits;

static int has(const bits *b, uint32_t i)
{
    return (b->w[i / 64] >> (i % 64)) & 1;
}

/* ref_idom[v] for every node (virtual root = nnodes): the immediate
 * dominator, nnodes for the root nodes... and GRAPH_NONE when
 * unreachable. ref_retained[v]: sizes of the nodes v dominates. */
static void reference(const graph *g, uint32_t *ref_idom,
                      uint64_t *ref_retained)
{
    uint32_t n = g->nnodes + 1, vroot = g->nnodes;
    cr_assert(n <= MAXN);
    static bits dom[MAXN];
    int reach[MAXN] = {0};
    /* Reachability. */
    uint32_t stack[MAXN * 4], ns = 0;
    reach[vroot] = 1;
    for (uint32_t r = g->nobjects; r < g->nnodes; r++)
        if (!reach[r]) {
            reach[r] = 1;
            stack[ns++] = r;
        }
    while (ns > 0) {
        uint32_t u = stack[--ns];
        for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++)
            if (!reach[g->dst[e]]) {
                reach[g->dst[e]] = 1;
                stack[ns++] = g->dst[e];
            }
    }
    for (uint32_t v = 0; v < n; v++) {
        memset(&dom[v], 0, sizeof dom[v]);
        if (v == vroot)
            dom[v].w[v / 64] |= 1ull << (v % 64);
        else
            memset(&dom[v], 0xff, sizeof dom[v]);
    }
    int changed = 1;
    while (changed) {
        changed = 0;
        for (uint32_t v = 0; v < g->nnodes; v++) {
            if (!reach[v])
                continue;
            bits b;
            memset(&b, 0xff, sizeof b);
            /* Predecessors: the virtual root for a root node, and every
             * reachable node with an edge to v. */
            if (v >= g->nobjects)
                for (size_t k = 0; k < sizeof b.w / 8; k++)
                    b.w[k] &= dom[vroot].w[k];
            for (uint32_t u = 0; u < g->nnodes; u++) {
                if (!reach[u])
                    continue;
                for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++)
                    if (g->dst[e] == v)
                        for (size_t k = 0; k < sizeof b.w / 8; k++)
                            b.w[k] &= dom[u].w[k];
            }
            b.w[v / 64] |= 1ull << (v % 64);
            if (memcmp(&b, &dom[v], sizeof b) != 0) {
                dom[v] = b;
                changed = 1;
            }
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        ref_retained[v] = 0;
        ref_idom[v] = GRAPH_NONE;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (!reach[v])
            continue;
        /* The immediate dominator: the strict dominator that all the
         * others dominate, i.e. the one with the most dominators. */
        int best = -1;
        uint32_t bestv = GRAPH_NONE;
        for (uint32_t d = 0; d < n; d++) {
            if (d == v || !has(&dom[v], d))
                continue;
            int c = 0;
            for (uint32_t k = 0; k < n; k++)
                c += has(&dom[d], k);
            if (c > best) {
                best = c;
                bestv = d;
            }
        }
        ref_idom[v] = v == vroot ? vroot : bestv;
        for (uint32_t d = 0; d < n; d++)
            if (has(&dom[v], d) && v < g->nobjects)
                ref_retained[d] += g->size[v];
    }
}

/* Checks dom_build on g against the reference; with drop, the way the
 * dominators command runs it (edges renumbered in place, then freed). */
static void check(graph *g, const char *what, int drop)
{
    uint32_t ref_idom[MAXN];
    uint64_t ref_ret[MAXN];
    reference(g, ref_idom, ref_ret);
    dom_tree t;
    cr_assert_eq(dom_build(g, &t, drop), 0);
    cr_assert_eq(dom_retained(g, &t), 0);
    uint32_t *pre = dom_numbers(g, &t);
    cr_assert(pre != NULL);
    uint64_t unreachable = 0;
    for (uint32_t v = 0; v <= g->nnodes; v++) {
        if (ref_idom[v] == GRAPH_NONE) {
            cr_assert_eq(pre[v], GRAPH_NONE, "%s: node %u unreachable", what,
                         v);
            unreachable += v < g->nobjects;
            continue;
        }
        cr_assert_neq(pre[v], GRAPH_NONE, "%s: node %u reachable", what, v);
        uint32_t got = t.vertex[t.idom[pre[v]]];
        cr_assert_eq(got, ref_idom[v], "%s: idom(%u) = %u, expected %u", what,
                     v, got, ref_idom[v]);
        cr_assert_eq(t.retained[pre[v]], ref_ret[v],
                     "%s: retained(%u) = %llu, expected %llu", what, v,
                     (unsigned long long)t.retained[pre[v]],
                     (unsigned long long)ref_ret[v]);
        /* A dominator always has the smaller preorder number. */
        if (pre[v] != 0)
            cr_assert_lt(t.idom[pre[v]], pre[v]);
    }
    cr_assert_eq(t.unreachable, unreachable, "%s", what);
    free(pre);
    dom_free(&t);
}

Test(graph_dom, random_graphs_match_the_reference)
{
    tprng r;
    tprng_seed(&r, 20261124);
    static uint32_t edges[2000][2];
    uint64_t sizes[MAXN];
    for (int iter = 0; iter < 3000; iter++) {
        uint32_t nobjects = 1 + (uint32_t)tprng_below(&r, 60);
        uint32_t nroots = 1 + (uint32_t)tprng_below(&r, 4);
        uint32_t nnodes = nobjects + nroots;
        /* Sparse to dense: from ~1 edge per node to ~6. */
        size_t nedges = (size_t)tprng_below(&r, nnodes * (1 + iter % 6));
        for (size_t i = 0; i < nedges; i++) {
            edges[i][0] = (uint32_t)tprng_below(&r, nnodes);
            edges[i][1] = (uint32_t)tprng_below(&r, nobjects);
        }
        for (uint32_t v = 0; v < nobjects; v++)
            sizes[v] = 1 + tprng_below(&r, 1000);
        graph g;
        tgraph_build(&g, nobjects, nroots, (const uint32_t (*)[2])edges,
                     nedges, sizes);
        /* dominators alone (drop) takes the class edges apart */
        if (iter % 4 == 3)
            tgraph_classes(&g, &r);
        char what[64];
        snprintf(what, sizeof what, "random graph %d", iter);
        check(&g, what, iter % 2);
        tgraph_free(&g);
    }
}

Test(graph_dom, crafted_shapes)
{
    /* objects 0..5, root node 6 (and 7 where two roots). */
    static const uint32_t diamond[][2] = {{6, 0}, {0, 1}, {0, 2}, {1, 3},
                                          {2, 3}, {3, 4}};
    static const uint32_t cycle[][2] = {{6, 0}, {0, 1}, {1, 2}, {2, 0},
                                        {2, 3}, {3, 3}};
    static const uint32_t two_roots[][2] = {{6, 0}, {7, 1}, {0, 2}, {1, 2},
                                            {2, 3}};
    static const uint32_t unreachable[][2] = {{6, 0}, {1, 2}, {2, 1},
                                              {1, 0}};
    static const uint32_t self_loops[][2] = {{6, 6}, {6, 0}, {0, 0}, {0, 1},
                                             {1, 1}};
    static const uint32_t irreducible[][2] = {{6, 0}, {0, 1}, {0, 2},
                                              {1, 2}, {2, 1}, {1, 3},
                                              {2, 3}};
    struct {
        const char *name;
        const uint32_t (*e)[2];
        size_t n;
        uint32_t nroots;
    } cases[] = {
        {"diamond", diamond, 6, 1},
        {"cycle", cycle, 6, 1},
        {"two roots", two_roots, 5, 2},
        {"unreachable", unreachable, 4, 1},
        {"self-loops", self_loops, 5, 1},
        {"irreducible", irreducible, 7, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        graph g;
        tgraph_build(&g, 6, cases[i].nroots, cases[i].e, cases[i].n, NULL);
        check(&g, cases[i].name, 0);
        tgraph_free(&g);
    }
}

Test(graph_dom, diamond_has_known_answers)
{
    /* root -> 0 -> {1, 2} -> 3: 0 dominates all, 3's idom is 0. */
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 3}};
    uint64_t sizes[] = {10, 20, 30, 40};
    graph g;
    tgraph_build(&g, 4, 1, e, 5, sizes);
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 1), 0);
    cr_assert_eq(dom_retained(&g, &t), 0);
    cr_assert_null(g.dst, "drop_edges frees the edges");
    uint32_t *pre = dom_numbers(&g, &t);
    cr_assert_eq(t.vertex[t.idom[pre[3]]], 0u);
    cr_assert_eq(t.retained[pre[0]], 100u);
    cr_assert_eq(t.retained[pre[1]], 20u);
    cr_assert_eq(t.retained[pre[3]], 40u);
    cr_assert_eq(t.retained[0], 100u, "the virtual root retains all");
    free(pre);
    dom_free(&t);
    g.dst = NULL;
    tgraph_free(&g);
}

Test(graph_dom, ten_million_chain_needs_no_recursion, .timeout = 120)
{
    /* root -> 0 -> 1 -> ... -> n-1: each dominates the rest; the deepest
     * DFS and the longest path compression a heap can have. */
    const uint32_t n = 10000000;
    graph g;
    memset(&g, 0, sizeof g);
    g.nobjects = n;
    g.nroots = 1;
    g.nnodes = n + 1;
    g.size = malloc((size_t)n * sizeof *g.size);
    g.off = malloc(((size_t)n + 2) * sizeof *g.off);
    g.dst = malloc((size_t)n * sizeof *g.dst);
    cr_assert(g.size && g.off && g.dst);
    /* Object v's one edge (to v + 1) is edge v; the last object has
     * none; the root node's edge (to object 0) is edge n - 1. */
    for (uint32_t v = 0; v < n; v++) {
        g.size[v] = 40;
        g.off[v] = v;
        g.dst[v] = v + 1;
    }
    g.off[n] = n - 1;
    g.off[n + 1] = n;
    g.dst[n - 1] = 0;
    g.nedges = n;
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 0), 0);
    cr_assert_eq(dom_retained(&g, &t), 0);
    cr_assert_eq(t.n, n + 2, "every object, the root node and the virtual root");
    cr_assert_eq(t.unreachable, 0u);
    /* Preorder is the chain order: idom of p is p - 1. */
    for (uint32_t p = 1; p < t.n; p++)
        cr_assert_eq(t.idom[p], p - 1, "idom(%u)", p);
    cr_assert_eq(t.retained[2], 40ull * n, "object 0 retains the chain");
    cr_assert_eq(t.retained[t.n - 1], 40u);
    paths p;
    cr_assert_eq(paths_build(&g, &p), 0);
    cr_assert_eq(p.dist[n - 1], n + 1u, "the root node is 1, object k is k + 2");
    paths_free(&p);
    dom_free(&t);
    free(g.size);
    free(g.off);
    free(g.dst);
}

Test(graph_rank, keeps_the_largest_in_order)
{
    rank r;
    cr_assert_eq(rank_init(&r, NULL, 5), 0);
    tprng p;
    tprng_seed(&p, 7);
    uint64_t keys[1000];
    for (uint32_t i = 0; i < 1000; i++) {
        keys[i] = tprng_below(&p, 300); /* ties on purpose */
        rank_add(&r, keys[i], i);
    }
    size_t n = rank_sort(&r);
    cr_assert_eq(n, 5u);
    /* The expected five: largest key, then smallest index among ties. */
    for (size_t k = 0; k < 5; k++) {
        uint64_t bk = 0;
        uint32_t bi = UINT32_MAX;
        for (uint32_t i = 0; i < 1000; i++) {
            int taken = 0;
            for (size_t j = 0; j < k; j++)
                taken |= r.v[j].value == i;
            if (taken)
                continue;
            if (bi == UINT32_MAX || keys[i] > bk) {
                bk = keys[i];
                bi = i;
            }
        }
        cr_assert_eq(r.v[k].key, bk);
        cr_assert_eq(r.v[k].value, bi);
    }
    rank_free(&r);
}

Test(graph_paths, shortest_path_prefers_fewer_hops)
{
    /* root -> 0 -> 1 -> 2 -> 3 and root -> 4 -> 3: 3 is two hops away. */
    static const uint32_t e[][2] = {{5, 0}, {0, 1}, {1, 2}, {2, 3},
                                    {5, 4}, {4, 3}};
    graph g;
    tgraph_build(&g, 5, 1, e, 6, NULL);
    paths p;
    cr_assert_eq(paths_build(&g, &p), 0);
    uint32_t *nodes, *edges;
    long n = paths_to(&g, &p, 3, &nodes, &edges);
    cr_assert_eq(n, 3);
    cr_assert_eq(nodes[0], 5u);
    cr_assert_eq(nodes[1], 4u);
    cr_assert_eq(nodes[2], 3u);
    cr_assert_eq(edges[0], GRAPH_NONE);
    cr_assert_eq(g.dst[edges[2]], 3u);
    free(nodes);
    free(edges);
    paths_free(&p);
    tgraph_free(&g);
}
