/* simd.h -- many bytes per step, for the tools' JSON readers and writers.
 *
 * Every vector or word-at-a-time trick of the tools lives here, each
 * function with its SSE2 form (part of every x86-64 processor, so no
 * runtime check) beside a portable one that gives the same answer: the
 * callers have one code path, not a tier per machine. The portable forms
 * work a word (eight bytes) at a time on little-endian machines and a
 * byte at a time elsewhere. -DHEAPFMT_NO_SIMD builds the portable forms
 * on x86-64 too, to test them.
 *
 * The 16-byte functions read exactly the 16 bytes at p: the caller checks
 * they lie inside its buffer. */
#ifndef SIMD_H
#define SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__) && \
    !defined(HEAPFMT_NO_SIMD)
#define SIMD_SSE2 1
#include <emmintrin.h>
#else
#define SIMD_SSE2 0
#endif

/* ------------------------------------------------------------------ */
/* Eight bytes in a word (SWAR), the portable building blocks          */
/* ------------------------------------------------------------------ */

#define CLI_SWAR_ONES 0x0101010101010101ull
#define CLI_SWAR_HIGHS 0x8080808080808080ull

/* Eight bytes from p as one word, the first byte lowest on little-endian
 * machines (the layout the hex functions below assume; CLI_SWAR_LE says
 * whether loads give it). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CLI_SWAR_LE 1
#else
#define CLI_SWAR_LE 0
#endif

static inline uint64_t cli_swar_load(const void *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* Nonzero unless all 8 bytes of x are printable ASCII other than '"' and
 * '\\' -- the bytes a JSON string holds as they are: a control byte, a
 * quote, a backslash or a non-ASCII byte makes it nonzero. The classic
 * "has a zero byte" tests: exact for "any", and the lowest byte marked
 * (in the layout of cli_swar_load) is the first such byte; bytes above
 * it may be marked wrongly (a borrow). */
static inline uint64_t cli_swar_json_special(uint64_t x)
{
    uint64_t ctl = (x - CLI_SWAR_ONES * 0x20) & ~x;
    uint64_t q = x ^ (CLI_SWAR_ONES * '"');
    uint64_t b = x ^ (CLI_SWAR_ONES * '\\');
    return (ctl | ((q - CLI_SWAR_ONES) & ~q) | ((b - CLI_SWAR_ONES) & ~b) | x) &
           CLI_SWAR_HIGHS;
}

/* Top bit of each byte of x that lies in [lo, hi] (lo <= hi < 0x80):
 * bytes with their top bit set never do. Each sum stays below 0x100, so
 * no carry crosses a byte. */
static inline uint64_t cli_swar_between(uint64_t x, unsigned lo, unsigned hi)
{
    uint64_t low7 = x & ~CLI_SWAR_HIGHS;
    uint64_t ge = low7 + CLI_SWAR_ONES * (0x80 - lo);
    uint64_t gt = low7 + CLI_SWAR_ONES * (0x7f - hi);
    return ge & ~gt & ~x & CLI_SWAR_HIGHS;
}

/* How many of the first bytes of x (cli_swar_load, little-endian) are hex
 * digits, 0-8. */
static inline unsigned cli_swar_hex_digits(uint64_t x)
{
    uint64_t hex = cli_swar_between(x, '0', '9') |
                   cli_swar_between(x | CLI_SWAR_ONES * 0x20, 'a', 'f');
    uint64_t stop = ~hex & CLI_SWAR_HIGHS;
    return stop ? (unsigned)__builtin_ctzll(stop) >> 3 : 8;
}

/* The value of the first n (1-8) bytes of x, hex digits, the first the
 * most significant: each byte to its nibble (a letter's bit 6 adds 9),
 * the digits moved to the top bytes (those below become leading zeros),
 * then pairs, fours and eights of nibbles joined. */
