/*
 * fuzz_util.h -- support shared by the heapfmt fuzz harnesses.
 *
 *   fz_in     takes integers and byte strings off the fuzzer's input.
 *   fz_buf    a growable byte buffer (aborts when malloc fails: harness
 *             memory is not under test).
 *   fz_alloc  a heapfmt_allocator that counts, can fail the Nth call and
 *             knows what is still live at the end.
 *   fz_sink   a heapfmt_write_fn into memory with short writes, EINTR,
 *             EAGAIN and a failure at the Nth call.
 *   fz_rd     walks a reader and turns what it delivers into *entries*:
 *             one canonical byte string per record, per error result and
 *             for the footer, so that two readers (or a reader and the
 *             model of fuzz_roundtrip) can be compared entry by entry in
 *             lock step without keeping whole transcripts. While walking
 *             it checks the reader's documented contract and aborts on a
 *             violation. OBJECT and ROOT entries hold the references and
 *             their labels (heapfmt_reader_labels), OBJECT entries the
 *             call stack with every frame; FRAME and STACK records (1.1)
 *             have entries of their own.
 *
 * A harness reports a finding by printing one line starting with
 * "fuzz: " and calling abort() (fz_fail), which libFuzzer records as a
 * crash and the replay driver turns into a failure.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

#if defined(__GNUC__)
#define FZ_NORETURN __attribute__((noreturn))
#define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FZ_NORETURN
#define FZ_PRINTF(a, b)
#endif

/* Prints "fuzz: <message>" on stderr and aborts. */
FZ_NORETURN void fz_fail(const char *fmt, ...) FZ_PRINTF(1, 2);

#define FZ_CHECK(cond, ...)          \
    do {                             \
        if (!(cond))                 \
            fz_fail(__VA_ARGS__);    \
    } while (0)

/* Name of a status code ("HEAPFMT_E_CORRUPT"), or "?". */
const char *fz_status_name(int status);

/* FNV-1a of n bytes: picks options "at random" but reproducibly. */
uint64_t fz_hash(const void *p, size_t n);

/* ---- input ------------------------------------------------------------ */

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

/* Each takes what is left when the input runs short (missing bytes are 0). */
uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint32_t fz_u32(fz_in *in);
uint64_t fz_u64(fz_in *in);
/* Up to len bytes; *got receives how many were there. */
const uint8_t *fz_take(fz_in *in, size_t len, size_t *got);

/* ---- buffer ----------------------------------------------------------- */

typedef struct fz_buf {
    uint8_t *p;
    size_t len, cap;
} fz_buf;

void fz_put(fz_buf *b, const void *p, size_t n);
void fz_put_u8(fz_buf *b, unsigned v);
void fz_put_u64(fz_buf *b, uint64_t v);
/* n values, each as fz_put_u64 */
void fz_put_u64s(fz_buf *b, const uint64_t *v, size_t n);
/* length (u64), then the bytes */
void fz_put_bytes(fz_buf *b, const void *p, size_t n);
void fz_buf_reset(fz_buf *b);
void fz_buf_free(fz_buf *b);

/* ---- allocator ---------------------------------------------------------- */

typedef struct fz_alloc {
    heapfmt_allocator hooks; /* give &a->hooks to the library */
    uint64_t calls;          /* alloc calls so far */
    uint64_t fail_at;        /* 1-based call that returns NULL; 0 = never */
    uint64_t failed;         /* NULLs returned */
    long live;               /* blocks not freed yet */
} fz_alloc;

void fz_alloc_init(fz_alloc *a, uint64_t fail_at);

/* ---- sink --------------------------------------------------------------- */

typedef struct fz_sink {
    fz_buf out;
    size_t max_call;      /* accept at most this much per call; 0 = all */
    unsigned eintr_every; /* every k-th call gives -EINTR or -EAGAIN */
    uint64_t fail_at;     /* 1-based call that fails; 0 = never */
    int fail_errno;       /* positive: -errno is returned; 0: returns 0 */
    int fail_once;        /* only that call fails (the writer must stop) */
    uint64_t calls, failures;
} fz_sink;

void fz_sink_init(fz_sink *s);
long fz_sink_write(void *opaque, const void *buf, size_t len);

/* ---- reader walk -------------------------------------------------------- */

/* fz_rd flags */
#define FZ_DETAIL 0x01u      /* entries also hold offsets, slots, error
                                detail and the block index (comparing two
                                readers of the same bytes) */
#define FZ_KEEP_GOING 0x02u  /* continue after a non-sticky CORRUPT */
#define FZ_CHECK_INDEX 0x04u /* at DONE, the footer's block index must match
                                the blocks the records came from (dumps of
                                the library's writer, which writes no
                                unknown records) */
