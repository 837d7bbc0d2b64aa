/*
 * test_histo_collect.c -- histo reads dumps right: the histogram of a dump
 * written with known contents, and of random dumps, equals an independent
 * count, by class, type and site; the footer summary and a full scan agree
 * exactly, from a file and from a pipe; truncated and damaged dumps give
 * exactly the objects of the blocks that survive, and exit code 3.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "cli_names.h"
#include "heapfmt.h"
#include "histo.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"

/* ---- expected histograms, kept independently of histo ---------------------- */

#define WANT_MAX 4096

typedef struct want {
    struct {
        char name[160];
        size_t len;
        uint64_t count, bytes;
    } v[WANT_MAX];
    size_t n;
} want;

static void want_add(want *w, const char *name, size_t len, uint64_t count,
                     uint64_t bytes)
{
    cr_assert_lt(len, sizeof w->v[0].name);
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].len == len && memcmp(w->v[i].name, name, len) == 0) {
            w->v[i].count += count;
            w->v[i].bytes += bytes;
            return;
        }
    cr_assert_lt(w->n, WANT_MAX);
    memcpy(w->v[w->n].name, name, len);
    w->v[w->n].len = len;
    w->v[w->n].count = count;
    w->v[w->n].bytes = bytes;
    w->n++;
}

static void want_add_str(want *w, const char *name, uint64_t count,
                         uint64_t bytes)
{
    want_add(w, name, strlen(name), count, bytes);
}

/* Column d of t holds exactly the names of w with a nonzero count. */
static void check_column(const histo_table *t, size_t d, const want *w,
                         const char *what)
{
    size_t expect_rows = 0;
    uint64_t count = 0, bytes = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (w->v[i].count == 0)
            continue;
        expect_rows++;
        count += w->v[i].count;
        bytes += w->v[i].bytes;
        size_t id;
        cr_assert_eq(cli_strmap_find(&t->names, w->v[i].name, w->v[i].len,
                                     &id),
                     0, "%s: '%.*s' missing", what, (int)w->v[i].len,
                     w->v[i].name);
        const uint64_t *cell = &t->cells[(id * t->ndumps + d) * 2];
        cr_assert_eq(cell[0], w->v[i].count, "%s: '%.*s' count %llu, want %llu",
                     what, (int)w->v[i].len, w->v[i].name,
                     (unsigned long long)cell[0],
                     (unsigned long long)w->v[i].count);
        cr_assert_eq(cell[1], w->v[i].bytes, "%s: '%.*s' bytes %llu, want %llu",
                     what, (int)w->v[i].len, w->v[i].name,
                     (unsigned long long)cell[1],
                     (unsigned long long)w->v[i].bytes);
    }
    cr_assert_eq(t->dumps[d].rows, expect_rows, "%s: %llu rows, want %zu",
                 what, (unsigned long long)t->dumps[d].rows, expect_rows);
    cr_assert_eq(t->dumps[d].count, count, "%s: total count", what);
    cr_assert_eq(t->dumps[d].bytes, bytes, "%s: total bytes", what);
}

/* ---- collecting from memory ------------------------------------------------ */

enum { SRC_FILE, SRC_PIPE };

static histo_options opts(enum histo_by by, int scan)
{
    histo_options o = HISTO_OPTIONS_INIT;
    o.by = by;
    o.scan = scan;
    o.progress = 0;
    return o;
}

/* Reads data (a whole or damaged dump) into column d of t, through a
 * seekable temporary file or a pipe. Returns histo's status. */
static int collect(histo_table *t, size_t d, const tbuf *data, int src,
                   const histo_options *o)
{
    int child = -1;
    int fd = src == SRC_PIPE ? tpipe_fd(data->data, data->len, &child)
                             : ttemp_fd(data->data, data->len);
    an_dump dump = {.path = "mem.dump", .name = "mem.dump", .fd = fd};
    int rc = heapfmt_reader_open_fd(&dump.reader, NULL, fd);
    if (rc == HEAPFMT_OK)
        rc = histo_collect_dump(t, d, &dump, o);
    else
        rc = -1000 + rc;
    heapfmt_reader_free(dump.reader);
    close(fd);
    if (child > 0)
        twait_child(child);
    return rc;
}

/* Fills t, a table of one column, from data by `by` (scanning the blocks
 * when scan) as collect does; returns histo's status. */
static int collect_by(histo_table *t, const tbuf *data, int src,
                      enum histo_by by, int scan)
{
    cr_assert_eq(histo_table_init(t, 1), 0);
    histo_options o = opts(by, scan);
    return collect(t, 0, data, src, &o);
}

