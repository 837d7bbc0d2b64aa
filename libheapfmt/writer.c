/* writer.c -- the streaming writer's records: each is encoded by format.h
 * into the block being filled (writer_block.c sends the blocks out).
 *
 * Memory: one raw block buffer, the codec's state, the string, frame,
 * stack and class tables and the block index. All grow only when
 * something new appears (a string, a class, a block, a record larger than
 * any before), never per object. */
#include <errno.h>
#include <stdio.h>

#include "writer_direct.h"
#include "writer_internal.h"

int hf_wfail(heapfmt_writer *w, int code, int sys_errno, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hf_error_vset(&w->err, code, sys_errno,
                  (hf_where){w->offset, w->nblocks, w->records}, fmt, ap);
    va_end(ap);
    if (code == HEAPFMT_E_IO || code == HEAPFMT_E_NOMEM)
        w->sticky = code;
    return code;
}

/* ---- records into the block ---- */

/* Makes room for a record whose payload is at most bound bytes. Ends the
 * current block if the record would overflow it. On success returns a
 * pointer where the payload can be encoded; *hdr receives the room left
 * for tag and length. */
static uint8_t *begin_record_slow(heapfmt_writer *w, size_t bound,
                                  size_t *hdr)
{
    size_t h = 1 + hf_varint_len(bound);
    size_t need = h + bound;
    if (need > HEAPFMT_MAX_BLOCK + (size_t)HF_VARINT_MAX + 1) {
        hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                 "record larger than a block may be (%u bytes)",
                 HEAPFMT_MAX_BLOCK);
        return NULL;
    }
    if (w->len > 0 && w->len + need > w->block_size) {
        if (w->kind == HF_KIND_FOOTER) { /* the footer is a single block */
            hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                     "footer larger than a block may be (%u bytes)",
                     HEAPFMT_MAX_BLOCK);
            return NULL;
        }
        if (hf_emit_block(w, w->kind) != HEAPFMT_OK)
            return NULL;
    }
    if (w->len + need > w->cap) {
        size_t cap = w->cap;
        if (hf_grow(&w->al, (void **)&w->buf, &cap, w->len + need, 1) < 0) {
            hf_wfail(w, HEAPFMT_E_NOMEM, 0, "out of memory for a %zu-byte "
                                            "record", need);
            return NULL;
        }
        w->cap = cap;
    }
    *hdr = h;
    return w->buf + w->len + h;
}

/* The common case inline: the record fits the block being filled and
 * the buffer, so nothing is emitted or grown. The payload goes after two
 * bytes of header (tag, a one-byte length), where most records' fit:
 * end_record moves it by one byte when its length needs two, for which
 * room was checked (bound >= 128). (The buffer is not always as large as
 * block_size: the footer's block_size is the largest block.) */
static inline uint8_t *begin_record(heapfmt_writer *w, size_t bound,
                                    size_t *hdr)
{
    size_t h = bound < 0x80 ? 2 : bound < 0x4000 ? 3 : 0;
    size_t end = w->len + h + bound;
    if (h != 0 && end <= w->block_size && end <= w->cap) {
        *hdr = 2;
        return w->buf + w->len + 2;
    }
    return begin_record_slow(w, bound, hdr);
}

/* Finishes a record begun with begin_record: payload ends at end. */
static int end_record_slow(heapfmt_writer *w, unsigned tag, size_t hdr,
                           const uint8_t *end)
{
    uint8_t *start = w->buf + w->len;
    size_t plen = (size_t)(end - (start + hdr));
    size_t h = 1 + hf_varint_len(plen);
    if (w->len + h + plen > HEAPFMT_MAX_BLOCK)
        return hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                        "record larger than a block may be (%u bytes)",
                        HEAPFMT_MAX_BLOCK);
    if (h != hdr) /* room for h > hdr: see begin_record */
        memmove(start + h, start + hdr, plen);
    hf_record_head_encode(start, tag, plen);
    w->len += h + plen;
    w->records++;
    w->block_records++;
    return HEAPFMT_OK;
}

/* The common case inline: a payload under 128 bytes in a record begun
 * with two bytes of header room (tag and a one-byte length). */
static inline int end_record(heapfmt_writer *w, unsigned tag, size_t hdr,
                             const uint8_t *end)
{
    uint8_t *start = w->buf + w->len;
    size_t plen = (size_t)(end - (start + hdr));
    if (hdr == 2 && plen < 0x80 && w->len + 2 + plen <= HEAPFMT_MAX_BLOCK) {
        start[0] = (uint8_t)tag;
        start[1] = (uint8_t)plen;
        w->len += 2 + plen;
        w->records++;
        w->block_records++;
        return HEAPFMT_OK;
    }
    return end_record_slow(w, tag, hdr, end);
}

