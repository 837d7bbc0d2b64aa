/*
 * test_simd.c -- the many-bytes-at-a-time functions of tools/common/simd.h
 * against byte-by-byte oracles: hex digit runs (every length, both cases,
 * every byte value as the one that stops a run), the byte-range test, the
 * first byte that ends a plain JSON string run, byte counts and hex
 * output. test_simd_portable.c runs the same tests on the portable forms
 * (HEAPFMT_NO_SIMD), which other machines use.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "simd.h"

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

Test(simd, hex_runs_of_every_length_stopped_by_every_byte)
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

Test(simd, hex_digits_at_the_edges_of_their_ranges)
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

Test(simd, between_marks_exactly_the_bytes_in_range)
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

/* A deterministic byte stream for the tests below. */
static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

Test(simd, string_stops_finds_the_first_byte_that_ends_a_run)
{
    for (unsigned v = 0; v < 256; v++)
        for (unsigned at = 0; at <= 16; at++) {
            /* plain bytes, v at position at, anything after it */
            char b[16];
            memset(b, 'a', sizeof b);
            if (at < 16)
                b[at] = (char)v;
            for (unsigned k = at + 1; k < 16; k++)
                b[k] = (char)(v * 7 + k * 31);
            unsigned m = simd_string_stops(b);
            int stop = at < 16 && simd_string_stop((unsigned char)v);
            if (!stop) {
                /* no stop up to at: the first is after it, if any */
                unsigned want = 16;
                for (unsigned k = at + 1; k < 16 && want == 16; k++)
                    if (simd_string_stop((unsigned char)b[k]))
                        want = k;
                cr_assert_eq(m ? (unsigned)__builtin_ctz(m) : 16, want,
                             "byte %02x at %u", v, at);
            } else {
                cr_assert(m != 0 && (unsigned)__builtin_ctz(m) == at,
                          "byte %02x at %u", v, at);
            }
        }
}

Test(simd, hex_run_of_sixteen_bytes)
{
    uint64_t r = 0x9e3779b97f4a7c15ull;
    static const char digits[] = "0123456789abcdefABCDEF";
    for (int i = 0; i < 20000; i++) {
        char b[16];
        unsigned len = (unsigned)(next_rand(&r) % 17);
        for (unsigned k = 0; k < 16; k++)
            b[k] = k < len ? digits[next_rand(&r) % 22]
                           : (char)(next_rand(&r) & 0xff);
        unsigned n = 0;
        uint64_t want = 0;
        while (n < 16 && is_hex((unsigned char)b[n]))
            want = want << 4 | nibble((unsigned char)b[n++]);
        uint64_t got = 1;
        cr_assert_eq(simd_hex_run(b, &got), n, "case %d", i);
        cr_assert_eq(got, want, "case %d: value of %u digits", i, n);
    }
}

Test(simd, count_byte_and_hex16)
{
    unsigned char buf[5000];
    uint64_t r = 12345;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (next_rand(&r) & 7) ? (unsigned char)next_rand(&r) : '\n';
    for (size_t n = 0; n < sizeof buf; n += 1 + n / 3) {
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += buf[i] == '\n';
        cr_assert_eq(simd_count_byte(buf, n, '\n'), want, "%zu bytes", n);
    }
    for (int i = 0; i < 1000; i++) {
        uint64_t v = next_rand(&r) >> (i % 64);
        char got[17] = {0}, want[17];
        simd_fmt_hex16(got, v);
        snprintf(want, sizeof want, "%016llx", (unsigned long long)v);
        cr_assert_str_eq(got, want);
    }
}
