/*
 * fuzz_roundtrip.c -- a fuzzer-chosen sequence of writer calls, read back.
 *
 * Input layout:
 *   byte 0   codec: zstd, deflate, stored by (byte / 10) % 3; level:
 *            byte % 10 (zstd: 9 may become 19); 255: open with invalid
 *            options (E_ARG: a level, codec or thread count)
 *   byte 1   block size: bits 0-1 choose default / 1 KiB / 1 KiB + 64 *
 *            next byte / 1 KiB + next u16; 255: an invalid size (E_ARG)
 *   byte 2   faults: bit 0 short writes (at most next byte + 1 per call),
 *            bit 1 every k-th write gives EINTR or EAGAIN (k from the next
 *            byte), bit 2 a write fails (call from the next u16; bit 5: it
 *            returns 0 instead of -ENOSPC; bit 6: only that call fails),
 *            bit 3 an allocation fails (which one from the next u16),
 *            bit 4 threads = 1 (compression on a worker thread)
 *   the rest operations, one byte each (value % 13) and its arguments:
 *            META text / uint / int, STRING, CLASS, OBJECT (every field:
 *            labels of every kind, weak or not, and a call stack; 1.3's
 *            indexed form, with a list of labels or without), ROOT,
 *            flush, a run of up to 64 small objects, a big object (value
 *            up to 128 KiB, thousands of references, indexed or not),
 *            FRAME, STACK (up to 16 frames from the input, or up to 4352
 *            by pattern), a ROOT with labels
 *
 * The operations are decoded first, whatever the writer will say, so that
 * the same calls can be made several times. They stop where the entries
 * they give would pass a volume budget (RT_BUDGET, see op_cost): each
 * operation keeps its full range, only their sum per input is bounded.
 * Then:
 *   1. clean run: a model (this file, written from the manual and the
 *      spec) predicts each call's result (OK or HEAPFMT_E_ARG), the string
 *      ids handed out and every record the reader must deliver: META,
 *      STRING (new strings only), CLASS (named, redefined, and anonymous
 *      classes defined on the fly by an object), FRAME and STACK (new ones
 *      only, with the ids the writer hands out), OBJECT with its class as
 *      known at that point, its call stack frame by frame and its labels
 *      (kind, weak, index or name text; an indexed record's every one,
 *      the inferred indexes too), ROOT with its labels, END, then
 *      the footer (totals and per-class
 *      summary with final names). The dump is read back from memory and
 *      must give exactly those entries; the footer's block index must match
 *      the blocks the records came from.
 *   2. with short writes or EINTR/EAGAIN only: the same calls must give
 *      the same results and byte-identical output; with threads = 1 and
 *      no faults, the output must be that of threads = 0.
 *   3. with a failing write or allocation: the results must match the
 *      clean run until the failure, and be that failure (sticky) after it;
 *      finish must fail; the output must be a byte prefix of the clean
 *      output; reading it must deliver the clean run's records up to a
 *      point and end with HEAPFMT_E_TRUNCATED, never DONE.
 * Every run frees everything it allocated through the hooks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "heapfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

enum {
    OP_META_TEXT,
    OP_META_UINT,
    OP_META_INT,
    OP_STRING,
    OP_CLASS,
    OP_OBJECT,
    OP_ROOT,
    OP_FLUSH,
    OP_MANY, /* decoded into OP_OBJECTs */
    OP_BIG,  /* decoded into one OP_OBJECT */
    OP_FRAME,
    OP_STACK,
    OP_ROOT_LABELED,
    OP_KINDS
};

typedef struct op {
    int kind;
    char *key, *text; /* META, NUL-terminated (in mem) */
    uint64_t num;
    const char *s;    /* STRING (in mem, or NULL) */
    size_t len;
    heapfmt_class c;
    heapfmt_object o;
    uint32_t root_kind;
    const uint64_t *ids;
    size_t n;
    const heapfmt_label *labels; /* ROOT_LABELED (may be NULL) */
    heapfmt_frame fr;             /* FRAME */
    const uint32_t *frames;       /* STACK: n frame ids (may be NULL) */
    void *mem;        /* owned */
    void *mem2;       /* owned */
} op;

typedef struct ops {
    op *v;
    size_t n, cap;
} ops;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        fz_fail("harness out of memory (%zu bytes)", n);
    return p;
}

static op *ops_push(ops *l, int kind)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        op *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            fz_fail("harness out of memory");
        l->v = v;
        l->cap = cap;
    }
    op *o = &l->v[l->n++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    return o;
}

static void ops_free(ops *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].mem);
        free(l->v[i].mem2);
    }
    free(l->v);
}

/* Decoder state: depends on the input only, never on results. */
typedef struct dec {
    fz_in in;
    uint64_t recent;
    uint64_t cls[64];
    size_t ncls;
    uint32_t strings; /* an upper bound on the strings interned so far */
    uint32_t frames, stacks; /* the same for frames and stacks */
    /* The volume budget (see op_cost): what the operations kept so far
     * may cost at most, and the upper bounds it is computed from. */
    size_t spent;
    size_t max_str;   /* the longest string interned so far */
    size_t max_frame; /* the largest FRAME entry so far */
    size_t max_stack; /* the largest STACK entry so far */
} dec;

static uint64_t pick_id(dec *d)
{
    uint8_t m = fz_u8(&d->in);
    uint64_t v;
    switch (m & 3) {
    case 0:
        v = m >> 2;
        break;
    case 1:
        v = fz_u64(&d->in);
        break;
    case 2:
        v = d->recent + (uint64_t)(int64_t)(int8_t)fz_u8(&d->in) * 8;
        break;
    default:
        v = d->ncls ? d->cls[fz_u8(&d->in) % d->ncls] : fz_u16(&d->in);
        break;
    }
    d->recent = v;
    return v;
}

static void note_class(dec *d, uint64_t id)
{
    if (d->ncls < 64)
        d->cls[d->ncls++] = id;
    else
        d->cls[id % 64] = id;
}

static uint32_t pick_string(dec *d)
{
    return fz_u8(&d->in) % (d->strings + 2);
}

static const char key_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

static const char *const std_keys[8] = {
    "producer", "vm.name", "vm.version", "pid",
    "time",     "ids_stable", "gc.count", "host"};

/* A META key into mem at *at (room for 258 bytes + NUL). */
static char *dec_key(dec *d, char *buf)
{
    uint8_t kb = fz_u8(&d->in);
    size_t n = 0;
    if (kb < 0x80) {
        strcpy(buf, std_keys[kb & 7]);
        return buf;
    }
    if (kb < 0xc0) { /* valid characters, length 0..63 */
        size_t len = kb & 0x3f;
        for (; n < len; n++)
            buf[n] = key_chars[fz_u8(&d->in) % (sizeof key_chars - 1)];
    } else if (kb < 0xe0) { /* raw bytes, up to 31 (a NUL ends the key) */
        size_t got;
        const uint8_t *p = fz_take(&d->in, kb & 0x1f, &got);
        memcpy(buf, p, got);
        n = got;
    } else { /* around the 255-byte limit */
        size_t len = 250 + (kb & 7);
        for (; n < len; n++)
            buf[n] = (char)('a' + n % 26);
    }
    buf[n] = '\0';
    return buf;
}

/* References: a few picked ids, or a long strided run. */
static uint64_t *dec_refs(dec *d, size_t *n)
{
    uint8_t rb = fz_u8(&d->in);
    if (rb < 200) {
        size_t k = rb % 16;
        uint64_t *v = xmalloc(k * sizeof *v);
        for (size_t i = 0; i < k; i++)
            v[i] = pick_id(d);
        *n = k;
        return v;
    }
    size_t k = (size_t)(rb - 200) * 50 + fz_u8(&d->in);
    uint64_t base = pick_id(d);
    uint64_t stride = (uint64_t)(int64_t)(int16_t)fz_u16(&d->in);
    uint64_t *v = xmalloc(k * sizeof *v);
    for (size_t i = 0; i < k; i++)
        v[i] = base + i * stride;
    *n = k;
    return v;
}

