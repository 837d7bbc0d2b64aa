/*
 * test_import_android.c -- heapfmt-import of Android's HPROF dumps
 * (tools/import/hprof_android.h and the Android section of hprof.c).
 *
 * The dump is written here as ART writes one (AOSP art/runtime/hprof/
 * hprof.cc, Android 8 and later): "JAVA PROFILE 1.0.3", 4-byte ids, the
 * app heap's objects first (its space has the lowest addresses), then the
 * boot image's and the zygote's, each after a HEAP DUMP INFO; Android's
 * root kinds; java.lang.Object's header fields (shadow$_klass_,
 * shadow$_monitor_) in every instance's bytes; a String's characters in a
 * byte[] or char[] made up after it, a class's vtable in a byte[] made up
 * before it ($classOverhead), a class loader's internal references in an
 * Object[] made up after it. The same heap is also written as hprof-conv
 * converts it (1.0.2, no heap names, Android's roots as unknown ones).
 * tests/fixtures/import/android.hprof and android-conv.hprof are these
 * bytes (checked here), for tests/cli/import_android.sh and the fuzz seeds.
 */
#include "hprof.h"
#include "hprof_android.h"
#include "jvm_layout.h"

#include "test_import_run.h"
#include "thprof.h"

/* ---- ART's records (support/thprof.h writes the rest) ------------------ */

typedef struct aw {
    thprof h; /* 4-byte ids */
    int conv; /* write as hprof-conv converts it */
} aw;

static void heap_info(aw *w, uint32_t hid, uint32_t name)
{
    if (w->conv)
        return; /* hprof-conv drops it */
    tbuf_u8(&w->h.b, 0xfe);
    thprof_u4(&w->h, hid);
    thprof_u4(&w->h, name);
}

/* A root sub-record, as ART writes it (converted: Android's kinds become
 * ROOT UNKNOWN, the JNI monitor's thread and frame dropped). */
static void root(aw *w, unsigned tag, uint32_t id)
{
    int android = tag >= 0x89 && tag <= 0x90;
    tbuf_u8(&w->h.b, w->conv && android ? 0xff : tag);
    thprof_u4(&w->h, id);
    if (tag == 0x03 || (tag == 0x8e && !w->conv)) {
        thprof_u4(&w->h, 1);          /* thread serial */
        thprof_u4(&w->h, 0xffffffff); /* no frame */
    }
}

/* A field of a CLASS DUMP: a static (with a 4-byte value) or an instance
 * field; type 2 object, 10 int. */
typedef struct fd {
    uint32_t name;
    unsigned type;
    uint32_t value;
} fd;

static void class_dump(aw *w, uint32_t cid, uint32_t super, uint32_t loader,
                       uint32_t size, size_t ns, const fd *st, size_t nf,
                       const fd *f)
{
    thprof_class_head(&w->h, cid, super, loader, size);
    thprof_u2(&w->h, 0); /* ART writes no constant pool */
    thprof_u2(&w->h, (unsigned)ns);
    for (size_t i = 0; i < ns; i++) {
        thprof_u4(&w->h, st[i].name);
        tbuf_u8(&w->h.b, st[i].type);
        thprof_u4(&w->h, st[i].value);
    }
    thprof_u2(&w->h, (unsigned)nf);
    for (size_t i = 0; i < nf; i++) {
        thprof_u4(&w->h, f[i].name);
        tbuf_u8(&w->h.b, f[i].type);
    }
}

/* An instance whose fields (its class's, then its superclasses') are n
 * 4-byte words. */
static void instance(aw *w, uint32_t id, uint32_t cid, size_t n,
                     const uint32_t *words)
{
    thprof_instance_head(&w->h, id, cid, (uint32_t)(4 * n));
    for (size_t i = 0; i < n; i++)
        thprof_u4(&w->h, words[i]);
}

static void objects(aw *w, uint32_t id, uint32_t cid, size_t n,
                    const uint32_t *elems)
{
    thprof_objects_head(&w->h, id, (uint32_t)n, cid);
    for (size_t i = 0; i < n; i++)
        thprof_u4(&w->h, elems[i]);
}

/* PRIMITIVE ARRAY NODATA; hprof-conv makes it an empty PRIM ARRAY DUMP */
static void nodata(aw *w, uint32_t id, unsigned type, uint32_t n)
{
    tbuf_u8(&w->h.b, w->conv ? 0x23 : 0xc3);
    thprof_u4(&w->h, id);
    thprof_u4(&w->h, 0);
    thprof_u4(&w->h, w->conv ? 0 : n);
    tbuf_u8(&w->h.b, type);
}

/* ---- the heap ----------------------------------------------------------- */

