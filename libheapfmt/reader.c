/* reader.c -- the streaming reader: blocks in, records out. */
#include <errno.h>
#include <stdio.h>

#include "reader_internal.h"

int hf_rfail(heapfmt_reader *r, int code, int sys_errno, uint64_t offset,
             const char *fmt, ...)
{
    heapfmt_error *e = &r->err;
    e->code = code;
    e->sys_errno = sys_errno;
    e->offset = offset;
    e->block = r->block_no;
    e->record = r->delivered;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return code;
}

int hf_rfatal(heapfmt_reader *r, int code)
{
    r->state = HF_R_FAILED;
    r->err.code = code;
    r->failure = r->err;
    return code;
}


int hf_read_full(heapfmt_reader *r, void *buf, size_t len, size_t *got)
{
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        long n = r->read(r->opaque, p + done, len - done);
        if (n > 0 && (size_t)n <= len - done) {
            done += (size_t)n;
        } else if (n == 0) {
            break;
        } else if (n == -EINTR || n == -EAGAIN) {
            continue;
        } else {
            int e = n < 0 ? (int)-n : EIO;
            r->pos += done;
            *got = done;
            return hf_rfail(r, HEAPFMT_E_IO, e, r->pos, "read failed: %s",
                            n < 0 ? strerror(e)
                                  : "read callback returned more than asked");
        }
    }
    r->pos += done;
    *got = done;
    return HEAPFMT_OK;
}

/* ---- blocks ---- */

int hf_block_header(heapfmt_reader *r, const uint8_t *h, uint64_t offset,
                    hf_bhdr *b, int *is_fatal)
{
    *is_fatal = 1;
    if (hf_crc32(h, 16) != hf_get_u32(h + 16))
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block header at offset %llu fails its checksum",
                        (unsigned long long)offset);
    b->kind = h[0];
    b->codec = h[1];
    b->raw_len = hf_get_u32(h + 4);
    b->stored_len = hf_get_u32(h + 8);
    b->data_crc = hf_get_u32(h + 12);
    if (b->raw_len == 0 || b->raw_len > HEAPFMT_MAX_BLOCK ||
        b->stored_len == 0 || b->stored_len > HEAPFMT_MAX_BLOCK)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has lengths out of range",
                        (unsigned long long)offset);
    *is_fatal = 0;
    if (hf_get_u16(h + 2) != 0 && r->strict)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has reserved bits set",
                        (unsigned long long)offset);
    /* DEFLATE expands at most 1032 times (a 258-byte match in two bits):
     * a larger raw_len would only make a small file allocate a lot. */
    if (b->codec > HF_CODEC_DEFLATE ||
        (b->codec == HF_CODEC_STORED && b->stored_len != b->raw_len) ||
        (b->codec == HF_CODEC_DEFLATE &&
         b->raw_len > (uint64_t)b->stored_len * HF_DEFLATE_MAX_RATIO + 258))
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has %s",
                        (unsigned long long)offset,
                        b->codec > HF_CODEC_DEFLATE ? "an unknown codec"
                                                    : "inconsistent lengths");
    return HEAPFMT_OK;
}

/* Reads need bytes into *buf, growing it as data arrives so that a length
 * field larger than the input never allocates in full; the last step also
 * makes room for extra bytes (the decoder's padding), so that no further
 * copy is needed. */
static int read_grow(heapfmt_reader *r, uint8_t **buf, size_t *cap,
                     size_t need, size_t extra, size_t *got)
{
    size_t have = 0;
    while (have < need) {
        size_t step = have < (64u << 10) ? (64u << 10) : have * 2;
        /* up to twice what an earlier block took at once: no copy later */
        if (have == 0 && *cap > step / 2)
            step = *cap * 2;
        size_t target = need - have < step ? need : have + step;
        if (hf_grow_bytes(&r->al, buf, cap,
                          target + (target == need ? extra : 0), have) < 0)
            return hf_rfail(r, HEAPFMT_E_NOMEM, 0, r->pos,
                            "out of memory for a %zu-byte block", need);
        size_t n;
        int rc = hf_read_full(r, *buf + have, target - have, &n);
        have += n;
        if (rc != HEAPFMT_OK)
            return rc;
        if (n < target - (have - n))
            break;
    }
    *got = have;
    return HEAPFMT_OK;
}

static int truncated_in_block(heapfmt_reader *r, uint64_t offset, size_t got,
                              uint32_t want)
{
    return hf_rfail(r, HEAPFMT_E_TRUNCATED, 0, offset,
                    "dump is truncated: the block at offset %llu has %zu of "
                    "%u bytes; %llu records in %llu complete blocks were read",
                    (unsigned long long)offset, got, want,
                    (unsigned long long)r->delivered,
                    (unsigned long long)r->blocks_done);
}

