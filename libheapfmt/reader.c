/* reader.c -- the streaming reader: blocks in, records out. */
#include <errno.h>
#include <stdio.h>

#include "reader_internal.h"

/* ---- blocks ---- */

/* A data block turned out bad: count it and go on with the next one. */
static int skip_block(heapfmt_reader *r)
{
    r->corrupt_blocks++;
    r->block_no++;
    r->state = HF_R_BLOCK;
    return HEAPFMT_E_CORRUPT;
}

static int read_trailer(heapfmt_reader *r, uint64_t footer_offset)
{
    uint8_t t[HF_TRAILER_SIZE + 1];
    size_t got;
    uint64_t at = r->pos;
    int rc = hf_read_full(r, t, sizeof t, &got);
    if (rc != HEAPFMT_OK)
        return hf_rstop(r, rc);
    if (got < HF_TRAILER_SIZE)
        return hf_rfatal(r, HEAPFMT_E_TRUNCATED, 0, at,
                         "dump is truncated inside its trailer; all %llu "
                         "records were read",
                         (unsigned long long)r->delivered);
    hf_trailer tr;
    const char *why = hf_trailer_decode(t, r->strict, &tr);
    if (why || tr.footer_offset != footer_offset)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, at,
                         "invalid trailer at offset %llu: %s",
                         (unsigned long long)at,
                         why ? why : "it does not point at the footer");
    if (got > HF_TRAILER_SIZE)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, at + HF_TRAILER_SIZE,
                         "unexpected data after the end of the dump");
    return HEAPFMT_OK;
}

static int read_footer_block(heapfmt_reader *r, const hf_block_header *b,
                             uint64_t offset)
{
    if (r->partial && r->range_end != UINT64_MAX)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, offset,
                         "footer block at offset %llu inside the range that "
                         "ends at %llu",
                         (unsigned long long)offset,
                         (unsigned long long)r->range_end);
    if (r->partial) { /* a reader moved to a block ends at the footer */
        r->state = HF_R_DONE;
        return HEAPFMT_OK;
    }
    if (r->corrupt_blocks)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, offset,
                         "dump is incomplete: %llu corrupt block(s) were "
                         "skipped",
                         (unsigned long long)r->corrupt_blocks);
    if (!r->seen_end)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, offset,
                         "footer at offset %llu comes before the END record",
                         (unsigned long long)offset);
    int rc = hf_block_payload(r, b, offset, &r->raw, &r->raw_cap);
    if (rc == HEAPFMT_OK)
        rc = hf_footer_parse(r, r->raw, b->raw_len, offset);
    if (rc != HEAPFMT_OK)
        return hf_rstop(r, rc);
    const heapfmt_totals *t = &r->footer.totals;
    if (t->objects != r->end.objects || t->bytes != r->end.bytes ||
        t->records != r->end.records || t->blocks != r->blocks_done ||
        t->raw_bytes != r->raw_bytes ||
        r->footer.nblocks != r->blocks_done ||
        (t->codecs != 0 && t->codecs != r->codecs))
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, offset,
                         "footer totals disagree with the dump");
    if ((rc = read_trailer(r, offset)) != HEAPFMT_OK)
        return rc;
    r->have_footer = 1;
    r->state = HF_R_DONE;
    return HEAPFMT_OK;
}

