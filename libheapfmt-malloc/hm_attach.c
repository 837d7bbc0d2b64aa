/* hm_attach.c -- the tracker in a process that was not started with it
 * (heapfmt-malloc -p).
 *
 * Preloaded, the tracker stands in for malloc by name: every module binds
 * to it. Loaded into a running process, it comes too late for that: each
 * module already calls the allocator through its own GOT entries (the
 * address slots its PLT jumps through, and those of code that takes
 * &malloc). So the tracker rewrites them: for every loaded module but its
 * own and the loader's, the JUMP_SLOT and GLOB_DAT relocations of malloc,
 * calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc,
 * memalign, valloc and pvalloc get the hooks' addresses; dlopen's gets a
 * wrapper that patches the modules it loads; and libruby's call to
 * ruby_vm_destruct gets the hook that ends Ruby attribution. libc's own
 * entries are patched too: glibc calls its malloc through them (strdup,
 * fopen), as it must for a preloaded allocator. This is heaptrack's way of
 * attaching, written from the ELF specification.
 *
 * Every entry changed is remembered with the value it held, so that
 * detaching puts each back (in modules still loaded). An entry in a
 * RELRO segment is read-only after start: its page is made writable for
 * the store and read-only again. A store of an aligned pointer is atomic:
 * another thread calls through the old value or the new one, and a free
 * of a block the tracker never saw is passed on untouched.
 *
 * Not reached: function pointers a program saved before the attach
 * (&malloc kept in a variable), and allocations the loader makes for
 * itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heapfmt_malloc.h"
#include "hm.h"

static void *hm_hook_dlopen(const char *file, int mode);

static const struct {
    const char *name;
    void *hook;
} hooks[] = {
    {"malloc", (void *)hm_hook_malloc},
    {"calloc", (void *)hm_hook_calloc},
    {"realloc", (void *)hm_hook_realloc},
    {"reallocarray", (void *)hm_hook_reallocarray},
    {"free", (void *)hm_hook_free},
    {"posix_memalign", (void *)hm_hook_posix_memalign},
    {"aligned_alloc", (void *)hm_hook_aligned_alloc},
    {"memalign", (void *)hm_hook_memalign},
    {"valloc", (void *)hm_hook_valloc},
    {"pvalloc", (void *)hm_hook_pvalloc},
    {"dlopen", (void *)hm_hook_dlopen},
    {"ruby_vm_destruct", (void *)hm_hook_ruby_vm_destruct},
};
#define NHOOKS (sizeof hooks / sizeof hooks[0])

typedef struct patch {
    uintptr_t *slot;
    uintptr_t orig;
    uintptr_t module; /* the module's load address */
    int relro;        /* the slot's page is read-only outside the store */
} patch;

#define MAX_PATCHES (1u << 16) /* 1.5 MiB of records at most */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static patch *patches;
static size_t npatches;
static void *(*real_dlopen)(const char *, int);
static uintptr_t self_base;
static long page;

static void *hm_hook_dlopen(const char *file, int mode) {
    void *(*f)(const char *, int) = __atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE);
    if (f == NULL) /* cannot happen: set before the entry is patched */
        f = (void *(*)(const char *, int))dlsym(RTLD_DEFAULT, "dlopen");
    void *h = f(file, mode);
    if (h != NULL && heapfmt_malloc_tracking())
        hm_attach_patch_all(); /* the new modules; the others are done */
    return h;
}

static void store(uintptr_t *slot, uintptr_t v, int relro) {
    uintptr_t pg = (uintptr_t)slot & ~(uintptr_t)(page - 1);
    if (relro)
        mprotect((void *)pg, (size_t)page, PROT_READ | PROT_WRITE);
    __atomic_store_n(slot, v, __ATOMIC_RELEASE);
    if (relro)
        mprotect((void *)pg, (size_t)page, PROT_READ);
}

/* A dynamic entry's address: most loaders relocate .dynamic in place,
 * some leave the file's values. */
static uintptr_t dyn_addr(uintptr_t base, uintptr_t v) {
    return v < base ? v + base : v;
}

typedef struct scan {
    long patched;
    int full;
} scan;

static int hook_of(const char *name) {
    for (size_t i = 0; i < NHOOKS; i++)
        if (strcmp(name, hooks[i].name) == 0)
            return (int)i;
    return -1;
}

