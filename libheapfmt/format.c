/* format.c -- encoders and decoders of the records off the per-object path
 * (spec/FORMAT.md sections 4-8, in that order). */
#include "format.h"

#define GET(v)                                      \
    do {                                            \
        int rc_ = hf_get_varint(&q, qe, &(v));      \
        if (rc_ < 0)                                \
            return hf_varint_why(rc_);              \
    } while (0)

/* Encodes n varints, in order (the records whose fields are all varints). */
static uint8_t *put_varints(uint8_t *p, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p = hf_put_varint(p, v[i]);
    return p;
}

/* Decodes n varints into *v[0], ... *v[n - 1]; *q advances past them. */
static const char *get_varints(const uint8_t **q, const uint8_t *qe,
                               uint64_t *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (hf_get_varint(q, qe, v[i]) < 0)
            return "truncated field";
    return NULL;
}

/* ---- 4. File header ---- */

void hf_file_header_encode(uint8_t out[HF_HEADER_SIZE], const hf_file_header *h)
{
    memcpy(out, HF_MAGIC, 8);
    out[8] = h->major;
    out[9] = h->minor;
    hf_put_u16(out + 10, h->flags);
    hf_put_u32(out + 12, hf_crc32(out, 12));
}

const char *hf_file_header_decode(const uint8_t in[HF_HEADER_SIZE],
                                  hf_file_header *h)
{
    if (hf_crc32(in, 12) != hf_get_u32(in + 12))
        return "file header fails its checksum";
    h->major = in[8];
    h->minor = in[9];
    h->flags = hf_get_u16(in + 10);
    return NULL;
}

/* ---- 5. Block header ---- */

void hf_block_header_encode(uint8_t out[HF_BLOCK_HEADER_SIZE],
                            const hf_block_header *b)
{
    out[0] = b->kind;
    out[1] = b->codec;
    hf_put_u16(out + 2, b->reserved);
    hf_put_u32(out + 4, b->raw_len);
    hf_put_u32(out + 8, b->stored_len);
    hf_put_u32(out + 12, b->data_crc);
    hf_put_u32(out + 16, hf_crc32(out, 16));
}

int hf_block_header_decode(const uint8_t in[HF_BLOCK_HEADER_SIZE], int strict,
                           hf_block_header *b)
{
    if (hf_crc32(in, 16) != hf_get_u32(in + 16))
        return HF_BLOCK_BAD_CRC;
    b->kind = in[0];
    b->codec = in[1];
    b->reserved = hf_get_u16(in + 2);
    b->raw_len = hf_get_u32(in + 4);
    b->stored_len = hf_get_u32(in + 8);
    b->data_crc = hf_get_u32(in + 12);
    if (b->raw_len == 0 || b->raw_len > HEAPFMT_MAX_BLOCK ||
        b->stored_len == 0 || b->stored_len > HEAPFMT_MAX_BLOCK)
        return HF_BLOCK_BAD_LENGTHS;
    if (b->reserved != 0 && strict)
        return HF_BLOCK_RESERVED;
    if (b->codec > HF_CODEC_LAST)
        return HF_BLOCK_BAD_CODEC;
    uint64_t raw = b->raw_len, stored = b->stored_len;
    if ((b->codec == HF_CODEC_STORED && stored != raw) ||
        (b->codec == HF_CODEC_DEFLATE &&
         raw > stored * HF_DEFLATE_MAX_RATIO + HF_DEFLATE_MAX_SLACK) ||
        (b->codec == HF_CODEC_ZSTD && raw > stored * HF_ZSTD_MAX_RATIO))
        return HF_BLOCK_INCONSISTENT;
    return HF_BLOCK_OK;
}

/* ---- 6.1 META ---- */

