/*
 * test_export.c -- heapfmt-export's documents against the reader API.
 *
 * Every dump here is exported in memory (export_dump over a memory sink)
 * in each format, then read again with a second reader in lockstep: each
 * line (or array element of the json format) must parse with jansson and
 * carry exactly the fields and values the reader gives for its record.
 * Oracles: jansson for JSON, the reader for values, test_export_utf8.h
 * for the text policy.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_dump.h"
#include "cli_exit.h"
#include "cli_names.h"
#include "export.h"
#include "heapfmt.h"
#include "tassert.h"
#include "test_export_utf8.h"
#include "tio.h"
#include "tmodel.h"

#define SAFE_INT_MAX ((UINT64_C(1) << 53) - 1)

/* ---- running an export in memory --------------------------------------- */

/* Exports what r reads (the dump named path and name, as a command
 * line gives them) to sink, then frees r. */
static int export_reader(heapfmt_reader *r, const char *path,
                         const char *name, const export_options *opt,
                         tsink *sink)
{
    cli_dump d = {.path = path, .name = name, .fd = -1, .reader = r};
    jout o;
    cr_assert_eq(jout_init(&o, 0, tsink_write, sink), 0);
    int rc = export_dump(&d, opt, &o, "(memory)");
    jout_free(&o);
    heapfmt_reader_free(r);
    return rc;
}

static int run_export(const void *dump, size_t len, const export_options *opt,
                      tsink *sink)
{
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, dump, len));
    return export_reader(r, "mem.dump", "mem.dump", opt, sink);
}

static export_options make_opt(int format, unsigned records, const char *tag,
                               uint64_t max_refs)
{
    export_options o = EXPORT_OPTIONS_INIT;
    o.format = format;
    o.records = records;
    o.tag = tag;
    o.max_refs = max_refs;
    return o;
}

static const char *format_name(int f)
{
    return f == EXPORT_JSON ? "json" : f == EXPORT_MONGO ? "mongo" : "ndjson";
}

/* ---- where the documents come from -------------------------------------- */

/* Line formats: one document per line, in order. json: the arrays of the
 * one document, one cursor per kind. */
typedef struct docs {
    int format;
    const char *text;
    size_t len, pos;
    unsigned records;
    int record_field;
    json_t *root;       /* json format */
    size_t cursor[5];   /* json format: per kind */
    json_t *last;       /* line formats: the document handed out last */
    size_t line;
} docs;

static int kind_slot(unsigned kind)
{
    switch (kind) {
    case RECORDS_OBJECTS: return 0;
    case RECORDS_EDGES: return 1;
    case RECORDS_ROOTS: return 2;
    case RECORDS_CLASSES: return 3;
    default: return 4;
    }
}

static const char *array_name(unsigned kind)
{
    static const char *const names[] = {"objects", "edges", "roots",
                                        "classes", "meta"};
    return names[kind_slot(kind)];
}

static json_t *parse(const char *s, size_t n, size_t line)
{
    json_error_t err;
    json_t *v =
        json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &err);
    cr_assert_not_null(v, "line %zu does not parse: %s: %.300s", line,
                       err.text, s);
    return v;
}

static void docs_open(docs *d, int format, unsigned records, const tbuf *out)
{
    memset(d, 0, sizeof *d);
    d->format = format;
    d->text = (const char *)out->data;
    d->len = out->len;
    d->records = records;
    d->record_field = format != EXPORT_JSON && records_several(records);
    if (format == EXPORT_JSON) {
        d->root = parse(d->text, d->len, 0);
        cr_assert(json_is_object(d->root));
        cr_assert_str_eq(json_string_value(json_object_get(d->root,
                                                           "format")),
                         "heapfmt-export");
        cr_assert_eq(json_integer_value(json_object_get(d->root, "version")),
                     1);
        static const unsigned kinds[] = {RECORDS_OBJECTS, RECORDS_EDGES,
                                         RECORDS_ROOTS, RECORDS_CLASSES,
                                         RECORDS_META};
        for (size_t k = 0; k < 5; k++) {
            json_t *a = json_object_get(d->root, array_name(kinds[k]));
            if (records & kinds[k])
                cr_assert_not_null(a, "no \"%s\"", array_name(kinds[k]));
            else
                cr_assert_null(a, "unexpected \"%s\"", array_name(kinds[k]));
        }
    }
}

/* The next document of a kind (borrowed until the next call). */
static json_t *docs_next(docs *d, unsigned kind)
{
    if (d->format == EXPORT_JSON) {
        json_t *a = json_object_get(d->root, array_name(kind));
        size_t i = d->cursor[kind_slot(kind)]++;
        cr_assert(json_is_array(a));
        cr_assert_lt(i, json_array_size(a), "\"%s\" has only %zu elements",
                     array_name(kind), json_array_size(a));
        return json_array_get(a, i);
    }
    json_decref(d->last);
    d->last = NULL;
    cr_assert_lt(d->pos, d->len, "output ends before a %s document",
                 records_kind_name(kind));
    const char *s = d->text + d->pos;
    const char *nl = memchr(s, '\n', d->len - d->pos);
    cr_assert_not_null(nl, "last line has no newline");
    size_t n = (size_t)(nl - s);
    d->pos += n + 1;
    d->line++;
    d->last = parse(s, n, d->line);
    cr_assert(json_is_object(d->last), "line %zu is not an object", d->line);
    json_t *rec = json_object_get(d->last, "record");
    if (d->record_field) {
        cr_assert(json_is_string(rec), "line %zu has no \"record\"", d->line);
        cr_assert_str_eq(json_string_value(rec), records_kind_name(kind),
                         "line %zu", d->line);
    } else {
        cr_assert_null(rec, "line %zu has a \"record\" field", d->line);
    }
    return d->last;
}

/* Line formats: the next line as raw text, not parsed (for the fast check
 * of millions of edge documents). */
static const char *docs_next_raw(docs *d, size_t *n)
{
    json_decref(d->last);
    d->last = NULL;
    cr_assert_lt(d->pos, d->len, "output ends before an edge document");
    const char *s = d->text + d->pos;
    const char *nl = memchr(s, '\n', d->len - d->pos);
    cr_assert_not_null(nl, "last line has no newline");
    *n = (size_t)(nl - s);
    d->pos += *n + 1;
    d->line++;
    return s;
}

/* Checks that every document was consumed. */
static void docs_close(docs *d)
{
    if (d->format == EXPORT_JSON) {
        static const unsigned kinds[] = {RECORDS_OBJECTS, RECORDS_EDGES,
                                         RECORDS_ROOTS, RECORDS_CLASSES};
        for (size_t k = 0; k < 4; k++) {
            json_t *a = json_object_get(d->root, array_name(kinds[k]));
            if (a != NULL)
                cr_assert_eq(json_array_size(a),
                             d->cursor[kind_slot(kinds[k])],
                             "\"%s\": %zu elements, %zu expected",
                             array_name(kinds[k]), json_array_size(a),
                             d->cursor[kind_slot(kinds[k])]);
        }
        json_decref(d->root);
    } else {
        json_decref(d->last);
        cr_assert_eq(d->pos, d->len, "lines left over after line %zu",
                     d->line);
    }
}

/* ---- field checks ------------------------------------------------------- */

/* ---- class names of objects -------------------------------------------- */

