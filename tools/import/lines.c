/* lines.c -- read text lines of any length, from plain or gzip input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gunzip.h"
#include "lines.h"
#include "simd.h"


#define LR_INITIAL_CAP ((size_t)1 << 20)
#define LR_CHUNK ((size_t)1 << 20)

void lr_init(lr *r, lr_read_fn fn, void *opaque, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->read = fn;
    r->opaque = opaque;
    r->max_line = max_line ? max_line : LR_DEFAULT_MAX_LINE;
    r->chunk = LR_CHUNK;
    r->initial_cap = LR_INITIAL_CAP;
}

void lr_free(lr *r)
{
    if (!r)
        return;
    gz_close(r->gz); /* first: its thread may be reading */
    r->gz = NULL;
    free(r->own ? r->own : r->buf); /* buf may be a slab, gone now */
    r->buf = r->own = NULL;
    r->cap = r->own_cap = 0;
}

int lr_is_gzip(const lr *r)
{
    return r->mode == 2;
}

/* Remembers a failure; it is reported once the lines before it are out. */
static void defer(lr *r, int error, int sys_errno, const char *msg)
{
    import_status_keep(&r->error, &r->sys_errno, r->message,
                       sizeof r->message, error, sys_errno, msg);
    r->eof = 1;
}

long lr_pull(lr_read_fn read, void *opaque, void *buf, size_t len,
             uint64_t *count)
{
    for (;;) {
        long n = read(opaque, buf, len);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n > 0) {
            if ((size_t)n > len)
                n = (long)len;
            *count += (uint64_t)n;
        }
        return n;
    }
}

static long pull(lr *r, void *buf, size_t len)
{
    return lr_pull(r->read, r->opaque, buf, len, &r->bytes_read);
}

static void read_failed(lr *r, long n)
{
    int e = (int)-n;
    defer(r, IMP_READ, e, strerror(e));
}

/* Reads the first bytes and decides between plain and gzip input. */
static void detect(lr *r)
{
    size_t have = 0;
    while (have < 2) {
        long n = pull(r, r->buf + have, r->cap - have);
        if (n < 0) {
            read_failed(r, n);
            break;
        }
        if (n == 0) {
            r->eof = 1;
            break;
        }
        have += (size_t)n;
    }
    if (have >= 2 && r->buf[0] == 0x1f && r->buf[1] == 0x8b) {
        r->mode = 2;
        if (!(r->gz = gz_open(r->read, r->opaque, r->buf, have, r->eof,
                              r->serial))) {
            defer(r, IMP_NOMEM, 0, "out of memory");
            return;
        }
        r->eof = r->error != IMP_OK;
    } else {
        r->mode = 1;
        r->end = have;
        r->bytes_decoded += have;
    }
}

/* The end of the gzip stream: the error that ended it, if any, after the
 * bytes before it. */
static void gzip_end(lr *r)
{
    int sys_errno;
    const char *msg;
    int error = gz_error(r->gz, &sys_errno, &msg);
    if (error != IMP_OK)
        defer(r, error, sys_errno, msg);
    r->eof = 1;
}

/* Decodes gzip input into buf[end..end+want), on this thread. */
static void inflate_some(lr *r, size_t want)
{
    size_t n = gz_read(r->gz, r->buf + r->end, want);
    r->end += n;
    r->bytes_decoded += n;
    r->bytes_read = gz_bytes_read(r->gz);
    if (n == 0)
        gzip_end(r);
}

/* With the reading thread: the slab it lends next becomes the buffer,
 * the bytes left (a record or line begun) copied in front of it, so that
 * decoded bytes are not copied but for those. A rest over GZ_ROOM (a
 * record that spans slabs) goes to the own buffer with the slab. */
static void fill_lent(lr *r)
{
    if (!r->own) { /* the buffer detect() read into */
        r->own = r->buf;
        r->own_cap = r->cap;
    }
    unsigned char *p;
    size_t n = gz_slab(r->gz, &p); /* the buffer's slab stays valid */
    r->bytes_read = gz_bytes_read(r->gz);
    if (n == 0) {
        gzip_end(r);
        return;
    }
    size_t left = r->end - r->start;
    if (left <= GZ_ROOM) {
        memcpy(p - left, r->buf + r->start, left);
        r->buf = p - left;
        r->cap = r->end = left + n;
    } else {
        size_t need = left + n;
        if (r->buf == r->own) {
            memmove(r->own, r->own + r->start, left);
            r->buf = NULL; /* moved */
        }
        if (need > r->own_cap) {
            size_t ncap = r->own_cap;
            while (ncap < need && ncap * 2 > ncap)
                ncap *= 2;
            unsigned char *nb = ncap >= need ? realloc(r->own, ncap + 1)
                                             : NULL;
            if (!nb) {
                if (!r->buf) { /* the rest stays, at the front */
                    r->buf = r->own;
                    r->cap = r->own_cap;
                    r->start = 0;
                    r->end = left;
                }
                defer(r, IMP_NOMEM, 0, "out of memory");
                return;
            }
            r->own = nb;
            r->own_cap = ncap;
        }
        if (r->buf) /* the rest is in the slab before */
            memcpy(r->own, r->buf + r->start, left);
        memcpy(r->own + left, p, n);
        r->buf = r->own;
        r->cap = r->own_cap;
        r->end = need;
    }
    r->start = 0;
    r->bytes_decoded += n;
}