/* Reads the next block header and payload. */
static int load_block(heapfmt_reader *r)
{
    uint64_t offset = r->pos;
    hf_block_header b;
    size_t got;
    int fatal;
    if (r->partial && offset >= r->range_end) { /* heapfmt_reader_seek_range */
        if (offset > r->range_end)
            return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                             "the block at offset %llu runs past the end "
                             "of its range, offset %llu",
                             (unsigned long long)r->block_offset,
                             (unsigned long long)r->range_end);
        r->state = HF_R_DONE;
        return HEAPFMT_OK;
    }
    int rc = hf_block_read_header(r, offset, &b, &got, &fatal);
    if (rc == HEAPFMT_E_TRUNCATED)
        return hf_rfatal(r, HEAPFMT_E_TRUNCATED, 0, offset,
                         "dump is truncated at offset %llu (%s): %llu "
                         "records in %llu complete blocks were read",
                         (unsigned long long)(offset + got),
                         !r->seen_end ? "no END record" : "no footer",
                         (unsigned long long)r->delivered,
                         (unsigned long long)r->blocks_done);
    if (rc != HEAPFMT_OK && (fatal || rc != HEAPFMT_E_CORRUPT))
        return hf_rstop(r, rc);
    if (rc != HEAPFMT_OK) { /* a bad block whose length can be trusted */
        heapfmt_error why = r->err;
        if ((rc = hf_block_skip(r, &b, offset)) != HEAPFMT_OK)
            return hf_rstop(r, rc);
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset, "%s; it was skipped",
                 why.message);
        if (b.kind == HF_KIND_DATA)
            return skip_block(r);
        r->corrupt_blocks++; /* a bad block of another kind: still a loss */
        return HEAPFMT_E_CORRUPT;
    }
    if (b.kind == HF_KIND_FOOTER)
        return read_footer_block(r, &b, offset);
    if (b.kind != HF_KIND_DATA) { /* unknown kind: skip it whole */
        if ((rc = hf_block_skip(r, &b, offset)) != HEAPFMT_OK)
            return hf_rstop(r, rc);
        return HEAPFMT_OK;
    }
    if (r->seen_end)
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, offset,
                         "data block at offset %llu after the END record",
                         (unsigned long long)offset);
    r->block_offset = offset;
    rc = hf_block_payload(r, &b, offset, &r->raw, &r->raw_cap);
    if (rc == HEAPFMT_E_CORRUPT)
        return skip_block(r);
    if (rc != HEAPFMT_OK)
        return hf_rstop(r, rc);
    r->raw_len = b.raw_len;
    r->raw_bytes += b.raw_len;
    r->stored_bytes += b.stored_len;
    r->codecs |= 1ull << b.codec;
    r->rpos = 0;
    r->prev_id = 0;
    r->state = HF_R_IN;
    return HEAPFMT_OK;
}

/* ---- records ---- */

/* Per-object id lookups, inlined for the dense ids writers produce; the
 * table functions handle the rest (0, far ids, undefined ones). */
static inline int class_ref(heapfmt_reader *r, uint64_t index,
                            const heapfmt_rclass **out)
{
    uint32_t v;
    if (index < r->class_ids.ndirect && (v = r->class_ids.direct[index])) {
        *out = r->classes[v - 1];
        return HEAPFMT_OK;
    }
    return hf_class_ref(r, index, out);
}

static inline int string_ref(heapfmt_reader *r, uint64_t id, int shared,
                             const heapfmt_rstring **out)
{
    uint32_t v;
    if (id < r->string_ids.ndirect && (v = r->string_ids.direct[id]) &&
        v - 1 != HF_STRING_DROPPED) {
        *out = r->strings[v - 1];
        return HEAPFMT_OK;
    }
    return hf_string_ref(r, id, shared, out);
}

static int bad(heapfmt_reader *r, uint64_t index, const char *what)
{
    hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
             "record %llu in the block at offset %llu: %s",
             (unsigned long long)index, (unsigned long long)r->block_offset,
             what);
    return HEAPFMT_E_CORRUPT;
}

/* The references heapfmt_reader_refs decodes next: n of them at p
 * (the record ends at end), object ids relative to base. */
static void refs_begin(heapfmt_reader *r, const uint8_t *p, const uint8_t *end,
                       uint64_t n, uint64_t base)
{
    r->refs_p = p;
    r->refs_end = end;
    r->refs_n = n;
    r->refs_base = base;
}

