/*
 * test_import.c -- heapfmt-import's conversion (tools/import/import.c):
 * ObjectSpace.dump_all JSON in, a heapfmt dump out, read back with
 * libheapfmt's reader and compared with what the JSON says.
 *
 * The expected records are derived from each fixture with jansson,
 * following the mapping documented in import.h and README.md (an
 * independent implementation of the rules), then every object (id, class,
 * type, size, flags, value preview, site, generation, references), every
 * root and every class name must match. Each fixture is imported in one
 * pass and in two passes, whole and in random-size pieces, plain and gzip.
 * Then the problem cases: malformed lines counted and reported with their
 * numbers, --strict, a truncated last line, cut gzip, limits.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "heapfmt.h"
#include "import.h"
#include "jscan.h"
#include "timport.h"
#include "tio.h"
#include "ttext.h"

/* ---- running the importer ---------------------------------------------- */

#define MAX_LOG 512

typedef struct rlog {
    size_t n;
    int kind[MAX_LOG];
    uint64_t line[MAX_LOG];
    char *msg[MAX_LOG];
} rlog;

static void collect(void *ctx, int kind, uint64_t line, const char *msg)
{
    rlog *l = ctx;
    cr_assert_not_null(msg);
    cr_assert_null(strchr(msg, '\n'), "a report is one line: %s", msg);
    if (l->n < MAX_LOG) {
        l->kind[l->n] = kind;
        l->line[l->n] = line;
        l->msg[l->n] = strdup(msg);
        l->n++;
    }
}

static void rlog_free(rlog *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->msg[i]);
    l->n = 0;
}

/* Whether a report about line (0: any) contains text. */
static int logged(const rlog *l, int kind, uint64_t line, const char *text)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->kind[i] == kind && (line == 0 || l->line[i] == line) &&
            strstr(l->msg[i], text))
            return 1;
    return 0;
}

typedef struct run {
    tsink sink;
    import_stats st;
    int result;
    int finish;
    rlog log;
} run;

typedef struct how {
    int two_pass;
    int policy; /* TSRC_* */
    uint64_t seed;
    int level;
    const import_options *opt; /* NULL: defaults */
    unsigned long sink_fail_at;
} how;

static void import_mem(run *R, const void *data, size_t len, const how *h)
{
    memset(R, 0, sizeof *R);
    import_options o = IMPORT_OPTIONS_INIT;
    if (h->opt)
        o = *h->opt;
    o.report = collect;
    o.report_ctx = &R->log;
    o.source = "test";
    timport_how t = {h->two_pass, h->policy, h->seed, h->level, h->sink_fail_at};
    R->result = timport_run(&R->sink, &R->st, &R->finish, data, len, &t, &o);
}

static void run_free(run *R)
{
    tsink_free(&R->sink);
    rlog_free(&R->log);
}

/* ---- reading the dump back --------------------------------------------- */

typedef struct robj {
    uint64_t id;
    const heapfmt_rclass *klass;
    char *name_then; /* the class's name when the object was read */
    char type[64];
    uint64_t size, flags, line, generation;
    uint32_t fields;
    char *value;
    size_t value_len;
    char file[256];
    uint64_t *refs;
    size_t nrefs;
} robj;

typedef struct rroot {
    char kind[64];
    uint64_t *refs;
    size_t nrefs;
} rroot;

typedef struct dump {
    heapfmt_reader *r;
    robj *o;
    size_t no;
    rroot *roots;
    size_t nroots;
    size_t class_records;
    const char *producer;
} dump;

/* The references of the record just read, copied into *refs. */
static void copy_refs(heapfmt_reader *r, uint64_t **refs, size_t *n)
{
    const uint64_t *ids = NULL;
    long k = heapfmt_reader_refs(r, &ids);
    cr_assert_geq(k, 0);
    *n = (size_t)k;
    *refs = malloc((*n ? *n : 1) * sizeof **refs);
    if (k)
        memcpy(*refs, ids, *n * sizeof *ids);
}

static void roots_free(rroot *roots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(roots[i].refs);
    free(roots);
}

static void read_dump(dump *d, const tbuf *bytes)
{
    memset(d, 0, sizeof *d);
    cr_assert_eq(heapfmt_reader_open_memory(&d->r, NULL, bytes->data, bytes->len),
                 HEAPFMT_OK);
    size_t cap_o = 0, cap_r = 0;
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(d->r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_CLASS) {
            d->class_records++;
        } else if (rec.tag == HEAPFMT_TAG_OBJECT) {
            if (d->no == cap_o) {
                cap_o = cap_o ? 2 * cap_o : 64;
                d->o = realloc(d->o, cap_o * sizeof *d->o);
            }
            const heapfmt_robject *ro = rec.u.object;
            robj *o = &d->o[d->no++];
            memset(o, 0, sizeof *o);
            o->id = ro->id;
            o->klass = ro->klass;
            if (ro->klass->name)
                o->name_then = tmemdup(ro->klass->name->ptr, ro->klass->name->len);
            snprintf(o->type, sizeof o->type, "%s", ro->type->ptr);
            o->size = ro->size;
            o->fields = ro->fields;
            o->flags = ro->flags;
            o->value = tmemdup(ro->value ? ro->value : "", ro->value_len);
            o->value_len = ro->value_len;
            snprintf(o->file, sizeof o->file, "%s", ro->file->ptr);
            o->line = ro->line;
            o->generation = ro->generation;
            copy_refs(d->r, &o->refs, &o->nrefs);
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            if (d->nroots == cap_r) {
                cap_r = cap_r ? 2 * cap_r : 16;
                d->roots = realloc(d->roots, cap_r * sizeof *d->roots);
            }
            rroot *r = &d->roots[d->nroots++];
            snprintf(r->kind, sizeof r->kind, "%s", rec.u.root->kind->ptr);
            copy_refs(d->r, &r->refs, &r->nrefs);
        }
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "dump does not read to its end: %s",
                 heapfmt_reader_error(d->r)->message);
    const heapfmt_rmeta *m = heapfmt_reader_meta_get(d->r, "producer");
    d->producer = m ? m->text : NULL;
}

static void dump_free(dump *d)
{
    for (size_t i = 0; i < d->no; i++) {
        free(d->o[i].name_then);
        free(d->o[i].value);
        free(d->o[i].refs);
    }
    free(d->o);
    roots_free(d->roots, d->nroots);
    heapfmt_reader_free(d->r);
    memset(d, 0, sizeof *d);
}

/* The final class of an id, or NULL. */
static const heapfmt_rclass *class_by_id(const dump *d, uint64_t id)
{
    size_t n = heapfmt_reader_class_count(d->r);
    for (size_t i = 1; i < n; i++) {
        const heapfmt_rclass *c = heapfmt_reader_class(d->r, i);
        if (c->id == id)
            return c;
    }
    return NULL;
}

/* ---- the model: what the JSON says the dump must hold ------------------- */

typedef struct mobj {
    uint64_t id, class_id, size, flags, line, generation;
    char type[64];
    uint32_t fields;
    char value[IMPORT_PREVIEW];
    size_t value_len;
    char file[256];
    uint64_t *refs;
    size_t nrefs;
} mobj;

typedef struct mclass {
    uint64_t id, super, flags;
    char *name; /* NULL: anonymous */
    int iclass;
} mclass;

typedef struct model {
    mobj *o;
    size_t no;
    mclass *c;
    size_t nc;
    rroot *roots;
    size_t nroots;
    size_t shapes, free_slots, lines;
} model;

