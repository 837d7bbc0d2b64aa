/* graph.h -- a dump's reference graph in memory, for heapfmt-graph.
 *
 * Nodes are dense numbers: the objects 0 .. nobjects-1 in file order, then
 * one node per ROOT record (nobjects .. nnodes-1), then the virtual root
 * (graph_vroot) whose successors are the root nodes. Edges are a CSR:
 * the successors of node v are dst[off[v] .. off[v+1]). A reference to an
 * id that is not in the dump (a lost block, an object the producer did
 * not write) is counted in `dangling` and left out: never guessed.
 *
 * Per object: 8 bytes of id, 8 of size, 4 of kind (class, type, site),
 * 4 of edge offset, plus 4 per reference (and 4 more per reference when
 * labels are kept). With class_refs, an object's class is one of its
 * references (labeled GRAPH_LABEL_CLASS), when the class's object is in
 * the dump. Loading holds the references as 8-byte ids until
 * they are resolved to node numbers in place, with an id index of 5 to
 * 10 bytes per object (id_index.h). Without keep_objects, only the
 * offsets and edges stay (ids are dropped once resolved): what the
 * dominator tree needs, for the least peak memory; graph_reread then
 * brings the rest. With target_ids, the references stay ids, for an
 * answer about a few given ids (referrers of 30 million objects took a
 * quarter more time resolving every reference first). */
#ifndef GRAPH_GRAPH_H
#define GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "dump_read.h"
#include "cli_names.h"
#include "diff_mem.h"
#include "id_index.h"
#include "tuples.h"

/* The most objects plus roots a graph holds: node numbers are 32-bit and
 * the virtual root and "none" need two of them. */
#define GRAPH_MAX_NODES (UINT32_MAX - 2u)
/* The most references: edge offsets are 32-bit. */
#define GRAPH_MAX_EDGES (UINT32_MAX - 1u)
#define GRAPH_NONE UINT32_MAX

/* A stored label: kind (enum heapfmt_label_kind) in the top 3 bits, the
 * weak flag, and 28 bits of value: a string slot of the reader, or an
 * index. An index that does not fit is kept in a side table. 0 is "no
 * label". */
#define GRAPH_LABEL_KIND_SHIFT 29
#define GRAPH_LABEL_WEAK (1u << 28)
#define GRAPH_LABEL_VALUE_MAX ((1u << 28) - 1u)
/* The kind of the reference of an object to its class, which the graph
 * adds (graph_load.c): 7 is reserved in the format (a record with it is
 * corrupt), so no label read from a dump has it. */
#define GRAPH_LABEL_KIND_CLASS 7u
#define GRAPH_LABEL_CLASS (GRAPH_LABEL_KIND_CLASS << GRAPH_LABEL_KIND_SHIFT)

typedef struct graph_options {
    int keep_weak;    /* keep weak references as edges (else drop them) */
    int class_refs;   /* add each object's reference to its class */
    int keep_labels;  /* keep each edge's label (for printing) */
    int keep_index;   /* keep the id index after loading (graph_find) */
    int keep_objects; /* keep id, size and kind of each object; without,
                         only the references are kept (graph_reread
                         fills them in later, for less peak memory) */
    int target_ids;   /* leave each reference as its target's id
                         (target_id, no dst): no id index is built and
                         nothing is resolved, so dangling references and
                         duplicate ids go uncounted. For answers that only
                         compare targets with given ids. */
    int progress;     /* report progress through ctx's hooks */
    const diff_mem *mem;
    an_ctx *ctx;      /* failures and warnings (status.h); may be NULL */
} graph_options;

typedef struct graph_big_index {
    uint32_t edge;
    uint64_t index;
} graph_big_index;

/* The label of one hop of a path, read again from the dump for a graph
 * that kept no labels (graph_hops.c): the first reference of `from` to `to`,
 * or its class edge. */
typedef struct graph_hop {
    uint32_t from, to;
    uint32_t kind;     /* as graph_label's */
    int weak;
    uint64_t index;
    char *name;        /* a copy, len bytes; NULL when none */
    size_t name_len;
} graph_hop;