enum {
    /* strings: ART numbers them from 0x400000 */
    S_OBJECT = 0x400001, S_CLASS, S_STRING, S_BYTES, S_CHARS, S_OBJARR,
    S_INTS, S_LONGS, S_AT, S_LEAK, S_LOADER, S_KLASS, S_MONITOR, S_CKLASS,
    S_CMONITOR, S_OVERHEAD, S_COUNT, S_HASH, S_VALUE, S_NEXT, S_ID,
    S_SCACHE, S_SINST, S_PARENT, S_INTERNAL, S_APP, S_IMAGE, S_ZYGOTE,
    S_NAME,
    /* the app heap, from ART's region space at 0x12c00000 */
    C_LEAK = 0x12c00000, C_LOADER = 0x12c00100,
    O_LEAK = 0x12c01000, O_LEAK2 = 0x12c01010, O_STR = 0x12c01020,
    O_STR2 = 0x12c01040, O_EMPTY = 0x12c01060, O_CL = 0x12c01080,
    O_ARR = 0x12c010a0, O_INTS = 0x12c010c0, O_LONGS = 0x12c010e0,
    O_NODATA = 0x12c01100,
    /* the boot image, at 0x70000000 */
    C_OBJECT = 0x70000000, C_CLASS = 0x70000100, C_STRING = 0x70000200,
    C_BYTES = 0x70000300, C_CHARS = 0x70000400, C_OBJARR = 0x70000500,
    C_INTS = 0x70000600, C_LONGS = 0x70000700, C_AT = 0x70000800,
    O_IMGLIST = 0x70001000, O_IMGSTR = 0x70001100,
    /* the zygote's */
    O_ZYG = 0x71000000
};

/* The $class$ statics ART reports for every class (java.lang.Class's and
 * java.lang.Object's instance fields, here two of them: 8 bytes). */
#define CLASS_FIELDS {S_CKLASS, 2, C_CLASS}, {S_CMONITOR, 10, 0}

/* An image class of instance size `size` with the $class$ statics only. */
static void image_class(aw *w, uint32_t cid, uint32_t super, uint32_t size)
{
    static const fd st[] = {CLASS_FIELDS};
    class_dump(w, cid, super, 0, size, 2, st, 0, NULL);
}

/* A String as ART writes it: count, hash, the made-up value reference,
 * java.lang.Object's klass and monitor; then the characters. */
static void string(aw *w, uint32_t id, int compressed, const void *chars,
                   uint32_t n)
{
    uint32_t value = n ? id + 16 : id + 8;
    uint32_t words[] = {n, 0, value, C_STRING, 0};
    instance(w, id, C_STRING, 5, words);
    thprof_prims(&w->h, value, n, compressed ? 8 : 5, chars,
                 compressed ? n : 2 * n);
}

/* The heap (with a NODATA array when nodata is set), as ART writes it, or
 * as hprof-conv converts it (conv). */