int hf_block_payload(heapfmt_reader *r, const hf_bhdr *b, uint64_t offset,
                     uint8_t **out, size_t *out_cap)
{
    size_t got;
    int rc;
    if (b->codec == HF_CODEC_STORED) {
        rc = read_grow(r, out, out_cap, b->stored_len, HF_RAW_PAD, &got);
    } else {
        rc = read_grow(r, &r->stored, &r->stored_cap, b->stored_len, 0, &got);
    }
    if (rc != HEAPFMT_OK)
        return rc;
    if (got < b->stored_len)
        return truncated_in_block(r, offset, got, b->stored_len);
    if (b->codec == HF_CODEC_DEFLATE) {
        if (hf_grow_bytes(&r->al, out, out_cap,
                          (size_t)b->raw_len + HF_RAW_PAD, 0) < 0)
            return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                            "out of memory for a %u-byte block", b->raw_len);
        if (hf_inflate_block(&r->inf, r->stored, b->stored_len, *out,
                             b->raw_len) < 0)
            return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                            "block at offset %llu does not decompress",
                            (unsigned long long)offset);
    }
    if (hf_crc32(*out, b->raw_len) != b->data_crc)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu fails its checksum",
                        (unsigned long long)offset);
    /* Zero padding for the record decoder (HF_RAW_PAD). The buffer is
     * reused from block to block, so the padding is written every time. */
    if (hf_grow_bytes(&r->al, out, out_cap, (size_t)b->raw_len + HF_RAW_PAD,
                      b->raw_len) < 0)
        return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                        "out of memory for a %u-byte block", b->raw_len);
    memset(*out + b->raw_len, 0, HF_RAW_PAD);
    return HEAPFMT_OK;
}

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
        return hf_rfatal(r, rc);
    if (got < HF_TRAILER_SIZE) {
        hf_rfail(r, HEAPFMT_E_TRUNCATED, 0, at,
                 "dump is truncated inside its trailer; all %llu records "
                 "were read",
                 (unsigned long long)r->delivered);
        return hf_rfatal(r, HEAPFMT_E_TRUNCATED);
    }
    if (memcmp(t + 16, HF_END_MAGIC, 8) != 0 ||
        hf_crc32(t, 12) != hf_get_u32(t + 12) ||
        hf_get_u64(t) != footer_offset || (hf_get_u32(t + 8) && r->strict)) {
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, at, "invalid trailer at offset %llu",
                 (unsigned long long)at);
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    if (got > HF_TRAILER_SIZE) {
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, at + HF_TRAILER_SIZE,
                 "unexpected data after the end of the dump");
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    return HEAPFMT_OK;
}

static int read_footer_block(heapfmt_reader *r, const hf_bhdr *b,
                             uint64_t offset)
{
    if (r->partial) { /* a reader moved to a block ends at the footer */
        r->state = HF_R_DONE;
        return HEAPFMT_OK;
    }
    if (!r->seen_end || r->corrupt_blocks) {
        if (r->corrupt_blocks)
            hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                     "dump is incomplete: %llu corrupt block(s) were skipped",
                     (unsigned long long)r->corrupt_blocks);
        else
            hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                     "footer at offset %llu comes before the END record",
                     (unsigned long long)offset);
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    int rc = hf_block_payload(r, b, offset, &r->raw, &r->raw_cap);
    if (rc == HEAPFMT_OK)
        rc = hf_footer_parse(r, r->raw, b->raw_len, offset);
    if (rc != HEAPFMT_OK)
        return hf_rfatal(r, rc);
    const heapfmt_totals *t = &r->footer.totals;
    if (t->objects != r->end.objects || t->bytes != r->end.bytes ||
        t->records != r->end.records || t->blocks != r->blocks_done ||
        t->raw_bytes != r->raw_bytes ||
        r->footer.nblocks != r->blocks_done) {
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                 "footer totals disagree with the dump");
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    if ((rc = read_trailer(r, offset)) != HEAPFMT_OK)
        return rc;
    r->have_footer = 1;
    r->state = HF_R_DONE;
    return HEAPFMT_OK;
}

