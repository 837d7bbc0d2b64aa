/*
 * test_import_scan.c -- the dump_all line scanner (tools/import/jscan.c)
 * held to jansson.
 *
 * jansson is the oracle: for every line, json_loadb(JSON_ALLOW_NUL) decides
 * whether it is JSON, and the fields the importer needs are derived from
 * jansson's tree with the rules documented in jscan.h. The scanner must
 * agree on acceptance and on every field. Lines come from the fixtures,
 * from real Ruby output when tests/fixtures has none of it (all are
 * hand-made), from a seeded generator (escapes, UTF-8 good and bad,
 * numbers, nesting, long reference arrays, whitespace) and from random
 * mutations of generated lines. Hand-written cases pin the edges. Each
 * line also goes to js_scan_next, followed by another line, which must
 * take it exactly when js_scan finds it valid, with the same fields.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "tio.h"

/* ---- the oracle ------------------------------------------------------- */

typedef struct otext {
    char *p;
    size_t len;
} otext;

typedef struct oline {
    int status; /* IMP_OK, IMP_FIELD, IMP_SYNTAX, or -1: jansson overflowed */
    uint32_t has, bits;
    uint64_t address, klass, super, memsize, bytesize, capacity, slot_size,
        line, generation;
    otext type, root, name, file, struct_name, imemo_type, value;
    uint64_t *refs;
    size_t nrefs;
} oline;

static void otext_set(otext *t, json_t *s)
{
    t->len = json_string_length(s);
    t->p = malloc(t->len + 1);
    memcpy(t->p, json_string_value(s), t->len + 1);
}

static void oline_free(oline *o)
{
    free(o->type.p);
    free(o->root.p);
    free(o->name.p);
    free(o->file.p);
    free(o->struct_name.p);
    free(o->imemo_type.p);
    free(o->value.p);
    free(o->refs);
    memset(o, 0, sizeof *o);
}

static int oaddr(json_t *v, uint64_t *out)
{
    return json_is_string(v) &&
           js_parse_address(json_string_value(v), json_string_length(v),
                            out) == 0;
}

