/*
 * test_histo_output.c -- histo's output formats parse as documented: TSV
 * and CSV column counts and values, JSON through jansson (also with names
 * that hold tabs, quotes, control bytes and invalid UTF-8), the human
 * table's alignment and markers; and histo_run end to end on files, where
 * the footer path and --scan print the same thing.
 *
 * The TSV and table tests are one case table (print_cases): a table of
 * dumps, the options, and what the output must be (lines, fields, and a
 * property check where the expectation is computed from the table).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_exit.h"
#include "cli_progress.h"
#include "heapfmt.h"
#include "cli_escape.h"
#include "histo_print.h"
#include "tassert.h"
#include "tio.h"
#include "ttext.h"

/* ---- helpers ------------------------------------------------------------ */

static histo_options opts(enum histo_format f)
{
    histo_options o = HISTO_OPTIONS_INIT;
    o.format = f;
    o.progress = 0;
    return o;
}

/* Names that must survive every format. */
static const char *const hostile[] = {
    "Tab\tin",   "New\nline",  "Quote\"d", "Comma,s",  "Back\\slash",
    "Bell\x07",  "Bad\xff\xfeutf8", "Caf\xc3\xa9", " spaced ", "",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* One, two or four dumps over the hostile names plus a few plain ones. */
static void build(histo_table *t, size_t nd)
{
    static const char *const files[] = {"a.dump", "b.dump", "c.dump",
                                        "d.dump"};
    cr_assert_eq(histo_table_init(t, nd), 0);
    for (size_t d = 0; d < nd; d++) {
        t->dumps[d].path = files[d];
        t->dumps[d].name = files[d];
        t->dumps[d].from_footer = d % 2 == 0;
        for (size_t i = 0; i < NHOSTILE; i++) {
            uint64_t c = (i + 1) * (d + 1) + (i % 3 == 0 ? 0 : d * d);
            if (i == 4 && d == nd - 1 && nd > 1)
                continue; /* gone in the last dump */
            if (i == 5 && d == 0 && nd > 1)
                continue; /* new after the first */
            cr_assert_eq(histo_table_add(t, d, hostile[i], strlen(hostile[i]),
                                         c, c * 40 + i),
                         0);
        }
        cr_assert_eq(histo_table_add(t, d, "String", 6, 1000 + 100 * d,
                                     40000 + 4000 * d),
                     0);
        cr_assert_eq(histo_table_add(t, d, "Same", 4, 3, 30), 0);
    }
}

/* Three rows of one dump, one name with a tab (the alignment cases). */
static void build_small(histo_table *t)
{
    cr_assert_eq(histo_table_init(t, 1), 0);
    cr_assert_eq(histo_table_add(t, 0, "A", 1, 1, 8), 0);
    cr_assert_eq(histo_table_add(t, 0, "Bb", 2, 123456, 99999999), 0);
    cr_assert_eq(histo_table_add(t, 0, "Tab\tname", 8, 22, 333), 0);
}

/* Finishes t for o and returns what histo_print writes (malloc'd). */
static char *render(histo_table *t, const histo_options *o)
{
    histo_table_finish(t, o);
    tcap c;
    histo_print(tcap_open(&c), t, o);
    return tcap_close(&c);
}

/* The idx-th field of a TSV line, copied into buf. */
static const char *field(const char *line, size_t idx, char *buf, size_t cap)
{
    for (size_t i = 0; i < idx; i++) {
        line = strchr(line, '\t');
        cr_assert_not_null(line);
        line++;
    }
    size_t n = strcspn(line, "\t");
    cr_assert_lt(n, cap);
    memcpy(buf, line, n);
    buf[n] = '\0';
    return buf;
}

static long long num(const char *line, size_t idx)
{
    char buf[64];
    char *end;
    long long v = strtoll(field(line, idx, buf, sizeof buf), &end, 10);
    cr_assert_eq(*end, '\0', "field %zu '%s' is not a number", idx, buf);
    return v;
}

/* Unescapes a TSV name field (\\ \t \n \r \xHH). */
static size_t unescape(const char *s, char *out)
{
    size_t n = 0;
    while (*s) {
        if (*s != '\\') {
            out[n++] = *s++;
            continue;
        }
        s++;
        switch (*s) {
        case '\\': out[n++] = '\\'; s++; break;
        case 't': out[n++] = '\t'; s++; break;
        case 'n': out[n++] = '\n'; s++; break;
        case 'r': out[n++] = '\r'; s++; break;
        case 'x': {
            char hex[3] = {s[1], s[2], 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            s += 3;
            break;
        }
        default: cr_assert_fail("bad escape \\%c", *s);
        }
    }
    out[n] = '\0';
    return n;
}

/* ---- TSV and the human table: the case table ----------------------------- */

/* Properties computed from the table (v: the output's lines). */

static void tsv_one_dump(const histo_table *t, char **v, size_t n)
{
    cr_assert_eq(n, 1 + t->nrows, "no total row: %zu lines", n);
    for (size_t i = 1; i < n; i++) {
        const histo_row *r = &t->rows[i - 1];
        cr_assert_eq((uint64_t)num(v[i], 0), histo_count(t, r, 0));
        cr_assert_eq((uint64_t)num(v[i], 1), histo_bytes(t, r, 0));
        char name[128], raw[128];
        size_t len = unescape(field(v[i], 2, name, sizeof name), raw);
        cr_assert_eq(len, r->len);
        cr_assert_eq(memcmp(raw, r->name, len), 0, "name '%s'", name);
    }
}

static void tsv_two_dumps(const histo_table *t, char **v, size_t n)
{
    cr_assert_eq(n, 1 + t->nshown);
    cr_assert_lt(t->nshown, t->nrows, "'Same' is hidden");
    int gone = 0, born = 0;
    for (size_t i = 1; i < n; i++) {
        cr_assert_eq(num(v[i], 3), num(v[i], 2) - num(v[i], 1));
        cr_assert_eq(num(v[i], 6), num(v[i], 5) - num(v[i], 4));
        gone += num(v[i], 2) == 0;
        born += num(v[i], 1) == 0;
        if (i > 1) /* growth first */
            cr_assert_geq(num(v[i - 1], 6), num(v[i], 6));
    }
    cr_assert_eq(gone, 1);
    cr_assert_eq(born, 1);
}

static void tsv_trend(const histo_table *t, char **v, size_t n)
{
    (void)t;
    int growing_seen = 0, after_growing = 0;
    for (size_t i = 1; i < n; i++) {
        long long g = num(v[i], 1);
        cr_assert(g == 0 || g == 1);
        if (g) {
            cr_assert_not(after_growing, "growing rows come first");
            growing_seen++;
            for (size_t d = 1; d < 4; d++)
                cr_assert_geq(num(v[i], 2 + d), num(v[i], 1 + d));
        } else {
            after_growing = 1;
        }
    }
    cr_assert_gt(growing_seen, 0);
}

/* The first row is growing: marked, with a rising ASCII sparkline from
 * the lowest glyph to the highest. */
static void table_trend_sparkline(const histo_table *t, char **v, size_t n)
{
    (void)t;
    size_t i = 0;
    while (i < n && (strlen(v[i]) < 5 ||
                     strcmp(v[i] + strlen(v[i]) - 5, "class") != 0))
        i++; /* the header: the first line that ends with "class" */
    cr_assert_lt(i + 1, n, "no row after the header");
    const char *first = v[i + 1];
    cr_assert_eq(first[0], '*', "%s", first);
    const char *spark = strstr(first, "  _");
    cr_assert_not_null(spark);
    cr_assert_eq(spark[5], '#', "%.12s", spark);
}

typedef struct print_case {
    const char *name;
    size_t ndumps;          /* build()'s dumps; 0: build_small() */
    enum histo_format format;
    int human;
    uint64_t top;
    size_t incomplete;      /* 1-based dump marked incomplete; 0: none */
    size_t nlines;          /* or TX_ANY */
    texpect want[8];
    void (*check)(const histo_table *t, char **v, size_t n);
} print_case;

static const print_case print_cases[] = {
    {"tsv_one_dump", 1, HISTO_FORMAT_TSV, 0, 0, 0, TX_ANY,
     {TX_LINE(0, "count\tbytes\tclass"), TX_NFIELDS(3, '\t')},
     tsv_one_dump},
    {"tsv_two_dumps", 2, HISTO_FORMAT_TSV, 0, 0, 0, TX_ANY,
     {TX_LINE(0, "class\tcount_a\tcount_b\tdelta_count\tbytes_a\t"
                 "bytes_b\tdelta_bytes"),
      TX_NFIELDS(7, '\t')},
     tsv_two_dumps},
    {"tsv_trend", 4, HISTO_FORMAT_TSV, 0, 0, 0, TX_ANY,
     {TX_LINE(0, "class\tgrowing\tcount_1\tcount_2\tcount_3\t"
                 "count_4\tbytes_1\tbytes_2\tbytes_3\tbytes_4"),
      TX_NFIELDS(10, '\t')},
     tsv_trend},
    /* header, 3 rows, rule, total */
    {"table_is_aligned", 0, HISTO_FORMAT_TABLE, 0, 0, 0, 6,
     {TX_TEXT(" count      bytes  class\n"
              "123456   99999999  Bb\n"
              "    22        333  Tab\\tname\n"
              "     1          8  A\n"
              "------  ---------\n"
              "123479  100000340  total (3 classes)\n")},
     NULL},
    {"table_is_aligned_human_top", 0, HISTO_FORMAT_TABLE, 1, 1, 0, 5,
     {TX_TEXT("  count     bytes  class\n"
              "123,456  95.4 MiB  Bb\n"
              "     23     341 B  (2 other classes)\n"
              "-------  --------\n"
              "123,479  95.4 MiB  total (3 classes)\n")},
     NULL},
    {"table_diff_marks_new_and_gone", 2, HISTO_FORMAT_TABLE, 0, 0, 0, TX_ANY,
     {TX_STARTS(TX_WHOLE, "A: a.dump\nB: b.dump\n\n"),
      TX_CONTAINS(TX_WHOLE, "count A  count B  +/-count"),
      TX_CONTAINS(TX_WHOLE, "Back\\\\slash  (gone)\n"),
      TX_CONTAINS(TX_WHOLE, "Bell\\x07  (new)\n"),
      TX_CONTAINS(TX_WHOLE, "(1 other class)\n"), /* 'Same' summed */
      TX_CONTAINS(TX_WHOLE, "total (12 classes)\n")},
     NULL},
    {"table_trend_marks_growth", 4, HISTO_FORMAT_TABLE, 0, 0, 3, TX_ANY,
     {TX_CONTAINS(TX_WHOLE, "#3: c.dump  (incomplete: partial counts)\n"),
      TX_CONTAINS(TX_WHOLE, "#1  "),
      TX_CONTAINS(TX_WHOLE, "trend  class\n"),
      TX_CONTAINS(TX_WHOLE, "\n* grew in every interval")},
     table_trend_sparkline},
};

Test(histo_output, print_cases, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof print_cases / sizeof print_cases[0]; k++) {
        const print_case *pc = &print_cases[k];
        tcase_enter(pc->name);
        histo_table t;
        if (pc->ndumps == 0)
            build_small(&t);
        else
            build(&t, pc->ndumps);
        if (pc->incomplete)
            t.dumps[pc->incomplete - 1].status = CLI_EXIT_INCOMPLETE;
        histo_options o = opts(pc->format);
        o.human = pc->human;
        o.top = pc->top;
        char *text = render(&t, &o);
        texpect_check(pc->name, text, pc->nlines, pc->want);
        if (pc->check != NULL) {
            char *v[64];
            size_t n = tlines(text, v, 64);
            pc->check(&t, v, n);
        }
        free(text);
        histo_table_free(&t);
    }
    tcase_leave();
}

/* ---- CSV ---------------------------------------------------------------- */

/* Parses one RFC 4180 record at *p (advanced past it); returns the field
 * count and copies field idx into want (if not NULL). */
static size_t csv_record(const char **p, size_t idx, char *want, size_t cap)
{
    size_t nf = 0;
    const char *s = *p;
    for (;;) {
        char buf[256];
        size_t n = 0;
        if (*s == '"') {
            s++;
            for (;;) {
                cr_assert_neq(*s, '\0', "unterminated quote");
                if (*s == '"' && s[1] == '"') {
                    buf[n++] = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    buf[n++] = *s++;
                }
            }
        } else {
            while (*s != ',' && *s != '\n' && *s != '\0') {
                cr_assert_neq(*s, '"', "bare quote in an unquoted field");
                buf[n++] = *s++;
            }
        }
        if (nf == idx && want != NULL) {
            cr_assert_lt(n, cap);
            memcpy(want, buf, n);
            want[n] = '\0';
        }
        nf++;
        if (*s == ',') {
            s++;
            continue;
        }
        cr_assert_eq(*s, '\n', "record does not end with a newline");
        *p = s + 1;
        return nf;
    }
}

Test(histo_output, csv_quotes_what_needs_it)
{
    for (size_t nd = 1; nd <= 3; nd++) {
        histo_table t;
        build(&t, nd);
        histo_options o = opts(HISTO_FORMAT_CSV);
        o.all = 1;
        char *text = render(&t, &o);
        const char *p = text;
        size_t want_fields = nd == 1 ? 3 : nd == 2 ? 7 : 2 + 2 * nd;
        size_t name_field = nd == 1 ? 2 : 0;
        cr_assert_eq(csv_record(&p, 0, NULL, 0), want_fields);
        for (size_t i = 0; i < t.nshown; i++) {
            char name[256], want[256];
            cr_assert_eq(csv_record(&p, name_field, name, sizeof name),
                         want_fields, "row %zu", i);
            /* the text form, as TSV and the table print it */
            cli_text_format(want, sizeof want, t.rows[i].name, t.rows[i].len);
            cr_assert_str_eq(name, want);
        }
        cr_assert_eq(*p, '\0');
        free(text);
        histo_table_free(&t);
    }
}

/* A name longer than any buffer (a deep call stack with commas and
 * quotes) is written whole, quoted, its quotes doubled. */
Test(histo_output, csv_long_name_is_whole)
{
    enum { PARTS = 600 };
    static const char part[] = "f(a, \"b\") (lib.so+0x1) < ";
    size_t plen = sizeof part - 1;
    char *name = malloc(PARTS * plen + 1);
    cr_assert_not_null(name);
    for (size_t i = 0; i < PARTS; i++)
        memcpy(name + i * plen, part, plen);
    size_t len = PARTS * plen - 3; /* without the last " < " */
    name[len] = '\0';
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 1), 0);
    cr_assert_eq(histo_table_add(&t, 0, name, len, 1, 2), 0);
    histo_options o = opts(HISTO_FORMAT_CSV);
    char *text = render(&t, &o);
    static const char head[] = "count,bytes,class\n1,2,\"";
    cr_assert_eq(strncmp(text, head, sizeof head - 1), 0, "%.40s", text);
    const char *p = text + sizeof head - 1;
    for (size_t i = 0; i < len; i++, p++) {
        cr_assert_eq(*p, name[i], "byte %zu", i);
        if (name[i] == '"')
            cr_assert_eq(*++p, '"', "quote %zu doubled", i);
    }
    cr_assert_str_eq(p, "\"\n");
    free(text);
    free(name);
    histo_table_free(&t);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *parse_json_flags(const char *text, size_t flags)
{
    json_error_t e;
    json_t *j = json_loads(text, flags, &e);
    cr_assert_not_null(j, "invalid JSON: %s at line %d: %s", e.text, e.line,
                       text);
    cr_assert(json_is_object(j));
    return j;
}

