/* core.c -- an ELF core file as an image (core.h): its PT_LOAD segments
 * are the mappings (mapped from the file, not copied), NT_PRSTATUS notes
 * the threads, NT_FILE the mapped files, NT_PRPSINFO the command. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "elfread.h"
#include "cli_grow.h"

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

/* x86-64 elf_prstatus: pr_pid at 32, pr_reg (27 words) at 112. */
#define PRSTATUS_PID 32
#define PRSTATUS_REG 112
/* x86-64 elf_prpsinfo: pr_pid at 24, pr_fname[16] at 40. */
#define PRPSINFO_PID 24
#define PRPSINFO_FNAME 40

static uint64_t le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t le32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int add_thread(image *im, const elf_note *n)
{
    if (n->descsz < PRSTATUS_REG + IMG_NREGS * 8)
        return 0; /* too short to hold registers: skipped */
    img_thread t;
    memset(&t, 0, sizeof t);
    t.tid = le32(n->desc + PRSTATUS_PID);
    for (int r = 0; r < IMG_NREGS; r++)
        t.reg[r] = le64(n->desc + PRSTATUS_REG + 8 * r);
    if (im->pid == 0)
        im->pid = (int)t.tid; /* the first thread is the one that dumped */
    return img_add_thread(im, &t);
}

/* NT_FILE: count, page size, count x (start, end, page offset), then count
 * NUL-terminated names. Marks the mappings it names. */
typedef struct file_map {
    uint64_t start, end, off;
    int file;
} file_map;

static int read_files(image *im, const elf_note *n, file_map **maps,
                      size_t *nmaps)
{
    if (n->descsz < 16)
        return 0;
    uint64_t count = le64(n->desc), page = le64(n->desc + 8);
    if (count > (n->descsz - 16) / 24 || page == 0 || page > (1u << 30))
        return 0; /* a count the note cannot hold: ignored */
    const char *names = (const char *)n->desc + 16 + count * 24;
    size_t left = n->descsz - 16 - count * 24;
    file_map *m = calloc(count ? count : 1, sizeof *m);
    if (m == NULL)
        return -1;
    size_t k = 0;
    for (uint64_t i = 0; i < count; i++) {
        const char *z = memchr(names, '\0', left);
        if (z == NULL)
            break;
        const unsigned char *e = n->desc + 16 + i * 24;
        uint64_t start = le64(e), end = le64(e + 8), pg = le64(e + 16);
        int f = img_add_file(im, names, (size_t)(z - names));
        if (f < 0) {
            free(m);
            return -1;
        }
        if (end > start && pg <= UINT64_MAX / page)
            m[k++] = (file_map){start, end, pg * page, f};
        left -= (size_t)(z - names) + 1;
        names = z + 1;
    }
    free(*maps);
    *maps = m;
    *nmaps = k;
    return 0;
}

