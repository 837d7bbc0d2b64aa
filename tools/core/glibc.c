/* glibc.c -- glibc malloc's arenas, heaps, chunks, bins and tcaches read
 * out of a process image (glibc.h).
 *
 * Nothing read from the image is trusted: every pointer is looked up in
 * the image before use, every list walk is bounded (Brent's cycle check
 * or a count), and a chunk header that does not fit its heap stops the
 * walk of that heap only, with the blocks before it kept and the problem
 * recorded (the dump is then incomplete: exit 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glibc.h"
#include "cli_grow.h"
#include "rsort.h"

#define SZ 8u                 /* SIZE_SZ */
#define HDR 16u               /* CHUNK_HDR_SZ */
#define MINSIZE 32u
#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define NON_MAIN_ARENA 4u
#define SIZE_BITS 7u
#define NFASTBINS 10u
#define NBINS 128u
#define TCACHE_BINS 64u
#define PAGE 4096u
#define MAX_ARENAS 4096u
#define PREFETCH 16384u       /* bytes the walk reads ahead */

/* One malloc_state layout. */
typedef struct layout {
    const char *since;    /* the glibc versions it covers */
    unsigned fastbins;    /* offset of fastbinsY */
    unsigned size;        /* sizeof(struct malloc_state) */
} layout;

static const layout layouts[] = {
    {"2.27", 16, 2200}, /* mutex, flags, have_fastchunks, fastbinsY... */
    {"2.23", 8, 2192},  /* mutex, flags, fastbinsY... */
};

/* Offsets that follow from fastbinsY's. */
static unsigned off_top(const layout *l) { return l->fastbins + NFASTBINS * 8; }
static unsigned off_bins(const layout *l) { return off_top(l) + 16; }
static unsigned off_next(const layout *l) { return off_bins(l) + (NBINS * 2 - 2) * 8 + 16; }
static unsigned off_sysmem(const layout *l) { return off_next(l) + 24; }

typedef struct walker {
    heap *h;
    const image *im;
    const modules *ms;
    const layout *lay;
    int version;           /* 2036 for 2.36; 0 unknown */
    uint64_t *fast;        /* chunk addresses in fastbins, sorted */
    size_t nfast, capfast;
    uint64_t *arena_addr;  /* arenas by index */
    uint64_t heap_info_size;
    uint64_t heap_max;
    uint64_t main_start;   /* first chunk of the main heap (sbrk_base) */
    uint64_t tcache_key;   /* 2.34+: every free tcache entry's key */
    int key_known;
    uint64_t *tls;         /* words of the threads' static TLS, sorted */
    size_t ntls;
    hblock *mm;            /* the mmapped chunks, in address order */
    size_t nmm, capmm;
    unsigned char arena_buf[2304];
} walker;

static int rd(const walker *w, uint64_t addr, uint64_t *v)
{
    return img_u64(w->im, addr, v);
}

/* Brent's cycle detection over a list: steps return 1 on a cycle. */
typedef struct cycle {
    uint64_t tortoise, power, lam;
} cycle;

static void cycle_init(cycle *c, uint64_t first)
{
    c->tortoise = first;
    c->power = 1;
    c->lam = 0;
}

static int cycle_step(cycle *c, uint64_t x)
{
    if (x == c->tortoise)
        return 1;
    if (++c->lam == c->power) {
        c->tortoise = x;
        c->power *= 2;
        c->lam = 0;
    }
    return 0;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The 8 bytes at address a of mapping seg (present: the caller checked). */
#define WORD(a) get64(seg->data + ((a) - seg->start))

/* ------------------------------------------------------------------ */
/* Finding the main arena                                              */
/* ------------------------------------------------------------------ */

/* Whether the bytes of a malloc_state at addr (buf, l->size bytes) look
 * like an initialised arena: every bin empty (both links at the bin
 * itself) or a list whose ends link back to the bin; top a readable,
 * aligned chunk; next readable. */
static int plausible_arena(const image *im, uint64_t addr,
                           const unsigned char *buf, const layout *l)
{
    unsigned empty = 0;
    for (unsigned i = 1; i < NBINS; i++) {
        uint64_t fake = addr + off_bins(l) + (uint64_t)(i - 1) * 16 - 16;
        uint64_t fd = get64(buf + off_bins(l) + (i - 1) * 16);
        uint64_t bk = get64(buf + off_bins(l) + (i - 1) * 16 + 8);
        if (fd == fake && bk == fake) {
            empty++;
            continue;
        }
        uint64_t back, fwd;
        if ((fd & 15) != 0 || (bk & 15) != 0 || img_u64(im, fd + 24, &back) != 0 ||
            back != fake || img_u64(im, bk + 16, &fwd) != 0 || fwd != fake)
            return 0;
    }
    uint64_t top = get64(buf + off_top(l)), next = get64(buf + off_next(l));
    uint64_t head;
    if (empty < 8 || top == 0 || (top & 15) != 0 ||
        img_u64(im, top + 8, &head) != 0 || next == 0 ||
        img_u64(im, next, &head) != 0)
        return 0;
    return 1;
}

/* Tries both layouts at addr. Returns the layout or NULL. */
static const layout *arena_layout(walker *w, uint64_t addr)
{
    for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
        const layout *l = &layouts[k];
        if (img_read(w->im, addr, w->arena_buf, l->size) == 0 &&
            plausible_arena(w->im, addr, w->arena_buf, l))
            return l;
    }
    return NULL;
}

