/*
 * traw.c -- an independent heapfmt encoder for hand-made test dumps.
 */
#include "traw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static const unsigned char traw_magic[8] = { 0x89, 'H', 'F', 'M',
                                             'T',  '\r', '\n', 0x1a };
static const unsigned char traw_end_magic[8] = { 0x89, 'H', 'F', 'M',
                                                 'T',  'E', 'N', 'D' };

uint32_t traw_crc(const void *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

void traw_header(tbuf *out, unsigned major, unsigned minor, uint16_t flags)
{
    size_t start = out->len;
    tbuf_put(out, traw_magic, 8);
    tbuf_u8(out, major);
    tbuf_u8(out, minor);
    tbuf_u16le(out, flags);
    tbuf_u32le(out, traw_crc(out->data + start, 12));
}

static void deflate_raw(const void *in, size_t len, tbuf *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    uLong bound = deflateBound(&zs, (uLong)len);
    unsigned char *buf = malloc(bound + 16);
    if (buf == NULL)
        abort();
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    zs.next_out = buf;
    zs.avail_out = (uInt)(bound + 16);
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    tbuf_put(out, buf, zs.total_out);
    deflateEnd(&zs);
    free(buf);
}

/* One Zstandard frame (RFC 8878) of the payload, by libzstd itself. */
static void zstd_frame(const void *in, size_t len, tbuf *out)
{
    size_t bound = ZSTD_compressBound(len);
    unsigned char *buf = malloc(bound);
    if (buf == NULL)
        abort();
    size_t n = ZSTD_compress(buf, bound, in, len, 3);
    if (ZSTD_isError(n))
        abort();
    tbuf_put(out, buf, n);
    free(buf);
}

uint64_t traw_block(tbuf *out, unsigned kind, unsigned codec,
                    const void *payload, size_t len)
{
    uint64_t at = out->len;
    tbuf stored = { 0 };
    if (codec == 1)
        deflate_raw(payload, len, &stored);
    else if (codec == 2)
        zstd_frame(payload, len, &stored);
    else
        tbuf_put(&stored, payload, len);
    tbuf h = { 0 };
    tbuf_u8(&h, kind);
    tbuf_u8(&h, codec);
    tbuf_u16le(&h, 0);
    tbuf_u32le(&h, (uint32_t)len);
    tbuf_u32le(&h, (uint32_t)stored.len);
    tbuf_u32le(&h, traw_crc(payload, len));
    tbuf_u32le(&h, traw_crc(h.data, 16));
    tbuf_put(out, h.data, h.len);
    tbuf_put(out, stored.data, stored.len);
    tbuf_free(&h);
    tbuf_free(&stored);
    return at;
}

void traw_record(tbuf *payload, unsigned tag, const void *body, size_t len)
{
    tbuf_u8(payload, tag);
    tbuf_varint(payload, len);
    tbuf_put(payload, body, len);
}

void traw_trailer(tbuf *out, uint64_t footer_offset)
{
    size_t start = out->len;
    tbuf_u64le(out, footer_offset);
    tbuf_u32le(out, 0);
    tbuf_u32le(out, traw_crc(out->data + start, 12));
    tbuf_put(out, traw_end_magic, 8);
}

/* ---- builder ------------------------------------------------------------- */

void traw_begin(traw *d, unsigned major, unsigned minor, uint16_t flags,
                unsigned codec)
{
    memset(d, 0, sizeof *d);
    d->codec = codec;
    d->minor = minor;
    traw_header(&d->out, major, minor, flags);
}

void traw_free(traw *d)
{
    tbuf_free(&d->out);
    tbuf_free(&d->blk);
    for (size_t i = 0; i < TRAW_MAX_STRINGS; i++) {
        free(d->str[i].big);
        d->str[i].big = NULL;
    }
}

static void pad(traw *d, tbuf *body)
{
    for (size_t i = 0; i < d->pad; i++)
        tbuf_u8(body, 0xa0 + (unsigned)i);
}

/* Labels of n references (spec 6.4): count, then per label the
 * references skipped before it and value << 4 | weak << 3 | kind, an
 * index as zigzag(index - position). */
static void labels(tbuf *b, const heapfmt_label *l, size_t n)
{
    size_t count = 0, next = 0;
    for (size_t i = 0; i < n; i++)
        count += l[i].kind != 0 || l[i].weak;
    tbuf_varint(b, count);
    for (size_t i = 0; i < n; i++) {
        if (l[i].kind == 0 && !l[i].weak)
            continue;
        uint64_t v = l[i].value;
        if (l[i].kind == HEAPFMT_LABEL_INDEX)
            v = ((v - i) << 1) ^ (uint64_t)((int64_t)(v - i) >> 63);
        tbuf_varint(b, i - next);
        tbuf_varint(b, v << 4 | (uint64_t)(l[i].weak ? 8 : 0) | l[i].kind);
        next = i + 1;
    }
}

/* The same in the indexed form (1.3, OBJECT fields bit 6): the reader
 * infers, for a reference without an entry, the index position + rel,
 * rel being index - position of the last INDEX entry before it (0 at
 * first); so an entry is written for every label but an INDEX one, not
 * weak, that is what the reader would infer. */
static void labels_indexed(tbuf *b, const heapfmt_label *l, size_t n)
{
    tbuf entries = { 0 };
    size_t count = 0, last = 0;
    int64_t rel = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t here = (int64_t)(l[i].value - i);
        int index = l[i].kind == HEAPFMT_LABEL_INDEX;
        if (index && !l[i].weak && here == rel)
            continue;
        uint64_t v = l[i].value;
        if (index) {
            v = ((uint64_t)here << 1) ^ (uint64_t)(here >> 63);
            rel = here;
        }
        tbuf_varint(&entries, i - last);
        tbuf_varint(&entries,
                    v << 4 | (uint64_t)(l[i].weak ? 8 : 0) | l[i].kind);
        last = i + 1;
        count++;
    }
    tbuf_varint(b, count);
    tbuf_put(b, entries.data, entries.len);
    tbuf_free(&entries);
}