/* ---- public entry guard ---- */

static int enter_slow(heapfmt_writer *w)
{
    if (!w)
        return HEAPFMT_E_ARG;
    if (w->sticky && !w->busy)
        return w->sticky;
    if (w->busy || w->finished) {
        hf_wfail(w, HEAPFMT_E_STATE, 0, "%s",
                 w->busy ? "writer re-entered from a callback"
                         : "writer already finished");
        return HEAPFMT_E_STATE;
    }
    w->busy = 1;
    return HEAPFMT_OK;
}

/* The usual case inline: a usable writer, not busy. */
static inline int enter(heapfmt_writer *w)
{
    if (w && !(w->sticky | w->busy | w->finished)) {
        w->busy = 1;
        return HEAPFMT_OK;
    }
    return enter_slow(w);
}

static int leave(heapfmt_writer *w, int rc)
{
    w->busy = 0;
    return rc;
}

/* ---- META ---- */

static int write_meta(heapfmt_writer *w, const char *key, unsigned type,
                      const char *text, uint64_t num)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    hf_meta m = {type, (const uint8_t *)key, 0, (const uint8_t *)text, 0, num};
    if (key)
        m.key_len = strnlen(key, HF_META_KEY_MAX + 1);
    if (!key || !hf_meta_key_valid(m.key, m.key_len))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "META key must be 1-%u bytes of "
                                 "[A-Za-z0-9._-]",
                                 HF_META_KEY_MAX));
    if (type == HEAPFMT_META_TEXT) {
        if (!text)
            return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL META value"));
        m.text_len = strlen(text);
        if (m.text_len > HEAPFMT_MAX_STRING)
            return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                     "META value longer than %u bytes",
                                     HEAPFMT_MAX_STRING));
    }
    size_t hdr;
    uint8_t *p = begin_record(w, hf_meta_bound(&m), &hdr);
    if (!p)
        return leave(w, w->err.code);
    p = hf_meta_encode(p, &m);
    return leave(w, end_record(w, HEAPFMT_TAG_META, hdr, p));
}

int heapfmt_write_meta_text(heapfmt_writer *w, const char *key,
                            const char *value)
{
    return write_meta(w, key, HEAPFMT_META_TEXT, value, 0);
}

int heapfmt_write_meta_uint(heapfmt_writer *w, const char *key, uint64_t value)
{
    return write_meta(w, key, HEAPFMT_META_UINT, NULL, value);
}

int heapfmt_write_meta_int(heapfmt_writer *w, const char *key, int64_t value)
{
    return write_meta(w, key, HEAPFMT_META_INT, NULL,
                      hf_zigzag((uint64_t)value));
}

/* ---- STRING, FRAME, STACK: interned definitions ---- */

/* Looks key up in an intern table; a new key gets the next id, and
 * encode(w, p, id, ctx) writes its record. Caller holds busy. */
static int intern(heapfmt_writer *w, hf_strtab *t, const char *what,
                  const char *key, size_t klen, unsigned tag, size_t bound,
                  uint8_t *(*encode)(uint8_t *p, uint32_t id, const void *ctx),
                  const void *ctx, uint32_t *id)
{
    int found;
    if (t->count >= HEAPFMT_MAX_ID)
        return hf_wfail(w, HEAPFMT_E_LIMIT, 0, "more than %u %ss",
                        HEAPFMT_MAX_ID, what);
    if (hf_strtab_intern(t, key, klen, (uint32_t)(t->count + 1), id,
                         &found) < 0)
        return hf_wfail(w, HEAPFMT_E_NOMEM, 0, "out of memory for the %s "
                                               "table", what);
    if (found)
        return HEAPFMT_OK;
    size_t hdr;
    uint8_t *p = begin_record(w, bound, &hdr);
    int rc = w->err.code;
    if (p)
        rc = end_record(w, tag, hdr, encode(p, *id, ctx));
    if (rc != HEAPFMT_OK) /* not written: the id must not be handed out */
        hf_strtab_forget_last(t);
    return rc;
}

static uint8_t *encode_string(uint8_t *p, uint32_t id, const void *ctx)
{
    hf_string_rec s = *(const hf_string_rec *)ctx;
    s.id = id;
    return hf_string_encode(p, &s);
}