static json_t *parse_json(const char *text)
{
    return parse_json_flags(text, 0);
}

static uint64_t jnum(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "'%s' is not an integer", key);
    return (uint64_t)json_integer_value(v);
}

static long long jdelta(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "'%s' is not an integer", key);
    return json_integer_value(v);
}

Test(histo_output, json_one_dump)
{
    histo_table t;
    build(&t, 1);
    histo_options o = opts(HISTO_FORMAT_JSON);
    o.top = 4;
    char *text = render(&t, &o);
    json_t *j = parse_json(text);
    cr_assert_str_eq(json_string_value(json_object_get(j, "by")), "class");
    json_t *dumps = json_object_get(j, "dumps");
    cr_assert_eq(json_array_size(dumps), 1);
    json_t *d0 = json_array_get(dumps, 0);
    cr_assert_str_eq(json_string_value(json_object_get(d0, "file")), "a.dump");
    cr_assert(json_is_true(json_object_get(d0, "complete")));
    cr_assert_str_eq(json_string_value(json_object_get(d0, "source")),
                     "footer");
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    uint64_t shown = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *r = json_array_get(rows, i);
        const char *name = json_string_value(json_object_get(r, "class"));
        cr_assert_not_null(name);
        cr_assert_eq(jnum(r, "count"), histo_count(&t, &t.rows[i], 0));
        cr_assert_eq(jnum(r, "bytes"), histo_bytes(&t, &t.rows[i], 0));
        shown += jnum(r, "count");
    }
    json_t *tot = json_object_get(j, "totals"), *om = json_object_get(j, "omitted");
    cr_assert_eq(jnum(tot, "rows"), t.nrows);
    cr_assert_eq(jnum(om, "rows"), t.nrows - 4);
    cr_assert_eq(jnum(tot, "count"), shown + jnum(om, "count"));
    cr_assert_eq(jnum(tot, "bytes"), t.total[1]);
    json_decref(j);
    free(text);
    histo_table_free(&t);
}

