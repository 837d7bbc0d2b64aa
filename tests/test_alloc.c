/*
 * test_alloc.c -- allocation failure at every allocation, through the
 * allocator hooks, for writing and reading; no leaks; memory limits.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "heapfmt.h"
#include "talloc.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "ttext.h"

#define AL_SEED 77
#define AL_OPS 120

/* The writers of the sweeps: stored, Zstandard (the default), DEFLATE,
 * and Zstandard on a compression worker. With the worker, some
 * allocations are made on its thread (the codec's context, the output
 * buffers of the blocks in flight): a failure there fails the writer as
 * one on the caller's would. */
typedef struct sweep {
    const char *name;
    int level, codec, threads;
} sweep;

static const sweep stored = {"stored", 0, HEAPFMT_CODEC_ZSTD, 0};
static const sweep zstd = {"zstd", 1, HEAPFMT_CODEC_ZSTD, 0};
static const sweep deflate = {"deflate", 1, HEAPFMT_CODEC_DEFLATE, 0};
static const sweep zstd_worker = {"zstd on the worker", 1, HEAPFMT_CODEC_ZSTD,
                                  1};

static heapfmt_writer_options wopts(talloc *a, const sweep *sw)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = sw->level;
    opt.codec = sw->codec;
    opt.threads = sw->threads;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    opt.allocator = a ? &a->hooks : NULL;
    return opt;
}

/* Writes the standard dump with allocator a; returns the first error or
 * OK. The writer is freed. */
static int write_with(talloc *a, const sweep *sw, tsink *s, tmodel *m)
{
    heapfmt_writer_options opt = wopts(a, sw);
    heapfmt_writer *w = (heapfmt_writer *)s;
    int rc = heapfmt_writer_open(&w, &opt, tsink_write, s);
    if (rc != HEAPFMT_OK) {
        cr_assert_null(w, "failed open left a writer");
        return rc;
    }
    rc = tmodel_generate(m, w, AL_SEED, AL_OPS);
    if (rc == HEAPFMT_OK)
        rc = tmodel_finish(m, w);
    if (rc != HEAPFMT_OK) {
        /* sticky, with the detail kept */
        cr_assert_eq(heapfmt_writer_error(w)->code, rc);
        cr_assert_neq(heapfmt_writer_error(w)->message[0], '\0');
        int again = heapfmt_write_meta_uint(w, "again", 1);
        cr_assert_eq(again, rc, "after %s a later call gave %s",
                     tstatus_name(rc), tstatus_name(again));
        again = heapfmt_writer_finish(w);
        cr_assert_eq(again, rc, "after %s finish gave %s", tstatus_name(rc),
                     tstatus_name(again));
    }
    heapfmt_writer_free(w);
    return rc;
}

static void writer_sweep(const sweep *sw)
{
    tcase_enter(sw->name);
    talloc base;
    tsink s;
    tmodel m;
    talloc_init(&base, 0);
    tsink_init(&s);
    tmodel_init(&m);
    TASSERT_OK(write_with(&base, sw, &s, &m));
    cr_assert_eq(base.live, 0, "%ld allocations leaked", base.live);
    cr_assert_eq(base.bad_frees, 0);
    cr_assert_gt(base.calls, 0, "the allocator hooks were never called");
    tbuf ref = s.out;
    unsigned long total = base.calls;
    tmodel_free(&m);

    for (unsigned long n = 1; n <= total + 1; n++) {
        talloc a;
        talloc_init(&a, n);
        tsink_init(&s);
        tmodel_init(&m);
        int rc = write_with(&a, sw, &s, &m);
        if (a.failed) {
            cr_assert_eq(rc, HEAPFMT_E_NOMEM,
                         "allocation %lu of %lu failed: result %s", n, total,
                         tstatus_name(rc));
            tcapture c;
            tcapture_memory(&c, s.out.data, s.out.len, 0);
            cr_assert_neq(c.rc, HEAPFMT_DONE,
                          "allocation %lu failed, yet the dump is complete",
                          n);
            tcapture_free(&c);
        } else {
            TASSERT_OK(rc);
            cr_assert_eq(s.out.len, ref.len);
            cr_assert_eq(memcmp(s.out.data, ref.data, ref.len), 0);
        }
        cr_assert_eq(a.live, 0, "allocation %lu failing: %ld blocks leaked",
                     n, a.live);
        cr_assert_eq(a.bad_frees, 0, "allocation %lu failing: bad frees", n);
        tsink_free(&s);
        tmodel_free(&m);
    }
    tbuf_free(&ref);
}

/* Stored, Zstandard, DEFLATE, and Zstandard on the worker: with the
 * worker, some allocations are made on its thread (the codec's context,
 * the output buffers of the blocks in flight): a failure there fails the
 * writer as one on the caller's would. */
