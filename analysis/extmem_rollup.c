/* extmem_rollup.c -- dominators --by=class|site for --temp-dir: retained
 * sizes summed by group, as rollup.c sums them, without the graph.
 *
 * Why shaped so: rollup.c walks the dominator tree with the graph's kinds
 * and sizes resident (20 B/object of objects beside the tree's 16). Here
 * the tree's children lists are built from idom (8 B/object; idom then
 * goes), one more read of the dump gives each reachable object's group
 * by preorder number (4 B/object; the preorder numbers come back from
 * their file in file order) and the rows' objects and bytes, and the
 * walk keeps on its stack only the path from the virtual root (8 bytes a
 * level), not every child waiting: 20 B/object at the peak, with the
 * retained sizes. Groups are numbered in the order their first object
 * comes in the file, reachable or not, which is the order rollup.c's
 * kinds give them: ties sort the same. */
#include <string.h>

#include "dump_read.h"
#include "diff_summary.h"
#include "extmem.h"

typedef struct grouper {
    extmem_tree *t;
    rollup *r;
    unsigned by;
    uint32_t *group; /* [n] by preorder number, GRAPH_NONE: no object */
    size_t cap_rows;
    uint32_t next;
    int failed;      /* 1 the file changed, 2 a temporary file, 3 memory */
} grouper;

static int on_group(void *opaque, heapfmt_reader *rd, const heapfmt_record *rec)
{
    grouper *gr = opaque;
    (void)rd;
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    uint32_t p;
    if ((gr->failed = extmem_next_pre(gr->t, &gr->t->pre, &gr->next, &p)) != 0)
        return AN_ERROR;
    const heapfmt_robject *o = rec->u.object;
    tuple k = xkind_of(o);
    tuple key = summary_group_key(&k, gr->by);
    uint32_t g;
    rollup *r = gr->r;
    if (tuples_intern(&r->groups, &key, &g) != 0 ||
        diff_mem_reserve(r->mem, (void **)&r->rows, &gr->cap_rows,
                         (size_t)g + 1, sizeof *r->rows) != 0) {
        gr->failed = 3;
        return AN_ERROR;
    }
    while (r->nrows <= g) {
        memset(&r->rows[r->nrows], 0, sizeof *r->rows);
        r->rows[r->nrows].group = (uint32_t)r->nrows;
        r->nrows++;
    }
    if (p != GRAPH_NONE) {
        gr->group[p] = g;
        r->rows[g].objects++;
        r->rows[g].bytes += o->size;
    }
    return 0;
}

/* The children of each node of the tree: start[p] .. start[p + 1] index
 * child. Returns 0 or -1. */
static int children(const extmem_tree *t, uint32_t **start, uint32_t **child)
{
    const diff_mem *m = t->x.mem;
    size_t n = t->n;
    *start = diff_mem_alloc(m, (n + 1) * sizeof **start);
    *child = diff_mem_alloc(m, (n ? n : 1) * sizeof **child);
    if (*start == NULL || *child == NULL)
        return -1;
    uint32_t *st = *start;
    memset(st, 0, (n + 1) * sizeof *st);
    for (uint32_t p = 1; p < n; p++)
        st[t->idom[p] + 1]++;
    for (uint32_t p = 0; p < n; p++)
        st[p + 1] += st[p];
    for (uint32_t p = 1; p < n; p++)
        (*child)[st[t->idom[p]]++] = p;
    /* st[p] is now the end of p's list: the start of p + 1's */
    memmove(st + 1, st, n * sizeof *st);
    st[0] = 0;
    return 0;
}

typedef struct level {
    uint32_t p;
    uint32_t next; /* its next child, an index of child */
} level;

/* An object counts its retained size for its group when none of its
 * dominators is of that group: active[g] counts those on the path. */