static inline uint64_t cli_swar_hex_value(uint64_t x, unsigned n)
{
    uint64_t v = (x & CLI_SWAR_ONES * 0x0f) + ((x >> 6) & CLI_SWAR_ONES) * 9;
    v <<= 8 * (8 - n);
    v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffull;
    v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffffull;
    return ((v << 16) | (v >> 32)) & 0xffffffffull;
}

/* ------------------------------------------------------------------ */
/* Sixteen bytes                                                       */
/* ------------------------------------------------------------------ */

/* Whether byte c ends a plain run inside a JSON string: '"', '\\', a
 * control byte or a non-ASCII one. */
static inline int simd_string_stop(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

/* 0 when none of the 16 bytes at p ends a plain run inside a string
 * (simd_string_stop); else a mask whose lowest set bit is the first byte
 * that does (the bits above it are not to be trusted). */
static inline unsigned simd_string_stops(const char *p)
{
#if SIMD_SSE2
    /* signed compares put bytes >= 0x80 below ' ', so one compare finds
     * both of the last two kinds */
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(x, _mm_set1_epi8(' ')));
    return (unsigned)_mm_movemask_epi8(stop);
#elif CLI_SWAR_LE
    for (unsigned half = 0; half < 16; half += 8) {
        uint64_t m = cli_swar_json_special(cli_swar_load(p + half));
        if (m)
            return 1u << (half + ((unsigned)__builtin_ctzll(m) >> 3));
    }
    return 0;
#else
    for (unsigned i = 0; i < 16; i++)
        if (simd_string_stop((unsigned char)p[i]))
            return 1u << i;
    return 0;
#endif
}

/* Whether the first n (at most 16) bytes at p are those at pat (which
 * has 16 bytes). */
static inline int simd_prefix_is(const char *p, const char *pat, size_t n)
{
#if SIMD_SSE2
    __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                                _mm_loadu_si128((const __m128i *)(const void *)pat));
    unsigned want = (1u << n) - 1;
    return ((unsigned)_mm_movemask_epi8(eq) & want) == want;
#else
    return memcmp(p, pat, n) == 0;
#endif
}

/* Whether the n bytes at p (n >= 16) are those at pat. */
static inline int simd_equal(const char *p, const char *pat, size_t n)
{
#if SIMD_SSE2
    /* a compare per sixteen bytes, the last one overlapping the one
     * before, so that no byte outside either is read */
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
#else
    return memcmp(p, pat, n) == 0;
#endif
}

/* How many of the 16 bytes at p are hex digits before the first that is
 * not (0-16), with the value of those digits (the first the most
 * significant) in *v; *v is 0 when there are none. */
static inline unsigned simd_hex_run(const char *p, uint64_t *v)
{
#if SIMD_SSE2
    /* Each digit becomes a nibble (a letter's bit 6 adds 9), pairs of
     * nibbles become bytes, the eight bytes one big-endian word, and the
     * shift drops the nibbles of the bytes after the digits. */
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* c in [lo, lo + k] as min(c - lo, k) == c - lo, unsigned */
    __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    __m128i dig = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    __m128i l = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)),
                             _mm_set1_epi8('a'));
    __m128i let = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
    unsigned hex = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
    unsigned n = (unsigned)__builtin_ctz(~hex); /* bit 16 is always clear */
    if (n == 0) {
        *v = 0;
        return 0;
    }
    /* every byte's nibble is at most 15, digit or not: no carries */
    __m128i nib = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
                               _mm_and_si128(let, _mm_set1_epi8(9)));
    __m128i pair = _mm_and_si128(
        _mm_or_si128(_mm_slli_epi16(nib, 4), _mm_srli_epi16(nib, 8)),
        _mm_set1_epi16(0xff));
    uint64_t w = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));
    *v = __builtin_bswap64(w) >> (4 * (16 - n));
    return n;
#elif CLI_SWAR_LE
    uint64_t w = cli_swar_load(p);
    unsigned d = cli_swar_hex_digits(w);
    if (d < 8) {
        *v = d ? cli_swar_hex_value(w, d) : 0;
        return d;
    }
    uint64_t hi = cli_swar_hex_value(w, 8);
    w = cli_swar_load(p + 8);
    d = cli_swar_hex_digits(w);
    *v = d ? hi << (4 * d) | cli_swar_hex_value(w, d) : hi;
    return 8 + d;