static void android_dump(aw *w, int conv, int with_nodata)
{
    w->conv = conv;
    thprof_header(&w->h, conv ? "JAVA PROFILE 1.0.2" : "JAVA PROFILE 1.0.3",
                  4, 0x19012345678ull);
    static const struct {
        uint32_t sid;
        const char *text;
    } strs[] = {
        {S_OBJECT, "java.lang.Object"}, {S_CLASS, "java.lang.Class"},
        {S_STRING, "java.lang.String"}, {S_BYTES, "byte[]"},
        {S_CHARS, "char[]"}, {S_OBJARR, "java.lang.Object[]"},
        {S_INTS, "int[]"}, {S_LONGS, "long[]"},
        {S_AT, "android.app.ActivityThread"}, {S_LEAK, "com.example.Leak"},
        {S_LOADER, "java.lang.ClassLoader"}, {S_KLASS, "shadow$_klass_"},
        {S_MONITOR, "shadow$_monitor_"}, {S_CKLASS, "$class$shadow$_klass_"},
        {S_CMONITOR, "$class$shadow$_monitor_"},
        {S_OVERHEAD, "$classOverhead"}, {S_COUNT, "count"},
        {S_HASH, "hash"}, {S_VALUE, "value"}, {S_NEXT, "next"},
        {S_ID, "id"}, {S_SCACHE, "sCache"}, {S_SINST, "sInstances"},
        {S_PARENT, "parent"}, {S_INTERNAL, "runtimeInternalObjects"},
        {S_APP, "app"}, {S_IMAGE, "image"}, {S_ZYGOTE, "zygote"},
        {S_NAME, "name"},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        thprof_utf8(&w->h, strs[i].sid, strs[i].text);
    static const uint32_t classes[][2] = {
        {C_OBJECT, S_OBJECT}, {C_CLASS, S_CLASS}, {C_STRING, S_STRING},
        {C_BYTES, S_BYTES},   {C_CHARS, S_CHARS}, {C_OBJARR, S_OBJARR},
        {C_INTS, S_INTS},     {C_LONGS, S_LONGS}, {C_AT, S_AT},
        {C_LEAK, S_LEAK},     {C_LOADER, S_LOADER}};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        thprof_load_class(&w->h, classes[i][0], classes[i][1]);

    thprof_segment_open(&w->h);
    /* the roots, before any heap is named */
    root(w, 0x8d, O_ZYG);   /* vm internal: a zygote object */
    root(w, 0x05, C_LEAK);  /* sticky class */
    root(w, 0x89, O_STR);   /* interned string */
    root(w, 0x8e, O_CL);    /* jni monitor */
    root(w, 0x8b, O_INTS);  /* debugger */
    root(w, 0x90, O_LEAK2); /* unreachable: not a root */
    root(w, 0x03, O_ARR);   /* java frame */
    root(w, 0xff, O_EMPTY); /* unknown */

    heap_info(w, 'A', S_APP);
    /* Leak: its vtable in a byte[20] at its id + 1, before it: 40 bytes
     * with its statics ($class$ 8, $classOverhead 4, sInstances 4) */
    static const unsigned char zero[64];
    thprof_prims(&w->h, C_LEAK | 1, 20, 8, zero, 20);
    static const fd leak_st[] = {CLASS_FIELDS, {S_OVERHEAD, 2, C_LEAK | 1},
                                 {S_SINST, 2, O_ARR}};
    static const fd leak_f[] = {{S_NEXT, 2, 0}, {S_ID, 10, 0}};
    class_dump(w, C_LEAK, C_OBJECT, O_CL, 16, 4, leak_st, 2, leak_f);
    /* ClassLoader: a vtable of 4 bytes, as a static int: 12 -> 16 */
    static const fd cl_st[] = {CLASS_FIELDS, {S_OVERHEAD, 10, 0}};
    static const fd cl_f[] = {{S_PARENT, 2, 0}, {S_INTERNAL, 2, 0}};
    class_dump(w, C_LOADER, C_OBJECT, 0, 12, 3, cl_st, 2, cl_f);
    uint32_t leak1[] = {O_LEAK2, 1, C_LEAK, 0}, leak2[] = {0, 2, C_LEAK, 0};
    instance(w, O_LEAK, C_LEAK, 4, leak1);
    instance(w, O_LEAK2, C_LEAK, 4, leak2);
    string(w, O_STR, 1, "hello", 5);
    static const unsigned char euro[] = {0x00, 0xe9, 0x20, 0xac}; /* é€ */
    string(w, O_STR2, 0, euro, 2);
    string(w, O_EMPTY, 1, "", 0);
    uint32_t cl[] = {0, O_CL + 4, C_LOADER, 0};
    instance(w, O_CL, C_LOADER, 4, cl);
    uint32_t internal[] = {C_LEAK};
    objects(w, O_CL + 4, C_OBJARR, 1, internal);
    uint32_t arr[] = {O_LEAK, O_STR, O_ZYG};
    objects(w, O_ARR, C_OBJARR, 3, arr);
    static const unsigned char ints[12] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3};
    thprof_prims(&w->h, O_INTS, 3, 10, ints, 12);
    thprof_prims(&w->h, O_LONGS, 1, 11, zero, 8);
    if (with_nodata)
        nodata(w, O_NODATA, 5, 10);
    thprof_segment_close(&w->h);

    thprof_segment_open(&w->h); /* a new segment: ART names the heap again */
    heap_info(w, 'I', S_IMAGE);
    static const fd obj_st[] = {CLASS_FIELDS, {S_OVERHEAD, 10, 0}};
    static const fd obj_f[] = {{S_KLASS, 2, 0}, {S_MONITOR, 10, 0}};
    class_dump(w, C_OBJECT, 0, 0, 8, 3, obj_st, 2, obj_f);
    static const fd class_f[] = {{S_NAME, 2, 0}};
    static const fd class_st[] = {CLASS_FIELDS};
    class_dump(w, C_CLASS, C_OBJECT, 0, 0, 2, class_st, 1, class_f);
    static const fd str_f[] = {{S_COUNT, 10, 0}, {S_HASH, 10, 0},
                               {S_VALUE, 2, 0}};
    class_dump(w, C_STRING, C_OBJECT, 0, 16, 2, class_st, 3, str_f);
    image_class(w, C_BYTES, C_OBJECT, 0);
    image_class(w, C_CHARS, C_OBJECT, 0);
    image_class(w, C_OBJARR, C_OBJECT, 0);
    image_class(w, C_INTS, C_OBJECT, 0);
    image_class(w, C_LONGS, C_OBJECT, 0);
    static const fd at_st[] = {CLASS_FIELDS, {S_SCACHE, 2, O_LEAK}};
    class_dump(w, C_AT, C_OBJECT, 0, 8, 3, at_st, 0, NULL);
    uint32_t imglist[] = {O_LEAK2, O_IMGSTR};
    objects(w, O_IMGLIST, C_OBJARR, 2, imglist);
    string(w, O_IMGSTR, 1, "hi", 2);
    heap_info(w, 'Z', S_ZYGOTE);
    uint32_t zyg[] = {C_OBJECT, 0};
    instance(w, O_ZYG, C_OBJECT, 2, zyg);
    thprof_segment_close(&w->h);
    thprof_record(&w->h, 0x2c, 0);
}

static void import_android(run *R, const tbuf *in, int policy)
{
    import_mem(R, in->data, in->len, policy, SNIFF_AUTO, 0);
}

/* ---- the app heap, as imported by default ------------------------------ */

