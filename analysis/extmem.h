/* extmem.h -- dominators of a heap larger than the machine: the parts of
 * the external-memory path (heapfmt-graph dominators --temp-dir).
 *
 * The in-memory path (graph_load.c, domtree.c) peaks at 46 B/object (4.5
 * GB for 100M objects, docs/performance.md, "Issue 39: a heap larger than
 * the machine"): every array of the computation is resident at once. This
 * path keeps resident only what is read in random order, phase by phase,
 * and sends the rest through files that are written once and read back
 * in order (the disk here does 4,176 random reads a second but 192-596
 * MB/s in streams):
 *
 *   extmem_load.c   two reads of the dump: the ids and their index, then
 *                   each object's references resolved into compressed
 *                   successor lists (written to a file as they come)
 *   extmem_graph.c  the compressed successor lists, resident for the walk
 *   extmem_dfs.c    the depth-first numbering, its stack spilled to a file
 *   extmem_semi.c   predecessor buckets on disk by preorder range, then
 *                   Semi-NCA bucket by bucket
 *   extmem_dominators.c  the phases in order, the sizes scattered by a
 *                   third read, the top objects named by a fourth
 *   extmem_file.c   the temporary files themselves
 *
 * The answer is the in-memory path's, byte for byte: the same preorder
 * (successors in file order, each object's class edge last, the roots in
 * file order), the same tree (a dominator tree is unique), the same ties
 * (by preorder number). */
#ifndef GRAPH_EXTMEM_H
#define GRAPH_EXTMEM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diff_mem.h"
#include "domtree.h"
#include "graph.h"
#include "graph_query.h"
#include "rollup.h"
#include "status.h"

/* ---- the temporary files (extmem_file.c) ---- */

/* What every phase shares: the memory, the directory, and the bytes the
 * files hold (now and at most), for the bench (HEAPFMT_EXTMEM_STATS). */
typedef struct extmem {
    const diff_mem *mem;
    an_ctx *ctx;        /* failures and notes (status.h) */
    const char *dir;
    uint64_t disk, disk_peak;
    int stats;          /* extmem_settings.stats */
} extmem;

/* A temporary file in x->dir that has no name (O_TMPFILE; where the
 * file system lacks it, unlinked as soon as it is open): a crash leaves
 * nothing behind. It is written through a buffer and read back in
 * order, or used as a stack (xfile_push_raw / xfile_pop_raw). The first
 * failure is kept in err (an errno) and makes every later call fail. */
typedef struct xfile {
    extmem *x;
    int fd;
    unsigned char *buf;
    size_t cap;      /* of buf */
    size_t len, pos; /* writing: len bytes waiting; reading: buf[pos..len) */
    uint64_t size;   /* bytes in the file */
    uint64_t off;    /* reading: where the next read starts */
    int reading;     /* buf holds bytes read, not bytes to write */
    int err;
} xfile;

#define XFILE_BUF (1u << 20)

/* Creates the file (unnamed, or "heapfmt-WHAT-XXXXXX" unlinked) with a buffer
 * of cap bytes. Returns 0, or -1 with the message on x->ctx. */
int xfile_open(xfile *f, extmem *x, const char *what, size_t cap);
void xfile_close(xfile *f);

/* Writes what is buffered. Returns 0 or -1 (f->err set). */
int xfile_flush(xfile *f);

/* xfile_put of more than the buffer holds. */
int xfile_put_big(xfile *f, const void *p, size_t n);

static inline int xfile_put(xfile *f, const void *p, size_t n)
{
    if (f->reading) { /* writing again: appends */
        f->reading = 0;
        f->len = f->pos = 0;
    }
    if (f->len + n > f->cap && xfile_flush(f) != 0)
        return -1;
    if (n > f->cap) /* larger than the buffer: straight through */
        return xfile_put_big(f, p, n);
    memcpy(f->buf + f->len, p, n);
    f->len += n;
    return 0;
}

/* Ends writing and reads from the start on. Returns 0 or -1. */
int xfile_rewind(xfile *f);

/* Reads n bytes. Returns 0, 1 at the end of the file (fewer bytes
 * left), -1 on an error (f->err). */
int xfile_get(xfile *f, void *p, size_t n);

/* The file as a stack of records: appends n bytes, or takes the last n
 * bytes off into p. No buffer. Return 0 or -1. */
int xfile_push_raw(xfile *f, const void *p, size_t n);
int xfile_pop_raw(xfile *f, void *p, size_t n);

/* Sets "cannot write or read a temporary file: REASON" about DIR on
 * f's context and returns AN_ERROR. */
int xfile_error(const xfile *f);

/* ---- varints: the successor lists' code ---- */

