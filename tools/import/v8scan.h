/* v8scan.h -- a streaming JSON tokenizer for V8 heap snapshots.
 *
 * A .heapsnapshot is one JSON object whose bulk is three huge arrays
 * (nodes and edges of integers, strings of text). heapfmt-import must not
 * hold the file, nor one "line" of it (Chrome saves a snapshot without
 * newlines), so this reader pulls the input through a fixed buffer and
 * hands out one token at a time: a punctuation byte, an unsigned integer,
 * a string (unescaped into a buffer of bounded size), or a whole value
 * skipped. It knows the byte offset of everything it returns, for the
 * importer's messages. Memory: the buffer and the longest string kept. */
#ifndef V8SCAN_H
#define V8SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "lines.h"
#include "import_status.h"

/* The vs_* calls return an import_status (status.h): IMP_OK, IMP_CUT (the
 * input ended inside the JSON text), IMP_SYNTAX (not what the snapshot
 * format has there: err_msg), IMP_READ (sys_errno) or IMP_NOMEM. */

/* Deepest nesting vs_skip accepts (jansson's limit, as jscan.h). */
#define VS_MAX_DEPTH 2048

/* Most numbers one vs_uints call reads (V8 writes 7 per node). */
#define VS_MAX_UINTS 64

typedef struct vs_stream {
    lr_read_fn read;
    void *opaque;
    unsigned char *buf; /* cap + 1 bytes, NUL after the data */
    size_t cap, pos, end;
    uint64_t base;      /* input offset of buf[0] */
    int eof;
    /* the last string read by vs_string (unescaped, NUL-terminated) */
    char *text;
    size_t text_len, text_cap;
    size_t text_max;   /* bytes kept of a string; the rest is validated */
    int text_cut;      /* the last string was longer than text_max */
    uint64_t tok_off;  /* input offset of the last number vs_uint read */
    /* where the numbers of the last vs_uints began: its fast path keeps
     * only the buffer position of the record (the numbers are found again
     * when an error needs one); its general path, which may refill the
     * buffer, keeps each offset */
    size_t rec_pos;
    int rec_slow;
    uint64_t rec_off[VS_MAX_UINTS];
    /* after an error */
    uint64_t err_off;  /* input offset of the problem */
    const char *err_msg;
    int sys_errno;
} vs_stream;

/* Prepares s to read through fn with a cap-byte buffer (at least 64;
 * 0 = 1 MiB), keeping at most text_max bytes of a string. Returns IMP_OK or
 * IMP_NOMEM. vs_free releases the buffers. */
int vs_init(vs_stream *s, lr_read_fn fn, void *opaque, size_t cap,
            size_t text_max);
void vs_free(vs_stream *s);

/* Input offset of the next unread byte. */
uint64_t vs_offset(const vs_stream *s);

/* The next byte after blank space, not consumed, in *c; IMP_CUT at the end
 * of the input. */
int vs_peek(vs_stream *s, int *c);

/* Consumes the byte c after blank space; IMP_SYNTAX (with what, e.g. "',' or
 * ']'", in the message) if another byte is there. */
int vs_expect(vs_stream *s, int c);

/* Consumes open ('[' or '{') and stores whether a member follows: 0 when
 * the container is empty (its closing byte consumed too), else 1. */
int vs_open(vs_stream *s, int open, int *more);

/* Consumes ',' and stores 1, or close and stores 0: the step between the
 * members of an array or object. */
int vs_next_member(vs_stream *s, int close, int *more);

/* Reads a non-negative integer below 2^64 (JSON syntax: no leading zero,
 * no fraction or exponent); tok_off says where it began. */
int vs_uint(vs_stream *s, uint64_t *v);

/* Reads n (at most VS_MAX_UINTS) integers separated by ',' -- one node or
 * edge -- as n vs_uint calls would, then the step to the next member as
 * vs_next_member(s, ']', more) would; short_msg is the complaint when the
 * array closes among them. The hot loop of a snapshot's import: a fast
 * path parses straight from the buffer. */
int vs_uints(vs_stream *s, unsigned n, uint64_t *v, const char *short_msg,
             int *more);

/* After vs_uints returned IMP_OK, and before anything else reads from s:
 * the input offset where its number k began. */
uint64_t vs_uints_offset(const vs_stream *s, unsigned k);

/* Reads a string into s->text / s->text_len: escapes decoded, \u escapes
 * as UTF-8 (a lone surrogate as its three-byte form, as V8 writes them). */
int vs_string(vs_stream *s);

/* Skips one value of any kind, checking its syntax loosely (brackets must
 * match; numbers and literals are runs of their characters). */
int vs_skip(vs_stream *s);

/* At the start: skips a UTF-8 byte order mark, as some editors save
 * files (sniff.h lets one through). */
int vs_skip_bom(vs_stream *s);

/* After the snapshot's closing '}': IMP_OK if only blank space follows. */
int vs_at_end(vs_stream *s);

#endif /* V8SCAN_H */
