/*
 * test_reader_stream.c -- the reader over every kind of source and chunking,
 * forward compatibility (unknown tags and blocks, trailing payload bytes,
 * newer minor), and refusal of what it cannot read.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"
#include "ttext.h"

/* ---- the same dump through every source --------------------------------------- */

static void make_dump(tmodel *m, tbuf *out, int level, uint32_t block_size,
                      uint64_t seed, size_t nops)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = block_size;
    tmodel_init(m);
    TASSERT_OK(tmodel_make_dump(m, &opt, seed, nops, out));
    cr_assert_eq(m->bad, 0, "%s", m->why);
}

static void expect_same(const tmodel *m, const tcapture *ref,
                        const tcapture *c, const char *what)
{
    char why[512];
    cr_assert_eq(c->rc, HEAPFMT_DONE, "%s: %s: %s", what, tstatus_name(c->rc),
                 c->err.message);
    cr_assert_eq(c->weird, 0, "%s: %s", what, c->why);
    cr_assert_eq(treclist_equal(&m->exp, &c->recs, TCMP_INDEX, why,
                                sizeof why),
                 0, "%s: %s", what, why);
    /* offsets too */
    for (size_t i = 0; i < c->recs.n; i++)
        cr_assert_eq(c->recs.v[i].offset, ref->recs.v[i].offset,
                     "%s: record %zu offset", what, i);
    cr_assert(c->have_footer, "%s: no footer after DONE", what);
    cr_assert_eq(tfooter_equal(&ref->footer, &c->footer, why, sizeof why), 0,
                 "%s: footer: %s", what, why);
}

static void all_sources(int level, uint32_t block_size, uint64_t seed)
{
    tmodel m;
    tbuf out;
    make_dump(&m, &out, level, block_size, seed, 500);
    tcapture ref, c;
    tcapture_memory(&ref, out.data, out.len, 0);
    expect_same(&m, &ref, &ref, "open_memory");
    char why[512];
    cr_assert_eq(tmodel_check_footer(&m, &ref.footer, why, sizeof why), 0,
                 "%s", why);

    static const struct {
        int policy, seekable;
        unsigned long eintr;
        const char *name;
    } v[] = {
        { TSRC_WHOLE, 1, 0, "whole" },
        { TSRC_BYTE, 1, 0, "1-byte" },
        { TSRC_RANDOM, 1, 0, "random" },
        { TSRC_RANDOM, 0, 0, "random, unseekable" },
        { TSRC_BYTE, 0, 2, "1-byte, EINTR every 2nd" },
        { TSRC_RANDOM, 1, 3, "random, EINTR every 3rd" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (uint64_t s = 1; s <= (v[i].policy == TSRC_RANDOM ? 3u : 1u);
             s++) {
            tsource src;
            heapfmt_reader *r = NULL;
            memset(&c, 0, sizeof c);
            tsource_init(&src, out.data, out.len, v[i].policy, s * 77);
            src.seekable = v[i].seekable;
            src.eintr_every = v[i].eintr;
            TASSERT_OK(tsource_open(&r, NULL, &src));
            tcapture_run(&c, r, 0);
            expect_same(&m, &ref, &c, v[i].name);
            heapfmt_progress p;
            heapfmt_reader_progress(r, &p);
            cr_assert_eq(p.records, c.recs.n,
                         "%s: progress.records %llu, delivered %zu",
                         v[i].name, (unsigned long long)p.records, c.recs.n);
            cr_assert_eq(p.objects, m.objects, "%s: progress.objects %llu",
                         v[i].name, (unsigned long long)p.objects);
            cr_assert_eq(p.blocks, ref.footer.nblocks,
                         "%s: progress.blocks %llu, %zu data blocks",
                         v[i].name, (unsigned long long)p.blocks,
                         ref.footer.nblocks);
            cr_assert_eq(p.corrupt_blocks, 0);
            cr_assert_eq(p.offset, (uint64_t)out.len,
                         "%s: progress.offset %llu of %zu", v[i].name,
                         (unsigned long long)p.offset, out.len);
            heapfmt_reader_free(r);
            tcapture_free(&c);
        }
    }

    int fd = ttemp_fd(out.data, out.len);
    tcapture_fd(&c, fd, 0);
    expect_same(&m, &ref, &c, "open_fd on a file");
    tcapture_free(&c);
    cr_assert_geq(fcntl(fd, F_GETFD), 0, "reader closed the caller's fd");
    close(fd);

    int child;
    fd = tpipe_fd(out.data, out.len, &child);
    tcapture_fd(&c, fd, 0);
    expect_same(&m, &ref, &c, "open_fd on a pipe");
    tcapture_free(&c);
    close(fd);
    twait_child(child);

    tcapture_free(&ref);
    tbuf_free(&out);
    tmodel_free(&m);
}

Test(reader_stream, same_records_from_every_source_deflate, .timeout = 60)
{
    all_sources(1, 1024, 31);
}

Test(reader_stream, same_records_from_every_source_stored, .timeout = 60)
{
    all_sources(0, 2048, 32);
}

Test(reader_stream, same_records_from_every_source_big_blocks, .timeout = 60)
{
    all_sources(6, 0, 33);
}

Test(reader_stream, open_path)
{
    tmodel m;
    tbuf out;
    make_dump(&m, &out, 1, 0, 5, 100);
    char path[4096];
    int fd = ttemp_path(path, sizeof path);
    cr_assert_eq(write(fd, out.data, out.len), (ssize_t)out.len);
    close(fd);
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_path(&r, NULL, path));
    tcapture c;
    memset(&c, 0, sizeof c);
    tcapture_run(&c, r, 0);
    TASSERT_CAPTURE_DONE(&c);
    char why[512];
    cr_assert_eq(treclist_equal(&m.exp, &c.recs, TCMP_INDEX, why, sizeof why),
                 0, "%s", why);
    heapfmt_reader_free(r);
    tcapture_free(&c);
    unlink(path);

    r = (heapfmt_reader *)&r;
    errno = 0;
    TASSERT_RC(heapfmt_reader_open_path(&r, NULL, path), HEAPFMT_E_IO);
    cr_assert_null(r);
    cr_assert_eq(errno, ENOENT);
    tbuf_free(&out);
    tmodel_free(&m);
}

