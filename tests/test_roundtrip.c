/*
 * test_roundtrip.c -- every record kind and field through writer and
 * reader, with the footer checked against what was written.
 *
 * Most tests are rows of rt_cases: writer options, what the case writes
 * through the model (which knows what must come back), and what else to
 * check when reading it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"
#include "ttext.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct rt {
    tmodel m;
    tsink s;
    heapfmt_writer *w;
    void *owned; /* a buffer of the case's, freed by rt_close */
} rt;

static void rt_open_opt(rt *t, const heapfmt_writer_options *o)
{
    heapfmt_writer_options opt = *o;
    tmodel_init(&t->m);
    tsink_init(&t->s);
    t->w = NULL;
    t->owned = NULL;
    TASSERT_OK(heapfmt_writer_open(&t->w, &opt, tsink_write, &t->s));
    cr_assert_not_null(t->w);
}

static void rt_open(rt *t, int level, uint32_t block_size)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = block_size;
    rt_open_opt(t, &opt);
}

static void rt_close(rt *t)
{
    heapfmt_writer_free(t->w);
    tmodel_free(&t->m);
    tsink_free(&t->s);
    free(t->owned);
}

/* Checks the file layout of a complete dump against its footer: block
 * index entries point at 'D' headers, the blocks are contiguous, the last
 * one ends where the footer block starts, which ends at the trailer.
 * Checks every delivered record's offset against the index. */
static void check_layout(const tbuf *out, const tcapture *c)
{
    const unsigned char *d = out->data;
    cr_assert_geq(out->len, 16 + 24);
    cr_assert(c->have_footer, "no footer");
    const tfooter *f = &c->footer;
    uint64_t footer_at = tget_u64le(d + out->len - 24);
    cr_assert_lt(footer_at, out->len - 24);
    cr_assert_eq(d[footer_at], 'F', "footer offset %llu is not an 'F' block",
                 (unsigned long long)footer_at);
    cr_assert_eq(footer_at + 20 + tget_u32le(d + footer_at + 8),
                 out->len - 24, "footer block does not end at the trailer");
    uint64_t expect = 16;
    for (size_t i = 0; i < f->nblocks; i++) {
        uint64_t off = f->blocks[i].offset;
        cr_assert_eq(off, expect, "block %zu at %llu, expected %llu", i,
                     (unsigned long long)off, (unsigned long long)expect);
        cr_assert_lt(off + 20, footer_at);
        cr_assert_eq(d[off], 'D', "block %zu at %llu is not a 'D' block", i,
                     (unsigned long long)off);
        expect = off + 20 + tget_u32le(d + off + 8);
    }
    cr_assert_eq(expect, footer_at, "data blocks end at %llu, footer at %llu",
                 (unsigned long long)expect, (unsigned long long)footer_at);
    /* record offsets */
    size_t r = 0;
    for (size_t i = 0; i < f->nblocks; i++) {
        for (uint64_t k = 0; k < f->blocks[i].records; k++, r++) {
            cr_assert_lt(r, c->recs.n);
            cr_assert_eq(c->recs.v[r].offset, f->blocks[i].offset,
                         "record %zu has offset %llu, its block is at %llu",
                         r, (unsigned long long)c->recs.v[r].offset,
                         (unsigned long long)f->blocks[i].offset);
        }
    }
    cr_assert_eq(r, c->recs.n);
}

/* Finishes, reads back, compares everything. */
static void rt_verify(rt *t)
{
    char why[512];
    TASSERT_OK(tmodel_finish(&t->m, t->w));
    cr_assert_eq(heapfmt_writer_offset(t->w), (uint64_t)t->s.out.len);
    cr_assert_eq(t->m.bad, 0, "%s", t->m.why);
    tcapture c;
    tcapture_memory(&c, t->s.out.data, t->s.out.len, 0);
    TASSERT_CAPTURE_DONE(&c);
    cr_assert_eq(c.major, 1);
    cr_assert_eq(c.minor, HEAPFMT_FORMAT_MINOR);
    cr_assert_eq(treclist_equal(&t->m.exp, &c.recs, TCMP_INDEX, why,
                                sizeof why),
                 0, "%s", why);
    TASSERT_OK(c.footer_rc);
    cr_assert_eq(tmodel_check_footer(&t->m, &c.footer, why, sizeof why), 0,
                 "%s", why);
    check_layout(&t->s.out, &c);
    tcapture_free(&c);
}

/* ---- tests ----------------------------------------------------------------- */