static int ouint(json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* The scalar fields of a line, by the rules in jscan.h: a core field of
 * the wrong kind is a field error, a lenient one is left out. */
enum okind { O_ADDR, O_UINT, O_TEXT };

static const struct ofield {
    const char *key;
    enum okind kind;
    int lenient;
    size_t at; /* of its uint64_t or otext in oline */
    uint32_t bit;
} ofields[] = {
    {"address", O_ADDR, 0, offsetof(oline, address), JS_HAS_ADDRESS},
    {"class", O_ADDR, 0, offsetof(oline, klass), JS_HAS_CLASS},
    {"superclass", O_ADDR, 1, offsetof(oline, super), JS_HAS_SUPER},
    {"type", O_TEXT, 0, offsetof(oline, type), JS_HAS_TYPE},
    {"root", O_TEXT, 0, offsetof(oline, root), JS_HAS_ROOT},
    {"name", O_TEXT, 0, offsetof(oline, name), JS_HAS_NAME},
    {"file", O_TEXT, 0, offsetof(oline, file), JS_HAS_FILE},
    {"struct", O_TEXT, 1, offsetof(oline, struct_name), JS_HAS_STRUCT},
    {"imemo_type", O_TEXT, 1, offsetof(oline, imemo_type), JS_HAS_IMEMO_TYPE},
    {"value", O_TEXT, 1, offsetof(oline, value), JS_HAS_VALUE},
    {"memsize", O_UINT, 0, offsetof(oline, memsize), JS_HAS_MEMSIZE},
    {"line", O_UINT, 0, offsetof(oline, line), JS_HAS_LINE},
    {"generation", O_UINT, 0, offsetof(oline, generation), JS_HAS_GENERATION},
    {"bytesize", O_UINT, 1, offsetof(oline, bytesize), JS_HAS_BYTESIZE},
    {"capacity", O_UINT, 1, offsetof(oline, capacity), JS_HAS_CAPACITY},
    {"slot_size", O_UINT, 1, offsetof(oline, slot_size), JS_HAS_SLOT_SIZE},
};

/* Flags true in the line (or in its "flags" object, as GC bits). */
static const struct oflag {
    const char *key;
    uint32_t bit;
} oflags[] = {
    {"frozen", JS_FROZEN}, {"embedded", JS_EMBEDDED},
    {"shared", JS_SHARED}, {"singleton", JS_SINGLETON},
}, ogc_flags[] = {
    {"wb_protected", JS_GC_WB_PROTECTED}, {"old", JS_GC_OLD},
    {"uncollectible", JS_GC_UNCOLLECTIBLE}, {"marked", JS_GC_MARKED},
};

/* Reads value v of field f into o: 1 if it is of the field's kind. */
static int oracle_field(json_t *v, const struct ofield *f, oline *o)
{
    void *dst = (char *)o + f->at;
    switch (f->kind) {
    case O_ADDR:
        return oaddr(v, dst);
    case O_UINT:
        return ouint(v, dst);
    case O_TEXT:
        if (!json_is_string(v))
            return 0;
        otext_set(dst, v);
        return 1;
    }
    return 0;
}

static uint32_t oracle_flags(json_t *j, const struct oflag *fl, size_t n)
{
    uint32_t bits = 0;
    for (size_t i = 0; i < n; i++)
        if (json_is_true(json_object_get(j, fl[i].key)))
            bits |= fl[i].bit;
    return bits;
}

/* Fields of a parsed object, by the rules in jscan.h. */
static int oracle_fields(json_t *j, oline *o)
{
    int field_error = 0;
    json_t *v;
    for (size_t i = 0; i < sizeof ofields / sizeof ofields[0]; i++) {
        if (!(v = json_object_get(j, ofields[i].key)))
            continue;
        if (oracle_field(v, &ofields[i], o))
            o->has |= ofields[i].bit;
        else if (!ofields[i].lenient)
            field_error = 1;
    }
    if (json_object_get(j, "frozen"))
        o->has |= JS_HAS_FROZEN;
    o->bits |= oracle_flags(j, oflags, sizeof oflags / sizeof oflags[0]);
    if ((v = json_object_get(j, "flags")) && json_is_object(v)) {
        o->has |= JS_HAS_FLAGS;
        o->bits |= oracle_flags(v, ogc_flags, sizeof ogc_flags / sizeof ogc_flags[0]);
    }
    if ((v = json_object_get(j, "references"))) {
        if (!json_is_array(v)) {
            field_error = 1;
        } else {
            size_t n = json_array_size(v);
            o->refs = malloc((n ? n : 1) * sizeof *o->refs);
            for (size_t i = 0; i < n; i++)
                if (!oaddr(json_array_get(v, i), &o->refs[i]))
                    field_error = 1;
            o->nrefs = n;
            o->has |= JS_HAS_REFS;
        }
    }
    return field_error ? IMP_FIELD : IMP_OK;
}

static void oracle(const char *line, size_t n, oline *o)
{
    memset(o, 0, sizeof *o);
    json_error_t err;
    json_t *j = json_loadb(line, n, JSON_ALLOW_NUL, &err);
    if (!j) {
        o->status = json_error_code(&err) == json_error_numeric_overflow
                        ? -1
                        : IMP_SYNTAX;
        return;
    }
    o->status = json_is_object(j) ? oracle_fields(j, o) : IMP_FIELD;
    json_decref(j);
}

/* ---- comparing -------------------------------------------------------- */

static int text_eq(const js_text *a, const otext *b)
{
    return a->len == b->len && (b->len == 0 || memcmp(a->ptr, b->p, b->len) == 0);
}

static void show(const char *line, size_t n)
{
    fprintf(stderr, "line (%zu bytes): %.*s%s\n", n, n > 400 ? 400 : (int)n,
            line, n > 400 ? "..." : "");
}

/* Checks one line; returns the scanner's status. */
static int check_line(js_scanner *s, const char *line, size_t n)
{
    oline o;
    js_line l;
    oracle(line, n, &o);
    int rc = js_scan(s, line, n, &l);
    if (o.status == -1) { /* numbers beyond jansson's range: no verdict */
        cr_assert_neq(rc, IMP_NOMEM);
        oline_free(&o);
        return rc;
    }
    if (rc != o.status) {
        show(line, n);
        cr_assert_fail("scanner says %d (%s at %zu), jansson says %d", rc,
                       s->err_msg ? s->err_msg : "-", s->err_pos, o.status);
    }
    if (rc == IMP_SYNTAX || rc == IMP_FIELD) {
        cr_assert_not_null(s->err_msg);
        cr_assert_leq(s->err_pos, n);
    }
    if (rc == IMP_OK) {
        uint32_t has = l.has & ~(uint32_t)JS_HAS_REFS;
        uint32_t ohas = o.has & ~(uint32_t)JS_HAS_REFS;
        if (has != ohas || l.bits != o.bits) {
            show(line, n);
            cr_assert_fail("has %#x/%#x bits %#x/%#x", has, ohas, l.bits,
                           o.bits);
        }
#define EQ(f, bit)                                                            \
    if (o.has & (bit))                                                        \
        cr_assert_eq(l.f, o.f, #f ": %llu != %llu", (unsigned long long)l.f,  \
                     (unsigned long long)o.f);
        EQ(address, JS_HAS_ADDRESS)
        EQ(klass, JS_HAS_CLASS)
        EQ(super, JS_HAS_SUPER)
        EQ(memsize, JS_HAS_MEMSIZE)
        EQ(bytesize, JS_HAS_BYTESIZE)
        EQ(capacity, JS_HAS_CAPACITY)
        EQ(slot_size, JS_HAS_SLOT_SIZE)
        EQ(line, JS_HAS_LINE)
        EQ(generation, JS_HAS_GENERATION)
#undef EQ
        cr_assert(text_eq(&l.type, &o.type), "type");
        cr_assert(text_eq(&l.root, &o.root), "root");
        cr_assert(text_eq(&l.name, &o.name), "name");
        cr_assert(text_eq(&l.file, &o.file), "file");
        cr_assert(text_eq(&l.struct_name, &o.struct_name), "struct");
        cr_assert(text_eq(&l.imemo_type, &o.imemo_type), "imemo_type");
        if (o.has & JS_HAS_VALUE) {
            size_t keep = o.value.len < JS_VALUE_MAX ? o.value.len : JS_VALUE_MAX;
            cr_assert_eq(l.value_full, o.value.len, "value length");
            cr_assert_eq(l.value.len, keep, "value kept");
            cr_assert(keep == 0 || memcmp(l.value.ptr, o.value.p, keep) == 0,
                      "value text");
        }
        size_t on = (o.has & JS_HAS_REFS) ? o.nrefs : 0;
        cr_assert_eq(l.nrefs, on, "nrefs %zu != %zu", l.nrefs, on);
        for (size_t i = 0; i < on; i++)
            cr_assert_eq(l.refs[i], o.refs[i], "ref %zu", i);
    }
    oline_free(&o);
    return rc;
}

static int jtext_eq(const js_text *a, const js_text *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

/* Whether two scans found the same fields. */
static int same_fields(const js_line *a, const js_line *b)
{
    return a->has == b->has && a->bits == b->bits &&
           a->address == b->address && a->klass == b->klass &&
           a->super == b->super && a->memsize == b->memsize &&
           a->bytesize == b->bytesize && a->capacity == b->capacity &&
           a->slot_size == b->slot_size && a->line == b->line &&
           a->generation == b->generation && jtext_eq(&a->type, &b->type) &&
           jtext_eq(&a->root, &b->root) && jtext_eq(&a->name, &b->name) &&
           jtext_eq(&a->file, &b->file) &&
           jtext_eq(&a->struct_name, &b->struct_name) &&
           jtext_eq(&a->imemo_type, &b->imemo_type) &&
           jtext_eq(&a->value, &b->value) && a->value_full == b->value_full &&
           a->nrefs == b->nrefs &&
           (a->nrefs == 0 || memcmp(a->refs, b->refs, a->nrefs * sizeof *a->refs) == 0);
}

/* js_scan_next over the line, its '\n' and the next line: it takes the
 * line exactly when js_scan finds it valid, with the same fields (a line
 * with a '\n' of its own, blank space to js_scan, is not one line). */
static void check_next(js_scanner *s, char *c, size_t n)
{
    static const char after[] = "\n{\"type\":\"NEXT\"}";
    if (memchr(c, '\n', n))
        return;
    memcpy(c + n, after, sizeof after); /* with its NUL */
    js_scanner s2;
    js_init(&s2);
    js_line a, b;
    size_t len = 0;
    int took = js_scan_next(&s2, c, n + sizeof after - 1, &b, &len);
    c[n] = '\0';
    int rc = js_scan(s, c, n, &a);
    if (took != (rc == IMP_OK) || (took && (len != n || !same_fields(&a, &b)))) {
        show(c, n);
        cr_assert_fail("js_scan_next took %d (%zu bytes), js_scan says %d", took,
                       len, rc);
    }
    js_free(&s2);
}

/* A NUL-terminated copy, as the line reader provides; then the same line
 * as js_scan_next sees it in the reader's buffer. */
static int check_mem(js_scanner *s, const char *p, size_t n)
{
    char *c = malloc(n + 32);
    memcpy(c, p, n);
    c[n] = '\0';
    int rc = check_line(s, c, n);
    check_next(s, c, n);
    free(c);
    return rc;
}

static int check_str(js_scanner *s, const char *text)
{
    return check_mem(s, text, strlen(text));
}

/* ---- hand-written cases ------------------------------------------------- */

typedef struct scase {
    const char *line;
    int status;
} scase;

static const scase cases[] = {
    /* plain dump_all lines */
    {"{\"address\":\"0x7f1\", \"type\":\"STRING\", \"memsize\":40}", IMP_OK},
    {"{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x1\", \"0x2\"]}", IMP_OK},
    {"  {\"type\" : \"ROOT\" ,\"references\" :[ ] }\r", IMP_OK},
    {"{}", IMP_OK},
    {"{\"a\":{\"b\":[1,2,{\"c\":null}]},\"d\":[[[]]]}", IMP_OK},
    /* not JSON */
    {"", IMP_SYNTAX},
    {"   ", IMP_SYNTAX},
    {"{", IMP_SYNTAX},
    {"}", IMP_SYNTAX},
    {"{\"a\":1,}", IMP_SYNTAX},
    {"{\"a\":[1,]}", IMP_SYNTAX},
    {"{\"a\" 1}", IMP_SYNTAX},
    {"{a:1}", IMP_SYNTAX},
    {"{\"a\":1}}", IMP_SYNTAX},
    {"{\"a\":1} x", IMP_SYNTAX},
    {"{\"a\":01}", IMP_SYNTAX},
    {"{\"a\":-}", IMP_SYNTAX},
    {"{\"a\":1.}", IMP_SYNTAX},
    {"{\"a\":.5}", IMP_SYNTAX},
    {"{\"a\":1e}", IMP_SYNTAX},
    {"{\"a\":+1}", IMP_SYNTAX},
    {"{\"a\":tru}", IMP_SYNTAX},
    {"{\"a\":truex}", IMP_SYNTAX},
    {"{\"a\":true1}", IMP_SYNTAX},
    {"{\"a\":nul}", IMP_SYNTAX},
    {"{\"a\":NaN}", IMP_SYNTAX},
    {"{\"a\":\"\\x\"}", IMP_SYNTAX},
    {"{\"a\":\"\\u12\"}", IMP_SYNTAX},
    {"{\"a\":\"\\ud800\"}", IMP_SYNTAX},
    {"{\"a\":\"\\udc00\"}", IMP_SYNTAX},
    {"{\"a\":\"\\ud800\\u0041\"}", IMP_SYNTAX},
    {"{\"a\":\"tab\there\"}", IMP_SYNTAX},
    {"{\"a\":\"unterminated}", IMP_SYNTAX},
    {"{\"a\\u0000\":1}", IMP_SYNTAX}, /* NUL in a key: jansson refuses */
    {"{\"a\":\"\xc3\"}", IMP_SYNTAX},
    {"{\"a\":\"\xc0\xaf\"}", IMP_SYNTAX},         /* overlong */
    {"{\"a\":\"\xed\xa0\x80\"}", IMP_SYNTAX},     /* UTF-8 surrogate */
    {"{\"a\":\"\xf4\x90\x80\x80\"}", IMP_SYNTAX}, /* above U+10FFFF */
    {"{\"a\":\"\xff\"}", IMP_SYNTAX},
    {"\xef\xbb\xbf{}", IMP_SYNTAX}, /* a byte order mark */
    {"1", IMP_SYNTAX},
    {"\"s\"", IMP_SYNTAX},
    {"null", IMP_SYNTAX},
    /* JSON, but not a usable line */
    {"[1,2,3]", IMP_FIELD},
    {"{\"address\":\"zz\"}", IMP_FIELD},
    {"{\"address\":\"0x\"}", IMP_FIELD},
    {"{\"address\":\"0x12345678901234567\"}", IMP_FIELD},
    {"{\"address\":12}", IMP_FIELD},
    {"{\"class\":null}", IMP_FIELD},
    {"{\"type\":5}", IMP_FIELD},
    {"{\"memsize\":-1}", IMP_FIELD},
    {"{\"memsize\":1.5}", IMP_FIELD},
    {"{\"memsize\":\"40\"}", IMP_FIELD},
    {"{\"references\":{}}", IMP_FIELD},
    {"{\"references\":[\"0x1\", 2]}", IMP_FIELD},
    {"{\"references\":[\"0x1\", \"nope\"]}", IMP_FIELD},
    /* the last of two equal keys decides, as in jansson */
    {"{\"address\":\"zz\", \"address\":\"0x10\"}", IMP_OK},
    {"{\"address\":\"0x10\", \"address\":\"zz\"}", IMP_FIELD},
    {"{\"references\":[5], \"references\":[\"0x1\"]}", IMP_OK},
    /* lenient fields: a wrong type only drops them */
    {"{\"bytesize\":\"x\", \"slot_size\":-4, \"value\":7, \"struct\":[],"
     " \"superclass\":\"zz\", \"flags\":1, \"frozen\":\"yes\"}", IMP_OK},
    /* escaped keys are still the keys they spell */
    {"{\"\\u0061ddress\":\"0x1\", \"ty\\u0070e\":\"S\\u0054RING\"}", IMP_OK},
    /* escaped addresses */
    {"{\"references\":[\"\\u0030x1f\", \"0x2\"]}", IMP_OK},
    {"{\"a\":-0, \"memsize\":-0}", IMP_OK},
    {"{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}", IMP_OK},
    {"{\"value\":\"nul\\u0000byte\"}", IMP_OK},
    {"{\"a\":\"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\"}", IMP_OK},
    {"{\"flags\":{\"wb_protected\":true, \"old\":false, \"age\":3,"
     " \"object_id\":12, \"old\":true, \"marked\":{}}}", IMP_OK},
    /* the "flags" objects read whole (jscan.c's flag_sets): at the end of
     * the line, with more after them, cut, changed in their last byte,
     * after other flags of the same line */
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":true}}", IMP_OK},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":true}, \"memsize\":40}", IMP_OK},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":true}", IMP_SYNTAX},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":true", IMP_SYNTAX},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":truex}}", IMP_SYNTAX},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":false}}", IMP_OK},
    {"{\"flags\":{\"uncollectible\":true, \"marked\":true}}", IMP_OK},
    {"{\"flags\":{\"uncollectible\":true, \"marked\":true}", IMP_SYNTAX},
    {"{\"flags\":{\"wb_protected\":true}}", IMP_OK},
    {"{\"flags\":{\"wb_protected\":true}", IMP_SYNTAX},
    {"{\"flags\":{\"wb_protected\":true} ,\"flags\":{\"old\":true}}", IMP_OK},
    {"{\"flags\":{\"old\":true}, \"flags\":{\"wb_protected\":true}}", IMP_OK},
    {"{\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true,"
     " \"marked\":true}, \"flags\":{\"uncollectible\":true, \"marked\":true}}",
     IMP_OK},
};