/* For each object document: its class slot, the name it carries, and the
 * name the reader knew when it delivered the object. */
typedef struct name_seen {
    uint32_t slot;
    char *got, *then;
    size_t got_len, then_len;
} name_seen;

typedef struct objnames {
    name_seen *v;
    size_t n, cap;
} objnames;

static void names_add(objnames *ns, const heapfmt_rclass *k, json_t *got)
{
    if (ns->n == ns->cap) {
        ns->cap = ns->cap ? 2 * ns->cap : 256;
        ns->v = realloc(ns->v, ns->cap * sizeof *ns->v);
    }
    name_seen *s = &ns->v[ns->n++];
    cli_name buf;
    size_t len;
    const char *then = cli_class_name(k, &buf, &len);
    s->slot = k->slot;
    s->then = malloc(len + 1);
    memcpy(s->then, then, len);
    s->then_len = len;
    s->got_len = json_string_length(got);
    s->got = malloc(s->got_len + 1);
    memcpy(s->got, json_string_value(got), s->got_len);
}

/* With a footer (a seekable dump whose footer is intact) every object
 * carries its class's final name, from the footer's summary; for a
 * complete dump that is also the reader's table after the last record.
 * Without one, the name known when the object was read. */
static void names_check(objnames *ns, heapfmt_reader *r,
                        const heapfmt_footer *f, int complete)
{
    unsigned char *want = NULL;
    for (size_t i = 0; i < ns->n; i++) {
        name_seen *s = &ns->v[i];
        const char *name = s->then;
        size_t len = s->then_len;
        cli_name buf, buf2;
        const heapfmt_rclass *k = heapfmt_reader_class(r, s->slot);
        if (f != NULL) {
            const heapfmt_class_summary *sum = NULL;
            for (size_t j = 0; j < f->nclasses; j++)
                if (f->classes[j].index == k->index)
                    sum = &f->classes[j];
            cr_assert_not_null(sum, "class index %u not in the footer",
                               (unsigned)k->index);
            name = cli_summary_name(sum, &buf, &len);
            if (complete) {
                size_t len2;
                const char *fin = cli_class_name(k, &buf2, &len2);
                cr_assert(len == len2 && memcmp(name, fin, len) == 0);
            }
        }
        want = realloc(want, 3 * len + 1);
        int cut;
        size_t n = ref_repair(name, len, DOC_MAX_REPEATED, want, &cut);
        cr_assert(n == s->got_len && memcmp(want, s->got, n) == 0,
                  "object %zu: class \"%.*s\", expected \"%.*s\"", i,
                  (int)s->got_len, s->got, (int)n, want);
        free(s->got);
        free(s->then);
    }
    free(want);
    free(ns->v);
}

typedef struct expect {
    int mongo;
    const char *tag;   /* expected "dump", NULL for none */
    uint64_t max_refs;
    size_t keys;       /* fields checked so far in the current document */
    uint32_t repeat;   /* mongo: the current object is the nth with its id */
    uint64_t *seen;    /* ids met, as a hash: id + 1, 0 empty */
    uint32_t *seen_n;
    size_t seen_cap, seen_count;
    uint32_t seen_max; /* of the id UINT64_MAX, whose key would be 0 */
} expect;

/* How many objects with this id were met, this one included (MongoDB
 * _ids of repeated ids end in "#n"). */
static uint32_t meet_id(expect *e, uint64_t id)
{
    if (id == UINT64_MAX)
        return ++e->seen_max;
    if (2 * (e->seen_count + 1) > e->seen_cap) {
        size_t cap = e->seen_cap ? 2 * e->seen_cap : 64;
        uint64_t *k = calloc(cap, 8);
        uint32_t *n = calloc(cap, 4);
        for (size_t i = 0; i < e->seen_cap; i++) {
            if (e->seen[i] == 0)
                continue;
            size_t j = (size_t)(e->seen[i] % cap);
            while (k[j] != 0)
                j = (j + 1) % cap;
            k[j] = e->seen[i];
            n[j] = e->seen_n[i];
        }
        free(e->seen);
        free(e->seen_n);
        e->seen = k;
        e->seen_n = n;
        e->seen_cap = cap;
    }
    uint64_t key = id + 1;
    size_t j = (size_t)(key % e->seen_cap);
    while (e->seen[j] != 0 && e->seen[j] != key)
        j = (j + 1) % e->seen_cap;
    if (e->seen[j] == 0) {
        e->seen[j] = key;
        e->seen_count++;
    }
    return ++e->seen_n[j];
}

/* The _id body of an object: its id, and "#n" for a repeated one. */
static const char *object_body(const expect *e, uint64_t id, char *buf,
                               size_t cap)
{
    int n = snprintf(buf, cap, "0x%016" PRIx64, id);
    if (e->repeat > 1)
        snprintf(buf + n, cap - (size_t)n, "#%u", (unsigned)e->repeat);
    return buf;
}

static json_t *field(expect *e, json_t *doc, const char *name)
{
    json_t *v = json_object_get(doc, name);
    cr_assert_not_null(v, "missing \"%s\" in %s", name,
                       json_dumps(doc, JSON_COMPACT));
    e->keys++;
    return v;
}

static void no_field(json_t *doc, const char *name)
{
    cr_assert_null(json_object_get(doc, name), "unexpected \"%s\"", name);
}

/* An unsigned integer: plain JSON number up to 2^53-1, a decimal string
 * beyond; in MongoDB $numberLong or (above 2^63-1) $numberDecimal. */
static uint64_t count_value(const expect *e, json_t *v)
{
    if (e->mongo) {
        cr_assert(json_is_object(v) && json_object_size(v) == 1,
                  "not an Extended JSON number");
        json_t *s = json_object_get(v, "$numberLong");
        int decimal = 0;
        if (s == NULL) {
            s = json_object_get(v, "$numberDecimal");
            decimal = 1;
        }
        cr_assert(json_is_string(s), "neither $numberLong nor "
                                     "$numberDecimal");
        const char *t = json_string_value(s);
        if (t[0] == '-')
            return (uint64_t)strtoll(t, NULL, 10);
        uint64_t u = strtoull(t, NULL, 10);
        cr_assert_eq(decimal, u > (uint64_t)INT64_MAX,
                     "%s for %s", decimal ? "$numberDecimal" : "$numberLong",
                     t);
        return u;
    }
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        cr_assert(i >= 0 && (uint64_t)i <= SAFE_INT_MAX,
                  "plain number %lld out of the safe range", (long long)i);
        return (uint64_t)i;
    }
    cr_assert(json_is_string(v), "not a number nor a string");
    uint64_t u = strtoull(json_string_value(v), NULL, 10);
    cr_assert_gt(u, SAFE_INT_MAX, "a small value written as a string");
    return u;
}

static void check_count(expect *e, json_t *doc, const char *name,
                        uint64_t want)
{
    uint64_t got = count_value(e, field(e, doc, name));
    cr_assert_eq(got, want, "\"%s\": %" PRIu64 ", expected %" PRIu64, name,
                 got, want);
}

/* flags: in MongoDB the bits as a signed Int64 */
static void check_bits(expect *e, json_t *doc, const char *name,
                       uint64_t want)
{
    json_t *v = field(e, doc, name);
    if (e->mongo) {
        json_t *s = json_object_get(v, "$numberLong");
        cr_assert(json_is_string(s));
        cr_assert_eq((uint64_t)strtoll(json_string_value(s), NULL, 10), want);
    } else {
        cr_assert_eq(count_value(e, v), want);
    }
}

