/*
 * test_writer_io.c -- the writer's output through awkward sinks, write
 * failures at every point, and API misuse.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "ttext.h"

#define IO_SEED 2024
#define IO_OPS 150

/* The writer's option threads for write_small (1: blocks compressed on a
 * worker, several in flight when a write fails). */
static int small_threads;

static heapfmt_writer_options small_blocks(void)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    opt.threads = small_threads;
    return opt;
}

/* Writes the standard small dump through sink s. Returns the first error
 * of any call, or HEAPFMT_OK. m receives the expected records. */
static int write_small(tmodel *m, tsink *s, heapfmt_writer **wp)
{
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w = NULL;
    int rc = heapfmt_writer_open(&w, &opt, tsink_write, s);
    cr_assert_eq(rc, HEAPFMT_OK);
    rc = tmodel_generate(m, w, IO_SEED, IO_OPS);
    if (rc == HEAPFMT_OK)
        rc = tmodel_finish(m, w);
    *wp = w;
    return rc;
}

static void reference_dump(tbuf *out, unsigned long *calls)
{
    tmodel m;
    tsink s;
    heapfmt_writer *w;
    tmodel_init(&m);
    tsink_init(&s);
    TASSERT_OK(write_small(&m, &s, &w));
    heapfmt_writer_free(w);
    tmodel_free(&m);
    *out = s.out;
    if (calls)
        *calls = s.calls;
}

/* ---- sink shapes ------------------------------------------------------------ */

Test(writer_io, same_bytes_whatever_the_sink_accepts)
{
    tbuf ref;
    reference_dump(&ref, NULL);
    cr_assert_gt(ref.len, 4000, "reference dump is only %zu bytes", ref.len);

    for (int variant = 0; variant < 4; variant++) {
        tmodel m;
        tsink s;
        heapfmt_writer *w;
        tmodel_init(&m);
        tsink_init(&s);
        switch (variant) {
        case 0: s.max_per_call = 1; break;
        case 1: s.max_per_call = 7; s.eintr_every = 3; break;
        case 2: s.random_sizes = 1; tprng_seed(&s.rng, 5); break;
        case 3:
            s.random_sizes = 1;
            s.max_per_call = 33;
            s.eintr_every = 2;
            tprng_seed(&s.rng, 6);
            break;
        }
        TASSERT_OK(write_small(&m, &s, &w));
        cr_assert_eq(heapfmt_writer_offset(w), (uint64_t)s.out.len);
        cr_assert_eq(s.out.len, ref.len, "variant %d: %zu bytes, expected %zu",
                     variant, s.out.len, ref.len);
        cr_assert_eq(memcmp(s.out.data, ref.data, ref.len), 0,
                     "variant %d: bytes differ", variant);
        if (variant == 0)
            cr_assert_geq(s.calls, ref.len, "1-byte sink: %lu calls",
                          s.calls);
        heapfmt_writer_free(w);
        tmodel_free(&m);
        tsink_free(&s);
    }
    tbuf_free(&ref);
}

/* a sink that answers -EAGAIN every other call */
typedef struct again_sink {
    tsink inner;
    unsigned long calls;
} again_sink;

static long again_write(void *opaque, const void *buf, size_t len)
{
    again_sink *a = opaque;
    if (++a->calls % 2 == 1)
        return -EAGAIN;
    return tsink_write(&a->inner, buf, len < 100 ? len : 100);
}

Test(writer_io, eagain_is_retried)
{
    tbuf ref;
    reference_dump(&ref, NULL);
    again_sink a;
    memset(&a, 0, sizeof a);
    tsink_init(&a.inner);
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, &opt, again_write, &a));
    tmodel m;
    tmodel_init(&m);
    TASSERT_OK(tmodel_generate(&m, w, IO_SEED, IO_OPS));
    TASSERT_OK(tmodel_finish(&m, w));
    cr_assert_eq(a.inner.out.len, ref.len);
    cr_assert_eq(memcmp(a.inner.out.data, ref.data, ref.len), 0);
    heapfmt_writer_free(w);
    tmodel_free(&m);
    tsink_free(&a.inner);
    tbuf_free(&ref);
}

/* ---- failures ---------------------------------------------------------------- */

/* out is a complete dump of the records m expects. */
static void expect_model_dump(const tmodel *m, const tbuf *out)
{
    tcapture c;
    tcapture_memory(&c, out->data, out->len, 0);
    TASSERT_CAPTURE_DONE(&c);
    TASSERT_SAME_RECORDS(&m->exp, &c.recs, TCMP_INDEX, "read back");
    tcapture_free(&c);
}