/* Reads the next block header and payload. */
static int load_block(heapfmt_reader *r)
{
    uint8_t h[HF_BLOCK_HEADER_SIZE];
    uint64_t offset = r->pos;
    size_t got;
    int rc = hf_read_full(r, h, sizeof h, &got);
    if (rc != HEAPFMT_OK)
        return hf_rfatal(r, rc);
    if (got < sizeof h) {
        hf_rfail(r, HEAPFMT_E_TRUNCATED, 0, offset,
                 "dump is truncated at offset %llu (%s): %llu records in "
                 "%llu complete blocks were read",
                 (unsigned long long)(offset + got),
                 !r->seen_end ? "no END record" : "no footer",
                 (unsigned long long)r->delivered,
                 (unsigned long long)r->blocks_done);
        return hf_rfatal(r, HEAPFMT_E_TRUNCATED);
    }
    hf_bhdr b;
    int is_fatal;
    if (hf_block_header(r, h, offset, &b, &is_fatal) != HEAPFMT_OK) {
        if (is_fatal)
            return hf_rfatal(r, HEAPFMT_E_CORRUPT);
        rc = read_grow(r, &r->stored, &r->stored_cap, b.stored_len, 0, &got);
        if (rc != HEAPFMT_OK)
            return hf_rfatal(r, rc);
        if (got < b.stored_len) {
            truncated_in_block(r, offset, got, b.stored_len);
            return hf_rfatal(r, HEAPFMT_E_TRUNCATED);
        }
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                 "block at offset %llu is invalid and was skipped",
                 (unsigned long long)offset);
        if (b.kind == HF_KIND_DATA)
            return skip_block(r);
        r->corrupt_blocks++; /* a bad block of another kind: still a loss */
        return HEAPFMT_E_CORRUPT;
    }
    if (b.kind == HF_KIND_FOOTER)
        return read_footer_block(r, &b, offset);
    if (b.kind != HF_KIND_DATA) { /* unknown kind: skip it whole */
        rc = read_grow(r, &r->stored, &r->stored_cap, b.stored_len, 0, &got);
        if (rc != HEAPFMT_OK)
            return hf_rfatal(r, rc);
        if (got < b.stored_len) {
            truncated_in_block(r, offset, got, b.stored_len);
            return hf_rfatal(r, HEAPFMT_E_TRUNCATED);
        }
        return HEAPFMT_OK;
    }
    if (r->seen_end) {
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                 "data block at offset %llu after the END record",
                 (unsigned long long)offset);
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    r->block_offset = offset;
    rc = hf_block_payload(r, &b, offset, &r->raw, &r->raw_cap);
    if (rc == HEAPFMT_E_CORRUPT)
        return skip_block(r);
    if (rc != HEAPFMT_OK)
        return hf_rfatal(r, rc);
    r->raw_len = b.raw_len;
    r->raw_bytes += b.raw_len;
    r->stored_bytes += b.stored_len;
    r->rpos = 0;
    r->prev_id = 0;
    r->state = HF_R_IN;
    return HEAPFMT_OK;
}

/* ---- records ---- */

#define SKIPPED 2 /* decode_record: record not delivered, go on */

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

static inline int string_ref(heapfmt_reader *r, uint64_t id,
                             const heapfmt_rstring **out)
{
    uint32_t v;
    if (id < r->string_ids.ndirect && (v = r->string_ids.direct[id])) {
        *out = r->strings[v - 1];
        return HEAPFMT_OK;
    }
    return hf_string_ref(r, id, out);
}

static int bad(heapfmt_reader *r, uint64_t index, const char *what)
{
    hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
             "record %llu in the block at offset %llu: %s",
             (unsigned long long)index, (unsigned long long)r->block_offset,
             what);
    return HEAPFMT_E_CORRUPT;
}

#define GET(v)                                 \
    do {                                       \
        if (hf_get_varint(&q, qe, &(v)) < 0)   \
            return bad(r, index, "truncated field"); \
    } while (0)

/* The same for the OBJECT fast path: q runs over the block's decoded
 * payload, which is followed by HF_RAW_PAD zero bytes, so no end check is
 * made per byte. A varint may thus read past qe into the next record or
 * the padding; the position is checked against qe after at most a few
 * fields (never more than HF_RAW_PAD - HF_VARINT_MAX reads apart), so such
 * a record is still refused as truncated. */
#define PGET(v)                                          \
    do {                                                 \
        if (hf_get_varint_padded(&q, &(v)) < 0)          \
            return bad(r, index, "truncated field");     \
    } while (0)

