/* format.h -- the on-disk layout of a heapfmt dump, in one place.
 *
 * Everything here follows spec/FORMAT.md section by section: conventions
 * (2), file header (4), block header (5), records (6: one named struct per
 * record, with its encoder and decoder side by side), footer records (7),
 * trailer (8). The writer and the reader only move these structures into
 * and out of blocks; neither knows a byte offset of its own.
 *
 * Encoders write at p, which has room for the record's bound, and return
 * the end. Decoders read q..qe and return NULL, or a short text saying
 * what is wrong (the caller adds where). Encoders and decoders on the
 * per-object path are inline; the rest are in format.c. */
#ifndef HEAPFMT_FORMAT_H
#define HEAPFMT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "heapfmt.h"

/* ---- 2. Conventions: fixed-size little-endian fields ---- */

static inline void hf_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void hf_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void hf_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t hf_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t hf_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t hf_get_u64(const uint8_t *p)
{
    return (uint64_t)hf_get_u32(p) | ((uint64_t)hf_get_u32(p + 4) << 32);
}

/* ---- 2. Conventions: varints and zigzag deltas ---- */

#define HF_VARINT_MAX 10u

static inline size_t hf_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v at p (room for HF_VARINT_MAX bytes); returns the end. */
static inline uint8_t *hf_put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) { /* most fields of most records: one or two bytes */
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* What a varint decoder returns for an encoding longer than the shortest
 * (a last byte 0 after others): writers MUST use the shortest (spec 2), and
 * libheapfmt takes the spec's leave not to accept longer ones, so that
 * heapfmt-info --verify and every reader agree on such a dump. */
#define HF_VARINT_LONG (-2)

/* The message of a field whose varint failed with rc. */
static inline const char *hf_varint_why(int rc)
{
    return rc == HF_VARINT_LONG ? "varint longer than its shortest encoding"
                                : "truncated field";
}

/* Reads a varint from *pp (not past end) into *v and advances *pp.
 * Returns 0, -1 if it runs past end or does not fit 64 bits, or
 * HF_VARINT_LONG. */
static inline int hf_get_varint(const uint8_t **pp, const uint8_t *end,
                                uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return -1;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            if (b == 0)
                return HF_VARINT_LONG; /* shift > 0 here */
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* Zero bytes the reader keeps after every decoded block payload, so that
 * the record decoder can read varints with hf_get_varint_padded(): a run
 * of varints that starts inside the payload can only step into the
 * padding one zero byte per varint, and each varint reads at most
 * HF_VARINT_MAX bytes. Callers check their position against the end of
 * the record after a bounded number of reads. */
#define HF_RAW_PAD 64u

/* Reads a varint from *pp without an end check: at least HF_VARINT_MAX
 * readable bytes must follow *pp (see HF_RAW_PAD). Returns 0 with *v set
 * and *pp advanced, -1 if it does not fit 64 bits, or HF_VARINT_LONG. */
static inline int hf_get_varint_padded(const uint8_t **pp, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = p[0];
    if (x < 0x80) { /* the common one-byte case */
        *v = x;
        *pp = p + 1;
        return 0;
    }
    x &= 0x7f;
    for (unsigned i = 1; i < HF_VARINT_MAX; i++) {
        uint64_t b = p[i];
        x |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            if (i == HF_VARINT_MAX - 1 && b > 1)
                return -1;
            if (b == 0)
                return HF_VARINT_LONG;
            *v = x;
            *pp = p + i + 1;
            return 0;
        }
    }
    return -1;
}

/* The message of a field at q whose padded read failed with rc: a varint
 * that only ends in the padding after qe is a field cut short. */
static inline const char *hf_padded_varint_why(int rc, const uint8_t *q,
                                               const uint8_t *qe)
{
    if (rc == HF_VARINT_LONG) {
        const uint8_t *p = q;
        while (p < q + HF_VARINT_MAX - 1 && *p >= 0x80)
            p++;
        if (p >= qe)
            rc = -1;
    }
    return hf_varint_why(rc);
}

static inline uint64_t hf_zigzag(uint64_t diff)
{
    return (diff << 1) ^ (uint64_t)((int64_t)diff >> 63);
}

static inline uint64_t hf_unzigzag(uint64_t z)
{
    return (z >> 1) ^ ((uint64_t)0 - (z & 1));
}

/* ---- 4. File header ---- */

#define HF_MAGIC "\x89HFMT\r\n\x1a"
#define HF_HEADER_SIZE 16u

typedef struct hf_file_header {
    uint8_t major, minor;
    uint16_t flags; /* reserved */
} hf_file_header;

void hf_file_header_encode(uint8_t out[HF_HEADER_SIZE],
                           const hf_file_header *h);
/* The magic is checked by the caller (it explains foreign inputs); this
 * checks the CRC. Returns NULL or what is wrong. */
const char *hf_file_header_decode(const uint8_t in[HF_HEADER_SIZE],
                                  hf_file_header *h);

/* ---- 5. Blocks ---- */

#define HF_BLOCK_HEADER_SIZE 20u
#define HF_KIND_DATA 0x44u   /* 'D' */
#define HF_KIND_FOOTER 0x46u /* 'F' */
#define HF_CODEC_STORED HEAPFMT_CODEC_STORED
#define HF_CODEC_DEFLATE HEAPFMT_CODEC_DEFLATE
#define HF_CODEC_ZSTD HEAPFMT_CODEC_ZSTD
#define HF_CODEC_LAST HF_CODEC_ZSTD
/* The most a codec can expand its input (spec section 5): DEFLATE codes
 * a 258-byte match in two bits; Zstandard's densest block is an RLE block
 * of 128 KiB in 4 bytes (3-byte header, 1 byte). A block claiming more
 * cannot decode to its raw_len. */
#define HF_DEFLATE_MAX_RATIO 1032u
#define HF_DEFLATE_MAX_SLACK 258u
#define HF_ZSTD_MAX_RATIO 32768u

typedef struct hf_block_header {
    uint8_t kind, codec;
    uint16_t reserved;
    uint32_t raw_len, stored_len, data_crc;
} hf_block_header;

/* Encodes a header; header_crc is computed here. */
void hf_block_header_encode(uint8_t out[HF_BLOCK_HEADER_SIZE],
                            const hf_block_header *b);

/* Results of hf_block_header_decode, in the order of spec section 5's
 * checks. */
enum hf_block_check {
    HF_BLOCK_OK = 0,
    HF_BLOCK_BAD_CRC,      /* lengths cannot be trusted: stop */
    HF_BLOCK_BAD_LENGTHS,  /* out of range: stop */
    HF_BLOCK_RESERVED,     /* reserved bits set (strict readers) */
    HF_BLOCK_BAD_CODEC,    /* a codec unknown to this format version */
    HF_BLOCK_INCONSISTENT  /* lengths impossible for the codec */
};

/* Decodes and checks a header. strict: reserved bits must be zero.
 * Returns an enum hf_block_check; *b is filled whenever the CRC matched. */
int hf_block_header_decode(const uint8_t in[HF_BLOCK_HEADER_SIZE], int strict,
                           hf_block_header *b);

/* ---- 6. Records: framing ---- */

/* Tag and length in front of every record payload. */
static inline uint8_t *hf_record_head_encode(uint8_t *p, unsigned tag,
                                             size_t len)
{
    *p++ = (uint8_t)tag;
    return hf_put_varint(p, len);
}

/* ---- 6.1 META ---- */

#define HF_META_KEY_MAX HEAPFMT_MAX_KEY

typedef struct hf_meta {
    unsigned type; /* enum heapfmt_meta_type */
    const uint8_t *key;
    size_t key_len;
    const uint8_t *text; /* TEXT */
    size_t text_len;
    uint64_t num;        /* UINT, or INT already zigzagged */
} hf_meta;

/* Whether key[0..n) is a valid META key: 1..255 bytes of [A-Za-z0-9._-]. */
int hf_meta_key_valid(const uint8_t *key, size_t n);
size_t hf_meta_bound(const hf_meta *m);
uint8_t *hf_meta_encode(uint8_t *p, const hf_meta *m);
/* *known is 0 for a value type of a later version (the record is skipped). */
const char *hf_meta_decode(const uint8_t *q, const uint8_t *qe, hf_meta *m,
                           int *known);

/* ---- 6.2 STRING ---- */

typedef struct hf_string_rec {
    uint64_t id;
    const uint8_t *text;
    size_t len;
} hf_string_rec;

static inline size_t hf_string_bound(size_t len)
{
    return HF_VARINT_MAX + len;
}
uint8_t *hf_string_encode(uint8_t *p, const hf_string_rec *s);
const char *hf_string_decode(const uint8_t *q, const uint8_t *qe,
                             hf_string_rec *s);

/* ---- 6.3 CLASS ---- */

#define HF_CLASS_FLAGS_KNOWN 0x07u

typedef struct hf_class_rec {
    uint64_t index, id, name, super_id, flags;
} hf_class_rec;

#define HF_CLASS_BOUND (5 * HF_VARINT_MAX)
uint8_t *hf_class_encode(uint8_t *p, const hf_class_rec *c);
const char *hf_class_decode(const uint8_t *q, const uint8_t *qe,
                            hf_class_rec *c);

/* ---- 6.4 OBJECT ---- */

/* Field bits a file of each minor version may set; the rest are reserved. */
#define HF_OBJ_FIELDS_1_0 0x0fu
#define HF_OBJ_FIELDS_1_1 0x3fu
#define HF_OBJ_FIELDS_1_3 0x7fu

/* An OBJECT record as stored: the id is already a delta, class and
 * strings are numbers. The references (refs..end) are left encoded; the
 * stack id and labels that follow them in a 1.1 record are read by
 * hf_object_tail_decode. */
typedef struct hf_object_rec {
    uint64_t id_delta; /* zigzag(id - previous id) */
    uint64_t klass, type, size;
    uint32_t fields;
    uint64_t flags;
    const uint8_t *value;
    uint64_t value_len;
    uint64_t file, line, generation;
    uint64_t nrefs;
    const uint8_t *refs; /* encoded references, up to the record's end */
} hf_object_rec;

/* The fixed and optional fields before the references, at most: */
#define HF_OBJECT_HEAD_BOUND (7 * HF_VARINT_MAX + 1)

/* Encodes the fields up to and including nrefs (value included). */
static inline uint8_t *hf_object_head_encode(uint8_t *p,
                                             const hf_object_rec *o)
{
    uint32_t f = o->fields;
    p = hf_put_varint(p, o->id_delta);
    p = hf_put_varint(p, o->klass);
    p = hf_put_varint(p, o->type);
    p = hf_put_varint(p, o->size);
    *p++ = (uint8_t)f;
    if (f & HEAPFMT_F_FLAGS)
        p = hf_put_varint(p, o->flags);
    if (f & HEAPFMT_F_VALUE) {
        p = hf_put_varint(p, o->value_len);
        if (o->value_len)
            memcpy(p, o->value, (size_t)o->value_len);
        p += o->value_len;
    }
    if (f & HEAPFMT_F_SITE) {
        p = hf_put_varint(p, o->file);
        p = hf_put_varint(p, o->line);
    }
    if (f & HEAPFMT_F_GENERATION)
        p = hf_put_varint(p, o->generation);
    return hf_put_varint(p, o->nrefs);
}

/* Decodes the fields up to nrefs from a padded payload (HF_RAW_PAD): no
 * end check per byte, the position is checked against qe after at most
 * five varints. known: the field bits of the file's version; a set bit
 * outside it is an error when strict, else dropped. */
static inline const char *hf_object_head_decode(const uint8_t *q,
                                                const uint8_t *qe,
                                                uint32_t known, int strict,
                                                hf_object_rec *o)
{
#define HF_PGET(v)                                   \
    do {                                             \
        int rc_ = hf_get_varint_padded(&q, &(v));    \
        if (rc_ < 0)                                 \
            return hf_padded_varint_why(rc_, q, qe); \
    } while (0)
    HF_PGET(o->id_delta);
    HF_PGET(o->klass);
    HF_PGET(o->type);
    HF_PGET(o->size);
    if (q >= qe)
        return "truncated field";
    uint32_t f = *q++;
    if ((f & ~known) && strict)
        return "reserved OBJECT field bits set";
    f &= known;
    o->fields = f;
    o->flags = 0;
    o->value = NULL;
    o->value_len = 0;
    o->file = 0;
    o->line = 0;
    o->generation = 0;
    if (f & (HEAPFMT_F_FLAGS | HEAPFMT_F_VALUE | HEAPFMT_F_SITE |
             HEAPFMT_F_GENERATION)) {
        if (f & HEAPFMT_F_FLAGS)
            HF_PGET(o->flags);
        if (f & HEAPFMT_F_VALUE) {
            HF_PGET(o->value_len);
            if (q > qe)
                return "truncated field";
            if (o->value_len > HEAPFMT_MAX_STRING ||
                o->value_len > (uint64_t)(qe - q))
                return "value length out of range";
            o->value = q;
            q += o->value_len;
        }
        if (f & HEAPFMT_F_SITE) {
            HF_PGET(o->file);
            HF_PGET(o->line);
        }
        if (f & HEAPFMT_F_GENERATION)
            HF_PGET(o->generation);
    }
    HF_PGET(o->nrefs);
#undef HF_PGET
    if (q > qe)
        return "truncated field";
    if (o->nrefs > HEAPFMT_MAX_REFS || o->nrefs > (uint64_t)(qe - q))
        return "reference count out of range";
    o->refs = q;
    return NULL;
}

/* References: n ids as zigzag deltas, the first from base (the object's
 * id; 0 for a ROOT). */
static inline uint8_t *hf_refs_encode(uint8_t *p, uint64_t base,
                                      const uint64_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p = hf_put_varint(p, hf_zigzag(ids[i] - base));
        base = ids[i];
    }
    return p;
}

