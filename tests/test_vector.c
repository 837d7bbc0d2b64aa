/*
 * test_vector.c -- the test vectors of spec/FORMAT.md section 11: a 1.0
 * dump (11.1) and a 1.1 dump with a labeled reference and a call stack
 * (11.2), which the reader must still decode as described, and the 1.2
 * dumps of the same records with a LIFESPAN (11.3) and with a trace's
 * events (11.4), which the writer must produce byte for byte but for the
 * header's minor (it writes 1.3 now), and the 1.3 dump with indexed
 * arrays (11.5), which it must produce byte for byte.
 *
 * The hex between the lines TEST-VECTOR-<version>-BEGIN and -END is
 * parsed with this rule: on each line, take the leading whitespace-separated
 * tokens that are exactly two hex digits, stopping at the first token that
 * is not; lines with no such leading token (prose) are skipped.
 *
 * The spec file is found at $HEAPFMT_SPEC, else spec/FORMAT.md relative to
 * the working directory (make test runs from the repository root) or one
 * or two levels up.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tevent.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"

static int is_hex_pair(const char *t, size_t n)
{
    return n == 2 && isxdigit((unsigned char)t[0]) &&
           isxdigit((unsigned char)t[1]);
}

static void load_vector(tbuf *out, const char *version)
{
    const char *path = tfind_repo_file("HEAPFMT_SPEC", "spec/FORMAT.md");
    cr_assert_not_null(path, "spec/FORMAT.md not found: run from the "
                             "repository root or set HEAPFMT_SPEC");
    unsigned char *text;
    size_t len;
    cr_assert_eq(tread_file(path, &text, &len), 0, "cannot read %s", path);
    memset(out, 0, sizeof *out);
    int inside = 0, seen_begin = 0, seen_end = 0;
    size_t pos = 0;
    while (pos < len) {
        size_t eol = pos;
        while (eol < len && text[eol] != '\n')
            eol++;
        const char *line = (const char *)text + pos;
        size_t n = eol - pos;
        char begin[64], end[64];
        snprintf(begin, sizeof begin, "TEST-VECTOR-%s-BEGIN", version);
        snprintf(end, sizeof end, "TEST-VECTOR-%s-END", version);
        if (n >= strlen(begin) && memcmp(line, begin, strlen(begin)) == 0) {
            inside = 1;
            seen_begin = 1;
        } else if (n >= strlen(end) && memcmp(line, end, strlen(end)) == 0) {
            inside = 0;
            seen_end = 1;
        } else if (inside) {
            size_t i = 0;
            for (;;) {
                while (i < n && isspace((unsigned char)line[i]))
                    i++;
                size_t t = i;
                while (i < n && !isspace((unsigned char)line[i]))
                    i++;
                if (i == t || !is_hex_pair(line + t, i - t))
                    break;
                char pair[3] = { line[t], line[t + 1], 0 };
                tbuf_u8(out, (unsigned)strtoul(pair, NULL, 16));
            }
        }
        pos = eol + 1;
    }
    free(text);
    cr_assert(seen_begin && seen_end, "%s markers not found in %s", version,
              path);
    cr_assert_gt(out->len, 40, "only %zu bytes in the vector", out->len);
}

/* The events of section 11.4: thread 1's blocks 1, 2 and 4 (the realloc
 * of block 1), block 4 freed at 6; thread 2's block 5; a MARK at 3. */
static const heapfmt_event vector_thread1[] = {
    { HEAPFMT_EV_MALLOC, 1, 100, 0, 24, 0, 0, 0, 0 },
    { HEAPFMT_EV_CALLOC, 2, 103, 0, 100, 0, 0, 0, 0 },
    { HEAPFMT_EV_REALLOC, 4, 103, 1, 300, 0, 0, 0, 0 },
    { HEAPFMT_EV_FREE, 6, 110, 4, 0, 0, 0, 0, 0 },
};
static const heapfmt_event vector_thread2[] = {
    { HEAPFMT_EV_MALLOC, 5, 105, 0, 64, 0, 0, 0, 0 },
};
static const heapfmt_event vector_mark[] = {
    { HEAPFMT_EV_MARK, 3, 103, 0, 0, 0, 8192, 12288, 4096 },
};

