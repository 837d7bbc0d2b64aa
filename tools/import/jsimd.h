/* jsimd.h -- sixteen bytes at a time for the dump_all scanner.
 *
 * SSE2 is part of every x86-64 processor, so no runtime check is needed;
 * elsewhere JSIMD is 0 and jscan.c keeps its eight-byte (cli_swar.h) and
 * byte-at-a-time paths. Each function reads exactly the 16 bytes at p: the
 * caller checks they lie inside the line. */
#ifndef JSIMD_H
#define JSIMD_H

#include <stdint.h>

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#define JSIMD 1
#include <emmintrin.h>

/* Bit i set when p[i] ends a plain run inside a string: '"', '\\', a
 * control byte or a non-ASCII one. Signed compares put bytes >= 0x80
 * below ' ', so one compare finds both of the last two kinds. */
static inline unsigned jsimd_string_stops(const char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(x, _mm_set1_epi8(' ')));
    return (unsigned)_mm_movemask_epi8(stop);
}

/* Whether the first n (at most 16) bytes at p are those at pat (which
 * has 16 bytes). */
static inline int jsimd_prefix_is(const char *p, const char *pat, size_t n)
{
    __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                                _mm_loadu_si128((const __m128i *)(const void *)pat));
    unsigned want = (1u << n) - 1;
    return ((unsigned)_mm_movemask_epi8(eq) & want) == want;
}

/* Whether the n bytes at p (n >= 16) are those at pat: a compare per
 * sixteen bytes, the last one overlapping the one before, so that no byte
 * outside either is read. */
static inline int jsimd_equal(const char *p, const char *pat, size_t n)
{
    __m128i diff = _mm_setzero_si128();
    for (size_t i = 0; i + 16 < n; i += 16)
        diff = _mm_or_si128(diff, _mm_xor_si128(
            _mm_loadu_si128((const __m128i *)(const void *)(p + i)),
            _mm_loadu_si128((const __m128i *)(const void *)(pat + i))));
    diff = _mm_or_si128(diff, _mm_xor_si128(
        _mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)),
        _mm_loadu_si128((const __m128i *)(const void *)(pat + n - 16))));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) ==
           0xffff;
}

/* How many of the bytes at p are hex digits (0-16), with the value of
 * those digits (the first the most significant) in *v when there are
 * some. Each digit becomes a nibble (a letter's bit 6 adds 9), pairs of
 * nibbles become bytes, the eight bytes one big-endian word, and the
 * shift drops the nibbles of the bytes after the digits. */
static inline unsigned jsimd_hex_run(const char *p, uint64_t *v)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* c in [lo, lo + k] as min(c - lo, k) == c - lo, unsigned */
    __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    __m128i dig = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    __m128i l = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)),
                             _mm_set1_epi8('a'));
    __m128i let = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
    unsigned hex = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
    unsigned n = (unsigned)__builtin_ctz(~hex); /* bit 16 is always clear */
    if (n == 0)
        return 0;
    /* every byte's nibble is at most 15, digit or not: no carries */
    __m128i nib = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
                               _mm_and_si128(let, _mm_set1_epi8(9)));
    __m128i pair = _mm_and_si128(
        _mm_or_si128(_mm_slli_epi16(nib, 4), _mm_srli_epi16(nib, 8)),
        _mm_set1_epi16(0xff));
    uint64_t w = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));
    *v = __builtin_bswap64(w) >> (4 * (16 - n));
    return n;
}
#else
#define JSIMD 0
#endif

#endif /* JSIMD_H */