Test(alloc, writer_fails_cleanly_at_every_allocation, .timeout = 240,
     .fini = tcase_fini)
{
    writer_sweep(&stored);
    writer_sweep(&zstd);
    writer_sweep(&deflate);
    writer_sweep(&zstd_worker);
    tcase_leave();
}

Test(alloc, writer_open_failure_all_allocations)
{
    talloc a;
    talloc_init(&a, 1);
    a.fail_all_after = 1;
    tsink s;
    tsink_init(&s);
    heapfmt_writer_options opt = wopts(&a, &zstd);
    heapfmt_writer *w = (heapfmt_writer *)&s;
    TASSERT_RC(heapfmt_writer_open(&w, &opt, tsink_write, &s),
               HEAPFMT_E_NOMEM);
    cr_assert_null(w);
    cr_assert_eq(a.live, 0);
    tsink_free(&s);
}

/* header: "Nothing is allocated per object". The block index may grow
 * (amortized, per block), so allocations must not scale with objects:
 * ten times the objects may cost only a few more (doublings). */
static unsigned long allocs_for_objects(int nobjects)
{
    talloc a;
    talloc_init(&a, 0);
    tsink s;
    heapfmt_writer_options opt = wopts(&a, &zstd);
    heapfmt_writer *w = twriter_on_sink(&s, &opt);
    uint32_t type;
    TASSERT_OK(heapfmt_write_string(w, "T_OBJECT", 8, &type));
    heapfmt_class c = { 0x100, "C", 1, 0, 0 };
    TASSERT_OK(heapfmt_write_class(w, &c));
    uint64_t refs[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    heapfmt_object o = { 0 };
    o.type = type;
    o.fields = HEAPFMT_F_BASIC;
    o.value = "0123456789";
    o.value_len = 10;
    o.refs = refs;
    o.nrefs = 8;
    unsigned long before = a.calls;
    for (int i = 0; i < nobjects; i++) {
        o.id = 0x1000 + 40 * (uint64_t)i;
        o.class_id = i % 2 ? 0x100 : 0;
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    uint32_t again;
    TASSERT_OK(heapfmt_write_string(w, "T_OBJECT", 8, &again));
    unsigned long used = a.calls - before;
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    cr_assert_eq(a.live, 0);
    tsink_free(&s);
    return used;
}

Test(alloc, writer_allocations_do_not_scale_with_objects)
{
    unsigned long small = allocs_for_objects(2000);
    unsigned long big = allocs_for_objects(20000);
    /* 20000 objects of ~40 bytes in 1 KiB blocks: ~800 blocks */
    cr_assert_leq(big, small + 5,
                  "%lu allocations for 2000 objects, %lu for 20000", small,
                  big);
    cr_assert_leq(big, 16, "%lu allocations for 20000 objects", big);
}

/* ---- reader ------------------------------------------------------------------- */

typedef struct rresult {
    int open_rc, footer_rc, rc, footer_done_rc;
    size_t delivered;
} rresult;

/* Reads data with allocator a: footer first when footer_first, then every
 * record. Checks each record against exp as it goes. */
static rresult read_with(talloc *a, const tbuf *data, const treclist *exp,
                         int footer_first)
{
    rresult res = { 0, 0, 0, 0, 0 };
    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    opt.allocator = &a->hooks;
    heapfmt_reader *r = NULL;
    tsource s;
    tsource_init(&s, data->data, data->len, TSRC_RANDOM, 4);
    res.open_rc = tsource_open(&r, &opt, &s);
    if (res.open_rc != HEAPFMT_OK) {
        res.rc = res.open_rc;
        heapfmt_reader_free(r);
        return res;
    }
    if (footer_first) {
        const heapfmt_footer *f = NULL;
        res.footer_rc = heapfmt_reader_footer(r, &f);
        cr_assert(res.footer_rc == HEAPFMT_OK ||
                      res.footer_rc == HEAPFMT_E_NOMEM,
                  "footer gave %s", tstatus_name(res.footer_rc));
    }
    treclist got = { 0 };
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        trec_from_record(treclist_push(&got), r, &rec);
        if (got.v[got.n - 1].refs_rc) {
            rc = got.v[got.n - 1].refs_rc;
            got.n--;
            trec_clear(&got.v[got.n]);
            break;
        }
    }
    res.rc = rc;
    res.delivered = got.n;
    char why[512];
    cr_assert_eq(treclist_compare(exp, 0, &got, 0, got.n, TCMP_INDEX, why,
                                  sizeof why),
                 0, "%s", why);
    if (rc == HEAPFMT_DONE) {
        cr_assert_eq(got.n, exp->n);
        const heapfmt_footer *f = NULL;
        res.footer_done_rc = heapfmt_reader_footer(r, &f);
    } else if (rc == HEAPFMT_E_NOMEM) {
        cr_assert_eq(heapfmt_reader_error(r)->code, HEAPFMT_E_NOMEM);
        TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_NOMEM);
    }
    treclist_free(&got);
    heapfmt_reader_free(r);
    return res;
}

