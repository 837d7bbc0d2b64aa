/*
 * test_graph_load.c -- heapfmt-graph reading dumps written by libheapfmt:
 * roots and labels, weak references (kept or left out), references to
 * ids that are not in the dump, repeated ids, a cut dump; the reference
 * of each object to its class (added by the graph); and the known
 * answers of three leak shapes: a cache Hash reached from a global, a
 * closure (Proc -> environment -> Array) holding a big Array, and a
 * closure held by a singleton class.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "domtree.h"
#include "node.h"
#include "shortest_paths.h"
#include "tio.h"

/* ---- writing the dumps ---- */

typedef struct tdump {
    heapfmt_writer *w;
    char path[256];
} tdump;

static void tdump_open(tdump *d)
{
    close(ttemp_path(d->path, sizeof d->path)); /* returns an open fd */
    heapfmt_writer_options o = HEAPFMT_WRITER_OPTIONS_INIT;
    cr_assert_eq(heapfmt_writer_open_path(&d->w, &o, d->path), HEAPFMT_OK);
}

static uint32_t str(tdump *d, const char *s)
{
    uint32_t id;
    cr_assert_eq(heapfmt_write_string(d->w, s, strlen(s), &id), HEAPFMT_OK);
    return id;
}

static void klass(tdump *d, uint64_t id, const char *name)
{
    heapfmt_class c = {id, name, strlen(name), 0, 0};
    cr_assert_eq(heapfmt_write_class(d->w, &c), HEAPFMT_OK);
}

/* An object of class cls, size bytes, with refs (and labels, or NULL). */
static void obj(tdump *d, uint64_t id, uint64_t cls, uint64_t size,
                const uint64_t *refs, size_t n, const heapfmt_label *labels)
{
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = id;
    o.class_id = cls;
    o.size = size;
    o.refs = refs;
    o.nrefs = n;
    if (labels != NULL) {
        o.fields |= HEAPFMT_F_LABELS;
        o.labels = labels;
    }
    cr_assert_eq(heapfmt_write_object(d->w, &o), HEAPFMT_OK);
}

static void tdump_finish(tdump *d)
{
    cr_assert_eq(heapfmt_writer_finish(d->w), HEAPFMT_OK);
    heapfmt_writer_free(d->w);
}

static int load(graph *g, const char *path, int keep_weak)
{
    graph_options o = {.keep_weak = keep_weak, .keep_labels = 1,
                       .keep_index = 1, .keep_objects = 1, .class_refs = 1};
    return graph_load(g, path, &o);
}

static uint32_t node_of(const graph *g, uint64_t id)
{
    uint32_t v;
    cr_assert(graph_find(g, id, &v), "object 0x%llx", (unsigned long long)id);
    return v;
}

/* The label text of the edge src -> dst. */
static const char *label_of(const graph *g, uint32_t src, uint32_t dst,
                            char *buf, size_t cap)
{
    for (uint32_t e = g->off[src]; e < g->off[src + 1]; e++)
        if (g->dst[e] == dst) {
            graph_label_text(g, e, buf, cap);
            return buf;
        }
    cr_assert_fail("no edge %u -> %u", src, dst);
    return NULL;
}

enum { C_HASH = 0x100, C_REQ = 0x200, C_ARRAY = 0x300, C_PROC = 0x400,
       C_ENV = 0x500, C_WEAK = 0x600 };

/* The cache: $cache -> Hash -> 100 requests by key; request 0 also in an
 * Array; a WeakMap-like object refers weakly to 0x9000, which nothing
 * else holds; one reference to 0xdead, which is not in the dump; id 0x8000
 * written twice. */
