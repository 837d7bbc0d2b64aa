/*
 * fuzz_core.c -- heapfmt-core's ELF reader and glibc chunk walker over
 * any input.
 *
 * Three kinds of input, by the first byte's low two bits:
 *   0    a core file as it is: the whole pipeline of heapfmt-core (image,
 *        modules, arenas, chunks, roots, classes, the dump);
 *   2    an ELF file as it is: segments, sections, notes, symbol tables,
 *        build id and debug link, as modules.c reads a library;
 *   1, 3 a program that builds a valid x86-64 core of a glibc 2.36
 *        heap from the rest of the input -- a main arena in a writable
 *        "libc" mapping (named by NT_FILE, not found on disk: the arena is
 *        found by structure), a heap of chunks whose sizes and flags the
 *        input chooses (sometimes a raw, damaged size field), fastbin and
 *        bin links, a tcache, an mmapped chunk, a thread whose stack
 *        points into the heap -- so that the walker's deep paths run and
 *        not only the header checks.
 *
 * Checks:
 *   - nothing reads outside the input (the sanitizers), no hang (every
 *     list walk bounded), memory bounded by the input (the libFuzzer RSS
 *     limit; the block index is sized by the bytes present);
 *   - used blocks in strictly increasing address order, never
 *     overlapping, each inside a mapping of the image; free blocks in
 *     order and never a used block;
 *   - the block index (bindex) answers as a binary search over the used
 *     blocks does, for each block's first, last and next bytes and for
 *     words taken from the input;
 *   - the dump written is complete and holds one object per used block;
 *   - a synthetic heap whose chunk headers are all valid is read
 *     complete, every chunk the program placed a used block but the one
 *     it put in a fastbin, and the mmapped chunk one more.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindex.h"
#include "blockclass.h"
#include "core.h"
#include "dump.h"
#include "elfread.h"
#include "fuzz_util.h"
#include "glibc.h"
#include "heapfmt.h"
#include "modules.h"
#include "roots.h"

/* ---- the pipeline over a core in memory -------------------------------- */

/* bindex's answer, as heap_find_used gives it: the block's index. */
static long index_of(const heap *h, bindex *x, uint64_t v)
{
    uint64_t a;
    if (!bindex_find(x, v, &a))
        return -1;
    long k = heap_find_used(h, a);
    FZ_CHECK(k >= 0 && HB_ADDR(h->used[k]) == a, "bindex gave 0x%llx, not a block",
             (unsigned long long)a);
    return k;
}

static void check_heap(const heap *h, const image *im, bindex *x, fz_in *words)
{
    for (size_t i = 0; i < h->nused; i++) {
        uint64_t a = HB_ADDR(h->used[i]);
        FZ_CHECK(img_find(im, a) != NULL, "used block 0x%llx outside the image",
                 (unsigned long long)a);
        if (i > 0)
            FZ_CHECK(HB_ADDR(h->used[i - 1]) + h->used[i - 1].size <= a,
                     "used blocks out of order or overlapping at 0x%llx",
                     (unsigned long long)a);
    }
    size_t j = 0;
    for (size_t i = 0; i < h->nfree; i++) {
        uint64_t a = HB_ADDR(h->free[i]);
        if (i > 0)
            FZ_CHECK(HB_ADDR(h->free[i - 1]) <= a, "free blocks out of order");
        while (j < h->nused && HB_ADDR(h->used[j]) < a)
            j++;
        FZ_CHECK(j == h->nused || HB_ADDR(h->used[j]) != a,
                 "0x%llx is both used and free", (unsigned long long)a);
    }
    for (size_t i = 0; i < h->nused; i++) {
        uint64_t a = HB_ADDR(h->used[i]), probe[4] = {a, a + h->used[i].size - 1,
                                                      a + h->used[i].size, a - 1};
        for (int k = 0; k < 4; k++)
            FZ_CHECK(index_of(h, x, probe[k]) == heap_find_used(h, probe[k]),
                     "bindex and the block list disagree on 0x%llx",
                     (unsigned long long)probe[k]);
    }
    for (int k = 0; k < 64 && words->n >= 8; k++) {
        uint64_t v = fz_u64(words);
        FZ_CHECK(index_of(h, x, v) == heap_find_used(h, v),
                 "bindex and the block list disagree on 0x%llx",
                 (unsigned long long)v);
    }
}