Test(roundtrip, library_version)
{
    cr_assert_str_eq(heapfmt_version(), HEAPFMT_LIB_VERSION_STRING);
}

Test(roundtrip, strerror_covers_every_status)
{
    static const int codes[] = {
#define RT_CODE(name, value, msg) value,
        HEAPFMT_STATUS_LIST(RT_CODE)
#undef RT_CODE
    };
    static const char *const msgs[] = {
#define RT_MSG(name, value, msg) msg,
        HEAPFMT_STATUS_LIST(RT_MSG)
#undef RT_MSG
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = heapfmt_strerror(codes[i]);
        cr_assert_not_null(s);
        cr_assert_str_eq(s, msgs[i], "strerror(%d)", codes[i]);
    }
    cr_assert_str_eq(heapfmt_strerror(-99), "unknown status");
    cr_assert_str_eq(heapfmt_strerror(2), "unknown status");
    /* fixed values (header: "Values are fixed forever") */
    cr_assert_eq(HEAPFMT_E_NO_FOOTER, -10);
    cr_assert_eq(HEAPFMT_DONE, 1);
}




/* ---- what each case writes and reads ---------------------------------- */

/* A reader over the case's dump. */
static heapfmt_reader *rt_reader(const rt *t)
{
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, t->s.out.data,
                                          t->s.out.len));
    return r;
}

/* A reader over the case's dump that has read every record. */
static heapfmt_reader *rt_drained(const rt *t)
{
    heapfmt_reader *r = rt_reader(t);
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        ;
    TASSERT_RC(rc, HEAPFMT_DONE);
    return r;
}

static const heapfmt_rclass *class_by_index(heapfmt_reader *r, uint32_t index)
{
    size_t n = heapfmt_reader_class_count(r);
    for (size_t i = 0; i < n; i++) {
        const heapfmt_rclass *k = heapfmt_reader_class(r, i);
        cr_assert_not_null(k, "class slot %zu is NULL", i);
        cr_assert_eq(k->slot, i);
        if (k->index == index)
            return k;
    }
    return NULL;
}






static void big_string_write(rt *t)
{
    size_t n = 1u << 20;
    char *big = malloc(n);
    cr_assert_not_null(big);
    t->owned = big; /* freed by rt_close, after rt_verify */
    tprng r;
    tprng_seed(&r, 7);
    for (size_t i = 0; i < n; i++)
        big[i] = (i % 4096) < 100 ? (char)tprng_below(&r, 256) : (char)('a' + i % 26);
    uint32_t id;
    TASSERT_OK(tmodel_string(&t->m, t->w, big, n, &id));
    cr_assert_geq(id, 1);
    /* the same text again: same id, no record */
    uint32_t again;
    TASSERT_OK(tmodel_string(&t->m, t->w, big, n, &again));
    cr_assert_eq(again, id);
    heapfmt_object o = { 0 };
    o.id = 0x1000;
    o.size = n + 40;
    o.fields = HEAPFMT_F_VALUE;
    o.value = big;
    o.value_len = n;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
}

static void empty_dump_write(rt *t)
{
    (void)t;
}

static void empty_dump_read(rt *t)
{
    /* END only: one data block holding one record */
    tcapture c;
    tcapture_memory(&c, t->s.out.data, t->s.out.len, 0);
    cr_assert_eq(c.recs.n, 1);
    cr_assert_eq(c.recs.v[0].tag, HEAPFMT_TAG_END);
    cr_assert_eq(c.footer.nblocks, 1);
    cr_assert_eq(c.footer.nclasses, 0);
    cr_assert_eq(c.footer.totals.objects, 0);
    cr_assert_eq(c.footer.totals.records, 0);
    tcapture_free(&c);
}

static void zero_objects_with_metadata_write(rt *t)
{
    TASSERT_OK(tmodel_meta_text(&t->m, t->w, "producer", "rt 1.0"));
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "pid", 4242));
    uint32_t id;
    TASSERT_OK(tmodel_string(&t->m, t->w, "vm", 2, &id));
    TASSERT_OK(tmodel_root(&t->m, t->w, id, NULL, 0));
}

