/*
 * test_lifespan.c -- format 1.2's LIFESPAN record: the writer's checks,
 * a round trip through every codec, dumps of the independent encoder
 * (tests/support/traw.c) read as the spec says, including the rules of
 * older minors (tag 0x09 skipped in 1.0 and 1.1 files) and of a newer one
 * (reserved key bits kept quiet), and damaged records refused.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "traw.h"

/* Reads every record of a dump; copies the LIFESPAN records (up to 8) and
 * counts the others. Returns the final status. */
typedef struct seen {
    heapfmt_rlifespan ls[8];
    int undefined_stack[8];
    char file[8][16];
    uint32_t stack_id[8];
    size_t nls, other;
    char why[256];
} seen;

static int read_all(const tbuf *b, seen *s)
{
    memset(s, 0, sizeof *s);
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_memory(&r, NULL, b->data, b->len);
    heapfmt_record rec;
    while (rc == HEAPFMT_OK && (rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_LIFESPAN) {
            s->other++;
            continue;
        }
        cr_assert_lt(s->nls, 8);
        const heapfmt_rlifespan *l = rec.u.lifespan;
        s->ls[s->nls] = *l;
        cr_assert_not_null(l->file, "the file is never NULL");
        snprintf(s->file[s->nls], sizeof s->file[0], "%s", l->file->ptr);
        if (l->stack) {
            s->undefined_stack[s->nls] = l->stack->undefined;
            s->stack_id[s->nls] = l->stack->id;
        }
        s->nls++;
    }
    snprintf(s->why, sizeof s->why, "%s", r ? heapfmt_reader_error(r)->message : "");
    heapfmt_reader_free(r);
    return rc;
}

/* Three lifespans: by stack, by site, by both; the last with the largest
 * values a varint holds. */
static const heapfmt_lifespan sample[3] = {
    {HEAPFMT_LIFESPAN_STACK, 1, 0, 0, 500048, 400028, 51204915, 40962867,
     123456789, 0},
    {HEAPFMT_LIFESPAN_SITE, 0, 2, 51, 600007, 600000, 614407, 614400, 17, 5},
    {HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE, 1, 2, 52, UINT64_MAX,
     UINT64_MAX - 1, UINT64_MAX, 0, UINT64_MAX, UINT64_MAX},
};

static void write_sample(tbuf *out, const heapfmt_writer_options *opt)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, opt);
    uint32_t fn, file, frame, stack;
    TASSERT_OK(heapfmt_write_string(w, "churn", 5, &fn));
    TASSERT_OK(heapfmt_write_string(w, "redcarpet.rb", 12, &file));
    stack = twrite_one_frame_stack(w, fn, 0x40, &frame);
    cr_assert(fn == 1 && file == 2 && stack == 1);
    for (int i = 0; i < 3; i++)
        TASSERT_OK(heapfmt_write_lifespan(w, &sample[i]));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

static void expect_sample(const seen *s, const char *what)
{
    cr_assert_eq(s->nls, 3, "%s: %zu lifespans", what, s->nls);
    for (int i = 0; i < 3; i++) {
        const heapfmt_rlifespan *l = &s->ls[i];
        const heapfmt_lifespan *e = &sample[i];
        cr_assert_eq(l->key, e->key, "%s %d: key", what, i);
        cr_assert(l->allocs == e->allocs && l->frees == e->frees &&
                      l->alloc_bytes == e->alloc_bytes &&
                      l->free_bytes == e->free_bytes &&
                      l->lifetime_us == e->lifetime_us &&
                      l->oldest_us == e->oldest_us,
                  "%s %d: counts", what, i);
        if (e->key & HEAPFMT_LIFESPAN_STACK) {
            cr_assert_eq(s->stack_id[i], 1, "%s %d: stack", what, i);
            cr_assert_eq(s->undefined_stack[i], 0);
        }
        if (e->key & HEAPFMT_LIFESPAN_SITE) {
            cr_assert_str_eq(s->file[i], "redcarpet.rb");
            cr_assert_eq(l->line, e->line);
        } else {
            cr_assert_str_eq(s->file[i], "", "%s %d: no site", what, i);
            cr_assert_eq(l->line, 0);
        }
    }
}