static int walk(const extmem_tree *t, const uint32_t *start,
                const uint32_t *child, const uint32_t *group, rollup *r)
{
    const diff_mem *m = t->x.mem;
    size_t ng = r->nrows ? r->nrows : 1, cap = 0, depth = 0;
    uint32_t *active = diff_mem_alloc(m, ng * sizeof *active);
    level *path = NULL;
    int rc = -1;
    if (active == NULL ||
        diff_mem_reserve(m, (void **)&path, &cap, 1, sizeof *path) != 0)
        goto out;
    memset(active, 0, ng * sizeof *active);
    path[depth++] = (level){0, start[0]};
    while (depth > 0) {
        level *l = &path[depth - 1];
        if (l->next == start[l->p + 1]) { /* leaving p */
            if (group[l->p] != GRAPH_NONE)
                active[group[l->p]]--;
            depth--;
            continue;
        }
        uint32_t c = child[l->next++];
        uint32_t g = group[c];
        if (g != GRAPH_NONE && active[g]++ == 0)
            r->rows[g].retained += t->retained[c];
        if (diff_mem_reserve(m, (void **)&path, &cap, depth + 1,
                             sizeof *path) != 0)
            goto out;
        path[depth++] = (level){c, start[c]};
    }
    rc = 0;
out:
    diff_mem_free(m, active);
    diff_mem_free(m, path);
    return rc;
}

int extmem_rollup(extmem_tree *t, const char *path, unsigned by, rollup *r,
                  graph *names)
{
    const diff_mem *m = t->x.mem;
    const char *name = t->meta.d.name;
    memset(r, 0, sizeof *r);
    r->mem = m;
    tuples_init(&r->groups, m, UINT32_MAX - 1);
    memset(names, 0, sizeof *names);
    names->mem = m;
    names->d.fd = -1;
    tuples_init(&names->kinds, m, UINT32_MAX - 1);
    uint32_t *start = NULL, *child = NULL, *group = NULL;
    int rc = AN_ERROR;
    if (children(t, &start, &child) != 0)
        goto nomem;
    DIFF_MEM_DROP(m, t->idom);
    diff_mem_trim(m); /* its pages too (extmem_load.c) */
    group = diff_mem_alloc(m, (t->n ? t->n : 1) * sizeof *group);
    if (group == NULL)
        goto nomem;
    memset(group, 0xff, (t->n ? t->n : 1) * sizeof *group); /* GRAPH_NONE */
    if (xfile_rewind(&t->pre) != 0) {
        rc = xfile_error(&t->pre);
        goto out;
    }
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    names->alloc = diff_mem_heapfmt(m);
    ro.allocator = &names->alloc;
    int orc = an_dump_open(&names->d, path, &ro, t->x.ctx);
    if (orc == AN_INCOMPLETE && t->meta.nobjects == 0) {
        size_t cap = 0; /* cut inside its header: no group, no row */
        rc = diff_mem_reserve(m, (void **)&r->rows, &cap, 1,
                              sizeof *r->rows) != 0
                 ? AN_ERROR
                 : AN_OK;
        goto out;
    }
    if (orc != AN_OK) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        goto out;
    }
    names->d.name = name;
    grouper gr = {t, r, by, group, 0, 0, 0};
    /* rows never NULL: rollup_sort's qsort wants an array */
    if (diff_mem_reserve(m, (void **)&r->rows, &gr.cap_rows, 1,
                         sizeof *r->rows) != 0)
        goto nomem;
    int src = an_scan(&names->d, on_group, &gr, t->x.ctx);
    if (gr.failed == 3)
        goto nomem;
    if (gr.failed == 2) {
        rc = xfile_error(&t->pre);
        goto out;
    }
    if (gr.failed == 1 || (src != AN_OK && src != AN_INCOMPLETE) ||
        gr.next != t->meta.nobjects) {
        an_fail(t->x.ctx, AN_ERROR, name, "the file changed while it was read");
        goto out;
    }
    if (walk(t, start, child, group, r) != 0)
        goto nomem;
    rollup_sort(r);
    rc = AN_OK;
    goto out;
nomem:
    an_fail(t->x.ctx, AN_ERROR, name, "out of memory");
out:
    diff_mem_free(m, start);
    diff_mem_free(m, child);
    diff_mem_free(m, group);
    return rc;
}