static int decode_object(heapfmt_reader *r, const uint8_t *q,
                         const uint8_t *qe, uint64_t index)
{
    hf_object_rec rec;
    const char *why =
        hf_object_head_decode(q, qe, r->obj_fields_known, r->strict, &rec);
    if (why)
        return bad(r, index, why);
    heapfmt_robject *o = &r->obj;
    int rc;
    if ((rc = class_ref(r, rec.klass, &o->klass)) != HEAPFMT_OK ||
        (rc = string_ref(r, rec.type, 0, &o->type)) != HEAPFMT_OK)
        return rc;
    o->file = &r->empty_string;
    if (rec.file && (rc = string_ref(r, rec.file, 0, &o->file)) != HEAPFMT_OK)
        return rc;
    o->stack = NULL;
    r->labels_p = NULL;
    if (rec.fields & HEAPFMT_F_STACK) { /* after the references (1.1) */
        hf_object_tail tail;
        if ((why = hf_object_tail_decode(rec.refs, qe, rec.nrefs, rec.fields,
                                         &tail)) != NULL)
            return bad(r, index, why);
        if ((rc = hf_stack_ref(r, tail.stack, &o->stack)) != HEAPFMT_OK)
            return rc;
        r->labels_p = tail.labels;
    }
    o->id = r->prev_id + hf_unzigzag(rec.id_delta);
    r->prev_id = o->id;
    o->size = rec.size;
    /* An indexed record's references all carry labels, listed or not:
     * delivered with F_LABELS, so that a reader that asks for labels only
     * when F_LABELS says so gets them. */
    r->obj_stored = rec.fields;
    o->fields = (rec.fields & HEAPFMT_F_INDEXED)
                    ? rec.fields | HEAPFMT_F_LABELS
                    : rec.fields;
    o->flags = rec.flags;
    o->value = (const char *)rec.value;
    o->value_len = (size_t)rec.value_len;
    o->line = rec.line;
    o->generation = rec.generation;
    o->nrefs = rec.nrefs;
    refs_begin(r, rec.refs, qe, rec.nrefs, o->id);
    r->objects++;
    r->bytes += rec.size;
    return HEAPFMT_OK;
}

static int decode_root(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                       uint64_t index)
{
    hf_root_rec rec;
    const char *why = hf_root_head_decode(q, qe, &rec);
    if (why)
        return bad(r, index, why);
    r->labels_p = NULL;
    if (r->minor >= 1 && /* a 1.0 ROOT ends with its references */
        (why = hf_root_tail_decode(rec.refs, qe, rec.nrefs, r->strict,
                                   &r->labels_p)) != NULL)
        return bad(r, index, why);
    int rc = hf_string_ref(r, rec.kind, 0, &r->root.kind);
    if (rc != HEAPFMT_OK)
        return rc;
    r->root.nrefs = rec.nrefs;
    r->root.labeled = r->labels_p != NULL;
    refs_begin(r, rec.refs, qe, rec.nrefs, 0);
    return HEAPFMT_OK;
}

/* *skip is set for a value type of a later version. */
static int decode_meta(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                       uint64_t index, const heapfmt_rmeta **out, int *skip)
{
    hf_meta m;
    int known;
    const char *why = hf_meta_decode(q, qe, &m, &known);
    if (why)
        return bad(r, index, why);
    if (!known) {
        *skip = 1;
        return HEAPFMT_OK;
    }
    return hf_meta_add(r, &m, out);
}

static int decode_end(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                      uint64_t index)
{
    hf_end_rec e;
    const char *why = hf_end_decode(q, qe, &e);
    if (why)
        return bad(r, index, why);
    heapfmt_totals *t = &r->end;
    memset(t, 0, sizeof *t);
    t->objects = e.objects;
    t->bytes = e.bytes;
    t->records = e.records;
    if (r->corrupt_blocks == 0 && !r->partial &&
        (t->objects != r->objects || t->bytes != r->bytes ||
         t->records != r->records))
        return hf_rfatal(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                         "END says %llu objects, %llu records; the dump has "
                         "%llu, %llu",
                         (unsigned long long)t->objects,
                         (unsigned long long)t->records,
                         (unsigned long long)r->objects,
                         (unsigned long long)r->records);
    r->seen_end = 1;
    return HEAPFMT_OK;
}

