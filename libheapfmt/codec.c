/* codec.c -- DEFLATE blocks and CRC32 through zlib. */
#include "codec.h"

uint32_t hf_crc32(const void *data, size_t len)
{
    const Bytef *p = data;
    uLong crc = crc32(0L, Z_NULL, 0);
    while (len > 0) { /* zlib takes uInt lengths */
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)crc;
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    const heapfmt_allocator *a = opaque;
    if (size && items > SIZE_MAX / size)
        return Z_NULL;
    return hf_alloc(a, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
    hf_free(opaque, p);
}

static void z_hooks(z_stream *zs, const heapfmt_allocator *al)
{
    memset(zs, 0, sizeof *zs);
    zs->zalloc = z_alloc;
    zs->zfree = z_free;
    zs->opaque = (voidpf)al;
}

int hf_deflater_init(hf_deflater *d, const heapfmt_allocator *al, int level)
{
    memset(d, 0, sizeof *d);
    d->al = al;
    z_hooks(&d->zs, al);
    /* Raw DEFLATE (negative window bits): the block has its own CRC. */
    if (deflateInit2(&d->zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return HEAPFMT_E_NOMEM;
    d->ready = 1;
    return HEAPFMT_OK;
}

int hf_deflate_block(hf_deflater *d, const uint8_t *in, size_t len,
                     size_t *outlen)
{
    size_t bound = deflateBound(&d->zs, (uLong)len);
    if (bound > d->cap) {
        uint8_t *nb = hf_alloc(d->al, bound);
        if (!nb)
            return HEAPFMT_E_NOMEM;
        hf_free(d->al, d->out);
        d->out = nb;
        d->cap = bound;
    }
    if (deflateReset(&d->zs) != Z_OK)
        return HEAPFMT_E_NOMEM;
    d->zs.next_in = (Bytef *)in;
    d->zs.avail_in = (uInt)len;
    d->zs.next_out = d->out;
    d->zs.avail_out = (uInt)d->cap;
    if (deflate(&d->zs, Z_FINISH) != Z_STREAM_END)
        return HEAPFMT_E_NOMEM;
    *outlen = d->zs.total_out;
    return HEAPFMT_OK;
}

void hf_deflater_free(hf_deflater *d)
{
    if (d->ready)
        deflateEnd(&d->zs);
    hf_free(d->al, d->out);
    memset(d, 0, sizeof *d);
}

int hf_inflater_init(hf_inflater *f, const heapfmt_allocator *al)
{
    memset(f, 0, sizeof *f);
    z_hooks(&f->zs, al);
    if (inflateInit2(&f->zs, -15) != Z_OK)
        return HEAPFMT_E_NOMEM;
    f->ready = 1;
    return HEAPFMT_OK;
}

int hf_inflate_block(hf_inflater *f, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_len)
{
    if (inflateReset(&f->zs) != Z_OK)
        return -1;
    f->zs.next_in = (Bytef *)in;
    f->zs.avail_in = (uInt)in_len;
    f->zs.next_out = out;
    f->zs.avail_out = (uInt)out_len;
    int zr = inflate(&f->zs, Z_FINISH);
    if (zr != Z_STREAM_END || f->zs.avail_in != 0 || f->zs.avail_out != 0)
        return -1;
    return 0;
}

void hf_inflater_free(hf_inflater *f)
{
    if (f->ready)
        inflateEnd(&f->zs);
    memset(f, 0, sizeof *f);
}
