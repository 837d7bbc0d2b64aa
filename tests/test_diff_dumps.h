/*
 * test_diff_dumps.h -- dumps of known content for the heapfmt-diff tests,
 * and the answers a diff must give, computed the slow and obvious way.
 *
 * Included by the test_diff*.c files (static inline functions: each test
 * binary gets its own copy, and no warning for the ones it does not use).
 */
#ifndef TEST_DIFF_DUMPS_H
#define TEST_DIFF_DUMPS_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_exit.h"
#include "diff.h"
#include "heapfmt.h"
#include "tio.h"

/* One object of a test dump. */
typedef struct tobj {
    uint64_t id;
    const char *cls;  /* NULL: no class */
    uint64_t size;
    const char *type; /* NULL: none */
    const char *file; /* NULL: no allocation site */
    uint64_t line;
} tobj;

/* The references of an object (td_write_refs). */
typedef struct trefs {
    const uint64_t *ids;
    size_t n;
} trefs;

/* META of a test dump; negative numbers and NULL leave a key out. */
typedef struct tmeta {
    int64_t pid;
    const char *host;
    int64_t start;
    int64_t ids_stable;
    int64_t compactions;
} tmeta;

#define TMETA_NONE {-1, NULL, -1, -1, -1}
#define TMETA_APP {4242, "app-1", 1700000000, 1, 0}

/* td_write flags */
#define TD_SHUFFLE 0x01u      /* objects in random order */
#define TD_REVERSE 0x02u      /* objects in reverse order */
#define TD_LATE_CLASSES 0x04u /* objects first (classes anonymous), names last */
#define TD_SMALL_BLOCKS 0x08u /* 1 KiB blocks: many blocks, for truncation */
#define TD_STORED 0x10u       /* zlib level 0 */

/* A class's object id: any fixed function of the name will do. */
static inline uint64_t td_class_id(const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return 0x5500000000000000ull | (h & 0xfffffffffff0ull);
}

static inline uint32_t td_string(heapfmt_writer *w, const char *s)
{
    uint32_t id = 0;
    if (s != NULL)
        cr_assert_eq(heapfmt_write_string(w, s, strlen(s), &id), HEAPFMT_OK);
    return id;
}

static inline void td_class(heapfmt_writer *w, const char *name)
{
    heapfmt_class c = {td_class_id(name), name, strlen(name), 0, 0};
    cr_assert_eq(heapfmt_write_class(w, &c), HEAPFMT_OK);
}

static inline void td_meta(heapfmt_writer *w, const tmeta *m)
{
    if (m == NULL)
        return;
    if (m->pid >= 0)
        cr_assert_eq(heapfmt_write_meta_uint(w, "pid", (uint64_t)m->pid), 0);
    if (m->host != NULL)
        cr_assert_eq(heapfmt_write_meta_text(w, "host", m->host), 0);
    if (m->start >= 0)
        cr_assert_eq(
            heapfmt_write_meta_uint(w, "process.start", (uint64_t)m->start), 0);
    if (m->ids_stable >= 0)
        cr_assert_eq(heapfmt_write_meta_uint(w, "ids_stable",
                                             (uint64_t)m->ids_stable),
                     0);
    if (m->compactions >= 0)
        cr_assert_eq(heapfmt_write_meta_uint(w, "gc.compactions",
                                             (uint64_t)m->compactions),
                     0);
}

/* The order objects are written in: a permutation of 0..n-1. */
static inline size_t *td_order(size_t n, unsigned flags, uint64_t seed)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    cr_assert_not_null(order);
    for (size_t i = 0; i < n; i++)
        order[i] = (flags & TD_REVERSE) ? n - 1 - i : i;
    if (flags & TD_SHUFFLE) {
        tprng p;
        tprng_seed(&p, seed);
        for (size_t i = n; i > 1; i--) {
            size_t j = (size_t)tprng_below(&p, i);
            size_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    }
    return order;
}

/* Writes a complete dump of v[0..n) to path; refs (NULL for none) holds
 * the references of each object. */