size_t hf_refs_len(uint64_t base, const uint64_t *ids, size_t n);

/* Bound on the encoded references: exact for long lists (so that a big
 * array is not refused for a bound it would never reach). */
static inline size_t hf_refs_bound(uint64_t base, const uint64_t *ids,
                                   size_t n)
{
    return n <= 256 ? n * HF_VARINT_MAX : hf_refs_len(base, ids, n);
}

/* Decodes n references into ids (may be NULL to only skip them); *pp
 * advances past them. Returns NULL or what is wrong. */
const char *hf_refs_decode(const uint8_t **pp, const uint8_t *qe,
                           uint64_t base, uint64_t n, uint64_t *ids);

/* ---- 6.4/6.5 labels (1.1), after the references ---- */

/* Label varint: value << 4 | weak << 3 | kind. */
#define HF_LABEL_KIND_MASK 0x7u
#define HF_LABEL_WEAK 0x8u
#define HF_LABEL_VALUE_SHIFT 4

/* Bytes the labels of n references take at most. */
static inline size_t hf_labels_bound(size_t n)
{
    return HF_VARINT_MAX + n * 2 * HF_VARINT_MAX;
}

/* Whether a label is written: kind NONE and not weak is left out. */
static inline int hf_label_written(const heapfmt_label *l)
{
    return l->kind != HEAPFMT_LABEL_NONE || l->weak;
}

