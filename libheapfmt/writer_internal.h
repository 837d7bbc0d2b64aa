/* writer_internal.h -- the writer handle, shared by writer*.c. */
#ifndef HEAPFMT_WRITER_INTERNAL_H
#define HEAPFMT_WRITER_INTERNAL_H

#include "codec.h"
#include "heapfmt_internal.h"
#include "strtab.h"

typedef struct hf_wclass {
    uint64_t id, super_id, flags;
    uint32_t name; /* string id, 0 = anonymous */
    uint64_t count, bytes;
} hf_wclass;

/* A direct-mapped cache in front of the class id map: objects of a few
 * classes interleave, so the last class alone misses most of the time. */
#define HF_CLASS_CACHE 256u

typedef struct hf_class_cache {
    uint64_t id; /* 0: empty (class id 0 never gets an index) */
    uint32_t index;
} hf_class_cache;

typedef struct hf_wblock {
    uint64_t offset, records, objects;
} hf_wblock;

struct heapfmt_writer {
    heapfmt_allocator al;
    heapfmt_write_fn write;
    void *opaque;
    int fd;        /* owned descriptor (open_path), or -1 */
    int fd_target; /* descriptor written by the fd sink */

    int level;
    size_t block_size;
    unsigned kind; /* kind of the block being filled */
    uint8_t *buf;  /* raw records of the current block */
    size_t len, cap;
    hf_deflater z;

    uint64_t prev_id; /* delta base, reset per block */
    uint64_t offset;  /* bytes handed to the sink */
    int header_written;

    uint64_t records, objects, bytes, roots;
    uint64_t raw_bytes; /* decoded bytes of the data blocks written */
    uint64_t block_records, block_objects;
    hf_wblock *blocks;
    size_t nblocks, cblocks;

    hf_strtab strings;
    hf_map class_ids; /* class id -> index */
    hf_wclass *classes; /* index - 1 */
    size_t nclasses, cclasses;
    hf_class_cache class_cache[HF_CLASS_CACHE];
    uint64_t noclass_count, noclass_bytes;

    int busy, finished, sticky;
    heapfmt_error err;
};

/* Closes the descriptor opened by heapfmt_writer_open_path, if any;
 * returns HEAPFMT_OK or HEAPFMT_E_IO (recorded on the handle). */
int hf_writer_close_target(heapfmt_writer *w);

#endif
