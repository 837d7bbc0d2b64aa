/* dump.c -- a native heap as a heapfmt dump (dump.h): META, one OBJECT
 * per used block with its references, ROOT records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_progress.h"
#include "dump.h"
#include "grow.h"

#define MAX_ROOT_LABELS (1u << 20) /* distinct root labels, then none */
#define ROOT_CHUNK (1u << 20)      /* references per ROOT record */

typedef struct refbuf {
    uint64_t *id;
    heapfmt_label *label;
    size_t n, cap;
    int labeled;
} refbuf;

static int refbuf_push(refbuf *b, uint64_t id, uint32_t kind, uint64_t value)
{
    size_t cap = b->cap;
    if (GROW(b->id, cap, b->n) != 0 || GROW(b->label, b->cap, b->n) != 0)
        return -1;
    b->id[b->n] = id;
    b->label[b->n] = (heapfmt_label){kind, 0, value};
    if (kind != HEAPFMT_LABEL_NONE)
        b->labeled = 1;
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

/* The references of n bytes at p (8-aligned words). */
static int scan_block(dumper *d, const unsigned char *p, uint64_t n)
{
    for (uint64_t off = 0; off + 8 <= n; off += 8) {
        uint64_t v, a;
        memcpy(&v, p + off, 8);
        if (!bindex_find(d->x, v, &a))
            continue;
        if (d->rb.n >= HEAPFMT_MAX_REFS) {
            d->st->truncated++;
            break;
        }
        if (refbuf_push(&d->rb, a, v == a ? HEAPFMT_LABEL_NONE : HEAPFMT_LABEL_OTHER,
                        v == a ? 0 : d->s_interior) != 0)
            return HEAPFMT_E_NOMEM;
        if (v != a)
            d->st->interior++;
    }
    return HEAPFMT_OK;
}

/* The bytes of a used block present in the image (cut to its size), or
 * NULL; *s caches the mapping of the last block (blocks come in address
 * order). */
static const unsigned char *block_bytes(const image *im, const hblock *b,
                                        const img_seg **s, uint64_t *n)
{
    uint64_t a = HB_ADDR(*b);
    if (*s == NULL || a < (*s)->start || a >= (*s)->end)
        *s = img_find(im, a);
    *n = 0;
    if (*s == NULL || a - (*s)->start >= (*s)->avail)
        return NULL;
    *n = (*s)->avail - (a - (*s)->start);
    if (*n > b->size)
        *n = b->size;
    return (*s)->data + (a - (*s)->start);
}

/* Blocks scanned ahead: their words' index lines are prefetched first, so
 * that the lookups' cache misses overlap (the index of a large heap does
 * not fit in the caches; one miss per pointer was 90% of the lookups). */
#define WINDOW 32

static int write_objects(dumper *d)
{
    const heap *h = d->h;
    cli_progress pr;
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < h->nused; i++)
        total += h->used[i].size;
    cli_progress_begin(&pr, d->st->name, total);
    const img_seg *s = NULL, *ps = NULL;
    for (size_t i = 0; i < h->nused; i++) {
        if (i % WINDOW == 0) {
            for (size_t k = i; k < i + WINDOW && k < h->nused; k++) {
                uint64_t n;
                const unsigned char *p = block_bytes(d->im, &h->used[k], &ps, &n);
                for (uint64_t off = 0; off + 8 <= n; off += 8) {
                    uint64_t v;
                    memcpy(&v, p + off, 8);
                    bindex_prefetch(d->x, v);
                }
            }
        }
        const hblock *b = &h->used[i];
        uint64_t a = HB_ADDR(*b), n;
        const unsigned char *p = block_bytes(d->im, b, &s, &n);
        uint64_t first = 0, blk;
        if (n >= 8)
            memcpy(&first, p, 8);
        long k = classes_of(d->cls, b,
                            n >= 8 && !bindex_find(d->x, first, &blk) ? &first : NULL);
        if (k < 0) {
            cli_progress_end(&pr);
            return HEAPFMT_E_NOMEM;
        }
        klass *kl = &d->cls->k[k];
        if (!kl->written) {
            heapfmt_class c = {kl->id, kl->name, strlen(kl->name), 0, 0};
            TRY(heapfmt_write_class(d->w, &c));
            kl->written = 1;
        }
        kl->objects++;
        d->rb.n = 0;
        d->rb.labeled = 0;
        if (n > 0)
            TRY(scan_block(d, p, n));
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = a;
        o.class_id = kl->id;
        o.type = (b->addr & HB_MMAPPED) ? d->s_mmapped : d->s_chunk;
        o.size = b->size;
        o.refs = d->rb.id;
        o.nrefs = d->rb.n;
        if (d->rb.labeled) {
            o.fields |= HEAPFMT_F_LABELS;
            o.labels = d->rb.label;
        }
        d->st->refs += d->rb.n;
        TRY(heapfmt_write_object(d->w, &o));
        done += b->size;
        if ((i & 0xffff) == 0)
            cli_progress_tick(&pr, done, i);
    }
    cli_progress_end(&pr);
    return HEAPFMT_OK;
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
    d->rb.n = 0;
    d->rb.labeled = 0;
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
    d->rb.n = 0;
    d->rb.labeled = 0;
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
               const heap *h, classes *cls, bindex *x, const roots *rs,
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