static void add(traw *d, unsigned tag, tbuf *body, int is_object)
{
    traw_record(&d->blk, tag, body->data, body->len);
    tbuf_free(body);
    d->blk_records++;
    d->records++;
    if (is_object) {
        d->blk_objects++;
        d->objects++;
    }
}

static void meta_head(tbuf *b, unsigned type, const char *key)
{
    tbuf_u8(b, type);
    tbuf_varint(b, strlen(key));
    tbuf_put(b, key, strlen(key));
}

/* A META whose value is a varint: type 1 (unsigned) the number itself,
 * type 2 (signed) its zigzag. */
static void meta_varint(traw *d, unsigned type, const char *key, uint64_t v)
{
    tbuf b = { 0 };
    meta_head(&b, type, key);
    tbuf_varint(&b, v);
    pad(d, &b);
    add(d, HEAPFMT_TAG_META, &b, 0);
}

void traw_meta_uint(traw *d, const char *key, uint64_t v)
{
    meta_varint(d, 1, key, v);
}

void traw_meta_int(traw *d, const char *key, int64_t v)
{
    meta_varint(d, 2, key, tzigzag(v));
}

void traw_meta_text(traw *d, const char *key, const char *text)
{
    tbuf b = { 0 };
    meta_head(&b, 0, key);
    tbuf_put(&b, text, strlen(text));
    add(d, HEAPFMT_TAG_META, &b, 0);
}

