/* sniff.c -- which importer an input needs, from its first bytes. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "hprof.h"
#include "sniff.h"

static size_t blanks(const char *p, size_t n, size_t i)
{
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
                     p[i] == '\n'))
        i++;
    return i;
}

int sniff_is_v8(const char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    i = blanks(p, n, i);
    if (i == n || p[i] != '{')
        return 0;
    i = blanks(p, n, i + 1);
    static const char key[] = "\"snapshot\"";
    if (n - i < sizeof key - 1 || memcmp(p + i, key, sizeof key - 1) != 0)
        return 0;
    i = blanks(p, n, i + sizeof key - 1);
    return i < n && p[i] == ':';
}

/* Whether gzip input begins an HPROF dump: its first decoded bytes. */
static int gzip_hprof(const char *p, size_t n)
{
    char out[32];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out;
    z.avail_out = sizeof out;
    (void)inflate(&z, Z_SYNC_FLUSH); /* partial: the head only */
    size_t got = sizeof out - z.avail_out;
    inflateEnd(&z);
    return hprof_magic(out, got);
}

int sniff_kind(const char *p, size_t n)
{
    if (sniff_is_v8(p, n))
        return SNIFF_V8;
    if (hprof_magic(p, n) ||
        (n >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b &&
         gzip_hprof(p, n)))
        return SNIFF_HPROF;
    return SNIFF_RUBY;
}

void sniff_open(sniff_src *s, lr_read_fn read, void *opaque,
                int (*rewind)(void *opaque))
{
    memset(s, 0, sizeof *s);
    s->read = read;
    s->opaque = opaque;
    s->rewind = rewind;
    while (s->len < SNIFF_LEN) {
        long n = read(opaque, s->head + s->len, SNIFF_LEN - s->len);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n < 0)
            s->error = n;
        if (n <= 0)
            break;
        s->len += (size_t)n > SNIFF_LEN - s->len ? SNIFF_LEN - s->len
                                                 : (size_t)n;
    }
}

long sniff_read(void *opaque, void *buf, size_t len)
{
    sniff_src *s = opaque;
    if (s->used < s->len) {
        size_t n = s->len - s->used;
        if (n > len)
            n = len;
        memcpy(buf, s->head + s->used, n);
        s->used += n;
        return (long)n;
    }
    if (s->error) {
        long e = s->error;
        s->error = 0;
        return e;
    }
    return s->read(s->opaque, buf, len);
}

int sniff_rewind(void *opaque)
{
    sniff_src *s = opaque;
    if (!s->rewind || s->rewind(s->opaque) != 0)
        return -1;
    /* the source starts over: the head comes from it again */
    s->used = s->len;
    s->error = 0;
    return 0;
}