int hf_meta_key_valid(const uint8_t *k, size_t n)
{
    if (n == 0 || n > HF_META_KEY_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

size_t hf_meta_bound(const hf_meta *m)
{
    return 1 + HF_VARINT_MAX + m->key_len + HF_VARINT_MAX + m->text_len;
}

uint8_t *hf_meta_encode(uint8_t *p, const hf_meta *m)
{
    *p++ = (uint8_t)m->type;
    p = hf_put_varint(p, m->key_len);
    memcpy(p, m->key, m->key_len);
    p += m->key_len;
    if (m->type == HEAPFMT_META_TEXT) {
        if (m->text_len)
            memcpy(p, m->text, m->text_len);
        return p + m->text_len;
    }
    return hf_put_varint(p, m->num);
}

const char *hf_meta_decode(const uint8_t *q, const uint8_t *qe, hf_meta *m,
                           int *known)
{
    uint64_t klen;
    *known = 1;
    if (q >= qe)
        return "empty META record";
    m->type = *q++;
    GET(klen);
    if (klen > (uint64_t)(qe - q) || !hf_meta_key_valid(q, (size_t)klen))
        return "invalid META key";
    m->key = q;
    m->key_len = (size_t)klen;
    q += klen;
    m->text = NULL;
    m->text_len = 0;
    m->num = 0;
    if (m->type == HEAPFMT_META_TEXT) {
        m->text = q;
        m->text_len = (size_t)(qe - q);
        if (m->text_len > HEAPFMT_MAX_STRING)
            return "META value longer than the limit";
    } else if (m->type == HEAPFMT_META_UINT || m->type == HEAPFMT_META_INT) {
        GET(m->num);
    } else {
        *known = 0; /* a value type of a later version */
    }
    return NULL;
}

/* ---- 6.2 STRING ---- */

uint8_t *hf_string_encode(uint8_t *p, const hf_string_rec *s)
{
    p = hf_put_varint(p, s->id);
    if (s->len)
        memcpy(p, s->text, s->len);
    return p + s->len;
}

const char *hf_string_decode(const uint8_t *q, const uint8_t *qe,
                             hf_string_rec *s)
{
    GET(s->id);
    if ((uint64_t)(qe - q) > HEAPFMT_MAX_STRING)
        return "string longer than the limit";
    s->text = q;
    s->len = (size_t)(qe - q);
    return NULL;
}

/* ---- 6.3 CLASS ---- */

uint8_t *hf_class_encode(uint8_t *p, const hf_class_rec *c)
{
    const uint64_t v[5] = {c->index, c->id, c->name, c->super_id, c->flags};
    return put_varints(p, v, 5);
}

const char *hf_class_decode(const uint8_t *q, const uint8_t *qe,
                            hf_class_rec *c)
{
    uint64_t *const v[5] = {&c->index, &c->id, &c->name, &c->super_id,
                            &c->flags};
    return get_varints(&q, qe, v, 5);
}

/* ---- 6.4 OBJECT: references, labels, tail ---- */

size_t hf_refs_len(uint64_t base, const uint64_t *ids, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len += hf_varint_len(hf_zigzag(ids[i] - base));
        base = ids[i];
    }
    return len;
}

const char *hf_refs_decode(const uint8_t **pp, const uint8_t *qe,
                           uint64_t base, uint64_t n, uint64_t *ids)
{
    const uint8_t *q = *pp;
    uint64_t v;
    for (uint64_t i = 0; i < n; i++) {
        if (hf_get_varint(&q, qe, &v) < 0)
            return "references do not decode";
        base += hf_unzigzag(v);
        if (ids)
            ids[i] = base;
    }
    *pp = q;
    return NULL;
}

uint8_t *hf_labels_encode(uint8_t *p, const heapfmt_label *labels, size_t n,
                          size_t count)
{
    p = hf_put_varint(p, count);
    size_t next = 0; /* position after the previous written label */
    for (size_t i = 0; i < n; i++) {
        const heapfmt_label *l = &labels[i];
        if (!hf_label_written(l))
            continue;
        /* An index is stored relative to the reference's position, so
         * that an array labeled in order costs one byte per label. */
        uint64_t value = l->kind == HEAPFMT_LABEL_INDEX
                             ? hf_zigzag(l->value - (uint64_t)i)
                             : l->value;
        p = hf_put_varint(p, i - next);
        p = hf_put_varint(p, value << HF_LABEL_VALUE_SHIFT |
                                 (l->weak ? HF_LABEL_WEAK : 0) | l->kind);
        next = i + 1;
    }
    return p;
}

uint8_t *hf_labels_encode_indexed(uint8_t *p, const heapfmt_label *labels,
                                  size_t n, size_t count)
{
    p = hf_put_varint(p, count);
    size_t next = 0;  /* position after the previous written label */
    uint64_t rel = 0; /* index - position of the previous INDEX label */
    for (size_t i = 0; i < n; i++) {
        const heapfmt_label *l = &labels[i];
        uint64_t value = l->value;
        if (l->kind == HEAPFMT_LABEL_INDEX) {
            uint64_t r = l->value - (uint64_t)i;
            if (r == rel && !l->weak)
                continue; /* the reader infers it */
            rel = r;
            value = hf_zigzag(r);
        }
        p = hf_put_varint(p, i - next);
        p = hf_put_varint(p, value << HF_LABEL_VALUE_SHIFT |
                                 (l->weak ? HF_LABEL_WEAK : 0) | l->kind);
        next = i + 1;
    }
    return p;
}

const char *hf_object_tail_decode(const uint8_t *refs, const uint8_t *qe,
                                  uint64_t n, uint32_t fields,
                                  hf_object_tail *t)
{
    const uint8_t *q = refs;
    const char *why = hf_refs_decode(&q, qe, 0, n, NULL);
    if (why)
        return why;
    t->stack = 0;
    t->labels = NULL;
    if (fields & HEAPFMT_F_STACK) {
        GET(t->stack);
        if (t->stack == 0 || t->stack > HEAPFMT_MAX_ID)
            return "stack id out of range";
    }
    if (fields & HEAPFMT_F_LABELS)
        t->labels = q;
    return NULL;
}

/* ---- 6.5 ROOT ---- */

uint8_t *hf_root_head_encode(uint8_t *p, const hf_root_rec *r)
{
    p = hf_put_varint(p, r->kind);
    return hf_put_varint(p, r->nrefs);
}

const char *hf_root_head_decode(const uint8_t *q, const uint8_t *qe,
                                hf_root_rec *r)
{
    GET(r->kind);
    GET(r->nrefs);
    if (r->nrefs > HEAPFMT_MAX_REFS || r->nrefs > (uint64_t)(qe - q))
        return "reference count out of range";
    r->refs = q;
    return NULL;
}

const char *hf_root_tail_decode(const uint8_t *refs, const uint8_t *qe,
                                uint64_t n, int strict,
                                const uint8_t **labels)
{
    const uint8_t *q = refs;
    const char *why = hf_refs_decode(&q, qe, 0, n, NULL);
    *labels = NULL;
    if (why)
        return why;
    if (q == qe)
        return NULL; /* no fields byte: a 1.0 ROOT, or no labels */
    unsigned f = *q++;
    if ((f & ~HF_ROOT_F_LABELS) && strict)
        return "reserved ROOT field bits set";
    if (f & HF_ROOT_F_LABELS)
        *labels = q;
    return NULL;
}

/* ---- 6.6 END ---- */

uint8_t *hf_end_encode(uint8_t *p, const hf_end_rec *e)
{
    p = hf_put_varint(p, e->objects);
    p = hf_put_varint(p, e->bytes);
    return hf_put_varint(p, e->records);
}

const char *hf_end_decode(const uint8_t *q, const uint8_t *qe, hf_end_rec *e)
{
    GET(e->objects);
    GET(e->bytes);
    GET(e->records);
    return NULL;
}

/* ---- 6.7 FRAME ---- */

uint8_t *hf_frame_encode(uint8_t *p, const hf_frame_rec *f)
{
    const uint64_t v[6] = {f->id,     f->function, f->library,
                           f->offset, f->file,     f->line};
    return put_varints(p, v, 6);
}

const char *hf_frame_decode(const uint8_t *q, const uint8_t *qe,
                            hf_frame_rec *f)
{
    uint64_t *const v[6] = {&f->id,     &f->function, &f->library,
                            &f->offset, &f->file,     &f->line};
    const char *why = get_varints(&q, qe, v, 6);
    if (why)
        return why;
    if (f->id == 0 || f->id > HEAPFMT_MAX_ID)
        return "frame id out of range";
    return NULL;
}

/* ---- 6.8 STACK ---- */

uint8_t *hf_stack_encode(uint8_t *p, uint64_t id, const uint32_t *frames,
                         size_t n)
{
    p = hf_put_varint(p, id);
    p = hf_put_varint(p, n);
    for (size_t i = 0; i < n; i++)
        p = hf_put_varint(p, frames[i]);
    return p;
}

const char *hf_stack_decode(const uint8_t *q, const uint8_t *qe,
                            hf_stack_rec *s)
{
    GET(s->id);
    GET(s->nframes);
    if (s->id == 0 || s->id > HEAPFMT_MAX_ID)
        return "stack id out of range";
    if (s->nframes == 0 || s->nframes > HEAPFMT_MAX_FRAMES ||
        s->nframes > (uint64_t)(qe - q))
        return "frame count out of range";
    s->frames = q;
    for (uint64_t i = 0; i < s->nframes; i++) {
        uint64_t f;
        GET(f);
        if (f == 0 || f > HEAPFMT_MAX_ID)
            return "frame id out of range";
    }
    return NULL;
}

/* ---- 6.9 LIFESPAN ---- */

uint8_t *hf_lifespan_encode(uint8_t *p, const hf_lifespan_rec *l)
{
    *p++ = (uint8_t)l->key;
    if (l->key & HEAPFMT_LIFESPAN_STACK)
        p = hf_put_varint(p, l->stack);
    if (l->key & HEAPFMT_LIFESPAN_SITE) {
        p = hf_put_varint(p, l->file);
        p = hf_put_varint(p, l->line);
    }
    const uint64_t v[6] = {l->allocs,     l->frees,    l->alloc_bytes,
                           l->free_bytes, l->lifetime, l->oldest};
    return put_varints(p, v, 6);
}

const char *hf_lifespan_decode(const uint8_t *q, const uint8_t *qe,
                               int strict, hf_lifespan_rec *l)
{
    if (q >= qe)
        return "truncated LIFESPAN";
    l->key = *q++;
    if ((l->key & HF_LIFESPAN_KEYS_KNOWN) == 0)
        return "LIFESPAN names neither a stack nor a site";
    if ((l->key & ~HF_LIFESPAN_KEYS_KNOWN) && strict)
        return "reserved LIFESPAN key bits set";
    l->stack = l->file = l->line = 0;
    if (l->key & HEAPFMT_LIFESPAN_STACK) {
        GET(l->stack);
        if (l->stack == 0 || l->stack > HEAPFMT_MAX_ID)
            return "stack id out of range";
    }
    if (l->key & HEAPFMT_LIFESPAN_SITE) {
        GET(l->file);
        GET(l->line);
        if (l->file > HEAPFMT_MAX_ID)
            return "string id out of range";
    }
    uint64_t *const v[6] = {&l->allocs,     &l->frees,    &l->alloc_bytes,
                            &l->free_bytes, &l->lifetime, &l->oldest};
    return get_varints(&q, qe, v, 6);
}

/* ---- 6.10 EVENTS (1.2) ---- */

const char *hf_event_check(const hf_event_state *s, uint64_t thread,
                           const heapfmt_event *e)
{
    if (e->op > 15 || hf_event_fields(e->op) == 0)
        return "reserved event operation";
    if ((e->op == HEAPFMT_EV_MARK) != (thread == 0))
        return thread == 0 ? "a thread-0 record holds MARK events only"
                           : "a MARK event in a program thread's record";
    if (e->seq <= s->seq)
        return "sequence numbers do not increase";
    if (e->time_us < s->time || e->time_us - s->time > HF_EV_DT_MAX)
        return "event time out of order";
    unsigned f = hf_event_fields(e->op);
    if ((f & HF_EV_F_BLOCK) && e->block >= e->seq)
        return "block number not below the event's sequence number";
    if (e->op == HEAPFMT_EV_FREE && e->block == 0)
        return "FREE of block 0";
    return NULL;
}

uint8_t *hf_events_head_encode(uint8_t *p, uint64_t thread, uint64_t seq0,
                               uint64_t time0, uint64_t count)
{
    p = hf_put_varint(p, thread);
    p = hf_put_varint(p, seq0);
    p = hf_put_varint(p, time0);
    return hf_put_varint(p, count);
}

const char *hf_event_decode(const uint8_t **pp, const uint8_t *qe,
                            hf_event_state *s, uint64_t thread,
                            heapfmt_event *e)
{
    const uint8_t *q = *pp;
    uint64_t head, gap = 0, dist = 0;
    GET(head);
    unsigned op = (unsigned)(head & HF_EV_OP_MASK);
    unsigned f = hf_event_fields(op);
    if (f == 0)
        return "reserved event operation";
    if ((op == HEAPFMT_EV_MARK) != (thread == 0))
        return thread == 0 ? "a thread-0 record holds MARK events only"
                           : "a MARK event in a program thread's record";
    if (head & HF_EV_GAP)
        GET(gap);
    uint64_t dt = head >> HF_EV_DT_SHIFT;
    if (gap >= UINT64_MAX - s->seq || dt > UINT64_MAX - s->time)
        return "event numbers or times overflow";
    memset(e, 0, sizeof *e);
    e->op = op;
    e->seq = s->seq + 1 + gap;
    e->time_us = s->time + dt;
    if (f & HF_EV_F_BLOCK) {
        GET(dist);
        if (dist >= e->seq || (dist == 0 && op == HEAPFMT_EV_FREE))
            return "event names a block out of range";
        e->block = dist ? e->seq - dist : 0;
    }
    if (f & HF_EV_F_ALIGN)
        GET(e->align);
    if (f & HF_EV_F_SIZE)
        GET(e->size);
    if (f & HF_EV_F_MARK) {
        GET(e->rss);
        GET(e->peak);
        GET(e->own);
    }
    s->seq = e->seq;
    s->time = e->time_us;
    *pp = q;
    return NULL;
}

const char *hf_events_decode(const uint8_t *q, const uint8_t *qe,
                             hf_events_rec *r)
{
    GET(r->thread);
    GET(r->seq0);
    GET(r->time0);
    GET(r->count);
    if (r->thread > HEAPFMT_MAX_ID)
        return "thread number out of range";
    /* every event takes two bytes at least (a head and a field) */
    if (r->count == 0 || r->count > HEAPFMT_MAX_EVENTS ||
        r->count > (uint64_t)(qe - q) / 2)
        return "event count out of range";
    r->events = q;
    hf_event_state s = {r->seq0, r->time0};
    heapfmt_event e;
    for (uint64_t i = 0; i < r->count; i++) {
        const char *why = hf_event_decode(&q, qe, &s, r->thread, &e);
        if (why)
            return why;
        if (i == 0) {
            r->first_seq = e.seq;
            r->first_time = e.time_us;
        }
    }
    r->end = q;
    r->last_seq = s.seq;
    r->last_time = s.time;
    return NULL;
}

/* ---- 7.1 TOTALS ---- */

uint8_t *hf_totals_encode(uint8_t *p, const heapfmt_totals *t)
{
    const uint64_t v[9] = {t->objects, t->bytes,  t->records,
                           t->classes, t->strings, t->roots,
                           t->blocks,  t->raw_bytes, t->codecs};
    return put_varints(p, v, 9);
}

const char *hf_totals_decode(const uint8_t *q, const uint8_t *qe, int minor,
                             heapfmt_totals *t)
{
    uint64_t v[9] = {0};
    for (size_t i = 0; i < HF_TOTALS_FIELDS_1_0; i++)
        if (hf_get_varint(&q, qe, &v[i]) < 0)
            return "TOTALS truncated";
    if (minor >= 1 && hf_get_varint(&q, qe, &v[8]) < 0) /* 1.1: codecs */
        return "TOTALS truncated";
    *t = (heapfmt_totals){v[0], v[1], v[2], v[3], v[4],
                          v[5], v[6], v[7], v[8]};
    return NULL;
}

/* ---- 7.2 BLOCKS ---- */

uint8_t *hf_blocks_encode(uint8_t *p, const heapfmt_block_entry *e, size_t n)
{
    p = hf_put_varint(p, n);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        p = hf_put_varint(p, e[i].offset - prev);
        p = hf_put_varint(p, e[i].records);
        p = hf_put_varint(p, e[i].objects);
        prev = e[i].offset;
    }
    return p;
}