static void check_signed(expect *e, json_t *v, int64_t want)
{
    if (e->mongo) {
        json_t *s = json_object_get(v, "$numberLong");
        cr_assert(json_is_string(s));
        cr_assert_eq(strtoll(json_string_value(s), NULL, 10), want);
    } else if (want <= (int64_t)SAFE_INT_MAX &&
               want >= -(int64_t)SAFE_INT_MAX) {
        cr_assert(json_is_integer(v));
        cr_assert_eq(json_integer_value(v), want);
    } else {
        cr_assert(json_is_string(v));
        cr_assert_eq(strtoll(json_string_value(v), NULL, 10), want);
    }
}

/* A text value against the policy: decodes to the model's repair of the
 * dump's bytes. Returns whether the model cut it. */
static int check_text_cut(json_t *v, const void *s, size_t len,
                          const char *what, size_t max)
{
    cr_assert(json_is_string(v), "%s is not a string", what);
    unsigned char *want = malloc(3 * len + 1);
    int cut;
    size_t n = ref_repair(s, len, max, want, &cut);
    cr_assert_eq(json_string_length(v), n, "%s: %zu bytes, expected %zu",
                 what, json_string_length(v), n);
    cr_assert_eq(memcmp(json_string_value(v), want, n), 0, "%s differs",
                 what);
    free(want);
    return cut;
}

static int check_text_value(json_t *v, const void *s, size_t len,
                            const char *what)
{
    return check_text_cut(v, s, len, what, DOC_MAX_TEXT);
}

static void check_text(expect *e, json_t *doc, const char *name,
                       const void *s, size_t len)
{
    check_text_value(field(e, doc, name), s, len, name);
}

/* A name repeated per document (type, file, a root's kind): cut at
 * DOC_MAX_REPEATED bytes, "<name>_truncated": true when it was. */
static void check_rstring(expect *e, json_t *doc, const char *name,
                          const heapfmt_rstring *s)
{
    char flag[64];
    snprintf(flag, sizeof flag, "%s_truncated", name);
    int cut = 0;
    if (s->id == 0 || s->undefined) {
        json_t *v = field(e, doc, name);
        cr_assert(json_is_null(v), "\"%s\" not null", name);
    } else {
        cut = check_text_cut(field(e, doc, name), s->ptr, s->len, name,
                             DOC_MAX_REPEATED);
    }
    if (cut) {
        json_t *t = field(e, doc, flag);
        cr_assert(json_is_true(t), "%s", flag);
    } else
        no_field(doc, flag);
}

static char *id_text(uint64_t id, char *buf)
{
    snprintf(buf, 24, "0x%016" PRIx64, id);
    return buf;
}

static void check_id(expect *e, json_t *doc, const char *name, uint64_t id)
{
    char want[24];
    json_t *v = field(e, doc, name);
    cr_assert(json_is_string(v), "\"%s\" is not a string", name);
    cr_assert_str_eq(json_string_value(v), id_text(id, want), "\"%s\"", name);
}

/* A class's id or superclass: null when unknown (0). */
static void check_opt_id(expect *e, json_t *doc, const char *name,
                         uint64_t id)
{
    if (id == 0) {
        json_t *v = field(e, doc, name);
        cr_assert(json_is_null(v), "\"%s\" not null", name);
    } else {
        check_id(e, doc, name, id);
    }
}

/* "_id" (MongoDB) and "dump" (with a tag). body is the _id after the
 * "tag:" prefix. */
static void check_ident(expect *e, json_t *doc, const char *body)
{
    if (e->mongo) {
        char want[512];
        snprintf(want, sizeof want, "%s%s%s", e->tag ? e->tag : "",
                 e->tag ? ":" : "", body);
        json_t *v = field(e, doc, "_id");
        cr_assert(json_is_string(v));
        cr_assert_str_eq(json_string_value(v), want);
    } else {
        no_field(doc, "_id");
    }
    if (e->tag != NULL) {
        json_t *v = field(e, doc, "dump");
        cr_assert_str_eq(json_string_value(v), e->tag);
    } else {
        no_field(doc, "dump");
    }
}

static void check_refs(expect *e, json_t *doc, const uint64_t *refs,
                       uint64_t n)
{
    json_t *a = field(e, doc, "refs");
    cr_assert(json_is_array(a));
    uint64_t keep = n > e->max_refs ? e->max_refs : n;
    cr_assert_eq(json_array_size(a), keep, "refs: %zu, expected %" PRIu64,
                 json_array_size(a), keep);
    char want[24];
    for (uint64_t i = 0; i < keep; i++)
        cr_assert_str_eq(json_string_value(json_array_get(a, i)),
                         id_text(refs[i], want));
    if (keep < n) {
        check_count(e, doc, "refs_count", n);
        json_t *t = field(e, doc, "refs_truncated");
        cr_assert(json_is_true(t));
    } else {
        no_field(doc, "refs_count");
        no_field(doc, "refs_truncated");
    }
}

/* The record field, when present, counts as a field. */
static void end_doc(expect *e, docs *d, json_t *doc)
{
    size_t keys = e->keys + (d->record_field ? 1 : 0);
    cr_assert_eq(json_object_size(doc), keys,
                 "document has %zu fields, %zu expected: %s",
                 json_object_size(doc), keys, json_dumps(doc, JSON_COMPACT));
    e->keys = 0;
}

static void check_object(expect *e, docs *d, json_t *doc,
                         const heapfmt_robject *ob, const uint64_t *refs,
                         objnames *seen)
{
    char body[64];
    check_ident(e, doc, object_body(e, ob->id, body, sizeof body));
    check_id(e, doc, "id", ob->id);
    /* The class name: checked by the caller, which knows only at the end
     * whether the dump was complete (then names are the final ones). */
    json_t *cls = field(e, doc, "class");
    cr_assert(json_is_string(cls));
    names_add(seen, ob->klass, cls);
    if (json_object_get(doc, "class_truncated") != NULL) {
        json_t *t = field(e, doc, "class_truncated");
        cr_assert(json_is_true(t));
        cr_assert_geq(json_string_length(cls), DOC_MAX_REPEATED - 3);
    }
    check_rstring(e, doc, "type", ob->type);
    check_count(e, doc, "bytes", ob->size);
    check_refs(e, doc, refs, ob->nrefs);
    if (ob->fields & HEAPFMT_F_VALUE) {
        int cut = check_text_value(field(e, doc, "value"), ob->value,
                                   ob->value_len, "value");
        if (cut) {
            json_t *t = field(e, doc, "value_truncated");
            cr_assert(json_is_true(t));
        }
    } else {
        no_field(doc, "value");
    }
    if (!(ob->fields & HEAPFMT_F_VALUE) || ob->value_len <= DOC_MAX_TEXT)
        no_field(doc, "value_truncated");
    if (ob->fields & HEAPFMT_F_SITE) {
        check_rstring(e, doc, "file", ob->file);
        check_count(e, doc, "line", ob->line);
    } else {
        no_field(doc, "file");
        no_field(doc, "line");
    }
    if (ob->fields & HEAPFMT_F_GENERATION)
        check_count(e, doc, "generation", ob->generation);
    else
        no_field(doc, "generation");
    if (ob->fields & HEAPFMT_F_FLAGS)
        check_bits(e, doc, "flags", ob->flags);
    else
        no_field(doc, "flags");
    end_doc(e, d, doc);
}