Test(histo_output, json_names_roundtrip)
{
    histo_table t;
    build(&t, 1);
    histo_options o = opts(HISTO_FORMAT_JSON);
    o.sort = HISTO_SORT_NAME;
    char *text = render(&t, &o);
    json_t *j = parse_json(text);
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), t.nshown);
    for (size_t i = 0; i < t.nshown; i++) {
        const char *name =
            json_string_value(json_object_get(json_array_get(rows, i), "class"));
        if (strcmp(t.rows[i].name, "Bad\xff\xfeutf8") == 0)
            cr_assert_str_eq(name, "Bad\xef\xbf\xbd\xef\xbf\xbdutf8");
        else
            cr_assert_str_eq(name, t.rows[i].name);
    }
    json_decref(j);
    free(text);
    histo_table_free(&t);
}

Test(histo_output, json_two_dumps_and_trend)
{
    for (size_t nd = 2; nd <= 4; nd += 2) {
        histo_table t;
        build(&t, nd);
        histo_options o = opts(HISTO_FORMAT_JSON);
        char *text = render(&t, &o);
        json_t *j = parse_json(text);
        cr_assert_eq(json_array_size(json_object_get(j, "dumps")), nd);
        json_t *rows = json_object_get(j, "rows");
        cr_assert_eq(json_array_size(rows), t.nshown);
        for (size_t i = 0; i < t.nshown; i++) {
            json_t *r = json_array_get(rows, i);
            if (nd == 2) {
                cr_assert_eq(jdelta(r, "delta_count"),
                             (long long)jnum(r, "count_b") -
                                 (long long)jnum(r, "count_a"));
                cr_assert_eq(jdelta(r, "delta_bytes"),
                             (long long)jnum(r, "bytes_b") -
                                 (long long)jnum(r, "bytes_a"));
                const char *st =
                    json_string_value(json_object_get(r, "status"));
                cr_assert_str_eq(st, histo_row_status(&t, &t.rows[i]));
            } else {
                json_t *counts = json_object_get(r, "counts");
                cr_assert_eq(json_array_size(counts), nd);
                cr_assert_eq(json_array_size(json_object_get(r, "bytes")), nd);
                cr_assert(json_is_boolean(json_object_get(r, "growing")));
                cr_assert_eq(json_is_true(json_object_get(r, "growing")),
                             t.rows[i].growing);
                cr_assert_eq(jdelta(r, "delta_count"),
                             json_integer_value(json_array_get(counts, nd - 1)) -
                                 json_integer_value(json_array_get(counts, 0)));
            }
        }
        json_t *tot = json_object_get(j, "totals");
        cr_assert_eq(jnum(tot, "rows"), t.nrows);
        if (nd == 2)
            cr_assert_eq(jnum(tot, "count_b"), t.total[2]);
        else
            cr_assert_eq(json_array_size(json_object_get(tot, "counts")), nd);
        json_decref(j);
        free(text);
        histo_table_free(&t);
    }
}