static int intern_string(heapfmt_writer *w, const char *s, size_t len,
                         uint32_t *id)
{
    if (len > HEAPFMT_MAX_STRING)
        return hf_wfail(w, HEAPFMT_E_LIMIT, 0, "string longer than %u bytes",
                        HEAPFMT_MAX_STRING);
    if (!s && len)
        return hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL string");
    hf_string_rec rec = {0, (const uint8_t *)s, len};
    return intern(w, &w->strings, "string", s ? s : "", len,
                  HEAPFMT_TAG_STRING, hf_string_bound(len), encode_string,
                  &rec, id);
}

int heapfmt_write_string(heapfmt_writer *w, const char *s, size_t len,
                         uint32_t *id)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!id)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL id pointer"));
    return leave(w, intern_string(w, s, len, id));
}

static int check_string_id(heapfmt_writer *w, uint64_t id, const char *what)
{
    if (id <= w->strings.count)
        return HEAPFMT_OK;
    return hf_wfail(w, HEAPFMT_E_ARG, 0, "%s string id %llu was never defined",
                    what, (unsigned long long)id);
}

static uint8_t *encode_frame(uint8_t *p, uint32_t id, const void *ctx)
{
    hf_frame_rec f = *(const hf_frame_rec *)ctx;
    f.id = id;
    return hf_frame_encode(p, &f);
}

int heapfmt_write_frame(heapfmt_writer *w, const heapfmt_frame *f,
                        uint32_t *id)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!f || !id)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL frame or id"));
    if ((rc = check_string_id(w, f->function, "frame function")) != 0 ||
        (rc = check_string_id(w, f->library, "frame library")) != 0 ||
        (rc = check_string_id(w, f->file, "frame file")) != 0)
        return leave(w, rc);
    /* The intern key is the record's fields without the id. */
    hf_frame_rec rec = {0, f->function, f->library, f->offset, f->file,
                        f->line};
    uint8_t key[HF_FRAME_BOUND];
    size_t klen = (size_t)(hf_frame_encode(key, &rec) - key);
    return leave(w, intern(w, &w->frames, "frame", (const char *)key, klen,
                           HEAPFMT_TAG_FRAME, HF_FRAME_BOUND, encode_frame,
                           &rec, id));
}

typedef struct stack_ctx {
    const uint32_t *frames;
    size_t n;
} stack_ctx;

static uint8_t *encode_stack(uint8_t *p, uint32_t id, const void *ctx)
{
    const stack_ctx *s = ctx;
    return hf_stack_encode(p, id, s->frames, s->n);
}

int heapfmt_write_stack(heapfmt_writer *w, const uint32_t *frames, size_t n,
                        uint32_t *id)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!frames || !id)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL frames or id"));
    if (n == 0 || n > HEAPFMT_MAX_FRAMES)
        return leave(w, hf_wfail(w, n ? HEAPFMT_E_LIMIT : HEAPFMT_E_ARG, 0,
                                 "a stack has 1 to %u frames, not %zu",
                                 HEAPFMT_MAX_FRAMES, n));
    for (size_t i = 0; i < n; i++)
        if (frames[i] == 0 || frames[i] > w->frames.count)
            return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                     "frame id %u was never defined",
                                     frames[i]));
    /* The intern key is the frame ids as stored (4 bytes each). */
    stack_ctx ctx = {frames, n};
    return leave(w, intern(w, &w->stacks, "stack", (const char *)frames,
                           n * sizeof *frames, HEAPFMT_TAG_STACK,
                           hf_stack_bound(n), encode_stack, &ctx, id));
}

/* ---- CLASS ---- */

static int emit_class(heapfmt_writer *w, uint32_t index)
{
    const hf_wclass *c = &w->classes[index - 1];
    hf_class_rec rec = {index, c->id, c->name, c->super_id, c->flags};
    size_t hdr;
    uint8_t *p = begin_record(w, HF_CLASS_BOUND, &hdr);
    if (!p)
        return w->err.code;
    return end_record(w, HEAPFMT_TAG_CLASS, hdr, hf_class_encode(p, &rec));
}

static inline hf_class_cache *class_cache_slot(heapfmt_writer *w,
                                               uint64_t id)
{
    return &w->class_cache[(id * 0x9e3779b97f4a7c15ull) >>
                           (64 - HF_CLASS_CACHE_BITS)];
}

/* Finds or adds the class with this id (not 0); new classes get the next
 * index. Indexes never change, so cached entries stay right. */
