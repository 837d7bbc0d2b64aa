/* graph_names.c -- the text of a graph's kinds, root kinds and edge
 * labels, from the reader's tables (final names: read after the whole dump). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_search.h"
#include "graph.h"

void graph_kind_text_of(const graph *g, uint32_t kind, graph_kind_text *out)
{
    const tuple *k = tuples_get(&g->kinds, kind);
    heapfmt_reader *r = g->d.reader;
    out->klass = cli_class_name(heapfmt_reader_class(r, k->klass), &out->buf,
                                &out->klass_len);
    const heapfmt_rstring *t = heapfmt_reader_string(r, k->type);
    out->type = t->ptr;
    out->type_len = t->len;
    out->file = NULL;
    out->file_len = 0;
    out->line = 0;
    if (k->file != 0) {
        const heapfmt_rstring *f = heapfmt_reader_string(r, tuple_slot_of_file(k));
        out->file = f->ptr;
        out->file_len = f->len;
        out->line = k->line;
    }
}

const char *graph_root_kind(const graph *g, uint32_t v, size_t *len)
{
    const heapfmt_rstring *s =
        heapfmt_reader_string(g->d.reader, g->root_kind[v - g->nobjects]);
    *len = s->len;
    return s->ptr;
}

/* The index of a big index label (edge numbers are sorted). */
static uint64_t big_index(const graph *g, size_t e)
{
    size_t lo;
    CLI_LOWER_BOUND(lo, g->nbig, i, g->big[i].edge < e);
    return lo < g->nbig && g->big[lo].edge == e ? g->big[lo].index
                                                : GRAPH_LABEL_VALUE_MAX;
}

void graph_edge_label(const graph *g, size_t e, graph_label *out)
{
    memset(out, 0, sizeof *out);
    out->name = "";
    if (g->label == NULL && e < g->nhops) {
        const graph_hop *h = &g->hops[e];
        out->kind = h->kind;
        out->weak = h->weak;
        out->index = h->index;
        if (h->kind == GRAPH_LABEL_KIND_CLASS) {
            out->name = "(class)";
            out->name_len = 7;
        } else if (h->name != NULL) {
            out->name = h->name;
            out->name_len = h->name_len;
        }
        return;
    }
    if (g->label == NULL)
        return;
    uint32_t code = g->label[e];
    uint32_t value = code & GRAPH_LABEL_VALUE_MAX;
    out->kind = code >> GRAPH_LABEL_KIND_SHIFT;
    out->weak = (code & GRAPH_LABEL_WEAK) != 0;
    if (out->kind == GRAPH_LABEL_KIND_CLASS) {
        out->name = "(class)";
        out->name_len = 7;
    } else if (out->kind == HEAPFMT_LABEL_INDEX) {
        out->index = value == GRAPH_LABEL_VALUE_MAX ? big_index(g, e) : value;
    } else if (out->kind != HEAPFMT_LABEL_NONE) {
        const heapfmt_rstring *s = heapfmt_reader_string(g->d.reader, value);
        out->name = s->ptr;
        out->name_len = s->len;
    }
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

size_t graph_label_text(const graph *g, size_t edge, char *buf, size_t cap)
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

uint32_t graph_edge_source(const graph *g, size_t e)
{
    /* The last node whose edges start at or before e: nodes without
     * edges share their offset with the next, which has e. */
    size_t after;
    CLI_LOWER_BOUND(after, g->nnodes, i, g->off[i] <= e);
    return after > 0 ? (uint32_t)(after - 1) : 0;
}
