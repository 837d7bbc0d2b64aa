/*
 * test_export_jout.c -- heapfmt-export's JSON output buffer: numbers, ids,
 * string escaping and UTF-8 repair, flushing through odd sinks.
 *
 * Oracles: snprintf for numbers, jansson for JSON validity and decoding,
 * test_export_utf8.h (an independent, range-based model) for the repair.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jout.h"
#include "test_export_utf8.h"
#include "tio.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct mem {
    tsink sink;
    jout o;
} mem;

static void mem_open(mem *m, size_t cap)
{
    tsink_init(&m->sink);
    cr_assert_eq(jout_init(&m->o, cap, tsink_write, &m->sink), 0);
}

/* Flushes and returns the text written (NUL-terminated copy). */
static char *mem_text(mem *m, size_t *len)
{
    cr_assert_eq(jout_flush(&m->o), 0);
    char *s = malloc(m->sink.out.len + 1);
    cr_assert_not_null(s);
    memcpy(s, m->sink.out.data, m->sink.out.len);
    s[m->sink.out.len] = '\0';
    *len = m->sink.out.len;
    tbuf_free(&m->sink.out);
    return s;
}

static void mem_close(mem *m)
{
    jout_free(&m->o);
    tsink_free(&m->sink);
}

/* Writes s with jout_str and checks: jansson parses it (as the only
 * element of an array), and the decoded string equals the model's. */
static void check_string(const void *s, size_t len, size_t max)
{
    mem m;
    mem_open(&m, 0);
    jout_char(&m.o, '[');
    int cut = jout_str(&m.o, s, len, max);
    jout_char(&m.o, ']');
    size_t n;
    char *text = mem_text(&m, &n);

    unsigned char *want = malloc(3 * len + 1);
    int want_cut;
    size_t wn = ref_repair(s, len, max, want, &want_cut);
    cr_assert_eq(cut, want_cut);

    json_error_t err;
    json_t *v = json_loadb(text, n, JSON_ALLOW_NUL, &err);
    cr_assert_not_null(v, "jansson: %s in %.200s", err.text, text);
    cr_assert(json_is_array(v) && json_array_size(v) == 1);
    json_t *str = json_array_get(v, 0);
    cr_assert(json_is_string(str));
    size_t got = json_string_length(str);
    cr_assert_eq(got, wn, "decoded %zu bytes, model %zu (input %zu bytes)",
                 got, wn, len);
    cr_assert_eq(memcmp(json_string_value(str), want, wn), 0,
                 "decoded text differs from the model");
    /* Nothing but ASCII printable characters may appear unescaped below
     * 0x80: no raw control characters in the output. */
    for (size_t i = 0; i < n; i++)
        cr_assert((unsigned char)text[i] >= 0x20, "raw control byte");
    json_decref(v);
    free(want);
    free(text);
    mem_close(&m);
}

/* ---- numbers ------------------------------------------------------------ */

static const uint64_t interesting[] = {
    0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 65536, 4294967295u,
    4294967296u, 9007199254740991u, 9007199254740992u, 9223372036854775807u,
    9223372036854775808u, 10000000000000000000u, 18446744073709551615u,
};

Test(jout, decimal_matches_printf)
{
    char want[32], got[32];
    for (size_t i = 0; i < sizeof interesting / sizeof interesting[0]; i++) {
        uint64_t v = interesting[i];
        snprintf(want, sizeof want, "%" PRIu64, v);
        size_t n = jout_fmt_u64(got, v);
        got[n] = '\0';
        cr_assert_str_eq(got, want);
    }
    /* every power of ten and its neighbours, then random values */
    for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
        for (int d = -1; d <= 1; d++) {
            uint64_t v = p + (uint64_t)(int64_t)d;
            snprintf(want, sizeof want, "%" PRIu64, v);
            got[jout_fmt_u64(got, v)] = '\0';
            cr_assert_str_eq(got, want);
        }
    }
    tprng r;
    tprng_seed(&r, 42);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = tprng_next(&r) >> tprng_below(&r, 64);
        snprintf(want, sizeof want, "%" PRIu64, v);
        got[jout_fmt_u64(got, v)] = '\0';
        cr_assert_str_eq(got, want);
    }
}

