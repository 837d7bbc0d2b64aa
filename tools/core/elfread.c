/* elfread.c -- the bounded ELF64 reader (elfread.h). Fields are read with memcpy
 * from little-endian bytes: the data may be unaligned and the host need
 * not be x86-64. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "elfread.h"

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Whether [off, off + len) lies inside the file. */
static int inside(const elf_file *e, uint64_t off, uint64_t len)
{
    return off <= e->size && len <= e->size - off;
}

const char *elf_machine_name(uint16_t machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390x";
    case EM_RISCV: return "riscv";
    case EM_MIPS: return "mips";
    case EM_SPARCV9: return "sparc64";
    case EM_LOONGARCH: return "loongarch";
    default: return NULL;
    }
}

int elf_open(elf_file *e, const void *data, size_t size, char *err,
             size_t errlen)
{
    const unsigned char *p = data;
    memset(e, 0, sizeof *e);
    if (size < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "not an ELF file");
        return -1;
    }
    if (p[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "a %s ELF file; only 64-bit files are read",
                 p[EI_CLASS] == ELFCLASS32 ? "32-bit" : "corrupt");
        return -1;
    }
    if (p[EI_DATA] != ELFDATA2LSB) {
        snprintf(err, errlen, "a big-endian ELF file; only little-endian "
                              "files are read");
        return -1;
    }
    if (size < sizeof(Elf64_Ehdr)) {
        snprintf(err, errlen, "truncated ELF header (%zu bytes)", size);
        return -1;
    }
    e->data = p;
    e->size = size;
    e->type = rd16(p + offsetof(Elf64_Ehdr, e_type));
    e->machine = rd16(p + offsetof(Elf64_Ehdr, e_machine));
    e->phoff = rd64(p + offsetof(Elf64_Ehdr, e_phoff));
    e->shoff = rd64(p + offsetof(Elf64_Ehdr, e_shoff));
    uint16_t phentsize = rd16(p + offsetof(Elf64_Ehdr, e_phentsize));
    uint16_t shentsize = rd16(p + offsetof(Elf64_Ehdr, e_shentsize));
    e->phnum = rd16(p + offsetof(Elf64_Ehdr, e_phnum));
    e->shnum = rd16(p + offsetof(Elf64_Ehdr, e_shnum));
    e->shstrndx = rd16(p + offsetof(Elf64_Ehdr, e_shstrndx));
    /* PN_XNUM / SHN_XINDEX extensions are not needed by cores of fewer
     * than 65535 mappings; a file using them reads as having none. */
    if (e->phnum == PN_XNUM || (e->phnum != 0 && phentsize != sizeof(Elf64_Phdr)))
        e->phnum = 0;
    if (e->shnum != 0 && shentsize != sizeof(Elf64_Shdr))
        e->shnum = 0;
    if (e->shstrndx >= e->shnum)
        e->shstrndx = 0;
    return 0;
}

/* Entry i of a header table (n entries of size bytes at off), or NULL
 * when there is none or it is not inside the file. */
static const unsigned char *table_entry(const elf_file *e, uint64_t off,
                                        unsigned n, unsigned i, size_t size)
{
    uint64_t at = off + (uint64_t)i * size;
    if (i >= n || off > e->size || !inside(e, at, size))
        return NULL;
    return e->data + at;
}

int elf_segment(const elf_file *e, unsigned i, elf_seg *out)
{
    const unsigned char *p =
        table_entry(e, e->phoff, e->phnum, i, sizeof(Elf64_Phdr));
    if (p == NULL)
        return -1;
    out->type = rd32(p + offsetof(Elf64_Phdr, p_type));
    out->flags = rd32(p + offsetof(Elf64_Phdr, p_flags));
    out->offset = rd64(p + offsetof(Elf64_Phdr, p_offset));
    out->vaddr = rd64(p + offsetof(Elf64_Phdr, p_vaddr));
    out->filesz = rd64(p + offsetof(Elf64_Phdr, p_filesz));
    out->memsz = rd64(p + offsetof(Elf64_Phdr, p_memsz));
    out->align = rd64(p + offsetof(Elf64_Phdr, p_align));
    return 0;
}

int elf_section(const elf_file *e, unsigned i, elf_sec *out)
{
    const unsigned char *p =
        table_entry(e, e->shoff, e->shnum, i, sizeof(Elf64_Shdr));
    if (p == NULL)
        return -1;
    out->name = rd32(p + offsetof(Elf64_Shdr, sh_name));
    out->type = rd32(p + offsetof(Elf64_Shdr, sh_type));
    out->flags = rd64(p + offsetof(Elf64_Shdr, sh_flags));
    out->addr = rd64(p + offsetof(Elf64_Shdr, sh_addr));
    out->offset = rd64(p + offsetof(Elf64_Shdr, sh_offset));
    out->size = rd64(p + offsetof(Elf64_Shdr, sh_size));
    out->link = rd32(p + offsetof(Elf64_Shdr, sh_link));
    out->entsize = rd64(p + offsetof(Elf64_Shdr, sh_entsize));
    return 0;
}

/* The NUL-terminated string at off of a string table [base, base + size)
 * of the file, or NULL when it does not end inside the table. */
