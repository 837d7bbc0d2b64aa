/*
 * mkhostile.c -- dumps that are valid by every checksum and hostile by
 * meaning, written from the spec with tests/support's independent encoder
 * (traw), for tests/cli/hostile.sh to run every tool on under a memory
 * limit and a timeout.
 *
 * Usage: mkhostile DIR
 * Writes into DIR (stored blocks, so that a file's size is its decoded
 * size, the base of the output bounds):
 *   huge-class-index.hfd    a class at index 2^32-1, with an object of it
 *   undefined-index.hfd     objects of class 2^31 and type string 2^32-1,
 *                           never defined
 *   long-root-kind.hfd      a root whose 64 KiB kind holds 2,000 objects:
 *                           edge documents must not repeat it whole
 *   long-class-name.hfd     2,000 objects of a class with a 64 KiB name,
 *                           without a footer (names come from the blocks)
 *   duplicate-ids.hfd       three objects with one id, and references to it
 *   duplicate-ids-two.hfd   two ids repeated, the higher (three times) met
 *                           first, the lower twice, out of order
 *   index-skips-block.hfd   a footer whose block index leaves a block out
 *   index-skips-empty-block.hfd  the same, the block left out holding no
 *                           object (the footer's totals agree otherwise)
 *   index-repeats-block.hfd a footer whose block index lists a block twice
 *   summary-disagrees.hfd   a footer whose per-class counts are wrong
 *   claims-many-refs.hfd    an object that claims 2^40 references and has
 *                           none
 *   stacks-undefined.hfd    call stacks (1.1) at their limits: a frame whose
 *                           function string and a stack whose frame were
 *                           never defined, an object of a stack never
 *                           defined, a stack of HEAPFMT_MAX_FRAMES frames,
 *                           a function name holding ';' and a newline
 * Dumps of several intact blocks whose END, footer or definitions lie, the
 * one-thread reader's checks as cases for histo --scan -jN (issue 31):
 *   string-twice.hfd        a STRING id defined in the first and the third
 *                           block
 *   frame-twice.hfd         a FRAME id (1.1) defined in two blocks
 *   stack-twice.hfd         a STACK id (1.1) defined in two blocks
 *   end-lies.hfd            END counts one object more than the blocks hold
 *                           (the footer tells the truth)
 *   no-end.hfd              no END record
 *   totals-bytes-lie.hfd    the footer's totals say 40 bytes more
 *   totals-raw-lie.hfd      the footer's decoded bytes are one more
 *   totals-codecs-lie.hfd   the footer says a block is Zstandard
 *   early-footer-block.hfd  a footer-kind block of junk before the footer
 * Hash flooding (issue 31): keys chosen against the unseeded hash
 * functions the tools had, each set in one slot (with a seed, any set costs
 * what random keys cost):
 *   colliding-ids.hfd       160k objects whose ids i * K^-1 all took slot 0
 *                           of heapfmt-graph's id index and (under a larger
 *                           first id) heapfmt-export -f mongo's id hash;
 *                           each references the first object
 *   colliding-lines.hfd     160k objects of one class and file whose lines
 *                           all had one hash in heapfmt-diff's and
 *                           heapfmt-graph's kind table (tuples.c)
 * Output and memory amplification (issue 31): a few long texts that every
 * row, page or document repeats:
 *   huge-names.hfd          2,000 objects of a class, type and file named
 *                           by 256 KiB texts, each at its own line, with a
 *                           stack of 64 frames whose function is a 256 KiB
 *                           text, referencing the object before it under a
 *                           label named by a 256 KiB text; a root of the
 *                           same kind of name holds the first three
 *                           quarters (the last quarter is leaked):
 *                           stored, 1.9 MB
 *   cut-control-names.hfd   the same with names of 300
 *                           control bytes (the longest escapes: \x01 in
 *                           text, \u0001 in JSON): the most bytes of cut
 *                           names per byte of dump
 *   many-refs.hfd           an object holding another 100k times under a
 *                           label, and a root holding it 100k times, the
 *                           label and the kind 256 control bytes: the most
 *                           edges per byte, each with the longest text
 *   many-indexed.hfd        an array (1.3, indexed) holding one object
 *                           20,000 times, its indexes 20 digits, in a dump
 *                           whose host and release (the identity a row
 *                           repeats) are 255 control bytes: the most
 *                           edge output per byte
 *   indexed-max-refs.hfd    an indexed array (1.3) of 2^24 references,
 *                           the most a record holds, a byte each and
 *                           every one labeled: 16 MiB of dump, 512 MiB of
 *                           labels and ids for a reader that gives them
 *   deep-chain.hfd          200,000 objects, each holding the next, one
 *                           root at the head: heapfmt-graph path walks
 *                           every hop
 * Two writers of one file:
 *   interleaved.hfd         two dumps written to one file at once, as two
 *                           writers opening one path with O_TRUNC did
 *                           (issue 31): their write calls applied by turns,
 *                           the longer dump's footer and trailer intact at
 *                           the end, its blocks mostly overwritten (stored
 *                           blocks of equal sizes, whose headers line up)
 *   interleaved-zstd.hfd    the same with compressed blocks
 * and one dump per MUST of the spec that a reader finds only in the
 * meaning of records (issue 31; tests/cli/verdicts.sh):
 *   must-label-kind-7.hfd         a label of the reserved kind 7
 *   must-label-past-refs.hfd      a label placed past the last reference
 *   must-labels-over-refs.hfd     more labels than references
 *   must-label-string-undefined.hfd  a field label naming a string never
 *                                 defined, on an object and on a root
 *   must-indexed-label-kind-7.hfd, must-indexed-label-past-refs.hfd,
 *   must-indexed-labels-over-refs.hfd  the same three in an indexed
 *                                 record (1.3)
 *   must-indexed-in-1.2.hfd       the indexed bit in a 1.2 file (reserved)
 *   must-indexed-bit-7.hfd        bit 7 with the indexed bit (1.3)
 *   must-indexed-refs-over-limit.hfd  an indexed record of 2^24 + 1
 *                                 references (one present)
 *   must-indexed-undefined.hfd    an indexed record of a stack and with a
 *                                 label string never defined
 *   must-stack-undefined.hfd      an object of a stack never defined
 *   must-frame-undefined.hfd      a stack of a frame never defined
 *   must-class-after-use.hfd      an object of a class defined after it
 *   must-string-after-use.hfd     an object whose type string is defined
 *                                 after it
 *   must-object-flags-reserved.hfd  object flag bit 5 set (readers keep and
 *                                 ignore it, spec 6.4; --verify rejects it)
 *   must-varint-long.hfd          an OBJECT whose size is 40 in two bytes
 *   must-lifespan-stack-undefined.hfd  a lifespan (1.2) of a stack never
 *                                 defined
 *   must-lifespan-frees.hfd       a lifespan with more frees than
 *                                 allocations (readers show it; --verify
 *                                 rejects it)
 *   must-events-order.hfd         a thread's second EVENTS record (1.2)
 *                                 starting before its first one ended
 *                                 (heapfmt-replay drops it, counted;
 *                                 --verify rejects it)
 * Exits 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tio.h"
#include "traw.h"

#define KIND_LEN (64u << 10)
#define MANY 2000u

static const char *dir;

static void save_bytes(const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void save(traw *d, const char *name, size_t cut)
{
    save_bytes(name, d->out.data, d->out.len - cut);
    traw_free(d);
}

static void begin_minor(traw *d, unsigned minor)
{
    traw_begin(d, 1, minor, 0, 0);
    traw_meta_text(d, "vm.name", "hostile");
    traw_string(d, 1, "T_OBJECT");
    traw_string(d, 2, "Thing");
    traw_class(d, 1, 0x1000, 2, 0, 0);
}

static void begin(traw *d)
{
    begin_minor(d, 1);
}

static void object(traw *d, uint64_t id, uint64_t klass, uint32_t type,
                   const uint64_t *refs, size_t n)
{
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = id;
    o.class_id = klass; /* an index, for traw */
    o.type = type;
    o.size = 40;
    o.refs = refs;
    o.nrefs = n;
    traw_object(d, &o);
}

