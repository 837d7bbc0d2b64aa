/* elfread.h -- a small, bounded reader of ELF64 little-endian files: a core's
 * program headers and notes, a shared object's segments, sections, symbol
 * tables and build id.
 *
 * It reads bytes already in memory (a mapped core, a file read whole) and
 * trusts nothing in them: every offset, size and count is checked against
 * the bytes present before use, so a truncated or hostile file gives an
 * error or fewer records, never a read out of bounds. One reader serves
 * the core and the modules so that one fuzz harness covers both
 * (fuzz/fuzz_core.c). */
#ifndef CORE_ELF_H
#define CORE_ELF_H

#include <stddef.h>
#include <stdint.h>

typedef struct elf_file {
    const unsigned char *data;
    size_t size;
    uint16_t type;      /* ET_CORE, ET_DYN, ET_EXEC */
    uint16_t machine;   /* EM_X86_64 */
    uint64_t phoff, shoff;
    uint16_t phnum, shnum, shstrndx;
} elf_file;

/* A program header. */
typedef struct elf_seg {
    uint32_t type, flags;
    uint64_t offset, vaddr, filesz, memsz, align;
} elf_seg;

/* A section header. */
typedef struct elf_sec {
    uint32_t name, type;
    uint64_t flags, addr, offset, size, link, entsize;
} elf_sec;

/* One note: its name (without the NUL), type and descriptor. */
typedef struct elf_note {
    const char *name;
    size_t namesz;
    uint32_t type;
    const unsigned char *desc;
    size_t descsz;
} elf_note;

/* A symbol as the table gives it. */
typedef struct elf_sym {
    const char *name; /* NUL-terminated inside the file, never NULL */
    uint64_t value, size;
    unsigned char info;
    uint16_t shndx;
} elf_sym;

/* Checks the identification and header of size bytes at data. Returns 0,
 * or -1 with a one-line reason in err ("not an ELF file", "a 32-bit ELF
 * file", "an ELF file for aarch64 (machine 183)"...). Any ELF64
 * little-endian machine opens; callers that need x86-64 check machine
 * (elf_machine_name names it). */
int elf_open(elf_file *e, const void *data, size_t size, char *err,
             size_t errlen);

/* "x86-64", "aarch64"... or NULL when unknown. */
const char *elf_machine_name(uint16_t machine);

/* Program header i (< phnum). Returns 0, or -1 when it lies outside the
 * file (then phnum headers cannot all be read: a truncated file). */
int elf_segment(const elf_file *e, unsigned i, elf_seg *out);

/* Section header i (< shnum); as elf_segment. */
int elf_section(const elf_file *e, unsigned i, elf_sec *out);

/* The NUL-terminated name of section s, "" when it cannot be read. */
const char *elf_section_name(const elf_file *e, const elf_sec *s);

/* Iterates the notes in [*pos, end) of the file: returns 1 and one note,
 * advancing *pos; 0 at the end; -1 for a note that runs past end. */
int elf_note_next(const elf_file *e, uint64_t *pos, uint64_t end,
                  elf_note *out);

/* The symbol table in section index symtab (SHT_SYMTAB or SHT_DYNSYM) and
 * its string table: count and one symbol. */
typedef struct elf_symtab {
    const elf_file *e;
    uint64_t offset, count;
    uint64_t stroff, strsize;
} elf_symtab;

/* Opens the first section of type sh_type (SHT_SYMTAB, SHT_DYNSYM).
 * Returns 0, or -1 when there is none or it is not readable. */
int elf_symtab_open(const elf_file *e, uint32_t sh_type, elf_symtab *t);
/* Symbol i (< count). Returns 0, or -1 when its name is not readable. */
int elf_symtab_get(const elf_symtab *t, uint64_t i, elf_sym *out);

/* The GNU build id from the PT_NOTE segments (or, failing that, the
 * SHT_NOTE sections): copies up to cap bytes and returns its length, or 0
 * when the file has none. */
size_t elf_build_id(const elf_file *e, unsigned char *out, size_t cap);

/* The name of the debug link (.gnu_debuglink), or NULL. */
const char *elf_debuglink(const elf_file *e);

#endif /* CORE_ELF_H */