Test(import_scan, hand_written_cases_agree_with_jansson)
{
    js_scanner s;
    js_init(&s);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = check_str(&s, cases[i].line);
        cr_assert_eq(rc, cases[i].status, "case %zu (%s): %d, expected %d",
                     i, cases[i].line, rc, cases[i].status);
    }
    js_free(&s);
}

Test(import_scan, fields_of_a_ruby_line)
{
    static const char line[] =
        "{\"address\":\"0x7faaffd019f0\", \"type\":\"STRING\", "
        "\"class\":\"0x7fab031e2458\", \"frozen\":true, \"bytesize\":5, "
        "\"value\":\"q\\\"\\\\\\n\\t\", \"encoding\":\"UTF-8\", "
        "\"references\":[\"0x10\", \"0x7fab031e2458\"], "
        "\"file\":\"-e\", \"line\":1, \"method\":\"*\", \"generation\":9, "
        "\"memsize\":141, \"flags\":{\"wb_protected\":true, \"old\":true}}";
    js_scanner s;
    js_init(&s);
    js_line l;
    cr_assert_eq(js_scan(&s, line, sizeof line - 1, &l), IMP_OK);
    cr_assert_eq(l.address, 0x7faaffd019f0ull);
    cr_assert_eq(l.klass, 0x7fab031e2458ull);
    cr_assert_eq(l.type.len, 6);
    cr_assert(memcmp(l.type.ptr, "STRING", 6) == 0);
    cr_assert_eq(l.value.len, 5);
    cr_assert(memcmp(l.value.ptr, "q\"\\\n\t", 5) == 0);
    cr_assert_eq(l.nrefs, 2);
    cr_assert_eq(l.refs[0], 0x10);
    cr_assert_eq(l.refs[1], 0x7fab031e2458ull);
    cr_assert_eq(l.memsize, 141);
    cr_assert_eq(l.line, 1);
    cr_assert_eq(l.generation, 9);
    cr_assert_eq(l.bits, JS_FROZEN | JS_GC_WB_PROTECTED | JS_GC_OLD);
    cr_assert(l.has & JS_HAS_FROZEN);
    cr_assert(l.has & JS_HAS_FLAGS);
    cr_assert_eq(l.file.len, 2);
    js_free(&s);
}