static int class_index(heapfmt_writer *w, uint64_t id, uint32_t *index,
                       int *created)
{
    *created = 0;
    hf_class_cache *cc = class_cache_slot(w, id);
    if (cc->id == id) {
        *index = cc->index;
        return HEAPFMT_OK;
    }
    if (hf_map_get(&w->class_ids, id, index)) {
        cc->id = id;
        cc->index = *index;
        return HEAPFMT_OK;
    }
    if (w->nclasses >= HEAPFMT_MAX_ID)
        return hf_wfail(w, HEAPFMT_E_LIMIT, 0, "more than %u classes",
                        HEAPFMT_MAX_ID);
    if (hf_grow(&w->al, (void **)&w->classes, &w->cclasses, w->nclasses + 1,
                sizeof *w->classes) < 0 ||
        hf_map_put(&w->class_ids, &w->al, id, (uint32_t)w->nclasses + 1) < 0)
        return hf_wfail(w, HEAPFMT_E_NOMEM, 0,
                        "out of memory for the class table");
    hf_wclass *c = &w->classes[w->nclasses++];
    memset(c, 0, sizeof *c);
    c->id = id;
    *index = (uint32_t)w->nclasses;
    *created = 1;
    cc->id = id;
    cc->index = *index;
    return HEAPFMT_OK;
}

int heapfmt_write_class(heapfmt_writer *w, const heapfmt_class *c)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!c || c->id == 0 || (c->flags & ~(uint64_t)HF_CLASS_FLAGS_KNOWN))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "%s",
                                 !c ? "NULL class"
                                 : c->id == 0 ? "class id 0 is reserved"
                                              : "unknown class flag bits"));
    uint32_t name = 0;
    if (c->name &&
        (rc = intern_string(w, c->name, c->name_len, &name)) != HEAPFMT_OK)
        return leave(w, rc);
    uint32_t index;
    int created;
    if ((rc = class_index(w, c->id, &index, &created)) != HEAPFMT_OK)
        return leave(w, rc);
    hf_wclass *k = &w->classes[index - 1];
    k->name = name;
    k->super_id = c->super_id;
    k->flags = c->flags;
    return leave(w, emit_class(w, index));
}

/* ---- OBJECT and ROOT ---- */

/* Says what is wrong with labels (check_labels found something). */
static int check_labels_slow(heapfmt_writer *w, const heapfmt_label *labels,
                             size_t n, size_t *written)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        const heapfmt_label *l = &labels[i];
        c += hf_label_written(l);
        if (l->kind > HEAPFMT_LABEL_OTHER || l->weak > 1)
            return hf_wfail(w, HEAPFMT_E_ARG, 0,
                            "label %zu: unknown kind %u or weak %u", i,
                            l->kind, l->weak);
        /* The label varint keeps 60 bits of value (spec 6.4.1). */
        if (l->kind == HEAPFMT_LABEL_INDEX &&
            hf_zigzag(l->value - (uint64_t)i) >> (64 - HF_LABEL_VALUE_SHIFT))
            return hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                            "label %zu: index %llu too far from its position "
                            "(2^%d)",
                            i, (unsigned long long)l->value,
                            63 - HF_LABEL_VALUE_SHIFT);
        if (l->kind != HEAPFMT_LABEL_INDEX &&
            l->kind != HEAPFMT_LABEL_NONE &&
            (l->value == 0 || l->value > w->strings.count))
            return hf_wfail(w, HEAPFMT_E_ARG, 0,
                            "label %zu: string id %llu was never defined", i,
                            (unsigned long long)l->value);
    }
    *written = c;
    return HEAPFMT_OK;
}

/* Whether the indexed form writes label i (hf_labels_encode_indexed):
 * 0 for an INDEX label whose index - position is *rel, that of the INDEX
 * label before it (0 before the first), and not weak. */
static inline unsigned indexed_written(const heapfmt_label *l, size_t i,
                                       uint64_t *rel)
{
    unsigned index = l->kind == HEAPFMT_LABEL_INDEX;
    uint64_t r = l->value - (uint64_t)i;
    unsigned written = !(index & !l->weak & (r == *rel));
    *rel = index ? r : *rel;
    return written;
}

/* The labels the indexed form writes: those it cannot leave out. */
static size_t indexed_count(const heapfmt_label *labels, size_t n)
{
    size_t c = 0;
    uint64_t rel = 0;
    for (size_t i = 0; i < n; i++)
        c += indexed_written(&labels[i], i, &rel);
    return c;
}

/* Counts the labels written in *written (indexed: in the indexed form),
 * and checks them: kinds, indexes in the varint's range, string ids
 * defined. The checks are or-ed together without a branch per label
 * (labels come by the million); the message is check_labels_slow's. */