void traw_string(traw *d, uint32_t id, const char *text)
{
    tbuf b = { 0 };
    size_t len = strlen(text);
    tbuf_varint(&b, id);
    tbuf_put(&b, text, len);
    if (id < TRAW_MAX_STRINGS && len < sizeof d->str[0].text) {
        memcpy(d->str[id].text, text, len);
        d->str[id].len = len;
    } else if (id < TRAW_MAX_STRINGS) {
        free(d->str[id].big);
        d->str[id].big = malloc(len);
        if (d->str[id].big == NULL)
            abort();
        memcpy(d->str[id].big, text, len);
        d->str[id].len = len;
    }
    d->nstrings++;
    add(d, HEAPFMT_TAG_STRING, &b, 0);
}

/* The entry of class index (any value, huge ones included: hostile
 * dumps use them), made when missing; NULL when 64 are taken. */
static traw_class_entry *cls_entry(traw *d, uint32_t index)
{
    for (size_t i = 0; i < TRAW_MAX_CLASSES; i++)
        if (d->cls[i].used && d->cls[i].index == index)
            return &d->cls[i];
    for (size_t i = 0; i < TRAW_MAX_CLASSES; i++) {
        if (!d->cls[i].used) {
            d->cls[i].used = 1;
            d->cls[i].index = index;
            return &d->cls[i];
        }
    }
    return NULL;
}

void traw_class(traw *d, uint32_t index, uint64_t id, uint32_t name,
                uint64_t super, uint64_t flags)
{
    tbuf b = { 0 };
    tbuf_varint(&b, index);
    tbuf_varint(&b, id);
    tbuf_varint(&b, name);
    tbuf_varint(&b, super);
    tbuf_varint(&b, flags);
    pad(d, &b);
    traw_class_entry *c = cls_entry(d, index);
    if (c != NULL) {
        if (!c->defined && index > 0)
            d->nclasses++;
        c->defined = 1;
        c->id = id;
        c->flags = flags;
        c->name = name;
    }
    add(d, HEAPFMT_TAG_CLASS, &b, 0);
}

void traw_object(traw *d, const heapfmt_object *o)
{
    tbuf b = { 0 };
    tbuf_zdelta(&b, o->id, d->prev_id);
    d->prev_id = o->id;
    tbuf_varint(&b, o->class_id);
    tbuf_varint(&b, o->type);
    tbuf_varint(&b, o->size);
    tbuf_u8(&b, o->fields);
    if (o->fields & HEAPFMT_F_FLAGS)
        tbuf_varint(&b, o->flags);
    if (o->fields & HEAPFMT_F_VALUE) {
        tbuf_varint(&b, o->value_len);
        tbuf_put(&b, o->value, o->value_len);
    }
    if (o->fields & HEAPFMT_F_SITE) {
        tbuf_varint(&b, o->file);
        tbuf_varint(&b, o->line);
    }
    if (o->fields & HEAPFMT_F_GENERATION)
        tbuf_varint(&b, o->generation);
    tbuf_varint(&b, o->nrefs);
    uint64_t base = o->id;
    for (size_t i = 0; i < o->nrefs; i++) {
        tbuf_zdelta(&b, o->refs[i], base);
        base = o->refs[i];
    }
    if (o->fields & HEAPFMT_F_STACK)
        tbuf_varint(&b, o->stack);
    if ((o->fields & HEAPFMT_F_LABELS) && (o->fields & HEAPFMT_F_INDEXED))
        labels_indexed(&b, o->labels, o->nrefs);
    else if (o->fields & HEAPFMT_F_LABELS)
        labels(&b, o->labels, o->nrefs);
    pad(d, &b);
    traw_class_entry *c =
        o->class_id <= UINT32_MAX ? cls_entry(d, (uint32_t)o->class_id) : NULL;
    if (c != NULL) {
        c->count++;
        c->bytes += o->size;
    }
    d->bytes += o->size;
    add(d, HEAPFMT_TAG_OBJECT, &b, 1);
}

void traw_root(traw *d, uint32_t kind, const uint64_t *ids, size_t n)
{
    traw_root_labeled(d, kind, ids, NULL, n);
}

