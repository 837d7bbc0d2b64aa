/* cli_elf.h -- reading symbols out of a 64-bit ELF file (an executable or
 * a shared library another process has mapped).
 *
 * The tools that attach to a live process (heapfmt-ruby, heapfmt-malloc
 * -p) find the functions they call there by name: the file is mapped
 * read-only, its dynamic symbol table (then its full one, when not
 * stripped) searched, and the address in the process is the symbol's
 * value plus the load bias that /proc/PID/maps gives (cli_proc.h). Every
 * offset and size the file claims is checked against the file: a damaged
 * or hostile file is an error, never a read out of bounds. */
#ifndef CLI_ELF_H
#define CLI_ELF_H

#include <stddef.h>
#include <stdint.h>

typedef struct cli_elf cli_elf;

/* Opens path; on failure returns -1 with a reason in err (errno kept for
 * system errors, EINVAL for a file that is not a 64-bit ELF file of this
 * machine's byte order). */
int cli_elf_open(cli_elf **out, const char *path, char *err, size_t errlen);
void cli_elf_close(cli_elf *e);

/* The header's e_machine (EM_X86_64...) and e_type (ET_EXEC, ET_DYN). */
unsigned cli_elf_machine(const cli_elf *e);
unsigned cli_elf_type(const cli_elf *e);

/* The value (an address before relocation) and size of the defined
 * symbol name, from .dynsym, else .symtab. Returns 0, or -1 when the file
 * defines no such symbol. */
int cli_elf_symbol(const cli_elf *e, const char *name, uint64_t *value,
                   uint64_t *size);

/* The difference between the address the segment holding file offset 0
 * is mapped at and its p_vaddr: add it to a symbol's value. map_start is
 * the start of the mapping of file offset 0 (from /proc/PID/maps).
 * Returns 0, or -1 when no loadable segment starts at offset 0. */
int cli_elf_bias(const cli_elf *e, uint64_t map_start, uint64_t *bias);

/* Copies len bytes found at address vaddr of the file's loaded image
 * (a constant's contents, read without loading the file). Returns 0, or
 * -1 when they are not all inside one segment's file bytes. */
int cli_elf_read(const cli_elf *e, uint64_t vaddr, void *buf, size_t len);

/* The i-th DT_NEEDED entry (a library the file depends on), or NULL past
 * the last one. */
const char *cli_elf_needed(const cli_elf *e, size_t i);

/* The file's DT_SONAME (the name it is loaded by), or NULL. */
const char *cli_elf_soname(const cli_elf *e);

#endif /* CLI_ELF_H */
