/*
 * mkcorpus.c -- writes the seed corpus of the fuzz harnesses.
 *
 * Usage: mkcorpus OUTDIR [IMPORT_FIXTURES_DIR]
 *
 * Creates OUTDIR/fuzz_read, fuzz_stream, fuzz_roundtrip, fuzz_malloc_host
 * and (when the import fixtures directory is given) fuzz_import, and fills
 * them with
 * small inputs: dumps written by libheapfmt (every record kind and field,
 * several codecs, levels and block sizes, flushed blocks, an empty dump, a
 * record larger than a block; format 1.1 labels, frames and stacks;
 * format 1.2 allocation traces; format 1.3 indexed arrays),
 * hand-built dumps the writer never makes (unknown record tags and block
 * kinds, trailing payload bytes, a newer minor, a 1.0 file where 0x07 is
 * still reserved, FRAME and STACK records after their first use, a codec
 * of a later version, indexed records of every form the spec allows),
 * damaged copies (cut, a flipped byte), indexed records a reader must
 * refuse (the bit in a 1.2 file, bit 7 with it, a bad label list),
 * operation sequences for the
 * round trip (one per fault kind), host event sequences for the malloc
 * tracker (a daemon's close-all, dup2, reuse, dump requests and intervals,
 * in a private and a shared table), and ObjectSpace.dump_all files.
 * `make fuzz-corpus` runs it; the output is deterministic.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "heapfmt.h"

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;

static void die(const char *what)
{
    fprintf(stderr, "mkcorpus: %s\n", what);
    exit(1);
}

static void put(buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n)
            cap *= 2;
        if (!(b->p = realloc(b->p, cap)))
            die("out of memory");
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void put8(buf *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    put(b, &c, 1);
}

static void put16(buf *b, unsigned v)
{
    put8(b, v & 0xff);
    put8(b, (v >> 8) & 0xff);
}

static void put32(buf *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        put8(b, (v >> (8 * i)) & 0xff);
}

static void put64(buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        put8(b, (unsigned)(v >> (8 * i)) & 0xff);
}

static void putv(buf *b, uint64_t v)
{
    while (v >= 0x80) {
        put8(b, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    put8(b, (unsigned)v);
}

static uint32_t crc(const void *p, size_t n)
{
    return (uint32_t)crc32(0, p, (uInt)n);
}

static const char *outdir;

static void save(const char *harness, const char *name, const void *p,
                 size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", outdir, harness);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create a harness directory");
    snprintf(path, sizeof path, "%s/%s/%s", outdir, harness, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die("cannot write a corpus file");
}

/* ---- dumps through the library ---- */

static long sink(void *opaque, const void *p, size_t n)
{
    put(opaque, p, n);
    return (long)n;
}

static void ok(int rc)
{
    if (rc != HEAPFMT_OK)
        die(heapfmt_strerror(rc));
}

/* A small heap: every record kind, every object field. */
static void write_heap(heapfmt_writer *w, int objects, int flushes)
{
    uint32_t s_type, s_file, s_kind, s_name;
    ok(heapfmt_write_meta_text(w, "producer", "mkcorpus"));
    ok(heapfmt_write_meta_text(w, "vm.name", "ruby"));
    ok(heapfmt_write_meta_uint(w, "pid", 4242));
    ok(heapfmt_write_meta_int(w, "tz", -3600));
    ok(heapfmt_write_meta_uint(w, "ids_stable", 1));
    ok(heapfmt_write_string(w, "T_STRING", 8, &s_type));
    ok(heapfmt_write_string(w, "app.rb", 6, &s_file));
    ok(heapfmt_write_string(w, "vm", 2, &s_kind));
    ok(heapfmt_write_string(w, "", 0, &s_name));
    heapfmt_class c = {0x1000, "String", 6, 0x2000, 0};
    ok(heapfmt_write_class(w, &c));
    heapfmt_class m = {0x1040, "Kernel", 6, 0, HEAPFMT_CF_MODULE};
    ok(heapfmt_write_class(w, &m));
    for (int i = 0; i < objects; i++) {
        uint64_t refs[3] = {0x1000, 0x7f0000000000ull + 40u * (unsigned)i,
                            0xffffffffffffffffull};
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 0x7f0000000028ull + 40u * (unsigned)i;
        o.class_id = i % 5 == 4 ? 0 : (i % 3 == 2 ? 0x3000 : 0x1000);
        o.type = s_type;
        o.size = 40 + (unsigned)i;
        o.fields = (uint32_t)i & HEAPFMT_F_BASIC;
        o.flags = HEAPFMT_OF_FROZEN | ((uint64_t)1 << 40);
        o.value = "hello, world";
        o.value_len = (size_t)(i % 13);
        o.file = s_file;
        o.line = (uint64_t)i * 7;
        o.generation = 12;
        o.refs = refs;
        o.nrefs = (size_t)(i % 4);
        ok(heapfmt_write_object(w, &o));
        if (flushes && i % (objects / flushes + 1) == 0)
            ok(heapfmt_writer_flush(w));
    }
    /* name the class first met anonymously */
    heapfmt_class late = {0x3000, "Hash", 4, 0x2000, 0};
    ok(heapfmt_write_class(w, &late));
    uint64_t roots[2] = {0x7f0000000028ull, 0x1000};
    ok(heapfmt_write_root(w, s_kind, roots, 2));
    ok(heapfmt_write_root(w, s_name, NULL, 0));
}

/* Format 1.1: frames and stacks (one deep, one defined again: interned),
 * objects with labels of every kind and with stacks, labeled roots; 1.3's
 * indexed arrays; and 1.2's lifespans. */