/* A label's value: mostly a string id (0 and one past the last: refused),
 * an index near the reference's position, or any 64-bit value. */
static uint64_t dec_label_value(dec *d, uint32_t kind, size_t i)
{
    if (kind != HEAPFMT_LABEL_INDEX)
        return kind == HEAPFMT_LABEL_NONE ? fz_u8(&d->in) & 1 : pick_string(d);
    uint8_t m = fz_u8(&d->in);
    switch (m & 3) {
    case 0: return i;
    case 1: return i + (uint64_t)(int64_t)(int8_t)fz_u8(&d->in);
    case 2: return fz_u32(&d->in);
    default: /* far ones too: past 2^59 from the position, E_LIMIT */
        return (m & 4) ? (uint64_t)((int64_t)fz_u64(&d->in) >> 5)
                       : fz_u64(&d->in);
    }
}

/* Labels for n references (format 1.1), or NULL: every kind, weak or
 * not; whole arrays by pattern (their values cost no input: in order,
 * one name for all, or an array with gaps as an indexed record (1.3)
 * lists it), a few from the input, or an unknown kind or weak value
 * (HEAPFMT_E_ARG). */
static heapfmt_label *dec_labels(dec *d, size_t n)
{
    uint8_t lm = fz_u8(&d->in);
    if (lm % 8 == 0)
        return NULL; /* with references: HEAPFMT_E_ARG */
    heapfmt_label *v = xmalloc(n * sizeof *v);
    memset(v, 0, n * sizeof *v);
    switch (lm % 8) {
    case 1: /* all NONE, not weak: nothing is written */
        break;
    case 2: /* an array, in order, some weak */
        for (size_t i = 0; i < n; i++)
            v[i] = (heapfmt_label){HEAPFMT_LABEL_INDEX,
                                   (lm >> 3) && i % (lm >> 3) == 0, i};
        break;
    case 3: { /* one name for all (a hash of the same key...) */
        uint32_t kind = 1 + (uint32_t)(lm >> 3) % 6;
        uint64_t val = dec_label_value(d, kind, 0);
        for (size_t i = 0; i < n; i++)
            v[i] = (heapfmt_label){kind, (uint32_t)(i & (lm >> 7)),
                                   kind == HEAPFMT_LABEL_INDEX ? n - i : val};
        break;
    }
    case 7: { /* an array with gaps: elements left out (nil, immediates)
               * every few references, now and then a reference without
               * a label or a weak one */
        uint32_t every = 1 + (uint32_t)(lm >> 3) % 8;
        uint64_t rel = fz_u8(&d->in) % 4, gap = 1 + fz_u8(&d->in) % 5;
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && i % every == 0)
                rel += gap;
            v[i] = (heapfmt_label){HEAPFMT_LABEL_INDEX,
                                   (lm >> 6) == 3 && i % 5 == 4, i + rel};
            if ((lm >> 6) == 2 && i % 7 == 6)
                v[i] = (heapfmt_label){HEAPFMT_LABEL_NONE, 0, 0};
        }
        break;
    }
    default: /* 4-6: from the input, one by one (the first 32) */
        for (size_t i = 0; i < n && i < 32; i++) {
            uint8_t kb = fz_u8(&d->in);
            uint32_t kind = kb % 7, weak = (kb >> 3) & 1;
            if (kb == 0xff)
                kind = 7; /* unknown: HEAPFMT_E_ARG */
            else if (kb == 0xfe)
                weak = 2; /* HEAPFMT_E_ARG */
            v[i] = (heapfmt_label){kind, weak, dec_label_value(d, kind, i)};
        }
        break;
    }
    return v;
}

/* Fills len pattern bytes from a seed of the input. */
static void fill(uint8_t *p, size_t len, uint32_t seed, int no_nul)
{
    uint32_t x = seed | 1;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        uint8_t b = (uint8_t)(x >> 16);
        if (seed & 0x100) /* compressible */
            b = (uint8_t)('a' + (i / 7) % 26);
        p[i] = no_nul && b == 0 ? 'z' : b;
    }
}

static void dec_object(dec *d, op *o)
{
    heapfmt_object *b = &o->o;
    b->id = pick_id(d);
    if (fz_u8(&d->in) & 3) {
        b->class_id = pick_id(d);
        note_class(d, b->class_id);
    }
    b->type = pick_string(d);
    uint8_t fb = fz_u8(&d->in);
    b->fields = fb & 0x7f; /* 0x40: indexed (1.3) */
    if ((fb & 0xc0) == 0xc0)
        b->fields |= 0x80; /* unknown: HEAPFMT_E_ARG */
    uint8_t sb = fz_u8(&d->in);
    b->size = (sb & 1) ? fz_u64(&d->in) : (uint64_t)sb * 8;
    if (b->fields & HEAPFMT_F_FLAGS)
        b->flags = fz_u64(&d->in);
    size_t vlen = 0;
    const uint8_t *v = NULL;
    if (b->fields & HEAPFMT_F_VALUE)
        v = fz_take(&d->in, fz_u8(&d->in), &vlen);
    if (b->fields & HEAPFMT_F_SITE) {
        b->file = pick_string(d);
        b->line = fz_u32(&d->in);
    }
    if (b->fields & HEAPFMT_F_GENERATION)
        b->generation = fz_u32(&d->in);
    if (b->fields & HEAPFMT_F_STACK) /* 0, one past the last: refused */
        b->stack = fz_u8(&d->in) % (d->stacks + 2);
    size_t n;
    uint64_t *refs = dec_refs(d, &n);
    if (b->fields & HEAPFMT_F_LABELS) {
        o->mem2 = dec_labels(d, n);
        b->labels = o->mem2;
    }
    /* one block of memory: refs, then the value */
    uint8_t *mem = xmalloc(n * sizeof *refs + vlen);
    memcpy(mem, refs, n * sizeof *refs);
    if (vlen)
        memcpy(mem + n * sizeof *refs, v, vlen);
    free(refs);
    o->mem = mem;
    b->refs = (const uint64_t *)(void *)mem;
    b->nrefs = n;
    b->value = vlen ? (const char *)mem + n * sizeof *refs : "";
    b->value_len = vlen;
}

