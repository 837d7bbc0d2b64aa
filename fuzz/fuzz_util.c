/* fuzz_util.c -- support shared by the heapfmt fuzz harnesses. */
#include "fuzz_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("fuzz: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

const char *fz_status_name(int status)
{
    switch (status) {
#define FZ_STATUS_CASE(name, value, msg) \
    case value:                          \
        return #name;
        HEAPFMT_STATUS_LIST(FZ_STATUS_CASE)
#undef FZ_STATUS_CASE
    }
    return "?";
}

uint64_t fz_hash(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* ---- input ---- */

uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

uint16_t fz_u16(fz_in *in)
{
    uint16_t v = fz_u8(in);
    return (uint16_t)(v | (fz_u8(in) << 8));
}

uint32_t fz_u32(fz_in *in)
{
    uint32_t v = fz_u16(in);
    return v | ((uint32_t)fz_u16(in) << 16);
}

uint64_t fz_u64(fz_in *in)
{
    uint64_t v = fz_u32(in);
    return v | ((uint64_t)fz_u32(in) << 32);
}

const uint8_t *fz_take(fz_in *in, size_t len, size_t *got)
{
    const uint8_t *p = in->p;
    if (len > in->n)
        len = in->n;
    in->p += len;
    in->n -= len;
    *got = len;
    return p;
}

/* ---- buffer ---- */

/* Appends n bytes to b uninitialised; returns where they start. */
static uint8_t *fz_extend(fz_buf *b, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q)
            fz_fail("harness out of memory (%zu bytes)", cap);
        b->p = q;
        b->cap = cap;
    }
    b->len += n;
    return b->p + b->len - n;
}

void fz_put(fz_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    memcpy(fz_extend(b, n), p, n);
}

void fz_put_u8(fz_buf *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    fz_put(b, &c, 1);
}

void fz_put_u64(fz_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    fz_put(b, t, 8);
}

void fz_put_u64s(fz_buf *b, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fz_put_u64(b, v[i]);
}

void fz_put_bytes(fz_buf *b, const void *p, size_t n)
{
    fz_put_u64(b, n);
    fz_put(b, p, n);
}

void fz_buf_reset(fz_buf *b)
{
    b->len = 0;
}

