/*
 * tmodel.c -- expected-record model, reader capture and comparison.
 */
#include "tmodel.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *xmalloc(size_t n)
{
    return txrealloc(NULL, n);
}


static void fmt(char *why, size_t whylen, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void fmt(char *why, size_t whylen, const char *f, ...)
{
    if (why == NULL || whylen == 0)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(why, whylen, f, ap);
    va_end(ap);
}

const char *ttag_name(int tag)
{
    switch (tag) {
    case HEAPFMT_TAG_META: return "META";
    case HEAPFMT_TAG_STRING: return "STRING";
    case HEAPFMT_TAG_CLASS: return "CLASS";
    case HEAPFMT_TAG_OBJECT: return "OBJECT";
    case HEAPFMT_TAG_ROOT: return "ROOT";
    case HEAPFMT_TAG_END: return "END";
    default: return "?";
    }
}

const char *tstatus_name(int status)
{
    switch (status) {
#define TSTATUS_CASE(name, value, msg) \
    case value: return #name;
        HEAPFMT_STATUS_LIST(TSTATUS_CASE)
#undef TSTATUS_CASE
    default: return "?";
    }
}

/* ---- tstr / tcls ----------------------------------------------------------- */

static void tstr_set(tstr *s, uint32_t id, const char *p, size_t len)
{
    s->id = id;
    s->len = len;
    s->ptr = len ? tmemdup(p, len) : NULL;
    s->undefined = 0;
}

static void tstr_copy(tstr *dst, const tstr *src)
{
    tstr_set(dst, src->id, src->ptr, src->len);
    dst->undefined = src->undefined;
}

static void tstr_clear(tstr *s)
{
    free(s->ptr);
    memset(s, 0, sizeof *s);
}

static void tcls_copy(tcls *dst, const tcls *src)
{
    *dst = *src;
    tstr_copy(&dst->name, &src->name);
}

static void tcls_clear(tcls *c)
{
    tstr_clear(&c->name);
    memset(c, 0, sizeof *c);
}

static void tstr_from_reader(tstr *t, const heapfmt_rstring *s)
{
    if (s == NULL) {
        memset(t, 0, sizeof *t);
        return;
    }
    tstr_set(t, s->id, s->ptr, s->len);
    t->undefined = s->undefined;
}

static void tcls_from_reader(tcls *t, const heapfmt_rclass *c)
{
    memset(t, 0, sizeof *t);
    if (c == NULL)
        return;
    t->index = c->index;
    t->id = c->id;
    t->super_id = c->super_id;
    t->flags = c->flags;
    t->undefined = c->undefined;
    t->named = c->name != NULL;
    if (c->name)
        tstr_from_reader(&t->name, c->name);
}

/* ---- record list -------------------------------------------------------- */

trec *treclist_push(treclist *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = txrealloc(l->v, l->cap * sizeof *l->v);
    }
    trec *t = &l->v[l->n++];
    memset(t, 0, sizeof *t);
    return t;
}

void trec_clear(trec *t)
{
    free(t->key);
    tstr_clear(&t->text);
    tcls_clear(&t->cls);
    tstr_clear(&t->type);
    tstr_clear(&t->file);
    tstr_clear(&t->kind);
    free(t->value);
    free(t->refs);
    memset(t, 0, sizeof *t);
}