/* ---- the lockstep walk -------------------------------------------------- */

/* The exact text of an object's edge document. */
static void edge_text(char *buf, size_t size, int record_field,
                      const expect *e, uint64_t from, uint64_t k, uint64_t to)
{
    char id[64] = "", dump[96] = "";
    if (e->mongo)
        snprintf(id, sizeof id, "\"_id\":\"%s%s0x%016" PRIx64 "/%" PRIu64
                 "\",", e->tag ? e->tag : "", e->tag ? ":" : "", from, k);
    if (e->tag)
        snprintf(dump, sizeof dump, "\"dump\":\"%s\",", e->tag);
    snprintf(buf, size,
             "{%s%s%s\"from\":\"0x%016" PRIx64 "\",\"to\":\"0x%016" PRIx64
             "\"}",
             record_field ? "\"record\":\"edge\"," : "", id, dump, from, to);
}

typedef struct walk_result {
    uint64_t objects, edges, roots, classes, metas;
} walk_result;

/* Reads dump with a reader the way cli_scan does and checks the export
 * out (of format, records, tag, max_refs) document by document. */
static walk_result verify_ex(const void *dump, size_t len, const tbuf *out,
                             const export_options *opt, int fast_edges,
                             int seekable)
{
    unsigned records =
        opt->records ? opt->records : export_default_records(opt->format);
    docs d;
    docs_open(&d, opt->format, records, out);
    expect e;
    memset(&e, 0, sizeof e);
    e.mongo = opt->format == EXPORT_MONGO;
    e.tag = opt->format == EXPORT_JSON ? NULL : opt->tag;
    e.max_refs = opt->max_refs;
    walk_result res = {0};
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, dump, len));
    const heapfmt_footer *footer = NULL;
    if (!seekable || heapfmt_reader_footer(r, &footer) != HEAPFMT_OK)
        footer = NULL;
    uint64_t *count = calloc(1, sizeof *count), *bytes = calloc(1, 8);
    size_t nslots = 1;
    uint64_t root_no = 0;
    objnames seen = {0};
    char body[128], want[24];
    heapfmt_record rec;
    int complete = 0;
    for (;;) {
        int rc = heapfmt_reader_next(r, &rec);
        if (rc == HEAPFMT_DONE) {
            complete = 1;
            break;
        }
        if (rc != HEAPFMT_OK) {
            if (rc == HEAPFMT_E_CORRUPT && heapfmt_reader_can_continue(r))
                continue;
            break;
        }
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            const heapfmt_robject *ob = rec.u.object;
            if (ob->klass->slot >= nslots) {
                size_t n = (size_t)ob->klass->slot + 1;
                count = realloc(count, n * 8);
                bytes = realloc(bytes, n * 8);
                memset(count + nslots, 0, (n - nslots) * 8);
                memset(bytes + nslots, 0, (n - nslots) * 8);
                nslots = n;
            }
            count[ob->klass->slot]++;
            bytes[ob->klass->slot] += ob->size;
            const uint64_t *refs = NULL;
            if (ob->nrefs > 0)
                cr_assert_eq(heapfmt_reader_refs(r, &refs), (long)ob->nrefs);
            e.repeat = e.mongo ? meet_id(&e, ob->id) : 0;
            if (records & RECORDS_OBJECTS) {
                check_object(&e, &d, docs_next(&d, RECORDS_OBJECTS), ob,
                             refs, &seen);
                res.objects++;
            }
            if ((records & RECORDS_EDGES) && fast_edges) {
                /* the exact text: jansson parses a sample */
                char line[256];
                for (uint64_t k = 0; k < ob->nrefs; k++) {
                    size_t n;
                    const char *got = docs_next_raw(&d, &n);
                    edge_text(line, sizeof line, d.record_field, &e, ob->id,
                              k, refs[k]);
                    cr_assert(e.repeat <= 1, "fast edges: ids not repeated");
                    cr_assert(n == strlen(line) && memcmp(got, line, n) == 0,
                              "edge line %zu: %.*s, expected %s", d.line,
                              (int)n, got, line);
                    if (k % 1000 == 0)
                        json_decref(parse(got, n, d.line));
                    res.edges++;
                }
            } else if (records & RECORDS_EDGES) {
                for (uint64_t k = 0; k < ob->nrefs; k++) {
                    json_t *doc = docs_next(&d, RECORDS_EDGES);
                    char from[48];
                    snprintf(body, sizeof body, "%s/%" PRIu64,
                             object_body(&e, ob->id, from, sizeof from), k);
                    check_ident(&e, doc, body);
                    check_id(&e, doc, "from", ob->id);
                    check_id(&e, doc, "to", refs[k]);
                    end_doc(&e, &d, doc);
                    res.edges++;
                }
            }
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            const heapfmt_rroot *rt = rec.u.root;
            uint64_t no = root_no++;
            const uint64_t *refs = NULL;
            if (rt->nrefs > 0)
                cr_assert_eq(heapfmt_reader_refs(r, &refs), (long)rt->nrefs);
            if (records & RECORDS_ROOTS) {
                json_t *doc = docs_next(&d, RECORDS_ROOTS);
                snprintf(body, sizeof body, "root/%" PRIu64, no);
                check_ident(&e, doc, body);
                check_rstring(&e, doc, "kind", rt->kind);
                check_refs(&e, doc, refs, rt->nrefs);
                end_doc(&e, &d, doc);
                res.roots++;
            }
            if (records & RECORDS_EDGES) {
                for (uint64_t k = 0; k < rt->nrefs; k++) {
                    json_t *doc = docs_next(&d, RECORDS_EDGES);
                    snprintf(body, sizeof body, "root/%" PRIu64 "/%" PRIu64,
                             no, k);
                    check_ident(&e, doc, body);
                    check_rstring(&e, doc, "root", rt->kind);
                    json_t *to = field(&e, doc, "to");
                    cr_assert_str_eq(json_string_value(to),
                                     id_text(refs[k], want));
                    end_doc(&e, &d, doc);
                    res.edges++;
                }
            }
        }
    }
    names_check(&seen, r, footer, complete);
    if (records & RECORDS_CLASSES) {
        size_t n = heapfmt_reader_class_count(r);
        for (size_t slot = 0; slot < n; slot++) {
            const heapfmt_rclass *c = heapfmt_reader_class(r, slot);
            uint64_t cnt = slot < nslots ? count[slot] : 0;
            uint64_t byt = slot < nslots ? bytes[slot] : 0;
            if (c->index == 0 && cnt == 0)
                continue;
            json_t *doc = docs_next(&d, RECORDS_CLASSES);
            snprintf(body, sizeof body, "class/%u", (unsigned)c->index);
            check_ident(&e, doc, body);
            check_count(&e, doc, "index", c->index);
            check_opt_id(&e, doc, "id", c->undefined ? 0 : c->id);
            cli_name buf;
            size_t nlen;
            const char *name = cli_class_name(c, &buf, &nlen);
            check_text(&e, doc, "name", name, nlen);
            check_opt_id(&e, doc, "super", c->undefined ? 0 : c->super_id);
            check_bits(&e, doc, "flags", c->flags);
            check_count(&e, doc, "count", cnt);
            check_count(&e, doc, "bytes", byt);
            end_doc(&e, &d, doc);
            res.classes++;
        }
    }
    if (records & RECORDS_META) {
        size_t n;
        const heapfmt_rmeta *m = heapfmt_reader_meta(r, &n);
        json_t *map = opt->format == EXPORT_JSON
                          ? json_object_get(d.root, "meta")
                          : NULL;
        size_t kept = 0;
        for (size_t i = 0; i < n; i++) {
            int last = 1;
            for (size_t j = i + 1; j < n; j++)
                if (strcmp(m[j].key, m[i].key) == 0)
                    last = 0;
            if (!last)
                continue;
            kept++;
            json_t *v;
            if (map != NULL) {
                v = json_object_get(map, m[i].key);
                cr_assert_not_null(v, "meta \"%s\" missing", m[i].key);
            } else {
                json_t *doc = docs_next(&d, RECORDS_META);
                snprintf(body, sizeof body, "meta/%s", m[i].key);
                check_ident(&e, doc, body);
                json_t *key = field(&e, doc, "key");
                cr_assert_str_eq(json_string_value(key), m[i].key);
                v = field(&e, doc, "value");
                end_doc(&e, &d, doc);
            }
            if (m[i].type == HEAPFMT_META_UINT)
                cr_assert_eq(count_value(&e, v), m[i].uint_value);
            else if (m[i].type == HEAPFMT_META_INT)
                check_signed(&e, v, m[i].int_value);
            else
                check_text_value(v, m[i].text, m[i].text_len, "meta text");
        }
        if (map != NULL)
            cr_assert_eq(json_object_size(map), kept);
        res.metas = kept;
    }
    if (opt->format == EXPORT_JSON) {
        json_t *c = json_object_get(d.root, "complete");
        cr_assert(json_is_boolean(c));
        cr_assert_eq(json_is_true(c), complete);
        if (opt->tag != NULL)
            cr_assert_str_eq(json_string_value(json_object_get(d.root,
                                                               "dump")),
                             opt->tag);
    }
    docs_close(&d);
    heapfmt_reader_free(r);
    free(count);
    free(bytes);
    free(e.seen);
    free(e.seen_n);
    return res;
}