static void write_cache(tdump *d)
{
    tdump_open(d);
    klass(d, C_HASH, "Hash");
    klass(d, C_REQ, "Request");
    klass(d, C_ARRAY, "Array");
    klass(d, C_WEAK, "ObjectSpace::WeakMap");
    uint64_t reqs[100];
    heapfmt_label keys[100];
    for (int i = 0; i < 100; i++) {
        char k[16];
        snprintf(k, sizeof k, "req-%d", i);
        reqs[i] = 0x10000 + 40u * (uint64_t)i;
        keys[i] = (heapfmt_label){HEAPFMT_LABEL_KEY, 0, str(d, k)};
    }
    obj(d, 0x5000, C_HASH, 168, reqs, 100, keys);
    for (int i = 0; i < 100; i++)
        obj(d, reqs[i], C_REQ, 40, NULL, 0, NULL);
    uint64_t arr[] = {reqs[0], 0xdead};
    heapfmt_label idx[] = {{HEAPFMT_LABEL_INDEX, 0, 0},
                           {HEAPFMT_LABEL_INDEX, 0, 1}};
    obj(d, 0x6000, C_ARRAY, 56, arr, 2, idx);
    uint64_t weak[] = {0x9000};
    heapfmt_label wl[] = {{HEAPFMT_LABEL_NONE, 1, 0}};
    obj(d, 0x7000, C_WEAK, 40, weak, 1, wl);
    obj(d, 0x9000, C_REQ, 40, NULL, 0, NULL);
    obj(d, 0x8000, C_REQ, 40, NULL, 0, NULL);
    obj(d, 0x8000, C_REQ, 40, NULL, 0, NULL);
    uint64_t globals[] = {0x5000, 0x6000, 0x7000};
    heapfmt_label gl[] = {{HEAPFMT_LABEL_GLOBAL, 0, str(d, "$cache")},
                          {HEAPFMT_LABEL_GLOBAL, 0, str(d, "$list")},
                          {HEAPFMT_LABEL_GLOBAL, 0, str(d, "$weak")}};
    cr_assert_eq(heapfmt_write_root_labeled(d->w, str(d, "global_tbl"),
                                            globals, gl, 3),
                 HEAPFMT_OK);
    tdump_finish(d);
}

/* The cache heap, written and loaded into g (weak references kept when
 * keep_weak). */
static void load_cache(tdump *d, graph *g, int keep_weak)
{
    write_cache(d);
    cr_assert_eq(load(g, d->path, keep_weak), AN_OK);
}

Test(graph_load, roots_labels_dangling_and_duplicates)
{
    tdump d;
    graph g;
    load_cache(&d, &g, 1);
    cr_assert_eq(g.nobjects, 106u);
    cr_assert_eq(g.nroots, 1u);
    cr_assert_eq(g.dangling, 1u, "0xdead is not in the dump");
    cr_assert_eq(g.duplicates, 1u, "0x8000 twice");
    cr_assert_eq(g.weak_dropped, 0u);
    cr_assert(g.labeled);
    char buf[64];
    uint32_t root = g.nobjects, hash = node_of(&g, 0x5000);
    cr_assert_str_eq(label_of(&g, root, hash, buf, sizeof buf), "$cache");
    cr_assert_str_eq(label_of(&g, hash, node_of(&g, 0x10000 + 40 * 7), buf,
                              sizeof buf),
                     "[req-7]");
    cr_assert_str_eq(label_of(&g, node_of(&g, 0x6000), node_of(&g, 0x10000),
                              buf, sizeof buf),
                     "[0]");
    cr_assert_str_eq(label_of(&g, node_of(&g, 0x7000), node_of(&g, 0x9000),
                              buf, sizeof buf),
                     "(weak)");
    size_t len;
    const char *k = graph_root_kind(&g, root, &len);
    cr_assert_eq(len, 10u);
    cr_assert(memcmp(k, "global_tbl", 10) == 0);
    graph_free(&g);
    unlink(d.path);
}

/* Left as ids (referrers of given ids), the references are those the
 * resolved graph has, in the same order with the same labels, plus the
 * dangling one; nothing is indexed or counted. */
Test(graph_load, target_ids_are_the_references_unresolved)
{
    tdump d;
    graph r, t;
    load_cache(&d, &r, 1);
    graph_options o = {.keep_weak = 1, .keep_labels = 1, .keep_objects = 1,
                       .target_ids = 1};
    cr_assert_eq(graph_load(&t, d.path, &o), AN_OK);
    cr_assert_null(t.dst);
    cr_assert(!id_index_built(&t.index));
    cr_assert_eq(t.dangling + t.duplicates, 0u, "nothing resolved");
    cr_assert_eq(t.nnodes, r.nnodes);
    cr_assert_eq(t.nedges, r.nedges + 1, "0xdead stays");
    size_t dead = 0;
    for (uint32_t v = 0; v < t.nnodes; v++) {
        size_t er = r.off[v];
        for (size_t e = t.off[v]; e < t.off[v + 1]; e++) {
            uint64_t id = t.target_id[e];
            uint32_t node;
            if (!graph_find(&t, id, &node)) {
                cr_assert_eq(id, 0xdeadu);
                dead++;
                continue;
            }
            cr_assert_lt(er, r.off[v + 1]);
            cr_assert_eq(r.id[r.dst[er]], id, "edge %zu of node %u", e, v);
            char a[64], b[64];
            graph_label_text(&r, er, a, sizeof a);
            graph_label_text(&t, e, b, sizeof b);
            cr_assert_str_eq(b, a);
            er++;
        }
        cr_assert_eq(er, r.off[v + 1]);
    }
    cr_assert_eq(dead, 1u);
    graph_free(&r);
    graph_free(&t);
    unlink(d.path);
}