/* Scans [start, end) for a main arena: the first 8-aligned address where
 * an arena is plausible. The unsorted bin is tested first, cheaply. */
static int scan_for_arena(walker *w, uint64_t start, uint64_t end,
                          uint64_t *found)
{
    start = (start + 7) & ~(uint64_t)7;
    for (uint64_t a = start; a + 2192 <= end; a += 8) {
        for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
            const layout *l = &layouts[k];
            uint64_t fd;
            if (img_u64(w->im, a + off_bins(l), &fd) != 0)
                return 0; /* not readable from here on */
            uint64_t fake = a + off_bins(l) - 16;
            uint64_t back;
            if (fd != fake && ((fd & 15) != 0 ||
                               img_u64(w->im, fd + 24, &back) != 0 ||
                               back != fake))
                continue;
            if (arena_layout(w, a) == l) {
                *found = a;
                w->lay = l;
                return 1;
            }
        }
    }
    return 0;
}

/* The main arena: by symbol, else by structure in libc's writable data
 * (or, without a libc file, every module's). */
static int find_main_arena(walker *w, const glibc_options *opt,
                           uint64_t *main_arena)
{
    const modules *ms = w->ms;
    if (!opt->no_symbols) {
        for (size_t i = 0; i < ms->n; i++) {
            uint64_t a;
            if (module_sym_find(&ms->m[i], "main_arena", &a) != 0)
                continue;
            w->lay = arena_layout(w, a);
            if (w->lay != NULL) {
                *main_arena = a;
                snprintf(w->h->found_by, sizeof w->h->found_by,
                         "symbols (main_arena in %s)", ms->m[i].name);
                return 1;
            }
            /* named but not initialised: malloc never ran */
            uint64_t top;
            if (img_u64(w->im, a + off_top(&layouts[0]), &top) == 0 && top == 0)
                return 0;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < ms->n; i++) {
            const module *m = &ms->m[i];
            if ((pass == 0) != (m->is_libc != 0))
                continue;
            for (size_t r = 0; r < m->nrw; r++) {
                if (scan_for_arena(w, m->rw[r].start, m->rw[r].end, main_arena)) {
                    snprintf(w->h->found_by, sizeof w->h->found_by,
                             "structure (in %s)", m->name);
                    return 1;
                }
            }
        }
    }
    /* No module placed (files not found): writable file mappings and the
     * anonymous mapping right after each (.bss). */
    for (size_t i = 0; i < w->im->nseg; i++) {
        const img_seg *s = &w->im->seg[i];
        int bss = i > 0 && s->file < 0 && w->im->seg[i - 1].file >= 0 &&
                  w->im->seg[i - 1].end == s->start;
        if (!(s->prot & IMG_W) || (s->file < 0 && !bss) || s->end - s->start > (64u << 20))
            continue;
        if (scan_for_arena(w, s->start, s->end, main_arena)) {
            snprintf(w->h->found_by, sizeof w->h->found_by, "structure");
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* mp_: the start of the main heap and the mmapped chunk count          */
/* ------------------------------------------------------------------ */

/* struct malloc_par: where sbrk_base, n_mmaps and mmapped_mem are. */
typedef struct par_layout {
    unsigned sbrk_base, n_mmaps, n_mmaps_max, mmapped_mem;
} par_layout;

static const par_layout par_layouts[] = {
    {96, 60, 64, 80}, /* 2.35+: thp_pagesize, hp_pagesize, hp_flags */
    {72, 40, 44, 56}, /* 2.26-2.34 */
};

/* Checks a malloc_par at p whose sbrk_base lies in [lo, hi). */
static int par_at(walker *w, uint64_t p, const par_layout *pl, uint64_t lo,
                  uint64_t hi, uint64_t *sbrk, uint64_t *nmmaps)
{
    unsigned char b[136];
    if (img_read(w->im, p, b, sizeof b) != 0)
        return 0;
    uint64_t base = get64(b + pl->sbrk_base), mem = get64(b + pl->mmapped_mem);
    int32_t n, max;
    memcpy(&n, b + pl->n_mmaps, 4);
    memcpy(&max, b + pl->n_mmaps_max, 4);
    if (base < lo || base >= hi || n < 0 || max <= 0 || (mem & (PAGE - 1)) != 0 ||
        (n == 0) != (mem == 0))
        return 0;
    *sbrk = base;
    *nmmaps = (uint64_t)n;
    return 1;
}

static void find_par(walker *w, const glibc_options *opt, uint64_t main_arena,
                     uint64_t heap_lo, uint64_t heap_hi)
{
    const par_layout *pl = &par_layouts[w->version >= 2035 || w->version == 0 ? 0 : 1];
    uint64_t sbrk, n;
    const module *lib = modules_at(w->ms, main_arena);
    if (!opt->no_symbols && lib != NULL) {
        uint64_t mp;
        if (module_sym_find(lib, "mp_", &mp) == 0 &&
            par_at(w, mp, pl, heap_lo, heap_hi, &sbrk, &n)) {
            w->main_start = sbrk;
            w->h->mp_mmapped = n;
            return;
        }
    }
    /* By structure: near main_arena, in the same writable range. */
    if (lib == NULL)
        return;
    for (size_t r = 0; r < lib->nrw; r++) {
        if (main_arena < lib->rw[r].start || main_arena >= lib->rw[r].end)
            continue;
        for (uint64_t a = lib->rw[r].start; a + 136 <= lib->rw[r].end; a += 8) {
            uint64_t v;
            if (img_u64(w->im, a, &v) != 0)
                break;
            if (v < heap_lo || v >= heap_hi)
                continue;
            for (size_t k = 0; k < 2; k++) {
                const par_layout *q = &par_layouts[k];
                if (a >= lib->rw[r].start + q->sbrk_base &&
                    par_at(w, a - q->sbrk_base, q, heap_lo, heap_hi, &sbrk, &n)) {
                    w->main_start = sbrk;
                    w->h->mp_mmapped = n;
                    return;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Arenas and their heaps                                              */
/* ------------------------------------------------------------------ */

static int add_arena(walker *w, uint64_t addr)
{
    heap *h = w->h;
    size_t cap = h->caparenas;
    if (GROW(h->arenas, h->caparenas, h->narenas) != 0 ||
        GROW(w->arena_addr, cap, h->narenas) != 0)
        return -1;
    harena *a = &h->arenas[h->narenas];
    memset(a, 0, sizeof *a);
    a->addr = addr;
    w->arena_addr[h->narenas++] = addr;
    return 0;
}

/* The arenas of the next ring, main first. */
static int list_arenas(walker *w, uint64_t main_arena)
{
    if (add_arena(w, main_arena) != 0)
        return -1;
    uint64_t a = main_arena;
    cycle c;
    cycle_init(&c, a);
    for (;;) {
        uint64_t next;
        if (rd(w, a + off_next(w->lay), &next) != 0) {
            heap_problem(w->h, "arena at 0x%llx: its next link is not in the "
                               "image; later arenas are missing",
                         (unsigned long long)a);
            return 0;
        }
        if (next == main_arena)
            return 0;
        if (cycle_step(&c, next) || w->h->narenas >= MAX_ARENAS) {
            heap_problem(w->h, "the arena list loops without returning to "
                               "the main arena (at 0x%llx)",
                         (unsigned long long)next);
            return 0;
        }
        if (arena_layout(w, next) != w->lay) {
            heap_problem(w->h, "arena at 0x%llx (linked from 0x%llx) does not "
                               "look like an arena; later arenas are missing",
                         (unsigned long long)next, (unsigned long long)a);
            return 0;
        }
        if (add_arena(w, next) != 0)
            return -1;
        a = next;
    }
}

/* Adds the arena heap [start, end), cut to the bytes the image holds
 * (a region never claims more memory than is present: the index of the
 * reference scan is sized by the regions). */
static int add_heap(walker *w, uint64_t start, uint64_t end, uint32_t arena)
{
    const img_seg *s = img_find(w->im, start);
    if (s == NULL || start >= s->start + s->avail) {
        heap_problem(w->h, "arena %u: heap 0x%llx-0x%llx is not in the image",
                     arena, (unsigned long long)start, (unsigned long long)end);
        return 0;
    }
    uint64_t have = s->start + s->avail;
    if (end > have) {
        heap_problem(w->h, "arena %u: heap 0x%llx-0x%llx is cut at 0x%llx "
                           "(the image lacks the rest)",
                     arena, (unsigned long long)start, (unsigned long long)end,
                     (unsigned long long)have);
        end = have;
    }
    return end > start ? heap_add_region(w->h, start, end, arena) : 0;
}

/* The heaps of thread arena i, newest first through heap_info.prev:
 * regions from the first chunk to the heap's used size. */
static int thread_heaps(walker *w, uint32_t i)
{
    uint64_t arena = w->arena_addr[i], top;
    if (rd(w, arena + off_top(w->lay), &top) != 0)
        return 0;
    /* HEAP_MAX_SIZE: 64 MiB by default, other powers of two with hugetlb
     * tunables; the right one gives a heap_info pointing at the arena. */
    static const uint64_t sizes[] = {64u << 20, 128u << 20, 256u << 20,
                                     512u << 20, 1u << 30, 32u << 20,
                                     16u << 20, 8u << 20, 4u << 20,
                                     2u << 20, 1u << 20};
    uint64_t hi_addr = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        uint64_t hm = w->heap_max ? w->heap_max : sizes[k];
        uint64_t cand = top & ~(hm - 1), ar;
        if (rd(w, cand, &ar) == 0 && ar == arena) {
            w->heap_max = hm;
            hi_addr = cand;
            break;
        }
        if (w->heap_max)
            break;
    }
    if (hi_addr == 0) {
        heap_problem(w->h, "arena %u at 0x%llx: no heap_info points at it "
                           "from its top chunk's heap (0x%llx); its heaps are "
                           "missing",
                     i, (unsigned long long)arena, (unsigned long long)top);
        return 0;
    }
    cycle c;
    cycle_init(&c, hi_addr);
    uint64_t heaps = 0;
    for (uint64_t hp = hi_addr; hp != 0;) {
        uint64_t ar, prev, size;
        if (rd(w, hp, &ar) != 0 || rd(w, hp + 8, &prev) != 0 ||
            rd(w, hp + 16, &size) != 0 || ar != arena || size > w->heap_max ||
            size < PAGE) {
            heap_problem(w->h, "arena %u: heap_info at 0x%llx is not "
                               "readable or not this arena's; older heaps "
                               "are missing",
                         i, (unsigned long long)hp);
            break;
        }
        uint64_t first;
        if (prev == 0) { /* the first heap holds the arena after heap_info */
            if (arena < hp || arena >= hp + size) {
                heap_problem(w->h, "arena %u: its first heap (0x%llx) does not "
                                   "hold it", i, (unsigned long long)hp);
                break;
            }
            w->heap_info_size = arena - hp;
            first = (arena + w->lay->size + 15) & ~(uint64_t)15;
        } else {
            first = hp + (w->heap_info_size ? w->heap_info_size : 48);
        }
        if (add_heap(w, first, hp + size, i) != 0)
            return -1;
        heaps++;
        if (prev != 0 && cycle_step(&c, prev)) {
            heap_problem(w->h, "arena %u: the heap_info chain loops",
                         i);
            break;
        }
        if (heaps > (1u << 20))
            break;
        hp = prev;
    }
    w->h->arenas[i].heaps = heaps;
    return 0;
}

/* The main arena's heap: the brk mapping holding its top chunk, from
 * sbrk_base (mp_) or the mapping's start. */
static int main_heap(walker *w, const glibc_options *opt)
{
    uint64_t top;
    if (rd(w, w->arena_addr[0] + off_top(w->lay), &top) != 0)
        return 0;
    const img_seg *s = img_find(w->im, top);
    if (s == NULL) {
        heap_problem(w->h, "the main arena's top chunk (0x%llx) is not in "
                           "the image", (unsigned long long)top);
        return 0;
    }
    find_par(w, opt, w->arena_addr[0], s->start, s->end);
    uint64_t start = w->main_start ? w->main_start : s->start;
    start = (start + 15) & ~(uint64_t)15;
    if (top < start)
        start = top; /* no other chunk before top */
    uint64_t topsize, end = s->end;
    if (rd(w, top + 8, &topsize) == 0 && (topsize & ~(uint64_t)SIZE_BITS) <= s->end - top)
        end = top + (topsize & ~(uint64_t)SIZE_BITS);
    w->h->arenas[0].heaps = 1;
    return add_heap(w, start, end, 0);
}

/* ------------------------------------------------------------------ */
/* Fastbins and bins                                                   */
/* ------------------------------------------------------------------ */

/* Safe-linking (2.32+): a stored next pointer is the pointer XOR the
 * address of the field shifted right by 12. */
static uint64_t reveal(uint64_t field_addr, uint64_t stored)
{
    return (field_addr >> 12) ^ stored;
}

static int add_fast(walker *w, uint64_t chunk)
{
    if (GROW(w->fast, w->capfast, w->nfast) != 0)
        return -1;
    w->fast[w->nfast++] = chunk;
    return 0;
}

static int fastbins(walker *w, uint32_t i)
{
    harena *a = &w->h->arenas[i];
    int safe = w->version == 0 || w->version >= 2032;
    for (unsigned b = 0; b < NFASTBINS; b++) {
        uint64_t p;
        if (rd(w, a->addr + w->lay->fastbins + 8 * b, &p) != 0)
            continue;
        uint64_t want = (b + 2) * 16u; /* chunk size of fastbin b */
        cycle c;
        cycle_init(&c, p);
        while (p != 0) {
            const hregion *r = heap_region_of(w->h, p);
            uint64_t head, next;
            if ((p & 15) != 0 || r == NULL || r->arena != i ||
                rd(w, p + 8, &head) != 0 || (head & ~(uint64_t)SIZE_BITS) != want ||
                rd(w, p + 16, &next) != 0) {
                heap_problem(w->h, "arena %u: fastbin %u holds 0x%llx, which "
                                   "is not a free chunk of %llu bytes in the "
                                   "arena; the rest of that fastbin is unknown",
                             i, b, (unsigned long long)p, (unsigned long long)want);
                break;
            }
            if (add_fast(w, p) != 0)
                return -1;
            a->fast++;
            a->fast_bytes += want;
            /* Before 2.32 the link is plain; a version we do not know is
             * tried decoded first. */
            uint64_t n = safe ? reveal(p + 16, next) : next;
            if (w->version == 0 && n != 0 && ((n & 15) != 0 || heap_region_of(w->h, n) == NULL))
                n = next;
            if (cycle_step(&c, n)) {
                heap_problem(w->h, "arena %u: fastbin %u loops", i, b);
                break;
            }
            p = n;
        }
    }
    return 0;
}

/* Bin chunks: for the kind of each free block and the totals malloc_info
 * prints. Appends (chunk | kind) to *list. */
static int bins(walker *w, uint32_t i, uint64_t **list, size_t *n, size_t *cap)
{
    harena *a = &w->h->arenas[i];
    for (unsigned b = 1; b < NBINS; b++) {
        uint64_t fake = a->addr + off_bins(w->lay) + (uint64_t)(b - 1) * 16 - 16;
        uint64_t p, prev = fake;
        if (rd(w, fake + 16, &p) != 0)
            continue;
        cycle c;
        cycle_init(&c, p);
        while (p != fake) {
            const hregion *r = heap_region_of(w->h, p);
            uint64_t head, fd, bk;
            if ((p & 15) != 0 || r == NULL || r->arena != i ||
                rd(w, p + 8, &head) != 0 || rd(w, p + 16, &fd) != 0 ||
                rd(w, p + 24, &bk) != 0 || bk != prev) {
                heap_problem(w->h, "arena %u: bin %u holds 0x%llx, which is "
                                   "not a free chunk linked back to the bin; "
                                   "the rest of that bin is unknown",
                             i, b, (unsigned long long)p);
                break;
            }
            a->bins++;
            a->bins_bytes += head & ~(uint64_t)SIZE_BITS;
            a->bins_raw += head;
            if (GROW(*list, *cap, *n) != 0)
                return -1;
            (*list)[(*n)++] = p | (b == 1 ? HF_UNSORTED : HF_BIN);
            if (cycle_step(&c, fd)) {
                heap_problem(w->h, "arena %u: bin %u loops", i, b);
                break;
            }
            prev = p;
            p = fd;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Walking the chunks                                                  */
/* ------------------------------------------------------------------ */

static int is_fast(const walker *w, uint64_t chunk, size_t *cursor)
{
    while (*cursor < w->nfast && w->fast[*cursor] < chunk)
        (*cursor)++;
    return *cursor < w->nfast && w->fast[*cursor] == chunk;
}

/* Walks one arena heap [start, end) in address order. */
static int walk_region(walker *w, const hregion *r, size_t *fcur)
{
    harena *a = &w->h->arenas[r->arena];
    uint64_t top = 0;
    rd(w, a->addr + off_top(w->lay), &top);
    const img_seg *s = img_find(w->im, r->start);
    if (s == NULL || r->end > s->end) {
        heap_problem(w->h, "arena %u: heap 0x%llx-0x%llx is not in the image",
                     r->arena, (unsigned long long)r->start,
                     (unsigned long long)r->end);
        return 0;
    }
    uint64_t have = s->start + s->avail; /* bytes present end here */
    uint64_t end = r->end < have ? r->end : have;
    const img_seg *seg = s;
    uint64_t p = r->start;
    int reached_top = 0;
    /* Each header's load waits for the one before (its size says where the
     * next is): 92% of the walk's time was that load, a memory latency per
     * chunk. The heap is walked in address order, so the lines up to
     * PREFETCH bytes ahead are asked for early, up to four a chunk; the
     * pages of a mapped core are mapped first (a prefetch of an unmapped
     * page does nothing). */
    img_populate(w->im, seg, p, end);
    uint64_t ahead = p;
    while (p + HDR <= end) {
        if (ahead < p)
            ahead = p;
        for (int k = 0; k < 4 && ahead < p + PREFETCH && ahead + 64 <= end;
             k++, ahead += 64)
            __builtin_prefetch(seg->data + (ahead - seg->start));
        uint64_t head = WORD(p + 8);
        uint64_t size = head & ~(uint64_t)SIZE_BITS;
        if (p == top) {
            a->top_bytes = size;
            reached_top = 1;
            if (size > r->end - p)
                heap_problem(w->h, "arena %u: the top chunk at 0x%llx has "
                                   "size 0x%llx, past its heap's end",
                             r->arena, (unsigned long long)p,
                             (unsigned long long)size);
            break;
        }
        /* The end of a heap that is not the arena's last: a fencepost
         * chunk of HDR bytes followed by a header of size 0. */
        if (size == 0 || (size == HDR && p + HDR + HDR <= end &&
                          (WORD(p + HDR + 8) & ~(uint64_t)SIZE_BITS) == 0))
            return 0;
        if (size < MINSIZE || (size & 15) != 0 || size > end - p ||
            end - p - size < HDR) {
            if (p + size == end && end < r->end) /* the data ends here */
                break;
            heap_problem(w->h, "arena %u: the chunk at 0x%llx has a corrupt "
                               "size field (0x%llx) for its heap "
                               "(0x%llx-0x%llx); the rest of that heap is "
                               "unknown",
                         r->arena, (unsigned long long)p,
                         (unsigned long long)head, (unsigned long long)r->start,
                         (unsigned long long)r->end);
            return 0;
        }
        uint64_t next = p + size;
        uint64_t nexthead = WORD(next + 8);
        if ((nexthead & ~(uint64_t)SIZE_BITS) == 0 && next != top)
            return 0; /* a too-small old top before the end fencepost */
        int inuse = (nexthead & PREV_INUSE) != 0;
        if (inuse) {
            if (!is_fast(w, p, fcur)) {
                if (heap_add_used(w->h, p + HDR, size - SZ) != 0)
                    return -1;
                a->used++;
                a->used_bytes += size - SZ;
            }
        } else {
            if (heap_add_free(w->h, (p + HDR) | HF_BIN,
                              size | (uint64_t)r->arena << 48) != 0)
                return -1;
            a->walk_free++;
            a->walk_free_bytes += size;
        }
        p = next;
    }
    if (end < r->end) {
        heap_problem(w->h, "arena %u: heap 0x%llx-0x%llx is cut at 0x%llx "
                           "(the image lacks the rest)",
                     r->arena, (unsigned long long)r->start,
                     (unsigned long long)r->end, (unsigned long long)end);
    } else if (!reached_top && top >= r->start && top < r->end) {
        heap_problem(w->h, "arena %u: the walk of heap 0x%llx-0x%llx ended "
                           "at 0x%llx without reaching the top chunk 0x%llx",
                     r->arena, (unsigned long long)r->start,
                     (unsigned long long)r->end, (unsigned long long)p,
                     (unsigned long long)top);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Mmapped chunks                                                      */
/* ------------------------------------------------------------------ */

/* Whether a thread's stack pointer lies in [start, end). */
static int holds_stack(const image *im, uint64_t start, uint64_t end)
{
    for (size_t t = 0; t < im->nthr; t++)
        if (im->thr[t].reg[REG_RSP] >= start && im->thr[t].reg[REG_RSP] < end)
            return 1;
    return 0;
}

/* An mmapped chunk at page pg: its header at pg (prev_size 0), or, for an
 * aligned allocation, at pg + prev_size inside the first page. Returns
 * the chunk address or 0. */
static uint64_t mmapped_at(const img_seg *seg, uint64_t pg, uint64_t end,
                           uint64_t *size)
{
    uint64_t ps = WORD(pg), head = WORD(pg + 8);
    uint64_t off = 0;
    if (ps == 0 && head == 0) { /* maybe an aligned one further in */
        for (off = 16; off + HDR <= PAGE && pg + off + HDR <= end; off += 16) {
            if (WORD(pg + off) == off &&
                (WORD(pg + off + 8) & SIZE_BITS) == IS_MMAPPED)
                break;
        }
        if (off + HDR > PAGE || pg + off + HDR > end)
            return 0;
        ps = off;
        head = WORD(pg + off + 8);
    } else if (ps != 0) {
        return 0;
    }
    uint64_t sz = head & ~(uint64_t)SIZE_BITS;
    if ((head & SIZE_BITS) != IS_MMAPPED || sz < PAGE - off ||
        ((sz + off) & (PAGE - 1)) != 0 || sz > end - pg - off)
        return 0;
    *size = sz;
    return pg + off;
}

/* Mmapped chunks: the anonymous writable mappings that are not arena
 * heaps nor stacks, page by page. */
static int mmapped_chunks(walker *w)
{
    const image *im = w->im;
    size_t nheap = w->h->nregions;
    for (size_t i = 0; i < im->nseg; i++) {
        const img_seg *s = &im->seg[i];
        if (s->file >= 0 || (s->prot & (IMG_R | IMG_W)) != (IMG_R | IMG_W) ||
            s->avail < PAGE || holds_stack(im, s->start, s->end))
            continue;
        uint64_t end = s->start + s->avail;
        for (uint64_t pg = s->start; pg + PAGE <= end;) {
            /* skip the arena heaps in this mapping (sorted: the first
             * nheap regions) */
            size_t lo = 0, hi = nheap;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if ((w->h->regions[mid].start & ~(uint64_t)(PAGE - 1)) <= pg)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > 0 && pg < w->h->regions[lo - 1].end) {
                pg = (w->h->regions[lo - 1].end + PAGE - 1) & ~(uint64_t)(PAGE - 1);
                continue;
            }
            uint64_t size, c = mmapped_at(s, pg, end, &size);
            if (c == 0) {
                pg += PAGE;
                continue;
            }
            if (heap_add_region(w->h, c, c + size, UINT32_MAX) != 0 ||
                GROW(w->mm, w->capmm, w->nmm) != 0)
                return -1;
            w->mm[w->nmm++] = (hblock){(c + HDR) | HB_MMAPPED, size - HDR};
            w->h->mmapped++;
            w->h->mmapped_bytes += size;
            pg = c + size;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Tcaches                                                             */
/* ------------------------------------------------------------------ */

typedef struct tcache_list {
    uint64_t *chunk; /* chunk addresses of free entries */
    size_t n, cap;
} tcache_list;

/* Whether some thread's static TLS (the 16 KiB below its thread pointer)
 * holds the word v: how an empty tcache is told from a zeroed block. The
 * words are gathered and sorted once. */
#define TLS_WINDOW 0x4000u

static int by_u64(const void *a, const void *b);

static int tls_holds(walker *w, uint64_t v)
{
    if (w->tls == NULL) {
        w->tls = malloc((w->im->nthr * (TLS_WINDOW / 8) + 1) * sizeof *w->tls);
        if (w->tls == NULL)
            return 0;
        for (size_t t = 0; t < w->im->nthr; t++) {
            uint64_t tp = w->im->thr[t].reg[REG_FS_BASE];
            if (tp < TLS_WINDOW)
                continue;
            for (uint64_t a = tp - TLS_WINDOW; a < tp; a += 8) {
                uint64_t x;
                if (img_u64(w->im, a, &x) == 0 && x != 0)
                    w->tls[w->ntls++] = x;
            }
        }
        SORT(w->tls, w->ntls, by_u64);
    }
    size_t lo = 0, hi = w->ntls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->tls[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->ntls && w->tls[lo] == v;
}

/* Validates the tcache_perthread_struct at user address u (counts of
 * cbytes each); on success appends its entries. Returns 1 valid, 0 not,
 * -1 out of memory. *budget bounds the chain steps of all candidates
 * together (chains of a damaged or hostile heap could otherwise be
 * walked again for every candidate): at 0, every candidate is invalid. */
static int tcache_at(walker *w, uint64_t u, unsigned cbytes, tcache_list *out,
                     uint64_t *budget)
{
    unsigned char buf[TCACHE_BINS * 2 + TCACHE_BINS * 8];
    size_t len = TCACHE_BINS * cbytes + TCACHE_BINS * 8;
    if (img_read(w->im, u, buf, len) != 0)
        return 0;
    const unsigned char *ent = buf + TCACHE_BINS * cbytes;
    size_t start = out->n;
    int empty = 1, have_key = 0;
    uint64_t local_key = 0;
    for (unsigned b = 0; b < TCACHE_BINS; b++) {
        unsigned count = cbytes == 2 ? (unsigned)(buf[2 * b] | buf[2 * b + 1] << 8)
                                     : buf[b];
        uint64_t e = get64(ent + 8 * b);
        if ((count == 0) != (e == 0))
            goto invalid;
        uint64_t want = (uint64_t)(b + 2) * 16;
        cycle c;
        cycle_init(&c, e);
        for (unsigned k = 0; k < count; k++) {
            if (*budget == 0)
                goto invalid;
            (*budget)--;
            const hregion *r = heap_region_of(w->h, e);
            uint64_t head, next, key;
            if ((e & 15) != 0 || r == NULL || r->arena == UINT32_MAX ||
                rd(w, e - 8, &head) != 0 ||
                (head & ~(uint64_t)SIZE_BITS) != want || rd(w, e, &next) != 0 ||
                rd(w, e + 8, &key) != 0)
                goto invalid;
            if (w->version >= 2034) { /* one random key for the process */
                if (!have_key) {
                    local_key = key;
                    have_key = 1;
                }
                if (key != local_key ||
                    (w->key_known && key != w->tcache_key))
                    goto invalid;
            } else if (w->version >= 2029 && key != u) {
                goto invalid;
            }
            if (GROW(out->chunk, out->cap, out->n) != 0)
                return -1;
            out->chunk[out->n++] = e - HDR;
            empty = 0;
            int safe = w->version == 0 || w->version >= 2032;
            uint64_t n = safe ? reveal(e, next) : next;
            if (w->version == 0 && n != 0 && ((n & 15) != 0 || heap_region_of(w->h, n) == NULL))
                n = next;
            if (k + 1 == count ? n != 0 : n == 0 || cycle_step(&c, n))
                goto invalid;
            e = n;
        }
    }
    if (empty && !tls_holds(w, u))
        return 0;
    if (have_key && !w->key_known) {
        w->tcache_key = local_key;
        w->key_known = 1;
    }
    return 1;
invalid:
    out->n = start;
    return 0;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_region(const void *a, const void *b)
{
    const hregion *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Finds the tcaches among the used blocks of their size, moves their
 * entries from the used blocks to the free ones, and flags the tcaches
 * themselves as the allocator's. */
static int tcaches(walker *w)
{
    heap *h = w->h;
    tcache_list t = {NULL, 0, 0};
    uint64_t budget = 8 * (uint64_t)h->nused + 4096;
    unsigned cbytes[2] = {2, 1};
    int tries[2] = {w->version == 0 || w->version >= 2030,
                    w->version == 0 || (w->version >= 2026 && w->version < 2030)};
    for (size_t i = 0; i < h->nused; i++) {
        hblock *b = &h->used[i];
        if (b->addr & HB_MMAPPED)
            continue;
        for (int k = 0; k < 2; k++) {
            if (!tries[k])
                continue;
            uint64_t want = TCACHE_BINS * cbytes[k] + TCACHE_BINS * 8 + SZ;
            if (b->size != ((want + 15) & ~(uint64_t)15) - SZ)
                continue;
            int r = tcache_at(w, HB_ADDR(*b), cbytes[k], &t, &budget);
            if (r < 0) {
                free(t.chunk);
                return -1;
            }
            if (r == 1) {
                b->addr |= HB_INTERNAL;
                break;
            }
        }
    }
    if (budget == 0)
        heap_problem(h, "the tcaches' lists are longer than the heap has "
                        "chunks: some tcaches are not read");
    if (t.n == 0) {
        free(t.chunk);
        return 0;
    }
    SORT(t.chunk, t.n, by_u64);
    size_t k = 0, j = 0;
    for (size_t i = 0; i < h->nused; i++) {
        uint64_t chunk = HB_ADDR(h->used[i]) - HDR;
        while (j < t.n && t.chunk[j] < chunk)
            j++;
        if (j < t.n && t.chunk[j] == chunk) {
            const hregion *r = heap_region_of(h, chunk);
            uint32_t ai = r != NULL && r->arena != UINT32_MAX ? r->arena : 0;
            uint64_t csize = h->used[i].size + SZ;
            h->arenas[ai].tcache++;
            h->arenas[ai].tcache_bytes += csize;
            h->arenas[ai].used--;
            h->arenas[ai].used_bytes -= h->used[i].size;
            if (heap_add_free(h, (chunk + HDR) | HF_TCACHE,
                              csize | (uint64_t)ai << 48) != 0) {
                free(t.chunk);
                return -1;
            }
            continue;
        }
        h->used[k++] = h->used[i];
    }
    h->nused = k;
    free(t.chunk);
    return 0;
}

/* Merges the mmapped chunks (sorted) into the used blocks (sorted), in
 * place from the end: no second copy of the list. */
static int merge_mmapped(heap *h, const hblock *mm, size_t nmm)
{
    if (nmm == 0)
        return 0;
    if (cli_grow((void **)&h->used, &h->capused, h->nused + nmm,
                  sizeof *h->used) != 0)
        return -1;
    size_t i = h->nused, j = nmm, k = h->nused + nmm;
    while (j > 0) {
        if (i > 0 && h->used[i - 1].addr > mm[j - 1].addr)
            h->used[--k] = h->used[--i];
        else
            h->used[--k] = mm[--j];
    }
    h->nused += nmm;
    return 0;
}

/* ------------------------------------------------------------------ */

int glibc_read(heap *h, const image *im, const modules *ms,
               const glibc_options *opt)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.h = h;
    w.im = im;
    w.ms = ms;
    w.version = modules_glibc_version(ms);
    uint64_t main_arena;
    if (!find_main_arena(&w, opt, &main_arena))
        return 0;
    if (w.version != 0)
        snprintf(h->allocator, sizeof h->allocator, "glibc %d.%d",
                 w.version / 1000, w.version % 1000);
    else
        snprintf(h->allocator, sizeof h->allocator, "glibc %s+ (version "
                 "unknown)", w.lay->since);
    int rc = -1;
    uint64_t *binlist = NULL;
    size_t nbin = 0, capbin = 0;
    h->own_lo = main_arena;
    h->own_hi = main_arena + w.lay->size;
    if (list_arenas(&w, main_arena) != 0 || main_heap(&w, opt) != 0)
        goto out;
    for (uint32_t i = 1; i < h->narenas; i++)
        if (thread_heaps(&w, i) != 0)
            goto out;
    for (uint32_t i = 0; i < h->narenas; i++) {
        harena *a = &h->arenas[i];
        uint64_t v;
        int32_t mutex;
        if (img_read(im, a->addr, &mutex, 4) == 0 && mutex != 0)
            heap_problem(h, "arena %u was locked (a thread was inside malloc "
                            "or free): its lists may be half-changed", i);
        if (rd(&w, a->addr + off_sysmem(w.lay), &v) == 0)
            a->system_mem = v;
        if (rd(&w, a->addr + off_sysmem(w.lay) + 8, &v) == 0)
            a->max_system_mem = v;
    }
    SORT(h->regions, h->nregions, by_region);
    /* Two arenas (or two heap_infos) claiming one heap: a damaged core.
     * The first keeps it; walking it twice would count its blocks twice. */
    size_t kept = 0;
    for (size_t i = 0; i < h->nregions; i++) {
        if (kept > 0 && h->regions[i].start < h->regions[kept - 1].end) {
            heap_problem(h, "arena %u: heap 0x%llx-0x%llx overlaps another "
                            "arena's heap; not walked",
                         h->regions[i].arena,
                         (unsigned long long)h->regions[i].start,
                         (unsigned long long)h->regions[i].end);
            continue;
        }
        h->regions[kept++] = h->regions[i];
    }
    h->nregions = kept;
    if (mmapped_chunks(&w) != 0)
        goto out;
    SORT(h->regions, h->nregions, by_region);
    for (uint32_t i = 0; i < h->narenas; i++)
        if (fastbins(&w, i) != 0)
            goto out;
    SORT(w.fast, w.nfast, by_u64);
    /* The walk adds the arena chunks in address order (the regions are
     * sorted and disjoint); the mmapped chunks are merged in. */
    size_t fcur = 0;
    for (size_t r = 0; r < h->nregions; r++)
        if (h->regions[r].arena != UINT32_MAX &&
            walk_region(&w, &h->regions[r], &fcur) != 0)
            goto out;
    if (merge_mmapped(h, w.mm, w.nmm) != 0)
        goto out;
    if (tcaches(&w) != 0)
        goto out;
    for (uint32_t i = 0; i < h->narenas; i++)
        if (bins(&w, i, &binlist, &nbin, &capbin) != 0)
            goto out;
    /* fastbin chunks are free blocks too */
    for (size_t i = 0; i < w.nfast; i++) {
        const hregion *r = heap_region_of(h, w.fast[i]);
        uint64_t head = 0;
        rd(&w, w.fast[i] + 8, &head);
        if (heap_add_free(h, (w.fast[i] + HDR) | HF_FAST,
                          (head & ~(uint64_t)SIZE_BITS) |
                              (uint64_t)(r ? r->arena : 0) << 48) != 0)
            goto out;
    }
    if (rsort(h->free, h->nfree, sizeof *h->free) != 0)
        goto out;
    /* The unsorted bin's chunks, said so; free chunks by boundary tag that
     * no bin holds mean lists changed under a lock or were damaged. */
    if (rsort(binlist, nbin, sizeof *binlist) != 0)
        goto out;
    size_t j = 0, unbinned = 0;
    for (size_t i = 0; i < h->nfree; i++) {
        hblock *b = &h->free[i];
        if ((b->addr & HB_FLAGS) != HF_BIN)
            continue;
        uint64_t chunk = HB_ADDR(*b) - HDR;
        while (j < nbin && (binlist[j] & ~(uint64_t)15) < chunk)
            j++;
        if (j < nbin && (binlist[j] & ~(uint64_t)15) == chunk)
            b->addr = (chunk + HDR) | (binlist[j] & 15);
        else
            unbinned++;
    }
    if (unbinned > 0)
        heap_problem(h, "%zu free chunk%s by boundary tags %s in no bin",
                     unbinned, unbinned == 1 ? "" : "s",
                     unbinned == 1 ? "is" : "are");
    if (h->mp_mmapped != UINT64_MAX && h->mp_mmapped != h->mmapped)
        heap_problem(h, "malloc counts %llu mmapped chunk%s, %llu found",
                     (unsigned long long)h->mp_mmapped,
                     h->mp_mmapped == 1 ? "" : "s",
                     (unsigned long long)h->mmapped);
    /* The used list is the largest thing kept: no slack (16 bytes a
     * block, not up to 32 after its doublings). */
    if (h->capused > h->nused + 1024) {
        hblock *u = realloc(h->used, (h->nused + 1) * sizeof *u);
        if (u != NULL) {
            h->used = u;
            h->capused = h->nused + 1;
        }
    }
    rc = 1;
out:
    free(w.fast);
    free(w.mm);
    free(w.tls);
    free(w.arena_addr);
    free(binlist);
    return rc;
}
