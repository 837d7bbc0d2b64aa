/*
 * test_reader_keep.c -- the reader's keep_string option: strings the
 * caller does not keep are delivered with their text, then cost no entry;
 * a label's name resolves to the shared dropped entry, every other use to
 * an entry of its own with its id; the definition rules (twice is
 * corrupt, a use before the definition is a placeholder) still hold.
 *
 * The dumps are built from the spec (traw.c), not by the library.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "heapfmt.h"
#include "traw.h"

enum { S_CLASS = 1, S_KIND = 2, S_LABEL = 3, S_TYPE = 4, S_UNUSED = 5,
       S_LATE = 6 };

/* Strings 1-5 (a class's name, a root kind, a label's name, a type, one
 * never used); class 1; objects labeled with string 3, typed with 4, and
 * one typed with string 6 before its STRING record; a root of kind 2. */
static void build(traw *d, int twice)
{
    traw_begin(d, 1, 1, 0, 0);
    traw_string(d, S_CLASS, "Node");
    traw_string(d, S_KIND, "stack");
    traw_string(d, S_LABEL, "child");
    traw_string(d, S_TYPE, "T_OBJECT");
    traw_string(d, S_UNUSED, "never used");
    traw_class(d, 1, 0x100, S_CLASS, 0, 0);
    uint64_t refs[2] = {0x2000, 0x2040};
    heapfmt_label labels[2] = {{HEAPFMT_LABEL_FIELD, 0, S_LABEL},
                               {HEAPFMT_LABEL_KEY, 1, S_LABEL}};
    heapfmt_object o = {0};
    o.class_id = 1;
    o.type = S_TYPE;
    o.size = 40;
    o.id = 0x2000;
    o.fields = HEAPFMT_F_LABELS;
    o.refs = refs;
    o.nrefs = 2;
    o.labels = labels;
    traw_object(d, &o);
    o.id = 0x2040;
    o.type = S_LATE; /* used before its definition */
    traw_object(d, &o);
    traw_string(d, S_LATE, "late");
    if (twice)
        traw_string(d, S_LABEL, "again");
    traw_root(d, S_KIND, refs, 1);
    traw_finish(d);
}

typedef struct keep_set {
    uint32_t ids[8];
    int n;
    int calls;
} keep_set;

static int keep_listed(void *user, uint32_t id)
{
    keep_set *k = user;
    k->calls++;
    for (int i = 0; i < k->n; i++)
        if (k->ids[i] == id)
            return 1;
    return 0;
}

typedef struct seen {
    const heapfmt_rstring *class_name, *type[2], *kind, *label[2];
    char string_text[8][16]; /* as the STRING records delivered them */
    int string_dropped[8];
    int rc;
} seen;

static void read_all(const traw *d, keep_set *k, seen *s, heapfmt_reader **out)
{
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    if (k != NULL) {
        ro.keep_string = keep_listed;
        ro.keep_string_user = k;
    }
    heapfmt_reader *r;
    cr_assert_eq(heapfmt_reader_open_memory(&r, &ro, d->out.data, d->out.len),
                 HEAPFMT_OK);
    memset(s, 0, sizeof *s);
    heapfmt_record rec;
    int nobj = 0;
    while ((s->rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_STRING) {
            const heapfmt_rstring *t = rec.u.string;
            cr_assert_lt(t->id, 8u);
            cr_assert_lt(t->len, 16u);
            memcpy(s->string_text[t->id], t->ptr, t->len + 1);
            s->string_dropped[t->id] = t->dropped;
        } else if (rec.tag == HEAPFMT_TAG_CLASS) {
            s->class_name = rec.u.klass->name;
        } else if (rec.tag == HEAPFMT_TAG_OBJECT) {
            s->type[nobj] = rec.u.object->type;
            if (nobj == 0) {
                const heapfmt_rlabel *l;
                cr_assert_eq(heapfmt_reader_labels(r, &l), 2);
                s->label[0] = l[0].name;
                s->label[1] = l[1].name;
                cr_assert_eq(l[1].weak, 1u);
            }
            nobj++;
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            s->kind = rec.u.root->kind;
        }
    }
    *out = r;
}

