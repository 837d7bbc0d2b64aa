/* node.c -- the cells that describe a node and an edge. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "diff_summary.h" /* DIFF_BY_CLASS, DIFF_BY_SITE */

void node_cells(cli_rows *o, const graph *g, uint32_t v)
{
    if (v >= g->nobjects) {
        cli_rows_null(o);
        if (v == graph_vroot(g)) {
            cli_rows_text(o, "(roots)", 7);
            cli_rows_null(o);
        } else {
            size_t len;
            const char *k = graph_root_kind(g, v, &len);
            cli_rows_text(o, "(root)", 6);
            cli_rows_text(o, k, len);
        }
        cli_rows_null(o);
        cli_rows_null(o);
        return;
    }
    graph_kind_text t;
    graph_kind_text_of(g, g->kind[v], &t);
    cli_rows_id(o, g->id[v]);
    cli_rows_text(o, t.klass, t.klass_len);
    if (t.type_len > 0)
        cli_rows_text(o, t.type, t.type_len);
    else
        cli_rows_null(o);
    cli_rows_u64(o, g->size[v]);
    cli_rows_site(o, t.file, t.file_len, t.line);
}

void node_group_cells(cli_rows *o, const graph *g, const tuple *k, unsigned by)
{
    heapfmt_reader *rd = g->d.reader;
    if (by & DIFF_BY_CLASS) {
        cli_name buf;
        size_t len;
        const char *name =
            cli_class_name(heapfmt_reader_class(rd, k->klass), &buf, &len);
        cli_rows_text(o, name, len);
    }
    if (by & DIFF_BY_SITE) {
        if (k->file == 0) {
            cli_rows_null(o);
        } else {
            const heapfmt_rstring *f =
                heapfmt_reader_string(rd, tuple_slot_of_file(k));
            cli_rows_site(o, f->ptr, f->len, k->line);
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

void node_via_cell(cli_rows *o, const graph *g, size_t edge)
{
    char buf[512];
    size_t n = graph_label_text(g, edge, buf, sizeof buf);
    if (n == 0)
        cli_rows_null(o);
    else
        cli_rows_text(o, buf, n);
}
