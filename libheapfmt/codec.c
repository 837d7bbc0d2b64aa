/* codec.c -- DEFLATE blocks and CRC32 through zlib; CRC32 with carry-less
 * multiplication on x86-64 processors that have it. */
#include "codec.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HF_CRC_CLMUL 1
#else
#define HF_CRC_CLMUL 0
#endif

/* zlib's crc32 over any length (it takes uInt lengths). */
static uLong crc32_zlib(uLong crc, const uint8_t *p, size_t len)
{
    while (len > 0) {
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}

#if HF_CRC_CLMUL
/* CRC32 (the reflected polynomial 0xEDB88320) by folding with PCLMULQDQ,
 * after Gopal et al., "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction" (Intel, 2009). The constants are that paper's
 * for this polynomial in the bit-reflected domain: k1 = x^(4*128+32) mod P
 * and k2 = x^(4*128-32) mod P fold 512 bits at a time, k3 = x^(128+32)
 * and k4 = x^(128-32) fold 128 bits, k5 = x^64 reduces 96 bits to 64,
 * and P' and mu = x^64 / P are the Barrett reduction to 32 bits.
 *
 * state is the CRC register (zlib's value, inverted); len is a multiple
 * of 16, at least 64. Returns the register after the data. The result is
 * the same as zlib's, checked by tests/test_vector.c and by every block
 * checksum of every test. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc32_clmul(const uint8_t *p, size_t len, uint32_t state)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);

    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 0));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)state));
    p += 64;
    len -= 64;

    /* Four lanes of 128 bits, each folded 512 bits forward. */
    while (len >= 64) {
        __m128i l1 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        __m128i l2 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        __m128i l3 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        __m128i l4 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
        x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
        x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
        x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, l1),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 0)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, l2),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, l3),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, l4),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
        p += 64;
        len -= 64;
    }

    /* The four lanes into one, then the remaining 16-byte pieces. */
    __m128i lo = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), lo), x2);
    lo = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), lo), x3);
    lo = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), lo), x4);
    while (len >= 16) {
        lo = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(
            _mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), lo),
            _mm_loadu_si128((const __m128i *)(const void *)p));
        p += 16;
        len -= 16;
    }

    /* 128 bits to 64, then 64 to 32 by Barrett reduction. */
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, mask32);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5, 0x00), x2);
    x2 = _mm_and_si128(x1, mask32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, mask32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

/* Whether this processor has PCLMULQDQ and SSE4.1. Reads what libgcc's
 * constructor found at start-up (hf_crc32 is never called from a
 * constructor); no state of ours. */
static int have_clmul(void)
{
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

uint32_t hf_crc32(const void *data, size_t len)
{
    const uint8_t *p = data;
    uLong crc = crc32(0L, Z_NULL, 0);
#if HF_CRC_CLMUL
    /* Short inputs (block headers) are not worth the set-up. */
    if (len >= 256 && have_clmul()) {
        size_t n = len & ~(size_t)15;
        crc = ~crc32_clmul(p, n, ~(uint32_t)crc) & 0xffffffffu;
        p += n;
        len -= n;
    }
#endif
    return (uint32_t)crc32_zlib(crc, p, len);
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
