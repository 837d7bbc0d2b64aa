/* rows.c -- the rows format: flat JSON rows of a fixed schema. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_names.h"
#include "cli_stack.h"
#include "doc.h"
#include "rows.h"

/* ------------------------------------------------------------------ */
/* Memos                                                               */
/* ------------------------------------------------------------------ */

/* Names longer than this, or members that render longer, are written
 * each time; the arena stops growing at MEMO_ARENA_MAX (a dump of
 * millions of distinct long names gains nothing from it). */
#define MEMO_MAX_SRC 256u
#define MEMO_MAX_OUT 2048u
#define MEMO_ARENA_MAX (32u << 20)

static void memo_free(rows_memo *m)
{
    free(m->ents);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

/* The entry of slot, growing the table; NULL when out of memory. */
static rows_memo_ent *memo_ent(rows_memo *m, size_t slot)
{
    if (slot >= m->nents) {
        size_t n = m->nents ? m->nents : 256;
        while (n <= slot)
            n *= 2;
        rows_memo_ent *e = realloc(m->ents, n * sizeof *e);
        if (e == NULL)
            return NULL;
        memset(e + m->nents, 0, (n - m->nents) * sizeof *e);
        m->ents = e;
        m->nents = n;
    }
    return &m->ents[slot];
}

/* Replays the member kept for slot when it was made from the same source
 * (src, or the text s of len bytes). Returns 1 if it did. */
static int memo_replay(const rows_memo *m, size_t slot, const void *src,
                       const char *s, size_t len, jout *o)
{
    if (slot >= m->nents)
        return 0;
    const rows_memo_ent *e = &m->ents[slot];
    if (e->out_len == 0 || e->src != src || e->src_len != len ||
        (len > 0 && memcmp(m->arena + e->src_off, s, len) != 0))
        return 0;
    jout_put(o, m->arena + e->out_off, e->out_len);
    return 1;
}

/* Appends n bytes to the arena; returns their offset, or -1. */
static long arena_add(rows_memo *m, const char *p, size_t n)
{
    if (n == 0) /* a key by its source alone (a stack, a string entry) */
        return (long)m->used;
    if (m->used + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->used + n)
            cap *= 2;
        if (cap > MEMO_ARENA_MAX)
            return -1;
        char *a = realloc(m->arena, cap);
        if (a == NULL)
            return -1;
        m->arena = a;
        m->cap = cap;
    }
    memcpy(m->arena + m->used, p, n);
    m->used += n;
    return (long)(m->used - n);
}

/* Keeps the member written to o since (before, flushed) for slot, when
 * all of it is still in o's buffer and it is short. Out of memory, it
 * keeps nothing: the memo only saves time. */
static void memo_keep(rows_memo *m, size_t slot, const void *src,
                      const char *s, size_t len, const jout *o,
                      size_t before, uint64_t flushed)
{
    size_t n = o->len - before;
    if (o->total != flushed || n == 0 || n > MEMO_MAX_OUT ||
        len > MEMO_MAX_SRC || slot > UINT32_MAX)
        return;
    rows_memo_ent *e = memo_ent(m, slot);
    if (e == NULL)
        return;
    size_t mark = m->used;
    long src_off = arena_add(m, s, len);
    long out_off = src_off < 0 ? -1 : arena_add(m, o->buf + before, n);
    if (out_off < 0) {
        m->used = mark;
        return;
    }
    e->src = src;
    e->src_off = (uint32_t)src_off;
    e->src_len = (uint32_t)len;
    e->out_off = (uint32_t)out_off;
    e->out_len = (uint32_t)n;
}

/* ------------------------------------------------------------------ */
/* Members                                                             */
/* ------------------------------------------------------------------ */

/* ,"key":"text" cut at DOC_MAX_REPEATED bytes; key is a literal with
 * its comma and quotes: ",\"class\":". */
static void text_member(jout *o, const char *key, size_t key_len,
                        const char *s, size_t len)
{
    jout_put(o, key, key_len);
    jout_str(o, s, len, DOC_MAX_REPEATED);
}

/* The same for an interned string: "" when none or lost. */
static void rstring_member(jout *o, const char *key, size_t key_len,
                           const heapfmt_rstring *s)
{
    if (s == NULL || s->id == 0 || s->undefined)
        text_member(o, key, key_len, "", 0);
    else
        text_member(o, key, key_len, s->ptr, s->len);
}

