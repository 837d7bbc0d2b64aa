/* jemalloc.c -- reading jemalloc 5.3's heap (jemalloc.h).
 *
 * The layout read (jemalloc 5.3.0, x86-64, 4 KiB pages, 48-bit addresses,
 * as Debian builds it), checked against a program's own records
 * (tests/core/truth.c under LD_PRELOAD):
 *   - extent map leaf entry: one word, the edata_t pointer in bits 7-47
 *     (descriptors are 128-aligned), the size class index in bits 48-55,
 *     slab in bit 0, the extent state in bits 2-4;
 *   - edata_t: e_bits (arena 0-11, slab 12, state 17-19, size class index
 *     20-27, free regions 28-37), e_addr, e_size_esn (size: the page
 *     bits), then at byte 64 a slab's bitmap: a bit per region, set when
 *     the region is free (512 regions at most: 8 words, no tree);
 *   - cache_bin_t (24 bytes): stack_head, a counter, then the low 16 bits
 *     of the stack's low water, full and empty positions; the cached
 *     pointers are stack_head[0 .. (empty - stack_head) / 8);
 *   - base blocks (metadata): at a 2 MiB boundary, their size (a multiple
 *     of 2 MiB), the next block, then the descriptor of their free rest,
 *     which ends where the block ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "jemalloc.h"
#include "rsort.h"

#define PAGE 4096u
#define LEAF_BITS 18u           /* 36 significant bits, two levels */
#define NLEAF (1u << LEAF_BITS)
#define LEAF_SPAN 30u           /* a leaf covers 2^(18 + 12) bytes */
#define EDATA_PTR 0x0000ffffffffff80ull
#define EDATA_BYTES 128u
#define NBINS 36u               /* small size classes: below 16 KiB */
#define MAX_REGS 512u           /* regions of a slab at most */
#define HUGE (2ull << 20)       /* base blocks are aligned to it */
#define TLS_BELOW 0x10000u      /* static TLS searched below the thread
                                   pointer */
#define MIN_TBINS 16u           /* a thread cache has at least as many */
#define MAX_TBINS 232u
#define TCACHE_BUDGET (1u << 22) /* cached entries checked a thread, at
                                    most (a hostile image: bounded time) */

enum { ST_ACTIVE = 0, ST_DIRTY = 1, ST_MUZZY = 2, ST_RETAINED = 3 };

/* Usable size of size class index i (LG_QUANTUM 4, four classes a
 * doubling): 8, 16, 32, 48, 64, 80, 96, 112, 128, 160, ... */
static uint64_t class_size(unsigned i)
{
    if (i == 0)
        return 8;
    if (i < 5)
        return 16ull * i;
    unsigned g = (i - 5) / 4, k = (i - 5) % 4 + 1, lgd = 4 + g;
    if (lgd > 60)
        return 0;
    return (1ull << (lgd + 2)) + (uint64_t)k * (1ull << lgd);
}

static int u64at(const image *im, uint64_t a, uint64_t *v)
{
    return img_u64(im, a, v);
}

static const module *find_lib(const modules *ms)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strncmp(ms->m[i].name, "libjemalloc.so", 14) == 0)
            return &ms->m[i];
    return NULL;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether the root at root is an extent map root: every entry empty or a
 * leaf wholly in the image, no two leaves overlapping (so that reading
 * them all reads the image at most once). */
static int root_ok(const image *im, uint64_t root)
{
    const unsigned char *p = img_ptr(im, root, (size_t)NLEAF * 8);
    if (p == NULL)
        return 0;
    uint64_t *leaf = malloc((size_t)NLEAF * sizeof *leaf);
    if (leaf == NULL)
        return 0;
    size_t n = 0;
    int ok = 1;
    for (size_t i = 0; i < NLEAF && ok; i++) {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        if (v == 0)
            continue;
        ok = (v & 63) == 0 && img_ptr(im, v, (size_t)NLEAF * 8) != NULL;
        leaf[n++] = v;
    }
    SORT(leaf, n, by_u64);
    for (size_t i = 1; i < n && ok; i++)
        ok = leaf[i] - leaf[i - 1] >= (uint64_t)NLEAF * 8;
    free(leaf);
    return ok && n > 0;
}