static inline size_t xvar_put(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

static inline uint64_t xvar_get(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    unsigned s = 0;
    for (;;) {
        unsigned char b = *p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (b < 0x80)
            break;
        s += 7;
    }
    *pp = p;
    return v;
}

/* A target as its distance from the source, zigzagged, or as its own
 * number when that is smaller (the low bit says which): most references
 * point near their referrer (id_index.h), so most take one or two bytes,
 * and the class edges, which point to the few class objects at the
 * start of a heap, take two instead of four at 100M objects. */
static inline uint64_t xzz_encode(uint32_t from, uint32_t to)
{
    int64_t d = (int64_t)to - (int64_t)from;
    uint64_t z = d >= 0 ? (uint64_t)d << 1 : ((uint64_t)(-d) << 1) - 1;
    return (uint64_t)to < z ? (uint64_t)to << 1 | 1 : z << 1;
}

static inline uint32_t xzz_decode(uint32_t from, uint64_t c)
{
    if (c & 1)
        return (uint32_t)(c >> 1);
    uint64_t z = c >> 1;
    int64_t d = (z & 1) ? -(int64_t)((z + 1) >> 1) : (int64_t)(z >> 1);
    return (uint32_t)((int64_t)from + d);
}

/* ---- the compressed successor lists (extmem_graph.c) ---- */

#define XG_BLOCK_BITS 6 /* nodes per 64-bit base */
#define XG_BLOCK (1u << XG_BLOCK_BITS)
#define XG_WIDE 0xFFFFu /* rel of a node of a wide block */

typedef struct xgraph {
    uint32_t nobjects, nroots;
    uint32_t nnodes;   /* nobjects + nroots; the virtual root's number */
    uint64_t nedges;   /* edges of the object and root nodes */
    unsigned char *bytes;
    uint64_t nbytes;
    uint64_t *base;    /* [nnodes / XG_BLOCK + 1] each block's start */
    uint16_t *rel;     /* [nnodes + 1] start of node v: base[v / XG_BLOCK]
                          + rel[v], or XG_WIDE: the block spans 64 KiB or
                          more, its starts are in wide_start */
    uint32_t *wide;    /* [nwide] the wide blocks, ascending */
    uint64_t *wide_start; /* [nwide * XG_BLOCK] their nodes' starts */
    size_t nwide, cap_wide, cap_wide_start;
} xgraph;

/* The start of a wide block's node: a binary search (rare: a block of
 * 64 nodes whose lists take 64 KiB). */
uint64_t xg_wide_start(const xgraph *g, uint32_t v);

static inline uint64_t xg_start(const xgraph *g, uint32_t v)
{
    uint16_t r = g->rel[v];
    return r != XG_WIDE ? g->base[v >> XG_BLOCK_BITS] + r
                        : xg_wide_start(g, v);
}

/* Builds g's lists from the files the load wrote: the objects' and the
 * roots' successor codes, and each node's code length (varints). The
 * files are closed. Returns 0 or AN_ERROR (the message on x->ctx). */
int xgraph_build(xgraph *g, extmem *x, xfile *succ, xfile *len,
                 xfile *root_succ, xfile *root_len, const char *name);
/* A graph of no node (a dump cut inside its header). Returns 0 or -1
 * (the message on ctx). */
int xgraph_empty(xgraph *g, const diff_mem *m, an_ctx *ctx,
                 const char *name);
void xgraph_free(xgraph *g, const diff_mem *m);

/* ---- the load (extmem_load.c) ---- */

/* Reads the dump at path twice into xg; meta receives what graph_load
 * counts (nobjects, nroots, nnodes, bytes, dangling, duplicates,
 * weak_dropped, class_edges) and keeps the first read's dump open for
 * names. Returns AN_OK or AN_INCOMPLETE, else AN_ERROR
 * (the message on the context). */
int extmem_load(extmem *x, const char *path, const graph_query *q,
                graph *meta, xgraph *xg);

/* ---- the depth-first numbering (extmem_dfs.c) ---- */

/* Numbers the nodes of g from the virtual root as domtree.c does:
 * pre[node] (nnodes + 1, GRAPH_NONE when unreachable) stays resident, the
 * vertex and the DFS parent of each preorder number go to the files
 * (4 bytes each, in preorder). *n: the reachable nodes. Returns 0 or
 * AN_ERROR (the message on x->ctx). */
int extmem_number(extmem *x, const xgraph *g, const char *name, size_t ring,
                  uint32_t **pre, xfile *vertex, xfile *parent, uint32_t *n);

/* The stack's ring by default: 4M frames, 32 MiB. */
#define XDFS_RING (1u << 22)

/* ---- semidominators and the tree (extmem_semi.c) ---- */

/* Writes the predecessors of every reachable node into buckets by
 * preorder range, then frees nothing; extmem_idom computes the immediate
 * dominators from the buckets and the parent file. */
#define XB_CELL_BITS 12 /* buckets are cut between cells of 4,096 */

typedef struct xbuckets {
    uint32_t n;        /* reachable nodes */
    uint32_t k;        /* buckets */
    uint32_t *lo;      /* [k + 1] each bucket's first preorder number */
    uint16_t *cell;    /* [n >> XB_CELL_BITS + 1] the bucket of a cell */
    uint64_t giant;    /* a target of more predecessors reads them from
                          a file of its own */
    xfile *file;       /* [k] pairs (target, source), preorder numbers */
    uint64_t edges;
} xbuckets;

int extmem_buckets(extmem *x, const xgraph *g, const uint32_t *pre,
                   uint32_t n, size_t budget, xbuckets *b, const char *name);
void extmem_buckets_free(extmem *x, xbuckets *b);

/* idom by preorder number (n entries, idom[0] = 0), into *idom. Returns 0
 * or a status (status.h; the message on the context). */
int extmem_idom(extmem *x, xbuckets *b, xfile *parent, uint32_t **idom,
                const char *name);

/* The kind of an object (class, type, site), as graph_load.c keys it. */
static inline tuple xkind_of(const heapfmt_robject *o)
{
    tuple k = {.klass = o->klass->slot, .type = o->type->slot};
    if (o->fields & HEAPFMT_F_SITE) {
        k.file = tuple_file_of_slot(o->file->slot);
        k.line = o->line;
    }
    return k;
}

/* ---- the whole computation (extmem_dominators.c) ---- */

/* The tree as the front end prints it: retained size and immediate
 * dominator by preorder number, resident; the vertex of each preorder
 * number in a file. */
typedef struct extmem_tree {
    extmem x;
    graph meta;          /* counts and names; no arrays */
    uint32_t n;
    uint32_t *idom;      /* [n] */
    uint64_t *retained;  /* [n] */
    xfile vertex;        /* [n] graph node by preorder number */
    xfile pre;           /* [nobjects] preorder number by object */
    uint64_t unreachable, unreachable_bytes;
} extmem_tree;

/* Where the files go and how the phases are sized. The front end fills
 * it (heapfmt-graph from --temp-dir and the HEAPFMT_EXTMEM_* variables):
 * the engine reads no environment. ring and bucket are testing knobs: a
 * smaller ring and bucket budget exercise the stack's spill and many
 * buckets on small graphs (tests/cli/graph_extmem.sh); stats adds a note
 * with the resident size after each phase and the files' bytes. */
typedef struct extmem_settings {
    const char *dir;
    size_t ring;   /* frames of the depth-first stack's ring */
    size_t bucket; /* bytes of predecessors a bucket holds in memory */
    int stats;
} extmem_settings;

#define XBUDGET ((size_t)256 << 20) /* extmem_settings.bucket's default */
#define EXTMEM_SETTINGS_INIT {NULL, XDFS_RING, XBUDGET, 0}

/* dominators_tree's work through files in s->dir. Returns AN_OK or
 * AN_INCOMPLETE, else AN_ERROR (the message on q->ctx). t must be
 * freed with extmem_tree_free in every case. */
int extmem_dominators(const graph_query *q, const char *path,
                      const extmem_settings *s, extmem_tree *t);

/* The top objects by retained size, as dominators prints them: a small
 * graph holding only those objects (id, size, kind; names from a read of
 * the dump at path), and per row its node in that graph and its retained
 * size. Returns 0, or a status (status.h; the message on the context). */
typedef struct extmem_top {
    graph g;             /* nobjects = rows; node i is row i's object */
    uint64_t *retained;  /* [rows] */
    size_t rows;
} extmem_top;

int extmem_top_objects(extmem_tree *t, const char *path, uint64_t top,
                       extmem_top *out);
void extmem_top_free(extmem_top *out);

/* dominators --by (class and/or site) of the tree: r as rollup_build
 * makes it, its rows sorted; names receives the read of the dump whose
 * slots the groups hold (for node_group_cells), to free with graph_free.
 * Frees t->idom. Resident at the peak: 20 B/object (children lists 8,
 * retained 8, group by preorder 4). Returns 0 or a status (the
 * message on t's context). */
int extmem_rollup(extmem_tree *t, const char *path, unsigned by, rollup *r,
                  graph *names);

void extmem_tree_free(extmem_tree *t);

/* In a second read of the dump, in step with pre (the preorder number of
 * each object, in the order of the first read): *p for the next OBJECT
 * record, *next counting them. Returns 0, 1 when the dump now holds more
 * objects than the first read found, 2 when pre could not be read. */
int extmem_next_pre(const extmem_tree *t, xfile *pre, uint32_t *next,
                    uint32_t *p);

#endif /* GRAPH_EXTMEM_H */
