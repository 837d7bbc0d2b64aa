/*
 * test_import_run.h -- running heapfmt-import's importer on bytes in
 * memory (support/timport.h) with the options of a test and reading its
 * heap back, for the importer tests of each input (test_import_v8.c,
 * test_import_hprof.c, test_import_android.c). Included once per test
 * file.
 */
#ifndef TEST_IMPORT_RUN_H
#define TEST_IMPORT_RUN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "import.h"
#include "sniff.h"
#include "timport.h"
#include "tio.h"

/* ---- running the importer ---------------------------------------------- */

typedef struct run {
    tsink sink;
    import_stats st;
    int result;
    int finish;
    char log[4096]; /* the diagnostics, one per line */
    unsigned errors; /* of kind IMPORT_DIAG_ERROR */
} run;

static void collect(void *ctx, int kind, uint64_t line, const char *msg)
{
    run *R = ctx;
    (void)line; /* 0 for snapshots; cut ones may not be recognised */
    cr_assert_null(strchr(msg, '\n'));
    R->errors += kind == IMPORT_DIAG_ERROR;
    size_t n = strlen(R->log);
    snprintf(R->log + n, sizeof R->log - n, "%s%s\n",
             kind == IMPORT_DIAG_WARNING ? "warning: " : "", msg);
}

/* --preview of the imports (a test changes it and puts it back) */
static size_t preview = IMPORT_PREVIEW;

/* HPROF: --jvm, --dump, and whether the input can be read again (a
 * regular file) or not (a pipe); a test changes them and puts them back */
static const char *jvm_option;
static unsigned dump_option;
static const char *heaps_option; /* --heap */
static int rereadable;

/* Imports len bytes at data read by policy (enum tsrc_policy), --from
 * (enum sniff_kind), with or without --strict. */
static void import_mem(run *R, const void *data, size_t len, int policy,
                       int from, int strict)
{
    memset(R, 0, sizeof *R);
    import_options o = IMPORT_OPTIONS_INIT;
    o.report = collect;
    o.report_ctx = R;
    o.buffer = 64; /* the smallest: every token crosses a refill */
    o.strict = strict;
    o.from = from;
    o.preview = preview;
    o.jvm = jvm_option;
    o.hprof_dump = dump_option;
    o.hprof_heaps = heaps_option;
    const heapfmt_writer_options defaults = HEAPFMT_WRITER_OPTIONS_INIT;
    timport_how how = {rereadable, policy, len, defaults.level, 0};
    R->result = timport_run(&R->sink, &R->st, &R->finish, data, len, &how, &o);
}


/* ---- the heap read back ------------------------------------------------ */

typedef struct ref {
    uint64_t to;
    uint32_t kind, weak;
    char name[32]; /* FIELD / OTHER: the name; INDEX: the index in decimal */
} ref;

typedef struct obj {
    uint64_t id, size;
    char cls[32], type[32];
    char value[32]; /* the preview, if any */
    ref refs[8];
    size_t nrefs;
    uint32_t fields; /* as read: HEAPFMT_F_INDEXED says how it was written */
} obj;

typedef struct heap {
    obj o[32];
    size_t no;
    char roots[16][64];
    uint64_t root_ref[16][16];
    size_t nroots, root_n[16];
    char model[400]; /* META jvm.size_model, if any */
    char heaps[400]; /* META hprof.heaps, if any */
} heap;

static void take_refs(heapfmt_reader *r, ref *out, size_t *n, size_t max)
{
    const uint64_t *ids;
    const heapfmt_rlabel *lb = NULL;
    long k = heapfmt_reader_refs(r, &ids);
    cr_assert_geq(k, 0);
    cr_assert_leq((size_t)k, max);
    long nl = heapfmt_reader_labels(r, &lb);
    cr_assert(nl == 0 || nl == k);
    for (long j = 0; j < k; j++) {
        ref *f = &out[j];
        memset(f, 0, sizeof *f);
        f->to = ids[j];
        if (nl == 0)
            continue;
        f->kind = lb[j].kind;
        f->weak = lb[j].weak;
        if (f->kind == HEAPFMT_LABEL_INDEX)
            snprintf(f->name, sizeof f->name, "%llu",
                     (unsigned long long)lb[j].index);
        else if (lb[j].name)
            snprintf(f->name, sizeof f->name, "%.*s", (int)lb[j].name->len,
                     lb[j].name->ptr);
    }
    *n = (size_t)k;
}

/* Reads an import's dump back into h; its META import.format must be
 * format and ids_stable as given. */