/* The root of the extent map, searched in the library's writable data:
 * a word pointing at a leaf whose first entry's descriptor covers the
 * page that entry stands for; the word's index in the root follows. */
#define SCAN_BUDGET (1ull << 26) /* leaf words looked at, at most */
#define ROOT_TRIES 64              /* roots checked whole, at most */

static uint64_t find_root(const image *im, const module *lib)
{
    uint64_t budget = SCAN_BUDGET;
    unsigned tries = ROOT_TRIES;
    for (size_t r = 0; r < lib->nrw; r++) {
        uint64_t a0 = (lib->rw[r].start + 7) & ~(uint64_t)7;
        for (uint64_t w = a0; w + 8 <= lib->rw[r].end; w += 8) {
            uint64_t v, ea, esz;
            if (u64at(im, w, &v) != 0 || v == 0 || (v & 63) != 0)
                continue;
            const unsigned char *leaf = img_ptr(im, v, (size_t)NLEAF * 8);
            if (leaf == NULL)
                continue;
            uint64_t le = 0;
            size_t j = 0;
            for (; j < NLEAF && budget > 0; j++, budget--) {
                memcpy(&le, leaf + 8 * j, 8);
                if (le != 0)
                    break;
            }
            if (budget == 0 || tries == 0)
                return 0; /* hostile or not jemalloc's: it would not end */
            if (j == NLEAF)
                continue;
            uint64_t ed = le & EDATA_PTR;
            if (ed == 0 || u64at(im, ed + 8, &ea) != 0 ||
                u64at(im, ed + 16, &esz) != 0)
                continue;
            uint64_t base = ea & ~(uint64_t)(PAGE - 1);
            uint64_t size = esz & ~(uint64_t)(PAGE - 1);
            if (size == 0 || base + size < base)
                continue;
            uint64_t i = base >> LEAF_SPAN;
            uint64_t key = (i << LEAF_SPAN) | ((uint64_t)j << 12);
            if (key < base) {
                i++;
                key += 1ull << LEAF_SPAN;
            }
            if (i >= NLEAF || key >= base + size || w < lib->rw[r].start + 8 * i)
                continue;
            uint64_t root = w - 8 * i;
            tries--;
            if (root_ok(im, root))
                return root;
        }
    }
    return 0;
}

/* The descriptors of the map's extents, sorted, each once. */
static int extents(const image *im, uint64_t root, uint64_t **out, size_t *n)
{
    const unsigned char *rp = img_ptr(im, root, (size_t)NLEAF * 8);
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < NLEAF; i++) {
        uint64_t lp;
        memcpy(&lp, rp + 8 * i, 8);
        if (lp == 0)
            continue;
        const unsigned char *leaf = img_ptr(im, lp, (size_t)NLEAF * 8);
        uint64_t prev = 0;
        for (size_t j = 0; j < NLEAF; j++) {
            uint64_t le;
            memcpy(&le, leaf + 8 * j, 8);
            uint64_t ed = le & EDATA_PTR;
            if (ed == 0 || ed == prev)
                continue;
            prev = ed;
            if (GROW(*out, cap, *n) != 0)
                return -1;
            (*out)[(*n)++] = ed;
        }
    }
    if (rsort(*out, *n, 8) != 0)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (k == 0 || (*out)[k - 1] != (*out)[i])
            (*out)[k++] = (*out)[i];
    *n = k;
    return 0;
}

static harena *arena_at(heap *h, unsigned a)
{
    if (a >= h->narenas) {
        size_t need = (size_t)a + 1;
        if (cli_grow((void **)&h->arenas, &h->caparenas, need,
                      sizeof *h->arenas) != 0)
            return NULL;
        memset(h->arenas + h->narenas, 0,
               (need - h->narenas) * sizeof *h->arenas);
        h->narenas = need;
    }
    return &h->arenas[a];
}