/* Encodes the labels of n references, count of them written (count,
 * then per written label the references skipped before it and the
 * label). */
uint8_t *hf_labels_encode(uint8_t *p, const heapfmt_label *labels, size_t n,
                          size_t count);

/* The same in the indexed form of a record with F_INDEXED (1.3): an INDEX
 * label is left out when its index - position equals that of the
 * previous INDEX label (0 before the first) and it is not weak; every
 * other label is written, NONE ones included (count of them). */
uint8_t *hf_labels_encode_indexed(uint8_t *p, const heapfmt_label *labels,
                                  size_t n, size_t count);

/* One decoded label: position of its reference and its fields; value is
 * the string id or, for INDEX, the index. */
typedef struct hf_label_rec {
    uint64_t position;
    uint32_t kind, weak;
    uint64_t value;
} hf_label_rec;

/* Decoding the label list of a record with nrefs references: begin reads
 * the count, then each call of next gives one label, in order (positions
 * strictly increasing, < nrefs), while left > 0. Both return NULL or what
 * is wrong. Inline steps rather than a callback: labels come by the
 * million, and the caller's work per label then inlines into the loop. */
typedef struct hf_labels_iter {
    const uint8_t *q, *qe;
    uint64_t nrefs;
    uint64_t next; /* the first position the next label may have */
    uint64_t left; /* labels still to decode */
} hf_labels_iter;

