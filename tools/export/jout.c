/* jout.c -- a fast JSON text output buffer: flushing, numbers, strings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simd.h"
#include "jout.h"

/* ------------------------------------------------------------------ */
/* Buffer                                                              */
/* ------------------------------------------------------------------ */

int jout_init(jout *o, size_t cap, heapfmt_write_fn write, void *opaque)
{
    memset(o, 0, sizeof *o);
    if (cap == 0)
        cap = JOUT_DEFAULT_CAP;
    if (cap < JOUT_MIN_CAP)
        cap = JOUT_MIN_CAP;
    o->buf = malloc(cap);
    if (o->buf == NULL)
        return -1;
    o->cap = cap;
    o->write = write;
    o->opaque = opaque;
    return 0;
}

void jout_free(jout *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}

int jout_flush(jout *o)
{
    size_t done = 0;
    while (o->err == 0 && done < o->len) {
        long n = o->write(o->opaque, o->buf + done, o->len - done);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n <= 0 || (size_t)n > o->len - done) {
            o->err = n < 0 ? (int)-n : EIO;
            break;
        }
        done += (size_t)n;
        o->total += (uint64_t)n;
    }
    o->len = 0;
    return o->err != 0 ? -1 : 0;
}

long jout_fd_write(void *opaque, const void *buf, size_t len)
{
    int fd = *(const int *)opaque;
    ssize_t n = write(fd, buf, len);
    if (n < 0)
        return -(long)errno;
    return (long)n;
}

void jout_room_slow(jout *o, size_t n)
{
    (void)n; /* n <= JOUT_MIN_CAP <= cap: an empty buffer always fits */
    if (o->err != 0)
        o->len = 0; /* discard: the output is lost already */
    else
        jout_flush(o);
}

void jout_raw(jout *o, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        if (o->len == o->cap)
            jout_room_slow(o, 1);
        size_t k = o->cap - o->len;
        if (k > n)
            k = n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

static const char digit_pairs[201] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

/* Decimal digits of v: the bit length times log10(2) (1233 / 4096) is
 * the count or one less; one compare decides. */
static inline unsigned decimal_digits(uint64_t v)
{
    static const uint64_t pow10[20] = {
        1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
        100000000u, 1000000000u, 10000000000u, 100000000000u,
        1000000000000u, 10000000000000u, 100000000000000u,
        1000000000000000u, 10000000000000000u, 100000000000000000u,
        1000000000000000000u, 10000000000000000000u};
    unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;
    return t + ((v | 1) >= pow10[t]); /* t <= 19; 0 has one digit */
}

/* Written from the last digit back, straight into p: a copy of a
 * variable length from a scratch buffer was a libc call per number. */
size_t jout_fmt_u64(char *p, uint64_t v)
{
    size_t n = decimal_digits(v);
    char *q = p + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, digit_pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(q - 2, digit_pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return n;
}

void jout_fmt_8digits(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, digit_pairs + 2 * (lo % 100), 2);
}

/* An id is written for every object and reference: export's hottest
 * formatting (simd.h holds its vector and word ways). */
void jout_fmt_hex16(char *p, uint64_t v)
{
    simd_fmt_hex16(p, v);
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

/* For bytes below 0x80: 0 = copy as is, else the escape letter ('u' for
 * \u00XX). */
static const char ascii_escape[128] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    'u', 'u', 'u', 'u', 0,   0,   '"', 0, /* 0x20-0x23 */
    [0x5c] = '\\',
};

/* Input bytes handled per room request: each can become at most 6 output
 * bytes (\u00XX), so a chunk always fits in JOUT_MIN_CAP. */
#define STR_CHUNK (8u << 10)

int jout_str_body(jout *o, const char *str, size_t len, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t lim = len > max ? max : len;
    int cut = len > max;
    size_t i = 0;
    while (i < lim) {
        size_t chunk_end = lim - i > STR_CHUNK ? i + STR_CHUNK : lim;
        /* a multi-byte sequence may run past chunk_end (by 3 bytes at
         * most), never past lim: room for 6 bytes per input byte plus 6 */
        char *p = jout_room(o, 6 * (chunk_end - i) + 6);
        char *start = p;
        while (i < chunk_end) {
            while (i + 8 <= chunk_end) {
                uint64_t x = cli_swar_load(s + i);
                if (cli_swar_json_special(x))
                    break;
                memcpy(p, s + i, 8);
                p += 8;
                i += 8;
            }
            if (i >= chunk_end)
                break;
            unsigned c = s[i];
            if (c < 0x80) {
                char e = ascii_escape[c];
                if (e == 0) {
                    *p++ = (char)c;
                } else if (e != 'u') {
                    p[0] = '\\';
                    p[1] = e;
                    p += 2;
                } else {
                    static const char hex[] = "0123456789abcdef";
                    memcpy(p, "\\u00", 4);
                    p[4] = hex[c >> 4];
                    p[5] = hex[c & 0xf];
                    p += 6;
                }
                i++;
                continue;
            }
            /* A multi-byte sequence: its length and the range of its
             * second byte follow from the lead byte (Unicode table 3-7). */
            size_t need;
            unsigned lo = 0x80, hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) {
                need = 2;
            } else if (c >= 0xe0 && c <= 0xef) {
                need = 3;
                if (c == 0xe0)
                    lo = 0xa0;
                else if (c == 0xed)
                    hi = 0x9f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                need = 4;
                if (c == 0xf0)
                    lo = 0x90;
                else if (c == 0xf4)
                    hi = 0x8f;
            } else {
                need = 0; /* 0x80-0xc1, 0xf5-0xff: never valid */
            }
            size_t k = 1;
            if (need != 0 && i + 1 < lim && s[i + 1] >= lo && s[i + 1] <= hi) {
                k = 2;
                while (k < need && i + k < lim && s[i + k] >= 0x80 &&
                       s[i + k] <= 0xbf)
                    k++;
            }
            if (k == need) {
                memcpy(p, s + i, need);
                p += need;
            } else if (cut && need != 0 && i + k == lim) {
                /* a sequence cut by max: stop before it */
                i = lim;
                break;
            } else {
                memcpy(p, "\xef\xbf\xbd", 3); /* U+FFFD */
                p += 3;
            }
            i += k;
        }
        o->len += (size_t)(p - start);
    }
    return cut;
}

int jout_str(jout *o, const char *s, size_t len, size_t max)
{
    jout_char(o, '"');
    int cut = jout_str_body(o, s, len, max);
    jout_char(o, '"');
    return cut;
}