static void write_heap_11(heapfmt_writer *w, int objects)
{
    uint32_t s_fn, s_lib, s_file, s_field, s_key, s_const, s_glob, s_kind;
    ok(heapfmt_write_string(w, "Foo#bar", 7, &s_fn));
    ok(heapfmt_write_string(w, "libruby.so", 10, &s_lib));
    ok(heapfmt_write_string(w, "foo.rb", 6, &s_file));
    ok(heapfmt_write_string(w, "@name", 5, &s_field));
    ok(heapfmt_write_string(w, "\"key\"", 5, &s_key));
    ok(heapfmt_write_string(w, "Foo::BAR", 8, &s_const));
    ok(heapfmt_write_string(w, "$stdout", 7, &s_glob));
    ok(heapfmt_write_string(w, "global_tbl", 10, &s_kind));
    heapfmt_frame fr[3] = {{s_fn, s_lib, 0x1234, s_file, 12},
                           {0, s_lib, 0x7f00deadbeefull, 0, 0},
                           {s_fn, 0, 0, s_file, 99}};
    uint32_t fid[3], again, stk[2];
    for (int i = 0; i < 3; i++)
        ok(heapfmt_write_frame(w, &fr[i], &fid[i]));
    ok(heapfmt_write_frame(w, &fr[0], &again)); /* interned: no record */
    uint32_t deep[300];
    for (int i = 0; i < 300; i++)
        deep[i] = fid[i % 3];
    ok(heapfmt_write_stack(w, fid, 3, &stk[0]));
    ok(heapfmt_write_stack(w, deep, 300, &stk[1]));
    ok(heapfmt_write_stack(w, fid, 3, &again));
    for (int i = 0; i < objects; i++) {
        uint64_t refs[7];
        heapfmt_label lb[7] = {
            {HEAPFMT_LABEL_FIELD, 0, s_field},
            {HEAPFMT_LABEL_INDEX, 0, 1},
            {HEAPFMT_LABEL_KEY, 1, s_key},
            {HEAPFMT_LABEL_NONE, 1, 0},
            {HEAPFMT_LABEL_CONSTANT, 0, s_const},
            {HEAPFMT_LABEL_GLOBAL, 1, s_glob},
            {HEAPFMT_LABEL_OTHER, 0, s_fn}};
        for (int k = 0; k < 7; k++)
            refs[k] = 0x7f0000000028ull + 40u * (unsigned)(i + k);
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 0x7f0000100028ull + 40u * (unsigned)i;
        o.class_id = 0x1000;
        o.size = 40;
        o.fields = HEAPFMT_F_SITE | (i % 3 ? HEAPFMT_F_STACK : 0) |
                   (i % 2 ? 0 : HEAPFMT_F_LABELS);
        o.file = s_file;
        o.line = (uint64_t)i;
        o.refs = refs;
        o.nrefs = (size_t)(i % 8);
        o.labels = lb;
        o.stack = stk[i % 2];
        ok(heapfmt_write_object(w, &o));
    }
    /* format 1.3: arrays in the indexed form, listed in element order
     * (no label written), with gaps (an entry after each), with a weak
     * element, an element without a label and a field; one without
     * references (the writer drops the bit) */
    uint64_t elems[12];
    heapfmt_label el[12];
    for (int i = 0; i < 12; i++) {
        elems[i] = 0x7f0000000028ull + 40u * (unsigned)(i % 5);
        el[i] = (heapfmt_label){HEAPFMT_LABEL_INDEX, 0,
                                (uint64_t)i + (i >= 4) * 2u + (i >= 9)};
    }
    el[6].weak = 1;
    el[7] = (heapfmt_label){HEAPFMT_LABEL_NONE, 0, 0};
    el[10] = (heapfmt_label){HEAPFMT_LABEL_FIELD, 0, s_field};
    for (int i = 0; i < 4; i++) {
        const heapfmt_object o = {
            .id = 0x7f0000200028ull + 40u * (unsigned)i,
            .class_id = 0x1000,
            .size = 80,
            .fields = HEAPFMT_F_INDEXED | (i % 2 ? HEAPFMT_F_LABELS : 0) |
                      (i == 3 ? HEAPFMT_F_STACK : 0),
            .refs = elems,
            .nrefs = i == 2 ? 0 : 12,
            .labels = el,
            .stack = stk[0]};
        ok(heapfmt_write_object(w, &o));
    }
    uint64_t roots[3] = {0x7f0000000028ull, 0x1000, 0x2000};
    heapfmt_label rl[3] = {{HEAPFMT_LABEL_GLOBAL, 0, s_glob},
                           {HEAPFMT_LABEL_NONE, 0, 0},
                           {HEAPFMT_LABEL_CONSTANT, 1, s_const}};
    ok(heapfmt_write_root_labeled(w, s_kind, roots, rl, 3));
    ok(heapfmt_write_root_labeled(w, s_kind, roots, NULL, 2));
    /* format 1.2: lifespans by stack, by site, by both, and at the limits */
    heapfmt_lifespan ls[4] = {
        {HEAPFMT_LIFESPAN_STACK, stk[0], 0, 0, 500048, 400028, 51204915,
         40962867, 123456789, 7000000},
        {HEAPFMT_LIFESPAN_SITE, 0, s_file, 51, 600007, 600000, 614407,
         614400, 17, 5},
        {HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE, stk[1], s_file, 52,
         3, 2, 120, 80, 1500, 250000},
        {HEAPFMT_LIFESPAN_STACK, stk[1], 0, 0, UINT64_MAX, UINT64_MAX,
         UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}};
    for (int i = 0; i < 4; i++)
        ok(heapfmt_write_lifespan(w, &ls[i]));
}

static void make_dump_codec(buf *out, int codec, int level,
                            uint32_t block_size, int objects, int flushes,
                            int v11)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = codec;
    opt.level = level;
    opt.block_size = block_size;
    heapfmt_writer *w;
    out->len = 0;
    ok(heapfmt_writer_open(&w, &opt, sink, out));
    if (objects >= 0)
        write_heap(w, objects, flushes);
    if (v11)
        write_heap_11(w, v11);
    ok(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
}

/* DEFLATE, or stored at level 0 (the 1.0 dumps of the corpus) */
static void make_dump(buf *out, int level, uint32_t block_size, int objects,
                      int flushes)
{
    make_dump_codec(out, HEAPFMT_CODEC_DEFLATE, level, block_size, objects,
                    flushes, 0);
}

/* One object whose value is larger than the block size. */
static void make_big(buf *out)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = HEAPFMT_CODEC_DEFLATE;
    opt.level = 6;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    heapfmt_writer *w;
    out->len = 0;
    ok(heapfmt_writer_open(&w, &opt, sink, out));
    char value[3000];
    for (size_t i = 0; i < sizeof value; i++)
        value[i] = (char)('a' + i % 26);
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = 1;
    o.size = 3040;
    o.fields = HEAPFMT_F_VALUE;
    o.value = value;
    o.value_len = sizeof value;
    ok(heapfmt_write_object(w, &o));
    ok(heapfmt_write_object(w, &o));
    ok(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
}

/* ---- dumps built by hand (spec/FORMAT.md) ---- */

static void raw_header(buf *b, unsigned major, unsigned minor)
{
    size_t at = b->len;
    put(b, "\x89HFMT\r\n\x1a", 8);
    put8(b, major);
    put8(b, minor);
    put16(b, 0);
    put32(b, crc(b->p + at, 12));
}

static void raw_block(buf *b, unsigned kind, const buf *payload)
{
    size_t at = b->len;
    put8(b, kind);
    put8(b, 0);
    put16(b, 0);
    put32(b, (uint32_t)payload->len);
    put32(b, (uint32_t)payload->len);
    put32(b, crc(payload->p, payload->len));
    put32(b, crc(b->p + at, 16));
    put(b, payload->p, payload->len);
}

static void raw_record(buf *b, unsigned tag, const buf *body)
{
    put8(b, tag);
    putv(b, body->len);
    put(b, body->p, body->len);
}

