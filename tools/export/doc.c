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

/* How a number's digits are wrapped: bare (exact in a double), quoted
 * (too big for a double), or as a MongoDB Extended JSON type. */
enum wrap { WRAP_BARE, WRAP_QUOTED, WRAP_LONG, WRAP_DECIMAL };

static void wrap_open(jout *o, enum wrap w)
{
    if (w == WRAP_QUOTED)
        jout_char(o, '"');
    else if (w == WRAP_LONG)
        JOUT_LIT(o, "{\"$numberLong\":\"");
    else if (w == WRAP_DECIMAL)
        JOUT_LIT(o, "{\"$numberDecimal\":\"");
}

static void wrap_close(jout *o, enum wrap w)
{
    if (w == WRAP_QUOTED)
        jout_char(o, '"');
    else if (w != WRAP_BARE)
        JOUT_LIT(o, "\"}");
}

void doc_count(jout *o, const doc_style *st, uint64_t v)
{
    enum wrap w = st->mongo ? (v <= (uint64_t)INT64_MAX ? WRAP_LONG
                                                         : WRAP_DECIMAL)
                  : v <= SAFE_INT_MAX ? WRAP_BARE
                                      : WRAP_QUOTED;
    wrap_open(o, w);
    jout_u64(o, v);
    wrap_close(o, w);
}

/* A signed value (META int). */
static void doc_signed(jout *o, const doc_style *st, int64_t v)
{
    enum wrap w = st->mongo ? WRAP_LONG
                  : v <= (int64_t)SAFE_INT_MAX && v >= -(int64_t)SAFE_INT_MAX
                      ? WRAP_BARE
                      : WRAP_QUOTED;
    wrap_open(o, w);
    jout_i64(o, v);
    wrap_close(o, w);
}

/* Flag bits: in MongoDB the 64 bits as an Int64 (two's complement). */
static void doc_bits(jout *o, const doc_style *st, uint64_t v)
{
    if (st->mongo)
        doc_signed(o, st, (int64_t)v);
    else
        doc_count(o, st, v);
}

/* An interned string, or null for "none" and for a string whose STRING
 * record was lost. */
static int doc_rstring(jout *o, const heapfmt_rstring *s, size_t max)
{
    if (s == NULL || s->id == 0 || s->undefined) {
        JOUT_LIT(o, "null");
        return 0;
    }
    return jout_str(o, s->ptr, s->len, max);
}

/* ,"key":"text"[,"key_truncated":true] for a text repeated per document,
 * cut at DOC_MAX_REPEATED bytes. */
static void repeated_member(jout *o, const char *key, const char *s,
                            size_t len, const heapfmt_rstring *rs)
{
    jout_put(o, ",\"", 2);
    jout_put(o, key, strlen(key));
    jout_put(o, "\":", 2);
    int cut = rs != NULL || s == NULL ? doc_rstring(o, rs, DOC_MAX_REPEATED)
                                      : jout_str(o, s, len, DOC_MAX_REPEATED);
    if (cut) {
        jout_put(o, ",\"", 2);
        jout_put(o, key, strlen(key));
        JOUT_LIT(o, "_truncated\":true");
    }
}

/* The hash of a short text for the memos: three bytes and the length (a
 * load of len bytes into a word would stall on the store it reads back). */
static unsigned memo_hash(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    return len == 0 ? 0
                    : (unsigned)len * 7u + u[0] * 31u + u[len / 2] * 17u +
                          u[len - 1] * 5u;
}

/* Writes a memo slot's bytes: the whole slot (size bytes, out_len of them
 * counted), as a copy of fixed size is a few vector moves, one of out_len
 * bytes a string instruction slow to start. */
static void memo_replay(jout *o, const char *out, size_t size, size_t out_len)
{
    char *p = jout_room(o, size);
    memcpy(p, out, size);
    o->len += out_len;
}

/* What was written since o->len was before and o->total flushed: its
 * length if all of it is still in the buffer and at most cap bytes (to be
 * kept in a slot), else 0. */