/* Makes room and decodes more bytes; sets eof at the end of input. */
static void fill(lr *r)
{
    if (r->gz && gz_threaded(r->gz)) {
        fill_lent(r);
        return;
    }
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end == r->cap) {
        size_t ncap = r->cap ? r->cap * 2
                             : r->initial_cap >= 16 ? r->initial_cap : 16;
        if (ncap < r->cap) {
            defer(r, IMP_NOMEM, 0, "line too long for memory");
            return;
        }
        unsigned char *nb = realloc(r->buf, ncap + 1);
        if (!nb) {
            defer(r, IMP_NOMEM, 0, "out of memory");
            return;
        }
        r->buf = nb;
        r->cap = ncap;
    }
    if (r->mode == 0) {
        detect(r);
        return;
    }
    size_t want = r->cap - r->end;
    if (r->mode == 2) {
        inflate_some(r, want);
        return;
    }
    if (want > r->chunk)
        want = r->chunk;
    long n = pull(r, r->buf + r->end, want);
    if (n < 0)
        read_failed(r, n);
    else if (n == 0)
        r->eof = 1;
    else {
        r->end += (size_t)n;
        r->bytes_decoded += (uint64_t)n;
    }
}

int lr_next(lr *r)
{
    r->line = NULL;
    r->len = 0;
    for (;;) {
        if (r->sniff && !r->sniffed) {
            if (r->buf && (r->end - r->start >= LR_SNIFF_LEN || r->eof)) {
                r->sniffed = 1;
                r->line = (const char *)(r->buf + r->start);
                r->len = r->end - r->start < LR_SNIFF_LEN
                             ? r->end - r->start
                             : LR_SNIFF_LEN;
                return LR_SNIFF;
            }
            if (!r->eof) {
                fill(r);
                continue;
            }
        }
        if (r->buf && !r->skipping) {
            unsigned char *from = r->buf + r->start + r->scanned;
            unsigned char *nl = memchr(from, '\n', r->end - r->start - r->scanned);
            if (nl) {
                size_t len = (size_t)(nl - (r->buf + r->start));
                r->scanned = 0;
                lr_take_line(r, len);
                if (len > r->max_line) {
                    r->line = NULL;
                    r->len = 0;
                    return LR_LONG;
                }
                return LR_LINE;
            }
            r->scanned = r->end - r->start;
            if (r->scanned > r->max_line) {
                r->skipping = 1; /* drop what we have of it */
                r->start = r->end;
                r->scanned = 0;
            }
        } else if (r->buf) {
            unsigned char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
            if (nl) {
                r->start = (size_t)(nl + 1 - r->buf);
                r->skipping = 0;
                r->terminated = 1;
                r->lineno++;
                return LR_LONG;
            }
            r->start = r->end;
        }
        if (r->eof) {
            if (r->skipping) {
                r->skipping = 0;
                r->terminated = 0;
                r->lineno++;
                return LR_LONG;
            }
            if (r->end > r->start && r->end - r->start > r->max_line) {
                r->start = r->end;
                r->terminated = 0;
                r->lineno++;
                return LR_LONG;
            }
            if (r->end > r->start) {
                r->buf[r->end] = '\0';
                r->line = (const char *)(r->buf + r->start);
                r->len = r->end - r->start;
                r->start = r->end;
                r->scanned = 0;
                r->terminated = 0;
                r->lineno++;
                return LR_LINE;
            }
            return r->error != IMP_OK ? LR_ERROR : LR_END;
        }
        fill(r);
    }
}

size_t lr_peek(lr *r, const char **p)
{
    if (!r->buf || r->skipping || r->scanned || (r->sniff && !r->sniffed))
        return 0;
    r->buf[r->end] = '\0'; /* cap + 1 bytes are allocated */
    *p = (const char *)(r->buf + r->start);
    return r->end - r->start;
}

void lr_take_line(lr *r, size_t len)
{
    r->buf[r->start + len] = '\0'; /* the '\n', as lr_next does */
    r->line = (const char *)(r->buf + r->start);
    r->len = len;
    r->start += len + 1;
    r->terminated = 1;
    r->lineno++;
}

void lr_skip_lines(lr *r, size_t n)
{
    r->lineno += simd_count_byte(r->buf + r->start, n, '\n');
    r->start += n;
    r->line = NULL;
    r->len = 0;
    r->terminated = 1;
}

size_t lr_need_more(lr *r, size_t n)
{
    /* fill() moves the bytes left to the front, grows the buffer only
     * when it is full, and sets eof at the end or on an error */
    while ((!r->buf || r->end - r->start < n) && !r->eof)
        fill(r);
    return r->buf ? r->end - r->start : 0;
}

uint64_t lr_skip(lr *r, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        size_t have = r->buf ? r->end - r->start : 0;
        if (have == 0) {
            if (r->eof)
                break;
            fill(r); /* an empty buffer: reads without growing */
            continue;
        }
        size_t k = have < n - done ? have : (size_t)(n - done);
        lr_take(r, k);
        done += k;
    }
    return done;
}