/* The footer's offset, a check and the end magic. */
static void raw_trailer(buf *out, size_t footer)
{
    size_t at = out->len;
    put64(out, footer);
    put32(out, 0);
    put32(out, crc(out->p + at, 12));
    put(out, "\x89HFMTEND", 8);
}

/* A complete dump with records and a block the writer never makes:
 * unknown tags (0x07 in a 1.0 file, where it is reserved; 0x09, the first
 * tag reserved in 1.1, in a 1.1 file; 0x0b, the first reserved in 1.2,
 * otherwise) and 0x9a, an unknown block kind,
 * trailing bytes in an OBJECT, a META of an unknown value type; minor
 * version `minor`. */
static void make_odd(buf *out, unsigned minor)
{
    buf p = {0}, r = {0}, f = {0};
    out->len = 0;
    raw_header(out, 1, minor);
    /* data block */
    r.len = 0; put8(&r, 0); putv(&r, 3); put(&r, "pid", 3); put(&r, "x", 1);
    raw_record(&p, 0x01, &r);                           /* META text */
    r.len = 0; put8(&r, 7); putv(&r, 3); put(&r, "new", 3); put(&r, "??", 2);
    raw_record(&p, 0x01, &r);                           /* META type 7 */
    r.len = 0; putv(&r, 1); put(&r, "Object", 6);
    raw_record(&p, 0x02, &r);                           /* STRING 1 */
    r.len = 0; putv(&r, 1); putv(&r, 2000); putv(&r, 1); putv(&r, 0);
    putv(&r, 0);
    raw_record(&p, 0x03, &r);                           /* CLASS 1 */
    r.len = 0; put(&r, "\x01\x02\x03", 3);
    raw_record(&p, minor == 0 ? 0x07 : minor == 1 ? 0x09 : 0x0b, &r); /* reserved */
    r.len = 0; put(&r, "vendor", 6);
    raw_record(&p, 0x9a, &r);                           /* extension */
    r.len = 0; putv(&r, 32000); putv(&r, 1); putv(&r, 0); putv(&r, 40);
    put8(&r, 0x0f); putv(&r, 1); putv(&r, 2); put(&r, "hi", 2); putv(&r, 1);
    putv(&r, 9); putv(&r, 3); putv(&r, 2); putv(&r, 27999); putv(&r, 1);
    put(&r, "\xee\xee", 2);                             /* trailing bytes */
    raw_record(&p, 0x04, &r);                           /* OBJECT */
    r.len = 0; putv(&r, 1); putv(&r, 1); putv(&r, 32000);
    raw_record(&p, 0x05, &r);                           /* ROOT */
    /* records before END: 2 META, STRING, CLASS, 2 unknown, OBJECT, ROOT */
    r.len = 0; putv(&r, 1); putv(&r, 40); putv(&r, 8);
    raw_record(&p, 0x06, &r);                           /* END */
    size_t block0 = out->len;
    raw_block(out, 'D', &p);
    buf x = {0};
    put(&x, "a block of a later kind", 23);
    raw_block(out, 'Z', &x);
    /* footer */
    size_t footer = out->len;
    r.len = 0; putv(&r, 1); putv(&r, 40); putv(&r, 8); putv(&r, 1);
    putv(&r, 1); putv(&r, 1); putv(&r, 1); putv(&r, p.len);
    raw_record(&f, 0x40, &r);
    r.len = 0; putv(&r, 1); putv(&r, block0); putv(&r, 9); putv(&r, 1);
    raw_record(&f, 0x41, &r);
    r.len = 0; putv(&r, 1); putv(&r, 2000); putv(&r, 0); putv(&r, 1);
    putv(&r, 40); putv(&r, 6); put(&r, "Object", 6);
    raw_record(&f, 0x42, &r);
    raw_block(out, 'F', &f);
    raw_trailer(out, footer);
    free(p.p);
    free(r.p);
    free(f.p);
    free(x.p);
}

/* A dump of one data block of these records (objects of 40 bytes, no
 * class), END and a footer that tells the truth. */
static void one_block_dump(buf *out, unsigned minor, buf *p, unsigned records,
                           unsigned objects, unsigned strings, unsigned roots)
{
    buf r = {0}, f = {0};
    out->len = 0;
    raw_header(out, 1, minor);
    putv(&r, objects); putv(&r, 40u * objects); putv(&r, records);
    raw_record(p, 0x06, &r);                            /* END */
    size_t block0 = out->len;
    raw_block(out, 'D', p);
    size_t footer = out->len;
    r.len = 0; putv(&r, objects); putv(&r, 40u * objects); putv(&r, records);
    putv(&r, 0); putv(&r, strings); putv(&r, roots); putv(&r, 1);
    putv(&r, p->len);
    putv(&r, 1);
    raw_record(&f, 0x40, &r);                           /* TOTALS */
    r.len = 0; putv(&r, 1); putv(&r, block0); putv(&r, records + 1);
    putv(&r, objects);
    raw_record(&f, 0x41, &r);                           /* BLOCKS */
    r.len = 0; putv(&r, 0); putv(&r, 0); putv(&r, 0); putv(&r, objects);
    putv(&r, 40u * objects); putv(&r, 0);
    raw_record(&f, 0x42, &r);                           /* SUMMARY 0 */
    raw_block(out, 'F', &f);
    raw_trailer(out, footer);
    free(r.p);
    free(f.p);
}

/* A 1.1 dump as a one-pass producer may write it: an OBJECT uses its
 * STACK before the STACK record, the STACK its FRAMEs before theirs; the
 * OBJECT's references and a ROOT's carry labels. */
static void make_after_use(buf *out)
{
    buf p = {0}, r = {0};
    r.len = 0; putv(&r, 1); put(&r, "f", 1);
    raw_record(&p, 0x02, &r);                           /* STRING 1 */
    r.len = 0; putv(&r, 2); put(&r, "lib.so", 6);
    raw_record(&p, 0x02, &r);                           /* STRING 2 */
    /* OBJECT 100, no class, size 40, fields LABELS|STACK, refs 10, 20 */
    r.len = 0; putv(&r, 200); putv(&r, 0); putv(&r, 0); putv(&r, 40);
    put8(&r, 0x30); putv(&r, 2); putv(&r, 179); putv(&r, 20);
    putv(&r, 1);                                        /* stack 1 */
    putv(&r, 2);                                        /* 2 labels: */
    putv(&r, 0); putv(&r, (1u << 4) | 1);               /* FIELD "f" */
    putv(&r, 0); putv(&r, (8u << 4) | 8 | 2);           /* INDEX 5, weak */
    raw_record(&p, 0x04, &r);
    r.len = 0; putv(&r, 1); putv(&r, 2); putv(&r, 1); putv(&r, 2);
    raw_record(&p, 0x08, &r);                           /* STACK 1: 1, 2 */
    r.len = 0; putv(&r, 1); putv(&r, 1); putv(&r, 2); putv(&r, 0x1234);
    putv(&r, 0); putv(&r, 7);
    raw_record(&p, 0x07, &r);                           /* FRAME 1 */
    r.len = 0; putv(&r, 2); putv(&r, 0); putv(&r, 2); putv(&r, 0x40);
    putv(&r, 1); putv(&r, 0);
    raw_record(&p, 0x07, &r);                           /* FRAME 2 */
    /* ROOT kind 1, refs 100, 10; fields LABELS; ref 1: GLOBAL "lib.so" */
    r.len = 0; putv(&r, 1); putv(&r, 2); putv(&r, 200); putv(&r, 179);
    put8(&r, 0x01); putv(&r, 1); putv(&r, 1); putv(&r, (2u << 4) | 5);
    raw_record(&p, 0x05, &r);
    one_block_dump(out, 1, &p, 7, 1, 2, 1);
    free(p.p);
    free(r.p);
}