static const char *table_string(const elf_file *e, uint64_t base,
                                uint64_t size, uint64_t off)
{
    if (!inside(e, base, size) || off >= size)
        return NULL;
    const char *s = (const char *)e->data + base + off;
    if (memchr(s, '\0', (size_t)(size - off)) == NULL)
        return NULL;
    return s;
}

const char *elf_section_name(const elf_file *e, const elf_sec *s)
{
    elf_sec str;
    if (e->shstrndx == 0 || elf_section(e, e->shstrndx, &str) != 0)
        return "";
    const char *n = table_string(e, str.offset, str.size, s->name);
    return n != NULL ? n : "";
}

static uint64_t align4(uint64_t v)
{
    return (v + 3) & ~(uint64_t)3;
}

int elf_note_next(const elf_file *e, uint64_t *pos, uint64_t end,
                  elf_note *out)
{
    if (end > e->size)
        end = e->size;
    if (*pos >= end)
        return 0;
    if (end - *pos < 12)
        return -1;
    const unsigned char *p = e->data + *pos;
    uint64_t namesz = rd32(p), descsz = rd32(p + 4);
    uint64_t name_off = *pos + 12;
    uint64_t desc_off = name_off + align4(namesz);
    if (desc_off > end || align4(descsz) > end - desc_off) {
        /* The last note's descriptor may lack its padding. */
        if (desc_off > end || descsz > end - desc_off)
            return -1;
    }
    out->type = rd32(p + 8);
    out->name = (const char *)e->data + name_off;
    out->namesz = namesz > 0 && out->name[namesz - 1] == '\0' ? namesz - 1
                                                               : namesz;
    out->desc = e->data + desc_off;
    out->descsz = descsz;
    uint64_t next = desc_off + align4(descsz);
    *pos = next > end ? end : next;
    return 1;
}

int elf_symtab_open(const elf_file *e, uint32_t sh_type, elf_symtab *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 1; i < e->shnum; i++) {
        elf_sec s, str;
        if (elf_section(e, i, &s) != 0 || s.type != sh_type)
            continue;
        if (s.entsize != sizeof(Elf64_Sym) || !inside(e, s.offset, s.size) ||
            s.link >= e->shnum || elf_section(e, (unsigned)s.link, &str) != 0 ||
            str.type != SHT_STRTAB || !inside(e, str.offset, str.size))
            return -1;
        t->e = e;
        t->offset = s.offset;
        t->count = s.size / sizeof(Elf64_Sym);
        t->stroff = str.offset;
        t->strsize = str.size;
        return 0;
    }
    return -1;
}

int elf_symtab_get(const elf_symtab *t, uint64_t i, elf_sym *out)
{
    if (i >= t->count)
        return -1;
    const unsigned char *p = t->e->data + t->offset + i * sizeof(Elf64_Sym);
    const char *name = table_string(t->e, t->stroff, t->strsize,
                                    rd32(p + offsetof(Elf64_Sym, st_name)));
    if (name == NULL)
        return -1;
    out->name = name;
    out->info = p[offsetof(Elf64_Sym, st_info)];
    out->shndx = rd16(p + offsetof(Elf64_Sym, st_shndx));
    out->value = rd64(p + offsetof(Elf64_Sym, st_value));
    out->size = rd64(p + offsetof(Elf64_Sym, st_size));
    return 0;
}

/* The build id among the notes of [off, off + size), or 0. */
static size_t build_id_in(const elf_file *e, uint64_t off, uint64_t size,
                          unsigned char *out, size_t cap)
{
    if (off > e->size)
        return 0;
    uint64_t end = size > e->size - off ? e->size : off + size;
    uint64_t pos = off;
    elf_note n;
    while (elf_note_next(e, &pos, end, &n) == 1) {
        if (n.type == NT_GNU_BUILD_ID && n.namesz == 3 &&
            memcmp(n.name, "GNU", 3) == 0 && n.descsz > 0) {
            size_t len = n.descsz < cap ? n.descsz : cap;
            memcpy(out, n.desc, len);
            return len;
        }
    }
    return 0;
}

size_t elf_build_id(const elf_file *e, unsigned char *out, size_t cap)
{
    elf_seg s;
    for (unsigned i = 0; i < e->phnum && elf_segment(e, i, &s) == 0; i++) {
        size_t n = s.type == PT_NOTE
                       ? build_id_in(e, s.offset, s.filesz, out, cap)
                       : 0;
        if (n > 0)
            return n;
    }
    elf_sec c;
    for (unsigned i = 1; i < e->shnum && elf_section(e, i, &c) == 0; i++) {
        size_t n = c.type == SHT_NOTE
                       ? build_id_in(e, c.offset, c.size, out, cap)
                       : 0;
        if (n > 0)
            return n;
    }
    return 0;
}

const char *elf_debuglink(const elf_file *e)
{
    elf_sec c;
    for (unsigned i = 1; i < e->shnum && elf_section(e, i, &c) == 0; i++) {
        if (c.type != SHT_PROGBITS ||
            strcmp(elf_section_name(e, &c), ".gnu_debuglink") != 0)
            continue;
        return table_string(e, c.offset, c.size, 0);
    }
    return NULL;
}