/* Decodes one operation (OP_MANY: several) onto l. */
static void decode_op(dec *d, ops *l)
{
    int kind = fz_u8(&d->in) % OP_KINDS;
    switch (kind) {
    case OP_META_TEXT: {
        op *o = ops_push(l, kind);
        size_t tl = fz_u8(&d->in);
        char *mem = xmalloc(260 + (tl == 255 ? 65536 : 256));
        o->mem = mem;
        o->key = dec_key(d, mem);
        o->text = mem + 260;
        if (tl == 255) { /* long text */
            size_t len = (size_t)(fz_u16(&d->in) % 4096) * 16;
            fill((uint8_t *)o->text, len, fz_u16(&d->in), 1);
            o->text[len] = '\0';
        } else {
            size_t got;
            const uint8_t *p = fz_take(&d->in, tl, &got);
            memcpy(o->text, p, got);
            o->text[got] = '\0';
        }
        break;
    }
    case OP_META_UINT:
    case OP_META_INT: {
        op *o = ops_push(l, kind);
        o->mem = xmalloc(260);
        o->key = dec_key(d, o->mem);
        o->num = fz_u64(&d->in);
        break;
    }
    case OP_STRING: {
        op *o = ops_push(l, kind);
        uint8_t sl = fz_u8(&d->in);
        d->strings++;
        if (sl == 255) {
            size_t len = (size_t)(fz_u16(&d->in) % 4096) * 16;
            o->mem = xmalloc(len);
            fill(o->mem, len, fz_u16(&d->in), 0);
            o->s = o->mem;
            o->len = len;
        } else if (sl == 254) {
            o->s = NULL; /* NULL with a length: HEAPFMT_E_ARG */
            o->len = 1;
        } else if (sl == 253) {
            o->s = NULL; /* NULL, length 0: the empty string */
        } else {
            size_t got;
            const uint8_t *p = fz_take(&d->in, sl, &got);
            o->mem = xmalloc(got);
            memcpy(o->mem, p, got);
            o->s = o->mem;
            o->len = got;
        }
        break;
    }
    case OP_CLASS: {
        op *o = ops_push(l, kind);
        o->c.id = pick_id(d);
        note_class(d, o->c.id);
        uint8_t nb = fz_u8(&d->in);
        if (nb) {
            size_t got;
            const uint8_t *p = fz_take(&d->in, nb - 1u, &got);
            o->mem = xmalloc(got);
            memcpy(o->mem, p, got);
            o->c.name = o->mem;
            o->c.name_len = got;
            d->strings++;
        }
        o->c.super_id = pick_id(d);
        uint8_t fb = fz_u8(&d->in);
        o->c.flags = fb & 7;
        if ((fb & 0xf8) == 0xf8)
            o->c.flags |= 8; /* unknown: HEAPFMT_E_ARG */
        break;
    }
    case OP_OBJECT:
        dec_object(d, ops_push(l, OP_OBJECT));
        break;
    case OP_ROOT: {
        op *o = ops_push(l, kind);
        o->root_kind = pick_string(d);
        uint64_t *ids = dec_refs(d, &o->n);
        o->mem = ids;
        o->ids = ids;
        break;
    }
    case OP_FLUSH:
        ops_push(l, kind);
        break;
    case OP_ROOT_LABELED: {
        op *o = ops_push(l, kind);
        o->root_kind = pick_string(d);
        uint64_t *ids = dec_refs(d, &o->n);
        o->mem = ids;
        o->ids = ids;
        o->mem2 = dec_labels(d, o->n); /* NULL: an unlabeled ROOT */
        o->labels = o->mem2;
        break;
    }
    case OP_FRAME: {
        op *o = ops_push(l, kind);
        uint8_t fb = fz_u8(&d->in);
        o->fr.function = (fb & 1) ? pick_string(d) : 0;
        o->fr.library = (fb & 2) ? pick_string(d) : 0;
        o->fr.offset = (fb & 4) ? fz_u64(&d->in) : fz_u8(&d->in);
        o->fr.file = (fb & 8) ? pick_string(d) : 0;
        o->fr.line = (fb & 16) ? fz_u64(&d->in) : fz_u8(&d->in);
        d->frames++;
        break;
    }
    case OP_STACK: {
        op *o = ops_push(l, kind);
        uint8_t nb = fz_u8(&d->in);
        size_t n;
        uint32_t *v;
        if (nb < 0xf0) { /* up to 16 frames from the input; 0: refused */
            n = nb % 17;
            v = xmalloc(n * sizeof *v);
            for (size_t i = 0; i < n; i++)
                v[i] = fz_u8(&d->in) % (d->frames + 2);
        } else { /* deep: up to HEAPFMT_MAX_FRAMES + 16 by pattern */
            n = (size_t)(nb - 0xf0) * 272 + fz_u8(&d->in) + 1;
            uint32_t a = fz_u8(&d->in), k = fz_u8(&d->in);
            uint32_t nf = d->frames ? d->frames : 1;
            v = xmalloc(n * sizeof *v);
            for (size_t i = 0; i < n; i++)
                v[i] = 1 + (uint32_t)((a + i * k) % nf);
        }
        o->mem = v;
        o->frames = (nb == 0xef) ? NULL : v; /* NULL: refused */
        o->n = n;
        d->stacks++;
        break;
    }
    case OP_MANY: {
        size_t count = fz_u8(&d->in) % 64 + 1;
        uint64_t cid = (fz_u8(&d->in) & 3) ? pick_id(d) : 0;
        if (cid)
            note_class(d, cid);
        uint64_t base = pick_id(d);
        uint64_t stride = (uint64_t)(int64_t)(int16_t)fz_u16(&d->in) * 8;
        uint64_t size = (uint64_t)fz_u8(&d->in) * 8;
        for (size_t i = 0; i < count; i++) {
            op *o = ops_push(l, OP_OBJECT);
            uint64_t *ref = xmalloc(sizeof *ref);
            *ref = base + (i - 1) * stride;
            o->mem = ref;
            o->o.id = base + i * stride;
            o->o.class_id = cid;
            o->o.size = size;
            o->o.refs = ref;
            o->o.nrefs = i > 0;
            o->o.value = "";
        }
        break;
    }
    case OP_BIG: {
        op *o = ops_push(l, OP_OBJECT);
        heapfmt_object *b = &o->o;
        b->id = pick_id(d);
        uint8_t cb = fz_u8(&d->in);
        b->class_id = (cb & 1) ? pick_id(d) : 0;
        if (b->class_id)
            note_class(d, b->class_id);
        /* bit 1: an array listed in element order (1.3), its thousands
         * of index labels inferred */
        b->fields = HEAPFMT_F_VALUE | ((cb & 2) ? HEAPFMT_F_INDEXED : 0);
        size_t vlen = (size_t)(fz_u16(&d->in) % 4096) * 32;
        size_t n = fz_u16(&d->in) % 4096;
        uint64_t base = pick_id(d);
        uint64_t stride = (uint64_t)(int64_t)(int16_t)fz_u16(&d->in);
        uint8_t *mem = xmalloc(n * sizeof(uint64_t) + vlen);
        uint64_t *refs = (uint64_t *)(void *)mem;
        for (size_t i = 0; i < n; i++)
            refs[i] = base + i * stride;
        fill(mem + n * sizeof(uint64_t), vlen, fz_u16(&d->in), 0);
        o->mem = mem;
        b->refs = refs;
        b->nrefs = n;
        b->value = (const char *)mem + n * sizeof(uint64_t);
        b->value_len = vlen;
        b->size = vlen + 40;
        break;
    }
    }
}

/* The volume budget. Time per input follows the bytes of the entries the
 * model writes and the read-back decodes and compares (every reference,
 * label and string text of every record, every frame of every stack),
 * and a few input bytes can ask for a lot: 4 bytes give a ROOT of 3,005
 * references, and each of their labels may name a 64 KiB string, 196 MB
 * of entries. Unbounded, such inputs made the harness run at 95/s. So
 * the operations of an input stop where their entries would pass
 * RT_BUDGET bytes: every operation keeps its full range (the largest
 * object, the deepest stack), only their sum is bounded; the operation
 * that passes the budget is still made if it costs at most RT_ALONE
 * (the largest object, 128 KiB of value and 4,095 references, or a stack
 * of 4,096 frames with short names, 330 KB), and is the last. */
#define RT_BUDGET ((size_t)16 << 10)
#define RT_ALONE ((size_t)384 << 10)

/* A string reference's entry: present, id, undefined, length, text. */
static size_t string_cost(size_t len)
{
    return 18 + len;
}

static size_t labels_cost(const dec *d, const heapfmt_label *lb, size_t n)
{
    size_t cost = 16;
    for (size_t i = 0; lb && i < n; i++)
        cost += 16 + string_cost(lb[i].kind == HEAPFMT_LABEL_NONE ||
                                         lb[i].kind == HEAPFMT_LABEL_INDEX
                                     ? 0
                                     : d->max_str);
    return cost;
}

/* An upper bound on the bytes of the entries that o gives (in the model
 * and in the read-back each), from the longest string, frame and stack
 * decoded before it; notes o's own string, frame or stack. */
