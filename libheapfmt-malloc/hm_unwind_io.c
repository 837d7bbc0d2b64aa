/* hm_unwind_io.c -- libunwind's memory checks, without a descriptor.
 *
 * When libunwind meets a frame without unwind information (JIT code,
 * assembly without CFI) it guesses the next frame from the frame pointer,
 * and checks each address it reads by writing one byte of it into a pipe
 * of its own (write(2) fails with EFAULT on memory that is not readable),
 * after reading the pipe empty. That pipe is made once, in the thread that
 * first unwinds: a program's thread, in the program's descriptor table.
 * A daemon that closes every descriptor then reuses the numbers turns
 * those reads and writes into reads of the program's data and writes into
 * the program's files, and libunwind's repair (close both numbers, make a
 * new pipe) closes the program's descriptors.
 *
 * So the tracker answers those calls itself. At start it points
 * libunwind's own imports of pipe, pipe2, read and syscall (its PLT
 * slots; nothing else in the process changes) at functions here: the
 * "pipe" is two numbers that name no descriptor, reading it finds it
 * empty, and "writing" a byte of an address to it checks the address with
 * process_vm_readv on this process (no descriptor; allowed on oneself
 * whatever ptrace policy says). Every other call goes to the C library
 * unchanged. Heaptrack's runtime injection rewrites PLT slots the same
 * way. If the slots cannot be found or written, libunwind keeps its pipe
 * and the log says so. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hm.h"

/* Numbers no descriptor can have: what libunwind gets as its pipe. */
#define FAKE_READ_END (-1000)
#define FAKE_WRITE_END (-1001)

static int unw_pipe2(int fds[2], int flags) {
    (void)flags;
    fds[0] = FAKE_READ_END;
    fds[1] = FAKE_WRITE_END;
    return 0;
}

static int unw_pipe(int fds[2]) {
    return unw_pipe2(fds, 0);
}

static ssize_t unw_read(int fd, void *buf, size_t n) {
    if (fd == FAKE_READ_END) {
        errno = EAGAIN; /* empty, as a drained non-blocking pipe */
        return -1;
    }
    return read(fd, buf, n);
}

int hm_readable(uintptr_t addr) {
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void *)addr, 1};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

static ssize_t unw_write(int fd, const void *buf, size_t n) {
    if (fd == FAKE_WRITE_END) {
        if (hm_readable((uintptr_t)buf))
            return 1;
        errno = EFAULT;
        return -1;
    }
    return write(fd, buf, n);
}

static long unw_syscall(long nr, ...) {
    va_list ap;
    va_start(ap, nr);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    /* The descriptor is passed as an int: the register's upper half is
     * not part of it. */
    if (nr == SYS_write && (int)a[0] == FAKE_WRITE_END) {
        if (hm_readable((uintptr_t)a[1]))
            return 1;
        errno = EFAULT;
        return -1;
    }
    return syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static const struct {
    const char *name;
    void *fn;
} replacements[] = {
    {"pipe2", (void *)unw_pipe2},
    {"pipe", (void *)unw_pipe},
    {"read", (void *)unw_read},
    {"write", (void *)unw_write},
    {"syscall", (void *)unw_syscall},
};
#define NREPL (sizeof replacements / sizeof replacements[0])

#if defined(__x86_64__)
#define JUMP_SLOT R_X86_64_JUMP_SLOT
#elif defined(__aarch64__)
#define JUMP_SLOT R_AARCH64_JUMP_SLOT
#endif

/* The loader relocates d_ptr in place on most targets, not all. */
static uintptr_t dyn_addr(const struct link_map *lm, ElfW(Addr) p) {
    return p < lm->l_addr ? lm->l_addr + p : p;
}

typedef struct relro {
    uintptr_t base; /* the object's load address, to match */
    uintptr_t lo, hi;
} relro;

static int find_relro(struct dl_phdr_info *info, size_t size, void *ctx) {
    (void)size;
    relro *r = ctx;
    if (info->dlpi_addr != r->base)
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            uintptr_t lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            r->lo = lo & ~(page - 1);
            r->hi = (lo + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
        }
    return 1;
}

/* The slots changed, and what they held, to put back if unwinding fails. */
static struct {
    void **slot;
    void *was;
} changed[16];
static unsigned nchanged;

static int put_slot(void **slot, void *fn, const relro *r) {
    if (*slot == fn)
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)slot & ~(page - 1);
    int ro = (uintptr_t)slot >= r->lo && (uintptr_t)slot < r->hi;
    if (ro && mprotect((void *)at, page, PROT_READ | PROT_WRITE) != 0)
        return -1;
    if (nchanged < sizeof changed / sizeof changed[0]) {
        changed[nchanged].slot = slot;
        changed[nchanged++].was = *slot;
    }
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    if (ro)
        mprotect((void *)at, page, PROT_READ);
    return 0;
}

int hm_unwind_io_init(void) {
#ifndef JUMP_SLOT
    return -1;
#else
    Dl_info di;
    struct link_map *lm = NULL;
    if (dladdr1((void *)unw_backtrace, &di, (void **)&lm, RTLD_DL_LINKMAP) == 0 ||
        lm == NULL || lm->l_ld == NULL)
        return -1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL;
    size_t pltrelsz = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL:
            if (d->d_un.d_val != DT_RELA)
                return -1;
            break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL || jmprel == NULL)
        return -1;
    relro r = {.base = lm->l_addr};
    dl_iterate_phdr(find_relro, &r);
    int found_pipe = 0, found_write = 0, failed = 0;
    for (size_t i = 0; i < pltrelsz / sizeof *jmprel; i++) {
        if (ELF64_R_TYPE(jmprel[i].r_info) != JUMP_SLOT)
            continue;
        const char *name = strtab + symtab[ELF64_R_SYM(jmprel[i].r_info)].st_name;
        for (size_t k = 0; k < NREPL; k++) {
            if (strcmp(name, replacements[k].name) != 0)
                continue;
            void **slot = (void **)(lm->l_addr + jmprel[i].r_offset);
            if (put_slot(slot, replacements[k].fn, &r) != 0)
                failed = 1;
            else if (k <= 1)
                found_pipe = 1;
            else if (k >= 3)
                found_write = 1;
        }
    }
    /* libunwind must still unwind; if not, it gets its own calls back. */
    void *probe[4];
    if (failed || !found_pipe || !found_write || unw_backtrace(probe, 4) < 1) {
        unsigned n = nchanged;
        nchanged = sizeof changed / sizeof changed[0]; /* record no more */
        for (unsigned i = 0; i < n; i++)
            put_slot(changed[i].slot, changed[i].was, &r);
        return -1;
    }
    return 0;
#endif
}