/* What a reader makes of a dump cut short by a failed writer. */
static void check_incomplete(const tbuf *got, const tbuf *ref)
{
    cr_assert_lt(got->len, ref->len, "a failed dump is as long as a good one");
    cr_assert(got->len == 0 || memcmp(got->data, ref->data, got->len) == 0,
              "the bytes written are not a prefix of the good dump");
    tcapture c, full;
    tcapture_memory(&c, got->data, got->len, 1);
    cr_assert_neq(c.rc, HEAPFMT_DONE, "an incomplete dump (%zu of %zu bytes) "
                                      "reads as complete",
                  got->len, ref->len);
    /* spec section 10: a dump whose writer failed reads as truncated,
     * even when the cut is inside the file header (the bytes present are
     * a prefix of the magic: it is not "another kind of file") */
    cr_assert_eq(c.rc, HEAPFMT_E_TRUNCATED, "%zu bytes: %s gave %s: %s",
                 got->len, c.open_rc ? "open" : "read", tstatus_name(c.rc),
                 c.err.message);
    if (got->len < 16)
        cr_assert_eq(c.open_rc, HEAPFMT_E_TRUNCATED);
    else
        cr_assert_eq(c.nevents, 1, "errors before the end: first %s",
                     tstatus_name(c.events[0].rc));
    tcapture_memory(&full, ref->data, ref->len, 0);
    char why[512];
    cr_assert_eq(treclist_compare(&full.recs, 0, &c.recs, 0, c.recs.n,
                                  TCMP_INDEX, why, sizeof why),
                 0, "%s", why);
    tcapture_free(&c);
    tcapture_free(&full);
}

/* A sink taking at most max_per_call bytes a call (0: all) whose call
 * fail_at fails with ENOSPC (0: none), and only that one if fail_once. */
static void failing_sink(tsink *s, size_t max_per_call, unsigned long fail_at,
                         int fail_once)
{
    tsink_init(s);
    s->max_per_call = max_per_call;
    s->fail_at = fail_at;
    s->fail_errno = ENOSPC;
    s->fail_once = fail_once;
}

static void failure_sweep(const char *name, size_t max_per_call,
                          int fail_once)
{
    tcase_enter(name);
    tbuf ref;
    unsigned long ncalls = 0;
    {
        tmodel m;
        tsink s;
        heapfmt_writer *w;
        tmodel_init(&m);
        failing_sink(&s, max_per_call, 0, fail_once);
        TASSERT_OK(write_small(&m, &s, &w));
        heapfmt_writer_free(w);
        tmodel_free(&m);
        ref = s.out;
        ncalls = s.calls;
    }
    cr_assert_gt(ncalls, 3);
    for (unsigned long n = 1; n <= ncalls; n++) {
        tmodel m;
        tsink s;
        heapfmt_writer *w;
        tmodel_init(&m);
        failing_sink(&s, max_per_call, n, fail_once);
        int rc = write_small(&m, &s, &w);
        cr_assert_eq(rc, HEAPFMT_E_IO, "failing write call %lu of %lu: %s", n,
                     ncalls, tstatus_name(rc));
        const heapfmt_error *e = heapfmt_writer_error(w);
        cr_assert_not_null(e);
        cr_assert_eq(e->code, HEAPFMT_E_IO);
        cr_assert_eq(e->sys_errno, ENOSPC, "sys_errno %d", e->sys_errno);
        cr_assert_neq(e->message[0], '\0', "empty error message");
        cr_assert_eq(s.calls, n, "write callback called again (%lu calls) "
                                 "after failing call %lu",
                     s.calls, n);
        /* sticky */
        TASSERT_RC(heapfmt_write_meta_uint(w, "after", 1), HEAPFMT_E_IO);
        heapfmt_object o = { 0 };
        TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_IO);
        uint32_t id;
        TASSERT_RC(heapfmt_write_string(w, "zz-new", 6, &id), HEAPFMT_E_IO);
        TASSERT_RC(heapfmt_writer_flush(w), HEAPFMT_E_IO);
        TASSERT_RC(heapfmt_writer_finish(w), HEAPFMT_E_IO);
        cr_assert_eq(s.calls, n);
        check_incomplete(&s.out, &ref);
        heapfmt_writer_free(w);
        tmodel_free(&m);
        tsink_free(&s);
    }
    tbuf_free(&ref);
}