Test(graph_load, weak_references_hold_nothing)
{
    tdump d;
    graph g;
    load_cache(&d, &g, 0);
    cr_assert_eq(g.weak_dropped, 1u);
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 0), 0);
    cr_assert_eq(dom_retained(&g, &t), 0);
    uint32_t *pre = dom_numbers(&g, &t);
    cr_assert_eq(pre[node_of(&g, 0x9000)], GRAPH_NONE,
                 "only a weak reference: unreachable");
    /* 0x8000 (both copies) and 0x9000 are held by nothing. */
    cr_assert_eq(t.unreachable, 3u);
    /* The Hash retains itself and the 99 requests only it holds. */
    cr_assert_eq(t.retained[pre[node_of(&g, 0x5000)]], 168u + 99u * 40u);
    /* Request 0 is held by the Hash and the Array: the root node owns it. */
    uint32_t r0 = pre[node_of(&g, 0x10000)];
    cr_assert(graph_is_root(&g, t.vertex[t.idom[r0]]));
    free(pre);
    dom_free(&t);
    graph_free(&g);
    unlink(d.path);
}

Test(graph_load, closure_path_goes_through_proc_and_environment)
{
    tdump d;
    tdump_open(&d);
    klass(&d, C_PROC, "Proc");
    klass(&d, C_ENV, "imemo_env");
    klass(&d, C_ARRAY, "Array");
    uint64_t elems[1000];
    for (int i = 0; i < 1000; i++)
        elems[i] = 0x20000 + 40u * (uint64_t)i;
    uint64_t to_env[] = {0x3000}, to_arr[] = {0x4000};
    heapfmt_label lenv[] = {{HEAPFMT_LABEL_OTHER, 0, str(&d, "env")}};
    heapfmt_label larr[] = {{HEAPFMT_LABEL_OTHER, 0, str(&d, "big")}};
    obj(&d, 0x2000, C_PROC, 80, to_env, 1, lenv);
    obj(&d, 0x3000, C_ENV, 72, to_arr, 1, larr);
    obj(&d, 0x4000, C_ARRAY, 8040, elems, 1000, NULL);
    for (int i = 0; i < 1000; i++)
        obj(&d, elems[i], C_ARRAY, 40, NULL, 0, NULL);
    uint64_t r[] = {0x2000};
    heapfmt_label rl[] = {{HEAPFMT_LABEL_CONSTANT, 0, str(&d, "HANDLER")}};
    cr_assert_eq(heapfmt_write_root_labeled(d.w, str(&d, "vm"), r, rl, 1),
                 HEAPFMT_OK);
    tdump_finish(&d);

    graph g;
    cr_assert_eq(load(&g, d.path, 1), AN_OK);
    paths p;
    cr_assert_eq(paths_build(&g, &p), 0);
    uint32_t *nodes, *edges;
    long n = paths_to(&g, &p, node_of(&g, 0x20000 + 40 * 500), &nodes, &edges);
    cr_assert_eq(n, 5);
    char buf[64];
    cr_assert(graph_is_root(&g, nodes[0]));
    cr_assert_eq(g.id[nodes[1]], 0x2000u);
    graph_label_text(&g, edges[1], buf, sizeof buf);
    cr_assert_str_eq(buf, "HANDLER");
    cr_assert_eq(g.id[nodes[2]], 0x3000u);
    graph_label_text(&g, edges[2], buf, sizeof buf);
    cr_assert_str_eq(buf, "env");
    cr_assert_eq(g.id[nodes[3]], 0x4000u);
    graph_label_text(&g, edges[3], buf, sizeof buf);
    cr_assert_str_eq(buf, "big");
    free(nodes);
    free(edges);
    paths_free(&p);
    /* The Proc retains everything: itself, the env, the Array and its
     * 1,000 elements. */
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 1), 0);
    cr_assert_eq(dom_retained(&g, &t), 0);
    uint32_t *pre = dom_numbers(&g, &t);
    cr_assert_eq(t.retained[pre[node_of(&g, 0x2000)]],
                 80u + 72u + 8040u + 1000u * 40u);
    free(pre);
    dom_free(&t);
    graph_free(&g);
    unlink(d.path);
}