static const want_obj app_heap[] = {
    /* $class$ 8 + $classOverhead 4 + sInstances 4 + the byte[20] */
    {C_LEAK, 40, "java.lang.Class", "class", "com.example.Leak"},
    /* $class$ 8 + a 4-byte $classOverhead: 12 -> 16 */
    {C_LOADER, 16, "java.lang.Class", "class", "java.lang.ClassLoader"},
    /* the instance size the CLASS DUMP states */
    {O_LEAK, 16, "com.example.Leak", "instance", ""},
    {O_LEAK2, 16, "com.example.Leak", "instance", ""},
    /* 16 + its characters, inside it: 5 bytes -> 24, 2 chars -> 24 */
    {O_STR, 24, "java.lang.String", "instance", "hello"},
    {O_STR2, 24, "java.lang.String", "instance", "\xc3\xa9\xe2\x82\xac"},
    {O_EMPTY, 16, "java.lang.String", "instance", ""},
    {O_CL, 16, "java.lang.ClassLoader", "instance", ""},
    /* a 12-byte header, the elements; a long[]'s at 16 */
    {O_ARR, 24, "java.lang.Object[]", "object array", ""},
    {O_INTS, 24, "int[]", "primitive array", ""},
    {O_LONGS, 24, "long[]", "primitive array", ""},
    {O_NODATA, 32, "char[]", "primitive array", ""},
};
#define APP_OBJECTS (sizeof app_heap / sizeof app_heap[0])

static void expect_app_heap(const heap *h)
{
    cr_assert(strstr(h->model, "art: 8-byte object header, 12-byte array "
                     "header, 4-byte references, instance sizes as the dump "
                     "states them, 8-byte alignment (detected: JAVA PROFILE "
                     "1.0.3, Android's)"), "%s", h->model);
    cr_assert_str_eq(h->heaps, "app: 12 objects, 272 bytes; image: 11 "
                     "objects, 136 bytes, left out; zygote: 1 object, 8 "
                     "bytes, left out");
    expect_objects(h, app_heap, APP_OBJECTS);
    /* references to the image and zygote heaps are gone, and so are
     * those to the made-up objects */
    enum { FIELD = HEAPFMT_LABEL_FIELD, OTHER = HEAPFMT_LABEL_OTHER,
           INDEX = HEAPFMT_LABEL_INDEX };
    static const want_refs held[] = {
        {C_LEAK, 2, {{O_ARR, FIELD, 0, "sInstances"},
                     {O_CL, OTHER, 0, "<classloader>"}}},
        {C_LOADER, 0, {{0}}},
        {O_LEAK, 2, {{O_LEAK2, FIELD, 0, "next"},
                     {C_LEAK, FIELD, 0, "shadow$_klass_"}}},
        {O_STR, 0, {{0}}},
        {O_CL, 2, {{C_LOADER, FIELD, 0, "shadow$_klass_"},
                   {C_LEAK, FIELD, 0, "runtimeInternalObjects"}}},
        {O_ARR, 2, {{O_LEAK, INDEX, 0, "0"}, {O_STR, INDEX, 0, "1"}}},
    };
    expect_refs(h, held, sizeof held / sizeof held[0]);
    /* roots: Android's kinds, 0x90 not among them, those of left-out
     * objects gone; what the image heap holds in the app heap */
    static const struct {
        const char *kind;
        uint64_t id;
    } roots[] = {
        {"sticky class", C_LEAK},
        {"interned string", O_STR},
        {"jni monitor", O_CL},
        {"debugger", O_INTS},
        {"java frame", O_ARR},
        {"unknown", O_EMPTY},
        {"image heap: static android.app.ActivityThread.sCache", O_LEAK},
        {"image heap: java.lang.Object[]", O_LEAK2},
    };
    cr_assert_eq(h->nroots, 8);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_str_eq(h->roots[i], roots[i].kind);
        cr_assert(h->root_n[i] == 1 && h->root_ref[i][0] == roots[i].id,
                  "root %s", roots[i].kind);
    }
}

Test(import_android, the_app_heap_with_its_roots)
{
    aw w;
    android_dump(&w, 0, 1);
    static const int policies[] = {TSRC_WHOLE, TSRC_BYTE, TSRC_RANDOM};
    rereadable = 1;
    for (size_t p = 0; p < 3; p++) {
        run R;
        import_android(&R, &w.h.b, policies[p]);
        cr_assert_eq(R.result, IMPORT_OK, "policy %d: %s", policies[p], R.log);
        cr_assert_eq(R.finish, HEAPFMT_OK);
        cr_assert_str_eq(R.log, "warning: left out the image and zygote heaps "
                         "(12 objects, 144 bytes), as Android Studio shows the "
                         "app heap alone: --heap=all keeps them\n");
        cr_assert_eq(R.st.objects, APP_OBJECTS);
        cr_assert_eq(R.st.roots, 8);
        /* C_CLASS from both classes, their supers, the Object[]'s zygote
         * element, the Strings' classes, the app objects' image classes */
        cr_assert_gt(R.st.refs_left_out, 0);
        heap h;
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
        expect_app_heap(&h);
        tsink_free(&R.sink);
    }
    rereadable = 0;
    tbuf_free(&w.h.b);
}

