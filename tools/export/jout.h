/* jout.h -- a fast JSON text output buffer for heapfmt-export.
 *
 * The hot path of an export is "append a few hundred bytes of JSON per
 * object". jout keeps one large buffer and hands it to a write callback
 * when it fills, formats integers and object ids itself, and escapes
 * strings with a fast path for plain ASCII. Nothing is allocated after
 * jout_init.
 *
 * Strings: every string written by jout_str is valid UTF-8 JSON, whatever
 * bytes it is given. Valid UTF-8 is copied unchanged except for the JSON
 * escapes (\" \\ \b \f \n \r \t, \u00XX for the other bytes below 0x20,
 * including NUL). Each maximal ill-formed subsequence (Unicode 15, 3.9,
 * "U+FFFD Substitution of Maximal Subparts", the practice of the WHATWG
 * and of Python's errors="replace") becomes one U+FFFD.
 *
 * Errors: the first failed write is remembered (jout.err, a positive errno
 * value) and everything after it is discarded, so callers write a whole
 * record and check jout_failed() once. */
#ifndef JOUT_H
#define JOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "heapfmt.h" /* heapfmt_write_fn */

/* The buffer size jout_init uses when given 0. */
#define JOUT_DEFAULT_CAP (1u << 20)
/* The smallest buffer: enough for the largest piece written at once. */
#define JOUT_MIN_CAP (64u << 10)

typedef struct jout {
    char *buf;
    size_t len; /* bytes waiting in buf */
    size_t cap;
    heapfmt_write_fn write; /* same contract as the library's writers */
    void *opaque;
    int err;        /* 0, or the errno of the first failed write */
    uint64_t total; /* bytes handed to write so far */
} jout;

/* Sets up o over a write callback with a cap-byte buffer (0 for
 * JOUT_DEFAULT_CAP; raised to JOUT_MIN_CAP). Returns 0, or -1 when the
 * buffer cannot be allocated. */
int jout_init(jout *o, size_t cap, heapfmt_write_fn write, void *opaque);

/* Frees the buffer (without flushing). Safe on a zeroed jout. */
void jout_free(jout *o);

/* Hands everything buffered to the callback. Returns 0, or -1 with o->err
 * set (now or by an earlier failure). */
int jout_flush(jout *o);

/* A write callback over a file descriptor (opaque points at the int):
 * write(2), retrying EINTR and partial writes. */
long jout_fd_write(void *opaque, const void *buf, size_t len);

static inline int jout_failed(const jout *o)
{
    return o->err != 0;
}

/* Makes room for n bytes (n <= JOUT_MIN_CAP), flushing if needed. After a
 * failure the buffer is emptied and reused as scratch, so this always
 * succeeds in giving room. */
void jout_room_slow(jout *o, size_t n);

static inline char *jout_room(jout *o, size_t n)
{
    if (o->cap - o->len < n)
        jout_room_slow(o, n);
    return o->buf + o->len;
}

/* Appends n raw bytes (n <= JOUT_MIN_CAP; see jout_raw for any size). */
static inline void jout_put(jout *o, const char *s, size_t n)
{
    char *p = jout_room(o, n);
    memcpy(p, s, n);
    o->len += n;
}

/* Appends a string literal. */
#define JOUT_LIT(o, lit) jout_put((o), (lit), sizeof(lit) - 1)

static inline void jout_char(jout *o, char c)
{
    char *p = jout_room(o, 1);
    *p = c;
    o->len++;
}

/* Appends any number of raw bytes. */
void jout_raw(jout *o, const void *p, size_t n);

/* Longest outputs of the number formatters, in bytes. */
#define JOUT_U64_MAX 20
#define JOUT_ID_LEN 20 /* "0x" + 16 hex digits, with the quotes */

/* Writes v in decimal at p; returns the number of bytes (1..20). */
size_t jout_fmt_u64(char *p, uint64_t v);

/* Writes v (< 100000000) as exactly 8 decimal digits at p, with leading
 * zeros. */
void jout_fmt_8digits(char *p, uint32_t v);

/* Writes v as exactly 16 lower-case hex digits at p. */
void jout_fmt_hex16(char *p, uint64_t v);

/* Writes the object id v as a JSON string, "0x" and 16 lower-case hex
 * digits, at p: always JOUT_ID_LEN bytes. */
static inline void jout_fmt_id(char *p, uint64_t v)
{
    memcpy(p, "\"0x", 3);
    jout_fmt_hex16(p + 3, v);
    p[19] = '"';
}

static inline void jout_u64(jout *o, uint64_t v)
{
    char *p = jout_room(o, JOUT_U64_MAX);
    o->len += jout_fmt_u64(p, v);
}

static inline void jout_i64(jout *o, int64_t v)
{
    char *p = jout_room(o, JOUT_U64_MAX + 1);
    size_t n = 0;
    uint64_t m = (uint64_t)v;
    if (v < 0) {
        p[n++] = '-';
        m = 0 - m;
    }
    o->len += n + jout_fmt_u64(p + n, m);
}

static inline void jout_id(jout *o, uint64_t v)
{
    char *p = jout_room(o, JOUT_ID_LEN);
    jout_fmt_id(p, v);
    o->len += JOUT_ID_LEN;
}

/* Writes the first bytes (at most max) of s, len bytes of anything, as a
 * quoted JSON string: escaped, invalid UTF-8 replaced (see above). When s
 * is longer than max, the cut is made before any character that would
 * cross it. Returns 1 if s was cut, else 0. */
int jout_str(jout *o, const char *s, size_t len, size_t max);

/* Writes the same text without the quotes (for building a longer string
 * such as an _id from pieces). */
int jout_str_body(jout *o, const char *s, size_t len, size_t max);

#endif /* JOUT_H */
