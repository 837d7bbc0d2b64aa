/* graph_class_edges.c -- each object's reference to its class, added to a
 * loaded graph (graph.h, graph_load.c).
 *
 * The class object of a CLASS record is known by its id (spec/FORMAT.md
 * 6.3, 6.4): the classes are few, so each is looked up once, by the
 * reader's class slot. While the dump is read, an object keeps its class
 * slot only (its kind has it; without kinds, 1 to 4 bytes) instead of an
 * 8-byte reference among the others: the load's peak, where references
 * are still ids, does not hold the class edges. Once the references are
 * resolved, the edges move up in one backward pass (each node's edges
 * only ever move to higher positions), each object's class edge last. */
#include <string.h>

#include "graph.h"

/* The class slot of object v. */
static inline uint32_t slot_of(const graph *g, const graph_class_slots *cls,
                               uint32_t v)
{
    return cls != NULL ? graph_class_slot(cls, v)
                       : tuples_get(&g->kinds, g->kind[v])->klass;
}

static unsigned width_of(uint32_t s)
{
    return s <= UINT8_MAX ? 1 : s <= UINT16_MAX ? 2 : 4;
}

/* Stores s at v of an array of width w. */
static void put_slot(void *a, unsigned w, size_t v, uint32_t s)
{
    if (w == 1)
        ((uint8_t *)a)[v] = (uint8_t)s;
    else if (w == 2)
        ((uint16_t *)a)[v] = (uint16_t)s;
    else
        ((uint32_t *)a)[v] = s;
}

/* Copies the first n slots of c into an array of width w. */
static int widen(const diff_mem *m, graph_class_slots *c, size_t n,
                 unsigned w)
{
    size_t cap = c->cap > n ? c->cap : n + 1;
    void *b = diff_mem_alloc(m, cap * w);
    if (b == NULL)
        return -1;
    for (size_t v = 0; v < n; v++)
        put_slot(b, w, v, graph_class_slot(c, (uint32_t)v));
    diff_mem_free(m, c->a);
    c->a = b;
    c->cap = cap;
    c->width = w;
    return 0;
}

int graph_class_slot_set(const diff_mem *m, graph_class_slots *c, size_t n,
                         uint32_t s)
{
    unsigned w = width_of(s);
    if (c->width == 0)
        c->width = w;
    else if (w > c->width && widen(m, c, n, w) != 0)
        return -1;
    if (diff_mem_reserve(m, &c->a, &c->cap, n + 1, c->width) != 0)
        return -1;
    put_slot(c->a, c->width, n, s);
    return 0;
}

void graph_class_slots_free(const diff_mem *m, graph_class_slots *c)
{
    diff_mem_free(m, c->a);
    memset(c, 0, sizeof *c);
}

/* What object v's class edge points to: a node (resolved graph) or an id
 * (target_ids), 0 / GRAPH_NONE when it has none: no class, a class whose
 * object is not in the dump, itself, or a class it lists already. */
typedef struct targets {
    const graph *g;
    const graph_class_slots *cls;
    uint32_t *node;  /* by slot, resolved graphs */
    uint64_t *id;    /* by slot, target_ids */
    size_t nslots;
} targets;

static int has_edge(const targets *t, uint32_t v, uint64_t *target)
{
    const graph *g = t->g;
    uint32_t s = slot_of(g, t->cls, v);
    if (s >= t->nslots)
        return 0;
    if (t->id != NULL) {
        uint64_t id = t->id[s];
        if (id == 0 || id == g->id[v])
            return 0;
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++)
            if (g->target_id[e] == id)
                return 0;
        *target = id;
        return 1;
    }
    uint32_t n = t->node[s];
    if (n == GRAPH_NONE || n == v)
        return 0;
    for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++)
        if (g->dst[e] == n)
            return 0; /* listed already, with its own label */
    *target = n;
    return 1;
}