static void extreme_ids_and_wrapping_refs_write(rt *t)
{
    static const uint64_t ids[] = {
        0, UINT64_MAX, 1, UINT64_MAX - 1, 1ULL << 63, (1ULL << 63) - 1,
        0, 0, UINT64_MAX, UINT64_MAX, 0x00007f0000001000ULL,
    };
    size_t n = sizeof ids / sizeof ids[0];
    for (size_t i = 0; i < n; i++) {
        heapfmt_object o = { 0 };
        o.id = ids[i];
        o.size = 40;
        /* refs that wrap around in both directions */
        uint64_t refs[6] = { ids[(i + 1) % n], ids[(i + 3) % n], 0,
                             UINT64_MAX, 0, ids[i] };
        o.refs = refs;
        o.nrefs = 6;
        TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    }
    uint64_t roots[] = { UINT64_MAX, 0, UINT64_MAX, 1ULL << 63, 1 };
    uint32_t vm;
    TASSERT_OK(tmodel_string(&t->m, t->w, "vm", 2, &vm));
    TASSERT_OK(tmodel_root(&t->m, t->w, vm, roots, 5));
}

static void million_equal_refs_write(rt *t)
{
    size_t n = 1000000;
    uint64_t *refs = malloc(n * sizeof *refs);
    cr_assert_not_null(refs);
    for (size_t i = 0; i < n; i++)
        refs[i] = 0x55aa55aa00001230ULL;
    heapfmt_object o = { 0 };
    o.id = 0x7f0000000000ULL;
    o.size = n * 8;
    o.refs = refs;
    o.nrefs = n;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    /* and an ordinary object after it */
    o.id += 40;
    o.size = 40;
    o.nrefs = 1;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    t->owned = refs; /* freed by rt_close, after rt_verify */
}

static void every_fields_combination_write(rt *t)
{
    uint32_t type, file;
    TASSERT_OK(tmodel_string(&t->m, t->w, "T_STRING", 8, &type));
    TASSERT_OK(tmodel_string(&t->m, t->w, "lib/a.rb", 8, &file));
    static const char junk[] = "JUNK-that-must-not-appear";
    for (uint32_t fields = 0; fields <= HEAPFMT_F_BASIC; fields++) {
        for (int variant = 0; variant < 3; variant++) {
            heapfmt_object o;
            /* absent parts carry junk: the writer must ignore them */
            o.id = 0x10000 + 40 * (fields * 3 + (uint32_t)variant);
            o.class_id = variant == 0 ? 0 : 0x900 + (uint64_t)variant;
            o.type = variant == 1 ? 0 : type;
            o.fields = fields;
            o.size = 40 + (uint64_t)variant;
            o.flags = variant == 2 ? UINT64_MAX
                                   : HEAPFMT_OF_FROZEN | HEAPFMT_OF_OLD |
                                         (1ULL << 40);
            o.value = variant == 0 ? "" : variant == 1 ? "hi\0there" : junk;
            o.value_len = variant == 0 ? 0 : variant == 1 ? 8 : sizeof junk;
            o.file = file;
            o.line = variant == 2 ? UINT64_MAX : 17;
            o.generation = (uint64_t)variant * 1000;
            uint64_t refs[2] = { o.id - 40, o.id + 40 };
            o.refs = refs;
            o.nrefs = (size_t)variant % 3;
            TASSERT_OK(tmodel_object(&t->m, t->w, &o));
        }
    }
}

/* The longest key meta_values writes: HEAPFMT_MAX_KEY letters. */
static void longest_key(char key[HEAPFMT_MAX_KEY + 1])
{
    memset(key, 'k', HEAPFMT_MAX_KEY);
    key[HEAPFMT_MAX_KEY] = '\0';
}

static void meta_values_write(rt *t)
{
    TASSERT_OK(tmodel_meta_text(&t->m, t->w, "producer", "héapfmt ✓ 1.0"));
    TASSERT_OK(tmodel_meta_text(&t->m, t->w, "empty", ""));
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "u.zero", 0));
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "u.max", UINT64_MAX));
    TASSERT_OK(tmodel_meta_int(&t->m, t->w, "i.min", INT64_MIN));
    TASSERT_OK(tmodel_meta_int(&t->m, t->w, "i.max", INT64_MAX));
    TASSERT_OK(tmodel_meta_int(&t->m, t->w, "i.neg", -1));
    TASSERT_OK(tmodel_meta_int(&t->m, t->w, "i.zero", 0));
    /* every allowed key character, and the longest key */
    TASSERT_OK(tmodel_meta_uint(
        &t->m, t->w,
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-",
        1));
    char key[HEAPFMT_MAX_KEY + 1];
    longest_key(key);
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, key, 255));
    /* a repeated key: the last value wins */
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "pid", 1));
    TASSERT_OK(tmodel_meta_text(&t->m, t->w, "pid.note", "x"));
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "pid", 2));
}

