/*
 * test_corrupt.c -- damaged and incomplete dumps: flipped bytes in block
 * payloads and headers, truncation at every offset, bytes after the
 * trailer, and the hand-made cases of tests/fixtures/invalid/.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "traw.h"

/* ---- fixture: definitions in block 0, then objects and roots over several
 * small blocks -------------------------------------------------------------- */

typedef struct fixture {
    tmodel m;
    tbuf out;
    tcapture full;      /* the complete read */
    size_t nblocks;     /* data blocks */
    uint64_t *start;    /* header offset of data block i */
    uint64_t *end;      /* first byte after data block i */
    size_t *first;      /* index of the first record of block i */
    size_t *nrec;       /* records of block i */
    uint64_t footer_at; /* footer block offset */
} fixture;

static void fixture_make(fixture *f, int level)
{
    memset(f, 0, sizeof *f);
    tmodel_init(&f->m);
    tsink s;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    heapfmt_writer *w = twriter_on_sink(&s, &opt);
    tmodel *m = &f->m;
    TASSERT_OK(tmodel_meta_text(m, w, "producer", "test_corrupt"));
    uint32_t types[3], vm;
    TASSERT_OK(tmodel_string(m, w, "T_OBJECT", 8, &types[0]));
    TASSERT_OK(tmodel_string(m, w, "T_STRING", 8, &types[1]));
    TASSERT_OK(tmodel_string(m, w, "T_ARRAY", 7, &types[2]));
    TASSERT_OK(tmodel_string(m, w, "vm", 2, &vm));
    static const char *const names[3] = { "Alpha", "Beta", "Gamma" };
    for (int i = 0; i < 3; i++) {
        heapfmt_class c = { 0x100 + 8 * (uint64_t)i, names[i], 5, 0, 0 };
        TASSERT_OK(tmodel_class(m, w, &c));
    }
    TASSERT_OK(heapfmt_writer_flush(w));
    tprng r;
    tprng_seed(&r, 1234);
    uint64_t base = 0x7f0000100000ULL;
    for (int i = 0; i < 220; i++) {
        heapfmt_object o = { 0 };
        char value[16];
        uint64_t refs[4];
        o.id = base + 40 * (uint64_t)i;
        uint64_t k = tprng_below(&r, 4);
        o.class_id = k == 3 ? 0 : 0x100 + 8 * k;
        o.type = types[tprng_below(&r, 3)];
        o.size = 40;
        o.fields = (uint32_t)tprng_below(&r, 16) & ~HEAPFMT_F_SITE;
        o.flags = tprng_below(&r, 32);
        o.value_len = (size_t)tprng_below(&r, sizeof value);
        for (size_t j = 0; j < o.value_len; j++)
            value[j] = (char)tprng_next(&r);
        o.value = value;
        o.generation = (uint64_t)i;
        o.nrefs = (size_t)tprng_below(&r, 5);
        for (size_t j = 0; j < o.nrefs; j++)
            refs[j] = base + 40 * tprng_below(&r, 220);
        o.refs = refs;
        TASSERT_OK(tmodel_object(m, w, &o));
        if (i % 60 == 59)
            TASSERT_OK(tmodel_root(m, w, vm, refs, o.nrefs));
    }
    TASSERT_OK(tmodel_finish(m, w));
    heapfmt_writer_free(w);
    cr_assert_eq(m->bad, 0, "%s", m->why);
    f->out = s.out;

    tcapture_memory(&f->full, f->out.data, f->out.len, 0);
    TASSERT_CAPTURE_DONE(&f->full);
    char why[512];
    cr_assert_eq(treclist_equal(&m->exp, &f->full.recs, TCMP_INDEX, why,
                                sizeof why),
                 0, "%s", why);
    const tfooter *ft = &f->full.footer;
    f->nblocks = ft->nblocks;
    cr_assert_geq(f->nblocks, 4, "fixture has only %zu blocks", f->nblocks);
    cr_assert_lt(f->out.len, 16384, "fixture is %zu bytes", f->out.len);
    f->footer_at = tget_u64le(f->out.data + f->out.len - 24);
    f->start = calloc(f->nblocks, sizeof *f->start);
    f->end = calloc(f->nblocks, sizeof *f->end);
    f->first = calloc(f->nblocks, sizeof *f->first);
    f->nrec = calloc(f->nblocks, sizeof *f->nrec);
    size_t first = 0;
    for (size_t i = 0; i < f->nblocks; i++) {
        f->start[i] = ft->blocks[i].offset;
        f->end[i] = i + 1 < f->nblocks ? ft->blocks[i + 1].offset
                                       : f->footer_at;
        f->first[i] = first;
        f->nrec[i] = (size_t)ft->blocks[i].records;
        first += f->nrec[i];
        cr_assert_eq(f->end[i],
                     f->start[i] + 20 + tget_u32le(f->out.data + f->start[i] + 8));
    }
    cr_assert_eq(first, f->full.recs.n);
}

