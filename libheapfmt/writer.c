/* writer.c -- the streaming writer: records into blocks, blocks to the sink.
 *
 * Memory: one raw block buffer, one compressed buffer, zlib's state, the
 * string intern table, the class table and the block index. All grow only
 * when something new appears (a string, a class, a block, a record larger
 * than any before), never per object. */
#include <errno.h>

#include "writer_internal.h"

/* ---- sink ---- */

static int fail(heapfmt_writer *w, int code, int sys_errno, const char *fmt,
                const char *detail)
{
    hf_set_error(&w->err, code, sys_errno, w->offset, w->nblocks, w->records,
                 fmt, detail);
    if (code == HEAPFMT_E_IO || code == HEAPFMT_E_NOMEM)
        w->sticky = code;
    return code;
}

static int sink(heapfmt_writer *w, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        long n = w->write(w->opaque, p, len);
        if (n > 0 && (size_t)n <= len) {
            p += n;
            len -= (size_t)n;
            w->offset += (uint64_t)n;
        } else if (n == -EINTR || n == -EAGAIN) {
            continue;
        } else if (n < 0) {
            return fail(w, HEAPFMT_E_IO, (int)-n, "write failed: %s",
                        strerror((int)-n));
        } else {
            return fail(w, HEAPFMT_E_IO, EIO, "%s",
                        n == 0 ? "write callback made no progress"
                               : "write callback claimed more than asked");
        }
    }
    return HEAPFMT_OK;
}

/* ---- blocks ---- */

static int write_file_header(heapfmt_writer *w)
{
    uint8_t h[HF_HEADER_SIZE];
    memcpy(h, HF_MAGIC, 8);
    h[8] = HEAPFMT_FORMAT_MAJOR;
    h[9] = HEAPFMT_FORMAT_MINOR;
    hf_put_u16(h + 10, 0);
    hf_put_u32(h + 12, hf_crc32(h, 12));
    w->header_written = 1;
    return sink(w, h, sizeof h);
}

/* Compresses and writes the buffered records as one block of this kind. */
static int emit_block(heapfmt_writer *w, unsigned kind)
{
    int rc;
    if (!w->header_written && (rc = write_file_header(w)) != HEAPFMT_OK)
        return rc;
    const uint8_t *payload = w->buf;
    size_t stored = w->len;
    unsigned codec = HF_CODEC_STORED;
    if (w->level > 0) {
        size_t zlen;
        rc = hf_deflate_block(&w->z, w->buf, w->len, &zlen);
        if (rc != HEAPFMT_OK)
            return fail(w, rc, 0, "%s", "compression failed");
        if (zlen < w->len) {
            payload = w->z.out;
            stored = zlen;
            codec = HF_CODEC_DEFLATE;
        }
    }
    uint8_t h[HF_BLOCK_HEADER_SIZE];
    h[0] = (uint8_t)kind;
    h[1] = (uint8_t)codec;
    hf_put_u16(h + 2, 0);
    hf_put_u32(h + 4, (uint32_t)w->len);
    hf_put_u32(h + 8, (uint32_t)stored);
    hf_put_u32(h + 12, hf_crc32(w->buf, w->len));
    hf_put_u32(h + 16, hf_crc32(h, 16));
    uint64_t start = w->offset;
    if ((rc = sink(w, h, sizeof h)) != HEAPFMT_OK ||
        (rc = sink(w, payload, stored)) != HEAPFMT_OK)
        return rc;
    if (kind == HF_KIND_DATA) {
        if (hf_grow(&w->al, (void **)&w->blocks, &w->cblocks, w->nblocks + 1,
                    sizeof *w->blocks) < 0)
            return fail(w, HEAPFMT_E_NOMEM, 0, "%s", "block index");
        w->blocks[w->nblocks].offset = start;
        w->blocks[w->nblocks].records = w->block_records;
        w->blocks[w->nblocks].objects = w->block_objects;
        w->nblocks++;
        w->raw_bytes += w->len;
    }
    w->len = 0;
    w->prev_id = 0;
    w->block_records = w->block_objects = 0;
    return HEAPFMT_OK;
}

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
        fail(w, HEAPFMT_E_LIMIT, 0, "%s", "record larger than a block may be");
        return NULL;
    }
    if (w->len > 0 && w->len + need > w->block_size) {
        if (w->kind == HF_KIND_FOOTER) { /* the footer is a single block */
            fail(w, HEAPFMT_E_LIMIT, 0, "%s", "footer larger than a block");
            return NULL;
        }
        if (emit_block(w, w->kind) != HEAPFMT_OK)
            return NULL;
    }
    if (w->len + need > w->cap) {
        size_t cap = w->cap;
        if (hf_grow(&w->al, (void **)&w->buf, &cap, w->len + need, 1) < 0) {
            fail(w, HEAPFMT_E_NOMEM, 0, "%s", "record buffer");
            return NULL;
        }
        w->cap = cap;
    }
    *hdr = h;
    return w->buf + w->len + h;
}

