/* extmem_load.c -- a dump read twice into compressed successor lists,
 * for dominators --temp-dir.
 *
 * Why two reads: graph_load.c holds every reference as its target's
 * 8-byte id until the last object is known (24 B/object at heapfmt-gen's
 * 2.97 references an object, beside 8 of id and 5-10 of index: the
 * 46 B/object peak at 100M objects is there and in domtree.c). Here the
 * first read keeps the ids alone and builds their index (8 + 5-10
 * B/object, the peak of the load); the second resolves each reference as
 * it comes and writes the object's successor list, compressed
 * (extmem.h: zigzag varints of the distance to the referrer), to a file.
 * Nothing per reference stays in memory. The class edge (graph_class_edges.c)
 * is added as the object's last, by the same rule: a class object in the
 * dump, not the object itself, not listed already. Both reads decode the
 * same things (references, and labels when weak ones are dropped), so
 * that a damaged block ends at the same record in both. */
#include <string.h>
#include <sys/stat.h>

#include "dump_read.h"
#include "extmem.h"

typedef struct xload {
    extmem *x;
    graph *meta;
    const graph_query *q;
    int pass;              /* 1: ids; 2: successor lists */
    const heapfmt_record *rec;
    uint64_t *id;          /* [nobjects] pass 1 */
    size_t cap_id;
    id_index index;
    uint32_t *class_node;  /* by class slot: the class's node, or NONE */
    size_t nslots;
    uint32_t nobjects, nroots; /* seen in pass 2 */
    uint32_t *list;        /* one node's resolved targets */
    size_t cap_list;
    unsigned char *code;   /* their codes */
    size_t cap_code;
    xfile succ, len, root_succ, root_len;
    uint64_t nedges;
    int io_failed;         /* a temporary file failed: said */
    uint32_t tick;
} xload;

static int no_memory(const xload *l)
{
    return an_no_memory(l->q->ctx, l->meta->d.name);
}

static int changed(const xload *l)
{
    return an_fail(l->q->ctx, AN_ERROR, l->meta->d.name,
                   "the file changed while it was read");
}

/* The references of the record being read, and their labels when weak
 * ones are to be dropped. Returns the count, 0 when none, or a reader
 * error: a damaged block ends here (warned once, the scan goes on), so
 * that the record has no references, in both reads alike. */
static long refs_of(xload *l, heapfmt_reader *r, int has_labels,
                    const uint64_t **ids, const heapfmt_rlabel **labels)
{
    *labels = NULL;
    long n = heapfmt_reader_refs(r, ids);
    if (n > 0 && has_labels && !l->q->weak) {
        long nl = heapfmt_reader_labels(r, labels);
        if (nl < 0)
            n = nl;
        else if (nl == 0)
            *labels = NULL;
        else if (l->pass == 2)
            cli_undefined_labels(l->rec, *labels, (size_t)nl,
                                 cli_undefined_note, &l->meta->d.undef);
    }
    if (n >= 0)
        return n;
    if (n == HEAPFMT_E_CORRUPT) {
        an_warn(l->q->ctx, l->meta->d.name, "%s; rest of the block skipped",
                an_reader_message(r, (int)n));
        return 0;
    }
    return n;
}

/* Resolves the references into l->list; returns their count or -1. */
static long resolve(xload *l, long n, const uint64_t *ids,
                    const heapfmt_rlabel *labels, size_t extra)
{
    if (diff_mem_reserve(l->x->mem, (void **)&l->list, &l->cap_list,
                         (size_t)n + extra + 1, sizeof *l->list) != 0)
        return -1;
    size_t k = 0;
    for (long i = 0; i < n; i++) {
        if (labels != NULL && labels[i].weak && !l->q->weak) {
            l->meta->weak_dropped++;
            continue;
        }
        uint32_t t = id_index_find(&l->index, ids[i]);
        if (t == ID_NONE) {
            l->meta->dangling++;
            continue;
        }
        l->list[k++] = t;
    }
    return (long)k;
}