static walk_result verify(const void *dump, size_t len, const tbuf *out,
                          const export_options *opt)
{
    return verify_ex(dump, len, out, opt, 0, 1);
}

/* Exports in every format and checks. */
static void export_and_verify(const tbuf *dump, unsigned records,
                              const char *tag, uint64_t max_refs,
                              int want_rc)
{
    for (int f = 0; f < 3; f++) {
        export_options opt = make_opt(f, records, tag, max_refs);
        tsink s;
        tsink_init(&s);
        int rc = run_export(dump->data, dump->len, &opt, &s);
        cr_assert_eq(rc, want_rc, "%s: exit %d, expected %d", format_name(f),
                     rc, want_rc);
        verify(dump->data, dump->len, &s.out, &opt);
        tsink_free(&s);
    }
}

static void model_dump(tbuf *out, uint64_t seed, size_t nops,
                       uint32_t block_size)
{
    tmodel m;
    tmodel_init(&m);
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.block_size = block_size;
    memset(out, 0, sizeof *out);
    TASSERT_OK(tmodel_make_dump(&m, &wo, seed, nops, out));
    tmodel_free(&m);
}

/* ---- tests: random dumps ------------------------------------------------ */

Test(export, every_format_every_kind)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tbuf dump;
        model_dump(&dump, seed, 1500, 4096);
        export_and_verify(&dump, 0, NULL, DOC_DEFAULT_MAX_REFS, CLI_EXIT_OK);
        export_and_verify(&dump, RECORDS_ALL, NULL, DOC_DEFAULT_MAX_REFS,
                          CLI_EXIT_OK);
        export_and_verify(&dump, RECORDS_ALL, "prod-1.a_b", 2, CLI_EXIT_OK);
        tbuf_free(&dump);
    }
}

Test(export, each_kind_alone)
{
    tbuf dump;
    model_dump(&dump, 9, 1500, 0);
    static const unsigned kinds[] = {RECORDS_OBJECTS, RECORDS_EDGES,
                                     RECORDS_ROOTS, RECORDS_CLASSES,
                                     RECORDS_META,
                                     RECORDS_CLASSES | RECORDS_META};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        export_and_verify(&dump, kinds[i], i % 2 ? "t" : NULL, 0,
                          CLI_EXIT_OK);
    tbuf_free(&dump);
}

Test(export, pipe_input_names_as_read)
{
    /* Read through an unseekable source (a pipe), the footer cannot be
     * read first: objects carry the class names known when they were
     * read. The model's dumps name some classes after their objects. */
    tbuf dump;
    model_dump(&dump, 8, 2000, 4096);
    for (int f = 0; f < 3; f++) {
        export_options opt = make_opt(f, RECORDS_ALL, NULL, 50);
        tsource src;
        tsource_init(&src, dump.data, dump.len, TSRC_RANDOM, 5);
        src.seekable = 0;
        heapfmt_reader *r = NULL;
        TASSERT_OK(tsource_open(&r, NULL, &src));
        tsink s;
        tsink_init(&s);
        cr_assert_eq(export_reader(r, "-", "(stdin)", &opt, &s), CLI_EXIT_OK);
        verify_ex(dump.data, dump.len, &s.out, &opt, 0, 0);
        tsink_free(&s);
    }
    tbuf_free(&dump);
}

Test(export, output_independent_of_sink_chunks)
{
    tbuf dump;
    model_dump(&dump, 5, 3000, 0);
    for (int f = 0; f < 3; f++) {
        export_options opt = make_opt(f, RECORDS_ALL, "x", 3);
        tsink whole, bytewise, random;
        tsink_init(&whole);
        tsink_init(&bytewise);
        tsink_init(&random);
        bytewise.max_per_call = 1;
        random.max_per_call = 4000;
        random.random_sizes = 1;
        random.eintr_every = 3;
        tprng_seed(&random.rng, 11);
        cr_assert_eq(run_export(dump.data, dump.len, &opt, &whole), 0);
        cr_assert_eq(run_export(dump.data, dump.len, &opt, &bytewise), 0);
        cr_assert_eq(run_export(dump.data, dump.len, &opt, &random), 0);
        cr_assert_eq(whole.out.len, bytewise.out.len);
        cr_assert_eq(whole.out.len, random.out.len);
        cr_assert_eq(memcmp(whole.out.data, bytewise.out.data, whole.out.len),
                     0);
        cr_assert_eq(memcmp(whole.out.data, random.out.data, whole.out.len),
                     0);
        tsink_free(&whole);
        tsink_free(&bytewise);
        tsink_free(&random);
    }
    tbuf_free(&dump);
}

/* A writer into the memory sink s (wo NULL: the defaults); dump_done
 * finishes it and hands its bytes to out. */
static heapfmt_writer *dump_open(tsink *s, const heapfmt_writer_options *wo)
{
    tsink_init(s);
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, wo, tsink_write, s));
    return w;
}