Test(import_android, a_pipe_loses_references_but_not_objects)
{
    /* read once: ART writes the app heap before the boot image, where
     * java.lang.Object and most classes are, so the app's instances lose
     * their references (and the warning says a file keeps them); an
     * object's references to objects of a left-out heap further on cannot
     * be told apart: they stay (heapfmt-graph reports them as not in the
     * dump); the objects, their sizes and values, the roots are the same */
    aw w;
    android_dump(&w, 0, 1);
    run R;
    import_android(&R, &w.h.b, TSRC_RANDOM);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "warning: 6 instances of classes not dumped "
                     "before them"), "%s", R.log);
    cr_assert_eq(R.st.objects, APP_OBJECTS);
    cr_assert_eq(R.st.roots, 8);
    cr_assert_eq(R.st.refs_left_out, 0);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
    for (size_t i = 0; i < APP_OBJECTS; i++) {
        cr_assert_eq(h.o[i].id, app_heap[i].id);
        cr_assert_eq(h.o[i].size, app_heap[i].size, "size of %llx",
                     (unsigned long long)h.o[i].id);
        cr_assert_str_eq(h.o[i].value, app_heap[i].value);
    }
    cr_assert_eq(find(&h, O_LEAK)->nrefs, 0);
    const obj *a = find(&h, O_ARR);
    cr_assert_eq(a->nrefs, 3);
    expect_ref(a, 2, O_ZYG, HEAPFMT_LABEL_INDEX, 0, "2");
    tsink_free(&R.sink);
    tbuf_free(&w.h.b);
}

/* The image and zygote objects of the heap, with --heap=all. */
static const struct {
    uint64_t id, size;
    const char *cls;
} other_heaps[] = {
    {C_OBJECT, 16, "java.lang.Class"}, /* 8 + a 4-byte $classOverhead */
    {C_CLASS, 8, "java.lang.Class"},   {C_STRING, 8, "java.lang.Class"},
    {C_BYTES, 8, "java.lang.Class"},   {C_CHARS, 8, "java.lang.Class"},
    {C_OBJARR, 8, "java.lang.Class"},  {C_INTS, 8, "java.lang.Class"},
    {C_LONGS, 8, "java.lang.Class"},
    {C_AT, 16, "java.lang.Class"},     /* 8 + sCache 4 -> 16 */
    {O_IMGLIST, 24, "java.lang.Object[]"},
    {O_IMGSTR, 24, "java.lang.String"},
    {O_ZYG, 8, "java.lang.Object"},
};

Test(import_android, every_heap)
{
    aw w;
    android_dump(&w, 0, 1);
    heaps_option = "all";
    rereadable = 1;
    run R;
    import_android(&R, &w.h.b, TSRC_WHOLE);
    heaps_option = NULL;
    rereadable = 0;
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert_str_empty(R.log);
    cr_assert_eq(R.st.refs_left_out, 0);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
    cr_assert_str_eq(h.heaps, "app: 12 objects, 272 bytes; image: 11 objects, "
                     "136 bytes; zygote: 1 object, 8 bytes");
    size_t n = sizeof other_heaps / sizeof other_heaps[0];
    cr_assert_eq(h.no, APP_OBJECTS + n);
    for (size_t i = 0; i < n; i++) {
        const obj *o = &h.o[APP_OBJECTS + i];
        cr_assert_eq(o->id, other_heaps[i].id);
        cr_assert_eq(o->size, other_heaps[i].size, "size of %llx",
                     (unsigned long long)o->id);
        cr_assert_str_eq(o->cls, other_heaps[i].cls);
    }
    cr_assert_str_eq(find(&h, O_IMGSTR)->value, "hi");
    expect_ref(find(&h, C_AT), 1, O_LEAK, HEAPFMT_LABEL_FIELD, 0, "sCache");
    expect_ref(find(&h, O_ARR), 2, O_ZYG, HEAPFMT_LABEL_INDEX, 0, "2");
    expect_ref(find(&h, O_STR), 0, C_STRING, HEAPFMT_LABEL_FIELD, 0,
               "shadow$_klass_");
    /* no holder roots; the roots of the zygote and image objects stay */
    cr_assert_eq(h.nroots, 7);
    cr_assert_str_eq(h.roots[0], "vm internal");
    cr_assert(h.root_n[0] == 1 && h.root_ref[0][0] == O_ZYG);
    tsink_free(&R.sink);
    tbuf_free(&w.h.b);
}

/* Imports in into h (a file: read twice), with --heap=all. */
static void import_all(const tbuf *in, const char *format, heap *h, run *R)
{
    heaps_option = "all";
    rereadable = 1;
    import_android(R, in, TSRC_RANDOM);
    heaps_option = NULL;
    rereadable = 0;
    cr_assert_eq(R->result, IMPORT_OK, "%s", R->log);
    read_heap(h, &R->sink.out, format, 0);
}

