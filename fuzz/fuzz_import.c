/*
 * fuzz_import.c -- heapfmt-import's work function, import_run()
 * (tools/import/import.h), over fuzzer-made ObjectSpace.dump_all input,
 * V8 heap snapshots and Java HPROF dumps: import_run tells them apart by
 * their first bytes, so the same checks hold for all (seeds of each kind
 * in fuzz/corpus/fuzz_import, the HPROF ones cut out of a real jmap dump
 * by tests/java/mini_hprof.py and v8-node-mini.heapsnapshot out of a real
 * Node's by tests/v8/mini_snapshot.js; a snapshot or an HPROF dump is
 * read once either way).
 *
 * The input is the JSON lines file (plain, or gzip when it starts with
 * 1f 8b). Options are chosen from a hash of it, so that each input always
 * runs the same way: strict or not, preview length, a small max_line,
 * read sizes, writer level and block size. The input is imported twice:
 * in one pass (as from a pipe) and in two (with a rewind callback, as from
 * a file, classes defined first).
 *
 * Checks:
 *   - import_run gives one of its three results; IMPORT_OK means no line
 *     was skipped and the input was not cut; a failure is explained;
 *   - every diagnostic is one line (no newline in it) of a known kind;
 *   - unless the import failed, heapfmt_writer_finish succeeds and the
 *     dump reads back complete (DONE) under the reader contract checks of
 *     fz_rd, with as many OBJECT and ROOT records and references as the
 *     statistics say were written;
 *   - no two objects of the dump have one id (a repeat in the input gets
 *     a new id, unique_ids.h);
 *   - one pass or two, the same result, statistics and heap: the same
 *     objects and roots in the same order (ids, class ids, types, sizes,
 *     flags, values, sites, references) and the same final classes (name,
 *     flags, counts and bytes by class id); only class indexes and the
 *     place of CLASS records may differ.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "heapfmt.h"
#include "import.h"
#include "sniff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct src {
    const uint8_t *p;
    size_t len, pos;
    unsigned step; /* bytes per read: 0 = all asked */
} src;

static long src_read(void *opaque, void *buf, size_t len)
{
    src *s = opaque;
    size_t n = s->len - s->pos;
    if (n > len)
        n = len;
    if (s->step && n > s->step)
        n = s->step;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (long)n;
}

static int src_rewind(void *opaque)
{
    ((src *)opaque)->pos = 0;
    return 0;
}

typedef struct diags {
    uint64_t errors, warnings;
} diags;

