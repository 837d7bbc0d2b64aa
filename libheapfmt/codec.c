/* codec.c -- DEFLATE and Zstandard blocks. Both libraries allocate through
 * the handle's allocator. */
#include "codec.h"

#ifndef HEAPFMT_NO_ZSTD
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: our allocator */
#include <zstd.h>
#include <zstd_errors.h>
#endif

int heapfmt_codec_supported(int codec)
{
    switch (codec) {
    case HEAPFMT_CODEC_STORED:
    case HEAPFMT_CODEC_DEFLATE:
        return 1;
#ifndef HEAPFMT_NO_ZSTD
    case HEAPFMT_CODEC_ZSTD:
        return 1;
#endif
    default:
        return 0;
    }
}

const char *heapfmt_codec_name(int codec)
{
    switch (codec) {
    case HEAPFMT_CODEC_STORED:
        return "stored";
    case HEAPFMT_CODEC_DEFLATE:
        return "deflate";
    case HEAPFMT_CODEC_ZSTD:
        return "zstd";
    default:
        return "unknown";
    }
}

/* ---- zlib ---- */

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

/* ---- libzstd ---- */

#ifndef HEAPFMT_NO_ZSTD
static void *zstd_alloc(void *opaque, size_t size)
{
    return hf_alloc(opaque, size);
}

static void zstd_free(void *opaque, void *p)
{
    hf_free(opaque, p);
}

static ZSTD_customMem zstd_hooks(const heapfmt_allocator *al)
{
    ZSTD_customMem m = {zstd_alloc, zstd_free, (void *)al};
    return m;
}
#endif

/* ---- compression ---- */

static size_t compress_bound(const hf_compressor *c, size_t len)
{
#ifndef HEAPFMT_NO_ZSTD
    if (c->codec == HEAPFMT_CODEC_ZSTD)
        return ZSTD_compressBound(len);
#endif
    return deflateBound((z_streamp)&c->zs, (uLong)len);
}

int hf_compressor_init(hf_compressor *c, const heapfmt_allocator *al,
                       int codec, int level)
{
    memset(c, 0, sizeof *c);
    c->al = al;
    c->codec = codec;
    c->level = level;
    if (codec == HEAPFMT_CODEC_DEFLATE) {
        z_hooks(&c->zs, al);
        /* Raw DEFLATE (negative window bits): the block has its own CRC. */
        if (deflateInit2(&c->zs, level, Z_DEFLATED, -15, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK)
            return HEAPFMT_E_NOMEM;
        c->z_ready = 1;
        return HEAPFMT_OK;
    }
#ifndef HEAPFMT_NO_ZSTD
    if (codec == HEAPFMT_CODEC_ZSTD) {
        ZSTD_CCtx *z = ZSTD_createCCtx_advanced(zstd_hooks(al));
        if (!z)
            return HEAPFMT_E_NOMEM;
        c->zstd = z;
        /* The block has its own CRC and its raw length: no frame checksum,
         * but the content size, so a decoder can check it. */
        if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel,
                                                level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 0)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1)))
            return HEAPFMT_E_NOMEM;
        return HEAPFMT_OK;
    }
#endif
    return HEAPFMT_E_UNSUPPORTED;
}

