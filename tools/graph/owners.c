/* owners.c -- heapfmt-graph owners D1 D2 D3: who holds the leak.
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

#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cmd.h"
#include "diff.h"
#include "dom.h"
#include "node.h"
#include "owners.h"
#include "rank.h"

#define DEFAULT_TOP 10

static const char *const columns[] = {"owner", "leaked_objects",
                                      "leaked_bytes", "hop", "via",
                                      NODE_COLUMNS};
#define NCOLUMNS (5 + NODE_NCOLUMNS)

typedef struct held {
    uint32_t owner; /* preorder number */
    uint32_t node;  /* the leaked object's preorder number */
} held;

/* The ids heapfmt-diff reports as retained across the three dumps,
 * sorted. Returns the exit code of the diff; *ids is NULL on error. */
static int leaked_ids(const cmd_options *opt, char *const *args,
                      uint64_t **ids, size_t *n)
{
    diff_options dopt = DIFF_OPTIONS_INIT;
    dopt.list = 1;
    dopt.mem = opt->mem;
    diff_result res;
    int rc = diff_compute((const char *const *)args, 3, &dopt, &res);
    *ids = NULL;
    *n = 0;
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        notes_print(&res.warnings);
        size_t count = res.items.n;
        *ids = diff_mem_alloc(opt->mem, (count ? count : 1) * sizeof **ids);
        if (*ids == NULL) {
            cli_error(NULL, "out of memory");
            rc = CLI_EXIT_ERROR;
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

/* Marks the leaked objects in D3 (a flag per graph node) and pairs each
 * reachable one with its owner. Returns the pairs sorted by owner, or NULL
 * (no memory; *n is then SIZE_MAX). */
static held *owners_of(const graph *g, const dom_tree *t, const uint64_t *ids,
                       size_t nids, size_t *n, uint64_t *unreachable)
{
    const diff_mem *m = g->mem;
    unsigned char *leaked = diff_mem_alloc(m, (size_t)g->nnodes + 1);
    uint32_t *owner = diff_mem_alloc(m, (size_t)t->n * sizeof *owner);
    held *h = NULL;
    *n = SIZE_MAX;
    if (leaked == NULL || owner == NULL)
        goto out;
    memset(leaked, 0, (size_t)g->nnodes + 1);
    size_t nleaked = 0;
    for (size_t i = 0; i < nids; i++) {
        uint32_t v;
        if (graph_find(g, ids[i], &v) && !leaked[v]) {
            leaked[v] = 1;
            nleaked++;
        }
    }
    h = diff_mem_alloc(m, (nleaked ? nleaked : 1) * sizeof *h);
    if (h == NULL)
        goto out;
    /* A dominator comes first in preorder: one forward pass. */
    size_t k = 0;
    owner[0] = 0;
    for (uint32_t p = 1; p < t->n; p++) {
        uint32_t d = t->idom[p];
        owner[p] = leaked[t->vertex[d]] ? owner[d] : d;
        if (leaked[t->vertex[p]])
            h[k++] = (held){owner[p], p};
    }
    *unreachable = nleaked - k;
    qsort(h, k, sizeof *h, held_cmp);
    *n = k;
out:
    diff_mem_free(m, leaked);
    diff_mem_free(m, owner);
    if (*n == SIZE_MAX) {
        diff_mem_free(m, h);
        h = NULL;
    }
    return h;
}

/* Prints the owner's path from a root (the owner itself last), each row
 * with the owner's rank and what it holds. Returns 0 or -1. */
static int print_owner(out *o, const graph *g, const paths *p, uint64_t rank_no,
                       uint32_t v, const owner_sum *s)
{
    uint32_t *nodes = NULL, *edges = NULL, vroot = graph_vroot(g);
    long n = 1;
    if (v != vroot) {
        n = paths_to(g, p, v, &nodes, &edges);
        if (n < 0)
            return -1;
    }
    for (long i = 0; i < n; i++) {
        out_u64(o, rank_no);
        out_u64(o, s->objects);
        out_u64(o, s->bytes);
        out_u64(o, (uint64_t)i);
        node_via_cell(o, g, nodes != NULL ? edges[i] : GRAPH_NONE);
        node_cells(o, g, nodes != NULL ? nodes[i] : vroot);
    }
    diff_mem_free(g->mem, nodes);
    diff_mem_free(g->mem, edges);
    return 0;
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
    if (sums == NULL || rank_init(&r, g->mem, (size_t)(top ? top : 1)) != 0 ||
        paths_build(g, &res->p) != 0)
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

int owners_compute(const cmd_options *opt, char *const *args, uint64_t top,
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
    int lrc = cmd_load(g, args[2], opt, LOAD_LABELS | LOAD_INDEX | LOAD_OBJECTS);
    rc = cmd_worse(rc, lrc);
    if (lrc != CLI_EXIT_OK && lrc != CLI_EXIT_INCOMPLETE) {
        diff_mem_free(opt->mem, ids);
        return rc;
    }
    size_t n = SIZE_MAX;
    uint64_t unreachable = 0;
    held *h = NULL;
    int failed = dom_build(g, &res->t, 0) != 0;
    if (!failed) {
        h = owners_of(g, &res->t, ids, nids, &n, &unreachable);
        failed = h == NULL;
    }
    if (!failed && unreachable > 0)
        cli_warn(g->d.name,
                 "%s of the leaked objects are not reachable from any root "
                 "(garbage not yet collected) and have no owner",
                 cli_fmt_count(unreachable).s);
    if (!failed && nids == 0)
        cli_warn(NULL, "no object is new in %s and still alive in %s: "
                       "nothing leaked",
                 args[1], args[2]);
    if (!failed)
        failed = rank_owners(res, h, n, top) != 0;
    if (failed) {
        cli_error(g->d.name, "out of memory");
        rc = CLI_EXIT_ERROR;
    }
    diff_mem_free(opt->mem, h);
    diff_mem_free(opt->mem, ids);
    return rc;
}

void owners_free(owners_result *res)
{
    diff_mem_free(res->g.mem, res->top);
    res->top = NULL;
    paths_free(&res->p);
    dom_free(&res->t);
    graph_free(&res->g);
}

int cmd_owners(const cmd_options *opt, char *const *args, int nargs)
{
    if (nargs != 3) {
        cli_usage_error("owners: expected three dumps D1 D2 D3");
        return CLI_EXIT_USAGE;
    }
    if (strcmp(args[2], "-") == 0) {
        cli_usage_error("owners: D3 is read twice and cannot be standard "
                        "input");
        return CLI_EXIT_USAGE;
    }
    if (strcmp(args[0], "-") == 0 && strcmp(args[1], "-") == 0) {
        cli_usage_error("standard input (-) can be only one of the dumps");
        return CLI_EXIT_USAGE;
    }
    owners_result res;
    int rc = owners_compute(opt, args, opt->top_given ? opt->top : DEFAULT_TOP,
                            &res);
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        out o;
        int failed = 0;
        out_begin(&o, stdout, opt->format, res.g.mem, NCOLUMNS, columns);
        for (size_t i = 0; i < res.ntop && !failed; i++)
            failed = print_owner(&o, &res.g, &res.p, i + 1,
                                 res.t.vertex[res.top[i].owner],
                                 &res.top[i]) != 0;
        if (out_finish(&o) != 0 || failed) {
            cli_error(res.g.d.name, "out of memory");
            rc = CLI_EXIT_ERROR;
        }
    }
    owners_free(&res);
    return rc;
}