/* The dump of section 11.4, written through the API: 11.1's records
 * plus a label on the reference and a one-frame stack (11.2), then the
 * events. */
enum { TAIL_EVENTS, TAIL_LIFESPAN, TAIL_ARRAYS };
static void write_vector_tail(tbuf *out, int tail);

static void write_vector(tbuf *out)
{
    write_vector_tail(out, TAIL_EVENTS);
}

/* 11.5's arrays: 16040 listing its elements in order (every label
 * inferred), 16080 = [nil, 16000, 16040] (one entry: [1] at position
 * 0). class_id is the class's id for the writer, its index for traw. */
static const uint64_t array_refs1[2] = { 16000, 2000 };
static const uint64_t array_refs2[2] = { 16000, 16040 };
static const heapfmt_label array_labels2[2] = { { HEAPFMT_LABEL_INDEX, 0, 1 },
                                                { HEAPFMT_LABEL_INDEX, 0, 2 } };

static heapfmt_object vector_array(int second, uint64_t class_id)
{
    heapfmt_object a = { 0 };
    a.id = second ? 16080 : 16040;
    a.class_id = class_id;
    a.size = 40;
    a.fields = second ? HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS
                      : HEAPFMT_F_INDEXED;
    a.refs = second ? array_refs2 : array_refs1;
    a.nrefs = 2;
    a.labels = second ? array_labels2 : NULL;
    return a;
}

/* The 11.2 records, then the events (11.4), the lifespan of the
 * allocations made with its stack at a.rb:7 (11.3) or the arrays of
 * 11.5. */