Test(reader_stream, open_argument_errors)
{
    static const unsigned char b[1] = { 0 };
    heapfmt_reader *r = (heapfmt_reader *)&r;
    TASSERT_RC(heapfmt_reader_open_memory(NULL, NULL, b, 1), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_reader_open_memory(&r, NULL, NULL, 10), HEAPFMT_E_ARG);
    cr_assert_null(r);
    r = (heapfmt_reader *)&r;
    TASSERT_RC(heapfmt_reader_open(&r, NULL, NULL, NULL, NULL),
               HEAPFMT_E_ARG);
    cr_assert_null(r);
    heapfmt_reader_free(NULL);
}

Test(reader_stream, two_readers_interleaved)
{
    tmodel m1, m2;
    tbuf o1, o2;
    make_dump(&m1, &o1, 1, 1024, 41, 300);
    make_dump(&m2, &o2, 0, 0, 42, 300);
    heapfmt_reader *r1 = NULL, *r2 = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r1, NULL, o1.data, o1.len));
    TASSERT_OK(heapfmt_reader_open_memory(&r2, NULL, o2.data, o2.len));
    treclist g1 = { 0 }, g2 = { 0 };
    int rc1 = HEAPFMT_OK, rc2 = HEAPFMT_OK;
    while (rc1 == HEAPFMT_OK || rc2 == HEAPFMT_OK) {
        heapfmt_record rec;
        if (rc1 == HEAPFMT_OK && (rc1 = heapfmt_reader_next(r1, &rec)) ==
                                     HEAPFMT_OK)
            trec_from_record(treclist_push(&g1), r1, &rec);
        if (rc2 == HEAPFMT_OK && (rc2 = heapfmt_reader_next(r2, &rec)) ==
                                     HEAPFMT_OK)
            trec_from_record(treclist_push(&g2), r2, &rec);
    }
    TASSERT_RC(rc1, HEAPFMT_DONE);
    TASSERT_RC(rc2, HEAPFMT_DONE);
    char why[512];
    cr_assert_eq(treclist_equal(&m1.exp, &g1, TCMP_INDEX, why, sizeof why), 0,
                 "%s", why);
    cr_assert_eq(treclist_equal(&m2.exp, &g2, TCMP_INDEX, why, sizeof why), 0,
                 "%s", why);
    heapfmt_reader_free(r1);
    heapfmt_reader_free(r2);
    treclist_free(&g1);
    treclist_free(&g2);
    tbuf_free(&o1);
    tbuf_free(&o2);
    tmodel_free(&m1);
    tmodel_free(&m2);
}

