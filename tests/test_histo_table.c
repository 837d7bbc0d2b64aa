/*
 * test_histo_table.c -- histo's merged table: merging by name, the rules
 * for which rows show (unchanged, --match, --min-*, --top) and in which
 * order, growth flags of trends, and the small data structures under it
 * (string map, site map, sparklines, signed deltas).
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli_strmap.h"
#include "histo_print.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct entry {
    const char *name;
    uint64_t count[4];
    uint64_t bytes[4];
} entry;

/* A table of nd dumps holding the entries (zero counts are not added, as
 * the collectors never add them). */
static void build(histo_table *t, size_t nd, const entry *e, size_t n)
{
    cr_assert_eq(histo_table_init(t, nd), 0);
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < nd; d++)
            if (e[i].count[d] > 0)
                cr_assert_eq(histo_table_add(t, d, e[i].name,
                                             strlen(e[i].name), e[i].count[d],
                                             e[i].bytes[d]),
                             0);
}

static histo_options opts(void)
{
    histo_options o = HISTO_OPTIONS_INIT;
    o.progress = 0;
    return o;
}

/* The shown rows' names joined with spaces. */
static const char *order(const histo_table *t)
{
    static char buf[1024];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->nshown; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? " " : "",
                              t->rows[i].name);
    return buf;
}

static const histo_row *find_row(const histo_table *t, const char *name)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (strcmp(t->rows[i].name, name) == 0)
            return &t->rows[i];
    return NULL;
}

/* ---- one dump ------------------------------------------------------------- */

static const entry one[] = {
    {"Small", {10}, {100}},
    {"Big", {1}, {5000}},
    {"Many", {900}, {1800}},
    {"Tie_b", {5}, {300}},
    {"Tie_a", {5}, {300}},
};

Test(histo_table, sorted_by_bytes_then_name)
{
    histo_table t;
    build(&t, 1, one, 5);
    histo_options o = opts();
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Big Many Tie_a Tie_b Small");
    cr_assert_eq(t.sort, HISTO_SORT_BYTES);
    cr_assert_eq(t.total[0], 921);
    cr_assert_eq(t.total[1], 7500);
    cr_assert_eq(t.omitted[0], 0);
    cr_assert_eq(t.omitted[1], 0);
    histo_table_free(&t);
}

Test(histo_table, sorted_by_count_and_name)
{
    histo_table t;
    build(&t, 1, one, 5);
    histo_options o = opts();
    o.sort = HISTO_SORT_COUNT;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Many Small Tie_a Tie_b Big");
    o.sort = HISTO_SORT_NAME;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Big Many Small Tie_a Tie_b");
    histo_table_free(&t);
}

Test(histo_table, same_name_is_summed)
{
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 1), 0);
    cr_assert_eq(histo_table_add(&t, 0, "Foo", 3, 2, 32), 0);
    cr_assert_eq(histo_table_add(&t, 0, "Bar", 3, 1, 8), 0);
    cr_assert_eq(histo_table_add(&t, 0, "Foo", 3, 4, 96), 0);
    cr_assert_eq(t.nrows, 2);
    cr_assert_eq(t.dumps[0].rows, 2);
    cr_assert_eq(t.dumps[0].count, 7);
    cr_assert_eq(t.dumps[0].bytes, 136);
    histo_options o = opts();
    histo_table_finish(&t, &o);
    const histo_row *foo = find_row(&t, "Foo");
    cr_assert_not_null(foo);
    cr_assert_eq(histo_count(&t, foo, 0), 6);
    cr_assert_eq(histo_bytes(&t, foo, 0), 128);
    histo_table_free(&t);
}

Test(histo_table, names_with_nul_bytes_are_distinct)
{
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 1), 0);
    cr_assert_eq(histo_table_add(&t, 0, "A\0x", 3, 1, 1), 0);
    cr_assert_eq(histo_table_add(&t, 0, "A\0y", 3, 1, 1), 0);
    cr_assert_eq(histo_table_add(&t, 0, "A", 1, 1, 1), 0);
    cr_assert_eq(t.nrows, 3);
    histo_options o = opts();
    o.sort = HISTO_SORT_NAME;
    histo_table_finish(&t, &o);
    cr_assert_eq(t.rows[0].len, 1);
    cr_assert_eq(memcmp(t.rows[1].name, "A\0x", 3), 0);
    cr_assert_eq(memcmp(t.rows[2].name, "A\0y", 3), 0);
    histo_table_free(&t);
}

Test(histo_table, top_sums_the_rest)
{
    histo_table t;
    build(&t, 1, one, 5);
    histo_options o = opts();
    o.top = 2;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Big Many");
    cr_assert_eq(t.omitted[0], 20);
    cr_assert_eq(t.omitted[1], 700);
    cr_assert_eq(t.total[0], 921);
    o.top = 99;
    histo_table_finish(&t, &o);
    cr_assert_eq(t.nshown, 5);
    histo_table_free(&t);
}