/* The class object of every slot: a node, or an id with target_ids. */
static int targets_init(targets *t, graph *g, const graph_class_slots *cls)
{
    memset(t, 0, sizeof *t);
    t->g = g;
    t->cls = cls;
    heapfmt_reader *r = g->d.reader;
    t->nslots = heapfmt_reader_class_count(r);
    size_t n = t->nslots ? t->nslots : 1;
    if (g->target_id != NULL) {
        t->id = diff_mem_alloc(g->mem, n * sizeof *t->id);
        if (t->id == NULL)
            return -1;
    } else {
        t->node = diff_mem_alloc(g->mem, n * sizeof *t->node);
        if (t->node == NULL)
            return -1;
    }
    for (size_t s = 0; s < t->nslots; s++) {
        const heapfmt_rclass *c = heapfmt_reader_class(r, s);
        uint64_t id = c != NULL && !c->undefined ? c->id : 0;
        if (t->id != NULL) {
            t->id[s] = id;
        } else {
            uint32_t v = GRAPH_NONE;
            if (id == 0 || !graph_find(g, id, &v))
                v = GRAPH_NONE;
            t->node[s] = v;
        }
    }
    return 0;
}

static void targets_free(targets *t)
{
    diff_mem_free(t->g->mem, t->node);
    diff_mem_free(t->g->mem, t->id);
}

/* Grows the edge arrays (targets, labels) to n edges. */
static int grow_edges(graph *g, size_t n, int labels)
{
    if (g->target_id != NULL) {
        void *p = diff_mem_realloc(g->mem, g->target_id, n * sizeof(uint64_t));
        if (p == NULL)
            return -1;
        g->target_id = p;
    } else {
        void *p = diff_mem_realloc(g->mem, g->dst, n * sizeof(uint32_t));
        if (p == NULL)
            return -1;
        g->dst = p;
    }
    if (labels) {
        int first = g->label == NULL;
        void *p = diff_mem_realloc(g->mem, g->label, n * sizeof(uint32_t));
        if (p == NULL)
            return -1;
        g->label = p;
        if (first) /* the references read have no label */
            memset(g->label, 0, g->nedges * sizeof *g->label);
    }
    return 0;
}

int graph_add_class_edges(graph *g, const graph_class_slots *cls,
                          int labels)
{
    if (g->nobjects == 0)
        return 0;
    targets t;
    if (targets_init(&t, g, cls) != 0) {
        targets_free(&t);
        return -1;
    }
    uint64_t add = 0, target;
    for (uint32_t v = 0; v < g->nobjects; v++)
        add += has_edge(&t, v, &target);
    int rc = 0;
    if (add == 0)
        goto out;
    rc = -2; /* the load checked the references alone */
    if ((uint64_t)g->nedges + add + g->nroots + 1 > GRAPH_MAX_EDGES)
        goto out;
    rc = -1;
    g->class_bits = diff_mem_alloc(g->mem, (size_t)g->nobjects / 8 + 1);
    if (g->class_bits == NULL || grow_edges(g, g->nedges + add, labels) != 0)
        goto out;
    memset(g->class_bits, 0, (size_t)g->nobjects / 8 + 1);
    /* Backward: before node v's edges, `below` class edges are added. */
    uint64_t below = add;
    size_t big = g->nbig;
    for (uint32_t v = g->nnodes; v-- > 0;) {
        uint32_t begin = g->off[v], end = g->off[v + 1];
        int has = v < g->nobjects && has_edge(&t, v, &target);
        below -= (uint64_t)has;
        size_t to = begin + below, len = end - begin;
        if (below > 0 && len > 0) {
            if (g->target_id != NULL)
                memmove(g->target_id + to, g->target_id + begin,
                        len * sizeof *g->target_id);
            else
                memmove(g->dst + to, g->dst + begin, len * sizeof *g->dst);
            if (g->label != NULL)
                memmove(g->label + to, g->label + begin,
                        len * sizeof *g->label);
        }
        while (big > 0 && g->big[big - 1].edge >= begin)
            g->big[--big].edge += (uint32_t)below;
        if (has) {
            if (g->target_id != NULL)
                g->target_id[to + len] = target;
            else
                g->dst[to + len] = (uint32_t)target;
            if (g->label != NULL)
                g->label[to + len] = GRAPH_LABEL_CLASS;
            g->class_bits[v / 8] |= (unsigned char)(1u << (v % 8));
        }
        g->off[v + 1] = (uint32_t)(to + len + (size_t)has);
    }
    g->nedges += add;
    g->class_edges = add;
    rc = 0;
out:
    if (rc != 0)
        DIFF_MEM_DROP(g->mem, g->class_bits);
    targets_free(&t);
    return rc;
}
