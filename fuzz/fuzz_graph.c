/*
 * fuzz_graph.c -- heapfmt-graph's loader and algorithms over any dump.
 *
 * Two kinds of input, by the first byte: a dump as it is (byte 0 even),
 * or (odd) a program that writes a valid dump with libheapfmt -- objects
 * over a small id space with references among them (cycles, self
 * references, ids that are not in the dump, repeated ids), labels and
 * weak flags, roots -- so that the checks reach deep graphs and not only
 * blocks that fail their CRC. Either way the dump goes to a temporary
 * file (the loader reads a path, and dominators read a file twice), in
 * /dev/shm when there is one.
 * Options come from a hash of the input: weak references kept or not,
 * labels, the id index, objects kept or read again later.
 *
 * Checks:
 *   - graph_load gives one of its three statuses; with OK or
 *     INCOMPLETE, the graph is well formed: offsets non-decreasing from 0
 *     to nedges, every target a node, the virtual root past the nodes,
 *     every label decodes, every kind names its class;
 *   - the dominator tree: a dominator always precedes what it dominates
 *     in preorder; the virtual root retains exactly the reachable objects'
 *     bytes; an object's retained size is at least its own;
 *   - shortest paths: each hop follows a real edge, starts at a root and
 *     has as many hops as the distance says;
 *   - rollups by class and by site count every reachable object once;
 *   - reading the file again (graph_reread) gives the same object count;
 *   - the external-memory path (extmem.h, dominators --temp-dir), with a
 *     stack ring of a few frames and buckets of a few predecessors so
 *     that every spill is taken, finds the same tree: the same preorder,
 *     immediate dominators, retained sizes and unreachable count;
 *   - memory is bounded by the input: every allocation goes through a
 *     counting hook and the total never passes a multiple of the decoded
 *     input plus a constant (no allocation by a claimed count).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "domtree.h"
#include "extmem.h"
#include "fuzz_util.h"
#include "graph.h"
#include "shortest_paths.h"
#include "rollup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The loader's warnings are not findings: stderr goes to /dev/null while
 * the harness runs, and comes back before a finding is reported. Both
 * descriptors are opened once: two system calls per input, not four. */
static int saved_stderr = -1, null_fd = -1;

static void quiet(void)
{
    if (saved_stderr < 0)
        saved_stderr = dup(2);
    if (null_fd < 0)
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        fflush(stderr);
        dup2(null_fd, 2);
    }
}

static void loud(void)
{
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, 2);
    }
}

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            loud();                                                           \
            fz_fail(__VA_ARGS__);                                             \
        }                                                                     \
    } while (0)

/* Bytes live through the graph's memory hook, and the most at once. */
typedef struct counted {
    size_t live, peak;
} counted;

typedef struct hdr {
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned */
} hdr;

static void *counted_resize(void *opaque, void *ptr, size_t size)
{
    counted *c = opaque;
    hdr *h = ptr ? (hdr *)ptr - 1 : NULL;
    size_t old = h ? h->size : 0;
    if (size == 0) {
        c->live -= old;
        free(h);
        return NULL;
    }
    hdr *n = realloc(h, sizeof *n + size);
    if (n == NULL)
        return NULL;
    n->size = size;
    c->live = c->live - old + size;
    if (c->live > c->peak)
        c->peak = c->live;
    return n + 1;
}

static void check_graph(const graph *g)
{
    CHECK(g->nnodes == g->nobjects + g->nroots, "node count");
    CHECK(g->off[0] == 0, "first offset %u", g->off[0]);
    for (uint32_t v = 0; v < g->nnodes; v++)
        CHECK(g->off[v] <= g->off[v + 1], "offsets decrease at %u", v);
    CHECK(g->off[g->nnodes] == g->nedges, "last offset");
    for (size_t e = 0; e < g->nedges; e++) {
        CHECK(g->dst[e] < g->nnodes, "edge %zu to %u", e, g->dst[e]);
        char buf[64];
        graph_label_text(g, e, buf, sizeof buf);
        CHECK(graph_edge_source(g, e) < g->nnodes, "edge source");
    }
    for (uint32_t v = 0; v < g->nobjects; v++) {
        graph_kind_text t;
        graph_kind_text_of(g, g->kind[v], &t);
        CHECK(t.klass != NULL && t.klass_len > 0, "class name");
    }
}

/* The nodes a plain breadth-first search reaches, class edges or not:
 * the paths (which take class edges last) must reach the same. */
static size_t reachable(const graph *g)
{
    size_t n = (size_t)g->nnodes + 1, count = 0;
    unsigned char *seen = calloc(n, 1);
    uint32_t *queue = malloc(n * sizeof *queue);
    size_t head = 0, tail = 0;
    if (seen != NULL && queue != NULL) {
        for (uint32_t r = g->nobjects; r < g->nnodes; r++) {
            seen[r] = 1;
            queue[tail++] = r;
        }
        while (head < tail) {
            uint32_t u = queue[head++];
            count++;
            for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++)
                if (!seen[g->dst[e]]) {
                    seen[g->dst[e]] = 1;
                    queue[tail++] = g->dst[e];
                }
        }
    }
    free(seen);
    free(queue);
    return count;
}