const char *hf_blocks_count_decode(const uint8_t **pp, const uint8_t *qe,
                                   uint64_t *count)
{
    const uint8_t *q = *pp;
    if (hf_get_varint(&q, qe, count) < 0 || *count > (uint64_t)(qe - q) / 3)
        return "block index out of range";
    *pp = q;
    return NULL;
}

const char *hf_blocks_entry_decode(const uint8_t **pp, const uint8_t *qe,
                                   uint64_t *at, heapfmt_block_entry *e)
{
    const uint8_t *q = *pp;
    uint64_t delta;
    if (hf_get_varint(&q, qe, &delta) < 0 ||
        hf_get_varint(&q, qe, &e->records) < 0 ||
        hf_get_varint(&q, qe, &e->objects) < 0)
        return "block index truncated";
    *at += delta;
    e->offset = *at;
    *pp = q;
    return NULL;
}

/* ---- 7.3 SUMMARY ---- */

uint8_t *hf_summary_encode(uint8_t *p, const hf_summary_rec *s)
{
    const uint64_t v[6] = {s->index, s->id,    s->flags,
                           s->count, s->bytes, s->name_len};
    p = put_varints(p, v, 6);
    if (s->name_len)
        memcpy(p, s->name, s->name_len);
    return p + s->name_len;
}

