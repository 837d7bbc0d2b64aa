/*
 * traw.h -- a tiny independent encoder of heapfmt files, written from
 * spec/FORMAT.md (not from the library), to build dumps the library's
 * writer never produces: unknown record tags and block kinds, trailing
 * bytes in records, other versions, damaged structures.
 *
 * The builder tracks what the footer needs (block index, totals, per-class
 * summary) so that traw_finish produces a complete, valid dump.
 */
#ifndef TRAW_H
#define TRAW_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"
#include "tio.h"

#define TRAW_MAX_BLOCKS 256
#define TRAW_MAX_CLASSES 64
#define TRAW_MAX_STRINGS 64

/* Low-level pieces. */
void traw_header(tbuf *out, unsigned major, unsigned minor, uint16_t flags);
/* Appends a block (header + payload) of kind with codec 0 (stored), 1
 * (raw DEFLATE) or 2 (a Zstandard frame); returns the offset of its
 * header. */
uint64_t traw_block(tbuf *out, unsigned kind, unsigned codec,
                    const void *payload, size_t len);
/* tag, varint len, body */
void traw_record(tbuf *payload, unsigned tag, const void *body, size_t len);
void traw_trailer(tbuf *out, uint64_t footer_offset);
uint32_t traw_crc(const void *p, size_t n);

/* What the footer's SUMMARY needs of one class. */
typedef struct traw_class_entry {
    int used; /* the entry stands for class index `index` */
    uint32_t index;
    int defined;
    uint64_t id, flags, count, bytes;
    uint32_t name;
} traw_class_entry;

/* What traw_finish writes wrong on purpose, for dumps whose blocks are
 * intact and whose END or footer lies (all 0: the truth). */
typedef struct traw_lies {
    int no_end;               /* leave the END record out */
    int64_t end_objects;      /* added to END's counts */
    int64_t end_bytes;
    int64_t end_records;
    int64_t totals_bytes;     /* added to the footer's TOTALS */
    int64_t totals_raw_bytes;
    uint64_t totals_codecs;   /* or'ed into TOTALS' codecs */
    int extra_footer_block;   /* a footer-kind block of junk between the
                                 END's block and the footer */
} traw_lies;

typedef struct traw {
    tbuf out;
    tbuf blk;           /* payload of the open data block */
    unsigned codec;
    unsigned minor;
    unsigned codecs;    /* bit c: a data block used codec c */
    size_t pad;         /* junk bytes appended to every record whose
                           payload has a known end (not STRING, META text) */
    uint64_t prev_id;   /* OBJECT id delta base in the open block */
    uint64_t blk_records, blk_objects;
    uint64_t raw_bytes; /* decoded bytes of the data blocks so far */
    struct {
        uint64_t offset, records, objects;
    } ent[TRAW_MAX_BLOCKS];
    size_t nent;
    uint64_t objects, bytes, records, nstrings, nroots;
    traw_class_entry cls[TRAW_MAX_CLASSES]; /* up to 64 classes of any
                                               index; 0 is "no class" */
    uint32_t nclasses;
    struct {
        char text[64];
        char *big; /* a text of 64 bytes or more (malloc'd) */
        size_t len;
    } str[TRAW_MAX_STRINGS]; /* by id, for the footer's class names */
    traw_lies lie;      /* set between traw_begin and traw_finish */
} traw;

/* Starts a file: header with this version and flags; blocks use codec. */
void traw_begin(traw *d, unsigned major, unsigned minor, uint16_t flags,
                unsigned codec);
void traw_free(traw *d);

void traw_meta_uint(traw *d, const char *key, uint64_t v);
void traw_meta_int(traw *d, const char *key, int64_t v);
void traw_meta_text(traw *d, const char *key, const char *text);
void traw_string(traw *d, uint32_t id, const char *text);
void traw_class(traw *d, uint32_t index, uint64_t id, uint32_t name,
                uint64_t super, uint64_t flags);
/* o->class_id is the class INDEX here. With HEAPFMT_F_INDEXED and
 * HEAPFMT_F_LABELS, o->labels are all nrefs labels, written in the
 * indexed form (1.3: the inferred INDEX ones left out); fields are
 * written as given (no bit is cleared). */
void traw_object(traw *d, const heapfmt_object *o);
void traw_root(traw *d, uint32_t kind, const uint64_t *ids, size_t n);
/* 1.1: labels (n of them) may be NULL. */
void traw_root_labeled(traw *d, uint32_t kind, const uint64_t *ids,
                       const heapfmt_label *labels, size_t n);
/* 1.1: FRAME and STACK records. traw_object writes o->stack and
 * o->labels when o->fields has HEAPFMT_F_STACK / HEAPFMT_F_LABELS. */
void traw_frame(traw *d, uint32_t id, uint32_t function, uint32_t library,
                uint64_t offset, uint32_t file, uint64_t line);
void traw_stack(traw *d, uint32_t id, const uint32_t *frames, size_t n);
/* 1.2: a LIFESPAN record (l's key bits decide which key fields are
 * written; l->stack and l->file are ids). */
void traw_lifespan(traw *d, const heapfmt_lifespan *l);

/* 1.2: an EVENTS record, field by field as spec 6.10 lays it out: each
 * event's op, the sequence numbers skipped before it (gap), the
 * microseconds since the previous event (dt), and its fields in the order
 * of its op (a block distance, an alignment, a size; MARK's rss, peak,
 * own). Nothing is checked: tests build bad records with it too. */
typedef struct traw_event {
    unsigned op;
    uint64_t gap, dt;
    size_t nfields;
    uint64_t field[3];
} traw_event;
void traw_events(traw *d, uint64_t thread, uint64_t seq0, uint64_t time0,
                 uint64_t count, const traw_event *ev, size_t n);
/* Any record (unknown tags included); counted as a record of the dump. */
void traw_any(traw *d, unsigned tag, const void *body, size_t len);
/* Ends the open data block (if it has records). */
void traw_flush(traw *d);
/* Ends the open block, then appends a block of another kind (not a data
 * block: not in the index). */
void traw_foreign_block(traw *d, unsigned kind, const void *payload,
                        size_t len);
/* END, last data block, footer block, trailer. */
void traw_finish(traw *d);

#endif