static int decode_lifespan(heapfmt_reader *r, const uint8_t *q,
                           const uint8_t *qe, uint64_t index)
{
    hf_lifespan_rec l;
    const char *why = hf_lifespan_decode(q, qe, r->strict, &l);
    if (why)
        return bad(r, index, why);
    heapfmt_rlifespan *o = &r->lifespan;
    o->key = l.key & HF_LIFESPAN_KEYS_KNOWN;
    o->stack = NULL;
    o->file = &r->empty_string;
    o->line = l.line;
    int rc;
    if ((l.key & HEAPFMT_LIFESPAN_STACK) &&
        (rc = hf_stack_ref(r, l.stack, &o->stack)) != HEAPFMT_OK)
        return rc;
    if ((l.key & HEAPFMT_LIFESPAN_SITE) && l.file != 0 &&
        (rc = hf_string_ref(r, l.file, 0, &o->file)) != HEAPFMT_OK)
        return rc;
    o->allocs = l.allocs;
    o->frees = l.frees;
    o->alloc_bytes = l.alloc_bytes;
    o->free_bytes = l.free_bytes;
    o->lifetime_us = l.lifetime;
    o->oldest_us = l.oldest;
    return HEAPFMT_OK;
}

/* An EVENTS record is checked whole here, so that its events can then be
 * handed out one at a time without a failure (heapfmt_reader_event). */
static const char *decode_events(heapfmt_reader *r, const uint8_t *q,
                                 const uint8_t *qe)
{
    hf_events_rec e;
    const char *why = hf_events_decode(q, qe, &e);
    if (why)
        return why;
    r->events = (heapfmt_revents){(uint32_t)e.thread, e.count, e.first_seq,
                                  e.last_seq, e.first_time, e.last_time};
    r->ev_p = e.events;
    r->ev_end = e.end;
    r->ev_left = e.count;
    r->ev_state = (hf_event_state){e.seq0, e.time0};
    return NULL;
}

/* Decodes the record at rpos into *rec. Returns HEAPFMT_OK, with
 * *delivered 0 for a record the caller is not shown (a kind or a META
 * value type this reader does not know, a kind reserved in the file's
 * minor version), or an error. */
static int decode_record(heapfmt_reader *r, heapfmt_record *rec,
                         int *delivered)
{
    const uint8_t *p = r->raw + r->rpos, *end = r->raw + r->raw_len;
    uint64_t index = r->delivered, len;
    unsigned tag = *p++;
    *delivered = 0;
    /* p < end, and the payload is padded (HF_RAW_PAD): one padded read. */
    if (hf_get_varint_padded(&p, &len) < 0 || p > end ||
        len > (uint64_t)(end - p))
        return bad(r, index, "record runs past the end of its block");
    const uint8_t *q = p, *qe = p + len;
    r->rpos = (size_t)(qe - r->raw);
    if (tag == 0)
        return bad(r, index, "invalid record tag 0");
    if (r->seen_end)
        return bad(r, index, "record after END");
    int rc = HEAPFMT_OK, skip = 0;
    const char *why = NULL;
    switch (tag) {
    case HEAPFMT_TAG_OBJECT:
        rc = decode_object(r, q, qe, index);
        rec->u.object = &r->obj;
        break;
    case HEAPFMT_TAG_STRING: {
        hf_string_rec s;
        if (!(why = hf_string_decode(q, qe, &s)))
            rc = hf_string_define(r, s.id, s.text, s.len, &rec->u.string);
        break;
    }
    case HEAPFMT_TAG_CLASS: {
        hf_class_rec c;
        const heapfmt_rstring *name = NULL;
        if ((why = hf_class_decode(q, qe, &c)) != NULL)
            break;
        if ((c.flags & ~(uint64_t)HF_CLASS_FLAGS_KNOWN) && r->strict) {
            why = "reserved CLASS flag bits set";
            break;
        }
        if (c.name && (rc = hf_string_ref(r, c.name, 0, &name)) != HEAPFMT_OK)
            break;
        rc = hf_class_define(r, c.index, c.id, name, c.super_id, c.flags,
                             &rec->u.klass);
        break;
    }
    case HEAPFMT_TAG_ROOT:
        rc = decode_root(r, q, qe, index);
        rec->u.root = &r->root;
        break;
    case HEAPFMT_TAG_META:
        rc = decode_meta(r, q, qe, index, &rec->u.meta, &skip);
        break;
    case HEAPFMT_TAG_END:
        rc = decode_end(r, q, qe, index);
        rec->u.end = &r->end;
        break;
    case HEAPFMT_TAG_FRAME: {
        hf_frame_rec f;
        if (r->minor < 1) {
            skip = 1; /* reserved in 1.0 */
        } else if (!(why = hf_frame_decode(q, qe, &f))) {
            rc = hf_frame_define(r, &f, &rec->u.frame);
        }
        break;
    }
    case HEAPFMT_TAG_STACK: {
        hf_stack_rec st;
        if (r->minor < 1) {
            skip = 1;
        } else if (!(why = hf_stack_decode(q, qe, &st))) {
            rc = hf_stack_define(r, &st, &rec->u.stack);
        }
        break;
    }
    case HEAPFMT_TAG_LIFESPAN:
        if (r->minor < 2) {
            skip = 1; /* reserved before 1.2 */
        } else {
            rc = decode_lifespan(r, q, qe, index);
            rec->u.lifespan = &r->lifespan;
        }
        break;
    case HEAPFMT_TAG_EVENTS:
        if (r->minor < 2)
            skip = 1; /* reserved before 1.2 */
        else
            why = decode_events(r, q, qe);
        rec->u.events = &r->events;
        break;
    default:
        skip = 1;
        break;
    }
    if (why)
        return bad(r, index, why);
    if (rc != HEAPFMT_OK)
        return rc;
    if (tag != HEAPFMT_TAG_END)
        r->records++;
    if (skip) {
        r->skipped++;
        return HEAPFMT_OK;
    }
    *delivered = 1;
    rec->tag = (int)tag;
    rec->offset = r->block_offset;
    rec->index = r->delivered++;
    r->last_tag = (int)tag;
    return HEAPFMT_OK;
}