static size_t op_cost(dec *d, const op *o)
{
    size_t cost = 64, len;
    switch (o->kind) {
    case OP_META_TEXT:
        return cost + strlen(o->key) + strlen(o->text);
    case OP_STRING:
        if (o->len > d->max_str)
            d->max_str = o->len;
        return cost + string_cost(o->len);
    case OP_CLASS:
        if (o->c.name_len > d->max_str)
            d->max_str = o->c.name_len;
        return cost + string_cost(o->c.name_len);
    case OP_OBJECT: {
        const heapfmt_object *b = &o->o;
        cost += 64 + string_cost(d->max_str); /* a new anonymous class */
        cost += 3 * string_cost(d->max_str); /* class name, type, file */
        cost += b->value_len + 8 * b->nrefs;
        if (b->fields & HEAPFMT_F_STACK)
            cost += d->max_stack;
        if (b->fields & HEAPFMT_F_LABELS)
            cost += labels_cost(d, b->labels, b->nrefs);
        else if (b->fields & HEAPFMT_F_INDEXED) /* one INDEX label each */
            cost += labels_cost(d, NULL, 0) + 16 * b->nrefs;
        return cost;
    }
    case OP_ROOT:
    case OP_ROOT_LABELED:
        return cost + string_cost(d->max_str) + 8 * o->n +
               labels_cost(d, o->labels, o->n);
    case OP_FRAME: /* id, undefined, offset, line, three strings */
        len = 25 + 3 * string_cost(d->max_str);
        if (len > d->max_frame)
            d->max_frame = len;
        return cost + len;
    case OP_STACK:
        if (o->n > HEAPFMT_MAX_FRAMES)
            return cost; /* refused: nothing is written */
        len = 26 + o->n * d->max_frame;
        if (len > d->max_stack)
            d->max_stack = len;
        return cost + len;
    default: /* META numbers, FLUSH */
        return cost + 260;
    }
}

static void decode(dec *d, ops *l)
{
    while (d->in.n > 0 && d->spent <= RT_BUDGET) {
        size_t first = l->n, cost = 0;
        decode_op(d, l);
        for (size_t i = first; i < l->n; i++)
            cost += op_cost(d, &l->v[i]);
        if (d->spent + cost > RT_BUDGET && cost > RT_ALONE) {
            /* too big even alone: left out */
            for (size_t i = first; i < l->n; i++) {
                free(l->v[i].mem);
                free(l->v[i].mem2);
            }
            l->n = first;
            break;
        }
        d->spent += cost;
    }
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

typedef struct mstr {
    uint8_t *p;
    size_t len;
    uint64_t hash;
} mstr;

typedef struct mcls {
    uint64_t id, super_id, flags, count, bytes;
    uint32_t name; /* string id, 0 = anonymous */
} mcls;

typedef struct mstack {
    uint32_t *v;
    size_t n;
} mstack;

typedef struct model {
    heapfmt_frame *frm; /* by id - 1 */
    size_t nfrm, cfrm;
    mstack *stk; /* by id - 1 */
    size_t nstk, cstk;
    mstr *str; /* by id - 1 */
    size_t nstr, cstr;
    uint32_t *shash; /* string id, 0 = empty */
    size_t shcap;
    mcls *cls; /* by index - 1 */
    size_t ncls, ccls;
    uint64_t *ckey;
    uint32_t *cval; /* index, 0 = empty */
    size_t chcap;
    uint64_t objects, bytes, records, roots, nc_count, nc_bytes;
    fz_buf exp;  /* expected entries, end to end */
    size_t *ends; /* end offset of each */
    size_t nexp, cexp;
    fz_buf e;    /* entry being built */
} model;

static void m_free(model *m)
{
    for (size_t i = 0; i < m->nstr; i++)
        free(m->str[i].p);
    free(m->str);
    for (size_t i = 0; i < m->nstk; i++)
        free(m->stk[i].v);
    free(m->stk);
    free(m->frm);
    free(m->shash);
    free(m->cls);
    free(m->ckey);
    free(m->cval);
    free(m->ends);
    fz_buf_free(&m->exp);
    fz_buf_free(&m->e);
}

static void m_commit(model *m)
{
    if (m->nexp == m->cexp) {
        m->cexp = m->cexp ? m->cexp * 2 : 256;
        m->ends = realloc(m->ends, m->cexp * sizeof *m->ends);
        if (!m->ends)
            fz_fail("harness out of memory");
    }
    fz_put(&m->exp, m->e.p, m->e.len);
    m->ends[m->nexp++] = m->exp.len;
    fz_buf_reset(&m->e);
}

/* Starts the entry of the next record. */
static fz_buf *m_record(model *m, int kind)
{
    fz_buf_reset(&m->e);
    fz_enc_record_head(&m->e, kind, m->nexp, 0, 0);
    return &m->e;
}

static uint32_t m_find_string(const model *m, const uint8_t *p, size_t len,
                              uint64_t h)
{
    if (!m->shcap)
        return 0;
    for (size_t i = h & (m->shcap - 1);; i = (i + 1) & (m->shcap - 1)) {
        uint32_t id = m->shash[i];
        if (id == 0)
            return 0;
        const mstr *s = &m->str[id - 1];
        if (s->hash == h && s->len == len && memcmp(s->p, p, len) == 0)
            return id;
    }
}

static void m_hash_string(model *m, uint32_t id)
{
    size_t i = m->str[id - 1].hash & (m->shcap - 1);
    while (m->shash[i])
        i = (i + 1) & (m->shcap - 1);
    m->shash[i] = id;
}

/* Interns like the writer; a new string gives a STRING entry. */
static uint32_t m_intern(model *m, const uint8_t *p, size_t len)
{
    uint64_t h = fz_hash(p, len);
    uint32_t id = m_find_string(m, p, len, h);
    if (id)
        return id;
    if ((m->nstr + 1) * 2 > m->shcap) {
        free(m->shash);
        m->shcap = m->shcap ? m->shcap * 2 : 64;
        m->shash = calloc(m->shcap, sizeof *m->shash);
        if (!m->shash)
            fz_fail("harness out of memory");
        for (uint32_t k = 1; k <= m->nstr; k++)
            m_hash_string(m, k);
    }
    if (m->nstr == m->cstr) {
        m->cstr = m->cstr ? m->cstr * 2 : 64;
        m->str = realloc(m->str, m->cstr * sizeof *m->str);
        if (!m->str)
            fz_fail("harness out of memory");
    }
    mstr *s = &m->str[m->nstr++];
    s->p = xmalloc(len + 1); /* NUL-terminated, as the reader's are */
    if (len)
        memcpy(s->p, p, len);
    s->p[len] = '\0';
    s->len = len;
    s->hash = h;
    id = (uint32_t)m->nstr;
    m_hash_string(m, id);
    fz_buf *e = m_record(m, FZ_E_STRING);
    fz_enc_string(e, 1, id, 0, 0, (const char *)s->p, len, 0);
    m_commit(m);
    m->records++;
    return id;
}

/* A string as the reader gives it for an id (0: the empty "none"). */
static void m_enc_string(model *m, fz_buf *e, uint32_t id)
{
    if (id == 0)
        fz_enc_string(e, 1, 0, 0, 0, "", 0, 0);
    else
        fz_enc_string(e, 1, id, 0, 0, (const char *)m->str[id - 1].p,
                      m->str[id - 1].len, 0);
}

static void m_enc_class(model *m, fz_buf *e, uint32_t index)
{
    if (index == 0) {
        fz_enc_class(e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0);
        return;
    }
    const mcls *c = &m->cls[index - 1];
    const mstr *n = c->name ? &m->str[c->name - 1] : NULL;
    fz_enc_class(e, index, 0, c->id, c->super_id, c->flags, 0, n != NULL,
                 c->name, 0, 0, n ? (const char *)n->p : NULL, n ? n->len : 0,
                 0);
}

static uint32_t m_find_class(const model *m, uint64_t id)
{
    if (!m->chcap)
        return 0;
    for (size_t i = fz_hash(&id, sizeof id) & (m->chcap - 1);;
         i = (i + 1) & (m->chcap - 1)) {
        if (m->cval[i] == 0)
            return 0;
        if (m->ckey[i] == id)
            return m->cval[i];
    }
}

static void m_hash_class(model *m, uint64_t id, uint32_t index)
{
    size_t i = fz_hash(&id, sizeof id) & (m->chcap - 1);
    while (m->cval[i])
        i = (i + 1) & (m->chcap - 1);
    m->ckey[i] = id;
    m->cval[i] = index;
}

/* The index of the class with this id; a new one is added (anonymous). */
static uint32_t m_class(model *m, uint64_t id, int *created)
{
    uint32_t index = m_find_class(m, id);
    *created = 0;
    if (index)
        return index;
    if ((m->ncls + 1) * 2 > m->chcap) {
        free(m->ckey);
        free(m->cval);
        m->chcap = m->chcap ? m->chcap * 2 : 64;
        m->ckey = calloc(m->chcap, sizeof *m->ckey);
        m->cval = calloc(m->chcap, sizeof *m->cval);
        if (!m->ckey || !m->cval)
            fz_fail("harness out of memory");
        for (uint32_t k = 1; k <= m->ncls; k++)
            m_hash_class(m, m->cls[k - 1].id, k);
    }
    if (m->ncls == m->ccls) {
        m->ccls = m->ccls ? m->ccls * 2 : 64;
        m->cls = realloc(m->cls, m->ccls * sizeof *m->cls);
        if (!m->cls)
            fz_fail("harness out of memory");
    }
    mcls *c = &m->cls[m->ncls++];
    memset(c, 0, sizeof *c);
    c->id = id;
    index = (uint32_t)m->ncls;
    m_hash_class(m, id, index);
    *created = 1;
    return index;
}

static void m_class_record(model *m, uint32_t index)
{
    fz_buf *e = m_record(m, FZ_E_CLASS);
    m_enc_class(m, e, index);
    m_commit(m);
    m->records++;
}

static void m_refs(fz_buf *e, const uint64_t *ids, size_t n)
{
    fz_put_u64(e, n);
    fz_enc_refs(e, (long)n, ids);
}

/* ---- frames and stacks (1.1), interned as the writer does ---- */

static void m_enc_frame(model *m, fz_buf *e, uint32_t id)
{
    const heapfmt_frame *f = &m->frm[id - 1];
    fz_enc_frame_head(e, id, 0, 0, f->offset, f->line, 0);
    m_enc_string(m, e, f->function);
    m_enc_string(m, e, f->library);
    m_enc_string(m, e, f->file);
}

static void m_enc_stack(model *m, fz_buf *e, uint32_t id)
{
    const mstack *s = &m->stk[id - 1];
    fz_enc_stack_head(e, 1, id, 0, 0, s->n, 0);
    for (size_t i = 0; i < s->n; i++)
        m_enc_frame(m, e, s->v[i]);
}

static int m_frame(model *m, const heapfmt_frame *f, uint32_t *id)
{
    if (f->function > m->nstr || f->library > m->nstr || f->file > m->nstr)
        return HEAPFMT_E_ARG;
    for (size_t i = 0; i < m->nfrm; i++) {
        const heapfmt_frame *g = &m->frm[i];
        if (g->function == f->function && g->library == f->library &&
            g->offset == f->offset && g->file == f->file &&
            g->line == f->line) {
            *id = (uint32_t)(i + 1);
            return HEAPFMT_OK;
        }
    }
    if (m->nfrm == m->cfrm) {
        m->cfrm = m->cfrm ? m->cfrm * 2 : 64;
        m->frm = realloc(m->frm, m->cfrm * sizeof *m->frm);
        if (!m->frm)
            fz_fail("harness out of memory");
    }
    m->frm[m->nfrm++] = *f;
    *id = (uint32_t)m->nfrm;
    fz_buf *e = m_record(m, FZ_E_FRAME);
    m_enc_frame(m, e, *id);
    m_commit(m);
    m->records++;
    return HEAPFMT_OK;
}

static int m_stack(model *m, const uint32_t *v, size_t n, uint32_t *id)
{
    if (!v || n == 0)
        return HEAPFMT_E_ARG;
    if (n > HEAPFMT_MAX_FRAMES)
        return HEAPFMT_E_LIMIT;
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0 || v[i] > m->nfrm)
            return HEAPFMT_E_ARG;
    for (size_t i = 0; i < m->nstk; i++) {
        if (m->stk[i].n == n && memcmp(m->stk[i].v, v, n * sizeof *v) == 0) {
            *id = (uint32_t)(i + 1);
            return HEAPFMT_OK;
        }
    }
    if (m->nstk == m->cstk) {
        m->cstk = m->cstk ? m->cstk * 2 : 64;
        m->stk = realloc(m->stk, m->cstk * sizeof *m->stk);
        if (!m->stk)
            fz_fail("harness out of memory");
    }
    mstack *s = &m->stk[m->nstk++];
    s->v = xmalloc(n * sizeof *v);
    memcpy(s->v, v, n * sizeof *v);
    s->n = n;
    *id = (uint32_t)m->nstk;
    fz_buf *e = m_record(m, FZ_E_STACK);
    m_enc_stack(m, e, *id);
    m_commit(m);
    m->records++;
    return HEAPFMT_OK;
}