void traw_root_labeled(traw *d, uint32_t kind, const uint64_t *ids,
                       const heapfmt_label *l, size_t n)
{
    tbuf b = { 0 };
    tbuf_varint(&b, kind);
    tbuf_varint(&b, n);
    uint64_t base = 0;
    for (size_t i = 0; i < n; i++) {
        tbuf_zdelta(&b, ids[i], base);
        base = ids[i];
    }
    /* 1.1: a fields byte may follow the references (bit 0: labels); it
     * must be there before junk, or the junk would be read as it. */
    if (l != NULL || (d->minor >= 1 && d->pad)) {
        tbuf_u8(&b, l != NULL ? 1 : 0);
        if (l != NULL)
            labels(&b, l, n);
    }
    pad(d, &b);
    d->nroots++;
    add(d, HEAPFMT_TAG_ROOT, &b, 0);
}

void traw_frame(traw *d, uint32_t id, uint32_t function, uint32_t library,
                uint64_t offset, uint32_t file, uint64_t line)
{
    tbuf b = { 0 };
    tbuf_varint(&b, id);
    tbuf_varint(&b, function);
    tbuf_varint(&b, library);
    tbuf_varint(&b, offset);
    tbuf_varint(&b, file);
    tbuf_varint(&b, line);
    pad(d, &b);
    add(d, HEAPFMT_TAG_FRAME, &b, 0);
}

void traw_stack(traw *d, uint32_t id, const uint32_t *frames, size_t n)
{
    tbuf b = { 0 };
    tbuf_varint(&b, id);
    tbuf_varint(&b, n);
    for (size_t i = 0; i < n; i++)
        tbuf_varint(&b, frames[i]);
    pad(d, &b);
    add(d, HEAPFMT_TAG_STACK, &b, 0);
}

void traw_lifespan(traw *d, const heapfmt_lifespan *l)
{
    tbuf b = { 0 };
    tbuf_u8(&b, l->key);
    if (l->key & 1u) /* a stack */
        tbuf_varint(&b, l->stack);
    if (l->key & 2u) { /* a site */
        tbuf_varint(&b, l->file);
        tbuf_varint(&b, l->line);
    }
    tbuf_varint(&b, l->allocs);
    tbuf_varint(&b, l->frees);
    tbuf_varint(&b, l->alloc_bytes);
    tbuf_varint(&b, l->free_bytes);
    tbuf_varint(&b, l->lifetime_us);
    tbuf_varint(&b, l->oldest_us);
    pad(d, &b);
    add(d, 0x09, &b, 0);
}

void traw_events(traw *d, uint64_t thread, uint64_t seq0, uint64_t time0,
                 uint64_t count, const traw_event *ev, size_t n)
{
    tbuf b = { 0 };
    tbuf_varint(&b, thread);
    tbuf_varint(&b, seq0);
    tbuf_varint(&b, time0);
    tbuf_varint(&b, count);
    for (size_t i = 0; i < n; i++) {
        /* head: dt in the bits above 5, bit 4 when a gap follows, op */
        tbuf_varint(&b, ev[i].dt << 5 | (ev[i].gap ? 0x10u : 0) | ev[i].op);
        if (ev[i].gap)
            tbuf_varint(&b, ev[i].gap);
        for (size_t k = 0; k < ev[i].nfields; k++)
            tbuf_varint(&b, ev[i].field[k]);
    }
    pad(d, &b);
    add(d, 0x0a, &b, 0);
}

void traw_any(traw *d, unsigned tag, const void *body, size_t len)
{
    tbuf b = { 0 };
    tbuf_put(&b, body, len);
    add(d, tag, &b, 0);
}

void traw_flush(traw *d)
{
    if (d->blk.len == 0)
        return;
    if (d->nent >= TRAW_MAX_BLOCKS)
        abort();
    uint64_t at = traw_block(&d->out, 0x44, d->codec, d->blk.data,
                             d->blk.len);
    d->ent[d->nent].offset = at;
    d->ent[d->nent].records = d->blk_records;
    d->ent[d->nent].objects = d->blk_objects;
    d->nent++;
    d->raw_bytes += d->blk.len;
    d->codecs |= 1u << d->codec;
    d->blk.len = 0;
    d->blk_records = d->blk_objects = 0;
    d->prev_id = 0;
}

