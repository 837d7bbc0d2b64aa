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
#include "ttext.h"

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

/* ---- which rows show, in which order: the case table ---------------------- */

static const entry one[] = {
    {"Small", {10}, {100}},
    {"Big", {1}, {5000}},
    {"Many", {900}, {1800}},
    {"Tie_b", {5}, {300}},
    {"Tie_a", {5}, {300}},
};

static const entry two[] = {
    {"Grew", {10, 20}, {100, 200}},
    {"Shrank", {10, 5}, {1000, 500}},
    {"Gone", {3, 0}, {3000, 0}},
    {"New", {0, 7}, {0, 70}},
    {"Same", {4, 4}, {40, 40}},
    {"BytesOnly", {4, 4}, {40, 90}},
    {"CountOnly", {4, 6}, {40, 40}},
};

static const entry huge[] = {
    {"Up", {1, UINT64_MAX}, {0, UINT64_MAX}},
    {"Down", {UINT64_MAX, 1}, {UINT64_MAX, 0}},
    {"Little", {1, 2}, {1, 2}},
};

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

static const entry up_down[] = {
    {"Up", {1, 2}, {10, 20}},
    {"Down", {1, 2}, {1000, 20}},
};

/* What else a finished table must hold. */
enum { CK_OMITTED = 1, CK_TOTAL, CK_SORT, CK_STATUS, CK_GROWING };
typedef struct check {
    int what;
    size_t i;        /* CK_OMITTED, CK_TOTAL: the index */
    uint64_t v;      /* the value; CK_SORT: the sort; CK_GROWING: 0 or 1 */
    const char *row; /* CK_STATUS, CK_GROWING: the row's name */
    const char *s;   /* CK_STATUS: the status */
} check;
#define OMITTED(i, v) {CK_OMITTED, (i), (v), NULL, NULL}
#define TOTAL(i, v) {CK_TOTAL, (i), (v), NULL, NULL}
#define SORT(s) {CK_SORT, 0, (s), NULL, NULL}
#define STATUS(row, s) {CK_STATUS, 0, 0, (row), (s)}
#define GROWING(row, g) {CK_GROWING, 0, (g), (row), NULL}

/* Per dump, the total count is the sum of the entries' counts. */
static void trend_totals(const histo_table *t)
{
    for (size_t d = 0; d < 4; d++) {
        uint64_t c = 0;
        for (size_t i = 0; i < 8; i++)
            c += trend[i].count[d];
        cr_assert_eq(t->total[2 * d], c, "dump %zu", d);
    }
}

typedef struct order_case {
    const char *name;
    const entry *e;
    size_t n, nd;
    enum histo_sort sort;
    uint64_t top, min_count, min_bytes;
    int all;
    const char *match; /* an extended regex, or NULL */
    const char *order; /* the shown rows' names joined with spaces */
    check want[10];
    void (*more)(const histo_table *t);
} order_case;

#define ONE one, 5, 1
#define TWO two, 7, 2
#define TREND trend, 8, 4