/* A source over out, unseekable, in random pieces, whose read call
 * fail_at fails once with EIO (0: none); opens a reader on it. */
static int open_failing_source(heapfmt_reader **r, tsource *s,
                               const tbuf *out, unsigned long fail_at)
{
    tsource_init(s, out->data, out->len, TSRC_RANDOM, 9);
    s->seekable = 0;
    s->fail_at = fail_at;
    s->fail_errno = EIO;
    s->fail_once = 1;
    return tsource_open(r, NULL, s);
}

/* A read error is reported as HEAPFMT_E_IO with its errno, is sticky,
 * and what was delivered before is a prefix of the dump. */
Test(reader_stream, read_failure_at_every_call, .timeout = 60)
{
    tmodel m;
    tbuf out;
    make_dump(&m, &out, 1, 1024, 51, 150);
    unsigned long calls;
    {
        tsource s;
        heapfmt_reader *r = NULL;
        tcapture c;
        memset(&c, 0, sizeof c);
        TASSERT_OK(open_failing_source(&r, &s, &out, 0));
        tcapture_run(&c, r, 0);
        TASSERT_CAPTURE_DONE(&c);
        calls = s.reads;
        heapfmt_reader_free(r);
        tcapture_free(&c);
    }
    cr_assert_gt(calls, 20);
    for (unsigned long n = 1; n <= calls; n++) {
        tsource s;
        heapfmt_reader *r = NULL;
        tcapture c;
        memset(&c, 0, sizeof c);
        int rc = open_failing_source(&r, &s, &out, n);
        if (rc == HEAPFMT_OK) {
            tcapture_run(&c, r, 0);
            rc = c.rc;
        }
        cr_assert_eq(rc, HEAPFMT_E_IO, "read call %lu failing: %s", n,
                     tstatus_name(rc));
        if (r) {
            const heapfmt_error *e = heapfmt_reader_error(r);
            cr_assert_eq(e->code, HEAPFMT_E_IO);
            cr_assert_eq(e->sys_errno, EIO, "sys_errno %d", e->sys_errno);
            cr_assert_neq(e->message[0], '\0');
            heapfmt_record rec;
            TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_IO);
        }
        char why[512];
        cr_assert_eq(treclist_compare(&m.exp, 0, &c.recs, 0, c.recs.n,
                                      TCMP_INDEX, why, sizeof why),
                     0, "%s", why);
        heapfmt_reader_free(r);
        tcapture_free(&c);
    }
    tbuf_free(&out);
    tmodel_free(&m);
}

/* ---- hand-made dumps ------------------------------------------------------------ */

typedef struct rawopts {
    unsigned major, minor;
    uint16_t flags;
    unsigned codec;
    int unknown_tags;
    int unknown_blocks;
    size_t pad;
} rawopts;

static const rawopts raw_plain = { 1, 0, 0, 0, 0, 0, 0 };

static void build_raw(traw *d, const rawopts *o)
{
    static const char big[300] = { 1, 2, 3 };
    traw_begin(d, o->major, o->minor, o->flags, o->codec);
    d->pad = o->pad;
    if (o->unknown_blocks)
        traw_foreign_block(d, 'X', "ignored", 7);
    traw_meta_uint(d, "pid", 77);
    traw_meta_int(d, "neg", -5);
    traw_meta_text(d, "producer", "raw 1");
    traw_string(d, 1, "T_OBJECT");
    traw_string(d, 2, "Foo");
    traw_string(d, 3, "vm");
    traw_class(d, 1, 0x1000, 2, 0, 0);
    traw_class(d, 2, 0x2000, 0, 0x1000, HEAPFMT_CF_SINGLETON);
    if (o->unknown_tags)
        traw_any(d, 0x0b, NULL, 0); /* the first tag reserved in 1.2 */
    uint64_t refs1[2] = { 0x10040, 0x1000 };
    heapfmt_object ob = { 0 };
    ob.id = 0x10000;
    ob.class_id = 1;
    ob.type = 1;
    ob.size = 40;
    ob.fields = HEAPFMT_F_BASIC;
    ob.flags = 3;
    ob.value = "abc";
    ob.value_len = 3;
    ob.file = 2;
    ob.line = 9;
    ob.generation = 2;
    ob.refs = refs1;
    ob.nrefs = 2;
    traw_object(d, &ob);
    if (o->unknown_tags)
        traw_any(d, 0x3f, big, sizeof big);
    heapfmt_object ob2 = { 0 };
    ob2.id = 0x10040;
    ob2.class_id = 2;
    ob2.size = 80;
    traw_object(d, &ob2);
    traw_flush(d);
    if (o->unknown_blocks)
        traw_foreign_block(d, 0x7f, big, sizeof big);
    if (o->unknown_tags)
        traw_any(d, 0x43, "x", 1);
    uint64_t refs3[2] = { 0, 1 };
    heapfmt_object ob3 = { 0 };
    ob3.id = UINT64_MAX;
    ob3.size = 24;
    ob3.refs = refs3;
    ob3.nrefs = 2;
    traw_object(d, &ob3);
    uint64_t roots[2] = { 0x10000, 0x10040 };
    traw_root(d, 3, roots, 2);
    if (o->unknown_tags) {
        traw_any(d, 0x80, "vendor", 6);
        traw_any(d, 0xff, big, 200);
    }
    traw_class(d, 2, 0x2000, 3, 0x1000, HEAPFMT_CF_SINGLETON);
    traw_flush(d);
    if (o->unknown_blocks)
        traw_foreign_block(d, 0x00, "z", 1);
    traw_finish(d);
}

