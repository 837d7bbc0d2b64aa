/* node.c -- the cells that describe a node and an edge. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "diff_summary.h" /* DIFF_BY_CLASS, DIFF_BY_SITE */

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

size_t node_group_columns(unsigned by, const char *const *tail, size_t n,
                          const char **cols)
{
    size_t k = 0;
    if (by & DIFF_BY_CLASS)
        cols[k++] = "class";
    if (by & DIFF_BY_SITE)
        cols[k++] = "site";
    for (size_t i = 0; i < n; i++)
        cols[k++] = tail[i];
    return k;
}

void node_via_cell(out *o, const graph *g, size_t edge)
{
    char buf[512];
    size_t n = graph_label_text(g, edge, buf, sizeof buf);
    if (n == 0)
        out_null(o);
    else
        out_text(o, buf, n);
}