static int by_map_start(const void *a, const void *b)
{
    const file_map *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Gives each mapping the file that NT_FILE says backs it, and adds the
 * file mappings the core left out (gcore omits unmodified read-only
 * ones): their bytes come from the file (modules.c). */
static int attach_files(image *im, file_map *m, size_t n)
{
    SORT(m, n, by_map_start);
    size_t nseg = im->nseg, j = 0;
    for (size_t i = 0; i < nseg; i++) {
        img_seg *s = &im->seg[i];
        while (j < n && m[j].end <= s->start)
            j++;
        if (j < n && m[j].start <= s->start && s->end <= m[j].end) {
            s->file = m[j].file;
            s->file_off = m[j].off + (s->start - m[j].start);
        }
    }
    for (size_t k = 0; k < n; k++) {
        /* the first mapping that ends after this file map's start */
        size_t lo = 0, hi = nseg;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (im->seg[mid].end <= m[k].start)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint64_t at = m[k].start;
        while (at < m[k].end) {
            if (lo < nseg && im->seg[lo].start <= at) {
                at = im->seg[lo++].end;
                continue;
            }
            uint64_t end = lo < nseg && im->seg[lo].start < m[k].end
                               ? im->seg[lo].start
                               : m[k].end;
            img_seg g;
            memset(&g, 0, sizeof g);
            g.start = at;
            g.end = end;
            g.prot = IMG_R;
            g.file = m[k].file;
            g.file_off = m[k].off + (at - m[k].start);
            if (img_add(im, &g) != 0)
                return -1;
            at = end;
        }
    }
    return img_sort(im);
}

/* ------------------------------------------------------------------ */
/* Without NT_FILE: the dynamic linker's list of loaded objects          */
/* ------------------------------------------------------------------ */

/* The ELF header of an object loaded at addr, read from the image: its
 * first page (the kernel and gcore dump first pages of ELF mappings). */
static int loaded_elf(const image *im, uint64_t addr, elf_file *e)
{
    const unsigned char *p = img_ptr(im, addr, 64);
    char err[64];
    if (p == NULL)
        return -1;
    const img_seg *s = img_find(im, addr);
    return elf_open(e, p, (size_t)(s->start + s->avail - addr), err,
                    sizeof err);
}

/* Appends the file mappings of the object whose header is at hdr. */
static int add_object(image *im, const elf_file *e, uint64_t hdr,
                      const char *path, file_map **maps, size_t *n,
                      size_t *cap)
{
    elf_seg p;
    uint64_t bias = 0;
    int first = 1;
    int f = img_add_file(im, path, strlen(path));
    if (f < 0)
        return -1;
    for (unsigned i = 0; i < e->phnum && elf_segment(e, i, &p) == 0; i++) {
        if (p.type != PT_LOAD || p.memsz == 0 || p.memsz > (1ull << 40))
            continue;
        uint64_t va = p.vaddr & ~(uint64_t)0xfff;
        if (first) { /* the header is the first segment's start */
            bias = hdr - va;
            first = 0;
        }
        if (GROW(*maps, *cap, *n) != 0)
            return -1;
        uint64_t end = (p.vaddr + p.memsz + 0xfff) & ~(uint64_t)0xfff;
        uint64_t fend = (p.vaddr + p.filesz + 0xfff) & ~(uint64_t)0xfff;
        /* the file backs the pages of filesz; the rest is .bss */
        (*maps)[(*n)++] = (file_map){bias + va, bias + (fend < end ? fend : end),
                                     p.offset & ~(uint64_t)0xfff, f};
    }
    return 0;
}

/* Rebuilds the file mappings from the dynamic linker's link_map list
 * (r_debug, found through the main program's DT_DEBUG), for a core
 * whose NT_FILE note is missing (cut off: gcore writes the notes last). */
static int maps_from_link_map(image *im, file_map **maps, size_t *nmaps)
{
    size_t n = 0, cap = 0;
    /* the main program: an ELF header with PT_INTERP at a mapping start */
    uint64_t exe = 0, dyn = 0, dynsz = 0;
    elf_file e;
    for (size_t i = 0; i < im->nseg && exe == 0; i++) {
        if (loaded_elf(im, im->seg[i].start, &e) != 0 ||
            (e.type != ET_DYN && e.type != ET_EXEC))
            continue;
        elf_seg p;
        uint64_t bias = 0, interp = 0;
        int first = 1;
        for (unsigned k = 0; k < e.phnum && elf_segment(&e, k, &p) == 0; k++) {
            if (p.type == PT_LOAD && first) {
                bias = im->seg[i].start - (p.vaddr & ~(uint64_t)0xfff);
                first = 0;
            }
            if (p.type == PT_INTERP)
                interp = 1;
            if (p.type == PT_DYNAMIC) {
                dyn = p.vaddr;
                dynsz = p.memsz;
            }
        }
        if (interp && dyn != 0) {
            exe = im->seg[i].start;
            dyn += bias;
            if (add_object(im, &e, exe, "", maps, &n, &cap) != 0)
                return -1;
        }
    }
    uint64_t rdebug = 0;
    for (uint64_t a = dyn; exe && a + 16 <= dyn + dynsz && a < dyn + 65536; a += 16) {
        uint64_t tag, val;
        if (img_u64(im, a, &tag) != 0 || img_u64(im, a + 8, &val) != 0 || tag == DT_NULL)
            break;
        if (tag == DT_DEBUG)
            rdebug = val;
    }
    uint64_t lm = 0;
    if (rdebug == 0 || img_u64(im, rdebug + 8, &lm) != 0)
        lm = 0;
    for (unsigned count = 0; lm != 0 && count < 4096; count++) {
        uint64_t laddr, lname, lld, next;
        char name[4096];
        if (img_u64(im, lm, &laddr) != 0 || img_u64(im, lm + 8, &lname) != 0 ||
            img_u64(im, lm + 16, &lld) != 0 || img_u64(im, lm + 24, &next) != 0)
            break;
        if (img_string(im, lname, name, sizeof name) > 0 && name[0] == '/' &&
            loaded_elf(im, laddr, &e) == 0 &&
            add_object(im, &e, laddr, name, maps, &n, &cap) != 0)
            return -1;
        lm = next;
    }
    *nmaps = n;
    return 0;
}

int core_open(image *im, const char *path, char *err, size_t errlen)
{
    img_init(im);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s", S_ISDIR(st.st_mode) ? "is a directory"
                                    : "not a regular file (a core file is "
                                      "read by mapping it)");
        close(fd);
        return -1;
    }
    if (st.st_size == 0) {
        snprintf(err, errlen, "empty file");
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, errlen, "cannot map it: %s", strerror(errno));
        return -1;
    }
    im->map = map;
    im->map_size = size;
    madvise(map, size, MADV_SEQUENTIAL);
    return core_parse(im, map, size, err, errlen);
}