/* The records of build_raw as the reader must deliver them. */
static void check_raw_records(const tcapture *c)
{
    const treclist *l = &c->recs;
    cr_assert_eq(l->n, 14, "%zu records delivered", l->n);
    static const int tags[14] = {
        HEAPFMT_TAG_META,   HEAPFMT_TAG_META,   HEAPFMT_TAG_META,
        HEAPFMT_TAG_STRING, HEAPFMT_TAG_STRING, HEAPFMT_TAG_STRING,
        HEAPFMT_TAG_CLASS,  HEAPFMT_TAG_CLASS,  HEAPFMT_TAG_OBJECT,
        HEAPFMT_TAG_OBJECT, HEAPFMT_TAG_OBJECT, HEAPFMT_TAG_ROOT,
        HEAPFMT_TAG_CLASS,  HEAPFMT_TAG_END,
    };
    for (size_t i = 0; i < 14; i++)
        cr_assert_eq(l->v[i].tag, tags[i], "record %zu is %s", i,
                     ttag_name(l->v[i].tag));
}

static void check_raw_content(const tcapture *c, uint64_t end_records)
{
    const treclist *l = &c->recs;
    cr_assert_geq(l->n, 14);
    cr_assert_str_eq(l->v[0].key, "pid");
    cr_assert_eq(l->v[0].uval, 77);
    cr_assert_eq(l->v[1].ival, -5);
    cr_assert_str_eq(l->v[2].text.ptr, "raw 1");
    cr_assert_eq(l->v[4].text.id, 2);
    cr_assert_str_eq(l->v[4].text.ptr, "Foo");
    const trec *o = &l->v[8];
    cr_assert_eq(o->id, 0x10000);
    cr_assert_eq(o->cls.index, 1);
    cr_assert_str_eq(o->cls.name.ptr, "Foo");
    cr_assert_str_eq(o->type.ptr, "T_OBJECT");
    cr_assert_eq(o->fields, HEAPFMT_F_BASIC);
    cr_assert_eq(o->flags, 3);
    cr_assert_eq(o->value_len, 3);
    cr_assert_eq(memcmp(o->value, "abc", 3), 0);
    cr_assert_str_eq(o->file.ptr, "Foo");
    cr_assert_eq(o->line, 9);
    cr_assert_eq(o->generation, 2);
    cr_assert_eq(o->nrefs, 2);
    cr_assert_eq(o->refs_rc, 0);
    cr_assert_eq(o->refs[0], 0x10040);
    cr_assert_eq(o->refs[1], 0x1000);
    o = &l->v[9];
    cr_assert_eq(o->id, 0x10040);
    cr_assert_eq(o->cls.index, 2);
    cr_assert_eq(o->cls.named, 0, "class 2 is anonymous until redefined");
    cr_assert_eq(o->cls.super_id, 0x1000);
    cr_assert_eq(o->nrefs, 0);
    o = &l->v[10];
    cr_assert_eq(o->id, UINT64_MAX, "delta base must restart in block 2");
    cr_assert_eq(o->cls.index, 0);
    cr_assert_eq(o->refs[0], 0);
    cr_assert_eq(o->refs[1], 1);
    o = &l->v[11];
    cr_assert_str_eq(o->kind.ptr, "vm");
    cr_assert_eq(o->refs[0], 0x10000);
    cr_assert_eq(o->refs[1], 0x10040);
    o = &l->v[12];
    cr_assert_eq(o->cls.index, 2);
    cr_assert_str_eq(o->cls.name.ptr, "vm");
    o = &l->v[13];
    cr_assert_eq(o->objects, 3);
    cr_assert_eq(o->bytes, 144);
    cr_assert_eq(o->records, end_records);
    cr_assert(c->have_footer);
    cr_assert_eq(c->footer.nclasses, 3);
    cr_assert_eq(c->footer.classes[0].index, 0);
    cr_assert_eq(c->footer.classes[0].count, 1);
    cr_assert_str_eq(c->footer.classes[2].name, "vm");
}

