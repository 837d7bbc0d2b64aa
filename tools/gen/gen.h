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

/* What the instances look like (gen.c says more).
 *   GEN_PROFILE_APP     allocation groups from per-class templates: an
 *                       object next to the objects it holds, shared
 *                       literals, repeated values. Compresses like a real
 *                       Ruby heap (about 9x with zstd level 1).
 *   GEN_PROFILE_RANDOM  every object drawn on its own, references spread
 *                       over the heap, random text: the data of heapfmt-gen
 *                       before 0.2, a worst case for compression (~1.4x). */
enum gen_profile { GEN_PROFILE_APP = 0, GEN_PROFILE_RANDOM = 1 };

typedef struct gen_options {
    uint64_t objects; /* OBJECT records to write, class objects included */
    uint64_t seed;    /* any value */
    uint32_t classes; /* CLASS records, 1 .. GEN_MAX_CLASSES */
    int sites;        /* nonzero: allocation sites on ~30% of objects */
    int stacks;       /* nonzero: allocation call stacks (format 1.1) on
                         ~98% of objects (stacks.h) */
    int profile;      /* enum gen_profile */
    int labels;       /* nonzero (--profile=app): reference labels (format
                         1.1) where the Ruby extension writes them:
                         instance variable names, array indexes, hash keys */
    int listed_indexes; /* nonzero: an array's index labels written one by
                         one (format 1.1), not implied by their positions
                         (HEAPFMT_F_INDEXED, format 1.3) */
} gen_options;

#define GEN_OPTIONS_INIT                                                    \
    { .objects = 100000, .seed = 1, .classes = 500, .sites = 1,             \
      .profile = GEN_PROFILE_APP, .labels = 1 }

/* "app", "random", or "unknown". */
const char *gen_profile_name(int profile);

/* Writes the whole heap to w. Does not call heapfmt_writer_finish(): the
 * caller does, and may add records of its own first. Returns HEAPFMT_OK,
 * HEAPFMT_E_ARG for options out of range (or an unknown profile), HEAPFMT_E_NOMEM if the class
 * tables cannot be allocated, or the first error the writer returned (the
 * writer's error detail then explains it). */
int gen_write(heapfmt_writer *w, const gen_options *opt);

#endif /* GEN_H */