/* One extent's blocks, from its descriptor e (read at ed). Extents come
 * in address order; *covered: where the ones before end (one that
 * overlaps them is a damaged descriptor: not read). */
static int extent(heap *h, const image *im, uint64_t ed, const uint64_t *e,
                  uint64_t *covered)
{
    uint64_t bits = e[0], addr = e[1];
    uint64_t base = addr & ~(uint64_t)(PAGE - 1);
    uint64_t size = e[2] & ~(uint64_t)(PAGE - 1);
    unsigned arena = (unsigned)(bits & 0xfff);
    unsigned state = (unsigned)(bits >> 17 & 7);
    unsigned szind = (unsigned)(bits >> 20 & 0xff);
    unsigned nfree = (unsigned)(bits >> 28 & 0x3ff);
    int slab = (int)(bits >> 12 & 1);
    if (size == 0 || base + size < base || ((base + size) >> 48) != 0) {
        heap_problem(h, "jemalloc: the extent descriptor at 0x%llx has a "
                        "corrupt address or size (0x%llx, 0x%llx)",
                     (unsigned long long)ed, (unsigned long long)addr,
                     (unsigned long long)e[2]);
        return 0;
    }
    if (base < *covered) {
        heap_problem(h, "jemalloc: the extent at 0x%llx (descriptor 0x%llx) "
                        "overlaps the one before it: not read",
                     (unsigned long long)base, (unsigned long long)ed);
        return 0;
    }
    *covered = base + size;
    if (state == ST_DIRTY || state == ST_MUZZY) { /* free pages */
        if (heap_add_free(h, base | HF_BIN, size | (uint64_t)arena << 48) != 0 ||
            heap_add_region(h, base, base + size, UINT32_MAX) != 0)
            return -1;
        return 0;
    }
    if (state == ST_RETAINED) /* address space kept, no memory */
        return heap_add_region(h, base, base + size, UINT32_MAX);
    if (state != ST_ACTIVE) {
        heap_problem(h, "jemalloc: the extent at 0x%llx was being changed "
                        "(a thread was inside jemalloc): not read",
                     (unsigned long long)base);
        return 0;
    }
    harena *a = arena_at(h, arena);
    if (a == NULL)
        return -1;
    if (!slab) { /* one large allocation */
        uint64_t usable = szind < MAX_TBINS ? class_size(szind) : 0;
        if (usable == 0 || addr - base >= PAGE || usable > base + size - addr) {
            heap_problem(h, "jemalloc: the large extent at 0x%llx has a size "
                            "class (%u) that does not fit it (0x%llx bytes)",
                         (unsigned long long)base, szind,
                         (unsigned long long)size);
            return 0;
        }
        if (heap_add_used(h, addr, usable) != 0 ||
            heap_add_region(h, base, base + size, UINT32_MAX) != 0)
            return -1;
        a->used++;
        a->used_bytes += usable;
        return 0;
    }
    uint64_t stride = szind < NBINS ? class_size(szind) : 0;
    uint64_t nregs = stride ? size / stride : 0;
    if (img_ptr(im, base, size) == NULL) {
        heap_problem(h, "jemalloc: the slab at 0x%llx is not in the image",
                     (unsigned long long)base);
        return 0;
    }
    if (nregs == 0 || nregs > MAX_REGS || addr != base) {
        heap_problem(h, "jemalloc: the slab at 0x%llx has a size class (%u) "
                        "that does not fit it (0x%llx bytes)",
                     (unsigned long long)base, szind, (unsigned long long)size);
        return 0;
    }
    unsigned used = 0;
    for (uint64_t r = 0; r < nregs; r++) {
        uint64_t at = base + r * stride;
        if (e[8 + r / 64] >> (r % 64) & 1) { /* set: free */
            if (heap_add_free(h, at | HF_BIN, stride | (uint64_t)arena << 48) != 0)
                return -1;
            continue;
        }
        if (heap_add_used(h, at, stride) != 0)
            return -1;
        used++;
    }
    if (nregs - used != nfree)
        heap_problem(h, "jemalloc: the slab at 0x%llx counts %u free regions, "
                        "its bitmap %llu (read from the bitmap)",
                     (unsigned long long)base, nfree,
                     (unsigned long long)(nregs - used));
    a->used += used;
    a->used_bytes += used * stride;
    return heap_add_slab(h, base, base + size, arena, (uint32_t)stride);
}

