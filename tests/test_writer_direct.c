/*
 * test_writer_direct.c -- the trusted producer's OBJECT path
 * (libheapfmt/writer_direct.h) writes the bytes of heapfmt_write_object.
 *
 * One stream of random objects, each valid (every field kind, values up
 * to 300 bytes, sites, generations, stacks, labels of every kind in both
 * forms, weak ones, indexed arrays with and without a list, classes
 * first met mid-stream, a few thousand references now and then so that
 * records cross blocks and take two-byte lengths), is written once
 * through heapfmt_write_object and once through hf_write_object_direct,
 * with the same strings, classes and stacks in between, under several
 * block sizes and codecs: the two dumps must be equal byte for byte and
 * read back whole.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "writer_direct.h"

#define NOBJ 6000
#define NNAMES 12
#define BIGREFS 5000

/* Writes the stream; direct: through hf_write_object_direct. */
static void write_stream(const heapfmt_writer_options *opt, int direct,
                         uint64_t seed, tbuf *out)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, opt);
    tprng r;
    tprng_seed(&r, seed);
    uint32_t names[NNAMES], frames[3], stack;
    for (int i = 0; i < NNAMES; i++) {
        char t[16];
        snprintf(t, sizeof t, "name%d", i);
        TASSERT_OK(heapfmt_write_string(w, t, strlen(t), &names[i]));
    }
    for (int f = 0; f < 3; f++) {
        heapfmt_frame fr = {names[f], 0, 0x100u * (unsigned)f, names[f + 1],
                            (uint64_t)f};
        TASSERT_OK(heapfmt_write_frame(w, &fr, &frames[f]));
    }
    TASSERT_OK(heapfmt_write_stack(w, frames, 3, &stack));
    heapfmt_class c = {0x5000, "Known", 5, 0, 0};
    TASSERT_OK(heapfmt_write_class(w, &c));
    static uint64_t refs[BIGREFS];
    static heapfmt_label labels[BIGREFS];
    char value[300];
    memset(value, 'v', sizeof value);
    uint64_t id = 0x7f0000001000ull;
    for (int i = 0; i < NOBJ; i++) {
        id += 40 * (1 + tprng_below(&r, 3) * tprng_below(&r, 50));
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = id;
        /* 0: none; 0x5000: defined; others appear here first */
        uint64_t k = tprng_below(&r, 8);
        o.class_id = k == 0 ? 0 : k == 1 ? 0x5000 : 0x6000 + 8 * k * (i % 7);
        o.type = names[tprng_below(&r, NNAMES)];
        o.size = tprng_below(&r, 4) ? 40 : tprng_below(&r, 1u << 20);
        o.fields = (uint32_t)tprng_below(&r, 16); /* the four of 1.0 */
        o.flags = tprng_below(&r, 2) ? tprng_below(&r, 32) : 1ull << 34 | 0x11;
        o.value = value;
        o.value_len = tprng_below(&r, 3) ? tprng_below(&r, 60)
                                         : tprng_below(&r, sizeof value);
        o.file = names[tprng_below(&r, NNAMES)];
        o.line = tprng_below(&r, 100000);
        o.generation = tprng_below(&r, 300);
        if (tprng_below(&r, 5) == 0) {
            o.fields |= HEAPFMT_F_STACK;
            o.stack = stack;
        }
        size_t n = tprng_below(&r, 200) == 0 ? 300 + tprng_below(&r, BIGREFS - 300)
                                             : tprng_below(&r, 12);
        for (size_t j = 0; j < n; j++)
            refs[j] = 0x7f0000000000ull + 40 * tprng_below(&r, 1u << 22);
        o.refs = refs;
        o.nrefs = n;
        unsigned form = (unsigned)tprng_below(&r, 4);
        if (form == 1 || form == 3) { /* labels, sorted or indexed */
            o.fields |= HEAPFMT_F_LABELS;
            o.labels = labels;
            for (size_t j = 0; j < n; j++) {
                heapfmt_label *l = &labels[j];
                l->kind = (uint32_t)tprng_below(&r, 7);
                l->weak = tprng_below(&r, 6) == 0;
                l->value = l->kind == HEAPFMT_LABEL_INDEX
                               ? (tprng_below(&r, 4) ? j + 2 : tprng_below(&r, 9000))
                           : l->kind != HEAPFMT_LABEL_NONE
                               ? names[tprng_below(&r, NNAMES)]
                               : 0;
                if (form == 3 && tprng_below(&r, 3)) /* mostly inferred */
                    *l = (heapfmt_label){HEAPFMT_LABEL_INDEX, 0, j};
            }
            if (tprng_below(&r, 10) == 0) /* labels given, none written */
                memset(labels, 0, n * sizeof *labels);
        }
        if (form >= 2)
            o.fields |= HEAPFMT_F_INDEXED;
        cr_assert_eq(heapfmt_object_refs_fit(&o), o.nrefs);
        if (direct)
            TASSERT_OK(hf_write_object_direct(w, &o));
        else
            TASSERT_OK(heapfmt_write_object(w, &o));
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s.out;
}

static void same_bytes(int codec, int level, uint32_t block_size, int threads)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = codec;
    opt.level = level;
    opt.block_size = block_size;
    opt.threads = threads;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tbuf a, b;
        write_stream(&opt, 0, seed, &a);
        write_stream(&opt, 1, seed, &b);
        cr_assert_eq(a.len, b.len, "seed %llu: %zu bytes against %zu",
                     (unsigned long long)seed, a.len, b.len);
        cr_assert(memcmp(a.data, b.data, a.len) == 0,
                  "seed %llu: the dumps differ", (unsigned long long)seed);
        /* and the library reads it whole */
        tsource src;
        tsource_init(&src, b.data, b.len, TSRC_WHOLE, seed);
        heapfmt_reader *rd = NULL;
        TASSERT_OK(tsource_open(&rd, NULL, &src));
        heapfmt_record rec;
        size_t objects = 0;
        int rc;
        while ((rc = heapfmt_reader_next(rd, &rec)) == HEAPFMT_OK)
            objects += rec.tag == HEAPFMT_TAG_OBJECT;
        cr_assert_eq(rc, HEAPFMT_DONE, "%s", heapfmt_strerror(rc));
        cr_assert_eq(objects, NOBJ);
        heapfmt_reader_free(rd);
        tbuf_free(&a);
        tbuf_free(&b);
    }
}

Test(writer_direct, stored_small_blocks) { same_bytes(HEAPFMT_CODEC_STORED, 0, 4096, 0); }
Test(writer_direct, zstd_default_blocks) { same_bytes(HEAPFMT_CODEC_ZSTD, 1, 0, 0); }
Test(writer_direct, zstd_on_the_worker) { same_bytes(HEAPFMT_CODEC_ZSTD, 1, 65536, 1); }
Test(writer_direct, deflate) { same_bytes(HEAPFMT_CODEC_DEFLATE, 1, 16384, 0); }

/* A writer already failed or finished: the direct path says so as the
 * public one does, and writes nothing. */
Test(writer_direct, finished_writer)
{
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    TASSERT_OK(heapfmt_writer_finish(w));
    size_t len = s.out.len;
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = 0x1000;
    cr_assert_eq(hf_write_object_direct(w, &o), HEAPFMT_E_STATE);
    cr_assert_eq(s.out.len, len);
    heapfmt_writer_free(w);
    tsink_free(&s);
}
