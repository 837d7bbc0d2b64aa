/* graph_hops.c -- the labels of a few hops, read again from the dump.
 *
 * heapfmt-graph owners keeps no labels while it computes (4 bytes per
 * reference, a quarter of its peak memory) yet prints the label of each
 * hop of a few paths. A path's hop from u to v is the first edge of u
 * that reaches v (shortest_paths.h: u's references in order, its class
 * edge last), so its label is that of u's first reference whose target
 * has v's id, weak references left out as the load left them out; when
 * u has none, the hop is u's class edge. One more read of the dump finds
 * the records of the hops' sources; names are copied once the read has
 * ended (a reader's names are final only then). */
#include <string.h>

#include "cli_search.h"
#include "graph.h"

typedef struct relabel {
    graph *g;
    graph_hop *hops;  /* sorted by (from, to) */
    size_t n;
    uint32_t *slot;   /* [n] the name's string slot, until the end */
    uint32_t next;    /* the node number of the next OBJECT record */
    uint32_t nroots;  /* ROOT records seen */
    int keep_weak;
    int changed;
} relabel;

/* Labels the hops from node u, whose record was just read. */
static int label_from(relabel *rl, heapfmt_reader *r, uint32_t u,
                      int labeled)
{
    size_t at;
    CLI_LOWER_BOUND(at, rl->n, i, rl->hops[i].from < u);
    if (at == rl->n || rl->hops[at].from != u)
        return 0;
    const uint64_t *ids;
    long n = heapfmt_reader_refs(r, &ids);
    if (n < 0)
        return (int)n;
    const heapfmt_rlabel *labels = NULL;
    long nl = labeled && n > 0 ? heapfmt_reader_labels(r, &labels) : 0;
    if (nl < 0)
        return (int)nl;
    if (nl == 0)
        labels = NULL;
    for (size_t h = at; h < rl->n && rl->hops[h].from == u; h++) {
        graph_hop *hop = &rl->hops[h];
        uint64_t want = rl->g->id[hop->to];
        for (long i = 0; i < n; i++) {
            if (ids[i] != want ||
                (labels != NULL && labels[i].weak && !rl->keep_weak))
                continue;
            if (labels != NULL) {
                hop->kind = labels[i].kind;
                hop->weak = labels[i].weak != 0;
                hop->index = labels[i].index;
                if (hop->kind != HEAPFMT_LABEL_NONE &&
                    hop->kind != HEAPFMT_LABEL_INDEX)
                    rl->slot[h] = labels[i].name->slot;
            } else {
                hop->kind = HEAPFMT_LABEL_NONE;
            }
            break;
        }
    }
    return 0;
}

static int on_record(void *opaque, heapfmt_reader *r, const heapfmt_record *rec)
{
    relabel *rl = opaque;
    graph *g = rl->g;
    uint32_t u;
    int labeled;
    if (rec->tag == HEAPFMT_TAG_OBJECT) {
        if (rl->next >= g->nobjects || rec->u.object->id != g->id[rl->next]) {
            rl->changed = 1;
            return AN_ERROR;
        }
        u = rl->next++;
        labeled = (rec->u.object->fields & HEAPFMT_F_LABELS) != 0;
    } else if (rec->tag == HEAPFMT_TAG_ROOT) {
        if (rl->nroots >= g->nroots) {
            rl->changed = 1;
            return AN_ERROR;
        }
        u = g->nobjects + rl->nroots++;
        labeled = rec->u.root->labeled;
    } else {
        return 0;
    }
    int rc = label_from(rl, r, u, labeled);
    if (rc == HEAPFMT_E_CORRUPT)
        return 0; /* the scan reports the block, as the load did */
    if (rc != 0) {
        an_dump_fail(g->ctx, &g->d, rc);
        return AN_ERROR;
    }
    return 0;
}

/* Copies the names of the hops that have one from the reader's final
 * tables. Returns 0 or -1 (no memory). */
static int copy_names(relabel *rl, heapfmt_reader *r)
{
    for (size_t h = 0; h < rl->n; h++) {
        if (rl->slot[h] == UINT32_MAX)
            continue;
        const heapfmt_rstring *s = heapfmt_reader_string(r, rl->slot[h]);
        graph_hop *hop = &rl->hops[h];
        hop->name = diff_mem_alloc(rl->g->mem, s->len ? s->len : 1);
        if (hop->name == NULL)
            return -1;
        memcpy(hop->name, s->ptr, s->len);
        hop->name_len = s->len;
    }
    return 0;
}

int graph_hop_labels(graph *g, const char *path, graph_hop *hops, size_t n,
                     int keep_weak)
{
    g->hops = hops;
    g->nhops = n;
    if (n == 0)
        return AN_OK;
    for (size_t h = 0; h < n; h++) { /* no reference found: the class */
        hops[h].kind = GRAPH_LABEL_KIND_CLASS;
        hops[h].weak = 0;
        hops[h].index = 0;
        hops[h].name = NULL;
        hops[h].name_len = 0;
    }
    relabel rl = {g, hops, n, NULL, 0, 0, keep_weak, 0};
    rl.slot = diff_mem_alloc(g->mem, n * sizeof *rl.slot);
    if (rl.slot == NULL)
        return an_no_memory(g->ctx, g->d.name);
    memset(rl.slot, 0xff, n * sizeof *rl.slot);
    an_dump d;
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &g->alloc;
    int rc = an_dump_open(&d, path, &ro, g->ctx);
    if (rc == AN_OK) {
        rc = an_scan(&d, on_record, &rl, g->ctx);
        if (rl.changed ||
            ((rc == AN_OK || rc == AN_INCOMPLETE) &&
             (rl.next != g->nobjects || rl.nroots != g->nroots))) {
            rc = an_fail(g->ctx, AN_ERROR, g->d.name,
                         "the file changed while it was read");
        } else if ((rc == AN_OK || rc == AN_INCOMPLETE) &&
                   copy_names(&rl, d.reader) != 0) {
            rc = an_no_memory(g->ctx, g->d.name);
        }
        an_dump_close(&d);
    } else if (rc == AN_INCOMPLETE) {
        rc = AN_ERROR; /* cut in its header now, not the first time (said) */
    }
    diff_mem_free(g->mem, rl.slot);
    return rc;
}

uint32_t graph_hop_find(const graph *g, uint32_t from, uint32_t to)
{
    size_t at;
    CLI_LOWER_BOUND(at, g->nhops, i,
                    g->hops[i].from < from ||
                        (g->hops[i].from == from && g->hops[i].to < to));
    return at < g->nhops && g->hops[at].from == from && g->hops[at].to == to
               ? (uint32_t)at
               : GRAPH_NONE;
}