static void meta_values_read(rt *t)
{
    char key[HEAPFMT_MAX_KEY + 1];
    longest_key(key);
    heapfmt_reader *r = rt_drained(t);
    size_t n = 0;
    const heapfmt_rmeta *all = heapfmt_reader_meta(r, &n);
    cr_assert_eq(n, 13, "heapfmt_reader_meta gave %zu pairs", n);
    cr_assert_not_null(all);
    cr_assert_str_eq(all[0].key, "producer");
    cr_assert_str_eq(all[0].text, "héapfmt ✓ 1.0");
    cr_assert_eq(all[4].type, HEAPFMT_META_INT);
    cr_assert_eq(all[4].int_value, INT64_MIN);
    cr_assert_str_eq(all[12].key, "pid");
    const heapfmt_rmeta *pid = heapfmt_reader_meta_get(r, "pid");
    cr_assert_not_null(pid);
    cr_assert_eq(pid->type, HEAPFMT_META_UINT);
    cr_assert_eq(pid->uint_value, 2, "meta_get gave pid %llu",
                 (unsigned long long)pid->uint_value);
    const heapfmt_rmeta *e = heapfmt_reader_meta_get(r, "empty");
    cr_assert_not_null(e);
    cr_assert_eq(e->text_len, 0);
    cr_assert_not_null(e->text);
    cr_assert_str_eq(e->text, "");
    const heapfmt_rmeta *lk = heapfmt_reader_meta_get(r, key);
    cr_assert_not_null(lk);
    cr_assert_eq(lk->key_len, HEAPFMT_MAX_KEY);
    cr_assert_null(heapfmt_reader_meta_get(r, "no.such.key"));
    heapfmt_reader_free(r);
}

static void class_redefinition_write(rt *t)
{
    /* an anonymous class defined on the fly by an object */
    heapfmt_object o = { 0 };
    o.id = 0x100;
    o.class_id = 0xc1a55;
    o.size = 40;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    /* an explicitly anonymous class */
    heapfmt_class anon = { 0xc1a56, NULL, 0, 0, HEAPFMT_CF_SINGLETON };
    TASSERT_OK(tmodel_class(&t->m, t->w, &anon));
    o.id = 0x140;
    o.class_id = 0xc1a56;
    o.size = 80;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    /* both named later */
    heapfmt_class named = { 0xc1a55, "Foo::Bar", 8, 0x1008, 0 };
    TASSERT_OK(tmodel_class(&t->m, t->w, &named));
    heapfmt_class named2 = { 0xc1a56, "#<Class:Foo>", 12, 0xc1a55,
                             HEAPFMT_CF_SINGLETON };
    TASSERT_OK(tmodel_class(&t->m, t->w, &named2));
    o.id = 0x180;
    o.class_id = 0xc1a55;
    o.size = 120;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    /* renamed */
    heapfmt_class renamed = { 0xc1a55, "Foo::Baz", 8, 0x1008,
                              HEAPFMT_CF_MODULE };
    TASSERT_OK(tmodel_class(&t->m, t->w, &renamed));
    cr_assert_eq(t->m.nclasses, 2);
}

static void class_redefinition_read(rt *t)
{
    /* the reader's table holds the final values */
    heapfmt_reader *r = rt_drained(t);
    cr_assert_eq(heapfmt_reader_class_count(r), 3,
                 "class count %zu (slot 0 + 2 classes)",
                 heapfmt_reader_class_count(r));
    const heapfmt_rclass *none = heapfmt_reader_class(r, 0);
    cr_assert_not_null(none);
    cr_assert_eq(none->index, 0);
    const heapfmt_rclass *k = class_by_index(r, 1);
    cr_assert_not_null(k);
    cr_assert_eq(k->id, 0xc1a55);
    cr_assert_eq(k->flags, HEAPFMT_CF_MODULE);
    cr_assert_not_null(k->name);
    cr_assert_eq(k->name->len, 8);
    cr_assert_str_eq(k->name->ptr, "Foo::Baz");
    const heapfmt_rclass *k2 = class_by_index(r, 2);
    cr_assert_not_null(k2);
    cr_assert_not_null(k2->name);
    cr_assert_str_eq(k2->name->ptr, "#<Class:Foo>");
    cr_assert_eq(k2->super_id, 0xc1a55);
    const heapfmt_footer *f = NULL;
    TASSERT_OK(heapfmt_reader_footer(r, &f));
    cr_assert_eq(f->nclasses, 2);
    cr_assert_str_eq(f->classes[0].name, "Foo::Baz");
    cr_assert_eq(f->classes[0].count, 2);
    cr_assert_eq(f->classes[0].bytes, 160);
    cr_assert_str_eq(f->classes[1].name, "#<Class:Foo>");
    heapfmt_reader_free(r);
}

