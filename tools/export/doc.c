/* doc.c -- one JSON document per record, in plain JSON or MongoDB
 * Extended JSON. */
#include <string.h>

#include "cli_names.h"
#include "doc.h"
#include "records.h"

/* The largest integer every JSON reader (IEEE doubles) holds exactly. */
#define SAFE_INT_MAX ((UINT64_C(1) << 53) - 1)

int doc_tag_valid(const char *tag)
{
    size_t n = strlen(tag);
    if (n == 0 || n > DOC_MAX_TAG)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = tag[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

void doc_count(jout *o, const doc_style *st, uint64_t v)
{
    if (st->mongo) {
        if (v <= (uint64_t)INT64_MAX)
            JOUT_LIT(o, "{\"$numberLong\":\"");
        else
            JOUT_LIT(o, "{\"$numberDecimal\":\"");
        jout_u64(o, v);
        JOUT_LIT(o, "\"}");
    } else if (v <= SAFE_INT_MAX) {
        jout_u64(o, v);
    } else {
        jout_char(o, '"');
        jout_u64(o, v);
        jout_char(o, '"');
    }
}

/* A signed value (META int). */
static void doc_signed(jout *o, const doc_style *st, int64_t v)
{
    if (st->mongo) {
        JOUT_LIT(o, "{\"$numberLong\":\"");
        jout_i64(o, v);
        JOUT_LIT(o, "\"}");
    } else if (v <= (int64_t)SAFE_INT_MAX && v >= -(int64_t)SAFE_INT_MAX) {
        jout_i64(o, v);
    } else {
        jout_char(o, '"');
        jout_i64(o, v);
        jout_char(o, '"');
    }
}

/* Flag bits: in MongoDB the 64 bits as an Int64 (two's complement). */
static void doc_bits(jout *o, const doc_style *st, uint64_t v)
{
    if (st->mongo) {
        JOUT_LIT(o, "{\"$numberLong\":\"");
        jout_i64(o, (int64_t)v);
        JOUT_LIT(o, "\"}");
    } else {
        doc_count(o, st, v);
    }
}

/* An interned string, or null for "none" and for a string whose STRING
 * record was lost. */
static void doc_rstring(jout *o, const heapfmt_rstring *s)
{
    if (s == NULL || s->id == 0 || s->undefined)
        JOUT_LIT(o, "null");
    else
        jout_str(o, s->ptr, s->len, DOC_MAX_TEXT);
}

/* An object id that may be unknown (0 for classes and superclasses). */
static void doc_opt_id(jout *o, uint64_t id)
{
    if (id == 0)
        JOUT_LIT(o, "null");
    else
        jout_id(o, id);
}

static void doc_class_name(jout *o, const heapfmt_rclass *c)
{
    cli_name buf;
    size_t len;
    const char *name = cli_class_name(c, &buf, &len);
    jout_str(o, name, len, DOC_MAX_TEXT);
}

/* ------------------------------------------------------------------ */
/* Common parts                                                        */
/* ------------------------------------------------------------------ */

/* "{" and the fields every document may start with: "record", then for
 * MongoDB "_id":"[tag:]" (left open: the caller writes the rest of the
 * id and calls doc_id_end), else "dump". */
static void doc_begin(jout *o, const doc_style *st, unsigned kind)
{
    jout_char(o, '{');
    if (st->record_field) {
        JOUT_LIT(o, "\"record\":\"");
        const char *name = records_kind_name(kind);
        jout_put(o, name, strlen(name));
        JOUT_LIT(o, "\",");
    }
    if (st->mongo) {
        JOUT_LIT(o, "\"_id\":\"");
        if (st->tag != NULL) {
            jout_put(o, st->tag, strlen(st->tag));
            jout_char(o, ':');
        }
    }
}

/* Closes the _id string and writes "dump" when tagged. */
static void doc_id_end(jout *o, const doc_style *st)
{
    if (st->mongo)
        JOUT_LIT(o, "\",");
    if (st->tag != NULL) {
        JOUT_LIT(o, "\"dump\":\"");
        jout_put(o, st->tag, strlen(st->tag));
        JOUT_LIT(o, "\",");
    }
}

/* "0x" and 16 hex digits, without quotes (inside an _id). */
static void doc_hex(jout *o, uint64_t v)
{
    char *p = jout_room(o, 18);
    p[0] = '0';
    p[1] = 'x';
    jout_fmt_hex16(p + 2, v);
    o->len += 18;
}

/* "refs":[...] with at most st->max_refs ids, then refs_count and
 * refs_truncated when some were left out. */
static void doc_refs(jout *o, const doc_style *st, const uint64_t *refs,
                     uint64_t nrefs)
{
    uint64_t keep = nrefs > st->max_refs ? st->max_refs : nrefs;
    JOUT_LIT(o, "\"refs\":[");
    for (uint64_t i = 0; i < keep; i++) {
        char *p = jout_room(o, JOUT_ID_LEN + 1);
        if (i > 0)
            *p++ = ',';
        jout_fmt_id(p, refs[i]);
        o->len += JOUT_ID_LEN + (i > 0);
    }
    jout_char(o, ']');
    if (keep < nrefs) {
        JOUT_LIT(o, ",\"refs_count\":");
        doc_count(o, st, nrefs);
        JOUT_LIT(o, ",\"refs_truncated\":true");
    }
}

/* ------------------------------------------------------------------ */
/* Documents                                                           */
/* ------------------------------------------------------------------ */

void doc_object(jout *o, const doc_style *st, const heapfmt_robject *ob,
                const char *class_name, size_t class_len,
                const uint64_t *refs, uint64_t nrefs)
{
    doc_begin(o, st, RECORDS_OBJECTS);
    if (st->mongo)
        doc_hex(o, ob->id);
    doc_id_end(o, st);
    JOUT_LIT(o, "\"id\":");
    jout_id(o, ob->id);
    JOUT_LIT(o, ",\"class\":");
    jout_str(o, class_name, class_len, DOC_MAX_TEXT);
    JOUT_LIT(o, ",\"type\":");
    doc_rstring(o, ob->type);
    JOUT_LIT(o, ",\"bytes\":");
    doc_count(o, st, ob->size);
    jout_char(o, ',');
    doc_refs(o, st, refs, nrefs);
    if (ob->fields & HEAPFMT_F_VALUE) {
        JOUT_LIT(o, ",\"value\":");
        if (jout_str(o, ob->value, ob->value_len, DOC_MAX_TEXT))
            JOUT_LIT(o, ",\"value_truncated\":true");
    }
    if (ob->fields & HEAPFMT_F_SITE) {
        JOUT_LIT(o, ",\"file\":");
        doc_rstring(o, ob->file);
        JOUT_LIT(o, ",\"line\":");
        doc_count(o, st, ob->line);
    }
    if (ob->fields & HEAPFMT_F_GENERATION) {
        JOUT_LIT(o, ",\"generation\":");
        doc_count(o, st, ob->generation);
    }
    if (ob->fields & HEAPFMT_F_FLAGS) {
        JOUT_LIT(o, ",\"flags\":");
        doc_bits(o, st, ob->flags);
    }
    jout_char(o, '}');
}

void doc_edge(jout *o, const doc_style *st, uint64_t from, uint64_t k,
              uint64_t to)
{
    doc_begin(o, st, RECORDS_EDGES);
    if (st->mongo) {
        doc_hex(o, from);
        jout_char(o, '/');
        jout_u64(o, k);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"from\":");
    jout_id(o, from);
    JOUT_LIT(o, ",\"to\":");
    jout_id(o, to);
    jout_char(o, '}');
}

void doc_root_edge(jout *o, const doc_style *st, const heapfmt_rstring *kind,
                   uint64_t root_no, uint64_t k, uint64_t to)
{
    doc_begin(o, st, RECORDS_EDGES);
    if (st->mongo) {
        JOUT_LIT(o, "root/");
        jout_u64(o, root_no);
        jout_char(o, '/');
        jout_u64(o, k);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"root\":");
    doc_rstring(o, kind);
    JOUT_LIT(o, ",\"to\":");
    jout_id(o, to);
    jout_char(o, '}');
}

void doc_root(jout *o, const doc_style *st, const heapfmt_rroot *root,
              uint64_t root_no, const uint64_t *refs, uint64_t nrefs)
{
    doc_begin(o, st, RECORDS_ROOTS);
    if (st->mongo) {
        JOUT_LIT(o, "root/");
        jout_u64(o, root_no);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"kind\":");
    doc_rstring(o, root->kind);
    jout_char(o, ',');
    doc_refs(o, st, refs, nrefs);
    jout_char(o, '}');
}

void doc_class(jout *o, const doc_style *st, const heapfmt_rclass *c,
               uint64_t count, uint64_t bytes)
{
    doc_begin(o, st, RECORDS_CLASSES);
    if (st->mongo) {
        JOUT_LIT(o, "class/");
        jout_u64(o, c->index);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"index\":");
    doc_count(o, st, c->index);
    JOUT_LIT(o, ",\"id\":");
    doc_opt_id(o, c->undefined ? 0 : c->id);
    JOUT_LIT(o, ",\"name\":");
    doc_class_name(o, c);
    JOUT_LIT(o, ",\"super\":");
    doc_opt_id(o, c->undefined ? 0 : c->super_id);
    JOUT_LIT(o, ",\"flags\":");
    doc_bits(o, st, c->flags);
    JOUT_LIT(o, ",\"count\":");
    doc_count(o, st, count);
    JOUT_LIT(o, ",\"bytes\":");
    doc_count(o, st, bytes);
    jout_char(o, '}');
}

void doc_meta_value(jout *o, const doc_style *st, const heapfmt_rmeta *m)
{
    switch (m->type) {
    case HEAPFMT_META_UINT:
        doc_count(o, st, m->uint_value);
        break;
    case HEAPFMT_META_INT:
        doc_signed(o, st, m->int_value);
        break;
    default:
        jout_str(o, m->text, m->text_len, DOC_MAX_TEXT);
        break;
    }
}

void doc_meta(jout *o, const doc_style *st, const heapfmt_rmeta *m)
{
    doc_begin(o, st, RECORDS_META);
    if (st->mongo) {
        JOUT_LIT(o, "meta/");
        jout_str_body(o, m->key, m->key_len, HEAPFMT_MAX_KEY);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"key\":");
    jout_str(o, m->key, m->key_len, HEAPFMT_MAX_KEY);
    JOUT_LIT(o, ",\"value\":");
    doc_meta_value(o, st, m);
    jout_char(o, '}');
}