void traw_foreign_block(traw *d, unsigned kind, const void *payload,
                        size_t len)
{
    traw_flush(d);
    traw_block(&d->out, kind, d->codec, payload, len);
}

void traw_finish(traw *d)
{
    tbuf b = { 0 };
    uint64_t before = d->records;
    const traw_lies *l = &d->lie;
    if (!l->no_end) {
        tbuf_varint(&b, d->objects + (uint64_t)l->end_objects);
        tbuf_varint(&b, d->bytes + (uint64_t)l->end_bytes);
        tbuf_varint(&b, before + (uint64_t)l->end_records);
        pad(d, &b);
        add(d, HEAPFMT_TAG_END, &b, 0);
    }
    traw_flush(d);
    if (l->extra_footer_block)
        traw_block(&d->out, 0x46, 0, "junk", 4);

    tbuf f = { 0 };
    /* TOTALS */
    tbuf_varint(&b, d->objects);
    tbuf_varint(&b, d->bytes + (uint64_t)l->totals_bytes);
    tbuf_varint(&b, before);
    tbuf_varint(&b, d->nclasses);
    tbuf_varint(&b, d->nstrings);
    tbuf_varint(&b, d->nroots);
    tbuf_varint(&b, d->nent);
    tbuf_varint(&b, d->raw_bytes + (uint64_t)l->totals_raw_bytes);
    if (d->minor >= 1) /* 1.1: the codecs of the data blocks */
        tbuf_varint(&b, d->codecs | l->totals_codecs);
    pad(d, &b);
    traw_record(&f, HEAPFMT_TAG_TOTALS, b.data, b.len);
    tbuf_free(&b);
    /* BLOCKS */
    tbuf_varint(&b, d->nent);
    uint64_t prev = 0;
    for (size_t i = 0; i < d->nent; i++) {
        tbuf_varint(&b, d->ent[i].offset - prev);
        prev = d->ent[i].offset;
        tbuf_varint(&b, d->ent[i].records);
        tbuf_varint(&b, d->ent[i].objects);
    }
    pad(d, &b);
    traw_record(&f, HEAPFMT_TAG_BLOCKS, b.data, b.len);
    tbuf_free(&b);
    /* SUMMARY, index order; index 0 only when objects without class */
    uint64_t last = 0;
    for (;;) {
        /* the entry of the next index above last (index 0 first) */
        traw_class_entry *c = NULL;
        for (size_t i = 0; i < TRAW_MAX_CLASSES; i++)
            if (d->cls[i].used && (uint64_t)d->cls[i].index + 1 > last &&
                (c == NULL || d->cls[i].index < c->index))
                c = &d->cls[i];
        if (c == NULL)
            break;
        last = (uint64_t)c->index + 1;
        if (c->index == 0 ? c->count == 0 : !c->defined)
            continue;
        tbuf_varint(&b, c->index);
        tbuf_varint(&b, c->id);
        tbuf_varint(&b, c->flags);
        tbuf_varint(&b, c->count);
        tbuf_varint(&b, c->bytes);
        uint32_t name = c->name;
        size_t nlen = name < TRAW_MAX_STRINGS ? d->str[name].len : 0;
        tbuf_varint(&b, nlen);
        if (nlen)
            tbuf_put(&b, d->str[name].big ? d->str[name].big
                                           : d->str[name].text, nlen);
        pad(d, &b);
        traw_record(&f, HEAPFMT_TAG_SUMMARY, b.data, b.len);
        tbuf_free(&b);
    }
    uint64_t footer_at = traw_block(&d->out, 0x46, d->codec, f.data, f.len);
    traw_trailer(&d->out, footer_at);
    tbuf_free(&f);
}