Test(jout, hex_matches_printf)
{
    /* jout_fmt_hex16 places each nibble in a byte: every nibble value in
     * every position, then random values */
    char want[32], got[32];
    for (int pos = 0; pos < 16; pos++)
        for (uint64_t d = 0; d < 16; d++) {
            uint64_t v = d << (4 * pos) | (0x0123456789abcdefu & ~(0xfull << (4 * pos)));
            snprintf(want, sizeof want, "%016" PRIx64, v);
            jout_fmt_hex16(got, v);
            got[16] = '\0';
            cr_assert_str_eq(got, want);
        }
    tprng r;
    tprng_seed(&r, 7);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = tprng_next(&r);
        snprintf(want, sizeof want, "%016" PRIx64, v);
        jout_fmt_hex16(got, v);
        got[16] = '\0';
        cr_assert_str_eq(got, want);
    }
}

Test(jout, signed_and_ids)
{
    mem m;
    mem_open(&m, 0);
    jout_i64(&m.o, INT64_MIN);
    jout_char(&m.o, ' ');
    jout_i64(&m.o, -1);
    jout_char(&m.o, ' ');
    jout_i64(&m.o, INT64_MAX);
    jout_char(&m.o, ' ');
    jout_id(&m.o, 0);
    jout_id(&m.o, 0x7f3a8c0d1e28u);
    jout_id(&m.o, UINT64_MAX);
    size_t n;
    char *t = mem_text(&m, &n);
    cr_assert_str_eq(t, "-9223372036854775808 -1 9223372036854775807 "
                        "\"0x0000000000000000\"\"0x00007f3a8c0d1e28\""
                        "\"0xffffffffffffffff\"");
    free(t);
    mem_close(&m);
}

/* ---- strings ------------------------------------------------------------ */

Test(jout, escapes)
{
    mem m;
    mem_open(&m, 0);
    jout_str(&m.o, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f/", 14, SIZE_MAX);
    jout_str(&m.o, "\0x", 2, SIZE_MAX);
    size_t n;
    char *t = mem_text(&m, &n);
    cr_assert_str_eq(t, "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\x7f/\""
                        "\"\\u0000x\"");
    free(t);
    mem_close(&m);
}

Test(jout, every_byte_and_pair)
{
    unsigned char s[2];
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (unsigned char)a;
        check_string(s, 1, SIZE_MAX);
    }
    /* all 65536 pairs in one string each would be slow through jansson:
     * batch them, the model and the output must still agree */
    unsigned char *all = malloc(65536 * 3);
    size_t k = 0;
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            all[k++] = (unsigned char)a;
            all[k++] = (unsigned char)b;
            all[k++] = 'x'; /* keeps pairs from merging into longer runs */
        }
    }
    check_string(all, k, SIZE_MAX);
    free(all);
}

Test(jout, three_and_four_byte_edges)
{
    /* every lead byte that starts a 3- or 4-byte sequence, with second and
     * third bytes at and around the boundaries of the valid ranges */
    static const unsigned char seconds[] = {0x00, 0x41, 0x7f, 0x80, 0x8f,
                                            0x90, 0x9f, 0xa0, 0xbf, 0xc0,
                                            0xf4, 0xff};
    unsigned char s[8];
    for (unsigned lead = 0xe0; lead <= 0xff; lead++) {
        for (size_t i = 0; i < sizeof seconds; i++) {
            for (size_t j = 0; j < sizeof seconds; j++) {
                for (size_t len = 2; len <= 5; len++) {
                    s[0] = (unsigned char)lead;
                    s[1] = seconds[i];
                    s[2] = seconds[j];
                    s[3] = 0x80;
                    s[4] = 0xbf;
                    check_string(s, len, SIZE_MAX);
                }
            }
        }
    }
}

Test(jout, valid_text_unchanged)
{
    const char *t = "ASCII, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80, "
                    "\xef\xbf\xbd, \xf4\x8f\xbf\xbf, \xed\x9f\xbf";
    mem m;
    mem_open(&m, 0);
    jout_str(&m.o, t, strlen(t), SIZE_MAX);
    size_t n;
    char *out = mem_text(&m, &n);
    cr_assert_eq(n, strlen(t) + 2);
    cr_assert_eq(memcmp(out + 1, t, strlen(t)), 0);
    free(out);
    mem_close(&m);
}