/* Past this, a buffer of references or labels grown for one record is
 * given back when the next is read, not kept for the reader's life: a
 * V8 import's largest object (262,144 references) left 8 MB in them, 6
 * bytes an object of the dump, through heapfmt-graph's whole load. */
#define HF_RECORD_BUF_KEEP (1u << 20)

static void trim_record_buffers(heapfmt_reader *r)
{
    if (r->refs_cap > HF_RECORD_BUF_KEEP / sizeof *r->refs_buf) {
        hf_free(&r->al, r->refs_buf);
        r->refs_buf = NULL;
        r->refs_cap = 0;
    }
    if (r->labels_cap > HF_RECORD_BUF_KEEP / sizeof *r->labels_buf) {
        hf_free(&r->al, r->labels_buf);
        r->labels_buf = NULL;
        r->labels_cap = 0;
    }
}

int heapfmt_reader_next(heapfmt_reader *r, heapfmt_record *rec)
{
    if (!r || !rec)
        return HEAPFMT_E_ARG;
    r->last_tag = 0;
    trim_record_buffers(r);
    for (;;) {
        int rc, delivered;
        switch (r->state) {
        case HF_R_FAILED:
            r->err = r->failure;
            return r->err.code;
        case HF_R_DONE:
            return HEAPFMT_DONE;
        case HF_R_BLOCK:
            if ((rc = load_block(r)) != HEAPFMT_OK)
                return rc;
            break;
        case HF_R_IN:
            if (r->rpos >= r->raw_len) {
                r->blocks_done++;
                r->block_no++;
                r->state = HF_R_BLOCK;
                break;
            }
            rc = decode_record(r, rec, &delivered);
            if (rc == HEAPFMT_OK && !delivered)
                break;
            if (rc == HEAPFMT_OK)
                return rc;
            if (r->state == HF_R_FAILED)
                return rc;
            if (rc == HEAPFMT_E_CORRUPT)
                return skip_block(r);
            return hf_rstop(r, rc); /* out of memory, table limit */
        }
    }
}

/* The references or labels of the last record cannot be had: ends the
 * block as heapfmt_reader_next would. */
static long lost_refs(heapfmt_reader *r, const char *why)
{
    r->last_tag = 0;
    bad(r, r->delivered - 1, why);
    return skip_block(r);
}