/* The common case inline: the record fits the block being filled and
 * the buffer, so nothing is emitted or grown; the header room is what
 * begin_record_slow would leave. (The buffer is not always as large as
 * block_size: the footer's block_size is the largest block.) */
static inline uint8_t *begin_record(heapfmt_writer *w, size_t bound,
                                    size_t *hdr)
{
    size_t h = bound < 0x80 ? 2 : bound < 0x4000 ? 3 : 0;
    size_t end = w->len + h + bound;
    if (h != 0 && end <= w->block_size && end <= w->cap) {
        *hdr = h;
        return w->buf + w->len + h;
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
        return fail(w, HEAPFMT_E_LIMIT, 0, "%s",
                    "record larger than a block may be");
    if (h < hdr)
        memmove(start + h, start + hdr, plen);
    start[0] = (uint8_t)tag;
    hf_put_varint(start + 1, plen);
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
        hf_set_error(&w->err, HEAPFMT_E_STATE, 0, w->offset, w->nblocks,
                     w->records, "%s",
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

static int key_ok(const char *key, size_t *len)
{
    size_t n = 0;
    for (; key[n]; n++) {
        char c = key[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
        if (n >= HEAPFMT_MAX_KEY)
            return 0;
    }
    *len = n;
    return n > 0;
}

static int write_meta(heapfmt_writer *w, const char *key, unsigned type,
                      const char *text, uint64_t num)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    size_t klen, tlen = 0;
    if (!key || !key_ok(key, &klen))
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s",
                             "META key must be 1-255 bytes of [A-Za-z0-9._-]"));
    if (type == HEAPFMT_META_TEXT) {
        if (!text)
            return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s", "NULL META value"));
        tlen = strlen(text);
        if (tlen > HEAPFMT_MAX_STRING)
            return leave(w, fail(w, HEAPFMT_E_LIMIT, 0, "%s",
                                 "META value longer than 16 MiB"));
    }
    size_t hdr;
    uint8_t *p = begin_record(w, 1 + HF_VARINT_MAX + klen + HF_VARINT_MAX + tlen,
                              &hdr);
    if (!p)
        return leave(w, w->err.code);
    *p++ = (uint8_t)type;
    p = hf_put_varint(p, klen);
    memcpy(p, key, klen);
    p += klen;
    if (type == HEAPFMT_META_TEXT) {
        memcpy(p, text, tlen);
        p += tlen;
    } else {
        p = hf_put_varint(p, num);
    }
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

/* ---- STRING ---- */

/* Interns s; writes a STRING record when it is new. Caller holds busy. */
static int intern(heapfmt_writer *w, const char *s, size_t len, uint32_t *id)
{
    if (len > HEAPFMT_MAX_STRING)
        return fail(w, HEAPFMT_E_LIMIT, 0, "%s", "string longer than 16 MiB");
    if (!s && len)
        return fail(w, HEAPFMT_E_ARG, 0, "%s", "NULL string");
    int found;
    uint32_t nid = (uint32_t)(w->strings.count + 1);
    if (w->strings.count >= HEAPFMT_MAX_ID)
        return fail(w, HEAPFMT_E_LIMIT, 0, "%s", "too many strings");
    if (hf_strtab_intern(&w->strings, s ? s : "", len, nid, id, &found) < 0)
        return fail(w, HEAPFMT_E_NOMEM, 0, "%s", "string table");
    if (found)
        return HEAPFMT_OK;
    size_t hdr;
    uint8_t *p = begin_record(w, HF_VARINT_MAX + len, &hdr);
    int rc = w->err.code;
    if (p) {
        p = hf_put_varint(p, *id);
        if (len)
            memcpy(p, s, len);
        rc = end_record(w, HEAPFMT_TAG_STRING, hdr, p + len);
    }
    if (rc != HEAPFMT_OK) /* not written: the id must not be handed out */
        hf_strtab_forget_last(&w->strings);
    return rc;
}

int heapfmt_write_string(heapfmt_writer *w, const char *s, size_t len,
                         uint32_t *id)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!id)
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s", "NULL id pointer"));
    return leave(w, intern(w, s, len, id));
}