Test(histo_output, json_empty)
{
    histo_table t;
    cr_assert_eq(histo_table_init(&t, 1), 0);
    t.dumps[0].path = "-";
    t.dumps[0].name = "(stdin)";
    t.dumps[0].status = CLI_EXIT_INCOMPLETE;
    histo_options o = opts(HISTO_FORMAT_JSON);
    char *text = render(&t, &o);
    json_t *j = parse_json(text);
    cr_assert_eq(json_array_size(json_object_get(j, "rows")), 0);
    cr_assert(json_is_false(
        json_object_get(json_array_get(json_object_get(j, "dumps"), 0),
                        "complete")));
    json_decref(j);
    free(text);
    histo_table_free(&t);
}

/* ---- end to end ------------------------------------------------------------- */

static char *write_gen_like(uint64_t seed, size_t nops)
{
    tmodel m;
    tmodel_init(&m);
    tbuf dump;
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.block_size = 2048;
    TASSERT_OK(tmodel_make_dump(&m, &wo, seed, nops, &dump));
    tmodel_free(&m);
    char *path = ttemp_file(dump.data, dump.len);
    tbuf_free(&dump);
    return path;
}

static char *run_to_text(const char *const *paths, size_t n,
                         const histo_options *o, int *rc)
{
    tcap c;
    *rc = histo_run(tcap_open(&c), paths, n, o);
    return tcap_close(&c);
}

