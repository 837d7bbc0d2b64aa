/*
 * test_labels_stacks.c -- format 1.1's labeled references and call stacks,
 * and what stays compatible.
 *
 * A deterministic heap is written with labels on every kind of reference
 * (weak ones too, indexes out of order, roots labeled) and with call stacks
 * of several depths, under each codec, on the caller's thread and on the
 * compression worker; it is read back whole, one byte at a time and in
 * random chunks, and every label and frame must come back as written. The
 * same heap written without any 1.1 part must give the same objects,
 * references and per-class histogram (a reader ignoring the new parts sees
 * the same heap), and the independent encoder (traw.c, from the spec)
 * must produce dumps the reader decodes to the same labels and stacks.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "traw.h"

#define NOBJ 3000
#define NNAMES 16
#define NFRAMES 40
#define MAXREFS 12

/* The heap, as plain arrays (the "model"). */
typedef struct heap {
    uint32_t names[NNAMES];   /* string ids of label texts */
    char text[NNAMES][24];
    uint32_t frames[NFRAMES]; /* frame ids */
    uint32_t stacks[NOBJ];    /* stack id of each object, 0 = none */
    uint32_t stack_depth[NOBJ];
    uint64_t ids[NOBJ];
    uint64_t refs[NOBJ][MAXREFS];
    heapfmt_label labels[NOBJ][MAXREFS];
    size_t nrefs[NOBJ];
} heap;

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Fills the model; i is the object's index. */
static void plan(heap *h, uint64_t seed)
{
    memset(h, 0, sizeof *h);
    uint64_t s = seed;
    for (int i = 0; i < NOBJ; i++) {
        h->ids[i] = 0x7f0000000000ull + 40u * (uint64_t)i;
        h->nrefs[i] = rnd(&s) % MAXREFS;
        for (size_t k = 0; k < h->nrefs[i]; k++) {
            h->refs[i][k] = 0x7f0000000000ull + 40u * (rnd(&s) % NOBJ);
            heapfmt_label *l = &h->labels[i][k];
            l->kind = (uint32_t)(rnd(&s) % 7);
            l->weak = rnd(&s) % 5 == 0;
            if (l->kind == HEAPFMT_LABEL_INDEX)
                /* mostly in order, sometimes far off or backwards */
                l->value = rnd(&s) % 4 ? k : rnd(&s) % 100000;
            else if (l->kind != HEAPFMT_LABEL_NONE)
                l->value = 1 + rnd(&s) % NNAMES; /* slot, made an id later */
        }
        h->stack_depth[i] = rnd(&s) % 3 ? 1 + (uint32_t)(rnd(&s) % NFRAMES)
                                        : 0;
    }
}

/* Writes the heap; with_11 0 leaves out every 1.1 part, 2 writes the
 * labels in the indexed form of 1.3 (HEAPFMT_F_INDEXED; alone, without
 * the list, for an object whose labels are all its positions). Stacks are
 * the first `depth` frames, innermost first. */
