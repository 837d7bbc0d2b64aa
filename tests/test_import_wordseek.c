/*
 * test_import_wordseek.c -- the first pass's word search (tools/import/
 * wordseek.c): asked line after line, over the line reader's buffer
 * however the input is chunked, with lines skipped as too long or not
 * asked about, it answers as a search of the line alone.
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
    for (size_t i = 0; i < NWORDS; i++)
        ws_init(&ws[i], words[i]);
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

Test(import_wordseek, answers_as_a_search_of_the_line)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        tprng rng;
        tprng_seed(&rng, seed);
        tbuf t = {0};
        sample(&t, &rng, 200 + tprng_below(&rng, 2000));
        static const size_t caps[] = {16, 64, 1 << 20};
        for (size_t c = 0; c < 3; c++)
            for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
                check(&t, policy, seed, caps[c], 0);
                check(&t, policy, seed, caps[c], 24); /* long lines skipped */
            }
        tbuf_free(&t);
    }
}