/* A sink failing at each of its calls in turn (once, or from then on),
 * taking whole or small writes, with and without the worker. */
Test(writer_io, failure_at_every_write_call, .timeout = 240,
     .fini = tcase_fini)
{
    failure_sweep("fails once", 0, 1);
    failure_sweep("fails once, small writes", 200, 1);
    failure_sweep("fails from then on", 0, 0);
    small_threads = 1;
    failure_sweep("fails once, worker", 0, 1);
    tcase_leave();
}

/* 0 from the callback is a failure (EIO) */
typedef struct zero_sink {
    tsink inner;
    unsigned long calls, zero_at;
} zero_sink;

static long zero_write(void *opaque, const void *buf, size_t len)
{
    zero_sink *z = opaque;
    if (++z->calls == z->zero_at)
        return 0;
    return tsink_write(&z->inner, buf, len);
}

Test(writer_io, zero_return_is_eio)
{
    zero_sink z;
    memset(&z, 0, sizeof z);
    tsink_init(&z.inner);
    z.zero_at = 2;
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, &opt, zero_write, &z));
    tmodel m;
    tmodel_init(&m);
    int rc = tmodel_generate(&m, w, IO_SEED, IO_OPS);
    if (rc == HEAPFMT_OK)
        rc = tmodel_finish(&m, w);
    TASSERT_RC(rc, HEAPFMT_E_IO);
    cr_assert_eq(heapfmt_writer_error(w)->sys_errno, EIO);
    cr_assert_eq(z.calls, 2, "called again after returning 0");
    heapfmt_writer_free(w);
    tmodel_free(&m);
    tsink_free(&z.inner);
}

Test(writer_io, dev_full_reports_enospc)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open_path(&w, NULL, "/dev/full"));
    cr_assert_not_null(w);
    tmodel m;
    tmodel_init(&m);
    int rc = tmodel_generate(&m, w, 1, 50);
    if (rc == HEAPFMT_OK)
        rc = heapfmt_writer_finish(w);
    TASSERT_RC(rc, HEAPFMT_E_IO);
    const heapfmt_error *e = heapfmt_writer_error(w);
    cr_assert_eq(e->code, HEAPFMT_E_IO);
    cr_assert_eq(e->sys_errno, ENOSPC, "sys_errno %d (%s)", e->sys_errno,
                 strerror(e->sys_errno));
    cr_assert_neq(e->message[0], '\0');
    TASSERT_RC(heapfmt_writer_finish(w), HEAPFMT_E_IO);
    heapfmt_writer_free(w);
    tmodel_free(&m);
}

Test(writer_io, open_path_failure)
{
    heapfmt_writer *w = (heapfmt_writer *)&w; /* must be overwritten */
    errno = 0;
    TASSERT_RC(heapfmt_writer_open_path(&w, NULL,
                                        "/nonexistent-dir-heapfmt/x.hfd"),
               HEAPFMT_E_IO);
    cr_assert_null(w);
    cr_assert_eq(errno, ENOENT, "errno %d", errno);
}

Test(writer_io, open_path_and_fd_write_the_same_bytes)
{
    tbuf ref;
    reference_dump(&ref, NULL);
    char path[4096];
    int fd = ttemp_path(path, sizeof path);
    close(fd);

    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, path));
    tmodel m;
    tmodel_init(&m);
    TASSERT_OK(tmodel_generate(&m, w, IO_SEED, IO_OPS));
    TASSERT_OK(tmodel_finish(&m, w));
    heapfmt_writer_free(w);
    tmodel_free(&m);
    unsigned char *data;
    size_t len;
    cr_assert_eq(tread_file(path, &data, &len), 0);
    cr_assert_eq(len, ref.len);
    cr_assert_eq(memcmp(data, ref.data, len), 0);
    free(data);

    fd = open(path, O_WRONLY | O_TRUNC);
    cr_assert_geq(fd, 0);
    TASSERT_OK(heapfmt_writer_open_fd(&w, &opt, fd));
    tmodel_init(&m);
    TASSERT_OK(tmodel_generate(&m, w, IO_SEED, IO_OPS));
    TASSERT_OK(tmodel_finish(&m, w));
    heapfmt_writer_free(w);
    tmodel_free(&m);
    /* the fd stays open */
    cr_assert_eq(fcntl(fd, F_GETFD), 0, "writer closed the caller's fd");
    close(fd);
    cr_assert_eq(tread_file(path, &data, &len), 0);
    cr_assert_eq(len, ref.len);
    cr_assert_eq(memcmp(data, ref.data, len), 0);
    free(data);
    unlink(path);
    tbuf_free(&ref);
}

