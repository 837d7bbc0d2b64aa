/*
 * test_limits.c -- bounded resources: length fields far beyond the input
 * must not allocate, and many tiny blocks must cost time and memory in
 * proportion (spec section 9; issue "bounded resources").
 *
 * Memory is measured with the counting allocator (talloc.peak_bytes):
 * every allocation of the reader goes through it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"
#include "talloc.h"
#include "tassert.h"
#include "tio.h"
#include "traw.h"

/* Far less than any declared length below, more than a reader needs for
 * a few small blocks and tables. */
#define SMALL_PEAK (1u << 20)

typedef struct outcome {
    int rc;           /* the first error, or HEAPFMT_DONE */
    int footer_rc;    /* heapfmt_reader_footer */
    uint64_t records; /* delivered */
    size_t peak;      /* bytes allocated at most at once */
} outcome;

/* Reads data to the end (past corrupt blocks where allowed), then asks for
 * the footer, all through a counting allocator. */
static outcome read_all(const void *data, size_t len)
{
    talloc al;
    talloc_init(&al, 0);
    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    opt.allocator = &al.hooks;
    outcome o = {0, 0, 0, 0};
    heapfmt_reader *r = NULL;
    o.rc = heapfmt_reader_open_memory(&r, &opt, data, len);
    if (o.rc == HEAPFMT_OK) {
        heapfmt_record rec;
        int first = HEAPFMT_OK;
        for (;;) {
            o.rc = heapfmt_reader_next(r, &rec);
            if (o.rc == HEAPFMT_OK) {
                o.records++;
                continue;
            }
            if (first == HEAPFMT_OK)
                first = o.rc;
            if (o.rc != HEAPFMT_DONE && heapfmt_reader_can_continue(r))
                continue;
            break;
        }
        o.rc = first;
        const heapfmt_footer *f;
        o.footer_rc = heapfmt_reader_footer(r, &f);
    }
    heapfmt_reader_free(r);
    cr_assert_eq(al.live, 0, "the reader leaked %ld blocks", al.live);
    o.peak = al.peak_bytes;
    return o;
}

/* A file: header, one stored data block with payload, and nothing else. */
static void one_block(tbuf *out, unsigned codec, const tbuf *payload)
{
    traw_header(out, HEAPFMT_FORMAT_MAJOR, HEAPFMT_FORMAT_MINOR, 0);
    traw_block(out, 'D', codec, payload->data, payload->len);
}

Test(limits, record_length_of_2_62_does_not_allocate)
{
    tbuf p = {0}, f = {0};
    tbuf_u8(&p, 0x02); /* STRING */
    tbuf_varint(&p, 1ull << 62);
    tbuf_put(&p, "\x01" "abc", 4);
    one_block(&f, 0, &p);
    outcome o = read_all(f.data, f.len);
    TASSERT_RC(o.rc, HEAPFMT_E_CORRUPT);
    cr_assert_lt(o.peak, SMALL_PEAK, "peak %zu bytes", o.peak);
    tbuf_free(&p);
    tbuf_free(&f);
}

Test(limits, reference_count_of_2_62_does_not_allocate)
{
    static const unsigned tags[] = {0x04, 0x05}; /* OBJECT, ROOT */
    for (size_t t = 0; t < 2; t++) {
        tbuf body = {0}, p = {0}, f = {0};
        if (tags[t] == 0x04) {
            tbuf_varint(&body, 16); /* id: zigzag delta 8 */
            tbuf_varint(&body, 0);  /* class */
            tbuf_varint(&body, 0);  /* type */
            tbuf_varint(&body, 40); /* size */
            tbuf_u8(&body, 0);      /* fields: none */
        } else {
            tbuf_varint(&body, 1); /* kind */
        }
        tbuf_varint(&body, 1ull << 62); /* number of references */
        tbuf_varint(&body, 8);
        traw_record(&p, tags[t], body.data, body.len);
        one_block(&f, 0, &p);
        outcome o = read_all(f.data, f.len);
        TASSERT_RC(o.rc, HEAPFMT_E_CORRUPT);
        cr_assert_lt(o.peak, SMALL_PEAK, "tag %u: peak %zu bytes", tags[t],
                     o.peak);
        tbuf_free(&body);
        tbuf_free(&p);
        tbuf_free(&f);
    }
}

/* A 10-byte DEFLATE payload cannot decode to 128 MiB: refused from the
 * header, before the raw buffer is allocated; the next block still reads. */
Test(limits, deflate_block_claiming_more_than_deflate_expands)
{
    tbuf f = {0}, h = {0}, p = {0};
    traw_header(&f, HEAPFMT_FORMAT_MAJOR, HEAPFMT_FORMAT_MINOR, 0);
    uint32_t raw = 128u << 20, stored = 10;
    tbuf_u8(&h, 'D');
    tbuf_u8(&h, 1);
    tbuf_u16le(&h, 0);
    tbuf_u32le(&h, raw);
    tbuf_u32le(&h, stored);
    tbuf_u32le(&h, 0);
    tbuf_u32le(&h, traw_crc(h.data, 16));
    tbuf_put(&f, h.data, h.len);
    tbuf_put(&f, "\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00", stored);
    tbuf_u8(&p, 0x02);
    tbuf_varint(&p, 2);
    tbuf_put(&p, "\x01" "a", 2);
    traw_block(&f, 'D', 0, p.data, p.len);
    outcome o = read_all(f.data, f.len);
    TASSERT_RC(o.rc, HEAPFMT_E_CORRUPT);
    cr_assert_eq(o.records, 1, "the block after the bad one is read");
    cr_assert_lt(o.peak, SMALL_PEAK, "peak %zu bytes", o.peak);
    tbuf_free(&f);
    tbuf_free(&h);
    tbuf_free(&p);
}