static void check_paths(const graph *g)
{
    paths p;
    if (paths_build(g, &p) != 0)
        return;
    size_t found = 0;
    for (uint32_t v = 0; v < g->nnodes; v++)
        found += p.dist[v] != GRAPH_NONE;
    CHECK(found == reachable(g), "paths reach %zu nodes of %zu", found,
          reachable(g));
    for (uint32_t v = 0; v < g->nnodes && v < 64; v++) {
        uint32_t *nodes, *edges;
        long n = paths_to(g, &p, v, &nodes, &edges);
        if (n <= 0) {
            CHECK(n == 0, "paths_to failed");
            CHECK(p.dist[v] == GRAPH_NONE, "reachable %u without path", v);
            continue;
        }
        CHECK((uint32_t)n == p.dist[v], "path length %ld", n);
        CHECK(graph_is_root(g, nodes[0]), "a path starts at a root");
        CHECK(nodes[n - 1] == v, "a path ends at its node");
        for (long i = 1; i < n; i++) {
            CHECK(g->dst[edges[i]] == nodes[i], "hop %ld edge", i);
            CHECK(graph_edge_source(g, edges[i]) == nodes[i - 1],
                     "hop %ld source", i);
        }
        diff_mem_free(g->mem, nodes);
        diff_mem_free(g->mem, edges);
    }
    paths_free(&p);
}

static const char *temp_dir(void);

/* The same tree through files: ring and bucket from h, small enough that
 * the stack spills and predecessors split over many buckets. Memory is
 * counted on its own: the files' buffers are fixed (1 MiB each). */
static void check_external(const graph *g, const dom_tree *t,
                           const char *path, const graph_options *o,
                           uint64_t h)
{
    counted c = {0, 0};
    diff_mem mem = {counted_resize, &c, NULL};
    an_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    graph_query q;
    memset(&q, 0, sizeof q);
    q.weak = o->keep_weak;
    q.no_class_refs = !o->class_refs;
    q.mem = &mem;
    q.ctx = &ctx;
    extmem_settings s = EXTMEM_SETTINGS_INIT;
    s.dir = temp_dir();
    s.ring = 2 + (h >> 8) % 64;
    s.bucket = 64 + 8 * ((h >> 16) % 512);
    extmem_tree x;
    int rc = extmem_dominators(&q, path, &s, &x);
    if (rc == AN_OK || rc == AN_INCOMPLETE) {
        CHECK(x.n == t->n, "external: %u nodes in the tree, in memory %u",
              x.n, t->n);
        for (uint32_t p = 1; p < x.n && p < t->n; p++) {
            CHECK(x.idom[p] == t->idom[p], "external: idom(%u) = %u, in "
                  "memory %u", p, x.idom[p], t->idom[p]);
            CHECK(x.retained[p] == t->retained[p], "external: retained(%u)"
                  " = %llu, in memory %llu", p,
                  (unsigned long long)x.retained[p],
                  (unsigned long long)t->retained[p]);
        }
        CHECK(x.unreachable == t->unreachable, "external: %llu unreachable,"
              " in memory %llu", (unsigned long long)x.unreachable,
              (unsigned long long)t->unreachable);
    } else {
        CHECK(rc == AN_ERROR, "extmem_dominators returned %d", rc);
    }
    (void)g;
    extmem_tree_free(&x);
    CHECK(c.live == 0, "external: %zu bytes left allocated", c.live);
}

static void check_tree(graph *g, const char *path, int reread,
                       const graph_options *o, uint64_t h)
{
    dom_tree t;
    if (dom_build(g, &t, reread) != 0)
        return;
    if (reread) {
        int rc = graph_reread(g, path);
        CHECK(rc == AN_OK || rc == AN_INCOMPLETE,
                 "the same file read again fails: %d", rc);
    }
    if (dom_retained(g, &t) != 0) {
        dom_free(&t);
        return;
    }
    uint64_t reachable_bytes = 0, reachable = 0;
    for (uint32_t p = 1; p < t.n; p++) {
        CHECK(t.idom[p] < p, "idom(%u) = %u", p, t.idom[p]);
        uint32_t v = t.vertex[p];
        if (v < g->nobjects) {
            reachable++;
            reachable_bytes += g->size[v];
            CHECK(t.retained[p] >= g->size[v], "retained below own");
        }
    }
    CHECK(t.retained[0] == reachable_bytes, "the virtual root retains %llu"
             " of %llu", (unsigned long long)t.retained[0],
             (unsigned long long)reachable_bytes);
    CHECK(t.unreachable == g->nobjects - reachable, "unreachable count");
    for (unsigned by = 1; by <= 3; by++) {
        rollup r;
        if (rollup_build(g, &t, by, &r) == 0) {
            uint64_t objects = 0;
            for (size_t i = 0; i < r.nrows; i++)
                objects += r.rows[i].objects;
            CHECK(objects == reachable, "rollup %u counts %llu of %llu",
                     by, (unsigned long long)objects,
                     (unsigned long long)reachable);
        }
        rollup_free(&r);
    }
    if (reread) /* the load dominators --temp-dir matches: no labels */
        check_external(g, &t, path, o, h);
    dom_free(&t);
}