/* An object of class 1 and type 1 allocated at stack (0: no stack). */
static void object_at(traw *d, uint64_t id, uint32_t stack)
{
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = id;
    o.class_id = 1;
    o.type = 1;
    o.size = 40;
    o.fields = stack ? HEAPFMT_F_STACK : 0;
    o.stack = stack;
    traw_object(d, &o);
}

static char *long_text(char fill)
{
    char *s = malloc(KIND_LEN + 1);
    if (s == NULL)
        exit(1);
    memset(s, fill, KIND_LEN);
    s[KIND_LEN] = '\0';
    return s;
}

/* Three data blocks of objects, for the block index cases. */
static void three_blocks(traw *d)
{
    begin(d);
    for (uint64_t b = 0; b < 3; b++) {
        for (uint64_t i = 0; i < 10; i++)
            object(d, 0x10000 + 0x1000 * b + 40 * i, 1, 1, NULL, 0);
        traw_flush(d);
    }
}

/* Four blocks of objects of a class and a type named in the first, with
 * a call stack (1.1) from the first; the third block defines again what
 * twice names ('s' a string, 'f' a frame, 'k' a stack), or nothing. */
static void defined_twice(traw *d, char twice)
{
    traw_begin(d, 1, 1, 0, 0);
    traw_string(d, 1, "T_OBJECT");
    traw_string(d, 2, "Thing");
    traw_string(d, 3, "main");
    traw_class(d, 1, 0x1000, 2, 0, 0);
    traw_frame(d, 1, 3, 0, 0x10, 0, 0);
    uint32_t frames[] = {1};
    traw_stack(d, 1, frames, 1);
    for (uint64_t b = 0; b < 4; b++) {
        if (b == 2 && twice == 's')
            traw_string(d, 3, "again");
        if (b == 2 && twice == 'f')
            traw_frame(d, 1, 3, 0, 0x20, 0, 0);
        if (b == 2 && twice == 'k')
            traw_stack(d, 1, frames, 1);
        for (uint64_t i = 0; i < 10; i++)
            object_at(d, 0x10000 + 0x1000 * b + 40 * i, 1);
        traw_flush(d);
    }
}