/* The first problem of the last heap read, for messages. */
static char first_problem[512];

/* Runs heapfmt-core's work on a core; returns whether its heap was read
 * complete, with *nused set. */
static int run_core(const uint8_t *data, size_t size, uint64_t opts,
                    size_t *nused)
{
    image im;
    img_init(&im);
    char err[256];
    *nused = 0;
    if (core_parse(&im, data, size, err, sizeof err) != 0) {
        FZ_CHECK(err[0] != '\0', "core_parse failed without a reason");
        img_free(&im);
        return 0;
    }
    const char *none[1] = {"/nonexistent-fuzz-search"};
    mod_options mo = {.sysroot = "/nonexistent-fuzz-root", .search = none,
                      .nsearch = 1, .no_debug = 1, .quiet = 1};
    modules ms;
    heap h;
    heap_init(&h);
    int complete = 0;
    if (modules_load(&ms, &im, &mo, "fuzz") != 0) {
        img_free(&im);
        return 0;
    }
    glibc_options go = {.no_symbols = (int)(opts & 1)};
    int found = glibc_read(&h, &im, &ms, &go);
    if (found == 1) {
        bindex x;
        roots rs;
        classes cls;
        classes_init(&cls, &im, &ms);
        if (bindex_build(&x, &h) == 0) {
            fz_in words = {data, size};
            check_heap(&h, &im, &x, &words);
            if (roots_find(&rs, &im, &ms, &h) == 0) {
                fz_sink sink;
                fz_sink_init(&sink);
                heapfmt_writer *w = NULL;
                heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
                wo.level = 0;
                if (heapfmt_writer_open(&w, &wo, fz_sink_write, &sink) == HEAPFMT_OK) {
                    dump_info info = {.source = "fuzz", .complete = h.complete};
                    dump_stats st = {.name = "fuzz"};
                    int rc = dump_write(w, &im, &ms, &h, &cls, &x, &rs, &info, &st);
                    if (rc == HEAPFMT_OK)
                        rc = heapfmt_writer_finish(w);
                    FZ_CHECK(rc == HEAPFMT_OK, "the dump was not written: %s",
                             fz_status_name(rc));
                    heapfmt_reader *r = NULL;
                    const heapfmt_footer *f = NULL;
                    if (heapfmt_reader_open_memory(&r, NULL, sink.out.p, sink.out.len) ==
                        HEAPFMT_OK) {
                        FZ_CHECK(heapfmt_reader_footer(r, &f) == HEAPFMT_OK &&
                                     f->totals.objects == h.nused,
                                 "the dump does not hold one object per used block");
                    }
                    heapfmt_reader_free(r);
                }
                heapfmt_writer_free(w);
                fz_buf_free(&sink.out);
                roots_free(&rs);
            }
            bindex_free(&x);
        }
        classes_free(&cls);
        complete = h.complete;
        *nused = h.nused;
        snprintf(first_problem, sizeof first_problem, "%s",
                 h.nproblems > 0 && h.problems[0] ? h.problems[0] : "");
    }
    heap_free(&h);
    modules_free(&ms);
    img_free(&im);
    return complete;
}

/* ---- an ELF file ---------------------------------------------------------- */

static void run_elf(const uint8_t *data, size_t size)
{
    elf_file e;
    char err[128];
    if (elf_open(&e, data, size, err, sizeof err) != 0)
        return;
    elf_seg s;
    for (unsigned i = 0; i < e.phnum && elf_segment(&e, i, &s) == 0; i++) {
        if (s.type != PT_NOTE)
            continue;
        uint64_t pos = s.offset, end = s.offset + s.filesz;
        elf_note n;
        for (int k = 0; k < 4096 && elf_note_next(&e, &pos, end, &n) == 1; k++)
            FZ_CHECK(n.desc >= e.data && n.desc + n.descsz <= e.data + e.size,
                     "a note's descriptor is outside the file");
    }
    elf_sec c;
    for (unsigned i = 0; i < e.shnum && elf_section(&e, i, &c) == 0; i++)
        (void)strlen(elf_section_name(&e, &c));
    uint32_t types[2] = {SHT_SYMTAB, SHT_DYNSYM};
    for (int t = 0; t < 2; t++) {
        elf_symtab st;
        if (elf_symtab_open(&e, types[t], &st) != 0)
            continue;
        for (uint64_t i = 0; i < st.count && i < 100000; i++) {
            elf_sym sym;
            if (elf_symtab_get(&st, i, &sym) == 0)
                (void)strlen(sym.name);
        }
    }
    unsigned char id[64];
    FZ_CHECK(elf_build_id(&e, id, sizeof id) <= sizeof id, "build id too long");
    const char *link = elf_debuglink(&e);
    if (link != NULL)
        (void)strlen(link);
}

