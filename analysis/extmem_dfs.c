/* extmem_dfs.c -- the depth-first numbering of dominators --temp-dir.
 *
 * Why shaped so: domtree.c keeps vertex, parent and an edge cursor per
 * preorder number resident (12 B/object) because the walk goes back up
 * through them. Here the walk is a stack of frames (node, where its list
 * resumes: 8 bytes), and only the preorder number of each node stays
 * resident (4 B/object), beside the compressed lists (extmem_graph.c):
 * the vertex and the parent of each preorder number are written out in
 * preorder and never read here. A heap can be one chain as long as
 * itself (a linked list of 100M nodes: a stack of 800 MB), so the stack
 * is a ring of frames (XDFS_RING, 32 MiB) whose older half goes to a file when it
 * is full and comes back when the ring empties: the file is used as a
 * stack, written and read by halves, never at random. The order is
 * domtree.c's (number()): successors in list order, a node numbered when
 * first reached. */
#include <string.h>

#include "extmem.h"

typedef struct frame {
    uint32_t v;   /* node, or the virtual root */
    uint32_t rel; /* bytes of its list read; the virtual root: roots */
} frame;

int extmem_number(extmem *x, const xgraph *g, const char *name, size_t ring_n,
                  uint32_t **pre_out, xfile *vertex, xfile *parent,
                  uint32_t *nout)
{
    const diff_mem *m = x->mem;
    uint32_t vroot = g->nnodes;
    uint32_t *pre = diff_mem_alloc(m, ((size_t)vroot + 1) * sizeof *pre);
    if (ring_n < 2)
        ring_n = 2;
    ring_n &= ~(size_t)1;
    frame *ring = diff_mem_alloc(m, ring_n * sizeof *ring);
    xfile spill;
    memset(&spill, 0, sizeof spill);
    spill.fd = -1;
    *pre_out = pre;
    int rc = AN_ERROR;
    if (pre == NULL || ring == NULL) {
        an_no_memory(x->ctx, name);
        goto out;
    }
    if (xfile_open(&spill, x, "stack", 64) != 0)
        goto out;
    for (size_t v = 0; v <= vroot; v++)
        pre[v] = GRAPH_NONE;
    uint32_t n = 0, zero = 0;
    pre[vroot] = n++;
    if (xfile_put(vertex, &vroot, 4) != 0 || xfile_put(parent, &zero, 4) != 0)
        goto io;
    size_t top = 0;
    ring[top++] = (frame){vroot, 0};
    for (;;) {
        if (top == 0) {
            if (spill.size == 0)
                break;
            /* the older half comes back */
            size_t k = ring_n / 2;
            if (spill.size / sizeof *ring < k)
                k = (size_t)(spill.size / sizeof *ring);
            if (xfile_pop_raw(&spill, ring, k * sizeof *ring) != 0) {
                rc = xfile_error(&spill);
                goto out;
            }
            top = k;
        }
        frame *f = &ring[top - 1];
        uint32_t next = GRAPH_NONE;
        if (f->v == vroot) {
            if (f->rel < g->nroots)
                next = g->nobjects + f->rel++;
        } else {
            uint64_t at = xg_start(g, f->v) + f->rel;
            if (at < xg_start(g, f->v + 1)) {
                const unsigned char *p = g->bytes + at;
                next = xzz_decode(f->v, xvar_get(&p));
                f->rel = (uint32_t)(p - g->bytes - xg_start(g, f->v));
            }
        }
        if (next == GRAPH_NONE) {
            top--;
            continue;
        }
        if (pre[next] != GRAPH_NONE)
            continue;
        uint32_t up = pre[f->v];
        pre[next] = n++;
        if (xfile_put(vertex, &next, 4) != 0 ||
            xfile_put(parent, &up, 4) != 0)
            goto io;
        if (top == ring_n) {
            /* the older half goes out; the frames there no longer move */
            if (xfile_push_raw(&spill, ring, ring_n / 2 * sizeof *ring) !=
                0) {
                rc = xfile_error(&spill);
                goto out;
            }
            memmove(ring, ring + ring_n / 2,
                    ring_n / 2 * sizeof *ring);
            top = ring_n / 2;
        }
        ring[top++] = (frame){next, 0};
    }
    if (xfile_flush(vertex) != 0 || xfile_flush(parent) != 0)
        goto io;
    *nout = n;
    rc = AN_OK;
    goto out;
io:
    rc = xfile_error(vertex->err != 0 ? vertex : parent);
out:
    diff_mem_free(m, ring);
    xfile_close(&spill);
    return rc;
}