/* ---- labels (1.1) ---- */

/* HEAPFMT_OK with the number of labels that will be written, or the
 * error of the first bad label: HEAPFMT_E_ARG, or HEAPFMT_E_LIMIT for an
 * index 2^59 or more away from its reference's position (the label varint
 * keeps 60 bits of the zigzagged difference). indexed: counted in the
 * indexed form of 1.3 (spec 6.4.1), where every label is an entry but an
 * INDEX one, not weak, whose index minus its position is that of the
 * last INDEX entry before it (0 before the first). */
static int m_check_labels(const model *m, const heapfmt_label *lb, size_t n,
                          int indexed, size_t *count)
{
    *count = 0;
    uint64_t rel = 0; /* indexed: index - position of the last INDEX */
    for (size_t i = 0; i < n; i++) {
        if (lb[i].kind > HEAPFMT_LABEL_OTHER || lb[i].weak > 1)
            return HEAPFMT_E_ARG;
        if (lb[i].kind == HEAPFMT_LABEL_INDEX) {
            uint64_t diff = lb[i].value - (uint64_t)i;
            uint64_t zz = (diff << 1) ^ (uint64_t)((int64_t)diff >> 63);
            if (zz >> 60)
                return HEAPFMT_E_LIMIT;
        }
        if (lb[i].kind != HEAPFMT_LABEL_NONE &&
            lb[i].kind != HEAPFMT_LABEL_INDEX &&
            (lb[i].value == 0 || lb[i].value > m->nstr))
            return HEAPFMT_E_ARG;
        if (!indexed) {
            *count += lb[i].kind != HEAPFMT_LABEL_NONE || lb[i].weak;
        } else if (lb[i].kind != HEAPFMT_LABEL_INDEX) {
            (*count)++;
        } else if (lb[i].weak || lb[i].value - (uint64_t)i != rel) {
            (*count)++;
            rel = lb[i].value - (uint64_t)i;
        }
    }
    return HEAPFMT_OK;
}

/* The labels as the reader gives them: none (0) unless some were
 * written, then one per reference; lb NULL: each its position as an
 * INDEX (an indexed record without a list). */
static void m_labels(model *m, fz_buf *e, const heapfmt_label *lb, size_t n,
                     int labeled)
{
    fz_enc_labels_head(e, labeled ? (long)n : 0);
    if (!labeled)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!lb) {
            fz_enc_label(e, HEAPFMT_LABEL_INDEX, 0, i);
            m_enc_string(m, e, 0);
            continue;
        }
        uint32_t k = lb[i].kind;
        fz_enc_label(e, k, lb[i].weak,
                     k == HEAPFMT_LABEL_INDEX ? lb[i].value : 0);
        m_enc_string(m, e,
                     k == HEAPFMT_LABEL_NONE || k == HEAPFMT_LABEL_INDEX
                         ? 0
                         : (uint32_t)lb[i].value);
    }
}

static int key_ok(const char *k)
{
    size_t n = strlen(k);
    if (n < 1 || n > HEAPFMT_MAX_KEY)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!memchr(key_chars, k[i], sizeof key_chars - 1))
            return 0;
    return 1;
}

/* Applies o to the model; returns the result the writer must give and, for
 * STRING, the id in *id. */