Test(lifespan, round_trip_every_codec)
{
    const int codecs[3] = {HEAPFMT_CODEC_STORED, HEAPFMT_CODEC_DEFLATE,
                           HEAPFMT_CODEC_ZSTD};
    for (int c = 0; c < 3; c++) {
        if (!heapfmt_codec_supported(codecs[c]))
            continue;
        heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
        opt.codec = codecs[c];
        opt.level = codecs[c] == HEAPFMT_CODEC_STORED ? 0 : 1;
        tbuf b;
        write_sample(&b, &opt);
        seen s;
        cr_assert_eq(read_all(&b, &s), HEAPFMT_DONE, "%s", s.why);
        expect_sample(&s, heapfmt_codec_name(codecs[c]));
        tbuf_free(&b);
    }
}

Test(lifespan, writer_refuses_bad_keys_and_ids)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    uint32_t file;
    TASSERT_OK(heapfmt_write_string(w, "a.c", 3, &file));
    heapfmt_lifespan l = {0};
    TASSERT_RC(heapfmt_write_lifespan(w, &l), HEAPFMT_E_ARG); /* no key */
    l.key = 0x04;
    TASSERT_RC(heapfmt_write_lifespan(w, &l), HEAPFMT_E_ARG); /* reserved */
    l.key = HEAPFMT_LIFESPAN_STACK;
    l.stack = 1;
    TASSERT_RC(heapfmt_write_lifespan(w, &l), HEAPFMT_E_ARG); /* no stack 1 */
    l.key = HEAPFMT_LIFESPAN_SITE;
    l.file = 9;
    TASSERT_RC(heapfmt_write_lifespan(w, &l), HEAPFMT_E_ARG); /* no string 9 */
    TASSERT_RC(heapfmt_write_lifespan(w, NULL), HEAPFMT_E_ARG);
    l.file = file;
    l.line = 3;
    TASSERT_OK(heapfmt_write_lifespan(w, &l)); /* not sticky */
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    seen r;
    cr_assert_eq(read_all(&s.out, &r), HEAPFMT_DONE, "%s", r.why);
    cr_assert_eq(r.nls, 1);
    cr_assert_str_eq(r.file[0], "a.c");
    tbuf_free(&s.out);
}

/* The independent encoder's bytes read as the writer's, also with junk
 * after the fields (a later minor's fields) and with a stack defined only
 * after the lifespan names it (an undefined stack, as for objects). */
Test(lifespan, independent_encoder_decodes)
{
    for (int padded = 0; padded < 2; padded++) {
        traw d;
        traw_begin(&d, 1, 2, 0, 0);
        d.pad = (size_t)padded * 3;
        traw_string(&d, 1, "churn");
        traw_string(&d, 2, "redcarpet.rb");
        traw_frame(&d, 1, 1, 0, 0x40, 0, 0);
        uint32_t frames[1] = {1};
        traw_stack(&d, 1, frames, 1);
        for (int i = 0; i < 3; i++)
            traw_lifespan(&d, &sample[i]);
        traw_finish(&d);
        seen s;
        cr_assert_eq(read_all(&d.out, &s), HEAPFMT_DONE, "%s", s.why);
        expect_sample(&s, padded ? "padded" : "traw");
        traw_free(&d);
    }
    traw d;
    traw_begin(&d, 1, 2, 0, 0);
    heapfmt_lifespan l = {HEAPFMT_LIFESPAN_STACK, 7, 0, 0, 1, 0, 8, 0, 0, 9};
    traw_lifespan(&d, &l);
    traw_finish(&d);
    seen s;
    cr_assert_eq(read_all(&d.out, &s), HEAPFMT_DONE, "%s", s.why);
    cr_assert_eq(s.nls, 1);
    cr_assert_eq(s.stack_id[0], 7);
    cr_assert_eq(s.undefined_stack[0], 1, "stack 7 was never defined");
    traw_free(&d);
}

/* Tag 0x09 was reserved before 1.2: a reader skips it in 1.0 and 1.1
 * files, whatever its bytes, and their objects read the same. */