static void fixture_free(fixture *f)
{
    tcapture_free(&f->full);
    tmodel_free(&f->m);
    tbuf_free(&f->out);
    free(f->start);
    free(f->end);
    free(f->first);
    free(f->nrec);
}

/* records delivered before the problem with a block must be exactly those
 * of the blocks before it */
static void expect_prefix(const fixture *f, const tcapture *c, size_t n,
                          const char *what)
{
    char why[512];
    cr_assert_eq(c->recs.n >= n, 1, "%s: %zu records delivered, expected %zu",
                 what, c->recs.n, n);
    cr_assert_eq(treclist_compare(&f->full.recs, 0, &c->recs, 0, n, TCMP_INDEX,
                                  why, sizeof why),
                 0, "%s: %s", what, why);
}

/* ---- flipped payload bytes ------------------------------------------------------- */

/* Damage in block b's payload: E_CORRUPT naming block b and its offset;
 * the records of every other block are delivered; the end is not DONE. */
static void check_payload_damage(const fixture *f, const tcapture *c,
                                 size_t b, size_t pos)
{
    char what[96];
    snprintf(what, sizeof what, "byte %zu (block %zu)", pos, b);
    cr_assert_neq(c->rc, HEAPFMT_DONE, "%s: damaged dump read as complete",
                  what);
    cr_assert_lt(c->rc, 0, "%s", what);
    cr_assert_geq(c->nevents, 1, "%s", what);
    const tevent *e = &c->events[0];
    cr_assert_eq(e->rc, HEAPFMT_E_CORRUPT, "%s: first error %s: %s", what,
                 tstatus_name(e->rc), e->err.message);
    cr_assert_eq(e->err.offset, f->start[b],
                 "%s: error offset %llu, block header at %llu", what,
                 (unsigned long long)e->err.offset,
                 (unsigned long long)f->start[b]);
    cr_assert_eq(e->err.block, b, "%s: error block %llu", what,
                 (unsigned long long)e->err.block);
    cr_assert_neq(e->err.message[0], '\0');
    cr_assert_eq(e->delivered, f->first[b],
                 "%s: %zu records before the error, expected %zu", what,
                 e->delivered, f->first[b]);
    expect_prefix(f, c, f->first[b], what);
    /* the rest: every record after block b */
    size_t after = f->full.recs.n - f->first[b] - f->nrec[b];
    cr_assert_eq(c->recs.n, f->first[b] + after,
                 "%s: %zu records delivered, expected %zu", what, c->recs.n,
                 f->first[b] + after);
    char why[512];
    cr_assert_eq(treclist_compare(&f->full.recs, f->first[b] + f->nrec[b],
                                  &c->recs, f->first[b], after, TCMP_LOOSE,
                                  why, sizeof why),
                 0, "%s: after the damage: %s", what, why);
    /* the first error's detail survives, later errors do not reorder */
    for (size_t i = 1; i + 1 < c->nevents; i++)
        cr_assert_eq(c->events[i].rc, HEAPFMT_E_CORRUPT, "%s: event %zu %s",
                     what, i, tstatus_name(c->events[i].rc));
}