static const order_case order_cases[] = {
    {"sorted_by_bytes_then_name", ONE, 0, 0, 0, 0, 0, NULL,
     "Big Many Tie_a Tie_b Small",
     {SORT(HISTO_SORT_BYTES), TOTAL(0, 921), TOTAL(1, 7500), OMITTED(0, 0),
      OMITTED(1, 0)}, NULL},
    {"sorted_by_count_and_name", ONE, HISTO_SORT_COUNT, 0, 0, 0, 0, NULL,
     "Many Small Tie_a Tie_b Big", {{0}}, NULL},
    {"sorted_by_name", ONE, HISTO_SORT_NAME, 0, 0, 0, 0, NULL,
     "Big Many Small Tie_a Tie_b", {{0}}, NULL},
    {"top_sums_the_rest", ONE, 0, 2, 0, 0, 0, NULL, "Big Many",
     {OMITTED(0, 20), OMITTED(1, 700), TOTAL(0, 921)}, NULL},
    {"top_above_the_rows_shows_all", ONE, 0, 99, 0, 0, 0, NULL,
     "Big Many Tie_a Tie_b Small", {{0}}, NULL},
    {"min_count", ONE, 0, 0, 5, 0, 0, NULL, "Many Tie_a Tie_b Small",
     {{0}}, NULL},
    {"min_count_and_min_bytes", ONE, 0, 0, 5, 301, 0, NULL, "Many",
     {OMITTED(0, 21)}, NULL},
    {"match", ONE, 0, 0, 0, 0, 0, "^T|g$", "Big Tie_a Tie_b", {{0}}, NULL},
    /* delta bytes: Grew +100, New +70, BytesOnly +50, CountOnly 0,
     * Shrank -500, Gone -3000; Same hidden. */
    {"diff_order_growth_first", TWO, 0, 0, 0, 0, 0, NULL,
     "Grew New BytesOnly CountOnly Shrank Gone",
     {SORT(HISTO_SORT_DELTA), OMITTED(0, 4), OMITTED(2, 4),
      STATUS("Gone", "gone"), STATUS("New", "new"), STATUS("Same", "same"),
      STATUS("BytesOnly", "changed")}, NULL},
    {"diff_all_shows_unchanged", TWO, 0, 0, 0, 0, 1, NULL,
     "Grew New BytesOnly CountOnly Same Shrank Gone", {OMITTED(0, 0)}, NULL},
    /* +10 Grew, +7 New, +2 CountOnly, 0 BytesOnly, -3 Gone, -5 Shrank */
    {"diff_sort_delta_count", TWO, HISTO_SORT_DELTA_COUNT, 0, 0, 0, 0, NULL,
     "Grew New CountOnly BytesOnly Gone Shrank", {{0}}, NULL},
    /* bytes in the second dump */
    {"diff_sort_bytes", TWO, HISTO_SORT_BYTES, 0, 0, 0, 0, NULL,
     "Shrank Grew BytesOnly New CountOnly Gone", {{0}}, NULL},
    {"diff_sort_count", TWO, HISTO_SORT_COUNT, 0, 0, 0, 0, NULL,
     "Grew New CountOnly Shrank BytesOnly Gone", {{0}}, NULL},
    {"diff_min_count_uses_the_change", TWO, 0, 0, 3, 0, 0, NULL,
     "Grew New Shrank Gone", {{0}}, NULL},
    {"diff_min_bytes_uses_the_change", TWO, 0, 0, 0, 500, 0, NULL,
     "Shrank Gone", {{0}}, NULL},
    {"huge_values_keep_their_sign", huge, 3, 2, 0, 0, 0, 0, 0, NULL,
     "Up Little Down", {{0}}, NULL},
    /* growing (every interval): Leak +300, SlowBytes +30, Steady +24;
     * then the rest by delta bytes: Late +16, Plateau +16, BigBump +10,
     * Drop -30; Flat is unchanged and hidden. */
    {"trend_growing_rows_first", TREND, 0, 0, 0, 0, 0, NULL,
     "Leak SlowBytes Steady Late Plateau BigBump Drop",
     {GROWING("Leak", 1), GROWING("SlowBytes", 1), GROWING("Steady", 1),
      GROWING("Plateau", 0), GROWING("BigBump", 0), GROWING("Late", 0),
      GROWING("Flat", 0), GROWING("Drop", 0)},
     trend_totals},
    {"trend_growing_first_whatever_the_sort", TREND, HISTO_SORT_NAME, 0, 0,
     0, 1, NULL, "Leak SlowBytes Steady BigBump Drop Flat Late Plateau",
     {{0}}, NULL},
    {"two_dumps_do_not_group_growth", up_down, 2, 2, HISTO_SORT_NAME, 0, 0,
     0, 0, NULL, "Down Up", {{0}}, NULL},
};