static inline const char *hf_labels_begin(hf_labels_iter *it, const uint8_t *q,
                                          const uint8_t *qe, uint64_t nrefs)
{
    it->q = q;
    it->qe = qe;
    it->nrefs = nrefs;
    it->next = 0;
    int rc = hf_get_varint(&it->q, qe, &it->left);
    if (rc < 0)
        return hf_varint_why(rc);
    if (it->left > nrefs)
        return "more labels than references";
    return NULL;
}

static inline const char *hf_labels_next(hf_labels_iter *it, hf_label_rec *l)
{
    uint64_t skip, v;
    int rc = hf_get_varint(&it->q, it->qe, &skip);
    if (rc == 0)
        rc = hf_get_varint(&it->q, it->qe, &v);
    if (rc < 0)
        return hf_varint_why(rc);
    if (skip >= it->nrefs - it->next)
        return "label past the last reference";
    l->position = it->next + skip;
    l->kind = (uint32_t)(v & HF_LABEL_KIND_MASK);
    l->weak = (v & HF_LABEL_WEAK) != 0;
    l->value = v >> HF_LABEL_VALUE_SHIFT;
    if (l->kind > HEAPFMT_LABEL_OTHER)
        return "unknown label kind";
    if (l->kind == HEAPFMT_LABEL_INDEX)
        l->value = hf_unzigzag(l->value) + l->position;
    it->next = l->position + 1;
    it->left--;
    return NULL;
}