static size_t memo_written(const jout *o, size_t before, uint64_t flushed,
                           size_t cap)
{
    size_t n = o->len - before;
    return o->total == flushed && n <= cap ? n : 0;
}

/* repeated_member through a memo slot: the member's bytes copied when
 * the slot holds the same text, else written and, when short, kept. */
static void memo_member(jout *o, doc_memo_slot *table, const char *key,
                        const char *s, size_t len, const heapfmt_rstring *rs)
{
    if (rs != NULL) {
        if (rs->id == 0 || rs->undefined) {
            repeated_member(o, key, NULL, 0, rs); /* null */
            return;
        }
        s = rs->ptr;
        len = rs->len;
    }
    if (table == NULL || len > DOC_MEMO_RAW) {
        repeated_member(o, key, s, len, NULL);
        return;
    }
    unsigned h = memo_hash(s, len);
    doc_memo_slot *m = &table[(h ^ h >> 6) % DOC_MEMO_SLOTS];
    if (m->out_len != 0 && m->raw_len == len && memcmp(m->raw, s, len) == 0) {
        memo_replay(o, m->out, DOC_MEMO_OUT, m->out_len);
        return;
    }
    size_t before = o->len;
    uint64_t flushed = o->total;
    repeated_member(o, key, s, len, NULL);
    size_t n = memo_written(o, before, flushed, DOC_MEMO_OUT);
    if (n > 0) {
        memcpy(m->out, o->buf + before, n);
        m->out_len = (uint8_t)n;
        memcpy(m->raw, s, len);
        m->raw_len = (uint8_t)len;
    }
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

/* Closes the _id string, writes "dump" when tagged and the identity
 * when asked for. */
static void doc_id_end(jout *o, const doc_style *st)
{
    if (st->mongo)
        JOUT_LIT(o, "\",");
    if (st->tag != NULL) {
        JOUT_LIT(o, "\"dump\":\"");
        jout_put(o, st->tag, strlen(st->tag));
        JOUT_LIT(o, "\",");
    }
    if (st->ident != NULL)
        jout_raw(o, st->ident, st->ident_len);
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

/* "#n" after the id in the _id of the nth object with that id (n > 1),
 * so that every _id of a collection stays unique. */
static void doc_repeat(jout *o, uint32_t repeat)
{
    if (repeat > 1) {
        jout_char(o, '#');
        jout_u64(o, repeat);
    }
}

/* "refs":[...] with at most st->max_refs ids, then refs_count and
 * refs_truncated when some were left out. Returns the count kept. */
static uint64_t refs_array(jout *o, const doc_style *st, const uint64_t *refs,
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
    return keep;
}

/* ------------------------------------------------------------------ */
/* Labels and stacks (format 1.1)                                      */
/* ------------------------------------------------------------------ */

/* Largest BSON sizes, counted against DOC_MAX_EXTRAS (see doc.h):
 *   the four arrays' own fields and the two *_truncated flags;
 *   an array element's type and key ("16777215"), document length and
 *   end: 15; a label's members: "label" (an Int64, a Decimal128 or a
 *   string), "label_kind" (at most "constant"), "weak"; a frame's:
 *   "function", "library", "file" (strings), "offset", "line". Text: 3
 *   bytes of output per input byte (U+FFFD). */
#define EXTRAS_FIXED 128u
#define EXTRAS_LABEL 80u
#define EXTRAS_FRAME 112u

static const char *const label_kinds[] = {
    [HEAPFMT_LABEL_FIELD] = "field",   [HEAPFMT_LABEL_INDEX] = "index",
    [HEAPFMT_LABEL_KEY] = "key",       [HEAPFMT_LABEL_CONSTANT] = "constant",
    [HEAPFMT_LABEL_GLOBAL] = "global", [HEAPFMT_LABEL_OTHER] = "other",
};

/* Input bytes of s that a document keeps. */
static uint64_t name_len(const heapfmt_rstring *s)
{
    if (s == NULL || s->id == 0 || s->undefined)
        return 0;
    return s->len > DOC_MAX_NAME ? DOC_MAX_NAME : s->len;
}

/* Whether a label says anything: a kind, or weak. */
static int label_present(const heapfmt_rlabel *l)
{
    return l->kind != HEAPFMT_LABEL_NONE || l->weak;
}

static uint64_t label_cost(const heapfmt_rlabel *l)
{
    uint64_t cost = EXTRAS_LABEL;
    if (l->kind != HEAPFMT_LABEL_INDEX)
        cost += 3 * name_len(l->name);
    return cost;
}

/* The members of a label: "label":...,"label_kind":"..." and
 * "weak":true, as far as known; lead: write a comma before the first. */
static void label_members(jout *o, const doc_style *st,
                          const heapfmt_rlabel *l, int lead)
{
    if (l->kind != HEAPFMT_LABEL_NONE) {
        if (lead)
            jout_char(o, ',');
        JOUT_LIT(o, "\"label\":");
        if (l->kind == HEAPFMT_LABEL_INDEX)
            doc_count(o, st, l->index);
        else if (l->name == NULL || l->name->id == 0 || l->name->undefined)
            JOUT_LIT(o, "null");
        else
            jout_str(o, l->name->ptr, l->name->len, DOC_MAX_NAME);
        const char *kind = "other"; /* also for kinds of later versions */
        if (l->kind < sizeof label_kinds / sizeof label_kinds[0] &&
            label_kinds[l->kind] != NULL)
            kind = label_kinds[l->kind];
        JOUT_LIT(o, ",\"label_kind\":\"");
        jout_put(o, kind, strlen(kind));
        jout_char(o, '"');
        lead = 1;
    }
    if (l->weak) {
        if (lead)
            jout_char(o, ',');
        JOUT_LIT(o, "\"weak\":true");
    }
}

/* A label element {...} as it is. */
static void label_object(jout *o, const doc_style *st, const heapfmt_rlabel *l)
{
    jout_char(o, '{');
    label_members(o, st, l, 0);
    jout_char(o, '}');
}

/* A label element {...}: an index written as it comes, a name through a
 * memo slot (see doc_label_slot). */
static void label_element(jout *o, const doc_style *st,
                          const heapfmt_rlabel *l)
{
    if (l->kind == HEAPFMT_LABEL_INDEX) {
        JOUT_LIT(o, "{\"label\":");
        doc_count(o, st, l->index);
        if (l->weak)
            JOUT_LIT(o, ",\"label_kind\":\"index\",\"weak\":true}");
        else
            JOUT_LIT(o, ",\"label_kind\":\"index\"}");
        return;
    }
    /* kept: labels with a defined name ("label":null is not) */
    if (st->memo == NULL || l->kind == HEAPFMT_LABEL_NONE ||
        name_len(l->name) == 0) {
        label_object(o, st, l);
        return;
    }
    uint32_t name = l->name->id;
    uint64_t h = (name + l->kind * 0x9E3779B9ull + l->weak) *
                 0x9E3779B97F4A7C15ull;
    _Static_assert(DOC_LABEL_SLOTS == 256, "a slot from the hash's top byte");
    doc_label_slot *m = &st->memo->label[h >> 56];
    if (m->out_len != 0 && m->name == name && m->kind == l->kind &&
        m->weak == l->weak) {
        memo_replay(o, m->out, DOC_LABEL_OUT, m->out_len);
        return;
    }
    size_t before = o->len;
    uint64_t flushed = o->total;
    label_object(o, st, l);
    size_t n = memo_written(o, before, flushed, DOC_LABEL_OUT);
    if (n > 0) {
        memcpy(m->out, o->buf + before, n);
        m->out_len = (uint8_t)n;
        m->name = name;
        m->kind = (uint8_t)l->kind;
        m->weak = (uint8_t)l->weak;
    }
}

/* ,"ref_labels":[...] for the first keep labels, as far as *budget goes;
 * then ,"ref_labels_truncated":true if some were left out. */
static void ref_labels(jout *o, const doc_style *st,
                       const heapfmt_rlabel *labels, uint64_t keep,
                       uint64_t *budget)
{
    JOUT_LIT(o, ",\"ref_labels\":[");
    uint64_t i;
    for (i = 0; i < keep; i++) {
        const heapfmt_rlabel *l = &labels[i];
        uint64_t cost = label_cost(l);
        if (cost > *budget)
            break;
        *budget -= cost;
        if (i > 0)
            jout_char(o, ',');
        if (!label_present(l)) {
            JOUT_LIT(o, "null");
            continue;
        }
        label_element(o, st, l);
    }
    jout_char(o, ']');
    if (i < keep)
        JOUT_LIT(o, ",\"ref_labels_truncated\":true");
}

/* A member "name":"text" of a frame, when text is known; *first tells
 * whether a comma is needed. */
static void frame_text(jout *o, const char *name, size_t name_size,
                       const heapfmt_rstring *s, int *first)
{
    if (s == NULL || s->id == 0)
        return;
    if (!*first)
        jout_char(o, ',');
    *first = 0;
    jout_put(o, name, name_size);
    if (s->undefined)
        JOUT_LIT(o, "null");
    else
        jout_str(o, s->ptr, s->len, DOC_MAX_NAME);
}

#define FRAME_TEXT(o, lit, s, first) \
    frame_text((o), (lit), sizeof(lit) - 1, (s), (first))

static void frame_number(jout *o, const doc_style *st, const char *name,
                         size_t name_size, uint64_t v, int *first)
{
    if (v == 0)
        return;
    if (!*first)
        jout_char(o, ',');
    *first = 0;
    jout_put(o, name, name_size);
    doc_count(o, st, v);
}

#define FRAME_NUMBER(o, st, lit, v, first) \
    frame_number((o), (st), (lit), sizeof(lit) - 1, (v), (first))

static uint64_t frame_cost(const heapfmt_rframe *f)
{
    return EXTRAS_FRAME +
           3 * (name_len(f->function) + name_len(f->library) +
                name_len(f->file));
}

/* ,"stack":[...] with as many frames as *budget allows; then
 * ,"stack_truncated":true if some were left out. */
static void stack_array(jout *o, const doc_style *st,
                        const heapfmt_rstack *stack, uint64_t *budget)
{
    JOUT_LIT(o, ",\"stack\":[");
    size_t i;
    for (i = 0; i < stack->nframes; i++) {
        const heapfmt_rframe *f = stack->frames[i];
        uint64_t cost = frame_cost(f);
        if (cost > *budget)
            break;
        *budget -= cost;
        if (i > 0)
            jout_char(o, ',');
        jout_char(o, '{');
        int first = 1;
        FRAME_TEXT(o, "\"function\":", f->function, &first);
        FRAME_TEXT(o, "\"library\":", f->library, &first);
        FRAME_NUMBER(o, st, "\"offset\":", f->offset, &first);
        FRAME_TEXT(o, "\"file\":", f->file, &first);
        FRAME_NUMBER(o, st, "\"line\":", f->line, &first);
        jout_char(o, '}');
    }
    jout_char(o, ']');
    if (i < stack->nframes)
        JOUT_LIT(o, ",\"stack_truncated\":true");
}

/* What the frames of stack that fit in budget take of it. */
static uint64_t stack_cost(const heapfmt_rstack *stack, uint64_t budget)
{
    uint64_t used = 0;
    for (size_t i = 0; stack != NULL && i < stack->nframes; i++) {
        uint64_t cost = frame_cost(stack->frames[i]);
        if (cost > budget - used)
            break;
        used += cost;
    }
    return used;
}

/* ------------------------------------------------------------------ */
/* Documents                                                           */
/* ------------------------------------------------------------------ */

void doc_object(jout *o, const doc_style *st, const heapfmt_robject *ob,
                const char *class_name, size_t class_len,
                const doc_refs *refs)
{
    uint64_t budget = DOC_MAX_EXTRAS - EXTRAS_FIXED;
    uint64_t for_stack = stack_cost(ob->stack, DOC_MAX_STACK);
    budget -= for_stack;
    char id[JOUT_ID_LEN]; /* "0x...", formatted once for _id and id */
    jout_fmt_id(id, ob->id);
    doc_begin(o, st, RECORDS_OBJECTS);
    if (st->mongo) {
        jout_put(o, id + 1, JOUT_ID_LEN - 2);
        doc_repeat(o, refs->repeat);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"id\":");
    jout_put(o, id, JOUT_ID_LEN);
    memo_member(o, st->memo ? st->memo->class_name : NULL, "class",
                class_name, class_len, NULL);
    memo_member(o, st->memo ? st->memo->type : NULL, "type", NULL, 0,
                ob->type);
    JOUT_LIT(o, ",\"bytes\":");
    doc_count(o, st, ob->size);
    jout_char(o, ',');
    uint64_t keep = refs_array(o, st, refs->ids, refs->n);
    if (refs->labels != NULL && keep > 0)
        ref_labels(o, st, refs->labels, keep, &budget);
    if (ob->fields & HEAPFMT_F_VALUE) {
        JOUT_LIT(o, ",\"value\":");
        if (jout_str(o, ob->value, ob->value_len, DOC_MAX_TEXT))
            JOUT_LIT(o, ",\"value_truncated\":true");
    }
    if (ob->fields & HEAPFMT_F_SITE) {
        repeated_member(o, "file", NULL, 0, ob->file);
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
    if (ob->stack != NULL)
        stack_array(o, st, ob->stack, &for_stack);
    jout_char(o, '}');
}

void doc_edge(jout *o, const doc_style *st, uint64_t from, uint32_t repeat,
              uint64_t k, uint64_t to, const heapfmt_rlabel *label)
{
    doc_begin(o, st, RECORDS_EDGES);
    if (st->mongo) {
        doc_hex(o, from);
        doc_repeat(o, repeat);
        jout_char(o, '/');
        jout_u64(o, k);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"from\":");
    jout_id(o, from);
    JOUT_LIT(o, ",\"to\":");
    jout_id(o, to);
    if (label != NULL)
        label_members(o, st, label, 1);
    jout_char(o, '}');
}

void doc_root_edge(jout *o, const doc_style *st, const heapfmt_rstring *kind,
                   uint64_t root_no, uint64_t k, uint64_t to,
                   const heapfmt_rlabel *label)
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
    int cut = doc_rstring(o, kind, DOC_MAX_REPEATED);
    JOUT_LIT(o, ",\"to\":");
    jout_id(o, to);
    if (cut)
        JOUT_LIT(o, ",\"root_truncated\":true");
    if (label != NULL)
        label_members(o, st, label, 1);
    jout_char(o, '}');
}

void doc_root(jout *o, const doc_style *st, const heapfmt_rroot *root,
              uint64_t root_no, const doc_refs *refs)
{
    uint64_t budget = DOC_MAX_EXTRAS - EXTRAS_FIXED;
    doc_begin(o, st, RECORDS_ROOTS);
    if (st->mongo) {
        JOUT_LIT(o, "root/");
        jout_u64(o, root_no);
    }
    doc_id_end(o, st);
    JOUT_LIT(o, "\"kind\":");
    if (doc_rstring(o, root->kind, DOC_MAX_REPEATED))
        JOUT_LIT(o, ",\"kind_truncated\":true");
    jout_char(o, ',');
    uint64_t keep = refs_array(o, st, refs->ids, refs->n);
    if (refs->labels != NULL && keep > 0)
        ref_labels(o, st, refs->labels, keep, &budget);
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