Test(histo_table, min_count_min_bytes_and_match)
{
    histo_table t;
    build(&t, 1, one, 5);
    histo_options o = opts();
    o.min_count = 5;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Many Tie_a Tie_b Small");
    o.min_bytes = 301;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Many");
    cr_assert_eq(t.omitted[0], 21);

    regex_t re;
    cr_assert_eq(regcomp(&re, "^T|g$", REG_EXTENDED | REG_NOSUB), 0);
    o = opts();
    o.match = &re;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Big Tie_a Tie_b");
    regfree(&re);
    histo_table_free(&t);
}

/* ---- two dumps ------------------------------------------------------------ */

static const entry two[] = {
    {"Grew", {10, 20}, {100, 200}},
    {"Shrank", {10, 5}, {1000, 500}},
    {"Gone", {3, 0}, {3000, 0}},
    {"New", {0, 7}, {0, 70}},
    {"Same", {4, 4}, {40, 40}},
    {"BytesOnly", {4, 4}, {40, 90}},
    {"CountOnly", {4, 6}, {40, 40}},
};

Test(histo_table, diff_order_growth_first)
{
    histo_table t;
    build(&t, 2, two, 7);
    histo_options o = opts();
    histo_table_finish(&t, &o);
    cr_assert_eq(t.sort, HISTO_SORT_DELTA);
    /* delta bytes: Grew +100, New +70, BytesOnly +50, CountOnly 0,
     * Shrank -500, Gone -3000; Same hidden. */
    cr_assert_str_eq(order(&t), "Grew New BytesOnly CountOnly Shrank Gone");
    cr_assert_eq(t.omitted[0], 4);
    cr_assert_eq(t.omitted[2], 4);
    cr_assert_str_eq(histo_row_status(&t, find_row(&t, "Gone")), "gone");
    cr_assert_str_eq(histo_row_status(&t, find_row(&t, "New")), "new");
    cr_assert_str_eq(histo_row_status(&t, find_row(&t, "Same")), "same");
    cr_assert_str_eq(histo_row_status(&t, find_row(&t, "BytesOnly")),
                     "changed");
    histo_table_free(&t);
}

Test(histo_table, diff_all_shows_unchanged)
{
    histo_table t;
    build(&t, 2, two, 7);
    histo_options o = opts();
    o.all = 1;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t),
                     "Grew New BytesOnly CountOnly Same Shrank Gone");
    cr_assert_eq(t.omitted[0], 0);
    histo_table_free(&t);
}

Test(histo_table, diff_other_sorts)
{
    histo_table t;
    build(&t, 2, two, 7);
    histo_options o = opts();
    o.sort = HISTO_SORT_DELTA_COUNT;
    histo_table_finish(&t, &o);
    /* +10 Grew, +7 New, +2 CountOnly, 0 BytesOnly, -3 Gone, -5 Shrank */
    cr_assert_str_eq(order(&t), "Grew New CountOnly BytesOnly Gone Shrank");
    o.sort = HISTO_SORT_BYTES; /* bytes in the second dump */
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Shrank Grew BytesOnly New CountOnly Gone");
    o.sort = HISTO_SORT_COUNT;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Grew New CountOnly Shrank BytesOnly Gone");
    histo_table_free(&t);
}

Test(histo_table, diff_min_filters_use_the_change)
{
    histo_table t;
    build(&t, 2, two, 7);
    histo_options o = opts();
    o.min_count = 3;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Grew New Shrank Gone");
    o.min_count = 0;
    o.min_bytes = 500;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Shrank Gone");
    histo_table_free(&t);
}