/* ---- CLASS ---- */

static int emit_class(heapfmt_writer *w, uint32_t index)
{
    const hf_wclass *c = &w->classes[index - 1];
    size_t hdr;
    uint8_t *p = begin_record(w, 5 * HF_VARINT_MAX, &hdr);
    if (!p)
        return w->err.code;
    p = hf_put_varint(p, index);
    p = hf_put_varint(p, c->id);
    p = hf_put_varint(p, c->name);
    p = hf_put_varint(p, c->super_id);
    p = hf_put_varint(p, c->flags);
    return end_record(w, HEAPFMT_TAG_CLASS, hdr, p);
}

static inline hf_class_cache *class_cache_slot(heapfmt_writer *w,
                                               uint64_t id)
{
    return &w->class_cache[(id * 0x9e3779b97f4a7c15ull) >> 56];
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
        return fail(w, HEAPFMT_E_LIMIT, 0, "%s", "too many classes");
    if (hf_grow(&w->al, (void **)&w->classes, &w->cclasses, w->nclasses + 1,
                sizeof *w->classes) < 0 ||
        hf_map_put(&w->class_ids, &w->al, id, (uint32_t)w->nclasses + 1) < 0)
        return fail(w, HEAPFMT_E_NOMEM, 0, "%s", "class table");
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
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s",
                             !c ? "NULL class"
                             : c->id == 0 ? "class id 0 is reserved"
                                          : "unknown class flag bits"));
    uint32_t name = 0;
    if (c->name && (rc = intern(w, c->name, c->name_len, &name)) != HEAPFMT_OK)
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

/* ---- OBJECT ---- */

static int check_string_id(heapfmt_writer *w, uint32_t id, const char *what)
{
    if (id <= w->strings.count)
        return HEAPFMT_OK;
    return fail(w, HEAPFMT_E_ARG, 0, "%s string id was never defined", what);
}

/* Encodes n references as zigzag deltas starting from base. */
static uint8_t *put_refs(uint8_t *p, uint64_t base, const uint64_t *ids,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p = hf_put_varint(p, hf_zigzag(ids[i] - base));
        base = ids[i];
    }
    return p;
}

static size_t refs_len(uint64_t base, const uint64_t *ids, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len += hf_varint_len(hf_zigzag(ids[i] - base));
        base = ids[i];
    }
    return len;
}

/* Bound on a record's payload: exact for large reference lists (so that a
 * big array is not refused for a bound it would never reach). */
static size_t refs_bound(uint64_t base, const uint64_t *ids, size_t n)
{
    return n <= 256 ? n * HF_VARINT_MAX : refs_len(base, ids, n);
}