static void objects_without_class_in_summary_write(rt *t)
{
    heapfmt_object o = { 0 };
    o.id = 8;
    o.size = 24;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    o.id = 16;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    heapfmt_class c = { 0x50, "C", 1, 0, 0 };
    TASSERT_OK(tmodel_class(&t->m, t->w, &c));
}

static void objects_without_class_in_summary_read(rt *t)
{
    /* the object's klass/type/file point at the slot-0 entries */
    heapfmt_reader *r = rt_reader(t);
    heapfmt_record rec;
    TASSERT_OK(heapfmt_reader_next(r, &rec));
    cr_assert_eq(rec.tag, HEAPFMT_TAG_OBJECT);
    const heapfmt_robject *ob = rec.u.object;
    cr_assert_not_null(ob->klass);
    cr_assert_not_null(ob->type);
    cr_assert_not_null(ob->file);
    cr_assert_eq(ob->klass->index, 0);
    cr_assert_eq(ob->klass->slot, 0);
    cr_assert_null(ob->klass->name);
    cr_assert_eq(ob->type->slot, 0);
    cr_assert_eq(ob->type->id, 0);
    cr_assert_eq(ob->type->len, 0);
    cr_assert_not_null(ob->type->ptr);
    cr_assert_str_eq(ob->type->ptr, "");
    cr_assert_eq(ob->file->slot, 0);
    heapfmt_reader_free(r);
}

static void string_interning_write(rt *t)
{
    uint32_t a, b, c, d, e;
    TASSERT_OK(tmodel_string(&t->m, t->w, "alpha", 5, &a));
    TASSERT_OK(tmodel_string(&t->m, t->w, "beta", 4, &b));
    TASSERT_OK(tmodel_string(&t->m, t->w, "alpha", 5, &c));
    TASSERT_OK(tmodel_string(&t->m, t->w, "al\0pha", 6, &d));
    TASSERT_OK(tmodel_string(&t->m, t->w, "", 0, &e));
    cr_assert_eq(a, 1);
    cr_assert_eq(b, 2);
    cr_assert_eq(c, a);
    cr_assert_eq(d, 3);
    cr_assert_eq(e, 4, "the empty string is a string like any other");
    /* a class name is interned in the same table */
    heapfmt_class k = { 0x10, "beta", 4, 0, 0 };
    TASSERT_OK(tmodel_class(&t->m, t->w, &k));
    heapfmt_class k2 = { 0x18, "gamma", 5, 0, 0 };
    TASSERT_OK(tmodel_class(&t->m, t->w, &k2));
    uint32_t g;
    TASSERT_OK(tmodel_string(&t->m, t->w, "gamma", 5, &g));
    cr_assert_eq(g, 5);
}

static void string_interning_read(rt *t)
{
    heapfmt_reader *r = rt_drained(t);
    cr_assert_eq(heapfmt_reader_string_count(r), 6);
    const heapfmt_rstring *s0 = heapfmt_reader_string(r, 0);
    cr_assert_not_null(s0);
    cr_assert_eq(s0->id, 0);
    cr_assert_eq(s0->len, 0);
    for (size_t i = 0; i < 6; i++) {
        const heapfmt_rstring *s = heapfmt_reader_string(r, i);
        cr_assert_not_null(s);
        cr_assert_eq(s->slot, i);
        cr_assert_eq(s->ptr[s->len], '\0');
        cr_assert_eq(s->undefined, 0);
    }
    int found = 0;
    for (size_t i = 1; i < 6; i++) {
        const heapfmt_rstring *s = heapfmt_reader_string(r, i);
        if (s->id == 3) {
            found = 1;
            cr_assert_eq(s->len, 6);
            cr_assert_eq(memcmp(s->ptr, "al\0pha", 6), 0);
        }
    }
    cr_assert(found);
    heapfmt_reader_free(r);
}

