/* dump.c -- a native heap as a heapfmt dump (dump.h): META, one OBJECT
 * per used block with its references, ROOT records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli_progress.h"
#include "dump.h"
#include "cli_grow.h"

#define MAX_ROOT_LABELS (1u << 20) /* distinct root labels, then none */
#define ROOT_CHUNK (1u << 20)      /* references per ROOT record */

/* The references of the object or root being written, and their labels:
 * the labels only once one of them says something (an interior
 * reference), so that a block of pointers to starts costs 8 bytes a
 * reference, not 24. */
typedef struct refbuf {
    uint64_t *id;
    heapfmt_label *label;
    size_t n, cap, caplabel;
    int labeled;              /* label[0, n) are valid */
} refbuf;

/* Makes room for n more references (and labels, when labeled). */
static int refbuf_reserve(refbuf *b, size_t n)
{
    if (cli_grow((void **)&b->id, &b->cap, b->n + n, sizeof *b->id) != 0)
        return -1;
    if (b->labeled &&
        cli_grow((void **)&b->label, &b->caplabel, b->cap, sizeof *b->label) != 0)
        return -1;
    return 0;
}

/* Starts the labels: the references so far are unlabeled. */
static int refbuf_label(refbuf *b)
{
    if (cli_grow((void **)&b->label, &b->caplabel, b->cap, sizeof *b->label) != 0)
        return -1;
    for (size_t i = 0; i < b->n; i++)
        b->label[i] = (heapfmt_label){HEAPFMT_LABEL_NONE, 0, 0};
    b->labeled = 1;
    return 0;
}

static void refbuf_clear(refbuf *b)
{
    b->n = 0;
    b->labeled = 0;
}

static int refbuf_push(refbuf *b, uint64_t id, uint32_t kind, uint64_t value)
{
    if (refbuf_reserve(b, 1) != 0 ||
        (kind != HEAPFMT_LABEL_NONE && !b->labeled && refbuf_label(b) != 0))
        return -1;
    b->id[b->n] = id;
    if (b->labeled)
        b->label[b->n] = (heapfmt_label){kind, 0, value};
    b->n++;
    return 0;
}

static void refbuf_free(refbuf *b)
{
    free(b->id);
    free(b->label);
}

typedef struct dumper {
    heapfmt_writer *w;
    const image *im;
    const modules *ms;
    const heap *h;
    classes *cls;
    bindex *x;
    dump_stats *st;
    refbuf rb;
    uint32_t s_interior, s_chunk, s_mmapped;
    size_t root_labels;
} dumper;

#define TRY(e)                              \
    do {                                    \
        int rc_ = (e);                      \
        if (rc_ != HEAPFMT_OK)              \
            return rc_;                     \
    } while (0)

static int str(dumper *d, const char *s, uint32_t *id)
{
    return heapfmt_write_string(d->w, s, strlen(s), id);
}

static int meta_u(dumper *d, const char *key, uint64_t v)
{
    return heapfmt_write_meta_uint(d->w, key, v);
}