#define FZ_TRACK_BLOCKS 0x08u /* keep the list of blocks records came from */

typedef struct fz_blk {
    uint64_t offset, records, objects;
} fz_blk;

typedef struct fz_rd {
    heapfmt_reader *r;
    unsigned flags;
    int finished;      /* no more entries */
    int rc;            /* last result of heapfmt_reader_next */
    uint64_t delivered, objects, bytes;
    uint64_t errors;   /* error results seen */
    uint64_t last_err_pos; /* input offset at the last CORRUPT */
    int have_err_pos;
    int refs_nomem;    /* the last entry's references or labels ran out
                          of memory */
    int have_end;      /* END was delivered; its record count: */
    uint64_t end_records;
    fz_blk *blk;       /* FZ_CHECK_INDEX, FZ_TRACK_BLOCKS: blocks seen */
    size_t nblk, cblk;
    /* Optional: called with every record delivered, after its entry. */
    void (*hook)(void *ctx, heapfmt_reader *r, const heapfmt_record *rec);
    void *hook_ctx;
} fz_rd;

/* Starts a walk over r (which the caller frees afterwards). */
void fz_rd_init(fz_rd *d, heapfmt_reader *r, unsigned flags);
void fz_rd_free(fz_rd *d);

/* Produces the next entry into e (reset first). Returns 1, or 0 when the
 * walk is over (after DONE or a sticky error, or after any error without
 * FZ_KEEP_GOING). */
int fz_rd_next(fz_rd *d, fz_buf *e);

/* An entry for an open that failed (or succeeded: status OK). */
void fz_entry_open(fz_buf *e, int rc, const heapfmt_reader *r, unsigned flags);

/* The footer as an entry (what fz_rd_next produces after DONE). */
void fz_entry_footer(fz_buf *e, int rc, const heapfmt_footer *f,
                     unsigned flags);

/* ---- entry encoders (shared by fz_rd and the round-trip model) ---------- */

/* A string: present = 0 encodes "no string" (a NULL pointer). */
void fz_enc_string(fz_buf *e, int present, uint32_t id, uint32_t slot,
                   int undefined, const char *p, size_t len, unsigned flags);
void fz_enc_class(fz_buf *e, uint32_t index, uint32_t slot, uint64_t id,
                  uint64_t super_id, uint64_t cflags, int undefined,
                  int named, uint32_t name_id, uint32_t name_slot,
                  int name_undefined, const char *name, size_t name_len,
                  unsigned flags);
/* References: rc is the count (>= 0) or the error of heapfmt_reader_refs. */
void fz_enc_refs(fz_buf *e, long rc, const uint64_t *ids);
/* Labels (format 1.1): fz_enc_labels_head with the result of
 * heapfmt_reader_labels (count >= 0, or an error: nothing follows), then
 * per label fz_enc_label and its name (fz_enc_string: the empty string,
 * id 0, for NONE and INDEX). */
void fz_enc_labels_head(fz_buf *e, long rc);
void fz_enc_label(fz_buf *e, uint32_t kind, uint32_t weak, uint64_t index);
/* A call-stack frame: this head, then its function, library and file
 * strings (fz_enc_string). */
void fz_enc_frame_head(fz_buf *e, uint32_t id, uint32_t slot, int undefined,
                       uint64_t offset, uint64_t line, unsigned flags);
/* A call stack: present = 0 encodes "no stack" (NULL); else this head,
 * then its nframes frames. */
void fz_enc_stack_head(fz_buf *e, int present, uint32_t id, uint32_t slot,
                       int undefined, uint64_t nframes, unsigned flags);

/* Entry kinds (first byte of an entry). */
#define FZ_E_META 'M'
#define FZ_E_STRING 'S'
#define FZ_E_CLASS 'C'
#define FZ_E_OBJECT 'O'
#define FZ_E_ROOT 'R'
#define FZ_E_FRAME 'f'
#define FZ_E_STACK 'K'
#define FZ_E_LIFESPAN 'L'
#define FZ_E_EVENTS 'V'
#define FZ_E_END 'E'
#define FZ_E_ERROR 'X'
#define FZ_E_FOOTER 'F'
#define FZ_E_OPEN 'P'

/* Starts a record entry: kind, then the record index. */
void fz_enc_record_head(fz_buf *e, int kind, uint64_t index, uint64_t offset,
                        unsigned flags);

/* Writes a short description of the entries a and b where they differ, for
 * messages. */
void fz_describe_diff(const fz_buf *a, const fz_buf *b, char *out, size_t cap);

/* Compares two readers' walks entry by entry until both end; aborts with
 * what differs. what names the comparison in messages. */
void fz_compare_walks(fz_rd *a, fz_rd *b, const char *what);

#endif /* FUZZ_UTIL_H */