Test(import_android, hprof_conv_output_gives_the_same_heap)
{
    /* hprof-conv keeps every object (heap names and Android's root kinds
     * go): recognised by java.lang.Object's ART fields, it is read as
     * Android's, object for object (a NODATA array it would empty is left
     * out of both) */
    aw art, conv;
    android_dump(&art, 0, 0);
    android_dump(&conv, 1, 0);
    run Ra, Rc;
    static heap ha, hc;
    import_all(&art.h.b, "hprof (JAVA PROFILE 1.0.3)", &ha, &Ra);
    import_all(&conv.h.b, "hprof (JAVA PROFILE 1.0.2)", &hc, &Rc);
    cr_assert_str_empty(Rc.log);
    cr_assert(Rc.st.art_converted);
    cr_assert(strstr(hc.model, "art: ") &&
              strstr(hc.model, "(detected: java.lang.Object declares ART's "
                     "shadow$_klass_, an Android dump hprof-conv converted)"),
              "%s", hc.model);
    cr_assert_str_empty(hc.heaps); /* it names no heaps */
    cr_assert_eq(ha.no, hc.no);
    cr_assert_eq(ha.no, APP_OBJECTS - 1 + sizeof other_heaps /
                                              sizeof other_heaps[0]);
    for (size_t i = 0; i < ha.no; i++) {
        const obj *x = &ha.o[i], *y = &hc.o[i];
        cr_assert(x->id == y->id && x->size == y->size, "object %zu", i);
        cr_assert_str_eq(x->cls, y->cls);
        cr_assert_str_eq(x->type, y->type);
        cr_assert_str_eq(x->value, y->value);
        cr_assert_eq(x->nrefs, y->nrefs, "refs of %llx",
                     (unsigned long long)x->id);
        for (size_t j = 0; j < x->nrefs; j++)
            cr_assert(x->refs[j].to == y->refs[j].to &&
                      x->refs[j].kind == y->refs[j].kind &&
                      strcmp(x->refs[j].name, y->refs[j].name) == 0);
    }
    /* the same roots, Android's kinds as "unknown" (and the unreachable
     * marker hprof-conv makes a root) */
    cr_assert_eq(Ra.st.refs + 1, Rc.st.refs);
    tsink_free(&Ra.sink);
    tsink_free(&Rc.sink);
    /* through a pipe the first objects are sized before java.lang.Object
     * is seen: a warning says so and what to do */
    import_android(&Rc, &conv.h.b, TSRC_WHOLE);
    cr_assert(strstr(Rc.log, "warning: an Android dump converted by "
                     "hprof-conv (java.lang.Object declares ART's "
                     "shadow$_klass_), recognised too late to be read as "
                     "Android's: the input was read once, as a pipe is; "
                     "import it from a regular file or with --jvm=art"),
              "%s", Rc.log);
    tsink_free(&Rc.sink);
    /* --jvm=art reads it as Android's from the first byte */
    jvm_option = "art";
    heaps_option = "all";
    import_android(&Rc, &conv.h.b, TSRC_WHOLE);
    jvm_option = NULL;
    heaps_option = NULL;
    read_heap(&hc, &Rc.sink.out, "hprof (JAVA PROFILE 1.0.2)", 0);
    cr_assert(strstr(hc.model, "art: ") && strstr(hc.model, "(--jvm)"), "%s",
              hc.model);
    cr_assert_eq(find(&hc, O_STR)->size, 24);
    cr_assert_str_eq(find(&hc, O_STR)->value, "hello");
    tsink_free(&Rc.sink);
    tbuf_free(&art.h.b);
    tbuf_free(&conv.h.b);
}

Test(import_android, heaps_by_name)
{
    aw w;
    android_dump(&w, 0, 1);
    rereadable = 1;
    run R;
    heap h;
    /* the boot image and the zygote without the app */
    heaps_option = "image,zygote";
    import_android(&R, &w.h.b, TSRC_WHOLE);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert(strstr(R.log, "left out the app heap (12 objects, 272 bytes)"),
              "%s", R.log);
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
    cr_assert_eq(h.no, sizeof other_heaps / sizeof other_heaps[0]);
    /* what the app heap holds in them: C_LEAK's ($class$ and <super>) and
     * O_LEAK's klass words, O_ARR's zygote element... by holder */
    int seen = 0;
    for (size_t i = 0; i < h.nroots; i++)
        if (strcmp(h.roots[i], "app heap: java.lang.Object[]") == 0) {
            cr_assert(h.root_n[i] == 1 && h.root_ref[i][0] == O_ZYG);
            seen = 1;
        }
    cr_assert(seen);
    tsink_free(&R.sink);
    /* a name no heap has: said; nothing in the heaps named: an error */
    heaps_option = "app,jni";
    import_android(&R, &w.h.b, TSRC_WHOLE);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert(strstr(R.log, "warning: --heap=app,jni: the dump has no heap "
                     "named jni"), "%s", R.log);
    tsink_free(&R.sink);
    heaps_option = "jni";
    import_android(&R, &w.h.b, TSRC_WHOLE);
    cr_assert_eq(R.result, IMPORT_FAILED, "%s", R.log);
    cr_assert(strstr(R.log, "every object is in the app, image and zygote "
                     "heaps, left out: --heap names those to import "
                     "(--heap=all for every one)"), "%s", R.log);
    heaps_option = NULL;
    rereadable = 0;
    tbuf_free(&w.h.b);
}

