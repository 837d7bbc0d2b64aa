/* roots.c -- the root ranges of a process (roots.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "roots.h"

#define RED_ZONE 128u
#define PAGE 4096u

const char *const root_kind_names[3] = {"stack", "static", "mapping"};

void roots_free(roots *rs)
{
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static int add(roots *rs, const root_range *r)
{
    if (r->end <= r->start)
        return 0;
    if (GROW(rs->r, rs->cap, rs->n) != 0)
        return -1;
    rs->r[rs->n++] = *r;
    return 0;
}

typedef struct span {
    uint64_t start, end;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int roots_find(roots *rs, const image *im, const modules *ms, const heap *h)
{
    memset(rs, 0, sizeof *rs);
    /* What the mapping roots leave out: heaps, stacks, module data. */
    size_t nex = 0, capex = h->nregions + h->nown + im->nthr + 16;
    for (size_t i = 0; i < ms->n; i++)
        capex += ms->m[i].nrw;
    span *ex = malloc(capex * sizeof *ex);
    if (ex == NULL)
        return -1;
    for (size_t i = 0; i < h->nregions; i++)
        ex[nex++] = (span){h->regions[i].start & ~(uint64_t)(PAGE - 1),
                           (h->regions[i].end + PAGE - 1) & ~(uint64_t)(PAGE - 1)};
    for (size_t i = 0; i < h->nown; i++) /* the allocator's metadata */
        ex[nex++] = (span){h->own[i].start, h->own[i].end};
    for (size_t t = 0; t < im->nthr; t++) {
        uint64_t sp = im->thr[t].reg[REG_RSP];
        const img_seg *s = img_find(im, sp);
        if (s == NULL) {
            rs->no_stack++;
            continue;
        }
        ex[nex++] = (span){s->start, s->end};
        /* A thread stopped in user code may be in a leaf function that
         * keeps data in the red zone below its stack pointer; one
         * stopped in a system call (orig_rax is the call's number) is
         * not, and the red zone then holds only dead frames' bytes. */
        int in_syscall = im->thr[t].reg[REG_ORIG_RAX] != UINT64_MAX;
        uint64_t red = in_syscall ? 0 : RED_ZONE;
        uint64_t from = sp - s->start > red ? sp - red : s->start;
        root_range r = {from & ~(uint64_t)7, s->end, ROOT_STACK,
                        (unsigned)t + 1, sp, NULL};
        if (add(rs, &r) != 0)
            goto nomem;
    }
    for (size_t i = 0; i < ms->n; i++) {
        const module *m = &ms->m[i];
        for (size_t k = 0; k < m->nrw; k++) {
            ex[nex++] = (span){m->rw[k].start, m->rw[k].end};
            root_range r = {m->rw[k].start & ~(uint64_t)7, m->rw[k].end,
                            ROOT_STATIC, 0, 0, m};
            if (h->own_lo < h->own_hi && h->own_lo < r.end && r.start < h->own_hi) {
                /* the main arena's bytes are left out */
                root_range after = r;
                r.end = h->own_lo > r.start ? h->own_lo : r.start;
                after.start = (h->own_hi + 7) & ~(uint64_t)7;
                if (after.start < after.end && add(rs, &after) != 0)
                    goto nomem;
            }
            if (add(rs, &r) != 0)
                goto nomem;
        }
    }
    SORT(ex, nex, by_start);
    /* Anonymous writable mappings, less what ex covers. Mappings of a
     * file whose module was not found are roots too (their data is
     * unknown to be anything else). */
    size_t j = 0;
    for (size_t i = 0; i < im->nseg; i++) {
        const img_seg *s = &im->seg[i];
        if ((s->prot & (IMG_R | IMG_W)) != (IMG_R | IMG_W))
            continue;
        if (s->file >= 0) {
            int placed = 0;
            for (size_t k = 0; k < ms->n && !placed; k++)
                placed = ms->m[k].file == s->file && ms->m[k].nrw > 0;
            if (placed)
                continue;
        }
        while (j < nex && ex[j].end <= s->start)
            j++;
        uint64_t at = s->start;
        for (size_t k = j; k < nex && ex[k].start < s->end; k++) {
            if (ex[k].end <= at)
                continue;
            if (ex[k].start > at) {
                root_range r = {at, ex[k].start, ROOT_MAPPING, 0, 0, NULL};
                if (add(rs, &r) != 0)
                    goto nomem;
            }
            if (ex[k].end > at)
                at = ex[k].end;
        }
        if (at < s->end) {
            root_range r = {at, s->end, ROOT_MAPPING, 0, 0, NULL};
            if (add(rs, &r) != 0)
                goto nomem;
        }
    }
    free(ex);
    return 0;
nomem:
    free(ex);
    roots_free(rs);
    return -1;
}