/* The bins of a thread cache at tb (words of the TLS window at w, nw of
 * them): how many consecutive bins hold only used blocks of their size. */
static unsigned cache_bins(const heap *h, const image *im, const uint64_t *w,
                           size_t nw, uint64_t *budget)
{
    unsigned b = 0;
    for (; b < MAX_TBINS && 3 * (size_t)b + 2 < nw; b++) {
        uint64_t head = w[3 * b], lows = w[3 * b + 2];
        unsigned full = (unsigned)(lows >> 16 & 0xffff);
        unsigned empty = (unsigned)(lows >> 32 & 0xffff);
        unsigned h16 = (unsigned)(head & 0xffff);
        unsigned cap = (empty - full) & 0xffff;
        unsigned n = ((empty - h16) & 0xffff) / 8;
        if (head == 0 || (head & 7) != 0 || cap == 0 || cap % 8 != 0 ||
            ((h16 - full) & 0xffff) > cap)
            break;
        uint64_t want = class_size(b);
        unsigned k = 0;
        for (; k < n && *budget > 0; k++, (*budget)--) {
            uint64_t p;
            long i;
            if (u64at(im, head + 8 * k, &p) != 0 ||
                (i = heap_find_used(h, p)) < 0 || HB_ADDR(h->used[i]) != p ||
                h->used[i].size != want)
                break;
        }
        if (k < n)
            break;
    }
    return b;
}

/* Each thread's cache: its entries become free blocks (HF_TCACHE), the
 * block of its stacks the allocator's own. */