int core_parse(image *im, const void *map, size_t size, char *err,
               size_t errlen)
{
    elf_file e;
    if (elf_open(&e, map, size, err, errlen) != 0)
        return -1;
    if (e.type != ET_CORE) {
        snprintf(err, errlen, "not a core file (an ELF %s)",
                 e.type == ET_EXEC  ? "executable"
                 : e.type == ET_DYN ? "shared object or executable"
                 : e.type == ET_REL ? "object file"
                                    : "file of another type");
        return -1;
    }
    if (e.machine != EM_X86_64) {
        const char *m = elf_machine_name(e.machine);
        if (m != NULL)
            snprintf(err, errlen, "a core of %s; heapfmt-core reads "
                                  "x86-64 cores", m);
        else
            snprintf(err, errlen, "a core of machine %u; heapfmt-core "
                                  "reads x86-64 cores", e.machine);
        return -1;
    }
    if (e.phnum == 0) {
        snprintf(err, errlen, "a core without program headers");
        return -1;
    }
    file_map *maps = NULL;
    size_t nmaps = 0;
    int notes = 0;
    for (unsigned i = 0; i < e.phnum; i++) {
        elf_seg s;
        if (elf_segment(&e, i, &s) != 0) {
            im->truncated = 1;
            break;
        }
        if (s.type == PT_LOAD) {
            if (s.memsz == 0 || s.vaddr > UINT64_MAX - s.memsz)
                continue;
            img_seg g;
            memset(&g, 0, sizeof g);
            g.start = s.vaddr;
            g.end = s.vaddr + s.memsz;
            g.prot = s.flags & (IMG_R | IMG_W | IMG_X);
            g.file = -1;
            uint64_t want = s.filesz < s.memsz ? s.filesz : s.memsz;
            if (s.offset < size) {
                g.data = (const unsigned char *)map + s.offset;
                g.avail = want < size - s.offset ? want : size - s.offset;
            }
            if (g.avail < want) {
                im->truncated = 1;
                im->missing += want - g.avail;
            }
            if (img_add(im, &g) != 0)
                goto nomem;
        } else if (s.type == PT_NOTE) {
            uint64_t pos = s.offset, end = s.offset + s.filesz;
            if (s.offset > size || end < s.offset || end > size) {
                im->truncated = 1;
                im->notes_cut = 1;
                if (s.offset > size)
                    continue;
                end = size;
            }
            elf_note n;
            int r;
            while ((r = elf_note_next(&e, &pos, end, &n)) == 1) {
                notes++;
                if (n.namesz == 4 && memcmp(n.name, "CORE", 4) == 0) {
                    if (n.type == NT_PRSTATUS) {
                        if (add_thread(im, &n) != 0)
                            goto nomem;
                    } else if (n.type == NT_PRPSINFO &&
                               n.descsz >= PRPSINFO_FNAME + 16) {
                        memcpy(im->exe, n.desc + PRPSINFO_FNAME, 16);
                        im->exe[16] = '\0';
                        im->pid = (int)le32(n.desc + PRPSINFO_PID);
                    } else if (n.type == NT_FILE) {
                        if (read_files(im, &n, &maps, &nmaps) != 0)
                            goto nomem;
                    }
                }
            }
            if (r < 0)
                im->truncated = im->notes_cut = 1;
        }
    }
    img_sort(im);
    if (nmaps == 0 && maps_from_link_map(im, &maps, &nmaps) != 0)
        goto nomem;
    if (attach_files(im, maps, nmaps) != 0)
        goto nomem;
    free(maps);
    if (im->nseg == 0) {
        snprintf(err, errlen, "a core without memory segments");
        return -1;
    }
    if (notes == 0)
        im->truncated = im->notes_cut = 1;
    return 0;
nomem:
    free(maps);
    snprintf(err, errlen, "out of memory");
    return -1;
}