const char *hf_summary_decode(const uint8_t *q, const uint8_t *qe,
                              hf_summary_rec *s)
{
    uint64_t nlen;
    if (hf_get_varint(&q, qe, &s->index) < 0 ||
        hf_get_varint(&q, qe, &s->id) < 0 ||
        hf_get_varint(&q, qe, &s->flags) < 0 ||
        hf_get_varint(&q, qe, &s->count) < 0 ||
        hf_get_varint(&q, qe, &s->bytes) < 0 ||
        hf_get_varint(&q, qe, &nlen) < 0 || nlen > (uint64_t)(qe - q) ||
        s->index > HEAPFMT_MAX_ID)
        return "bad class summary";
    s->name = q;
    s->name_len = (size_t)nlen;
    return NULL;
}

/* ---- 8. Trailer ---- */

void hf_trailer_encode(uint8_t out[HF_TRAILER_SIZE], const hf_trailer *t)
{
    hf_put_u64(out, t->footer_offset);
    hf_put_u32(out + 8, t->reserved);
    hf_put_u32(out + 12, hf_crc32(out, 12));
    memcpy(out + 16, HF_END_MAGIC, 8);
}

const char *hf_trailer_decode(const uint8_t in[HF_TRAILER_SIZE], int strict,
                              hf_trailer *t)
{
    if (memcmp(in + 16, HF_END_MAGIC, 8) != 0)
        return "no end magic";
    if (hf_crc32(in, 12) != hf_get_u32(in + 12))
        return "trailer fails its checksum";
    t->footer_offset = hf_get_u64(in);
    t->reserved = hf_get_u32(in + 8);
    if (t->reserved != 0 && strict)
        return "trailer has reserved bits set";
    return NULL;
}