/* ---- format 1.3: indexed OBJECT records by hand (spec 6.4.1) ---- */

static uint64_t zz(uint64_t v)
{
    return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

/* An OBJECT without class or type, 40 bytes, of these fields (their
 * optional fields left out but a stack, 1), n references to one object
 * (refs), then the label list bytes as given (none: NULL). */
static void indexed_object(buf *p, uint64_t *prev, uint64_t id,
                           unsigned fields, uint64_t refs, size_t n,
                           const uint8_t *list, size_t list_len)
{
    buf r = {0};
    putv(&r, zz(id - *prev));
    *prev = id;
    putv(&r, 0);
    putv(&r, 0);
    putv(&r, 40);
    put8(&r, fields);
    putv(&r, n);
    for (size_t i = 0; i < n; i++)
        putv(&r, zz(refs - (i ? refs : id)));
    if (fields & HEAPFMT_F_STACK)
        putv(&r, 1);
    put(&r, list, list_len);
    raw_record(p, 0x04, &r);
    free(r.p);
}

/* A 1.3 dump of indexed records the writer makes and some it never
 * makes, all valid: an array in element order (no list), one with a gap
 * (an entry, then inferred), an entry of kind 0 (no label) before an
 * inferred index, weak and named entries, the bit on a record without
 * references, an entry that writes an inferred index again, a list with
 * a stack before it, an index at the end of the label's range (index -
 * position = -2^59) and inferred indexes that wrap past 2^64 (modulo
 * 2^64, 6.4.1). */
static void make_indexed(buf *out)
{
    buf p = {0}, r = {0};
    uint64_t prev = 0;
    r.len = 0; putv(&r, 1); put(&r, "f", 1);
    raw_record(&p, 0x02, &r);                           /* STRING 1 */
    r.len = 0; putv(&r, 1); putv(&r, 0); putv(&r, 0); putv(&r, 0x10);
    putv(&r, 0); putv(&r, 0);
    raw_record(&p, 0x07, &r);                           /* FRAME 1 */
    r.len = 0; putv(&r, 1); putv(&r, 1); putv(&r, 1);
    raw_record(&p, 0x08, &r);                           /* STACK 1 */
    indexed_object(&p, &prev, 16000, 0, 0, 0, NULL, 0);
    indexed_object(&p, &prev, 16040, 0x40, 16000, 4, NULL, 0);
    static const uint8_t gap[] = {1, 0, 0x22};          /* [1] at 0 */
    indexed_object(&p, &prev, 16080, 0x50, 16000, 5, gap, sizeof gap);
    static const uint8_t none[] = {2, 1, 0x00, 0, 0x19}; /* none; weak "f" */
    indexed_object(&p, &prev, 16120, 0x50, 16000, 6, none, sizeof none);
    indexed_object(&p, &prev, 16160, 0x40, 0, 0, NULL, 0);
    static const uint8_t again[] = {2, 0, 0x00, 1, 0x0a}; /* [2] weak */
    indexed_object(&p, &prev, 16200, 0x50, 16000, 3, again, sizeof again);
    static const uint8_t same[] = {1, 1, 0x02};         /* [1]: inferred */
    indexed_object(&p, &prev, 16240, 0x70, 16000, 3, same, sizeof same);
    /* index - position = -2^59: zigzag 2^60 - 1, the largest value */
    buf far = {0};
    putv(&far, 1);
    putv(&far, 0);
    putv(&far, ((((uint64_t)1 << 60) - 1) << 4) | 2);
    indexed_object(&p, &prev, 16280, 0x50, 16000, 4, far.p, far.len);
    /* index 2^64 - 2 at position 0: the third is 0, modulo 2^64 */
    static const uint8_t wrap[] = {1, 0, 0x32};
    indexed_object(&p, &prev, 16320, 0x50, 16000, 4, wrap, sizeof wrap);
    one_block_dump(out, 3, &p, 12, 9, 1, 0);
    free(p.p);
    free(r.p);
    free(far.p);
}

/* Indexed records a reader must refuse (corrupt): the bit in a 1.2 file,
 * where it is reserved; bit 7 with it in a 1.3 file; a list entry past
 * the last reference, more entries than references, an entry of kind 7
 * (the rules of 6.4.1 hold in the indexed form too). */
static void make_indexed_bad(buf *out, int which)
{
    static const uint8_t past[] = {1, 3, 0x22};
    static const uint8_t over[] = {4, 0, 0x08, 0, 0x08, 0, 0x08, 0, 0x08};
    static const uint8_t kind7[] = {1, 1, 0x07};
    buf p = {0};
    uint64_t prev = 0;
    indexed_object(&p, &prev, 16000, 0, 0, 0, NULL, 0);
    const uint8_t *list = NULL;
    size_t len = 0;
    unsigned fields = 0x50;
    switch (which) {
    case 0: fields = 0x40; break;
    case 1: fields = 0xc0; break;
    case 2: list = past; len = sizeof past; break;
    case 3: list = over; len = sizeof over; break;
    default: list = kind7; len = sizeof kind7; break;
    }
    indexed_object(&p, &prev, 16040, fields, 16000, 3, list, len);
    one_block_dump(out, which == 0 ? 2 : 3, &p, 2, 2, 0, 0);
    free(p.p);
}

/* ---- round-trip operation sequences (see fuzz_roundtrip.c) ---- */

static void id64(buf *b, uint64_t id)
{
    put8(b, 1); /* pick_id: a full 64-bit id follows */
    put64(b, id);
}

static void ops_heap(buf *b)
{
    put8(b, 0); put8(b, 6); put8(b, 0); put(b, "fuzzer", 6); /* META text */
    put8(b, 1); put8(b, 3); put64(b, 4242);                  /* META uint */
    put8(b, 2); put8(b, 0x85); put(b, "\x01\x02\x03\x04\x05", 5);
    put64(b, (uint64_t)-5);                                  /* META int */
    put8(b, 3); put8(b, 8); put(b, "T_STRING", 8);          /* STRING 1 */
    put8(b, 3); put8(b, 6); put(b, "app.rb", 6);            /* STRING 2 */
    put8(b, 4); id64(b, 0x1000); put8(b, 7); put(b, "String", 6);
    id64(b, 0x2000); put8(b, 0);                             /* CLASS */
    put8(b, 5); id64(b, 0x7f0000000028ull); put8(b, 1); id64(b, 0x1000);
    put8(b, 1); put8(b, 0x0f); put8(b, 10);                  /* size 80 */
    put64(b, 1); put8(b, 2); put(b, "hi", 2); put8(b, 2); put32(b, 12);
    put32(b, 3); put8(b, 2); id64(b, 0x1000); put8(b, 0x02); put8(b, 0x10);
    put8(b, 5); id64(b, 0x7f0000000050ull); put8(b, 1); id64(b, 0x3000);
    put8(b, 0); put8(b, 0); put8(b, 0x0a); put8(b, 0);      /* anon class */
    put8(b, 7);                                              /* flush */
    put8(b, 6); put8(b, 1); put8(b, 201); put8(b, 20); id64(b, 1 << 20);
    put16(b, 40);                                            /* ROOT, 70 refs */
    put8(b, 8); put8(b, 40); put8(b, 1); id64(b, 0x1000); id64(b, 0x8000);
    put16(b, 5); put8(b, 5);                                 /* 41 objects */
    put8(b, 4); id64(b, 0x3000); put8(b, 5); put(b, "Hash", 4);
    put8(b, 0); put8(b, 1);                                  /* name it */
}

/* Format 1.1 operations, after ops_heap (strings 1-4 defined): frames,
 * stacks (a deep one, last: see RT_BUDGET in fuzz_roundtrip.c), objects
 * with labels and stacks, labeled roots. */
static void ops_11(buf *b)
{
    put8(b, 3); put8(b, 5); put(b, "@name", 5);            /* STRING 5 */
    put8(b, 10); put8(b, 0x1f); put8(b, 1); put8(b, 2);     /* FRAME 1 */
    put64(b, 0x7f0000001234ull); put8(b, 2); put64(b, 42);
    put8(b, 10); put8(b, 0); put8(b, 0x40); put8(b, 0);     /* FRAME 2 */
    put8(b, 11); put8(b, 2); put8(b, 1); put8(b, 2);        /* STACK 1 */
    put8(b, 10); put8(b, 0x1f); put8(b, 1); put8(b, 2);     /* FRAME 1 */
    put64(b, 0x7f0000001234ull); put8(b, 2); put64(b, 42);  /* (again) */
    /* OBJECT: FLAGS|LABELS|STACK, 3 refs: FIELD, KEY weak, INDEX */
    put8(b, 5); id64(b, 0x7f0000000100ull); put8(b, 1); id64(b, 0x1000);
    put8(b, 1); put8(b, 0x31); put8(b, 10); put64(b, 1); put8(b, 1);
    put8(b, 3); put8(b, 5 << 2); put8(b, 6 << 2); put8(b, 7 << 2);
    put8(b, 4); put8(b, 1); put8(b, 5); put8(b, 0x0b); put8(b, 3);
    put8(b, 2); put8(b, 0);
    /* OBJECT: LABELS|STACK, 5 refs, all INDEX some weak; stack 1 */
    put8(b, 5); id64(b, 0x7f0000000200ull); put8(b, 0); put8(b, 1);
    put8(b, 0x30); put8(b, 10); put8(b, 1);
    put8(b, 5); for (int i = 0; i < 5; i++) put8(b, (unsigned)(8 + i) << 2);
    put8(b, 2 | (2 << 3));
    /* OBJECT: LABELS, 4 refs, all NONE (nothing written) */
    put8(b, 5); id64(b, 0x7f0000000300ull); put8(b, 0); put8(b, 1);
    put8(b, 0x10); put8(b, 10); put8(b, 4);
    for (int i = 0; i < 4; i++) put8(b, (unsigned)i << 2);
    put8(b, 1);
    /* ROOT with labels: CONSTANT, GLOBAL weak, NONE weak */
    put8(b, 12); put8(b, 3); put8(b, 3); put8(b, 1 << 2); put8(b, 2 << 2);
    put8(b, 3 << 2); put8(b, 4); put8(b, 4); put8(b, 5); put8(b, 0x0d);
    put8(b, 4); put8(b, 0x08); put8(b, 1);
    /* ROOT with labels NULL: unlabeled */
    put8(b, 12); put8(b, 3); put8(b, 1); put8(b, 1 << 2); put8(b, 0);
    /* STACK 2, 200 frames: last, for it alone passes the harness's
     * volume budget, after which no operation is made */
    put8(b, 11); put8(b, 0xf0); put8(b, 199); put8(b, 0);
    put8(b, 1);
}

/* Format 1.3 operations, on their own (after ops_heap, the budget
 * would leave no room): a string, a class, a frame and a stack, then
 * indexed objects (fields bit 6) without a list, with an array's gaps,
 * entries of kind 0, weak and named ones, every label inferred (no list
 * written), no references (no bit written), bit 7 with it (refused), a
 * stack and a list, and last a big array of 2,000 elements. */
static void ops_13(buf *b)
{
    put8(b, 3); put8(b, 5); put(b, "@name", 5);            /* STRING 1 */
    put8(b, 4); id64(b, 0x1000); put8(b, 6); put(b, "Array", 5);
    id64(b, 0); put8(b, 0);                                /* CLASS */
    put8(b, 10); put8(b, 0x01); put8(b, 1); put8(b, 0x10);
    put8(b, 0);                                            /* FRAME 1 */
    put8(b, 11); put8(b, 1); put8(b, 1);                   /* STACK 1 */
    /* in element order: no label written */
    put8(b, 5); id64(b, 0x7f0000000400ull); put8(b, 1); id64(b, 0x1000);
    put8(b, 0); put8(b, 0x40); put8(b, 10);
    put8(b, 6); for (int i = 0; i < 6; i++) put8(b, (unsigned)(16 + i) << 2);
    /* gaps every 3 elements, every fifth weak (labels pattern 7) */
    put8(b, 5); id64(b, 0x7f0000000500ull); put8(b, 0); put8(b, 0);
    put8(b, 0x50); put8(b, 10);
    put8(b, 15); for (int i = 0; i < 15; i++) put8(b, (unsigned)i << 2);
    put8(b, 7 | 2 << 3 | 3 << 6); put8(b, 1); put8(b, 1);
    /* a gap before each element, every seventh without a label */
    put8(b, 5); id64(b, 0x7f0000000600ull); put8(b, 0); put8(b, 0);
    put8(b, 0x50); put8(b, 10);
    put8(b, 10); for (int i = 0; i < 10; i++) put8(b, (unsigned)i << 2);
    put8(b, 7 | 2 << 6); put8(b, 0); put8(b, 0);
    /* from the input: [0] inferred, none, [5] weak, field "@name" */
    put8(b, 5); id64(b, 0x7f0000000700ull); put8(b, 0); put8(b, 0);
    put8(b, 0x50); put8(b, 10);
    put8(b, 4); for (int i = 0; i < 4; i++) put8(b, (unsigned)(20 + i) << 2);
    put8(b, 5);
    put8(b, 2); put8(b, 0);
    put8(b, 0); put8(b, 0);
    put8(b, 9); put8(b, 1); put8(b, 3); /* kind 9 % 7, weak */
    put8(b, 1); put8(b, 1);
    /* every label inferred: no list is written */
    put8(b, 5); id64(b, 0x7f0000000800ull); put8(b, 0); put8(b, 0);
    put8(b, 0x50); put8(b, 10);
    put8(b, 5); for (int i = 0; i < 5; i++) put8(b, (unsigned)i << 2);
    put8(b, 2);
    /* no references: the bit is dropped */
    put8(b, 5); id64(b, 0x7f0000000900ull); put8(b, 0); put8(b, 0);
    put8(b, 0x40); put8(b, 10); put8(b, 0);
    /* bit 7 with bit 6: HEAPFMT_E_ARG */
    put8(b, 5); id64(b, 0x7f0000000a00ull); put8(b, 0); put8(b, 0);
    put8(b, 0xc0); put8(b, 10); put8(b, 0);
    /* a stack, then a list with a weak element */
    put8(b, 5); id64(b, 0x7f0000000b00ull); put8(b, 0); put8(b, 0);
    put8(b, 0x70); put8(b, 10); put8(b, 1);
    put8(b, 3); for (int i = 0; i < 3; i++) put8(b, (unsigned)i << 2);
    put8(b, 2 | 2 << 3);
    /* OP_BIG, indexed: 2,000 elements in order, no value */
    put8(b, 9); id64(b, 0x7f0000100000ull); put8(b, 2); put16(b, 0);
    put16(b, 2000); id64(b, 0x7f0000000028ull); put16(b, 40); put16(b, 0);
}

static void make_ops(const char *name, const uint8_t *cfg, size_t ncfg,
                     int big)
{
    buf b = {0};
    put(&b, cfg, ncfg);
    if (big == -2) {
        ops_13(&b);
        big = 0;
    } else {
        ops_heap(&b);
    }
    if (big < 0) {
        ops_11(&b);
        big = 0;
    }
    if (big) { /* OP_BIG: 6 KiB value, 300 refs */
        put8(&b, 9); put8(&b, 1); id64(&b, 0x1000); put16(&b, 192);
        put16(&b, 300); id64(&b, 0x7f00000000ull); put16(&b, 40);
        put16(&b, 0x1ff);
    }
    save("fuzz_roundtrip", name, b.p, b.len);
    free(b.p);
}

/* ---- import inputs ---- */

static int slurp(const char *path, buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t t[4096];
    size_t n;
    b->len = 0;
    while ((n = fread(t, 1, sizeof t, f)) > 0)
        put(b, t, n);
    fclose(f);
    return 0;
}

static void gzip(const buf *in, buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        die("zlib");
    out->len = 0;
    uint8_t t[4096];
    z.next_in = in->p;
    z.avail_in = (uInt)in->len;
    int zr;
    do {
        z.next_out = t;
        z.avail_out = sizeof t;
        zr = deflate(&z, Z_FINISH);
        put(out, t, sizeof t - z.avail_out);
    } while (zr == Z_OK);
    deflateEnd(&z);
}

static void import_seeds(const char *dir)
{
    static const char *const files[] = {"ruby21.json", "ruby27.json",
                                        "ruby31.json", "ruby33.json",
                                        "malformed.json", "truncated.json"};
    buf b = {0}, z = {0};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (slurp(path, &b) != 0)
            die("cannot read an import fixture");
        save("fuzz_import", files[i], b.p, b.len);
        if (i == 1) {
            gzip(&b, &z);
            save("fuzz_import", "ruby27.json.gz", z.p, z.len);
        }
    }
    /* Android's HPROF, as ART writes it and as hprof-conv converts it
     * (tests/test_import_android.c writes both) */
    static const char *const android[][2] = {
        {"android.hprof", "hprof-android-mini"},
        {"android-conv.hprof", "hprof-android-mini-conv"}};
    for (size_t i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, android[i][0]);
        if (slurp(path, &b) != 0)
            die("cannot read an import fixture");
        save("fuzz_import", android[i][1], b.p, b.len);
    }
    static const char tiny[] =
        "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x10\"]}\n"
        "{\"address\":\"0x10\", \"type\":\"CLASS\", \"class\":\"0x20\", "
        "\"name\":\"Foo\", \"references\":[\"0x10\"], \"memsize\":40}\n"
        "{\"address\":\"0x30\", \"type\":\"STRING\", \"class\":\"0x10\", "
        "\"value\":\"a\\u0000\\\"b\", \"file\":\"x.rb\", \"line\":3, "
        "\"generation\":4, \"flags\":{\"old\":true}}\n";
    save("fuzz_import", "tiny.json", tiny, sizeof tiny - 1);
    free(b.p);
    free(z.p);
}

