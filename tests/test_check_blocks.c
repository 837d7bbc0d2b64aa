/*
 * test_check_blocks.c -- heapfmt_reader_check_blocks: the blocks a
 * footer's index describes are checked before a reader shows the footer's
 * numbers (issue 31): every header byte of every data block damaged is
 * found by the header check, every payload damaged under an intact header
 * by the payload check, a footer whose index leaves a block out or whose
 * totals disagree is refused, and reading goes on as before afterwards.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"

typedef struct dump {
    tmodel m;
    tbuf out;
    heapfmt_block_entry *blocks; /* the footer's index, copied */
    size_t nblocks;
    uint64_t footer_offset;
} dump;

static void dump_make(dump *d, uint64_t seed)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.block_size = 2048;
    tmodel_init(&d->m);
    TASSERT_OK(tmodel_make_dump(&d->m, &opt, seed, 400, &d->out));
    heapfmt_reader *r;
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, d->out.data, d->out.len));
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_geq(f->nblocks, 4, "only %zu blocks", f->nblocks);
    d->nblocks = f->nblocks;
    d->blocks = malloc(f->nblocks * sizeof *d->blocks);
    cr_assert_not_null(d->blocks);
    memcpy(d->blocks, f->blocks, f->nblocks * sizeof *d->blocks);
    d->footer_offset = tget_u64le(d->out.data + d->out.len - 24);
    heapfmt_reader_free(r);
}

static void dump_free(dump *d)
{
    free(d->blocks);
    tbuf_free(&d->out);
    tmodel_free(&d->m);
}

/* check_blocks at this level on these bytes, after the footer. */
static int check(const unsigned char *data, size_t len, int level,
                 char *msg, size_t cap)
{
    heapfmt_reader *r;
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, data, len));
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    int rc = heapfmt_reader_check_blocks(r, level);
    snprintf(msg, cap, "%s", heapfmt_reader_error(r)->message);
    heapfmt_reader_free(r);
    return rc;
}

Test(check_blocks, an_intact_dump_passes_and_reading_goes_on)
{
    dump d;
    dump_make(&d, 7);
    for (int level = HEAPFMT_CHECK_HEADERS; level <= HEAPFMT_CHECK_PAYLOADS;
         level++) {
        heapfmt_reader *r;
        const heapfmt_footer *f;
        TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, d.out.data,
                                              d.out.len));
        /* in the middle of reading: the records go on where they were */
        heapfmt_record rec;
        for (int i = 0; i < 10; i++)
            TASSERT_OK(heapfmt_reader_next(r, &rec));
        TASSERT_OK(heapfmt_reader_footer(r, &f));
        TASSERT_OK(heapfmt_reader_check_blocks(r, level));
        tcapture c;
        memset(&c, 0, sizeof c);
        tcapture_run(&c, r, 0);
        TASSERT_CAPTURE_DONE(&c);
        cr_assert_eq(c.recs.n + 10, d.m.exp.n, "%zu records after the check",
                     c.recs.n);
        tcapture_free(&c);
        heapfmt_reader_free(r);
    }
    dump_free(&d);
}

/* check_blocks at this level on d with the byte at offset at flipped. */
static int check_damaged(const dump *d, uint64_t at, int level, char *msg,
                         size_t cap)
{
    unsigned char *copy = malloc(d->out.len);
    cr_assert_not_null(copy);
    memcpy(copy, d->out.data, d->out.len);
    copy[at] ^= 0x41;
    int rc = check(copy, d->out.len, level, msg, cap);
    free(copy);
    return rc;
}

Test(check_blocks, every_header_byte_of_every_block)
{
    dump d;
    dump_make(&d, 11);
    char msg[256];
    for (size_t b = 0; b < d.nblocks; b++)
        for (size_t i = 0; i < 20; i++) {
            int rc = check_damaged(&d, d.blocks[b].offset + i,
                                   HEAPFMT_CHECK_HEADERS, msg, sizeof msg);
            cr_assert_eq(rc, HEAPFMT_E_CORRUPT,
                         "block %zu, header byte %zu: rc %d (%s)", b, i, rc,
                         msg);
        }
    dump_free(&d);
}