/* ---- misuse ------------------------------------------------------------------- */

Test(writer_io, open_argument_errors)
{
    tsink s;
    tsink_init(&s);
    heapfmt_writer *w = (heapfmt_writer *)&s;
    TASSERT_RC(heapfmt_writer_open(NULL, NULL, tsink_write, &s),
               HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_writer_open(&w, NULL, NULL, &s), HEAPFMT_E_ARG);
    cr_assert_null(w);

    static const struct {
        int level;
        uint32_t block_size;
        int codec;
        int ok;
    } cases[] = {
        { -1, 0, HEAPFMT_CODEC_ZSTD, 0 },
        { 20, 0, HEAPFMT_CODEC_ZSTD, 0 },
        { 10, 0, HEAPFMT_CODEC_DEFLATE, 0 },
        { 1, 0, 3, 0 },
        { 1, 0, -1, 0 },
        { 0, HEAPFMT_MIN_BLOCK_SIZE - 1, HEAPFMT_CODEC_ZSTD, 0 },
        { 1, 1, HEAPFMT_CODEC_ZSTD, 0 },
        { 1, HEAPFMT_MAX_BLOCK + 1, HEAPFMT_CODEC_ZSTD, 0 },
        { 0, 0, HEAPFMT_CODEC_ZSTD, 1 },
        { 19, 0, HEAPFMT_CODEC_ZSTD, 1 },
        { 9, 0, HEAPFMT_CODEC_DEFLATE, 1 },
        { 5, 0, HEAPFMT_CODEC_STORED, 1 },
        { 1, HEAPFMT_MIN_BLOCK_SIZE, HEAPFMT_CODEC_ZSTD, 1 },
        { 1, HEAPFMT_MAX_BLOCK, HEAPFMT_CODEC_DEFLATE, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
        opt.level = cases[i].level;
        opt.block_size = cases[i].block_size;
        opt.codec = cases[i].codec;
        w = (heapfmt_writer *)&s;
        int rc = heapfmt_writer_open(&w, &opt, tsink_write, &s);
        if (cases[i].ok) {
            cr_assert_eq(rc, HEAPFMT_OK, "level %d block %u: %s",
                         cases[i].level, cases[i].block_size,
                         tstatus_name(rc));
            cr_assert_not_null(w);
        } else {
            cr_assert_eq(rc, HEAPFMT_E_ARG, "level %d block %u: %s",
                         cases[i].level, cases[i].block_size,
                         tstatus_name(rc));
            cr_assert_null(w);
        }
        heapfmt_writer_free(w);
    }
    heapfmt_writer_free(NULL);
    cr_assert_eq(s.out.len, 0, "writers that were only opened wrote bytes");
    tsink_free(&s);
}

/* Every rejected call leaves the writer usable: the dump is complete and
 * holds exactly the accepted records. */
Test(writer_io, rejected_calls_are_not_sticky, .timeout = 30)
{
    tmodel m;
    tsink s;
    tmodel_init(&m);
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    TASSERT_OK(tmodel_meta_uint(&m, w, "before", 1));

    /* keys */
    static const char *const bad_keys[] = { "", "a b", "k=v", "caf\xc3\xa9",
                                            "tab\t", "slash/" };
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        TASSERT_RC(tmodel_meta_uint(&m, w, bad_keys[i], 1), HEAPFMT_E_ARG);
        TASSERT_RC(tmodel_meta_int(&m, w, bad_keys[i], -1), HEAPFMT_E_ARG);
        TASSERT_RC(tmodel_meta_text(&m, w, bad_keys[i], "v"), HEAPFMT_E_ARG);
        cr_assert_eq(heapfmt_writer_error(w)->code, HEAPFMT_E_ARG);
        cr_assert_neq(heapfmt_writer_error(w)->message[0], '\0');
    }
    char longkey[HEAPFMT_MAX_KEY + 2];
    memset(longkey, 'k', HEAPFMT_MAX_KEY + 1);
    longkey[HEAPFMT_MAX_KEY + 1] = '\0';
    int rc = heapfmt_write_meta_uint(w, longkey, 1);
    cr_assert(rc == HEAPFMT_E_ARG || rc == HEAPFMT_E_LIMIT,
              "256-byte key gave %s", tstatus_name(rc));
    TASSERT_RC(heapfmt_write_meta_uint(w, NULL, 1), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_write_meta_text(w, "k", NULL), HEAPFMT_E_ARG);

    /* classes */
    heapfmt_class c0 = { 0, "Zero", 4, 0, 0 };
    TASSERT_RC(tmodel_class(&m, w, &c0), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_write_class(w, NULL), HEAPFMT_E_ARG);

    /* strings and limits */
    uint32_t id;
    TASSERT_RC(heapfmt_write_string(w, "x", 1, NULL), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_write_string(w, NULL, 5, &id), HEAPFMT_E_ARG);
    size_t big = (size_t)HEAPFMT_MAX_STRING + 1;
    char *huge = calloc(1, big + 1);
    cr_assert_not_null(huge);
    memset(huge, 'h', big);
    TASSERT_RC(tmodel_string(&m, w, huge, big, &id), HEAPFMT_E_LIMIT);
    TASSERT_RC(tmodel_meta_text(&m, w, "huge", huge), HEAPFMT_E_LIMIT);
    heapfmt_object o = { 0 };
    o.id = 0x40;
    o.fields = HEAPFMT_F_VALUE;
    o.value = huge;
    o.value_len = big;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_LIMIT);
    /* exactly at the limit is fine */
    TASSERT_OK(tmodel_string(&m, w, huge, big - 1, &id));
    free(huge);

    size_t nrefs = (size_t)HEAPFMT_MAX_REFS + 1;
    uint64_t *refs = calloc(nrefs, sizeof *refs); /* never touched */
    cr_assert_not_null(refs);
    o.fields = 0;
    o.refs = refs;
    o.nrefs = nrefs;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_LIMIT);
    TASSERT_RC(tmodel_root(&m, w, 0, refs, nrefs), HEAPFMT_E_LIMIT);
    free(refs);
    o.refs = NULL;
    o.nrefs = 3;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    TASSERT_RC(tmodel_root(&m, w, 0, NULL, 3), HEAPFMT_E_ARG);
    TASSERT_RC(heapfmt_write_object(w, NULL), HEAPFMT_E_ARG);

    /* still usable */
    TASSERT_OK(tmodel_meta_uint(&m, w, "after", 2));
    o.nrefs = 0;
    TASSERT_OK(tmodel_object(&m, w, &o));
    TASSERT_OK(tmodel_finish(&m, w));
    cr_assert_eq(m.bad, 0, "%s", m.why);

    /* after finish */
    TASSERT_RC(heapfmt_write_meta_uint(w, "late", 1), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_write_string(w, "late", 4, &id), HEAPFMT_E_STATE);
    heapfmt_class c1 = { 1, "Late", 4, 0, 0 };
    TASSERT_RC(heapfmt_write_class(w, &c1), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_write_object(w, &o), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_write_root(w, 0, NULL, 0), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_writer_flush(w), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_writer_finish(w), HEAPFMT_E_STATE);
    size_t len = s.out.len;
    heapfmt_writer_free(w);
    cr_assert_eq(s.out.len, len, "bytes written after finish");

    expect_model_dump(&m, &s.out);
    tmodel_free(&m);
    tsink_free(&s);
}

