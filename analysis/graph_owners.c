/* graph_owners.c -- who holds the leak of three dumps D1 D2 D3 (the
 * engine of heapfmt-graph owners and of heapfmt-report's leak section).
 *
 * The leaked objects are those heapfmt-diff finds with three dumps: new in
 * D2, still alive in D3. In D3's dominator tree, each one's owner is its
 * nearest dominator outside that set: the object (or root) whose freeing
 * would free it, and which is not itself part of the leak. Owners are
 * ranked by the leaked bytes they hold, each shown with its shortest path
 * from a root. Weak references hold nothing and are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"
#include "cli_search.h"
#include "diff.h"
#include "domtree.h"
#include "graph_owners.h"
#include "rank.h"

typedef struct held {
    uint32_t owner; /* preorder number */
    uint32_t node;  /* the leaked object's preorder number */
} held;

/* The ids heapfmt-diff reports as retained across the three dumps,
 * sorted. Returns the status of the diff; *ids is NULL on error. */
static int leaked_ids(const graph_query *opt, char *const *args,
                      uint64_t **ids, size_t *n)
{
    diff_options dopt = DIFF_OPTIONS_INIT;
    dopt.list = 1;
    dopt.mem = opt->mem;
    dopt.ctx = opt->ctx;
    diff_result res;
    int rc = diff_compute((const char *const *)args, 3, &dopt, &res);
    *ids = NULL;
    *n = 0;
    if (rc == AN_OK || rc == AN_INCOMPLETE) {
        notes_say(&res.warnings, opt->ctx);
        size_t count = res.items.n;
        *ids = diff_mem_alloc(opt->mem, (count ? count : 1) * sizeof **ids);
        if (*ids == NULL) {
            rc = an_no_memory(opt->ctx, NULL);
        } else {
            for (size_t i = 0; i < count; i++)
                (*ids)[i] = res.items.v[i].id;
            *n = count;
        }
    }
    diff_result_free(&res);
    return rc;
}

static int held_cmp(const void *a, const void *b)
{
    const held *x = a, *y = b;
    return (x->owner > y->owner) - (x->owner < y->owner);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A flag per graph node: the leaked objects in D3, each id marking its
 * first object (as an id lookup finds it). ids are sorted here. Returns
 * the flags and their count, or NULL (no memory). */
static unsigned char *mark_leaked(const graph *g, uint64_t *ids, size_t nids,
                                  size_t *nleaked)
{
    const diff_mem *m = g->mem;
    unsigned char *leaked = diff_mem_alloc(m, (size_t)g->nnodes + 1);
    unsigned char *taken = diff_mem_alloc(m, nids / 8 + 1);
    if (leaked == NULL || taken == NULL) {
        diff_mem_free(m, leaked);
        diff_mem_free(m, taken);
        return NULL;
    }
    memset(leaked, 0, (size_t)g->nnodes + 1);
    memset(taken, 0, nids / 8 + 1);
    qsort(ids, nids, sizeof *ids, u64_cmp);
    *nleaked = 0;
    for (uint32_t v = 0; v < g->nobjects && nids > 0; v++) {
        size_t at;
        CLI_LOWER_BOUND(at, nids, i, ids[i] < g->id[v]);
        if (at < nids && ids[at] == g->id[v] && !(taken[at / 8] >> at % 8 & 1)) {
            taken[at / 8] |= (unsigned char)(1u << at % 8);
            leaked[v] = 1;
            ++*nleaked;
        }
    }
    diff_mem_free(m, taken);
    return leaked;
}

/* Pairs each reachable leaked object with its owner. Turns t->idom into
 * each node's owner (the tree is used for nothing else after). Returns
 * the pairs sorted by owner, or NULL (no memory; *n is then SIZE_MAX). */
static held *owners_of(const graph *g, dom_tree *t, uint64_t *ids,
                       size_t nids, size_t *n, uint64_t *unreachable)
{
    const diff_mem *m = g->mem;
    size_t nleaked = 0;
    unsigned char *leaked = mark_leaked(g, ids, nids, &nleaked);
    held *h = NULL;
    *n = SIZE_MAX;
    if (leaked == NULL)
        return NULL;
    h = diff_mem_alloc(m, (nleaked ? nleaked : 1) * sizeof *h);
    if (h == NULL)
        goto out;
    /* A dominator comes first in preorder: one forward pass, each idom
     * replaced by the owner once read. */
    size_t k = 0;
    uint32_t *owner = t->idom;
    owner[0] = 0;
    for (uint32_t p = 1; p < t->n; p++) {
        uint32_t d = owner[p];
        owner[p] = leaked[t->vertex[d]] ? owner[d] : d;
        if (leaked[t->vertex[p]])
            h[k++] = (held){owner[p], p};
    }
    *unreachable = nleaked - k;
    qsort(h, k, sizeof *h, held_cmp);
    *n = k;
out:
    diff_mem_free(m, leaked);
    return h;
}

/* Sums the pairs by owner and keeps the top owners in res. Returns 0 or
 * -1 (no memory). */
static int rank_owners(owners_result *res, const held *h, size_t n,
                       uint64_t top)
{
    const graph *g = &res->g;
    const dom_tree *t = &res->t;
    owner_sum *sums = diff_mem_alloc(g->mem, (n ? n : 1) * sizeof *sums);
    rank r = {0};
    int rc = -1;
    if (top == 0 || top > n)
        top = n;
    if (sums == NULL || rank_init(&r, g->mem, (size_t)(top ? top : 1)) != 0)
        goto out;
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (ns == 0 || sums[ns - 1].owner != h[i].owner)
            sums[ns++] = (owner_sum){h[i].owner, 0, 0};
        sums[ns - 1].objects++;
        sums[ns - 1].bytes += g->size[t->vertex[h[i].node]];
    }
    for (size_t i = 0; i < ns; i++)
        rank_add(&r, sums[i].bytes, (uint32_t)i);
    size_t nr = rank_sort(&r);
    res->top = diff_mem_alloc(g->mem, (nr ? nr : 1) * sizeof *res->top);
    if (res->top == NULL)
        goto out;
    for (size_t i = 0; i < nr; i++)
        res->top[i] = sums[r.v[i].value];
    res->ntop = nr;
    rc = 0;
out:
    rank_free(&r);
    diff_mem_free(g->mem, sums);
    return rc;
}

