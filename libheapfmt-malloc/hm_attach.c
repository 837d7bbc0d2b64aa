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
 * A module is patched (and put back) only while the tracker holds a
 * reference to it taken with dlopen(RTLD_NOLOAD), which waits for the
 * loader's lock: a module that another thread is loading is complete by
 * then (relocated, its RELRO read-only), and none is unloaded under the
 * tracker's stores. An entry is replaced by compare-and-swap and put
 * back only if it still holds the hook.
 *
 * dlopen resolves a bare name with its caller's DT_RPATH/DT_RUNPATH,
 * expands $ORIGIN against the caller and opens in its namespace: the
 * caller is its return address. The hook keeps it: a call that depends
 * on it jumps to dlopen with the return address untouched (the module it
 * loads is patched at the next dlopen or dump), any other is called and
 * the new modules patched at once.
 *
 * Not reached: function pointers a program saved before the attach
 * (&malloc kept in a variable), allocations the loader makes for itself,
 * and modules of namespaces other than the first (dlmopen). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heapfmt_malloc.h"
#include "hm.h"

/* The entry the GOT's dlopen points at (see hm_dlopen_route). */
__attribute__((visibility("hidden"))) void hm_hook_dlopen(void);

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
    uintptr_t hook;
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

static atomic_int pending; /* a module loaded by a caller-bound dlopen */
static long patch_all(int wait);

/* The C half of the hook: dlopen from here, then the new modules. */
static void *dlopen_tracked(const char *file, int mode) {
    void *(*f)(const char *, int) = __atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE);
    void *h = f(file, mode);
    if (h != NULL && heapfmt_malloc_tracking())
        patch_all(0); /* the new modules; the others are done */
    return h;
}

/* Whether dlopen(file) could open something else called from the
 * tracker than from caller. A caller the loader cannot place counts. */
static int caller_bound(const char *file, const void *caller) {
    if (file == NULL)
        return 0;
    if (strchr(file, '$') != NULL)
        return 1;
    Dl_info di;
    struct link_map *lm = NULL;
    if (dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) == 0 || lm == NULL)
        return 1;
    Lmid_t ns;
    if (dlinfo(lm, RTLD_DI_LMID, &ns) != 0 || ns != LM_ID_BASE)
        return 1;
    if (strchr(file, '/') != NULL)
        return 0;
    /* a bare name: the caller's search path, and the program's DT_RPATH
     * that a caller without DT_RUNPATH inherits */
    for (int k = 0; k < 2; k++, lm = NULL) {
        if (k == 1) {
            lm = (struct link_map *)dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
            if (lm == NULL)
                return 1;
            dlclose(lm);
        }
        for (const ElfW(Dyn) *d = lm->l_ld; d != NULL && d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_RPATH || d->d_tag == DT_RUNPATH)
                return 1;
    }
    return 0;
}

/* Called by hm_hook_dlopen with dlopen's arguments and its caller's
 * return address: where to jump with them. */
__attribute__((visibility("hidden"), used)) void *
hm_dlopen_route(const char *file, int mode, const void *caller) {
    (void)mode;
    int was_busy = hm_busy;
    hm_busy = 1;
    void *to = (void *)dlopen_tracked;
    if (heapfmt_malloc_tracking() && atomic_exchange(&pending, 0))
        patch_all(0);
#if defined(__x86_64__)
    if (caller_bound(file, caller)) {
        if (heapfmt_malloc_tracking())
            atomic_store(&pending, 1);
        to = (void *)__atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE);
    }
#else
    (void)file;
    (void)caller;
#endif
    hm_busy = was_busy;
    return to;
}

void hm_attach_patch_pending(void) {
    if (heapfmt_malloc_tracking() && atomic_exchange(&pending, 0))
        patch_all(0);
}

#if defined(__x86_64__)
/* dlopen's two arguments stay in rdi and rsi, its caller's return address
 * on the stack: hm_dlopen_route chooses, and the jump leaves dlopen the
 * frame its caller made. */