/* A callback that re-enters the writer gets HEAPFMT_E_STATE. */
typedef struct reenter_sink {
    tsink inner;
    heapfmt_writer *w;
    int rc_meta, rc_flush, tried;
} reenter_sink;

static long reenter_write(void *opaque, const void *buf, size_t len)
{
    reenter_sink *r = opaque;
    if (!r->tried && r->w) {
        r->tried = 1;
        r->rc_meta = heapfmt_write_meta_uint(r->w, "inner", 1);
        r->rc_flush = heapfmt_writer_flush(r->w);
    }
    return tsink_write(&r->inner, buf, len);
}

Test(writer_io, reentry_from_write_callback)
{
    reenter_sink r;
    memset(&r, 0, sizeof r);
    tsink_init(&r.inner);
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, NULL, reenter_write, &r));
    r.w = w;
    tmodel m;
    tmodel_init(&m);
    TASSERT_OK(tmodel_meta_uint(&m, w, "outer", 1));
    TASSERT_OK(tmodel_finish(&m, w));
    cr_assert(r.tried);
    TASSERT_RC(r.rc_meta, HEAPFMT_E_STATE);
    TASSERT_RC(r.rc_flush, HEAPFMT_E_STATE);
    expect_model_dump(&m, &r.inner.out);
    heapfmt_writer_free(w);
    tmodel_free(&m);
    tsink_free(&r.inner);
}