static void write_heap(heap *h, const heapfmt_writer_options *opt, int with_11,
                       tbuf *out)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, opt);
    uint32_t type;
    TASSERT_OK(heapfmt_write_string(w, "T_OBJECT", 8, &type));
    for (int n = 0; n < NNAMES; n++) {
        snprintf(h->text[n], sizeof h->text[n], "@name%d", n);
        TASSERT_OK(heapfmt_write_string(w, h->text[n], strlen(h->text[n]),
                                        &h->names[n]));
    }
    uint32_t lib, fn[NFRAMES];
    TASSERT_OK(heapfmt_write_string(w, "libc.so.6", 9, &lib));
    for (int f = 0; f < NFRAMES && with_11; f++) {
        char name[32];
        snprintf(name, sizeof name, "fn_%d", f);
        TASSERT_OK(heapfmt_write_string(w, name, strlen(name), &fn[f]));
        heapfmt_frame fr = { fn[f], f % 2 ? lib : 0, 0x1000u + (unsigned)f,
                             f % 3 ? lib : 0, (uint64_t)f * 7 };
        TASSERT_OK(heapfmt_write_frame(w, &fr, &h->frames[f]));
        uint32_t again;
        TASSERT_OK(heapfmt_write_frame(w, &fr, &again));
        cr_assert_eq(again, h->frames[f], "frames are interned");
    }
    heapfmt_class c = { 0x10, "Leaky", 5, 0, 0 };
    TASSERT_OK(heapfmt_write_class(w, &c));
    for (int i = 0; i < NOBJ; i++) {
        heapfmt_label labels[MAXREFS];
        for (size_t k = 0; k < h->nrefs[i]; k++) {
            labels[k] = h->labels[i][k];
            if (labels[k].kind != HEAPFMT_LABEL_NONE &&
                labels[k].kind != HEAPFMT_LABEL_INDEX)
                labels[k].value = h->names[labels[k].value - 1];
        }
        heapfmt_object o = { 0 };
        o.id = h->ids[i];
        o.class_id = i % 3 ? 0x10 : 0;
        o.type = type;
        o.size = 40 + (uint64_t)(i % 7) * 8;
        o.refs = h->refs[i];
        o.nrefs = h->nrefs[i];
        if (with_11) {
            o.fields = HEAPFMT_F_LABELS;
            o.labels = labels;
            if (with_11 == 2) {
                int positions = 1;
                for (size_t k = 0; k < o.nrefs; k++)
                    positions &= labels[k].kind == HEAPFMT_LABEL_INDEX &&
                                 !labels[k].weak && labels[k].value == k;
                o.fields = positions ? HEAPFMT_F_INDEXED
                                     : HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS;
            }
            if (h->stack_depth[i]) {
                TASSERT_OK(heapfmt_write_stack(w, h->frames,
                                               h->stack_depth[i],
                                               &h->stacks[i]));
                o.fields |= HEAPFMT_F_STACK;
                o.stack = h->stacks[i];
            }
        }
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    uint32_t kind;
    TASSERT_OK(heapfmt_write_string(w, "global_tbl", 10, &kind));
    heapfmt_label rl[2] = { { HEAPFMT_LABEL_GLOBAL, 0, h->names[0] },
                            { HEAPFMT_LABEL_NONE, 1, 0 } };
    TASSERT_OK(heapfmt_write_root_labeled(w, kind, h->ids, with_11 ? rl : NULL,
                                          2));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

/* What a reader sees, per object: id, class index, size, refs. */
typedef struct seen {
    uint64_t objects, classes_bytes[3], classes_count[3];
    uint64_t refs_sum, refs_hash;
    int labeled_objects, stacked_objects;
} seen;

/* Reads a dump through a source of this policy; checks every label and
 * stack against the model when check is set. */
static void read_heap(const heap *h, const tbuf *b, int policy, int check,
                      seen *out)
{
    memset(out, 0, sizeof *out);
    tsource src;
    tsource_init(&src, b->data, b->len, policy, 42);
    heapfmt_reader *r = NULL;
    TASSERT_OK(tsource_open(&r, NULL, &src));
    heapfmt_record rec;
    int rc, i = 0, roots = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_ROOT) {
            const heapfmt_rlabel *l;
            long n = heapfmt_reader_labels(r, &l);
            if (check) {
                cr_assert(rec.u.root->labeled);
                cr_assert_eq(n, 2);
                cr_assert_eq(l[0].kind, HEAPFMT_LABEL_GLOBAL);
                cr_assert_str_eq(l[0].name->ptr, "@name0");
                cr_assert_eq(l[1].kind, HEAPFMT_LABEL_NONE);
                cr_assert_eq(l[1].weak, 1);
            } else {
                cr_assert_eq(n > 0, rec.u.root->labeled != 0);
                out->labeled_objects += n > 0;
            }
            roots++;
        }
        if (rec.tag != HEAPFMT_TAG_OBJECT)
            continue;
        const heapfmt_robject *o = rec.u.object;
        cr_assert_lt(i, NOBJ);
        cr_assert_eq(o->id, h->ids[i]);
        unsigned ci = o->klass->index > 2 ? 2 : o->klass->index;
        out->classes_count[ci]++;
        out->classes_bytes[ci] += o->size;
        const uint64_t *ids;
        long n = heapfmt_reader_refs(r, &ids);
        cr_assert_eq(n, (long)h->nrefs[i]);
        for (long k = 0; k < n; k++) {
            cr_assert_eq(ids[k], h->refs[i][k]);
            out->refs_sum += ids[k];
            out->refs_hash = out->refs_hash * 31 + ids[k];
        }
        const heapfmt_rlabel *l;
        long nl = heapfmt_reader_labels(r, &l);
        cr_assert_geq(nl, 0);
        cr_assert_eq(nl > 0, (o->fields & HEAPFMT_F_LABELS) != 0);
        if (check) {
            int any = 0;
            for (size_t k = 0; k < h->nrefs[i]; k++)
                any |= h->labels[i][k].kind != HEAPFMT_LABEL_NONE ||
                       h->labels[i][k].weak;
            cr_assert(nl == (long)h->nrefs[i] || (!any && nl == 0),
                      "object %d: %ld labels of %zu references", i, nl,
                      h->nrefs[i]);
        }
        if (nl > 0)
            out->labeled_objects++;
        if (o->stack)
            out->stacked_objects++;
        if (check) {
            for (long k = 0; k < nl; k++) {
                const heapfmt_label *want = &h->labels[i][k];
                cr_assert_eq(l[k].kind, want->kind, "object %d ref %ld", i,
                             k);
                cr_assert_eq(l[k].weak, want->weak);
                if (want->kind == HEAPFMT_LABEL_INDEX)
                    cr_assert_eq(l[k].index, want->value);
                else if (want->kind != HEAPFMT_LABEL_NONE)
                    cr_assert_str_eq(l[k].name->ptr,
                                     h->text[want->value - 1]);
            }
            cr_assert_eq(o->stack != NULL, h->stack_depth[i] != 0,
                         "object %d", i);
            if (o->stack) {
                cr_assert_eq(o->stack->nframes, h->stack_depth[i]);
                cr_assert_eq(o->stack->undefined, 0);
                for (size_t f = 0; f < o->stack->nframes; f++) {
                    const heapfmt_rframe *fr = o->stack->frames[f];
                    char name[32];
                    snprintf(name, sizeof name, "fn_%zu", f);
                    cr_assert_str_eq(fr->function->ptr, name);
                    cr_assert_eq(fr->offset, 0x1000u + f);
                    cr_assert_eq(fr->line, f * 7);
                    cr_assert_str_eq(fr->library->ptr,
                                     f % 2 ? "libc.so.6" : "");
                }
            }
        }
        i++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s: %s", tstatus_name(rc),
                 heapfmt_reader_error(r)->message);
    cr_assert_eq(i, NOBJ);
    cr_assert_eq(roots, 1);
    out->objects = (uint64_t)i;
    heapfmt_reader_free(r);
}