static void dump_done(heapfmt_writer *w, tsink *s, tbuf *out)
{
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    *out = s->out;
}

/* ---- tests: odd bytes ------------------------------------------------- */

/* A dump whose text holds everything JSON makes hard: invalid UTF-8, NUL,
 * quotes, control characters, text over DOC_MAX_TEXT, and integers at the
 * edges of every representation. */
static void odd_dump(tbuf *out)
{
    tsink s;
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = 0;
    heapfmt_writer *w = dump_open(&s, &wo);
    TASSERT_OK(heapfmt_write_meta_text(w, "producer", "caf\xe9 \xff\"\\"));
    TASSERT_OK(heapfmt_write_meta_uint(w, "big", UINT64_MAX));
    TASSERT_OK(heapfmt_write_meta_uint(w, "safe", SAFE_INT_MAX));
    TASSERT_OK(heapfmt_write_meta_uint(w, "unsafe", SAFE_INT_MAX + 1));
    TASSERT_OK(heapfmt_write_meta_int(w, "neg", INT64_MIN));
    TASSERT_OK(heapfmt_write_meta_int(w, "small", -5));
    TASSERT_OK(heapfmt_write_meta_uint(w, "small", 6)); /* last one wins */

    uint32_t t_nul, t_bad, f_bad, kind_bad;
    TASSERT_OK(heapfmt_write_string(w, "T_\0NUL", 6, &t_nul));
    TASSERT_OK(heapfmt_write_string(w, "T_\xc3", 3, &t_bad));
    TASSERT_OK(heapfmt_write_string(w, "\xff\xfe/app\x80.rb\n", 12, &f_bad));
    TASSERT_OK(heapfmt_write_string(w, "k\xed\xa0\x80", 4, &kind_bad));

    static const struct {
        const char *name;
        size_t len;
        uint64_t flags;
    } names[] = {
        {"Bad\xffName", 8, 0},
        {"A\"B\\C\nD\tE", 9, 0},
        {"X\0Y", 3, 0},
        {"\xc3\x9cn\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9::K", 14, 0},
        {"\xf0\x9f\x98\x80\xf0\x9f", 6, 0},
        {NULL, 0, 0},
        {NULL, 0, HEAPFMT_CF_MODULE},
    };
    size_t nnames = sizeof names / sizeof names[0];
    for (size_t i = 0; i < nnames; i++) {
        heapfmt_class c = {0x1000 + 8 * i, names[i].name, names[i].len,
                           i ? 0x1000 : 0, names[i].flags};
        TASSERT_OK(heapfmt_write_class(w, &c));
    }
    /* a class name longer than DOC_MAX_TEXT, cut inside a 2-byte char */
    size_t longn = DOC_MAX_TEXT + 5;
    char *longname = malloc(longn);
    longname[0] = 'L';
    for (size_t i = 1; i < longn; i += 2) {
        longname[i] = '\xc3';
        if (i + 1 < longn)
            longname[i + 1] = '\xa9';
    }
    heapfmt_class lc = {0x9000, longname, longn, 0, 0};
    TASSERT_OK(heapfmt_write_class(w, &lc));

    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    size_t bign = DOC_MAX_TEXT + 100;
    char *big = malloc(bign);
    for (size_t i = 0; i < bign; i++)
        big[i] = (char)(i % 7 == 0 ? 0xff : 'a' + i % 26);
    uint64_t refs[3] = {0, UINT64_MAX, 0x7f0000000000u};

    for (size_t i = 0; i < nnames + 4; i++) {
        heapfmt_object o = {0};
        o.id = i == 0 ? 0 : i == 1 ? UINT64_MAX : 0x7f0000000000u + 40 * i;
        o.class_id = i < nnames ? 0x1000 + 8 * i : i == nnames ? 0x9000
                                                               : 0;
        o.type = i % 3 == 0 ? t_nul : i % 3 == 1 ? t_bad : 0;
        o.size = i == 1 ? UINT64_MAX : i == 2 ? SAFE_INT_MAX + 1 : 40 * i;
        o.fields = HEAPFMT_F_BASIC;
        o.flags = i == 1 ? UINT64_MAX : (UINT64_C(1) << 63) | i;
        o.value = i == 2 ? big : (const char *)all;
        o.value_len = i == 2 ? bign : 256 - i;
        o.file = i % 2 ? f_bad : 0;
        o.line = i == 1 ? UINT64_MAX : i;
        o.generation = i == 3 ? SAFE_INT_MAX : i == 4 ? SAFE_INT_MAX + 1 : i;
        o.refs = refs;
        o.nrefs = i % 4;
        if (o.nrefs > 3)
            o.nrefs = 3;
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    TASSERT_OK(heapfmt_write_root(w, kind_bad, refs, 3));
    TASSERT_OK(heapfmt_write_root(w, 0, refs, 0));
    dump_done(w, &s, out);
    free(longname);
    free(big);
}

Test(export, odd_bytes_and_numbers)
{
    tbuf dump;
    odd_dump(&dump);
    export_and_verify(&dump, RECORDS_ALL, NULL, DOC_DEFAULT_MAX_REFS,
                      CLI_EXIT_OK);
    export_and_verify(&dump, RECORDS_ALL, "odd", 1, CLI_EXIT_OK);
    /* a couple of exact texts, to pin the representations down */
    static const struct {
        enum export_format format;
        const char *has[5]; /* ended by NULL */
    } texts[] = {
        {EXPORT_MONGO,
         {"\"bytes\":{\"$numberDecimal\":\"18446744073709551615\"}",
          "\"flags\":{\"$numberLong\":\"-1\"}",
          "\"_id\":\"0xffffffffffffffff\"",
          "\"class\":\"Bad\xef\xbf\xbdName\"", "\"class\":\"X\\u0000Y\""}},
        {EXPORT_NDJSON,
         {"\"bytes\":\"18446744073709551615\"",
          "\"bytes\":\"9007199254740992\"",
          "\"generation\":9007199254740991,", "\"value_truncated\":true"}},
    };
    export_options opt = make_opt(EXPORT_MONGO, RECORDS_OBJECTS, NULL,
                                  DOC_DEFAULT_MAX_REFS);
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        opt.format = texts[k].format;
        tsink s;
        tsink_init(&s);
        cr_assert_eq(run_export(dump.data, dump.len, &opt, &s), 0);
        tbuf_u8(&s.out, 0);
        const char *t = (const char *)s.out.data;
        for (size_t i = 0; i < 5 && texts[k].has[i] != NULL; i++)
            cr_assert_not_null(strstr(t, texts[k].has[i]), "%s: no %s",
                               format_name((int)texts[k].format),
                               texts[k].has[i]);
        tsink_free(&s);
    }
    tbuf_free(&dump);
}

/* ---- tests: the memo of class and type members ------------------------- */

/* Class and type names that fill and collide in doc.c's memo (DOC_MEMO_
 * SLOTS slots, keyed by length and three bytes): lengths 0 to past
 * DOC_MEMO_RAW (a type's up to 60),
 * names equal but for one byte the key does not read,
 * names that need escapes and whose member outgrows DOC_MEMO_OUT, and
 * more output than the JSON buffer holds. Objects go through them in an order that returns to each, so memo hits, misses
 * and replacements all happen; every document is checked against the
 * dump. */
