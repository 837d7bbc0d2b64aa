/*
 * test_import_wordseek.c -- the first pass's word search (tools/import/
 * wordseek.c): asked line after line, over the line reader's buffer
 * however the input is chunked, with lines skipped as too long or not
 * asked about, it answers as a search of the line alone; and the first
 * pass's skip over the lines before a word's (ws_first, lr_skip_lines)
 * finds the same lines with the same numbers as asking about each.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "tio.h"
#include "wordseek.h"

static const char *const words[] = {"CLASS", "MODULE", "\\u"};
#define NWORDS (sizeof words / sizeof words[0])

/* Lines of words, their beginnings and other bytes, so that occurrences
 * fall at line starts and ends, across read chunks, and near misses
 * abound. */
static void sample(tbuf *t, tprng *rng, size_t n)
{
    static const char *const bits[] = {
        "CLASS", "CLAS", "C", "MODULE", "MODUL", "M", "\\u", "\\", "u",
        "x", "{\"type\":\"ICLASS\"}", "\n", "\n", "\n"};
    for (size_t i = 0; i < n; i++) {
        const char *b = bits[tprng_below(rng, sizeof bits / sizeof bits[0])];
        tbuf_put(t, b, strlen(b));
    }
}

/* The seekers of words[], each searching by another of its bytes as
 * the seed goes (ws_pivot), the first among them. */
static void seekers(wordseek ws[NWORDS], uint64_t seed)
{
    for (size_t i = 0; i < NWORDS; i++) {
        ws_init(&ws[i], words[i]);
        ws_pivot(&ws[i], (size_t)(seed + i) % strlen(words[i]));
    }
}

static int naive(const char *p, size_t n, const char *w)
{
    size_t len = strlen(w);
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(p + i, w, len) == 0)
            return 1;
    return 0;
}

/* Reads data as the first pass does, asking about a word only on some
 * lines, and checks every answer. */
static void check(const tbuf *data, int policy, uint64_t seed, size_t cap,
                  size_t max_line)
{
    tsource src;
    tsource_init(&src, data->data, data->len, policy, seed);
    lr r;
    lr_init(&r, tsource_read, &src, max_line);
    r.initial_cap = cap;
    wordseek ws[NWORDS];
    seekers(ws, seed);
    tprng rng;
    tprng_seed(&rng, seed);
    int k;
    while ((k = lr_next(&r)) != LR_END) {
        cr_assert_neq(k, LR_ERROR);
        if (k != LR_LINE)
            continue;
        for (size_t i = 0; i < NWORDS; i++) {
            if (tprng_below(&rng, 4) == 0)
                continue; /* as when an earlier word answered */
            int got = ws_in_line(&ws[i], r.line, r.len, lr_line_offset(&r),
                                 lr_ahead(&r));
            cr_assert_eq(got, naive(r.line, r.len, words[i]),
                         "line %llu, \"%s\" (cap %zu, policy %d)",
                         (unsigned long long)r.lineno, words[i], cap, policy);
        }
    }
    lr_free(&r);
}

/* Reads data as the first pass does: the lines before the first word
 * skipped whole, the others through lr_next and asked about. Each line
 * that holds a word (and is not too long) must come, in order, with its
 * number, and the count of lines must be right at the end. */
static void check_skip(const tbuf *data, int policy, uint64_t seed,
                       size_t cap, size_t max_line, int sniff)
{
    tsource src;
    tsource_init(&src, data->data, data->len, policy, seed);
    lr r;
    lr_init(&r, tsource_read, &src, max_line);
    r.initial_cap = cap;
    r.sniff = sniff;
    wordseek ws[NWORDS];
    seekers(ws, seed);
    /* the expected lines: where the next one starts, and its number */
    const char *d0 = (const char *)data->data, *d = d0, *dend = d0 + data->len;
    uint64_t lineno = 0;
    for (;;) {
        const char *p;
        size_t n = lr_peek(&r, &p);
        if (n > 0) {
            size_t at = ws_first(ws, NWORDS, p, n, lr_peek_offset(&r));
            cr_assert_leq(at, n);
            while (at > 0 && p[at - 1] != '\n')
                at--;
            if (at > 0) {
                lr_skip_lines(&r, at);
                continue;
            }
        }
        int k = lr_next(&r);
        cr_assert_neq(k, LR_ERROR);
        if (k == LR_END)
            break;
        if (k != LR_LINE)
            continue;
        int any = 0;
        for (size_t i = 0; i < NWORDS && !any; i++)
            any = ws_in_line(&ws[i], r.line, r.len, lr_line_offset(&r),
                             lr_ahead(&r));
        if (!any)
            continue;
        /* the next line of data with a word, short enough */
        for (;;) {
            cr_assert(d < dend, "line %llu came, no line was due",
                      (unsigned long long)r.lineno);
            const char *e = memchr(d, '\n', (size_t)(dend - d));
            size_t len = e ? (size_t)(e - d) : (size_t)(dend - d);
            lineno++;
            int has = 0;
            for (size_t i = 0; i < NWORDS; i++)
                has |= naive(d, len, words[i]);
            const char *line = d;
            d = e ? e + 1 : dend;
            if (!has || (max_line && len > max_line))
                continue;
            cr_assert_eq(r.lineno, lineno, "line %llu came as %llu",
                         (unsigned long long)lineno,
                         (unsigned long long)r.lineno);
            cr_assert_eq(r.len, len);
            cr_assert(memcmp(r.line, line, len) == 0);
            break;
        }
    }
    uint64_t total = 0;
    for (const char *q = d0; q < dend; q++)
        total += *q == '\n';
    if (data->len && dend[-1] != '\n')
        total++;
    cr_assert_eq(r.lineno, total, "%llu lines counted, %llu in the data",
                 (unsigned long long)r.lineno, (unsigned long long)total);
    lr_free(&r);
}

Test(import_wordseek, answers_as_a_search_of_the_line)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        tprng rng;
        tprng_seed(&rng, seed);
        tbuf t = {0};
        size_t n = 200 + tprng_below(&rng, 2000);
        if (seed % 3 == 0) { /* mostly lines without a word: skips past
                                the 4080 bytes of count_newlines' rounds */
            for (size_t i = 0; i < 8 * n; i++)
                tbuf_put(&t, i % 7 ? "x" : "\n", 1);
            for (size_t i = 0; i < 5000; i++) /* > 255 a counter */
                tbuf_put(&t, "\n", 1);
            sample(&t, &rng, 20);
        } else {
            sample(&t, &rng, n);
        }
        static const size_t caps[] = {16, 64, 1 << 20};
        for (size_t c = 0; c < 3; c++)
            for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
                check(&t, policy, seed, caps[c], 0);
                check(&t, policy, seed, caps[c], 24); /* long lines skipped */
                check_skip(&t, policy, seed, caps[c], 0, (int)(seed & 1));
                check_skip(&t, policy, seed, caps[c], 24, 0);
            }
        tbuf_free(&t);
    }
}