Test(reader_keep, default_keeps_every_string)
{
    traw d;
    build(&d, 0);
    seen s;
    heapfmt_reader *r;
    read_all(&d, NULL, &s, &r);
    cr_assert_eq(s.rc, HEAPFMT_DONE);
    cr_assert_str_eq(s.class_name->ptr, "Node");
    cr_assert_str_eq(s.label[0]->ptr, "child");
    cr_assert_eq(s.label[0]->dropped, 0);
    cr_assert_eq(heapfmt_reader_string_count(r), 7u); /* "none" and 1-6 */
    heapfmt_reader_free(r);
    traw_free(&d);
}

Test(reader_keep, none_kept)
{
    traw d;
    build(&d, 0);
    keep_set k = {{0}, 0, 0};
    seen s;
    heapfmt_reader *r;
    read_all(&d, &k, &s, &r);
    cr_assert_eq(s.rc, HEAPFMT_DONE);
    cr_assert_eq(k.calls, 6, "asked %d times", k.calls);
    /* every STRING record came with its text */
    cr_assert_str_eq(s.string_text[S_CLASS], "Node");
    cr_assert_str_eq(s.string_text[S_UNUSED], "never used");
    cr_assert_str_eq(s.string_text[S_LATE], "late");
    cr_assert(s.string_dropped[S_UNUSED]);
    /* a class's name, a type, a root's kind: entries of their own */
    cr_assert_eq(s.class_name->id, (uint32_t)S_CLASS);
    cr_assert_str_eq(s.class_name->ptr, "");
    cr_assert(s.class_name->dropped && !s.class_name->undefined);
    cr_assert_eq(s.type[0]->id, (uint32_t)S_TYPE);
    cr_assert(s.type[0]->dropped && !s.type[0]->undefined);
    cr_assert_eq(s.kind->id, (uint32_t)S_KIND);
    cr_assert(s.kind->dropped && !s.kind->undefined);
    cr_assert_neq(s.kind->slot, 0u);
    /* used before its definition: the placeholder, then dropped */
    cr_assert_eq(s.type[1]->id, (uint32_t)S_LATE);
    cr_assert(s.type[1]->dropped && !s.type[1]->undefined);
    /* labels' names: the one shared entry */
    cr_assert_eq(s.label[0], s.label[1]);
    cr_assert(s.label[0]->dropped && !s.label[0]->undefined);
    cr_assert_eq(s.label[0]->id, 0u);
    cr_assert_eq(s.label[0]->slot, 0u);
    /* entries: "none", the class name, the type, the late type, the
     * kind; none for the label's name or the unused string */
    cr_assert_eq(heapfmt_reader_string_count(r), 5u, "%zu strings",
                 heapfmt_reader_string_count(r));
    for (size_t i = 1; i < heapfmt_reader_string_count(r); i++) {
        uint32_t id = heapfmt_reader_string(r, i)->id;
        cr_assert(id != S_LABEL && id != S_UNUSED, "entry for string %u",
                  id);
    }
    heapfmt_reader_free(r);
    traw_free(&d);
}

Test(reader_keep, some_kept)
{
    traw d;
    build(&d, 0);
    keep_set k = {{S_CLASS, S_LATE}, 2, 0};
    seen s;
    heapfmt_reader *r;
    read_all(&d, &k, &s, &r);
    cr_assert_eq(s.rc, HEAPFMT_DONE);
    cr_assert_str_eq(s.class_name->ptr, "Node");
    cr_assert_eq(s.class_name->dropped, 0);
    cr_assert_str_eq(s.type[1]->ptr, "late");
    cr_assert(!s.type[1]->dropped && !s.type[1]->undefined);
    cr_assert_str_eq(s.type[0]->ptr, "");
    cr_assert(s.type[0]->dropped);
    cr_assert(s.label[0]->dropped);
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* A dropped string defined again is still corrupt. */
Test(reader_keep, dropped_defined_twice)
{
    traw d;
    build(&d, 1);
    for (int keep = 0; keep < 2; keep++) {
        keep_set k = {{S_LABEL}, keep, 0};
        seen s;
        heapfmt_reader *r;
        read_all(&d, &k, &s, &r);
        cr_assert_eq(s.rc, HEAPFMT_E_CORRUPT, "keep %d: %s", keep,
                     heapfmt_strerror(s.rc));
        cr_assert(strstr(heapfmt_reader_error(r)->message,
                         "defined twice") != NULL,
                  "%s", heapfmt_reader_error(r)->message);
        heapfmt_reader_free(r);
    }
    traw_free(&d);
}