static heap model;

static void round_trip(int codec, int level, int threads)
{
    plan(&model, 7);
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = codec;
    opt.level = level;
    opt.threads = threads;
    opt.block_size = 4096; /* many blocks: definitions and uses apart */
    tbuf b;
    write_heap(&model, &opt, 1, &b);
    seen whole, bytes, chunks;
    read_heap(&model, &b, TSRC_WHOLE, 1, &whole);
    read_heap(&model, &b, TSRC_BYTE, 1, &bytes);
    read_heap(&model, &b, TSRC_RANDOM, 1, &chunks);
    cr_assert_gt(whole.labeled_objects, NOBJ / 2);
    cr_assert_gt(whole.stacked_objects, NOBJ / 2);
    cr_assert_eq(memcmp(&whole, &bytes, sizeof whole), 0);
    cr_assert_eq(memcmp(&whole, &chunks, sizeof whole), 0);
    tbuf_free(&b);
}

/* The indexed form (1.3) gives every label back as written, the inferred
 * indexes included, and a reader that ignores labels sees the same heap
 * as in the 1.1 form. */
Test(labels_stacks, round_trip_indexed)
{
    plan(&model, 13);
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.block_size = 4096;
    tbuf listed, indexed;
    write_heap(&model, &opt, 1, &listed);
    write_heap(&model, &opt, 2, &indexed);
    seen a, b, c;
    read_heap(&model, &listed, TSRC_WHOLE, 1, &a);
    read_heap(&model, &indexed, TSRC_WHOLE, 1, &b);
    read_heap(&model, &indexed, TSRC_RANDOM, 1, &c);
    cr_assert_eq(memcmp(&b, &c, sizeof b), 0);
    cr_assert_geq(b.labeled_objects, a.labeled_objects);
    a.labeled_objects = b.labeled_objects = 0;
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "histogram or refs differ");
    tbuf_free(&listed);
    tbuf_free(&indexed);
}