static inline void td_write_refs(const char *path, const tobj *v, size_t n,
                                 const trefs *refs, const tmeta *m,
                                 unsigned flags, uint64_t seed)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    if (flags & TD_SMALL_BLOCKS)
        opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    if (flags & TD_STORED)
        opt.level = 0;
    heapfmt_writer *w = NULL;
    cr_assert_eq(heapfmt_writer_open_path(&w, &opt, path), HEAPFMT_OK,
                 "cannot write %s", path);
    td_meta(w, m);
    if (!(flags & TD_LATE_CLASSES))
        for (size_t i = 0; i < n; i++)
            if (v[i].cls != NULL)
                td_class(w, v[i].cls); /* a repeat is a harmless redefinition */
    size_t *order = td_order(n, flags, seed);
    for (size_t k = 0; k < n; k++) {
        const tobj *t = &v[order[k]];
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = t->id;
        o.class_id = t->cls != NULL ? td_class_id(t->cls) : 0;
        o.type = td_string(w, t->type);
        o.size = t->size;
        if (t->file != NULL) {
            o.fields = HEAPFMT_F_SITE;
            o.file = td_string(w, t->file);
            o.line = t->line;
        }
        if (refs != NULL) {
            o.refs = refs[order[k]].ids;
            o.nrefs = refs[order[k]].n;
        }
        cr_assert_eq(heapfmt_write_object(w, &o), HEAPFMT_OK);
    }
    free(order);
    if (flags & TD_LATE_CLASSES)
        for (size_t i = 0; i < n; i++)
            if (v[i].cls != NULL)
                td_class(w, v[i].cls);
    cr_assert_eq(heapfmt_writer_finish(w), HEAPFMT_OK);
    heapfmt_writer_free(w);
}

static inline void td_write(const char *path, const tobj *v, size_t n,
                            const tmeta *m, unsigned flags, uint64_t seed)
{
    td_write_refs(path, v, n, NULL, m, flags, seed);
}

/* A scratch file name unique to this process (Criterion runs tests in
 * parallel processes). */
static inline const char *td_path(char *buf, size_t size, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, size, "%s/diff-%ld-%s", dir != NULL && *dir ? dir : "/tmp",
             (long)getpid(), name);
    return buf;
}

/* Cuts the file at path to a fraction (num/den) of its size. */
static inline void td_truncate(const char *path, int num, int den)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(truncate(path, st.st_size * num / den), 0);
}

/* ---- the expected answer ---- */

/* One reported object, comparable across the model and the tool. */
typedef struct texp {
    int change; /* DIFF_NEW / DIFF_FREED / DIFF_RETAINED */
    uint64_t id;
    char cls[64];
    uint64_t size;
} texp;

typedef struct texps {
    texp *v;
    size_t n, cap;
} texps;

static inline void texps_add(texps *l, int change, uint64_t id, const char *cls,
                      uint64_t size)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    texp *e = &l->v[l->n++];
    memset(e, 0, sizeof *e);
    e->change = change;
    e->id = id;
    snprintf(e->cls, sizeof e->cls, "%s", cls);
    e->size = size;
}

static inline int texp_cmp(const void *x, const void *y)
{
    const texp *a = x, *b = y;
    if (a->change != b->change)
        return a->change - b->change;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    int c = strcmp(a->cls, b->cls);
    if (c != 0)
        return c;
    return a->size < b->size ? -1 : a->size > b->size;
}

static inline void texps_sort(texps *l)
{
    qsort(l->v, l->n, sizeof *l->v, texp_cmp);
}

static inline const char *td_cls(const tobj *o)
{
    return o->cls != NULL ? o->cls : "(no class)";
}

static inline int td_same(const tobj *a, const tobj *b)
{
    return a->id == b->id && strcmp(td_cls(a), td_cls(b)) == 0;
}