static void patch_relocs(struct dl_phdr_info *info, const ElfW(Rela) *r,
                         size_t n, const ElfW(Sym) *symtab, const char *strtab,
                         size_t strsz, uintptr_t relro_lo, uintptr_t relro_hi,
                         scan *sc) {
    uintptr_t base = info->dlpi_addr;
    for (size_t i = 0; i < n && !sc->full; i++) {
        unsigned type = (unsigned)ELF64_R_TYPE(r[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
            continue;
        size_t sym = ELF64_R_SYM(r[i].r_info);
        if (sym == 0 || symtab[sym].st_name >= strsz)
            continue;
        int h = hook_of(strtab + symtab[sym].st_name);
        if (h < 0)
            continue;
        uintptr_t *slot = (uintptr_t *)(base + r[i].r_offset);
        uintptr_t now = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (now == (uintptr_t)hooks[h].hook)
            continue; /* done before */
        if (npatches == MAX_PATCHES) {
            sc->full = 1;
            return;
        }
        if (strcmp(hooks[h].name, "dlopen") == 0 && real_dlopen == NULL)
            __atomic_store_n(&real_dlopen, (void *(*)(const char *, int))now,
                             __ATOMIC_RELEASE);
        int relro = (uintptr_t)slot >= relro_lo && (uintptr_t)slot < relro_hi;
        patches[npatches++] = (patch){slot, now, base, relro};
        store(slot, (uintptr_t)hooks[h].hook, relro);
        sc->patched++;
    }
}

static int patch_module(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    scan *sc = arg;
    uintptr_t base = info->dlpi_addr;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (base == self_base || strstr(name, "/ld-linux") != NULL ||
        strncmp(name, "ld-linux", 8) == 0)
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_lo = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + p->p_vaddr);
        if (p->p_type == PT_GNU_RELRO) {
            relro_lo = (base + p->p_vaddr) & ~(uintptr_t)(page - 1);
            relro_hi = base + p->p_vaddr + p->p_memsz;
        }
    }
    if (dyn == NULL)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    size_t strsz = 0, relasz = 0, pltsz = 0;
    const ElfW(Rela) *rela = NULL, *jmprel = NULL;
    int pltrela = 1;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_addr(base, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_addr(base, d->d_un.d_ptr); break;
        case DT_STRSZ: strsz = d->d_un.d_val; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_addr(base, d->d_un.d_ptr); break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_addr(base, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrela = d->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL)
        return 0;
    if (rela != NULL)
        patch_relocs(info, rela, relasz / sizeof *rela, symtab, strtab, strsz,
                     relro_lo, relro_hi, sc);
    if (jmprel != NULL && pltrela)
        patch_relocs(info, jmprel, pltsz / sizeof *jmprel, symtab, strtab,
                     strsz, relro_lo, relro_hi, sc);
    return 0;
}

long hm_attach_patch_all(void) {
    pthread_mutex_lock(&lock);
    if (patches == NULL) {
        page = sysconf(_SC_PAGESIZE);
        Dl_info di;
        if (dladdr((void *)hm_attach_patch_all, &di) != 0)
            self_base = (uintptr_t)di.dli_fbase;
        patches = hm_map(MAX_PATCHES * sizeof *patches);
        if (patches == NULL) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
    }
    scan sc = {0, 0};
    dl_iterate_phdr(patch_module, &sc);
    pthread_mutex_unlock(&lock);
    if (sc.full)
        hm_log("more than %u entries to patch: the rest call the allocator directly",
               MAX_PATCHES);
    return sc.patched;
}

/* The load addresses of the modules loaded now. */
typedef struct loaded {
    uintptr_t base[4096];
    size_t n;
} loaded;

static int note_module(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    loaded *l = arg;
    if (l->n < sizeof l->base / sizeof l->base[0])
        l->base[l->n++] = info->dlpi_addr;
    return 0;
}

void hm_attach_unpatch_all(void) {
    static loaded now; /* under the lock */
    pthread_mutex_lock(&lock);
    now.n = 0;
    dl_iterate_phdr(note_module, &now);
    while (npatches > 0) {
        const patch *p = &patches[--npatches];
        int still = 0;
        for (size_t i = 0; i < now.n && !still; i++)
            still = now.base[i] == p->module;
        /* a module dlclose'd since is gone, and its entries with it */
        if (still)
            store(p->slot, p->orig, p->relro);
    }
    pthread_mutex_unlock(&lock);
}