/* The scanner expects the key order of the lines before (js_scanner's
 * next_key): a line in that order, then lines that break it with keys
 * like the expected one (longer, shorter, escaped, cut after the name),
 * each read as if nothing were expected. A key not expected is found by
 * its first bytes and length (jscan.c's plain_key) where it is plain and
 * 16 bytes follow its quote: keys of the same slot, keys too long for
 * it, blank space before the ':', escapes, non-ASCII bytes and the end
 * of the line just before and after 16 bytes take the decoding way. */
Test(import_scan, expected_keys_are_only_a_guess)
{
    static const struct {
        const char *line;
        int rc;
        uint64_t address, memsize;
    } order_cases[] = {
        {"{\"address\":\"0x10\", \"memsize\":40}", IMP_OK, 0x10, 40},
        {"{\"address\":\"0x11\", \"memsize\":41}", IMP_OK, 0x11, 41},
        {"{\"addressX\":\"0x12\", \"memsize\":42}", IMP_OK, 0, 42},
        {"{\"address\":\"0x13\", \"memsizes\":43}", IMP_OK, 0x13, 0},
        {"{\"addr\\u0065ss\":\"0x14\", \"memsize\":44}", IMP_OK, 0x14, 44},
        {"{\"memsize\":45, \"address\":\"0x15\"}", IMP_OK, 0x15, 45},
        {"{\"address\":\"0x16\", \"memsiz\":46}", IMP_OK, 0x16, 0},
        {"{\"address\":\"0x17\", \"memsize", IMP_SYNTAX, 0, 0},
        {"{\"address\":\"0x18\", \"memsize\":48}", IMP_OK, 0x18, 48},
        {"{\"adxress\":\"0x20\", \"memsize\":50}", IMP_OK, 0, 50},
        {"{\"address\" :\"0x21\", \"memsize\":51}", IMP_OK, 0x21, 51},
        {"{\"address_and_more\":\"0x23\", \"memsize\":53}", IMP_OK, 0, 53},
        {"{\"address_and_mor\":\"0x23\", \"memsize\":53}", IMP_OK, 0, 53},
        {"{\"memsize\":54,\"address\":\"0x24\"}", IMP_OK, 0x24, 54},
        {"{\"memsize\":55,\"address\":\"0x5\"}", IMP_OK, 0x5, 55},
        {"{\"memsize\":55,\"address\":\"0x555\"}", IMP_OK, 0x555, 55},
        {"{\"mem\\u0073ize\":56, \"address\":\"0x26\"}", IMP_OK, 0x26, 56},
        {"{\"m\xc3\xa9msize\":57, \"address\":\"0x27\"}", IMP_OK, 0x27, 0},
        {"{\"memsize\\\"\":58, \"address\":\"0x28\"}", IMP_OK, 0x28, 0},
        {"{\"memsize\":59, \"address\":\"0x29\", \"memsize\x01\":1}", IMP_SYNTAX,
         0, 0},
        {"{\"memsize\":60, \"address\":\"0x30\", \"\":1}", IMP_OK, 0x30, 60},
    };
    js_scanner s;
    js_init(&s);
    js_line l;
    for (size_t i = 0; i < sizeof order_cases / sizeof order_cases[0]; i++) {
        const char *line = order_cases[i].line;
        cr_assert_eq(js_scan(&s, line, strlen(line), &l), order_cases[i].rc,
                     "line %zu: %s", i, s.err_msg);
        if (order_cases[i].rc != IMP_OK)
            continue;
        cr_assert_eq(l.address, order_cases[i].address, "line %zu", i);
        cr_assert_eq(!!(l.has & JS_HAS_ADDRESS), order_cases[i].address != 0,
                     "line %zu", i);
        cr_assert_eq(l.memsize, order_cases[i].memsize, "line %zu", i);
    }
    js_free(&s);
}