/* ---- a dump with known contents ------------------------------------------ */

typedef struct known {
    tbuf dump;
    want by_class, by_type, by_site;
    uint64_t objects;
} known;

typedef struct kw {
    heapfmt_writer *w;
    known *k;
    uint64_t next_id;
    int sites;
} kw;

static uint32_t str(kw *x, const char *s)
{
    uint32_t id;
    TASSERT_OK(heapfmt_write_string(x->w, s, strlen(s), &id));
    return id;
}

static void klass(kw *x, uint64_t id, const char *name, size_t len)
{
    heapfmt_class c = {id, name, len, 0, 0};
    TASSERT_OK(heapfmt_write_class(x->w, &c));
}

/* Writes n objects and records them under the names they must show up
 * under: the class's final display name, the type and the site. */
static void objs(kw *x, int n, uint64_t class_id, const char *class_name,
                 uint32_t type, const char *type_name, uint64_t size,
                 uint32_t file, const char *file_name, uint64_t line)
{
    for (int i = 0; i < n; i++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = x->next_id += 40;
        o.class_id = class_id;
        o.type = type;
        o.size = size;
        if (x->sites && file_name != NULL) {
            o.fields = HEAPFMT_F_SITE;
            o.file = file;
            o.line = line;
        }
        TASSERT_OK(heapfmt_write_object(x->w, &o));
        want_add_str(&x->k->by_class, class_name, 1, size);
        want_add_str(&x->k->by_type, type_name, 1, size);
        if (x->sites && file_name != NULL) {
            char site[128];
            snprintf(site, sizeof site, "%s:%llu", file_name,
                     (unsigned long long)line);
            want_add_str(&x->k->by_site, site, 1, size);
        } else {
            want_add_str(&x->k->by_site, HISTO_NO_SITE, 1, size);
        }
        x->k->objects++;
    }
}

/* Returns a heap-allocated known dump (the histograms are large). */
static known *write_known(int level, uint32_t block_size, int sites)
{
    known *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    tsink s;
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = level;
    wo.block_size = block_size;
    kw x = {twriter_on_sink(&s, &wo), k, 0x7f0000000000ull, sites};

    uint32_t t_str = str(&x, "T_STRING"), t_arr = str(&x, "T_ARRAY");
    uint32_t t_obj = str(&x, "T_OBJECT"), t_data = str(&x, "T_DATA");
    uint32_t app = str(&x, "app.rb"), lib = str(&x, "lib/x.rb");
    klass(&x, 100, "String", 6);
    klass(&x, 200, "Array", 5);
    klass(&x, 300, NULL, 0);   /* anonymous */
    klass(&x, 400, "Foo", 3);  /* two classes named Foo */
    klass(&x, 500, "Foo", 3);
    klass(&x, 600, NULL, 0);   /* anonymous, named "Late" further on */
    klass(&x, 700, "Unused", 6);
    klass(&x, 800, "", 0);     /* empty name: shown as anonymous */
    klass(&x, 1000, "Tab\there\nNUL\0end", 16);

    for (int i = 0; i < 10; i++)
        objs(&x, 1, 100, "String", t_str, "T_STRING", 40,
             i % 2 == 0 ? app : 0, i % 2 == 0 ? "app.rb" : NULL,
             10 + (uint64_t)(i % 3));
    TASSERT_OK(heapfmt_writer_flush(x.w));
    objs(&x, 5, 200, "Array", t_arr, "T_ARRAY", 100, lib, "lib/x.rb", 7);
    objs(&x, 3, 300, "#<Class:0x000000000000012c>", t_obj, "T_OBJECT", 8,
         0, NULL, 0);
    objs(&x, 2, 400, "Foo", t_obj, "T_OBJECT", 16, 0, NULL, 0);
    objs(&x, 4, 500, "Foo", t_obj, "T_OBJECT", 24, app, "app.rb", 99);
    objs(&x, 7, 0, "(no class)", 0, "(no type)", 1, 0, NULL, 0);
    objs(&x, 1, 600, "Late", t_data, "T_DATA", 50, 0, NULL, 0);
    TASSERT_OK(heapfmt_writer_flush(x.w));
    klass(&x, 600, "Late", 4);
    objs(&x, 1, 600, "Late", t_data, "T_DATA", 60, 0, NULL, 0);
    objs(&x, 2, 800, "#<Class:0x0000000000000320>", t_obj, "T_OBJECT", 5, 0,
         NULL, 0);
    /* a class id never defined: the writer defines it anonymous */
    objs(&x, 1, 900, "#<Class:0x0000000000000384>", t_obj, "T_OBJECT", 70,
         0, NULL, 0);
    objs(&x, 2, 1000, "Tab\there\nNUL", t_obj, "T_OBJECT", 3, 0, NULL, 0);
    /* fix the last entry's name, which holds a NUL byte */
    want *bc = &k->by_class;
    cr_assert_eq(bc->v[bc->n - 1].len, 12);
    memcpy(bc->v[bc->n - 1].name, "Tab\there\nNUL\0end", 16);
    bc->v[bc->n - 1].len = 16;
    for (int i = 0; i < 300; i++) /* many blocks with small block sizes */
        objs(&x, 1, 100, "String", t_str, "T_STRING", 24 + (uint64_t)i, app,
             "app.rb", 1000 + (uint64_t)(i % 7));

    TASSERT_OK(heapfmt_writer_finish(x.w));
    heapfmt_writer_free(x.w);
    k->dump = s.out;
    return k;
}

