/* codec.h -- block codecs: DEFLATE through zlib, with CRC32. */
#ifndef HEAPFMT_CODEC_H
#define HEAPFMT_CODEC_H

#include <zlib.h>

#include "heapfmt_internal.h"

typedef struct hf_deflater {
    z_stream zs;
    int ready;
    const heapfmt_allocator *al;
    uint8_t *out;
    size_t cap;
} hf_deflater;

/* level 1-9. Returns HEAPFMT_OK or HEAPFMT_E_NOMEM. */
int hf_deflater_init(hf_deflater *d, const heapfmt_allocator *al, int level);
/* Compresses len bytes into d->out as a raw DEFLATE stream; *outlen gets
 * its size. Returns HEAPFMT_OK or HEAPFMT_E_NOMEM. */
int hf_deflate_block(hf_deflater *d, const uint8_t *in, size_t len,
                     size_t *outlen);
void hf_deflater_free(hf_deflater *d);

typedef struct hf_inflater {
    z_stream zs;
    int ready;
} hf_inflater;

int hf_inflater_init(hf_inflater *f, const heapfmt_allocator *al);
/* Decodes exactly out_len bytes from exactly in_len bytes. Returns 0, or -1
 * if the stream is invalid, shorter or longer. */
int hf_inflate_block(hf_inflater *f, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_len);
void hf_inflater_free(hf_inflater *f);

#endif