/* What follows the references of a 1.1 OBJECT: stack id (F_STACK), then
 * labels (F_LABELS). */
typedef struct hf_object_tail {
    uint64_t stack;
    const uint8_t *labels; /* NULL when absent */
} hf_object_tail;

/* Skips n references at refs and reads the tail of a record of these
 * fields. */
const char *hf_object_tail_decode(const uint8_t *refs, const uint8_t *qe,
                                  uint64_t n, uint32_t fields,
                                  hf_object_tail *t);

/* ---- 6.5 ROOT ---- */

/* Bit of the optional fields byte after a 1.1 ROOT's references. */
#define HF_ROOT_F_LABELS 0x01u

typedef struct hf_root_rec {
    uint64_t kind; /* string id */
    uint64_t nrefs;
    const uint8_t *refs; /* encoded, up to the record's end */
} hf_root_rec;

#define HF_ROOT_HEAD_BOUND (2 * HF_VARINT_MAX)
uint8_t *hf_root_head_encode(uint8_t *p, const hf_root_rec *r);
const char *hf_root_head_decode(const uint8_t *q, const uint8_t *qe,
                                hf_root_rec *r);
/* After the references: NULL labels when the record has none. */
const char *hf_root_tail_decode(const uint8_t *refs, const uint8_t *qe,
                                uint64_t n, int strict,
                                const uint8_t **labels);

/* ---- 6.6 END ---- */

typedef struct hf_end_rec {
    uint64_t objects, bytes, records;
} hf_end_rec;

#define HF_END_BOUND (3 * HF_VARINT_MAX)
uint8_t *hf_end_encode(uint8_t *p, const hf_end_rec *e);
const char *hf_end_decode(const uint8_t *q, const uint8_t *qe, hf_end_rec *e);

/* ---- 6.7 FRAME (1.1) ---- */

typedef struct hf_frame_rec {
    uint64_t id, function, library, offset, file, line;
} hf_frame_rec;

#define HF_FRAME_BOUND (6 * HF_VARINT_MAX)
uint8_t *hf_frame_encode(uint8_t *p, const hf_frame_rec *f);
const char *hf_frame_decode(const uint8_t *q, const uint8_t *qe,
                            hf_frame_rec *f);

/* ---- 6.8 STACK (1.1) ---- */

typedef struct hf_stack_rec {
    uint64_t id, nframes;
    const uint8_t *frames; /* nframes varints (frame ids), checked */
} hf_stack_rec;

