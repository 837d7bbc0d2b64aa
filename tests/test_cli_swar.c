/*
 * test_cli_swar.c -- the eight-bytes-at-a-time tests of cli_swar.h against
 * byte-by-byte oracles: hex digit runs (every length, both cases, every
 * byte value as the one that stops a run) and the byte-range test.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "cli_swar.h"

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

static unsigned nibble(unsigned char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Checks cli_swar_hex_digits and cli_swar_hex_value on the 8 bytes at b
 * against the oracle. */
static void check_word(const unsigned char *b)
{
    unsigned n = 0;
    uint64_t want = 0;
    while (n < 8 && is_hex(b[n]))
        want = want << 4 | nibble(b[n++]);
    uint64_t x = cli_swar_load(b);
    cr_assert_eq(cli_swar_hex_digits(x), n, "%02x %02x %02x %02x %02x %02x "
                 "%02x %02x: %u digits", b[0], b[1], b[2], b[3], b[4], b[5],
                 b[6], b[7], n);
    if (n > 0)
        cr_assert_eq(cli_swar_hex_value(x, n), want, "value of %u digits", n);
}

Test(cli_swar, hex_runs_of_every_length_stopped_by_every_byte)
{
    cr_assert(CLI_SWAR_LE, "these tests are for little-endian targets");
    static const char digits[] = "0123456789abcdefABCDEF";
    uint64_t r = 0x9E3779B97F4A7C15ull;
    for (unsigned len = 0; len <= 8; len++) {
        for (unsigned stop = 0; stop < 256; stop++) {
            unsigned char b[8];
            for (unsigned i = 0; i < 8; i++) {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                b[i] = (unsigned char)digits[r % (sizeof digits - 1)];
            }
            if (len < 8)
                b[len] = (unsigned char)stop;
            check_word(b);
        }
    }
}

Test(cli_swar, hex_digits_at_the_edges_of_their_ranges)
{
    /* the bytes either side of '0'-'9', 'a'-'f', 'A'-'F', and the same
     * with the top bit set */
    static const unsigned char edge[] = {'/', '0', '9', ':', '`', 'a', 'f',
                                         'g', '@', 'A', 'F', 'G', 0xb0,
                                         0xb9, 0xe1, 0xc1, 0x00, 0xff};
    size_t ne = sizeof edge;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            unsigned char b[8] = {'7', 'F', edge[i], 'a', edge[j], '0', 'f', '9'};
            check_word(b);
            unsigned char c[8] = {edge[i], edge[j], '1', '2', '3', '4', '5', '6'};
            check_word(c);
        }
}

Test(cli_swar, between_marks_exactly_the_bytes_in_range)
{
    for (unsigned lo = 0; lo < 0x80; lo += 7)
        for (unsigned hi = lo; hi < 0x80; hi += 5)
            for (unsigned v = 0; v < 256; v++) {
                unsigned char b[8] = {(unsigned char)v, (unsigned char)lo,
                                      (unsigned char)hi, 0x7f, 0x80,
                                      (unsigned char)(v ^ 0x80), 0,
                                      (unsigned char)(hi + 1)};
                uint64_t got = cli_swar_between(cli_swar_load(b), lo, hi);
                for (unsigned k = 0; k < 8; k++) {
                    int in = b[k] >= lo && b[k] <= hi;
                    cr_assert_eq((got >> (8 * k + 7)) & 1, (uint64_t)in,
                                 "byte %02x in [%02x, %02x]", b[k], lo, hi);
                }
            }
}