static void payload_sweep(fixture *f, int level)
{
    size_t detected = 0, harmless = 0;
    for (size_t b = 0; b < f->nblocks; b++) {
        for (uint64_t pos = f->start[b] + 20; pos < f->end[b]; pos++) {
            unsigned char *p = f->out.data + pos;
            *p ^= 0x10;
            tcapture c;
            tcapture_memory(&c, f->out.data, f->out.len, 1);
            if (level > 0 && c.rc == HEAPFMT_DONE) {
                /* a flip in DEFLATE padding bits can leave the data
                 * intact; then everything must be as before */
                char why[512];
                cr_assert_eq(treclist_equal(&f->full.recs, &c.recs, TCMP_INDEX,
                                            why, sizeof why),
                             0, "byte %llu: DONE with other records: %s",
                             (unsigned long long)pos, why);
                harmless++;
            } else {
                check_payload_damage(f, &c, b, (size_t)pos);
                detected++;
            }
            tcapture_free(&c);
            *p ^= 0x10;
        }
    }
    cr_assert_gt(detected, 0);
    if (level == 0)
        cr_assert_eq(harmless, 0);
}

Test(corrupt, progress_counts_corrupt_blocks)
{
    fixture f;
    fixture_make(&f, 0);
    f.out.data[f.start[1] + 25] ^= 0x01;
    f.out.data[f.start[3] + 25] ^= 0x01;
    heapfmt_reader *r = treader_on_memory(f.out.data, f.out.len);
    tcapture c;
    memset(&c, 0, sizeof c);
    tcapture_run(&c, r, 1);
    cr_assert_geq(c.nevents, 2);
    cr_assert_eq(c.events[0].err.block, 1);
    cr_assert_eq(c.events[1].rc, HEAPFMT_E_CORRUPT);
    cr_assert_eq(c.events[1].err.block, 3);
    heapfmt_progress p;
    heapfmt_reader_progress(r, &p);
    cr_assert_eq(p.corrupt_blocks, 2, "corrupt_blocks %llu",
                 (unsigned long long)p.corrupt_blocks);
    cr_assert_eq(p.blocks, f.nblocks - 2, "blocks read %llu of %zu",
                 (unsigned long long)p.blocks, f.nblocks);
    size_t want = f.full.recs.n - f.nrec[1] - f.nrec[3];
    cr_assert_eq(c.recs.n, want);
    cr_assert_neq(c.rc, HEAPFMT_DONE);
    heapfmt_reader_free(r);
    tcapture_free(&c);
    fixture_free(&f);
}

/* ---- block headers --------------------------------------------------------------- */

static void header_sweep(fixture *f)
{
    /* data blocks, then the footer block */
    for (size_t b = 0; b <= f->nblocks; b++) {
        uint64_t at = b < f->nblocks ? f->start[b] : f->footer_at;
        size_t before = b < f->nblocks ? f->first[b] : f->full.recs.n;
        for (uint64_t pos = at; pos < at + 20; pos++) {
            f->out.data[pos] ^= 0x04;
            heapfmt_reader *r = treader_on_memory(f->out.data, f->out.len);
            tcapture c;
            memset(&c, 0, sizeof c);
            tcapture_run(&c, r, 0);
            char what[96];
            snprintf(what, sizeof what, "header byte %llu of block %zu",
                     (unsigned long long)(pos - at), b);
            cr_assert_eq(c.rc, HEAPFMT_E_CORRUPT, "%s: %s", what,
                         tstatus_name(c.rc));
            cr_assert_eq(c.err.offset, at, "%s: offset %llu, expected %llu",
                         what, (unsigned long long)c.err.offset,
                         (unsigned long long)at);
            if (b < f->nblocks)
                cr_assert_eq(c.err.block, b, "%s: block %llu", what,
                             (unsigned long long)c.err.block);
            cr_assert_eq(c.recs.n, before, "%s: %zu records, expected %zu",
                         what, c.recs.n, before);
            expect_prefix(f, &c, before, what);
            /* sticky: the reader cannot find the next block */
            for (int k = 0; k < 3; k++) {
                heapfmt_record rec;
                TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_E_CORRUPT);
            }
            heapfmt_reader_free(r);
            tcapture_free(&c);
            f->out.data[pos] ^= 0x04;
        }
    }
}