Test(check_blocks, a_payload_damaged_under_an_intact_header)
{
    dump d;
    dump_make(&d, 13);
    char msg[256];
    for (size_t b = 0; b < d.nblocks; b++) {
        uint64_t start = d.blocks[b].offset + 20;
        uint64_t end =
            b + 1 < d.nblocks ? d.blocks[b + 1].offset : d.footer_offset;
        uint64_t at[] = {start, (start + end) / 2, end - 1};
        for (size_t k = 0; k < 3; k++) {
            TASSERT_OK(check_damaged(&d, at[k], HEAPFMT_CHECK_HEADERS, msg,
                                     sizeof msg));
            int rc = check_damaged(&d, at[k], HEAPFMT_CHECK_PAYLOADS, msg,
                                   sizeof msg);
            cr_assert_eq(rc, HEAPFMT_E_CORRUPT, "block %zu, byte %llu: rc %d",
                         b, (unsigned long long)at[k], rc);
            char where[64];
            snprintf(where, sizeof where, "offset %llu",
                     (unsigned long long)d.blocks[b].offset);
            cr_assert(strstr(msg, where) != NULL, "message '%s'", msg);
        }
    }
    dump_free(&d);
}

/* A hand-made dump: nblocks blocks of one object of class index 1. */
static void three_objects(traw *d, uint64_t nblocks)
{
    traw_begin(d, 1, 1, 0, 0);
    traw_string(d, 1, "T_OBJECT");
    traw_string(d, 2, "Thing");
    traw_class(d, 1, 0x9000, 2, 0, 0);
    for (uint64_t b = 0; b < nblocks; b++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 0x1000 + b;
        o.class_id = 1;
        o.type = 1;
        o.size = 40;
        traw_object(d, &o);
        traw_flush(d);
    }
}

/* check_blocks of the finished hand-made dump must be CORRUPT, saying
 * what. */
static void expect_refused(traw *d, const char *says)
{
    traw_finish(d);
    char msg[256];
    int rc = check(d->out.data, d->out.len, HEAPFMT_CHECK_HEADERS, msg,
                   sizeof msg);
    cr_assert_eq(rc, HEAPFMT_E_CORRUPT, "rc %d", rc);
    cr_assert(strstr(msg, says) != NULL, "message '%s'", msg);
    traw_free(d);
}

/* A footer whose index leaves a block out: the blocks are all intact,
 * but the index's places do not follow each other. */
Test(check_blocks, an_index_that_leaves_a_block_out)
{
    traw d;
    three_objects(&d, 3);
    d.ent[1] = d.ent[2];
    d.nent--;
    expect_refused(&d, "block index");
}

/* Totals, index and summary that disagree among themselves. */
Test(check_blocks, a_footer_that_disagrees_with_itself)
{
    traw d;
    three_objects(&d, 1);
    for (size_t i = 0; i < TRAW_MAX_CLASSES; i++)
        if (d.cls[i].used && d.cls[i].index == 1)
            d.cls[i].count += 5;
    expect_refused(&d, "summary");
}

Test(check_blocks, needs_the_footer_and_a_seekable_input)
{
    dump d;
    dump_make(&d, 17);
    heapfmt_reader *r;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, d.out.data, d.out.len));
    TASSERT_RC(heapfmt_reader_check_blocks(r, HEAPFMT_CHECK_HEADERS),
               HEAPFMT_E_NO_FOOTER);
    TASSERT_RC(heapfmt_reader_check_blocks(r, 7), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_reader_check_blocks(NULL, 0), HEAPFMT_E_ARG);
    heapfmt_reader_free(r);

    tsource s;
    tsource_init(&s, d.out.data, d.out.len, TSRC_WHOLE, 1);
    s.seekable = 0;
    TASSERT_OK(tsource_open(&r, NULL, &s));
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        ;
    TASSERT_RC(rc, HEAPFMT_DONE);
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f)); /* read at the end */
    TASSERT_RC(heapfmt_reader_check_blocks(r, HEAPFMT_CHECK_HEADERS),
               HEAPFMT_E_NO_FOOTER);
    heapfmt_reader_free(r);
    dump_free(&d);
}