static void write_vector_tail(tbuf *out, int tail)
{
    tsink s;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = 0;
    heapfmt_writer *w = twriter_on_sink(&s, &opt);
    uint32_t id;
    TASSERT_OK(heapfmt_write_string(w, "String", 6, &id));
    cr_assert_eq(id, 1);
    heapfmt_class c = { 2000, "String", 6, 0, 0 };
    TASSERT_OK(heapfmt_write_class(w, &c));
    uint32_t klass, fn, frame, stack;
    TASSERT_OK(heapfmt_write_string(w, "@k", 2, &klass));
    TASSERT_OK(heapfmt_write_string(w, "f", 1, &fn));
    stack = twrite_one_frame_stack(w, fn, 0x10, &frame);
    cr_assert(klass == 2 && fn == 3 && frame == 1 && stack == 1);
    uint64_t refs[1] = { 2000 };
    heapfmt_label labels[1] = { { HEAPFMT_LABEL_FIELD, 0, klass } };
    heapfmt_object o = { 0 };
    o.id = 16000;
    o.class_id = 2000;
    o.type = 0;
    o.size = 40;
    o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_STACK;
    o.refs = refs;
    o.nrefs = 1;
    o.labels = labels;
    o.stack = stack;
    TASSERT_OK(heapfmt_write_object(w, &o));
    if (tail == TAIL_ARRAYS) {
        heapfmt_class a = { 2040, "Array", 5, 0, 0 };
        TASSERT_OK(heapfmt_write_class(w, &a));
        for (int i = 0; i < 2; i++) {
            heapfmt_object ao = vector_array(i, 2040);
            TASSERT_OK(heapfmt_write_object(w, &ao));
        }
    } else if (tail == TAIL_LIFESPAN) {
        uint32_t file;
        TASSERT_OK(heapfmt_write_string(w, "a.rb", 4, &file));
        cr_assert_eq(file, 4);
        heapfmt_lifespan ls = {HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE,
                               stack, file, 7, 3, 2, 120, 80, 1500, 250000};
        TASSERT_OK(heapfmt_write_lifespan(w, &ls));
    } else {
        TASSERT_OK(heapfmt_write_events(w, 1, vector_thread1, 4));
        TASSERT_OK(heapfmt_write_events(w, 2, vector_thread2, 1));
        TASSERT_OK(heapfmt_write_events(w, 0, vector_mark, 1));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

/* A dump's header rewritten to say minor (and its check): what a writer
 * of that minor wrote, for a dump without the newer minor's features. */
static void set_minor(tbuf *b, unsigned minor)
{
    cr_assert_geq(b->len, 16);
    b->data[9] = (unsigned char)minor;
    uint32_t crc = traw_crc(b->data, 12);
    for (int i = 0; i < 4; i++)
        b->data[12 + i] = (unsigned char)(crc >> (8 * i));
}

static void hex_line(char *dst, size_t cap, const unsigned char *p, size_t n,
                     size_t from)
{
    size_t o = 0;
    dst[0] = '\0';
    for (size_t i = from; i < n && i < from + 24 && o + 4 < cap; i++)
        o += (size_t)snprintf(dst + o, cap - o, "%02x ", p[i]);
}

/* Asserts that the writer's bytes are the spec's (or the independent
 * encoder's), showing where not. */
static void same_bytes(const tbuf *spec, const tbuf *api, const char *what)
{
    size_t n = spec->len < api->len ? spec->len : api->len;
    size_t diff = 0;
    while (diff < n && spec->data[diff] == api->data[diff])
        diff++;
    char a[128], b[128];
    hex_line(a, sizeof a, spec->data, spec->len, diff);
    hex_line(b, sizeof b, api->data, api->len, diff);
    cr_assert(diff == n && spec->len == api->len,
              "%s (%zu bytes) and writer output (%zu bytes) differ from "
              "offset %zu:\n  spec:   %s\n  writer: %s",
              what, spec->len, api->len, diff, a, b);
}

/* Finishes d and checks that it holds the writer's bytes; frees both. */
static void encoder_agrees(traw *d, tbuf *api)
{
    traw_finish(d);
    same_bytes(&d->out, api, "encoder");
    traw_free(d);
    tbuf_free(api);
}

/* What both vectors hold: STRING "String", CLASS, OBJECT 16000 -> 2000,
 * END. The 1.1 vector has four more records (two strings, a frame, a
 * stack) before its OBJECT, which are skipped here. */
/* The 1.1 vector's label and stack, through the reader's own calls. */
static void expect_label_and_stack(const tbuf *b, const char *what)
{
    heapfmt_reader *r = treader_on_memory(b->data, b->len);
    heapfmt_record rec;
    int rc;
    int seen = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_OBJECT)
            continue;
        const heapfmt_robject *o = rec.u.object;
        cr_assert_not_null(o->stack, "%s: no stack", what);
        cr_assert_eq(o->stack->id, 1);
        cr_assert_eq(o->stack->nframes, 1);
        const heapfmt_rframe *f = o->stack->frames[0];
        cr_assert_str_eq(f->function->ptr, "f");
        cr_assert_eq(f->library->len, 0);
        cr_assert_eq(f->offset, 0x10);
        cr_assert_eq(f->line, 0);
        const heapfmt_rlabel *l;
        cr_assert_eq(heapfmt_reader_labels(r, &l), 1);
        cr_assert_eq(l[0].kind, HEAPFMT_LABEL_FIELD);
        cr_assert_eq(l[0].weak, 0);
        cr_assert_str_eq(l[0].name->ptr, "@k");
        seen++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE);
    cr_assert_eq(seen, 1);
    heapfmt_reader_free(r);
}

/* The 1.2 vector's events, through heapfmt_reader_event: each record's
 * thread and events as written. */