static void memo_dump(tbuf *out)
{
    tsink s;
    heapfmt_writer *w = dump_open(&s, NULL);
    enum { NCLASS = 3 * DOC_MEMO_SLOTS, NTYPE = 40 };
    uint32_t types[NTYPE];
    char name[64];
    for (size_t i = 0; i < NTYPE; i++) {
        /* T_ + i + padding: the same first byte, often the same last */
        size_t n = (size_t)snprintf(name, sizeof name, "T_%zu", i);
        while (n < 2 + (i * 3) % 59)
            name[n++] = 'X';
        if (i % 9 == 4)
            name[n - 1] = '"'; /* escaped: 2 bytes out */
        TASSERT_OK(heapfmt_write_string(w, name, n, &types[i]));
    }
    for (size_t i = 0; i < NCLASS; i++) {
        size_t len = i % (DOC_MEMO_RAW + 4);
        memset(name, 'a', len);
        if (len > 2)
            name[1 + i % (len - 2)] = (char)('b' + i % 23); /* unkeyed */
        if (i % 5 == 0 && len > 0)
            name[0] = '"'; /* escaped: 2 bytes out */
        if (i % 7 == 0 && len > 0)
            name[len - 1] = '\x01'; /* 6 bytes out */
        heapfmt_class c = {0x1000 + 8 * i, name, len, 0, 0};
        TASSERT_OK(heapfmt_write_class(w, &c));
    }
    for (size_t i = 0; i < 80 * NCLASS; i++) {
        heapfmt_object o = {0};
        o.id = 0x7f0000000000u + 40 * i;
        o.class_id = 0x1000 + 8 * ((i * 37 + i / NCLASS) % NCLASS);
        o.type = types[(i * 13) % NTYPE];
        o.size = 40;
        o.fields = HEAPFMT_F_BASIC;
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    dump_done(w, &s, out);
}

Test(export, memo_of_repeated_names)
{
    tbuf dump;
    memo_dump(&dump);
    export_and_verify(&dump, RECORDS_OBJECTS, NULL, DOC_DEFAULT_MAX_REFS,
                      CLI_EXIT_OK);
    tbuf_free(&dump);
}

/* Label elements through doc.c's label memo (DOC_LABEL_SLOTS slots)
 * against the same documents written without a memo: names short and
 * past DOC_MEMO_RAW, names that need escapes, equal names of other
 * kinds, undefined and absent names, indexes, weak flags, enough of them
 * to collide and replace, and a buffer small enough to flush midway. */
Test(export, label_memo_writes_what_plain_writing_does)
{
    enum { NNAMES = 300, NOBJ = 4000, NREFS = 40 };
    static char texts[NNAMES][48];
    static heapfmt_rstring names[NNAMES];
    for (size_t i = 0; i < NNAMES; i++) {
        size_t len = i % (DOC_MEMO_RAW + 8);
        for (size_t k = 0; k < len; k++)
            texts[i][k] = (char)('a' + (i * 7 + k * 3) % 26);
        if (i % 11 == 0 && len > 1)
            texts[i][len / 2] = '"'; /* escaped */
        if (i % 13 == 0 && len > 0)
            texts[i][0] = '\x02';
        names[i] = (heapfmt_rstring){texts[i], len, (uint32_t)i + 1,
                                     (uint32_t)i + 1, i % 29 == 5, 0};
    }
    static const heapfmt_rstring absent = {"", 0, 0, 0, 0, 0};
    static const heapfmt_rstring type = {"T_OBJECT", 8, 9999, 9999, 0, 0};
    uint64_t ids[NREFS];
    heapfmt_rlabel labels[NREFS];
    tprng r;
    tprng_seed(&r, 3);
    for (int mongo = 0; mongo < 2; mongo++) {
        doc_memo *memo = calloc(1, sizeof *memo);
        cr_assert_not_null(memo);
        doc_style with = {.mongo = mongo, .max_refs = DOC_DEFAULT_MAX_REFS,
                          .memo = memo};
        doc_style without = with;
        without.memo = NULL;
        tsink a, b;
        tsink_init(&a);
        tsink_init(&b);
        jout oa, ob;
        cr_assert_eq(jout_init(&oa, JOUT_MIN_CAP, tsink_write, &a), 0);
        cr_assert_eq(jout_init(&ob, JOUT_MIN_CAP, tsink_write, &b), 0);
        for (size_t i = 0; i < NOBJ; i++) {
            size_t n = (size_t)tprng_below(&r, NREFS + 1);
            for (size_t k = 0; k < n; k++) {
                ids[k] = 0x7f0000000000u + 8 * tprng_below(&r, 1000);
                uint32_t kind = (uint32_t)tprng_below(&r, 7);
                labels[k] = (heapfmt_rlabel){kind, tprng_below(&r, 5) == 0,
                                             0, &absent};
                if (kind == HEAPFMT_LABEL_INDEX)
                    labels[k].index = tprng_below(&r, 300);
                else if (kind != HEAPFMT_LABEL_NONE)
                    labels[k].name = tprng_below(&r, 20) == 0
                                         ? &absent
                                         : &names[tprng_below(&r, NNAMES)];
            }
            heapfmt_robject o = {0};
            o.id = 0x7f0000000000u + 40 * i;
            o.type = &type;
            o.size = 40;
            doc_refs refs = {ids, labels, n, 0};
            doc_object(&oa, &with, &o, "C", 1, &refs);
            doc_object(&ob, &without, &o, "C", 1, &refs);
        }
        cr_assert_eq(jout_flush(&oa), 0);
        cr_assert_eq(jout_flush(&ob), 0);
        cr_assert_eq(a.out.len, b.out.len, "mongo %d: %zu bytes against %zu",
                     mongo, a.out.len, b.out.len);
        cr_assert(memcmp(a.out.data, b.out.data, a.out.len) == 0,
                  "mongo %d: the memo changed a document", mongo);
        jout_free(&oa);
        jout_free(&ob);
        tsink_free(&a);
        tsink_free(&b);
        free(memo);
    }
}

/* ---- tests: huge reference lists -------------------------------------- */

#define HUGE_REFS 1000000u
#define HUGE_ROOT_REFS 250000u

static void huge_dump(tbuf *out)
{
    tsink s;
    heapfmt_writer *w = dump_open(&s, NULL);
    uint32_t kind;
    TASSERT_OK(heapfmt_write_string(w, "global_tbl", 10, &kind));
    heapfmt_class c = {0x100, "Array", 5, 0, 0};
    TASSERT_OK(heapfmt_write_class(w, &c));
    uint64_t *refs = malloc(HUGE_REFS * sizeof *refs);
    for (size_t i = 0; i < HUGE_REFS; i++)
        refs[i] = 0x7f0000000000u + 40 * (uint64_t)(i * 7919 % HUGE_REFS);
    heapfmt_object small = {.id = 0x10, .class_id = 0x100, .size = 40,
                            .refs = refs, .nrefs = 2};
    TASSERT_OK(heapfmt_write_object(w, &small));
    heapfmt_object o = {.id = 0x7effffffffd8u, .class_id = 0x100,
                        .size = 8 * (uint64_t)HUGE_REFS + 40, .refs = refs,
                        .nrefs = HUGE_REFS};
    TASSERT_OK(heapfmt_write_object(w, &o));
    small.id = 0x20;
    TASSERT_OK(heapfmt_write_object(w, &small));
    TASSERT_OK(heapfmt_write_root(w, kind, refs + 1, HUGE_ROOT_REFS));
    dump_done(w, &s, out);
    free(refs);
}

/* The longest line of a text. */
static size_t longest_line(const tbuf *b)
{
    size_t best = 0, start = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->data[i] == '\n') {
            if (i - start > best)
                best = i - start;
            start = i + 1;
        }
    }
    return best;
}