Test(labels_stacks, round_trip_zstd) { round_trip(HEAPFMT_CODEC_ZSTD, 1, 0); }
Test(labels_stacks, round_trip_zstd_worker) { round_trip(HEAPFMT_CODEC_ZSTD, 3, 1); }
Test(labels_stacks, round_trip_deflate) { round_trip(HEAPFMT_CODEC_DEFLATE, 6, 0); }
Test(labels_stacks, round_trip_deflate_worker) { round_trip(HEAPFMT_CODEC_DEFLATE, 1, 1); }
Test(labels_stacks, round_trip_stored) { round_trip(HEAPFMT_CODEC_STORED, 0, 0); }

/* A reader that ignores labels and stacks sees the same heap as in a
 * dump written without them: same objects, references and histogram. */
Test(labels_stacks, new_parts_leave_the_heap_unchanged)
{
    plan(&model, 11);
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    tbuf with, without;
    write_heap(&model, &opt, 1, &with);
    write_heap(&model, &opt, 0, &without);
    seen a, b;
    read_heap(&model, &with, TSRC_WHOLE, 0, &a);
    read_heap(&model, &without, TSRC_WHOLE, 0, &b);
    cr_assert_gt(a.labeled_objects, 0);
    cr_assert_eq(b.labeled_objects, 0);
    cr_assert_eq(b.stacked_objects, 0);
    a.labeled_objects = a.stacked_objects = 0;
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "histogram or refs differ");
    /* and the footers agree on everything but strings and records */
    heapfmt_reader *ra = NULL, *rb = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&ra, NULL, with.data, with.len));
    TASSERT_OK(heapfmt_reader_open_memory(&rb, NULL, without.data,
                                          without.len));
    const heapfmt_footer *fa, *fb;
    TASSERT_OK(heapfmt_reader_footer(ra, &fa));
    TASSERT_OK(heapfmt_reader_footer(rb, &fb));
    cr_assert_eq(fa->totals.objects, fb->totals.objects);
    cr_assert_eq(fa->totals.bytes, fb->totals.bytes);
    cr_assert_eq(fa->nclasses, fb->nclasses);
    for (size_t i = 0; i < fa->nclasses; i++) {
        cr_assert_eq(fa->classes[i].count, fb->classes[i].count);
        cr_assert_eq(fa->classes[i].bytes, fb->classes[i].bytes);
    }
    heapfmt_reader_free(ra);
    heapfmt_reader_free(rb);
    tbuf_free(&with);
    tbuf_free(&without);
}

/* The independent encoder's labels and stacks (from the spec), with a
 * STACK used before it is defined (placeholder, then filled) and every
 * label kind, decode as written. */