static void expect_events(const tbuf *b, const char *what)
{
    static const struct {
        uint32_t thread;
        const heapfmt_event *ev;
        size_t n;
    } want[] = {
        { 1, vector_thread1, 4 },
        { 2, vector_thread2, 1 },
        { 0, vector_mark, 1 },
    };
    heapfmt_reader *r = treader_on_memory(b->data, b->len);
    heapfmt_record rec;
    int rc;
    size_t k = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        heapfmt_event e;
        if (rec.tag != HEAPFMT_TAG_EVENTS) {
            cr_assert_eq(heapfmt_reader_event(r, &e), HEAPFMT_E_STATE);
            continue;
        }
        cr_assert_lt(k, 3, "%s: a fourth EVENTS record", what);
        const heapfmt_revents *re = rec.u.events;
        cr_assert_eq(re->thread, want[k].thread);
        cr_assert_eq(re->count, want[k].n);
        cr_assert_eq(re->first_seq, want[k].ev[0].seq);
        cr_assert_eq(re->last_seq, want[k].ev[want[k].n - 1].seq);
        cr_assert_eq(re->first_time_us, want[k].ev[0].time_us);
        cr_assert_eq(re->last_time_us, want[k].ev[want[k].n - 1].time_us);
        for (size_t i = 0; i < want[k].n; i++) {
            cr_assert_eq(heapfmt_reader_event(r, &e), 1);
            cr_assert(tevent_same(&e, &want[k].ev[i]),
                         "%s: record %zu event %zu: op %u seq %llu block "
                         "%llu size %llu",
                         what, k, i, e.op, (unsigned long long)e.seq,
                         (unsigned long long)e.block,
                         (unsigned long long)e.size);
        }
        cr_assert_eq(heapfmt_reader_event(r, &e), 0);
        cr_assert_eq(heapfmt_reader_event(r, &e), 0);
        k++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s: %s", what,
                 heapfmt_reader_error(r)->message);
    cr_assert_eq(k, 3);
    heapfmt_reader_free(r);
}