int heapfmt_write_object(heapfmt_writer *w, const heapfmt_object *o)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!o)
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s", "NULL object"));
    uint32_t f = o->fields;
    size_t vlen = (f & HEAPFMT_F_VALUE) ? o->value_len : 0;
    if (f & ~(uint32_t)HEAPFMT_F_ALL)
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s", "unknown field bits"));
    if (vlen > HEAPFMT_MAX_STRING || o->nrefs > HEAPFMT_MAX_REFS)
        return leave(w, fail(w, HEAPFMT_E_LIMIT, 0, "%s",
                             vlen > HEAPFMT_MAX_STRING
                                 ? "value longer than 16 MiB"
                                 : "more than 2^24 references"));
    if ((vlen && !o->value) || (o->nrefs && !o->refs))
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s",
                             "NULL value or refs with a nonzero length"));
    if ((rc = check_string_id(w, o->type, "type")) != HEAPFMT_OK ||
        ((f & HEAPFMT_F_SITE) &&
         (rc = check_string_id(w, o->file, "file")) != HEAPFMT_OK))
        return leave(w, rc);

    uint32_t cls = 0;
    if (o->class_id != 0) {
        int created;
        if ((rc = class_index(w, o->class_id, &cls, &created)) != HEAPFMT_OK ||
            (created && (rc = emit_class(w, cls)) != HEAPFMT_OK))
            return leave(w, rc);
    }

    size_t bound = 7 * HF_VARINT_MAX + 1 + vlen +
                   refs_bound(o->id, o->refs, o->nrefs);
    size_t hdr;
    uint8_t *p = begin_record(w, bound, &hdr);
    if (!p)
        return leave(w, w->err.code);
    p = hf_put_varint(p, hf_zigzag(o->id - w->prev_id));
    p = hf_put_varint(p, cls);
    p = hf_put_varint(p, o->type);
    p = hf_put_varint(p, o->size);
    *p++ = (uint8_t)f;
    if (f & HEAPFMT_F_FLAGS)
        p = hf_put_varint(p, o->flags);
    if (f & HEAPFMT_F_VALUE) {
        p = hf_put_varint(p, vlen);
        if (vlen)
            memcpy(p, o->value, vlen);
        p += vlen;
    }
    if (f & HEAPFMT_F_SITE) {
        p = hf_put_varint(p, o->file);
        p = hf_put_varint(p, o->line);
    }
    if (f & HEAPFMT_F_GENERATION)
        p = hf_put_varint(p, o->generation);
    p = hf_put_varint(p, o->nrefs);
    p = put_refs(p, o->id, o->refs, o->nrefs);
    if ((rc = end_record(w, HEAPFMT_TAG_OBJECT, hdr, p)) != HEAPFMT_OK)
        return leave(w, rc);
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
    return leave(w, HEAPFMT_OK);
}

/* ---- ROOT ---- */

int heapfmt_write_root(heapfmt_writer *w, uint32_t kind, const uint64_t *ids,
                       size_t n)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (n > HEAPFMT_MAX_REFS)
        return leave(w, fail(w, HEAPFMT_E_LIMIT, 0, "%s",
                             "more than 2^24 references"));
    if (n && !ids)
        return leave(w, fail(w, HEAPFMT_E_ARG, 0, "%s", "NULL ids"));
    if ((rc = check_string_id(w, kind, "root kind")) != HEAPFMT_OK)
        return leave(w, rc);
    size_t hdr;
    uint8_t *p = begin_record(w, 2 * HF_VARINT_MAX + refs_bound(0, ids, n),
                              &hdr);
    if (!p)
        return leave(w, w->err.code);
    p = hf_put_varint(p, kind);
    p = hf_put_varint(p, n);
    p = put_refs(p, 0, ids, n);
    if ((rc = end_record(w, HEAPFMT_TAG_ROOT, hdr, p)) == HEAPFMT_OK)
        w->roots++;
    return leave(w, rc);
}

/* ---- flush, finish ---- */

int heapfmt_writer_flush(heapfmt_writer *w)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK)
        return rc;
    if (w->len > 0)
        rc = emit_block(w, HF_KIND_DATA);
    return leave(w, rc);
}