/* Format 1.2: a trace of two threads' allocation events and the
 * recorder's marks, records of up to 300 events, flushed now and then. */
static void make_trace(buf *out, int level, uint32_t block_size)
{
    out->len = 0;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = block_size;
    heapfmt_writer *w;
    ok(heapfmt_writer_open(&w, &opt, sink, out));
    ok(heapfmt_write_meta_text(w, "malloc.mode", "record"));
    uint64_t seq = 0, t = 0, live[2][32];
    size_t nlive[2] = {0, 0};
    uint32_t rng = 12345;
    for (int k = 0; k < 24; k++) {
        int th = k % 3; /* 0: marks */
        heapfmt_event ev[300];
        size_t n = th == 0 ? 1 : 20 + (size_t)k * 11;
        for (size_t i = 0; i < n; i++) {
            rng = rng * 1103515245u + 12345u;
            heapfmt_event e = {0};
            e.seq = ++seq + (rng >> 28 == 0 ? 3 : 0);
            seq = e.seq;
            t += (rng >> 24) % 3 == 0 ? (rng >> 16) % 5000 : 0;
            e.time_us = t;
            if (th == 0) {
                e.op = HEAPFMT_EV_MARK;
                e.rss = 4096u * (k + 1);
                e.peak = e.rss + 4096;
                e.own = 8192;
            } else if (nlive[th - 1] > 0 && (rng >> 20) % 3 == 0) {
                size_t j = (rng >> 8) % nlive[th - 1];
                e.op = (rng >> 4) % 4 == 0 ? HEAPFMT_EV_REALLOC : HEAPFMT_EV_FREE;
                e.block = live[th - 1][j];
                e.size = (rng >> 12) % 3000;
                live[th - 1][j] = live[th - 1][--nlive[th - 1]];
                if (e.op == HEAPFMT_EV_REALLOC)
                    live[th - 1][nlive[th - 1]++] = e.seq;
            } else {
                e.op = (rng >> 12) % (HEAPFMT_EV_LAST_ALLOC + 1);
                if (e.op == HEAPFMT_EV_REALLOC || e.op == HEAPFMT_EV_REALLOCARRAY)
                    e.block = 0;
                e.size = (rng >> 8) % 9000;
                e.align = 64;
                if (nlive[th - 1] < 32)
                    live[th - 1][nlive[th - 1]++] = e.seq;
            }
            ev[i] = e;
        }
        ok(heapfmt_write_events(w, (uint32_t)th, ev, n));
        if (k % 7 == 6)
            ok(heapfmt_writer_flush(w));
    }
    ok(heapfmt_write_meta_uint(w, "trace.events", seq));
    ok(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
}

/* ---- main ---- */

static void read_and_stream(const char *name, const buf *d)
{
    save("fuzz_read", name, d->p, d->len);
}

/* ---- the malloc tracker's host events (fuzz/fuzz_malloc_host.c) ---- */

enum { EV_PIPE, EV_FILE, EV_CLOSE_OWN, EV_CLOSE_ANY, EV_CLOSE_ALL, EV_DUP2,
       EV_WRITE, EV_T_OPEN, EV_T_WRITE, EV_T_CLOSE, EV_POST, EV_RAISE,
       EV_TICK, EV_WAIT };

/* mode byte, signal name and its NUL, then (event, argument) pairs */
static void host_seed(const char *name, unsigned mode, const char *sig,
                      const uint8_t *events, size_t n)
{
    buf b = {0};
    put8(&b, mode);
    put(&b, sig, strlen(sig) + 1);
    put(&b, events, n);
    save("fuzz_malloc_host", name, b.p, b.len);
    free(b.p);
}

static void malloc_host_seeds(void)
{
    static const uint8_t daemon[] = {
        EV_T_OPEN, 0, EV_T_WRITE, 5, EV_PIPE, 0, EV_WRITE, 1,
        EV_CLOSE_ALL, 0, EV_PIPE, 0, EV_PIPE, 0, EV_WRITE, 3,
        EV_T_WRITE, 7, EV_WRITE, 4, EV_T_CLOSE, 0};
    static const uint8_t dup[] = {
        EV_T_OPEN, 0, EV_PIPE, 0, EV_FILE, 0, EV_WRITE, 2, EV_DUP2, 0,
        EV_DUP2, 1, EV_DUP2, 2, EV_T_WRITE, 3, EV_WRITE, 5, EV_T_CLOSE, 0};
    static const uint8_t reuse[] = {
        EV_T_OPEN, 0, EV_CLOSE_ANY, 0, EV_PIPE, 0, EV_T_WRITE, 1,
        EV_WRITE, 0, EV_T_CLOSE, 0, EV_T_OPEN, 0, EV_T_WRITE, 2,
        EV_T_CLOSE, 0};
    static const uint8_t sched[] = {
        EV_POST, 0, EV_TICK, 1, EV_RAISE, 0, EV_RAISE, 0, EV_WAIT, 0,
        EV_TICK, 4, EV_TICK, 9, EV_POST, 0, EV_WAIT, 0, EV_TICK, 0,
        EV_TICK, 31};
    static const uint8_t tick[] = {EV_TICK, 1};
    static const uint8_t post[] = {EV_POST, 0, EV_TICK, 0};
    host_seed("daemon-shared.bin", 0, "RTMIN+7", daemon, sizeof daemon);
    host_seed("daemon-private.bin", 1, "USR1", daemon, sizeof daemon);
    host_seed("dup2-shared.bin", 0, "SEGV", dup, sizeof dup);
    host_seed("dup2-private.bin", 1, "11", dup, sizeof dup);
    host_seed("reuse-shared.bin", 0, "TERM", reuse, sizeof reuse);
    host_seed("reuse-private.bin", 1, "RTMAX-2", reuse, sizeof reuse);
    host_seed("schedule-interval-3.bin", 1 | 3 << 1, "SIGUSR2", sched, sizeof sched);
    host_seed("schedule-none.bin", 0, "none", sched, sizeof sched);
    host_seed("signal-numbers.bin", 0, "32", tick, sizeof tick);
    host_seed("signal-bus.bin", 0, "sigbus", post, sizeof post);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: mkcorpus OUTDIR [IMPORT_FIXTURES_DIR]\n");
        return 2;
    }
    outdir = argv[1];
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
        die("cannot create OUTDIR");

    buf d = {0}, s = {0};
    make_dump(&d, 0, 0, -1, 0);
    read_and_stream("empty-dump.hfd", &d);
    make_dump(&d, 0, 0, 3, 0);
    read_and_stream("small-stored.hfd", &d);
    make_dump(&d, 1, HEAPFMT_MIN_BLOCK_SIZE, 60, 3);
    read_and_stream("blocks-deflate.hfd", &d);
    buf blocks = {0};
    put(&blocks, d.p, d.len);
    make_dump(&d, 9, HEAPFMT_MIN_BLOCK_SIZE, 30, 0);
    read_and_stream("level9.hfd", &d);
    make_dump(&d, 0, HEAPFMT_MIN_BLOCK_SIZE, 40, 2);
    read_and_stream("blocks-stored.hfd", &d);
    buf stored = {0};
    put(&stored, d.p, d.len);
    make_big(&d);
    read_and_stream("record-over-block.hfd", &d);
    make_odd(&d, 0);
    read_and_stream("unknown-tags-and-kind.hfd", &d);
    buf odd = {0};
    put(&odd, d.p, d.len);
    make_odd(&d, 7);
    read_and_stream("newer-minor.hfd", &d);
    make_odd(&d, 1);
    read_and_stream("unknown-tags-1.1.hfd", &d);

    /* format 1.1: Zstandard, labels and stacks */
    make_dump_codec(&d, HEAPFMT_CODEC_ZSTD, 1, HEAPFMT_MIN_BLOCK_SIZE, 60, 3,
                    0);
    read_and_stream("blocks-zstd.hfd", &d);
    buf zstd = {0};
    put(&zstd, d.p, d.len);
    make_dump_codec(&d, HEAPFMT_CODEC_ZSTD, HEAPFMT_ZSTD_MAX_LEVEL, 0, 5, 0,
                    0);
    read_and_stream("zstd-level19.hfd", &d);
    make_dump_codec(&d, HEAPFMT_CODEC_STORED, 0, HEAPFMT_MIN_BLOCK_SIZE, 3, 0,
                    12);
    read_and_stream("labels-stacks-stored.hfd", &d);
    buf lstored = {0};
    put(&lstored, d.p, d.len);
    make_dump_codec(&d, HEAPFMT_CODEC_ZSTD, 3, HEAPFMT_MIN_BLOCK_SIZE, 3, 1,
                    12);
    read_and_stream("labels-stacks-zstd.hfd", &d);
    buf lzstd = {0};
    put(&lzstd, d.p, d.len);
    make_dump_codec(&d, HEAPFMT_CODEC_DEFLATE, 1, 0, 0, 0, 6);
    read_and_stream("labels-stacks-deflate.hfd", &d);
    make_after_use(&d);
    read_and_stream("stack-frame-after-use.hfd", &d);
    buf after = {0};
    put(&after, d.p, d.len);
    /* a codec of a later version (3): HEAPFMT_E_UNSUPPORTED */
    d.len = 0;
    put(&d, lstored.p, lstored.len);
    d.p[16 + 1] = 3;
    {
        uint32_t hc = crc(d.p + 16, 16);
        memcpy(d.p + 16 + 16, &hc, 4); /* little-endian hosts */
    }
    save("fuzz_read", "codec-from-the-future.hfd", d.p, d.len);
    save("fuzz_read", "labels-stacks-zstd-cut.hfd", lzstd.p,
         lzstd.len * 2 / 3);

    /* format 1.3: indexed records, and the ones a reader must refuse */
    make_indexed(&d);
    read_and_stream("indexed-1.3.hfd", &d);
    buf indexed = {0};
    put(&indexed, d.p, d.len);
    static const char *const bad_indexed[] = {
        "indexed-in-1.2.hfd", "indexed-bit-7.hfd",
        "indexed-label-past-refs.hfd", "indexed-labels-over-refs.hfd",
        "indexed-label-kind-7.hfd"};
    for (int i = 0; i < 5; i++) {
        make_indexed_bad(&d, i);
        read_and_stream(bad_indexed[i], &d);
    }

    /* format 1.2: allocation traces */
    make_trace(&d, 0, HEAPFMT_MIN_BLOCK_SIZE);
    read_and_stream("trace-stored.hfd", &d);
    make_trace(&d, 3, 0);
    read_and_stream("trace-zstd.hfd", &d);
    save("fuzz_read", "trace-zstd-cut.hfd", d.p, d.len * 3 / 4);
    s.len = 0; /* fuzz_stream: one byte at a time */
    put8(&s, 0x01);
    put8(&s, 0x00);
    put(&s, d.p, d.len);
    save("fuzz_stream", "trace-one-byte.bin", s.p, s.len);

    /* damaged copies */
    save("fuzz_read", "cut-in-block.hfd", blocks.p, blocks.len / 2);
    save("fuzz_read", "cut-before-trailer.hfd", blocks.p, blocks.len - 24);
    d.len = 0;
    put(&d, stored.p, stored.len);
    d.p[16 + 20 + 40] ^= 0x40; /* a payload byte of the first block */
    save("fuzz_read", "first-block-crc.hfd", d.p, d.len);

    /* the streaming harness: control byte, chunk pattern, dump */
    const struct {
        const char *name;
        uint8_t ctl[8];
        size_t n;
        const buf *dump;
    } st[] = {
        {"whole.bin", {0x00}, 1, &blocks},
        {"one-byte.bin", {0x01, 0x00}, 2, &stored},
        {"pattern.bin", {0x04, 0x13, 0x85, 0x7f, 0x02}, 5, &blocks},
        {"eintr.bin", {0x02, 0x80, 0xc3}, 3, &odd},
        {"read-fails.bin", {0x11, 0x06, 0x0b}, 3, &blocks},
        {"table-limit.bin", {0x20, 0x00}, 2, &stored},
        {"zstd-pattern.bin", {0x03, 0x05, 0x91, 0x7f}, 4, &zstd},
        {"labels-stacks-one-byte.bin", {0x01, 0x00}, 2, &lzstd},
        {"after-use-eintr.bin", {0x02, 0x80, 0x03}, 3, &after},
        {"labels-stacks-table-limit.bin", {0x20, 0x00}, 2, &lstored},
        {"indexed-one-byte.bin", {0x01, 0x00}, 2, &indexed},
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        s.len = 0;
        put(&s, st[i].ctl, st[i].n);
        put(&s, st[i].dump->p, st[i].dump->len);
        save("fuzz_stream", st[i].name, s.p, s.len);
    }
    s.len = 0;
    put(&s, "\x01\x00", 2);
    put(&s, blocks.p, blocks.len * 2 / 3);
    save("fuzz_stream", "one-byte-cut.bin", s.p, s.len);

    /* round trip: codec and level, block size, faults [, their bytes]
     * (byte 0: (byte / 10) % 3 picks zstd, deflate, stored) */
    make_ops("clean-stored.ops", (const uint8_t *)"\x14\x01\x00", 3, 0);
    make_ops("clean-deflate.ops", (const uint8_t *)"\x0b\x01\x00", 3, 1);
    make_ops("clean-zstd.ops", (const uint8_t *)"\x01\x01\x00", 3, 1);
    make_ops("level9-default-blocks.ops", (const uint8_t *)"\x13\x00\x00", 3,
             1);
    make_ops("zstd-level19.ops", (const uint8_t *)"\x27\x01\x00", 3, 1);
    make_ops("labels-stacks-zstd.ops", (const uint8_t *)"\x01\x01\x00", 3,
             -1);
    make_ops("labels-stacks-stored.ops", (const uint8_t *)"\x14\x01\x00", 3,
             -1);
    make_ops("labels-stacks-deflate-thread.ops",
             (const uint8_t *)"\x0b\x01\x10", 3, -1);
    make_ops("indexed-zstd.ops", (const uint8_t *)"\x01\x01\x00", 3, -2);
    make_ops("indexed-stored-short-writes.ops",
             (const uint8_t *)"\x14\x01\x01\x05", 4, -2);
    make_ops("indexed-alloc-fails.ops",
             (const uint8_t *)"\x01\x01\x08\x30\x00", 5, -2);
    make_ops("zstd-thread-alloc-fails.ops",
             (const uint8_t *)"\x02\x01\x18\x09\x00", 5, -1);
    make_ops("short-writes-eintr.ops",
             (const uint8_t *)"\x01\x01\x03\x06\x02", 5, 0);
    make_ops("write-fails.ops", (const uint8_t *)"\x01\x01\x04\x07\x00", 5,
             0);
    make_ops("write-fails-once-zero.ops",
             (const uint8_t *)"\x00\x01\x64\x03\x00", 5, 0);
    make_ops("alloc-fails.ops", (const uint8_t *)"\x01\x01\x08\x05\x00", 5,
             1);
    make_ops("bad-options.ops", (const uint8_t *)"\xff\x01\x00\x01", 4, 0);

    malloc_host_seeds();
    if (argc == 3)
        import_seeds(argv[2]);
    free(d.p);
    free(s.p);
    free(blocks.p);
    free(stored.p);
    free(odd.p);
    free(zstd.p);
    free(lstored.p);
    free(lzstd.p);
    free(after.p);
    free(indexed.p);
    return 0;
}