Test(labels_stacks, independent_encoder_decodes)
{
    for (unsigned codec = 0; codec <= HEAPFMT_CODEC_ZSTD; codec++) {
        traw d;
        traw_begin(&d, 1, 1, 0, codec);
        traw_string(&d, 1, "key");
        traw_string(&d, 2, "main");
        traw_frame(&d, 5, 2, 0, 0x40, 0, 12);
        uint64_t refs[7] = { 1, 2, 3, 4, 5, 6, 7 };
        heapfmt_label l[7] = {
            { HEAPFMT_LABEL_NONE, 0, 0 },    { HEAPFMT_LABEL_FIELD, 0, 1 },
            { HEAPFMT_LABEL_INDEX, 0, 900 }, { HEAPFMT_LABEL_KEY, 1, 1 },
            { HEAPFMT_LABEL_CONSTANT, 0, 2 }, { HEAPFMT_LABEL_GLOBAL, 1, 2 },
            { HEAPFMT_LABEL_OTHER, 0, 1 },
        };
        heapfmt_object o = { 0 };
        o.id = 100;
        o.size = 8;
        o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_STACK;
        o.refs = refs;
        o.nrefs = 7;
        o.labels = l;
        o.stack = 9; /* defined below: the reader makes a placeholder */
        traw_object(&d, &o);
        uint32_t frames[2] = { 5, 5 };
        traw_stack(&d, 9, frames, 2);
        traw_finish(&d);
        heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
        heapfmt_record rec;
        const heapfmt_rstack *st = NULL;
        int rc;
        while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
            if (rec.tag == HEAPFMT_TAG_OBJECT) {
                st = rec.u.object->stack;
                cr_assert_not_null(st);
                cr_assert_eq(st->undefined, 1, "not defined yet");
                const heapfmt_rlabel *rl;
                cr_assert_eq(heapfmt_reader_labels(r, &rl), 7);
                for (int k = 0; k < 7; k++) {
                    cr_assert_eq(rl[k].kind, l[k].kind, "label %d", k);
                    cr_assert_eq(rl[k].weak, l[k].weak, "label %d", k);
                }
                cr_assert_eq(rl[2].index, 900);
                cr_assert_str_eq(rl[1].name->ptr, "key");
                cr_assert_str_eq(rl[5].name->ptr, "main");
            }
            if (rec.tag == HEAPFMT_TAG_STACK) {
                cr_assert_eq(rec.u.stack, st, "the placeholder is filled");
                cr_assert_eq(st->undefined, 0);
                cr_assert_eq(st->nframes, 2);
                cr_assert_eq(st->frames[1]->line, 12);
                cr_assert_str_eq(st->frames[0]->function->ptr, "main");
            }
        }
        cr_assert_eq(rc, HEAPFMT_DONE, "codec %u: %s", codec,
                     heapfmt_reader_error(r)->message);
        heapfmt_reader_free(r);
        traw_free(&d);
    }
}

/* In a 1.0 file, tags 0x07 and 0x08 are unknown records (skipped), and
 * field bits 4-5 are reserved (refused): a 1.1 reader reads a file by the
 * rules of its minor. */