Test(histo_table, huge_values_keep_their_sign)
{
    histo_table t;
    const entry e[] = {
        {"Up", {1, UINT64_MAX}, {0, UINT64_MAX}},
        {"Down", {UINT64_MAX, 1}, {UINT64_MAX, 0}},
        {"Little", {1, 2}, {1, 2}},
    };
    build(&t, 2, e, 3);
    histo_options o = opts();
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Up Little Down");
    int neg;
    cr_assert_eq(histo_delta(0, UINT64_MAX, &neg), UINT64_MAX);
    cr_assert_eq(neg, 0);
    cr_assert_eq(histo_delta(UINT64_MAX, 0, &neg), UINT64_MAX);
    cr_assert_eq(neg, 1);
    cr_assert_eq(histo_delta(5, 5, &neg), 0);
    cr_assert_eq(neg, 0);
    cr_assert_str_eq(histo_fmt_delta(0, UINT64_MAX, HISTO_FMT_SIGNED).s,
                     "+18446744073709551615");
    cr_assert_str_eq(histo_fmt_delta(UINT64_MAX, 0, HISTO_FMT_SIGNED | HISTO_FMT_HUMAN).s,
                     "-18,446,744,073,709,551,615");
    cr_assert_str_eq(histo_fmt_delta(7, 7, HISTO_FMT_SIGNED).s, "0");
    cr_assert_str_eq(histo_fmt_delta(7, 9, HISTO_FMT_PLAIN).s, "2");
    cr_assert_str_eq(histo_fmt_delta(9, 7, HISTO_FMT_PLAIN).s, "-2");
    cr_assert_str_eq(histo_fmt_delta(0, 3 << 20, HISTO_FMT_SIGNED | HISTO_FMT_HUMAN |
                                     HISTO_FMT_BYTES).s, "+3.0 MiB");
    histo_table_free(&t);
}

/* ---- trends ---------------------------------------------------------------- */

static const entry trend[] = {
    {"Leak", {10, 20, 30, 40}, {100, 200, 300, 400}},
    {"BigBump", {10, 500, 10, 11}, {100, 99999, 100, 110}},
    {"SlowBytes", {5, 5, 5, 5}, {50, 60, 70, 80}},
    {"Plateau", {1, 2, 2, 3}, {8, 16, 16, 24}},
    {"Flat", {3, 3, 3, 3}, {9, 9, 9, 9}},
    {"Late", {0, 0, 1, 2}, {0, 0, 8, 16}},
    {"Steady", {0, 1, 2, 3}, {0, 8, 16, 24}},
    {"Drop", {9, 8, 7, 6}, {90, 80, 70, 60}},
};

Test(histo_table, trend_growing_rows_first)
{
    histo_table t;
    build(&t, 4, trend, 8);
    histo_options o = opts();
    histo_table_finish(&t, &o);
    /* growing (every interval): Leak +300, SlowBytes +30, Steady +24;
     * then the rest by delta bytes: Late +16, Plateau +16, BigBump +10,
     * Drop -30; Flat is unchanged and hidden. */
    cr_assert_str_eq(order(&t),
                     "Leak SlowBytes Steady Late Plateau BigBump Drop");
    cr_assert(find_row(&t, "Leak")->growing);
    cr_assert(find_row(&t, "SlowBytes")->growing);
    cr_assert(find_row(&t, "Steady")->growing);
    cr_assert_not(find_row(&t, "Plateau")->growing);
    cr_assert_not(find_row(&t, "BigBump")->growing);
    cr_assert_not(find_row(&t, "Late")->growing);
    cr_assert_not(find_row(&t, "Flat")->growing);
    cr_assert_not(find_row(&t, "Drop")->growing);
    for (size_t d = 0; d < 4; d++) {
        uint64_t c = 0;
        for (size_t i = 0; i < 8; i++)
            c += trend[i].count[d];
        cr_assert_eq(t.total[2 * d], c, "dump %zu", d);
    }
    histo_table_free(&t);
}

Test(histo_table, trend_growing_first_whatever_the_sort)
{
    histo_table t;
    build(&t, 4, trend, 8);
    histo_options o = opts();
    o.sort = HISTO_SORT_NAME;
    o.all = 1;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t),
                     "Leak SlowBytes Steady BigBump Drop Flat Late Plateau");
    histo_table_free(&t);
}

Test(histo_table, two_dumps_do_not_group_growth)
{
    histo_table t;
    const entry e[] = {
        {"Up", {1, 2}, {10, 20}},
        {"Down", {1, 2}, {1000, 20}},
    };
    build(&t, 2, e, 2);
    histo_options o = opts();
    o.sort = HISTO_SORT_NAME;
    histo_table_finish(&t, &o);
    cr_assert_str_eq(order(&t), "Down Up");
    histo_table_free(&t);
}

/* ---- sparklines ------------------------------------------------------------ */

Test(histo_spark, ascii_levels)
{
    char buf[64];
    uint64_t v[] = {0, 1, 2, 3, 4, 5, 6, 7};
    cr_assert_eq(histo_sparkline(buf, sizeof buf, v, 8, 1, 0), 8);
    cr_assert_str_eq(buf, "_.-~=+*#");
    uint64_t flat[] = {5, 5, 5};
    histo_sparkline(buf, sizeof buf, flat, 3, 1, 0);
    cr_assert_str_eq(buf, "~~~");
    uint64_t big[] = {0, UINT64_MAX / 2, UINT64_MAX};
    histo_sparkline(buf, sizeof buf, big, 3, 1, 0);
    cr_assert_str_eq(buf, "_=#");
}

