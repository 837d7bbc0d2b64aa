/* codec.h -- block codecs: DEFLATE through zlib, Zstandard through libzstd
 * (left out when built with HEAPFMT_NO_ZSTD). */
#ifndef HEAPFMT_CODEC_H
#define HEAPFMT_CODEC_H

#include <zlib.h>

#include "heapfmt_internal.h"

/* Compresses blocks with one codec and level. */
typedef struct hf_compressor {
    int codec, level;
    const heapfmt_allocator *al;
    z_stream zs; /* DEFLATE */
    int z_ready;
    void *zstd;  /* ZSTD_CCtx */
    uint8_t *out;
    size_t cap;
} hf_compressor;

/* codec HEAPFMT_CODEC_DEFLATE or _ZSTD, level 1.. the codec's maximum.
 * Allocates the codec's state now. Returns HEAPFMT_OK, HEAPFMT_E_NOMEM or
 * HEAPFMT_E_UNSUPPORTED. */
int hf_compressor_init(hf_compressor *c, const heapfmt_allocator *al,
                       int codec, int level);
/* Compresses len bytes into c->out; *outlen gets the size. Returns
 * HEAPFMT_OK or HEAPFMT_E_NOMEM. */
int hf_compress_block(hf_compressor *c, const uint8_t *in, size_t len,
                      size_t *outlen);
void hf_compressor_free(hf_compressor *c);

/* Decodes blocks of every codec this build has; a codec's state is made
 * when its first block arrives. */
typedef struct hf_decompressor {
    const heapfmt_allocator *al;
    z_stream zs;
    int z_ready;
    void *zstd; /* ZSTD_DCtx */
} hf_decompressor;

void hf_decompressor_init(hf_decompressor *d, const heapfmt_allocator *al);
/* Decodes exactly out_len bytes from exactly in_len bytes. Returns
 * HEAPFMT_OK, HEAPFMT_E_CORRUPT (invalid, shorter or longer stream),
 * HEAPFMT_E_NOMEM or HEAPFMT_E_UNSUPPORTED (codec not in this build). */
int hf_decompress_block(hf_decompressor *d, int codec, const uint8_t *in,
                        size_t in_len, uint8_t *out, size_t out_len);
void hf_decompressor_free(hf_decompressor *d);

#endif
