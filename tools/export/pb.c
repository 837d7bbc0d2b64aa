/* pb.c -- protocol buffers wire format: varints, lengths, packed ints. */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

void pb_free(pb_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Makes room for n more bytes; returns 0, or -1 (b->failed set). */
static int room(pb_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

void pb_varint(pb_buf *b, uint64_t v)
{
    if (room(b, 10) != 0)
        return;
    uint8_t *p = b->p + b->len;
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    b->len = (size_t)(p - b->p);
}

void pb_key(pb_buf *b, unsigned field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (unsigned)wire);
}

void pb_uint_always(pb_buf *b, unsigned field, uint64_t v)
{
    pb_key(b, field, PB_VARINT);
    pb_varint(b, v);
}

void pb_uint_opt(pb_buf *b, unsigned field, uint64_t v)
{
    if (v != 0)
        pb_uint_always(b, field, v);
}

void pb_bytes(pb_buf *b, unsigned field, const void *p, size_t n)
{
    pb_key(b, field, PB_LEN);
    pb_varint(b, n);
    if (n == 0 || room(b, n) != 0)
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void pb_message(pb_buf *b, unsigned field, const pb_buf *m)
{
    if (m->failed)
        b->failed = 1;
    pb_bytes(b, field, m->p, m->len);
}

void pb_packed(pb_buf *b, unsigned field, const uint64_t *v, size_t n)
{
    if (n == 0)
        return;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += pb_varint_size(v[i]);
    pb_key(b, field, PB_LEN);
    pb_varint(b, bytes);
    for (size_t i = 0; i < n; i++)
        pb_varint(b, v[i]);
}
