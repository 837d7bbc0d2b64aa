/* others.h -- allocators heapfmt-core does not read (yet): jemalloc,
 * tcmalloc, mimalloc. Told by the libraries the process maps, or, in a
 * statically linked program, by their data symbols. Their blocks would
 * be missing from a dump of glibc's heap alone, so finding one makes the
 * result incomplete, said in one line. */
#ifndef CORE_OTHERS_H
#define CORE_OTHERS_H

#include "image.h"
#include "modules.h"

/* The other allocator's name ("jemalloc"), or NULL; *where is set to the
 * library or file that shows it. */
const char *other_allocator(const image *im, const modules *ms,
                            const char **where);

#endif /* CORE_OTHERS_H */