static void report(void *ctx, int kind, uint64_t line, const char *msg)
{
    diags *d = ctx;
    (void)line;
    FZ_CHECK(kind == IMPORT_DIAG_ERROR || kind == IMPORT_DIAG_WARNING,
             "diagnostic of kind %d", kind);
    FZ_CHECK(msg != NULL && msg[0] != '\0', "empty diagnostic");
    FZ_CHECK(strchr(msg, '\n') == NULL, "diagnostic with a newline: %s", msg);
    if (kind == IMPORT_DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
}

/* What an import produced, reduced to what must not depend on the passes. */
typedef struct outcome {
    int result;
    import_stats st;
    uint64_t heap;    /* hash of the OBJECT and ROOT records, in order */
    uint64_t classes; /* hash of the final classes, by class id */
    uint64_t objects, roots, refs;
} outcome;

typedef struct cls {
    uint64_t id, flags, count, bytes, hname;
    int named;
} cls;

static int by_id(const void *a, const void *b)
{
    const cls *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void hput(uint64_t *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 1099511628211ull;
}

static void hu64(uint64_t *h, uint64_t v)
{
    hput(h, &v, sizeof v);
}

static void htext(uint64_t *h, const heapfmt_rstring *s)
{
    hu64(h, s->len);
    hput(h, s->ptr, s->len);
}

/* Reads the dump back: the contract walk, then the heap's digest. */
static void digest(const fz_buf *dump, outcome *oc)
{
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_memory(&r, NULL, dump->p, dump->len);
    FZ_CHECK(rc == HEAPFMT_OK, "imported dump: open gave %s",
             fz_status_name(rc));
    fz_rd d;
    fz_rd_init(&d, r, FZ_CHECK_INDEX);
    fz_buf e = {0};
    while (fz_rd_next(&d, &e))
        ;
    FZ_CHECK(d.rc == HEAPFMT_DONE, "imported dump reads as %s: %s",
             fz_status_name(d.rc), heapfmt_reader_error(r)->message);
    fz_rd_free(&d);
    fz_buf_free(&e);
    heapfmt_reader_free(r);

    FZ_CHECK(heapfmt_reader_open_memory(&r, NULL, dump->p, dump->len) ==
                 HEAPFMT_OK,
             "imported dump: second open failed");
    uint64_t h = 14695981039346656037ull;
    heapfmt_record rec;
    uint64_t *seen = NULL; /* object ids, for repeats */
    size_t nseen = 0, capseen = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        const uint64_t *ids;
        long n;
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            const heapfmt_robject *o = rec.u.object;
            if (nseen == capseen) {
                capseen = capseen ? 2 * capseen : 256;
                seen = realloc(seen, capseen * sizeof *seen);
                FZ_CHECK(seen != NULL, "harness out of memory");
            }
            seen[nseen++] = o->id;
            hu64(&h, 'O');
            hu64(&h, o->id);
            hu64(&h, o->klass->id);
            htext(&h, o->type);
            hu64(&h, o->size);
            hu64(&h, o->fields);
            hu64(&h, o->flags);
            hu64(&h, o->value_len);
            hput(&h, o->value, o->value_len);
            htext(&h, o->file);
            hu64(&h, o->line);
            hu64(&h, o->generation);
            oc->objects++;
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            hu64(&h, 'R');
            htext(&h, rec.u.root->kind);
            oc->roots++;
        } else {
            continue;
        }
        n = heapfmt_reader_refs(r, &ids);
        FZ_CHECK(n >= 0, "imported dump: refs gave %s",
                 fz_status_name((int)n));
        hu64(&h, (uint64_t)n);
        hput(&h, ids, (size_t)n * sizeof *ids);
        oc->refs += (uint64_t)n;
    }
    FZ_CHECK(rc == HEAPFMT_DONE, "imported dump: second read gave %s",
             fz_status_name(rc));
    oc->heap = h;
    /* an import's output verifies: no id names two objects (issue 31) */
    if (nseen > 1)
        qsort(seen, nseen, sizeof *seen, by_u64);
    for (size_t i = 1; i < nseen; i++)
        FZ_CHECK(seen[i] != seen[i - 1], "imported dump: two objects have "
                 "the id %#llx", (unsigned long long)seen[i]);
    free(seen);

    const heapfmt_footer *f = NULL;
    FZ_CHECK(heapfmt_reader_footer(r, &f) == HEAPFMT_OK, "no footer");
    cls *c = malloc((f->nclasses + 1) * sizeof *c);
    FZ_CHECK(c != NULL, "harness out of memory");
    for (size_t i = 0; i < f->nclasses; i++) {
        const heapfmt_class_summary *s = &f->classes[i];
        c[i] = (cls){s->id, s->flags, s->count, s->bytes, 0, s->name != NULL};
        hput(&c[i].hname, s->name, s->name_len);
    }
    qsort(c, f->nclasses, sizeof *c, by_id);
    h = 14695981039346656037ull;
    for (size_t i = 0; i < f->nclasses; i++) { /* field by field: padding */
        hu64(&h, c[i].id);
        hu64(&h, c[i].flags);
        hu64(&h, c[i].count);
        hu64(&h, c[i].bytes);
        hu64(&h, c[i].hname);
        hu64(&h, (uint64_t)c[i].named);
    }
    oc->classes = h;
    free(c);
    heapfmt_reader_free(r);
}

