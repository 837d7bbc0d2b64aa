/*
 * test_histo_jobs.c -- histo --jobs, the parallel block decode: on every
 * dump, with 2, 3 or many threads, by class, type and site, the table is
 * exactly the one-thread scan's (and, by class, the footer summary's);
 * the parallel path really runs on complete multi-block files; standard
 * input, single-block dumps and damaged dumps fall back to one thread and
 * then behave exactly as without --jobs.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "heapfmt.h"
#include "histo.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"

/* ---- helpers --------------------------------------------------------------- */

/* Writes b to a new temporary file whose path goes to path. */
static void to_file(const tbuf *b, char *path, size_t cap)
{
    int fd = ttemp_path(path, cap);
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = write(fd, b->data + off, b->len - off);
        cr_assert_gt(n, 0, "writing %s", path);
        off += (size_t)n;
    }
    close(fd);
}

static histo_options opts(enum histo_by by, int scan, unsigned jobs)
{
    histo_options o = HISTO_OPTIONS_INIT;
    o.by = by;
    o.scan = scan;
    o.jobs = jobs;
    o.progress = 0;
    return o;
}

/* One column read from path; returns histo_collect's status. */
static int collect(histo_table *t, const char *path, enum histo_by by,
                   int scan, unsigned jobs)
{
    cr_assert_eq(histo_table_init(t, 1), 0);
    histo_options o = opts(by, scan, jobs);
    return histo_collect(t, 0, path, &o);
}

/* Same names, counts, bytes, totals and row counts. */
static void assert_same(const histo_table *a, const histo_table *b,
                        const char *what)
{
    cr_assert_eq(a->nrows, b->nrows, "%s: %zu rows vs %zu", what, a->nrows,
                 b->nrows);
    cr_assert_eq(a->dumps[0].count, b->dumps[0].count, "%s: count", what);
    cr_assert_eq(a->dumps[0].bytes, b->dumps[0].bytes, "%s: bytes", what);
    cr_assert_eq(a->dumps[0].rows, b->dumps[0].rows, "%s: rows", what);
    cr_assert_eq(a->dumps[0].status, b->dumps[0].status, "%s: status", what);
    for (size_t i = 0; i < a->nrows; i++) {
        const histo_row *r = &a->rows[i];
        size_t id;
        cr_assert_eq(cli_strmap_find(&b->names, r->name, r->len, &id), 0,
                     "%s: '%.*s' missing", what, (int)r->len, r->name);
        histo_row rb = {0};
        rb.id = id;
        cr_assert_eq(histo_count(a, r, 0), histo_count(b, &rb, 0),
                     "%s: '%.*s' count", what, (int)r->len, r->name);
        cr_assert_eq(histo_bytes(a, r, 0), histo_bytes(b, &rb, 0),
                     "%s: '%.*s' bytes", what, (int)r->len, r->name);
    }
}

/* Reads path with the parallel path directly: its return value. */
static int jobs_direct(const char *path, enum histo_by by, unsigned jobs)
{
    heapfmt_reader *r;
    TASSERT_OK(heapfmt_reader_open_path(&r, NULL, path));
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 1), 0);
    histo_options o = opts(by, 1, jobs);
    int rc = histo_collect_jobs(&t, 0, path, f, &o);
    histo_table_free(&t);
    heapfmt_reader_free(r);
    return rc;
}

static size_t block_count(const char *path)
{
    heapfmt_reader *r;
    TASSERT_OK(heapfmt_reader_open_path(&r, NULL, path));
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    size_t n = f->nblocks;
    heapfmt_reader_free(r);
    return n;
}

/* Every jobs count against one thread (and the footer, by class). */
static void check_dump(const char *path, const char *what)
{
    static const unsigned jobs[] = {2, 3, 4, 7, HISTO_MAX_JOBS};
    static const enum histo_by bys[] = {HISTO_BY_CLASS, HISTO_BY_TYPE,
                                        HISTO_BY_SITE};
    for (size_t b = 0; b < 3; b++) {
        histo_table one;
        int rc1 = collect(&one, path, bys[b], 1, 1);
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
            char w[160];
            snprintf(w, sizeof w, "%s, by %s, -j%u", what,
                     histo_by_word(bys[b]), jobs[j]);
            histo_table many;
            int rc = collect(&many, path, bys[b], 1, jobs[j]);
            cr_assert_eq(rc, rc1, "%s: exit %d vs %d", w, rc, rc1);
            if (rc == AN_OK)
                assert_same(&one, &many, w);
            histo_table_free(&many);
        }
        if (bys[b] == HISTO_BY_CLASS) {
            histo_table footer;
            cr_assert_eq(collect(&footer, path, HISTO_BY_CLASS, 0, 3),
                         AN_OK);
            cr_assert(footer.dumps[0].from_footer);
            assert_same(&one, &footer, what);
            histo_table_free(&footer);
        }
        histo_table_free(&one);
    }
}

