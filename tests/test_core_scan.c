/*
 * test_core_scan.c -- heapfmt-core's reference scan (dump.c, bindex.h)
 * against a model: each object's references are every 8-aligned word of
 * its block that points into a used block, in word order, placed by a
 * binary search over the block list (heap_find_used), labeled "interior"
 * when not at the block's start.
 *
 * The heap is synthetic: arena chunks laid out as glibc does (a 16-byte
 * header, usable size = chunk size - 8, the next chunk's size field just
 * after), some free, blocks long enough to be scanned in several batches,
 * an mmapped chunk in a region of its own, jemalloc slabs (regions of 8
 * to 160 bytes at a stride, some free), and words aimed at every edge:
 * block starts and interiors, the size field between two blocks, free
 * chunks, the regions' ends, the gap between them, numbers.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bindex.h"
#include "blockclass.h"
#include "dump.h"
#include "heap.h"
#include "heapfmt.h"
#include "image.h"
#include "modules.h"
#include "roots.h"
#include "tio.h"

#define ARENA 0x10000000ull
#define ARENA_BYTES (4u << 20)
#define MMAP 0x30000000ull
#define MMAP_BYTES (256u << 10)
#define SLAB 0x20000000ull
#define SLAB_BYTES (16u << 10) /* a slab; four of them, one per stride */

static const uint32_t strides[4] = {8, 48, 80, 160};

typedef struct world {
    unsigned char *arena, *mm, *slab;
    image im;
    heap h;
    uint64_t *free_at; /* free chunks' user addresses */
    size_t nfree;
} world;

static void put64(unsigned char *base, uint64_t base_addr, uint64_t a, uint64_t v)
{
    memcpy(base + (a - base_addr), &v, 8);
}

/* A word aimed somewhere interesting. */
static uint64_t aim(world *w, tprng *r)
{
    const heap *h = &w->h;
    const hblock *b = &h->used[tprng_below(r, h->nused)];
    uint64_t a = HB_ADDR(*b);
    switch (tprng_below(r, 12)) {
    case 0: case 1: case 2:
        return a;                                  /* a start */
    case 3: case 4:
        return a + 8 * tprng_below(r, b->size / 8); /* inside */
    case 5:
        return a + b->size + tprng_below(r, 16);    /* its end, next header */
    case 6:
        return a - 1 - tprng_below(r, 16);          /* its own header */
    case 7:
        return w->nfree ? w->free_at[tprng_below(r, w->nfree)] +
                              tprng_below(r, 64)
                        : a;                        /* a free chunk */
    case 8:
        return MMAP + tprng_below(r, MMAP_BYTES + 64); /* the mmapped one */
    case 9:
        return ARENA + ARENA_BYTES - 16 + tprng_below(r, 64); /* the end */
    case 10:
        return tprng_below(r, 2) ? ARENA + ARENA_BYTES + tprng_below(r, SLAB - ARENA)
                                 : SLAB + tprng_below(r, 4 * SLAB_BYTES + 64); /* gap, slabs */
    default:
        return tprng_next(r) & (tprng_below(r, 2) ? 0xffff : ~0ull);
    }
}