Test(import_scan, errors_say_where_and_which_field)
{
    js_scanner s;
    js_init(&s);
    js_line l;
    const char *a = "{\"type\":\"X\", \"memsize\":\"40\"}";
    cr_assert_eq(js_scan(&s, a, strlen(a), &l), IMP_FIELD);
    cr_assert_str_eq(s.err_field, "memsize");
    cr_assert_eq(s.err_pos, (size_t)(strstr(a, "\"40\"") - a));
    const char *b = "{\"type\":\"X\", \"memsize\":40 \"line\":1}";
    cr_assert_eq(js_scan(&s, b, strlen(b), &l), IMP_SYNTAX);
    cr_assert_eq(s.err_pos, (size_t)(strstr(b, "\"line") - b));
    cr_assert_null(s.err_field);
    /* a syntax error after a field error wins */
    const char *c = "{\"address\":\"zz\", \"x\":tru}";
    cr_assert_eq(js_scan(&s, c, strlen(c), &l), IMP_SYNTAX);
    js_free(&s);
}

Test(import_scan, numbers_beyond_jansson)
{
    js_scanner s;
    js_init(&s);
    js_line l;
    const char *max = "{\"memsize\":18446744073709551615}";
    cr_assert_eq(js_scan(&s, max, strlen(max), &l), IMP_OK);
    cr_assert_eq(l.memsize, UINT64_MAX);
    const char *over = "{\"memsize\":18446744073709551616}";
    cr_assert_eq(js_scan(&s, over, strlen(over), &l), IMP_FIELD);
    const char *other = "{\"x\":123456789012345678901234567890e999, \"y\":-1e-999}";
    cr_assert_eq(js_scan(&s, other, strlen(other), &l), IMP_OK);
    js_free(&s);
}