typedef struct graph {
    const diff_mem *mem;
    an_dump d;             /* kept open: its tables name classes, strings
                              (closed between a first read without
                              objects and labels and graph_reread) */
    an_ctx *ctx;           /* graph_options' */
    heapfmt_allocator alloc; /* the reader's view of mem */
    uint32_t nobjects;
    uint32_t nroots;
    uint32_t nnodes;       /* nobjects + nroots; the virtual root's number */
    uint64_t *id;          /* [nobjects] */
    uint64_t *size;        /* [nobjects] */
    uint32_t *kind;        /* [nobjects] a number of kinds */
    tuples kinds;          /* (class slot, type slot, file slot + 1, line) */
    uint32_t *root_kind;   /* [nroots] string slot of the ROOT's kind */
    uint32_t *off;         /* [nnodes + 1] */
    uint32_t *dst;         /* [nedges]; NULL with target_ids */
    uint64_t *target_id;   /* [nedges] with target_ids: each target's id */
    uint32_t *label;       /* [nedges], or NULL: no labels kept */
    graph_big_index *big;  /* index labels above GRAPH_LABEL_VALUE_MAX */
    size_t nbig, capbig;
    size_t nedges;
    id_index index;        /* id -> node, when id_index_built */
    uint64_t bytes;        /* sum of object sizes */
    uint64_t dangling;     /* references to ids not in the dump */
    uint64_t weak_dropped; /* weak references left out (keep_weak = 0) */
    uint64_t duplicates;   /* objects whose id an earlier one has */
    uint64_t class_edges;  /* references to classes added (class_refs) */
    unsigned char *class_bits; /* [nobjects / 8 + 1] bit v: object v's last
                                  edge is its class edge; NULL when none */
    uint32_t *names;       /* string ids graph_reread keeps, ascending */
    size_t nnames;
    graph_hop *hops;       /* without labels: the hops read again, sorted by
                              (from, to); an "edge" is then an index here */
    size_t nhops;
    int labeled;           /* the dump has labeled references */
    int status;            /* AN_OK or AN_INCOMPLETE */
} graph;

/* Reads the dump at path ("-" is standard input) into g; reading
 * warnings go to opt->ctx. Returns AN_OK, AN_INCOMPLETE (g holds what
 * could be read), or AN_ERROR (g empty; the message on opt->ctx). g must
 * be freed with graph_free in every case. */
int graph_load(graph *g, const char *path, const graph_options *opt);

void graph_free(graph *g);

/* The virtual root, whose successors are the root nodes. */
static inline uint32_t graph_vroot(const graph *g)
{
    return g->nnodes;
}

static inline int graph_is_root(const graph *g, uint32_t v)
{
    return v >= g->nobjects && v < g->nnodes;
}

/* Reads the dump at path again, the one loaded without keep_objects,
 * and fills in id, size and kind of every object, names from this read.
 * Loaded without keep_objects and keep_labels, the first read kept no
 * string (heapfmt_reader_options keep_string: a V8 import's property
 * names were 8 bytes an object) and closed its reader at its end; this
 * one keeps the names the first used: of classes, types, files and root
 * kinds. For a file only. Returns the status as graph_load does (on g->ctx), and
 * AN_ERROR when the file no longer holds the same objects. */
int graph_reread(graph *g, const char *path);

/* Finds the object with this id; returns 1 and stores it, or 0. Uses the
 * id index when kept, else looks through every object. */
int graph_find(const graph *g, uint64_t id, uint32_t *node);

/* Builds the id index again (after keep_index = 0). Returns 0 or -1. */
int graph_index_build(graph *g);
void graph_index_drop(graph *g);

/* Each object's class slot (the reader's), kept while a graph without
 * kinds loads, in as few bytes as the largest slot met needs: 1 (a V8
 * import has 141 classes), 2 (heapfmt-gen's 500, most Ruby heaps), 4;
 * the array widens when a slot does not fit. At the load's peak it was
 * 4 bytes an object. */
typedef struct graph_class_slots {
    void *a;        /* n entries of width bytes */
    size_t cap;     /* entries */
    unsigned width; /* 1, 2 or 4; 0 before the first */
} graph_class_slots;