#else
    uint64_t x = 0;
    unsigned n = 0;
    for (; n < 16; n++) {
        unsigned c = (unsigned char)p[n], h;
        if (c - '0' < 10u)
            h = c - '0';
        else if ((c | 0x20) - 'a' < 6u)
            h = (c | 0x20) - 'a' + 10;
        else
            break;
        x = x << 4 | h;
    }
    *v = x;
    return n;
#endif
}

/* How many bytes c the n bytes at p hold. With SSE2, sixteen bytes a
 * compare: each match is -1 in its byte, subtracted from byte counters
 * that are summed before they can wrap (255 rounds); no popcount, which
 * is a libgcc call without -mpopcnt (1.7% of the import). */
static inline uint64_t simd_count_byte(const unsigned char *p, size_t n,
                                       unsigned char c)
{
    uint64_t k = 0;
    size_t i = 0;
#if SIMD_SSE2
    const __m128i want = _mm_set1_epi8((char)c), zero = _mm_setzero_si128();
    __m128i sums = zero;
    while (n - i >= 16) {
        size_t rounds = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
        __m128i acc = zero;
        for (size_t r = 0; r < rounds; r++, i += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(
                _mm_loadu_si128((const __m128i *)(const void *)(p + i)), want));
        sums = _mm_add_epi64(sums, _mm_sad_epu8(acc, zero));
    }
    k = (uint64_t)_mm_cvtsi128_si64(sums) +
        (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
#endif
    for (; i < n; i++)
        k += p[i] == c;
    return k;
}

/* The 16 hex digits of v, lower case, the most significant first, at p
 * (16 bytes; no NUL). */
#if SIMD_SSE2
/* Bytes in the order they are printed, then each byte's two nibbles side
 * by side (high first): 16 digits in one register. A digit above 9 gets
 * 'a' - '0' - 10 added. */
static inline void simd_fmt_hex16(char *p, uint64_t v)
{
    __m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
    __m128i lo = _mm_and_si128(x, low4);
    __m128i nib = _mm_unpacklo_epi8(hi, lo);
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)),
                                   _mm_set1_epi8('a' - '0' - 10));
    __m128i digits =
        _mm_add_epi8(_mm_add_epi8(nib, _mm_set1_epi8('0')), letter);
    _mm_storeu_si128((__m128i *)(void *)p, digits);
}
#elif CLI_SWAR_LE
/* The 8 hex digits of x as ASCII, the first digit in the lowest byte:
 * each nibble spread into a byte of its own, 10..15 given the distance
 * from '9' + 1 to 'a', and the bytes reversed so that the most
 * significant digit comes first. */
static inline uint64_t cli_swar_hex8(uint32_t x)
{
    uint64_t t = x;
    t = ((t & 0xffff0000u) << 16) | (t & 0xffffu);
    t = ((t & 0x0000ff000000ff00u) << 8) | (t & 0x000000ff000000ffu);
    t = ((t & 0x00f000f000f000f0u) << 4) | (t & 0x000f000f000f000fu);
    uint64_t letter = ((t + 0x0606060606060606u) >> 4) & 0x0101010101010101u;
    return __builtin_bswap64(t + 0x3030303030303030u + letter * ('a' - '9' - 1));
}

static inline void simd_fmt_hex16(char *p, uint64_t v)
{
    uint64_t hi = cli_swar_hex8((uint32_t)(v >> 32)),
             lo = cli_swar_hex8((uint32_t)v);
    memcpy(p, &hi, 8);
    memcpy(p + 8, &lo, 8);
}
#else
static inline void simd_fmt_hex16(char *p, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        p[i] = hex[(v >> (60 - 4 * i)) & 0xf];
}
#endif

#endif /* SIMD_H */