static char *nested(size_t depth, const char *inner)
{
    /* {"a": [[[ ... inner ... ]]] } with depth values counting the object */
    size_t arrays = depth - 1;
    size_t n = 6 + arrays * 2 + strlen(inner) + 1;
    char *p = malloc(n);
    size_t k = 0;
    k += (size_t)sprintf(p + k, "{\"a\":");
    for (size_t i = 0; i < arrays; i++)
        p[k++] = '[';
    k += (size_t)sprintf(p + k, "%s", inner);
    for (size_t i = 0; i < arrays; i++)
        p[k++] = ']';
    p[k++] = '}';
    p[k] = '\0';
    return p;
}

Test(import_scan, nesting_limit_is_jansson_s)
{
    js_scanner s;
    js_init(&s);
    /* depth counts the values: the object is 1, its arrays 2.. */
    size_t depths[] = {2, 100, JS_MAX_DEPTH - 1, JS_MAX_DEPTH,
                       JS_MAX_DEPTH + 1, JS_MAX_DEPTH + 2, 5000};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        char *with_scalar = nested(depths[i], "1");
        char *empty = nested(depths[i], "");
        char *obj = nested(depths[i], "{\"k\":{}}");
        check_str(&s, with_scalar);
        check_str(&s, empty);
        check_str(&s, obj);
        free(with_scalar);
        free(empty);
        free(obj);
    }
    js_free(&s);
}

Test(import_scan, parse_address)
{
    uint64_t v;
    cr_assert_eq(js_parse_address("0x7f", 4, &v), 0);
    cr_assert_eq(v, 0x7f);
    cr_assert_eq(js_parse_address("0XABCdef", 8, &v), 0);
    cr_assert_eq(v, 0xabcdef);
    cr_assert_eq(js_parse_address("00007FF6A1B2C3D4", 16, &v), 0);
    cr_assert_eq(v, 0x7ff6a1b2c3d4ull);
    cr_assert_eq(js_parse_address("0xffffffffffffffff", 18, &v), 0);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(js_parse_address("0x", 2, &v), -1);
    cr_assert_eq(js_parse_address("", 0, &v), -1);
    cr_assert_eq(js_parse_address("0x1g", 4, &v), -1);
    cr_assert_eq(js_parse_address("0x10000000000000000", 19, &v), -1);
    cr_assert_eq(js_parse_address("(nil)", 5, &v), -1);
}

/* ---- fixtures ---------------------------------------------------------- */

static const char *fixture_dir(void)
{
    static char dir[4096];
    const char *fx = getenv("FIXTURES");
    if (fx && *fx) {
        snprintf(dir, sizeof dir, "%s/import", fx);
        return dir;
    }
    const char *p = tfind_repo_file(NULL, "tests/fixtures/import/README.md");
    cr_assert_not_null(p, "tests/fixtures/import not found (set FIXTURES)");
    snprintf(dir, sizeof dir, "%s", p);
    *strrchr(dir, '/') = '\0';
    return dir;
}

/* Every line of every fixture (and of any extra files of real Ruby output
 * named by $HEAPFMT_IMPORT_EXTRA, colon-separated). */
Test(import_scan, every_fixture_line_agrees_with_jansson)
{
    const char *dir = fixture_dir();
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    js_scanner s;
    js_init(&s);
    size_t files = 0, lines = 0;
    struct dirent *e;
    char path[8192];
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        char *buf = NULL;
        size_t cap = 0;
        ssize_t len;
        while ((len = getline(&buf, &cap, f)) >= 0) {
            if (len > 0 && buf[len - 1] == '\n')
                buf[--len] = '\0';
            check_line(&s, buf, (size_t)len);
            lines++;
        }
        free(buf);
        fclose(f);
        files++;
    }
    closedir(d);
    cr_assert_geq(files, 5);
    cr_assert_geq(lines, 100);
    js_free(&s);
}

/* ---- generated lines --------------------------------------------------- */

typedef struct gen {
    tprng r;
    tbuf b;
} gen;

static void put(gen *g, const char *s)
{
    tbuf_put(&g->b, s, strlen(s));
}

static void ws(gen *g)
{
    static const char *const w[] = {"", "", "", " ", " ", "  ", "\t", "\r", " \t "};
    put(g, w[tprng_below(&g->r, sizeof w / sizeof w[0])]);
}

/* A string body: mostly valid, sometimes not (when bad is set). */
static void gen_string(gen *g, int bad)
{
    tbuf_u8(&g->b, '"');
    size_t n = tprng_below(&g->r, 4) == 0 ? tprng_below(&g->r, 300)
                                          : tprng_below(&g->r, 20);
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned)tprng_below(&g->r, 100);
        if (k < 70) {
            char c = (char)(' ' + tprng_below(&g->r, 95));
            if (c == '"' || c == '\\')
                c = 'x';
            tbuf_u8(&g->b, (unsigned char)c);
        } else if (k < 80) {
            static const char *const esc[] = {
                "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
                "\\u0000", "\\u001b", "\\u00e9", "\\u20AC", "\\uFFFF",
                "\\ud83d\\ude00", "\\uDBFF\\uDFFF"};
            put(g, esc[tprng_below(&g->r, sizeof esc / sizeof esc[0])]);
        } else if (k < 95) {
            static const char *const utf[] = {"\xc3\xa9", "\xe6\x97\xa5",
                                              "\xf0\x9f\x98\x80", "\xc2\x80",
                                              "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf",
                                              "\xe0\xa0\x80", "\xed\x9f\xbf"};
            put(g, utf[tprng_below(&g->r, sizeof utf / sizeof utf[0])]);
        } else if (bad) {
            static const char *const wrong[] = {
                "\xc3", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80",
                "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\x80", "\xff",
                "\x01", "\\x", "\\u12g4", "\\ud800", "\\udc00x", "\\ud800\\n",
                "\t", "\\"};
            put(g, wrong[tprng_below(&g->r, sizeof wrong / sizeof wrong[0])]);
        }
    }
    tbuf_u8(&g->b, '"');
}

