/*
 * test_codec.c -- the block codec helpers of libheapfmt/codec.c.
 *
 * hf_crc32 takes a carry-less-multiplication path for long inputs on
 * processors that have it and zlib's crc32 otherwise; whatever the path,
 * the result must be zlib's for every length and alignment. Block round
 * trips through hf_deflate_block and hf_inflate_block must give the input
 * back and refuse streams of the wrong length.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec.h"

static uint32_t zlib_crc(const uint8_t *p, size_t len)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)len);
}

/* Deterministic bytes: xorshift64. */
static void fill(uint8_t *p, size_t len, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 32);
    }
}

Test(crc32, check_value)
{
    cr_assert_eq(hf_crc32("123456789", 9), 0xcbf43926u);
    cr_assert_eq(hf_crc32("", 0), 0u);
}

Test(crc32, every_length_and_alignment_matches_zlib)
{
    enum { MAX = 4200 };
    uint8_t *buf = malloc(MAX + 16);
    cr_assert_not_null(buf);
    fill(buf, MAX + 16, 42);
    for (size_t align = 0; align < 16; align += 3)
        for (size_t len = 0; len <= MAX; len++)
            cr_assert_eq(hf_crc32(buf + align, len), zlib_crc(buf + align, len),
                         "length %zu at alignment %zu", len, align);
    free(buf);
}

Test(crc32, special_inputs_match_zlib)
{
    enum { LEN = 1 << 20 };
    uint8_t *buf = malloc(LEN + 1);
    cr_assert_not_null(buf);
    memset(buf, 0, LEN + 1);
    cr_assert_eq(hf_crc32(buf, LEN), zlib_crc(buf, LEN), "zeros");
    memset(buf, 0xff, LEN + 1);
    cr_assert_eq(hf_crc32(buf + 1, LEN), zlib_crc(buf + 1, LEN), "ones");
    fill(buf, LEN + 1, 7);
    for (size_t len = LEN - 70; len <= LEN; len++)
        cr_assert_eq(hf_crc32(buf + 1, len), zlib_crc(buf + 1, len),
                     "random, length %zu", len);
    free(buf);
}

/* Both codecs round-trip at several levels, and a decoder refuses a raw
 * length that differs from the stream's and a cut stream. */
static void codec_round_trip(int codec, int maxlevel)
{
    enum { LEN = 300000 };
    heapfmt_allocator al = {0};
    hf_allocator_init(&al, NULL);
    uint8_t *in = malloc(LEN), *out = malloc(LEN);
    cr_assert(in != NULL && out != NULL);
    fill(in, LEN, 3);
    for (size_t i = 0; i < LEN; i += 7) /* compressible in part */
        in[i] = 'a';
    for (int level = 1; level <= maxlevel; level += 4) {
        hf_compressor c;
        hf_decompressor d;
        size_t zlen;
        cr_assert_eq(hf_compressor_init(&c, &al, codec, level), HEAPFMT_OK);
        hf_decompressor_init(&d, &al);
        cr_assert_eq(hf_compress_block(&c, in, LEN, &zlen), HEAPFMT_OK);
        cr_assert_lt(zlen, (size_t)LEN, "%s level %d compresses",
                     heapfmt_codec_name(codec), level);
        memset(out, 0, LEN);
        cr_assert_eq(hf_decompress_block(&d, codec, c.out, zlen, out, LEN),
                     HEAPFMT_OK);
        cr_assert_eq(memcmp(in, out, LEN), 0, "level %d round trip", level);
        cr_assert_eq(hf_decompress_block(&d, codec, c.out, zlen, out, LEN - 1),
                     HEAPFMT_E_CORRUPT, "a shorter raw length is refused");
        cr_assert_eq(hf_decompress_block(&d, codec, c.out, zlen, out, LEN + 1),
                     HEAPFMT_E_CORRUPT, "a longer raw length is refused");
        cr_assert_eq(hf_decompress_block(&d, codec, c.out, zlen - 1, out, LEN),
                     HEAPFMT_E_CORRUPT, "a cut stream is refused");
        hf_compressor_free(&c);
        hf_decompressor_free(&d);
    }
    free(in);
    free(out);
}

Test(codec, deflate_round_trip)
{
    codec_round_trip(HEAPFMT_CODEC_DEFLATE, HEAPFMT_DEFLATE_MAX_LEVEL);
}

Test(codec, zstd_round_trip)
{
    codec_round_trip(HEAPFMT_CODEC_ZSTD, HEAPFMT_ZSTD_MAX_LEVEL);
}

Test(codec, names_and_support)
{
    cr_assert_str_eq(heapfmt_codec_name(HEAPFMT_CODEC_ZSTD), "zstd");
    cr_assert_str_eq(heapfmt_codec_name(HEAPFMT_CODEC_DEFLATE), "deflate");
    cr_assert_str_eq(heapfmt_codec_name(3), "unknown");
    cr_assert_eq(heapfmt_codec_supported(HEAPFMT_CODEC_ZSTD), 1);
    cr_assert_eq(heapfmt_codec_supported(3), 0);
}