/* Whether a[i] finds a partner in b not yet taken (pairs one to one). */
static inline int td_pair(const tobj *a, size_t i, const tobj *b, size_t nb,
                   char *taken)
{
    for (size_t j = 0; j < nb; j++)
        if (!taken[j] && td_same(&a[i], &b[j])) {
            taken[j] = 1;
            return 1;
        }
    return 0;
}

/* The objects of a not paired with one of b (O(n*m): keep n small). */
static inline char *td_unpaired(const tobj *a, size_t na, const tobj *b, size_t nb)
{
    char *taken = calloc(nb + 1, 1), *out = calloc(na + 1, 1);
    cr_assert(taken != NULL && out != NULL);
    for (size_t i = 0; i < na; i++)
        out[i] = !td_pair(a, i, b, nb, taken);
    free(taken);
    return out;
}

/* new and freed objects of before -> after */
static inline void td_expect2(texps *e, const tobj *before, size_t nb,
                       const tobj *after, size_t na)
{
    char *gone = td_unpaired(before, nb, after, na);
    char *born = td_unpaired(after, na, before, nb);
    for (size_t i = 0; i < nb; i++)
        if (gone[i])
            texps_add(e, DIFF_FREED, before[i].id, td_cls(&before[i]),
                      before[i].size);
    for (size_t i = 0; i < na; i++)
        if (born[i])
            texps_add(e, DIFF_NEW, after[i].id, td_cls(&after[i]),
                      after[i].size);
    free(gone);
    free(born);
    texps_sort(e);
}

/* retained objects of d1, d2, d3: (d2 - d1) & d3, as multisets */
static inline void td_expect3(texps *e, const tobj *d1, size_t n1, const tobj *d2,
                       size_t n2, const tobj *d3, size_t n3)
{
    char *fresh = td_unpaired(d2, n2, d1, n1);
    /* d3 pairs first with the fresh objects of d2. */
    char *taken = calloc(n3 + 1, 1);
    cr_assert_not_null(taken);
    for (size_t i = 0; i < n2; i++)
        if (fresh[i] && td_pair(d2, i, d3, n3, taken))
            texps_add(e, DIFF_RETAINED, d2[i].id, td_cls(&d2[i]), d2[i].size);
    free(taken);
    free(fresh);
    texps_sort(e);
}

/* What the tool listed (res computed with list = 1, top = 0). */
static inline void td_got(texps *g, const diff_result *res)
{
    for (size_t i = 0; i < res->items.n; i++) {
        const diff_item *it = &res->items.v[i];
        size_t len;
        const char *cls = diff_kind_class(res, it->kind, &len);
        texps_add(g, it->change, it->id, cls, it->size);
    }
    texps_sort(g);
}

static inline void td_assert_same(const texps *want, const texps *got)
{
    size_t n = want->n < got->n ? want->n : got->n;
    for (size_t i = 0; i < n; i++) {
        const texp *a = &want->v[i], *b = &got->v[i];
        cr_assert(texp_cmp(a, b) == 0,
                  "object %zu: expected change %d id 0x%llx %s %llu bytes, "
                  "got change %d id 0x%llx %s %llu bytes",
                  i, a->change, (unsigned long long)a->id, a->cls,
                  (unsigned long long)a->size, b->change,
                  (unsigned long long)b->id, b->cls,
                  (unsigned long long)b->size);
    }
    cr_assert_eq(want->n, got->n, "expected %zu objects, got %zu", want->n,
                 got->n);
}

static inline void texps_free(texps *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- running the diff ---- */

/* Runs diff_compute on paths with opt (NULL: defaults) and returns rc. */
static inline int td_run(diff_result *res, const diff_options *opt, int n,
                  const char *p0, const char *p1, const char *p2)
{
    const char *paths[3] = {p0, p1, p2};
    return diff_compute(paths, n, opt, res);
}

/* Whether some warning contains text. */
static inline int td_warned(const diff_result *res, const char *text)
{
    for (size_t i = 0; i < res->warnings.n; i++)
        if (strstr(res->warnings.v[i].text, text) != NULL)
            return 1;
    return 0;
}

#endif /* TEST_DIFF_DUMPS_H */
