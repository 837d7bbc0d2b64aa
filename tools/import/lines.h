/* lines.h -- read text lines of any length, from plain or gzip input.
 *
 * The reader pulls bytes through a read callback (a file descriptor in the
 * tool, memory in the tests), recognises gzip input by its first two bytes
 * (1f 8b; concatenated gzip members are read one after another) and hands
 * out one line at a time, without its '\n', followed by a NUL byte.
 *
 * Memory: one buffer that holds the current line; it starts at 1 MiB and
 * doubles when a line needs it, so it ends up about twice the longest line.
 * A line longer than max_line is not kept: it is skipped up to its '\n'
 * and reported as LR_LONG. Nothing else is allocated per line. */
#ifndef LINES_H
#define LINES_H

#include <stddef.h>
#include <stdint.h>

#include "import_status.h"

/* Like heapfmt_read_fn: up to len bytes into buf; returns the count, 0 at
 * the end of input, or a negative errno value (-EINTR and -EAGAIN are
 * retried). */
typedef long (*lr_read_fn)(void *opaque, void *buf, size_t len);

#define LR_DEFAULT_MAX_LINE ((size_t)1 << 30) /* 1 GiB */
#define LR_SNIFF_LEN 64

enum lr_result {
    LR_LINE = 0,   /* a line: lr.line, lr.len, lr.lineno */
    LR_END = 1,    /* clean end of input */
    LR_LONG = 2,   /* line lr.lineno is longer than max_line; skipped */
    LR_SNIFF = 3,  /* with lr.sniff set, once, before the first line: the
                      first LR_SNIFF_LEN decoded bytes (fewer at the end of
                      input) in lr.line, lr.len, nothing consumed: enough
                      to name an input that is not text lines before a
                      whole "line" of it is buffered */
    LR_ERROR = -1  /* see lr.error: a read error, a damaged or truncated
                      compressed stream, out of memory. Sticky. */
};

typedef struct lr {
    lr_read_fn read;
    void *opaque;
    size_t max_line;
    size_t chunk;       /* bytes asked from read() at a time (1 MiB) */
    size_t initial_cap; /* first buffer size (1 MiB; tests set it small) */

    unsigned char *buf; /* decoded bytes; cap + 1 allocated (for the NUL) */
    size_t cap;
    unsigned char *own; /* with gunzip.h's thread, buf is the slab it lent
                           or this buffer of own_cap + 1 bytes (a rest
                           over GZ_ROOM and the slab after it) */
    size_t own_cap;
    size_t start;     /* first byte of the current line */
    size_t end;       /* end of the decoded bytes */
    size_t scanned;   /* bytes from start already searched for '\n' */
    int eof;          /* no more decoded bytes will come */
    int skipping;     /* discarding an over-long line */
    int sniff;        /* the caller wants LR_SNIFF (set after lr_init) */
    int sniffed;      /* it was returned */

    /* gzip */
    int mode;         /* 0 unknown yet, 1 plain, 2 gzip */
    int serial;       /* inflate on the caller's thread, not on a reading
                         thread (set after lr_init; gunzip.h) */
    struct gz_in *gz;

    /* results */
    const char *line; /* the line (NUL-terminated), valid until lr_next */
    size_t len;
    uint64_t lineno;  /* 1-based number of the line just returned */
    int terminated;   /* the line ended with '\n' (0: last line of input) */
    uint64_t bytes_read;    /* bytes from the callback */
    uint64_t bytes_decoded; /* bytes after gunzip (= bytes_read if plain) */
    uint64_t taken;   /* bytes consumed through lr_take and lr_skip */
    int error;        /* after LR_ERROR: IMP_READ (sys_errno), IMP_NOMEM,
                         IMP_CORRUPT or IMP_CUT (a gzip stream damaged or
                         ending early) */
    int sys_errno;
    char message[128];
} lr;

/* One read through fn, retrying -EINTR and -EAGAIN: its result, the
 * bytes counted in *count. */
long lr_pull(lr_read_fn fn, void *opaque, void *buf, size_t len,
             uint64_t *count);

/* Prepares r to read through fn. max_line 0 means LR_DEFAULT_MAX_LINE.
 * Allocates nothing yet. */
void lr_init(lr *r, lr_read_fn fn, void *opaque, size_t max_line);

/* Returns the next line (LR_LINE), LR_END, LR_LONG or LR_ERROR. After
 * LR_ERROR, lines decoded before the failure have all been returned; the
 * last one has terminated == 0 when it was cut. */
int lr_next(lr *r);

/* For a caller that finds the end of the next line itself, while it scans
 * the line (a memchr per line first was 2.5% of the import): the decoded
 * bytes held from the next line's start on, followed by a NUL byte, in
 * *p, and how many; 0 when there are none or lr_next must decide (before
 * the sniff, while skipping a long line). The bytes stay until the next
 * lr_next or lr_take_line. */
size_t lr_peek(lr *r, const char **p);

/* Consumes the next line, of len bytes and a '\n' after them, which the
 * caller found after lr_peek (with len at most max_line: the same as
 * lr_next returning LR_LINE); lr_next's own way past a line. */
void lr_take_line(lr *r, size_t len);

/* Consumes whole lines without returning them: the first n bytes that
 * lr_peek showed, which end with a '\n'. lineno counts them. For a caller
 * that knows the lines hold nothing for it (a '\n' search per line was
 * most of the time of the import's first pass). */
void lr_skip_lines(lr *r, size_t n);

/* The stream offset of the bytes lr_peek shows. */
static inline uint64_t lr_peek_offset(const lr *r)
{
    return r->bytes_decoded - (uint64_t)(r->end - r->start);
}

/* After LR_LINE: the line's offset in the decoded stream, and the end of
 * the decoded bytes held after it (the lines to come, readable from
 * r->line up to there until the next lr_next), for searches that look at
 * many lines at once. */
static inline uint64_t lr_line_offset(const lr *r)
{
    size_t at = (size_t)((const unsigned char *)r->line - r->buf);
    return r->bytes_decoded - (uint64_t)(r->end - at);
}
static inline const char *lr_ahead(const lr *r)
{
    return (const char *)r->buf + r->end;
}

/* 1 if the input is gzip (known after the first lr_next). */
int lr_is_gzip(const lr *r);

/* Byte access, for binary inputs (HPROF) through the same plain or gzip
 * decoding; not to be mixed with lr_next on one reader.
 * lr_need makes n decoded bytes available at lr_bytes(r), reading and
 * growing the buffer only as bytes arrive (so memory follows what the
 * input holds, not what a length in it claims), and returns how many are
 * available: n or more, fewer only at the end of the input or after an
 * error (r->error). lr_take consumes n of them (n <= available). */
size_t lr_need_more(lr *r, size_t n);
static inline size_t lr_need(lr *r, size_t n)
{
    /* inline when the bytes are there: a call per HPROF field was 3.5%
     * of a gzip import's time */
    if (r->buf && r->end - r->start >= n)
        return r->end - r->start;
    return lr_need_more(r, n);
}
static inline const unsigned char *lr_bytes(const lr *r)
{
    return r->buf + r->start;
}
static inline void lr_take(lr *r, size_t n)
{
    r->start += n;
    r->taken += n;
}

/* Consumes up to n decoded bytes without keeping them; returns how many
 * (fewer only at the end of the input or after an error). */
uint64_t lr_skip(lr *r, uint64_t n);

/* Decoded bytes consumed so far by lr_take and lr_skip. */
static inline uint64_t lr_offset(const lr *r)
{
    return r->taken;
}

/* Releases the buffers and zlib state. */
void lr_free(lr *r);

#endif /* LINES_H */