static void roots_empty_and_large_write(rt *t)
{
    uint32_t vm, gt;
    TASSERT_OK(tmodel_string(&t->m, t->w, "vm", 2, &vm));
    TASSERT_OK(tmodel_string(&t->m, t->w, "global_tbl", 10, &gt));
    TASSERT_OK(tmodel_root(&t->m, t->w, vm, NULL, 0));
    size_t n = 20000;
    uint64_t *ids = malloc(n * sizeof *ids);
    cr_assert_not_null(ids);
    tprng r;
    tprng_seed(&r, 3);
    for (size_t i = 0; i < n; i++)
        ids[i] = tprng_below(&r, 2) ? tprng_next(&r) : 0x5000 + 40 * i;
    TASSERT_OK(tmodel_root(&t->m, t->w, gt, ids, n));
    TASSERT_OK(tmodel_root(&t->m, t->w, vm, ids, 3));
    TASSERT_OK(tmodel_root(&t->m, t->w, 0, ids + 5, 2));
    t->owned = ids; /* freed by rt_close, after rt_verify */
}

static void refs_calls_write(rt *t)
{
    uint32_t vm;
    TASSERT_OK(tmodel_string(&t->m, t->w, "vm", 2, &vm));
    uint64_t refs[3] = { 5, 6, 7 };
    heapfmt_object o = { 0 };
    o.id = 1;
    o.refs = refs;
    o.nrefs = 3;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    o.nrefs = 0;
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    TASSERT_OK(tmodel_root(&t->m, t->w, vm, refs, 2));
}

static void refs_calls_read(rt *t)
{
    heapfmt_reader *r = rt_reader(t);
    heapfmt_record rec;
    const uint64_t *ids = NULL;
    TASSERT_OK(heapfmt_reader_next(r, &rec)); /* STRING */
    cr_assert_eq(rec.tag, HEAPFMT_TAG_STRING);
    cr_assert_eq(heapfmt_reader_refs(r, &ids), HEAPFMT_E_STATE,
                 "refs of a STRING record");
    TASSERT_OK(heapfmt_reader_next(r, &rec)); /* OBJECT, 3 refs */
    cr_assert_eq(rec.u.object->nrefs, 3);
    cr_assert_eq(heapfmt_reader_refs(r, &ids), 3);
    cr_assert_eq(ids[0], 5);
    cr_assert_eq(ids[2], 7);
    /* a second call gives the same */
    ids = NULL;
    cr_assert_eq(heapfmt_reader_refs(r, &ids), 3);
    cr_assert_eq(ids[1], 6);
    TASSERT_OK(heapfmt_reader_next(r, &rec)); /* OBJECT, 0 refs */
    long n = heapfmt_reader_refs(r, &ids);
    cr_assert(n == 0 || n == HEAPFMT_E_STATE,
              "refs of an object without references gave %ld", n);
    TASSERT_OK(heapfmt_reader_next(r, &rec)); /* ROOT */
    cr_assert_eq(rec.tag, HEAPFMT_TAG_ROOT);
    cr_assert_eq(heapfmt_reader_refs(r, &ids), 2);
    cr_assert_eq(ids[1], 6);
    TASSERT_OK(heapfmt_reader_next(r, &rec)); /* END */
    cr_assert_eq(rec.tag, HEAPFMT_TAG_END);
    cr_assert_eq(heapfmt_reader_refs(r, &ids), HEAPFMT_E_STATE);
    TASSERT_RC(heapfmt_reader_next(r, &rec), HEAPFMT_DONE);
    heapfmt_reader_free(r);
}

static void record_larger_than_block_write(rt *t)
{
    char value[5000];
    for (size_t i = 0; i < sizeof value; i++)
        value[i] = (char)(i * 7);
    heapfmt_object o = { 0 };
    o.fields = HEAPFMT_F_VALUE;
    o.value = value;
    for (int i = 0; i < 4; i++) {
        o.id = 0x100 + 8 * (uint64_t)i;
        o.value_len = (size_t)(i + 1) * 1200;
        TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    }
}

static void flush_makes_blocks_write(rt *t)
{
    heapfmt_object o = { 0 };
    for (int i = 0; i < 5; i++) {
        o.id = 0x100 + 8 * (uint64_t)i;
        TASSERT_OK(tmodel_object(&t->m, t->w, &o));
        uint64_t before = heapfmt_writer_offset(t->w);
        TASSERT_OK(heapfmt_writer_flush(t->w));
        cr_assert_gt(heapfmt_writer_offset(t->w), before,
                     "flush wrote nothing");
        cr_assert_eq(heapfmt_writer_offset(t->w), (uint64_t)t->s.out.len);
    }
    /* flushing with nothing pending must not make an empty block */
    TASSERT_OK(heapfmt_writer_flush(t->w));
}