static void expect_vector_records(const tbuf *b, const char *what,
                                  int minor)
{
    tcapture c;
    tcapture_memory(&c, b->data, b->len, 0);
    cr_assert_eq(c.rc, HEAPFMT_DONE, "%s: %s: %s", what, tstatus_name(c.rc),
                 c.err.message);
    treclist all = c.recs, core = { 0 };
    for (size_t i = 0; i < all.n; i++) /* the 1.0 records, in order */
        if (i < 2 || all.v[i].tag == HEAPFMT_TAG_OBJECT ||
            all.v[i].tag == HEAPFMT_TAG_END)
            *treclist_push(&core) = all.v[i];
    /* 1.1 adds two strings, a frame and a stack; 1.2 three EVENTS */
    size_t nrecs = minor == 0 ? 4 : minor == 1 ? 8 : 11;
    cr_assert_eq(all.n, nrecs, "%s: %zu records", what, all.n);
    const treclist *l = &core;
    cr_assert_eq(l->v[0].tag, HEAPFMT_TAG_STRING);
    cr_assert_eq(l->v[0].text.id, 1);
    cr_assert_eq(l->v[0].text.len, 6);
    cr_assert_str_eq(l->v[0].text.ptr, "String");
    cr_assert_eq(l->v[1].tag, HEAPFMT_TAG_CLASS);
    cr_assert_eq(l->v[1].cls.index, 1);
    cr_assert_eq(l->v[1].cls.id, 2000);
    cr_assert_eq(l->v[1].cls.super_id, 0);
    cr_assert_eq(l->v[1].cls.flags, 0);
    cr_assert_eq(l->v[1].cls.name.id, 1);
    cr_assert_str_eq(l->v[1].cls.name.ptr, "String");
    const trec *o = &l->v[2];
    cr_assert_eq(o->tag, HEAPFMT_TAG_OBJECT);
    cr_assert_eq(o->id, 16000);
    cr_assert_eq(o->cls.index, 1);
    cr_assert_str_eq(o->cls.name.ptr, "String");
    cr_assert_eq(o->type.id, 0);
    cr_assert_eq(o->size, 40);
    cr_assert_eq(o->fields, minor ? HEAPFMT_F_LABELS | HEAPFMT_F_STACK : 0);
    cr_assert_eq(o->nrefs, 1);
    cr_assert_eq(o->refs_rc, 0);
    cr_assert_eq(o->refs[0], 2000, "%s: ref %llu", what,
                 (unsigned long long)o->refs[0]);
    cr_assert_eq(l->v[3].tag, HEAPFMT_TAG_END);
    cr_assert_eq(l->v[3].objects, 1);
    cr_assert_eq(l->v[3].bytes, 40);
    cr_assert_eq(l->v[3].records, nrecs - 1);
    cr_assert(c.have_footer);
    const tfooter *f = &c.footer;
    cr_assert_eq(f->totals.objects, 1);
    cr_assert_eq(f->totals.bytes, 40);
    cr_assert_eq(f->totals.records, nrecs - 1);
    cr_assert_eq(f->totals.classes, 1);
    cr_assert_eq(f->totals.strings, minor ? 3 : 1);
    cr_assert_eq(f->totals.roots, 0);
    cr_assert_eq(f->totals.blocks, 1);
    cr_assert_eq(f->totals.raw_bytes, minor == 0 ? 35 : minor == 1 ? 61 : 101);
    cr_assert_eq(f->totals.codecs, minor ? 1u << HEAPFMT_CODEC_STORED : 0);
    cr_assert_eq(f->nblocks, 1);
    cr_assert_eq(f->blocks[0].offset, 16);
    cr_assert_eq(f->blocks[0].records, nrecs);
    cr_assert_eq(f->blocks[0].objects, 1);
    cr_assert_eq(f->nclasses, 1);
    cr_assert_eq(f->classes[0].index, 1);
    cr_assert_eq(f->classes[0].id, 2000);
    cr_assert_eq(f->classes[0].count, 1);
    cr_assert_eq(f->classes[0].bytes, 40);
    cr_assert_str_eq(f->classes[0].name, "String");
    free(core.v);
    tcapture_free(&c);
    if (minor)
        expect_label_and_stack(b, what);
    if (minor >= 2)
        expect_events(b, what);
}

Test(vector, writer_output_matches_spec_bytes)
{
    tbuf spec, api;
    load_vector(&spec, "1.2-EVENTS");
    write_vector(&api);
    set_minor(&api, 2);
    same_bytes(&spec, &api, "spec vector 11.4");
    tbuf_free(&spec);
    tbuf_free(&api);
}

/* Every vector of the spec decodes as its section describes; the older
 * ones are compatibility: the 1.1 vector is what libheapfmt wrote before
 * 1.2 (section 11.2), the 1.0 vector what libheapfmt 0.1 wrote (11.1). */
