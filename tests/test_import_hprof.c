/*
 * test_import_hprof.c -- heapfmt-import of Java HPROF dumps (tools/import/
 * hprof.c) and HotSpot's field layout (jvm_layout.c).
 *
 * The dumps are written here from the HPROF specification (OpenJDK's
 * hprof_b_spec), with 8- and 4-byte ids: a few classes, instances,
 * arrays and roots whose heap is worked out by hand below (the check
 * against a real JVM is tests/cli/import_hprof.sh). Each is imported
 * whole, a byte per read, in random pieces and gzip-packed in two
 * members; then cut at every byte (never a crash, never more than the
 * whole, IMPORT_OK only for the whole) and damaged in the ways the table
 * lists, each named with its byte offset.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <zlib.h>

#include "gunzip.h"
#include "hprof.h"
#include "jvm_layout.h"

#include "test_import_run.h"
#include "thprof.h"

/* ---- the layout model -------------------------------------------------- */

static jl_field prim(unsigned size)
{
    jl_field f = {(uint8_t)size, 0, 0};
    return f;
}

static jl_field oop(const jl_model *m)
{
    jl_field f = {(uint8_t)m->ref, 1, 0};
    return f;
}

Test(jvm_layout, fields_fill_gaps_as_hotspot_does)
{
    const jl_model *m = &jl_compressed;
    jl_layout root, node, base, mid, leaf;
    jl_root(m, &root);
    /* Leak$Node: Node next; long value; int id; byte flag -> 32 (jmap) */
    jl_field nf[] = {oop(m), prim(8), prim(4), prim(1)};
    cr_assert_eq(jl_extend(m, &root, nf, 4, &node), 0);
    cr_assert_eq(jl_instance_size(&node), 32);
    cr_assert_eq(node.end, 32); /* int at 12, long 16, byte 24, ref 28 */
    /* Base { byte } 16, Mid { long } 24, Leaf { int; short; Object } 32:
     * the short goes into Base's gap, the int cannot (13..16) */
    jl_field bf[] = {prim(1)}, mf[] = {prim(8)};
    jl_field lf[] = {prim(4), prim(2), oop(m)};
    cr_assert_eq(jl_extend(m, &root, bf, 1, &base), 0);
    cr_assert_eq(jl_extend(m, &base, mf, 1, &mid), 0);
    cr_assert_eq(jl_extend(m, &mid, lf, 3, &leaf), 0);
    cr_assert_eq(jl_instance_size(&base), 16);
    cr_assert_eq(jl_instance_size(&mid), 24);
    cr_assert_eq(leaf.end, 32); /* short 14, int 24, ref 28 */
    cr_assert_eq(jl_instance_size(&leaf), 32);
    jl_free(&node);
    jl_free(&base);
    jl_free(&mid);
    jl_free(&leaf);
}

Test(jvm_layout, contended_groups_are_padded_and_close_their_gaps)
{
    const jl_model *m = &jl_compressed;
    jl_layout root, t, sub;
    jl_root(m, &root);
    /* long a; @Contended long seed; @Contended int probe */
    jl_field tf[] = {prim(8), {8, 0, 1}, {4, 0, 1}};
    cr_assert_eq(jl_extend(m, &root, tf, 3, &t), 0);
    /* a 16..24 (gap 12..16); pad 24..152; seed 152, probe 160..164; pad */
    cr_assert_eq(t.end, 164 + 128);
    cr_assert_eq(jl_instance_size(&t), 296);
    /* a subclass's byte is appended, not put into the gap at 12 */
    jl_field sf[] = {prim(1)};
    cr_assert_eq(jl_extend(m, &t, sf, 1, &sub), 0);
    cr_assert_eq(sub.end, 293);
    jl_free(&t);
    jl_free(&sub);
}

Test(jvm_layout, wide_references_and_arrays)
{
    const jl_model *m = &jl_wide;
    jl_layout root, node;
    jl_root(m, &root);
    jl_field nf[] = {oop(m), prim(8), prim(4), prim(1)};
    cr_assert_eq(jl_extend(m, &root, nf, 4, &node), 0);
    cr_assert_eq(jl_instance_size(&node), 40); /* 16 + 8 + 4 + 1 -> 32 + 8 */
    jl_free(&node);
    cr_assert_eq(jl_array_size(&jl_compressed, 5, 4), 40); /* 16 + 20 */
    cr_assert_eq(jl_array_size(&jl_wide, 5, 4), 48);       /* 24 + 20 */
    cr_assert_eq(jl_array_size(&jl_compressed, 0, 8), 16);
    cr_assert_eq(jl_array_size(&jl_compressed, 3, 4), 32); /* Object[3] */
}

Test(jvm_layout, injected_fields_of_the_vm)
{
    jl_field f[JL_MAX_INJECTED];
    cr_assert_eq(jl_injected(&jl_compressed, "java.lang.Module", 16, f), 1);
    cr_assert_eq(f[0].size, 8);
    cr_assert_eq(jl_injected(&jl_compressed, "java.lang.Class", 15, f), 7);
    cr_assert_eq(jl_injected(&jl_compressed, "java.lang.Object", 16, f), 0);
    cr_assert(jl_contended("java.lang.Thread", 16, "threadLocalRandomSeed", 21));
    cr_assert(!jl_contended("java.lang.Thread", 16, "name", 4));
}

/* ---- HotSpot's records (support/thprof.h writes the rest) -------------- */

/* The header of the hprof agent's and HotSpot's dumps. */
static void header(thprof *w, unsigned idsz)
{
    thprof_header(w, "JAVA PROFILE 1.0.2", idsz, 0x19012345678ull);
}

/* A CLASS DUMP: nst statics of type object (names st[], values sv[]) and
 * nf instance fields (names fn[], types ft[]). */