Test(lifespan, older_minors_skip_the_tag)
{
    for (unsigned minor = 0; minor < 2; minor++) {
        traw d;
        traw_begin(&d, 1, minor, 0, 0);
        traw_string(&d, 1, "x");
        traw_lifespan(&d, &sample[1]);
        traw_any(&d, HEAPFMT_TAG_LIFESPAN, "\x00junk", 5); /* bad as 1.2 */
        heapfmt_object o = {0};
        o.id = 64;
        o.size = 40;
        traw_object(&d, &o);
        traw_finish(&d);
        seen s;
        cr_assert_eq(read_all(&d.out, &s), HEAPFMT_DONE, "1.%u: %s", minor, s.why);
        cr_assert_eq(s.nls, 0, "1.%u: no LIFESPAN delivered", minor);
        cr_assert_eq(s.other, 3, "1.%u: STRING, OBJECT, END", minor);
        traw_free(&d);
    }
}

/* A newer minor may set key bits this reader does not know: they are
 * ignored (the key it knows is kept); in a file of 1.2 up to the
 * reader's minor they are corrupt. */
Test(lifespan, reserved_key_bits)
{
    for (unsigned minor = 2; minor < HEAPFMT_FORMAT_MINOR + 2; minor++) {
        traw d;
        traw_begin(&d, 1, minor, 0, 0);
        traw_string(&d, 1, "f.c");
        heapfmt_lifespan l = {HEAPFMT_LIFESPAN_SITE | 0x80u, 0, 1, 3,
                              2, 1, 16, 8, 40, 70};
        traw_lifespan(&d, &l);
        traw_finish(&d);
        seen s;
        int rc = read_all(&d.out, &s);
        if (minor <= HEAPFMT_FORMAT_MINOR) { /* a reader of its minor */
            cr_assert_eq(rc, HEAPFMT_E_CORRUPT);
            cr_assert_not_null(strstr(s.why, "reserved LIFESPAN key"), "%s", s.why);
        } else {
            cr_assert_eq(rc, HEAPFMT_DONE, "%s", s.why);
            cr_assert_eq(s.nls, 1);
            cr_assert_eq(s.ls[0].key, HEAPFMT_LIFESPAN_SITE);
            cr_assert_eq(s.ls[0].oldest_us, 70);
        }
        traw_free(&d);
    }
}

/* Damaged records: no key, a stack id of 0, every cut of a whole record;
 * the records of the block before the bad one were delivered. */
Test(lifespan, damaged_records_are_corrupt)
{
    struct {
        const char *body;
        size_t len;
        const char *why;
    } bad[] = {
        {"\x00\x01\x01\x01\x01\x01\x01", 7, "neither a stack nor a site"},
        {"\x01\x00\x01\x01\x01\x01\x01\x01", 8, "stack id out of range"},
        {"", 0, "truncated"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        traw d;
        traw_begin(&d, 1, 2, 0, 0);
        traw_string(&d, 1, "x");
        traw_any(&d, HEAPFMT_TAG_LIFESPAN, bad[i].body, bad[i].len);
        traw_finish(&d);
        seen s;
        cr_assert_eq(read_all(&d.out, &s), HEAPFMT_E_CORRUPT, "case %zu", i);
        cr_assert_not_null(strstr(s.why, bad[i].why), "case %zu: %s", i, s.why);
        cr_assert_eq(s.other, 1, "case %zu: the STRING before it", i);
        traw_free(&d);
    }
    /* a whole record, cut at every length */
    traw w;
    traw_begin(&w, 1, 2, 0, 0);
    traw_string(&w, 1, "x");
    traw_lifespan(&w, &sample[2]);
    traw_finish(&w);
    tbuf whole = {0};
    heapfmt_lifespan l = sample[2];
    l.stack = 1;
    l.file = 1;
    traw t;
    traw_begin(&t, 1, 2, 0, 0);
    traw_lifespan(&t, &l);
    /* the record's payload: after its tag and length in the open block */
    whole = t.blk;
    size_t body_at = 2; /* tag, one-byte length (the payload is < 128) */
    for (size_t cut = 1; cut + body_at < whole.len; cut++) {
        traw d;
        traw_begin(&d, 1, 2, 0, 0);
        traw_string(&d, 1, "x");
        traw_any(&d, HEAPFMT_TAG_LIFESPAN, whole.data + body_at, cut - 1);
        traw_finish(&d);
        seen s;
        cr_assert_eq(read_all(&d.out, &s), HEAPFMT_E_CORRUPT, "cut %zu", cut);
        traw_free(&d);
    }
    traw_free(&t);
    traw_free(&w);
}