static inline uint32_t graph_class_slot(const graph_class_slots *c,
                                        uint32_t v)
{
    if (c->width == 1)
        return ((const uint8_t *)c->a)[v];
    if (c->width == 2)
        return ((const uint16_t *)c->a)[v];
    return ((const uint32_t *)c->a)[v];
}

/* Stores slot s of object n (objects 0 .. n-1 stored before). Returns 0
 * or -1 (no memory). */
int graph_class_slot_set(const diff_mem *m, graph_class_slots *c, size_t n,
                         uint32_t s);
void graph_class_slots_free(const diff_mem *m, graph_class_slots *c);

/* Adds each object's reference to its class as its last edge (graph_load.c,
 * graph_class_edges.c): to a resolved graph, before its id index is dropped,
 * or to one with target_ids. cls: each object's class slot, or NULL to
 * take it from its kind; labels: give them labels (GRAPH_LABEL_CLASS).
 * Returns 0, -1 (no memory) or -2 (too many references). */
int graph_add_class_edges(graph *g, const graph_class_slots *cls, int labels);

/* Frees the edges (successors and labels), keeping the nodes. */
void graph_drop_edges(graph *g);

/* The label of edge e, decoded; kind HEAPFMT_LABEL_NONE when none,
 * GRAPH_LABEL_KIND_CLASS (name "(class)") for an object's class. In a
 * graph without labels but with hops, e is the index of a hop. */
typedef struct graph_label {
    uint32_t kind;
    int weak;
    uint64_t index;
    const char *name; /* never NULL */
    size_t name_len;
} graph_label;

void graph_edge_label(const graph *g, size_t e, graph_label *out);

/* Whether object v's last edge is its reference to its class (kept
 * without labels too). */
static inline int graph_has_class_edge(const graph *g, uint32_t v)
{
    return g->class_bits != NULL && v < g->nobjects &&
           (g->class_bits[v / 8] >> (v % 8) & 1u);
}

/* Whether edge e is an object's reference to its class (labels kept). */
static inline int graph_edge_is_class(const graph *g, size_t e)
{
    return g->label != NULL &&
           g->label[e] >> GRAPH_LABEL_KIND_SHIFT == GRAPH_LABEL_KIND_CLASS;
}

/* Reads the labels of the hops (from, to) of hops[0..n) again from the
 * dump at path, which the graph was loaded from without labels and has
 * its ids again (graph_reread): each hop's label is that of the first
 * reference of `from` to `to` (weak ones only when keep_weak), or
 * "(class)" when there is none (the class edge). Takes hops (sorted by
 * from, then to; no repeats), to free with the graph. Returns AN_OK
 * or AN_INCOMPLETE, else AN_ERROR with the message on g->ctx (no memory,
 * the file changed). */
int graph_hop_labels(graph *g, const char *path, graph_hop *hops, size_t n,
                     int keep_weak);

/* The index of hop (from, to) in g->hops, or GRAPH_NONE. */
uint32_t graph_hop_find(const graph *g, uint32_t from, uint32_t to);

/* Class, type and site of object v (v < nobjects). */
typedef struct graph_kind_text {
    const char *klass;
    size_t klass_len;
    const char *type; /* "" when none */
    size_t type_len;
    const char *file; /* NULL when no site */
    size_t file_len;
    uint64_t line;
    cli_name buf;
} graph_kind_text;

void graph_kind_text_of(const graph *g, uint32_t kind, graph_kind_text *out);

/* The kind text of a ROOT node's record. */
const char *graph_root_kind(const graph *g, uint32_t v, size_t *len);

/* The text of a label: a field, global or constant name as recorded,
 * "[12]" for an index, "[key]" for a hash key, any other description as
 * recorded; " (weak)" after a weak one. Written into buf (NUL-terminated,
 * cut to fit); returns its length, 0 for an edge without label. */
size_t graph_label_text(const graph *g, size_t edge, char *buf, size_t cap);

/* The source node of edge e (binary search of the offsets). */
uint32_t graph_edge_source(const graph *g, size_t e);

#endif /* GRAPH_GRAPH_H */