__asm__(".text\n"
        ".p2align 4\n"
        ".type hm_hook_dlopen, @function\n"
        "hm_hook_dlopen:\n"
        "    endbr64\n"
        "    push %rdi\n"
        "    push %rsi\n"
        "    sub $8, %rsp\n"
        "    mov 24(%rsp), %rdx\n"
        "    call hm_dlopen_route\n"
        "    add $8, %rsp\n"
        "    pop %rsi\n"
        "    pop %rdi\n"
        "    jmp *%rax\n"
        ".size hm_hook_dlopen, .-hm_hook_dlopen\n");
#else
void hm_hook_dlopen(void) __attribute__((alias("dlopen_tracked")));
#endif

/* Sets *slot from old to v (a RELRO page made writable for the store):
 * 0 if it held something else, which stays. */
static int swap(uintptr_t *slot, uintptr_t old, uintptr_t v, int relro) {
    uintptr_t pg = (uintptr_t)slot & ~(uintptr_t)(page - 1);
    if (relro)
        mprotect((void *)pg, (size_t)page, PROT_READ | PROT_WRITE);
    int done = __atomic_compare_exchange_n(slot, &old, v, 0, __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE);
    if (relro)
        mprotect((void *)pg, (size_t)page, PROT_READ);
    return done;
}

/* A dynamic entry's address: most loaders relocate .dynamic in place,
 * some leave the file's values. */
static uintptr_t dyn_addr(uintptr_t base, uintptr_t v) {
    return v < base ? v + base : v;
}

/* A loaded module, as dl_iterate_phdr showed it. */
typedef struct module {
    uintptr_t base;
    const ElfW(Phdr) *phdr;
    int phnum;
    unsigned name; /* offset in names; 0: the program ("") */
} module;

#define MAX_MODULES 4096
#define NAMES_BYTES (256u << 10)

/* Under the lock. */
static module mods[MAX_MODULES];
static size_t nmods;
static char names[NAMES_BYTES];
static size_t names_used;

static int note_module(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    (void)arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    size_t len = strlen(name);
    if (info->dlpi_addr == self_base || strstr(name, "/ld-linux") != NULL ||
        strncmp(name, "ld-linux", 8) == 0 || nmods == MAX_MODULES ||
        (len > 0 && len + 1 > NAMES_BYTES - names_used))
        return 0;
    module *m = &mods[nmods++];
    *m = (module){info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, 0};
    if (len > 0) {
        m->name = (unsigned)names_used;
        memcpy(names + names_used, name, len + 1);
        names_used += len + 1;
    }
    return 0;
}

/* Calls fn for every module loaded now, each held by a reference that
 * waits for the loader's lock (see the top of the file). */
static void each_module(void (*fn)(const module *, void *), void *arg) {
    nmods = 0;
    names_used = 1; /* offset 0 is the program */
    names[0] = '\0';
    dl_iterate_phdr(note_module, NULL);
    for (size_t i = 0; i < nmods; i++) {
        const module *m = &mods[i];
        if (m->name == 0) { /* the program: always whole, never unloaded */
            fn(m, arg);
            continue;
        }
        void *h = dlopen(names + m->name, RTLD_LAZY | RTLD_NOLOAD);
        if (h == NULL) /* unloaded since, or another namespace's */
            continue;
        struct link_map *lm = NULL;
        if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_addr == m->base)
            fn(m, arg);
        dlclose(h);
    }
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