Test(vector, reader_decodes_spec_bytes)
{
    static const struct {
        const char *vector, *name;
        unsigned minor;
    } cases[] = {
        {"1.2-EVENTS", "spec vector 1.2", 2},
        {"1.1", "spec vector 1.1", 1},
        {"1.0", "spec vector 1.0", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tbuf spec;
        load_vector(&spec, cases[i].vector);
        expect_vector_records(&spec, cases[i].name, cases[i].minor);
        tbuf_free(&spec);
    }
}

/* Independent of the spec's hex: the API's dump decodes to the records
 * section 11 describes. */
Test(vector, writer_output_decodes_as_described)
{
    tbuf api;
    write_vector(&api);
    expect_vector_records(&api, "writer output", 2);
    tbuf_free(&api);
}

/* The records of 11.2, from the spec, through the independent encoder. */
static void traw_vector_11_2(traw *d)
{
    traw_string(d, 1, "String");
    traw_class(d, 1, 2000, 1, 0, 0);
    traw_string(d, 2, "@k");
    traw_string(d, 3, "f");
    traw_frame(d, 1, 3, 0, 0x10, 0, 0);
    uint32_t frames[1] = { 1 };
    traw_stack(d, 1, frames, 1);
    uint64_t refs[1] = { 2000 };
    heapfmt_label labels[1] = { { HEAPFMT_LABEL_FIELD, 0, 2 } };
    heapfmt_object o = { 0 };
    o.id = 16000;
    o.class_id = 1;
    o.size = 40;
    o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_STACK;
    o.refs = refs;
    o.nrefs = 1;
    o.labels = labels;
    o.stack = 1;
    traw_object(d, &o);
}

/* The independent encoder of tests/support/traw.c, given the same records,
 * produces the writer's bytes: the encoding is canonical. */
Test(vector, independent_encoder_agrees_with_writer)
{
    tbuf api;
    write_vector(&api);
    traw d;
    traw_begin(&d, 1, HEAPFMT_FORMAT_MINOR, 0, 0);
    traw_vector_11_2(&d);
    /* section 11.4's events, field by field from the spec: thread 1 from
     * seq0 0 and time0 100; thread 2 from 4, 105; the MARK from 2, 103 */
    const traw_event t1[] = {
        { HEAPFMT_EV_MALLOC, 0, 0, 1, { 24 } },
        { HEAPFMT_EV_CALLOC, 0, 3, 1, { 100 } },
        { HEAPFMT_EV_REALLOC, 1, 0, 2, { 3, 300 } },
        { HEAPFMT_EV_FREE, 1, 7, 1, { 2 } },
    };
    const traw_event t2[] = { { HEAPFMT_EV_MALLOC, 0, 0, 1, { 64 } } };
    const traw_event t0[] = {
        { HEAPFMT_EV_MARK, 0, 0, 3, { 8192, 12288, 4096 } },
    };
    traw_events(&d, 1, 0, 100, 4, t1, 4);
    traw_events(&d, 2, 4, 105, 1, t2, 1);
    traw_events(&d, 0, 2, 103, 1, t0, 1);
    encoder_agrees(&d, &api);
}

/* The vector's own checksums and offsets are consistent (a diagnostic for
 * the hex in the spec, independent of the library). */
static void self_consistent(const char *version)
{
    tbuf v;
    load_vector(&v, version);
    const unsigned char *p = v.data;
    cr_assert_geq(v.len, 16 + 20 + 20 + 24);
    cr_assert_eq(memcmp(p, "\x89HFMT\r\n\x1a", 8), 0, "magic");
    cr_assert_eq(tget_u32le(p + 12), traw_crc(p, 12),
                 "header check %08x, CRC32 of bytes 0-11 is %08x",
                 tget_u32le(p + 12), traw_crc(p, 12));
    const unsigned char *t = p + v.len - 24;
    cr_assert_eq(memcmp(t + 16, "\x89HFMTEND", 8), 0, "end magic");
    cr_assert_eq(tget_u32le(t + 12), traw_crc(t, 12),
                 "trailer check %08x, CRC32 of its bytes 0-11 is %08x",
                 tget_u32le(t + 12), traw_crc(t, 12));
    uint64_t footer_at = tget_u64le(t);
    size_t at = 16;
    int blocks = 0;
    while (at < v.len - 24) {
        cr_assert_leq(at + 20, v.len - 24, "block header at %zu runs past "
                                           "the trailer",
                      at);
        const unsigned char *h = p + at;
        uint32_t raw = tget_u32le(h + 4), stored = tget_u32le(h + 8);
        cr_assert_eq(tget_u32le(h + 16), traw_crc(h, 16),
                     "block at %zu: header_crc %08x, CRC32 of bytes 0-15 is "
                     "%08x",
                     at, tget_u32le(h + 16), traw_crc(h, 16));
        cr_assert_eq(h[1], 0, "the vector is stored (level 0)");
        cr_assert_eq(raw, stored);
        cr_assert_leq(at + 20 + stored, v.len - 24,
                      "block at %zu: stored_len %u runs past the trailer", at,
                      stored);
        cr_assert_eq(tget_u32le(h + 12), traw_crc(h + 20, stored),
                     "block at %zu: data_crc %08x, CRC32 of its %u payload "
                     "bytes is %08x",
                     at, tget_u32le(h + 12), stored,
                     traw_crc(h + 20, stored));
        /* records fill the payload exactly */
        size_t q = at + 20, e = q + stored;
        while (q < e) {
            q++; /* tag */
            uint64_t len = 0;
            unsigned shift = 0;
            while (q < e && (p[q] & 0x80)) {
                len |= (uint64_t)(p[q++] & 0x7f) << shift;
                shift += 7;
            }
            cr_assert_lt(q, e, "record length runs past block at %zu", at);
            len |= (uint64_t)p[q++] << shift;
            q += len;
        }
        cr_assert_eq(q, e, "block at %zu: records do not fill the payload",
                     at);
        if (h[0] == 'F')
            cr_assert_eq(at, footer_at, "footer block at %zu, trailer says "
                                        "%llu",
                         at, (unsigned long long)footer_at);
        at += 20 + stored;
        blocks++;
    }
    cr_assert_eq(at, v.len - 24);
    cr_assert_eq(blocks, 2);
    tbuf_free(&v);
}

Test(vector, spec_bytes_are_self_consistent)
{
    self_consistent("1.0");
    self_consistent("1.1");
    self_consistent("1.2-EVENTS");
}

/* ---- section 11.3: the LIFESPAN vector (format 1.2) ---- */

/* The 1.2 vector's LIFESPAN, through the reader. */
static void expect_lifespan(const tbuf *b, const char *what)
{
    heapfmt_reader *r = treader_on_memory(b->data, b->len);
    heapfmt_record rec;
    int rc, seen = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_LIFESPAN)
            continue;
        const heapfmt_rlifespan *l = rec.u.lifespan;
        cr_assert_eq(l->key, HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE,
                     "%s", what);
        cr_assert_not_null(l->stack);
        cr_assert_eq(l->stack->id, 1);
        cr_assert_str_eq(l->stack->frames[0]->function->ptr, "f");
        cr_assert_str_eq(l->file->ptr, "a.rb");
        cr_assert_eq(l->line, 7);
        cr_assert(l->allocs == 3 && l->frees == 2 && l->alloc_bytes == 120 &&
                  l->free_bytes == 80 && l->lifetime_us == 1500 &&
                  l->oldest_us == 250000, "%s: counts", what);
        seen++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE);
    cr_assert_eq(seen, 1, "%s: %d LIFESPAN records", what, seen);
    heapfmt_reader_free(r);
}