static int m_apply(model *m, const op *o, uint32_t *id)
{
    switch (o->kind) {
    case OP_META_TEXT:
    case OP_META_UINT:
    case OP_META_INT: {
        if (!key_ok(o->key))
            return HEAPFMT_E_ARG;
        fz_buf *e = m_record(m, FZ_E_META);
        unsigned type = o->kind == OP_META_TEXT   ? HEAPFMT_META_TEXT
                        : o->kind == OP_META_UINT ? HEAPFMT_META_UINT
                                                  : HEAPFMT_META_INT;
        fz_put_u8(e, type);
        fz_put_bytes(e, o->key, strlen(o->key));
        if (type == HEAPFMT_META_TEXT)
            fz_put_bytes(e, o->text, strlen(o->text));
        else
            fz_put_u64(e, o->num);
        m_commit(m);
        m->records++;
        return HEAPFMT_OK;
    }
    case OP_STRING:
        if (!o->s && o->len)
            return HEAPFMT_E_ARG;
        *id = m_intern(m, o->s ? (const uint8_t *)o->s : (const uint8_t *)"",
                       o->len);
        return HEAPFMT_OK;
    case OP_CLASS: {
        if (o->c.id == 0 || (o->c.flags & ~(uint64_t)7))
            return HEAPFMT_E_ARG;
        uint32_t name = 0;
        if (o->c.name)
            name = m_intern(m, (const uint8_t *)o->c.name, o->c.name_len);
        int created;
        uint32_t index = m_class(m, o->c.id, &created);
        mcls *c = &m->cls[index - 1];
        c->name = name;
        c->super_id = o->c.super_id;
        c->flags = o->c.flags;
        m_class_record(m, index);
        return HEAPFMT_OK;
    }
    case OP_OBJECT: {
        const heapfmt_object *b = &o->o;
        uint32_t f = b->fields;
        if ((f & ~(uint32_t)HEAPFMT_F_ALL) || b->type > m->nstr ||
            ((f & HEAPFMT_F_SITE) && b->file > m->nstr))
            return HEAPFMT_E_ARG;
        size_t nlabels = 0;
        const int indexed = (f & HEAPFMT_F_INDEXED) != 0;
        if (f & HEAPFMT_F_LABELS) {
            if (b->nrefs && !b->labels)
                return HEAPFMT_E_ARG;
            int lrc;
            if (b->nrefs &&
                (lrc = m_check_labels(m, b->labels, b->nrefs, indexed,
                                      &nlabels)) != HEAPFMT_OK)
                return lrc;
            if (nlabels == 0)
                f &= ~(uint32_t)HEAPFMT_F_LABELS; /* not written */
        }
        if (b->nrefs == 0) /* nothing to label: neither bit is written */
            f &= ~(uint32_t)(HEAPFMT_F_LABELS | HEAPFMT_F_INDEXED);
        if ((f & HEAPFMT_F_STACK) && (b->stack == 0 || b->stack > m->nstk))
            return HEAPFMT_E_ARG;
        uint32_t index = 0;
        if (b->class_id) {
            int created;
            index = m_class(m, b->class_id, &created);
            if (created)
                m_class_record(m, index);
        }
        fz_buf *e = m_record(m, FZ_E_OBJECT);
        fz_put_u64(e, b->id);
        m_enc_class(m, e, index);
        m_enc_string(m, e, b->type);
        fz_put_u64(e, b->size);
        /* an indexed record's references are all labeled, listed or
         * not: the reader says F_LABELS too */
        fz_put_u64(e, (f & HEAPFMT_F_INDEXED) ? f | HEAPFMT_F_LABELS : f);
        fz_put_u64(e, (f & HEAPFMT_F_FLAGS) ? b->flags : 0);
        fz_put_u8(e, (f & HEAPFMT_F_VALUE) != 0);
        if (f & HEAPFMT_F_VALUE)
            fz_put_bytes(e, b->value, b->value_len);
        m_enc_string(m, e, (f & HEAPFMT_F_SITE) ? b->file : 0);
        fz_put_u64(e, (f & HEAPFMT_F_SITE) ? b->line : 0);
        fz_put_u64(e, (f & HEAPFMT_F_GENERATION) ? b->generation : 0);
        if (f & HEAPFMT_F_STACK)
            m_enc_stack(m, e, b->stack);
        else
            fz_enc_stack_head(e, 0, 0, 0, 0, 0, 0);
        m_refs(e, b->refs, b->nrefs);
        if (f & HEAPFMT_F_INDEXED) /* the labels given, or the positions */
            m_labels(m, e, (b->fields & HEAPFMT_F_LABELS) ? b->labels : NULL,
                     b->nrefs, 1);
        else
            m_labels(m, e, b->labels, b->nrefs, nlabels != 0);
        m_commit(m);
        m->records++;
        m->objects++;
        m->bytes += b->size;
        if (index) {
            m->cls[index - 1].count++;
            m->cls[index - 1].bytes += b->size;
        } else {
            m->nc_count++;
            m->nc_bytes += b->size;
        }
        return HEAPFMT_OK;
    }
    case OP_ROOT:
    case OP_ROOT_LABELED: {
        if (o->root_kind > m->nstr)
            return HEAPFMT_E_ARG;
        size_t nlabels = 0;
        int lrc;
        if (o->labels &&
            (lrc = m_check_labels(m, o->labels, o->n, 0, &nlabels)) != 0)
            return lrc;
        fz_buf *e = m_record(m, FZ_E_ROOT);
        m_enc_string(m, e, o->root_kind);
        fz_put_u8(e, nlabels != 0);
        m_refs(e, o->ids, o->n);
        m_labels(m, e, o->labels, o->n, nlabels != 0);
        m_commit(m);
        m->records++;
        m->roots++;
        return HEAPFMT_OK;
    }
    case OP_FRAME:
        return m_frame(m, &o->fr, id);
    case OP_STACK:
        return m_stack(m, o->frames, o->n, id);
    default: /* OP_FLUSH */
        return HEAPFMT_OK;
    }
}

