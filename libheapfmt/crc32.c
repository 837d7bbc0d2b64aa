/* crc32.c -- CRC32 as zlib computes it; with carry-less multiplication
 * on x86-64 processors that have it. */
#include <zlib.h>

#include "format.h"

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