Test(histo_spark, stride_and_unicode)
{
    char buf[64];
    /* count, bytes pairs: the counts are 1, 8 */
    uint64_t cb[] = {1, 999, 8, 0};
    cr_assert_eq(histo_sparkline(buf, sizeof buf, cb, 2, 2, 1), 6);
    cr_assert_str_eq(buf, "\xe2\x96\x81\xe2\x96\x88");
}

Test(histo_spark, short_buffer_is_cut_cleanly)
{
    char buf[5];
    uint64_t v[] = {1, 2, 3, 4, 5, 6};
    cr_assert_eq(histo_sparkline(buf, sizeof buf, v, 6, 1, 0), 4);
    cr_assert_eq(strlen(buf), 4);
    cr_assert_eq(histo_sparkline(buf, sizeof buf, v, 6, 1, 1), 3);
    cr_assert_eq(strlen(buf), 3); /* one whole glyph, never a piece */
    cr_assert_eq(histo_sparkline(buf, 0, v, 6, 1, 1), 0);
}

/* ---- the string map ------------------------------------------------------- */

Test(cli_strmap, dense_indexes_and_stable_keys)
{
    cli_strmap m;
    cli_strmap_init(&m);
    char key[32];
    const char *first = NULL;
    for (size_t i = 0; i < 100000; i++) {
        int n = snprintf(key, sizeof key, "Class%zu", i);
        size_t idx;
        cr_assert_eq(cli_strmap_add(&m, key, (size_t)n, &idx), 1);
        cr_assert_eq(idx, i);
        if (i == 0)
            first = cli_strmap_key(&m, 0, NULL);
    }
    cr_assert_eq(cli_strmap_count(&m), 100000);
    cr_assert_eq(cli_strmap_key(&m, 0, NULL), first, "keys moved");
    for (size_t i = 0; i < 100000; i += 997) {
        int n = snprintf(key, sizeof key, "Class%zu", i);
        size_t idx, len;
        cr_assert_eq(cli_strmap_add(&m, key, (size_t)n, &idx), 0);
        cr_assert_eq(idx, i);
        cr_assert_eq(cli_strmap_find(&m, key, (size_t)n, &idx), 0);
        cr_assert_eq(idx, i);
        cr_assert_str_eq(cli_strmap_key(&m, i, &len), key);
        cr_assert_eq(len, (size_t)n);
    }
    size_t idx;
    cr_assert_eq(cli_strmap_find(&m, "Class", 5, &idx), -1);
    cli_strmap_free(&m);
    cr_assert_eq(cli_strmap_find(&m, "Class1", 6, &idx), -1);
    cli_strmap_free(&m); /* twice is harmless */
}

Test(cli_strmap, empty_long_and_binary_keys)
{
    cli_strmap m;
    cli_strmap_init(&m);
    size_t a, b, c, len;
    cr_assert_eq(cli_strmap_add(&m, "", 0, &a), 1);
    cr_assert_eq(cli_strmap_add(&m, "\0", 1, &b), 1);
    static char big[200000];
    memset(big, 'x', sizeof big);
    cr_assert_eq(cli_strmap_add(&m, big, sizeof big, &c), 1);
    cr_assert_eq(cli_strmap_add(&m, "", 0, &a), 0);
    cr_assert_eq(a, 0);
    cr_assert_eq(cli_strmap_add(&m, big, sizeof big, &c), 0);
    cr_assert_eq(c, 2);
    const char *k = cli_strmap_key(&m, 2, &len);
    cr_assert_eq(len, sizeof big);
    cr_assert_eq(k[len], '\0');
    cr_assert_eq(memcmp(k, big, len), 0);
    cli_strmap_free(&m);
}

/* ---- the site map ----------------------------------------------------------- */

Test(histo_sites, counts_per_file_and_line)
{
    histo_sites s;
    histo_sites_init(&s);
    uint64_t total = 0;
    for (uint32_t f = 0; f < 50; f++)
        for (uint64_t line = 0; line < 400; line++)
            for (uint64_t k = 0; k <= line % 3; k++) {
                cr_assert_eq(histo_sites_add(&s, f, line, f + line), 0);
                total++;
            }
    cr_assert_eq(histo_sites_count(&s), 50 * 400);
    uint64_t seen = 0;
    for (size_t i = 0; i < histo_sites_count(&s); i++) {
        uint32_t file;
        uint64_t line;
        const histo_total *e = histo_sites_get(&s, i, &file, &line);
        cr_assert_eq(e->count, line % 3 + 1);
        cr_assert_eq(e->bytes, e->count * (file + line));
        seen += e->count;
    }
    cr_assert_eq(seen, total);
    histo_sites_free(&s);
    histo_sites_free(&s);
}
