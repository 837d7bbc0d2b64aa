/* extmem_graph.c -- the compressed successor lists of dominators
 * --temp-dir, resident while the depth-first numbering and the bucket
 * pass read them.
 *
 * Why resident and compressed: the depth-first walk jumps through the
 * lists in an order no cache predicts, and a random read of the disk
 * costs 240 us (docs/performance.md), so the lists must be in memory; as
 * graph.h's CSR they take 4 B/reference + 4 B/node (16 B/object at 2.97
 * references an object). As zigzag varints of each target's distance to
 * its referrer (extmem.h), in file order (the walk's order must be the
 * in-memory path's, so the lists are not sorted), they take 1.3-2.5
 * B/reference (bench/csr_size.py measured 1.46 with sorted differences on
 * heapfmt-gen), and each node's start is a 16-bit offset from a 64-bit
 * base per 64 nodes: 2.13 B/node (a block whose lists take 64 KiB or
 * more keeps 64-bit starts on the side). */
#include <string.h>

#include "cli_search.h"
#include "extmem.h"

static int read_all(xfile *f, unsigned char *p, uint64_t n)
{
    if (xfile_rewind(f) != 0)
        return -1;
    while (n > 0) {
        size_t k = n > (1u << 30) ? (1u << 30) : (size_t)n;
        if (xfile_get(f, p, k) != 0)
            return -1;
        p += k;
        n -= k;
    }
    return 0;
}

/* The next varint of a length file; -1 on a failure. */
static int next_len(xfile *f, uint64_t *v)
{
    uint64_t x = 0;
    unsigned s = 0;
    for (;;) {
        unsigned char b;
        if (xfile_get(f, &b, 1) != 0 || s > 63)
            return -1;
        x |= (uint64_t)(b & 0x7f) << s;
        if (b < 0x80)
            break;
        s += 7;
    }
    *v = x;
    return 0;
}

int xgraph_build(xgraph *g, extmem *x, xfile *succ, xfile *len,
                 xfile *root_succ, xfile *root_len, const char *name)
{
    const diff_mem *m = x->mem;
    if (xfile_flush(succ) != 0)
        return xfile_error(succ);
    if (xfile_flush(root_succ) != 0)
        return xfile_error(root_succ);
    uint64_t nobj = succ->size;
    g->nbytes = nobj + root_succ->size;
    size_t nblocks = ((size_t)g->nnodes >> XG_BLOCK_BITS) + 1;
    g->bytes = diff_mem_alloc(m, g->nbytes ? (size_t)g->nbytes : 1);
    g->base = diff_mem_alloc(m, nblocks * sizeof *g->base);
    g->rel = diff_mem_alloc(m, ((size_t)g->nnodes + 1) * sizeof *g->rel);
    if (g->bytes == NULL || g->base == NULL || g->rel == NULL)
        goto nomem;
    if (read_all(succ, g->bytes, nobj) != 0)
        return xfile_error(succ);
    xfile_close(succ);
    if (read_all(root_succ, g->bytes + nobj, root_succ->size) != 0)
        return xfile_error(root_succ);
    xfile_close(root_succ);
    if (xfile_rewind(len) != 0)
        return xfile_error(len);
    if (xfile_rewind(root_len) != 0)
        return xfile_error(root_len);
    /* block by block: the starts of its nodes, then narrow or wide */
    uint64_t pos = 0, start[XG_BLOCK];
    for (uint32_t b = 0; b < nblocks; b++) {
        uint32_t first = b << XG_BLOCK_BITS, k = 0;
        for (; k < XG_BLOCK && first + k <= g->nnodes; k++) {
            uint32_t v = first + k;
            start[k] = pos;
            if (v == g->nnodes)
                break;
            uint64_t n;
            xfile *f = v < g->nobjects ? len : root_len;
            if (next_len(f, &n) != 0)
                return xfile_error(f);
            pos += n;
        }
        if (k < XG_BLOCK && first + k <= g->nnodes)
            k++; /* the end entry, v == nnodes */
        g->base[b] = start[0];
        int wide = start[k - 1] - start[0] >= XG_WIDE;
        for (uint32_t i = 0; i < k; i++)
            g->rel[first + i] = wide ? XG_WIDE
                                     : (uint16_t)(start[i] - start[0]);
        if (!wide)
            continue;
        if (diff_mem_reserve(m, (void **)&g->wide, &g->cap_wide, g->nwide + 1,
                             sizeof *g->wide) != 0 ||
            diff_mem_reserve(m, (void **)&g->wide_start, &g->cap_wide_start,
                             (g->nwide + 1) * XG_BLOCK,
                             sizeof *g->wide_start) != 0)
            goto nomem;
        memcpy(g->wide_start + g->nwide * XG_BLOCK, start,
               k * sizeof *start);
        g->wide[g->nwide++] = b;
    }
    xfile_close(len);
    xfile_close(root_len);
    if (pos != g->nbytes) {
        an_fail(x->ctx, AN_ERROR, name, "temporary files out of step");
        return AN_ERROR;
    }
    return 0;
nomem:
    return an_no_memory(x->ctx, name);
}

uint64_t xg_wide_start(const xgraph *g, uint32_t v)
{
    /* the last wide block at or before v's */
    uint32_t b = v >> XG_BLOCK_BITS;
    size_t after;
    CLI_LOWER_BOUND(after, g->nwide, i, g->wide[i] <= b);
    size_t lo = after > 0 ? after - 1 : 0;
    return g->wide_start[lo * XG_BLOCK + (v & (XG_BLOCK - 1))];
}

int xgraph_empty(xgraph *g, const diff_mem *m, an_ctx *ctx,
                 const char *name)
{
    memset(g, 0, sizeof *g);
    g->bytes = diff_mem_alloc(m, 1);
    g->base = diff_mem_alloc(m, sizeof *g->base);
    g->rel = diff_mem_alloc(m, sizeof *g->rel);
    if (g->bytes == NULL || g->base == NULL || g->rel == NULL) {
        an_no_memory(ctx, name);
        return -1;
    }
    g->base[0] = 0;
    g->rel[0] = 0;
    return 0;
}

void xgraph_free(xgraph *g, const diff_mem *m)
{
    diff_mem_free(m, g->bytes);
    diff_mem_free(m, g->base);
    diff_mem_free(m, g->rel);
    diff_mem_free(m, g->wide);
    diff_mem_free(m, g->wide_start);
    memset(g, 0, sizeof *g);
}