static void build(world *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    tprng r;
    tprng_seed(&r, seed);
    w->arena = calloc(1, ARENA_BYTES);
    w->mm = calloc(1, MMAP_BYTES);
    w->slab = calloc(4, SLAB_BYTES);
    w->free_at = calloc(ARENA_BYTES / 32, sizeof *w->free_at);
    cr_assert(w->arena && w->mm && w->slab && w->free_at);
    img_init(&w->im);
    img_seg s = {.start = ARENA, .end = ARENA + ARENA_BYTES, .data = w->arena,
                 .avail = ARENA_BYTES, .prot = IMG_R | IMG_W, .file = -1};
    cr_assert_eq(img_add(&w->im, &s), 0);
    img_seg m = {.start = MMAP, .end = MMAP + MMAP_BYTES, .data = w->mm,
                 .avail = MMAP_BYTES, .prot = IMG_R | IMG_W, .file = -1};
    cr_assert_eq(img_add(&w->im, &m), 0);
    img_seg sl = {.start = SLAB, .end = SLAB + 4 * SLAB_BYTES, .data = w->slab,
                  .avail = 4 * SLAB_BYTES, .prot = IMG_R | IMG_W, .file = -1};
    cr_assert_eq(img_add(&w->im, &sl), 0);
    cr_assert_eq(img_sort(&w->im), 0);
    heap_init(&w->h);
    /* arena chunks, then the top (at least 16 KiB) */
    uint64_t c = ARENA;
    for (;;) {
        uint64_t size;
        switch (tprng_below(&r, 20)) {
        case 0:
            size = 32768 + 16 * tprng_below(&r, 8192); /* long: batches */
            break;
        case 1:
            size = 16 * (2 + tprng_below(&r, 2048));
            break;
        default:
            size = 16 * (2 + tprng_below(&r, 24));
        }
        if (c + size + (16u << 10) > ARENA + ARENA_BYTES)
            break;
        put64(w->arena, ARENA, c + 8, size | 1);
        if (tprng_below(&r, 6) == 0)
            w->free_at[w->nfree++] = c + 16;
        else
            cr_assert_eq(heap_add_used(&w->h, c + 16, size - 8), 0);
        c += size;
    }
    cr_assert_eq(heap_add_region(&w->h, ARENA, ARENA + ARENA_BYTES, 0), 0);
    /* jemalloc slabs: used regions at a stride (the rest, and the slack
     * at the end, free), between the arena and the mmapped chunk */
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t start = SLAB + k * SLAB_BYTES;
        for (uint64_t a = start; a + strides[k] <= start + SLAB_BYTES; a += strides[k])
            if (tprng_below(&r, 3) != 0)
                cr_assert_eq(heap_add_used(&w->h, a, strides[k]), 0);
        cr_assert_eq(heap_add_slab(&w->h, start, start + SLAB_BYTES, 1, strides[k]), 0);
    }
    /* the mmapped chunk */
    put64(w->mm, MMAP, MMAP + 8, MMAP_BYTES | 2);
    cr_assert_eq(heap_add_used(&w->h, (MMAP + 16) | HB_MMAPPED, MMAP_BYTES - 16), 0);
    cr_assert_eq(heap_add_region(&w->h, MMAP, MMAP + MMAP_BYTES, UINT32_MAX), 0);
    /* the words of every used block */
    for (size_t i = 0; i < w->h.nused; i++) {
        const hblock *b = &w->h.used[i];
        uint64_t a = HB_ADDR(*b);
        unsigned char *base = a >= MMAP ? w->mm : a >= SLAB ? w->slab : w->arena;
        uint64_t base_addr = a >= MMAP ? MMAP : a >= SLAB ? SLAB : ARENA;
        for (uint64_t o = 0; o + 8 <= b->size; o += 8)
            if (tprng_below(&r, 3) == 0)
                put64(base, base_addr, a + o, aim(w, &r));
    }
}

static void unbuild(world *w)
{
    heap_free(&w->h);
    img_free(&w->im);
    free(w->arena);
    free(w->mm);
    free(w->slab);
    free(w->free_at);
}

/* The model's references of block i. */
static size_t model_refs(const world *w, size_t i, uint64_t *ids, int *interior)
{
    const hblock *b = &w->h.used[i];
    uint64_t a = HB_ADDR(*b);
    const img_seg *s = img_find(&w->im, a);
    size_t n = 0;
    for (uint64_t o = 0; o + 8 <= b->size; o += 8) {
        uint64_t v;
        memcpy(&v, s->data + (a + o - s->start), 8);
        long k = heap_find_used(&w->h, v);
        if (k < 0)
            continue;
        ids[n] = HB_ADDR(w->h.used[k]);
        interior[n] = v != ids[n];
        n++;
    }
    return n;
}