Test(corrupt, footer_payload_and_trailer_damage)
{
    fixture f;
    fixture_make(&f, 1);
    uint64_t from = f.footer_at + 20;
    for (uint64_t pos = from; pos < f.out.len; pos++) {
        f.out.data[pos] ^= 0x01;
        tcapture c;
        tcapture_memory(&c, f.out.data, f.out.len, 1);
        cr_assert_neq(c.rc, HEAPFMT_DONE,
                      "byte %llu of the footer/trailer flipped: DONE",
                      (unsigned long long)(pos - f.footer_at));
        cr_assert_lt(c.rc, 0);
        cr_assert_eq(c.recs.n, f.full.recs.n,
                     "every data record is still delivered");
        tcapture_free(&c);
        f.out.data[pos] ^= 0x01;
    }
    fixture_free(&f);
}

/* ---- truncation ------------------------------------------------------------------ */

/* Records of the blocks complete before the cut. */
static size_t complete_records(const fixture *f, uint64_t cut)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nblocks; i++)
        if (f->end[i] <= cut)
            n = f->first[i] + f->nrec[i];
    return n;
}

static void check_cut(const fixture *f, const tcapture *c, uint64_t cut,
                      const char *how)
{
    size_t want = cut < 16 ? 0 : complete_records(f, cut);
    cr_assert_neq(c->rc, HEAPFMT_DONE, "%s cut at %llu of %zu: DONE", how,
                  (unsigned long long)cut, f->out.len);
    cr_assert_eq(c->rc, HEAPFMT_E_TRUNCATED, "%s cut at %llu: %s: %s", how,
                 (unsigned long long)cut, tstatus_name(c->rc),
                 c->err.message);
    if (cut < 16)
        cr_assert_eq(c->open_rc, HEAPFMT_E_TRUNCATED,
                     "cut inside the header at %llu: open gave %s",
                     (unsigned long long)cut, tstatus_name(c->open_rc));
    else
        cr_assert_eq(c->nevents, 1, "%s cut at %llu: %zu errors", how,
                     (unsigned long long)cut, c->nevents);
    cr_assert_eq(c->recs.n, want, "%s cut at %llu: %zu records, expected %zu",
                 how, (unsigned long long)cut, c->recs.n, want);
    char what[64];
    snprintf(what, sizeof what, "%s cut at %llu", how,
             (unsigned long long)cut);
    expect_prefix(f, c, want, what);
    cr_assert_neq(c->err.message[0], '\0');
    if (cut >= 16 && cut < f->end[f->nblocks - 1])
        cr_assert_eq(c->err.record, want,
                     "%s: error record %llu, %zu delivered", what,
                     (unsigned long long)c->err.record, want);
}

static void truncation_sweep(fixture *f)
{
    for (uint64_t cut = 0; cut < f->out.len; cut++) {
        tcapture c;
        tcapture_memory(&c, f->out.data, (size_t)cut, 0);
        check_cut(f, &c, cut, "memory");
        tcapture_free(&c);
        if (cut % 5 == 0) {
            tcapture_source(&c, f->out.data, (size_t)cut, TSRC_RANDOM, cut, 0,
                            0);
            check_cut(f, &c, cut, "stream");
            tcapture_free(&c);
        }
    }
}

/* Every payload byte flipped, every block header byte flipped (the error
 * is sticky), the dump cut at every offset: stored and deflated. The
 * timeout is the five sweeps' own 60 s each (15 s in all under ASan on a
 * loaded machine). */
Test(corrupt, every_byte_flipped_or_cut, .timeout = 300)
{
    for (int level = 0; level < 2; level++) {
        fixture f;
        fixture_make(&f, level);
        payload_sweep(&f, level);
        header_sweep(&f);
        truncation_sweep(&f);
        fixture_free(&f);
    }
}