/* ---- a synthetic core ---------------------------------------------------- */

#define ARENA 0x7f0000100000ull /* main_arena in the "libc" mapping */
#define LIBC_LO 0x7f00000ff000ull
#define LIBC_HI 0x7f0000102000ull
#define HEAP 0x555500000000ull
#define STACK 0x7ffd00000000ull
#define MMAP 0x7f0000200000ull
#define OFF_TOP 96
#define OFF_BINS 112
#define OFF_NEXT 2160
#define OFF_SYSMEM 2184

typedef struct seg {
    uint64_t vaddr;
    uint8_t *data;
    size_t size;
    uint32_t flags;
} seg;

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* Writes an ELF core of the segments, a thread and an NT_FILE note. */
static void build_core(fz_buf *out, const seg *s, int nseg, uint64_t rsp)
{
    uint8_t note[2048];
    size_t nl = 0;
    /* NT_PRSTATUS: pid at 32, regs at 112 (rsp is register 19) */
    uint8_t pr[336];
    memset(pr, 0, sizeof pr);
    uint32_t tid = 4242;
    memcpy(pr + 32, &tid, 4);
    put64(pr + 112 + 19 * 8, rsp);
    put64(pr + 112 + 15 * 8, UINT64_MAX); /* orig_rax: not in a syscall */
    uint32_t hdr[3] = {5, sizeof pr, NT_PRSTATUS};
    memcpy(note + nl, hdr, 12);
    memcpy(note + nl + 12, "CORE\0\0\0", 8);
    memcpy(note + nl + 20, pr, sizeof pr);
    nl += 20 + sizeof pr;
    /* NT_FILE: the libc mapping */
    const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
    uint8_t fd[16 + 24 + 64];
    size_t fl = 0;
    put64(fd, 1);
    put64(fd + 8, 4096);
    put64(fd + 16, LIBC_LO);
    put64(fd + 24, LIBC_HI);
    put64(fd + 32, 0x1d0);
    fl = 40 + strlen(path) + 1;
    memcpy(fd + 40, path, strlen(path) + 1);
    uint32_t fh[3] = {5, (uint32_t)fl, 0x46494c45};
    memcpy(note + nl, fh, 12);
    memcpy(note + nl + 12, "CORE\0\0\0", 8);
    memcpy(note + nl + 20, fd, fl);
    nl += 20 + ((fl + 3) & ~(size_t)3);

    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_CORE;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = (uint16_t)(nseg + 1);
    fz_put(out, &eh, sizeof eh);
    size_t off = sizeof eh + (size_t)(nseg + 1) * sizeof(Elf64_Phdr);
    Elf64_Phdr ph;
    memset(&ph, 0, sizeof ph);
    ph.p_type = PT_NOTE;
    ph.p_offset = off;
    ph.p_filesz = nl;
    fz_put(out, &ph, sizeof ph);
    off += nl;
    for (int i = 0; i < nseg; i++) {
        memset(&ph, 0, sizeof ph);
        ph.p_type = PT_LOAD;
        ph.p_flags = s[i].flags;
        ph.p_offset = off;
        ph.p_vaddr = s[i].vaddr;
        ph.p_filesz = ph.p_memsz = s[i].size;
        fz_put(out, &ph, sizeof ph);
        off += s[i].size;
    }
    fz_put(out, note, nl);
    for (int i = 0; i < nseg; i++)
        fz_put(out, s[i].data, s[i].size);
}

