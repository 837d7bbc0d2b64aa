/* cli_swar.h -- eight bytes at a time, for the JSON writers and readers.
 *
 * The text the tools read and write is mostly plain ASCII that needs no
 * escaping; these tests let a loop skip it eight bytes per step. */
#ifndef CLI_SWAR_H
#define CLI_SWAR_H

#include <stdint.h>

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

#endif /* CLI_SWAR_H */
