/* graph_load.c -- read a dump into a graph: nodes, then references resolved to
 * node numbers in place.
 *
 * Each object also references its class: the object of its CLASS record's
 * id (spec/FORMAT.md 6.3), added once the references are resolved, as the
 * object's last edge (labeled GRAPH_LABEL_CLASS), unless the object lists
 * it already (graph_class_edges.c). Producers leave the class out of the
 * references (Ruby's own mark function reports it, ObjectSpace.dump_all
 * and HeapFmt.dump skip it; HPROF has it in the record only), so adding
 * it when the graph is built serves every dump, those already written
 * included, and costs the files nothing. A class whose object is not in
 * the dump (heapfmt-malloc's frames, V8's constructor names) adds no edge
 * and no dangling reference.
 *
 * While reading, a reference is its target's 8-byte id. Once every object
 * is known, an id hash maps each to a node number, written as 4 bytes over
 * the array of ids (position w of the output never passes position j of
 * the input, so one array serves both), which then shrinks to half. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph.h"

#define PROGRESS_EVERY 65536u

typedef struct loader {
    graph *g;
    const graph_options *opt;
    const heapfmt_record *rec; /* the record being loaded */
    size_t cap_obj;    /* capacity of id, size, kind (objects) */
    size_t cap_off;    /* of off (entries) */
    unsigned char *raw; /* references: 8-byte ids, later 4-byte nodes */
    size_t nraw, cap_raw;
    size_t cap_label;
    /* ROOT records come anywhere: kept apart until the objects end. */
    uint32_t *root_off;
    size_t cap_root_off, cap_root_kind;
    unsigned char *root_raw;
    uint32_t *root_label;
    size_t nroot_raw, cap_root_raw, cap_root_label;
    graph_big_index *root_big;
    size_t nroot_big, cap_root_big;
    /* Each object's class slot, for its class edge, when the kinds (which
     * hold it) are not kept. */
    graph_class_slots cls;
    uint32_t tick;
} loader;

static int no_memory(const loader *l)
{
    return an_no_memory(l->g->ctx, l->g->d.name);
}

static int too_many(const loader *l, const char *what, uint64_t max)
{
    return an_fail(l->g->ctx, AN_ERROR, l->g->d.name,
                   "too many %s for heapfmt-graph (at most %llu)", what,
                   (unsigned long long)max);
}

static inline void put_u64(unsigned char *p, size_t i, uint64_t v)
{
    memcpy(p + 8 * i, &v, 8);
}

