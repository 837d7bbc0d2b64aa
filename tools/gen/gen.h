/* gen.h -- synthetic Ruby-like heap dumps.
 *
 * gen_write() writes the records of a made-up but realistic Ruby heap to a
 * heapfmt writer: META, the strings it needs, a class set (real core
 * classes, then synthetic application classes, modules, singleton and
 * anonymous classes), the class objects, the instances and the roots.
 *
 * The output depends only on the options (and the library's encoder): the
 * same options give the same records, in the same order. Memory is bounded
 * by the class count; nothing is kept per object. */
#ifndef GEN_H
#define GEN_H

#include <stdint.h>

#include "heapfmt.h"

#define GEN_MAX_OBJECTS 10000000000ull /* 1e10 */
#define GEN_MAX_CLASSES 1000000u

typedef struct gen_options {
    uint64_t objects; /* OBJECT records to write, class objects included */
    uint64_t seed;    /* any value */
    uint32_t classes; /* CLASS records, 1 .. GEN_MAX_CLASSES */
    int sites;        /* nonzero: allocation sites on ~30% of objects */
} gen_options;

#define GEN_OPTIONS_INIT { 100000, 1, 500, 1 }

/* Writes the whole heap to w. Does not call heapfmt_writer_finish(): the
 * caller does, and may add records of its own first. Returns HEAPFMT_OK,
 * HEAPFMT_E_ARG for options out of range, HEAPFMT_E_NOMEM if the class
 * tables cannot be allocated, or the first error the writer returned (the
 * writer's error detail then explains it). */
int gen_write(heapfmt_writer *w, const gen_options *opt);

#endif /* GEN_H */