void fz_buf_free(fz_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---- allocator ---- */

static void *fz_alloc_fn(void *opaque, size_t size)
{
    /* atomic: a writer with a worker thread allocates from both */
    fz_alloc *a = opaque;
    uint64_t call = __atomic_add_fetch(&a->calls, 1, __ATOMIC_SEQ_CST);
    if (a->fail_at && call == a->fail_at) {
        __atomic_add_fetch(&a->failed, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    void *p = malloc(size);
    if (p)
        __atomic_add_fetch(&a->live, 1, __ATOMIC_SEQ_CST);
    return p;
}

static void fz_free_fn(void *opaque, void *p)
{
    fz_alloc *a = opaque;
    if (p) {
        __atomic_sub_fetch(&a->live, 1, __ATOMIC_SEQ_CST);
        free(p);
    }
}

void fz_alloc_init(fz_alloc *a, uint64_t fail_at)
{
    memset(a, 0, sizeof *a);
    a->hooks.alloc = fz_alloc_fn;
    a->hooks.free = fz_free_fn;
    a->hooks.opaque = a;
    a->fail_at = fail_at;
}

/* ---- sink ---- */

void fz_sink_init(fz_sink *s)
{
    memset(s, 0, sizeof *s);
}

long fz_sink_write(void *opaque, const void *buf, size_t len)
{
    fz_sink *s = opaque;
    s->calls++;
    FZ_CHECK(len > 0, "the writer called its sink with 0 bytes");
    if (s->fail_at &&
        (s->calls == s->fail_at || (!s->fail_once && s->calls > s->fail_at))) {
        s->failures++;
        return s->fail_errno ? -(long)s->fail_errno : 0;
    }
    if (s->eintr_every && s->calls % s->eintr_every == 0)
        return (s->calls / s->eintr_every) & 1 ? -EINTR : -EAGAIN;
    size_t n = len;
    if (s->max_call && n > s->max_call)
        n = s->max_call;
    fz_put(&s->out, buf, n);
    return (long)n;
}

/* ---- entry encoders ---- */

void fz_enc_record_head(fz_buf *e, int kind, uint64_t index, uint64_t offset,
                        unsigned flags)
{
    fz_put_u8(e, (unsigned)kind);
    fz_put_u64(e, index);
    if (flags & FZ_DETAIL)
        fz_put_u64(e, offset);
}

void fz_enc_string(fz_buf *e, int present, uint32_t id, uint32_t slot,
                   int undefined, const char *p, size_t len, unsigned flags)
{
    fz_put_u8(e, present ? 1 : 0);
    if (!present)
        return;
    fz_put_u64(e, id);
    if (flags & FZ_DETAIL)
        fz_put_u64(e, slot);
    fz_put_u8(e, undefined ? 1 : 0);
    fz_put_bytes(e, p, len);
}

void fz_enc_class(fz_buf *e, uint32_t index, uint32_t slot, uint64_t id,
                  uint64_t super_id, uint64_t cflags, int undefined,
                  int named, uint32_t name_id, uint32_t name_slot,
                  int name_undefined, const char *name, size_t name_len,
                  unsigned flags)
{
    fz_put_u64(e, index);
    if (flags & FZ_DETAIL)
        fz_put_u64(e, slot);
    fz_put_u64(e, id);
    fz_put_u64(e, super_id);
    fz_put_u64(e, cflags);
    fz_put_u8(e, undefined ? 1 : 0);
    fz_enc_string(e, named, name_id, name_slot, name_undefined, name, name_len,
                  flags);
}

void fz_enc_refs(fz_buf *e, long rc, const uint64_t *ids)
{
    fz_put_u64(e, (uint64_t)(int64_t)rc);
    if (rc <= 0)
        return;
    /* thousands of ids per record: one extension, not one per id */
    uint8_t *t = fz_extend(e, (size_t)rc * 8);
    for (long i = 0; i < rc; i++)
        for (int k = 0; k < 8; k++)
            *t++ = (uint8_t)(ids[i] >> (8 * k));
}

void fz_enc_labels_head(fz_buf *e, long rc)
{
    fz_put_u8(e, 'L');
    fz_put_u64(e, (uint64_t)(int64_t)rc);
}

void fz_enc_label(fz_buf *e, uint32_t kind, uint32_t weak, uint64_t index)
{
    fz_put_u8(e, kind);
    fz_put_u8(e, weak);
    fz_put_u64(e, index);
}

void fz_enc_frame_head(fz_buf *e, uint32_t id, uint32_t slot, int undefined,
                       uint64_t offset, uint64_t line, unsigned flags)
{
    fz_put_u64(e, id);
    if (flags & FZ_DETAIL)
        fz_put_u64(e, slot);
    fz_put_u8(e, undefined ? 1 : 0);
    fz_put_u64(e, offset);
    fz_put_u64(e, line);
}

void fz_enc_stack_head(fz_buf *e, int present, uint32_t id, uint32_t slot,
                       int undefined, uint64_t nframes, unsigned flags)
{
    fz_put_u8(e, present ? 1 : 0);
    if (!present)
        return;
    fz_put_u64(e, id);
    if (flags & FZ_DETAIL)
        fz_put_u64(e, slot);
    fz_put_u8(e, undefined ? 1 : 0);
    fz_put_u64(e, nframes);
}

/* ---- reader structures as entries, with contract checks ---- */

/* After a record without references, asking for them is refused. */
static void check_no_refs(heapfmt_reader *r, int tag)
{
    const uint64_t *ids;
    const heapfmt_rlabel *labels;
    FZ_CHECK(heapfmt_reader_refs(r, &ids) == HEAPFMT_E_STATE,
             "refs after a record of tag %d are not E_STATE", tag);
    FZ_CHECK(heapfmt_reader_labels(r, &labels) == HEAPFMT_E_STATE,
             "labels after a record of tag %d are not E_STATE", tag);
}

static void check_rstring(const heapfmt_rstring *s, const char *what)
{
    FZ_CHECK(s != NULL, "%s is NULL", what);
    FZ_CHECK(s->ptr != NULL, "%s has a NULL ptr", what);
    FZ_CHECK(s->ptr[s->len] == '\0', "%s is not NUL-terminated", what);
    FZ_CHECK(s->len <= HEAPFMT_MAX_STRING, "%s is %zu bytes long", what,
             s->len);
    if (s->undefined)
        FZ_CHECK(s->len == 0, "undefined %s has text", what);
}

static void enc_rstring(fz_buf *e, const heapfmt_rstring *s, unsigned flags,
                        const char *what)
{
    if (!s) {
        fz_enc_string(e, 0, 0, 0, 0, NULL, 0, flags);
        return;
    }
    check_rstring(s, what);
    fz_enc_string(e, 1, s->id, s->slot, s->undefined, s->ptr, s->len, flags);
}

static void enc_rclass(fz_buf *e, const heapfmt_rclass *c, unsigned flags)
{
    FZ_CHECK(c != NULL, "class is NULL");
    const heapfmt_rstring *n = c->name;
    if (n)
        check_rstring(n, "class name");
    fz_enc_class(e, c->index, c->slot, c->id, c->super_id, c->flags,
                 c->undefined, n != NULL, n ? n->id : 0, n ? n->slot : 0,
                 n ? n->undefined : 0, n ? n->ptr : NULL, n ? n->len : 0,
                 flags);
}

/* A frame (of a STACK, or a FRAME record): every field is read, so that
 * a bad pointer shows under ASan. */
static void enc_rframe(fz_buf *e, const heapfmt_rframe *f, unsigned flags)
{
    FZ_CHECK(f != NULL, "stack frame is NULL");
    check_rstring(f->function, "frame function");
    check_rstring(f->library, "frame library");
    check_rstring(f->file, "frame file");
    FZ_CHECK(f->id >= 1, "frame with id 0");
    if (f->undefined)
        FZ_CHECK(f->offset == 0 && f->line == 0 && f->function->len == 0 &&
                     f->library->len == 0 && f->file->len == 0,
                 "undefined frame %u has values", f->id);
    fz_enc_frame_head(e, f->id, f->slot, f->undefined, f->offset, f->line,
                      flags);
    enc_rstring(e, f->function, flags, "frame function");
    enc_rstring(e, f->library, flags, "frame library");
    enc_rstring(e, f->file, flags, "frame file");
}

static void enc_rstack(fz_buf *e, const heapfmt_rstack *s, unsigned flags)
{
    if (!s) {
        fz_enc_stack_head(e, 0, 0, 0, 0, 0, flags);
        return;
    }
    FZ_CHECK(s->id >= 1, "stack with id 0");
    FZ_CHECK(s->nframes <= HEAPFMT_MAX_FRAMES, "stack %u of %zu frames",
             s->id, s->nframes);
    if (s->undefined)
        FZ_CHECK(s->nframes == 0, "undefined stack %u has %zu frames", s->id,
                 s->nframes);
    else
        FZ_CHECK(s->nframes >= 1, "stack %u without frames", s->id);
    FZ_CHECK(s->nframes == 0 || s->frames != NULL,
             "stack %u: %zu frames at NULL", s->id, s->nframes);
    fz_enc_stack_head(e, 1, s->id, s->slot, s->undefined, s->nframes, flags);
    for (size_t i = 0; i < s->nframes; i++) {
        FZ_CHECK(s->frames[i] != NULL, "stack %u: frame %zu is NULL", s->id,
                 i);
        enc_rframe(e, s->frames[i], flags);
    }
}

void fz_entry_open(fz_buf *e, int rc, const heapfmt_reader *r, unsigned flags)
{
    fz_buf_reset(e);
    fz_put_u8(e, FZ_E_OPEN);
    fz_put_u64(e, (uint64_t)(int64_t)rc);
    if (r && rc != HEAPFMT_OK) {
        const heapfmt_error *er = heapfmt_reader_error(r);
        FZ_CHECK(er->code == rc, "open gave %s, error detail says %s",
                 fz_status_name(rc), fz_status_name(er->code));
        FZ_CHECK(memchr(er->message, '\0', sizeof er->message) != NULL &&
                     er->message[0] != '\0',
                 "open error without a message");
        if (flags & FZ_DETAIL) {
            fz_put_u64(e, er->offset);
            fz_put_bytes(e, er->message, strlen(er->message));
        }
    }
}

void fz_entry_footer(fz_buf *e, int rc, const heapfmt_footer *f,
                     unsigned flags)
{
    fz_put_u8(e, FZ_E_FOOTER);
    fz_put_u64(e, (uint64_t)(int64_t)rc);
    if (rc != HEAPFMT_OK)
        return;
    FZ_CHECK(f != NULL, "footer OK but NULL");
    const heapfmt_totals *t = &f->totals;
    const uint64_t totals[7] = {t->objects, t->bytes,   t->records,
                                t->classes, t->strings, t->roots,
                                f->nclasses};
    fz_put_u64s(e, totals, 7);
    FZ_CHECK(f->nclasses == 0 || f->classes != NULL, "footer classes NULL");
    for (size_t i = 0; i < f->nclasses; i++) {
        const heapfmt_class_summary *c = &f->classes[i];
        const uint64_t v[5] = {c->index, c->id, c->flags, c->count,
                               c->bytes};
        fz_put_u64s(e, v, 5);
        FZ_CHECK((c->name == NULL) == (c->name_len == 0),
                 "summary %zu: name %p with length %zu", i,
                 (const void *)c->name, c->name_len);
        if (c->name)
            FZ_CHECK(c->name[c->name_len] == '\0',
                     "summary name not NUL-terminated");
        fz_put_u8(e, c->name != NULL);
        if (c->name)
            fz_put_bytes(e, c->name, c->name_len);
    }
    if (flags & FZ_DETAIL) {
        fz_put_u64(e, t->blocks);
        fz_put_u64(e, t->raw_bytes);
        fz_put_u64(e, t->codecs);
        fz_put_u64(e, f->nblocks);
        FZ_CHECK(f->nblocks == 0 || f->blocks != NULL, "footer blocks NULL");
        for (size_t i = 0; i < f->nblocks; i++) {
            fz_put_u64(e, f->blocks[i].offset);
            fz_put_u64(e, f->blocks[i].records);
            fz_put_u64(e, f->blocks[i].objects);
        }
    }
}

/* ---- the walk ---- */

void fz_rd_init(fz_rd *d, heapfmt_reader *r, unsigned flags)
{
    memset(d, 0, sizeof *d);
    d->r = r;
    d->flags = flags;
    int major = 0, minor = 0;
    heapfmt_reader_version(r, &major, &minor);
    FZ_CHECK(major == HEAPFMT_FORMAT_MAJOR,
             "open succeeded on a file of major version %d", major);
}

void fz_rd_free(fz_rd *d)
{
    free(d->blk);
    d->blk = NULL;
}

static void note_block(fz_rd *d, uint64_t offset, int is_object)
{
    if (d->nblk == 0 || d->blk[d->nblk - 1].offset != offset) {
        if (d->nblk == d->cblk) {
            size_t cap = d->cblk ? d->cblk * 2 : 16;
            fz_blk *nb = realloc(d->blk, cap * sizeof *nb);
            if (!nb)
                fz_fail("harness out of memory");
            d->blk = nb;
            d->cblk = cap;
        }
        d->blk[d->nblk++] = (fz_blk){offset, 0, 0};
    }
    d->blk[d->nblk - 1].records++;
    if (is_object)
        d->blk[d->nblk - 1].objects++;
}

/* Labels of the record just delivered (after its references decoded),
 * twice: the second decode must give the same labels. labeled: the
 * record says it has labels (else there must be none, at no cost). */
static long enc_labels_once(fz_rd *d, fz_buf *e, uint64_t nrefs, int labeled)
{
    const heapfmt_rlabel *lb = NULL;
    long n = heapfmt_reader_labels(d->r, &lb);
    if (n >= 0) {
        FZ_CHECK(labeled ? (uint64_t)n == nrefs : n == 0,
                 "labels gave %ld for %llu references (labeled: %d)", n,
                 (unsigned long long)nrefs, labeled);
        FZ_CHECK(n == 0 || lb != NULL, "labels gave NULL labels");
        fz_enc_labels_head(e, n);
        for (long i = 0; i < n; i++) {
            const heapfmt_rlabel *l = &lb[i];
            FZ_CHECK(l->kind <= HEAPFMT_LABEL_OTHER && l->weak <= 1,
                     "label %ld: kind %u, weak %u", i, l->kind, l->weak);
            check_rstring(l->name, "label name");
            if (l->kind == HEAPFMT_LABEL_NONE ||
                l->kind == HEAPFMT_LABEL_INDEX)
                FZ_CHECK(l->name->len == 0 && l->name->id == 0,
                         "label %ld of kind %u has a name", i, l->kind);
            if (l->kind != HEAPFMT_LABEL_INDEX)
                FZ_CHECK(l->index == 0, "label %ld of kind %u has index %llu",
                         i, l->kind, (unsigned long long)l->index);
            fz_enc_label(e, l->kind, l->weak, l->index);
            enc_rstring(e, l->name, d->flags, "label name");
        }
        return n;
    }
    FZ_CHECK(labeled, "labels of a record without labels gave %s",
             fz_status_name((int)n));
    FZ_CHECK(n == HEAPFMT_E_CORRUPT || n == HEAPFMT_E_NOMEM ||
                 n == HEAPFMT_E_LIMIT,
             "labels gave %s", fz_status_name((int)n));
    const heapfmt_error *er = heapfmt_reader_error(d->r);
    FZ_CHECK(er->code == n, "labels gave %s, error detail says %s",
             fz_status_name((int)n), fz_status_name(er->code));
    FZ_CHECK(heapfmt_reader_can_continue(d->r) == (n == HEAPFMT_E_CORRUPT),
             "labels gave %s, can_continue says %d", fz_status_name((int)n),
             heapfmt_reader_can_continue(d->r));
    if (n == HEAPFMT_E_NOMEM)
        d->refs_nomem = 1;
    fz_enc_labels_head(e, n);
    return n;
}

static void enc_record_labels(fz_rd *d, fz_buf *e, uint64_t nrefs,
                              int labeled)
{
    size_t at = e->len;
    long n = enc_labels_once(d, e, nrefs, labeled);
    if (n < 0)
        return;
    size_t len = e->len - at;
    uint64_t h = fz_hash(e->p + at, len);
    long m = enc_labels_once(d, e, nrefs, labeled);
    FZ_CHECK(m == n && e->len - at - len == len &&
                 fz_hash(e->p + at + len, len) == h,
             "a second labels call gave %ld (first: %ld) or other labels", m,
             n);
    e->len = at + len;
}

/* References of the record just delivered, twice: the second decode must
 * give the same ids. Returns 1 when they decoded. */
static int enc_record_refs(fz_rd *d, fz_buf *e, uint64_t nrefs)
{
    const uint64_t *ids = NULL;
    long n = heapfmt_reader_refs(d->r, &ids);
    if (n >= 0) {
        FZ_CHECK((uint64_t)n == nrefs, "refs gave %ld of %llu references", n,
                 (unsigned long long)nrefs);
        FZ_CHECK(n == 0 || ids != NULL, "refs gave NULL ids");
        uint64_t h = fz_hash(ids, (size_t)n * sizeof *ids);
        fz_enc_refs(e, n, ids);
        const uint64_t *again = NULL;
        long m = heapfmt_reader_refs(d->r, &again);
        FZ_CHECK(m == n && fz_hash(again, (size_t)m * sizeof *again) == h,
                 "a second refs call gave %ld (first: %ld) or other ids", m,
                 n);
        return 1;
    }
    FZ_CHECK(n == HEAPFMT_E_CORRUPT || n == HEAPFMT_E_NOMEM,
             "refs gave %s", fz_status_name((int)n));
    const heapfmt_error *er = heapfmt_reader_error(d->r);
    FZ_CHECK(er->code == n, "refs gave %s, error detail says %s",
             fz_status_name((int)n), fz_status_name(er->code));
    if (n == HEAPFMT_E_CORRUPT)
        FZ_CHECK(heapfmt_reader_can_continue(d->r),
                 "refs CORRUPT but the reader cannot continue");
    else
        d->refs_nomem = 1;
    fz_enc_refs(e, n, NULL);
    /* without a record to work on, labels are refused */
    if (n == HEAPFMT_E_CORRUPT) {
        const heapfmt_rlabel *lb;
        FZ_CHECK(heapfmt_reader_labels(d->r, &lb) == HEAPFMT_E_STATE,
                 "labels after refs failed is not E_STATE");
    }
    return 0;
}

static void enc_record(fz_rd *d, const heapfmt_record *rec, fz_buf *e)
{
    heapfmt_reader *r = d->r;
    unsigned fl = d->flags;
    heapfmt_progress pg;
    heapfmt_reader_progress(r, &pg);
    FZ_CHECK(rec->index == d->delivered,
             "record index %llu, %llu delivered before",
             (unsigned long long)rec->index,
             (unsigned long long)d->delivered);
    FZ_CHECK(rec->offset >= 16 && rec->offset + 20 <= pg.offset,
             "record from a block at offset %llu, input read to %llu",
             (unsigned long long)rec->offset, (unsigned long long)pg.offset);
    d->delivered++;
    if (fl & (FZ_CHECK_INDEX | FZ_TRACK_BLOCKS))
        note_block(d, rec->offset, rec->tag == HEAPFMT_TAG_OBJECT);
    switch (rec->tag) {
    case HEAPFMT_TAG_META: {
        const heapfmt_rmeta *m = rec->u.meta;
        FZ_CHECK(m && m->key, "META without key");
        FZ_CHECK(m->key_len >= 1 && m->key_len <= HEAPFMT_MAX_KEY &&
                     m->key[m->key_len] == '\0' &&
                     strlen(m->key) == m->key_len,
                 "META key of length %zu", m->key_len);
        FZ_CHECK(m->type >= 0 && m->type <= 2, "META type %d", m->type);
        FZ_CHECK(heapfmt_reader_meta_get(r, m->key) == m,
                 "meta_get does not find the META just delivered");
        fz_enc_record_head(e, FZ_E_META, rec->index, rec->offset, fl);
        fz_put_u8(e, (unsigned)m->type);
        fz_put_bytes(e, m->key, m->key_len);
        if (m->type == HEAPFMT_META_TEXT) {
            FZ_CHECK(m->text && m->text[m->text_len] == '\0',
                     "META text not NUL-terminated");
            fz_put_bytes(e, m->text, m->text_len);
        } else if (m->type == HEAPFMT_META_UINT) {
            fz_put_u64(e, m->uint_value);
        } else {
            fz_put_u64(e, (uint64_t)m->int_value);
        }
        break;
    }
    case HEAPFMT_TAG_STRING: {
        const heapfmt_rstring *s = rec->u.string;
        check_rstring(s, "STRING");
        FZ_CHECK(!s->undefined && s->id >= 1, "STRING %u undefined", s->id);
        FZ_CHECK(heapfmt_reader_string(r, s->slot) == s,
                 "string slot %u does not give the string", s->slot);
        fz_enc_record_head(e, FZ_E_STRING, rec->index, rec->offset, fl);
        enc_rstring(e, s, fl, "STRING");
        break;
    }
    case HEAPFMT_TAG_CLASS: {
        const heapfmt_rclass *c = rec->u.klass;
        FZ_CHECK(c && !c->undefined && c->index >= 1, "bad CLASS entry");
        FZ_CHECK(heapfmt_reader_class(r, c->slot) == c,
                 "class slot %u does not give the class", c->slot);
        fz_enc_record_head(e, FZ_E_CLASS, rec->index, rec->offset, fl);
        enc_rclass(e, c, fl);
        break;
    }
    case HEAPFMT_TAG_OBJECT: {
        const heapfmt_robject *o = rec->u.object;
        FZ_CHECK(o && o->klass && o->type && o->file,
                 "OBJECT with a NULL member");
        FZ_CHECK((o->fields & ~(uint32_t)HEAPFMT_F_ALL) == 0,
                 "OBJECT fields 0x%x", o->fields);
        FZ_CHECK(o->value_len <= HEAPFMT_MAX_STRING &&
                     (o->value_len == 0 || o->value != NULL),
                 "OBJECT value of %zu bytes at %p", o->value_len,
                 (const void *)o->value);
        FZ_CHECK(o->nrefs <= HEAPFMT_MAX_REFS, "OBJECT with %llu refs",
                 (unsigned long long)o->nrefs);
        FZ_CHECK((o->stack != NULL) == ((o->fields & HEAPFMT_F_STACK) != 0),
                 "OBJECT fields 0x%x with stack %p", o->fields,
                 (const void *)o->stack);
        d->objects++;
        d->bytes += o->size;
        fz_enc_record_head(e, FZ_E_OBJECT, rec->index, rec->offset, fl);
        fz_put_u64(e, o->id);
        enc_rclass(e, o->klass, fl);
        enc_rstring(e, o->type, fl, "OBJECT type");
        fz_put_u64(e, o->size);
        fz_put_u64(e, o->fields);
        fz_put_u64(e, o->flags);
        fz_put_u8(e, o->value != NULL);
        if (o->value)
            fz_put_bytes(e, o->value, o->value_len);
        enc_rstring(e, o->file, fl, "OBJECT file");
        fz_put_u64(e, o->line);
        fz_put_u64(e, o->generation);
        enc_rstack(e, o->stack, fl);
        fz_put_u64(e, o->nrefs);
        if (enc_record_refs(d, e, o->nrefs))
            enc_record_labels(d, e, o->nrefs,
                              (o->fields & HEAPFMT_F_LABELS) != 0);
        break;
    }
    case HEAPFMT_TAG_ROOT: {
        const heapfmt_rroot *t = rec->u.root;
        FZ_CHECK(t && t->kind, "ROOT without kind");
        FZ_CHECK(t->nrefs <= HEAPFMT_MAX_REFS, "ROOT with %llu refs",
                 (unsigned long long)t->nrefs);
        fz_enc_record_head(e, FZ_E_ROOT, rec->index, rec->offset, fl);
        enc_rstring(e, t->kind, fl, "ROOT kind");
        FZ_CHECK(t->labeled == 0 || t->labeled == 1, "ROOT labeled %d",
                 t->labeled);
        fz_put_u8(e, (unsigned)t->labeled);
        fz_put_u64(e, t->nrefs);
        if (enc_record_refs(d, e, t->nrefs))
            enc_record_labels(d, e, t->nrefs, t->labeled);
        break;
    }
    case HEAPFMT_TAG_FRAME: {
        const heapfmt_rframe *f = rec->u.frame;
        FZ_CHECK(f && !f->undefined, "FRAME record without a defined frame");
        fz_enc_record_head(e, FZ_E_FRAME, rec->index, rec->offset, fl);
        enc_rframe(e, f, fl);
        break;
    }
    case HEAPFMT_TAG_STACK: {
        const heapfmt_rstack *s = rec->u.stack;
        FZ_CHECK(s && !s->undefined, "STACK record without a defined stack");
        fz_enc_record_head(e, FZ_E_STACK, rec->index, rec->offset, fl);
        enc_rstack(e, s, fl);
        break;
    }
    case HEAPFMT_TAG_LIFESPAN: {
        const heapfmt_rlifespan *l = rec->u.lifespan;
        FZ_CHECK(l != NULL, "LIFESPAN without data");
        FZ_CHECK(l->key >= 1 && l->key <= 3, "LIFESPAN key %u", l->key);
        FZ_CHECK((l->stack != NULL) == ((l->key & HEAPFMT_LIFESPAN_STACK) != 0),
                 "LIFESPAN stack %p with key %u", (const void *)l->stack, l->key);
        FZ_CHECK(l->file != NULL, "LIFESPAN without a file string");
        fz_enc_record_head(e, FZ_E_LIFESPAN, rec->index, rec->offset, fl);
        fz_put_u64(e, l->key);
        enc_rstack(e, l->stack, fl);
        enc_rstring(e, l->file, fl, "lifespan file");
        const uint64_t v[7] = {l->line,       l->allocs,      l->frees,
                               l->alloc_bytes, l->free_bytes, l->lifetime_us,
                               l->oldest_us};
        fz_put_u64s(e, v, 7);
        break;
    }
    case HEAPFMT_TAG_EVENTS: {
        /* checked whole when read: every event comes out, in increasing
         * numbers and times within the record's first and last */
        const heapfmt_revents *v = rec->u.events;
        FZ_CHECK(v && v->count >= 1 && v->count <= HEAPFMT_MAX_EVENTS,
                 "EVENTS record of %llu events",
                 (unsigned long long)(v ? v->count : 0));
        fz_enc_record_head(e, FZ_E_EVENTS, rec->index, rec->offset, fl);
        fz_put_u64(e, v->thread);
        fz_put_u64(e, v->count);
        heapfmt_event ev;
        uint64_t n = 0, seq = 0, t = v->first_time_us;
        int erc;
        while ((erc = heapfmt_reader_event(r, &ev)) == 1) {
            FZ_CHECK(ev.seq > seq && ev.time_us >= t &&
                         ev.seq <= v->last_seq && ev.time_us <= v->last_time_us,
                     "event %llu: seq %llu time %llu out of order",
                     (unsigned long long)n, (unsigned long long)ev.seq,
                     (unsigned long long)ev.time_us);
            FZ_CHECK((ev.op == HEAPFMT_EV_MARK) == (v->thread == 0) &&
                         (ev.op <= HEAPFMT_EV_FREE || ev.op == HEAPFMT_EV_MARK),
                     "event op %u in thread %u", ev.op, v->thread);
            FZ_CHECK(ev.block < ev.seq && (ev.op != HEAPFMT_EV_FREE || ev.block),
                     "event %llu names block %llu", (unsigned long long)ev.seq,
                     (unsigned long long)ev.block);
            if (n == 0)
                FZ_CHECK(ev.seq == v->first_seq, "first event %llu, record "
                         "says %llu", (unsigned long long)ev.seq,
                         (unsigned long long)v->first_seq);
            seq = ev.seq;
            t = ev.time_us;
            const uint64_t ve[7] = {ev.op,    ev.seq,  ev.time_us,
                                    ev.block, ev.size, ev.align,
                                    ev.rss ^ ev.peak ^ ev.own};
            fz_put_u64s(e, ve, 7);
            n++;
        }
        FZ_CHECK(erc == 0 && n == v->count && seq == v->last_seq,
                 "events gave %d after %llu of %llu", erc,
                 (unsigned long long)n, (unsigned long long)v->count);
        FZ_CHECK(heapfmt_reader_event(r, &ev) == 0, "an event after the last");
        break;
    }
    case HEAPFMT_TAG_END: {
        const heapfmt_totals *t = rec->u.end;
        FZ_CHECK(t != NULL, "END without totals");
        if (pg.corrupt_blocks == 0)
            FZ_CHECK(t->objects == d->objects && t->bytes == d->bytes,
                     "END says %llu objects, %llu were delivered",
                     (unsigned long long)t->objects,
                     (unsigned long long)d->objects);
        d->have_end = 1;
        d->end_records = t->records;
        fz_enc_record_head(e, FZ_E_END, rec->index, rec->offset, fl);
        fz_put_u64(e, t->objects);
        fz_put_u64(e, t->bytes);
        fz_put_u64(e, t->records);
        break;
    }
    default:
        fz_fail("record with tag %d delivered", rec->tag);
    }
    if (rec->tag != HEAPFMT_TAG_OBJECT && rec->tag != HEAPFMT_TAG_ROOT)
        check_no_refs(r, rec->tag);
}

static int next_status_ok(int rc)
{
    return rc == HEAPFMT_E_IO || rc == HEAPFMT_E_NOMEM ||
           rc == HEAPFMT_E_CORRUPT || rc == HEAPFMT_E_TRUNCATED ||
           rc == HEAPFMT_E_LIMIT || rc == HEAPFMT_E_UNSUPPORTED;
}

static void at_done(fz_rd *d, fz_buf *e)
{
    heapfmt_reader *r = d->r;
    FZ_CHECK(!heapfmt_reader_can_continue(r), "can_continue after DONE");
    heapfmt_progress pg;
    heapfmt_reader_progress(r, &pg);
    FZ_CHECK(pg.corrupt_blocks == 0, "DONE after %llu corrupt blocks",
             (unsigned long long)pg.corrupt_blocks);
    const heapfmt_footer *f = NULL;
    int frc = heapfmt_reader_footer(r, &f);
    FZ_CHECK(frc == HEAPFMT_OK, "footer after DONE gave %s",
             fz_status_name(frc));
    FZ_CHECK(f->totals.objects == d->objects && f->totals.bytes == d->bytes,
             "footer totals %llu objects, %llu delivered",
             (unsigned long long)f->totals.objects,
             (unsigned long long)d->objects);
    FZ_CHECK(f->nblocks == f->totals.blocks && f->nblocks == pg.blocks,
             "footer: %zu index entries, %llu blocks in totals, %llu read",
             f->nblocks, (unsigned long long)f->totals.blocks,
             (unsigned long long)pg.blocks);
    /* END counts every record before it, the skipped ones too */
    FZ_CHECK(d->have_end && d->end_records + 1 == d->delivered + pg.skipped,
             "END counts %llu records; %llu delivered before it, %llu "
             "skipped", (unsigned long long)d->end_records,
             (unsigned long long)(d->delivered - 1),
             (unsigned long long)pg.skipped);
    FZ_CHECK(pg.codecs != 0 && (pg.codecs >> (HEAPFMT_CODEC_ZSTD + 1)) == 0,
             "progress: codecs 0x%llx", (unsigned long long)pg.codecs);
    FZ_CHECK(f->totals.codecs == 0 || f->totals.codecs == pg.codecs,
             "footer: codecs 0x%llx, blocks read used 0x%llx",
             (unsigned long long)f->totals.codecs,
             (unsigned long long)pg.codecs);
    FZ_CHECK(f->totals.raw_bytes == pg.raw_bytes,
             "footer: %llu raw bytes, %llu read",
             (unsigned long long)f->totals.raw_bytes,
             (unsigned long long)pg.raw_bytes);
    if (d->flags & FZ_CHECK_INDEX) {
        FZ_CHECK(f->nblocks == d->nblk,
                 "footer indexes %zu blocks, records came from %zu",
                 f->nblocks, d->nblk);
        for (size_t i = 0; i < d->nblk; i++)
            FZ_CHECK(f->blocks[i].offset == d->blk[i].offset &&
                         f->blocks[i].records == d->blk[i].records &&
                         f->blocks[i].objects == d->blk[i].objects,
                     "block %zu: index says offset %llu, %llu records, "
                     "%llu objects; read %llu, %llu, %llu",
                     i, (unsigned long long)f->blocks[i].offset,
                     (unsigned long long)f->blocks[i].records,
                     (unsigned long long)f->blocks[i].objects,
                     (unsigned long long)d->blk[i].offset,
                     (unsigned long long)d->blk[i].records,
                     (unsigned long long)d->blk[i].objects);
    }
    fz_entry_footer(e, frc, f, d->flags);
    heapfmt_record rec;
    int again = heapfmt_reader_next(r, &rec);
    FZ_CHECK(again == HEAPFMT_DONE, "next after DONE gave %s",
             fz_status_name(again));
    d->finished = 1;
}

static void at_error(fz_rd *d, int rc, fz_buf *e)
{
    heapfmt_reader *r = d->r;
    d->errors++;
    FZ_CHECK(next_status_ok(rc), "next gave %s (%d)", fz_status_name(rc), rc);
    const heapfmt_error *er = heapfmt_reader_error(r);
    FZ_CHECK(er->code == rc, "next gave %s, error detail says %s",
             fz_status_name(rc), fz_status_name(er->code));
    FZ_CHECK(memchr(er->message, '\0', sizeof er->message) != NULL &&
                 er->message[0] != '\0',
             "error %s without a message", fz_status_name(rc));
    heapfmt_progress pg;
    heapfmt_reader_progress(r, &pg);
    FZ_CHECK(pg.records == d->delivered && pg.objects == d->objects &&
                 pg.bytes == d->bytes,
             "progress says %llu records, %llu objects; %llu, %llu delivered",
             (unsigned long long)pg.records, (unsigned long long)pg.objects,
             (unsigned long long)d->delivered,
             (unsigned long long)d->objects);
    int cont = heapfmt_reader_can_continue(r);
    FZ_CHECK(!cont || rc == HEAPFMT_E_CORRUPT,
             "can_continue after %s", fz_status_name(rc));
    if (cont) {
        /* A reader that skips a block must have moved on in the input:
         * else it could report the same damage forever. */
        FZ_CHECK(!d->have_err_pos || pg.offset > d->last_err_pos,
                 "CORRUPT twice at input offset %llu",
                 (unsigned long long)pg.offset);
        d->have_err_pos = 1;
        d->last_err_pos = pg.offset;
    }
    fz_put_u8(e, FZ_E_ERROR);
    fz_put_u64(e, (uint64_t)(int64_t)rc);
    fz_put_u64(e, d->delivered);
    if (d->flags & FZ_DETAIL) {
        fz_put_u64(e, (uint64_t)er->sys_errno);
        fz_put_u64(e, er->offset);
        fz_put_u64(e, er->block);
        fz_put_u64(e, er->record);
        fz_put_bytes(e, er->message, strlen(er->message));
        const uint64_t v[6] = {pg.blocks,    pg.corrupt_blocks,
                               pg.offset,    pg.raw_bytes,
                               pg.stored_bytes, pg.skipped};
        fz_put_u64s(e, v, 6);
    }
    if (!cont) {
        heapfmt_record rec;
        int again = heapfmt_reader_next(r, &rec);
        FZ_CHECK(again == rc, "sticky %s, then next gave %s",
                 fz_status_name(rc), fz_status_name(again));
        d->finished = 1;
    } else if (!(d->flags & FZ_KEEP_GOING)) {
        d->finished = 1;
    }
}

int fz_rd_next(fz_rd *d, fz_buf *e)
{
    fz_buf_reset(e);
    if (d->finished)
        return 0;
    heapfmt_record rec;
    memset(&rec, 0, sizeof rec);
    d->refs_nomem = 0;
    int rc = heapfmt_reader_next(d->r, &rec);
    d->rc = rc;
    if (rc == HEAPFMT_OK) {
        enc_record(d, &rec, e);
        if (d->hook)
            d->hook(d->hook_ctx, d->r, &rec);
        heapfmt_progress pg;
        heapfmt_reader_progress(d->r, &pg);
        FZ_CHECK(pg.records == d->delivered,
                 "progress says %llu records, %llu delivered",
                 (unsigned long long)pg.records,
                 (unsigned long long)d->delivered);
        return 1;
    }
    if (rc == HEAPFMT_DONE)
        at_done(d, e);
    else
        at_error(d, rc, e);
    return 1;
}

/* ---- comparing ---- */

void fz_describe_diff(const fz_buf *a, const fz_buf *b, char *out, size_t cap)
{
    size_t i = 0;
    while (i < a->len && i < b->len && a->p[i] == b->p[i])
        i++;
    size_t from = i > 8 ? i - 8 : 0;
    int n = snprintf(out, cap, "entries '%c' (%zu bytes) and '%c' (%zu bytes) "
                     "differ at byte %zu:",
                     a->len ? a->p[0] : '-', a->len, b->len ? b->p[0] : '-',
                     b->len, i);
    for (int side = 0; side < 2 && n >= 0 && (size_t)n < cap; side++) {
        const fz_buf *x = side ? b : a;
        n += snprintf(out + n, cap - (size_t)n, side ? " |" : "");
        for (size_t k = from; k < x->len && k < from + 24 && (size_t)n < cap;
             k++)
            n += snprintf(out + n, cap - (size_t)n, " %02x", x->p[k]);
    }
}

void fz_compare_walks(fz_rd *a, fz_rd *b, const char *what)
{
    fz_buf ea = {0}, eb = {0};
    char why[512];
    for (uint64_t k = 0;; k++) {
        int ha = fz_rd_next(a, &ea);
        int hb = fz_rd_next(b, &eb);
        if (!ha && !hb)
            break;
        FZ_CHECK(ha == hb, "%s: entry %llu exists on one side only (%s)",
                 what, (unsigned long long)k,
                 ha ? "first" : "second");
        if (ea.len != eb.len || memcmp(ea.p, eb.p, ea.len) != 0) {
            fz_describe_diff(&ea, &eb, why, sizeof why);
            fz_fail("%s: entry %llu differs: %s", what, (unsigned long long)k,
                    why);
        }
    }
    fz_buf_free(&ea);
    fz_buf_free(&eb);
}