static void gen_number(gen *g, int bad)
{
    char tmp[64];
    unsigned k = (unsigned)tprng_below(&g->r, bad ? 12 : 10);
    switch (k) {
    case 0: snprintf(tmp, sizeof tmp, "0"); break;
    case 1: snprintf(tmp, sizeof tmp, "-0"); break;
    case 2: snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)tprng_below(&g->r, 100000)); break;
    case 3: snprintf(tmp, sizeof tmp, "-%llu", (unsigned long long)tprng_below(&g->r, 1000)); break;
    case 4: snprintf(tmp, sizeof tmp, "%llu.%02llu", (unsigned long long)tprng_below(&g->r, 100), (unsigned long long)tprng_below(&g->r, 100)); break;
    case 5: snprintf(tmp, sizeof tmp, "1.5e%d", (int)tprng_below(&g->r, 20) - 10); break;
    case 6: snprintf(tmp, sizeof tmp, "2E+3"); break;
    case 7: snprintf(tmp, sizeof tmp, "9223372036854775807"); break;
    case 8: snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)tprng_next(&g->r) >> 2); break;
    case 9: snprintf(tmp, sizeof tmp, "%u", (unsigned)tprng_below(&g->r, 4000)); break;
    case 10: snprintf(tmp, sizeof tmp, "0%u", (unsigned)tprng_below(&g->r, 9) + 1); break;
    default: snprintf(tmp, sizeof tmp, "-"); break;
    }
    put(g, tmp);
}

static void gen_address(gen *g, int bad)
{
    char tmp[64];
    uint64_t a = 0x7f0000000000ull + 40 * tprng_below(&g->r, 1u << 30);
    unsigned k = (unsigned)tprng_below(&g->r, bad ? 20 : 16);
    if (k < 14)
        snprintf(tmp, sizeof tmp, "\"0x%llx\"", (unsigned long long)a);
    else if (k == 14)
        snprintf(tmp, sizeof tmp, "\"0X%llX\"", (unsigned long long)a);
    else if (k == 15)
        snprintf(tmp, sizeof tmp, "\"%016llx\"", (unsigned long long)a);
    else if (k == 16)
        snprintf(tmp, sizeof tmp, "\"0x\"");
    else if (k == 17)
        snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)a);
    else if (k == 18)
        snprintf(tmp, sizeof tmp, "\"0x%llxz\"", (unsigned long long)a);
    else
        snprintf(tmp, sizeof tmp, "\"\\u0030x%llx\"", (unsigned long long)a);
    put(g, tmp);
}

static void gen_value(gen *g, int depth, int bad);

static void gen_array_of(gen *g, int depth, int bad, int addresses)
{
    tbuf_u8(&g->b, '[');
    ws(g);
    /* long arrays only of addresses: nested long arrays would explode */
    size_t n = addresses && tprng_below(&g->r, 8) == 0
                   ? tprng_below(&g->r, 3000)
                   : tprng_below(&g->r, 6);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            ws(g);
            tbuf_u8(&g->b, ',');
            ws(g);
        }
        if (addresses)
            gen_address(g, bad && tprng_below(&g->r, 50) == 0);
        else
            gen_value(g, depth + 1, bad);
    }
    ws(g);
    tbuf_u8(&g->b, ']');
}

static void gen_object(gen *g, int depth, int bad)
{
    tbuf_u8(&g->b, '{');
    ws(g);
    size_t n = tprng_below(&g->r, 5);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            tbuf_u8(&g->b, ',');
            ws(g);
        }
        gen_string(g, bad);
        ws(g);
        tbuf_u8(&g->b, ':');
        ws(g);
        gen_value(g, depth + 1, bad);
        ws(g);
    }
    tbuf_u8(&g->b, '}');
}

static void gen_value(gen *g, int depth, int bad)
{
    unsigned k = (unsigned)tprng_below(&g->r, depth > 6 ? 5 : 8);
    switch (k) {
    case 0: gen_string(g, bad); break;
    case 1: gen_number(g, bad); break;
    case 2: put(g, "true"); break;
    case 3: put(g, "false"); break;
    case 4: put(g, "null"); break;
    case 5: case 6: gen_array_of(g, depth, bad, 0); break;
    default: gen_object(g, depth, bad); break;
    }
}

static const char *const keys[] = {
    "address", "type", "class", "superclass", "root", "references",
    "memsize", "bytesize", "capacity", "slot_size", "name", "file", "line",
    "generation", "value", "struct", "imemo_type", "frozen", "embedded",
    "shared", "singleton", "flags", "method", "shape_id", "encoding",
    "ivars", "length", "node_type", "fd", "default", "real_class_name"};

/* A dump_all-like line: known keys with mostly right types. */
static void gen_line(gen *g, int bad)
{
    tbuf_u8(&g->b, '{');
    ws(g);
    size_t n = 1 + tprng_below(&g->r, 10);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            tbuf_u8(&g->b, ',');
            ws(g);
        }
        const char *k = keys[tprng_below(&g->r, sizeof keys / sizeof keys[0])];
        tbuf_u8(&g->b, '"');
        put(g, k);
        tbuf_u8(&g->b, '"');
        ws(g);
        tbuf_u8(&g->b, ':');
        ws(g);
        int wrong = tprng_below(&g->r, 10) == 0;
        if (wrong) {
            gen_value(g, 2, bad);
        } else if (!strcmp(k, "address") || !strcmp(k, "class") ||
                   !strcmp(k, "superclass") || !strcmp(k, "default")) {
            gen_address(g, bad);
        } else if (!strcmp(k, "references")) {
            gen_array_of(g, 2, bad, 1);
        } else if (!strcmp(k, "memsize") || !strcmp(k, "bytesize") ||
                   !strcmp(k, "capacity") || !strcmp(k, "slot_size") ||
                   !strcmp(k, "line") || !strcmp(k, "generation") ||
                   !strcmp(k, "shape_id") || !strcmp(k, "ivars")) {
            gen_number(g, bad);
        } else if (!strcmp(k, "frozen") || !strcmp(k, "embedded") ||
                   !strcmp(k, "shared") || !strcmp(k, "singleton")) {
            put(g, tprng_below(&g->r, 3) ? "true" : "false");
        } else if (!strcmp(k, "flags")) {
            put(g, "{\"wb_protected\":true, \"old\":");
            put(g, tprng_below(&g->r, 2) ? "true" : "false");
            put(g, ", \"marked\":true, \"age\":2}");
        } else {
            gen_string(g, bad);
        }
        ws(g);
    }
    tbuf_u8(&g->b, '}');
    ws(g);
}