/* A footer whose BLOCKS count says 2^62 entries, behind a valid trailer. */
Test(limits, block_index_count_of_2_62_does_not_allocate)
{
    tbuf f = {0}, d = {0}, ft = {0}, body = {0};
    traw_header(&f, HEAPFMT_FORMAT_MAJOR, HEAPFMT_FORMAT_MINOR, 0);
    tbuf_varint(&body, 0); /* END: objects, bytes, records */
    tbuf_varint(&body, 0);
    tbuf_varint(&body, 0);
    traw_record(&d, 0x06, body.data, body.len);
    traw_block(&f, 'D', 0, d.data, d.len);
    body.len = 0;
    for (int i = 0; i < 8; i++) /* TOTALS */
        tbuf_varint(&body, i == 6 ? 1 : i == 7 ? d.len : 0);
    traw_record(&ft, 0x40, body.data, body.len);
    body.len = 0;
    tbuf_varint(&body, 1ull << 62);
    tbuf_varint(&body, 16);
    tbuf_varint(&body, 1);
    tbuf_varint(&body, 0);
    traw_record(&ft, 0x41, body.data, body.len);
    uint64_t at = traw_block(&f, 'F', 0, ft.data, ft.len);
    traw_trailer(&f, at);
    outcome o = read_all(f.data, f.len);
    TASSERT_RC(o.footer_rc, HEAPFMT_E_CORRUPT);
    cr_assert_lt(o.peak, SMALL_PEAK, "peak %zu bytes", o.peak);
    tbuf_free(&f);
    tbuf_free(&d);
    tbuf_free(&ft);
    tbuf_free(&body);
}

/* Every fixture in tests/fixtures/invalid is small: none may make the
 * reader allocate much more than it holds. */
Test(limits, invalid_fixtures_allocate_little, .timeout = 30)
{
    const char *dir = tfind_repo_file("FIXTURES", "tests/fixtures");
    char path[4096];
    snprintf(path, sizeof path, "%s/invalid", dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "cannot open %s", path);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".hfd") != 0)
            continue;
        char file[sizeof path + 300]; /* a d_name is at most 255 bytes */
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        unsigned char *data;
        size_t len;
        cr_assert_eq(tread_file(file, &data, &len), 0, "%s", file);
        outcome o = read_all(data, len);
        cr_assert_lt(o.peak, SMALL_PEAK + 64 * len, "%s: peak %zu bytes",
                     e->d_name, o.peak);
        free(data);
        n++;
    }
    closedir(d);
    cr_assert_gt(n, 30, "only %zu fixtures found", n);
}

/* A million blocks of one object each: read in one pass with the memory
 * of one block; only the footer's index, read at the end, grows with the
 * number of blocks (24 bytes an entry, 3 or more in the file). */
Test(limits, a_million_tiny_blocks, .timeout = 120)
{
    const size_t nblocks = 1000000;
    tsink s;
    tsink_init(&s);
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, NULL, tsink_write, &s));
    for (size_t i = 0; i < nblocks; i++) {
        heapfmt_object ob = {0};
        ob.id = 0x1000 + 40 * i;
        ob.size = 40;
        TASSERT_OK(heapfmt_write_object(w, &ob));
        TASSERT_OK(heapfmt_writer_flush(w));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);

    talloc al;
    talloc_init(&al, 0);
    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    opt.allocator = &al.hooks;
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, &opt, s.out.data, s.out.len));
    heapfmt_record rec;
    size_t objects = 0;
    int rc;
    size_t streaming_peak = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        if (rec.tag == HEAPFMT_TAG_OBJECT && ++objects == nblocks)
            streaming_peak = al.peak_bytes;
    TASSERT_RC(rc, HEAPFMT_DONE);
    cr_assert_eq(objects, nblocks);
    cr_assert_lt(streaming_peak, SMALL_PEAK,
                 "streaming %zu blocks took %zu bytes", nblocks,
                 streaming_peak);
    cr_assert_lt(al.peak_bytes, SMALL_PEAK + 32 * nblocks,
                 "with the index: %zu bytes", al.peak_bytes);
    heapfmt_progress p;
    heapfmt_reader_progress(r, &p);
    cr_assert_geq(p.blocks, nblocks);
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_geq(f->nblocks, nblocks);
    heapfmt_reader_free(r);
    cr_assert_eq(al.live, 0);
    tsink_free(&s);
}

/* A block buffer is the block's size, not the next power of two: a
 * 4 MiB + 1 KiB block read with at most one and a half times that (the
 * buffer grows as the data arrives; the last step copies half of it). */
Test(limits, block_buffers_are_sized_to_the_block)
{
    const size_t block = (4u << 20) + 1024;
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = 0;
    wo.block_size = block;
    tsink s;
    tsink_init(&s);
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, &wo, tsink_write, &s));
    char value[200];
    memset(value, 'v', sizeof value);
    for (uint64_t i = 0; i < 40000; i++) { /* about 8 MB */
        heapfmt_object ob = {0};
        ob.id = 0x1000 + 40 * i;
        ob.size = 40;
        ob.fields = HEAPFMT_F_VALUE;
        ob.value = value;
        ob.value_len = sizeof value;
        TASSERT_OK(heapfmt_write_object(w, &ob));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    cr_assert_gt(s.out.len, block, "the dump has a full block");

    outcome o = read_all(s.out.data, s.out.len);
    TASSERT_RC(o.rc, HEAPFMT_DONE);
    cr_assert_lt(o.peak, block + block / 2 + SMALL_PEAK, "peak %zu bytes for a %zu-byte "
                 "block", o.peak, block);
    tsink_free(&s);
}