static void read_heap(heap *h, const tbuf *dump, const char *format,
                      int ids_stable)
{
    memset(h, 0, sizeof *h);
    heapfmt_reader *r = NULL;
    cr_assert_eq(heapfmt_reader_open_memory(&r, NULL, dump->data, dump->len),
                 HEAPFMT_OK);
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            cr_assert_lt(h->no, sizeof h->o / sizeof h->o[0]);
            const heapfmt_robject *ro = rec.u.object;
            obj *o = &h->o[h->no++];
            o->id = ro->id;
            o->size = ro->size;
            o->fields = ro->fields;
            snprintf(o->type, sizeof o->type, "%s", ro->type->ptr);
            if (ro->fields & HEAPFMT_F_VALUE)
                snprintf(o->value, sizeof o->value, "%.*s",
                         (int)ro->value_len, ro->value);
            if (ro->klass->name)
                snprintf(o->cls, sizeof o->cls, "%.*s",
                         (int)ro->klass->name->len, ro->klass->name->ptr);
            take_refs(r, o->refs, &o->nrefs, 8);
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            cr_assert_lt(h->nroots, 16);
            snprintf(h->roots[h->nroots], 64, "%s", rec.u.root->kind->ptr);
            const uint64_t *ids;
            long k = heapfmt_reader_refs(r, &ids);
            cr_assert(k >= 0 && k <= 16);
            memcpy(h->root_ref[h->nroots], ids, (size_t)k * sizeof *ids);
            h->root_n[h->nroots++] = (size_t)k;
        }
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s", heapfmt_reader_error(r)->message);
    const heapfmt_rmeta *m = heapfmt_reader_meta_get(r, "import.format");
    cr_assert(m && strcmp(m->text, format) == 0, "import.format %s",
              m ? m->text : "missing");
    const heapfmt_rmeta *jm = heapfmt_reader_meta_get(r, "jvm.size_model");
    if (jm)
        snprintf(h->model, sizeof h->model, "%s", jm->text);
    jm = heapfmt_reader_meta_get(r, "hprof.heaps");
    if (jm)
        snprintf(h->heaps, sizeof h->heaps, "%s", jm->text);
    m = heapfmt_reader_meta_get(r, "ids_stable");
    cr_assert(m && m->type == HEAPFMT_META_UINT &&
              m->uint_value == (uint64_t)ids_stable);
    heapfmt_reader_free(r);
}

static const obj *find(const heap *h, uint64_t id)
{
    for (size_t i = 0; i < h->no; i++)
        if (h->o[i].id == id)
            return &h->o[i];
    cr_assert_fail("no object %llu", (unsigned long long)id);
    return NULL;
}

static void expect_ref(const obj *o, size_t j, uint64_t to, uint32_t kind,
                       uint32_t weak, const char *name)
{
    cr_assert_lt(j, o->nrefs, "object %llu has %zu refs",
                 (unsigned long long)o->id, o->nrefs);
    const ref *f = &o->refs[j];
    cr_assert_eq(f->to, to, "ref %zu of %llu", j, (unsigned long long)o->id);
    cr_assert_eq(f->kind, kind, "label kind of ref %zu of %llu", j,
                 (unsigned long long)o->id);
    cr_assert_eq(f->weak, weak);
    cr_assert_str_eq(f->name, name);
}

/* An object the heap must hold; a NULL value is not checked. */
typedef struct want_obj {
    uint64_t id, size;
    const char *cls, *type, *value;
} want_obj;

/* The heap holds exactly the n objects of want, in their order. */
static void expect_objects(const heap *h, const want_obj *want, size_t n)
{
    cr_assert_eq(h->no, n, "%zu objects, expected %zu", h->no, n);
    for (size_t i = 0; i < n; i++) {
        const obj *o = &h->o[i];
        unsigned long long id = o->id;
        cr_assert_eq(o->id, want[i].id, "object %zu: %llx", i, id);
        cr_assert_eq(o->size, want[i].size, "size of %llx", id);
        cr_assert_str_eq(o->cls, want[i].cls, "class of %llx", id);
        cr_assert_str_eq(o->type, want[i].type, "type of %llx", id);
        if (want[i].value)
            cr_assert_str_eq(o->value, want[i].value, "value of %llx", id);
    }
}

/* A reference an object must have. */
typedef struct want_ref {
    uint64_t to;
    uint32_t kind, weak;
    const char *name;
} want_ref;

/* An object of the heap and all its references, in order. */
typedef struct want_refs {
    uint64_t id;
    size_t n;
    want_ref refs[3];
} want_refs;

/* Each object of want has exactly its references. */
static void expect_refs(const heap *h, const want_refs *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const obj *o = find(h, want[i].id);
        cr_assert_eq(o->nrefs, want[i].n, "object %llx has %zu refs",
                     (unsigned long long)o->id, o->nrefs);
        for (size_t j = 0; j < want[i].n; j++) {
            const want_ref *r = &want[i].refs[j];
            expect_ref(o, j, r->to, r->kind, r->weak, r->name);
        }
    }
}

#endif /* TEST_IMPORT_RUN_H */