Test(histo_output, run_footer_and_scan_print_the_same)
{
    char *p[3] = {write_gen_like(1, 4000), write_gen_like(2, 5000),
                  write_gen_like(3, 6000)};
    const char *const *paths = (const char *const *)p;
    for (size_t n = 1; n <= 3; n++) {
        for (int f = HISTO_FORMAT_TABLE; f <= HISTO_FORMAT_JSON; f++) {
            histo_options o = opts((enum histo_format)f);
            o.all = 1;
            int rc1, rc2;
            char *a = run_to_text(paths, n, &o, &rc1);
            o.scan = 1;
            char *b = run_to_text(paths, n, &o, &rc2);
            cr_assert_eq(rc1, CLI_EXIT_OK);
            cr_assert_eq(rc2, CLI_EXIT_OK);
            if (f == HISTO_FORMAT_JSON) { /* only "source" differs */
                /* The model's random sizes pass 2^63: compare as reals. */
                json_t *ja = parse_json_flags(a, JSON_DECODE_INT_AS_REAL);
                json_t *jb = parse_json_flags(b, JSON_DECODE_INT_AS_REAL);
                for (size_t d = 0; d < n; d++) {
                    json_t *da = json_array_get(json_object_get(ja, "dumps"), d);
                    json_t *db = json_array_get(json_object_get(jb, "dumps"), d);
                    cr_assert_str_eq(
                        json_string_value(json_object_get(da, "source")),
                        "footer");
                    cr_assert_str_eq(
                        json_string_value(json_object_get(db, "source")),
                        "scan");
                    json_object_del(da, "source");
                    json_object_del(db, "source");
                }
                cr_assert(json_equal(ja, jb), "%zu dumps: JSON differs", n);
                json_decref(ja);
                json_decref(jb);
            } else {
                cr_assert_str_eq(a, b, "%zu dumps, format %d", n, f);
            }
            free(a);
            free(b);
        }
    }
    for (size_t i = 0; i < 3; i++) {
        unlink(p[i]);
        free(p[i]);
    }
}