Test(graph_load, a_cut_dump_keeps_what_came_before)
{
    tdump d;
    write_cache(&d);
    unsigned char *data;
    size_t len;
    cr_assert_eq(tread_file(d.path, &data, &len), 0);
    /* Cut in the middle of the footer: every data block is whole. */
    FILE *f = fopen(d.path, "wb");
    cr_assert(f != NULL);
    cr_assert_eq(fwrite(data, 1, len - 40, f), len - 40);
    fclose(f);
    free(data);
    graph g;
    int rc = load(&g, d.path, 1);
    cr_assert_eq(rc, AN_INCOMPLETE);
    cr_assert_eq(g.nobjects, 106u, "every object of the whole blocks");
    graph_free(&g);
    unlink(d.path);
}

Test(graph_load, labels_of_big_indexes_are_exact)
{
    tdump d;
    tdump_open(&d);
    klass(&d, C_ARRAY, "Array");
    /* Index labels that do not fit the 28 bits of a stored label. */
    uint64_t refs[] = {0x2000, 0x2028};
    heapfmt_label l[] = {{HEAPFMT_LABEL_INDEX, 0, 1ull << 40},
                         {HEAPFMT_LABEL_INDEX, 1, (1u << 28) - 1}};
    obj(&d, 0x1000, C_ARRAY, 40, refs, 2, l);
    obj(&d, 0x2000, C_ARRAY, 40, NULL, 0, NULL);
    obj(&d, 0x2028, C_ARRAY, 40, NULL, 0, NULL);
    tdump_finish(&d);
    graph g;
    cr_assert_eq(load(&g, d.path, 1), AN_OK);
    char buf[64];
    cr_assert_str_eq(label_of(&g, 0, 1, buf, sizeof buf), "[1099511627776]");
    cr_assert_str_eq(label_of(&g, 0, 2, buf, sizeof buf),
                     "[268435455] (weak)");
    graph_free(&g);
    unlink(d.path);
}

/* ---- an object's class is a reference ---- */

/* The ids of the class objects, written as objects of class Class. */
enum { K_CLASS = 0xc000, K_FOO = 0xc100, K_SINGLE = 0xc200, K_GONE = 0xc300,
       K_LISTED = 0xc400 };

/* The number of edges src -> dst, and the text of the last one's label. */
static int edges_to(const graph *g, uint32_t src, uint32_t dst, char *buf,
                    size_t cap)
{
    int n = 0;
    buf[0] = '\0';
    for (uint32_t e = g->off[src]; e < g->off[src + 1]; e++)
        if (g->dst[e] == dst) {
            graph_label_text(g, e, buf, cap);
            n++;
        }
    return n;
}

/* Foo's instance 0x1000 (held by $foo) references nothing; the class
 * Foo (0xc100) is held by the constant root. 0x2000 is an object whose
 * singleton class 0xc200 holds a method entry 0x3000 -> Proc 0x4000 ->
 * Array 0x5000 (the leak): nothing else references the singleton class.
 * 0x6000's class 0xc300 is not in the dump; 0x7000 lists its class
 * 0xc400 among its references, labeled. Class is its own class. */