#define FLOOD 160000u /* keys of the flooding cases: 13 s each before */
#define FLOOD_BLOCK 16384u

static void colliding_ids(traw *d)
{
    begin(d);
    traw_string(d, 3, "vm");
    uint64_t first = UINT64_MAX - 1;
    object(d, first, 1, 1, NULL, 0);
    for (uint64_t i = 1; i < FLOOD; i++) {
        object(d, tfib_collider(i), 1, 1, &first, 1);
        if (i % FLOOD_BLOCK == 0)
            traw_flush(d);
    }
    traw_root(d, 3, &first, 1);
    traw_finish(d);
}

/* The kind of an object of class slot 1, no type (slot 0), file slot 3
 * (the string 3 after begin's 1 and 2; file part 4) and line L hashed
 * (heapfmt-graph's and heapfmt-diff --by=site's) to
 * mix(mix(h2 ^ L) ^ 0) >> 32, h2 the hash of the parts before the line:
 * the lines below make it 0 for every object. */
static void colliding_lines(traw *d)
{
    begin(d);
    traw_string(d, 3, "app/models/flood.rb");
    uint64_t h2 =
        tsplitmix_mix(tsplitmix_mix((1ull << 32) + 0x9e3779b97f4a7c15ull) ^ 4);
    for (uint64_t i = 0; i < FLOOD; i++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = 0x10000 + 40 * i;
        o.class_id = 1;
        o.size = 40;
        o.fields = HEAPFMT_F_SITE;
        o.file = 3;
        o.line = tsplitmix_unmix(tsplitmix_unmix(i + 1)) ^ h2;
        traw_object(d, &o);
        if ((i + 1) % FLOOD_BLOCK == 0)
            traw_flush(d);
    }
    traw_finish(d);
}

#define HUGE_NAME (256u << 10)
#define HUGE_OBJECTS 2000u
#define CUT_NAME 300u /* past the tools' cut: 256 bytes are shown */
#define CUT_OBJECTS 2000u

/* fills: the bytes of the class, type, file, function, label and root
 * kind names, of len bytes each; "\1": control bytes, whose escapes are
 * longest. n objects. */
static void huge_names(traw *d, const char *fills, size_t len, uint64_t n)
{
    char *text = malloc(len + 1);
    if (text == NULL)
        exit(1);
    begin(d);
    for (uint32_t i = 0; i < 6; i++) {
        memset(text, fills[i % strlen(fills)], len);
        text[len] = '\0';
        traw_string(d, 10 + i, text);
    }
    free(text);
    traw_class(d, 2, 0x2000, 10, 0, 0);
    traw_frame(d, 1, 13, 0, 0x10, 12, 7);
    uint32_t frames[64];
    for (size_t i = 0; i < 64; i++)
        frames[i] = 1;
    traw_stack(d, 1, frames, 64);
    uint64_t *ids = malloc(n * sizeof *ids);
    if (ids == NULL)
        exit(1);
    heapfmt_label label = {HEAPFMT_LABEL_FIELD, 0, 14};
    for (uint64_t i = 0; i < n; i++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = ids[i] = 0x10000 + 40 * i;
        o.class_id = 2;
        o.type = 11;
        o.size = 40;
        o.fields = HEAPFMT_F_SITE | HEAPFMT_F_STACK;
        o.file = 12;
        o.line = i + 1;
        o.stack = 1;
        if (i > 0) {
            o.refs = &ids[i - 1];
            o.nrefs = 1;
            o.fields |= HEAPFMT_F_LABELS;
            o.labels = &label;
        }
        traw_object(d, &o);
    }
    /* the last quarter is reached by no root: heapfmt-graph leaked names
     * it (the head is the last object) */
    traw_root(d, 15, ids, n - n / 4);
    traw_finish(d);
    free(ids);
}

#define MANY_REFS 100000u

/* Object 0x10000, then object 0x10028 of these fields holding it n
 * times (a reference costs a byte: its delta, 0), reference i labeled
 * kind with value + i * step (with HEAPFMT_F_LABELS); with a root of kind
 * string root holding it as many times (0: none). */
static void many_holder(traw *d, size_t n, uint32_t fields, uint32_t kind,
                        uint64_t value, uint64_t step, uint32_t root)
{
    uint64_t *ids = malloc(n * sizeof *ids);
    heapfmt_label *labels = NULL;
    if (fields & HEAPFMT_F_LABELS)
        labels = malloc(n * sizeof *labels);
    if (ids == NULL || ((fields & HEAPFMT_F_LABELS) && labels == NULL))
        exit(1);
    for (size_t i = 0; i < n; i++) {
        ids[i] = 0x10000;
        if (labels != NULL)
            labels[i] = (heapfmt_label){kind, 0, value + i * step};
    }
    object(d, 0x10000, 1, 1, NULL, 0);
    heapfmt_object o = {.id = 0x10028, .class_id = 1, .type = 1,
                        .size = 40, .fields = fields, .refs = ids,
                        .nrefs = n, .labels = labels};
    traw_object(d, &o);
    if (root != 0)
        traw_root(d, root, ids, n);
    traw_finish(d);
    free(ids);
    free(labels);
}