static void class_dump(thprof *w, uint64_t cid, uint64_t super, uint64_t loader,
                       size_t nst, const uint64_t *st, const uint64_t *sv,
                       size_t nf, const uint64_t *fn, const unsigned *ft)
{
    /* 99: the instance size HPROF states, not used */
    thprof_class_head(w, cid, super, loader, 99);
    thprof_u2(w, 1);  /* one constant, an int */
    thprof_u2(w, 7);
    tbuf_u8(&w->b, 10);
    thprof_u4(w, 42);
    thprof_u2(w, (unsigned)nst);
    for (size_t i = 0; i < nst; i++) {
        thprof_id(w, st[i]);
        tbuf_u8(&w->b, 2);
        thprof_id(w, sv[i]);
    }
    thprof_u2(w, (unsigned)nf);
    for (size_t i = 0; i < nf; i++) {
        thprof_id(w, fn[i]);
        tbuf_u8(&w->b, ft[i]);
    }
}

/* An instance of Node: next (object), value (long), id (int). */
static void node(thprof *w, uint64_t oid, uint64_t cls, uint64_t next)
{
    thprof_instance_head(w, oid, cls, w->idsz + 12);
    thprof_id(w, next);
    thprof_u4(w, 0);
    thprof_u4(w, 7); /* value */
    thprof_u4(w, 3); /* id */
}

static void root(thprof *w, unsigned tag, uint64_t oid)
{
    tbuf_u8(&w->b, tag);
    thprof_id(w, oid);
    if (tag == 0x01)
        thprof_id(w, 0x999); /* the JNI global ref */
    else if (tag == 0x03) {
        thprof_u4(w, 1);
        thprof_u4(w, 2);
    }
}

/* String ids, class ids and object ids of the test heap. */
enum {
    S_OBJECT = 0x11, S_CLASS, S_NODE, S_INTS, S_NEXT, S_VALUE, S_ID, S_CACHE,
    S_NODES,
    C_OBJECT = 0x1000, C_CLASS = 0x1010, C_NODE = 0x1020, C_INTS = 0x1030,
    C_NODES = 0x1040,
    O_A = 0x2000, O_B = 0x2010, O_INTS = 0x2020, O_ARR = 0x2030
};

/* Node's CLASS DUMP without statics: the fields node() writes. */
static void node_class(thprof *w, uint64_t super)
{
    static const uint64_t fn[] = {S_NEXT, S_VALUE, S_ID};
    static const unsigned ft[] = {2, 11, 10};
    class_dump(w, C_NODE, super, 0, 0, NULL, NULL, 3, fn, ft);
}

