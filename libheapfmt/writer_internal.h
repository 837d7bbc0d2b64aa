/* writer_internal.h -- the writer handle, shared by writer*.c. */
#ifndef HEAPFMT_WRITER_INTERNAL_H
#define HEAPFMT_WRITER_INTERNAL_H

#include "codec.h"
#include "heapfmt_internal.h"
#include "outfile.h"
#include "strtab.h"

typedef struct hf_wclass {
    uint64_t id, super_id, flags;
    uint32_t name; /* string id, 0 = anonymous */
    uint64_t count, bytes;
} hf_wclass;

/* A direct-mapped cache in front of the class id map: objects of a few
 * classes interleave, so the last class alone misses most of the time.
 * 4096 slots (2^HF_CLASS_CACHE_BITS): an app's heap uses thousands of
 * classes, and with 256 most of their objects missed. */
#define HF_CLASS_CACHE_BITS 12
#define HF_CLASS_CACHE (1u << HF_CLASS_CACHE_BITS)

typedef struct hf_class_cache {
    uint64_t id; /* 0: empty (class id 0 never gets an index) */
    uint32_t index;
} hf_class_cache;

/* A filled block on its way out: raw records, and once encoded the
 * payload to write. */
typedef struct hf_wblock {
    uint8_t *raw;
    size_t len, cap;
    unsigned kind;
    uint64_t records, objects; /* for the block index */
    /* set by hf_wblock_encode */
    const uint8_t *payload;
    size_t stored;
    unsigned codec;
    uint32_t crc;
    int rc;
} hf_wblock;

typedef struct hf_wthread hf_wthread; /* writer_block.c */

struct heapfmt_writer {
    heapfmt_allocator al;
    heapfmt_write_fn write;
    void *opaque;
    hf_outfile *out; /* open_path's file (a temporary until finish), or NULL */
    int fd_target; /* descriptor written by the fd sink */

    int level, codec;
    size_t block_size;
    unsigned kind; /* kind of the block being filled */
    uint8_t *buf;  /* raw records of the current block */
    size_t len, cap;
    hf_compressor comp;
    hf_wthread *thread; /* compression worker, or NULL */

    uint64_t prev_id; /* delta base, reset per block */
    uint64_t offset;  /* bytes handed to the sink */
    int header_written;

    uint64_t records, objects, bytes, roots;
    uint64_t raw_bytes; /* decoded bytes of the data blocks written */
    uint64_t codecs;    /* bit c: a data block was written with codec c */
    uint64_t block_records, block_objects;
    heapfmt_block_entry *blocks;
    size_t nblocks, cblocks;

    hf_strtab strings;
    hf_strtab frames; /* encoded FRAME fields -> frame id */
    hf_strtab stacks; /* encoded frame id lists -> stack id */
    hf_map class_ids; /* class id -> index */
    hf_wclass *classes; /* index - 1 */
    size_t nclasses, cclasses;
    hf_class_cache class_cache[HF_CLASS_CACHE];
    uint64_t noclass_count, noclass_bytes;

    int busy, finished, sticky;
    heapfmt_error err;
};

/* Records the error on the handle (position: offset, blocks, records);
 * HEAPFMT_E_IO and HEAPFMT_E_NOMEM become sticky. Returns code. */
int hf_wfail(heapfmt_writer *w, int code, int sys_errno, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- the block layer (writer_block.c) ---- */

/* Starts the compression worker (threads option). */
int hf_wthread_start(heapfmt_writer *w);
/* Stops and frees it; a block still queued is dropped. */
void hf_wthread_stop(heapfmt_writer *w);
/* Ends the current block (its records in w->buf) as a block of this kind:
 * compresses and writes it, or hands it to the worker. */
int hf_emit_block(heapfmt_writer *w, unsigned kind);
/* Waits for the worker's block, if any, and writes it. */
int hf_drain_blocks(heapfmt_writer *w);
/* Writes bytes to the sink (the trailer). */
int hf_sink(heapfmt_writer *w, const void *buf, size_t len);

/* Writes an EVENTS record of count events already encoded at ev (len
 * bytes, by hf_event_encode from the state {seq0, time0}): the malloc
 * recorder's path (libheapfmt-malloc/hm_record.c), which encodes each
 * event in the thread that made it. HEAPFMT_OK or an error as the public
 * calls return. */
int hf_write_events_encoded(heapfmt_writer *w, uint64_t thread, uint64_t seq0,
                            uint64_t time0, uint64_t count, const void *ev,
                            size_t len);

/* Closes the file opened by heapfmt_writer_open_path, if any: when
 * complete is nonzero, renames it to its final name; else removes it.
 * Returns HEAPFMT_OK or HEAPFMT_E_IO (recorded on the handle). */
int hf_writer_close_target(heapfmt_writer *w, int complete);

#endif