static uint64_t addr(json_t *v)
{
    uint64_t a = 0;
    cr_assert(json_is_string(v));
    cr_assert_eq(js_parse_address(json_string_value(v), json_string_length(v), &a), 0);
    return a;
}

static int has_int(json_t *j, const char *k, uint64_t *out)
{
    json_t *v = json_object_get(j, k);
    if (!v || !json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

static int is_true(json_t *j, const char *k)
{
    return json_is_true(json_object_get(j, k));
}

static void model_refs(json_t *arr, uint64_t **refs, size_t *n)
{
    *n = arr ? json_array_size(arr) : 0;
    *refs = malloc((*n ? *n : 1) * sizeof **refs);
    for (size_t i = 0; i < *n; i++)
        (*refs)[i] = addr(json_array_get(arr, i));
}

static void model_line(model *m, json_t *j)
{
    const char *type = json_string_value(json_object_get(j, "type"));
    cr_assert_not_null(type);
    if (!strcmp(type, "ROOT")) {
        m->roots = realloc(m->roots, (m->nroots + 1) * sizeof *m->roots);
        rroot *r = &m->roots[m->nroots++];
        snprintf(r->kind, sizeof r->kind, "%s",
                 json_string_value(json_object_get(j, "root")));
        model_refs(json_object_get(j, "references"), &r->refs, &r->nrefs);
        return;
    }
    if (!strcmp(type, "SHAPE")) {
        m->shapes++;
        return;
    }
    if (!strcmp(type, "NONE") || !strcmp(type, "MOVED")) {
        m->free_slots++;
        return;
    }
    m->o = realloc(m->o, (m->no + 1) * sizeof *m->o);
    mobj *o = &m->o[m->no++];
    memset(o, 0, sizeof *o);
    o->id = addr(json_object_get(j, "address"));
    snprintf(o->type, sizeof o->type, "T_%s", type);
    json_t *k = json_object_get(j, "class");
    int iclass_line = !strcmp(type, "ICLASS");
    if (k && strcmp(type, "IMEMO") != 0 && strcmp(type, "NODE") != 0 &&
        !iclass_line)
        o->class_id = addr(k);

    uint64_t slot = 40, v;
    if (has_int(j, "slot_size", &v) && v > 0)
        slot = v;
    if (has_int(j, "memsize", &v))
        o->size = v >= slot ? v : v + slot;
    else if (!strcmp(type, "STRING") && !is_true(j, "embedded") &&
             !is_true(j, "shared") && has_int(j, "capacity", &v))
        o->size = slot + v + 1;
    else if (!strcmp(type, "STRING") && !is_true(j, "embedded") &&
             !is_true(j, "shared") && has_int(j, "bytesize", &v))
        o->size = slot + v + 1;
    else
        o->size = slot;

    json_t *fl = json_object_get(j, "flags");
    if (json_object_get(j, "frozen") || json_is_object(fl)) {
        o->fields |= HEAPFMT_F_FLAGS;
        if (is_true(j, "frozen"))
            o->flags |= HEAPFMT_OF_FROZEN;
        if (json_is_object(fl)) {
            if (is_true(fl, "old"))
                o->flags |= HEAPFMT_OF_OLD;
            if (is_true(fl, "uncollectible"))
                o->flags |= HEAPFMT_OF_UNCOLLECTIBLE;
            if (is_true(fl, "marked"))
                o->flags |= HEAPFMT_OF_MARKED;
            if (is_true(fl, "wb_protected"))
                o->flags |= HEAPFMT_OF_WB_PROTECTED;
        }
    }
    /* dump_all's "embedded" and "shared": runtime bits 34 and 35 */
    if (is_true(j, "embedded") || is_true(j, "shared")) {
        o->fields |= HEAPFMT_F_FLAGS;
        if (is_true(j, "embedded"))
            o->flags |= HEAPFMT_OF_RUBY_EMBEDDED;
        if (is_true(j, "shared"))
            o->flags |= HEAPFMT_OF_RUBY_SHARED;
    }
    json_t *val = json_object_get(j, "value");
    if (!json_is_string(val))
        val = json_object_get(j, "struct");
    if (!json_is_string(val))
        val = json_object_get(j, "imemo_type");
    if (json_is_string(val)) {
        size_t n = json_string_length(val);
        const char *s = json_string_value(val);
        if (n > IMPORT_PREVIEW) {
            n = IMPORT_PREVIEW;
            while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
                n--;
        }
        o->fields |= HEAPFMT_F_VALUE;
        memcpy(o->value, s, n);
        o->value_len = n;
    }
    json_t *file = json_object_get(j, "file");
    if (file || json_object_get(j, "line")) {
        o->fields |= HEAPFMT_F_SITE;
        if (file)
            snprintf(o->file, sizeof o->file, "%s", json_string_value(file));
        has_int(j, "line", &o->line);
    }
    if (has_int(j, "generation", &o->generation))
        o->fields |= HEAPFMT_F_GENERATION;
    model_refs(json_object_get(j, "references"), &o->refs, &o->nrefs);
    if (iclass_line && k) { /* its module: a last reference, no class */
        o->refs = realloc(o->refs, (o->nrefs + 1) * sizeof *o->refs);
        o->refs[o->nrefs++] = addr(k);
    }

    int module = !strcmp(type, "MODULE"), iclass = !strcmp(type, "ICLASS");
    if (module || iclass || !strcmp(type, "CLASS")) {
        m->c = realloc(m->c, (m->nc + 1) * sizeof *m->c);
        mclass *c = &m->c[m->nc++];
        memset(c, 0, sizeof *c);
        c->id = o->id;
        c->iclass = iclass;
        c->flags = module ? HEAPFMT_CF_MODULE : iclass ? HEAPFMT_CF_ICLASS : 0;
        if (is_true(j, "singleton"))
            c->flags |= HEAPFMT_CF_SINGLETON;
        json_t *sup = json_object_get(j, "superclass");
        if (sup)
            c->super = addr(sup);
        json_t *name = json_object_get(j, "name");
        if (json_is_string(name) && json_string_length(name) > 0 &&
            strncmp(json_string_value(name), "#<", 2) != 0)
            c->name = tmemdup(json_string_value(name), json_string_length(name));
    }
}

static const mclass *model_class(const model *m, uint64_t id)
{
    for (size_t i = 0; i < m->nc; i++)
        if (m->c[i].id == id)
            return &m->c[i];
    return NULL;
}

static const mobj *model_obj(const model *m, uint64_t id)
{
    for (size_t i = 0; i < m->no; i++)
        if (m->o[i].id == id)
            return &m->o[i];
    return NULL;
}

/* The object of the singleton class c, by brute force over the model: a
 * class that is no singleton and whose class it is; else any object that
 * is no class; else a singleton class whose class it is and which it
 * references (its __attached__), not as its superclass. 0: none. */
static uint64_t model_attached(const model *m, const mclass *c)
{
    uint64_t object = 0;
    for (size_t i = 0; i < m->no; i++) {
        const mobj *o = &m->o[i];
        if (o->class_id != c->id)
            continue;
        const mclass *oc = model_class(m, o->id);
        if (oc && !(oc->flags & HEAPFMT_CF_SINGLETON))
            return o->id;
        if (!oc && object == 0)
            object = o->id;
    }
    if (object != 0)
        return object;
    const mobj *line = model_obj(m, c->id);
    for (size_t i = 0; line && i < line->nrefs; i++) {
        const mobj *o = model_obj(m, line->refs[i]);
        const mclass *oc = model_class(m, line->refs[i]);
        if (o && oc && o->id != c->super && o->class_id == c->id &&
            (oc->flags & HEAPFMT_CF_SINGLETON))
            return o->id;
    }
    return 0;
}

/* Appends HeapFmt.dump's name of class c (bindings/ruby/heapfmt_walk.c,
 * name_class) to out; 0 when it has none. */
static int model_name(const model *m, const mclass *c, char *out, size_t cap,
                      int depth)
{
    size_t n = strlen(out);
    if (depth > 16)
        return 0;
    if (c->name) {
        snprintf(out + n, cap - n, "%s", c->name);
        return 1;
    }
    if (!(c->flags & HEAPFMT_CF_SINGLETON)) {
        snprintf(out + n, cap - n, "#<%s:0x%016llx>",
                 (c->flags & HEAPFMT_CF_MODULE) ? "Module" : "Class",
                 (unsigned long long)c->id);
        return 1;
    }
    uint64_t att = model_attached(m, c);
    const mclass *ac = model_class(m, att);
    if (ac && !ac->iclass) {
        snprintf(out + n, cap - n, "#<Class:");
        if (!model_name(m, ac, out, cap, depth + 1))
            return 0;
        n = strlen(out);
        snprintf(out + n, cap - n, ">");
        return 1;
    }
    if (att == 0)
        return 0;
    const mclass *real = model_class(m, c->super);
    while (real && (real->flags & (HEAPFMT_CF_SINGLETON | HEAPFMT_CF_ICLASS)))
        real = model_class(m, real->super);
    if (!real)
        return 0;
    snprintf(out + n, cap - n, "#<Class:#<");
    if (!model_name(m, real, out, cap, depth + 1))
        return 0;
    n = strlen(out);
    snprintf(out + n, cap - n, ":0x%016llx>>", (unsigned long long)att);
    return 1;
}

/* Names the singleton classes of the model from their objects. */
static void model_name_singletons(model *m)
{
    char **names = calloc(m->nc ? m->nc : 1, sizeof *names);
    for (size_t i = 0; i < m->nc; i++) {
        char buf[4096] = "";
        if ((m->c[i].flags & HEAPFMT_CF_SINGLETON) && !m->c[i].name &&
            model_name(m, &m->c[i], buf, sizeof buf, 0))
            names[i] = tmemdup(buf, strlen(buf));
    }
    for (size_t i = 0; i < m->nc; i++) /* all at once: each from the lines */
        if (names[i])
            m->c[i].name = names[i];
    free(names);
}

static void model_free(model *m)
{
    for (size_t i = 0; i < m->no; i++)
        free(m->o[i].refs);
    for (size_t i = 0; i < m->nc; i++)
        free(m->c[i].name);
    free(m->o);
    free(m->c);
    roots_free(m->roots, m->nroots);
    memset(m, 0, sizeof *m);
}

/* ---- fixtures ------------------------------------------------------------ */

static tbuf load_fixture(const char *name)
{
    char path[4096];
    const char *fx = getenv("FIXTURES");
    if (fx && *fx) {
        snprintf(path, sizeof path, "%s/import/%s", fx, name);
    } else {
        char rel[256];
        snprintf(rel, sizeof rel, "tests/fixtures/import/%s", name);
        const char *p = tfind_repo_file(NULL, rel);
        cr_assert_not_null(p, "%s not found (set FIXTURES)", rel);
        snprintf(path, sizeof path, "%s", p);
    }
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    tbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tbuf_put(&b, chunk, n);
    fclose(f);
    return b;
}

static void model_of(model *m, const tbuf *b)
{
    memset(m, 0, sizeof *m);
    const char *p = (const char *)b->data, *end = p + b->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        json_error_t err;
        json_t *j = json_loadb(p, n, JSON_ALLOW_NUL, &err);
        cr_assert_not_null(j, "fixture line %zu: %s", m->lines + 1, err.text);
        model_line(m, j);
        json_decref(j);
        m->lines++;
        p += n + 1;
    }
    model_name_singletons(m);
}

static void gzip_buf(tbuf *out, const tbuf *in)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&z, (uLong)in->len) + 64;
    out->len = 0;
    for (size_t i = 0; i < bound; i++)
        tbuf_u8(out, 0);
    z.next_in = in->data;
    z.avail_in = (uInt)in->len;
    z.next_out = out->data;
    z.avail_out = (uInt)bound;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    out->len = z.total_out;
    deflateEnd(&z);
}