Test(histo_output, run_error_prints_nothing, .init = cr_redirect_stderr)
{
    char *good = write_gen_like(1, 500);
    const char *paths[] = {good, "/nonexistent/dir/x.dump"};
    histo_options o = opts(HISTO_FORMAT_TSV);
    int rc;
    char *text = run_to_text(paths, 2, &o, &rc);
    cr_assert_eq(rc, CLI_EXIT_ERROR);
    cr_assert_str_eq(text, "");
    free(text);
    unlink(good);
    free(good);
}

/* ---- the progress line --------------------------------------------------- */

Test(cli_progress, throttled_and_erased)
{
    const uint64_t ms = 1000000;
    tcap c;
    cli_progress p;
    cli_progress_begin_at(&p, tcap_open(&c), "big.dump", 1000, 0);
    cli_progress_tick_at(&p, 10, 1, 100 * ms); /* too early: silent */
    cli_progress_tick_at(&p, 500, 1234, 600 * ms);
    cli_progress_tick_at(&p, 600, 1300, 700 * ms); /* too soon again */
    cli_progress_tick_at(&p, 1000, 5000, 900 * ms);
    cli_progress_end(&p);
    cli_progress_tick_at(&p, 2000, 5000, 9000 * ms); /* after the end */
    char *text = tcap_close(&c);
    cr_assert_str_eq(text,
                     "heapfmt: big.dump: 50% (500 B of 1000 B), 1,234 "
                     "objects\033[K\r"
                     "heapfmt: big.dump: 100% (1000 B of 1000 B), 5,000 "
                     "objects\033[K\r"
                     "\r\033[K");
    free(text);
}

Test(cli_progress, disabled_and_unknown_total)
{
    cli_progress p;
    cli_progress_begin_at(&p, NULL, "x", 0, 0);
    cli_progress_tick_at(&p, 1, 1, UINT64_MAX);
    cli_progress_end(&p); /* nothing to write to: must not crash */
    char buf[128];
    cli_progress_format(buf, sizeof buf, "(stdin)", 0, 3u << 20, 7);
    cr_assert_str_eq(buf, "(stdin): 3.0 MiB read, 7 objects");
    /* quiet when the run ends before the delay */
    tcap c;
    cli_progress_begin_at(&p, tcap_open(&c), "x", 10, 0);
    cli_progress_tick_at(&p, 5, 5, CLI_PROGRESS_DELAY_NS - 1);
    cli_progress_end(&p);
    char *text = tcap_close(&c);
    cr_assert_str_eq(text, "");
    free(text);
}
