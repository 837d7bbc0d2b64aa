/* dump.h -- writing a native heap as a heapfmt dump.
 *
 * Each used block is one OBJECT: id = its address, size = its usable
 * size, class from blockclass.h, type "chunk" or "mmapped", and a reference
 * for every 8-aligned word inside it that points into a used block (at
 * its start, or inside it: then labeled "interior"). ROOT records:
 * "register" (per thread, labeled "thread 2 rax"), "stack" ("thread 2
 * rsp+0x48"), "static" (the symbol, "global_cache" or "table+0x10", else
 * "libfoo.so+0x1234"), "mapping" (the mapping's range). META holds the
 * allocator, the free blocks by kind, and per arena what malloc_info(3)
 * prints (fast, rest, system). */
#ifndef CORE_DUMP_H
#define CORE_DUMP_H

#include <stdint.h>

#include "bindex.h"
#include "blockclass.h"
#include "heap.h"
#include "heapfmt.h"
#include "image.h"
#include "modules.h"
#include "roots.h"

typedef struct dump_info {
    const char *source;     /* "core FILE" or "live" */
    const char *allocator;  /* NULL: the heap's */
    const char *host;       /* NULL: unknown */
    const char *note;       /* NULL, or a sentence for META core.note */
    uint64_t time;          /* seconds since 1970, 0 unknown */
    int live;
    uint64_t pause_us, copied;
    int complete;
} dump_info;

typedef struct dump_stats {
    const char *name;       /* for the progress line */
    uint64_t refs, interior, root_refs, truncated;
    uint64_t used_bytes;    /* the used blocks' usable bytes */
} dump_stats;

/* Writes META, the objects and the roots (not finish). The free list is
 * released after META, which counts it (16 bytes a free block, not
 * needed for the objects). A used list of 16 MiB or more is given back
 * page by page as its blocks are written (the index answers the
 * lookups, not the list): its entries must not be read after this call
 * (nused stays; st->used_bytes has their bytes). Returns HEAPFMT_OK or
 * the writer's error (HEAPFMT_E_NOMEM out of memory). */
int dump_write(heapfmt_writer *w, const image *im, const modules *ms,
               heap *h, classes *cls, bindex *x, const roots *rs,
               const dump_info *info, dump_stats *st);

#endif /* CORE_DUMP_H */