static void write_classes(tdump *d)
{
    tdump_open(d);
    klass(d, K_CLASS, "Class");
    klass(d, K_FOO, "Foo");
    heapfmt_class single = {K_SINGLE, "", 0, K_FOO, HEAPFMT_CF_SINGLETON};
    cr_assert_eq(heapfmt_write_class(d->w, &single), HEAPFMT_OK);
    klass(d, K_GONE, "Gone");
    klass(d, K_LISTED, "Listed");
    obj(d, K_CLASS, K_CLASS, 200, NULL, 0, NULL);
    obj(d, K_FOO, K_CLASS, 200, NULL, 0, NULL);
    uint64_t me[] = {0x3000};
    obj(d, K_SINGLE, K_CLASS, 200, me, 1, NULL);
    obj(d, K_LISTED, K_CLASS, 200, NULL, 0, NULL);
    obj(d, 0x1000, K_FOO, 40, NULL, 0, NULL);
    obj(d, 0x2000, K_SINGLE, 40, NULL, 0, NULL);
    uint64_t to_proc[] = {0x4000}, to_arr[] = {0x5000};
    obj(d, 0x3000, 0, 40, to_proc, 1, NULL);
    obj(d, 0x4000, K_FOO, 80, to_arr, 1, NULL);
    obj(d, 0x5000, K_FOO, 4000, NULL, 0, NULL);
    obj(d, 0x6000, K_GONE, 40, NULL, 0, NULL);
    uint64_t listed[] = {K_LISTED};
    heapfmt_label ll[] = {{HEAPFMT_LABEL_OTHER, 0, str(d, "klass")}};
    obj(d, 0x7000, K_LISTED, 40, listed, 1, ll);
    uint64_t consts[] = {K_CLASS, K_FOO, K_LISTED};
    cr_assert_eq(heapfmt_write_root(d->w, str(d, "vm"), consts, 3),
                 HEAPFMT_OK);
    uint64_t globals[] = {0x1000, 0x2000, 0x6000, 0x7000};
    cr_assert_eq(heapfmt_write_root(d->w, str(d, "global_tbl"), globals, 4),
                 HEAPFMT_OK);
    tdump_finish(d);
}

Test(graph_load, the_class_is_a_labeled_reference)
{
    tdump d;
    write_classes(&d);
    graph g;
    cr_assert_eq(load(&g, d.path, 0), AN_OK);
    char buf[64];
    cr_assert_eq(edges_to(&g, node_of(&g, 0x1000), node_of(&g, K_FOO), buf,
                          sizeof buf),
                 1);
    cr_assert_str_eq(buf, "(class)");
    cr_assert_eq(edges_to(&g, node_of(&g, 0x2000), node_of(&g, K_SINGLE),
                          buf, sizeof buf),
                 1);
    cr_assert_str_eq(buf, "(class)");
    /* listed by the producer: one edge, with its own label */
    cr_assert_eq(edges_to(&g, node_of(&g, 0x7000), node_of(&g, K_LISTED),
                          buf, sizeof buf),
                 1);
    cr_assert_str_eq(buf, "klass");
    /* Class, its own class: no edge to itself */
    uint32_t c = node_of(&g, K_CLASS);
    cr_assert_eq(edges_to(&g, c, c, buf, sizeof buf), 0);
    /* a class not in the dump: no edge, nothing dangling */
    uint32_t gone = node_of(&g, 0x6000);
    cr_assert_eq(g.off[gone + 1] - g.off[gone], 0u);
    cr_assert_eq(g.dangling, 0u);
    /* 0x2000, 0x4000, 0x5000, 0x1000, Foo, the singleton (Class's and
     * 0x3000's class are none), Listed and 0x7000's: 7 edges of 9 objects
     * with a class object here. */
    cr_assert_eq(g.class_edges, 7u);
    graph_free(&g);

    graph_options o = {.keep_labels = 1, .keep_index = 1, .keep_objects = 1};
    cr_assert_eq(graph_load(&g, d.path, &o), AN_OK);
    cr_assert_eq(g.class_edges, 0u, "without class_refs");
    cr_assert_eq(edges_to(&g, node_of(&g, 0x1000), node_of(&g, K_FOO), buf,
                          sizeof buf),
                 0);
    graph_free(&g);
    unlink(d.path);
}

/* What a singleton class holds is alive, owned by the singleton's object,
 * and reached through it (Ruby's define_singleton_method). */