/* Compares a dump with the model of the JSON it came from. */
static void compare(const dump *d, const model *m, int names_up_front)
{
    cr_assert_eq(d->no, m->no, "%zu objects, expected %zu", d->no, m->no);
    for (size_t i = 0; i < m->no; i++) {
        const mobj *e = &m->o[i];
        const robj *o = &d->o[i];
        cr_assert_eq(o->id, e->id, "object %zu: id %llx, expected %llx", i,
                     (unsigned long long)o->id, (unsigned long long)e->id);
        cr_assert_str_eq(o->type, e->type, "object %zu", i);
        cr_assert_eq(o->size, e->size, "object %zu (%s): size %llu, expected %llu",
                     i, e->type, (unsigned long long)o->size,
                     (unsigned long long)e->size);
        cr_assert_eq(o->fields, e->fields, "object %zu: fields %#x, expected %#x",
                     i, o->fields, e->fields);
        if (e->fields & HEAPFMT_F_FLAGS)
            cr_assert_eq(o->flags, e->flags, "object %zu: flags", i);
        if (e->fields & HEAPFMT_F_VALUE) {
            cr_assert_eq(o->value_len, e->value_len, "object %zu: value length", i);
            cr_assert(memcmp(o->value, e->value, e->value_len) == 0,
                      "object %zu: value", i);
        }
        if (e->fields & HEAPFMT_F_SITE) {
            cr_assert_str_eq(o->file, e->file, "object %zu: file", i);
            cr_assert_eq(o->line, e->line, "object %zu: line", i);
        }
        if (e->fields & HEAPFMT_F_GENERATION)
            cr_assert_eq(o->generation, e->generation, "object %zu", i);
        cr_assert_eq(o->nrefs, e->nrefs, "object %zu: refs", i);
        for (size_t k = 0; k < e->nrefs; k++)
            cr_assert_eq(o->refs[k], e->refs[k], "object %zu: ref %zu", i, k);

        /* the class, with its final name */
        if (e->class_id == 0) {
            cr_assert_eq(o->klass->index, 0, "object %zu has a class", i);
            continue;
        }
        cr_assert_eq(o->klass->id, e->class_id, "object %zu: class id", i);
        const mclass *mc = model_class(m, e->class_id);
        const char *want = mc && !mc->iclass ? mc->name : NULL;
        const heapfmt_rstring *nm = o->klass->name;
        if (want) {
            cr_assert_not_null(nm, "object %zu: class %s has no name", i, want);
            cr_assert_eq(nm->len, strlen(want));
            cr_assert(memcmp(nm->ptr, want, nm->len) == 0,
                      "object %zu: class %s, expected %s", i, nm->ptr, want);
            if (names_up_front)
                cr_assert(o->name_then && !strcmp(o->name_then, want),
                          "object %zu: its class was not named before it", i);
        } else {
            cr_assert_null(nm, "object %zu: class named %s", i, nm ? nm->ptr : "");
        }
        if (mc) {
            cr_assert_eq(o->klass->flags, mc->flags, "object %zu: class flags", i);
            cr_assert_eq(o->klass->super_id, mc->super, "object %zu: super", i);
        }
    }
    /* class lines name their classes even when nothing uses them */
    for (size_t i = 0; i < m->nc; i++) {
        const mclass *mc = &m->c[i];
        const heapfmt_rclass *c = class_by_id(d, mc->id);
        if (mc->iclass) {
            continue; /* defined only when used (checked above) */
        }
        cr_assert_not_null(c, "class %llx not defined", (unsigned long long)mc->id);
        if (mc->name)
            cr_assert(c->name && !strcmp(c->name->ptr, mc->name),
                      "class %llx: name", (unsigned long long)mc->id);
        else
            cr_assert_null(c->name);
    }
    cr_assert_eq(d->nroots, m->nroots);
    for (size_t i = 0; i < m->nroots; i++) {
        cr_assert_str_eq(d->roots[i].kind, m->roots[i].kind);
        cr_assert_eq(d->roots[i].nrefs, m->roots[i].nrefs);
        for (size_t k = 0; k < m->roots[i].nrefs; k++)
            cr_assert_eq(d->roots[i].refs[k], m->roots[i].refs[k]);
    }
}

