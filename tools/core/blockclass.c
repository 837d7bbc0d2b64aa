/* blockclass.c -- class names of native blocks from C++ vtables, else size
 * classes (blockclass.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockclass.h"
#include "cli_grow.h"

/* libstdc++'s demangler (the Itanium C++ ABI's): linked with -lstdc++,
 * which every C++ program has; writing a demangler would be thousands of
 * lines for the same answer. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len,
                            int *status);

#define MAX_NAME 1024

void classes_init(classes *c, const image *im, const modules *ms)
{
    memset(c, 0, sizeof *c);
    c->im = im;
    c->ms = ms;
    hf_map_init(&c->vptr);
    hf_map_init(&c->size_class);
    hf_strtab_init(&c->names, hf_default_allocator());
}

void classes_free(classes *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->k[i].name);
    free(c->k);
    hf_map_free(&c->vptr, hf_default_allocator());
    hf_map_free(&c->size_class, hf_default_allocator());
    hf_strtab_free(&c->names);
    free(c->name_class);
    memset(c, 0, sizeof *c);
}

char *classes_demangle(const char *mangled)
{
    int status = -1;
    char *s = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Adds a class; returns its index or -1. name is taken. */
static long add(classes *c, uint64_t id, char *name)
{
    if (name == NULL)
        return -1;
    if (GROW(c->k, c->cap, c->n) != 0) {
        free(name);
        return -1;
    }
    c->k[c->n] = (klass){id, name, 0, 0};
    return (long)c->n++;
}

/* The vtable symbol holding vptr: "Foo" for "vtable for Foo". */
static char *by_symbol(const module *m, uint64_t vptr)
{
    const msym *s = module_sym_at(m, vptr);
    if (s == NULL || strncmp(s->name, "_ZTV", 4) != 0 || vptr - s->addr < 16)
        return NULL;
    char *d = classes_demangle(s->name);
    const char *pre = "vtable for ";
    if (d == NULL || strncmp(d, pre, strlen(pre)) != 0) {
        free(d);
        return NULL;
    }
    memmove(d, d + strlen(pre), strlen(d) - strlen(pre) + 1);
    return d;
}

/* RTTI: vptr[-1] is a type_info whose vtable is libstdc++'s, and whose
 * name (the mangled type) demangles. */
static char *by_rtti(classes *c, uint64_t vptr)
{
    uint64_t ti, tivptr, nameptr, top;
    if (img_u64(c->im, vptr - 8, &ti) != 0 || img_u64(c->im, vptr - 16, &top) != 0 ||
        top != 0 || img_u64(c->im, ti, &tivptr) != 0 ||
        img_u64(c->im, ti + 8, &nameptr) != 0)
        return NULL;
    const img_seg *ts = img_find(c->im, ti);
    if (ts == NULL || ts->file < 0)
        return NULL;
    /* The type_info's own class: one of __cxxabiv1's, when libstdc++'s
     * symbols are known (they are exported). */
    const module *tm = modules_at(c->ms, tivptr);
    if (tm != NULL && tm->nsyms > 0) {
        const msym *s = module_sym_at(tm, tivptr);
        if (s == NULL || strncmp(s->name, "_ZTVN10__cxxabiv1", 17) != 0)
            return NULL;
    }
    char name[MAX_NAME];
    int len = img_string(c->im, nameptr, name, sizeof name);
    if (len <= 0)
        return NULL;
    const char *n = name[0] == '*' ? name + 1 : name; /* a local type */
    for (const char *q = n; *q; q++)
        if (*q <= ' ' || *q > '~')
            return NULL;
    return classes_demangle(n);
}

/* The class of a vtable pointer, or -1 (not one), -2 out of memory. */
static long vtable_class(classes *c, uint64_t vptr)
{
    uint32_t v;
    if (hf_map_get(&c->vptr, vptr, &v))
        return (long)v - 1;
    long k = -1;
    const module *m = modules_at(c->ms, vptr);
    char *name = m != NULL ? by_symbol(m, vptr) : NULL;
    if (name == NULL && !c->no_rtti)
        name = by_rtti(c, vptr);
    if (name != NULL) {
        /* one class per name: a class may have several vtables in a
         * process (one per library that emits it) */
        uint32_t id;
        int found;
        if (hf_strtab_intern(&c->names, name, strlen(name),
                             (uint32_t)c->names.count + 1, &id, &found) != 0) {
            free(name);
            return -2;
        }
        if (found) {
            free(name);
            k = (long)c->name_class[id - 1];
        } else {
            if (GROW(c->name_class, c->capnames, id - 1) != 0) {
                free(name);
                return -2;
            }
            k = add(c, vptr, name);
            if (k < 0)
                return -2;
            c->name_class[id - 1] = (uint32_t)k;
        }
    }
    if (hf_map_put(&c->vptr, hf_default_allocator(), vptr, (uint32_t)(k + 1)) != 0)
        return -2;
    return k;
}

/* Size classes: the usable size itself up to 1032 bytes (glibc's tcache
 * sizes: 24, 40, ... 1032), then four per power of two. Returns the
 * class's upper bound; *lower its lower bound. */
static uint64_t size_class(uint64_t size, uint64_t *lower)
{
    if (size <= 1032) {
        *lower = size;
        return size;
    }
    unsigned p = 63 - (unsigned)__builtin_clzll(size - 1); /* 2^p < size */
    uint64_t step = (1ull << p) / 4;
    uint64_t hi = ((size - 1) / step + 1) * step;
    *lower = hi - step + 1;
    if (*lower <= 1032)
        *lower = 1033;
    return hi;
}

long classes_of(classes *c, const hblock *b, const uint64_t *first_word)
{
    if (b->addr & HB_INTERNAL) {
        uint32_t v;
        if (hf_map_get(&c->size_class, 0, &v))
            return (long)v - 1;
        long k = add(c, 1, strdup(c->internal ? c->internal : "glibc tcache"));
        if (k < 0 || hf_map_put(&c->size_class, hf_default_allocator(), 0,
                                (uint32_t)k + 1) != 0)
            return -1;
        return k;
    }
    uint64_t first = first_word ? *first_word : 0;
    if (first != 0 && (first & 7) == 0) {
        /* a vtable lies in a mapped file */
        const module *m = modules_at(c->ms, first);
        const img_seg *s = m == NULL ? img_find(c->im, first) : NULL;
        if (m != NULL || (s != NULL && s->file >= 0)) {
            long k = vtable_class(c, first);
            if (k == -2)
                return -1;
            if (k >= 0) {
                c->cxx_objects++;
                return k;
            }
        }
    }
    uint64_t lower, upper;
    uint32_t v;
    if (b->size <= 1032 && c->small[b->size] != 0)
        return (long)c->small[b->size] - 1;
    upper = size_class(b->size, &lower);
    if (hf_map_get(&c->size_class, upper, &v)) {
        if (upper <= 1032)
            c->small[upper] = v;
        return (long)v - 1;
    }
    char name[64];
    if (lower == upper)
        snprintf(name, sizeof name, "malloc %llu", (unsigned long long)upper);
    else
        snprintf(name, sizeof name, "malloc %llu-%llu",
                 (unsigned long long)lower, (unsigned long long)upper);
    /* small ids (a vtable class's id is its address: far above) */
    long k = add(c, c->n + 2, strdup(name));
    if (k < 0 || hf_map_put(&c->size_class, hf_default_allocator(), upper,
                            (uint32_t)k + 1) != 0)
        return -1;
    if (upper <= 1032)
        c->small[upper] = (uint32_t)k + 1;
    return k;
}