static int check_labels(heapfmt_writer *w, const heapfmt_label *labels,
                        size_t n, int indexed, size_t *written)
{
    size_t c = 0;
    unsigned bad = 0;
    const uint64_t nstrings = w->strings.count;
    for (size_t i = 0; i < n; i++) {
        const heapfmt_label *l = &labels[i];
        unsigned index = l->kind == HEAPFMT_LABEL_INDEX;
        unsigned named = !index && l->kind != HEAPFMT_LABEL_NONE;
        c += hf_label_written(l);
        bad |= (l->kind > HEAPFMT_LABEL_OTHER) | (l->weak > 1);
        bad |= index & ((hf_zigzag(l->value - (uint64_t)i) >>
                         (64 - HF_LABEL_VALUE_SHIFT)) != 0);
        bad |= named & ((l->value == 0) | (l->value > nstrings));
    }
    if (bad)
        return check_labels_slow(w, labels, n, written);
    *written = indexed ? indexed_count(labels, n) : c;
    return HEAPFMT_OK;
}

/* The OBJECT record of o, checked (heapfmt_write_object) or vouched for
 * (hf_write_object_direct): nlabels the labels it writes. The field bits
 * written are o's less what has nothing to say (no label, no reference
 * to label). Caller holds busy. */
static inline int put_object(heapfmt_writer *w, const heapfmt_object *o,
                             size_t nlabels)
{
    int rc;
    uint32_t f = o->fields;
    if (nlabels == 0)
        f &= ~(uint32_t)HEAPFMT_F_LABELS; /* nothing to say: no cost */
    if (o->nrefs == 0) /* no reference to label */
        f &= ~(uint32_t)(HEAPFMT_F_LABELS | HEAPFMT_F_INDEXED);
    const size_t vlen = (f & HEAPFMT_F_VALUE) ? o->value_len : 0;
    const int indexed = (f & HEAPFMT_F_INDEXED) != 0;
    uint32_t cls = 0;
    const hf_class_cache *cc = class_cache_slot(w, o->class_id);
    if (cc->id == o->class_id) { /* id 0: an empty slot, index 0 */
        cls = cc->index;
    } else if (o->class_id != 0) {
        int created;
        if ((rc = class_index(w, o->class_id, &cls, &created)) != HEAPFMT_OK ||
            (created && (rc = emit_class(w, cls)) != HEAPFMT_OK))
            return rc;
    }
    size_t bound = HF_OBJECT_HEAD_BOUND + vlen +
                   hf_refs_bound(o->id, o->refs, o->nrefs);
    if (f & (HEAPFMT_F_STACK | HEAPFMT_F_LABELS))
        bound += HF_VARINT_MAX + (nlabels ? hf_labels_bound(nlabels) : 0);
    size_t hdr;
    uint8_t *p = begin_record(w, bound, &hdr);
    if (!p)
        return w->err.code;
    hf_object_rec rec;
    rec.id_delta = hf_zigzag(o->id - w->prev_id);
    rec.klass = cls;
    rec.type = o->type;
    rec.size = o->size;
    rec.fields = f;
    rec.flags = o->flags;
    rec.value = (const uint8_t *)o->value;
    rec.value_len = vlen;
    rec.file = o->file;
    rec.line = o->line;
    rec.generation = o->generation;
    rec.nrefs = o->nrefs;
    p = hf_object_head_encode(p, &rec);
    p = hf_refs_encode(p, o->id, o->refs, o->nrefs);
    if (f & HEAPFMT_F_STACK)
        p = hf_put_varint(p, o->stack);
    if (f & HEAPFMT_F_LABELS)
        p = indexed ? hf_labels_encode_indexed(p, o->labels, o->nrefs, nlabels)
                    : hf_labels_encode(p, o->labels, o->nrefs, nlabels);
    if ((rc = end_record(w, HEAPFMT_TAG_OBJECT, hdr, p)) != HEAPFMT_OK)
        return rc;
    w->prev_id = o->id;
    w->objects++;
    w->bytes += o->size;
    w->block_objects++;
    if (cls) {
        w->classes[cls - 1].count++;
        w->classes[cls - 1].bytes += o->size;
    } else {
        w->noclass_count++;
        w->noclass_bytes += o->size;
    }
    return HEAPFMT_OK;
}