Test(writer_io, free_without_finish_leaves_incomplete_dump)
{
    tbuf ref;
    reference_dump(&ref, NULL);
    tmodel m;
    tsink s;
    heapfmt_writer_options opt = small_blocks();
    tmodel_init(&m);
    heapfmt_writer *w = twriter_on_sink(&s, &opt);
    TASSERT_OK(tmodel_generate(&m, w, IO_SEED, IO_OPS));
    heapfmt_writer_free(w);
    check_incomplete(&s.out, &ref);
    tmodel_free(&m);
    tsink_free(&s);
    tbuf_free(&ref);
}

/* The writer never produces what its reader (or the spec) would refuse:
 * reserved bits and string ids that were never interned are rejected, and
 * the writer stays usable. */
Test(writer_io, refuses_reserved_bits_and_unknown_string_ids)
{
    tmodel m;
    tsink s;
    tmodel_init(&m);
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    uint32_t known;
    TASSERT_OK(tmodel_string(&m, w, "T_OBJECT", 8, &known));
    heapfmt_object o = { 0 };
    o.id = 8;
    o.fields = HEAPFMT_F_FLAGS | 0x80; /* bit 7: reserved (6: 1.3) */
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    o.fields = HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS; /* labels NULL */
    o.nrefs = 1;
    o.refs = &o.id;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    o.nrefs = 0;
    o.refs = NULL;
    o.fields = HEAPFMT_F_STACK; /* a stack id never defined */
    o.stack = 1;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    o.stack = 0;
    o.fields = 0x80;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    o.fields = 0;
    o.type = known + 100;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    o.type = known;
    o.fields = HEAPFMT_F_SITE;
    o.file = known + 100;
    TASSERT_RC(tmodel_object(&m, w, &o), HEAPFMT_E_ARG);
    /* absent site: file is ignored */
    o.fields = 0;
    TASSERT_OK(tmodel_object(&m, w, &o));
    TASSERT_RC(tmodel_root(&m, w, known + 100, NULL, 0), HEAPFMT_E_ARG);
    heapfmt_class c = { 0x10, "C", 1, 0, 0x08 }; /* class flag bit 3 */
    TASSERT_RC(tmodel_class(&m, w, &c), HEAPFMT_E_ARG);
    c.flags = HEAPFMT_CF_MODULE | HEAPFMT_CF_SINGLETON | HEAPFMT_CF_ICLASS;
    TASSERT_OK(tmodel_class(&m, w, &c));
    TASSERT_OK(tmodel_finish(&m, w));
    cr_assert_eq(m.bad, 0, "%s", m.why);
    expect_model_dump(&m, &s.out);
    heapfmt_writer_free(w);
    tmodel_free(&m);
    tsink_free(&s);
}

/* header: flush "ends the current block and writes it out, so that a
 * reader of a dump cut after this point still sees every record written
 * so far". */
Test(writer_io, flush_makes_records_readable_from_a_cut_dump)
{
    tmodel m;
    tsink s;
    tmodel_init(&m);
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    tprng r;
    tprng_seed(&r, 8);
    for (int round = 0; round < 6; round++) {
        uint32_t id;
        char name[16];
        snprintf(name, sizeof name, "s%d", round);
        TASSERT_OK(tmodel_string(&m, w, name, strlen(name), &id));
        for (int i = 0; i < 1 + round * 7; i++) {
            heapfmt_object o = { 0 };
            o.id = tprng_next(&r);
            o.class_id = 0x100 + (uint64_t)(i % 3);
            o.type = id;
            TASSERT_OK(tmodel_object(&m, w, &o));
        }
        TASSERT_OK(heapfmt_writer_flush(w));
        tcapture c;
        tcapture_memory(&c, s.out.data, s.out.len, 0);
        TASSERT_RC(c.rc, HEAPFMT_E_TRUNCATED);
        char what[32];
        snprintf(what, sizeof what, "after flush %d", round);
        TASSERT_SAME_RECORDS(&m.exp, &c.recs, TCMP_INDEX, what);
        tcapture_free(&c);
    }
    TASSERT_OK(tmodel_finish(&m, w));
    heapfmt_writer_free(w);
    tmodel_free(&m);
    tsink_free(&s);
}