/* ---- random dumps ---------------------------------------------------------- */

Test(histo_jobs, random_dumps_same_table_as_one_thread, .timeout = 120)
{
    static const struct {
        int level;
        uint32_t block;
    } layouts[] = {{0, 1024}, {1, 1024}, {1, 4096}, {6, 2048}, {0, 0}};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            tmodel m;
            tmodel_init(&m);
            tbuf dump = {0};
            heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
            wo.level = layouts[l].level;
            wo.block_size = layouts[l].block;
            TASSERT_OK(tmodel_make_dump(&m, &wo, seed * 31 + l, 3000, &dump));
            char path[256], what[96];
            to_file(&dump, path, sizeof path);
            snprintf(what, sizeof what, "level %d block %u seed %llu",
                     layouts[l].level, layouts[l].block,
                     (unsigned long long)seed);
            check_dump(path, what);
            if (block_count(path) >= 2)
                cr_assert_eq(jobs_direct(path, HISTO_BY_CLASS, 2),
                             AN_OK, "%s: the parallel path ran", what);
            unlink(path);
            tbuf_free(&dump);
            tmodel_free(&m);
        }
}

/* ---- names defined far from their use ------------------------------------- */

/* Strings and classes defined in the first blocks and used in the last
 * ones, a class named only in the last block, a type string defined in the
 * middle: each thread sees most of them as undefined placeholders. */