static inline uint64_t get_u64(const unsigned char *p, size_t i)
{
    uint64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

/* The stored code of a label; an index too large for the code goes to
 * *big (at edge number edge). Returns -1 when that table cannot grow. */
static int label_code(loader *l, const heapfmt_rlabel *lb, uint32_t edge,
                      graph_big_index **big, size_t *nbig, size_t *capbig,
                      uint32_t *code)
{
    uint32_t value = 0;
    if (lb->kind == HEAPFMT_LABEL_INDEX) {
        if (lb->index > GRAPH_LABEL_VALUE_MAX) {
            if (diff_mem_reserve(l->g->mem, (void **)big, capbig, *nbig + 1,
                            sizeof **big) != 0)
                return -1;
            (*big)[(*nbig)++] = (graph_big_index){edge, lb->index};
            value = GRAPH_LABEL_VALUE_MAX;
        } else {
            value = (uint32_t)lb->index;
        }
    } else if (lb->kind != HEAPFMT_LABEL_NONE) {
        value = lb->name->slot; /* a reader holds far fewer strings */
    }
    *code = (uint32_t)lb->kind << GRAPH_LABEL_KIND_SHIFT |
            (lb->weak ? GRAPH_LABEL_WEAK : 0) | value;
    return 0;
}

/* Appends the references of the record just read to raw (and their labels
 * to lab), leaving weak ones out unless kept. */
static int add_refs(loader *l, heapfmt_reader *r, int has_labels,
                    unsigned char **raw, size_t *nraw, size_t *cap_raw,
                    uint32_t **lab, size_t *cap_lab, graph_big_index **big,
                    size_t *nbig, size_t *capbig)
{
    graph *g = l->g;
    const uint64_t *ids;
    long n = heapfmt_reader_refs(r, &ids);
    if (n < 0)
        return (int)n;
    if (n == 0)
        return 0;
    const heapfmt_rlabel *labels = NULL;
    if (has_labels && (l->opt->keep_labels || !l->opt->keep_weak)) {
        long nl = heapfmt_reader_labels(r, &labels);
        if (nl < 0)
            return (int)nl;
        if (nl > 0)
            g->labeled = 1;
        else
            labels = NULL;
        /* a label's name never defined is a placeholder: said at the end */
        cli_undefined_labels(l->rec, labels, labels ? (size_t)nl : 0,
                             cli_undefined_note, &g->d.undef);
    }
    /* The virtual root's edges to the root nodes count too. */
    if ((uint64_t)l->nraw + l->nroot_raw + g->nroots + (uint64_t)n + 1 >
        GRAPH_MAX_EDGES)
        return too_many(l, "references", GRAPH_MAX_EDGES), -100;
    size_t cap_bytes = *cap_raw;
    if (diff_mem_reserve(g->mem, (void **)raw, &cap_bytes, *nraw + (size_t)n, 8) !=
        0)
        return HEAPFMT_E_NOMEM;
    *cap_raw = cap_bytes;
    /* Labels take room from the first labeled reference on; the ones
     * before it are unlabeled (0). */
    int keep = l->opt->keep_labels && (labels != NULL || *lab != NULL);
    if (keep) {
        int first = *lab == NULL;
        if (diff_mem_reserve(g->mem, (void **)lab, cap_lab, *nraw + (size_t)n,
                        sizeof **lab) != 0)
            return HEAPFMT_E_NOMEM;
        if (first && *nraw > 0)
            memset(*lab, 0, *nraw * sizeof **lab);
    }
    for (long i = 0; i < n; i++) {
        if (labels != NULL && labels[i].weak && !l->opt->keep_weak) {
            g->weak_dropped++;
            continue;
        }
        if (keep) {
            uint32_t code = 0;
            if (labels != NULL &&
                label_code(l, &labels[i], (uint32_t)*nraw, big, nbig, capbig,
                           &code) != 0)
                return HEAPFMT_E_NOMEM;
            (*lab)[*nraw] = code;
        }
        put_u64(*raw, (*nraw)++, ids[i]);
    }
    return 0;
}

/* A reader error from refs/labels: corrupt ends the block (said here,
 * with the reader's reason; the scan goes on and counts the block as
 * lost), anything else stops. */
static int refs_failed(loader *l, int rc)
{
    if (rc == -100)
        return AN_ERROR;
    if (rc == HEAPFMT_E_CORRUPT) { /* say why the block ends here */
        an_warn(l->g->ctx, l->g->d.name, "%s; rest of the block skipped",
                an_reader_message(l->g->d.reader, rc));
        return 0;
    }
    if (rc == HEAPFMT_E_NOMEM)
        return no_memory(l);
    an_dump_fail(l->g->ctx, &l->g->d, rc);
    return AN_ERROR;
}

/* Stores size and kind of object n. Returns 0, -1 (no memory) or -2 (too
 * many kinds). */
static int set_object(graph *g, size_t n, const heapfmt_robject *o)
{
    tuple k = {.klass = o->klass->slot, .type = o->type->slot};
    if (o->fields & HEAPFMT_F_SITE) {
        k.file = tuple_file_of_slot(o->file->slot);
        k.line = o->line;
    }
    g->size[n] = o->size;
    return tuples_intern(&g->kinds, &k, &g->kind[n]);
}

static int on_object(loader *l, heapfmt_reader *r, const heapfmt_robject *o)
{
    graph *g = l->g;
    if ((uint64_t)g->nobjects + g->nroots >= GRAPH_MAX_NODES)
        return too_many(l, "objects", GRAPH_MAX_NODES);
    size_t n = g->nobjects;
    size_t c = l->cap_obj;
    if (diff_mem_reserve(g->mem, (void **)&g->id, &c, n + 1, sizeof *g->id) != 0)
        return no_memory(l);
    if (l->opt->keep_objects) {
        c = l->cap_obj;
        if (diff_mem_reserve(g->mem, (void **)&g->size, &c, n + 1,
                        sizeof *g->size) != 0)
            return no_memory(l);
        c = l->cap_obj;
        if (diff_mem_reserve(g->mem, (void **)&g->kind, &c, n + 1,
                        sizeof *g->kind) != 0)
            return no_memory(l);
        int rc = set_object(g, n, o);
        if (rc != 0)
            return rc == -2 ? too_many(l, "classes, types and sites",
                                       UINT32_MAX - 1)
                            : no_memory(l);
    }
    l->cap_obj = c;
    if (diff_mem_reserve(g->mem, (void **)&g->off, &l->cap_off, n + 2,
                    sizeof *g->off) != 0)
        return no_memory(l);
    g->id[n] = o->id;
    g->bytes += o->size;
    g->off[n] = (uint32_t)l->nraw;
    g->nobjects++;
    if (l->opt->class_refs && !l->opt->keep_objects) {
        /* the class edge waits as the class's slot (graph_class_edges.c); set
         * before the references, whose failure may end the block with
         * this object counted */
        if (graph_class_slot_set(g->mem, &l->cls, n, o->klass->slot) != 0)
            return no_memory(l);
    }
    if (o->nrefs > 0) {
        int rc = add_refs(l, r, (o->fields & HEAPFMT_F_LABELS) != 0, &l->raw,
                      &l->nraw, &l->cap_raw, &g->label, &l->cap_label,
                      &g->big, &g->nbig, &g->capbig);
        if (rc != 0)
            return refs_failed(l, rc);
    }
    if (--l->tick == 0) {
        l->tick = PROGRESS_EVERY;
        heapfmt_progress p;
        heapfmt_reader_progress(r, &p);
        an_progress_tick(g->ctx, p.offset, g->nobjects);
    }
    return 0;
}

static int on_root(loader *l, heapfmt_reader *r, const heapfmt_rroot *root)
{
    graph *g = l->g;
    if ((uint64_t)g->nobjects + g->nroots >= GRAPH_MAX_NODES)
        return too_many(l, "objects", GRAPH_MAX_NODES);
    size_t n = g->nroots;
    if (diff_mem_reserve(g->mem, (void **)&g->root_kind, &l->cap_root_kind, n + 1,
                    sizeof *g->root_kind) != 0 ||
        diff_mem_reserve(g->mem, (void **)&l->root_off, &l->cap_root_off, n + 1,
                    sizeof *l->root_off) != 0)
        return no_memory(l);
    g->root_kind[n] = root->kind->slot;
    l->root_off[n] = (uint32_t)l->nroot_raw;
    g->nroots++;
    if (root->nrefs > 0) {
        int rc = add_refs(l, r, root->labeled, &l->root_raw, &l->nroot_raw,
                          &l->cap_root_raw, &l->root_label,
                          &l->cap_root_label, &l->root_big, &l->nroot_big,
                          &l->cap_root_big);
        if (rc != 0)
            return refs_failed(l, rc);
    }
    return 0;
}

static int on_record(void *opaque, heapfmt_reader *r,
                     const heapfmt_record *rec)
{
    loader *l = opaque;
    l->rec = rec;
    if (rec->tag == HEAPFMT_TAG_OBJECT)
        return on_object(l, r, rec->u.object);
    if (rec->tag == HEAPFMT_TAG_ROOT)
        return on_root(l, r, rec->u.root);
    return 0;
}

/* Puts the root nodes after the objects: their offsets, references,
 * labels and big indexes, shifted by the objects' references. */
static int append_roots(loader *l)
{
    graph *g = l->g;
    size_t base = l->nraw, nodes = (size_t)g->nobjects + g->nroots;
    g->nnodes = (uint32_t)nodes;
    if (diff_mem_reserve(g->mem, (void **)&g->off, &l->cap_off, nodes + 2,
                    sizeof *g->off) != 0)
        return -1;
    for (uint32_t i = 0; i < g->nroots; i++)
        g->off[g->nobjects + i] = (uint32_t)(base + l->root_off[i]);
    g->off[nodes] = (uint32_t)(base + l->nroot_raw);
    if (l->nroot_raw == 0)
        return 0;
    size_t cap_bytes = l->cap_raw;
    if (diff_mem_reserve(g->mem, (void **)&l->raw, &cap_bytes,
                    base + l->nroot_raw, 8) != 0)
        return -1;
    l->cap_raw = cap_bytes;
    memcpy(l->raw + 8 * base, l->root_raw, 8 * l->nroot_raw);
    if (g->label != NULL || l->root_label != NULL) {
        int first = g->label == NULL;
        if (diff_mem_reserve(g->mem, (void **)&g->label, &l->cap_label,
                        base + l->nroot_raw, sizeof *g->label) != 0)
            return -1;
        if (first)
            memset(g->label, 0, sizeof *g->label * base);
        if (l->root_label != NULL)
            memcpy(g->label + base, l->root_label,
                   sizeof *g->label * l->nroot_raw);
        else
            memset(g->label + base, 0, sizeof *g->label * l->nroot_raw);
    }
    for (size_t i = 0; i < l->nroot_big; i++) {
        if (diff_mem_reserve(g->mem, (void **)&g->big, &g->capbig, g->nbig + 1,
                        sizeof *g->big) != 0)
            return -1;
        graph_big_index b = l->root_big[i];
        b.edge += (uint32_t)base;
        g->big[g->nbig++] = b;
    }
    return 0;
}

/* How far ahead of a reference its home slot is fetched into the cache,
 * and half as far the id that slot holds (the slot is there by then). */
#define GRAPH_PREFETCH 64

int graph_index_build(graph *g)
{
    graph_index_drop(g);
    if (id_index_build(&g->index, g->mem, g->id, g->nobjects) != 0)
        return -1;
    g->duplicates = g->index.duplicates;
    return 0;
}

void graph_index_drop(graph *g)
{
    id_index_free(&g->index, g->mem);
}

int graph_find(const graph *g, uint64_t id, uint32_t *node)
{
    uint32_t v = GRAPH_NONE;
    if (id_index_built(&g->index)) {
        v = id_index_find(&g->index, id);
    } else {
        for (uint32_t i = 0; i < g->nobjects && v == GRAPH_NONE; i++)
            if (g->id[i] == id)
                v = i;
    }
    if (v == GRAPH_NONE)
        return 0;
    *node = v;
    return 1;
}

/* Adds the class edges (graph_class_edges.c), with their labels when labels
 * are kept. Returns 0, -1 (no memory) or -2 (too many references,
 * reported). */
static int add_classes(loader *l)
{
    if (!l->opt->class_refs)
        return 0;
    int rc = graph_add_class_edges(l->g, l->opt->keep_objects ? NULL : &l->cls,
                                   l->opt->keep_labels);
    graph_class_slots_free(l->g->mem, &l->cls);
    if (rc == -2) {
        too_many(l, "references", GRAPH_MAX_EDGES);
        return -2;
    }
    return rc;
}

/* Turns the ids in raw into node numbers, dropping (and counting) the
 * ones not in the dump; rewrites off, label and big to match. */
static int resolve(loader *l)
{
    graph *g = l->g;
    if (l->opt->target_ids) { /* the ids are the answer's own terms */
        g->nedges = g->off[g->nnodes];
        g->target_id = (uint64_t *)(void *)l->raw;
        l->raw = NULL;
        return add_classes(l);
    }
    if (graph_index_build(g) != 0)
        return -1;
    size_t w = 0, j = g->off[0], bi = 0, bw = 0;
    size_t total = g->off[g->nnodes];
    /* a copy, so that its fields stay in registers: the stores below
     * (through unsigned char) could otherwise change g->index */
    const id_index local = g->index, *x = &local;
    for (uint32_t v = 0; v < g->nnodes; v++) {
        size_t end = g->off[v + 1];
        g->off[v] = (uint32_t)w;
        for (; j < end; j++) {
            /* two stages ahead; the ids ahead are not overwritten yet:
             * the node numbers written (4 bytes each) stay behind them */
            if (j + GRAPH_PREFETCH < total)
                __builtin_prefetch(id_index_slot_addr(
                    x, get_u64(l->raw, j + GRAPH_PREFETCH)));
            if (j + GRAPH_PREFETCH / 2 < total)
                __builtin_prefetch(id_index_id_addr(
                    x, get_u64(l->raw, j + GRAPH_PREFETCH / 2)));
            uint32_t t = id_index_find(x, get_u64(l->raw, j));
            int big = bi < g->nbig && g->big[bi].edge == j;
            if (t == GRAPH_NONE) {
                g->dangling++;
                bi += big;
                continue;
            }
            if (g->label != NULL)
                g->label[w] = g->label[j];
            if (big) {
                g->big[bw].edge = (uint32_t)w;
                g->big[bw++].index = g->big[bi++].index;
            }
            memcpy(l->raw + 4 * w, &t, 4);
            w++;
        }
    }
    g->off[g->nnodes] = (uint32_t)w;
    g->nbig = bw;
    g->nedges = w;
    /* Shrink: the ids took twice the room the nodes need. */
    void *p = w > 0 ? diff_mem_realloc(g->mem, l->raw, w * 4) : NULL;
    if (w > 0 && p == NULL)
        p = l->raw; /* keeping the larger block is harmless */
    else if (w == 0)
        diff_mem_free(g->mem, l->raw);
    g->dst = p;
    l->raw = NULL;
    if (g->label != NULL && w > 0) {
        void *q = diff_mem_realloc(g->mem, g->label, w * sizeof *g->label);
        if (q != NULL)
            g->label = q;
    }
    int crc = add_classes(l);
    if (crc != 0)
        return crc;
    if (!l->opt->keep_index)
        graph_index_drop(g);
    if (!l->opt->keep_objects) {
        DIFF_MEM_DROP(g->mem, g->id);
    }
    return 0;
}

static uint64_t file_size(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        return (uint64_t)st.st_size;
    return 0;
}

static void loader_free(loader *l)
{
    const diff_mem *m = l->g->mem;
    diff_mem_free(m, l->raw);
    diff_mem_free(m, l->root_off);
    diff_mem_free(m, l->root_raw);
    diff_mem_free(m, l->root_label);
    diff_mem_free(m, l->root_big);
    graph_class_slots_free(m, &l->cls);
}

static int id_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The ids of the strings the first read made entries for: the names its
 * records used (a first read that keeps no string makes them only for
 * classes, types, files and root kinds), for graph_reread to keep.
 * Returns 0 or -1 (no memory). */
static int names_used(graph *g)
{
    const heapfmt_reader *r = g->d.reader;
    size_t n = heapfmt_reader_string_count(r);
    g->names = diff_mem_alloc(g->mem, (n ? n : 1) * sizeof *g->names);
    if (g->names == NULL)
        return -1;
    g->nnames = 0;
    for (size_t slot = 1; slot < n; slot++)
        g->names[g->nnames++] = heapfmt_reader_string(r, slot)->id;
    qsort(g->names, g->nnames, sizeof *g->names, id_cmp);
    return 0;
}

/* The first read of a graph without objects and labels needs no string:
 * classes are known by slot, root kinds are named by the second read. */
static int keep_no_string(void *user, uint32_t id)
{
    (void)user;
    (void)id;
    return 0;
}

int graph_load(graph *g, const char *path, const graph_options *opt)
{
    memset(g, 0, sizeof *g);
    g->mem = opt->mem;
    g->ctx = opt->ctx;
    g->d.fd = -1;
    tuples_init(&g->kinds, g->mem, UINT32_MAX - 1);
    g->alloc = diff_mem_heapfmt(g->mem);
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &g->alloc;
    if (!opt->keep_objects && !opt->keep_labels)
        ro.keep_string = keep_no_string;
    int rc = an_dump_open(&g->d, path, &ro, g->ctx);
    if (rc != AN_OK) {
        /* Cut inside its header: an empty graph, still well formed. */
        if (rc == AN_INCOMPLETE) {
            g->off = diff_mem_alloc(g->mem, 2 * sizeof *g->off);
            if (g->off == NULL)
                rc = AN_ERROR;
            else
                g->off[0] = g->off[1] = 0;
        }
        g->status = rc;
        return rc;
    }
    loader l;
    memset(&l, 0, sizeof l);
    l.g = g;
    l.opt = opt;
    l.tick = PROGRESS_EVERY;
    /* No room is taken by the footer's counts: memory follows the records
     * read (the arrays grow in place, by mremap, at no copying cost). */
    if (opt->progress)
        an_progress_begin(g->ctx, g->d.name, file_size(g->d.fd));
    rc = an_scan(&g->d, on_record, &l, g->ctx);
    if (opt->progress)
        an_progress_end(g->ctx);
    if (rc == AN_OK || rc == AN_INCOMPLETE) {
        int rrc = append_roots(&l) != 0 ? -1 : resolve(&l);
        if (rrc == -2)
            rc = AN_ERROR; /* set by too_many */
        else if (rrc != 0)
            rc = no_memory(&l);
    }
    loader_free(&l);
    /* The first of two reads: the names it used are all graph_reread
     * needs of it, and its reader goes now, its buffers with it (a V8
     * import's largest object left 8 MB of references and labels in
     * them through the dominator tree). */
    if ((rc == AN_OK || rc == AN_INCOMPLETE) && ro.keep_string != NULL) {
        if (names_used(g) != 0)
            rc = no_memory(&l);
        an_dump_close(&g->d);
    }
    g->status = rc;
    return rc;
}

void graph_drop_edges(graph *g)
{
    DIFF_MEM_DROP(g->mem, g->class_bits);
    DIFF_MEM_DROP(g->mem, g->dst);
    DIFF_MEM_DROP(g->mem, g->target_id);
    DIFF_MEM_DROP(g->mem, g->label);
    DIFF_MEM_DROP(g->mem, g->big);
    g->nbig = g->capbig = 0;
}

void graph_free(graph *g)
{
    for (size_t h = 0; h < g->nhops; h++)
        diff_mem_free(g->mem, g->hops[h].name);
    diff_mem_free(g->mem, g->hops);
    diff_mem_free(g->mem, g->names);
    graph_drop_edges(g);
    graph_index_drop(g);
    diff_mem_free(g->mem, g->id);
    diff_mem_free(g->mem, g->size);
    diff_mem_free(g->mem, g->kind);
    diff_mem_free(g->mem, g->root_kind);
    diff_mem_free(g->mem, g->off);
    tuples_free(&g->kinds);
    an_dump_close(&g->d);
    memset(g, 0, sizeof *g);
    g->d.fd = -1;
}

/* The second read: objects in the same order as the first. */
typedef struct rereader {
    graph *g;
    size_t next;
    uint32_t nroots;
    int changed;
} rereader;

static int on_reread(void *opaque, heapfmt_reader *r, const heapfmt_record *rec)
{
    rereader *rr = opaque;
    graph *g = rr->g;
    (void)r;
    if (rec->tag == HEAPFMT_TAG_ROOT) {
        if (rr->nroots < g->nroots) /* names from this reader */
            g->root_kind[rr->nroots] = rec->u.root->kind->slot;
        rr->nroots++;
        return 0;
    }
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    if (rr->next >= g->nobjects) {
        rr->changed = 1;
        return AN_ERROR;
    }
    g->id[rr->next] = rec->u.object->id;
    int rc = set_object(g, rr->next++, rec->u.object);
    if (rc != 0)
        return an_fail(g->ctx, AN_ERROR, g->d.name, "%s",
                       rc == -2 ? "too many classes, types and sites"
                                : "out of memory");
    return 0;
}

static int keep_used_name(void *user, uint32_t id)
{
    const graph *g = user;
    return bsearch(&id, g->names, g->nnames, sizeof id, id_cmp) != NULL;
}

int graph_reread(graph *g, const char *path)
{
    size_t n = g->nobjects ? g->nobjects : 1;
    g->id = diff_mem_alloc(g->mem, n * sizeof *g->id);
    g->size = diff_mem_alloc(g->mem, n * sizeof *g->size);
    g->kind = diff_mem_alloc(g->mem, n * sizeof *g->kind);
    if (g->id == NULL || g->size == NULL || g->kind == NULL)
        return an_no_memory(g->ctx, g->d.name);
    an_dump d;
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &g->alloc;
    if (g->names != NULL) { /* the first read kept no string */
        ro.keep_string = keep_used_name;
        ro.keep_string_user = g;
    }
    int rc = an_dump_open(&d, path, &ro, g->ctx);
    if (rc != AN_OK) /* cut in its header, as it was the first time */
        return rc == AN_INCOMPLETE && g->nobjects != 0 ? AN_ERROR : rc;
    /* Names come from this reader now: the first one's tables go. */
    an_dump_close(&g->d);
    g->d = d;
    tuples_free(&g->kinds);
    tuples_init(&g->kinds, g->mem, UINT32_MAX - 1);
    rereader rr = {g, 0, 0, 0};
    rc = an_scan(&g->d, on_reread, &rr, g->ctx);
    DIFF_MEM_DROP(g->mem, g->names);
    g->nnames = 0;
    if (rr.changed || ((rc == AN_OK || rc == AN_INCOMPLETE) &&
                       (rr.next != g->nobjects || rr.nroots != g->nroots)))
        return an_fail(g->ctx, AN_ERROR, g->d.name,
                       "the file changed while it was read");
    return rc;
}
