/*
 * test_footer.c -- heapfmt_reader_footer: random access to the footer
 * without reading the blocks, and its failures.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"

typedef struct dump {
    tmodel m;
    tbuf out;
    tcapture full; /* read to DONE: records and the footer read then */
} dump;

static void dump_make(dump *d, uint64_t seed, size_t nops)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.block_size = 2048;
    tmodel_init(&d->m);
    TASSERT_OK(tmodel_make_dump(&d->m, &opt, seed, nops, &d->out));
    tcapture_memory(&d->full, d->out.data, d->out.len, 0);
    TASSERT_CAPTURE_DONE(&d->full);
    TASSERT_OK(d->full.footer_rc);
    char why[512];
    cr_assert_eq(tmodel_check_footer(&d->m, &d->full.footer, why, sizeof why),
                 0, "%s", why);
}

static void dump_free(dump *d)
{
    tcapture_free(&d->full);
    tbuf_free(&d->out);
    tmodel_free(&d->m);
}

/* A reader over d's bytes through a source handing them out by policy. */
static heapfmt_reader *open_source(tsource *s, const dump *d, int policy,
                                   uint64_t seed)
{
    tsource_init(s, d->out.data, d->out.len, policy, seed);
    heapfmt_reader *r = NULL;
    TASSERT_OK(tsource_open(&r, NULL, s));
    return r;
}

/* Captures what is left of r into c: the rest of d's records, to DONE. */
static void read_rest(const dump *d, heapfmt_reader *r, tcapture *c,
                      const char *what)
{
    tcapture_run(c, r, 0);
    TASSERT_CAPTURE_DONE(c);
    TASSERT_SAME_RECORDS(&d->m.exp, &c->recs, TCMP_INDEX, what);
}

/* footer() after the first `first` records of d (0: before any), then
 * the rest of them, where the read was */
static void footer_after(dump *d, heapfmt_reader *r, size_t first,
                         const char *what)
{
    tcapture c;
    memset(&c, 0, sizeof c);
    heapfmt_record rec;
    for (size_t i = 0; i < first; i++) {
        TASSERT_OK(heapfmt_reader_next(r, &rec));
        trec_from_record(treclist_push(&c.recs), r, &rec);
    }
    const heapfmt_footer *f = NULL;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_not_null(f);
    cr_assert_eq(f->totals.objects, d->m.objects, "%s", what);
    tfooter copy;
    tfooter_copy(&copy, f);
    char why[512];
    cr_assert_eq(tfooter_equal(&d->full.footer, &copy, why, sizeof why), 0,
                 "%s: %s", what, why);
    /* a second call gives the same */
    const heapfmt_footer *f2 = NULL;
    TASSERT_OK(heapfmt_reader_footer(r, &f2));
    tfooter copy2;
    tfooter_copy(&copy2, f2);
    cr_assert_eq(tfooter_equal(&copy, &copy2, why, sizeof why), 0, "%s: %s",
                 what, why);
    tfooter_free(&copy2);

    read_rest(d, r, &c, what);
    cr_assert_eq(tfooter_equal(&copy, &c.footer, why, sizeof why), 0,
                 "%s: footer after DONE: %s", what, why);
    tcapture_free(&c);
    tfooter_free(&copy);
}

Test(footer, memory_source)
{
    dump d;
    dump_make(&d, 61, 600);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    footer_after(&d, r, 0, "memory");
    heapfmt_reader_free(r);
    dump_free(&d);
}

Test(footer, fd_source)
{
    dump d;
    dump_make(&d, 62, 600);
    int fd = ttemp_fd(d.out.data, d.out.len);
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_fd(&r, NULL, fd));
    footer_after(&d, r, 0, "fd");
    heapfmt_reader_free(r);
    close(fd);
    dump_free(&d);
}

/* A seekable callback source handing out the bytes by each policy:
 * footer() seeks, before the first record and in the middle of reading,
 * and the read continues where it was. */