int heapfmt_write_object(heapfmt_writer *w, const heapfmt_object *o)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!o)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL object"));
    uint32_t f = o->fields;
    size_t vlen = (f & HEAPFMT_F_VALUE) ? o->value_len : 0;
    if (f & ~(uint32_t)HEAPFMT_F_ALL)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "unknown field bits"));
    if (vlen > HEAPFMT_MAX_STRING)
        return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                 "value longer than %u bytes",
                                 HEAPFMT_MAX_STRING));
    if (o->nrefs > HEAPFMT_MAX_REFS)
        return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                 "more than %u references",
                                 HEAPFMT_MAX_REFS));
    if ((vlen && !o->value) || (o->nrefs && !o->refs))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "NULL value or refs with a nonzero length"));
    if ((rc = check_string_id(w, o->type, "type")) != HEAPFMT_OK ||
        ((f & HEAPFMT_F_SITE) &&
         (rc = check_string_id(w, o->file, "file")) != HEAPFMT_OK))
        return leave(w, rc);
    size_t nlabels = 0;
    const int indexed = (f & HEAPFMT_F_INDEXED) != 0;
    if (f & HEAPFMT_F_LABELS) {
        if (o->nrefs && !o->labels)
            return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL labels"));
        if ((rc = check_labels(w, o->labels, o->nrefs, indexed, &nlabels)) !=
            HEAPFMT_OK)
            return leave(w, rc);
    }
    if ((f & HEAPFMT_F_STACK) && (o->stack == 0 || o->stack > w->stacks.count))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "stack id %u was never defined", o->stack));
    return leave(w, put_object(w, o, nlabels));
}

/* The labels heapfmt_write_object writes, counted without its checks. */
static size_t written_count(const heapfmt_label *labels, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += (unsigned)hf_label_written(&labels[i]);
    return c;
}

int hf_write_object_direct(heapfmt_writer *w, const heapfmt_object *o)
{
    if (w->sticky | w->busy | w->finished)
        return heapfmt_write_object(w, o); /* which says why */
    w->busy = 1;
    size_t nlabels = 0;
    if (o->fields & HEAPFMT_F_LABELS)
        nlabels = (o->fields & HEAPFMT_F_INDEXED)
                      ? indexed_count(o->labels, o->nrefs)
                      : written_count(o->labels, o->nrefs);
    return leave(w, put_object(w, o, nlabels));
}

size_t heapfmt_object_refs_fit(const heapfmt_object *o)
{
    if (!o)
        return 0;
    uint32_t f = o->fields;
    size_t n = o->nrefs < HEAPFMT_MAX_REFS ? o->nrefs : HEAPFMT_MAX_REFS;
    size_t vlen = (f & HEAPFMT_F_VALUE) ? o->value_len : 0;
    const heapfmt_label *labels = (f & HEAPFMT_F_LABELS) ? o->labels : NULL;
    /* heapfmt_write_object's bound on the payload, with the tag and the
     * length in front, within a block; the stack and label count's varint
     * always counted. */
    const size_t room =
        HEAPFMT_MAX_BLOCK - 1 - hf_varint_len(HEAPFMT_MAX_BLOCK);
    size_t head = HF_OBJECT_HEAD_BOUND + HF_VARINT_MAX;
    if (vlen > room - head)
        return 0;
    head += vlen;
    if (!o->refs || head + n * HF_VARINT_MAX +
                            (labels ? hf_labels_bound(n) : 0) <= room)
        return n; /* every object but the largest: no pass over refs */
    /* The labels counted as the writer counts them: in the indexed form
     * (1.3), those the reader infers from their position cost nothing. */
    const int indexed = (f & HEAPFMT_F_INDEXED) != 0;
    size_t refs_len = 0, written = 0;
    uint64_t base = o->id, rel = 0;
    for (size_t k = 1; k <= n; k++) {
        refs_len += hf_varint_len(hf_zigzag(o->refs[k - 1] - base));
        base = o->refs[k - 1];
        if (labels)
            written += indexed ? indexed_written(&labels[k - 1], k - 1, &rel)
                               : (unsigned)hf_label_written(&labels[k - 1]);
        if (head + (k <= 256 ? k * HF_VARINT_MAX : refs_len) +
                (written ? hf_labels_bound(written) : 0) > room)
            return k - 1;
    }
    return n;
}

int heapfmt_write_root_labeled(heapfmt_writer *w, uint32_t kind,
                               const uint64_t *ids,
                               const heapfmt_label *labels, size_t n)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (n > HEAPFMT_MAX_REFS)
        return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                 "more than %u references",
                                 HEAPFMT_MAX_REFS));
    if (n && !ids)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL ids"));
    if ((rc = check_string_id(w, kind, "root kind")) != HEAPFMT_OK)
        return leave(w, rc);
    size_t nlabels = 0;
    if (labels) {
        if ((rc = check_labels(w, labels, n, 0, &nlabels)) != HEAPFMT_OK)
            return leave(w, rc);
    }
    size_t bound = HF_ROOT_HEAD_BOUND + hf_refs_bound(0, ids, n) +
                   (nlabels ? 1 + hf_labels_bound(nlabels) : 0);
    size_t hdr;
    uint8_t *p = begin_record(w, bound, &hdr);
    if (!p)
        return leave(w, w->err.code);
    hf_root_rec rec = {kind, n, NULL};
    p = hf_root_head_encode(p, &rec);
    p = hf_refs_encode(p, 0, ids, n);
    if (nlabels) {
        *p++ = HF_ROOT_F_LABELS;
        p = hf_labels_encode(p, labels, n, nlabels);
    }
    if ((rc = end_record(w, HEAPFMT_TAG_ROOT, hdr, p)) == HEAPFMT_OK)
        w->roots++;
    return leave(w, rc);
}