Test(import_android, heap_names_in_a_dump_that_has_none)
{
    /* HotSpot's dumps name no heaps: --heap is said to do nothing */
    aw w;
    android_dump(&w, 1, 0);
    heaps_option = "app";
    jvm_option = "compressed";
    run R;
    import_android(&R, &w.h.b, TSRC_WHOLE);
    heaps_option = NULL;
    jvm_option = NULL;
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "warning: --heap=app: the dump names no heaps "
                     "(Android's do; HotSpot's and hprof-conv's output do "
                     "not): every object imported"), "%s", R.log);
    tsink_free(&R.sink);
    tbuf_free(&w.h.b);
}

/* ---- the fixtures ------------------------------------------------------- */

/* Checks that tests/fixtures/import/name holds b (with HEAPFMT_WRITE_
 * FIXTURES=DIR in the environment, writes b to DIR/name instead). */
static void fixture_is(const char *name, const tbuf *b)
{
    const char *dir = getenv("HEAPFMT_WRITE_FIXTURES");
    if (dir) {
        char out[512];
        snprintf(out, sizeof out, "%s/%s", dir, name);
        FILE *f = fopen(out, "wb");
        cr_assert_not_null(f, "%s", out);
        cr_assert_eq(fwrite(b->data, 1, b->len, f), b->len);
        cr_assert_eq(fclose(f), 0);
        return;
    }
    char rel[256];
    snprintf(rel, sizeof rel, "tests/fixtures/import/%s", name);
    const char *path = tfind_repo_file(NULL, rel);
    cr_assert_not_null(path, "%s not found", rel);
    tbuf f = {0};
    cr_assert_eq(tread_file(path, &f.data, &f.len), 0, "%s", path);
    cr_assert(f.len == b->len && memcmp(f.data, b->data, f.len) == 0,
              "%s is not what android_dump() writes", rel);
    free(f.data);
}

Test(import_android, the_fixtures_are_this_heap)
{
    aw w;
    android_dump(&w, 0, 1);
    fixture_is("android.hprof", &w.h.b);
    tbuf_free(&w.h.b);
    android_dump(&w, 1, 1);
    fixture_is("android-conv.hprof", &w.h.b);
    tbuf_free(&w.h.b);
}

/* ---- Android 7, and damage ---------------------------------------------- */

Test(import_android, class_objects_of_android_7)
{
    /* Android 7 and before: java.lang.Class states its instance size and
     * the statics are not its fields: a class object is that size and
     * its $classOverhead byte[] (which holds the statics) */
    aw w;
    w.conv = 0;
    thprof_header(&w.h, "JAVA PROFILE 1.0.3", 4, 0);
    thprof_utf8(&w.h, S_CLASS, "java.lang.Class");
    thprof_utf8(&w.h, S_LEAK, "com.example.Leak");
    thprof_utf8(&w.h, S_OVERHEAD, "$classOverhead");
    thprof_utf8(&w.h, S_SCACHE, "sCache");
    thprof_load_class(&w.h, C_CLASS, S_CLASS);
    thprof_load_class(&w.h, C_LEAK, S_LEAK);
    thprof_segment_open(&w.h);
    class_dump(&w, C_CLASS, 0, 0, 100, 0, NULL, 0, NULL);
    static const unsigned char zero[50];
    thprof_prims(&w.h, C_LEAK | 1, 50, 8, zero, 50);
    static const fd st[] = {{S_OVERHEAD, 2, C_LEAK | 1}, {S_SCACHE, 2, O_LEAK}};
    class_dump(&w, C_LEAK, 0, 0, 8, 2, st, 0, NULL);
    thprof_segment_close(&w.h);
    thprof_record(&w.h, 0x2c, 0);
    rereadable = 1;
    run R;
    import_android(&R, &w.h.b, TSRC_WHOLE);
    rereadable = 0;
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    heap h;
    read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
    cr_assert_eq(h.no, 2);
    cr_assert_eq(find(&h, C_CLASS)->size, 104); /* 100 -> 104 */
    const obj *leak = find(&h, C_LEAK);
    cr_assert_eq(leak->size, 152); /* 100 + 50 -> 152 */
    cr_assert_eq(leak->nrefs, 1);
    expect_ref(leak, 0, O_LEAK, HEAPFMT_LABEL_FIELD, 0, "sCache");
    tsink_free(&R.sink);
    tbuf_free(&w.h.b);
}

Test(import_android, cut_at_every_byte)
{
    aw w;
    android_dump(&w, 0, 1);
    for (rereadable = 0; rereadable <= 1; rereadable++) {
        uint64_t last = 0;
        for (size_t cut = 0; cut < w.h.b.len; cut++) {
            run R;
            import_mem(&R, w.h.b.data, cut, TSRC_WHOLE, SNIFF_HPROF, 0);
            cr_assert_neq(R.result, IMPORT_OK, "cut at %zu", cut);
            cr_assert_leq(R.st.objects, APP_OBJECTS);
            cr_assert_gt(R.errors + (R.log[0] != '\0'), 0, "cut at %zu: silent",
                         cut);
            if (R.result == IMPORT_INCOMPLETE)
                cr_assert_eq(R.finish, HEAPFMT_OK);
            last = R.st.objects;
            tsink_free(&R.sink);
        }
        cr_assert_eq(last, APP_OBJECTS); /* HEAP DUMP END alone missing */
    }
    rereadable = 0;
    tbuf_free(&w.h.b);
}

