/* reader_internal.h -- the reader handle, shared by reader*.c. */
#ifndef HEAPFMT_READER_INTERNAL_H
#define HEAPFMT_READER_INTERNAL_H

#include "codec.h"
#include "heapfmt_internal.h"

enum hf_rstate {
    HF_R_BLOCK,  /* next: a block header */
    HF_R_IN,     /* decoding records of a data block */
    HF_R_DONE,   /* complete dump read */
    HF_R_FAILED  /* sticky error in err */
};

struct heapfmt_reader {
    heapfmt_allocator al;
    heapfmt_read_fn read;
    heapfmt_seek_fn seek;
    void *opaque;
    int fd;        /* owned descriptor (open_path), or -1 */
    int fd_source; /* descriptor read by the fd source */
    const uint8_t *mem; /* memory source */
    size_t mem_len, mem_pos;

    int major, minor;
    int strict; /* file minor <= ours: reserved bits must be zero */
    enum hf_rstate state;
    uint64_t pos; /* input offset consumed */

    uint8_t *stored; /* compressed payload */
    size_t stored_cap;
    uint8_t *raw; /* decoded payload of the current block */
    size_t raw_cap, raw_len, rpos;
    hf_inflater inf;
    uint64_t block_offset; /* file offset of the current block's header */
    uint64_t block_no;     /* data blocks begun so far */
    uint64_t prev_id;

    int seen_end;
    int partial; /* moved by heapfmt_reader_seek_block: totals unchecked */
    uint64_t records; /* records before END of every tag (END's count) */
    uint64_t delivered; /* records handed to the caller */
    uint64_t skipped;   /* records of unknown kinds (or META types) */
    uint64_t objects, bytes, blocks_done, corrupt_blocks;
    uint64_t raw_bytes, stored_bytes; /* of data blocks read */

    /* the record last delivered */
    int last_tag;
    heapfmt_robject obj;
    heapfmt_rroot root;
    heapfmt_totals end;
    const uint8_t *refs_p, *refs_end;
    uint64_t refs_n, refs_base;
    uint64_t *refs_buf;
    size_t refs_cap;

    /* tables */
    hf_arena arena;
    uint64_t table_limit;
    hf_idtab string_ids; /* string id -> slot */
    heapfmt_rstring **strings; /* by slot */
    size_t nstrings, cstrings;
    hf_idtab class_ids; /* class index -> slot */
    heapfmt_rclass **classes;
    size_t nclasses, cclasses;
    heapfmt_rmeta *meta;
    size_t nmeta, cmeta;
    heapfmt_rstring empty_string;
    heapfmt_rclass no_class;

    /* footer */
    int have_footer;
    heapfmt_footer footer;
    heapfmt_block_entry *fblocks;
    size_t cfblocks;
    heapfmt_class_summary *fclasses;
    size_t cfclasses;
    hf_arena footer_arena;

    heapfmt_error err;
    heapfmt_error failure; /* the sticky error, kept apart from err so that
                              later calls (footer) cannot overwrite it */
};

/* Makes the error now in r->err sticky; returns its code. */
int hf_rfatal(heapfmt_reader *r, int code);

/* Sets the error detail; record is the number of records delivered. */
int hf_rfail(heapfmt_reader *r, int code, int sys_errno, uint64_t offset,
             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Reads exactly len bytes unless input ends; *got receives the count.
 * Returns HEAPFMT_OK or HEAPFMT_E_IO (detail set). */
int hf_read_full(heapfmt_reader *r, void *buf, size_t len, size_t *got);

/* Tables (reader_tables.c). Each returns HEAPFMT_OK or an error code with
 * the detail set (HEAPFMT_E_NOMEM, HEAPFMT_E_LIMIT, HEAPFMT_E_CORRUPT). */
int hf_tables_init(heapfmt_reader *r);
void hf_tables_free(heapfmt_reader *r);
int hf_string_define(heapfmt_reader *r, uint64_t id, const uint8_t *text,
                     size_t len, const heapfmt_rstring **out);
int hf_string_ref(heapfmt_reader *r, uint64_t id, const heapfmt_rstring **out);
int hf_class_define(heapfmt_reader *r, uint64_t index, uint64_t id,
                    const heapfmt_rstring *name, uint64_t super_id,
                    uint64_t flags, const heapfmt_rclass **out);
int hf_class_ref(heapfmt_reader *r, uint64_t index, const heapfmt_rclass **out);
int hf_meta_add(heapfmt_reader *r, unsigned type, const uint8_t *key,
                size_t klen, const uint8_t *text, size_t tlen, uint64_t num,
                const heapfmt_rmeta **out);

/* Decodes the records of a footer block's payload into r->footer. */
int hf_footer_parse(heapfmt_reader *r, const uint8_t *p, size_t len,
                    uint64_t offset);

/* Block header fields after checking (reader.c). */
typedef struct hf_bhdr {
    unsigned kind, codec;
    uint32_t raw_len, stored_len, data_crc;
} hf_bhdr;

/* Checks a 20-byte block header. Returns HEAPFMT_OK, or HEAPFMT_E_CORRUPT
 * with *fatal set when the lengths cannot be trusted. */
int hf_block_header(heapfmt_reader *r, const uint8_t *h, uint64_t offset,
                    hf_bhdr *b, int *fatal);

/* Reads a block's stored payload (growing r->stored progressively, so a
 * lying length on a short input does not allocate it) and decodes it into
 * *out (out_cap grown). Returns HEAPFMT_OK, HEAPFMT_E_TRUNCATED,
 * HEAPFMT_E_CORRUPT (not fatal), HEAPFMT_E_IO or HEAPFMT_E_NOMEM. */
int hf_block_payload(heapfmt_reader *r, const hf_bhdr *b, uint64_t offset,
                     uint8_t **out, size_t *out_cap);

#endif