static void free_known(known *k)
{
    tbuf_free(&k->dump);
    free(k);
}

static const struct {
    int level;
    uint32_t block;
} layouts[] = {{0, 0}, {1, 0}, {0, 1024}, {1, 1024}, {9, 4096}};

Test(histo_collect, known_dump_by_class_footer_and_scan)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        known *k = write_known(layouts[i].level, layouts[i].block, 1);
        for (int scan = 0; scan <= 1; scan++)
            for (int src = SRC_FILE; src <= SRC_PIPE; src++) {
                histo_table t;
                int rc = collect_by(&t, &k->dump, src, HISTO_BY_CLASS, scan);
                cr_assert_eq(rc, AN_OK);
                char what[96];
                snprintf(what, sizeof what, "level %d block %u scan %d src %d",
                         layouts[i].level, layouts[i].block, scan, src);
                check_column(&t, 0, &k->by_class, what);
                /* The footer is used exactly when it can be. */
                cr_assert_eq(t.dumps[0].from_footer,
                             !scan && src == SRC_FILE, "%s", what);
                cr_assert_eq(t.dumps[0].status, AN_OK);
                cr_assert_eq(t.dumps[0].count, k->objects);
                histo_table_free(&t);
            }
        free_known(k);
    }
}

Test(histo_collect, known_dump_by_type_and_site)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        known *k = write_known(layouts[i].level, layouts[i].block, 1);
        for (int src = SRC_FILE; src <= SRC_PIPE; src++) {
            histo_table t;
            cr_assert_eq(histo_table_init(&t, 2), 0);
            histo_options o = opts(HISTO_BY_TYPE, 0);
            cr_assert_eq(collect(&t, 0, &k->dump, src, &o), AN_OK);
            check_column(&t, 0, &k->by_type, "by type");
            cr_assert_eq(t.dumps[0].from_footer, 0);
            histo_table_free(&t);

            cr_assert_eq(collect_by(&t, &k->dump, src, HISTO_BY_SITE, 0),
                         AN_OK);
            check_column(&t, 0, &k->by_site, "by site");
            histo_table_free(&t);
        }
        free_known(k);
    }
}

Test(histo_collect, by_site_without_sites_is_an_error, .init = cr_redirect_stderr)
{
    known *k = write_known(1, 0, 0);
    histo_table t;
    cr_assert_eq(collect_by(&t, &k->dump, SRC_FILE, HISTO_BY_SITE, 0),
                 AN_ERROR);
    histo_table_free(&t);
    /* the same dump by type is fine */
    cr_assert_eq(collect_by(&t, &k->dump, SRC_FILE, HISTO_BY_TYPE, 0), AN_OK);
    check_column(&t, 0, &k->by_type, "by type without sites");
    histo_table_free(&t);
    free_known(k);
}

Test(histo_collect, two_dumps_match_by_name)
{
    known *a = write_known(1, 0, 1);
    known *b = write_known(0, 1024, 1);
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 2), 0);
    histo_options o = opts(HISTO_BY_CLASS, 0);
    cr_assert_eq(collect(&t, 0, &a->dump, SRC_FILE, &o), AN_OK);
    cr_assert_eq(collect(&t, 1, &b->dump, SRC_PIPE, &o), AN_OK);
    check_column(&t, 0, &a->by_class, "dump a");
    check_column(&t, 1, &b->by_class, "dump b");
    cr_assert_eq(t.nrows, a->by_class.n);
    histo_table_finish(&t, &o);
    cr_assert_eq(t.nshown, 0, "identical dumps show no change");
    o.all = 1;
    histo_table_finish(&t, &o);
    cr_assert_eq(t.nshown, t.nrows);
    histo_table_free(&t);
    free_known(a);
    free_known(b);
}