static int hop_cmp(const void *a, const void *b)
{
    const graph_hop *x = a, *y = b;
    if (x->from != y->from)
        return (x->from > y->from) - (x->from < y->from);
    return (x->to > y->to) - (x->to < y->to);
}

/* Reads the labels of the hops on the top owners' paths again (the graph
 * kept none). Returns the status of the read. */
static int label_paths(owners_result *res, const char *path, int keep_weak)
{
    graph *g = &res->g;
    const uint32_t *from = res->p.pedge;
    size_t n = 0, cap = 0;
    graph_hop *hops = NULL;
    for (size_t i = 0; i < res->ntop; i++) {
        for (uint32_t v = res->t.vertex[res->top[i].owner];
             v < g->nobjects && from[v] != GRAPH_NONE; v = from[v]) {
            if (diff_mem_reserve(g->mem, (void **)&hops, &cap, n + 1,
                                 sizeof *hops) != 0) {
                diff_mem_free(g->mem, hops);
                return an_no_memory(g->ctx, g->d.name);
            }
            hops[n++] = (graph_hop){.from = from[v], .to = v};
        }
    }
    if (n > 0)
        qsort(hops, n, sizeof *hops, hop_cmp);
    size_t k = 0; /* paths share their first hops */
    for (size_t i = 0; i < n; i++)
        if (k == 0 || hop_cmp(&hops[k - 1], &hops[i]) != 0)
            hops[k++] = hops[i];
    return graph_hop_labels(g, path, hops, k, keep_weak);
}

/* D3's graph, built for the least peak memory: the edges alone are
 * loaded; the shortest paths are kept as each node's predecessor and the
 * dominator tree is built dropping the edges; then the objects are read
 * again, and at the end the labels of the few hops printed. Returns the
 * status, the failure on opt->ctx. */
static int build(owners_result *res, const graph_query *opt, const char *path)
{
    graph *g = &res->g;
    /* The diff's spare pages go back: the load grows its arrays from
     * nothing and would not take them, so they would add to its peak
     * (a fifth of it at a million objects). */
    diff_mem_trim(opt->mem);
    int rc = graph_query_load(g, path, opt, 0);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    if (paths_build(g, &res->p) != 0 || paths_detach(g, &res->p) != 0 ||
        dom_build(g, &res->t, 1) != 0)
        return an_no_memory(opt->ctx, g->d.name);
    return an_worse(rc, graph_reread(g, path));
}

int owners_compute(const graph_query *opt, char *const *args, uint64_t top,
                   owners_result *res)
{
    memset(res, 0, sizeof *res);
    res->g.mem = opt->mem;
    res->g.d.fd = -1; /* not loaded: owners_free closes nothing */
    uint64_t *ids;
    size_t nids;
    int rc = leaked_ids(opt, args, &ids, &nids);
    if (ids == NULL)
        return rc;
    res->nleaked = nids;
    graph *g = &res->g;
    int lrc = build(res, opt, args[2]);
    rc = an_worse(rc, lrc);
    if (lrc != AN_OK && lrc != AN_INCOMPLETE) {
        diff_mem_free(opt->mem, ids);
        return rc;
    }
    size_t n = SIZE_MAX;
    uint64_t unreachable = 0;
    held *h = owners_of(g, &res->t, ids, nids, &n, &unreachable);
    int failed = h == NULL;
    diff_mem_free(opt->mem, ids);
    if (!failed && unreachable > 0)
        an_note(opt->ctx, g->d.name,
                "%s of the leaked objects are not reachable from any root "
                "(garbage not yet collected) and have no owner",
                cli_fmt_count(unreachable).s);
    if (!failed && nids == 0)
        an_warn(opt->ctx, NULL,
                "no object is new in %s and still alive in %s: "
                "nothing leaked",
                args[1], args[2]);
    if (!failed)
        failed = rank_owners(res, h, n, top) != 0;
    diff_mem_free(opt->mem, h);
    if (failed)
        return an_no_memory(opt->ctx, g->d.name);
    return an_worse(rc, label_paths(res, args[2], opt->weak));
}

void owners_free(owners_result *res)
{
    diff_mem_free(res->g.mem, res->top);
    res->top = NULL;
    paths_free(&res->p);
    dom_free(&res->t);
    graph_free(&res->g);
}
