/* cli_elf.c -- symbols of a 64-bit ELF file, every claim of the file
 * checked against its size. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_elf.h"

struct cli_elf {
    const unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
};

/* Whether [off, off + len) lies inside the file. */
static int inside(const cli_elf *e, uint64_t off, uint64_t len)
{
    return off <= e->size && len <= e->size - off;
}

/* Whether a table of 64-bit ELF structures may be read at [off, off +
 * len): inside the file and aligned as the ABI requires (the file is
 * mapped at a page boundary). A damaged offset is not followed. */
static int table_at(const cli_elf *e, uint64_t off, uint64_t len)
{
    return off % 8 == 0 && inside(e, off, len);
}

int cli_elf_open(cli_elf **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        snprintf(err, errlen, "%s", strerror(saved));
        errno = saved;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        snprintf(err, errlen, "not an ELF file");
        errno = EINVAL;
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        int saved = errno;
        snprintf(err, errlen, "%s", strerror(saved));
        errno = saved;
        return -1;
    }
    cli_elf *e = calloc(1, sizeof *e);
    if (e == NULL) {
        munmap(p, (size_t)st.st_size);
        snprintf(err, errlen, "out of memory");
        errno = ENOMEM;
        return -1;
    }
    e->data = p;
    e->size = (size_t)st.st_size;
    e->eh = p;
    const unsigned char *id = e->eh->e_ident;
    const unsigned char host_order =
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        ELFDATA2LSB;
#else
        ELFDATA2MSB;
#endif
    if (memcmp(id, ELFMAG, SELFMAG) != 0 || id[EI_CLASS] != ELFCLASS64 ||
        id[EI_DATA] != host_order || e->eh->e_ehsize < sizeof(Elf64_Ehdr)) {
        snprintf(err, errlen, memcmp(id, ELFMAG, SELFMAG) != 0
                                  ? "not an ELF file"
                                  : "not a 64-bit ELF file of this machine");
        cli_elf_close(e);
        errno = EINVAL;
        return -1;
    }
    *out = e;
    return 0;
}

void cli_elf_close(cli_elf *e)
{
    if (e == NULL)
        return;
    munmap((void *)e->data, e->size);
    free(e);
}

unsigned cli_elf_machine(const cli_elf *e)
{
    return e->eh->e_machine;
}

unsigned cli_elf_type(const cli_elf *e)
{
    return e->eh->e_type;
}

/* Entry i of one of the header's tables (n entries of entsize bytes at
 * off), read as a struct of size bytes; NULL when entsize is not size, or
 * the table or the index is out of the file. */
static const void *table_entry(const cli_elf *e, uint64_t off, size_t n,
                               size_t entsize, size_t size, size_t i)
{
    if (entsize != size || i >= n || !table_at(e, off, (uint64_t)n * size))
        return NULL;
    return e->data + off + i * size;
}

/* Section i's header, or NULL. */
static const Elf64_Shdr *section(const cli_elf *e, size_t i)
{
    const Elf64_Ehdr *h = e->eh;
    return table_entry(e, h->e_shoff, h->e_shnum, h->e_shentsize,
                       sizeof(Elf64_Shdr), i);
}

/* Program header i, or NULL. */
static const Elf64_Phdr *segment(const cli_elf *e, size_t i)
{
    const Elf64_Ehdr *h = e->eh;
    return table_entry(e, h->e_phoff, h->e_phnum, h->e_phentsize,
                       sizeof(Elf64_Phdr), i);
}

/* The NUL-terminated string at offset off of string table strtab (a
 * section index), or NULL when it is not inside the table. */
static const char *string_at(const cli_elf *e, size_t strtab, uint64_t off)
{
    const Elf64_Shdr *s = section(e, strtab);
    if (s == NULL || s->sh_type != SHT_STRTAB ||
        !inside(e, s->sh_offset, s->sh_size) || off >= s->sh_size)
        return NULL;
    const char *base = (const char *)e->data + s->sh_offset;
    if (memchr(base + off, '\0', s->sh_size - off) == NULL)
        return NULL;
    return base + off;
}

static int search_table(const cli_elf *e, unsigned type, const char *name,
                        uint64_t *value, uint64_t *size)
{
    for (size_t i = 0; i < e->eh->e_shnum; i++) {
        const Elf64_Shdr *s = section(e, i);
        if (s == NULL)
            return -1;
        if (s->sh_type != type || s->sh_entsize != sizeof(Elf64_Sym) ||
            !table_at(e, s->sh_offset, s->sh_size))
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(e->data + s->sh_offset);
        size_t n = s->sh_size / sizeof(Elf64_Sym);
        for (size_t k = 1; k < n; k++) {
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_name == 0)
                continue;
            const char *nm = string_at(e, s->sh_link, sym[k].st_name);
            if (nm != NULL && strcmp(nm, name) == 0) {
                *value = sym[k].st_value;
                if (size != NULL)
                    *size = sym[k].st_size;
                return 0;
            }
        }
    }
    return -1;
}

int cli_elf_symbol(const cli_elf *e, const char *name, uint64_t *value,
                   uint64_t *size)
{
    if (search_table(e, SHT_DYNSYM, name, value, size) == 0)
        return 0;
    return search_table(e, SHT_SYMTAB, name, value, size);
}

int cli_elf_bias(const cli_elf *e, uint64_t map_start, uint64_t *bias)
{
    for (size_t i = 0; i < e->eh->e_phnum; i++) {
        const Elf64_Phdr *p = segment(e, i);
        if (p == NULL)
            return -1;
        if (p->p_type == PT_LOAD && p->p_offset == 0) {
            *bias = map_start - p->p_vaddr;
            return 0;
        }
    }
    return -1;
}

int cli_elf_read(const cli_elf *e, uint64_t vaddr, void *buf, size_t len)
{
    for (size_t i = 0; i < e->eh->e_phnum; i++) {
        const Elf64_Phdr *p = segment(e, i);
        if (p == NULL)
            return -1;
        if (p->p_type != PT_LOAD || vaddr < p->p_vaddr ||
            vaddr - p->p_vaddr > p->p_filesz ||
            len > p->p_filesz - (vaddr - p->p_vaddr))
            continue;
        uint64_t off = p->p_offset + (vaddr - p->p_vaddr);
        if (!inside(e, off, len))
            return -1;
        memcpy(buf, e->data + off, len);
        return 0;
    }
    return -1;
}

/* The string of the i-th entry of kind tag of the dynamic section. */
static const char *dynamic_string(const cli_elf *e, int64_t tag, size_t i)
{
    for (size_t k = 0; k < e->eh->e_shnum; k++) {
        const Elf64_Shdr *s = section(e, k);
        if (s == NULL)
            return NULL;
        if (s->sh_type != SHT_DYNAMIC || s->sh_entsize != sizeof(Elf64_Dyn) ||
            !table_at(e, s->sh_offset, s->sh_size))
            continue;
        const Elf64_Dyn *d = (const Elf64_Dyn *)(e->data + s->sh_offset);
        size_t n = s->sh_size / sizeof(Elf64_Dyn), seen = 0;
        for (size_t j = 0; j < n && d[j].d_tag != DT_NULL; j++)
            if (d[j].d_tag == tag && seen++ == i)
                return string_at(e, s->sh_link, d[j].d_un.d_val);
        return NULL;
    }
    return NULL;
}

const char *cli_elf_needed(const cli_elf *e, size_t i)
{
    return dynamic_string(e, DT_NEEDED, i);
}

const char *cli_elf_soname(const cli_elf *e)
{
    return dynamic_string(e, DT_SONAME, 0);
}