static void flush_makes_blocks_read(rt *t)
{
    tcapture c;
    tcapture_memory(&c, t->s.out.data, t->s.out.len, 0);
    cr_assert_eq(c.footer.nblocks, 6, "%zu blocks", c.footer.nblocks);
    tcapture_free(&c);
}

static void nothing_written_before_first_flush_write(rt *t)
{
    TASSERT_OK(tmodel_meta_uint(&t->m, t->w, "pid", 1));
    heapfmt_object o = { 0 };
    TASSERT_OK(tmodel_object(&t->m, t->w, &o));
    cr_assert_eq(t->s.out.len, 0, "%zu bytes written before any flush",
                 t->s.out.len);
    cr_assert_eq(heapfmt_writer_offset(t->w), 0);
}

/* ---- the case table: write through the model, read back, compare ---- */

/* Each case opens a writer (level, block size), writes its records
 * through the model, and rt_verify reads the dump back against it; read,
 * when set, checks what the model does not. */
typedef struct rt_case {
    const char *name;
    void (*write)(rt *t);
    void (*read)(rt *t);
    int stored;          /* level 0 (blocks stored); else level 1 */
    uint32_t block_size; /* 0: the default */
} rt_case;

static const rt_case rt_cases[] = {
    {.name = "empty_dump", .write = empty_dump_write, .read = empty_dump_read},
    {.name = "zero_objects_with_metadata",
     .write = zero_objects_with_metadata_write},
    {.name = "extreme_ids_and_wrapping_refs",
     .write = extreme_ids_and_wrapping_refs_write},
    {.name = "one_mib_string_stored", .write = big_string_write, .stored = 1},
    {.name = "one_mib_string_deflated", .write = big_string_write},
    {.name = "million_equal_refs", .write = million_equal_refs_write},
    {.name = "every_fields_combination",
     .write = every_fields_combination_write},
    {.name = "meta_values", .write = meta_values_write,
     .read = meta_values_read},
    {.name = "class_redefinition", .write = class_redefinition_write,
     .read = class_redefinition_read},
    {.name = "objects_without_class_in_summary",
     .write = objects_without_class_in_summary_write,
     .read = objects_without_class_in_summary_read},
    {.name = "string_interning", .write = string_interning_write,
     .read = string_interning_read},
    {.name = "roots_empty_and_large", .write = roots_empty_and_large_write},
    {.name = "refs_calls", .write = refs_calls_write, .read = refs_calls_read},
    {.name = "record_larger_than_block",
     .write = record_larger_than_block_write,
     .block_size = HEAPFMT_MIN_BLOCK_SIZE},
    {.name = "flush_makes_blocks", .write = flush_makes_blocks_write,
     .read = flush_makes_blocks_read},
    {.name = "nothing_written_before_first_flush",
     .write = nothing_written_before_first_flush_write},
};

Test(roundtrip, cases, .timeout = 90, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof rt_cases / sizeof rt_cases[0]; k++) {
        const rt_case *rc = &rt_cases[k];
        tcase_enter(rc->name);
        rt t;
        rt_open(&t, rc->stored ? 0 : 1, rc->block_size);
        rc->write(&t);
        rt_verify(&t);
        if (rc->read != NULL)
            rc->read(&t);
        rt_close(&t);
    }
    tcase_leave();
}

/* A generated dump through each codec, several levels and two block
 * sizes, compressing on the caller's thread or a worker: identical records
 * every time; level 0 stores every block, other levels compress. */
static void generated_case_opt(int codec, int level, uint32_t block_size,
                               int threads, uint64_t seed)
{
    rt t;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = codec;
    opt.level = level;
    opt.block_size = block_size;
    opt.threads = threads;
    rt_open_opt(&t, &opt);
    TASSERT_OK(tmodel_generate(&t.m, t.w, seed, 1500));
    rt_verify(&t);
    /* block codecs as chosen */
    tcapture c;
    tcapture_memory(&c, t.s.out.data, t.s.out.len, 0);
    size_t deflated = 0;
    for (size_t i = 0; i < c.footer.nblocks; i++) {
        const unsigned char *h = t.s.out.data + c.footer.blocks[i].offset;
        cr_assert(h[1] == 0 || h[1] == codec, "codec %u", h[1]);
        if (h[1] == 0)
            cr_assert_eq(tget_u32le(h + 4), tget_u32le(h + 8),
                         "stored block with raw_len != stored_len");
        else
            cr_assert_lt(tget_u32le(h + 8), tget_u32le(h + 4),
                         "compressed block not smaller than its raw size");
        deflated += h[1] == codec;
        cr_assert_eq(h[2], 0);
        cr_assert_eq(h[3], 0);
        if (block_size && i + 1 < c.footer.nblocks)
            cr_assert_leq(tget_u32le(h + 4), block_size + 4096u,
                          "block %zu much larger than block_size", i);
    }
    if (level == 0)
        cr_assert_eq(deflated, 0);
    else
        cr_assert_gt(deflated, 0, "level %d compressed no block", level);
    if (block_size == 1024)
        cr_assert_gt(c.footer.nblocks, 10, "only %zu blocks of 1 KiB",
                     c.footer.nblocks);
    tcapture_free(&c);
    rt_close(&t);
}