/* An object holding one object 100k times under a label, and a root
 * holding it 100k times, the label and the root's kind 256-byte texts
 * of control bytes: the most edge documents per byte of dump, each with
 * the longest text edges keep. */
static void many_refs(traw *d)
{
    char text[257];
    memset(text, 1, 256);
    text[256] = '\0';
    begin(d);
    traw_string(d, 3, text);
    many_holder(d, MANY_REFS, HEAPFMT_F_LABELS, HEAPFMT_LABEL_FIELD, 3, 0, 3);
}

/* 20,000: each is 3.4 KB of output (69 MB), and hostile.sh runs a dozen
 * exports of it twice (file and stdin) */
#define MANY_INDEXED 20000u

/* An array holding one object 20,000 times in the indexed form of 1.3 (a
 * reference costs a byte, its label none: the first one's index, 2^64 -
 * 2^59, is listed, the others inferred, each 20 digits), in a dump whose
 * host and release are 255 control bytes (the longest identity every
 * row repeats): the most edge output per byte of dump. */
static void many_indexed(traw *d)
{
    char text[256];
    memset(text, 1, 255);
    text[255] = '\0';
    traw_begin(d, 1, 3, 0, 0);
    traw_meta_text(d, "host", text);
    traw_meta_text(d, "release", text);
    traw_string(d, 1, "T_ARRAY");
    traw_string(d, 2, "Array");
    traw_class(d, 1, 0x1000, 2, 0, 0);
    many_holder(d, MANY_INDEXED, HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS,
                HEAPFMT_LABEL_INDEX, -((uint64_t)1 << 59), 1, 0);
}

/* An array of 2^24 references (the most a record holds), a byte each,
 * in the indexed form of 1.3: every reference labeled, at no cost in the
 * dump. A reader that gives the labels holds 32 bytes a reference (its
 * label and id), 512 MiB; before 1.3 such a record took 48 MiB of dump,
 * now 16. */
static void indexed_max_refs(traw *d)
{
    begin_minor(d, 3);
    many_holder(d, (size_t)1 << 24, HEAPFMT_F_INDEXED, 0, 0, 0, 0);
}

#define CHAIN 200000u

static void deep_chain(traw *d)
{
    begin(d);
    traw_string(d, 3, "vm");
    uint64_t head = 0x10000;
    for (uint64_t i = 0; i < CHAIN; i++) {
        uint64_t next = 0x10000 + 40 * (i + 1);
        object(d, 0x10000 + 40 * i, 1, 1, &next, i + 1 < CHAIN);
        if ((i + 1) % (4 * FLOOD_BLOCK) == 0)
            traw_flush(d);
    }
    traw_root(d, 3, &head, 1);
    traw_finish(d);
}

/* ---- two writers of one file ---- */

/* A writer's output and where each of its write calls ended. */
typedef struct recorder {
    tbuf out;
    size_t *ends;
    size_t n, cap;
} recorder;

static long record_write(void *opaque, const void *buf, size_t len)
{
    recorder *r = opaque;
    tbuf_put(&r->out, buf, len);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->ends = realloc(r->ends, r->cap * sizeof *r->ends);
        if (r->ends == NULL)
            exit(1);
    }
    r->ends[r->n++] = r->out.len;
    return (long)len;
}

/* A dump of n objects of one class, flushed every 50 objects so that
 * it is written in many calls, as a real writer's blocks are. */
static void record_dump(recorder *r, const char *klass, uint64_t base,
                        unsigned n, int level)
{
    memset(r, 0, sizeof *r);
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    heapfmt_writer *w;
    uint32_t type;
    heapfmt_class c = {0x1000, klass, strlen(klass), 0, 0};
    if (heapfmt_writer_open(&w, &opt, record_write, r) != HEAPFMT_OK ||
        heapfmt_write_string(w, "T_OBJECT", 8, &type) != HEAPFMT_OK ||
        heapfmt_write_class(w, &c) != HEAPFMT_OK)
        exit(1);
    for (unsigned i = 0; i < n; i++) {
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = base + 40 * (uint64_t)i;
        o.class_id = 0x1000;
        o.type = type;
        o.size = 40 + 8 * (i % 3);
        if (heapfmt_write_object(w, &o) != HEAPFMT_OK ||
            (i % 50 == 49 && heapfmt_writer_flush(w) != HEAPFMT_OK))
            exit(1);
    }
    if (heapfmt_writer_finish(w) != HEAPFMT_OK)
        exit(1);
    heapfmt_writer_free(w);
}

/* Two processes that open one path with O_TRUNC and write at once: each
 * writes at its own offset, and where both wrote, the later write wins.
 * Their calls are applied by turns, a's first; a is the longer dump, so
 * the file ends with a's footer and trailer, intact, while b overwrote
 * the blocks a's index points at. */
