/* node.c -- the cells that describe a node and an edge. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "summary.h" /* DIFF_BY_CLASS, DIFF_BY_SITE */

void node_cells(out *o, const graph *g, uint32_t v)
{
    if (v >= g->nobjects) {
        out_null(o);
        if (v == graph_vroot(g)) {
            out_text(o, "(roots)", 7);
            out_null(o);
        } else {
            size_t len;
            const char *k = graph_root_kind(g, v, &len);
            out_text(o, "(root)", 6);
            out_text(o, k, len);
        }
        out_null(o);
        out_null(o);
        return;
    }
    graph_kind_text t;
    graph_kind_text_of(g, g->kind[v], &t);
    out_id(o, g->id[v]);
    out_text(o, t.klass, t.klass_len);
    if (t.type_len > 0)
        out_text(o, t.type, t.type_len);
    else
        out_null(o);
    out_u64(o, g->size[v]);
    out_site(o, t.file, t.file_len, t.line);
}

/* Appends len bytes to buf at *n, cut to fit. */
static void append(char *buf, size_t cap, size_t *n, const char *s,
                   size_t len)
{
    if (*n + 1 >= cap)
        return;
    if (len > cap - 1 - *n)
        len = cap - 1 - *n;
    memcpy(buf + *n, s, len);
    *n += len;
    buf[*n] = '\0';
}

void node_group_cells(out *o, const graph *g, const tuple *k, unsigned by)
{
    heapfmt_reader *rd = g->d.reader;
    if (by & DIFF_BY_CLASS) {
        cli_name buf;
        size_t len;
        const char *name =
            cli_class_name(heapfmt_reader_class(rd, k->klass), &buf, &len);
        out_text(o, name, len);
    }
    if (by & DIFF_BY_SITE) {
        if (k->file == 0) {
            out_null(o);
        } else {
            const heapfmt_rstring *f =
                heapfmt_reader_string(rd, tuple_slot_of_file(k));
            out_site(o, f->ptr, f->len, k->line);
        }
    }
}

size_t node_label_text(const graph *g, size_t edge, char *buf, size_t cap)
{
    graph_label l;
    size_t n = 0;
    buf[0] = '\0';
    if (edge == GRAPH_NONE)
        return 0;
    graph_edge_label(g, edge, &l);
    switch (l.kind) {
    case HEAPFMT_LABEL_NONE:
        break;
    case HEAPFMT_LABEL_INDEX: {
        char num[32];
        int k = snprintf(num, sizeof num, "[%" PRIu64 "]", l.index);
        append(buf, cap, &n, num, (size_t)k);
        break;
    }
    case HEAPFMT_LABEL_KEY:
        append(buf, cap, &n, "[", 1);
        append(buf, cap, &n, l.name, l.name_len);
        append(buf, cap, &n, "]", 1);
        break;
    default:
        append(buf, cap, &n, l.name, l.name_len);
    }
    if (l.weak)
        append(buf, cap, &n, n ? " (weak)" : "(weak)", n ? 7 : 6);
    return n;
}

void node_via_cell(out *o, const graph *g, size_t edge)
{
    char buf[512];
    size_t n = node_label_text(g, edge, buf, sizeof buf);
    if (n == 0)
        out_null(o);
    else
        out_text(o, buf, n);
}

uint32_t node_edge_source(const graph *g, size_t e)
{
    /* The last node whose edges start at or before e: nodes without
     * edges share their offset with the next, which has e. */
    size_t lo = 0, hi = g->nnodes;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}