/* Writes node v's list (k targets) to succ and its code's length to len. */
static int put_list(xload *l, uint32_t v, size_t k, xfile *succ, xfile *len)
{
    if (diff_mem_reserve(l->x->mem, (void **)&l->code, &l->cap_code,
                         k * 10 + 10, 1) != 0)
        return no_memory(l);
    size_t b = 0;
    for (size_t i = 0; i < k; i++)
        b += xvar_put(l->code + b, xzz_encode(v, l->list[i]));
    unsigned char lb[10];
    size_t nl = xvar_put(lb, b);
    if (xfile_put(succ, l->code, b) != 0)
        return l->io_failed = 1, xfile_error(succ);
    if (xfile_put(len, lb, nl) != 0)
        return l->io_failed = 1, xfile_error(len);
    l->nedges += k;
    if (l->nedges + l->meta->nroots + 1 > GRAPH_MAX_EDGES) {
        an_fail(l->q->ctx, AN_ERROR, l->meta->d.name,
                  "too many references for heapfmt-graph (at most %llu)",
                  (unsigned long long)GRAPH_MAX_EDGES);
        return AN_ERROR;
    }
    return 0;
}

/* A reader failure other than a damaged block: the scan stops. */
static int read_failed(const xload *l, long n)
{
    if (n == HEAPFMT_E_NOMEM)
        return no_memory(l);
    an_dump_fail(l->q->ctx, &l->meta->d, (int)n);
    return AN_ERROR;
}

/* Whether the node numbers are all taken (said). */
static int full(const xload *l)
{
    const graph *m = l->meta;
    if ((uint64_t)m->nobjects + m->nroots < GRAPH_MAX_NODES)
        return 0;
    an_fail(l->q->ctx, AN_ERROR, m->d.name, "too many objects for heapfmt-graph (at most %llu)",
              (unsigned long long)GRAPH_MAX_NODES);
    return 1;
}

static int on_object(xload *l, heapfmt_reader *r, const heapfmt_robject *o)
{
    graph *m = l->meta;
    const uint64_t *ids = NULL;
    const heapfmt_rlabel *labels = NULL;
    long n = o->nrefs > 0 ? refs_of(l, r, (o->fields & HEAPFMT_F_LABELS) != 0,
                                    &ids, &labels)
                          : 0;
    if (n < 0)
        return read_failed(l, n);
    if (l->pass == 1) {
        if (full(l))
            return AN_ERROR;
        if (diff_mem_reserve(l->x->mem, (void **)&l->id, &l->cap_id,
                             (size_t)m->nobjects + 1, sizeof *l->id) != 0)
            return no_memory(l);
        l->id[m->nobjects++] = o->id;
        m->bytes += o->size;
        return 0;
    }
    uint32_t v = l->nobjects++;
    if (v >= m->nobjects)
        return changed(l);
    long k = resolve(l, n, ids, labels, 1);
    if (k < 0)
        return no_memory(l);
    uint32_t s = o->klass->slot;
    if (!l->q->no_class_refs && s < l->nslots) {
        uint32_t c = l->class_node[s];
        int listed = c == GRAPH_NONE || c == v;
        for (long i = 0; i < k && !listed; i++)
            listed = l->list[i] == c;
        if (!listed) {
            l->list[k++] = c;
            m->class_edges++;
        }
    }
    return put_list(l, v, (size_t)k, &l->succ, &l->len);
}

static int on_root(xload *l, heapfmt_reader *r, const heapfmt_rroot *root)
{
    graph *m = l->meta;
    const uint64_t *ids = NULL;
    const heapfmt_rlabel *labels = NULL;
    long n = root->nrefs > 0 ? refs_of(l, r, root->labeled, &ids, &labels)
                             : 0;
    if (n < 0)
        return read_failed(l, n);
    if (l->pass == 1) {
        if (full(l))
            return AN_ERROR;
        m->nroots++;
        return 0;
    }
    uint32_t i = l->nroots++;
    if (i >= m->nroots)
        return changed(l);
    long k = resolve(l, n, ids, labels, 0);
    if (k < 0)
        return no_memory(l);
    return put_list(l, m->nobjects + i, (size_t)k, &l->root_succ,
                    &l->root_len);
}

static int on_record(void *opaque, heapfmt_reader *r,
                     const heapfmt_record *rec)
{
    xload *l = opaque;
    l->rec = rec;
    if (--l->tick == 0) {
        l->tick = 65536;
        heapfmt_progress p;
        heapfmt_reader_progress(r, &p);
        an_progress_tick(l->q->ctx, p.offset,
                          l->pass == 1 ? l->meta->nobjects : l->nobjects);
    }
    if (rec->tag == HEAPFMT_TAG_OBJECT)
        return on_object(l, r, rec->u.object);
    if (rec->tag == HEAPFMT_TAG_ROOT)
        return on_root(l, r, rec->u.root);
    return 0;
}

/* The node of each class slot of the first read's reader (the second
 * reads the same file: the same slots). */
