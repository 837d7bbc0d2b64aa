/* modules.h -- the ELF files a process maps (executable, libraries): found
 * on disk (--sysroot, --search), checked against the process by build id,
 * their symbols (with a separate debug file found by build id, such as
 * Debian's libc6-dbg, unless debug files are turned off), and their
 * writable segments (.data, .bss: the static roots).
 *
 * The files also supply the bytes of read-only mappings a core leaves
 * out (gcore and the kernel skip unmodified file pages). */
#ifndef CORE_MODULES_H
#define CORE_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "elfread.h"
#include "image.h"

typedef struct msym {
    uint64_t addr, size; /* in the process (bias applied) */
    const char *name;    /* inside the mapped file */
} msym;

/* A writable range of a module in the process: .data and .bss. */
typedef struct mrange {
    uint64_t start, end;
} mrange;

typedef struct module {
    int file;              /* index of the path in the image */
    const char *path;      /* as the process mapped it */
    const char *name;      /* its base name */
    char *disk;            /* the file read, NULL when not found */
    void *data;            /* the file mapped */
    size_t size;
    elf_file elf;
    char *dbg_path;        /* the debug file read, or NULL */
    void *dbg;
    size_t dbg_size;
    elf_file dbg_elf;
    uint64_t bias;         /* load address - link address */
    uint64_t lo, hi;       /* the process range it spans */
    msym *syms;            /* data symbols, by address */
    size_t nsyms;
    mrange *rw;            /* writable PT_LOAD ranges (memsz) */
    size_t nrw;
    int mismatch;          /* build id differs from the process's */
    int is_libc;
} module;

typedef struct mod_options {
    const char *sysroot;         /* prefix of every path, or NULL */
    const char *const *search;   /* directories tried by base name */
    size_t nsearch;
    const char *debug_dir;       /* default /usr/lib/debug */
    int no_debug;                /* ignore separate debug files */
    int live_pid;                /* live: also /proc/PID/root/PATH */
    int quiet;                   /* no warnings (fuzzing) */
} mod_options;

typedef struct modules {
    module *m;
    size_t n;
    int libc;                    /* index, or -1 */
    size_t missing;              /* ELF files not found */
    size_t debug_files;          /* debug files used */
} modules;

/* Finds and reads every ELF file the image maps, fills the image's
 * read-only file mappings from them, and warns (cli_warn, as name) about
 * files not found or not matching. Returns 0, or -1 out of memory. */
int modules_load(modules *ms, image *im, const mod_options *opt,
                 const char *name);

void modules_free(modules *ms);

/* The module whose mapped range holds addr, or NULL. */
const module *modules_at(const modules *ms, uint64_t addr);

/* The data symbol of m holding addr (addr in [sym, sym + size), or equal
 * to a symbol of size 0), or NULL. */
const msym *module_sym_at(const module *m, uint64_t addr);

/* The process address of the data symbol named name in m; 0 or -1. */
int module_sym_find(const module *m, const char *name, uint64_t *addr);

/* The glibc version (2.NN as 2 * 1000 + NN: 2036) that libc's file
 * names, or 0 when unknown. */
int modules_glibc_version(const modules *ms);

#endif /* CORE_MODULES_H */