/* Writes the dump that the program in the input describes to path.
 * Returns 0, or -1 when the writer refused (nothing to check then). */
static int write_program(const char *path, const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = fz_u8(&in) & 1; /* stored or zstd */
    wo.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    heapfmt_writer *w;
    if (heapfmt_writer_open_path(&w, &wo, path) != HEAPFMT_OK)
        return -1;
    static const char *const names[] = {"A", "@b", "c", "$g", "K"};
    uint32_t str[5];
    int rc = HEAPFMT_OK;
    for (int i = 0; i < 5 && rc == HEAPFMT_OK; i++)
        rc = heapfmt_write_string(w, names[i], strlen(names[i]), &str[i]);
    for (uint64_t c = 1; c <= 3 && rc == HEAPFMT_OK; c++) {
        heapfmt_class k = {0x10000 * c, names[c - 1], 1, 0, 0};
        rc = heapfmt_write_class(w, &k);
    }
    uint64_t refs[16];
    heapfmt_label labels[16];
    unsigned nobjects = fz_u8(&in);
    for (unsigned i = 0; i < nobjects && in.n > 0 && rc == HEAPFMT_OK; i++) {
        uint8_t op = fz_u8(&in);
        size_t n = op & 15;
        for (size_t k = 0; k < n; k++) {
            refs[k] = 0x100000 + 8u * (fz_u8(&in) % 96); /* some absent */
            uint8_t l = fz_u8(&in);
            labels[k].kind = l % 7;
            labels[k].weak = (l >> 3) & 1;
            labels[k].value = labels[k].kind == HEAPFMT_LABEL_INDEX
                                  ? (uint64_t)(l >> 4)
                              : labels[k].kind == HEAPFMT_LABEL_NONE
                                  ? 0
                                  : str[(l >> 4) % 5];
        }
        if (op & 0x80) { /* a root */
            rc = heapfmt_write_root_labeled(w, str[op % 5], refs,
                                            (op & 0x40) ? labels : NULL, n);
            continue;
        }
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 0x100000 + 8u * (fz_u8(&in) % 80);
        o.class_id = 0x10000 * (1 + (op >> 4) % 3);
        o.size = fz_u16(&in);
        o.refs = refs;
        o.nrefs = n;
        if (op & 0x40) {
            o.fields = HEAPFMT_F_LABELS;
            o.labels = labels;
        }
        rc = heapfmt_write_object(w, &o);
    }
    if (rc == HEAPFMT_OK)
        rc = heapfmt_writer_finish(w);
    heapfmt_writer_free(w);
    return rc == HEAPFMT_OK ? 0 : -1;
}

/* Where the dump of each input goes: /dev/shm when there is one. On a
 * disk file system every input's file was a flush to the disk when the
 * writer's truncated file was closed (ext4's replace-by-truncate rule):
 * half the time of an input went to the kernel. */
static const char *temp_dir(void)
{
    static const char *dir;
    if (dir == NULL)
        dir = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    quiet();
    char path[64];
    snprintf(path, sizeof path, "%s/fuzz-graph-XXXXXX", temp_dir());
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    int program = size > 0 && (data[0] & 1);
    size_t done = 0;
    while (!program && done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (program && write_program(path, data + 1, size - 1) != 0) {
        unlink(path);
        loud();
        return 0;
    }
    uint64_t h = fz_hash(data, size);
    counted c = {0, 0};
    diff_mem mem = {counted_resize, &c, NULL};
    int reread = (h & 1) != 0;
    graph_options o = {.keep_weak = (h >> 1) & 1,
                       .class_refs = (h >> 3) & 1,
                       .keep_labels = !reread,
                       .keep_index = (h >> 2) & 1,
                       .keep_objects = !reread,
                       .mem = &mem};
    graph g;
    int rc = graph_load(&g, path, &o);
    CHECK(rc == AN_OK || rc == AN_INCOMPLETE ||
                 rc == AN_ERROR,
             "graph_load returned %d", rc);
    if (rc != AN_ERROR) {
        if (!reread) {
            check_graph(&g);
            check_paths(&g);
        }
        check_tree(&g, path, reread, &o, h);
    }
    uint64_t raw = 0;
    if (g.d.reader != NULL) {
        heapfmt_progress p;
        heapfmt_reader_progress(g.d.reader, &p);
        raw = p.raw_bytes;
    }
    graph_free(&g);
    /* Everything the graph took follows what the file holds: an object
     * record is at least 3 decoded bytes and takes under 100 bytes of
     * graph, a reference at least 1 byte and under 24: so at most 96
     * bytes per decoded byte, plus fixed buffers (reader blocks, tables
     * of small sizes). Not by any count a record claims. */
    uint64_t bound = (8u << 20) + 96u * raw;
    CHECK(c.peak <= bound, "peak %zu bytes for %llu decoded bytes",
             c.peak, (unsigned long long)raw);
    CHECK(c.live == 0, "%zu bytes left allocated", c.live);
    unlink(path);
    loud();
    return 0;
}