static int decode_object(heapfmt_reader *r, const uint8_t *q,
                         const uint8_t *qe, uint64_t index)
{
    uint64_t dz, cls, type, size, v, nrefs, file = 0;
    heapfmt_robject *o = &r->obj;
    PGET(dz);
    PGET(cls);
    PGET(type);
    PGET(size);
    if (q >= qe)
        return bad(r, index, "truncated field");
    uint32_t f = *q++;
    if ((f & ~(uint32_t)HF_OBJ_FIELDS_KNOWN) && r->strict)
        return bad(r, index, "reserved OBJECT field bits set");
    f &= HF_OBJ_FIELDS_KNOWN;
    o->fields = f;
    o->flags = 0;
    o->value = NULL;
    o->value_len = 0;
    o->file = &r->empty_string;
    o->line = 0;
    o->generation = 0;
    if (f != 0) { /* optional fields: at most 5 varints before the check */
        if (f & HEAPFMT_F_FLAGS)
            PGET(o->flags);
        if (f & HEAPFMT_F_VALUE) {
            PGET(v);
            if (q > qe)
                return bad(r, index, "truncated field");
            if (v > HEAPFMT_MAX_STRING || v > (uint64_t)(qe - q))
                return bad(r, index, "value length out of range");
            o->value = (const char *)q;
            o->value_len = (size_t)v;
            q += v;
        }
        if (f & HEAPFMT_F_SITE) {
            PGET(file);
            PGET(o->line);
        }
        if (f & HEAPFMT_F_GENERATION)
            PGET(o->generation);
    }
    PGET(nrefs);
    if (q > qe)
        return bad(r, index, "truncated field");
    if (nrefs > HEAPFMT_MAX_REFS || nrefs > (uint64_t)(qe - q))
        return bad(r, index, "reference count out of range");
    int rc;
    if ((rc = class_ref(r, cls, &o->klass)) != HEAPFMT_OK ||
        (rc = string_ref(r, type, &o->type)) != HEAPFMT_OK ||
        (file && (rc = string_ref(r, file, &o->file)) != HEAPFMT_OK))
        return rc;
    o->id = r->prev_id + hf_unzigzag(dz);
    r->prev_id = o->id;
    o->size = size;
    o->nrefs = nrefs;
    r->refs_p = q;
    r->refs_end = qe;
    r->refs_n = nrefs;
    r->refs_base = o->id;
    r->objects++;
    r->bytes += size;
    return HEAPFMT_OK;
}

static int meta_key_ok(const uint8_t *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static int decode_meta(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                       uint64_t index, const heapfmt_rmeta **out)
{
    uint64_t klen, num = 0;
    if (q >= qe)
        return bad(r, index, "empty META record");
    unsigned type = *q++;
    GET(klen);
    if (klen == 0 || klen > HEAPFMT_MAX_KEY || klen > (uint64_t)(qe - q) ||
        !meta_key_ok(q, (size_t)klen))
        return bad(r, index, "invalid META key");
    const uint8_t *key = q;
    q += klen;
    size_t tlen = 0;
    const uint8_t *text = NULL;
    if (type == HEAPFMT_META_TEXT) {
        text = q;
        tlen = (size_t)(qe - q);
        if (tlen > HEAPFMT_MAX_STRING)
            return bad(r, index, "META value longer than 16 MiB");
    } else if (type == HEAPFMT_META_UINT || type == HEAPFMT_META_INT) {
        GET(num);
    } else {
        return SKIPPED; /* a value type of a later version */
    }
    return hf_meta_add(r, type, key, (size_t)klen, text, tlen, num, out);
}

static int decode_end(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                      uint64_t index)
{
    heapfmt_totals *t = &r->end;
    memset(t, 0, sizeof *t);
    GET(t->objects);
    GET(t->bytes);
    GET(t->records);
    if (r->corrupt_blocks == 0 && !r->partial &&
        (t->objects != r->objects || t->bytes != r->bytes ||
         t->records != r->records)) {
        hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                 "END says %llu objects, %llu records; the dump has %llu, %llu",
                 (unsigned long long)t->objects,
                 (unsigned long long)t->records,
                 (unsigned long long)r->objects,
                 (unsigned long long)r->records);
        return hf_rfatal(r, HEAPFMT_E_CORRUPT);
    }
    r->seen_end = 1;
    return HEAPFMT_OK;
}

/* Decodes the record at rpos. Returns HEAPFMT_OK (delivered), SKIPPED,
 * or an error. */
