/* graph_query.h -- what every question about a dump's graph shares: the
 * options of the question, and the load they ask for. heapfmt-graph's
 * subcommands and heapfmt-report ask through it. */
#ifndef GRAPH_QUERY_H
#define GRAPH_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "diff_summary.h"
#include "graph.h"

/* dominators --by: heapfmt-diff's --by values. */
enum { GROUP_CLASS = DIFF_BY_CLASS, GROUP_SITE = DIFF_BY_SITE };

typedef struct graph_query {
    int format;             /* the front end's output format */
    uint64_t top;           /* most rows (objects, groups, owners); 0 all */
    int top_given;          /* -n was given */
    uint64_t npaths;        /* path: distinct paths per object */
    int weak;               /* weak references hold their targets too */
    int no_weak;            /* referrers: leave weak references out */
    int no_class_refs;      /* leave out each object's reference to its
                               class */
    unsigned by;            /* dominators: 0 objects, else GROUP_* bits */
    const char *const *classes; /* referrers --class names */
    size_t nclasses;
    int objects;            /* leaked: one row per object */
    const char *temp_dir;   /* dominators: the external-memory path
                               (extmem.h) with its files there; NULL:
                               in memory */
    const diff_mem *mem;    /* NULL: malloc */
    an_ctx *ctx;            /* failures, warnings, progress (status.h) */
} graph_query;

/* What graph_query_load keeps (graph_options). */
enum {
    LOAD_WEAK = 1u,    /* weak references */
    LOAD_LABELS = 2u,  /* labels of the references */
    LOAD_INDEX = 4u,   /* the id index */
    LOAD_OBJECTS = 8u, /* ids, sizes and kinds */
    LOAD_TARGET_IDS = 16u /* references as their targets' ids, unresolved */
};

/* Loads a dump for a question, with a progress line on a terminal;
 * weak references are kept with q->weak (or LOAD_WEAK), each object's
 * reference to its class unless q->no_class_refs. Returns the load's
 * status (graph_load). */
int graph_query_load(graph *g, const char *path, const graph_query *q,
                     unsigned keep);

/* Warnings about what the graph left out (dangling references,
 * duplicate ids), through g->ctx. */
void graph_query_warn(const graph *g);

#endif /* GRAPH_QUERY_H */