Test(footer, seekable_callback_source_in_small_pieces)
{
    static const struct {
        uint64_t dump_seed, source_seed;
        int amid;
    } runs[] = {{63, 8, 0}, {69, 5, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        dump d;
        dump_make(&d, runs[i].dump_seed, 600);
        for (int policy = 0; policy < 3; policy++) {
            tsource s;
            heapfmt_reader *r =
                open_source(&s, &d, policy, runs[i].source_seed);
            char what[64];
            snprintf(what, sizeof what, "callback, policy %d, %s", policy,
                     runs[i].amid ? "amid the records" : "first");
            footer_after(&d, r, runs[i].amid ? d.m.exp.n / 2 : 0, what);
            cr_assert_gt(s.seeks, 0, "%s: footer read without seeking",
                         what);
            heapfmt_reader_free(r);
        }
        dump_free(&d);
    }
}

/* counts the bytes a source hands out */
typedef struct counting {
    tsource s;
    uint64_t bytes;
} counting;

static long counting_read(void *opaque, void *buf, size_t len)
{
    counting *c = opaque;
    long n = tsource_read(&c->s, buf, len);
    if (n > 0)
        c->bytes += (uint64_t)n;
    return n;
}

static int64_t counting_seek(void *opaque, int64_t off, int from_end)
{
    counting *c = opaque;
    return tsource_seek(&c->s, off, from_end);
}

Test(footer, does_not_read_the_blocks)
{
    dump d;
    dump_make(&d, 64, 3000);
    cr_assert_gt(d.out.len, 50000);
    counting c;
    memset(&c, 0, sizeof c);
    tsource_init(&c.s, d.out.data, d.out.len, TSRC_WHOLE, 1);
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open(&r, NULL, counting_read, counting_seek,
                                   &c));
    uint64_t after_open = c.bytes;
    const heapfmt_footer *f = NULL;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    uint64_t footer_at = tget_u64le(d.out.data + d.out.len - 24);
    uint64_t need = d.out.len - footer_at;
    /* some read-ahead is fine, reading the dump is not */
    cr_assert_lt(c.bytes - after_open, need + 2 * 65536 + 4096,
                 "footer() read %llu bytes; the footer and trailer are %llu",
                 (unsigned long long)(c.bytes - after_open),
                 (unsigned long long)need);
    heapfmt_reader_free(r);
    dump_free(&d);
}

Test(footer, unseekable_source_has_no_footer_until_done)
{
    dump d;
    dump_make(&d, 65, 400);
    tsource s;
    tsource_init(&s, d.out.data, d.out.len, TSRC_RANDOM, 2);
    s.seekable = 0;
    heapfmt_reader *r = NULL;
    TASSERT_OK(tsource_open(&r, NULL, &s));
    const heapfmt_footer *f = NULL;
    TASSERT_RC(heapfmt_reader_footer(r, &f), HEAPFMT_E_NO_FOOTER);
    /* not sticky */
    tcapture c;
    memset(&c, 0, sizeof c);
    read_rest(&d, r, &c, "unseekable");
    /* after DONE, the footer read then */
    TASSERT_OK(c.footer_rc);
    char why[512];
    cr_assert_eq(tfooter_equal(&d.full.footer, &c.footer, why, sizeof why),
                 0, "%s", why);
    tcapture_free(&c);
    heapfmt_reader_free(r);
    dump_free(&d);
}

Test(footer, pipe_has_no_footer)
{
    dump d;
    dump_make(&d, 66, 400);
    int child;
    int fd = tpipe_fd(d.out.data, d.out.len, &child);
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_fd(&r, NULL, fd));
    const heapfmt_footer *f = NULL;
    TASSERT_RC(heapfmt_reader_footer(r, &f), HEAPFMT_E_NO_FOOTER);
    tcapture c;
    memset(&c, 0, sizeof c);
    tcapture_run(&c, r, 0);
    TASSERT_CAPTURE_DONE(&c);
    cr_assert_eq(c.recs.n, d.m.exp.n);
    tcapture_free(&c);
    heapfmt_reader_free(r);
    close(fd);
    twait_child(child);
    dump_free(&d);
}