static void check_fixture(const char *name, size_t shapes, size_t free_slots)
{
    tbuf json = load_fixture(name), z = {0};
    model m;
    model_of(&m, &json);
    gzip_buf(&z, &json);
    static const struct {
        int two_pass, policy, level, gz;
    } ways[] = {
        {0, TSRC_WHOLE, 1, 0}, {1, TSRC_WHOLE, 1, 0}, {0, TSRC_RANDOM, 0, 0},
        {1, TSRC_RANDOM, 9, 0}, {0, TSRC_BYTE, 1, 0}, {1, TSRC_RANDOM, 1, 1},
        {0, TSRC_BYTE, 1, 1},
    };
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        how h = {ways[w].two_pass, ways[w].policy, w + 1, ways[w].level, NULL, 0};
        const tbuf *in = ways[w].gz ? &z : &json;
        run R;
        import_mem(&R, in->data, in->len, &h);
        cr_assert_eq(R.result, IMPORT_OK, "%s way %zu: result %d (%s)", name, w,
                     R.result, R.log.n ? R.log.msg[0] : "");
        cr_assert_eq(R.finish, HEAPFMT_OK);
        cr_assert_eq(R.log.n, 0, "%s: unexpected report: %s", name,
                     R.log.n ? R.log.msg[0] : "");
        cr_assert_eq(R.st.objects, m.no);
        cr_assert_eq(R.st.roots, m.nroots);
        cr_assert_eq(R.st.shapes, shapes);
        cr_assert_eq(R.st.free_slots, free_slots);
        cr_assert_eq(R.st.lines, m.lines);
        cr_assert_eq(R.st.malformed, 0);
        cr_assert_eq(R.st.gzip, ways[w].gz);
        cr_assert_eq(R.st.two_pass, ways[w].two_pass);
        cr_assert_eq(R.st.bytes_json, json.len);
        dump d;
        read_dump(&d, &R.sink.out);
        compare(&d, &m, ways[w].two_pass);
        cr_assert_not_null(d.producer);
        cr_assert(strncmp(d.producer, "heapfmt-import ", 15) == 0);
        dump_free(&d);
        run_free(&R);
    }
    model_free(&m);
    tbuf_free(&json);
    tbuf_free(&z);
}

/* ---- every fixture, every way ------------------------------------------- */

Test(import, ruby21_fixture) { check_fixture("ruby21.json", 0, 0); }
Test(import, ruby27_fixture) { check_fixture("ruby27.json", 0, 0); }
Test(import, ruby31_fixture) { check_fixture("ruby31.json", 0, 0); }
Test(import, ruby33_fixture) { check_fixture("ruby33.json", 3, 2); }

/* ---- facts checked by hand ---------------------------------------------- */

static const robj *find(const dump *d, uint64_t id)
{
    for (size_t i = 0; i < d->no; i++)
        if (d->o[i].id == id)
            return &d->o[i];
    cr_assert_fail("object %llx not in the dump", (unsigned long long)id);
    return NULL;
}

static void import_fixture(const char *name, int two_pass, run *R, dump *d)
{
    tbuf json = load_fixture(name);
    how h = {two_pass, TSRC_WHOLE, 1, 1, NULL, 0};
    import_mem(R, json.data, json.len, &h);
    cr_assert_eq(R->result, IMPORT_OK);
    read_dump(d, &R->sink.out);
    tbuf_free(&json);
}

/* Type names are cached by slot (import.c's type_slot_of): many names,
 * some sharing a slot, some too long to cache, one empty, in an order
 * that keeps evicting each other, must each read back as their own. */
Test(import, many_type_names_read_back_as_written)
{
    static const char *const fixed[] = {
        "", "X", "STRING", "STRONG", "SYMBOL", "STRUCT", "SHAPE_", "SxxxxG",
        "A_TYPE_NAME_LONGER_THAN_TWENTY_FOUR_BYTES", "T\\u00e9", "\\u0041B"};
    static const char *const wanted[] = {
        "T_", "T_X", "T_STRING", "T_STRONG", "T_SYMBOL", "T_STRUCT",
        "T_SHAPE_", "T_SxxxxG", "T_A_TYPE_NAME_LONGER_THAN_TWENTY_FOUR_BYTES",
        "T_T\xc3\xa9", "T_AB"};
    enum { NFIXED = sizeof fixed / sizeof fixed[0], NGEN = 150 };
    tbuf t = {0};
    char line[256], want[NFIXED + NGEN][72];
    size_t n = 0;
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < NFIXED + NGEN; i++, n++) {
            size_t k = (i * 7 + (size_t)round * 13) % (NFIXED + NGEN);
            char name[64];
            if (k < NFIXED) {
                snprintf(name, sizeof name, "%s", fixed[k]);
                snprintf(want[k], sizeof want[k], "%s", wanted[k]);
            } else { /* same first and last byte, lengths 4 to 7 */
                snprintf(name, sizeof name, "Q%0*zuZ", (int)(2 + k % 4), k);
                snprintf(want[k], sizeof want[k], "T_%s", name);
            }
            int len = snprintf(line, sizeof line,
                               "{\"address\":\"0x%zx\", \"type\":\"%s\", "
                               "\"memsize\":40}\n",
                               0x1000 + 8 * n, name);
            tbuf_put(&t, line, (size_t)len);
            cr_assert(k < NFIXED + NGEN);
        }
    how h = {1, TSRC_WHOLE, 1, 1, NULL, 0};
    run R;
    import_mem(&R, t.data, t.len, &h);
    cr_assert_eq(R.result, IMPORT_OK);
    dump d;
    read_dump(&d, &R.sink.out);
    cr_assert_eq(d.no, n);
    n = 0;
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < NFIXED + NGEN; i++, n++) {
            size_t k = (i * 7 + (size_t)round * 13) % (NFIXED + NGEN);
            const robj *o = find(&d, 0x1000 + 8 * n);
            cr_assert_str_eq(o->type, want[k], "object %zu", n);
        }
    dump_free(&d);
    run_free(&R);
    tbuf_free(&t);
}

