/*
 * test_cli_elf.c -- the ELF reader the attaching tools use (cli_elf.h):
 * symbols, bias and constants of real files agree with what the dynamic
 * loader says about them in this process, and damaged copies (cut at
 * every length of the headers, bytes of the headers and tables changed)
 * give errors or answers but never a read out of the file (ASan checks
 * the latter under make asan).
 */
#define _GNU_SOURCE 1
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_elf.h"

/* The file libc's malloc comes from, opened, and where it is loaded. */
static cli_elf *open_libc(uint64_t *bias)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "getpid");
    cr_assert(sym && dladdr(sym, &info));
    char err[256];
    cli_elf *e;
    cr_assert_eq(cli_elf_open(&e, info.dli_fname, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_elf_bias(e, (uint64_t)(uintptr_t)info.dli_fbase, bias), 0);
    return e;
}

Test(cli_elf, symbols_match_the_loader)
{
    uint64_t bias;
    cli_elf *e = open_libc(&bias);
    void *libc = dlopen(cli_elf_soname(e), RTLD_NOW | RTLD_NOLOAD);
    cr_assert(libc != NULL);
    cr_assert_eq(cli_elf_machine(e), EM_X86_64);
    cr_assert_eq(cli_elf_type(e), ET_DYN);
    const char *names[] = {"getpid", "mmap", "munmap", "strlen"};
    for (size_t i = 0; i < 4; i++) {
        uint64_t v;
        cr_assert_eq(cli_elf_symbol(e, names[i], &v, NULL), 0, "%s", names[i]);
        /* dlsym may give an IFUNC's resolved target: compare only plain
         * functions by address, the rest by presence; asked of libc's
         * own handle, not RTLD_DEFAULT (ASan's mmap comes first there) */
        if (i < 3)
            cr_assert_eq(v + bias, (uint64_t)(uintptr_t)dlsym(libc, names[i]),
                         "%s", names[i]);
    }
    uint64_t v;
    cr_assert_eq(cli_elf_symbol(e, "no_such_symbol_here", &v, NULL), -1);
    const char *so = cli_elf_soname(e);
    cr_assert(so && strncmp(so, "libc.so", 7) == 0, "soname %s", so ? so : "(none)");
    dlclose(libc);
    cli_elf_close(e);
}

Test(cli_elf, constants_and_needed)
{
    /* gnu_get_libc_version's string lives in libc's rodata: read through
     * the file, it is what the function returns. */
    uint64_t bias, v, size;
    cli_elf *e = open_libc(&bias);
    cr_assert_eq(cli_elf_symbol(e, "__libc_single_threaded", &v, &size), 0);
    char byte;
    cr_assert_eq(cli_elf_read(e, v, &byte, 1), -1, "a .bss object has no file bytes");
    cr_assert_eq(cli_elf_symbol(e, "_nl_default_dirname", &v, &size), 0);
    char text[64] = "";
    cr_assert(size > 0 && size < sizeof text);
    cr_assert_eq(cli_elf_read(e, v, text, (size_t)size), 0);
    cr_assert_str_eq(text, (const char *)(uintptr_t)(v + bias));
    cli_elf_close(e);

    /* this test program needs libcriterion */
    char err[256];
    cr_assert_eq(cli_elf_open(&e, "/proc/self/exe", err, sizeof err), 0, "%s", err);
    int found = 0;
    for (size_t i = 0; cli_elf_needed(e, i) != NULL; i++)
        found |= strncmp(cli_elf_needed(e, i), "libcriterion", 12) == 0;
    cr_assert(found);
    cli_elf_close(e);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n);
    cr_assert(p && fread(p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void spill(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Everything the reader offers, on a file that may be damaged: results
 * do not matter, staying inside the file does. */
static void exercise(const char *path)
{
    cli_elf *e;
    char err[256];
    if (cli_elf_open(&e, path, err, sizeof err) != 0) {
        cr_assert(err[0] != '\0');
        return;
    }
    uint64_t v, size, bias;
    char buf[64];
    if (cli_elf_symbol(e, "getpid", &v, &size) == 0)
        cli_elf_read(e, v, buf, sizeof buf);
    cli_elf_symbol(e, "zzz_absent", &v, &size);
    cli_elf_bias(e, 0x7f0000000000ull, &bias);
    cli_elf_read(e, UINT64_MAX - 8, buf, sizeof buf);
    for (size_t i = 0; i < 64 && cli_elf_needed(e, i) != NULL; i++)
        (void)strlen(cli_elf_needed(e, i));
    if (cli_elf_soname(e))
        (void)strlen(cli_elf_soname(e));
    cli_elf_close(e);
}

/* A small shared library of this system (libdl.so.2: since glibc 2.34 a
 * stub of a few KiB), so that thousands of damaged copies stay cheap. */
static void small_file(char *path, size_t len)
{
    void *h = dlopen("libdl.so.2", RTLD_NOW);
    cr_assert(h, "%s", dlerror());
    struct link_map *lm = NULL;
    cr_assert_eq(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
    snprintf(path, len, "%s", lm->l_name);
}

Test(cli_elf, damaged_copies)
{
    char path[4096];
    small_file(path, sizeof path);
    size_t len;
    char *data = slurp(path, &len);
    /* in memory when the system has a tmpfs there: thousands of copies */
    char tmp[] = "/dev/shm/test_cli_elf.XXXXXX", tmp2[] = "/tmp/test_cli_elf.XXXXXX";
    char *t = tmp;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        t = tmp2;
        fd = mkstemp(tmp2);
    }
    cr_assert(fd >= 0);
    close(fd);
    /* cut within the ELF header and program headers, then coarser */
    for (size_t cut = 0; cut < len; cut += cut < 1024 ? 1 : 37) {
        spill(t, data, cut);
        exercise(t);
    }
    /* the header's fields, each byte set to extremes */
    const Elf64_Ehdr *h = (const Elf64_Ehdr *)data;
    for (size_t i = 0; i < sizeof *h; i++) {
        static const unsigned char vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
        for (size_t k = 0; k < sizeof vals; k++) {
            char *copy = malloc(len);
            memcpy(copy, data, len);
            copy[i] = (char)vals[k];
            spill(t, copy, len);
            exercise(t);
            free(copy);
        }
    }
    /* the section headers and the dynamic symbol table, bytes changed at
     * random (seeded: the same run each time) */
    srand(34);
    for (int round = 0; round < 300; round++) {
        char *copy = malloc(len);
        memcpy(copy, data, len);
        for (int j = 0; j < 8; j++) {
            size_t at = h->e_shoff + (size_t)rand() % ((size_t)h->e_shnum * sizeof(Elf64_Shdr));
            if (round % 2 == 0 && h->e_phoff < len)
                at = h->e_phoff + (size_t)rand() % ((size_t)h->e_phnum * sizeof(Elf64_Phdr));
            if (at < len)
                copy[at] = (char)rand();
        }
        spill(t, copy, len);
        exercise(t);
        free(copy);
    }
    unlink(t);
    free(data);
}

Test(cli_elf, not_elf)
{
    char tmp[] = "/tmp/test_cli_elf.XXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "#!/bin/sh\necho hello, this is not an ELF file at all\n", 53), 53);
    close(fd);
    cli_elf *e;
    char err[256];
    cr_assert_eq(cli_elf_open(&e, tmp, err, sizeof err), -1);
    cr_assert_str_eq(err, "not an ELF file");
    cr_assert_eq(cli_elf_open(&e, "/nonexistent/file", err, sizeof err), -1);
    cr_assert_eq(cli_elf_open(&e, "/tmp", err, sizeof err), -1);
    unlink(tmp);
}