Test(export, huge_refs_bounded_edges_complete, .timeout = 120)
{
    tbuf dump;
    huge_dump(&dump);
    for (int f = 0; f < 3; f += 2) { /* ndjson, mongo */
        export_options opt = make_opt(f, RECORDS_ALL, f ? "big" : NULL,
                                      DOC_DEFAULT_MAX_REFS);
        tsink s;
        tsink_init(&s);
        cr_assert_eq(run_export(dump.data, dump.len, &opt, &s), 0);
        walk_result res = verify_ex(dump.data, dump.len, &s.out, &opt, 1, 1);
        cr_assert_eq(res.objects, 3);
        cr_assert_eq(res.edges, 2 + HUGE_REFS + 2 + HUGE_ROOT_REFS);
        /* no line near 16 MiB: the refs array is bounded */
        cr_assert_lt(longest_line(&s.out), 4u << 20);
        tsink_free(&s);
    }
    tbuf_free(&dump);
}

/* ---- tests: failures ------------------------------------------------------ */

Test(export, write_errors)
{
    tbuf dump;
    model_dump(&dump, 3, 2000, 0);
    for (int f = 0; f < 3; f++) {
        for (unsigned long at = 1; at <= 4; at++) {
            export_options opt = make_opt(f, RECORDS_ALL, NULL, 100);
            tsink s;
            tsink_init(&s);
            s.max_per_call = 4096;
            s.fail_at = at;
            s.fail_errno = ENOSPC;
            cr_assert_eq(run_export(dump.data, dump.len, &opt, &s),
                         CLI_EXIT_ERROR, "%s, failure at call %lu",
                         format_name(f), at);
            tsink_free(&s);
            /* a closed pipe is not an error */
            tsink_init(&s);
            s.max_per_call = 4096;
            s.fail_at = at;
            s.fail_errno = EPIPE;
            cr_assert_eq(run_export(dump.data, dump.len, &opt, &s),
                         CLI_EXIT_OK);
            unsigned long calls = s.calls;
            cr_assert_eq(calls, at, "kept writing after EPIPE");
            tsink_free(&s);
        }
    }
    tbuf_free(&dump);
}

Test(export, incomplete_dumps)
{
    tbuf dump;
    model_dump(&dump, 6, 3000, 2048);
    /* cut in the middle of the blocks, and inside the trailer */
    size_t cuts[] = {dump.len / 3, dump.len / 2 + 17, dump.len - 10};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        tbuf part = {0};
        tbuf_put(&part, dump.data, cuts[i]);
        export_and_verify(&part, RECORDS_ALL, "cut", 5, CLI_EXIT_INCOMPLETE);
        tbuf_free(&part);
    }
    /* a damaged block in the middle: skipped, the rest exported */
    tbuf bad = {0};
    tbuf_put(&bad, dump.data, dump.len);
    bad.data[dump.len / 2] ^= 0x55;
    export_and_verify(&bad, RECORDS_ALL, NULL, 5, CLI_EXIT_INCOMPLETE);
    tbuf_free(&bad);
    tbuf_free(&dump);
}

/* ---- tests: _id ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A dump with distinct object ids (the model's random dumps repeat some),
 * a redefined class, several roots of one kind and a repeated META key. */
static void unique_dump(tbuf *out, uint64_t seed, size_t nobjects)
{
    tsink s;
    heapfmt_writer *w = dump_open(&s, NULL);
    TASSERT_OK(heapfmt_write_meta_uint(w, "pid", 1));
    TASSERT_OK(heapfmt_write_meta_uint(w, "pid", 2));
    uint32_t kind, type;
    TASSERT_OK(heapfmt_write_string(w, "vm", 2, &kind));
    TASSERT_OK(heapfmt_write_string(w, "T_OBJECT", 8, &type));
    for (uint64_t c = 1; c <= 20; c++) {
        char name[16];
        snprintf(name, sizeof name, "K%u", (unsigned)c);
        heapfmt_class k = {c * 8, c % 5 ? name : NULL, strlen(name), 0, 0};
        TASSERT_OK(heapfmt_write_class(w, &k));
    }
    heapfmt_class renamed = {5 * 8, "Renamed", 7, 8, 0};
    TASSERT_OK(heapfmt_write_class(w, &renamed));
    tprng r;
    tprng_seed(&r, seed);
    uint64_t refs[8];
    for (uint64_t i = 0; i < nobjects; i++) {
        size_t n = (size_t)tprng_below(&r, 9);
        for (size_t k = 0; k < n; k++)
            refs[k] = 0x1000 + 8 * tprng_below(&r, nobjects);
        heapfmt_object o = {.id = 0x1000 + 8 * i,
                            .class_id = 8 * (1 + tprng_below(&r, 21)),
                            .type = type, .size = 40 + 8 * n, .refs = refs,
                            .nrefs = n};
        if (o.class_id == 21 * 8)
            o.class_id = 0;
        TASSERT_OK(heapfmt_write_object(w, &o));
    }
    TASSERT_OK(heapfmt_write_root(w, kind, refs, 3));
    TASSERT_OK(heapfmt_write_root(w, kind, refs + 1, 2));
    dump_done(w, &s, out);
}

Test(export, mongo_ids_unique_across_tagged_dumps)
{
    tbuf d1, d2;
    unique_dump(&d1, 1, 3000);
    unique_dump(&d2, 2, 3000); /* the same object ids: only the tag differs */
    export_and_verify(&d1, RECORDS_ALL, "before", 4, CLI_EXIT_OK);
    char **ids = NULL;
    size_t n = 0, cap = 0;
    const tbuf *dumps[2] = {&d1, &d2};
    const char *tags[2] = {"before", "after"};
    for (int k = 0; k < 2; k++) {
        export_options opt = make_opt(EXPORT_MONGO, RECORDS_ALL, tags[k], 4);
        tsink s;
        tsink_init(&s);
        cr_assert_eq(run_export(dumps[k]->data, dumps[k]->len, &opt, &s), 0);
        size_t start = 0;
        for (size_t i = 0; i < s.out.len; i++) {
            if (s.out.data[i] != '\n')
                continue;
            json_t *doc = parse((const char *)s.out.data + start, i - start,
                                n + 1);
            const char *id = json_string_value(json_object_get(doc, "_id"));
            cr_assert_not_null(id);
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                ids = realloc(ids, cap * sizeof *ids);
            }
            ids[n++] = strdup(id);
            json_decref(doc);
            start = i + 1;
        }
        tsink_free(&s);
    }
    cr_assert_gt(n, 2 * 3000 * 4);
    qsort(ids, n, sizeof *ids, cmp_str);
    for (size_t i = 1; i < n; i++)
        cr_assert_str_neq(ids[i - 1], ids[i], "duplicate _id %s", ids[i]);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    tbuf_free(&d1);
    tbuf_free(&d2);
}