Test(import, ruby21_details)
{
    run R;
    dump d;
    import_fixture("ruby21.json", 0, &R, &d);
    /* no memsize: one 40-byte slot */
    cr_assert_eq(find(&d, 0x7f2a10001000)->size, 40);
    /* memsize smaller than a slot did not count it (Ruby 2.1) */
    const robj *node = find(&d, 0x7f2a10001078);
    cr_assert_eq(node->size, 24 + 40);
    cr_assert_eq(node->klass->index, 0, "NODE has no class");
    cr_assert_str_eq(node->type, "T_NODE");
    /* no flags at all in 2.1 dumps, except frozen (and embedded or shared,
     * where the line says so) */
    const robj *first = find(&d, 0x7f2a10001000);
    cr_assert_eq(first->flags & ~(HEAPFMT_OF_RUBY_EMBEDDED |
                                  HEAPFMT_OF_RUBY_SHARED),
                 0);
    const robj *fl = find(&d, 0x7f2a100010c8);
    cr_assert_eq(fl->flags, HEAPFMT_OF_FROZEN);
    cr_assert_eq(fl->value_len, 7);
    cr_assert(!memcmp(fl->value, "3.14159", 7));
    const robj *post = find(&d, 0x7f2a100010a0);
    cr_assert_str_eq(post->klass->name->ptr, "Blog::Post");
    cr_assert_str_eq(post->file, "app/models/post.rb");
    cr_assert_eq(post->line, 12);
    cr_assert_eq(post->generation, 4);
    /* "#<Class:0x...>" stays anonymous */
    const heapfmt_rclass *anon = class_by_id(&d, 0x7f2a10001168);
    cr_assert_not_null(anon);
    cr_assert_null(anon->name);
    /* an include class nothing uses gets no CLASS record */
    cr_assert_null(class_by_id(&d, 0x7f2a10001348));
    /* DATA keeps its struct name as the preview */
    cr_assert_str_eq(find(&d, 0x7f2a10001118)->value, "proc");
    cr_assert_str_eq(find(&d, 0x7f2a10001370)->type, "T_ZOMBIE");
    dump_free(&d);
    run_free(&R);
}

Test(import, ruby27_details)
{
    run R;
    dump d;
    import_fixture("ruby27.json", 0, &R, &d);
    const robj *ment = find(&d, 0x55d0c8a01000);
    cr_assert_eq(ment->klass->index, 0, "IMEMO's class field is not a class");
    cr_assert_str_eq(ment->value, "ment");
    cr_assert_eq(ment->flags, HEAPFMT_OF_WB_PROTECTED | HEAPFMT_OF_OLD |
                                  HEAPFMT_OF_UNCOLLECTIBLE | HEAPFMT_OF_MARKED);
    cr_assert_str_eq(find(&d, 0x55d0c8a01140)->value, "VM/thread");
    cr_assert_eq(d.nroots, 3);
    cr_assert_str_eq(d.roots[0].kind, "vm");
    cr_assert_str_eq(d.roots[2].kind, "vm");
    cr_assert_eq(d.roots[1].nrefs, 3, "duplicates kept");
    const heapfmt_rclass *cmp = class_by_id(&d, 0x55d0c8a01370);
    cr_assert_eq(cmp->flags, HEAPFMT_CF_MODULE);
    dump_free(&d);
    run_free(&R);
}

Test(import, ruby31_details)
{
    run R;
    dump d;
    import_fixture("ruby31.json", 0, &R, &d);
    /* one pass: Array was defined anonymously by its first object, then
     * named by its own line */
    const robj *first = &d.o[0];
    cr_assert_null(first->name_then);
    cr_assert_str_eq(first->klass->name->ptr, "Array");
    cr_assert_eq(first->klass->super_id, 0x7fab03200fc8);
    const robj *q = find(&d, 0x7fab03200050);
    cr_assert_eq(q->value_len, 5);
    cr_assert(!memcmp(q->value, "q\"\\\n\t", 5));
    const robj *nul = find(&d, 0x7fab032000a0);
    cr_assert_eq(nul->value_len, 8);
    cr_assert(!memcmp(nul->value, "nul\0esc\x1b", 8));
    const robj *x = find(&d, 0x7fab03200078);
    cr_assert_eq(x->value_len, IMPORT_PREVIEW);
    cr_assert_eq(x->size, 141);
    cr_assert_str_eq(x->file, "-e");
    const robj *big = find(&d, 0x7fab03200190);
    cr_assert_eq(big->nrefs, 300);
    const heapfmt_rclass *single = class_by_id(&d, 0x7fab03201130);
    cr_assert_eq(single->flags, HEAPFMT_CF_SINGLETON);
    /* named after its object, as HeapFmt.dump names it: the first class
     * whose class it is (the fixture gives every class this one) */
    cr_assert_str_eq(single->name->ptr, "#<Class:Array>");
    size_t one_pass_records = d.class_records;
    dump_free(&d);
    run_free(&R);

    /* two passes: every class named before any object, one record each */
    import_fixture("ruby31.json", 1, &R, &d);
    cr_assert_str_eq(d.o[0].name_then, "Array");
    cr_assert_lt(d.class_records, one_pass_records);
    cr_assert_eq(d.class_records, R.st.classes);
    dump_free(&d);
    run_free(&R);
}

Test(import, ruby33_details)
{
    run R;
    dump d;
    import_fixture("ruby33.json", 1, &R, &d);
    cr_assert_eq(R.st.shapes, 3);
    cr_assert_eq(R.st.free_slots, 2);
    cr_assert_eq(find(&d, 0x7e1c40000258)->size, 640);
    cr_assert_eq(find(&d, 0x7e1c400000f0)->size, 160);
    const robj *cc = find(&d, 0x7e1c40000118);
    cr_assert_eq(cc->klass->index, 0);
    cr_assert_str_eq(cc->value, "callcache");
    const robj *cart = find(&d, 0x7e1c400000a0);
    cr_assert_str_eq(cart->klass->name->ptr, "Shop::Cart<Legacy>");
    cr_assert_eq(cart->flags, HEAPFMT_OF_WB_PROTECTED | HEAPFMT_OF_OLD |
                                  HEAPFMT_OF_UNCOLLECTIBLE | HEAPFMT_OF_MARKED |
                                  HEAPFMT_OF_RUBY_EMBEDDED);
    const robj *s = find(&d, 0x7e1c40000028);
    cr_assert_eq(s->value_len, 9 + 1); /* "checkout" + U+00E9 in UTF-8 */
    cr_assert(!memcmp(s->value, "checkout\xc3\xa9", 10));
    cr_assert_eq(d.roots[2].nrefs, 0);
    cr_assert_str_eq(d.roots[2].kind, "global_tbl");
    dump_free(&d);
    run_free(&R);
}

/* ---- problem inputs: the case table ------------------------------------- */

/* Where a case's input comes from. */
enum in_kind {
    IN_BYTES = 0,  /* bytes, len */
    IN_FIXTURE,    /* the fixture */
    IN_NO_NEWLINE, /* the fixture without its final newline */
    IN_GZIP_CUT,   /* the fixture gzipped, its first two thirds */
    IN_IMPORTED,   /* the heapfmt dump the fixture imports to */
    IN_ZEROS,      /* len NUL bytes, no newline */
    IN_OBJECTS     /* 2000 object lines: blocks go out while importing */
};

/* What the run must hold: a stat, the writer's finish, or the log's. */
enum {
    ST_FINISH = 1, ST_MALFORMED, ST_FIRST_MALFORMED, ST_OBJECTS, ST_ROOTS,
    ST_LINES, ST_TRUNCATED, LOG_COUNT, LOG_ERRORS, LOG_FIRST_LINE
};
typedef struct want_stat {
    int what;
    uint64_t v;
} want_stat;