/* END and the footer. */
static void m_finish(model *m)
{
    fz_buf *e = m_record(m, FZ_E_END);
    fz_put_u64(e, m->objects);
    fz_put_u64(e, m->bytes);
    fz_put_u64(e, m->records);
    m_commit(m);

    size_t n = m->ncls + (m->nc_count != 0);
    heapfmt_class_summary *cs = xmalloc(n * sizeof *cs);
    size_t k = 0;
    if (m->nc_count)
        cs[k++] = (heapfmt_class_summary){0, 0, 0, m->nc_count, m->nc_bytes,
                                          NULL, 0};
    for (size_t i = 0; i < m->ncls; i++) {
        const mcls *c = &m->cls[i];
        const mstr *s = c->name ? &m->str[c->name - 1] : NULL;
        /* an empty name is written as no name */
        int named = s && s->len;
        cs[k++] = (heapfmt_class_summary){
            (uint32_t)(i + 1), c->id, c->flags, c->count, c->bytes,
            named ? (const char *)s->p : NULL, named ? s->len : 0};
    }
    heapfmt_footer f;
    memset(&f, 0, sizeof f);
    f.totals.objects = m->objects;
    f.totals.bytes = m->bytes;
    f.totals.records = m->records;
    f.totals.classes = m->ncls;
    f.totals.strings = m->nstr;
    f.totals.roots = m->roots;
    f.nclasses = n;
    f.classes = cs;
    fz_buf_reset(&m->e);
    fz_entry_footer(&m->e, HEAPFMT_OK, &f, 0);
    m_commit(m);
    free(cs);
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

typedef struct cfg {
    int codec, threads;
    int level;
    uint32_t block_size;
    size_t max_call;
    unsigned eintr_every;
    int wfail, wfail_zero, wfail_once, afail;
    uint64_t wfail_v, afail_v;
} cfg;

typedef struct run {
    fz_sink sink;
    fz_alloc al;
    int open_rc, finish_rc;
    int *rcs; /* one per op */
    size_t nrcs;
} run;

static void run_free(run *r)
{
    fz_buf_free(&r->sink.out);
    free(r->rcs);
}

static int call(heapfmt_writer *w, const op *o, uint32_t *id)
{
    switch (o->kind) {
    case OP_META_TEXT:
        return heapfmt_write_meta_text(w, o->key, o->text);
    case OP_META_UINT:
        return heapfmt_write_meta_uint(w, o->key, o->num);
    case OP_META_INT:
        return heapfmt_write_meta_int(w, o->key, (int64_t)o->num);
    case OP_STRING:
        return heapfmt_write_string(w, o->s, o->len, id);
    case OP_CLASS:
        return heapfmt_write_class(w, &o->c);
    case OP_OBJECT:
        return heapfmt_write_object(w, &o->o);
    case OP_ROOT:
        return heapfmt_write_root(w, o->root_kind, o->ids, o->n);
    case OP_ROOT_LABELED:
        return heapfmt_write_root_labeled(w, o->root_kind, o->ids, o->labels,
                                          o->n);
    case OP_FRAME:
        return heapfmt_write_frame(w, &o->fr, id);
    case OP_STACK:
        return heapfmt_write_stack(w, o->frames, o->n, id);
    default:
        return heapfmt_writer_flush(w);
    }
}

static void check_writer_state(heapfmt_writer *w, const run *r, int rc,
                               const char *what)
{
    FZ_CHECK(heapfmt_writer_offset(w) == r->sink.out.len,
             "%s: writer offset %llu, sink took %zu bytes", what,
             (unsigned long long)heapfmt_writer_offset(w), r->sink.out.len);
    if (rc != HEAPFMT_OK) {
        const heapfmt_error *e = heapfmt_writer_error(w);
        FZ_CHECK(e->code == rc, "%s gave %s, error detail says %s", what,
                 fz_status_name(rc), fz_status_name(e->code));
        FZ_CHECK(memchr(e->message, '\0', sizeof e->message) &&
                     e->message[0] != '\0',
                 "%s: error without a message", what);
    }
}

/* Makes every call of l on a new writer. With a model, each result must be
 * the predicted one. */
static void run_ops(const cfg *c, const ops *l, model *m, int faults, run *r)
{
    memset(r, 0, sizeof *r);
    fz_sink_init(&r->sink);
    fz_alloc_init(&r->al, 0);
    if (faults) {
        r->sink.max_call = c->max_call;
        r->sink.eintr_every = c->eintr_every;
    }
    if (faults > 1) {
        if (c->wfail) {
            r->sink.fail_at = c->wfail_v;
            r->sink.fail_errno = c->wfail_zero ? 0 : ENOSPC;
            r->sink.fail_once = c->wfail_once;
        }
        if (c->afail)
            r->al.fail_at = c->afail_v;
    }
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = c->level;
    opt.block_size = c->block_size;
    opt.allocator = &r->al.hooks;
    opt.codec = c->codec;
    opt.threads = c->threads;
    heapfmt_writer *w = (heapfmt_writer *)&opt;
    r->open_rc = heapfmt_writer_open(&w, &opt, fz_sink_write, &r->sink);
    r->finish_rc = r->open_rc;
    if (r->open_rc != HEAPFMT_OK) {
        FZ_CHECK(w == NULL, "failed open left a writer");
        FZ_CHECK(r->open_rc == HEAPFMT_E_NOMEM && r->al.failed,
                 "writer open gave %s", fz_status_name(r->open_rc));
        FZ_CHECK(r->al.live == 0, "failed open leaked %ld blocks",
                 r->al.live);
        return;
    }
    r->rcs = xmalloc(l->n * sizeof *r->rcs);
    for (size_t i = 0; i < l->n; i++) {
        uint32_t id = 0, mid = 0;
        int want = m ? m_apply(m, &l->v[i], &mid) : 0;
        int rc = call(w, &l->v[i], &id);
        check_writer_state(w, r, rc, "writer call");
        r->rcs[r->nrcs++] = rc;
        if (m) {
            FZ_CHECK(rc == want, "call %zu (op %d) gave %s, expected %s", i,
                     l->v[i].kind, fz_status_name(rc), fz_status_name(want));
            if ((l->v[i].kind == OP_STRING || l->v[i].kind == OP_FRAME ||
                 l->v[i].kind == OP_STACK) && rc == HEAPFMT_OK)
                FZ_CHECK(id == mid, "op %d: id %u, expected %u",
                         l->v[i].kind, id, mid);
        }
    }
    if (m)
        m_finish(m);
    r->finish_rc = heapfmt_writer_finish(w);
    check_writer_state(w, r, r->finish_rc, "finish");
    int after = heapfmt_write_meta_uint(w, "after", 1);
    FZ_CHECK(after == (r->finish_rc == HEAPFMT_OK ? HEAPFMT_E_STATE
                                                  : r->finish_rc),
             "after finish (%s) a call gave %s", fz_status_name(r->finish_rc),
             fz_status_name(after));
    heapfmt_writer_free(w);
    FZ_CHECK(r->al.live == 0, "writer leaked %ld blocks", r->al.live);
}

/* The model's k-th entry, in place (for reading, not to be freed). */
static fz_buf m_entry(const model *m, size_t k)
{
    size_t from = k ? m->ends[k - 1] : 0;
    return (fz_buf){m->exp.p + from, m->ends[k] - from, m->ends[k] - from};
}

/* The clean output read back must give exactly the model's entries. */
static void check_clean_read(const run *r, const model *m)
{
    heapfmt_reader *rd = NULL;
    int rc = heapfmt_reader_open_memory(&rd, NULL, r->sink.out.p,
                                        r->sink.out.len);
    FZ_CHECK(rc == HEAPFMT_OK, "reading the dump back: open gave %s: %s",
             fz_status_name(rc), rd ? heapfmt_reader_error(rd)->message : "");
    fz_rd d;
    fz_rd_init(&d, rd, FZ_CHECK_INDEX);
    fz_buf e = {0};
    for (size_t k = 0; k < m->nexp; k++) {
        FZ_CHECK(fz_rd_next(&d, &e), "read back: walk ended at entry %zu "
                 "of %zu", k, m->nexp);
        fz_buf want = m_entry(m, k);
        if (e.len != want.len || memcmp(e.p, want.p, e.len) != 0) {
            char why[512];
            fz_describe_diff(&e, &want, why, sizeof why);
            fz_fail("read back: entry %zu (read | expected): %s%s", k, why,
                    d.rc < 0 ? heapfmt_reader_error(rd)->message : "");
        }
    }
    FZ_CHECK(d.rc == HEAPFMT_DONE && !fz_rd_next(&d, &e),
             "read back: the dump did not end after %zu entries", m->nexp);
    fz_rd_free(&d);
    fz_buf_free(&e);
    heapfmt_reader_free(rd);
}

/* A failed writer's output, read: the clean records up to a point, then
 * HEAPFMT_E_TRUNCATED. The clean records are the model's entries, which
 * check_clean_read found the clean dump to hold exactly: reading the
 * clean dump a second time to compare would only repeat that work. */
static void check_cut_read(const run *cut, const model *m)
{
    heapfmt_reader *rf = NULL;
    int of = heapfmt_reader_open_memory(&rf, NULL, cut->sink.out.p,
                                        cut->sink.out.len);
    if (of != HEAPFMT_OK) {
        FZ_CHECK(of == HEAPFMT_E_TRUNCATED,
                 "output of a failed writer (%zu bytes): open gave %s",
                 cut->sink.out.len, fz_status_name(of));
    } else {
        fz_rd b;
        fz_rd_init(&b, rf, 0);
        fz_buf eb = {0};
        for (size_t k = 0;; k++) {
            FZ_CHECK(fz_rd_next(&b, &eb),
                     "output of a failed writer: walk ended without a result");
            if (eb.p[0] == FZ_E_ERROR) {
                FZ_CHECK(b.rc == HEAPFMT_E_TRUNCATED,
                         "output of a failed writer reads as %s: %s",
                         fz_status_name(b.rc),
                         heapfmt_reader_error(rf)->message);
                break;
            }
            FZ_CHECK(eb.p[0] != FZ_E_FOOTER,
                     "the output of a failed writer reads as complete");
            FZ_CHECK(k < m->nexp, "clean walk ended first");
            fz_buf ea = m_entry(m, k);
            FZ_CHECK(ea.len == eb.len && memcmp(ea.p, eb.p, ea.len) == 0,
                     "output of a failed writer: entry %zu differs", k);
        }
        fz_rd_free(&b);
        fz_buf_free(&eb);
    }
    heapfmt_reader_free(rf);
}

static void check_faulty(const run *clean, const model *m, const run *f,
                         const cfg *c)
{
    int fired = f->sink.failures > 0 || f->al.failed > 0;
    FZ_CHECK(fired, "the injected failure never happened");
    int sticky = f->open_rc != HEAPFMT_OK ? f->open_rc : 0;
    for (size_t i = 0; i < f->nrcs; i++) {
        int rc = f->rcs[i];
        if (sticky) {
            FZ_CHECK(rc == sticky, "call %zu gave %s after %s", i,
                     fz_status_name(rc), fz_status_name(sticky));
        } else if (rc != clean->rcs[i]) {
            FZ_CHECK((rc == HEAPFMT_E_IO && c->wfail) ||
                         (rc == HEAPFMT_E_NOMEM && c->afail),
                     "call %zu gave %s under faults, %s without", i,
                     fz_status_name(rc), fz_status_name(clean->rcs[i]));
            sticky = rc;
        }
    }
    if (sticky)
        FZ_CHECK(f->finish_rc == sticky, "finish gave %s after %s",
                 fz_status_name(f->finish_rc), fz_status_name(sticky));
    else
        FZ_CHECK((f->finish_rc == HEAPFMT_E_IO && c->wfail) ||
                     (f->finish_rc == HEAPFMT_E_NOMEM && c->afail),
                 "a failure was injected, finish gave %s",
                 fz_status_name(f->finish_rc));
    FZ_CHECK(f->sink.out.len < clean->sink.out.len &&
                 (f->sink.out.len == 0 ||
                  memcmp(f->sink.out.p, clean->sink.out.p, f->sink.out.len) ==
                      0),
             "a failed writer's %zu bytes are not a prefix of the %zu of "
             "the clean dump",
             f->sink.out.len, clean->sink.out.len);
    check_cut_read(f, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dec d;
    memset(&d, 0, sizeof d);
    d.in = (fz_in){data, size};
    cfg c;
    memset(&c, 0, sizeof c);
    uint8_t b0 = fz_u8(&d.in), b1 = fz_u8(&d.in), b2 = fz_u8(&d.in);
    static const int codecs[3] = {HEAPFMT_CODEC_ZSTD, HEAPFMT_CODEC_DEFLATE,
                                  HEAPFMT_CODEC_STORED};
    c.codec = codecs[(b0 / 10) % 3];
    c.level = b0 % 10;
    if (c.codec == HEAPFMT_CODEC_ZSTD && c.level == 9 && (b0 / 30) % 2)
        c.level = HEAPFMT_ZSTD_MAX_LEVEL;
    c.threads = (b2 >> 4) & 1;
    switch (b1 & 3) {
    case 0: c.block_size = 0; break;
    case 1: c.block_size = HEAPFMT_MIN_BLOCK_SIZE; break;
    case 2: c.block_size = HEAPFMT_MIN_BLOCK_SIZE + 64u * fz_u8(&d.in); break;
    default: c.block_size = HEAPFMT_MIN_BLOCK_SIZE + fz_u16(&d.in); break;
    }
    if (b0 == 255 || b1 == 255) { /* options the writer must refuse */
        if (b0 == 255) {
            static const int bad[7][3] = {
                /* codec, level, threads */
                {HEAPFMT_CODEC_DEFLATE, HEAPFMT_DEFLATE_MAX_LEVEL + 1, 0},
                {HEAPFMT_CODEC_ZSTD, HEAPFMT_ZSTD_MAX_LEVEL + 1, 0},
                {HEAPFMT_CODEC_ZSTD, -1, 0},
                {HEAPFMT_CODEC_ZSTD + 1, 1, 0},
                {-1, 1, 0},
                {HEAPFMT_CODEC_ZSTD, 1, 2},
                {HEAPFMT_CODEC_DEFLATE, 1, -1}};
            const int *x = bad[fz_u8(&d.in) % 7];
            c.codec = x[0];
            c.level = x[1];
            c.threads = x[2];
        }
        if (b1 == 255) {
            static const uint32_t bad[4] = {HEAPFMT_MIN_BLOCK_SIZE - 1,
                                            HEAPFMT_MAX_BLOCK + 1, 1,
                                            0xffffffffu};
            c.block_size = bad[fz_u8(&d.in) & 3];
        }
        heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
        opt.level = c.level;
        opt.block_size = c.block_size;
        opt.codec = c.codec;
        opt.threads = c.threads;
        fz_sink s;
        fz_sink_init(&s);
        heapfmt_writer *w = (heapfmt_writer *)&s;
        int rc = heapfmt_writer_open(&w, &opt, fz_sink_write, &s);
        FZ_CHECK(rc == HEAPFMT_E_ARG && w == NULL,
                 "codec %d, level %d, threads %d, block size %u: open gave %s",
                 c.codec, c.level, c.threads, c.block_size,
                 fz_status_name(rc));
        return 0;
    }
    if (b2 & 1)
        c.max_call = (size_t)fz_u8(&d.in) + 1;
    if (b2 & 2)
        c.eintr_every = fz_u8(&d.in) % 5 + 2;
    if (b2 & 4) {
        c.wfail = 1;
        c.wfail_v = fz_u16(&d.in);
        c.wfail_zero = (b2 >> 5) & 1;
        c.wfail_once = (b2 >> 6) & 1;
    }
    if (b2 & 8) {
        c.afail = 1;
        c.afail_v = fz_u16(&d.in);
    }

    ops l;
    memset(&l, 0, sizeof l);
    decode(&d, &l);

    model m;
    memset(&m, 0, sizeof m);
    run clean;
    run_ops(&c, &l, &m, 0, &clean);
    FZ_CHECK(clean.finish_rc == HEAPFMT_OK, "finish gave %s",
             fz_status_name(clean.finish_rc));
    check_clean_read(&clean, &m);

    if (c.wfail || c.afail) {
        cfg fc = c;
        /* a call that happens in the clean run, so the failure fires */
        fc.wfail_v = 1 + c.wfail_v % clean.sink.calls;
        fc.afail_v = 1 + c.afail_v % clean.al.calls;
        run f;
        run_ops(&fc, &l, NULL, 2, &f);
        check_faulty(&clean, &m, &f, &fc);
        run_free(&f);
    } else if (c.threads && c.level > 0) {
        /* a worker thread compresses the same blocks: the same bytes */
        cfg tc = c;
        tc.threads = 0;
        run b;
        run_ops(&tc, &l, NULL, 0, &b);
        FZ_CHECK(b.finish_rc == HEAPFMT_OK &&
                     b.sink.out.len == clean.sink.out.len &&
                     memcmp(b.sink.out.p, clean.sink.out.p, b.sink.out.len) ==
                         0,
                 "output differs with and without a worker thread");
        run_free(&b);
    } else if (c.max_call || c.eintr_every) {
        run b;
        run_ops(&c, &l, NULL, 1, &b);
        FZ_CHECK(b.finish_rc == HEAPFMT_OK, "with short writes or EINTR "
                 "finish gave %s", fz_status_name(b.finish_rc));
        FZ_CHECK(b.nrcs == clean.nrcs &&
                     memcmp(b.rcs, clean.rcs, b.nrcs * sizeof *b.rcs) == 0,
                 "results differ with short writes or EINTR");
        FZ_CHECK(b.sink.out.len == clean.sink.out.len &&
                     memcmp(b.sink.out.p, clean.sink.out.p, b.sink.out.len) ==
                         0,
                 "output differs with short writes or EINTR");
        run_free(&b);
    }
    m_free(&m);
    run_free(&clean);
    ops_free(&l);
    return 0;
}