static int last_has_refs(heapfmt_reader *r)
{
    if ((r->last_tag != HEAPFMT_TAG_OBJECT && r->last_tag != HEAPFMT_TAG_ROOT) ||
        !r->refs_p)
        return hf_rfail(r, HEAPFMT_E_STATE, 0, r->block_offset,
                        "the last record has no references");
    return HEAPFMT_OK;
}

/* Room in *buf (capacity *cap elements of elem bytes) for one of what
 * (references, labels) per reference of the last record. */
static int refs_room(heapfmt_reader *r, void **buf, size_t *cap, size_t elem,
                     const char *what)
{
    if (r->refs_n > *cap &&
        hf_grow(&r->al, buf, cap, (size_t)r->refs_n, elem) < 0)
        return hf_rfatal(r, HEAPFMT_E_NOMEM, 0, r->block_offset,
                         "out of memory for %llu %s",
                         (unsigned long long)r->refs_n, what);
    return HEAPFMT_OK;
}

long heapfmt_reader_refs(heapfmt_reader *r, const uint64_t **ids)
{
    if (!r || !ids)
        return HEAPFMT_E_ARG;
    int rc = last_has_refs(r);
    if (rc != HEAPFMT_OK)
        return rc;
    if ((rc = refs_room(r, (void **)&r->refs_buf, &r->refs_cap,
                        sizeof *r->refs_buf, "references")) != HEAPFMT_OK)
        return rc;
    const uint8_t *q = r->refs_p;
    const char *why =
        hf_refs_decode(&q, r->refs_end, r->refs_base, r->refs_n, r->refs_buf);
    if (why)
        return lost_refs(r, why);
    /* without a stack id, an object's labels follow its references */
    if (r->last_tag == HEAPFMT_TAG_OBJECT && !r->labels_p &&
        (r->obj_stored & HEAPFMT_F_LABELS))
        r->labels_p = q;
    *ids = r->refs_buf;
    return (long)r->refs_n;
}

/* Fills labels_buf[from, to) with the labels the indexed form implies:
 * INDEX, position + rel. */
static void implied_indexes(heapfmt_reader *r, uint64_t from, uint64_t to,
                            uint64_t rel)
{
    for (uint64_t i = from; i < to; i++)
        r->labels_buf[i] = (heapfmt_rlabel){HEAPFMT_LABEL_INDEX, 0, i + rel,
                                            &r->empty_string};
}

long heapfmt_reader_labels(heapfmt_reader *r, const heapfmt_rlabel **labels)
{
    if (!r || !labels)
        return HEAPFMT_E_ARG;
    int rc = last_has_refs(r);
    if (rc != HEAPFMT_OK)
        return rc;
    int object = r->last_tag == HEAPFMT_TAG_OBJECT;
    int indexed = object && (r->obj_stored & HEAPFMT_F_INDEXED);
    const uint8_t *q = r->labels_p;
    if (object && !q && (r->obj_stored & HEAPFMT_F_LABELS)) {
        /* found on first use */
        hf_object_tail tail;
        const char *why = hf_object_tail_decode(r->refs_p, r->refs_end,
                                                r->refs_n, r->obj_stored,
                                                &tail);
        if (why)
            return lost_refs(r, why);
        q = r->labels_p = tail.labels;
    }
    if (!q && !indexed)
        return 0;
    if ((rc = refs_room(r, (void **)&r->labels_buf, &r->labels_cap,
                        sizeof *r->labels_buf, "labels")) != HEAPFMT_OK)
        return rc;
    if (!q) { /* every reference at its index */
        implied_indexes(r, 0, r->refs_n, 0);
        *labels = r->labels_buf;
        return (long)r->refs_n;
    }
    if (!indexed)
        for (uint64_t i = 0; i < r->refs_n; i++)
            r->labels_buf[i] = (heapfmt_rlabel){HEAPFMT_LABEL_NONE, 0, 0,
                                                &r->empty_string};
    hf_labels_iter it;
    uint64_t filled = 0, rel = 0; /* indexed: labels set so far, offset */
    const char *why = hf_labels_begin(&it, q, r->refs_end, r->refs_n);
    while (why == NULL && it.left > 0) {
        hf_label_rec l;
        if ((why = hf_labels_next(&it, &l)) != NULL)
            break;
        if (indexed) {
            implied_indexes(r, filled, l.position, rel);
            filled = l.position + 1;
        }
        heapfmt_rlabel *out = &r->labels_buf[l.position];
        out->kind = l.kind;
        out->weak = l.weak;
        out->index = 0;
        out->name = &r->empty_string;
        if (l.kind == HEAPFMT_LABEL_INDEX) {
            out->index = l.value;
            rel = l.value - l.position;
        } else if (l.kind != HEAPFMT_LABEL_NONE &&
                   (rc = string_ref(r, l.value, 1, &out->name)) != HEAPFMT_OK) {
            return hf_rstop(r, rc); /* a string table failure */
        }
    }
    if (why)
        return lost_refs(r, why);
    if (indexed)
        implied_indexes(r, filled, r->refs_n, rel);
    *labels = r->labels_buf;
    return (long)r->refs_n;
}

