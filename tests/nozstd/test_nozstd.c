/*
 * test_nozstd.c -- libheapfmt built without Zstandard (make HEAPFMT_ZSTD=0,
 * or -DHEAPFMT_NO_ZSTD), as an embedder short of libzstd builds it.
 *
 * Linked against such a build: a dump with Zstandard blocks (made by the
 * independent encoder, which calls libzstd itself) must be reported as
 * "unsupported codec 2 (zstd)", never as corrupt; the records before the
 * first zstd block are still delivered; writing zstd is refused at open;
 * DEFLATE and stored dumps still work.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"

Test(nozstd, codec_reported_unsupported)
{
    cr_assert_eq(heapfmt_codec_supported(HEAPFMT_CODEC_ZSTD), 0);
    cr_assert_eq(heapfmt_codec_supported(HEAPFMT_CODEC_DEFLATE), 1);
}

Test(nozstd, zstd_block_is_unsupported_not_corrupt)
{
    traw d;
    traw_begin(&d, 1, 1, 0, HEAPFMT_CODEC_STORED);
    traw_string(&d, 1, "T_STRING");
    traw_flush(&d); /* a stored block first: delivered */
    d.codec = HEAPFMT_CODEC_ZSTD;
    heapfmt_object o = { 0 };
    o.id = 0x1000;
    o.type = 1;
    o.size = 40;
    traw_object(&d, &o);
    traw_finish(&d);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    heapfmt_record rec;
    TASSERT_OK(heapfmt_reader_next(r, &rec));
    cr_assert_eq(rec.tag, HEAPFMT_TAG_STRING);
    int rc = heapfmt_reader_next(r, &rec);
    const heapfmt_error *e = heapfmt_reader_error(r);
    cr_assert_eq(rc, HEAPFMT_E_UNSUPPORTED, "%s: %s", tstatus_name(rc),
                 e->message);
    cr_assert_not_null(strstr(e->message, "unsupported codec 2 (zstd)"),
                       "message: %s", e->message);
    cr_assert_not_null(strstr(e->message, "built without"), "message: %s",
                       e->message);
    cr_assert_eq(heapfmt_reader_can_continue(r), 0, "unsupported is final");
    cr_assert_eq(heapfmt_reader_next(r, &rec), HEAPFMT_E_UNSUPPORTED);
    /* the footer is zstd too: no footer either, with the same reason */
    const heapfmt_footer *f;
    cr_assert_neq(heapfmt_reader_footer(r, &f), HEAPFMT_OK);
    heapfmt_reader_free(r);
    traw_free(&d);
}

Test(nozstd, writing_zstd_is_refused_deflate_works)
{
    tsink s;
    tsink_init(&s);
    heapfmt_writer *w = NULL;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    TASSERT_RC(heapfmt_writer_open(&w, &opt, tsink_write, &s),
               HEAPFMT_E_UNSUPPORTED);
    cr_assert_null(w);
    opt.codec = HEAPFMT_CODEC_DEFLATE;
    tmodel m;
    tmodel_init(&m);
    tbuf out;
    TASSERT_OK(tmodel_make_dump(&m, &opt, 7, 500, &out));
    tcapture c;
    tcapture_memory(&c, out.data, out.len, 0);
    TASSERT_CAPTURE_DONE(&c);
    char why[256];
    cr_assert_eq(treclist_equal(&m.exp, &c.recs, 0, why, sizeof why), 0,
                 "%s", why);
    cr_assert_eq(c.footer.totals.codecs & (1u << HEAPFMT_CODEC_ZSTD), 0);
    tcapture_free(&c);
    tmodel_free(&m);
    tbuf_free(&out);
    tsink_free(&s);
}