typedef struct want_log {
    int kind; /* IMPORT_DIAG_*; ended by text NULL */
    uint64_t line; /* 0: any line */
    const char *text;
} want_log;

static uint64_t stat_of(const run *R, int what)
{
    switch (what) {
    case ST_FINISH: return (uint64_t)(int64_t)R->finish;
    case ST_MALFORMED: return R->st.malformed;
    case ST_FIRST_MALFORMED: return R->st.first_malformed;
    case ST_OBJECTS: return R->st.objects;
    case ST_ROOTS: return R->st.roots;
    case ST_LINES: return R->st.lines;
    case ST_TRUNCATED: return R->st.truncated != 0;
    case LOG_COUNT: return R->log.n;
    case LOG_ERRORS: {
        uint64_t errors = 0;
        for (size_t i = 0; i < R->log.n; i++)
            errors += R->log.kind[i] == IMPORT_DIAG_ERROR;
        return errors;
    }
    case LOG_FIRST_LINE:
        cr_assert_gt(R->log.n, 0, "no report");
        return R->log.line[0];
    default: cr_assert_fail("bad stat %d", what);
    }
    return 0;
}

static const uint64_t malformed_bad[] = {3, 4, 6, 7, 8, 9, 11, 13, 14};

/* One error per bad line, in order, then the summary; what was good is
 * in the dump. */
static void malformed_more(const run *R, const tbuf *in)
{
    (void)in;
    const size_t nbad = sizeof malformed_bad / sizeof malformed_bad[0];
    size_t e = 0;
    for (size_t i = 0; i < R->log.n; i++)
        if (R->log.kind[i] == IMPORT_DIAG_ERROR) {
            cr_assert_lt(e, nbad);
            cr_assert_eq(R->log.line[i], malformed_bad[e],
                         "report %zu is about line %llu", e,
                         (unsigned long long)R->log.line[i]);
            e++;
        }
    cr_assert_eq(e, nbad);
    dump d;
    read_dump(&d, &R->sink.out);
    cr_assert_eq(d.no, 6);
    cr_assert_str_eq(find(&d, 0x7f0000000028)->klass->name->ptr, "String");
    dump_free(&d);
}

/* The objects read back are the first ones of the fixture (in is the
 * plain fixture). */
static void cut_gzip_more(const run *R, const tbuf *in)
{
    model m;
    model_of(&m, in);
    dump d;
    read_dump(&d, &R->sink.out);
    cr_assert_gt(d.no, 0);
    cr_assert_lt(d.no, m.no);
    for (size_t i = 0; i < d.no; i++)
        cr_assert_eq(d.o[i].id, m.o[i].id);
    dump_free(&d);
    model_free(&m);
}

static void write_error_more(const run *R, const tbuf *in)
{
    (void)in;
    cr_assert(logged(&R->log, IMPORT_DIAG_ERROR, 0, strerror(ENOSPC)));
}

/* Options on top of IMPORT_OPTIONS_INIT (0: left as they are). */
typedef struct opt_set {
    int strict;
    uint64_t max_reports, max_line;
} opt_set;
#define STRICT {1, 0, 0}
#define MAX_REPORTS(n) {0, (n), 0}
#define MAX_LINE(n) {0, 0, (n)}
#define DEFAULTS {0, 0, 0}

/* Inline input: its bytes and their length (NUL bytes included). */
#define BYTES(s) (s), sizeof(s) - 1

typedef struct problem_case {
    const char *name;
    enum in_kind in;
    const char *fixture; /* or the bytes */
    size_t len;
    how h; /* its opt is set from opts */
    opt_set opts;
    int result;
    want_stat stats[8];
    want_log logs[7];
    void (*more)(const run *R, const tbuf *in);
} problem_case;

#define MALFORMED_WANT                                                        \
    {{ST_FINISH, HEAPFMT_OK}, {ST_MALFORMED, 9}, {ST_FIRST_MALFORMED, 3},     \
     {ST_OBJECTS, 6}, {ST_ROOTS, 1}, {ST_LINES, 17}},                         \
    {{IMPORT_DIAG_ERROR, 3, "unexpected end of line"},                        \
     {IMPORT_DIAG_ERROR, 6, "\"address\""},                                   \
     {IMPORT_DIAG_ERROR, 7, "no \"address\""},                                \
     {IMPORT_DIAG_ERROR, 13, "invalid UTF-8"},                                \
     {IMPORT_DIAG_ERROR, 14, "\"memsize\""},                                  \
     {IMPORT_DIAG_WARNING, 0, "9 lines skipped"}},                            \
    malformed_more

