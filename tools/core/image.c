/* image.c -- a process's memory: mappings, threads, files (image.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli_grow.h"
#include "image.h"

const char *const img_reg_names[IMG_NREGS] = {
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9",
    "r8", "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs",
    "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"};

void img_init(image *im)
{
    memset(im, 0, sizeof *im);
    hf_strtab_init(&im->files, hf_default_allocator());
}

void img_free(image *im)
{
    free(im->seg);
    free(im->thr);
    hf_strtab_free(&im->files);
    for (size_t i = 0; i < im->nbufs; i++)
        free(im->bufs[i]);
    free(im->bufs);
    if (im->map != NULL)
        munmap(im->map, im->map_size);
    memset(im, 0, sizeof *im);
}

int img_add(image *im, const img_seg *s)
{
    if (GROW(im->seg, im->seg_cap, im->nseg) != 0)
        return -1;
    im->seg[im->nseg++] = *s;
    return 0;
}

int img_add_thread(image *im, const img_thread *t)
{
    if (GROW(im->thr, im->thr_cap, im->nthr) != 0)
        return -1;
    im->thr[im->nthr++] = *t;
    return 0;
}

int img_add_buf(image *im, unsigned char *buf)
{
    if (GROW(im->bufs, im->buf_cap, im->nbufs) != 0)
        return -1;
    im->bufs[im->nbufs++] = buf;
    return 0;
}

int img_add_file(image *im, const char *path, size_t len)
{
    uint32_t id;
    int found;
    if (len >= 4096 ||
        hf_strtab_intern(&im->files, path, len, (uint32_t)im->nfiles + 1, &id,
                         &found) != 0)
        return -1;
    if (!found)
        im->nfiles++;
    return (int)id - 1;
}

const char *img_file(const image *im, size_t i)
{
    size_t len;
    return hf_strtab_text(&im->files, (uint32_t)i + 1, &len);
}

static int by_start(const void *a, const void *b)
{
    const img_seg *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int img_sort(image *im)
{
    SORT(im->seg, im->nseg, by_start);
    size_t n = 0;
    for (size_t i = 0; i < im->nseg; i++) {
        img_seg s = im->seg[i];
        if (s.end <= s.start)
            continue;
        if (n > 0 && s.start < im->seg[n - 1].end) {
            /* Overlap: a hostile core. Keep the part after the previous
             * mapping, if any. */
            uint64_t cut = im->seg[n - 1].end - s.start;
            if (s.end <= im->seg[n - 1].end)
                continue;
            if (s.avail > cut) {
                s.data += cut;
                s.avail -= cut;
            } else {
                s.avail = 0;
            }
            s.file_off += cut;
            s.start = im->seg[n - 1].end;
        }
        im->seg[n++] = s;
    }
    im->nseg = n;
    return 0;
}

const img_seg *img_find(const image *im, uint64_t addr)
{
    size_t lo = 0, hi = im->nseg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const img_seg *s = &im->seg[mid];
        if (addr < s->start)
            hi = mid;
        else if (addr >= s->end)
            lo = mid + 1;
        else
            return s;
    }
    return NULL;
}

/* The bytes present from addr to the end of its mapping's data: a
 * pointer and their count in *n, or NULL. */
static const unsigned char *present(const image *im, uint64_t addr,
                                    uint64_t *n)
{
    const img_seg *s = img_find(im, addr);
    if (s == NULL || addr - s->start >= s->avail)
        return NULL;
    *n = s->avail - (addr - s->start);
    return s->data + (addr - s->start);
}

const unsigned char *img_ptr(const image *im, uint64_t addr, size_t len)
{
    uint64_t n;
    const unsigned char *p = present(im, addr, &n);
    return p != NULL && len <= n ? p : NULL;
}

int img_read(const image *im, uint64_t addr, void *buf, size_t len)
{
    unsigned char *out = buf;
    while (len > 0) {
        uint64_t n;
        const unsigned char *p = present(im, addr, &n);
        if (p == NULL)
            return -1;
        if (n > len)
            n = len;
        memcpy(out, p, (size_t)n);
        out += n;
        addr += n;
        len -= (size_t)n;
        if (addr == 0) /* wrapped */
            return len == 0 ? 0 : -1;
    }
    return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

void img_populate(const image *im, const img_seg *s, uint64_t start,
                  uint64_t end)
{
    const unsigned char *base = im->map;
    if (base == NULL || s->data < base || s->data >= base + im->map_size ||
        start < s->start || end > s->start + s->avail || start >= end)
        return;
    uintptr_t a = (uintptr_t)(s->data + (start - s->start)) & ~(uintptr_t)4095;
    uintptr_t b = (uintptr_t)(s->data + (end - s->start));
    madvise((void *)a, b - a, MADV_POPULATE_READ); /* advice: errors ignored */
}

int img_u64(const image *im, uint64_t addr, uint64_t *v)
{
    const unsigned char *p = img_ptr(im, addr, 8);
    if (p != NULL) {
        memcpy(v, p, 8);
        return 0;
    }
    return img_read(im, addr, v, 8);
}

int img_string(const image *im, uint64_t addr, char *buf, size_t cap)
{
    uint64_t n;
    const unsigned char *p = present(im, addr, &n);
    if (p == NULL || cap == 0)
        return -1;
    if (n > cap)
        n = cap;
    const unsigned char *z = memchr(p, '\0', (size_t)n);
    if (z == NULL)
        return -1;
    memcpy(buf, p, (size_t)(z - p) + 1);
    return (int)(z - p);
}