static inline size_t hf_stack_bound(size_t nframes)
{
    return (2 + nframes) * HF_VARINT_MAX;
}
uint8_t *hf_stack_encode(uint8_t *p, uint64_t id, const uint32_t *frames,
                         size_t n);
/* Checks the whole record; the frame ids are then read with
 * hf_get_varint from s->frames, nframes times. */
const char *hf_stack_decode(const uint8_t *q, const uint8_t *qe,
                            hf_stack_rec *s);

/* ---- 6.9 LIFESPAN (1.2) ---- */

typedef struct hf_lifespan_rec {
    unsigned key; /* HEAPFMT_LIFESPAN_STACK | HEAPFMT_LIFESPAN_SITE */
    uint64_t stack, file, line;
    uint64_t allocs, frees, alloc_bytes, free_bytes, lifetime, oldest;
} hf_lifespan_rec;

#define HF_LIFESPAN_KEYS_KNOWN 0x03u
#define HF_LIFESPAN_BOUND (1 + 9 * HF_VARINT_MAX)
uint8_t *hf_lifespan_encode(uint8_t *p, const hf_lifespan_rec *l);
/* strict: reserved key bits are corrupt (a file not newer than 1.2). */
const char *hf_lifespan_decode(const uint8_t *q, const uint8_t *qe,
                               int strict, hf_lifespan_rec *l);

/* ---- 6.10 EVENTS (1.2) ---- */

/* An event's head: dt << 5 | g << 4 | op (spec 6.10). */
#define HF_EV_OP_MASK 0x0fu
#define HF_EV_GAP 0x10u
#define HF_EV_DT_SHIFT 5
#define HF_EV_DT_MAX (UINT64_MAX >> HF_EV_DT_SHIFT)
#define HF_EVENTS_HEAD_BOUND (4 * HF_VARINT_MAX)
/* head, gap and at most three fields (MARK) */
#define HF_EVENT_BOUND (5 * HF_VARINT_MAX)

/* Where the deltas of an event list stand: the previous event's sequence
 * number and time (seq0 and time0 before the first). */
typedef struct hf_event_state {
    uint64_t seq, time;
} hf_event_state;

/* The fields an op has after its head and gap: a block distance, an
 * alignment, a size, or MARK's three. */
enum { HF_EV_F_BLOCK = 1, HF_EV_F_ALIGN = 2, HF_EV_F_SIZE = 4,
       HF_EV_F_MARK = 8 };
static inline unsigned hf_event_fields(unsigned op)
{
    switch (op) {
    case HEAPFMT_EV_MALLOC:
    case HEAPFMT_EV_CALLOC:
    case HEAPFMT_EV_VALLOC:
    case HEAPFMT_EV_PVALLOC:
        return HF_EV_F_SIZE;
    case HEAPFMT_EV_REALLOC:
    case HEAPFMT_EV_REALLOCARRAY:
        return HF_EV_F_BLOCK | HF_EV_F_SIZE;
    case HEAPFMT_EV_POSIX_MEMALIGN:
    case HEAPFMT_EV_ALIGNED_ALLOC:
    case HEAPFMT_EV_MEMALIGN:
        return HF_EV_F_ALIGN | HF_EV_F_SIZE;
    case HEAPFMT_EV_FREE:
        return HF_EV_F_BLOCK;
    case HEAPFMT_EV_MARK:
        return HF_EV_F_MARK;
    default:
        return 0; /* reserved */
    }
}

/* Encodes e after the event s stands at, and moves s to it. The caller
 * has checked e (hf_event_check): seq after s's, time not before, block
 * below seq. At most HF_EVENT_BOUND bytes. Inline: the malloc recorder
 * encodes each event as it happens. */