int hf_compress_block(hf_compressor *c, const uint8_t *in, size_t len,
                      size_t *outlen)
{
    size_t bound = compress_bound(c, len);
    if (bound > c->cap) {
        uint8_t *nb = hf_alloc(c->al, bound);
        if (!nb)
            return HEAPFMT_E_NOMEM;
        hf_free(c->al, c->out);
        c->out = nb;
        c->cap = bound;
    }
#ifndef HEAPFMT_NO_ZSTD
    if (c->codec == HEAPFMT_CODEC_ZSTD) {
        size_t n = ZSTD_compress2(c->zstd, c->out, c->cap, in, len);
        if (ZSTD_isError(n))
            return HEAPFMT_E_NOMEM; /* the bound fits: only memory fails */
        *outlen = n;
        return HEAPFMT_OK;
    }
#endif
    if (deflateReset(&c->zs) != Z_OK)
        return HEAPFMT_E_NOMEM;
    c->zs.next_in = (Bytef *)in;
    c->zs.avail_in = (uInt)len;
    c->zs.next_out = c->out;
    c->zs.avail_out = (uInt)c->cap;
    if (deflate(&c->zs, Z_FINISH) != Z_STREAM_END)
        return HEAPFMT_E_NOMEM;
    *outlen = c->zs.total_out;
    return HEAPFMT_OK;
}

void hf_compressor_free(hf_compressor *c)
{
    if (c->z_ready)
        deflateEnd(&c->zs);
#ifndef HEAPFMT_NO_ZSTD
    ZSTD_freeCCtx(c->zstd);
#endif
    if (c->al)
        hf_free(c->al, c->out);
    memset(c, 0, sizeof *c);
}

/* ---- decompression ---- */

void hf_decompressor_init(hf_decompressor *d, const heapfmt_allocator *al)
{
    memset(d, 0, sizeof *d);
    d->al = al;
}

static int inflate_block(hf_decompressor *d, const uint8_t *in,
                         size_t in_len, uint8_t *out, size_t out_len)
{
    if (!d->z_ready) {
        z_hooks(&d->zs, d->al);
        if (inflateInit2(&d->zs, -15) != Z_OK)
            return HEAPFMT_E_NOMEM;
        d->z_ready = 1;
    } else if (inflateReset(&d->zs) != Z_OK) {
        return HEAPFMT_E_CORRUPT;
    }
    d->zs.next_in = (Bytef *)in;
    d->zs.avail_in = (uInt)in_len;
    d->zs.next_out = out;
    d->zs.avail_out = (uInt)out_len;
    int zr = inflate(&d->zs, Z_FINISH);
    if (zr == Z_MEM_ERROR)
        return HEAPFMT_E_NOMEM;
    if (zr != Z_STREAM_END || d->zs.avail_in != 0 || d->zs.avail_out != 0)
        return HEAPFMT_E_CORRUPT;
    return HEAPFMT_OK;
}

#ifndef HEAPFMT_NO_ZSTD
static int zstd_block(hf_decompressor *d, const uint8_t *in, size_t in_len,
                      uint8_t *out, size_t out_len)
{
    if (!d->zstd && !(d->zstd = ZSTD_createDCtx_advanced(zstd_hooks(d->al))))
        return HEAPFMT_E_NOMEM;
    /* One shot into the block buffer: no window of its own, and a frame
     * that would produce more than out_len fails instead of growing. */
    size_t n = ZSTD_decompressDCtx(d->zstd, out, out_len, in, in_len);
    if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation)
            return HEAPFMT_E_NOMEM;
        return HEAPFMT_E_CORRUPT;
    }
    return n == out_len ? HEAPFMT_OK : HEAPFMT_E_CORRUPT;
}
#endif

int hf_decompress_block(hf_decompressor *d, int codec, const uint8_t *in,
                        size_t in_len, uint8_t *out, size_t out_len)
{
    if (codec == HEAPFMT_CODEC_DEFLATE)
        return inflate_block(d, in, in_len, out, out_len);
#ifndef HEAPFMT_NO_ZSTD
    if (codec == HEAPFMT_CODEC_ZSTD)
        return zstd_block(d, in, in_len, out, out_len);
#endif
    return HEAPFMT_E_UNSUPPORTED;
}

void hf_decompressor_free(hf_decompressor *d)
{
    if (d->z_ready)
        inflateEnd(&d->zs);
#ifndef HEAPFMT_NO_ZSTD
    ZSTD_freeDCtx(d->zstd);
#endif
    memset(d, 0, sizeof *d);
}
