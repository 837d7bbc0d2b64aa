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
    hf_decompressor dec;
    uint64_t block_offset; /* file offset of the current block's header */
    uint64_t block_no;     /* data blocks begun so far */
    uint64_t prev_id;

    int seen_end;
    int partial; /* moved by heapfmt_reader_seek_block: totals unchecked */
    uint64_t range_end; /* a moved reader ends at this block */
    uint64_t records; /* records before END of every tag (END's count) */
    uint64_t delivered; /* records handed to the caller */
    uint64_t skipped;   /* records of unknown kinds (or META types) */
    uint64_t objects, bytes, blocks_done, corrupt_blocks;
    uint64_t raw_bytes, stored_bytes; /* of data blocks read */
    uint64_t codecs;                  /* bit c: a data block used codec c */
    uint32_t obj_fields_known;        /* OBJECT field bits of this minor */

    /* the record last delivered */
    int last_tag;
    heapfmt_robject obj;
    heapfmt_rroot root;
    heapfmt_totals end;
    heapfmt_rlifespan lifespan;
    const uint8_t *refs_p, *refs_end;
    uint64_t refs_n, refs_base;
    uint64_t *refs_buf;
    size_t refs_cap;
    const uint8_t *labels_p; /* the record's labels, NULL when none */
    uint32_t obj_stored; /* the OBJECT's fields as stored (obj.fields adds
                            F_LABELS to F_INDEXED) */
    heapfmt_rlabel *labels_buf;
    size_t labels_cap;
    heapfmt_revents events;  /* an EVENTS record (1.2) */
    const uint8_t *ev_p, *ev_end; /* its next event, checked whole */
    uint64_t ev_left;
    hf_event_state ev_state;

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
    hf_idtab frame_ids; /* frame id -> slot */
    heapfmt_rframe **frames;
    size_t nframes, cframes;
    hf_idtab stack_ids; /* stack id -> slot */
    heapfmt_rstack **stacks;
    size_t nstacks, cstacks;
    heapfmt_rstring empty_string;
    heapfmt_rclass no_class;
    /* strings the caller does not keep (heapfmt_reader_options) */
    heapfmt_keep_string_fn keep_string;
    void *keep_string_user;
    heapfmt_rstring dropped_string; /* a dropped label name */
    heapfmt_rstring scratch_string; /* a dropped STRING as delivered */
    char *scratch_text;
    size_t scratch_cap;

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

/* The reader's error setters, over hf_error_vset: record is the number of
 * records delivered, block the data block being read. Each returns code.
 * hf_rfail records an error the reader goes on from (a corrupt block
 * skipped, a call refused); hf_rfatal records one that stops it: the
 * error becomes sticky, every later call returns it. hf_rstop stops it
 * on the error a callee already recorded in r->err. */
int hf_rfail(heapfmt_reader *r, int code, int sys_errno, uint64_t offset,
             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int hf_rstop(heapfmt_reader *r, int code);
#define hf_rfatal(r, ...) hf_rstop((r), hf_rfail((r), __VA_ARGS__))

/* ---- the block layer (reader_block.c) ---- */

/* Reads exactly len bytes unless input ends; *got receives the count.
 * Returns HEAPFMT_OK or HEAPFMT_E_IO (detail set). */
int hf_read_full(heapfmt_reader *r, void *buf, size_t len, size_t *got);

/* Reads and checks the 20-byte header of the block at r->pos (= offset).
 * Returns HEAPFMT_OK; HEAPFMT_E_TRUNCATED with *got < 20 when the input
 * ends first; HEAPFMT_E_CORRUPT with *fatal set when the lengths cannot
 * be trusted (else *b is filled and the block can be skipped);
 * HEAPFMT_E_UNSUPPORTED for a codec this build cannot decode; or
 * HEAPFMT_E_IO. Details are set. */
int hf_block_read_header(heapfmt_reader *r, uint64_t offset,
                         hf_block_header *b, size_t *got, int *fatal);

/* Reads a block's stored payload (growing buffers progressively, so a
 * lying length on a short input does not allocate it) and decodes it into
 * *out (out_cap grown), followed by HF_RAW_PAD zero bytes. Returns
 * HEAPFMT_OK, HEAPFMT_E_TRUNCATED, HEAPFMT_E_CORRUPT (not fatal),
 * HEAPFMT_E_UNSUPPORTED, HEAPFMT_E_IO or HEAPFMT_E_NOMEM. */
int hf_block_payload(heapfmt_reader *r, const hf_block_header *b,
                     uint64_t offset, uint8_t **out, size_t *out_cap);

/* Reads and drops a block's stored payload (a block skipped whole).
 * Returns HEAPFMT_OK, HEAPFMT_E_TRUNCATED, HEAPFMT_E_IO or
 * HEAPFMT_E_NOMEM. */
int hf_block_skip(heapfmt_reader *r, const hf_block_header *b,
                  uint64_t offset);

/* Tables (reader_tables.c). Each returns HEAPFMT_OK or an error code with
 * the detail set (HEAPFMT_E_NOMEM, HEAPFMT_E_LIMIT, HEAPFMT_E_CORRUPT). */
int hf_tables_init(heapfmt_reader *r);
/* Table memory within the reader's limit (HEAPFMT_E_LIMIT past it). */
void *hf_table_alloc(heapfmt_reader *r, size_t size, int *rc);
int hf_table_nomem(heapfmt_reader *r, const char *what);
/* Makes room for slot n of a table (its pointer array *slots, capacity
 * *cap, of elem-byte pointers) and maps id to it in ids; the caller then
 * stores its entry there. what names the table in the message when
 * memory runs out. */
int hf_table_slot(heapfmt_reader *r, hf_idtab *ids, void **slots,
                  size_t *cap, size_t n, size_t elem, uint64_t id,
                  const char *what);
void hf_tables_free(heapfmt_reader *r);
int hf_string_define(heapfmt_reader *r, uint64_t id, const uint8_t *text,
                     size_t len, const heapfmt_rstring **out);
/* The id table's mark of a string defined but not kept. */
#define HF_STRING_DROPPED (UINT32_MAX - 1u)
/* The string of id as a record uses it: shared nonzero (a label's name)
 * gives a dropped string the one shared entry, else an entry of its own
 * (heapfmt_reader_options keep_string). */
int hf_string_ref(heapfmt_reader *r, uint64_t id, int shared,
                  const heapfmt_rstring **out);
int hf_class_define(heapfmt_reader *r, uint64_t index, uint64_t id,
                    const heapfmt_rstring *name, uint64_t super_id,
                    uint64_t flags, const heapfmt_rclass **out);
int hf_class_ref(heapfmt_reader *r, uint64_t index, const heapfmt_rclass **out);
int hf_meta_add(heapfmt_reader *r, const hf_meta *m,
                const heapfmt_rmeta **out);
int hf_frame_define(heapfmt_reader *r, const hf_frame_rec *f,
                    const heapfmt_rframe **out);
int hf_stack_define(heapfmt_reader *r, const hf_stack_rec *s,
                    const heapfmt_rstack **out);
int hf_stack_ref(heapfmt_reader *r, uint64_t id, const heapfmt_rstack **out);

/* Decodes the records of a footer block's payload into r->footer. */
int hf_footer_parse(heapfmt_reader *r, const uint8_t *p, size_t len,
                    uint64_t offset);

#endif