static inline uint8_t *hf_event_encode(uint8_t *p, hf_event_state *s,
                                       const heapfmt_event *e)
{
    uint64_t gap = e->seq - s->seq - 1;
    uint64_t dt = e->time_us - s->time;
    p = hf_put_varint(p, dt << HF_EV_DT_SHIFT | (gap ? HF_EV_GAP : 0) | e->op);
    if (gap)
        p = hf_put_varint(p, gap);
    unsigned f = hf_event_fields(e->op);
    if (f & HF_EV_F_BLOCK)
        p = hf_put_varint(p, e->block ? e->seq - e->block : 0);
    if (f & HF_EV_F_ALIGN)
        p = hf_put_varint(p, e->align);
    if (f & HF_EV_F_SIZE)
        p = hf_put_varint(p, e->size);
    if (f & HF_EV_F_MARK) {
        p = hf_put_varint(p, e->rss);
        p = hf_put_varint(p, e->peak);
        p = hf_put_varint(p, e->own);
    }
    s->seq = e->seq;
    s->time = e->time_us;
    return p;
}

/* NULL when e may follow s in a record of thread `thread`, else why not. */
const char *hf_event_check(const hf_event_state *s, uint64_t thread,
                           const heapfmt_event *e);

uint8_t *hf_events_head_encode(uint8_t *p, uint64_t thread, uint64_t seq0,
                               uint64_t time0, uint64_t count);

/* An EVENTS record, checked whole by hf_events_decode; its events are
 * then read with hf_event_decode from events, count times, starting from
 * the state {seq0, time0}. */
typedef struct hf_events_rec {
    uint64_t thread, seq0, time0, count;
    const uint8_t *events, *end;
    uint64_t first_seq, last_seq, first_time, last_time;
} hf_events_rec;

const char *hf_events_decode(const uint8_t *q, const uint8_t *qe,
                             hf_events_rec *r);
/* Decodes the event at *pp (not past qe) after state s; advances both. */
const char *hf_event_decode(const uint8_t **pp, const uint8_t *qe,
                            hf_event_state *s, uint64_t thread,
                            heapfmt_event *e);

/* ---- 7.1 TOTALS ---- */

/* Fields a 1.0 footer has; 1.1 adds codecs. */
#define HF_TOTALS_FIELDS_1_0 8u
#define HF_TOTALS_BOUND (9 * HF_VARINT_MAX)
uint8_t *hf_totals_encode(uint8_t *p, const heapfmt_totals *t);
/* minor: the file's; codecs is read from 1.1 on. */
const char *hf_totals_decode(const uint8_t *q, const uint8_t *qe, int minor,
                             heapfmt_totals *t);

/* ---- 7.2 BLOCKS ---- */

static inline size_t hf_blocks_bound(size_t n)
{
    return HF_VARINT_MAX * (1 + 3 * n);
}
uint8_t *hf_blocks_encode(uint8_t *p, const heapfmt_block_entry *e, size_t n);
/* Reads the count; entries follow and are read one at a time. */
const char *hf_blocks_count_decode(const uint8_t **q, const uint8_t *qe,
                                   uint64_t *count);
const char *hf_blocks_entry_decode(const uint8_t **q, const uint8_t *qe,
                                   uint64_t *at, heapfmt_block_entry *e);

/* ---- 7.3 SUMMARY ---- */

typedef struct hf_summary_rec {
    uint64_t index, id, flags, count, bytes;
    const uint8_t *name;
    size_t name_len;
} hf_summary_rec;

static inline size_t hf_summary_bound(size_t name_len)
{
    return 6 * HF_VARINT_MAX + name_len;
}
uint8_t *hf_summary_encode(uint8_t *p, const hf_summary_rec *s);
const char *hf_summary_decode(const uint8_t *q, const uint8_t *qe,
                              hf_summary_rec *s);

/* ---- 8. Trailer ---- */

#define HF_END_MAGIC "\x89HFMTEND"
#define HF_TRAILER_SIZE 24u

typedef struct hf_trailer {
    uint64_t footer_offset;
    uint32_t reserved;
} hf_trailer;

void hf_trailer_encode(uint8_t out[HF_TRAILER_SIZE], const hf_trailer *t);
/* Returns NULL or what is wrong (magic, checksum, reserved when strict). */
const char *hf_trailer_decode(const uint8_t in[HF_TRAILER_SIZE], int strict,
                              hf_trailer *t);

/* CRC32 (zlib's), codec.c. */
uint32_t hf_crc32(const void *data, size_t len);

#endif /* HEAPFMT_FORMAT_H */