Test(footer, truncated_dump_has_no_footer)
{
    dump d;
    dump_make(&d, 67, 400);
    uint64_t footer_at = tget_u64le(d.out.data + d.out.len - 24);
    uint64_t cuts[] = { 16, d.full.footer.blocks[1].offset + 7, footer_at,
                        footer_at + 20, d.out.len - 24, d.out.len - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        heapfmt_reader *r = treader_on_memory(d.out.data, (size_t)cuts[i]);
        const heapfmt_footer *f = NULL;
        int rc = heapfmt_reader_footer(r, &f);
        cr_assert_eq(rc, HEAPFMT_E_NO_FOOTER, "cut at %llu: %s",
                     (unsigned long long)cuts[i], tstatus_name(rc));
        /* and reading still works up to the cut */
        tcapture c;
        memset(&c, 0, sizeof c);
        tcapture_run(&c, r, 0);
        TASSERT_RC(c.rc, HEAPFMT_E_TRUNCATED);
        char why[512];
        cr_assert_eq(treclist_compare(&d.m.exp, 0, &c.recs, 0, c.recs.n,
                                      TCMP_INDEX, why, sizeof why),
                     0, "%s", why);
        TASSERT_RC(heapfmt_reader_footer(r, &f), HEAPFMT_E_NO_FOOTER);
        /* a footer call after the sticky error leaves that error in place
         * (found by fuzz_read: it used to replace it) */
        heapfmt_record rec;
        TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_TRUNCATED);
        cr_assert_eq(heapfmt_reader_error(r)->code, HEAPFMT_E_TRUNCATED);
        cr_assert(strstr(heapfmt_reader_error(r)->message, "truncated"),
                  "%s", heapfmt_reader_error(r)->message);
        tcapture_free(&c);
        heapfmt_reader_free(r);
    }
    dump_free(&d);
}

Test(footer, bytes_after_trailer_mean_no_footer)
{
    dump d;
    dump_make(&d, 68, 200);
    tbuf b = { 0 };
    tbuf_put(&b, d.out.data, d.out.len);
    tbuf_put(&b, "\n", 1);
    heapfmt_reader *r = treader_on_memory(b.data, b.len);
    const heapfmt_footer *f = NULL;
    TASSERT_RC(heapfmt_reader_footer(r, &f), HEAPFMT_E_NO_FOOTER);
    heapfmt_reader_free(r);
    tbuf_free(&b);
    dump_free(&d);
}

/* A valid trailer that leads to a bad footer: HEAPFMT_E_CORRUPT. */
static void patch_trailer(tbuf *b, uint64_t footer_at)
{
    unsigned char *t = b->data + b->len - 24;
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(footer_at >> (8 * i));
    uint32_t crc = traw_crc(t, 12);
    for (int i = 0; i < 4; i++)
        t[12 + i] = (unsigned char)(crc >> (8 * i));
}

Test(footer, valid_trailer_bad_footer_is_corrupt)
{
    dump d;
    dump_make(&d, 70, 300);
    uint64_t footer_at = tget_u64le(d.out.data + d.out.len - 24);
    for (int k = 0; k < 4; k++) {
        tbuf b = { 0 };
        tbuf_put(&b, d.out.data, d.out.len);
        switch (k) {
        case 0: b.data[footer_at + 25] ^= 0x01; break;   /* footer payload */
        case 1: b.data[footer_at + 3] ^= 0x01; break;    /* footer header */
        case 2: patch_trailer(&b, 16); break;            /* a data block */
        case 3: patch_trailer(&b, footer_at + 1); break; /* nowhere */
        }
        heapfmt_reader *r = treader_on_memory(b.data, b.len);
        const heapfmt_footer *f = NULL;
        int rc = heapfmt_reader_footer(r, &f);
        cr_assert_eq(rc, HEAPFMT_E_CORRUPT, "case %d: %s", k,
                     tstatus_name(rc));
        cr_assert_neq(heapfmt_reader_error(r)->message[0], '\0');
        heapfmt_reader_free(r);
        tbuf_free(&b);
    }
    dump_free(&d);
}

