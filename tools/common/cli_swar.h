/* cli_swar.h -- eight bytes at a time, for the JSON writers and readers.
 *
 * The text the tools read and write is mostly plain ASCII that needs no
 * escaping; these tests let a loop skip it eight bytes per step. */
#ifndef CLI_SWAR_H
#define CLI_SWAR_H

#include <stdint.h>
#include <string.h>

#define CLI_SWAR_ONES 0x0101010101010101ull
#define CLI_SWAR_HIGHS 0x8080808080808080ull

/* Nonzero unless all 8 bytes of x are printable ASCII other than '"' and
 * '\\' -- the bytes a JSON string holds as they are: a control byte, a
 * quote, a backslash or a non-ASCII byte makes it nonzero. The classic
 * "has a zero byte" tests, exact for "any" (which byte is not said). */
static inline uint64_t cli_swar_json_special(uint64_t x)
{
    uint64_t ctl = (x - CLI_SWAR_ONES * 0x20) & ~x;
    uint64_t q = x ^ (CLI_SWAR_ONES * '"');
    uint64_t b = x ^ (CLI_SWAR_ONES * '\\');
    return (ctl | ((q - CLI_SWAR_ONES) & ~q) | ((b - CLI_SWAR_ONES) & ~b) | x) &
           CLI_SWAR_HIGHS;
}

/* Eight bytes from p as one word, the first byte lowest (the layout the
 * hex functions below assume; CLI_SWAR_LE says whether loads give it). */
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

/* How many of the first bytes of x (cli_swar_load) are hex digits, 0-8. */
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

#endif /* CLI_SWAR_H */