/* Builds a core from the program in `in` and runs it; when every chunk
 * the program wrote is valid, the heap must be read complete. */
static void run_synthetic(fz_in *in, uint64_t opts)
{
    static uint8_t libc[LIBC_HI - LIBC_LO], heapb[1 << 16], stack[8192], mm[8192];
    memset(libc, 0, sizeof libc);
    memset(heapb, 0, sizeof heapb);
    memset(stack, 0, sizeof stack);
    memset(mm, 0, sizeof mm);
    uint8_t *ar = libc + (ARENA - LIBC_LO);
    for (unsigned i = 1; i < 128; i++) { /* empty bins */
        uint64_t fake = ARENA + OFF_BINS + (uint64_t)(i - 1) * 16 - 16;
        put64(ar + OFF_BINS + (i - 1) * 16, fake);
        put64(ar + OFF_BINS + (i - 1) * 16 + 8, fake);
    }
    put64(ar + OFF_NEXT, ARENA);
    /* chunks from the heap's start (sbrk_base), all in use (PREV_INUSE
     * set in each), or one damaged size field that ends them */
    size_t heap_len = 4096u * (1u + fz_u8(in) % 15);
    uint64_t p = 0, prev[256];
    int n = 0, damaged = 0;
    while (n < 255 && in->n > 0) {
        uint8_t code = fz_u8(in), fl = fz_u8(in);
        uint64_t size = ((uint64_t)code % 64 + 2) * 16;
        if (code == 255) { /* a damaged size field */
            put64(heapb + p + 8, fz_u64(in));
            damaged = 1;
            break;
        }
        if (p + size + 48 > heap_len)
            break;
        put64(heapb + p + 8, size | 1);
        if (fl & 2) /* a word pointing into the heap */
            put64(heapb + p + 16, HEAP + (fz_u16(in) % heap_len));
        prev[n++] = p;
        p += size;
    }
    /* the top chunk to the end */
    uint64_t top = p;
    put64(heapb + top + 8, (heap_len - top) | 1);
    put64(ar + OFF_TOP, HEAP + top);
    put64(ar + OFF_SYSMEM, heap_len);
    /* a fastbin of one chunk, when the input says and it is 32 bytes */
    int fast = 0;
    if (n > 0 && (opts & 2) && !damaged) {
        uint64_t c = prev[fz_u8(in) % n];
        uint64_t head;
        memcpy(&head, heapb + c + 8, 8);
        if ((head & ~7ull) == 32) {
            put64(ar + 16, HEAP + c); /* fastbinsY[0] */
            put64(heapb + c + 16, (HEAP + c + 16) >> 12); /* next: NULL */
            fast = 1;
        }
    }
    /* an mmapped chunk of a page, and a thread whose stack points at the
     * heap's first block */
    put64(mm + 8, 4096 | 2);
    put64(stack + 4096, HEAP + 32);
    seg segs[4] = {{LIBC_LO, libc, sizeof libc, PF_R | PF_W},
                   {HEAP, heapb, heap_len, PF_R | PF_W},
                   {MMAP, mm, sizeof mm, PF_R | PF_W},
                   {STACK, stack, sizeof stack, PF_R | PF_W}};
    fz_buf core = {0};
    build_core(&core, segs, 4, STACK + 4096);
    size_t nused;
    int complete = run_core(core.p, core.len, opts, &nused);
    if (!damaged) {
        FZ_CHECK(complete, "a valid synthetic heap read incomplete: %s",
                 first_problem);
        FZ_CHECK(nused == (size_t)(n - fast + 1),
                 "%zu used blocks, %d chunks placed (%d in a fastbin) and one mmapped",
                 nused, n, fast);
    }
    fz_buf_free(&core);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint64_t opts = fz_hash(data, size);
    size_t nused;
    switch (data[0] & 3) {
    case 0:
        run_core(data + 1, size - 1, opts, &nused);
        break;
    case 2:
        run_elf(data + 1, size - 1);
        break;
    default: {
        fz_in in = {data + 1, size - 1};
        run_synthetic(&in, opts);
        break;
    }
    }
    return 0;
}