static int decode_record(heapfmt_reader *r, heapfmt_record *rec)
{
    const uint8_t *p = r->raw + r->rpos, *end = r->raw + r->raw_len;
    uint64_t index = r->delivered, len;
    unsigned tag = *p++;
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
    int rc = HEAPFMT_OK;
    uint64_t a, b, c, d, e;
    switch (tag) {
    case HEAPFMT_TAG_OBJECT:
        rc = decode_object(r, q, qe, index);
        rec->u.object = &r->obj;
        break;
    case HEAPFMT_TAG_STRING:
        GET(a);
        if ((uint64_t)(qe - q) > HEAPFMT_MAX_STRING)
            return bad(r, index, "string longer than 16 MiB");
        rc = hf_string_define(r, a, q, (size_t)(qe - q), &rec->u.string);
        break;
    case HEAPFMT_TAG_CLASS: {
        GET(a);
        GET(b);
        GET(c);
        GET(d);
        GET(e);
        if ((e & ~(uint64_t)HF_CLASS_FLAGS_KNOWN) && r->strict)
            return bad(r, index, "reserved CLASS flag bits set");
        const heapfmt_rstring *name = NULL;
        if (c && (rc = hf_string_ref(r, c, &name)) != HEAPFMT_OK)
            break;
        rc = hf_class_define(r, a, b, name, d, e, &rec->u.klass);
        break;
    }
    case HEAPFMT_TAG_ROOT:
        GET(a);
        GET(b);
        if (b > HEAPFMT_MAX_REFS || b > (uint64_t)(qe - q))
            return bad(r, index, "reference count out of range");
        if ((rc = hf_string_ref(r, a, &r->root.kind)) != HEAPFMT_OK)
            break;
        r->root.nrefs = b;
        r->refs_p = q;
        r->refs_end = qe;
        r->refs_n = b;
        r->refs_base = 0;
        rec->u.root = &r->root;
        break;
    case HEAPFMT_TAG_META:
        rc = decode_meta(r, q, qe, index, &rec->u.meta);
        break;
    case HEAPFMT_TAG_END:
        rc = decode_end(r, q, qe, index);
        rec->u.end = &r->end;
        break;
    default:
        rc = SKIPPED;
        break;
    }
    if (rc != HEAPFMT_OK && rc != SKIPPED)
        return rc;
    if (tag != HEAPFMT_TAG_END)
        r->records++;
    if (rc == SKIPPED) {
        r->skipped++;
        return SKIPPED;
    }
    rec->tag = (int)tag;
    rec->offset = r->block_offset;
    rec->index = r->delivered++;
    r->last_tag = (int)tag;
    return HEAPFMT_OK;
}

int heapfmt_reader_next(heapfmt_reader *r, heapfmt_record *rec)
{
    if (!r || !rec)
        return HEAPFMT_E_ARG;
    r->last_tag = 0;
    for (;;) {
        int rc;
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
            rc = decode_record(r, rec);
            if (rc == HEAPFMT_OK)
                return rc;
            if (rc == SKIPPED)
                break;
            if (r->state == HF_R_FAILED)
                return rc;
            if (rc == HEAPFMT_E_CORRUPT)
                return skip_block(r);
            return hf_rfatal(r, rc); /* out of memory, table limit */
        }
    }
}

long heapfmt_reader_refs(heapfmt_reader *r, const uint64_t **ids)
{
    if (!r || !ids)
        return HEAPFMT_E_ARG;
    if ((r->last_tag != HEAPFMT_TAG_OBJECT && r->last_tag != HEAPFMT_TAG_ROOT) ||
        !r->refs_p)
        return hf_rfail(r, HEAPFMT_E_STATE, 0, r->block_offset,
                        "the last record has no references");
    if (r->refs_n > r->refs_cap &&
        hf_grow(&r->al, (void **)&r->refs_buf, &r->refs_cap, (size_t)r->refs_n,
                sizeof *r->refs_buf) < 0)
        return hf_rfatal(r, hf_rfail(r, HEAPFMT_E_NOMEM, 0, r->block_offset,
                                 "out of memory for %llu references",
                                 (unsigned long long)r->refs_n));
    const uint8_t *q = r->refs_p;
    uint64_t base = r->refs_base, v;
    for (uint64_t i = 0; i < r->refs_n; i++) {
        if (hf_get_varint(&q, r->refs_end, &v) < 0) {
            r->last_tag = 0;
            bad(r, r->delivered - 1, "references do not decode");
            return skip_block(r);
        }
        base += hf_unzigzag(v);
        r->refs_buf[i] = base;
    }
    *ids = r->refs_buf;
    return (long)r->refs_n;
}

int heapfmt_reader_seek_block(heapfmt_reader *r, uint64_t offset)
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
    int64_t at = r->seek(r->opaque, (int64_t)offset, 0);
    if (at != (int64_t)offset) {
        hf_rfail(r, HEAPFMT_E_IO, at < 0 ? (int)-at : 0, offset,
                 "cannot seek to offset %llu", (unsigned long long)offset);
        return hf_rfatal(r, HEAPFMT_E_IO);
    }
    r->pos = offset;
    r->partial = 1;
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