Test(corrupt, cut_at_trailer_or_footer_start)
{
    fixture f;
    fixture_make(&f, 1);
    uint64_t cuts[2] = { f.out.len - 24, f.footer_at };
    for (int i = 0; i < 2; i++) {
        for (int policy = 0; policy < 3; policy++) {
            tcapture c;
            tcapture_source(&c, f.out.data, (size_t)cuts[i], policy, 1, 1, 0);
            cr_assert_eq(c.rc, HEAPFMT_E_TRUNCATED, "cut at %llu: %s",
                         (unsigned long long)cuts[i], tstatus_name(c.rc));
            cr_assert_eq(c.recs.n, f.full.recs.n,
                         "all records incl. END before the cut");
            cr_assert_eq(c.recs.v[c.recs.n - 1].tag, HEAPFMT_TAG_END);
            tcapture_free(&c);
        }
    }
    fixture_free(&f);
}

Test(corrupt, bytes_after_the_trailer)
{
    fixture f;
    fixture_make(&f, 1);
    static const char *const extra[] = { "x", "\n", "\0\0\0\0" };
    static const size_t extra_len[] = { 1, 1, 4 };
    for (int i = 0; i < 4; i++) {
        tbuf b = { 0 };
        tbuf_put(&b, f.out.data, f.out.len);
        if (i < 3)
            tbuf_put(&b, extra[i], extra_len[i]);
        else
            tbuf_put(&b, f.out.data, f.out.len); /* two dumps in a row */
        for (int policy = 0; policy < 3; policy++) {
            tcapture c;
            tcapture_source(&c, b.data, b.len, policy, 2, policy != 1, 0);
            cr_assert_neq(c.rc, HEAPFMT_DONE,
                          "case %d: bytes after the trailer, yet DONE", i);
            cr_assert_lt(c.rc, 0);
            cr_assert_neq(c.err.message[0], '\0');
            cr_assert_eq(c.recs.n, f.full.recs.n);
            tcapture_free(&c);
        }
        tbuf_free(&b);
    }
    fixture_free(&f);
}

/* ---- tests/fixtures/invalid ------------------------------------------------------ */