/* A text member through memo m at slot. */
static void memo_text(rows_memo *m, size_t slot, jout *o, const char *key,
                      size_t key_len, const char *s, size_t len)
{
    if (memo_replay(m, slot, NULL, s, len, o))
        return;
    size_t before = o->len;
    uint64_t flushed = o->total;
    text_member(o, key, key_len, s, len);
    memo_keep(m, slot, NULL, s, len, o, before, flushed);
}

/* An interned string's member through memo m, by its slot. A string id
 * is defined once, so its entry (the source) stands for its text. */
static void memo_rstring(rows_memo *m, jout *o, const char *key,
                         size_t key_len, const heapfmt_rstring *s)
{
    if (s == NULL || s->id == 0 || s->undefined) {
        text_member(o, key, key_len, "", 0);
        return;
    }
    if (memo_replay(m, s->slot, s, NULL, 0, o))
        return;
    size_t before = o->len;
    uint64_t flushed = o->total;
    text_member(o, key, key_len, s->ptr, s->len);
    memo_keep(m, s->slot, s, NULL, 0, o, before, flushed);
}

#define MEMBER(o, lit) jout_put((o), (lit), sizeof(lit) - 1)

/* ,"key":N. Most of these numbers (references, lines, generations,
 * flags) have one digit: those skip the general formatter. */
static inline void u64_member(jout *o, const char *key, size_t key_len,
                              uint64_t v)
{
    char *p = jout_room(o, key_len + JOUT_U64_MAX);
    memcpy(p, key, key_len);
    if (v < 10) {
        p[key_len] = (char)('0' + v);
        o->len += key_len + 1;
    } else {
        o->len += key_len + jout_fmt_u64(p + key_len, v);
    }
}

#define U64(o, lit, v) u64_member((o), (lit), sizeof(lit) - 1, (v))

/* ,"key":ID for an object id. Ids are addresses, 15 decimal digits, and
 * those of one dump share their leading digits: the digits above the
 * last eight are formatted again only when they change. */
static void id_member(rows *w, jout *o, const char *key, size_t key_len,
                      uint64_t id)
{
    static const uint64_t low = 100000000u;
    jout_put(o, key, key_len);
    if (id < low) {
        jout_u64(o, id);
        return;
    }
    uint64_t hi = id / low;
    uint32_t lo = (uint32_t)(id % low);
    if (!w->id_hi_valid || w->id_hi != hi) {
        w->id_hi = hi;
        w->id_hi_len = (uint8_t)jout_fmt_u64(w->id_hi_text, hi);
        w->id_hi_valid = 1;
    }
    char *p = jout_room(o, JOUT_U64_MAX);
    memcpy(p, w->id_hi_text, sizeof w->id_hi_text);
    jout_fmt_8digits(p + w->id_hi_len, lo);
    o->len += w->id_hi_len + 8u;
}

#define ID(w, o, lit, v) id_member((w), (o), (lit), sizeof(lit) - 1, (v))
#define TEXT(o, lit, s, n) text_member((o), (lit), sizeof(lit) - 1, (s), (n))
#define RSTRING(o, lit, s) rstring_member((o), (lit), sizeof(lit) - 1, (s))

/* ,"frame":"..." -- the top frame of stack, as histo --by=frame names it,
 * or "" without a stack. */
static void frame_member(rows *w, jout *o, const heapfmt_rstack *stack)
{
    static const char key[] = ",\"frame\":";
    if (stack == NULL) {
        MEMBER(o, ",\"frame\":\"\"");
        return;
    }
    if (memo_replay(&w->frame, stack->slot, stack, NULL, 0, o))
        return;
    size_t before = o->len;
    uint64_t flushed = o->total;
    cli_buf *b = w->frame_buf;
    if (cli_stack_top_name(b, stack, CLI_STACK_TEXT) != 0 || b->s == NULL)
        text_member(o, key, sizeof key - 1, "", 0); /* out of memory */
    else
        text_member(o, key, sizeof key - 1, b->s, b->len);
    memo_keep(&w->frame, stack->slot, stack, NULL, 0, o, before, flushed);
}