static void read_raw(tcapture *c, const rawopts *o, int policy)
{
    traw d;
    build_raw(&d, o);
    tcapture_source(c, d.out.data, d.out.len, policy, 3, 1, 0);
    traw_free(&d);
}

/* The independent encoder's dump, plain and with what a reader must pass
 * over: unknown record tags (END counts them), unknown block kinds,
 * trailing bytes in records, a newer minor with reserved header bits. */
Test(reader_stream, hand_made_dumps_read, .fini = tcase_fini)
{
    static const struct {
        const char *name;
        rawopts o; /* major, minor, flags, codec, tags, blocks, pad */
        int policy;
        uint64_t end_records;
    } cases[] = {
        {"stored", {1, 0, 0, 0, 0, 0, 0}, TSRC_WHOLE, 13},
        {"deflated", {1, 0, 0, 1, 0, 0, 0}, TSRC_WHOLE, 13},
        {"unknown tags, whole", {1, 0, 0, 0, 1, 0, 0}, TSRC_WHOLE, 13 + 5},
        {"unknown tags, bytes", {1, 0, 0, 1, 1, 0, 0}, TSRC_BYTE, 13 + 5},
        {"unknown tags, random", {1, 0, 0, 0, 1, 0, 0}, TSRC_RANDOM, 13 + 5},
        {"unknown block kinds", {1, 0, 0, 0, 0, 1, 0}, TSRC_RANDOM, 13},
        {"1 trailing byte", {1, 0, 0, 0, 1, 0, 1}, TSRC_BYTE, 13 + 5},
        {"12 trailing bytes", {1, 0, 0, 0, 1, 0, 12}, TSRC_BYTE, 13 + 5},
        {"newer minor", {1, 9, 0xffff, 0, 1, 0, 2}, TSRC_WHOLE, 13 + 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tcase_enter(cases[i].name);
        tcapture c;
        read_raw(&c, &cases[i].o, cases[i].policy);
        TASSERT_CAPTURE_DONE(&c);
        cr_assert_eq(c.major, (int)cases[i].o.major);
        cr_assert_eq(c.minor, (int)cases[i].o.minor);
        check_raw_records(&c);
        check_raw_content(&c, cases[i].end_records);
        tcapture_free(&c);
    }
    tcase_leave();
}

static void expect_version_refused(unsigned major, unsigned minor)
{
    rawopts o = raw_plain;
    o.major = major;
    o.minor = minor;
    traw d;
    build_raw(&d, &o);
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_memory(&r, NULL, d.out.data, d.out.len);
    cr_assert_eq(rc, HEAPFMT_E_VERSION, "%u.%u: %s", major, minor,
                 tstatus_name(rc));
    cr_assert_not_null(r, "no reader to explain the failure");
    const heapfmt_error *e = heapfmt_reader_error(r);
    cr_assert_eq(e->code, HEAPFMT_E_VERSION);
    char file_version[16];
    snprintf(file_version, sizeof file_version, "%u.%u", major, minor);
    cr_assert(strstr(e->message, file_version) != NULL,
              "message \"%s\" does not name the file's version %s",
              e->message, file_version);
    cr_assert(strstr(e->message, "1.") != NULL,
              "message \"%s\" does not name the reader's version 1.x",
              e->message);
    heapfmt_record rec;
    int again = heapfmt_reader_next(r, &rec);
    cr_assert_lt(again, 0, "next after a refused open gave %s",
                 tstatus_name(again));
    heapfmt_reader_free(r);
    traw_free(&d);
}

Test(reader_stream, other_majors_are_refused)
{
    expect_version_refused(2, 0);
    expect_version_refused(0, 9);
    expect_version_refused(255, 255);
}

Test(reader_stream, header_check_mismatch_is_corrupt)
{
    traw d;
    build_raw(&d, &raw_plain);
    d.out.data[12] ^= 0x01;
    heapfmt_reader *r = NULL;
    TASSERT_RC(heapfmt_reader_open_memory(&r, NULL, d.out.data, d.out.len),
               HEAPFMT_E_CORRUPT);
    heapfmt_reader_free(r);
    traw_free(&d);
}

Test(reader_stream, reserved_header_flags_in_current_minor)
{
    rawopts o = raw_plain;
    o.flags = 0x0100;
    traw d;
    build_raw(&d, &o);
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_memory(&r, NULL, d.out.data, d.out.len);
    /* spec section 4: reserved fields MUST be zero in a file whose minor is
     * not newer than the reader's; a reader can only refuse it */
    cr_assert_eq(rc, HEAPFMT_E_CORRUPT, "flags 0x100 in a 1.0 header: %s",
                 tstatus_name(rc));
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* ---- not heapfmt ---------------------------------------------------------------- */

static void expect_not_heapfmt(const void *data, size_t len, int json,
                               const char *what)
{
    for (int policy = 0; policy < 3; policy++) {
        tsource s;
        heapfmt_reader *r = NULL;
        tsource_init(&s, data, len, policy, 1);
        int rc = tsource_open(&r, NULL, &s);
        cr_assert_eq(rc, HEAPFMT_E_NOT_HEAPFMT, "%s: %s", what,
                     tstatus_name(rc));
        cr_assert_not_null(r, "%s: no reader to explain", what);
        const heapfmt_error *e = heapfmt_reader_error(r);
        cr_assert_eq(e->code, HEAPFMT_E_NOT_HEAPFMT);
        cr_assert_neq(e->message[0], '\0');
        if (json)
            cr_assert(tcontains_ci(e->message, "json"),
                      "%s: message \"%s\" does not mention JSON", what,
                      e->message);
        heapfmt_reader_free(r);
    }
}

Test(reader_stream, json_input_is_named)
{
    static const char obj[] =
        "{\"address\":\"0x7f1c2a0\", \"type\":\"STRING\", \"bytesize\":40}\n";
    expect_not_heapfmt(obj, strlen(obj), 1, "object");
    expect_not_heapfmt("[", 1, 1, "[");
    static const char arr[] = "[{\"type\":\"ROOT\"}]";
    expect_not_heapfmt(arr, strlen(arr), 1, "array");
}

Test(reader_stream, other_input_is_not_heapfmt)
{
    static const char text[] = "hello, world\n";
    expect_not_heapfmt(text, strlen(text), 0, "text");
    static const unsigned char png[16] = { 0x89, 'P', 'N', 'G', '\r', '\n',
                                           0x1a, '\n' };
    expect_not_heapfmt(png, sizeof png, 0, "PNG header");
    static const unsigned char gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    expect_not_heapfmt(gz, sizeof gz, 0, "gzip");
    /* the magic with one byte changed, in every position */
    traw d;
    build_raw(&d, &raw_plain);
    for (size_t i = 0; i < 8; i++) {
        d.out.data[i] ^= 0x20;
        expect_not_heapfmt(d.out.data, d.out.len, 0, "damaged magic");
        d.out.data[i] ^= 0x20;
    }
    /* a single non-magic byte */
    expect_not_heapfmt("x", 1, 0, "x");
    traw_free(&d);
}

Test(reader_stream, empty_input_is_truncated)
{
    /* an empty file is what a writer that failed at once leaves; spec
     * section 10: such a dump reads as truncated */
    for (int policy = 0; policy < 3; policy++) {
        tsource s;
        heapfmt_reader *r = NULL;
        tsource_init(&s, "", 0, policy, 1);
        int rc = tsource_open(&r, NULL, &s);
        cr_assert_eq(rc, HEAPFMT_E_TRUNCATED, "empty input: %s",
                     tstatus_name(rc));
        if (r) {
            cr_assert_neq(heapfmt_reader_error(r)->message[0], '\0');
            heapfmt_reader_free(r);
        }
    }
    heapfmt_reader *r = NULL;
    static const char none[1] = { 0 };
    TASSERT_RC(heapfmt_reader_open_memory(&r, NULL, none, 0),
               HEAPFMT_E_TRUNCATED);
    heapfmt_reader_free(r);
}