static int write_meta(dumper *d, const dump_info *info)
{
    heapfmt_writer *w = d->w;
    const heap *h = d->h;
    TRY(heapfmt_write_meta_text(w, "producer",
                                "heapfmt-core " HEAPFMT_LIB_VERSION_STRING));
    TRY(heapfmt_write_meta_text(w, "vm.name", "native"));
    if (d->im->pid > 0)
        TRY(meta_u(d, "pid", (uint64_t)d->im->pid));
    if (info->host != NULL)
        TRY(heapfmt_write_meta_text(w, "host", info->host));
    if (info->time != 0)
        TRY(meta_u(d, "time", info->time));
    TRY(meta_u(d, "pointer_size", 8));
    TRY(meta_u(d, "ids_stable", 1));
    TRY(heapfmt_write_meta_text(w, "core.source", info->source));
    if (d->im->exe[0])
        TRY(heapfmt_write_meta_text(w, "core.command", d->im->exe));
    TRY(heapfmt_write_meta_text(w, "core.allocator",
                                info->allocator ? info->allocator : h->allocator));
    if (h->found_by[0])
        TRY(heapfmt_write_meta_text(w, "core.arenas.found_by", h->found_by));
    TRY(heapfmt_write_meta_text(w, "core.sites",
                                "unknown: a core or a stopped process holds "
                                "no allocation sites"));
    TRY(meta_u(d, "core.threads", d->im->nthr));
    TRY(meta_u(d, "core.debug_files", d->ms->debug_files));
    TRY(meta_u(d, "core.modules.missing", d->ms->missing));
    if (info->live) {
        TRY(meta_u(d, "core.pause_us", info->pause_us));
        TRY(meta_u(d, "core.copied_bytes", info->copied));
    }
    /* The totals, and per arena what malloc_info(3) prints, computed as
     * it does: fast = fastbins, rest = bins (unsorted included) plus the
     * top chunk, the bins' sizes as their size fields hold them (flag
     * bits included: malloc_info uses chunksize_nomask there), system =
     * system_mem. Tcaches are not in malloc_info. */
    uint64_t used_bytes = 0, nfree[5] = {0}, bfree[5] = {0};
    for (size_t i = 0; i < h->nused; i++)
        used_bytes += h->used[i].size;
    for (size_t i = 0; i < h->nfree; i++) {
        unsigned k = (unsigned)(h->free[i].addr & HB_FLAGS);
        if (k < 5) {
            nfree[k]++;
            bfree[k] += HF_SIZE(h->free[i]);
        }
    }
    uint64_t top = 0, nf = 0, bf = 0;
    for (size_t i = 0; i < h->narenas; i++)
        top += h->arenas[i].top_bytes;
    for (int k = 0; k < 5; k++) {
        nf += nfree[k];
        bf += bfree[k];
    }
    d->st->used_bytes = used_bytes;
    TRY(meta_u(d, "core.used.blocks", h->nused));
    TRY(meta_u(d, "core.used.bytes", used_bytes));
    TRY(meta_u(d, "core.free.blocks", nf));
    TRY(meta_u(d, "core.free.bytes", bf));
    static const char *const kinds[4] = {"bin", "unsorted", "fast", "tcache"};
    char key[96];
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, "core.free.%s.blocks", kinds[k]);
        TRY(meta_u(d, key, nfree[k]));
        snprintf(key, sizeof key, "core.free.%s.bytes", kinds[k]);
        TRY(meta_u(d, key, bfree[k]));
    }
    TRY(meta_u(d, "core.top.bytes", top));
    TRY(meta_u(d, "core.mmapped.blocks", h->mmapped));
    TRY(meta_u(d, "core.mmapped.bytes", h->mmapped_bytes));
    TRY(meta_u(d, "core.arenas", h->narenas));
    for (size_t i = 0; i < h->narenas; i++) {
        const harena *a = &h->arenas[i];
        struct {
            const char *k;
            uint64_t v;
        } f[] = {{"addr", a->addr},
                 {"heaps", a->heaps},
                 {"system", a->system_mem},
                 {"used.blocks", a->used},
                 {"used.bytes", a->used_bytes},
                 {"fast.count", a->fast},
                 {"fast.size", a->fast_bytes},
                 {"rest.count", a->bins + (a->top_bytes ? 1 : 0)},
                 {"rest.size", a->bins_raw + a->top_bytes},
                 {"tcache.count", a->tcache},
                 {"tcache.size", a->tcache_bytes}};
        for (size_t k = 0; k < sizeof f / sizeof *f; k++) {
            snprintf(key, sizeof key, "core.arena.%zu.%s", i, f[k].k);
            TRY(meta_u(d, key, f[k].v));
        }
    }
    TRY(meta_u(d, "core.complete", info->complete));
    for (size_t i = 0; i < h->nproblems && i < HEAP_MAX_PROBLEMS; i++) {
        snprintf(key, sizeof key, "core.problem.%zu", i + 1);
        TRY(heapfmt_write_meta_text(w, key, h->problems[i]));
    }
    if (info->note != NULL)
        TRY(heapfmt_write_meta_text(w, "core.note", info->note));
    return HEAPFMT_OK;
}