int heapfmt_write_root(heapfmt_writer *w, uint32_t kind, const uint64_t *ids,
                       size_t n)
{
    return heapfmt_write_root_labeled(w, kind, ids, NULL, n);
}

/* ---- LIFESPAN ---- */

int heapfmt_write_lifespan(heapfmt_writer *w, const heapfmt_lifespan *l)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!l)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "NULL lifespan"));
    if ((l->key & HF_LIFESPAN_KEYS_KNOWN) == 0 ||
        (l->key & ~HF_LIFESPAN_KEYS_KNOWN))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "a lifespan's key is a stack, a site or "
                                 "both, not 0x%x",
                                 l->key));
    if ((l->key & HEAPFMT_LIFESPAN_STACK) &&
        (l->stack == 0 || l->stack > w->stacks.count))
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "stack id %u was never defined", l->stack));
    if ((l->key & HEAPFMT_LIFESPAN_SITE) &&
        (rc = check_string_id(w, l->file, "lifespan file")) != HEAPFMT_OK)
        return leave(w, rc);
    hf_lifespan_rec rec = {l->key,
                           l->key & HEAPFMT_LIFESPAN_STACK ? l->stack : 0,
                           l->key & HEAPFMT_LIFESPAN_SITE ? l->file : 0,
                           l->key & HEAPFMT_LIFESPAN_SITE ? l->line : 0,
                           l->allocs, l->frees, l->alloc_bytes,
                           l->free_bytes, l->lifetime_us, l->oldest_us};
    size_t hdr;
    uint8_t *p = begin_record(w, HF_LIFESPAN_BOUND, &hdr);
    if (!p)
        return leave(w, w->err.code);
    return leave(w, end_record(w, HEAPFMT_TAG_LIFESPAN, hdr,
                               hf_lifespan_encode(p, &rec)));
}

/* ---- EVENTS (1.2) ---- */

/* The record whose events are already encoded (by hf_event_encode from
 * the state {seq0, time0}): the malloc recorder encodes each event as it
 * happens and hands whole lists over. Trusted: not checked again. */
int hf_write_events_encoded(heapfmt_writer *w, uint64_t thread, uint64_t seq0,
                            uint64_t time0, uint64_t count, const void *ev,
                            size_t len)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (count == 0 || count > HEAPFMT_MAX_EVENTS || !ev)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "an EVENTS record has 1 to %u events",
                                 HEAPFMT_MAX_EVENTS));
    size_t hdr;
    uint8_t *p = begin_record(w, HF_EVENTS_HEAD_BOUND + len, &hdr);
    if (!p)
        return leave(w, w->err.code);
    p = hf_events_head_encode(p, thread, seq0, time0, count);
    memcpy(p, ev, len);
    return leave(w, end_record(w, HEAPFMT_TAG_EVENTS, hdr, p + len));
}

int heapfmt_write_events(heapfmt_writer *w, uint32_t thread,
                         const heapfmt_event *ev, size_t n)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!ev || n == 0)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "no events"));
    if (n > HEAPFMT_MAX_EVENTS)
        return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                 "more than %u events in one record",
                                 HEAPFMT_MAX_EVENTS));
    if (ev[0].seq == 0)
        return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0,
                                 "event 0: sequence number 0"));
    /* canonical: the first event has no gap and no time delta */
    hf_event_state s0 = {ev[0].seq - 1, ev[0].time_us}, s = s0;
    for (size_t i = 0; i < n; i++) {
        const char *why = hf_event_check(&s, thread, &ev[i]);
        if (why)
            return leave(w, hf_wfail(w, HEAPFMT_E_ARG, 0, "event %zu: %s",
                                     i, why));
        s.seq = ev[i].seq;
        s.time = ev[i].time_us;
    }
    if (n > (HEAPFMT_MAX_BLOCK - HF_EVENTS_HEAD_BOUND) / HF_EVENT_BOUND)
        return leave(w, hf_wfail(w, HEAPFMT_E_LIMIT, 0,
                                 "%zu events may not fit a block", n));
    size_t hdr;
    uint8_t *p = begin_record(w, HF_EVENTS_HEAD_BOUND + n * HF_EVENT_BOUND,
                              &hdr);
    if (!p)
        return leave(w, w->err.code);
    p = hf_events_head_encode(p, thread, s0.seq, s0.time, n);
    s = s0;
    for (size_t i = 0; i < n; i++)
        p = hf_event_encode(p, &s, &ev[i]);
    return leave(w, end_record(w, HEAPFMT_TAG_EVENTS, hdr, p));
}

