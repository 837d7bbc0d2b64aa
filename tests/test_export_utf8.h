/*
 * test_export_utf8.h -- a slow, independent model of heapfmt-export's
 * string policy, for the export tests.
 *
 * The exporter (tools/export/jout.c) decides validity from the lead byte
 * with Unicode's table 3-7. This model decides it from code point ranges
 * instead: a prefix of a sequence is acceptable if some completion of it
 * encodes, in exactly that many bytes, a scalar value (not a surrogate,
 * at most U+10FFFF). Each maximal acceptable prefix that cannot be
 * completed in the input becomes one U+FFFD; an invalid lead byte too.
 *
 * ref_repair() gives the expected text as UTF-8 bytes (JSON escaping
 * aside: it is what a JSON parser must decode the output to).
 */
#ifndef TEST_EXPORT_UTF8_H
#define TEST_EXPORT_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of a sequence announced by lead byte c, 0 if c cannot lead. */
static inline size_t ref_seq_len(unsigned c)
{
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        return 2;
    if ((c & 0xf0) == 0xe0)
        return 3;
    if ((c & 0xf8) == 0xf0)
        return 4;
    return 0;
}

/* Whether the k bytes at s (1 <= k <= n, continuation bytes checked by
 * the caller) can start an n-byte sequence of a scalar value. */
static inline int ref_prefix_ok(const unsigned char *s, size_t k, size_t n)
{
    static const uint32_t lo_for[5] = {0, 0, 0x80, 0x800, 0x10000};
    static const uint32_t hi_for[5] = {0, 0x7f, 0x7ff, 0xffff, 0x10ffff};
    uint32_t v = s[0] & (0x7fu >> n);
    for (size_t i = 1; i < k; i++)
        v = (v << 6) | (s[i] & 0x3fu);
    unsigned rest = (unsigned)(6 * (n - k));
    uint64_t min = (uint64_t)v << rest;
    uint64_t max = min | ((UINT64_C(1) << rest) - 1);
    if (min < lo_for[n])
        min = lo_for[n];
    if (max > hi_for[n])
        max = hi_for[n];
    if (min > max)
        return 0;
    /* all reachable values surrogates? */
    if (min >= 0xd800 && max <= 0xdfff)
        return 0;
    return 1;
}

/* Appends the repaired form of the first bytes of s (at most max; a
 * sequence cut by max is dropped) to out, which must hold 3 * len bytes.
 * Returns the number of bytes written; *cut says whether s was cut. */
static inline size_t ref_repair(const void *str, size_t len, size_t max,
                                unsigned char *out, int *cut)
{
    const unsigned char *s = str;
    size_t lim = len > max ? max : len;
    size_t o = 0, i = 0;
    *cut = len > max;
    while (i < lim) {
        size_t n = ref_seq_len(s[i]);
        size_t k = 0;
        if (n == 1) {
            out[o++] = s[i++];
            continue;
        }
        if (n > 1 && ref_prefix_ok(s + i, 1, n)) {
            k = 1;
            while (k < n && i + k < lim && (s[i + k] & 0xc0) == 0x80 &&
                   ref_prefix_ok(s + i, k + 1, n))
                k++;
        }
        if (n > 1 && k == n) {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
            continue;
        }
        if (k > 0 && i + k == lim && *cut)
            break; /* would cross the cut */
        memcpy(out + o, "\xef\xbf\xbd", 3);
        o += 3;
        i += k > 0 ? k : 1;
    }
    return o;
}

#endif