Test(graph_load, a_singleton_class_holds_its_methods)
{
    tdump d;
    write_classes(&d);
    graph g;
    cr_assert_eq(load(&g, d.path, 0), AN_OK);
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 0), 0);
    cr_assert_eq(dom_retained(&g, &t), 0);
    cr_assert_eq(t.unreachable, 0u);
    uint32_t *pre = dom_numbers(&g, &t);
    uint32_t arr = pre[node_of(&g, 0x5000)], obj2 = pre[node_of(&g, 0x2000)];
    cr_assert_neq(arr, GRAPH_NONE, "the leak is alive");
    cr_assert_eq(t.vertex[t.idom[pre[node_of(&g, K_SINGLE)]]],
                 node_of(&g, 0x2000), "the object owns its singleton");
    cr_assert_eq(t.retained[obj2], 40u + 200u + 40u + 80u + 4000u);
    free(pre);
    dom_free(&t);

    paths p;
    cr_assert_eq(paths_build(&g, &p), 0);
    uint32_t *nodes, *edges;
    long n = paths_to(&g, &p, node_of(&g, 0x5000), &nodes, &edges);
    cr_assert_eq(n, 6);
    uint64_t want[] = {0x2000, K_SINGLE, 0x3000, 0x4000, 0x5000};
    for (int i = 1; i < 6; i++)
        cr_assert_eq(g.id[nodes[i]], want[i - 1], "hop %d", i);
    char buf[64];
    graph_label_text(&g, edges[2], buf, sizeof buf);
    cr_assert_str_eq(buf, "(class)");
    free(nodes);
    free(edges);
    paths_free(&p);
    graph_free(&g);
    unlink(d.path);
}

/* Of the shortest paths, one through references wins over one through a
 * class edge; a shorter one through a class edge wins over a longer one.
 * $a -> instance -> (class) Foo -> 0x9000 is three hops; $b -> 0x8100
 * (-> 0x8200) -> 0x8300 -> 0x9000 three or four. */
static void write_two_ways(tdump *d, int other_way, int longer)
{
    tdump_open(d);
    klass(d, K_CLASS, "Class");
    klass(d, K_FOO, "Foo");
    uint64_t held[] = {0x9000};
    obj(d, K_FOO, K_CLASS, 200, held, 1, NULL);
    obj(d, 0x1000, K_FOO, 40, NULL, 0, NULL);
    uint64_t c1[] = {longer ? 0x8200 : 0x8300}, c2[] = {0x8300};
    obj(d, 0x8100, 0, 40, c1, 1, NULL);
    obj(d, 0x8200, 0, 40, c2, 1, NULL);
    obj(d, 0x8300, 0, 40, held, 1, NULL);
    obj(d, 0x9000, 0, 40, NULL, 0, NULL);
    uint64_t globals[] = {0x1000, 0x8100};
    cr_assert_eq(heapfmt_write_root(d->w, str(d, "global_tbl"), globals,
                                    other_way ? 2 : 1),
                 HEAPFMT_OK);
    tdump_finish(d);
}

Test(graph_load, paths_prefer_references_to_class_edges)
{
    static const struct {
        int other, longer;
        long hops;
        uint64_t second; /* the object after the root */
    } cases[] = {{1, 0, 4, 0x8100}, {1, 1, 4, 0x1000}, {0, 0, 4, 0x1000}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tdump d;
        write_two_ways(&d, cases[c].other, cases[c].longer);
        graph g;
        cr_assert_eq(load(&g, d.path, 0), AN_OK);
        paths p;
        cr_assert_eq(paths_build(&g, &p), 0);
        uint32_t *nodes, *edges;
        long n = paths_to(&g, &p, node_of(&g, 0x9000), &nodes, &edges);
        cr_assert_eq(n, cases[c].hops, "case %zu", c);
        cr_assert_eq(g.id[nodes[1]], cases[c].second, "case %zu", c);
        if (cases[c].second == 0x1000) {
            char buf[64];
            graph_label_text(&g, edges[2], buf, sizeof buf);
            cr_assert_str_eq(buf, "(class)");
        }
        for (long i = 1; i < n; i++) /* each hop is an edge of the graph */
            cr_assert_eq(g.dst[edges[i]], nodes[i]);
        free(nodes);
        free(edges);
        paths_free(&p);
        graph_free(&g);
        unlink(d.path);
    }
}

/* The way dominators loads (no kinds kept: each object's class slot
 * apart; edges dropped, class edges taken apart) and the way referrers of
 * given ids loads (references left as ids) give the same class edges. */