/* Writes o with n references: the writer's answer. */
static int write_n(heapfmt_writer *w, heapfmt_object *o, size_t n)
{
    o->nrefs = n;
    return heapfmt_write_object(w, o);
}

/* An object of n references too large for a block: refs_fit says that
 * more than least fit, and the writer takes that many and no more. */
static void cut_where_the_writer_cuts(heapfmt_writer *w, heapfmt_object *o,
                                      size_t n, size_t least)
{
    o->nrefs = n;
    size_t k = heapfmt_object_refs_fit(o);
    cr_assert(k < n && k > least, "%zu of %zu references fit", k, n);
    TASSERT_RC(write_n(w, o, k + 8), HEAPFMT_E_LIMIT);
    TASSERT_OK(write_n(w, o, k));
}

/* heapfmt_object_refs_fit says how many references the writer takes: all
 * of a small object's; of one over a block (128 MiB), the most that fit,
 * within a few of the writer's own limit (its bound is a little looser),
 * labels counted; never more than HEAPFMT_MAX_REFS. */
Test(writer_io, object_refs_fit_is_what_the_writer_takes, .timeout = 120)
{
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = HEAPFMT_CODEC_STORED;
    opt.level = 0;
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open_fd(&w, &opt, fd));
    uint32_t type;
    TASSERT_OK(heapfmt_write_string(w, "T", 1, &type));
    heapfmt_object o = {0};
    o.type = type;
    cr_assert_eq(heapfmt_object_refs_fit(&o), 0u);
    uint64_t few[3] = {1, 2, 3};
    o.refs = few;
    o.nrefs = 3;
    cr_assert_eq(heapfmt_object_refs_fit(&o), 3u);

    /* 10-byte references: ids alternate between 0 and 2^63. */
    size_t n = (size_t)14 << 20;
    uint64_t *refs = malloc(n * sizeof *refs);
    cr_assert_not_null(refs);
    for (size_t i = 0; i < n; i++)
        refs[i] = (i & 1) ? 0 : (uint64_t)1 << 63;
    o.refs = refs;
    cut_where_the_writer_cuts(w, &o, n, (size_t)HEAPFMT_MAX_BLOCK / 10 - 16);

    /* Labels: 1-byte references, a label each (bound: 20 bytes). */
    n = (size_t)7 << 20;
    heapfmt_label *labels = calloc(n, sizeof *labels);
    cr_assert_not_null(labels);
    for (size_t i = 0; i < n; i++) {
        refs[i] = o.id + 1;
        labels[i].kind = HEAPFMT_LABEL_INDEX;
        labels[i].value = i;
    }
    o.fields = HEAPFMT_F_LABELS;
    o.labels = labels;
    cut_where_the_writer_cuts(w, &o, n, (size_t)HEAPFMT_MAX_BLOCK / 21 - 16);

    /* The same array in the indexed form (1.3), with a gap at 5: the
     * reader infers every label but the one after the gap, so all 7M
     * references fit, and the writer takes them (it once bounded every
     * reference's label, and refs_fit with it, cutting such an array of
     * a Ruby heap at 6.4M). */
    for (size_t i = 5; i < n; i++)
        labels[i].value = i + 1;
    o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_INDEXED;
    o.nrefs = n;
    cr_assert_eq(heapfmt_object_refs_fit(&o), n);
    TASSERT_OK(write_n(w, &o, n));
    /* A weak reference's label is one the reader cannot infer: all of
     * them weak make the record too large again, and refs_fit says
     * where. */
    for (size_t i = 0; i < n; i++)
        labels[i].weak = 1;
    cut_where_the_writer_cuts(w, &o, n, (size_t)HEAPFMT_MAX_BLOCK / 21 - 16);
    free(labels);

    /* More than the format allows, each 1 byte: the format's limit. */
    o.fields = 0;
    o.labels = NULL;
    o.nrefs = (size_t)HEAPFMT_MAX_REFS + 1;
    free(refs);
    refs = calloc(o.nrefs, sizeof *refs);
    cr_assert_not_null(refs);
    o.refs = refs;
    cr_assert_eq(heapfmt_object_refs_fit(&o), (size_t)HEAPFMT_MAX_REFS);
    free(refs);
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    close(fd);
}