Test(jout, random_strings)
{
    /* bytes biased towards the interesting ones, lengths across the 8-byte
     * fast path and the chunk size */
    static const unsigned char pool[] = {
        'a', 'Z', ' ', '"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc0,
        0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f};
    tprng r;
    tprng_seed(&r, 7);
    size_t cap = 20000;
    unsigned char *s = malloc(cap);
    for (int iter = 0; iter < 3000; iter++) {
        size_t len = (size_t)tprng_below(&r, iter < 2900 ? 64 : cap);
        int mode = (int)tprng_below(&r, 3);
        for (size_t i = 0; i < len; i++) {
            if (mode == 0)
                s[i] = pool[tprng_below(&r, sizeof pool)];
            else if (mode == 1)
                s[i] = (unsigned char)tprng_below(&r, 256);
            else /* mostly ASCII with the odd multi-byte character */
                s[i] = tprng_below(&r, 20) ? (unsigned char)('a' + i % 26)
                                           : pool[tprng_below(&r, sizeof pool)];
        }
        size_t max = tprng_below(&r, 4) == 0 ? (size_t)tprng_below(&r, len + 1)
                                             : SIZE_MAX;
        check_string(s, len, max);
    }
    free(s);
}

Test(jout, cut_at_max)
{
    /* "ab" + euro sign (3 bytes): a cut inside the sign drops it */
    const char *t = "ab\xe2\x82\xac";
    for (size_t max = 0; max <= 6; max++) {
        mem m;
        mem_open(&m, 0);
        int cut = jout_str(&m.o, t, 5, max);
        size_t n;
        char *out = mem_text(&m, &n);
        const char *want = max >= 5 ? "\"ab\xe2\x82\xac\"" :
                           max >= 2 ? "\"ab\"" : max == 1 ? "\"a\"" : "\"\"";
        cr_assert_str_eq(out, want, "max %zu", max);
        cr_assert_eq(cut, max < 5);
        free(out);
        mem_close(&m);
    }
    /* an invalid byte at the cut still becomes U+FFFD */
    check_string("a\xff" "b", 3, 2);
    check_string("a\xe2\x28", 3, 2);
}

/* ---- flushing ------------------------------------------------------------ */

Test(jout, sinks_of_any_size)
{
    /* the same text through 1-byte and random-size writes */
    tbuf want = {0};
    for (int policy = 0; policy < 3; policy++) {
        tsink s;
        tsink_init(&s);
        if (policy == 1)
            s.max_per_call = 1;
        if (policy == 2) {
            s.max_per_call = 977;
            s.random_sizes = 1;
            tprng_seed(&s.rng, 3);
            s.eintr_every = 5;
        }
        jout o;
        cr_assert_eq(jout_init(&o, 0, tsink_write, &s), 0);
        for (uint64_t i = 0; i < 200000; i++) {
            jout_id(&o, i * 0x9e3779b97f4a7c15u);
            jout_u64(&o, i);
            jout_str(&o, "x\xff\"", 3, SIZE_MAX);
        }
        jout_raw(&o, "end", 3);
        cr_assert_eq(jout_flush(&o), 0);
        cr_assert_eq(o.total, s.out.len);
        if (policy == 0) {
            tbuf_put(&want, s.out.data, s.out.len);
        } else {
            cr_assert_eq(s.out.len, want.len);
            cr_assert_eq(memcmp(s.out.data, want.data, want.len), 0);
        }
        jout_free(&o);
        tsink_free(&s);
    }
    tbuf_free(&want);
}

Test(jout, write_failure_is_sticky)
{
    tsink s;
    tsink_init(&s);
    s.fail_at = 3;
    s.fail_errno = ENOSPC;
    s.max_per_call = 1000;
    jout o;
    cr_assert_eq(jout_init(&o, JOUT_MIN_CAP, tsink_write, &s), 0);
    for (int i = 0; i < 100000; i++)
        jout_str(&o, "hello, world", 12, SIZE_MAX);
    cr_assert(jout_failed(&o));
    cr_assert_eq(o.err, ENOSPC);
    cr_assert_eq(jout_flush(&o), -1);
    unsigned long calls = s.calls;
    jout_raw(&o, "more", 4);
    jout_flush(&o);
    cr_assert_eq(s.calls, calls, "wrote again after a failure");
    jout_free(&o);
    tsink_free(&s);
}