Test(labels_stacks, a_1_0_file_keeps_1_0_rules)
{
    traw d;
    traw_begin(&d, 1, 0, 0, 0);
    traw_string(&d, 1, "main");
    traw_any(&d, HEAPFMT_TAG_FRAME, "junk", 4);
    traw_any(&d, HEAPFMT_TAG_STACK, "", 0);
    traw_finish(&d);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    heapfmt_record rec;
    int n = 0, rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        n++;
    cr_assert_eq(rc, HEAPFMT_DONE, "%s", heapfmt_reader_error(r)->message);
    cr_assert_eq(n, 2, "STRING and END; the two 1.1 tags are skipped");
    heapfmt_progress p;
    heapfmt_reader_progress(r, &p);
    cr_assert_eq(p.skipped, 2);
    heapfmt_reader_free(r);
    traw_free(&d);

    traw_begin(&d, 1, 0, 0, 0);
    heapfmt_object o = { 0 };
    o.id = 1;
    o.fields = HEAPFMT_F_STACK;
    o.stack = 1;
    traw_object(&d, &o);
    traw_finish(&d);
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, d.out.data, d.out.len));
    TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_CORRUPT);
    cr_assert_not_null(strstr(heapfmt_reader_error(r)->message, "reserved"));
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* Writer checks: label kinds, string ids, frames and stacks. */
Test(labels_stacks, writer_refuses_bad_labels_and_stacks)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    uint32_t name, frame, stack;
    TASSERT_OK(heapfmt_write_string(w, "x", 1, &name));
    uint64_t refs[1] = { 5 };
    heapfmt_label bad[1] = { { 7, 0, name } };
    heapfmt_object o = { 0 };
    o.id = 1;
    o.refs = refs;
    o.nrefs = 1;
    o.fields = HEAPFMT_F_LABELS;
    o.labels = bad;
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_ARG);
    bad[0] = (heapfmt_label){ HEAPFMT_LABEL_FIELD, 0, name + 1 };
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_ARG);
    o.labels = NULL;
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_ARG);
    heapfmt_frame f = { name + 5, 0, 0, 0, 0 };
    TASSERT_RC(heapfmt_write_frame(w, &f, &frame), HEAPFMT_E_ARG);
    f.function = name;
    TASSERT_OK(heapfmt_write_frame(w, &f, &frame));
    uint32_t none = frame + 1;
    TASSERT_RC(heapfmt_write_stack(w, &none, 1, &stack), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_write_stack(w, &frame, 0, &stack), HEAPFMT_E_ARG);
    uint32_t deep[HEAPFMT_MAX_FRAMES + 1];
    for (size_t i = 0; i <= HEAPFMT_MAX_FRAMES; i++)
        deep[i] = frame;
    TASSERT_RC(heapfmt_write_stack(w, deep, HEAPFMT_MAX_FRAMES + 1, &stack),
               HEAPFMT_E_LIMIT);
    TASSERT_OK(heapfmt_write_stack(w, deep, HEAPFMT_MAX_FRAMES, &stack));
    /* an index must stay within 2^59 of its position (60-bit values) */
    heapfmt_label far[1] = { { HEAPFMT_LABEL_INDEX, 0, 1ull << 59 } };
    o.labels = far;
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_LIMIT);
    far[0].value = (1ull << 59) - 1;
    TASSERT_OK(heapfmt_write_object(w, &o));
    far[0].value = (uint64_t)0 - (1ull << 59); /* -2^59: zigzag 2^60 - 1 */
    TASSERT_OK(heapfmt_write_object(w, &o));
    far[0].value--;
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_LIMIT);
    /* all-NONE labels: written without the labels field */
    heapfmt_label plain[1] = { { HEAPFMT_LABEL_NONE, 0, 0 } };
    o.labels = plain;
    TASSERT_OK(heapfmt_write_object(w, &o));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    heapfmt_reader *r = treader_on_memory(s.out.data, s.out.len);
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            const heapfmt_rlabel *l;
            long n = heapfmt_reader_labels(r, &l);
            cr_assert(n == 0 || (n == 1 && l[0].kind == HEAPFMT_LABEL_INDEX &&
                                 (l[0].index == (1ull << 59) - 1 ||
                                  l[0].index == (uint64_t)0 - (1ull << 59))),
                      "n %ld", n);
        }
        else if (rec.tag == HEAPFMT_TAG_STACK)
            cr_assert_eq(rec.u.stack->nframes, HEAPFMT_MAX_FRAMES);
    cr_assert_eq(rc, HEAPFMT_DONE);
    heapfmt_reader_free(r);
    tsink_free(&s);
}