static const problem_case problem_cases[] = {
    /* malformed lines are counted, reported and skipped */
    {"malformed_one_pass", IN_FIXTURE, "malformed.json", 0,
     {0, TSRC_RANDOM, 3, 1, NULL, 0}, DEFAULTS, IMPORT_INCOMPLETE,
     MALFORMED_WANT},
    {"malformed_two_passes", IN_FIXTURE, "malformed.json", 0,
     {1, TSRC_RANDOM, 3, 1, NULL, 0}, DEFAULTS, IMPORT_INCOMPLETE,
     MALFORMED_WANT},
    /* reports are capped but all lines counted */
    {"reports_capped", IN_FIXTURE, "malformed.json", 0,
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, MAX_REPORTS(2), IMPORT_INCOMPLETE,
     {{ST_MALFORMED, 9}, {LOG_ERRORS, 2}},
     {{IMPORT_DIAG_WARNING, 6, "not reported"},
      {IMPORT_DIAG_WARNING, 0, "9 lines skipped"}}, NULL},
    /* --strict stops at the first problem */
    {"strict_stops_at_the_first_problem", IN_FIXTURE, "malformed.json", 0,
     {1, TSRC_WHOLE, 1, 1, NULL, 0}, STRICT, IMPORT_FAILED,
     {{LOG_COUNT, 1}, {LOG_FIRST_LINE, 3}, {ST_LINES, 3}}, {{0}}, NULL},
    {"strict_and_clean_input", IN_FIXTURE, "ruby31.json", 0,
     {1, TSRC_WHOLE, 1, 1, NULL, 0}, STRICT, IMPORT_OK, {{0}}, {{0}}, NULL},
    /* a truncated last line is reported */
    {"truncated_last_line", IN_FIXTURE, "truncated.json", 0,
     {1, TSRC_RANDOM, 2, 1, NULL, 0}, DEFAULTS, IMPORT_INCOMPLETE,
     {{ST_FINISH, HEAPFMT_OK}, {ST_TRUNCATED, 1}, {ST_MALFORMED, 0},
      {ST_OBJECTS, 2}},
     {{IMPORT_DIAG_WARNING, 4, "truncated last line"}}, NULL},
    {"truncated_last_line_strict", IN_FIXTURE, "truncated.json", 0,
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, STRICT, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 4, "truncated last line"}}, NULL},
    /* a complete last line without its newline is not a truncation */
    {"last_line_without_newline", IN_NO_NEWLINE, "ruby27.json", 0,
     {1, TSRC_RANDOM, 2, 1, NULL, 0}, DEFAULTS, IMPORT_OK, {{LOG_COUNT, 0}},
     {{0}}, NULL},
    /* a cut gzip keeps what came before */
    {"cut_gzip_keeps_what_came_before", IN_GZIP_CUT, "ruby31.json", 0,
     {0, TSRC_RANDOM, 4, 1, NULL, 0}, DEFAULTS, IMPORT_INCOMPLETE,
     {{ST_TRUNCATED, 1}}, {{IMPORT_DIAG_WARNING, 0, "truncated"}},
     cut_gzip_more},
    /* long lines are skipped past --max-line (the 300-reference line is
     * longer than 1000 bytes) */
    {"long_lines_are_skipped_past_max_line", IN_FIXTURE, "ruby31.json", 0,
     {1, TSRC_RANDOM, 1, 1, NULL, 0}, MAX_LINE(1000), IMPORT_INCOMPLETE,
     {{ST_MALFORMED, 1}, {ST_FIRST_MALFORMED, 14}},
     {{IMPORT_DIAG_ERROR, 14, "longer than 1000 bytes"}}, NULL},
    /* not dump_all at all */
    {"not_dump_all_lines", IN_BYTES, BYTES("hello\nworld\n{\"x\":1}\n"),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 0, "no ObjectSpace.dump_all lines"}}, NULL},
    {"a_heapfmt_dump_as_input", IN_IMPORTED, "ruby21.json", 0,
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 0, "heapfmt dump already"}}, NULL},
    /* a byte order mark before the first line is ignored */
    {"byte_order_mark", IN_BYTES,
     BYTES("\xef\xbb\xbf{\"address\":\"0x10\", \"type\":\"OBJECT\"}\n"),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_OK, {{ST_OBJECTS, 1}},
     {{0}}, NULL},
    /* empty input, or blank lines only: no dump_all line, a failure (not
     * a complete dump of nothing) */
    {"empty_input", IN_BYTES, BYTES(""),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS,
     IMPORT_FAILED, {{0}}, {{IMPORT_DIAG_ERROR, 0, "it is empty"}}, NULL},
    {"blank_lines_only", IN_BYTES, BYTES("\n  \n\t\n"),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 0, "only blank lines"}}, NULL},
    /* binary input is named from its first bytes, before a "line" of it
     * is buffered: a megabyte of NUL bytes without a newline */
    {"binary_data", IN_ZEROS, NULL, 1 << 20,
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS,
     IMPORT_FAILED, {{ST_LINES, 0}},
     {{IMPORT_DIAG_ERROR, 0, "binary data"}}, NULL},
    /* an HPROF dump goes to its own importer (tests/test_import_hprof.c),
     * which finds this one cut in its header */
    {"hprof_header_cut", IN_BYTES, BYTES("JAVA PROFILE 1.0.2\0\0\0\x08"),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_WARNING, 0, "truncated dump"}}, NULL},
    /* a V8 snapshot goes to its own importer (tests/test_import_v8.c),
     * which finds this one's meta empty */
    {"v8_snapshot_meta_empty", IN_BYTES,
     BYTES("{\"snapshot\":{\"meta\":{}}}\n"),
     {0, TSRC_WHOLE, 1, 1, NULL, 0}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 0, "snapshot.meta"}}, NULL},
    /* write errors fail the import */
    {"write_error_while_importing", IN_OBJECTS, NULL, 0,
     {0, TSRC_WHOLE, 1, 0, NULL, 2}, DEFAULTS, IMPORT_FAILED, {{0}},
     {{IMPORT_DIAG_ERROR, 0, "cannot write the dump"}}, write_error_more},
    /* a small input only writes at the end: finish fails */
    {"write_error_at_finish", IN_FIXTURE, "ruby21.json", 0,
     {0, TSRC_WHOLE, 1, 0, NULL, 1}, DEFAULTS, IMPORT_OK,
     {{ST_FINISH, (uint64_t)(int64_t)HEAPFMT_E_IO}}, {{0}}, NULL},
};

/* The bytes of a case's input (none for IN_BYTES); *plain gets the
 * fixture itself (or nothing). */
static tbuf problem_input(const problem_case *pc, tbuf *plain)
{
    tbuf in = {0};
    *plain = (tbuf){0};
    switch (pc->in) {
    case IN_BYTES: break; /* imported from the literal itself */
    case IN_FIXTURE: in = load_fixture(pc->fixture); break;
    case IN_NO_NEWLINE:
        in = load_fixture(pc->fixture);
        in.len--; /* drop the final '\n' */
        break;
    case IN_GZIP_CUT:
        *plain = load_fixture(pc->fixture);
        gzip_buf(&in, plain);
        in.len = in.len * 2 / 3;
        break;
    case IN_IMPORTED: {
        tbuf json = load_fixture(pc->fixture);
        run R;
        import_mem(&R, json.data, json.len, &pc->h);
        tbuf_put(&in, R.sink.out.data, R.sink.out.len);
        run_free(&R);
        tbuf_free(&json);
        break;
    }
    case IN_ZEROS:
        for (size_t i = 0; i < pc->len; i++)
            tbuf_u8(&in, 0);
        break;
    case IN_OBJECTS:
        for (int i = 0; i < 2000; i++) {
            char line[160];
            int k = snprintf(line, sizeof line,
                             "{\"address\":\"0x%x\", \"type\":\"OBJECT\", "
                             "\"class\":\"0x10\", \"memsize\":%d}\n",
                             0x1000 + 40 * i, 40 + i);
            tbuf_put(&in, line, (size_t)k);
        }
        break;
    }
    return in;
}

Test(import, problem_cases, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof problem_cases / sizeof problem_cases[0];
         k++) {
        const problem_case *pc = &problem_cases[k];
        tcase_enter(pc->name);
        tbuf plain;
        tbuf in = problem_input(pc, &plain);
        import_options o = IMPORT_OPTIONS_INIT;
        if (pc->opts.strict)
            o.strict = 1;
        if (pc->opts.max_reports)
            o.max_reports = pc->opts.max_reports;
        if (pc->opts.max_line)
            o.max_line = pc->opts.max_line;
        how h = pc->h;
        h.opt = &o;
        run R;
        if (pc->in == IN_BYTES)
            import_mem(&R, pc->fixture, pc->len, &h);
        else
            import_mem(&R, in.data, in.len, &h);
        cr_assert_eq(R.result, pc->result, "%s: result %d", pc->name,
                     R.result);
        for (const want_stat *w = pc->stats; w->what != 0; w++)
            cr_assert_eq(stat_of(&R, w->what), w->v, "%s: stat %d", pc->name,
                         w->what);
        for (const want_log *w = pc->logs; w->text != NULL; w++)
            cr_assert(logged(&R.log, w->kind, w->line, w->text),
                      "%s: no report '%s' about line %llu", pc->name, w->text,
                      (unsigned long long)w->line);
        if (pc->more != NULL)
            pc->more(&R, &plain);
        run_free(&R);
        tbuf_free(&in);
        tbuf_free(&plain);
    }
    tcase_leave();
}

/* ---- sizes, previews, classes ---------------------------------------------- */

static uint64_t size_of_line(const char *text)
{
    js_scanner s;
    js_init(&s);
    js_line l;
    cr_assert_eq(js_scan(&s, text, strlen(text), &l), IMP_OK, "%s", text);
    uint64_t v = import_size(&l);
    js_free(&s);
    return v;
}

