/* histo_words.c -- the words and numbers every output format writes the
 * same way: the --by word, numbers and changes, a row's status. */
#include <string.h>

#include "histo.h"

/* By enum histo_by: the word and its plural. */
static const char *const by_words[][2] = {
    {"class", "classes"}, {"type", "types"},   {"site", "sites"},
    {"stack", "stacks"},  {"frame", "frames"}, {"imemo", "imemos"},
    {"iseq", "iseqs"},
};

#define NBY (sizeof by_words / sizeof by_words[0])

const char *histo_by_word(enum histo_by by)
{
    return by_words[(unsigned)by < NBY ? by : 0][0];
}

const char *histo_by_plural(enum histo_by by)
{
    return by_words[(unsigned)by < NBY ? by : 0][1];
}

cli_num histo_fmt_value(uint64_t v, unsigned fmt)
{
    if (!(fmt & HISTO_FMT_HUMAN))
        return cli_fmt_plain(v);
    return (fmt & HISTO_FMT_BYTES) ? cli_fmt_bytes(v) : cli_fmt_count(v);
}

cli_num histo_fmt_delta(uint64_t a, uint64_t b, unsigned fmt)
{
    int neg;
    uint64_t m = histo_delta(a, b, &neg);
    cli_num n = histo_fmt_value(m, fmt);
    if (m == 0 || (!neg && !(fmt & HISTO_FMT_SIGNED)))
        return n;
    cli_num s;
    s.s[0] = neg ? '-' : '+';
    memcpy(s.s + 1, n.s, sizeof s.s - 1);
    s.s[sizeof s.s - 1] = '\0';
    return s;
}

const char *histo_row_status(const histo_table *t, const histo_row *r)
{
    size_t last = t->ndumps - 1;
    uint64_t a = histo_count(t, r, 0), b = histo_count(t, r, last);
    if (a == 0 && b > 0)
        return "new";
    if (b == 0 && a > 0)
        return "gone";
    return histo_row_unchanged(t, r) ? "same" : "changed";
}