static void check_table(const order_case *oc, const histo_table *t)
{
    cr_assert_str_eq(order(t), oc->order, "%s", oc->name);
    size_t words = 1;
    for (const char *p = oc->order; *p; p++)
        words += *p == ' ';
    cr_assert_eq(t->nshown, words, "%s", oc->name);
    for (const check *c = oc->want; c->what != 0; c++) {
        const histo_row *r = c->row ? find_row(t, c->row) : NULL;
        if (c->row != NULL)
            cr_assert_not_null(r, "%s: no row %s", oc->name, c->row);
        switch (c->what) {
        case CK_OMITTED:
            cr_assert_eq(t->omitted[c->i], c->v, "%s: omitted[%zu]", oc->name,
                         c->i);
            break;
        case CK_TOTAL:
            cr_assert_eq(t->total[c->i], c->v, "%s: total[%zu]", oc->name,
                         c->i);
            break;
        case CK_SORT:
            cr_assert_eq(t->sort, (enum histo_sort)c->v, "%s: sort", oc->name);
            break;
        case CK_STATUS:
            cr_assert_str_eq(histo_row_status(t, r), c->s, "%s: %s",
                             oc->name, c->row);
            break;
        case CK_GROWING:
            cr_assert_eq(!!r->growing, (int)c->v, "%s: %s growing", oc->name,
                         c->row);
            break;
        default: cr_assert_fail("%s: bad check", oc->name);
        }
    }
    if (oc->more != NULL)
        oc->more(t);
}

Test(histo_table, order_cases, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof order_cases / sizeof order_cases[0]; k++) {
        const order_case *oc = &order_cases[k];
        tcase_enter(oc->name);
        histo_table t;
        build(&t, oc->nd, oc->e, oc->n);
        histo_options o = opts();
        o.sort = oc->sort;
        o.top = oc->top;
        o.min_count = oc->min_count;
        o.min_bytes = oc->min_bytes;
        o.all = oc->all;
        regex_t re;
        if (oc->match != NULL) {
            cr_assert_eq(regcomp(&re, oc->match, REG_EXTENDED | REG_NOSUB), 0);
            o.match = &re;
        }
        histo_table_finish(&t, &o);
        check_table(oc, &t);
        if (oc->match != NULL)
            regfree(&re);
        histo_table_free(&t);
    }
    tcase_leave();
}

/* Names as bytes (a NUL inside is part of the name). */
typedef struct raw_add {
    const char *name;
    size_t len;
    uint64_t count, bytes;
} raw_add;

/* A table of one dump from the adds, which must make nrows rows. */
static void build_raw(histo_table *t, const raw_add *a, size_t n,
                      size_t nrows)
{
    cr_assert_eq(histo_table_init(t, 1), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(histo_table_add(t, 0, a[i].name, a[i].len, a[i].count,
                                     a[i].bytes),
                     0, "add %zu", i);
    cr_assert_eq(t->nrows, nrows);
}

Test(histo_table, same_name_is_summed)
{
    static const raw_add adds[] = {
        {"Foo", 3, 2, 32}, {"Bar", 3, 1, 8}, {"Foo", 3, 4, 96}};
    histo_table t;
    build_raw(&t, adds, 3, 2);
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
    static const raw_add adds[] = {
        {"A\0x", 3, 1, 1}, {"A\0y", 3, 1, 1}, {"A", 1, 1, 1}};
    histo_table t;
    build_raw(&t, adds, 3, 3);
    histo_options o = opts();
    o.sort = HISTO_SORT_NAME;
    histo_table_finish(&t, &o);
    cr_assert_eq(t.rows[0].len, 1); /* "A" first */
    cr_assert_eq(memcmp(t.rows[1].name, "A\0x", 3), 0);
    cr_assert_eq(memcmp(t.rows[2].name, "A\0y", 3), 0);
    histo_table_free(&t);
}

Test(histo_table, huge_deltas_keep_their_sign)
{
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