void treclist_free(treclist *l)
{
    for (size_t i = 0; i < l->n; i++)
        trec_clear(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- comparison --------------------------------------------------------- */

static int str_eq(const tstr *e, const tstr *g, unsigned flags)
{
    if (e->id != g->id)
        return 0;
    if ((flags & TCMP_LOOSE) && g->undefined)
        return 1;
    if (g->undefined != e->undefined)
        return 0;
    if (e->len != g->len)
        return 0;
    return e->len == 0 || memcmp(e->ptr, g->ptr, e->len) == 0;
}

static const char *sshow(const tstr *s)
{
    return s->ptr ? s->ptr : "";
}

static int cls_eq(const tcls *e, const tcls *g, unsigned flags, char *why,
                  size_t whylen, const char *what)
{
    if (e->index != g->index) {
        fmt(why, whylen, "%s: class index %u, expected %u", what, g->index,
            e->index);
        return 0;
    }
    if ((flags & TCMP_LOOSE) && g->undefined)
        return 1;
    if (e->index == 0)
        return 1;
    if (g->undefined) {
        fmt(why, whylen, "%s: class %u marked undefined", what, g->index);
        return 0;
    }
    if (e->id != g->id || e->super_id != g->super_id || e->flags != g->flags) {
        fmt(why, whylen,
            "%s: class %u id/super/flags %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64
            ", expected %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64,
            what, g->index, g->id, g->super_id, g->flags, e->id, e->super_id,
            e->flags);
        return 0;
    }
    if (e->named != g->named) {
        fmt(why, whylen, "%s: class %u named=%d, expected named=%d (%s)", what,
            g->index, g->named, e->named, sshow(&e->name));
        return 0;
    }
    if (e->named && !str_eq(&e->name, &g->name, flags)) {
        fmt(why, whylen, "%s: class %u name #%u \"%s\", expected #%u \"%s\"",
            what, g->index, g->name.id, sshow(&g->name), e->name.id,
            sshow(&e->name));
        return 0;
    }
    return 1;
}

static int refs_eq(const trec *e, const trec *g, char *why, size_t whylen)
{
    if (e->nrefs != g->nrefs) {
        fmt(why, whylen, "nrefs %zu, expected %zu", g->nrefs, e->nrefs);
        return 0;
    }
    if (g->refs_rc) {
        fmt(why, whylen, "heapfmt_reader_refs failed: %s",
            tstatus_name(g->refs_rc));
        return 0;
    }
    for (size_t i = 0; i < e->nrefs; i++) {
        if (e->refs[i] != g->refs[i]) {
            fmt(why, whylen, "ref[%zu] = %#" PRIx64 ", expected %#" PRIx64, i,
                g->refs[i], e->refs[i]);
            return 0;
        }
    }
    return 1;
}

static int rec_eq(const trec *e, const trec *g, unsigned flags, char *why,
                  size_t whylen)
{
    if (e->tag != g->tag) {
        fmt(why, whylen, "tag %s (%d), expected %s (%d)", ttag_name(g->tag),
            g->tag, ttag_name(e->tag), e->tag);
        return 0;
    }
    if ((flags & TCMP_INDEX) && e->index != g->index) {
        fmt(why, whylen, "index %" PRIu64 ", expected %" PRIu64, g->index,
            e->index);
        return 0;
    }
    switch (e->tag) {
    case HEAPFMT_TAG_META:
        if (strcmp(e->key, g->key) != 0 || e->mtype != g->mtype) {
            fmt(why, whylen, "META key %s type %d, expected %s type %d",
                g->key, g->mtype, e->key, e->mtype);
            return 0;
        }
        if (e->mtype == HEAPFMT_META_TEXT && !str_eq(&e->text, &g->text, 0)) {
            fmt(why, whylen, "META %s text \"%s\" (%zu), expected \"%s\" (%zu)",
                e->key, sshow(&g->text), g->text.len, sshow(&e->text),
                e->text.len);
            return 0;
        }
        if (e->mtype == HEAPFMT_META_UINT && e->uval != g->uval) {
            fmt(why, whylen, "META %s = %" PRIu64 ", expected %" PRIu64,
                e->key, g->uval, e->uval);
            return 0;
        }
        if (e->mtype == HEAPFMT_META_INT && e->ival != g->ival) {
            fmt(why, whylen, "META %s = %" PRId64 ", expected %" PRId64,
                e->key, g->ival, e->ival);
            return 0;
        }
        return 1;
    case HEAPFMT_TAG_STRING:
        if (!str_eq(&e->text, &g->text, 0)) {
            fmt(why, whylen,
                "STRING #%u \"%.40s\" (%zu bytes), expected #%u \"%.40s\" "
                "(%zu bytes)",
                g->text.id, sshow(&g->text), g->text.len, e->text.id,
                sshow(&e->text), e->text.len);
            return 0;
        }
        return 1;
    case HEAPFMT_TAG_CLASS:
        return cls_eq(&e->cls, &g->cls, flags & ~TCMP_LOOSE, why, whylen,
                      "CLASS");
    case HEAPFMT_TAG_OBJECT: {
        char sub[200];
        if (e->id != g->id) {
            fmt(why, whylen, "OBJECT id %#" PRIx64 ", expected %#" PRIx64,
                g->id, e->id);
            return 0;
        }
        if (!cls_eq(&e->cls, &g->cls, flags, sub, sizeof sub, "class")) {
            fmt(why, whylen, "OBJECT %#" PRIx64 ": %s", e->id, sub);
            return 0;
        }
        if (!str_eq(&e->type, &g->type, flags)) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": type #%u \"%s\", expected #%u \"%s\"",
                e->id, g->type.id, sshow(&g->type), e->type.id,
                sshow(&e->type));
            return 0;
        }
        if (e->size != g->size || e->fields != g->fields) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": size %" PRIu64 " fields %#x, expected "
                "size %" PRIu64 " fields %#x",
                e->id, g->size, g->fields, e->size, e->fields);
            return 0;
        }
        if ((e->fields & HEAPFMT_F_FLAGS) && e->flags != g->flags) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": flags %#" PRIx64 ", expected %#" PRIx64,
                e->id, g->flags, e->flags);
            return 0;
        }
        if ((e->fields & HEAPFMT_F_VALUE) &&
            (e->value_len != g->value_len ||
             (e->value_len && memcmp(e->value, g->value, e->value_len)))) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": value of %zu bytes differs from the "
                "expected %zu bytes",
                e->id, g->value_len, e->value_len);
            return 0;
        }
        if ((e->fields & HEAPFMT_F_SITE) &&
            (!str_eq(&e->file, &g->file, flags) || e->line != g->line)) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": site #%u \"%s\":%" PRIu64
                ", expected #%u \"%s\":%" PRIu64,
                e->id, g->file.id, sshow(&g->file), g->line, e->file.id,
                sshow(&e->file), e->line);
            return 0;
        }
        if ((e->fields & HEAPFMT_F_GENERATION) &&
            e->generation != g->generation) {
            fmt(why, whylen,
                "OBJECT %#" PRIx64 ": generation %" PRIu64
                ", expected %" PRIu64,
                e->id, g->generation, e->generation);
            return 0;
        }
        if (!refs_eq(e, g, sub, sizeof sub)) {
            fmt(why, whylen, "OBJECT %#" PRIx64 ": %s", e->id, sub);
            return 0;
        }
        return 1;
    }
    case HEAPFMT_TAG_ROOT: {
        char sub[200];
        if (!str_eq(&e->kind, &g->kind, flags)) {
            fmt(why, whylen, "ROOT kind #%u \"%s\", expected #%u \"%s\"",
                g->kind.id, sshow(&g->kind), e->kind.id, sshow(&e->kind));
            return 0;
        }
        if (!refs_eq(e, g, sub, sizeof sub)) {
            fmt(why, whylen, "ROOT %s: %s", sshow(&e->kind), sub);
            return 0;
        }
        return 1;
    }
    case HEAPFMT_TAG_END:
        if (e->objects != g->objects || e->bytes != g->bytes ||
            e->records != g->records) {
            fmt(why, whylen,
                "END objects/bytes/records %" PRIu64 "/%" PRIu64 "/%" PRIu64
                ", expected %" PRIu64 "/%" PRIu64 "/%" PRIu64,
                g->objects, g->bytes, g->records, e->objects, e->bytes,
                e->records);
            return 0;
        }
        return 1;
    default:
        fmt(why, whylen, "unexpected tag %d", e->tag);
        return 0;
    }
}