/* ---- random dumps against the model ---------------------------------------- */

/* The model's histogram by final display name. */
static void model_want(const tmodel *m, want *w)
{
    memset(w, 0, sizeof *w);
    for (size_t index = 0; index <= m->nclasses; index++) {
        uint64_t count = m->class_count[index], bytes = m->class_bytes[index];
        if (count == 0)
            continue;
        cli_name buf;
        if (index == 0) {
            want_add_str(w, cli_placeholder(&buf, 0, 0, 0), count, bytes);
            continue;
        }
        const tcls *c = &m->classes[index - 1];
        if (c->named && c->name.len > 0)
            want_add(w, c->name.ptr, c->name.len, count, bytes);
        else
            want_add_str(w, cli_placeholder(&buf, (uint32_t)index, c->id,
                                            c->flags),
                         count, bytes);
    }
}

Test(histo_collect, random_dumps_equal_the_model, .timeout = 60)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        tmodel m;
        tmodel_init(&m);
        heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
        wo.level = (int)(seed % 3);
        wo.block_size = seed % 2 ? 1024 : 0;
        tbuf dump;
        TASSERT_OK(tmodel_make_dump(&m, &wo, seed, 3000, &dump));
        want *w = malloc(sizeof *w);
        cr_assert_not_null(w);
        model_want(&m, w);
        for (int scan = 0; scan <= 1; scan++) {
            histo_table t;
            cr_assert_eq(collect_by(&t, &dump, SRC_FILE, HISTO_BY_CLASS, scan),
                         AN_OK);
            char what[64];
            snprintf(what, sizeof what, "seed %llu scan %d",
                     (unsigned long long)seed, scan);
            check_column(&t, 0, w, what);
            cr_assert_eq(t.dumps[0].count, m.objects);
            histo_table_free(&t);
        }
        tbuf_free(&dump);
        tmodel_free(&m);
        free(w);
    }
}

/* ---- incomplete dumps -------------------------------------------------------- */

typedef struct blockinfo {
    uint64_t offset, end, objects;
} blockinfo;

/* The data blocks of a complete dump, from its footer's block index and
 * the stored lengths in the block headers. */
static size_t blocks_of(const tbuf *dump, blockinfo *b, size_t max)
{
    heapfmt_reader *r = treader_on_memory(dump->data, dump->len);
    const heapfmt_footer *f;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_leq(f->nblocks, max);
    for (size_t i = 0; i < f->nblocks; i++) {
        b[i].offset = f->blocks[i].offset;
        b[i].end = b[i].offset + 20 + tget_u32le(dump->data + b[i].offset + 8);
        b[i].objects = f->blocks[i].objects;
    }
    size_t n = f->nblocks;
    heapfmt_reader_free(r);
    return n;
}

Test(histo_collect, truncated_dump_counts_every_whole_block, .timeout = 60,
     .init = cr_redirect_stderr)
{
    known *k = write_known(1, 1024, 1);
    blockinfo b[256];
    size_t nb = blocks_of(&k->dump, b, 256);
    cr_assert_gt(nb, 5, "want several blocks, got %zu", nb);
    /* Cut inside each block, at each block boundary, and inside the
     * footer and trailer. */
    size_t cuts[600], ncuts = 0;
    for (size_t i = 0; i < nb; i++) {
        cuts[ncuts++] = (size_t)b[i].offset;
        cuts[ncuts++] = (size_t)b[i].offset + 7;
        cuts[ncuts++] = (size_t)(b[i].offset + b[i].end) / 2;
    }
    cuts[ncuts++] = (size_t)b[nb - 1].end;
    cuts[ncuts++] = k->dump.len - 30;
    cuts[ncuts++] = k->dump.len - 1;
    for (size_t c = 0; c < ncuts; c++) {
        uint64_t expect = 0;
        for (size_t i = 0; i < nb; i++)
            if (b[i].end <= cuts[c])
                expect += b[i].objects;
        tbuf cut = {k->dump.data, cuts[c], cuts[c]};
        for (int src = SRC_FILE; src <= SRC_PIPE; src++) {
            histo_table t;
            int rc = collect_by(&t, &cut, src, HISTO_BY_CLASS, 0);
            cr_assert_eq(rc, AN_INCOMPLETE, "cut at %zu: rc %d", cuts[c],
                         rc);
            cr_assert_eq(t.dumps[0].count, expect,
                         "cut at %zu: %llu objects, want %llu", cuts[c],
                         (unsigned long long)t.dumps[0].count,
                         (unsigned long long)expect);
            cr_assert_eq(t.dumps[0].status, AN_INCOMPLETE);
            /* never more of any class than the whole dump has */
            for (size_t i = 0; i < t.nrows; i++) {
                size_t id = t.rows[i].id;
                int found = 0;
                for (size_t j = 0; j < k->by_class.n; j++)
                    if (k->by_class.v[j].len == t.rows[i].len &&
                        memcmp(k->by_class.v[j].name, t.rows[i].name,
                               t.rows[i].len) == 0) {
                        found = 1;
                        cr_assert_leq(t.cells[id * 2], k->by_class.v[j].count);
                    }
                /* Classes whose CLASS record was lost show a placeholder. */
                if (!found)
                    cr_assert(strncmp(t.rows[i].name, "#<Class:", 8) == 0,
                              "unexpected row '%s'", t.rows[i].name);
            }
            histo_table_free(&t);
        }
    }
    free_known(k);
}

