/* modules.c -- the mapped ELF files, their symbols and writable ranges
 * (modules.h). */
#define _GNU_SOURCE /* memmem */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_msg.h"
#include "cli_grow.h"
#include "modules.h"

#define PAGE 4096u

/* Maps the regular file at path; 0 or -1. */
static int map_file(const char *path, void **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    *data = p;
    *size = (size_t)st.st_size;
    return 0;
}

static char *join(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

/* The path without the " (deleted)" the kernel appends to a file removed
 * since it was mapped. */
static char *clean_path(const char *path)
{
    size_t n = strlen(path);
    const char *tag = " (deleted)";
    size_t t = strlen(tag);
    if (n > t && strcmp(path + n - t, tag) == 0)
        n -= t;
    char *s = malloc(n + 1);
    if (s != NULL) {
        memcpy(s, path, n);
        s[n] = '\0';
    }
    return s;
}

/* Tries the places path may be, in order; maps the first ELF file found. */
static int find_file(module *m, const char *path, const mod_options *opt)
{
    char *clean = clean_path(path);
    if (clean == NULL)
        return -1;
    char *cand[3 + 64];
    size_t nc = 0;
    char pidroot[64];
    if (opt->live_pid > 0) {
        snprintf(pidroot, sizeof pidroot, "/proc/%d/root", opt->live_pid);
        cand[nc++] = join(pidroot, clean, "");
    }
    cand[nc++] = join(opt->sysroot ? opt->sysroot : "", clean, "");
    for (size_t i = 0; i < opt->nsearch && nc < sizeof cand / sizeof *cand; i++)
        cand[nc++] = join(opt->search[i], "/", base_name(clean));
    free(clean);
    int found = -1;
    char err[128];
    for (size_t i = 0; i < nc; i++) {
        if (found < 0 && cand[i] != NULL &&
            map_file(cand[i], &m->data, &m->size) == 0) {
            if (elf_open(&m->elf, m->data, m->size, err, sizeof err) == 0) {
                m->disk = cand[i];
                cand[i] = NULL;
                found = 0;
            } else {
                munmap(m->data, m->size);
                m->data = NULL;
            }
        }
        free(cand[i]);
    }
    return found;
}

/* The build id of the module as mapped in the process: the notes of its
 * first page, when the image holds that page. */
static size_t mapped_build_id(const image *im, int file, unsigned char *out,
                              size_t cap)
{
    for (size_t i = 0; i < im->nseg; i++) {
        const img_seg *s = &im->seg[i];
        if (s->file != file || s->file_off != 0 || s->avail < 64)
            continue;
        elf_file e;
        char err[64];
        if (elf_open(&e, s->data, (size_t)s->avail, err, sizeof err) != 0)
            return 0;
        /* In the first page, file offsets are offsets from the mapping. */
        return elf_build_id(&e, out, cap);
    }
    return 0;
}

static void hex(const unsigned char *id, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", id[i]);
    out[2 * n] = '\0';
}

/* The separate debug file: DEBUG_DIR/.build-id/xx/yyyy.debug. */
static void find_debug(module *m, const unsigned char *id, size_t idlen,
                       const mod_options *opt)
{
    if (opt->no_debug || idlen < 2 || idlen > 64)
        return;
    char h[129];
    hex(id, idlen, h);
    char rel[200];
    snprintf(rel, sizeof rel, "/.build-id/%.2s/%s.debug", h, h + 2);
    const char *dir = opt->debug_dir ? opt->debug_dir : "/usr/lib/debug";
    char *p = join(opt->sysroot && !opt->debug_dir ? opt->sysroot : "", dir, rel);
    if (p == NULL)
        return;
    char err[128];
    unsigned char did[64];
    if (map_file(p, &m->dbg, &m->dbg_size) == 0) {
        if (elf_open(&m->dbg_elf, m->dbg, m->dbg_size, err, sizeof err) == 0 &&
            elf_build_id(&m->dbg_elf, did, sizeof did) == idlen &&
            memcmp(did, id, idlen) == 0) {
            m->dbg_path = p;
            return;
        }
        munmap(m->dbg, m->dbg_size);
        m->dbg = NULL;
    }
    free(p);
}

/* Appends the data symbols of one table. */
static int add_symbols(module *m, const elf_file *e, uint32_t type,
                       size_t *cap)
{
    elf_symtab t;
    if (elf_symtab_open(e, type, &t) != 0)
        return 0;
    for (uint64_t i = 0; i < t.count; i++) {
        elf_sym s;
        if (elf_symtab_get(&t, i, &s) != 0)
            continue;
        if (ELF64_ST_TYPE(s.info) != STT_OBJECT || s.shndx == SHN_UNDEF ||
            s.shndx == SHN_ABS || s.name[0] == '\0' || s.value == 0)
            continue;
        if (GROW(m->syms, *cap, m->nsyms) != 0)
            return -1;
        m->syms[m->nsyms++] = (msym){s.value + m->bias, s.size, s.name};
    }
    return 0;
}

static int by_addr(const void *a, const void *b)
{
    const msym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->size != y->size) /* the larger first: it holds the others */
        return x->size > y->size ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int load_symbols(module *m)
{
    size_t cap = 0;
    if (add_symbols(m, &m->elf, SHT_SYMTAB, &cap) != 0 ||
        add_symbols(m, &m->elf, SHT_DYNSYM, &cap) != 0 ||
        (m->dbg != NULL && add_symbols(m, &m->dbg_elf, SHT_SYMTAB, &cap) != 0))
        return -1;
    SORT(m->syms, m->nsyms, by_addr);
    size_t k = 0;
    for (size_t i = 0; i < m->nsyms; i++)
        if (k == 0 || m->syms[i].addr != m->syms[k - 1].addr ||
            strcmp(m->syms[i].name, m->syms[k - 1].name) != 0)
            m->syms[k++] = m->syms[i];
    m->nsyms = k;
    return 0;
}

/* Load bias from the lowest mapping of the file, and the writable
 * PT_LOAD ranges. */
static int place(module *m, const image *im)
{
    const img_seg *first = NULL;
    for (size_t i = 0; i < im->nseg; i++) {
        const img_seg *s = &im->seg[i];
        if (s->file != m->file)
            continue;
        if (first == NULL || s->file_off < first->file_off)
            first = s;
    }
    if (first == NULL)
        return -1;
    elf_seg p;
    int placed = 0;
    for (unsigned i = 0; i < m->elf.phnum && elf_segment(&m->elf, i, &p) == 0; i++) {
        if (p.type == PT_LOAD && (p.offset & ~(uint64_t)(PAGE - 1)) == first->file_off) {
            m->bias = first->start - (p.vaddr & ~(uint64_t)(PAGE - 1));
            placed = 1;
            break;
        }
    }
    if (!placed)
        return -1;
    size_t cap = 0;
    for (unsigned i = 0; i < m->elf.phnum && elf_segment(&m->elf, i, &p) == 0; i++) {
        if (p.type != PT_LOAD || !(p.flags & PF_W) || p.memsz == 0 ||
            p.memsz > (1ull << 40))
            continue;
        if (GROW(m->rw, cap, m->nrw) != 0)
            return -2;
        m->rw[m->nrw++] = (mrange){p.vaddr + m->bias, p.vaddr + m->bias + p.memsz};
    }
    return 0;
}

/* Gives the mappings of the file the core lacks their bytes. */
static void fill_image(const module *m, image *im)
{
    for (size_t i = 0; i < im->nseg; i++) {
        img_seg *s = &im->seg[i];
        if (s->file != m->file || s->avail != 0 ||
            ((s->prot & IMG_W) && im->truncated) || s->file_off >= m->size)
            continue;
        uint64_t len = s->end - s->start;
        uint64_t have = m->size - s->file_off;
        s->data = (const unsigned char *)m->data + s->file_off;
        s->avail = len < have ? len : have;
    }
}

static int by_lo(const void *a, const void *b)
{
    const module *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int is_libc_name(const char *n)
{
    return strcmp(n, "libc.so.6") == 0 || strcmp(n, "libc.so") == 0 ||
           (strncmp(n, "libc-2.", 7) == 0 && strstr(n, ".so") != NULL);
}

int modules_load(modules *ms, image *im, const mod_options *opt,
                 const char *name)
{
    memset(ms, 0, sizeof *ms);
    ms->libc = -1;
    if (im->nfiles == 0)
        return 0;
    ms->m = calloc(im->nfiles, sizeof *ms->m);
    if (ms->m == NULL)
        return -1;
    for (size_t f = 0; f < im->nfiles; f++) {
        module *m = &ms->m[ms->n];
        memset(m, 0, sizeof *m);
        m->file = (int)f;
        m->path = img_file(im, f);
        m->name = base_name(m->path);
        m->lo = UINT64_MAX;
        for (size_t i = 0; i < im->nseg; i++) {
            if (im->seg[i].file != (int)f)
                continue;
            if (im->seg[i].start < m->lo)
                m->lo = im->seg[i].start;
            if (im->seg[i].end > m->hi)
                m->hi = im->seg[i].end;
        }
        if (m->lo == UINT64_MAX)
            continue;
        /* Only ELF files matter: the mapped first page says which. */
        unsigned char mid[64], did[64];
        size_t midlen = mapped_build_id(im, (int)f, mid, sizeof mid);
        if (m->path[0] == '\0' || find_file(m, m->path, opt) != 0) {
            /* Not found, or not ELF (locale archives, fonts). An ELF
             * file's header in the image still places its data. */
            const img_seg *s = img_find(im, m->lo);
            char err[64];
            if (s == NULL || s->avail < 64 || memcmp(s->data, ELFMAG, 4) != 0 ||
                elf_open(&m->elf, s->data, (size_t)s->avail, err, sizeof err) != 0)
                continue;
            if (m->path[0] == '\0') {
                m->path = m->name = "(main program)";
            } else {
                ms->missing++;
                if (!opt->quiet)
                    cli_warn(name, "%s: not found; its symbols and read-only "
                                   "data are unknown (--sysroot, --search)",
                             m->path);
            }
            int r = place(m, im);
            if (r == -2)
                return -1;
            if (r == 0) {
                m->is_libc = is_libc_name(m->name);
                ms->n++;
            }
            continue;
        }
        size_t dlen = elf_build_id(&m->elf, did, sizeof did);
        if (midlen > 0 && (dlen != midlen || memcmp(mid, did, dlen) != 0)) {
            m->mismatch = 1;
            if (!opt->quiet)
                cli_warn(name, "%s: the file on disk (%s) is not the one the "
                               "process mapped (build ids differ); not used",
                         m->path, m->disk);
            munmap(m->data, m->size);
            m->data = NULL;
            free(m->disk);
            m->disk = NULL;
            ms->missing++;
            continue;
        }
        int r = place(m, im);
        if (r == -2)
            return -1;
        if (r != 0) {
            munmap(m->data, m->size);
            m->data = NULL;
            free(m->disk);
            m->disk = NULL;
            continue;
        }
        if (dlen > 0)
            find_debug(m, did, dlen, opt);
        if (m->dbg_path != NULL)
            ms->debug_files++;
        if (load_symbols(m) != 0)
            return -1;
        fill_image(m, im);
        m->is_libc = is_libc_name(m->name);
        ms->n++;
    }
    SORT(ms->m, ms->n, by_lo);
    for (size_t i = 0; i < ms->n; i++)
        if (ms->m[i].is_libc && ms->libc < 0)
            ms->libc = (int)i;
    return 0;
}

void modules_free(modules *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        module *m = &ms->m[i];
        if (m->data != NULL)
            munmap(m->data, m->size);
        if (m->dbg != NULL)
            munmap(m->dbg, m->dbg_size);
        free(m->disk);
        free(m->dbg_path);
        free(m->syms);
        free(m->rw);
    }
    free(ms->m);
    memset(ms, 0, sizeof *ms);
}

const module *modules_at(const modules *ms, uint64_t addr)
{
    size_t lo = 0, hi = ms->n;
    while (lo < hi) { /* the first module starting above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (ms->m[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Modules may interleave (a library mapped in a gap of another):
     * look back a few. */
    for (size_t i = lo, steps = 0; i > 0 && steps < 4; i--, steps++)
        if (addr < ms->m[i - 1].hi)
            return &ms->m[i - 1];
    return NULL;
}

const msym *module_sym_at(const module *m, uint64_t addr)
{
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) { /* the first symbol above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* The symbols at or below addr, nearest first: the first that holds
     * it (a few steps: symbols rarely nest). */
    for (size_t i = lo, steps = 0; i > 0 && steps < 8; i--, steps++) {
        const msym *s = &m->syms[i - 1];
        if (addr - s->addr < (s->size ? s->size : 1))
            return s;
    }
    return NULL;
}

int module_sym_find(const module *m, const char *name, uint64_t *addr)
{
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, name) == 0) {
            *addr = m->syms[i].addr;
            return 0;
        }
    }
    return -1;
}

int modules_glibc_version(const modules *ms)
{
    if (ms->libc < 0)
        return 0;
    const module *m = &ms->m[ms->libc];
    const char *tag = "GNU C Library";
    const char *p = m->data ? memmem(m->data, m->size, tag, strlen(tag)) : NULL;
    if (p != NULL) {
        size_t left = m->size - (size_t)(p - (const char *)m->data);
        const char *v = memmem(p, left < 256 ? left : 256, "version 2.", 10);
        if (v != NULL && v + 12 <= (const char *)m->data + m->size) {
            int minor = 0;
            for (const char *q = v + 10; q < (const char *)m->data + m->size &&
                                         *q >= '0' && *q <= '9' && minor < 1000;
                 q++)
                minor = minor * 10 + (*q - '0');
            if (minor > 0)
                return 2000 + minor;
        }
    }
    if (strncmp(m->name, "libc-2.", 7) == 0)
        return 2000 + atoi(m->name + 7);
    return 0;
}