static void interleaved(const char *name, int level)
{
    recorder a, b;
    record_dump(&a, "Thing", 0x100000, 3000, level);
    record_dump(&b, "Other", 0x900000, 2000, level);
    if (a.out.len <= b.out.len)
        exit(1);
    unsigned char *file = calloc(1, a.out.len);
    if (file == NULL)
        exit(1);
    size_t ia = 0, ib = 0;
    while (ia < a.n || ib < b.n) {
        if (ia < a.n) {
            size_t from = ia ? a.ends[ia - 1] : 0;
            memcpy(file + from, a.out.data + from, a.ends[ia] - from);
            ia++;
        }
        if (ib < b.n) {
            size_t from = ib ? b.ends[ib - 1] : 0;
            memcpy(file + from, b.out.data + from, b.ends[ib] - from);
            ib++;
        }
    }
    /* the case is the one that fooled readers: a footer that reads */
    heapfmt_reader *r;
    const heapfmt_footer *f;
    if (heapfmt_reader_open_memory(&r, NULL, file, a.out.len) != HEAPFMT_OK ||
        heapfmt_reader_footer(r, &f) != HEAPFMT_OK) {
        fprintf(stderr, "mkhostile: %s lost its footer\n", name);
        exit(1);
    }
    heapfmt_reader_free(r);
    save_bytes(name, file, a.out.len);
    free(file);
    tbuf_free(&a.out);
    tbuf_free(&b.out);
    free(a.ends);
    free(b.ends);
}

/* ---- the MUSTs of the spec, one dump each ---- */

/* An OBJECT record by hand: id 0x10000 (first in its block), class 1,
 * type 1, size 40, then the given fields byte and tail. */
/* Counts a record written by traw_any as an object of class index 1 and
 * 40 bytes, as END, the index and the summary must (so that the dump
 * breaks only the rule it is about). */
static void count_object(traw *d)
{
    d->blk_objects++;
    d->objects++;
    d->bytes += 40;
    for (size_t i = 0; i < TRAW_MAX_CLASSES; i++)
        if (d->cls[i].used && d->cls[i].index == 1) {
            d->cls[i].count++;
            d->cls[i].bytes += 40;
        }
}

static void raw_object(traw *d, const unsigned char *tail, size_t n)
{
    unsigned char body[64] = {0x80, 0x80, 0x08, 0x01, 0x01, 0x28};
    memcpy(body + 6, tail, n);
    traw_any(d, HEAPFMT_TAG_OBJECT, body, 6 + n);
    count_object(d);
}

/* Object 0x10000 of class index 1, type string 1, 40 bytes, with these
 * optional fields (the caller fills them). */
static heapfmt_object thing(uint32_t fields)
{
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = 0x10000;
    o.class_id = 1;
    o.type = 1;
    o.size = 40;
    o.fields = fields;
    return o;
}