int treclist_compare(const treclist *exp, size_t ei, const treclist *got,
                     size_t gi, size_t n, unsigned flags, char *why,
                     size_t whylen)
{
    if (ei + n > exp->n) {
        fmt(why, whylen, "only %zu expected records from %zu, not %zu",
            exp->n - (ei < exp->n ? ei : exp->n), ei, n);
        return -1;
    }
    if (gi + n > got->n) {
        fmt(why, whylen, "only %zu records delivered from %zu, expected %zu",
            got->n - (gi < got->n ? gi : got->n), gi, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char sub[400];
        if (!rec_eq(&exp->v[ei + i], &got->v[gi + i], flags, sub,
                    sizeof sub)) {
            fmt(why, whylen, "record %zu (expected #%zu): %s", gi + i, ei + i,
                sub);
            return -1;
        }
    }
    return 0;
}

int treclist_equal(const treclist *exp, const treclist *got, unsigned flags,
                   char *why, size_t whylen)
{
    size_t n = exp->n < got->n ? exp->n : got->n;
    if (treclist_compare(exp, 0, got, 0, n, flags, why, whylen) != 0)
        return -1;
    if (exp->n != got->n) {
        fmt(why, whylen, "%zu records delivered, expected %zu", got->n,
            exp->n);
        return -1;
    }
    return 0;
}

/* ---- footer ------------------------------------------------------------- */

void tfooter_copy(tfooter *dst, const heapfmt_footer *src)
{
    memset(dst, 0, sizeof *dst);
    dst->totals = src->totals;
    dst->nblocks = src->nblocks;
    dst->blocks = xmalloc(src->nblocks * sizeof *dst->blocks);
    if (src->nblocks)
        memcpy(dst->blocks, src->blocks, src->nblocks * sizeof *dst->blocks);
    dst->nclasses = src->nclasses;
    dst->classes = xmalloc(src->nclasses * sizeof *dst->classes);
    for (size_t i = 0; i < src->nclasses; i++) {
        const heapfmt_class_summary *s = &src->classes[i];
        tsummary *d = &dst->classes[i];
        d->index = s->index;
        d->id = s->id;
        d->flags = s->flags;
        d->count = s->count;
        d->bytes = s->bytes;
        d->named = s->name != NULL;
        d->name_len = s->name ? s->name_len : 0;
        d->name = s->name ? tmemdup(s->name, s->name_len) : NULL;
    }
}

void tfooter_free(tfooter *f)
{
    for (size_t i = 0; i < f->nclasses; i++)
        free(f->classes[i].name);
    free(f->classes);
    free(f->blocks);
    memset(f, 0, sizeof *f);
}

int tfooter_equal(const tfooter *a, const tfooter *b, char *why,
                  size_t whylen)
{
    if (memcmp(&a->totals, &b->totals, sizeof a->totals) != 0) {
        fmt(why, whylen, "totals differ");
        return -1;
    }
    if (a->nblocks != b->nblocks) {
        fmt(why, whylen, "nblocks %zu vs %zu", a->nblocks, b->nblocks);
        return -1;
    }
    for (size_t i = 0; i < a->nblocks; i++) {
        if (a->blocks[i].offset != b->blocks[i].offset ||
            a->blocks[i].records != b->blocks[i].records ||
            a->blocks[i].objects != b->blocks[i].objects) {
            fmt(why, whylen, "block entry %zu differs", i);
            return -1;
        }
    }
    if (a->nclasses != b->nclasses) {
        fmt(why, whylen, "nclasses %zu vs %zu", a->nclasses, b->nclasses);
        return -1;
    }
    for (size_t i = 0; i < a->nclasses; i++) {
        const tsummary *x = &a->classes[i], *y = &b->classes[i];
        if (x->index != y->index || x->id != y->id || x->flags != y->flags ||
            x->count != y->count || x->bytes != y->bytes ||
            x->named != y->named || x->name_len != y->name_len ||
            (x->name_len && memcmp(x->name, y->name, x->name_len) != 0)) {
            fmt(why, whylen, "class summary %zu differs", i);
            return -1;
        }
    }
    return 0;
}

/* ---- model -------------------------------------------------------------- */

void tmodel_init(tmodel *m)
{
    memset(m, 0, sizeof *m);
    m->class_count = xmalloc(sizeof *m->class_count);
    m->class_bytes = xmalloc(sizeof *m->class_bytes);
    m->class_count[0] = 0;
    m->class_bytes[0] = 0;
}

void tmodel_free(tmodel *m)
{
    treclist_free(&m->exp);
    for (size_t i = 0; i < m->nstrings; i++)
        tstr_clear(&m->strings[i]);
    for (size_t i = 0; i < m->nclasses; i++)
        tcls_clear(&m->classes[i]);
    free(m->strings);
    free(m->classes);
    free(m->class_count);
    free(m->class_bytes);
    memset(m, 0, sizeof *m);
}

/* Counts an oddity (the model's `bad`, a capture's `weird`) and keeps
 * the message of the first in why. */
static void oddity(int *count, char *why, size_t cap, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void oddity(int *count, char *why, size_t cap, const char *f, ...)
{
    if ((*count)++)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(why, cap, f, ap);
    va_end(ap);
}

static trec *model_push(tmodel *m, int tag)
{
    trec *t = treclist_push(&m->exp);
    t->tag = tag;
    t->index = m->exp.n - 1;
    return t;
}

/* id of an interned text, 0 if new */
static uint32_t model_find_string(const tmodel *m, const char *s, size_t len)
{
    for (size_t i = 0; i < m->nstrings; i++) {
        const tstr *t = &m->strings[i];
        if (t->len == len && (len == 0 || memcmp(t->ptr, s, len) == 0))
            return t->id;
    }
    return 0;
}

/* Interns as the writer does; appends a STRING record for a new text. */
static uint32_t model_intern(tmodel *m, const char *s, size_t len)
{
    uint32_t id = model_find_string(m, s, len);
    if (id)
        return id;
    if (m->nstrings == m->capstrings) {
        m->capstrings = m->capstrings ? m->capstrings * 2 : 32;
        m->strings = txrealloc(m->strings, m->capstrings * sizeof *m->strings);
    }
    id = (uint32_t)(m->nstrings + 1);
    tstr_set(&m->strings[m->nstrings++], id, s, len);
    trec *t = model_push(m, HEAPFMT_TAG_STRING);
    tstr_set(&t->text, id, s, len);
    return id;
}

static void model_string_ref(const tmodel *m, tstr *dst, uint32_t id)
{
    if (id == 0 || id > m->nstrings) {
        memset(dst, 0, sizeof *dst);
        dst->id = id;
        return;
    }
    tstr_copy(dst, &m->strings[id - 1]);
}

uint32_t tmodel_class_index(const tmodel *m, uint64_t id)
{
    for (size_t i = 0; i < m->nclasses; i++)
        if (m->classes[i].id == id)
            return m->classes[i].index;
    return 0;
}

static uint32_t model_new_class(tmodel *m, uint64_t id)
{
    if (m->nclasses == m->capclasses) {
        m->capclasses = m->capclasses ? m->capclasses * 2 : 32;
        m->classes = txrealloc(m->classes, m->capclasses * sizeof *m->classes);
    }
    uint32_t index = (uint32_t)(m->nclasses + 1);
    tcls *c = &m->classes[m->nclasses++];
    memset(c, 0, sizeof *c);
    c->index = index;
    c->id = id;
    m->class_count = txrealloc(m->class_count,
                              (m->nclasses + 1) * sizeof *m->class_count);
    m->class_bytes = txrealloc(m->class_bytes,
                              (m->nclasses + 1) * sizeof *m->class_bytes);
    m->class_count[index] = 0;
    m->class_bytes[index] = 0;
    return index;
}

static void model_push_class(tmodel *m, uint32_t index)
{
    trec *t = model_push(m, HEAPFMT_TAG_CLASS);
    tcls_copy(&t->cls, &m->classes[index - 1]);
}

/* The META record the reader delivers for key, of type mtype; the caller
 * sets its value. */
static trec *model_push_meta(tmodel *m, const char *key, int mtype)
{
    trec *t = model_push(m, HEAPFMT_TAG_META);
    t->key = tmemdup(key, strlen(key));
    t->mtype = mtype;
    return t;
}

int tmodel_meta_text(tmodel *m, heapfmt_writer *w, const char *key,
                     const char *value)
{
    int rc = heapfmt_write_meta_text(w, key, value);
    if (rc == HEAPFMT_OK)
        tstr_set(&model_push_meta(m, key, HEAPFMT_META_TEXT)->text, 0, value,
                 strlen(value));
    return rc;
}

int tmodel_meta_uint(tmodel *m, heapfmt_writer *w, const char *key,
                     uint64_t value)
{
    int rc = heapfmt_write_meta_uint(w, key, value);
    if (rc == HEAPFMT_OK)
        model_push_meta(m, key, HEAPFMT_META_UINT)->uval = value;
    return rc;
}

int tmodel_meta_int(tmodel *m, heapfmt_writer *w, const char *key,
                    int64_t value)
{
    int rc = heapfmt_write_meta_int(w, key, value);
    if (rc == HEAPFMT_OK)
        model_push_meta(m, key, HEAPFMT_META_INT)->ival = value;
    return rc;
}

int tmodel_string(tmodel *m, heapfmt_writer *w, const char *s, size_t len,
                  uint32_t *id)
{
    uint32_t got = 0;
    int rc = heapfmt_write_string(w, s, len, &got);
    if (rc == HEAPFMT_OK) {
        uint32_t want = model_intern(m, s, len);
        if (got != want)
            oddity(&m->bad, m->why, sizeof m->why,
                   "heapfmt_write_string gave id %u, expected %u", got, want);
    }
    if (id)
        *id = got;
    return rc;
}

int tmodel_class(tmodel *m, heapfmt_writer *w, const heapfmt_class *c)
{
    int rc = heapfmt_write_class(w, c);
    if (rc != HEAPFMT_OK)
        return rc;
    uint32_t name = c->name ? model_intern(m, c->name, c->name_len) : 0;
    uint32_t index = tmodel_class_index(m, c->id);
    if (index == 0)
        index = model_new_class(m, c->id);
    tcls *k = &m->classes[index - 1];
    tstr_clear(&k->name);
    k->super_id = c->super_id;
    k->flags = c->flags;
    k->named = c->name != NULL;
    if (k->named)
        model_string_ref(m, &k->name, name);
    model_push_class(m, index);
    return rc;
}

int tmodel_object(tmodel *m, heapfmt_writer *w, const heapfmt_object *o)
{
    int rc = heapfmt_write_object(w, o);
    if (rc != HEAPFMT_OK)
        return rc;
    uint32_t index = 0;
    if (o->class_id != 0) {
        index = tmodel_class_index(m, o->class_id);
        if (index == 0) {
            index = model_new_class(m, o->class_id);
            model_push_class(m, index);
        }
    }
    trec *t = model_push(m, HEAPFMT_TAG_OBJECT);
    t->id = o->id;
    if (index)
        tcls_copy(&t->cls, &m->classes[index - 1]);
    model_string_ref(m, &t->type, o->type);
    t->size = o->size;
    t->fields = o->fields;
    if (o->fields & HEAPFMT_F_FLAGS)
        t->flags = o->flags;
    if (o->fields & HEAPFMT_F_VALUE) {
        t->value_len = o->value_len;
        t->value = tmemdup(o->value, o->value_len);
    }
    if (o->fields & HEAPFMT_F_SITE) {
        model_string_ref(m, &t->file, o->file);
        t->line = o->line;
    }
    if (o->fields & HEAPFMT_F_GENERATION)
        t->generation = o->generation;
    t->nrefs = o->nrefs;
    t->refs = xmalloc(o->nrefs * sizeof *t->refs);
    if (o->nrefs)
        memcpy(t->refs, o->refs, o->nrefs * sizeof *t->refs);
    m->objects++;
    m->bytes += o->size;
    m->class_count[index]++;
    m->class_bytes[index] += o->size;
    return rc;
}

int tmodel_root(tmodel *m, heapfmt_writer *w, uint32_t kind,
                const uint64_t *ids, size_t n)
{
    int rc = heapfmt_write_root(w, kind, ids, n);
    if (rc != HEAPFMT_OK)
        return rc;
    trec *t = model_push(m, HEAPFMT_TAG_ROOT);
    model_string_ref(m, &t->kind, kind);
    t->nrefs = n;
    t->refs = xmalloc(n * sizeof *t->refs);
    if (n)
        memcpy(t->refs, ids, n * sizeof *t->refs);
    m->roots++;
    return rc;
}

int tmodel_finish(tmodel *m, heapfmt_writer *w)
{
    int rc = heapfmt_writer_finish(w);
    if (rc != HEAPFMT_OK)
        return rc;
    uint64_t before = m->exp.n;
    trec *t = model_push(m, HEAPFMT_TAG_END);
    t->objects = m->objects;
    t->bytes = m->bytes;
    t->records = before;
    m->finished = 1;
    return rc;
}

/* ---- generator ------------------------------------------------------------ */

static const char *const gen_types[] = { "T_OBJECT", "T_STRING", "T_ARRAY",
                                         "T_HASH",   "T_CLASS",  "T_DATA" };
static const char *const gen_files[] = { "app.rb", "lib/heap/thing.rb",
                                         "<internal:kernel>" };
static const char *const gen_kinds[] = { "vm", "global_tbl", "machine_context",
                                         "finalizers" };

typedef struct gen_state {
    tprng rng;
    uint32_t types[6];
    uint32_t files[3];
    uint32_t kinds[4];
    uint64_t pool[32]; /* recent object ids, for references */
    size_t npool;
    uint64_t last_id;
    unsigned names;
} gen_state;

static uint64_t gen_ref(gen_state *g)
{
    uint64_t pick = tprng_below(&g->rng, 10);
    if (pick == 0)
        return 0;
    if (pick == 1)
        return UINT64_MAX - tprng_below(&g->rng, 3);
    if (pick == 2 || g->npool == 0)
        return tprng_next(&g->rng);
    return g->pool[tprng_below(&g->rng, g->npool)];
}

static int gen_object(tmodel *m, heapfmt_writer *w, gen_state *g)
{
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    switch (tprng_below(&g->rng, 10)) {
    case 0: o.id = 0; break;
    case 1: o.id = UINT64_MAX; break;
    case 2: o.id = tprng_next(&g->rng); break;
    case 3: o.id = g->last_id - 40 * (1 + tprng_below(&g->rng, 100)); break;
    default: o.id = g->last_id + 40 * (1 + tprng_below(&g->rng, 4)); break;
    }
    g->last_id = o.id;
    if (g->npool < 32)
        g->pool[g->npool++] = o.id;
    else
        g->pool[tprng_below(&g->rng, 32)] = o.id;

    uint64_t c = tprng_below(&g->rng, 12);
    if (c == 0 || m->nclasses == 0)
        o.class_id = 0;
    else if (c == 1)
        o.class_id = 0x7000000000000000ULL | (tprng_next(&g->rng) >> 8);
    else
        o.class_id = m->classes[tprng_below(&g->rng, m->nclasses)].id;

    o.type = tprng_below(&g->rng, 8) == 0
                 ? 0
                 : g->types[tprng_below(&g->rng, 6)];
    o.size = tprng_below(&g->rng, 6) == 0 ? tprng_next(&g->rng)
                                          : 40 * (1 + tprng_below(&g->rng, 8));
    o.fields = (uint32_t)tprng_below(&g->rng, 16);
    o.flags = tprng_below(&g->rng, 2) ? tprng_below(&g->rng, 32)
                                      : tprng_next(&g->rng);
    char value[40];
    o.value_len = (size_t)tprng_below(&g->rng, sizeof value);
    for (size_t i = 0; i < o.value_len; i++)
        value[i] = (char)tprng_below(&g->rng, 256); /* NULs included */
    o.value = value;
    o.file = g->files[tprng_below(&g->rng, 3)];
    o.line = tprng_below(&g->rng, 4) == 0 ? tprng_next(&g->rng)
                                          : tprng_below(&g->rng, 5000);
    o.generation = tprng_below(&g->rng, 4) == 0 ? UINT64_MAX
                                                : tprng_below(&g->rng, 300);
    uint64_t refs[12];
    o.nrefs = (size_t)tprng_below(&g->rng, 13);
    for (size_t i = 0; i < o.nrefs; i++)
        refs[i] = gen_ref(g);
    o.refs = refs;
    return tmodel_object(m, w, &o);
}

int tmodel_generate(tmodel *m, heapfmt_writer *w, uint64_t seed, size_t nops)
{
    gen_state g;
    int rc;
    memset(&g, 0, sizeof g);
    tprng_seed(&g.rng, seed);
    g.last_id = 0x5600000000ULL + (tprng_next(&g.rng) & 0xffff) * 8;

#define GEN_TRY(expr)          \
    do {                       \
        if ((rc = (expr)) < 0) \
            return rc;         \
    } while (0)

    GEN_TRY(tmodel_meta_text(m, w, "producer", "heapfmt tests/tmodel"));
    GEN_TRY(tmodel_meta_text(m, w, "vm.name", "ruby"));
    GEN_TRY(tmodel_meta_uint(m, w, "pid", 1000 + (seed % 30000)));
    GEN_TRY(tmodel_meta_uint(m, w, "time", UINT64_MAX));
    GEN_TRY(tmodel_meta_int(m, w, "test.min", INT64_MIN));
    GEN_TRY(tmodel_meta_int(m, w, "test.neg", -(int64_t)(seed % 1000) - 1));
    for (size_t i = 0; i < 6; i++)
        GEN_TRY(tmodel_string(m, w, gen_types[i], strlen(gen_types[i]),
                              &g.types[i]));
    for (size_t i = 0; i < 3; i++)
        GEN_TRY(tmodel_string(m, w, gen_files[i], strlen(gen_files[i]),
                              &g.files[i]));
    for (size_t i = 0; i < 4; i++)
        GEN_TRY(tmodel_string(m, w, gen_kinds[i], strlen(gen_kinds[i]),
                              &g.kinds[i]));

    static const struct {
        const char *name;
        uint64_t id, super, flags;
    } base[] = {
        { "BasicObject", 0x1000, 0, 0 },
        { "Object", 0x1008, 0x1000, 0 },
        { "Kernel", 0x1010, 0, HEAPFMT_CF_MODULE },
        { "String", 0x1018, 0x1008, 0 },
        { "#<Class:String>", 0x1020, 0x1018, HEAPFMT_CF_SINGLETON },
    };
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        heapfmt_class c = { base[i].id, base[i].name, strlen(base[i].name),
                            base[i].super, base[i].flags };
        GEN_TRY(tmodel_class(m, w, &c));
    }

    for (size_t op = 0; op < nops; op++) {
        uint64_t pick = tprng_below(&g.rng, 100);
        if (pick < 3) {
            /* a new named class */
            char name[32];
            snprintf(name, sizeof name, "Gen%u", g.names++);
            heapfmt_class c = { 0x2000 + 8 * (uint64_t)g.names, name,
                                strlen(name), 0x1008,
                                tprng_below(&g.rng, 8) };
            GEN_TRY(tmodel_class(m, w, &c));
        } else if (pick < 6 && m->nclasses > 0) {
            /* redefine an existing class: name an anonymous one, or
             * rename a named one */
            tcls *k = &m->classes[tprng_below(&g.rng, m->nclasses)];
            char name[32];
            snprintf(name, sizeof name, "Named%u", g.names++);
            heapfmt_class c = { k->id, name, strlen(name),
                                tprng_below(&g.rng, 2) ? 0x1008 : 0,
                                tprng_below(&g.rng, 8) };
            GEN_TRY(tmodel_class(m, w, &c));
        } else if (pick < 9) {
            uint64_t ids[6];
            size_t n = (size_t)tprng_below(&g.rng, 7);
            for (size_t i = 0; i < n; i++)
                ids[i] = gen_ref(&g);
            GEN_TRY(tmodel_root(m, w, g.kinds[tprng_below(&g.rng, 4)], ids,
                                n));
        } else if (pick < 11) {
            char s[24];
            size_t n = (size_t)tprng_below(&g.rng, sizeof s);
            for (size_t i = 0; i < n; i++)
                s[i] = (char)('a' + tprng_below(&g.rng, 6));
            uint32_t id;
            GEN_TRY(tmodel_string(m, w, s, n, &id));
        } else if (pick < 12) {
            GEN_TRY(tmodel_meta_uint(m, w, "gc.count", tprng_next(&g.rng)));
        } else if (pick < 13) {
            GEN_TRY(heapfmt_writer_flush(w));
        } else {
            GEN_TRY(gen_object(m, w, &g));
        }
    }
#undef GEN_TRY
    return HEAPFMT_OK;
}

int tmodel_check_footer(const tmodel *m, const tfooter *f, char *why,
                        size_t whylen)
{
    const heapfmt_totals *t = &f->totals;
    uint64_t records = m->exp.n ? m->exp.n - (m->finished ? 1 : 0) : 0;
    if (t->objects != m->objects || t->bytes != m->bytes ||
        t->records != records || t->classes != m->nclasses ||
        t->strings != m->nstrings || t->roots != m->roots) {
        fmt(why, whylen,
            "totals objects/bytes/records/classes/strings/roots %" PRIu64
            "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
            ", expected %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%zu/%zu/%" PRIu64,
            t->objects, t->bytes, t->records, t->classes, t->strings,
            t->roots, m->objects, m->bytes, records, m->nclasses, m->nstrings,
            m->roots);
        return -1;
    }
    if (t->blocks != f->nblocks || f->nblocks == 0) {
        fmt(why, whylen, "totals.blocks %" PRIu64 " but %zu index entries",
            t->blocks, f->nblocks);
        return -1;
    }
    uint64_t srec = 0, sobj = 0;
    for (size_t i = 0; i < f->nblocks; i++) {
        if (i == 0 && f->blocks[0].offset != 16) {
            fmt(why, whylen, "first block at %" PRIu64 ", expected 16",
                f->blocks[0].offset);
            return -1;
        }
        if (i > 0 && f->blocks[i].offset <= f->blocks[i - 1].offset + 20) {
            fmt(why, whylen, "block %zu offset %" PRIu64 " not increasing", i,
                f->blocks[i].offset);
            return -1;
        }
        if (f->blocks[i].records == 0) {
            fmt(why, whylen, "block %zu has no records", i);
            return -1;
        }
        srec += f->blocks[i].records;
        sobj += f->blocks[i].objects;
    }
    /* block record counts include END; END's count does not */
    if (srec != records + 1 || sobj != m->objects) {
        fmt(why, whylen,
            "block index sums: %" PRIu64 " records, %" PRIu64
            " objects; expected %" PRIu64 " (END included) and %" PRIu64,
            srec, sobj, records + 1, m->objects);
        return -1;
    }
    size_t want = m->nclasses + (m->class_count[0] ? 1 : 0);
    if (f->nclasses != want) {
        fmt(why, whylen, "%zu summary entries, expected %zu", f->nclasses,
            want);
        return -1;
    }
    size_t j = 0;
    if (m->class_count[0]) {
        const tsummary *s = &f->classes[j++];
        if (s->index != 0 || s->count != m->class_count[0] ||
            s->bytes != m->class_bytes[0]) {
            fmt(why, whylen,
                "summary[0] index %u count %" PRIu64 " bytes %" PRIu64
                ", expected index 0 count %" PRIu64 " bytes %" PRIu64,
                s->index, s->count, s->bytes, m->class_count[0],
                m->class_bytes[0]);
            return -1;
        }
    }
    for (size_t i = 0; i < m->nclasses; i++, j++) {
        const tsummary *s = &f->classes[j];
        const tcls *k = &m->classes[i];
        if (s->index != k->index || s->id != k->id || s->flags != k->flags ||
            s->count != m->class_count[k->index] ||
            s->bytes != m->class_bytes[k->index]) {
            fmt(why, whylen,
                "summary[%zu]: index %u id %#" PRIx64 " flags %#" PRIx64
                " count %" PRIu64 " bytes %" PRIu64 "; expected index %u id "
                "%#" PRIx64 " flags %#" PRIx64 " count %" PRIu64
                " bytes %" PRIu64,
                j, s->index, s->id, s->flags, s->count, s->bytes, k->index,
                k->id, k->flags, m->class_count[k->index],
                m->class_bytes[k->index]);
            return -1;
        }
        if (s->named != k->named || s->name_len != k->name.len ||
            (s->name_len && memcmp(s->name, k->name.ptr, s->name_len) != 0)) {
            fmt(why, whylen,
                "summary[%zu] (class %u) name \"%s\" (named=%d), expected "
                "\"%s\" (named=%d)",
                j, k->index, s->name ? s->name : "", s->named, sshow(&k->name),
                k->named);
            return -1;
        }
    }
    return 0;
}

int tmodel_make_dump(tmodel *m, const heapfmt_writer_options *opt,
                     uint64_t seed, size_t nops, tbuf *out)
{
    tsink s;
    heapfmt_writer *w = NULL;
    tsink_init(&s);
    int rc = heapfmt_writer_open(&w, opt, tsink_write, &s);
    if (rc == HEAPFMT_OK)
        rc = tmodel_generate(m, w, seed, nops);
    if (rc == HEAPFMT_OK)
        rc = tmodel_finish(m, w);
    heapfmt_writer_free(w);
    *out = s.out;
    return rc;
}

/* ---- capture -------------------------------------------------------------- */

void trec_from_record(trec *t, heapfmt_reader *r, const heapfmt_record *rec)
{
    memset(t, 0, sizeof *t);
    t->tag = rec->tag;
    t->index = rec->index;
    t->offset = rec->offset;
    switch (rec->tag) {
    case HEAPFMT_TAG_META: {
        const heapfmt_rmeta *mt = rec->u.meta;
        t->key = tmemdup(mt->key, mt->key_len);
        t->mtype = mt->type;
        if (mt->type == HEAPFMT_META_TEXT)
            tstr_set(&t->text, 0, mt->text, mt->text_len);
        t->uval = mt->uint_value;
        t->ival = mt->int_value;
        break;
    }
    case HEAPFMT_TAG_STRING:
        tstr_from_reader(&t->text, rec->u.string);
        break;
    case HEAPFMT_TAG_CLASS:
        tcls_from_reader(&t->cls, rec->u.klass);
        break;
    case HEAPFMT_TAG_OBJECT: {
        const heapfmt_robject *o = rec->u.object;
        t->id = o->id;
        tcls_from_reader(&t->cls, o->klass);
        tstr_from_reader(&t->type, o->type);
        t->size = o->size;
        t->fields = o->fields;
        t->flags = o->flags;
        if (o->fields & HEAPFMT_F_VALUE) {
            t->value_len = o->value_len;
            t->value = tmemdup(o->value, o->value_len);
        }
        tstr_from_reader(&t->file, o->file);
        t->line = o->line;
        t->generation = o->generation;
        t->nrefs = (size_t)o->nrefs;
        break;
    }
    case HEAPFMT_TAG_ROOT:
        tstr_from_reader(&t->kind, rec->u.root->kind);
        t->nrefs = (size_t)rec->u.root->nrefs;
        break;
    case HEAPFMT_TAG_END:
        t->objects = rec->u.end->objects;
        t->bytes = rec->u.end->bytes;
        t->records = rec->u.end->records;
        break;
    default:
        break;
    }
    if ((rec->tag == HEAPFMT_TAG_OBJECT || rec->tag == HEAPFMT_TAG_ROOT) &&
        t->nrefs > 0) {
        const uint64_t *ids = NULL;
        long n = heapfmt_reader_refs(r, &ids);
        if (n < 0) {
            t->refs_rc = (int)n;
        } else if ((size_t)n != t->nrefs || ids == NULL) {
            t->refs_rc = HEAPFMT_E_CORRUPT; /* reported as a mismatch */
        } else {
            t->refs = xmalloc((size_t)n * sizeof *t->refs);
            memcpy(t->refs, ids, (size_t)n * sizeof *t->refs);
        }
    }
}

void tcapture_run(tcapture *c, heapfmt_reader *r, int keep_going)
{
    heapfmt_record rec;
    heapfmt_reader_version(r, &c->major, &c->minor);
    for (;;) {
        memset(&rec, 0, sizeof rec);
        int rc = heapfmt_reader_next(r, &rec);
        if (rc == HEAPFMT_OK) {
            trec *t = treclist_push(&c->recs);
            trec_from_record(t, r, &rec);
            if (t->refs_rc && c->nevents < TCAP_MAX_EVENTS) {
                tevent *e = &c->events[c->nevents++];
                e->rc = t->refs_rc;
                e->err = *heapfmt_reader_error(r);
                e->delivered = c->recs.n;
            }
            continue;
        }
        c->rc = rc;
        c->err = *heapfmt_reader_error(r);
        if (rc != HEAPFMT_DONE && rc >= 0)
            oddity(&c->weird, c->why, sizeof c->why,
                   "heapfmt_reader_next returned %d", rc);
        if (rc != HEAPFMT_DONE && c->nevents < TCAP_MAX_EVENTS) {
            tevent *e = &c->events[c->nevents++];
            e->rc = rc;
            e->err = c->err;
            e->delivered = c->recs.n;
        }
        if (rc == HEAPFMT_E_CORRUPT && keep_going &&
            c->nevents < TCAP_MAX_EVENTS)
            continue;
        break;
    }
    if (c->rc == HEAPFMT_DONE) {
        const heapfmt_footer *f = NULL;
        c->footer_rc = heapfmt_reader_footer(r, &f);
        if (c->footer_rc == HEAPFMT_OK && f != NULL) {
            tfooter_copy(&c->footer, f);
            c->have_footer = 1;
        }
        /* DONE is final: asking again must not produce records */
        memset(&rec, 0, sizeof rec);
        int again = heapfmt_reader_next(r, &rec);
        if (again == HEAPFMT_OK)
            oddity(&c->weird, c->why, sizeof c->why,
                   "heapfmt_reader_next gave a record after DONE");
    }
}

static void capture_open_result(tcapture *c, int rc, heapfmt_reader *r)
{
    c->open_rc = rc;
    if (r)
        c->open_err = *heapfmt_reader_error(r);
    if (rc != HEAPFMT_OK) {
        c->rc = rc;
        c->err = c->open_err;
    }
}

void tcapture_source(tcapture *c, const void *data, size_t len, int policy,
                     uint64_t seed, int seekable, int keep_going)
{
    tsource s;
    heapfmt_reader *r = NULL;
    memset(c, 0, sizeof *c);
    tsource_init(&s, data, len, policy, seed);
    s.seekable = seekable;
    int rc = tsource_open(&r, NULL, &s);
    capture_open_result(c, rc, r);
    if (rc == HEAPFMT_OK)
        tcapture_run(c, r, keep_going);
    heapfmt_reader_free(r);
}

void tcapture_memory(tcapture *c, const void *data, size_t len,
                     int keep_going)
{
    heapfmt_reader *r = NULL;
    memset(c, 0, sizeof *c);
    int rc = heapfmt_reader_open_memory(&r, NULL, data, len);
    capture_open_result(c, rc, r);
    if (rc == HEAPFMT_OK)
        tcapture_run(c, r, keep_going);
    heapfmt_reader_free(r);
}

void tcapture_fd(tcapture *c, int fd, int keep_going)
{
    heapfmt_reader *r = NULL;
    memset(c, 0, sizeof *c);
    int rc = heapfmt_reader_open_fd(&r, NULL, fd);
    capture_open_result(c, rc, r);
    if (rc == HEAPFMT_OK)
        tcapture_run(c, r, keep_going);
    heapfmt_reader_free(r);
}

void tcapture_free(tcapture *c)
{
    treclist_free(&c->recs);
    if (c->have_footer)
        tfooter_free(&c->footer);
    memset(c, 0, sizeof *c);
}