static void import_once(const uint8_t *data, size_t size, uint64_t h,
                        int two_pass, outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    import_options opt = IMPORT_OPTIONS_INIT;
    diags dg = {0, 0};
    opt.strict = (int)(h & 1);
    opt.preview = (size_t)((h >> 1) % 300);
    if ((h >> 10) & 1)
        opt.max_line = 16 + (size_t)((h >> 11) % 2048);
    opt.max_reports = (unsigned)((h >> 23) % 4);
    opt.buffer = (size_t)16 << ((h >> 39) % 12); /* 16 B .. 32 KiB */
    opt.source = "fuzz.json";
    /* Android's heaps: the default (the app heap), all, or two others */
    static const char *const heaps[4] = {NULL, NULL, "all", "image,zygote"};
    opt.hprof_heaps = heaps[(h >> 45) % 4];
    if (two_pass)
        opt.rewind = src_rewind;
    opt.report = report;
    opt.report_ctx = &dg;
    src in = {data, size, 0, (h >> 26) & 1 ? (unsigned)((h >> 27) % 64 + 1)
                                           : 0};

    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    /* every codec; zstd, whose contexts cost the most to set up, in a
     * third of the runs */
    wo.codec = (int)((h >> 37) % 3);
    wo.level = (int)((h >> 33) % 3) * 4; /* 0, 4, 8 */
    /* small blocks: a few KiB per run instead of 256 KiB buffers */
    wo.block_size = HEAPFMT_MIN_BLOCK_SIZE << ((h >> 35) % 4);
    fz_sink sink;
    fz_sink_init(&sink);
    heapfmt_writer *w = NULL;
    int rc = heapfmt_writer_open(&w, &wo, fz_sink_write, &sink);
    FZ_CHECK(rc == HEAPFMT_OK, "writer open gave %s", fz_status_name(rc));

    int result = import_run(w, src_read, &in, &opt, &oc->st);
    oc->result = result;
    FZ_CHECK(result == IMPORT_OK || result == IMPORT_INCOMPLETE ||
                 result == IMPORT_FAILED,
             "import_run gave %d", result);
    const import_stats *st = &oc->st;
    if (result == IMPORT_OK)
        FZ_CHECK(st->malformed == 0 && !st->truncated && st->refs_dropped == 0,
                 "IMPORT_OK with %llu malformed lines, truncated %d",
                 (unsigned long long)st->malformed, st->truncated);
    if (result == IMPORT_FAILED) {
        FZ_CHECK(dg.errors > 0, "import failed without saying why");
    } else {
        rc = heapfmt_writer_finish(w);
        FZ_CHECK(rc == HEAPFMT_OK, "finish after an import gave %s: %s",
                 fz_status_name(rc), heapfmt_writer_error(w)->message);
    }
    heapfmt_writer_free(w);
    if (result != IMPORT_FAILED) {
        digest(&sink.out, oc);
        FZ_CHECK(oc->objects == st->objects,
                 "import wrote %llu objects, the dump has %llu",
                 (unsigned long long)st->objects,
                 (unsigned long long)oc->objects);
        FZ_CHECK(oc->roots >= st->roots,
                 "import counted %llu root lines, the dump has %llu ROOT "
                 "records",
                 (unsigned long long)st->roots,
                 (unsigned long long)oc->roots);
        FZ_CHECK(oc->refs == st->refs,
                 "import wrote %llu references, the dump has %llu",
                 (unsigned long long)st->refs, (unsigned long long)oc->refs);
    }
    fz_buf_free(&sink.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    outcome one, two;
    import_once(data, size, h, 0, &one);
    import_once(data, size, h, 1, &two);
    /* HPROF read twice keeps the references of instances that come
     * before their class, names classes whose LOAD CLASS comes late and
     * sizes objects for the model the first pass detects: more
     * references, a better result, other sizes and names. Android's: it
     * also knows every object of the heaps left out, so references to
     * them are dropped (counted) and what their decoded references hold
     * becomes roots: as many references with those dropped, more roots.
     * An Android dump hprof-conv converted is recognised by the first
     * pass alone: other objects (its made-up ones folded) */
    int hprof = one.st.kind == SNIFF_HPROF;
    if (two.st.art_converted)
        return 0;
    FZ_CHECK(hprof ? two.result <= one.result : one.result == two.result,
             "import result %d in one pass, %d in two", one.result, two.result);
    FZ_CHECK(one.st.objects == two.st.objects &&
                 (two.st.android ? two.st.roots >= one.st.roots
                                 : one.st.roots == two.st.roots) &&
                 (hprof ? two.st.refs + two.st.refs_left_out >=
                              one.st.refs + one.st.refs_left_out
                        : one.st.refs == two.st.refs) &&
                 one.st.malformed == two.st.malformed &&
                 one.st.lines == two.st.lines,
             "statistics differ: one pass %llu objects, %llu malformed; two "
             "passes %llu, %llu",
             (unsigned long long)one.st.objects,
             (unsigned long long)one.st.malformed,
             (unsigned long long)two.st.objects,
             (unsigned long long)two.st.malformed);
    if (one.result != IMPORT_FAILED && two.result != IMPORT_FAILED) {
        FZ_CHECK(hprof || one.heap == two.heap,
                 "objects or roots differ between one pass and two");
        FZ_CHECK(hprof || one.classes == two.classes,
                 "final classes differ between one pass and two");
    }
    return 0;
}