static void write_late_names(tbuf *out, int level)
{
    tsink s;
    tsink_init(&s);
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = level;
    wo.block_size = 1024;
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open(&w, &wo, tsink_write, &s));
    uint32_t t_str, t_obj, t_late, f_app, f_lib;
    TASSERT_OK(heapfmt_write_string(w, "T_STRING", 8, &t_str));
    TASSERT_OK(heapfmt_write_string(w, "T_OBJECT", 8, &t_obj));
    TASSERT_OK(heapfmt_write_string(w, "app.rb", 6, &f_app));
    heapfmt_class c1 = {100, "String", 6, 0, 0};
    heapfmt_class c2 = {200, NULL, 0, 0, 0}; /* named at the very end */
    TASSERT_OK(heapfmt_write_class(w, &c1));
    TASSERT_OK(heapfmt_write_class(w, &c2));
    uint64_t id = 0x7f0000000000ull;
    for (int i = 0; i < 3000; i++) {
        if (i == 1500) { /* new strings in the middle of the dump */
            TASSERT_OK(heapfmt_write_string(w, "T_LATE", 6, &t_late));
            TASSERT_OK(heapfmt_write_string(w, "lib.rb", 6, &f_lib));
        }
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = id += 40;
        o.class_id = i % 3 == 0 ? 100 : i % 3 == 1 ? 200 : 0;
        o.type = i >= 1500 && i % 2 ? t_late : i % 2 ? t_str : t_obj;
        o.size = 40 + (uint64_t)(i % 17);
        if (i % 5 != 0) {
            o.fields = HEAPFMT_F_SITE;
            o.file = i >= 1500 && i % 4 == 1 ? f_lib : f_app;
            o.line = (uint64_t)(i % 9);
        }
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    heapfmt_class named = {200, "Late::Named", 11, 0, 0};
    TASSERT_OK(heapfmt_write_class(w, &named));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

Test(histo_jobs, names_defined_in_other_ranges)
{
    for (int level = 0; level <= 1; level++) {
        tbuf dump;
        write_late_names(&dump, level);
        char path[256];
        to_file(&dump, path, sizeof path);
        cr_assert_gt(block_count(path), 10);
        check_dump(path, level ? "late names, level 1" : "late names");
        for (int by = HISTO_BY_CLASS; by <= HISTO_BY_SITE; by++)
            cr_assert_eq(jobs_direct(path, (enum histo_by)by, 3), AN_OK);

        /* The class named last is named in every thread's objects. */
        histo_table t;
        cr_assert_eq(collect(&t, path, HISTO_BY_CLASS, 1, 4), AN_OK);
        size_t id;
        cr_assert_eq(cli_strmap_find(&t.names, "Late::Named", 11, &id), 0);
        histo_row r = {0};
        r.id = id;
        cr_assert_eq(histo_count(&t, &r, 0), 1000);
        histo_table_free(&t);
        unlink(path);
        tbuf_free(&dump);
    }
}

/* ---- fallbacks --------------------------------------------------------------- */

/* n objects of a few classes, without allocation sites. */
static void write_plain(tbuf *out, int n, uint32_t block_size)
{
    tsink s;
    tsink_init(&s);
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.block_size = block_size;
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open(&w, &wo, tsink_write, &s));
    for (int i = 0; i < n; i++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 4096 + 40 * (uint64_t)i;
        o.class_id = 70 + (uint64_t)(i % 3);
        o.size = 40;
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

Test(histo_jobs, one_block_and_one_job_fall_back, .init = cr_redirect_stderr)
{
    tbuf dump;
    write_plain(&dump, 100, 0);
    char path[256];
    to_file(&dump, path, sizeof path);
    cr_assert_eq(block_count(path), 1);
    cr_assert_eq(jobs_direct(path, HISTO_BY_CLASS, 2), HISTO_JOBS_FALLBACK);
    check_dump(path, "one block");
    unlink(path);
    tbuf_free(&dump);

    write_plain(&dump, 2000, 1024);
    to_file(&dump, path, sizeof path);
    cr_assert_gt(block_count(path), 2);
    cr_assert_eq(jobs_direct(path, HISTO_BY_CLASS, 1), HISTO_JOBS_FALLBACK);
    cr_assert_eq(jobs_direct(path, HISTO_BY_CLASS, 2), AN_OK);
    unlink(path);
    tbuf_free(&dump);
}

Test(histo_jobs, damaged_block_reads_as_without_jobs,
     .init = cr_redirect_stderr)
{
    tmodel m;
    tmodel_init(&m);
    tbuf dump = {0};
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = 0;
    wo.block_size = 1024;
    TASSERT_OK(tmodel_make_dump(&m, &wo, 11, 3000, &dump));
    char path[256];
    to_file(&dump, path, sizeof path);
    heapfmt_reader *r;
    TASSERT_OK(heapfmt_reader_open_path(&r, NULL, path));
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_gt(f->nblocks, 6);
    uint64_t at = f->blocks[f->nblocks / 2].offset + 20 + 3;
    heapfmt_reader_free(r);
    unlink(path);

    dump.data[at] ^= 0x55; /* a payload byte: that block fails its CRC */
    to_file(&dump, path, sizeof path);
    cr_assert_eq(jobs_direct(path, HISTO_BY_CLASS, 3), HISTO_JOBS_FALLBACK);
    for (int by = HISTO_BY_CLASS; by <= HISTO_BY_TYPE; by++) {
        histo_table one, many;
        cr_assert_eq(collect(&one, path, (enum histo_by)by, 1, 1),
                     AN_INCOMPLETE);
        cr_assert_eq(collect(&many, path, (enum histo_by)by, 1, 3),
                     AN_INCOMPLETE);
        assert_same(&one, &many, "damaged block");
        cr_assert_lt(many.dumps[0].count, m.objects);
        histo_table_free(&one);
        histo_table_free(&many);
    }
    unlink(path);
    tbuf_free(&dump);
    tmodel_free(&m);
}

Test(histo_jobs, by_site_without_sites_is_the_same_error,
     .init = cr_redirect_stderr)
{
    tbuf dump;
    write_plain(&dump, 2000, 1024);
    char path[256];
    to_file(&dump, path, sizeof path);
    cr_assert_eq(jobs_direct(path, HISTO_BY_SITE, 2), HISTO_JOBS_FALLBACK);
    histo_table t;
    cr_assert_eq(collect(&t, path, HISTO_BY_SITE, 1, 2), AN_ERROR);
    histo_table_free(&t);
    unlink(path);
    tbuf_free(&dump);
}

Test(histo_jobs, default_jobs_is_sane)
{
    unsigned n = histo_default_jobs();
    cr_assert(n >= 1 && n <= HISTO_MAX_JOBS);
}