/* The heap every well-formed variant holds (expect_heap). */
static void small_dump(thprof *w, unsigned idsz)
{
    header(w, idsz);
    thprof_utf8(w, S_OBJECT, "java/lang/Object");
    thprof_utf8(w, S_CLASS, "java/lang/Class");
    thprof_utf8(w, S_NODE, "Leak$Node");
    thprof_utf8(w, S_INTS, "[I");
    thprof_utf8(w, S_NEXT, "next");
    thprof_utf8(w, S_VALUE, "value");
    thprof_utf8(w, S_ID, "id");
    thprof_utf8(w, S_CACHE, "CACHE");
    thprof_utf8(w, S_NODES, "[LLeak$Node;");
    thprof_record(w, 0x05, 12); /* a STACK TRACE: skipped */
    thprof_u4(w, 1);
    thprof_u4(w, 1);
    thprof_u4(w, 0);
    thprof_load_class(w, C_OBJECT, S_OBJECT);
    thprof_load_class(w, C_CLASS, S_CLASS);
    thprof_load_class(w, C_NODE, S_NODE);
    thprof_load_class(w, C_INTS, S_INTS);
    thprof_load_class(w, C_NODES, S_NODES);
    thprof_segment_open(w);
    root(w, 0x05, C_NODE); /* sticky class */
    root(w, 0x05, C_OBJECT);
    root(w, 0x03, O_B);    /* java frame */
    class_dump(w, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    class_dump(w, C_CLASS, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    static const uint64_t st[] = {S_CACHE}, sv[] = {O_A};
    static const uint64_t fn[] = {S_NEXT, S_VALUE, S_ID};
    static const unsigned ft[] = {2, 11, 10};
    class_dump(w, C_NODE, C_OBJECT, 0, 1, st, sv, 3, fn, ft);
    class_dump(w, C_INTS, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    class_dump(w, C_NODES, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    thprof_segment_close(w);
    thprof_segment_open(w);
    node(w, O_A, C_NODE, O_B);
    node(w, O_B, C_NODE, 0);
    thprof_prims_head(w, O_INTS, 5, 10); /* int[5] */
    for (int i = 0; i < 5; i++)
        thprof_u4(w, (uint32_t)i);
    thprof_objects_head(w, O_ARR, 3, C_NODES); /* Node[3] = {A, null, B} */
    thprof_id(w, O_A);
    thprof_id(w, 0);
    thprof_id(w, O_B);
    root(w, 0x01, O_ARR); /* jni global */
    thprof_segment_close(w);
    thprof_record(w, 0x2c, 0); /* HEAP DUMP END */
}

static void import_hprof(run *R, const tbuf *in, int policy, int strict)
{
    import_mem(R, in->data, in->len, policy, SNIFF_AUTO, strict);
}

/* The heap of small_dump with ids of idsz bytes: 8, a 64-bit JVM whose
 * model is assumed (compressed references); 4, a 32-bit JVM (HotSpot
 * writes its pointer size): 8-byte headers, 12-byte array headers. */
static void expect_heap(const heap *h, unsigned idsz)
{
    /* the class objects (when the first instance comes), then the rest */
    static const struct {
        uint64_t id, size, size32;
        const char *cls, *type, *value;
    } want[] = {
        /* a mirror: java.lang.Class with its injected fields (48 bytes;
         * 32-bit: 8 + two 4-byte pointers, two ints, three references =
         * 36 -> 40), then the statics: Node's CACHE reference adds 4 */
        {C_OBJECT, 48, 40, "java.lang.Class", "class", "java.lang.Object"},
        {C_CLASS, 48, 40, "java.lang.Class", "class", "java.lang.Class"},
        {C_NODE, 56, 48, "java.lang.Class", "class", "Leak$Node"},
        {C_INTS, 48, 40, "java.lang.Class", "class", "[I"},
        {C_NODES, 48, 40, "java.lang.Class", "class", "[LLeak$Node;"},
        /* ref 4, long 8, int 4 after a 12-byte header: 28 -> 32; 32-bit:
         * long at 8, int 16, ref 20: 24 */
        {O_A, 32, 24, "Leak$Node", "instance", ""},
        {O_B, 32, 24, "Leak$Node", "instance", ""},
        /* 16 + 5 x 4 -> 40; 12 + 20 = 32 */
        {O_INTS, 40, 32, "[I", "primitive array", ""},
        /* 16 + 3 x 4 -> 32; 12 + 12 = 24 */
        {O_ARR, 32, 24, "[LLeak$Node;", "object array", ""},
    };
    cr_assert(strstr(h->model, idsz == 4 ? "hotspot 32-bit: 8-byte object "
                                           "header, 12-byte array header, "
                                           "4-byte references"
                                         : "hotspot compressed:"),
              "%s", h->model);
    want_obj as_dumped[9];
    for (size_t i = 0; i < 9; i++)
        as_dumped[i] = (want_obj){want[i].id,
                                  idsz == 4 ? want[i].size32 : want[i].size,
                                  want[i].cls, want[i].type, want[i].value};
    expect_objects(h, as_dumped, 9);
    enum { FIELD = HEAPFMT_LABEL_FIELD, OTHER = HEAPFMT_LABEL_OTHER,
           INDEX = HEAPFMT_LABEL_INDEX };
    static const want_refs held[] = {
        {C_NODE, 2, {{O_A, FIELD, 0, "CACHE"}, {C_OBJECT, OTHER, 0, "<super>"}}},
        {C_OBJECT, 0, {{0}}},
        {O_A, 1, {{O_B, FIELD, 0, "next"}}},
        {O_B, 0, {{0}}},
        {O_ARR, 2, {{O_A, INDEX, 0, "0"}, {O_B, INDEX, 0, "2"}}},
    };
    expect_refs(h, held, sizeof held / sizeof held[0]);
    cr_assert_eq(find(h, C_CLASS)->nrefs, 1);
    expect_ref(find(h, C_INTS), 0, C_OBJECT, HEAPFMT_LABEL_OTHER, 0, "<super>");
    /* written indexed (1.3): "2" listed after the null, "0" implied */
    cr_assert(find(h, O_ARR)->fields & HEAPFMT_F_INDEXED);
    cr_assert(!(find(h, O_A)->fields & HEAPFMT_F_INDEXED),
              "an instance's fields");
    cr_assert_eq(h->nroots, 3);
    cr_assert_str_eq(h->roots[0], "sticky class");
    cr_assert(h->root_n[0] == 2 && h->root_ref[0][0] == C_NODE &&
              h->root_ref[0][1] == C_OBJECT);
    cr_assert_str_eq(h->roots[1], "java frame");
    cr_assert(h->root_n[1] == 1 && h->root_ref[1][0] == O_B);
    cr_assert_str_eq(h->roots[2], "jni global");
    cr_assert(h->root_n[2] == 1 && h->root_ref[2][0] == O_ARR);
}

Test(import_hprof, small_dump_whole_and_in_pieces)
{
    static const int policies[] = {TSRC_WHOLE, TSRC_BYTE, TSRC_RANDOM};
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        thprof w;
        small_dump(&w, idsz);
        for (size_t p = 0; p < 3; p++) {
            run R;
            import_hprof(&R, &w.b, policies[p], 0);
            cr_assert_eq(R.result, IMPORT_OK, "ids of %u, policy %d: %s", idsz,
                         policies[p], R.log);
            cr_assert_eq(R.finish, HEAPFMT_OK);
            cr_assert_str_empty(R.log);
            cr_assert_eq(R.st.objects, 9);
            cr_assert_eq(R.st.roots, 3);
            /* objects 2 + 1 + 1 + 1 + 1 + 2, roots 2 + 1 + 1 */
            cr_assert_eq(R.st.refs, 12);
            cr_assert_eq(R.st.classes, 5);
            cr_assert_eq(R.st.bytes_read, w.b.len);
            cr_assert_eq(R.st.kind, SNIFF_HPROF);
            heap h;
            read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
            expect_heap(&h, idsz);
            tsink_free(&R.sink);
        }
        tbuf_free(&w.b);
    }
}

/* gzip of data in two members, as jmap -dump:gz= writes its chunks. */
static tbuf gzip_two_members(const tbuf *in)
{
    tbuf out = {0};
    size_t half = in->len / 2;
    for (int part = 0; part < 2; part++) {
        const unsigned char *p = in->data + (part ? half : 0);
        size_t n = part ? in->len - half : half;
        z_stream z;
        memset(&z, 0, sizeof z);
        cr_assert_eq(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
                                  Z_DEFAULT_STRATEGY), Z_OK);
        unsigned char buf[1 << 16];
        z.next_in = (Bytef *)(uintptr_t)p;
        z.avail_in = (uInt)n;
        int rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            rc = deflate(&z, Z_FINISH);
            tbuf_put(&out, buf, sizeof buf - z.avail_out);
        } while (rc == Z_OK);
        cr_assert_eq(rc, Z_STREAM_END);
        deflateEnd(&z);
    }
    return out;
}

Test(import_hprof, gzip_members_are_read_one_after_another)
{
    thprof w;
    small_dump(&w, 8);
    tbuf gz = gzip_two_members(&w.b);
    run R;
    import_hprof(&R, &gz, TSRC_RANDOM, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert(R.st.gzip);
    cr_assert_eq(R.st.bytes_json, w.b.len);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    expect_heap(&h, 8);
    tsink_free(&R.sink);
    tbuf_free(&gz);
    tbuf_free(&w.b);
}

Test(import_hprof, cut_at_every_byte)
{
    thprof w;
    small_dump(&w, 8);
    for (rereadable = 0; rereadable <= 1; rereadable++) {
    uint64_t last = 0;
    for (size_t cut = 0; cut < w.b.len; cut++) {
        run R;
        import_mem(&R, w.b.data, cut, TSRC_WHOLE, SNIFF_HPROF, 0);
        cr_assert_neq(R.result, IMPORT_OK, "cut at %zu", cut);
        cr_assert_leq(R.st.objects, 9);
        cr_assert_geq(R.st.objects, last, "cut at %zu: fewer objects", cut);
        last = R.st.objects;
        cr_assert_gt(R.errors + (R.log[0] != '\0'), 0, "cut at %zu: silent", cut);
        if (R.result == IMPORT_INCOMPLETE) {
            cr_assert_eq(R.finish, HEAPFMT_OK);
            cr_assert(strstr(R.log, "byte ") != NULL, "%s", R.log);
        }
        tsink_free(&R.sink);
    }
    cr_assert_eq(last, 9); /* only the last record's end was missing */
    }
    rereadable = 0;
    tbuf_free(&w.b);
}

/* Rewrites the dump's bytes at the offset of the first occurrence of
 * `find` (len bytes) after `after`, to `repl`. Returns the offset. */
static size_t patch(tbuf *b, size_t after, const void *find_bytes, size_t len,
                    const void *repl)
{
    for (size_t i = after; i + len <= b->len; i++)
        if (memcmp(b->data + i, find_bytes, len) == 0) {
            memcpy(b->data + i, repl, len);
            return i;
        }
    cr_assert_fail("pattern not found");
    return 0;
}

Test(import_hprof, damage_is_named_with_its_offset)
{
    thprof w;
    small_dump(&w, 8);
    /* the first INSTANCE DUMP: tag 0x21 then O_A's id */
    static const unsigned char inst[] = {0x21, 0, 0, 0, 0, 0, 0, 0x20, 0x00};
    static const struct {
        unsigned char repl[9];
        const char *says;
    } cases[] = {
        /* an unknown sub-record tag: nothing can be read after it */
        {{0x77, 0, 0, 0, 0, 0, 0, 0x20, 0x00},
         "heap dump sub-record of unknown tag 0x77"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tbuf b = {0};
        tbuf_put(&b, w.b.data, w.b.len);
        size_t off = patch(&b, 0, inst, sizeof inst, cases[i].repl);
        run R;
        import_hprof(&R, &b, TSRC_WHOLE, 0);
        cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
        char want[128];
        snprintf(want, sizeof want, "byte %zu: %s", off, cases[i].says);
        cr_assert(strstr(R.log, want) != NULL, "want '%s' in %s", want, R.log);
        cr_assert_eq(R.st.objects, 5); /* the class objects, before it */
        tsink_free(&R.sink);
        tbuf_free(&b);
    }
    tbuf_free(&w.b);
}

/* A dump of one segment holding the sub-record bytes sub[0..n). */
static void one_record(thprof *w, const unsigned char *sub, size_t n)
{
    header(w, 8);
    thprof_segment_open(w);
    tbuf_put(&w->b, sub, n);
    thprof_segment_close(w);
}

Test(import_hprof, claimed_lengths_do_not_allocate)
{
    /* an object array of 2^32 - 1 elements, an instance of 4 GiB, a
     * primitive array of 2^32 - 1 longs, in a segment of a few bytes */
    static const unsigned char arr[] = {
        0x22, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
        0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3};
    static const unsigned char ins[] = {
        0x21, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
        0xff, 0xff, 0xff, 0xff, 1, 2, 3};
    static const unsigned char pa[] = {
        0x23, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 11,
        1, 2, 3};
    const unsigned char *subs[] = {arr, ins, pa};
    size_t lens[] = {sizeof arr, sizeof ins, sizeof pa};
    for (size_t i = 0; i < 3; i++) {
        thprof w;
        one_record(&w, subs[i], lens[i]);
        run R;
        import_hprof(&R, &w.b, TSRC_WHOLE, 0);
        cr_assert_eq(R.result, IMPORT_FAILED, "%s", R.log);
        cr_assert(strstr(R.log, "runs past the end of its heap dump record"),
                  "case %zu: %s", i, R.log);
        tsink_free(&R.sink);
        /* the same in a segment that claims 4 GiB: cut, not allocated */
        w.b.data[w.seg_len_at] = 0xff;
        w.b.data[w.seg_len_at + 1] = 0xff;
        import_hprof(&R, &w.b, TSRC_WHOLE, 0);
        cr_assert_eq(R.result, IMPORT_FAILED, "%s", R.log);
        cr_assert(strstr(R.log, "byte "), "case %zu: %s", i, R.log);
        tsink_free(&R.sink);
        tbuf_free(&w.b);
    }
}

Test(import_hprof, instances_the_importer_cannot_decode_are_kept)
{
    /* an instance of a class never dumped, and one whose bytes are
     * shorter than its class says: both written, without references */
    thprof w;
    header(&w, 8);
    thprof_utf8(&w, S_NEXT, "next");
    thprof_segment_open(&w);
    static const uint64_t fn[] = {S_NEXT};
    static const unsigned ft[] = {2};
    class_dump(&w, C_NODE, 0, 0, 0, NULL, NULL, 1, fn, ft);
    node(&w, O_A, 0x5555, O_B); /* class 0x5555: never dumped */
    /* of C_NODE, 4 bytes where 8 are due */
    thprof_instance_head(&w, O_B, C_NODE, 4);
    thprof_u4(&w, 0);
    thprof_segment_close(&w);
    run R;
    import_hprof(&R, &w.b, TSRC_WHOLE, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "1 instances of classes not dumped before them"),
              "%s", R.log);
    cr_assert(strstr(R.log, "1 instances whose field bytes disagree"), "%s",
              R.log);
    cr_assert_eq(R.st.objects, 3);
    tsink_free(&R.sink);
    import_hprof(&R, &w.b, TSRC_WHOLE, 1);
    cr_assert_eq(R.result, IMPORT_FAILED, "--strict: %s", R.log);
    tsink_free(&R.sink);
    tbuf_free(&w.b);
}

Test(import_hprof, a_class_chain_that_loops_is_not_followed)
{
    /* A extends B extends A: no layout, no endless walk */
    thprof w;
    header(&w, 8);
    thprof_segment_open(&w);
    class_dump(&w, 0xa0, 0xb0, 0, 0, NULL, NULL, 0, NULL, NULL);
    class_dump(&w, 0xb0, 0xa0, 0, 0, NULL, NULL, 0, NULL, NULL);
    node(&w, O_A, 0xa0, 0);
    thprof_segment_close(&w);
    run R;
    import_hprof(&R, &w.b, TSRC_WHOLE, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert_eq(R.st.objects, 3);
    tsink_free(&R.sink);
    tbuf_free(&w.b);
}

/* An instance of the last of `depth` classes, each extending the one
 * before and declaring one reference field: how many references it got. */
static uint64_t refs_at_depth(unsigned depth, run *R)
{
    thprof w;
    header(&w, 8);
    thprof_utf8(&w, S_NEXT, "next");
    thprof_segment_open(&w);
    static const uint64_t fn[] = {S_NEXT};
    static const unsigned ft[] = {2};
    for (unsigned i = 0; i < depth; i++)
        class_dump(&w, 0x100 + i, i ? 0x100 + i - 1 : 0, 0, 0, NULL, NULL, 1,
                   fn, ft);
    thprof_instance_head(&w, O_A, 0x100 + depth - 1, 8 * depth);
    for (unsigned i = 0; i < depth; i++)
        thprof_id(&w, O_B);
    thprof_segment_close(&w);
    thprof_record(&w, 0x2c, 0);
    import_hprof(R, &w.b, TSRC_WHOLE, 0);
    tbuf_free(&w.b);
    return R->st.refs - (depth - 1); /* less the <super> of each class */
}

Test(import_hprof, class_chains_are_decoded_up_to_64_deep)
{
    /* the slots of a whole chain are kept per class: memory grows with
     * depth x fields, so the depth is bounded (the JDK's are about 10) */
    run R;
    cr_assert_eq(refs_at_depth(64, &R), 64);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    tsink_free(&R.sink);
    cr_assert_eq(refs_at_depth(65, &R), 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "(or in chains over 64 deep)"), "%s", R.log);
    tsink_free(&R.sink);
}

Test(import_hprof, headers_that_are_not_hprof)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *says;
    } cases[] = {
        {"JAVA PROFILE 1.0.2\0\0\0\0\3\0\0\0\0\0\0\0\0", 31, "identifier size 3"},
        {"JAVA PROFILE 1.0.2", 18, "truncated dump"},
        {"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0", 31,
         "the dump has no heap records"},
        {"{\"address\":\"0x1\"}\n", 18, "not an HPROF dump"},
        /* Android's (test_import_android.c has its records) */
        {"JAVA PROFILE 1.0.3\0\0\0\0\x04\0\0\0\0\0\0\0\0", 31,
         "the dump has no heap records"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run R;
        import_mem(&R, cases[i].bytes, cases[i].len, TSRC_WHOLE, SNIFF_HPROF, 0);
        cr_assert_eq(R.result, IMPORT_FAILED, "case %zu: %s", i, R.log);
        cr_assert(strstr(R.log, cases[i].says), "case %zu: %s", i, R.log);
        tsink_free(&R.sink);
    }
}

Test(import_hprof, sniffed_plain_and_gzip)
{
    thprof w;
    small_dump(&w, 8);
    cr_assert_eq(sniff_kind((const char *)w.b.data, SNIFF_LEN), SNIFF_HPROF);
    tbuf gz = gzip_two_members(&w.b);
    cr_assert_eq(sniff_kind((const char *)gz.data, SNIFF_LEN), SNIFF_HPROF);
    cr_assert_eq(sniff_kind("\x1f\x8b", 2), SNIFF_RUBY);
    tbuf_free(&gz);
    tbuf_free(&w.b);
}

/* ---- real-world shapes (issue 32) ------------------------------------- */

/* small_dump's records twice, as the hprof agent writes a dump per
 * request: two groups of segments, each closed by HEAP DUMP END; the
 * second has one more Node. */
static void two_dumps(thprof *w)
{
    small_dump(w, 8);
    thprof_segment_open(w);
    class_dump(w, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    node_class(w, C_OBJECT);
    node(w, O_A, C_NODE, O_B);
    node(w, O_B, C_NODE, 0x3000);
    node(w, 0x3000, C_NODE, 0);
    root(w, 0x03, O_A);
    thprof_segment_close(w);
    thprof_record(w, 0x2c, 0);
}

Test(import_hprof, two_heap_dumps_are_never_merged)
{
    thprof w;
    two_dumps(&w);
    /* where the second dump begins: the 0x1c after the first 0x2c */
    size_t second = 0;
    for (size_t i = 0; i + 9 < w.b.len; i++)
        if (w.b.data[i] == 0x2c && w.b.data[i + 9] == 0x1c &&
            memcmp(w.b.data + i + 1, "\0\0\0\0\0\0\0\0", 8) == 0)
            second = i + 9;
    cr_assert_gt(second, 0);
    char listed[128];
    for (rereadable = 0; rereadable <= 1; rereadable++) {
        size_t first = 0; /* the first segment, after the names */
        while (w.b.data[first] != 0x1c || first < 31)
            first++;
        snprintf(listed, sizeof listed, "warning: the input holds 2 heap "
                 "dumps (at bytes %zu, %zu): imported dump 1 alone", first,
                 second);
        run R;
        import_hprof(&R, &w.b, TSRC_RANDOM, 0);
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        cr_assert(strstr(R.log, listed), "want '%s' in %s", listed, R.log);
        heap h;
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
        expect_heap(&h, 8); /* the first dump alone, not doubled */
        tsink_free(&R.sink);

        dump_option = 2;
        import_hprof(&R, &w.b, TSRC_RANDOM, 0);
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        cr_assert(strstr(R.log, "imported dump 2 alone"), "%s", R.log);
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
        cr_assert_eq(h.no, 2 + 3); /* its two classes, its three Nodes */
        cr_assert_eq(find(&h, 0x3000)->size, 32);
        expect_ref(find(&h, O_B), 0, 0x3000, HEAPFMT_LABEL_FIELD, 0, "next");
        cr_assert_eq(h.nroots, 1);
        cr_assert(h.root_n[0] == 1 && h.root_ref[0][0] == O_A);
        tsink_free(&R.sink);

        dump_option = 3;
        import_hprof(&R, &w.b, TSRC_RANDOM, 0);
        cr_assert_eq(R.result, IMPORT_FAILED, "%s", R.log);
        snprintf(listed, sizeof listed, "--dump=3: the input holds 2 heap "
                 "dumps (at bytes %zu, %zu)", first, second);
        cr_assert(strstr(R.log, listed), "want '%s' in %s", listed, R.log);
        dump_option = 0;
    }
    rereadable = 0;
    tbuf_free(&w.b);
}

/* The names of Leak$Node and its fields, and its LOAD CLASS. */
static void node_class_names(thprof *w)
{
    thprof_utf8(w, S_NODE, "Leak$Node");
    thprof_utf8(w, S_NEXT, "next");
    thprof_utf8(w, S_VALUE, "value");
    thprof_utf8(w, S_ID, "id");
    thprof_load_class(w, C_NODE, S_NODE);
}

Test(import_hprof, instances_before_their_class_keep_references_from_a_file)
{
    /* the hprof agent: CONTROL SETTINGS, then instances of Node before
     * Node's CLASS DUMP */
    thprof w;
    header(&w, 4);
    thprof_record(&w, 0x0e, 6);
    thprof_u4(&w, 0);
    thprof_u2(&w, 2);
    node_class_names(&w);
    thprof_segment_open(&w);
    node(&w, O_A, C_NODE, O_B);
    node(&w, O_B, C_NODE, O_A);
    node_class(&w, 0);
    thprof_segment_close(&w);
    thprof_record(&w, 0x2c, 0);
    /* a pipe: read once, the references are lost, and the warning says so */
    run R;
    import_hprof(&R, &w.b, TSRC_RANDOM, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "2 instances of classes not dumped before them "
                     "(or in chains over 64 deep): written without references "
                     "(the input was read once, as a pipe is"), "%s", R.log);
    tsink_free(&R.sink);
    /* a file: read twice, every reference kept */
    rereadable = 1;
    import_hprof(&R, &w.b, TSRC_RANDOM, 0);
    rereadable = 0;
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert_str_empty(R.log);
    cr_assert(R.st.two_pass);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    expect_ref(find(&h, O_A), 0, O_B, HEAPFMT_LABEL_FIELD, 0, "next");
    expect_ref(find(&h, O_B), 0, O_A, HEAPFMT_LABEL_FIELD, 0, "next");
    /* the agent's ids are its own numbers: 4 bytes on any JVM, no model
     * detected from them */
    cr_assert(strstr(h.model, "hotspot compressed:") &&
              strstr(h.model, "assumed: the hprof agent's dumps do not say"),
              "%s", h.model);
    cr_assert_eq(find(&h, O_A)->size, 32);
    tsink_free(&R.sink);
    tbuf_free(&w.b);
}

/* An instance dumped twice (issue 31): the second gets a new id from the
 * top of the range down, the import says so, its output verifies
 * (import_mem runs heapfmt-info --verify), and references to the id go to
 * the first. */
Test(import_hprof, a_repeated_instance_id_gets_a_new_one)
{
    thprof w;
    header(&w, 8);
    node_class_names(&w);
    thprof_segment_open(&w);
    node_class(&w, 0);
    node(&w, O_A, C_NODE, O_B);
    node(&w, O_B, C_NODE, O_A);
    node(&w, O_A, C_NODE, 0); /* O_A again */
    thprof_segment_close(&w);
    thprof_record(&w, 0x2c, 0);
    for (rereadable = 0; rereadable <= 1; rereadable++) {
        run R;
        import_hprof(&R, &w.b, TSRC_RANDOM, 0);
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        char want[160];
        snprintf(want, sizeof want, "warning: 1 object repeats the id of an "
                 "earlier one (the first: %#x)", (unsigned)O_A);
        cr_assert(strstr(R.log, want), "want '%s' in %s", want, R.log);
        heap h;
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
        expect_ref(find(&h, O_A), 0, O_B, HEAPFMT_LABEL_FIELD, 0, "next");
        expect_ref(find(&h, O_B), 0, O_A, HEAPFMT_LABEL_FIELD, 0, "next");
        cr_assert_eq(find(&h, UINT64_MAX)->nrefs, 0, "the repeat, renamed");
        tsink_free(&R.sink);
    }
    rereadable = 0;
    tbuf_free(&w.b);
}

/* A 64-bit dump whose arrays sit where the model puts them: int[k] for
 * k = 1..9, each followed by the next at its end under model m. */
static void arrays_at(thprof *w, const jl_model *m)
{
    header(w, 8);
    thprof_segment_open(w);
    uint64_t at = 0x800000000ull;
    static const unsigned char zero[64];
    for (unsigned k = 1; k <= 9; k++) {
        thprof_prims(w, at, k, 10, zero, 4 * k);
        at += jl_array_size(m, k, 4);
    }
    thprof_segment_close(w);
    thprof_record(w, 0x2c, 0);
}

Test(import_hprof, the_jvm_model_is_detected_from_addresses)
{
    static const jl_model *const models[] = {&jl_compressed, &jl_wide};
    for (size_t i = 0; i < 2; i++) {
        thprof w;
        arrays_at(&w, models[i]);
        rereadable = 1;
        run R;
        import_hprof(&R, &w.b, TSRC_WHOLE, 0);
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        heap h;
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
        char want[128];
        snprintf(want, sizeof want, "hotspot %s:", models[i]->name);
        cr_assert(strstr(h.model, want), "%s", h.model);
        cr_assert(strstr(h.model, "(detected: 8 of 8 arrays followed by an "
                         "object end where it begins"), "%s", h.model);
        cr_assert_eq(h.o[0].size, jl_array_size(models[i], 1, 4));
        tsink_free(&R.sink);
        /* --jvm overrides */
        jvm_option = "32-bit";
        import_hprof(&R, &w.b, TSRC_WHOLE, 0);
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
        cr_assert(strstr(h.model, "hotspot 32-bit:") && strstr(h.model, "(--jvm)"),
                  "%s", h.model);
        cr_assert_eq(h.o[0].size, 16); /* 12 + 4 */
        tsink_free(&R.sink);
        jvm_option = NULL;
        /* a pipe: the model is chosen before the first object; the votes
         * say at the end whether it was the right one */
        rereadable = 0;
        import_hprof(&R, &w.b, TSRC_WHOLE, 0);
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        if (models[i] == &jl_wide)
            cr_assert(strstr(R.log, "sizes follow the compressed model, but 8 "
                             "of 8 arrays followed by an object end where it "
                             "begins under the wide model"), "%s", R.log);
        else
            cr_assert_str_empty(R.log);
        tsink_free(&R.sink);
        tbuf_free(&w.b);
    }
}

Test(import_hprof, previews_of_strings_decode_latin1_and_utf16)
{
    thprof w;
    header(&w, 8);
    thprof_segment_open(&w);
    /* compact String, coder 0: "café" in Latin-1; a UTF-8 byte[]; a
     * char[] (a String before JDK 9): "é€😀" and an unpaired surrogate */
    thprof_prims(&w, 0x100, 4, 8, "caf\xe9", 4);
    thprof_prims(&w, 0x200, 5, 8, "caf\xc3\xa9", 5);
    static const unsigned char chars[] = {0x00, 0xe9, 0x20, 0xac, 0xd8, 0x3d,
                                          0xde, 0x00, 0xd8, 0x00, 0x00, 0x41};
    thprof_prims(&w, 0x300, 6, 5, chars, sizeof chars);
    /* a Latin-1 byte[] longer than the preview: whole characters only */
    unsigned char e9[40];
    memset(e9, 0xe9, sizeof e9);
    thprof_prims(&w, 0x400, 40, 8, e9, sizeof e9);
    thprof_segment_close(&w);
    thprof_record(&w, 0x2c, 0);
    run R;
    size_t keep = preview;
    preview = 8;
    import_hprof(&R, &w.b, TSRC_BYTE, 0);
    preview = keep;
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    cr_assert_str_eq(find(&h, 0x100)->value, "caf\xc3\xa9");
    cr_assert_str_eq(find(&h, 0x200)->value, "caf\xc3\xa9");
    cr_assert_str_eq(find(&h, 0x300)->value,
                     "\xc3\xa9\xe2\x82\xac"); /* the 4-byte emoji: over 8 */
    cr_assert_str_eq(find(&h, 0x400)->value, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    tsink_free(&R.sink);
    preview = 64;
    import_hprof(&R, &w.b, TSRC_WHOLE, 0);
    preview = keep;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    cr_assert_str_eq(find(&h, 0x300)->value,
                     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd" "A");
    tsink_free(&R.sink);
    tbuf_free(&w.b);
}

/* The referent of a java.lang.ref.Reference (weak, soft, phantom, final:
 * subclasses) is a weak reference, as MAT counts it by default; its other
 * fields, and a field of another class that has the same name, are not. */
Test(import_hprof, the_referent_of_a_reference_is_weak)
{
    enum { S_REF = 0x31, S_WEAK, S_HOLDER, S_REFERENT, S_QUEUE,
           C_REF = 0x3000, C_WEAK = 0x3010, C_HOLDER = 0x3020,
           O_WEAK = 0x4000, O_HOLDER = 0x4010, O_X = 0x4020, O_Q = 0x4030 };
    thprof w;
    header(&w, 8);
    thprof_utf8(&w, S_REF, "java/lang/ref/Reference");
    thprof_utf8(&w, S_WEAK, "java/lang/ref/WeakReference");
    thprof_utf8(&w, S_HOLDER, "Holder");
    thprof_utf8(&w, S_REFERENT, "referent");
    thprof_utf8(&w, S_QUEUE, "queue");
    thprof_load_class(&w, C_REF, S_REF);
    thprof_load_class(&w, C_WEAK, S_WEAK);
    thprof_load_class(&w, C_HOLDER, S_HOLDER);
    thprof_segment_open(&w);
    static const uint64_t fn[] = {S_REFERENT, S_QUEUE};
    static const unsigned ft[] = {2, 2};
    class_dump(&w, C_REF, 0, 0, 0, NULL, NULL, 2, fn, ft);
    class_dump(&w, C_WEAK, C_REF, 0, 0, NULL, NULL, 0, NULL, NULL);
    class_dump(&w, C_HOLDER, 0, 0, 0, NULL, NULL, 1, fn, ft);
    /* a WeakReference to O_X, queue O_Q */
    thprof_instance_head(&w, O_WEAK, C_WEAK, 16);
    thprof_id(&w, O_X);
    thprof_id(&w, O_Q);
    /* a Holder whose own "referent" is O_X */
    thprof_instance_head(&w, O_HOLDER, C_HOLDER, 8);
    thprof_id(&w, O_X);
    thprof_segment_close(&w);
    thprof_record(&w, 0x2c, 0);
    run R;
    import_hprof(&R, &w.b, TSRC_WHOLE, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    const obj *wr = find(&h, O_WEAK);
    cr_assert_eq(wr->nrefs, 2);
    expect_ref(wr, 0, O_X, HEAPFMT_LABEL_FIELD, 1, "referent");
    expect_ref(wr, 1, O_Q, HEAPFMT_LABEL_FIELD, 0, "queue");
    const obj *ho = find(&h, O_HOLDER);
    cr_assert_eq(ho->nrefs, 1);
    expect_ref(ho, 0, O_X, HEAPFMT_LABEL_FIELD, 0, "referent");
    tsink_free(&R.sink);
    tbuf_free(&w.b);
}

/* ---- gzip on the reading thread (issue 39) ----------------------------- */

/* small_dump's classes, then n Nodes in a chain and an int[] every 16th
 * with varied values: megabytes that gzip to several slabs of the
 * reading thread (tools/import/gunzip.h), both passes. */
static void many_nodes(thprof *w, uint32_t n)
{
    small_dump(w, 8);
    w->b.len -= 9; /* its HEAP DUMP END comes after */
    thprof_segment_open(w);
    for (uint32_t i = 0; i < n; i++) {
        node(w, 0x100000 + 16 * (uint64_t)i, C_NODE,
             i + 1 < n ? 0x100000 + 16 * (uint64_t)(i + 1) : 0);
        if (i % 16 == 0) {
            uint32_t k = 1 + i % 29;
            thprof_prims_head(w, 0x40000000 + (uint64_t)i, k, 10);
            for (uint32_t j = 0; j < k; j++)
                thprof_u4(w, i * 2654435761u + j);
        }
    }
    root(w, 0x01, 0x100000);
    thprof_segment_close(w);
    thprof_record(w, 0x2c, 0);
}

/* The import of in, from a file (read twice) or not, on one core or on
 * all those the test may use: one core means no reading thread. */
static void import_on(run *R, const tbuf *in, int file, int one_core)
{
    cpu_set_t all, one;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (one_core) {
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all)) {
                CPU_SET(c, &one);
                break;
            }
        cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    }
    rereadable = file;
    import_mem(R, in->data, in->len, TSRC_RANDOM, SNIFF_AUTO, 0);
    rereadable = 0;
    if (one_core)
        cr_assert_eq(sched_setaffinity(0, sizeof all, &all), 0);
}

/* Two imports gave the same: result, diagnostics, dump bytes. */
static void same_import(const run *a, const run *b, const char *what)
{
    cr_assert_eq(a->result, b->result, "%s: %d, %d", what, a->result,
                 b->result);
    cr_assert_str_eq(a->log, b->log, "%s", what);
    cr_assert_eq(a->sink.out.len, b->sink.out.len, "%s: dump of %zu, %zu",
                 what, a->sink.out.len, b->sink.out.len);
    cr_assert_eq(memcmp(a->sink.out.data, b->sink.out.data, a->sink.out.len),
                 0, "%s: dump bytes", what);
    cr_assert_eq(a->st.bytes_json, b->st.bytes_json, "%s", what);
}

Test(import_hprof, gzip_imports_as_its_plain_form_with_or_without_thread,
     .timeout = 120)
{
    thprof w;
    many_nodes(&w, 150000);
    cr_assert_gt(w.b.len, 6 * GZ_SLAB, "several slabs: %zu", w.b.len);
    tbuf gz = gzip_two_members(&w.b);
    for (int file = 0; file <= 1; file++) {
        run plain, threaded, serial;
        import_on(&plain, &w.b, file, 0);
        cr_assert_eq(plain.result, IMPORT_OK, "%s", plain.log);
        cr_assert_eq(plain.st.objects, 9 + 150000 + 150000 / 16);
        import_on(&threaded, &gz, file, 0);
        import_on(&serial, &gz, file, 1);
        same_import(&threaded, &plain, "gzip, reading thread");
        same_import(&serial, &plain, "gzip, one core");
        cr_assert(threaded.st.gzip && serial.st.gzip);
        cr_assert_eq(threaded.st.bytes_read, gz.len);
        cr_assert_eq(serial.st.bytes_read, gz.len);
        tsink_free(&plain.sink);
        tsink_free(&threaded.sink);
        tsink_free(&serial.sink);
    }
    tbuf_free(&gz);
    tbuf_free(&w.b);
}

Test(import_hprof, cut_or_damaged_gzip_says_the_same_with_or_without_thread,
     .timeout = 120)
{
    thprof w;
    many_nodes(&w, 150000);
    tbuf gz = gzip_two_members(&w.b);
    /* cut inside the first member, inside the second, in the trailer;
     * damaged data; a damaged CRC (the last member's trailer) */
    size_t cuts[] = {gz.len / 3, 2 * gz.len / 3, gz.len - 3};
    size_t flips[] = {gz.len / 4, gz.len - 6};
    static const char *const says[] = {
        "compressed input ends early (truncated)",
        "damaged compressed input"};
    for (size_t k = 0; k < 5; k++) {
        tbuf bad = {0};
        tbuf_put(&bad, gz.data, k < 3 ? cuts[k] : gz.len);
        if (k >= 3)
            bad.data[flips[k - 3]] ^= 0x55;
        for (int file = 0; file <= 1; file++) {
            run threaded, serial;
            import_on(&threaded, &bad, file, 0);
            import_on(&serial, &bad, file, 1);
            cr_assert_neq(threaded.result, IMPORT_OK, "case %zu", k);
            /* a flip in the data may first make a record wrong */
            if (k != 3)
                cr_assert(strstr(threaded.log, says[k < 3 ? 0 : 1]),
                          "case %zu: %s", k, threaded.log);
            same_import(&threaded, &serial, k < 3 ? "cut" : "damaged");
            tsink_free(&threaded.sink);
            tsink_free(&serial.sink);
        }
        tbuf_free(&bad);
    }
    tbuf_free(&gz);
    tbuf_free(&w.b);
}