static void check_seed(uint64_t seed)
{
    world w;
    build(&w, seed);
    bindex x;
    cr_assert_eq(bindex_build(&x, &w.h), 0);
    modules ms;
    memset(&ms, 0, sizeof ms);
    ms.libc = -1;
    classes cls;
    classes_init(&cls, &w.im, &ms);
    roots rs;
    memset(&rs, 0, sizeof rs);
    tsink sink;
    tsink_init(&sink);
    heapfmt_writer *wr = NULL;
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = 0;
    cr_assert_eq(heapfmt_writer_open(&wr, &wo, tsink_write, &sink), HEAPFMT_OK);
    dump_info info = {.source = "test", .complete = 1};
    dump_stats st = {.name = "test"};
    cr_assert_eq(dump_write(wr, &w.im, &ms, &w.h, &cls, &x, &rs, &info, &st),
                 HEAPFMT_OK);
    cr_assert_eq(heapfmt_writer_finish(wr), HEAPFMT_OK);
    heapfmt_writer_free(wr);

    heapfmt_reader *rd = NULL;
    cr_assert_eq(heapfmt_reader_open_memory(&rd, NULL, sink.out.data, sink.out.len),
                 HEAPFMT_OK);
    uint64_t *want = malloc(MMAP_BYTES / 8 * sizeof *want);
    int *inner = malloc(MMAP_BYTES / 8 * sizeof *inner);
    cr_assert(want && inner);
    size_t i = 0, long_blocks = 0, refs = 0, interiors = 0, slab_refs = 0;
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(rd, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_OBJECT)
            continue;
        cr_assert_lt(i, w.h.nused);
        const heapfmt_robject *o = rec.u.object;
        cr_assert_eq(o->id, HB_ADDR(w.h.used[i]), "object %zu", i);
        cr_assert_eq(o->size, w.h.used[i].size);
        size_t n = model_refs(&w, i, want, inner);
        const uint64_t *got;
        long ng = heapfmt_reader_refs(rd, &got);
        cr_assert_eq((size_t)ng, n, "block 0x%llx: %ld references, the model %zu",
                     (unsigned long long)o->id, ng, n);
        const heapfmt_rlabel *lab = NULL;
        long nl = heapfmt_reader_labels(rd, &lab);
        for (size_t k = 0; k < n; k++) {
            cr_assert_eq(got[k], want[k], "block 0x%llx reference %zu",
                         (unsigned long long)o->id, k);
            int is_interior = nl > 0 && lab[k].kind == HEAPFMT_LABEL_OTHER &&
                              lab[k].name != NULL &&
                              lab[k].name->len == strlen("interior") &&
                              memcmp(lab[k].name->ptr, "interior", 8) == 0;
            cr_assert_eq(is_interior, inner[k], "block 0x%llx reference %zu's label",
                         (unsigned long long)o->id, k);
            interiors += (size_t)inner[k];
        }
        refs += n;
        for (size_t k = 0; k < n; k++)
            slab_refs += want[k] >= SLAB && want[k] < SLAB + 4 * SLAB_BYTES;
        long_blocks += w.h.used[i].size > 8 * 4096;
        i++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE);
    cr_assert_eq(i, w.h.nused);
    cr_assert_eq(st.refs, refs);
    cr_assert_eq(st.interior, interiors);
    /* the heap exercised what it is for */
    cr_assert_gt(long_blocks, 2);
    cr_assert_gt(slab_refs, 100);
    cr_assert_gt(interiors, 100);
    cr_assert_gt(refs - interiors, 100);
    heapfmt_reader_free(rd);
    free(want);
    free(inner);
    tsink_free(&sink);
    classes_free(&cls);
    bindex_free(&x);
    unbuild(&w);
}

Test(core_scan, references_as_the_model_finds_them)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        check_seed(seed);
}