/* ---- the reference scan ----
 *
 * Every aligned word of every used block is asked whether it points into
 * a used block: 34 million words for a 256 MiB heap. The blocks are
 * scanned in batches of about BATCH_WORDS words, in three passes over
 * what is left of the batch:
 *   1. the range test alone, without a branch: each word is stored, and
 *      the count of candidates moves on only when the word lies within
 *      the span of the heap regions (most words are small numbers, zero,
 *      or pointers elsewhere: one subtraction and compare each);
 *   2. the coarse map and the region of each candidate, whose bitmap line
 *      is then prefetched: the index of a large heap does not fit in the
 *      caches, and one miss per pointer was 90% of the lookups, so the
 *      misses of a whole batch overlap;
 *   3. per block, its candidates looked up (the lines are in by then),
 *      its references appended, the object written. */

#define BATCH_WORDS 4096u /* words filtered before the first lookup */
#define BATCH_BLOCKS 64u

typedef struct batch {
    uint64_t cand[BATCH_WORDS];    /* candidate words */
    uint32_t region[BATCH_WORDS];  /* their regions, after pass 2 */
    uint32_t end[BATCH_BLOCKS];    /* block k's candidates end here */
    const unsigned char *p[BATCH_BLOCKS];
    uint64_t n[BATCH_BLOCKS];      /* its bytes present */
} batch;

/* Pass 1: the nw words at p within [lo, lo + span), appended at out (room
 * for nw). Returns how many. */
static size_t in_span(const unsigned char *p, size_t nw, uint64_t lo,
                      uint64_t span, uint64_t *out)
{
    size_t n = 0, k = 0;
    for (; k + 4 <= nw; k += 4) { /* unrolled: the loop's own cost shared */
        uint64_t v0, v1, v2, v3;
        memcpy(&v0, p + 8 * k, 8);
        memcpy(&v1, p + 8 * k + 8, 8);
        memcpy(&v2, p + 8 * k + 16, 8);
        memcpy(&v3, p + 8 * k + 24, 8);
        out[n] = v0;
        n += v0 - lo < span;
        out[n] = v1;
        n += v1 - lo < span;
        out[n] = v2;
        n += v2 - lo < span;
        out[n] = v3;
        n += v3 - lo < span;
    }
    for (; k < nw; k++) {
        uint64_t v;
        memcpy(&v, p + 8 * k, 8);
        out[n] = v;
        n += v - lo < span;
    }
    return n;
}

/* Pass 2: keeps the candidates of the batch's nb blocks that the coarse
 * map passes and a region holds, with their regions, moved down (the
 * blocks' ends with them); prefetches their bitmap lines. */
static void locate(bindex *x, batch *b, size_t nb)
{
    size_t k = 0, at = 0;
    for (size_t blk = 0; blk < nb; blk++) {
        for (size_t end = b->end[blk]; k < end; k++) {
            uint64_t v = b->cand[k];
            if (!bindex_maybe(x, v))
                continue;
            long r = bindex_region(x, v);
            if (r < 0)
                continue;
            __builtin_prefetch(bindex_line(x, (size_t)r, v));
            b->cand[at] = v;
            b->region[at] = (uint32_t)r;
            at++;
        }
        b->end[blk] = (uint32_t)at;
    }
}

/* Pass 3: the references of candidates [from, to), appended to d->rb,
 * which has room for them. Returns 1 when the block's references are cut
 * (HEAPFMT_MAX_REFS), -1 out of memory, else 0. *first: the first
 * candidate points into a used block (then, when the block's first word
 * is that value, it does). */
static int resolve(dumper *d, const batch *b, size_t from, size_t to,
                   int *first)
{
    refbuf *rb = &d->rb;
    const bindex *x = d->x;
    size_t n = rb->n;
    for (size_t k = from; k < to; k++) {
        uint64_t v = b->cand[k], a;
        if (!bindex_in_region(x, b->region[k], v, &a))
            continue;
        if (k == from)
            *first = 1;
        if (n >= HEAPFMT_MAX_REFS) {
            rb->n = n;
            d->st->truncated++;
            return 1;
        }
        rb->id[n] = a;
        if (v != a) {
            if (!rb->labeled) {
                rb->n = n;
                if (refbuf_label(rb) != 0)
                    return -1;
            }
            rb->label[n] = (heapfmt_label){HEAPFMT_LABEL_OTHER, 0, d->s_interior};
            d->st->interior++;
        } else if (rb->labeled) {
            rb->label[n] = (heapfmt_label){HEAPFMT_LABEL_NONE, 0, 0};
        }
        n++;
    }
    rb->n = n;
    return 0;
}