/* A reader over the dump in b, in *r, and its footer. */
static const heapfmt_footer *read_footer(heapfmt_reader **r, const tbuf *b)
{
    *r = treader_on_memory(b->data, b->len);
    const heapfmt_footer *f = NULL;
    TASSERT_OK(heapfmt_reader_footer(*r, &f));
    return f;
}

Test(footer, empty_dump_footer)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    heapfmt_reader *r;
    const heapfmt_footer *f = read_footer(&r, &s.out);
    cr_assert_eq(f->totals.objects, 0);
    cr_assert_eq(f->totals.records, 0);
    cr_assert_eq(f->totals.classes, 0);
    cr_assert_eq(f->totals.blocks, 1);
    cr_assert_eq(f->nblocks, 1);
    cr_assert_eq(f->blocks[0].offset, 16);
    cr_assert_eq(f->blocks[0].records, 1, "END is the block's one record");
    cr_assert_eq(f->nclasses, 0);
    heapfmt_reader_free(r);
    tsink_free(&s);
}

Test(footer, hand_made_footer_is_read)
{
    /* the independent encoder's footer, with trailing bytes in its
     * records, read through footer() */
    traw d;
    traw_begin(&d, 1, 0, 0, 1);
    d.pad = 3;
    traw_string(&d, 1, "Klass");
    traw_class(&d, 1, 0x500, 1, 0, HEAPFMT_CF_MODULE);
    heapfmt_object o = { 0 };
    o.id = 0x900;
    o.class_id = 1;
    o.size = 64;
    traw_object(&d, &o);
    traw_flush(&d);
    o.id = 0x940;
    o.class_id = 0;
    o.size = 16;
    traw_object(&d, &o);
    traw_finish(&d);
    heapfmt_reader *r;
    const heapfmt_footer *f = read_footer(&r, &d.out);
    cr_assert_eq(f->totals.objects, 2);
    cr_assert_eq(f->totals.bytes, 80);
    cr_assert_eq(f->totals.records, 4);
    cr_assert_eq(f->totals.classes, 1);
    cr_assert_eq(f->totals.strings, 1);
    cr_assert_eq(f->totals.blocks, 2);
    cr_assert_eq(f->nblocks, 2);
    cr_assert_eq(f->blocks[0].offset, 16);
    cr_assert_eq(f->blocks[0].records, 3);
    cr_assert_eq(f->blocks[1].offset, d.ent[1].offset);
    cr_assert_eq(f->blocks[1].records, 2);
    cr_assert_eq(f->blocks[1].objects, 1);
    cr_assert_eq(f->nclasses, 2);
    cr_assert_eq(f->classes[0].index, 0);
    cr_assert_eq(f->classes[0].count, 1);
    cr_assert_eq(f->classes[0].bytes, 16);
    cr_assert_null(f->classes[0].name);
    cr_assert_eq(f->classes[1].index, 1);
    cr_assert_eq(f->classes[1].id, 0x500);
    cr_assert_eq(f->classes[1].flags, HEAPFMT_CF_MODULE);
    cr_assert_str_eq(f->classes[1].name, "Klass");
    cr_assert_eq(f->classes[1].name_len, 5);
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* A dump of several blocks and a reader with its footer read. */
static const heapfmt_footer *footer_of(dump *d, uint64_t seed, size_t nops,
                                       heapfmt_reader **r)
{
    dump_make(d, seed, nops);
    const heapfmt_footer *f = read_footer(r, &d->out);
    cr_assert_gt(f->nblocks, 2, "the dump has several blocks");
    return f;
}

/* Reads the range [first, end) to its last status; *n records. */
static int read_range(const dump *d, uint64_t first, uint64_t end,
                      uint64_t *n, heapfmt_progress *pr)
{
    heapfmt_reader *p = treader_on_memory(d->out.data, d->out.len);
    TASSERT_OK(heapfmt_reader_seek_range(p, first, end));
    heapfmt_record rec;
    int rc;
    *n = 0;
    while ((rc = heapfmt_reader_next(p, &rec)) == HEAPFMT_OK)
        ++*n;
    heapfmt_reader_progress(p, pr);
    heapfmt_reader_free(p);
    return rc;
}

/* heapfmt_reader_seek_range: a reader per range of the block index, the
 * last one ending at the footer's offset, delivers together every record
 * of a full read and counts exactly its range's blocks. */
Test(footer, ranges_of_the_block_index)
{
    dump d;
    heapfmt_reader *r = NULL;
    const heapfmt_footer *f = footer_of(&d, 71, 900, &r);
    cr_assert_gt(f->nblocks, 4);
    cr_assert_lt(f->offset, d.out.len);
    cr_assert_eq(d.out.data[f->offset], 0x46, "the footer's offset holds "
                 "a footer block");
    uint64_t records = 0, blocks = 0, raw = 0;
    for (size_t i = 0; i < f->nblocks; i += 3) {
        size_t j = i + 3 < f->nblocks ? i + 3 : f->nblocks;
        uint64_t end = j < f->nblocks ? f->blocks[j].offset : f->offset;
        uint64_t n, want = 0;
        heapfmt_progress pr;
        cr_assert_eq(read_range(&d, f->blocks[i].offset, end, &n, &pr),
                     HEAPFMT_DONE, "range %zu ends at its end", i);
        for (size_t k = i; k < j; k++)
            want += f->blocks[k].records;
        cr_assert_eq(n, want, "range %zu: %llu records, the index says %llu",
                     i, (unsigned long long)n, (unsigned long long)want);
        cr_assert_eq(pr.blocks, j - i, "range %zu: its blocks only", i);
        records += n;
        blocks += pr.blocks;
        raw += pr.raw_bytes;
    }
    cr_assert_eq(records, d.full.recs.n, "the ranges give every record");
    cr_assert_eq(blocks, f->totals.blocks);
    cr_assert_eq(raw, f->totals.raw_bytes);
    heapfmt_reader_free(r);
    dump_free(&d);
}

/* A range whose end is not a block boundary, or with a footer block
 * inside it, is corrupt; an end before the start is refused. */
Test(footer, range_ends_are_checked)
{
    dump d;
    heapfmt_reader *r = NULL;
    const heapfmt_footer *f = footer_of(&d, 72, 600, &r);
    struct {
        uint64_t first, end;
        int want;
    } cases[] = {
        {f->blocks[0].offset, f->blocks[1].offset + 1, HEAPFMT_E_CORRUPT},
        {f->blocks[0].offset, f->blocks[1].offset - 1, HEAPFMT_E_CORRUPT},
        {f->blocks[1].offset, f->offset + 1, HEAPFMT_E_CORRUPT},
        {f->blocks[1].offset, f->blocks[1].offset, HEAPFMT_DONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t n;
        heapfmt_progress pr;
        int rc = read_range(&d, cases[i].first, cases[i].end, &n, &pr);
        cr_assert_eq(rc, cases[i].want, "case %zu: %d", i, rc);
    }
    heapfmt_reader *p = treader_on_memory(d.out.data, d.out.len);
    cr_assert_eq(heapfmt_reader_seek_range(p, f->blocks[1].offset,
                                           f->blocks[0].offset),
                 HEAPFMT_E_ARG);
    heapfmt_reader_free(p);
    heapfmt_reader_free(r);
    dump_free(&d);
}