/* ---- flush, finish ---- */

int heapfmt_writer_flush(heapfmt_writer *w)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (w->len > 0)
        rc = hf_emit_block(w, HF_KIND_DATA);
    if (rc == HEAPFMT_OK)
        rc = hf_drain_blocks(w);
    return leave(w, rc);
}

static int write_summary(heapfmt_writer *w, const hf_summary_rec *s)
{
    size_t hdr;
    uint8_t *p = begin_record(w, hf_summary_bound(s->name_len), &hdr);
    if (!p)
        return w->err.code;
    return end_record(w, HEAPFMT_TAG_SUMMARY, hdr, hf_summary_encode(p, s));
}

static int write_footer(heapfmt_writer *w, uint64_t records)
{
    int rc;
    if ((rc = hf_drain_blocks(w)) != HEAPFMT_OK) /* all blocks indexed */
        return rc;
    w->kind = HF_KIND_FOOTER;
    w->block_size = HEAPFMT_MAX_BLOCK; /* the footer is one block */
    heapfmt_totals t = {w->objects,  w->bytes,         records,
                        w->nclasses, w->strings.count, w->roots,
                        w->nblocks,  w->raw_bytes,     w->codecs};
    size_t hdr;
    uint8_t *p = begin_record(w, HF_TOTALS_BOUND, &hdr);
    if (!p || (rc = end_record(w, HEAPFMT_TAG_TOTALS, hdr,
                               hf_totals_encode(p, &t))) != HEAPFMT_OK)
        return w->err.code;
    p = begin_record(w, hf_blocks_bound(w->nblocks), &hdr);
    if (!p || (rc = end_record(w, HEAPFMT_TAG_BLOCKS, hdr,
                               hf_blocks_encode(p, w->blocks, w->nblocks))) !=
                  HEAPFMT_OK)
        return w->err.code;
    if (w->noclass_count) {
        hf_summary_rec s = {0, 0, 0, w->noclass_count, w->noclass_bytes,
                            NULL, 0};
        if ((rc = write_summary(w, &s)) != HEAPFMT_OK)
            return rc;
    }
    for (size_t i = 0; i < w->nclasses; i++) {
        const hf_wclass *c = &w->classes[i];
        hf_summary_rec s = {i + 1, c->id, c->flags, c->count, c->bytes,
                            NULL, 0};
        if (c->name)
            s.name = (const uint8_t *)hf_strtab_text(&w->strings, c->name,
                                                     &s.name_len);
        if ((rc = write_summary(w, &s)) != HEAPFMT_OK)
            return rc;
    }
    hf_trailer tr = {w->offset, 0};
    if ((rc = hf_emit_block(w, HF_KIND_FOOTER)) != HEAPFMT_OK)
        return rc;
    uint8_t out[HF_TRAILER_SIZE];
    hf_trailer_encode(out, &tr);
    return hf_sink(w, out, sizeof out);
}

int heapfmt_writer_finish(heapfmt_writer *w)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK) {
        if (w && rc != HEAPFMT_E_STATE)
            hf_writer_close_target(w, 0);
        return rc;
    }
    hf_end_rec end = {w->objects, w->bytes, w->records};
    size_t hdr;
    uint8_t *p = begin_record(w, HF_END_BOUND, &hdr);
    rc = p ? end_record(w, HEAPFMT_TAG_END, hdr, hf_end_encode(p, &end))
           : w->err.code;
    if (rc == HEAPFMT_OK && (rc = hf_emit_block(w, HF_KIND_DATA)) == HEAPFMT_OK)
        rc = write_footer(w, end.records);
    if (rc != HEAPFMT_OK && !w->sticky)
        w->sticky = rc; /* a half-written footer cannot be continued */
    int crc = hf_writer_close_target(w, rc == HEAPFMT_OK);
    if (rc == HEAPFMT_OK && crc != HEAPFMT_OK)
        rc = crc;
    w->finished = 1;
    return leave(w, rc);
}

const heapfmt_error *heapfmt_writer_error(const heapfmt_writer *w)
{
    return &w->err;
}

uint64_t heapfmt_writer_offset(const heapfmt_writer *w)
{
    return w ? w->offset : 0;
}