/* The bytes of a used block present in the image (cut to its size), or
 * NULL; *s caches the mapping of the last block (blocks come in address
 * order). */
static const unsigned char *block_bytes(const image *im, const hblock *b,
                                        const img_seg **s, uint64_t *n)
{
    uint64_t a = HB_ADDR(*b);
    if (*s == NULL || a - (*s)->start >= (*s)->end - (*s)->start)
        *s = img_find(im, a);
    *n = 0;
    if (*s == NULL || a - (*s)->start >= (*s)->avail)
        return NULL;
    *n = (*s)->avail - (a - (*s)->start);
    if (*n > b->size)
        *n = b->size;
    return (*s)->data + (a - (*s)->start);
}

/* Writes used block i, whose references are in d->rb; p, n its bytes;
 * first_cand: its first candidate word (candidates come in the order of
 * the words) pointed into a used block, and first_cand_value is it. */
static int write_block(dumper *d, heapfmt_object *o, size_t i,
                       const unsigned char *p, uint64_t n, int first_cand,
                       uint64_t first_cand_value)
{
    const hblock *b = &d->h->used[i];
    uint64_t first = 0;
    const uint64_t *fw = NULL;
    if (n >= 8) {
        memcpy(&first, p, 8);
        /* a vtable pointer is not a pointer into the heap: when the first
         * word points into the heap it is the first candidate */
        if (!(first_cand && first_cand_value == first))
            fw = &first;
    }
    long k = classes_of(d->cls, b, fw);
    if (k < 0)
        return HEAPFMT_E_NOMEM;
    klass *kl = &d->cls->k[k];
    if (!kl->written) {
        heapfmt_class c = {kl->id, kl->name, strlen(kl->name), 0, 0};
        TRY(heapfmt_write_class(d->w, &c));
        kl->written = 1;
    }
    kl->objects++;
    o->id = HB_ADDR(*b);
    o->class_id = kl->id;
    o->type = (b->addr & HB_MMAPPED) ? d->s_mmapped : d->s_chunk;
    o->size = b->size;
    o->refs = d->rb.id;
    o->nrefs = d->rb.n;
    o->fields = d->rb.labeled ? HEAPFMT_F_LABELS : 0;
    o->labels = d->rb.labeled ? d->rb.label : NULL;
    d->st->refs += d->rb.n;
    return heapfmt_write_object(d->w, o);
}

/* A block of more than BATCH_WORDS words, alone, a batch at a time. */
static int write_long_block(dumper *d, batch *bt, heapfmt_object *o, size_t i,
                            const unsigned char *p, uint64_t n)
{
    uint64_t lo = d->x->lo, span = d->x->hi - d->x->lo;
    size_t nw = (size_t)(n / 8);
    int first = 0;
    uint64_t first_value = 0;
    refbuf_clear(&d->rb);
    for (size_t w = 0; w < nw; w += BATCH_WORDS) {
        size_t m = nw - w < BATCH_WORDS ? nw - w : BATCH_WORDS;
        bt->end[0] = (uint32_t)in_span(p + 8 * w, m, lo, span, bt->cand);
        locate(d->x, bt, 1);
        if (refbuf_reserve(&d->rb, bt->end[0]) != 0)
            return HEAPFMT_E_NOMEM;
        int f = 0;
        int cut = resolve(d, bt, 0, bt->end[0], &f);
        if (cut < 0)
            return HEAPFMT_E_NOMEM;
        if (w == 0) {
            first = f;
            first_value = f ? bt->cand[0] : 0;
        }
        if (cut)
            break;
    }
    return write_block(d, o, i, p, n, first, first_value);
}

/* The used list's entries before block i are not read again: once they
 * span RELEASE_STEP, their pages are given back. A large heap's last
 * blocks are often its largest arrays, whose references (8 bytes each)
 * and record then need the memory the list held (17.5M blocks: 280 MB
 * of list; the array holding them all: 140 MB of references). */
#define RELEASE_MIN (16u << 20) /* a smaller list stays whole */
#define RELEASE_STEP (1u << 20)

static void release_written(const heap *h, size_t i, uintptr_t *from)
{
    uintptr_t to = (uintptr_t)(h->used + i) & ~(uintptr_t)4095;
    if (to >= *from + RELEASE_STEP) {
        madvise((void *)*from, to - *from, MADV_DONTNEED); /* advice */
        *from = to;
    }
}