Test(vector, lifespan_writer_output_matches_spec_bytes)
{
    tbuf spec, api;
    load_vector(&spec, "1.2");
    write_vector_tail(&api, TAIL_LIFESPAN);
    set_minor(&api, 2);
    same_bytes(&spec, &api, "spec vector 11.3");
    expect_lifespan(&spec, "spec vector 11.3");
    tbuf_free(&spec);
    tbuf_free(&api);
}

/* The independent encoder, given 11.3's records, produces the writer's
 * bytes. */
Test(vector, lifespan_independent_encoder_agrees_with_writer)
{
    tbuf api;
    write_vector_tail(&api, TAIL_LIFESPAN);
    traw d;
    traw_begin(&d, 1, HEAPFMT_FORMAT_MINOR, 0, 0);
    traw_vector_11_2(&d);
    traw_string(&d, 4, "a.rb");
    heapfmt_lifespan ls = {HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE,
                           1, 4, 7, 3, 2, 120, 80, 1500, 250000};
    traw_lifespan(&d, &ls);
    encoder_agrees(&d, &api);
}

Test(vector, lifespan_spec_bytes_are_self_consistent)
{
    self_consistent("1.2");
}

/* ---- section 11.5: indexed arrays (format 1.3) ---- */

/* The labels of 11.5's arrays, through the reader: the same as if they
 * were listed one by one; delivered with F_LABELS, so that a reader that
 * asks only then finds them. */