Test(import, size_rules)
{
    static const struct {
        const char *line;
        uint64_t size;
    } cases[] = {
        {"{\"type\":\"OBJECT\", \"memsize\":72}", 72},
        {"{\"type\":\"OBJECT\", \"memsize\":24}", 64},
        {"{\"type\":\"OBJECT\"}", 40},
        {"{\"type\":\"OBJECT\", \"slot_size\":160}", 160},
        {"{\"type\":\"OBJECT\", \"slot_size\":80, \"memsize\":80}", 80},
        {"{\"type\":\"OBJECT\", \"slot_size\":80, \"memsize\":40}", 120},
        {"{\"type\":\"STRING\", \"bytesize\":100}", 141},
        {"{\"type\":\"STRING\", \"bytesize\":100, \"capacity\":127}", 168},
        {"{\"type\":\"STRING\", \"bytesize\":10, \"embedded\":true}", 40},
        {"{\"type\":\"STRING\", \"bytesize\":100, \"shared\":true}", 40},
        {"{\"type\":\"ARRAY\", \"bytesize\":100}", 40},
        {"{\"type\":\"OBJECT\", \"slot_size\":0}", 40},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(size_of_line(cases[i].line), cases[i].size, "%s",
                     cases[i].line);
}

Test(import, preview_never_cuts_a_character)
{
    /* 40 two-byte characters: 80 bytes; a 64-byte cut falls on a boundary,
     * a 5-byte one does not */
    tbuf line = {0};
    const char *head = "{\"address\":\"0x10\", \"type\":\"STRING\", \"value\":\"";
    tbuf_put(&line, head, strlen(head));
    for (int i = 0; i < 40; i++)
        tbuf_put(&line, "\xc3\xa9", 2);
    tbuf_put(&line, "\"}\n", 3);
    size_t previews[] = {64, 5, 1, 0, 256};
    size_t expect[] = {64, 4, 0, 0, 80};
    for (size_t i = 0; i < 5; i++) {
        import_options o = IMPORT_OPTIONS_INIT;
        o.preview = previews[i];
        run R;
        how h = {0, TSRC_WHOLE, 1, 1, &o, 0};
        import_mem(&R, line.data, line.len, &h);
        cr_assert_eq(R.result, IMPORT_OK);
        dump d;
        read_dump(&d, &R.sink.out);
        cr_assert_eq(d.no, 1);
        if (previews[i] == 0) {
            cr_assert_eq(d.o[0].fields & HEAPFMT_F_VALUE, 0);
        } else {
            cr_assert(d.o[0].fields & HEAPFMT_F_VALUE);
            cr_assert_eq(d.o[0].value_len, expect[i], "preview %zu: %zu bytes",
                         previews[i], d.o[0].value_len);
        }
        dump_free(&d);
        run_free(&R);
    }
    tbuf_free(&line);
}

Test(import, an_include_class_used_by_an_object_is_defined)
{
    const char *text =
        "{\"address\":\"0x100\", \"type\":\"ICLASS\", \"class\":\"0x200\", "
        "\"superclass\":\"0x300\", \"memsize\":40}\n"
        "{\"address\":\"0x108\", \"type\":\"OBJECT\", \"class\":\"0x100\", \"memsize\":40}\n";
    run R;
    how h = {0, TSRC_WHOLE, 1, 1, NULL, 0};
    import_mem(&R, text, strlen(text), &h);
    cr_assert_eq(R.result, IMPORT_OK);
    dump d;
    read_dump(&d, &R.sink.out);
    const heapfmt_rclass *c = class_by_id(&d, 0x100);
    cr_assert_not_null(c);
    cr_assert_eq(c->flags, HEAPFMT_CF_ICLASS);
    cr_assert_eq(c->super_id, 0x300);
    cr_assert_eq(find(&d, 0x108)->klass, c);
    dump_free(&d);
    run_free(&R);
}

/* An address twice (issue 31): the second object gets a new id from the
 * top of the range down, the import says so, its output verifies
 * (import_mem runs heapfmt-info --verify), and references to the address
 * go to the first, in one pass and in two. */
Test(import, a_repeated_address_gets_a_new_id)
{
    const char *text =
        "{\"address\":\"0x100\", \"type\":\"STRING\", \"value\":\"a\", \"memsize\":40}\n"
        "{\"address\":\"0x108\", \"type\":\"ARRAY\", \"references\":[\"0x100\"], \"memsize\":40}\n"
        "{\"address\":\"0x100\", \"type\":\"STRING\", \"value\":\"b\", \"memsize\":48}\n"
        "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x108\"]}\n";
    for (int two = 0; two <= 1; two++) {
        run R;
        how h = {two, TSRC_WHOLE, 1, 1, NULL, 0};
        import_mem(&R, text, strlen(text), &h);
        cr_assert_eq(R.result, IMPORT_OK);
        cr_assert(logged(&R.log, IMPORT_DIAG_WARNING, 0,
                         "1 object repeats the id of an earlier one (the "
                         "first: 0x100): each repeat has a new id"));
        cr_assert_eq(R.st.ids_renamed, 1);
        dump d;
        read_dump(&d, &R.sink.out);
        cr_assert_eq(d.no, 3);
        cr_assert_eq(find(&d, 0x100)->size, 40, "the first keeps the id");
        cr_assert_eq(find(&d, UINT64_MAX)->size, 48, "the repeat, renamed");
        const robj *arr = find(&d, 0x108);
        cr_assert(arr->nrefs == 1 && arr->refs[0] == 0x100);
        dump_free(&d);
        run_free(&R);
    }
}

/* ---- big lines ------------------------------------------------------------- */

/* An array with two million references and a root line with more than a
 * ROOT record holds: imported whole, read back equal. */
Test(import, two_million_references, .timeout = 60)
{
    const size_t n = 2000000;
    tbuf t = {0};
    char tmp[48];
    for (int which = 0; which < 2; which++) {
        const char *head =
            which ? "{\"type\":\"ROOT\", \"root\":\"global_tbl\", \"references\":["
                  : "{\"address\":\"0x7f0000000028\", \"type\":\"ARRAY\", "
                    "\"class\":\"0x7f0000000050\", \"length\":2000000, \"references\":[";
        tbuf_put(&t, head, strlen(head));
        for (size_t i = 0; i < n; i++) {
            int k = snprintf(tmp, sizeof tmp, "%s\"0x%llx\"", i ? ", " : "",
                             (unsigned long long)(0x7f0000100000ull +
                                                  40 * ((i * 7919 + which) % n)));
            tbuf_put(&t, tmp, (size_t)k);
        }
        const char *tail = which ? "]}\n" : "], \"memsize\":16000040}\n";
        tbuf_put(&t, tail, strlen(tail));
    }
    run R;
    how h = {1, TSRC_RANDOM, 8, 1, NULL, 0};
    import_mem(&R, t.data, t.len, &h);
    cr_assert_eq(R.result, IMPORT_OK);
    cr_assert_eq(R.st.refs, 2 * n);
    dump d;
    read_dump(&d, &R.sink.out);
    cr_assert_eq(d.no, 1);
    cr_assert_eq(d.o[0].nrefs, n);
    cr_assert_eq(d.o[0].size, 16000040);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(d.o[0].refs[i], 0x7f0000100000ull + 40 * ((i * 7919) % n));
    /* the root line became ROOT records of at most 2^20 references */
    size_t total = 0;
    for (size_t r = 0; r < d.nroots; r++) {
        cr_assert_str_eq(d.roots[r].kind, "global_tbl");
        cr_assert_leq(d.roots[r].nrefs, (size_t)1 << 20);
        for (size_t i = 0; i < d.roots[r].nrefs; i++, total++)
            cr_assert_eq(d.roots[r].refs[i],
                         0x7f0000100000ull + 40 * ((total * 7919 + 1) % n));
    }
    cr_assert_eq(total, n);
    cr_assert_geq(d.nroots, 2);
    dump_free(&d);
    run_free(&R);
    tbuf_free(&t);
}