Test(graph_load, class_edges_without_kinds_and_as_ids)
{
    tdump d;
    write_classes(&d);
    graph g;
    graph_options o = {.class_refs = 1};
    cr_assert_eq(graph_load(&g, d.path, &o), AN_OK);
    cr_assert_eq(g.class_edges, 7u);
    cr_assert_null(g.label);
    dom_tree t;
    cr_assert_eq(dom_build(&g, &t, 1), 0);
    cr_assert_null(g.dst, "the edges are dropped");
    cr_assert_eq(graph_reread(&g, d.path), AN_OK);
    cr_assert_eq(dom_retained(&g, &t), 0);
    cr_assert_eq(t.unreachable, 0u);
    uint32_t *pre = dom_numbers(&g, &t);
    uint32_t v;
    cr_assert(graph_find(&g, 0x2000, &v));
    cr_assert_eq(t.retained[pre[v]], 40u + 200u + 40u + 80u + 4000u);
    free(pre);
    dom_free(&t);
    graph_free(&g);

    graph_options ids = {.class_refs = 1, .keep_labels = 1,
                         .keep_objects = 1, .target_ids = 1};
    cr_assert_eq(graph_load(&g, d.path, &ids), AN_OK);
    /* nothing resolves ids: 0x6000's class, not in the dump, has one too
     * (no given id can be it: referrers finds each in the dump first) */
    cr_assert_eq(g.class_edges, 8u);
    cr_assert(graph_find(&g, 0x2000, &v));
    uint32_t last = g.off[v + 1] - 1;
    cr_assert_eq(g.target_id[last], (uint64_t)K_SINGLE);
    char buf[64];
    graph_label_text(&g, last, buf, sizeof buf);
    cr_assert_str_eq(buf, "(class)");
    cr_assert(graph_find(&g, 0x7000, &v));
    cr_assert_eq(g.off[v + 1] - g.off[v], 1u, "listed already: no second");
    graph_free(&g);
    unlink(d.path);
}

/* Without kinds, an object's class slot is kept in 1, 2 or 4 bytes, the
 * array widening as slots grow (graph.h, graph_class_slots): the class
 * edges must be those the kinds give, across both widenings. */
Test(graph_load, class_slots_widen_to_the_largest)
{
    enum { NCLASSES = 70000 };
    tdump d;
    tdump_open(&d);
    char name[32];
    for (uint64_t k = 1; k <= NCLASSES; k++) {
        snprintf(name, sizeof name, "C%llu", (unsigned long long)k);
        klass(&d, 0x100000 + 16 * k, name);
    }
    /* slot k is class k (slot 0: no class): a small one, one past 255,
     * one past 65535, then small ones again */
    static const uint64_t use[] = {1, 7, 200, 300, 2, 66000, 5, 255, 256,
                                   65535, 65536, 69999, 3};
    const size_t nuse = sizeof use / sizeof *use;
    uint64_t root_refs[sizeof use / sizeof *use];
    for (size_t i = 0; i < nuse; i++) {
        uint64_t k = use[i];
        /* the class's object, of class C1 (C1's own: no edge) */
        obj(&d, 0x100000 + 16 * k, 0x100000 + 16, 40, NULL, 0, NULL);
        root_refs[i] = 0x10 + 16 * i;
        obj(&d, root_refs[i], 0x100000 + 16 * k, 24, NULL, 0, NULL);
    }
    cr_assert_eq(heapfmt_write_root(d.w, str(&d, "stack"), root_refs, nuse),
                 HEAPFMT_OK);
    tdump_finish(&d);

    graph a, b;
    graph_options slots = {.class_refs = 1};
    graph_options kinds = {.class_refs = 1, .keep_objects = 1};
    cr_assert_eq(graph_load(&a, d.path, &slots), AN_OK);
    cr_assert_eq(graph_load(&b, d.path, &kinds), AN_OK);
    cr_assert_eq(a.class_edges, 2 * nuse - 1, "%llu class edges",
                 (unsigned long long)a.class_edges); /* C1 is its own */
    cr_assert_eq(a.class_edges, b.class_edges);
    cr_assert_eq(a.nnodes, b.nnodes);
    cr_assert_eq(memcmp(a.off, b.off, (a.nnodes + 1) * sizeof *a.off), 0);
    cr_assert_eq(memcmp(a.dst, b.dst, a.nedges * sizeof *a.dst), 0);
    graph_free(&a);
    graph_free(&b);
    unlink(d.path);
}