static int class_nodes(xload *l)
{
    heapfmt_reader *r = l->meta->d.reader;
    l->nslots = heapfmt_reader_class_count(r);
    l->class_node = diff_mem_alloc(l->x->mem, (l->nslots ? l->nslots : 1) *
                                                  sizeof *l->class_node);
    if (l->class_node == NULL)
        return -1;
    for (size_t s = 0; s < l->nslots; s++) {
        const heapfmt_rclass *c = heapfmt_reader_class(r, s);
        uint64_t id = c != NULL && !c->undefined ? c->id : 0;
        uint32_t v = id != 0 ? id_index_find(&l->index, id) : ID_NONE;
        l->class_node[s] = v == ID_NONE ? GRAPH_NONE : v;
    }
    return 0;
}

static uint64_t file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
               ? (uint64_t)st.st_size
               : 0;
}

static void xload_free(xload *l)
{
    const diff_mem *m = l->x->mem;
    id_index_free(&l->index, m);
    diff_mem_free(m, l->id);
    diff_mem_free(m, l->class_node);
    diff_mem_free(m, l->list);
    diff_mem_free(m, l->code);
    xfile_close(&l->succ);
    xfile_close(&l->len);
    xfile_close(&l->root_succ);
    xfile_close(&l->root_len);
}

int extmem_load(extmem *x, const char *path, const graph_query *q,
                graph *meta, xgraph *xg)
{
    memset(meta, 0, sizeof *meta);
    memset(xg, 0, sizeof *xg);
    meta->mem = x->mem;
    meta->d.fd = -1;
    meta->alloc = diff_mem_heapfmt(x->mem);
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &meta->alloc;
    int rc = an_dump_open(&meta->d, path, &ro, q->ctx);
    if (rc == AN_INCOMPLETE) /* cut in its header: no nodes */
        return xgraph_empty(xg, x->mem, q->ctx, meta->d.name) == 0 ? rc
                                                           : AN_ERROR;
    if (rc != AN_OK)
        return rc;
    xload l;
    memset(&l, 0, sizeof l);
    l.x = x;
    l.meta = meta;
    l.q = q;
    l.pass = 1;
    l.tick = 65536;
    an_progress_begin(q->ctx, meta->d.name, file_size(meta->d.fd));
    rc = an_scan(&meta->d, on_record, &l, q->ctx);
    an_progress_end(q->ctx);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        goto out;
    int rc1 = rc;
    meta->nnodes = meta->nobjects + meta->nroots;
    if (id_index_build(&l.index, x->mem, l.id, meta->nobjects) != 0 ||
        class_nodes(&l) != 0) {
        rc = no_memory(&l);
        goto out;
    }
    meta->duplicates = l.index.duplicates;
    if (xfile_open(&l.succ, x, "succ", XFILE_BUF) != 0 ||
        xfile_open(&l.len, x, "len", XFILE_BUF) != 0 ||
        xfile_open(&l.root_succ, x, "rsucc", XFILE_BUF) != 0 ||
        xfile_open(&l.root_len, x, "rlen", XFILE_BUF) != 0) {
        rc = AN_ERROR;
        goto out;
    }
    an_dump d2;
    rc = an_dump_open(&d2, path, &ro, q->ctx);
    if (rc != AN_OK) {
        rc = changed(&l);
        goto out;
    }
    /* The second read's records, the first read's name in messages. */
    an_dump first = meta->d;
    meta->d = d2;
    meta->d.name = first.name;
    l.pass = 2;
    an_progress_begin(q->ctx, meta->d.name, file_size(d2.fd));
    rc = an_scan(&meta->d, on_record, &l, q->ctx);
    an_progress_end(q->ctx);
    meta->d = first;
    an_dump_close(&d2);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        goto out;
    if (rc != rc1 || l.nobjects != meta->nobjects ||
        l.nroots != meta->nroots) {
        rc = changed(&l);
        goto out;
    }
    /* The index and the ids go before the lists come in. */
    id_index_free(&l.index, x->mem);
    DIFF_MEM_DROP(x->mem, l.id);
    /* and their pages: a page pool (page_pool.h) would keep them as
     * spares, resident beside the next phase's arrays */
    diff_mem_trim(x->mem);
    xg->nobjects = meta->nobjects;
    xg->nroots = meta->nroots;
    xg->nnodes = meta->nnodes;
    xg->nedges = l.nedges;
    meta->nedges = (size_t)l.nedges;
    int brc = xgraph_build(xg, x, &l.succ, &l.len, &l.root_succ, &l.root_len,
                           meta->d.name);
    if (brc != 0)
        rc = brc;
out:
    xload_free(&l);
    meta->status = rc;
    return rc;
}