/* ------------------------------------------------------------------ */
/* Identity                                                            */
/* ------------------------------------------------------------------ */

/* A jout sink that appends to a growing buffer. */
typedef struct membuf {
    char *p;
    size_t len, cap;
} membuf;

static long membuf_write(void *opaque, const void *buf, size_t len)
{
    membuf *m = opaque;
    if (m->len + len > m->cap) {
        size_t cap = m->cap ? m->cap : 256;
        while (cap < m->len + len)
            cap *= 2;
        char *p = realloc(m->p, cap);
        if (p == NULL)
            return -ENOMEM;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->len, buf, len);
    m->len += len;
    return (long)len;
}

/* A number of the identity: bare, or for MongoDB an Int64 (a Decimal128
 * above 2^63-1, as doc.h writes counts). */
static void ident_number(jout *o, uint64_t v, int mongo)
{
    if (!mongo) {
        jout_u64(o, v);
        return;
    }
    if (v <= (uint64_t)INT64_MAX)
        JOUT_LIT(o, "{\"$numberLong\":\"");
    else
        JOUT_LIT(o, "{\"$numberDecimal\":\"");
    jout_u64(o, v);
    JOUT_LIT(o, "\"}");
}

/* The identity's members, separated by commas, and one after the last
 * when last_sep is nonzero. */
static void ident_write(jout *o, const ident *id, int mongo, int last_sep)
{
    JOUT_LIT(o, "\"host\":");
    jout_str(o, id->host, id->host_len, IDENT_MAX_TEXT);
    JOUT_LIT(o, ",\"pid\":");
    ident_number(o, id->pid, mongo);
    JOUT_LIT(o, ",\"time\":");
    ident_number(o, id->time, mongo);
    JOUT_LIT(o, ",\"release\":");
    jout_str(o, id->release, id->release_len, IDENT_MAX_TEXT);
    if (last_sep)
        jout_char(o, ',');
}

/* Renders ident_write's text into a malloc'd string. */
static int ident_render(const ident *id, int mongo, int last_sep,
                        const char *lead, char **out, size_t *len)
{
    membuf m = {0};
    jout o;
    if (jout_init(&o, 0, membuf_write, &m) != 0)
        return -1;
    jout_put(&o, lead, strlen(lead));
    ident_write(&o, id, mongo, last_sep);
    int rc = jout_flush(&o);
    jout_free(&o);
    if (rc != 0) {
        free(m.p);
        return -1;
    }
    *out = m.p;
    *len = m.len;
    return 0;
}

int rows_ident_members(const ident *id, int mongo, char **out, size_t *len)
{
    return ident_render(id, mongo, 1, "", out, len);
}

int rows_init(rows *w, const ident *id)
{
    memset(w, 0, sizeof *w);
    w->frame_buf = calloc(1, sizeof(cli_buf));
    if (w->frame_buf == NULL ||
        ident_render(id, 0, 0, "{", &w->prefix, &w->prefix_len) != 0) {
        rows_free(w);
        return -1;
    }
    return 0;
}

void rows_free(rows *w)
{
    free(w->prefix);
    memo_free(&w->class_name);
    memo_free(&w->type);
    memo_free(&w->file);
    memo_free(&w->frame);
    if (w->frame_buf != NULL)
        cli_buf_free(w->frame_buf);
    free(w->frame_buf);
    memset(w, 0, sizeof *w);
}

static void row_begin(const rows *w, jout *o)
{
    jout_put(o, w->prefix, w->prefix_len); /* at most a few KiB */
}

/* ------------------------------------------------------------------ */
/* Rows                                                                */
/* ------------------------------------------------------------------ */