static void patch_relocs(uintptr_t base, const ElfW(Rela) *r, size_t n,
                         const ElfW(Sym) *symtab, const char *strtab,
                         size_t strsz, uintptr_t relro_lo, uintptr_t relro_hi,
                         scan *sc) {
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
        uintptr_t hook = (uintptr_t)hooks[h].hook;
        if (now == hook)
            continue; /* done before */
        if (npatches == MAX_PATCHES) {
            sc->full = 1;
            return;
        }
        if (strcmp(hooks[h].name, "dlopen") == 0 && real_dlopen == NULL)
            __atomic_store_n(&real_dlopen, (void *(*)(const char *, int))now,
                             __ATOMIC_RELEASE);
        int relro = (uintptr_t)slot >= relro_lo && (uintptr_t)slot < relro_hi;
        if (!swap(slot, now, hook, relro))
            continue; /* the loader changed it meanwhile: the next scan */
        patches[npatches++] = (patch){slot, now, hook, base, relro};
        sc->patched++;
    }
}

static void relro_of(const module *m, uintptr_t *lo, uintptr_t *hi) {
    *lo = *hi = 0;
    for (int i = 0; i < m->phnum; i++) {
        const ElfW(Phdr) *p = &m->phdr[i];
        if (p->p_type == PT_GNU_RELRO) {
            *lo = (m->base + p->p_vaddr) & ~(uintptr_t)(page - 1);
            *hi = m->base + p->p_vaddr + p->p_memsz;
        }
    }
}

static void patch_module(const module *m, void *arg) {
    scan *sc = arg;
    uintptr_t base = m->base;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < m->phnum; i++)
        if (m->phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + m->phdr[i].p_vaddr);
    if (dyn == NULL)
        return;
    uintptr_t relro_lo, relro_hi;
    relro_of(m, &relro_lo, &relro_hi);
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
        return;
    if (rela != NULL)
        patch_relocs(base, rela, relasz / sizeof *rela, symtab, strtab, strsz,
                     relro_lo, relro_hi, sc);
    if (jmprel != NULL && pltrela)
        patch_relocs(base, jmprel, pltsz / sizeof *jmprel, symtab, strtab,
                     strsz, relro_lo, relro_hi, sc);
}

/* The lock is taken, or, when wait is 0 and another thread holds it (a
 * dlopen from a constructor while that thread waits for the loader's
 * lock), the scan is left to the next occasion. */
static long patch_all(int wait) {
    if (wait)
        pthread_mutex_lock(&lock);
    else if (pthread_mutex_trylock(&lock) != 0) {
        atomic_store(&pending, 1);
        return 0;
    }
    int was_busy = hm_busy;
    hm_busy = 1; /* the loader's allocations are not the program's */
    if (patches == NULL) {
        page = sysconf(_SC_PAGESIZE);
        Dl_info di;
        if (dladdr((void *)hm_attach_patch_all, &di) != 0)
            self_base = (uintptr_t)di.dli_fbase;
        patches = hm_map(MAX_PATCHES * sizeof *patches);
        if (patches == NULL) {
            hm_busy = was_busy;
            pthread_mutex_unlock(&lock);
            return -1;
        }
    }
    scan sc = {0, 0};
    each_module(patch_module, &sc);
    hm_busy = was_busy;
    pthread_mutex_unlock(&lock);
    if (sc.full)
        hm_log("more than %u entries to patch: the rest call the allocator directly",
               MAX_PATCHES);
    return sc.patched;
}

long hm_attach_patch_all(void) {
    return patch_all(1);
}

static void unpatch_module(const module *m, void *arg) {
    (void)arg;
    for (size_t i = npatches; i-- > 0;) {
        patch *p = &patches[i];
        /* only an entry that still holds the hook: one the loader set
         * again since is the loader's */
        if (p->module == m->base && p->slot != NULL) {
            swap(p->slot, p->hook, p->orig, p->relro);
            p->slot = NULL;
        }
    }
}

void hm_attach_unpatch_all(void) {
    pthread_mutex_lock(&lock);
    int was_busy = hm_busy;
    hm_busy = 1;
    if (patches != NULL)
        each_module(unpatch_module, NULL);
    npatches = 0; /* a module dlclose'd since is gone, its entries with it */
    atomic_store(&pending, 0);
    hm_busy = was_busy;
    pthread_mutex_unlock(&lock);
}