Test(histo_collect, damaged_block_is_skipped_in_a_scan, .init = cr_redirect_stderr)
{
    known *k = write_known(0, 1024, 1);
    blockinfo b[256];
    size_t nb = blocks_of(&k->dump, b, 256);
    for (size_t victim = 0; victim < nb; victim += 3) {
        tbuf bad = {malloc(k->dump.len), k->dump.len, k->dump.len};
        cr_assert_not_null(bad.data);
        memcpy(bad.data, k->dump.data, k->dump.len);
        bad.data[(b[victim].offset + 20 + b[victim].end) / 2] ^= 0x55;

        /* A scan finds the damage: everything else is counted, exit 3. */
        histo_table t;
        cr_assert_eq(collect_by(&t, &bad, SRC_FILE, HISTO_BY_CLASS, 1),
                     AN_INCOMPLETE);
        cr_assert_eq(t.dumps[0].count, k->objects - b[victim].objects,
                     "block %zu: %llu objects", victim,
                     (unsigned long long)t.dumps[0].count);
        histo_table_free(&t);

        /* The footer path does not read the blocks: the footer, intact,
         * gives the whole histogram. */
        cr_assert_eq(collect_by(&t, &bad, SRC_FILE, HISTO_BY_CLASS, 0), AN_OK);
        check_column(&t, 0, &k->by_class, "footer of a damaged dump");
        histo_table_free(&t);
        tbuf_free(&bad);
    }
    free_known(k);
}

Test(histo_collect, damaged_footer_falls_back_to_a_scan, .init = cr_redirect_stderr)
{
    known *k = write_known(0, 0, 1);
    blockinfo b[16];
    size_t nb = blocks_of(&k->dump, b, 16);
    /* The footer block's payload follows the last data block's end. */
    k->dump.data[b[nb - 1].end + 20 + 3] ^= 0xff;
    histo_table t;
    cr_assert_eq(collect_by(&t, &k->dump, SRC_FILE, HISTO_BY_CLASS, 0),
                 AN_INCOMPLETE);
    check_column(&t, 0, &k->by_class, "damaged footer");
    cr_assert_eq(t.dumps[0].from_footer, 0);
    histo_table_free(&t);
    free_known(k);
}

/* ---- files by path ----------------------------------------------------------- */

Test(histo_collect, by_path, .init = cr_redirect_stderr)
{
    known *k = write_known(1, 0, 1);
    char *good = ttemp_file(k->dump.data, k->dump.len);
    char *text = ttemp_file("{\"not\": \"a dump\"}\n", 18);
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 3), 0);
    histo_options o = opts(HISTO_BY_CLASS, 0);
    cr_assert_eq(histo_collect(&t, 0, good, &o), AN_OK);
    check_column(&t, 0, &k->by_class, "by path");
    cr_assert_str_eq(t.dumps[0].path, good);
    cr_assert_eq(histo_collect(&t, 1, text, &o), AN_ERROR);
    cr_assert_eq(histo_collect(&t, 2, "/nonexistent/x.dump", &o),
                 AN_ERROR);
    histo_table_free(&t);
    unlink(good);
    unlink(text);
    free(good);
    free(text);
    free_known(k);
}