/* A dump of one segment: the header (version v), then sub-record bytes. */
static void one_segment(aw *w, const char *v, const unsigned char *sub,
                        size_t n)
{
    w->conv = 0;
    thprof_header(&w->h, v, 4, 0);
    thprof_segment_open(&w->h);
    tbuf_put(&w->h.b, sub, n);
    thprof_segment_close(&w->h);
    thprof_record(&w->h, 0x2c, 0);
}

Test(import_android, records_that_cannot_be_read_on)
{
    /* 17 heaps; Android's records in HotSpot's dump; a NODATA array of an
     * unknown type; a root cut by its segment's end */
    unsigned char heaps[17 * 9 + 9];
    for (unsigned i = 0; i < 17; i++) {
        unsigned char *p = heaps + 9 * i;
        memset(p, 0, 9);
        p[0] = 0xfe;
        p[4] = (unsigned char)(i + 1);
    }
    memcpy(heaps + 17 * 9, "\x21\0\0\0\x10\0\0\0\0", 9);
    static const unsigned char nodata[] = {0xc3, 0, 0, 0, 8, 0, 0, 0, 0,
                                           0, 0, 0, 1, 3};
    static const unsigned char cut[] = {0x8e, 0, 0, 0, 8, 0, 0, 0, 1};
    const struct {
        const char *version;
        const unsigned char *sub;
        size_t len, at;
        const char *says;
    } cases[] = {
        {"JAVA PROFILE 1.0.3", heaps, sizeof heaps, 15 * 9,
         "a HEAP DUMP INFO naming a heap after 15 others (more are not "
         "read)"},
        {"JAVA PROFILE 1.0.2", heaps, sizeof heaps, 0,
         "heap dump sub-record 0xfe, Android's, in a dump that is not (JAVA "
         "PROFILE 1.0.2)"},
        {"JAVA PROFILE 1.0.3", nodata, sizeof nodata, 0,
         "primitive array of unknown type 3"},
        {"JAVA PROFILE 1.0.3", cut, sizeof cut, 0,
         "a GC root record runs past the end of its heap dump record"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aw w;
        one_segment(&w, cases[i].version, cases[i].sub, cases[i].len);
        size_t at = strlen(cases[i].version) + 1 + 12 + 9 + cases[i].at;
        char want[256];
        snprintf(want, sizeof want, "byte %zu: %s", at, cases[i].says);
        for (rereadable = 0; rereadable <= 1; rereadable++) {
            run R;
            import_android(&R, &w.h.b, TSRC_WHOLE);
            cr_assert_eq(R.result, IMPORT_FAILED, "case %zu: %s", i, R.log);
            cr_assert(strstr(R.log, want), "case %zu: want '%s' in %s", i,
                      want, R.log);
            tsink_free(&R.sink);
        }
        rereadable = 0;
        tbuf_free(&w.h.b);
    }
}

/* An instance of the app heap dumped twice (issue 31): a segment after
 * the heap's end names the app heap again and repeats O_LEAK. The repeat
 * gets a new id from the top of the range down, the import says so, its
 * output verifies (import_mem runs heapfmt-info --verify), and the
 * references to the id go to the first object. */
Test(import_android, a_repeated_instance_id_gets_a_new_one)
{
    aw w;
    android_dump(&w, 0, 1);
    w.h.b.len -= 9; /* the HEAP DUMP END */
    thprof_segment_open(&w.h);
    heap_info(&w, 'A', S_APP);
    uint32_t again[] = {O_STR, 3, C_LEAK, 0};
    instance(&w, O_LEAK, C_LEAK, 4, again);
    thprof_segment_close(&w.h);
    thprof_record(&w.h, 0x2c, 0);
    for (rereadable = 0; rereadable <= 1; rereadable++) {
        run R;
        import_android(&R, &w.h.b, TSRC_RANDOM);
        /* read once, instances before their class lose references */
        cr_assert_eq(R.result, rereadable ? IMPORT_OK : IMPORT_INCOMPLETE,
                     "%s", R.log);
        char want[160];
        snprintf(want, sizeof want, "1 object repeats the id of an earlier "
                 "one (the first: %#x)", (unsigned)O_LEAK);
        cr_assert(strstr(R.log, want), "want '%s' in %s", want, R.log);
        heap h;
        read_heap(&h, &R.sink.out, "hprof (JAVA PROFILE 1.0.3)", 0);
        cr_assert_eq(h.no, APP_OBJECTS + 1);
        cr_assert_str_eq(find(&h, UINT64_MAX)->cls, "com.example.Leak",
                         "the repeat, renamed");
        if (rereadable) {
            expect_ref(find(&h, O_LEAK), 0, O_LEAK2, HEAPFMT_LABEL_FIELD, 0,
                       "next");
            expect_ref(find(&h, UINT64_MAX), 0, O_STR, HEAPFMT_LABEL_FIELD, 0,
                       "next");
            expect_ref(find(&h, O_ARR), 0, O_LEAK, HEAPFMT_LABEL_INDEX, 0,
                       "0");
        }
        tsink_free(&R.sink);
    }
    rereadable = 0;
    tbuf_free(&w.h.b);
}