static void generated_case(int level, uint32_t block_size, uint64_t seed)
{
    generated_case_opt(HEAPFMT_CODEC_ZSTD, level, block_size, 0, seed);
    generated_case_opt(HEAPFMT_CODEC_DEFLATE, level > 9 ? 9 : level,
                       block_size, 0, seed);
    if (level > 0)
        generated_case_opt(HEAPFMT_CODEC_ZSTD, level, block_size, 1, seed);
}

Test(roundtrip, generated, .fini = tcase_fini)
{
    static const struct {
        const char *name;
        int level;
        uint32_t block_size;
        uint64_t seed;
    } cases[] = {
        {"level19_small_blocks", 19, 1024, 17},
        {"level0_small_blocks", 0, 1024, 11},
        {"level1_small_blocks", 1, 1024, 12},
        {"level9_small_blocks", 9, 1024, 13},
        {"level0_default_blocks", 0, 0, 14},
        {"level1_default_blocks", 1, 0, 15},
        {"level9_default_blocks", 9, 0, 16},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tcase_enter(cases[k].name);
        generated_case(cases[k].level, cases[k].block_size, cases[k].seed);
    }
    tcase_leave();
}

Test(roundtrip, same_records_at_every_level)
{
    tbuf out[3];
    tcapture c[3];
    static const int levels[3] = { 0, 1, 9 };
    for (int i = 0; i < 3; i++) {
        tmodel m;
        tmodel_init(&m);
        heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
        opt.level = levels[i];
        opt.block_size = 2048;
        TASSERT_OK(tmodel_make_dump(&m, &opt, 99, 800, &out[i]));
        tmodel_free(&m);
        tcapture_memory(&c[i], out[i].data, out[i].len, 0);
        TASSERT_CAPTURE_DONE(&c[i]);
    }
    char why[512];
    for (int i = 1; i < 3; i++) {
        cr_assert_eq(treclist_equal(&c[0].recs, &c[i].recs, 0, why,
                                    sizeof why),
                     0, "level %d: %s", levels[i], why);
        /* the footers differ only in block offsets */
        tfooter f = c[i].footer;
        f.blocks = c[0].footer.blocks;
        f.totals.codecs = c[0].footer.totals.codecs; /* and in codecs */
        cr_assert_eq(f.nblocks, c[0].footer.nblocks,
                     "level %d: %zu blocks, level 0: %zu", levels[i],
                     f.nblocks, c[0].footer.nblocks);
        cr_assert_eq(tfooter_equal(&c[0].footer, &f, why, sizeof why), 0,
                     "level %d footer: %s", levels[i], why);
    }
    for (int i = 0; i < 3; i++) {
        tcapture_free(&c[i]);
        tbuf_free(&out[i]);
    }
}




Test(roundtrip, two_writers_interleaved)
{
    /* no global state: two dumps written at once stay independent */
    rt a, b;
    rt_open(&a, 1, 1024);
    rt_open(&b, 0, 0);
    for (int i = 0; i < 300; i++) {
        heapfmt_object o = { 0 };
        o.id = (uint64_t)i * 8;
        o.class_id = 0x900 + (uint64_t)(i % 3);
        TASSERT_OK(tmodel_object(&a.m, a.w, &o));
        o.class_id = 0x700 + (uint64_t)(i % 5);
        TASSERT_OK(tmodel_object(&b.m, b.w, &o));
        char s[16];
        snprintf(s, sizeof s, "s%d", i % 7);
        uint32_t id;
        TASSERT_OK(tmodel_string(&a.m, a.w, s, strlen(s), &id));
    }
    rt_verify(&a);
    rt_verify(&b);
    rt_close(&a);
    rt_close(&b);
}
