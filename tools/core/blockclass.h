/* blockclass.h -- the class of a native block.
 *
 * A C++ object with virtual functions starts with a pointer into its
 * class's vtable. A block whose first word points into a mapped file is
 * a C++ object of class Foo when that word lies in a symbol "vtable for
 * Foo" (_ZTV3Foo), or, without symbols (a stripped program), when the
 * word before it is a type_info whose own vtable is one of libstdc++'s
 * type_info classes and whose name demangles (RTTI). The name is
 * demangled (__cxa_demangle). Other blocks get "malloc N": N the usable
 * size up to 1 KiB (the tcache sizes, each its own class), then a range
 * of a quarter of a power of two ("malloc 1033-1280"). glibc's own
 * tcaches are "glibc tcache". No other pattern is guessed: a block that
 * happens to hold a string or an array is "malloc N". */
#ifndef CORE_BLOCKCLASS_H
#define CORE_BLOCKCLASS_H

#include <stddef.h>
#include <stdint.h>

#include "hf_common.h"
#include "strtab.h"
#include "heap.h"
#include "image.h"
#include "modules.h"

typedef struct klass {
    uint64_t id;       /* the vtable's address, or a small number */
    char *name;
    int written;       /* its CLASS record is in the dump */
    uint64_t objects;  /* blocks of it */
} klass;

typedef struct classes {
    const image *im;
    const modules *ms;
    const char *internal; /* the class of HB_INTERNAL blocks (heap.h) */
    klass *k;
    size_t n, cap;
    hf_map vptr;          /* first word -> class index + 1, 0: none */
    hf_map size_class;    /* size class -> class index + 1 */
    uint32_t small[1033]; /* the same for classes up to 1032 bytes: one
                             load per block, not a hash lookup */
    hf_strtab names;      /* C++ class names: one class per name */
    uint32_t *name_class; /* name id - 1 -> class index */
    size_t capnames;
    uint64_t cxx_objects; /* blocks named by a vtable */
    int no_rtti;          /* --no-symbols tests: symbols only */
} classes;

void classes_init(classes *c, const image *im, const modules *ms);
void classes_free(classes *c);

/* The index in c->k of block b's class, or -1 out of memory. first_word:
 * the block's first 8 bytes, or NULL when it has none, or when they are
 * known not to be a vtable pointer (they point into the heap). */
long classes_of(classes *c, const hblock *b, const uint64_t *first_word);

/* "Foo" for the mangled type name "3Foo" (or a whole symbol when
 * symbol is set: "_ZTV3Foo" gives "vtable for Foo"); malloc'd, or NULL
 * when it does not demangle. */
char *classes_demangle(const char *mangled);

#endif /* CORE_BLOCKCLASS_H */