static void must_dumps(void)
{
    traw d;
    heapfmt_object o;
    uint64_t refs[2] = {0x20000, 0x30000};

    /* fields 0x10 (labels), 1 reference (delta), then the labels: one
     * at position 0 of kind 7; one skipping 1 (position 1, past the only
     * reference); two for one reference. The same in the indexed form of
     * 1.3 (fields 0x50), where a reference without an entry has a label
     * too; and the indexed bit (0x40) where it is reserved, in a 1.2
     * file, and with bit 7 in a 1.3 one. */
    static const struct {
        const char *name;
        unsigned minor;
        unsigned char payload[10];
        size_t len;
    } bad_labels[] = {
        {"must-label-kind-7.hfd", 1,
         {0x10, 0x01, 0x80, 0x80, 0x08, 0x01, 0x00, 0x27}, 8},
        {"must-label-past-refs.hfd", 1,
         {0x10, 0x01, 0x80, 0x80, 0x08, 0x01, 0x01, 0x21}, 8},
        {"must-labels-over-refs.hfd", 1,
         {0x10, 0x01, 0x80, 0x80, 0x08, 0x02, 0x00, 0x21, 0x00, 0x21}, 10},
        {"must-indexed-label-kind-7.hfd", 3,
         {0x50, 0x01, 0x80, 0x80, 0x08, 0x01, 0x00, 0x27}, 8},
        {"must-indexed-label-past-refs.hfd", 3,
         {0x50, 0x01, 0x80, 0x80, 0x08, 0x01, 0x01, 0x22}, 8},
        {"must-indexed-labels-over-refs.hfd", 3,
         {0x50, 0x01, 0x80, 0x80, 0x08, 0x02, 0x00, 0x21, 0x00, 0x22}, 10},
        {"must-indexed-in-1.2.hfd", 2, {0x40, 0x01, 0x80, 0x80, 0x08}, 5},
        {"must-indexed-bit-7.hfd", 3, {0xc0, 0x01, 0x80, 0x80, 0x08}, 5},
        {"must-indexed-refs-over-limit.hfd", 3,
         {0x40, 0x81, 0x80, 0x80, 0x08, 0x00}, 6},
    };
    for (size_t i = 0; i < sizeof bad_labels / sizeof *bad_labels; i++) {
        begin_minor(&d, bad_labels[i].minor);
        raw_object(&d, bad_labels[i].payload, bad_labels[i].len);
        traw_finish(&d);
        save(&d, bad_labels[i].name, 0);
    }

    heapfmt_label lab[2] = {{HEAPFMT_LABEL_FIELD, 0, 999},
                            {HEAPFMT_LABEL_NONE, 0, 0}};
    begin(&d);
    o = thing(HEAPFMT_F_LABELS);
    o.refs = refs;
    o.nrefs = 2;
    o.labels = lab;
    traw_object(&d, &o);
    traw_root_labeled(&d, 2, refs, lab, 2);
    traw_finish(&d);
    save(&d, "must-label-string-undefined.hfd", 0);

    /* indexed (1.3): after a stack never defined, a field label naming a
     * string never defined, then an inferred index */
    begin_minor(&d, 3);
    o = thing(HEAPFMT_F_INDEXED | HEAPFMT_F_LABELS | HEAPFMT_F_STACK);
    o.refs = refs;
    o.nrefs = 2;
    o.stack = 5;
    o.labels = (heapfmt_label[]){{HEAPFMT_LABEL_FIELD, 0, 999},
                                 {HEAPFMT_LABEL_INDEX, 0, 1}};
    traw_object(&d, &o);
    traw_finish(&d);
    save(&d, "must-indexed-undefined.hfd", 0);

    begin(&d);
    o = thing(HEAPFMT_F_STACK);
    o.stack = 5;
    traw_object(&d, &o);
    traw_finish(&d);
    save(&d, "must-stack-undefined.hfd", 0);

    begin(&d);
    uint32_t frames[] = {1, 9}; /* frame 9: never */
    traw_frame(&d, 1, 2, 0, 0x10, 0, 0);
    traw_stack(&d, 1, frames, 2);
    o.stack = 1;
    traw_object(&d, &o);
    traw_finish(&d);
    save(&d, "must-frame-undefined.hfd", 0);

    traw_begin(&d, 1, 1, 0, 0);
    traw_string(&d, 1, "T_OBJECT");
    traw_string(&d, 2, "Thing");
    object(&d, 0x10000, 1, 1, NULL, 0);
    traw_class(&d, 1, 0x1000, 2, 0, 0); /* after its object */
    traw_finish(&d);
    save(&d, "must-class-after-use.hfd", 0);

    traw_begin(&d, 1, 1, 0, 0);
    traw_string(&d, 2, "Thing");
    traw_class(&d, 1, 0x1000, 2, 0, 0);
    object(&d, 0x10000, 1, 1, NULL, 0);
    traw_string(&d, 1, "T_OBJECT"); /* after its object */
    traw_finish(&d);
    save(&d, "must-string-after-use.hfd", 0);

    begin(&d);
    o = thing(HEAPFMT_F_FLAGS);
    o.flags = HEAPFMT_OF_FROZEN | 0x20; /* bit 5: reserved */
    traw_object(&d, &o);
    traw_finish(&d);
    save(&d, "must-object-flags-reserved.hfd", 0);

    /* size 40 as a8 00: two bytes where one does */
    static const unsigned char size_long[] = {0x80, 0x80, 0x08, 0x01, 0x01,
                                              0xa8, 0x00, 0x00, 0x00};
    begin(&d);
    traw_any(&d, HEAPFMT_TAG_OBJECT, size_long, sizeof size_long);
    count_object(&d);
    traw_finish(&d);
    save(&d, "must-varint-long.hfd", 0);

    traw_begin(&d, 1, 2, 0, 0);
    traw_string(&d, 1, "a.rb");
    heapfmt_lifespan life = {1, 5, 0, 0, 3, 1, 120, 40, 100, 10};
    traw_lifespan(&d, &life); /* stack 5: never */
    traw_finish(&d);
    save(&d, "must-lifespan-stack-undefined.hfd", 0);

    traw_begin(&d, 1, 2, 0, 0);
    traw_string(&d, 1, "a.rb");
    life = (heapfmt_lifespan){2, 0, 1, 7, 2, 3, 80, 120, 100, 0};
    traw_lifespan(&d, &life);
    traw_finish(&d);
    save(&d, "must-lifespan-frees.hfd", 0);

    traw_begin(&d, 1, 2, 0, 0);
    traw_meta_text(&d, "malloc.mode", "record");
    {
        traw_event e = {HEAPFMT_EV_MALLOC, 0, 0, 1, {64}};
        traw_events(&d, 1, 10, 0, 1, &e, 1); /* event 11 */
        traw_events(&d, 1, 4, 5, 1, &e, 1);  /* event 5: back */
    }
    traw_finish(&d);
    save(&d, "must-events-order.hfd", 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkhostile DIR\n");
        return 1;
    }
    dir = argv[1];
    traw d;

    begin(&d);
    traw_string(&d, 3, "Huge");
    traw_class(&d, UINT32_MAX, 0x2000, 3, 0, 0);
    object(&d, 0x10000, UINT32_MAX, 1, NULL, 0);
    traw_finish(&d);
    save(&d, "huge-class-index.hfd", 0);

    begin(&d);
    object(&d, 0x10000, 1u << 31, UINT32_MAX, NULL, 0);
    object(&d, 0x10028, 1u << 31, 1, NULL, 0);
    traw_finish(&d);
    save(&d, "undefined-index.hfd", 0);

    char *kind = long_text('k');
    uint64_t *ids = malloc(MANY * sizeof *ids);
    if (ids == NULL)
        return 1;
    begin(&d);
    for (uint64_t i = 0; i < MANY; i++) {
        ids[i] = 0x10000 + 40 * i;
        object(&d, ids[i], 1, 1, NULL, 0);
    }
    traw_string(&d, 3, kind);
    traw_root(&d, 3, ids, MANY);
    traw_finish(&d);
    save(&d, "long-root-kind.hfd", 0);

    char *name = long_text('n');
    begin(&d);
    traw_string(&d, 3, name);
    traw_class(&d, 2, 0x2000, 3, 0, 0);
    for (uint64_t i = 0; i < MANY; i++)
        object(&d, 0x10000 + 40 * i, 2, 1, NULL, 0);
    traw_finish(&d);
    save(&d, "long-class-name.hfd", 24); /* no trailer: no footer names */

    begin(&d);
    traw_string(&d, 3, "vm");
    uint64_t dup[] = {0x10000, 0x10000};
    object(&d, 0x10000, 1, 1, NULL, 0);
    object(&d, 0x10000, 1, 1, dup, 2);
    object(&d, 0x10000, 1, 1, dup, 1);
    traw_root(&d, 3, dup, 2);
    traw_finish(&d);
    save(&d, "duplicate-ids.hfd", 0);

    /* Two ids repeated, the higher one first: --verify names the lower */
    begin(&d);
    traw_string(&d, 3, "vm");
    object(&d, 0x20000, 1, 1, NULL, 0);
    object(&d, 0x20000, 1, 1, NULL, 0);
    object(&d, 0x20000, 1, 1, NULL, 0);
    object(&d, 0x10000, 1, 1, NULL, 0);
    object(&d, 0x30000, 1, 1, NULL, 0);
    object(&d, 0x10000, 1, 1, NULL, 0);
    traw_finish(&d);
    save(&d, "duplicate-ids-two.hfd", 0);

    three_blocks(&d);
    d.ent[1] = d.ent[2]; /* the second block is left out */
    d.nent--;
    traw_finish(&d);
    save(&d, "index-skips-block.hfd", 0);

    /* The same with a block that holds no object (its strings only), so
     * that object counts agree and only records tell. */
    three_blocks(&d);
    traw_string(&d, 10, "only");
    traw_string(&d, 11, "strings");
    traw_flush(&d);
    for (uint64_t i = 0; i < 10; i++)
        object(&d, 0x40000 + 40 * i, 1, 1, NULL, 0);
    traw_flush(&d);
    d.ent[3] = d.ent[4]; /* the strings' block is left out */
    d.nent--;
    traw_finish(&d);
    save(&d, "index-skips-empty-block.hfd", 0);

    three_blocks(&d);
    d.ent[3] = d.ent[2]; /* the third block twice */
    d.ent[2] = d.ent[1];
    d.nent++;
    traw_finish(&d);
    save(&d, "index-repeats-block.hfd", 0);

    three_blocks(&d);
    for (size_t i = 0; i < TRAW_MAX_CLASSES; i++)
        if (d.cls[i].used && d.cls[i].index == 1)
            d.cls[i].count += 5;
    traw_finish(&d);
    save(&d, "summary-disagrees.hfd", 0);

    begin(&d);
    /* OBJECT: id, class, type, size, fields 0, nrefs 2^40, and nothing */
    static const unsigned char claim[] = {0x80, 0x80, 0x02, 0x01, 0x01,
                                          0x28, 0x00, 0x80, 0x80, 0x80,
                                          0x80, 0x80, 0x20};
    traw_any(&d, HEAPFMT_TAG_OBJECT, claim, sizeof claim);
    object(&d, 0x20000, 1, 1, NULL, 0);
    traw_finish(&d);
    save(&d, "claims-many-refs.hfd", 0);

    begin(&d);
    traw_string(&d, 3, "malloc");
    traw_string(&d, 4, "/usr/lib/x86_64-linux-gnu/libheapfmt-malloc.so");
    traw_string(&d, 5, "a;b\nc");
    traw_frame(&d, 1, 3, 4, 0x2f10, 0, 0);
    traw_frame(&d, 2, 1000, 0, 0xdead, 0, 0); /* string 1000: never */
    traw_frame(&d, 3, 5, 4, 0x10, 5, 7);
    uint32_t lost[] = {1, 77, 2}; /* frame 77: never */
    traw_stack(&d, 1, lost, 3);
    uint32_t *deep = malloc(HEAPFMT_MAX_FRAMES * sizeof *deep);
    if (deep == NULL)
        return 1;
    for (size_t i = 0; i < HEAPFMT_MAX_FRAMES; i++)
        deep[i] = 1 + (uint32_t)(i % 3);
    traw_stack(&d, 2, deep, HEAPFMT_MAX_FRAMES);
    free(deep);
    static const uint32_t stacks[] = {1, 2, 999, 1, 0}; /* 999: never */
    for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++)
        object_at(&d, 0x10000 + 40 * i, stacks[i]);
    traw_finish(&d);
    save(&d, "stacks-undefined.hfd", 0);

    /* Traces (1.2 EVENTS) hostile to heapfmt-replay, each refused or
     * replayed within bounds. */
    /* 5000 threads alive at once: each allocates, then all free. */
    traw_begin(&d, 1, 2, 0, 0);
    traw_meta_text(&d, "malloc.mode", "record");
    for (uint64_t t = 1; t <= 5000; t++) {
        traw_event e = {HEAPFMT_EV_MALLOC, 0, 0, 1, {64}};
        traw_events(&d, t, t - 1, t, 1, &e, 1);
    }
    for (uint64_t t = 1; t <= 5000; t++) {
        traw_event e = {HEAPFMT_EV_FREE, 0, 0, 1, {5000}};
        traw_events(&d, t, 5000 + t - 1, 5000 + t, 1, &e, 1);
    }
    traw_finish(&d);
    save(&d, "trace-threads.hfd", 0);
    /* Sizes no memory holds: 2^62 bytes, then a thousand of 2^40. */
    traw_begin(&d, 1, 2, 0, 0);
    traw_meta_text(&d, "malloc.mode", "record");
    {
        traw_event e[1001];
        e[0] = (traw_event){HEAPFMT_EV_MALLOC, 0, 0, 1, {(uint64_t)1 << 62}};
        for (size_t i = 1; i < 1001; i++)
            e[i] = (traw_event){HEAPFMT_EV_CALLOC, 0, 1, 1, {(uint64_t)1 << 40}};
        traw_events(&d, 1, 0, 0, 1001, e, 1001);
    }
    traw_finish(&d);
    save(&d, "trace-huge.hfd", 0);
    /* A hundred thousand frees: of blocks never made, and of one block
     * again and again. */
    traw_begin(&d, 1, 2, 0, 0);
    traw_meta_text(&d, "malloc.mode", "record");
    {
        traw_event *e = malloc(100000 * sizeof *e);
        if (e == NULL)
            return 1;
        e[0] = (traw_event){HEAPFMT_EV_MALLOC, 0, 0, 1, {100}};
        for (size_t i = 1; i < 100000; i++) /* distance i: block 1 */
            e[i] = (traw_event){HEAPFMT_EV_FREE, 0, 0, 1,
                                {i % 2 ? (uint64_t)i : 1}};
        traw_events(&d, 1, 0, 0, 100000, e, 100000);
        free(e);
    }
    traw_finish(&d);
    save(&d, "trace-frees.hfd", 0);
    defined_twice(&d, 's');
    traw_finish(&d);
    save(&d, "string-twice.hfd", 0);
    defined_twice(&d, 'f');
    traw_finish(&d);
    save(&d, "frame-twice.hfd", 0);
    defined_twice(&d, 'k');
    traw_finish(&d);
    save(&d, "stack-twice.hfd", 0);

    /* END and footer lies over intact blocks */
    static const struct {
        const char *name;
        traw_lies lie;
    } lies[] = {
        {"end-lies.hfd", {.end_objects = 1}},
        {"no-end.hfd", {.no_end = 1}},
        {"totals-bytes-lie.hfd", {.totals_bytes = 40}},
        {"totals-raw-lie.hfd", {.totals_raw_bytes = 1}},
        {"totals-codecs-lie.hfd", {.totals_codecs = 4}},
        {"early-footer-block.hfd", {.extra_footer_block = 1}},
    };
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        defined_twice(&d, 0);
        d.lie = lies[i].lie;
        traw_finish(&d);
        save(&d, lies[i].name, 0);
    }

    colliding_ids(&d);
    save(&d, "colliding-ids.hfd", 0);
    colliding_lines(&d);
    save(&d, "colliding-lines.hfd", 0);
    huge_names(&d, "ctfklr", HUGE_NAME, HUGE_OBJECTS);
    save(&d, "huge-names.hfd", 0);
    huge_names(&d, "\1", CUT_NAME, CUT_OBJECTS);
    save(&d, "cut-control-names.hfd", 0);
    many_refs(&d);
    save(&d, "many-refs.hfd", 0);
    many_indexed(&d);
    save(&d, "many-indexed.hfd", 0);
    indexed_max_refs(&d);
    save(&d, "indexed-max-refs.hfd", 0);
    deep_chain(&d);
    save(&d, "deep-chain.hfd", 0);
    interleaved("interleaved.hfd", 0); /* stored: the blocks line up */
    interleaved("interleaved-zstd.hfd", 1);
    must_dumps();

    free(kind);
    free(name);
    free(ids);
    return 0;
}