static void reader_sweep(const sweep *sw, int footer_first)
{
    tcase_enter(footer_first ? "footer first" : sw->name);
    tmodel m;
    tbuf out;
    tmodel_init(&m);
    heapfmt_writer_options opt = wopts(NULL, sw);
    TASSERT_OK(tmodel_make_dump(&m, &opt, AL_SEED, AL_OPS, &out));

    talloc base;
    talloc_init(&base, 0);
    rresult ok = read_with(&base, &out, &m.exp, footer_first);
    TASSERT_RC(ok.rc, HEAPFMT_DONE);
    TASSERT_OK(ok.footer_rc);
    TASSERT_OK(ok.footer_done_rc);
    cr_assert_eq(base.live, 0, "%ld allocations leaked", base.live);
    cr_assert_gt(base.calls, 0, "the allocator hooks were never called");
    unsigned long total = base.calls;

    for (unsigned long n = 1; n <= total + 1; n++) {
        talloc a;
        talloc_init(&a, n);
        rresult res = read_with(&a, &out, &m.exp, footer_first);
        if (a.failed) {
            int saw = res.open_rc == HEAPFMT_E_NOMEM ||
                      res.footer_rc == HEAPFMT_E_NOMEM ||
                      res.rc == HEAPFMT_E_NOMEM ||
                      res.footer_done_rc == HEAPFMT_E_NOMEM;
            cr_assert(saw,
                      "allocation %lu of %lu failed unreported: open %s, "
                      "footer %s, read %s",
                      n, total, tstatus_name(res.open_rc),
                      tstatus_name(res.footer_rc), tstatus_name(res.rc));
            cr_assert(res.rc == HEAPFMT_E_NOMEM || res.rc == HEAPFMT_DONE,
                      "allocation %lu failing: read ended with %s", n,
                      tstatus_name(res.rc));
        } else {
            TASSERT_RC(res.rc, HEAPFMT_DONE);
            TASSERT_OK(res.footer_done_rc);
        }
        if (res.rc == HEAPFMT_DONE)
            cr_assert(res.footer_done_rc == HEAPFMT_OK ||
                          res.footer_done_rc == HEAPFMT_E_NOMEM,
                      "footer after DONE: %s",
                      tstatus_name(res.footer_done_rc));
        cr_assert_eq(a.live, 0, "allocation %lu failing: %ld blocks leaked",
                     n, a.live);
        cr_assert_eq(a.bad_frees, 0);
    }
    tbuf_free(&out);
    tmodel_free(&m);
}

/* Zstandard and DEFLATE blocks; Zstandard with the footer read first. */
Test(alloc, reader_fails_cleanly_at_every_allocation, .timeout = 180,
     .fini = tcase_fini)
{
    reader_sweep(&zstd, 0);
    reader_sweep(&deflate, 0);
    reader_sweep(&zstd, 1);
    tcase_leave();
}

Test(alloc, free_null_is_a_no_op)
{
    heapfmt_writer_free(NULL);
    heapfmt_reader_free(NULL);
}

Test(alloc, reader_table_memory_limit)
{
    /* many distinct strings: past the cap the reader says LIMIT */
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    char text[64];
    memset(text, 's', sizeof text);
    for (int i = 0; i < 4000; i++) {
        uint32_t id;
        int l = 40 + (i % 20);
        text[0] = (char)('A' + i % 26);
        text[1] = (char)('A' + (i / 26) % 26);
        text[2] = (char)('A' + (i / 676) % 26);
        TASSERT_OK(heapfmt_write_string(w, text, (size_t)l, &id));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);

    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    opt.max_table_memory = 16384;
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_memory(&r, &opt, s.out.data, s.out.len);
    size_t n = 0;
    heapfmt_record rec;
    if (rc == HEAPFMT_OK)
        while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
            n++;
    TASSERT_RC(rc, HEAPFMT_E_LIMIT);
    cr_assert_gt(n, 0, "no string fit in 16 KiB");
    cr_assert_lt(n, 4000);
    TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_LIMIT);
    cr_assert_neq(heapfmt_reader_error(r)->message[0], '\0');
    heapfmt_reader_free(r);

    /* the default (1 GiB) reads it all */
    r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, s.out.data, s.out.len));
    n = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        n++;
    TASSERT_RC(rc, HEAPFMT_DONE);
    cr_assert_eq(n, 4001);
    heapfmt_reader_free(r);
    tsink_free(&s);
}