static void expect_indexed(const tbuf *b, const char *what)
{
    heapfmt_reader *r = treader_on_memory(b->data, b->len);
    heapfmt_record rec;
    int rc, seen = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_OBJECT || rec.u.object->id == 16000)
            continue;
        const heapfmt_robject *o = rec.u.object;
        int first = o->id == 16040;
        cr_assert(first || o->id == 16080, "%s: object %llu", what,
                  (unsigned long long)o->id);
        cr_assert_str_eq(o->klass->name->ptr, "Array");
        cr_assert_eq(o->fields, HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS);
        const uint64_t *ids;
        cr_assert_eq(heapfmt_reader_refs(r, &ids), 2);
        cr_assert_eq(ids[0], 16000);
        cr_assert_eq(ids[1], first ? 2000 : 16040);
        const heapfmt_rlabel *l;
        cr_assert_eq(heapfmt_reader_labels(r, &l), 2, "%s", what);
        for (int i = 0; i < 2; i++) {
            cr_assert_eq(l[i].kind, HEAPFMT_LABEL_INDEX, "%s: %d", what, i);
            cr_assert_eq(l[i].weak, 0);
            cr_assert_eq(l[i].index, (uint64_t)(first ? i : i + 1),
                         "%s: object %llu label %d is [%llu]", what,
                         (unsigned long long)o->id, i,
                         (unsigned long long)l[i].index);
            cr_assert_str_eq(l[i].name->ptr, "");
        }
        seen++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s: %s", what,
                 heapfmt_reader_error(r)->message);
    cr_assert_eq(seen, 2);
    heapfmt_reader_free(r);
}

Test(vector, indexed_writer_output_matches_spec_bytes)
{
    tbuf spec, api;
    load_vector(&spec, "1.3");
    write_vector_tail(&api, TAIL_ARRAYS);
    same_bytes(&spec, &api, "spec vector 11.5");
    expect_indexed(&spec, "spec vector 11.5");
    expect_indexed(&api, "writer output 11.5");
    tbuf_free(&spec);
    tbuf_free(&api);
}

/* The independent encoder, given 11.5's records with every label (the
 * inferred ones too), produces the writer's bytes. */
Test(vector, indexed_independent_encoder_agrees_with_writer)
{
    tbuf api;
    write_vector_tail(&api, TAIL_ARRAYS);
    traw d;
    traw_begin(&d, 1, 3, 0, 0);
    traw_vector_11_2(&d);
    traw_string(&d, 4, "Array");
    traw_class(&d, 2, 2040, 4, 0, 0);
    for (int i = 0; i < 2; i++) {
        heapfmt_object a = vector_array(i, 2);
        traw_object(&d, &a);
    }
    encoder_agrees(&d, &api);
}

Test(vector, indexed_spec_bytes_are_self_consistent)
{
    self_consistent("1.3");
}

/* Bit 6 is read by the file's minor: in the 11.5 vector rewritten to say
 * minor 2, where the bit is reserved, it is corrupt (section 4), as a
 * 1.2 reader takes it in a file of its own minor. */
Test(vector, indexed_bit_is_reserved_before_1_3)
{
    tbuf spec;
    load_vector(&spec, "1.3");
    set_minor(&spec, 2);
    tcapture c;
    tcapture_memory(&c, spec.data, spec.len, 0);
    cr_assert_neq(c.rc, HEAPFMT_DONE, "bit 6 accepted in a 1.2 file");
    tcapture_free(&c);
    tbuf_free(&spec);
}
