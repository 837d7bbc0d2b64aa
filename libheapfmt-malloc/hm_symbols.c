/* hm_symbols.c -- names for instruction addresses, at dump time.
 *
 * dladdr names only exported symbols, and for an address in a static
 * function it names the nearest exported one before it, which would be a
 * lie; the symbol's size (dladdr1's RTLD_DL_SYMENT) says whether the
 * address is inside it. Otherwise the library file's own .symtab, when it
 * has one (programs and libraries that are not stripped), is read once per
 * file and searched. Runs on the dumping thread only (hm_busy is set, so
 * the allocations here are the program's allocator's, not tracked). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hm_symbols.h"

typedef struct fsym {
    uint64_t start, size;
    const char *name;
} fsym;

typedef struct symfile {
    char *path;
    void *map;
    size_t maplen;
    fsym *syms;
    size_t n;
    struct symfile *next;
} symfile;

static symfile *files;

static int by_start(const void *a, const void *b) {
    const fsym *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The function symbols of an ELF file's .symtab (none when stripped). */
static symfile *load(const char *path) {
    for (symfile *f = files; f; f = f->next)
        if (strcmp(f->path, path) == 0)
            return f;
    symfile *f = hm_next.calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    size_t plen = strlen(path);
    f->path = hm_next.malloc(plen + 1);
    if (f->path == NULL) {
        hm_next.free(f);
        return NULL;
    }
    memcpy(f->path, path, plen + 1);
    f->next = files;
    files = f;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return f;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
        close(fd);
        return f;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return f;
    f->map = m;
    f->maplen = (size_t)st.st_size;
    const unsigned char *base = m;
    const ElfW(Ehdr) *eh = m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff > f->maplen ||
        (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > f->maplen - eh->e_shoff)
        return f;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const ElfW(Shdr) *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > f->maplen ||
            sh[i].sh_size > f->maplen - sh[i].sh_offset ||
            str->sh_offset > f->maplen || str->sh_size > f->maplen - str->sh_offset ||
            str->sh_size == 0)
            break;
        const ElfW(Sym) *sym = (const ElfW(Sym) *)(base + sh[i].sh_offset);
        size_t nsym = sh[i].sh_size / sizeof *sym;
        const char *names = (const char *)(base + str->sh_offset);
        f->syms = hm_next.malloc((nsym ? nsym : 1) * sizeof *f->syms);
        if (f->syms == NULL)
            break;
        for (size_t k = 0; k < nsym; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0 ||
                sym[k].st_name >= str->sh_size)
                continue;
            /* names end inside the table: the table's last byte is NUL */
            if (names[str->sh_size - 1] != 0)
                break;
            f->syms[f->n++] = (fsym){sym[k].st_value, sym[k].st_size,
                                     names + sym[k].st_name};
        }
        qsort(f->syms, f->n, sizeof *f->syms, by_start);
        break;
    }
    return f;
}

static const char *lookup(symfile *f, uint64_t addr) {
    size_t lo = 0, hi = f ? f->n : 0;
    while (lo < hi) { /* the last symbol starting at or before addr */
        size_t mid = lo + (hi - lo) / 2;
        if (f->syms[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const fsym *s = &f->syms[lo - 1];
    return addr < s->start + (s->size ? s->size : 1) ? s->name : NULL;
}

void hm_symbolize(uintptr_t ip, hm_symbol *out) {
    memset(out, 0, sizeof *out);
    out->offset = ip;
    Dl_info di;
    struct link_map *lm = NULL;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1((void *)ip, &di, (void **)&lm, RTLD_DL_LINKMAP) == 0)
        return;
    uintptr_t bias = lm ? lm->l_addr : (uintptr_t)di.dli_fbase;
    out->offset = ip - bias;
    /* The main program's dli_fname is argv[0] as typed (maybe relative):
     * its real path comes from /proc/self/exe. */
    const char *path = di.dli_fname && di.dli_fname[0] ? di.dli_fname : NULL;
    char exe[4096];
    if (lm == NULL || lm->l_name == NULL || lm->l_name[0] == 0) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            path = exe;
        }
    }
    symfile *f = path ? load(path) : NULL;
    out->library = f ? f->path : path;
    if (dladdr1((void *)ip, &di, (void **)&sym, RTLD_DL_SYMENT) != 0 &&
        di.dli_sname != NULL && sym != NULL &&
        ip >= (uintptr_t)di.dli_saddr &&
        ip < (uintptr_t)di.dli_saddr + (sym->st_size ? sym->st_size : 1)) {
        out->function = di.dli_sname;
        return;
    }
    /* a return address: the call is the byte before it */
    out->function = lookup(f, out->offset - 1);
}