static int write_objects(dumper *d)
{
    const heap *h = d->h;
    cli_progress pr;
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < h->nused; i++)
        total += h->used[i].size;
    batch *bt = malloc(sizeof *bt);
    if (bt == NULL)
        return HEAPFMT_E_NOMEM;
    cli_progress_begin(&pr, d->st->name, total);
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    uint64_t lo = d->x->lo, span = d->x->hi - d->x->lo;
    const img_seg *s = NULL;
    int rc = HEAPFMT_OK;
    refbuf_clear(&d->rb);
    if (refbuf_reserve(&d->rb, BATCH_WORDS) != 0) {
        free(bt);
        return HEAPFMT_E_NOMEM;
    }
    int release = h->nused >= RELEASE_MIN / sizeof *h->used;
    uintptr_t released = ((uintptr_t)h->used + 4095) & ~(uintptr_t)4095;
    for (size_t i = 0; i < h->nused && rc == HEAPFMT_OK;) {
        if (release)
            release_written(h, i, &released);
        /* pass 1 over the blocks of the batch */
        size_t nb = 0, words = 0, c = 0;
        while (i + nb < h->nused && nb < BATCH_BLOCKS) {
            uint64_t n;
            const unsigned char *p = block_bytes(d->im, &h->used[i + nb], &s, &n);
            /* the allocator's own block (a tcache) holds pointers to free
             * blocks, and stale ones to blocks given out since: none is
             * a reference of the program's */
            if (h->used[i + nb].addr & HB_INTERNAL)
                n = 0;
            size_t nw = (size_t)(n / 8);
            if (nw > BATCH_WORDS - words) {
                if (nb == 0) { /* a long block: alone */
                    rc = write_long_block(d, bt, &o, i, p, n);
                    done += h->used[i].size;
                    i++;
                }
                break;
            }
            bt->p[nb] = p;
            bt->n[nb] = n;
            c += in_span(p, nw, lo, span, bt->cand + c);
            bt->end[nb] = (uint32_t)c;
            words += nw;
            nb++;
        }
        locate(d->x, bt, nb);
        /* pass 3 (the batch's blocks have fewer candidates than
         * BATCH_WORDS: room was made) */
        size_t from = 0;
        for (size_t k = 0; k < nb && rc == HEAPFMT_OK; k++) {
            refbuf_clear(&d->rb);
            int first = 0;
            if (resolve(d, bt, from, bt->end[k], &first) < 0) {
                rc = HEAPFMT_E_NOMEM;
                break;
            }
            rc = write_block(d, &o, i + k, bt->p[k], bt->n[k], first,
                             first ? bt->cand[from] : 0);
            from = bt->end[k];
            done += h->used[i + k].size;
        }
        if (((i + nb) >> 16) != (i >> 16))
            cli_progress_tick(&pr, done, i + nb);
        i += nb;
    }
    cli_progress_end(&pr);
    free(bt);
    return rc;
}

/* Flushes the references gathered for one root kind. */
static int flush_root(dumper *d, uint32_t kind)
{
    if (d->rb.n == 0)
        return HEAPFMT_OK;
    int rc = heapfmt_write_root_labeled(d->w, kind, d->rb.id,
                                        d->rb.labeled ? d->rb.label : NULL,
                                        d->rb.n);
    d->st->root_refs += d->rb.n;
    refbuf_clear(&d->rb);
    return rc;
}

/* Adds a root reference with a label text (interned; past the cap of
 * distinct labels, the reference goes unlabeled). */
static int root_ref(dumper *d, uint64_t id, const char *text, uint32_t kind)
{
    uint32_t sid = 0;
    if (text != NULL && d->root_labels < MAX_ROOT_LABELS) {
        TRY(str(d, text, &sid));
        d->root_labels++;
    }
    if (refbuf_push(&d->rb, id, sid ? HEAPFMT_LABEL_OTHER : HEAPFMT_LABEL_NONE,
                    sid) != 0)
        return HEAPFMT_E_NOMEM;
    if (d->rb.n >= ROOT_CHUNK)
        return flush_root(d, kind);
    return HEAPFMT_OK;
}