static int status_by_name(const char *name)
{
#define CORRUPT_NAME(n, value, msg) \
    if (strcmp(name, #n) == 0)      \
        return value;
    HEAPFMT_STATUS_LIST(CORRUPT_NAME)
#undef CORRUPT_NAME
    return 999;
}

/* Sidecar <case>.expect: "open STATUS" (result of heapfmt_reader_open) or
 * "read STATUS records=N" (first non-OK result of heapfmt_reader_next and
 * the records delivered before it). STATUS may be ERROR for any error. */
static void run_invalid_case(const char *dir, const char *name)
{
    char path[1024], exp_path[1100];
    int pl = snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert(pl > 4 && (size_t)pl < sizeof path, "path too long");
    memcpy(exp_path, path, (size_t)pl - 4);
    memcpy(exp_path + pl - 4, ".expect", 8);
    FILE *e = fopen(exp_path, "r");
    cr_assert_not_null(e, "%s: no sidecar %s", name, exp_path);
    char stage[16], status[48];
    unsigned long records = 0;
    int n = fscanf(e, "%15s %47s records=%lu", stage, status, &records);
    fclose(e);
    cr_assert_geq(n, 2, "%s: bad sidecar", name);
    int want = strcmp(status, "ERROR") == 0 ? 0 : status_by_name(status);
    cr_assert_neq(want, 999, "%s: unknown status %s", name, status);

    unsigned char *data;
    size_t len;
    cr_assert_eq(tread_file(path, &data, &len), 0, "%s unreadable", path);
    for (int policy = 0; policy < 3; policy++) {
        tcapture c;
        tcapture_source(&c, data, len, policy, 1, 1, 0);
        int got;
        if (strcmp(stage, "open") == 0) {
            got = c.open_rc;
        } else {
            cr_assert_eq(c.open_rc, HEAPFMT_OK, "%s: open gave %s", name,
                         tstatus_name(c.open_rc));
            got = c.rc;
            if (n >= 3)
                cr_assert_eq(c.nevents ? c.events[0].delivered : c.recs.n,
                             records, "%s: %zu records before the error, "
                                      "expected %lu",
                             name,
                             c.nevents ? c.events[0].delivered : c.recs.n,
                             records);
        }
        if (want == 0)
            cr_assert(got < 0 && got != HEAPFMT_DONE, "%s: %s, expected an "
                                                      "error",
                      name, tstatus_name(got));
        else
            cr_assert_eq(got, want, "%s (%s): %s, expected %s: %s", name,
                         stage, tstatus_name(got), status, c.err.message);
        cr_assert_neq(c.rc, HEAPFMT_DONE, "%s read as complete", name);
        tcapture_free(&c);
    }
    free(data);
}

Test(corrupt, invalid_fixtures, .timeout = 30)
{
    /* $FIXTURES is set by make test (scripts/run-tests.sh) */
    char fromenv[1024];
    const char *fx = getenv("FIXTURES");
    if (fx && *fx && !getenv("HEAPFMT_INVALID_FIXTURES")) {
        snprintf(fromenv, sizeof fromenv, "%s/invalid", fx);
        setenv("HEAPFMT_INVALID_FIXTURES", fromenv, 1);
    }
    const char *dir = tfind_repo_file("HEAPFMT_INVALID_FIXTURES",
                                      "tests/fixtures/invalid");
    cr_assert_not_null(dir, "tests/fixtures/invalid not found (run from the "
                            "repository root or set "
                            "HEAPFMT_INVALID_FIXTURES)");
    char dirbuf[1024];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    DIR *d = opendir(dirbuf);
    cr_assert_not_null(d);
    struct dirent *ent;
    size_t cases = 0;
    char names[128][256];
    while ((ent = readdir(d)) != NULL && cases < 128) {
        size_t l = strlen(ent->d_name);
        if (l > 4 && strcmp(ent->d_name + l - 4, ".hfd") == 0)
            snprintf(names[cases++], sizeof names[0], "%s", ent->d_name);
    }
    closedir(d);
    cr_assert_geq(cases, 20, "only %zu invalid fixtures", cases);
    for (size_t i = 0; i < cases; i++)
        run_invalid_case(dirbuf, names[i]);
}

/* ---- malformed records inside blocks whose checksum is good ---------------- */

/* Block 0: a string and a class. Block 1: an object, then bad (a record
 * that does not decode), then another object. Block 2: an object and END.
 * The records before the bad one are delivered, the rest of block 1 is
 * skipped, block 2 is read. */
static void bad_record_case(const void *bad, size_t bad_len, int via_refs)
{
    traw d;
    traw_begin(&d, 1, 0, 0, 0);
    traw_string(&d, 1, "T");
    traw_class(&d, 1, 0x100, 1, 0, 0);
    traw_flush(&d);
    heapfmt_object o = { 0 };
    o.class_id = 1;
    o.size = 40;
    o.id = 0x1000;
    traw_object(&d, &o);
    traw_any(&d, HEAPFMT_TAG_OBJECT, bad, bad_len);
    o.id = 0x1040;
    traw_object(&d, &o);
    traw_flush(&d);
    o.id = 0x2000;
    traw_object(&d, &o);
    traw_finish(&d);

    uint64_t block1 = d.ent[1].offset;
    for (int policy = 0; policy < 3; policy++) {
        tcapture c;
        tcapture_source(&c, d.out.data, d.out.len, policy, 1, 1, 1);
        cr_assert_geq(c.nevents, 1);
        const tevent *e = &c.events[0];
        cr_assert_eq(e->rc, HEAPFMT_E_CORRUPT, "%s", tstatus_name(e->rc));
        cr_assert_eq(e->err.offset, block1, "error offset %llu, block 1 at "
                                            "%llu",
                     (unsigned long long)e->err.offset,
                     (unsigned long long)block1);
        cr_assert_eq(e->err.block, 1);
        /* STRING, CLASS, OBJECT 0x1000 (and the bad one when only its
         * references fail to decode) */
        cr_assert_eq(e->delivered, via_refs ? 4u : 3u,
                     "%zu records before the error", e->delivered);
        cr_assert_neq(c.rc, HEAPFMT_DONE);
        /* after it: block 2's object and END, not 0x1040 */
        cr_assert_geq(c.recs.n, 2);
        const trec *last = &c.recs.v[c.recs.n - 1];
        const trec *prev = &c.recs.v[c.recs.n - 2];
        cr_assert_eq(last->tag, HEAPFMT_TAG_END);
        cr_assert_eq(prev->tag, HEAPFMT_TAG_OBJECT);
        cr_assert_eq(prev->id, 0x2000, "record after the bad block: %#llx",
                     (unsigned long long)prev->id);
        for (size_t i = 0; i < c.recs.n; i++)
            cr_assert(c.recs.v[i].tag != HEAPFMT_TAG_OBJECT ||
                          c.recs.v[i].id != 0x1040,
                      "the rest of the bad block was delivered");
        tcapture_free(&c);
    }
    traw_free(&d);
}

Test(corrupt, malformed_record_skips_rest_of_block)
{
    /* id, class 1, type 0, size 40, fields 0, then nrefs missing */
    static const unsigned char cut[] = { 0x02, 0x01, 0x00, 0x28, 0x00 };
    bad_record_case(cut, sizeof cut, 0);
    /* class index 7 never defined is not corrupt (undefined), but a
     * reserved fields bit in a 1.0 file is */
    static const unsigned char fields[] = { 0x02, 0x01, 0x00, 0x28, 0x10,
                                            0x00 };
    bad_record_case(fields, sizeof fields, 0);
}

Test(corrupt, references_that_do_not_decode)
{
    /* nrefs 2, the first reference an invalid 10-byte varint */
    static const unsigned char refs[] = { 0x02, 0x01, 0x00, 0x28, 0x00, 0x02,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0x7f, 0x00 };
    traw d;
    traw_begin(&d, 1, 0, 0, 0);
    traw_any(&d, HEAPFMT_TAG_OBJECT, refs, sizeof refs);
    traw_finish(&d);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    heapfmt_record rec;
    int rc = heapfmt_reader_next(r, &rec);
    if (rc == HEAPFMT_OK) {
        /* decoded on demand: the failure comes from refs() */
        cr_assert_eq(rec.tag, HEAPFMT_TAG_OBJECT);
        const uint64_t *ids = NULL;
        long n = heapfmt_reader_refs(r, &ids);
        cr_assert_eq(n, HEAPFMT_E_CORRUPT, "refs gave %ld", n);
        cr_assert_eq(heapfmt_reader_error(r)->code, HEAPFMT_E_CORRUPT);
        cr_assert_eq(heapfmt_reader_error(r)->offset, 16);
    } else {
        TASSERT_RC(rc, HEAPFMT_E_CORRUPT);
    }
    /* the block (which held END) is over; the dump cannot end well */
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        cr_assert_neq(rec.tag, HEAPFMT_TAG_END, "END of a skipped block");
    cr_assert_lt(rc, 0);
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* spec section 10: ids defined only in a lost block are reported as
 * undefined, never guessed. */
Test(corrupt, ids_of_a_lost_block_are_undefined)
{
    fixture f;
    fixture_make(&f, 0);
    f.out.data[f.start[0] + 30] ^= 0x01; /* block 0 holds every definition */
    tcapture c;
    tcapture_memory(&c, f.out.data, f.out.len, 1);
    cr_assert_eq(c.events[0].err.block, 0);
    size_t checked = 0;
    for (size_t i = 0; i < c.recs.n; i++) {
        const trec *g = &c.recs.v[i];
        const trec *e = &f.full.recs.v[f.nrec[0] + i];
        cr_assert_eq(g->tag, e->tag);
        if (g->tag != HEAPFMT_TAG_OBJECT)
            continue;
        cr_assert_eq(g->cls.index, e->cls.index);
        if (e->cls.index) {
            cr_assert(g->cls.undefined, "class %u guessed", g->cls.index);
            cr_assert_eq(g->cls.named, 0, "undefined class with a name");
        }
        cr_assert_eq(g->type.id, e->type.id);
        cr_assert(g->type.undefined, "type #%u guessed", g->type.id);
        cr_assert_eq(g->type.len, 0, "undefined string with text");
        checked++;
    }
    cr_assert_gt(checked, 100);
    tcapture_free(&c);
    fixture_free(&f);
}