/* Appends one record with n varints (footer records). */
static int put_varints(heapfmt_writer *w, unsigned tag, const uint64_t *v,
                       size_t n, const char *text, size_t tlen)
{
    size_t hdr;
    uint8_t *p = begin_record(w, (n + 1) * HF_VARINT_MAX + tlen, &hdr);
    if (!p)
        return w->err.code;
    for (size_t i = 0; i < n; i++)
        p = hf_put_varint(p, v[i]);
    if (text) {
        p = hf_put_varint(p, tlen);
        memcpy(p, text, tlen);
        p += tlen;
    }
    return end_record(w, tag, hdr, p);
}

static int write_footer(heapfmt_writer *w, uint64_t records)
{
    int rc;
    w->kind = HF_KIND_FOOTER;
    w->block_size = HEAPFMT_MAX_BLOCK; /* the footer is one block */
    uint64_t totals[8] = {w->objects,  w->bytes,         records,
                          w->nclasses, w->strings.count, w->roots,
                          w->nblocks,  w->raw_bytes};
    if ((rc = put_varints(w, HEAPFMT_TAG_TOTALS, totals, 8, NULL, 0)) != 0)
        return rc;

    size_t bound = HF_VARINT_MAX * (1 + 3 * w->nblocks);
    size_t hdr;
    uint8_t *p = begin_record(w, bound, &hdr);
    if (!p)
        return w->err.code;
    p = hf_put_varint(p, w->nblocks);
    uint64_t prev = 0;
    for (size_t i = 0; i < w->nblocks; i++) {
        p = hf_put_varint(p, w->blocks[i].offset - prev);
        p = hf_put_varint(p, w->blocks[i].records);
        p = hf_put_varint(p, w->blocks[i].objects);
        prev = w->blocks[i].offset;
    }
    if ((rc = end_record(w, HEAPFMT_TAG_BLOCKS, hdr, p)) != HEAPFMT_OK)
        return rc;

    if (w->noclass_count) {
        uint64_t v[5] = {0, 0, 0, w->noclass_count, w->noclass_bytes};
        if ((rc = put_varints(w, HEAPFMT_TAG_SUMMARY, v, 5, "", 0)) != 0)
            return rc;
    }
    for (size_t i = 0; i < w->nclasses; i++) {
        const hf_wclass *c = &w->classes[i];
        uint64_t v[5] = {i + 1, c->id, c->flags, c->count, c->bytes};
        size_t nlen = 0;
        const char *name = c->name ? hf_strtab_text(&w->strings, c->name, &nlen)
                                   : "";
        if ((rc = put_varints(w, HEAPFMT_TAG_SUMMARY, v, 5, name, nlen)) != 0)
            return rc;
    }
    uint64_t footer_offset = w->offset;
    if ((rc = emit_block(w, HF_KIND_FOOTER)) != HEAPFMT_OK)
        return rc;

    uint8_t t[HF_TRAILER_SIZE];
    hf_put_u64(t, footer_offset);
    hf_put_u32(t + 8, 0);
    hf_put_u32(t + 12, hf_crc32(t, 12));
    memcpy(t + 16, HF_END_MAGIC, 8);
    return sink(w, t, sizeof t);
}

int heapfmt_writer_finish(heapfmt_writer *w)
{
    int rc = enter(w);
    if (rc != HEAPFMT_OK) {
        if (w && rc != HEAPFMT_E_STATE)
            hf_writer_close_target(w);
        return rc;
    }
    uint64_t end[3] = {w->objects, w->bytes, w->records};
    if ((rc = put_varints(w, HEAPFMT_TAG_END, end, 3, NULL, 0)) == HEAPFMT_OK &&
        (rc = emit_block(w, HF_KIND_DATA)) == HEAPFMT_OK)
        rc = write_footer(w, end[2]);
    if (rc != HEAPFMT_OK && !w->sticky)
        w->sticky = rc; /* a half-written footer cannot be continued */
    int crc = hf_writer_close_target(w);
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