void rows_object(rows *w, jout *o, const heapfmt_robject *ob,
                 const char *class_name, size_t class_len)
{
    row_begin(w, o);
    ID(w, o, ",\"id\":", ob->id);
    if (class_len > MEMO_MAX_SRC)
        TEXT(o, ",\"class\":", class_name, class_len);
    else
        memo_text(&w->class_name, ob->klass->slot, o, ",\"class\":",
                  sizeof ",\"class\":" - 1, class_name, class_len);
    memo_rstring(&w->type, o, ",\"type\":", sizeof ",\"type\":" - 1,
                 ob->type);
    U64(o, ",\"bytes\":", ob->size);
    U64(o, ",\"refs\":", ob->nrefs);
    if (ob->fields & HEAPFMT_F_SITE) {
        memo_rstring(&w->file, o, ",\"file\":", sizeof ",\"file\":" - 1,
                     ob->file);
        U64(o, ",\"line\":", ob->line);
    } else {
        MEMBER(o, ",\"file\":\"\",\"line\":0");
    }
    U64(o, ",\"generation\":",
        ob->fields & HEAPFMT_F_GENERATION ? ob->generation : 0);
    U64(o, ",\"flags\":", ob->fields & HEAPFMT_F_FLAGS ? ob->flags : 0);
    frame_member(w, o, ob->stack);
    jout_char(o, '}');
}

static const char *label_kind_name(uint32_t kind)
{
    switch (kind) {
    case HEAPFMT_LABEL_NONE:
        return "";
    case HEAPFMT_LABEL_FIELD:
        return "field";
    case HEAPFMT_LABEL_INDEX:
        return "index";
    case HEAPFMT_LABEL_KEY:
        return "key";
    case HEAPFMT_LABEL_CONSTANT:
        return "constant";
    case HEAPFMT_LABEL_GLOBAL:
        return "global";
    default:
        return "other"; /* also the kinds of later versions */
    }
}

void rows_reference(rows *w, jout *o, uint64_t from,
                    const heapfmt_rstring *root_kind, uint64_t to,
                    const heapfmt_rlabel *label)
{
    row_begin(w, o);
    ID(w, o, ",\"from_id\":", from);
    ID(w, o, ",\"to_id\":", to);
    if (root_kind != NULL)
        RSTRING(o, ",\"root\":", root_kind);
    else
        MEMBER(o, ",\"root\":\"\"");
    if (label == NULL || label->kind == HEAPFMT_LABEL_NONE) {
        MEMBER(o, ",\"label\":\"\",\"label_kind\":\"\"");
    } else {
        if (label->kind == HEAPFMT_LABEL_INDEX) {
            MEMBER(o, ",\"label\":\"");
            jout_u64(o, label->index);
            jout_char(o, '"');
        } else {
            RSTRING(o, ",\"label\":", label->name);
        }
        const char *k = label_kind_name(label->kind);
        MEMBER(o, ",\"label_kind\":\"");
        jout_put(o, k, strlen(k));
        jout_char(o, '"');
    }
    if (label != NULL && label->weak)
        MEMBER(o, ",\"weak\":1}");
    else
        MEMBER(o, ",\"weak\":0}");
}

void rows_root(rows *w, jout *o, const heapfmt_rroot *root)
{
    row_begin(w, o);
    RSTRING(o, ",\"kind\":", root->kind);
    U64(o, ",\"refs\":", root->nrefs);
    jout_char(o, '}');
}

void rows_class(rows *w, jout *o, const heapfmt_rclass *c, uint64_t count,
                uint64_t bytes)
{
    cli_name buf;
    size_t len;
    const char *name = cli_class_name(c, &buf, &len);
    row_begin(w, o);
    U64(o, ",\"index\":", c->index);
    U64(o, ",\"id\":", c->undefined ? 0 : c->id);
    TEXT(o, ",\"name\":", name, len);
    U64(o, ",\"super\":", c->undefined ? 0 : c->super_id);
    U64(o, ",\"flags\":", c->flags);
    U64(o, ",\"count\":", count);
    U64(o, ",\"bytes\":", bytes);
    jout_char(o, '}');
}

void rows_meta(rows *w, jout *o, const heapfmt_rmeta *m)
{
    row_begin(w, o);
    MEMBER(o, ",\"key\":");
    jout_str(o, m->key, m->key_len, HEAPFMT_MAX_KEY);
    MEMBER(o, ",\"value\":");
    switch (m->type) {
    case HEAPFMT_META_UINT:
        jout_char(o, '"');
        jout_u64(o, m->uint_value);
        jout_char(o, '"');
        break;
    case HEAPFMT_META_INT:
        jout_char(o, '"');
        jout_i64(o, m->int_value);
        jout_char(o, '"');
        break;
    default:
        jout_str(o, m->text, m->text_len, DOC_MAX_TEXT);
        break;
    }
    jout_char(o, '}');
}