Test(import_scan, generated_lines_agree_with_jansson, .timeout = 60)
{
    gen g;
    memset(&g, 0, sizeof g);
    tprng_seed(&g.r, 20261121);
    js_scanner s;
    js_init(&s);
    unsigned counts[4] = {0};
    for (int i = 0; i < 6000; i++) {
        g.b.len = 0;
        int bad = tprng_below(&g.r, 3) == 0;
        gen_line(&g, bad);
        int rc = check_mem(&s, (const char *)g.b.data, g.b.len);
        counts[rc < 0 || rc > 3 ? 3 : rc]++;
    }
    /* the generator must reach every outcome often */
    cr_assert_gt(counts[IMP_OK], 1000, "ok %u", counts[IMP_OK]);
    cr_assert_gt(counts[IMP_SYNTAX], 300, "syntax %u", counts[IMP_SYNTAX]);
    cr_assert_gt(counts[IMP_FIELD], 300, "field %u", counts[IMP_FIELD]);
    tbuf_free(&g.b);
    js_free(&s);
}

Test(import_scan, mutated_lines_agree_with_jansson, .timeout = 60)
{
    gen g;
    memset(&g, 0, sizeof g);
    tprng_seed(&g.r, 7);
    js_scanner s;
    js_init(&s);
    static const char pool[] = "{}[]\":,\\ 0x1e-.tfnu\x80\xc3\xff\t\r";
    for (int i = 0; i < 6000; i++) {
        g.b.len = 0;
        gen_line(&g, 0);
        size_t n = g.b.len;
        unsigned char *p = g.b.data;
        unsigned edits = 1 + (unsigned)tprng_below(&g.r, 3);
        for (unsigned e = 0; e < edits && n > 0; e++) {
            size_t at = tprng_below(&g.r, n);
            switch (tprng_below(&g.r, 4)) {
            case 0: /* delete */
                memmove(p + at, p + at + 1, n - at - 1);
                n--;
                break;
            case 1: /* replace */
                p[at] = (unsigned char)pool[tprng_below(&g.r, sizeof pool - 1)];
                break;
            case 2: /* cut */
                n = at;
                break;
            default: /* duplicate a byte */
                tbuf_u8(&g.b, 0);
                p = g.b.data;
                memmove(p + at + 1, p + at, n - at);
                n++;
                break;
            }
        }
        check_mem(&s, (const char *)p, n);
    }
    tbuf_free(&g.b);
    js_free(&s);
}

/* The scanner's buffers stay valid across lines of very different sizes
 * and texts do not leak between lines. */
Test(import_scan, buffers_are_reused_across_lines)
{
    js_scanner s;
    js_init(&s);
    js_line l;
    const char *esc = "{\"type\":\"A\\u0042C\", \"name\":\"x\\ny\", \"file\":\"f\\tg\"}";
    cr_assert_eq(js_scan(&s, esc, strlen(esc), &l), IMP_OK);
    cr_assert_eq(l.type.len, 3);
    cr_assert(memcmp(l.type.ptr, "ABC", 3) == 0);
    cr_assert(memcmp(l.name.ptr, "x\ny", 3) == 0);
    cr_assert(memcmp(l.file.ptr, "f\tg", 3) == 0);
    const char *plain = "{\"type\":\"D\"}";
    cr_assert_eq(js_scan(&s, plain, strlen(plain), &l), IMP_OK);
    cr_assert_eq(l.name.len, 0);
    cr_assert_eq(l.file.len, 0);
    cr_assert_eq(l.nrefs, 0);
    js_free(&s);
    js_free(&s); /* twice is harmless */
}

/* One array holding two million references (a 36 MB line): parsed whole,
 * in order, and fast enough. */
Test(import_scan, two_million_references, .timeout = 30)
{
    const size_t n = 2000000;
    tbuf b = {0};
    const char *head = "{\"address\":\"0x7f0000000028\", \"type\":\"ARRAY\", "
                       "\"length\":2000000, \"references\":[";
    tbuf_put(&b, head, strlen(head));
    char tmp[40];
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(tmp, sizeof tmp, "%s\"0x%llx\"", i ? ", " : "",
                         (unsigned long long)(0x7f0000100000ull + 40 * (i * 7919 % n)));
        tbuf_put(&b, tmp, (size_t)k);
    }
    const char *tail = "], \"memsize\":16000040}";
    tbuf_put(&b, tail, strlen(tail) + 1);
    js_scanner s;
    js_init(&s);
    js_line l;
    cr_assert_eq(js_scan(&s, (const char *)b.data, b.len - 1, &l), IMP_OK);
    cr_assert_eq(l.nrefs, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(l.refs[i], 0x7f0000100000ull + 40 * (i * 7919 % n));
    cr_assert_eq(l.memsize, 16000040);
    js_free(&s);
    tbuf_free(&b);
}