static int tcaches(heap *h, const image *im, unsigned *found)
{
    size_t nw = (TLS_BELOW + PAGE) / 8;
    uint64_t *w = malloc(nw * sizeof *w);
    unsigned char *drop = calloc(h->nused ? h->nused : 1, 1);
    if (w == NULL || drop == NULL) {
        free(w);
        free(drop);
        return -1;
    }
    *found = 0;
    for (size_t t = 0; t < im->nthr; t++) {
        uint64_t tp = im->thr[t].reg[REG_FS_BASE];
        if (tp < TLS_BELOW)
            continue;
        uint64_t lo = tp - TLS_BELOW;
        for (size_t k = 0; k < nw; k++)
            if (u64at(im, lo + 8 * k, &w[k]) != 0)
                w[k] = 0;
        size_t best = 0;
        unsigned nbest = 0;
        uint64_t budget = TCACHE_BUDGET;
        for (size_t k = 0; k + 3 * MIN_TBINS <= nw; k++) {
            unsigned nb = cache_bins(h, im, w + k, nw - k, &budget);
            if (nb > nbest) {
                nbest = nb;
                best = k;
            }
        }
        if (nbest < MIN_TBINS)
            continue;
        (*found)++;
        for (unsigned b = 0; b < nbest; b++) {
            uint64_t head = w[best + 3 * b], lows = w[best + 3 * b + 2];
            unsigned n = ((unsigned)(lows >> 32 & 0xffff) - (unsigned)(head & 0xffff)) % 65536 / 8;
            long s = heap_find_used(h, head);
            if (s >= 0)
                h->used[s].addr |= HB_INTERNAL;
            for (unsigned k = 0; k < n; k++) {
                uint64_t p;
                long i;
                if (u64at(im, head + 8 * k, &p) == 0 &&
                    (i = heap_find_used(h, p)) >= 0 && !drop[i]) {
                    drop[i] = 1;
                    const hregion *r = heap_region_of(h, p);
                    uint32_t ar = r != NULL && r->arena != UINT32_MAX ? r->arena : 0;
                    uint64_t sz = h->used[i].size;
                    if (heap_add_free(h, p | HF_TCACHE, sz | (uint64_t)ar << 48) != 0)
                        goto nomem;
                    if (ar < h->narenas && h->arenas[ar].used > 0) {
                        h->arenas[ar].tcache++;
                        h->arenas[ar].tcache_bytes += sz;
                        h->arenas[ar].used--;
                        h->arenas[ar].used_bytes -= sz;
                    }
                }
            }
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < h->nused; i++)
        if (!drop[i])
            h->used[k++] = h->used[i];
    h->nused = k;
    free(w);
    free(drop);
    return 0;
nomem:
    free(w);
    free(drop);
    return -1;
}

/* jemalloc's base blocks: its metadata, not roots. */
static int base_blocks(heap *h, const image *im)
{
    for (size_t i = 0; i < im->nseg; i++) {
        const img_seg *s = &im->seg[i];
        if (s->file >= 0 || (s->prot & IMG_W) == 0)
            continue;
        uint64_t end = s->start + s->avail;
        for (uint64_t b = (s->start + HUGE - 1) & ~(HUGE - 1); b + 40 <= end;
             b += HUGE) {
            uint64_t size, next, ea, ebs;
            const unsigned char *p = s->data + (b - s->start);
            memcpy(&size, p, 8);
            memcpy(&next, p + 8, 8);
            memcpy(&ea, p + 24, 8);
            memcpy(&ebs, p + 32, 8);
            if (size == 0 || size % HUGE != 0 || size > (1ull << 40) ||
                next % HUGE != 0 || ea <= b || ea > b + size ||
                ea + ebs != b + size)
                continue;
            if (heap_add_own(h, b, b + size) != 0)
                return -1;
        }
    }
    return 0;
}


int jemalloc_read(heap *h, const image *im, const modules *ms, const char **why)
{
    *why = NULL;
    const module *lib = find_lib(ms);
    if (lib == NULL) {
        *why = "no libjemalloc.so among the mapped files (a static build)";
        return 0;
    }
    uint64_t root = find_root(im, lib);
    if (root == 0) {
        *why = "its extent map was not found in its data (not the 5.3 "
               "layout for 48-bit addresses and 4 KiB pages, or jemalloc "
               "never ran)";
        return 0;
    }
    snprintf(h->allocator, sizeof h->allocator, "jemalloc 5.3");
    h->chunk_hdr = 0;
    h->internal = "jemalloc tcache";
    uint64_t *ed = NULL;
    size_t ned = 0;
    struct desc {
        uint64_t base; /* first: the sort's key */
        uint64_t at;
        uint64_t e[EDATA_BYTES / 8];
    } *desc = NULL;
    int rc = -1;
    if (extents(im, root, &ed, &ned) != 0)
        goto out;
    /* the descriptors, in the order of their extents' addresses */
    if ((desc = malloc((ned ? ned : 1) * sizeof *desc)) == NULL)
        goto out;
    size_t nd = 0;
    for (size_t i = 0; i < ned; i++) {
        if (img_read(im, ed[i], desc[nd].e, sizeof desc[nd].e) != 0) {
            heap_problem(h, "jemalloc: the extent descriptor at 0x%llx is "
                            "not in the image", (unsigned long long)ed[i]);
            continue;
        }
        desc[nd].base = desc[nd].e[1] & ~(uint64_t)(PAGE - 1);
        desc[nd].at = ed[i];
        nd++;
    }
    SORT(desc, nd, by_u64); /* by base, their first member */
    uint64_t covered = 0;
    for (size_t i = 0; i < nd; i++)
        if (extent(h, im, desc[i].at, desc[i].e, &covered) != 0)
            goto out;
    if (rsort(h->used, h->nused, sizeof *h->used) != 0 ||
        rsort(h->free, h->nfree, sizeof *h->free) != 0)
        goto out;
    unsigned found;
    if (tcaches(h, im, &found) != 0)
        goto out;
    snprintf(h->found_by, sizeof h->found_by,
             "structure (extent map 0x%llx, %u thread caches)",
             (unsigned long long)root, found);
    if (rsort(h->free, h->nfree, sizeof *h->free) != 0 || base_blocks(h, im) != 0)
        goto out;
    rc = 1;
out:
    free(ed);
    free(desc);
    return rc;
}