/* The label of a static word: its symbol (+offset), else module+offset. */
static void static_label(const module *m, uint64_t addr, char *buf, size_t cap)
{
    const msym *s = module_sym_at(m, addr);
    if (s != NULL && addr == s->addr)
        snprintf(buf, cap, "%s", s->name);
    else if (s != NULL)
        snprintf(buf, cap, "%s+0x%llx", s->name,
                 (unsigned long long)(addr - s->addr));
    else
        snprintf(buf, cap, "%s+0x%llx", m->name,
                 (unsigned long long)(addr - m->lo));
}

static int write_roots(dumper *d, const roots *rs)
{
    uint32_t k_reg, k_kind[3];
    TRY(str(d, "register", &k_reg));
    for (int k = 0; k < 3; k++)
        TRY(str(d, root_kind_names[k], &k_kind[k]));
    char label[600];
    refbuf_clear(&d->rb);
    for (size_t t = 0; t < d->im->nthr; t++) {
        for (int r = 0; r < IMG_NREGS; r++) {
            uint64_t a;
            if (!bindex_find(d->x, d->im->thr[t].reg[r], &a))
                continue;
            snprintf(label, sizeof label, "thread %zu %s", t + 1, img_reg_names[r]);
            TRY(root_ref(d, a, label, k_reg));
        }
        TRY(flush_root(d, k_reg));
    }
    for (size_t i = 0; i < rs->n; i++) {
        const root_range *r = &rs->r[i];
        uint32_t kind = k_kind[r->kind];
        if (r->kind == ROOT_MAPPING)
            snprintf(label, sizeof label, "mapping 0x%llx-0x%llx",
                     (unsigned long long)r->start, (unsigned long long)r->end);
        for (uint64_t a = r->start; a + 8 <= r->end;) {
            const img_seg *s = img_find(d->im, a);
            if (s == NULL)
                break;
            uint64_t off = a - s->start;
            uint64_t stop = s->end < r->end ? s->end : r->end;
            if (off >= s->avail) { /* bytes absent: next mapping */
                a = stop;
                continue;
            }
            uint64_t avail_end = s->start + s->avail;
            uint64_t end = stop < avail_end ? stop : avail_end;
            for (; a + 8 <= end; a += 8) {
                uint64_t v, blk;
                memcpy(&v, s->data + (a - s->start), 8);
                if (!bindex_find(d->x, v, &blk))
                    continue;
                if (r->kind == ROOT_STACK) {
                    int64_t delta = (int64_t)(a - r->sp);
                    snprintf(label, sizeof label, "thread %u rsp%c0x%llx",
                             r->thread, delta < 0 ? '-' : '+',
                             (unsigned long long)(delta < 0 ? -delta : delta));
                } else if (r->kind == ROOT_STATIC) {
                    static_label(r->mod, a, label, sizeof label);
                }
                TRY(root_ref(d, blk, label, kind));
            }
            a = stop;
        }
        TRY(flush_root(d, kind));
    }
    return HEAPFMT_OK;
}

int dump_write(heapfmt_writer *w, const image *im, const modules *ms,
               heap *h, classes *cls, bindex *x, const roots *rs,
               const dump_info *info, dump_stats *st)
{
    dumper d;
    memset(&d, 0, sizeof d);
    d.w = w;
    d.im = im;
    d.ms = ms;
    d.h = h;
    d.cls = cls;
    d.x = x;
    d.st = st;
    int rc = write_meta(&d, info);
    heap_drop_free(h);
    if (rc == HEAPFMT_OK)
        rc = str(&d, "interior", &d.s_interior);
    if (rc == HEAPFMT_OK)
        rc = str(&d, "chunk", &d.s_chunk);
    if (rc == HEAPFMT_OK)
        rc = str(&d, "mmapped", &d.s_mmapped);
    if (rc == HEAPFMT_OK)
        rc = write_objects(&d);
    if (rc == HEAPFMT_OK)
        rc = write_roots(&d, rs);
    if (rc == HEAPFMT_OK)
        rc = meta_u(&d, "core.refs", st->refs);
    if (rc == HEAPFMT_OK)
        rc = meta_u(&d, "core.refs.interior", st->interior);
    if (rc == HEAPFMT_OK)
        rc = meta_u(&d, "core.cxx_objects", cls->cxx_objects);
    refbuf_free(&d.rb);
    return rc;
}