int heapfmt_reader_event(heapfmt_reader *r, heapfmt_event *ev)
{
    if (!r || !ev)
        return HEAPFMT_E_ARG;
    if (r->last_tag != HEAPFMT_TAG_EVENTS)
        return hf_rfail(r, HEAPFMT_E_STATE, 0, r->block_offset,
                        "the last record is not an EVENTS record");
    if (r->ev_left == 0)
        return 0;
    /* checked by decode_events: cannot fail */
    if (hf_event_decode(&r->ev_p, r->ev_end, &r->ev_state, r->events.thread,
                        ev) != NULL)
        return hf_rfail(r, HEAPFMT_E_STATE, 0, r->block_offset,
                        "EVENTS record changed under the reader");
    r->ev_left--;
    return 1;
}

int heapfmt_reader_seek_block(heapfmt_reader *r, uint64_t offset)
{
    return heapfmt_reader_seek_range(r, offset, UINT64_MAX);
}

int heapfmt_reader_seek_range(heapfmt_reader *r, uint64_t offset,
                              uint64_t end)
{
    if (!r)
        return HEAPFMT_E_ARG;
    if (r->state == HF_R_FAILED) {
        r->err = r->failure;
        return r->err.code;
    }
    if (!r->seek)
        return hf_rfail(r, HEAPFMT_E_NO_FOOTER, 0, offset,
                        "input is not seekable");
    if (offset < HF_HEADER_SIZE)
        return hf_rfail(r, HEAPFMT_E_ARG, 0, offset,
                        "offset %llu is before the first block",
                        (unsigned long long)offset);
    if (end < offset)
        return hf_rfail(r, HEAPFMT_E_ARG, 0, offset,
                        "range ends at %llu, before its start %llu",
                        (unsigned long long)end, (unsigned long long)offset);
    int64_t at = r->seek(r->opaque, (int64_t)offset, 0);
    if (at != (int64_t)offset)
        return hf_rfatal(r, HEAPFMT_E_IO, at < 0 ? (int)-at : 0, offset,
                         "cannot seek to offset %llu",
                         (unsigned long long)offset);
    r->pos = offset;
    r->partial = 1;
    r->range_end = end;
    r->seen_end = 0;
    r->state = HF_R_BLOCK;
    return HEAPFMT_OK;
}

int heapfmt_reader_can_continue(const heapfmt_reader *r)
{
    return r && (r->state == HF_R_BLOCK || r->state == HF_R_IN);
}

void heapfmt_reader_progress(const heapfmt_reader *r, heapfmt_progress *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    if (!r)
        return;
    p->records = r->delivered;
    p->objects = r->objects;
    p->bytes = r->bytes;
    p->blocks = r->blocks_done;
    p->corrupt_blocks = r->corrupt_blocks;
    p->offset = r->pos;
    p->skipped = r->skipped;
    p->raw_bytes = r->raw_bytes;
    p->stored_bytes = r->stored_bytes;
    p->codecs = r->codecs;
}

const heapfmt_error *heapfmt_reader_error(const heapfmt_reader *r)
{
    return &r->err;
}

void heapfmt_reader_version(const heapfmt_reader *r, int *major, int *minor)
{
    if (major)
        *major = r ? r->major : 0;
    if (minor)
        *minor = r ? r->minor : 0;
}
