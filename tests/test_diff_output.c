/*
 * test_diff_output.c -- heapfmt-diff's table, TSV, CSV and JSON: headers, one
 * line per row whatever the names hold, numbers that add up, valid JSON.
 *
 * The TSV and table layouts are one case table (line_cases): the dumps to
 * diff, the options, and the lines the output must have.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "diff.h"
#include "print.h"
#include "test_diff_dumps.h"
#include "ttext.h"

/* A class name that holds everything a name can: tab, newline, NUL,
 * backslash, a quote, UTF-8 and a byte that is not UTF-8. */
static const char weird[] = "We\tird\nName\\\"\xc3\xa9\xff";
/* the text form: escapes, valid UTF-8 kept, the invalid byte as \\xff */
#define WEIRD_TEXT "We\\tird\\nName\\\\\"\xc3\xa9\\xff"
/* its CSV field: the text form quoted, the inner quote doubled */
#define WEIRD_CSV "\"We\\tird\\nName\\\\\"\"\xc3\xa9\\xff\""

static tobj before[] = {
    {0x100, "String", 40, "T_STRING", "app/a.rb", 3},
    {0x140, "Array", 1000, "T_ARRAY", NULL, 0},
    {0x180, "Hash", 160, "T_HASH", "app/h.rb", 9},
};
static tobj after[] = {
    {0x100, "String", 40, "T_STRING", "app/a.rb", 3},
    {0x200, "String", 50, "T_STRING", "app/a.rb", 3},
    {0x240, "String", 60, "T_STRING", "app/b.rb", 7},
    {0x280, weird, 70, NULL, "lib/\tx.rb", 1},
    {0x180, "Hash", 160, "T_HASH", "app/h.rb", 9},
};
static tobj third[] = {
    {0x200, "String", 50, "T_STRING", "app/a.rb", 3},
    {0x280, weird, 70, NULL, "lib/\tx.rb", 1},
};

typedef struct out {
    char *text;
    size_t len;
} out;

/* What diff_print writes of res in format. */
static out print_result(const diff_result *res, int format)
{
    tcap c;
    diff_print(res, format, 0, tcap_open(&c));
    tcap_close(&c);
    return (out){c.text, c.len};
}

/* Runs the diff of the test dumps and prints it in format. */
static out run_print(int ndumps, int list, unsigned by, uint64_t top,
                     int format)
{
    char p1[512], p2[512], p3[512];
    td_path(p1, sizeof p1, "o1.dump");
    td_path(p2, sizeof p2, "o2.dump");
    td_path(p3, sizeof p3, "o3.dump");
    td_write(p1, before, 3, NULL, 0, 1);
    td_write(p2, after, 5, NULL, TD_SHUFFLE, 1);
    td_write(p3, third, 2, NULL, 0, 1);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = list;
    opt.by = by;
    opt.top = top;
    diff_result res;
    int rc = ndumps == 2 ? td_run(&res, &opt, 2, p1, p2, NULL)
                         : td_run(&res, &opt, 3, p1, p2, p3);
    cr_assert_eq(rc, AN_OK);
    out o = print_result(&res, format);
    diff_result_free(&res);
    unlink(p1);
    unlink(p2);
    unlink(p3);
    return o;
}

typedef struct line_case {
    const char *name;
    int ndumps, list;
    unsigned by;
    uint64_t top;
    int format;
    size_t nlines;
    texpect want[14];
} line_case;

#define TSV_SUMMARY_HEAD "new_count\tnew_bytes\tfreed_count\tfreed_bytes"

static const line_case line_cases[] = {
    /* header, String, Array, weird; sorted by new bytes: String 110, the
     * weird class 70, Array 0 */
    {"tsv_summary_two_dumps", 2, 0, DIFF_BY_CLASS, 0, CLI_ROW_TSV, 4,
     {TX_LINE(0, "class\t" TSV_SUMMARY_HEAD),
      TX_NFIELDS(5, '\t'),
      TX_LINE(1, "String\t2\t110\t0\t0"),
      TX_LINE(2, WEIRD_TEXT "\t1\t70\t0\t0"),
      TX_LINE(3, "Array\t0\t0\t1\t1000")}},
    {"tsv_summary_by_site", 2, 0, DIFF_BY_SITE, 0, CLI_ROW_TSV, 5,
     {TX_LINE(0, "site\t" TSV_SUMMARY_HEAD),
      TX_LINE(1, "lib/\\tx.rb:1\t1\t70\t0\t0"),
      TX_LINE(2, "app/b.rb:7\t1\t60\t0\t0"),
      TX_LINE(3, "app/a.rb:3\t1\t50\t0\t0"),
      TX_LINE(4, "(no site)\t0\t0\t1\t1000")}},
    {"tsv_summary_by_class_and_site", 2, 0, DIFF_BY_CLASS | DIFF_BY_SITE, 0,
     CLI_ROW_TSV, 5,
     {TX_LINE(0, "class\tsite\t" TSV_SUMMARY_HEAD),
      TX_LINE(1, WEIRD_TEXT "\tlib/\\tx.rb:1\t1\t70\t0\t0")}},
    {"tsv_three_dumps", 3, 0, DIFF_BY_CLASS, 0, CLI_ROW_TSV, 3,
     {TX_LINE(0, "class\tretained_count\tretained_bytes"),
      TX_LINE(1, WEIRD_TEXT "\t1\t70"),
      TX_LINE(2, "String\t1\t50")}},
    {"tsv_list", 2, 1, DIFF_BY_CLASS, 0, CLI_ROW_TSV, 5,
     {TX_LINE(0, "change\tid\tclass\ttype\tbytes\tsite"),
      TX_LINE(1, "freed\t0x0000000000000140\tArray\tT_ARRAY\t1000\t"
                 "(no site)"),
      TX_LINE(2, "new\t0x0000000000000280\t" WEIRD_TEXT
                 "\t(no type)\t70\tlib/\\tx.rb:1"),
      TX_LINE(3, "new\t0x0000000000000240\tString\tT_STRING\t60\t"
                 "app/b.rb:7"),
      TX_NFIELDS(6, '\t')}},
    {"tsv_list_retained_top_1", 3, 1, DIFF_BY_CLASS, 1, CLI_ROW_TSV, 2,
     {TX_STARTS(1, "retained\t0x0000000000000280\t")}},
    /* header, 2 rows, the rest, a rule, the total; the numbers line up:
     * every line has the class column at the same place */
    {"table_summary_top_2", 2, 0, DIFF_BY_CLASS, 2, CLI_ROW_TABLE, 6,
     {TX_CONTAINS(0, "NEW"), TX_CONTAINS(0, "FREED BYTES"),
      TX_CONTAINS(0, "DELTA BYTES"), TX_CONTAINS(0, "CLASS"),
      TX_CONTAINS(1, "String"), TX_CONTAINS(1, "+110"),
      TX_CONTAINS(3, "(1 other class)"), TX_CONTAINS(3, "-1000"),
      TX_DASHES(4),
      TX_CONTAINS(5, "total (3 classes)"), TX_CONTAINS(5, "-820"),
      TX_UNDER(1, "String", "CLASS"), TX_UNDER(5, "total", "CLASS")}},
    {"table_summary_by_site", 2, 0, DIFF_BY_SITE, 0, CLI_ROW_TABLE, 7,
     {TX_CONTAINS(6, "total (4 sites)")}},
    {"table_three_dumps_by_class_and_site", 3, 0,
     DIFF_BY_CLASS | DIFF_BY_SITE, 0, CLI_ROW_TABLE, 5,
     {TX_CONTAINS(0, "RETAINED BYTES"), TX_CONTAINS(0, "SITE"),
      TX_UNDER(1, "lib/\\tx.rb:1", "SITE"),
      TX_CONTAINS(4, "total (2 rows)")}},
    {"table_list", 2, 1, DIFF_BY_CLASS, 0, CLI_ROW_TABLE, 5,
     {TX_STARTS(0, "CHANGE"), TX_STARTS(1, "freed"),
      TX_CONTAINS(1, " 1000 "), TX_CONTAINS(2, "(no type)"),
      TX_UNDER(2, "lib/\\tx.rb:1", "SITE"),
      TX_UNDER(3, "app/b.rb:7", "SITE")}},
};

Test(output, line_cases, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof line_cases / sizeof line_cases[0]; k++) {
        const line_case *lc = &line_cases[k];
        tcase_enter(lc->name);
        out o = run_print(lc->ndumps, lc->list, lc->by, lc->top, lc->format);
        texpect_check(lc->name, o.text, lc->nlines, lc->want);
        free(o.text);
    }
    tcase_leave();
}

/* The CSV line of a TSV line of the test dumps: commas for tabs, the
 * weird class name quoted (no other name needs it). */
static void tsv_to_csv(const char *tsv, char *buf, size_t size)
{
    size_t n = 0;
    while (*tsv != '\0') {
        const char *put = *tsv == '\t' ? "," : NULL;
        size_t len = 1, skip = 1;
        if (strncmp(tsv, WEIRD_TEXT, strlen(WEIRD_TEXT)) == 0) {
            put = WEIRD_CSV;
            skip = strlen(WEIRD_TEXT);
        }
        if (put != NULL)
            len = strlen(put);
        cr_assert_lt(n + len, size);
        memcpy(buf + n, put != NULL ? put : tsv, len);
        n += len;
        tsv += skip;
    }
    buf[n] = '\0';
}

/* CSV: TSV's columns and rows, line for line, in every layout. */
Test(output, csv_is_tsv_with_commas)
{
    static const struct {
        int ndumps, list;
        unsigned by;
    } cases[] = {
        {2, 0, DIFF_BY_CLASS},
        {2, 0, DIFF_BY_SITE},
        {2, 0, DIFF_BY_CLASS | DIFF_BY_SITE},
        {3, 0, DIFF_BY_CLASS},
        {2, 1, DIFF_BY_CLASS},
        {3, 1, DIFF_BY_CLASS},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        out t = run_print(cases[c].ndumps, cases[c].list, cases[c].by, 0,
                          CLI_ROW_TSV);
        out o = run_print(cases[c].ndumps, cases[c].list, cases[c].by, 0,
                          CLI_ROW_CSV);
        char *tv[16], *cv[16], want[512];
        size_t n = tlines(t.text, tv, 16);
        cr_assert_eq(tlines(o.text, cv, 16), n, "case %zu", c);
        cr_assert_gt(n, 1, "case %zu", c);
        size_t quoted = 0;
        for (size_t i = 0; i < n; i++) {
            tsv_to_csv(tv[i], want, sizeof want);
            cr_assert_str_eq(cv[i], want, "case %zu line %zu", c, i);
            quoted += strstr(cv[i], WEIRD_CSV) != NULL;
        }
        /* the weird class is a row of every layout that names classes */
        cr_assert_eq(quoted, cases[c].by != DIFF_BY_SITE, "case %zu", c);
        free(t.text);
        free(o.text);
    }
}

/* A site or a name with a comma, or a space at an end, is quoted whole:
 * "file:line" stays one field. */
Test(output, csv_quotes_names_and_sites)
{
    static tobj a[] = {{0x100, "String", 40, "T_STRING", "app/a.rb", 3}};
    static tobj b[] = {
        {0x100, "String", 40, "T_STRING", "app/a.rb", 3},
        {0x300, " Lead", 8, "T_STRING", "x,y.rb", 2},
        {0x340, "Plain", 4, "T_STRING", "q\"z.rb", 5},
    };
    char p1[512], p2[512];
    td_path(p1, sizeof p1, "q1.dump");
    td_path(p2, sizeof p2, "q2.dump");
    td_write(p1, a, 1, NULL, 0, 1);
    td_write(p2, b, 3, NULL, 0, 1);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.by = DIFF_BY_CLASS | DIFF_BY_SITE;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, p1, p2, NULL), AN_OK);
    out o = print_result(&res, CLI_ROW_CSV);
    char *v[8];
    size_t n = tlines(o.text, v, 8);
    cr_assert_eq(n, 3, "%s", o.text);
    cr_assert_str_eq(v[1], "\" Lead\",\"x,y.rb:2\",1,8,0,0");
    cr_assert_str_eq(v[2], "Plain,\"q\"\"z.rb:5\",1,4,0,0");
    free(o.text);
    diff_result_free(&res);
    unlink(p1);
    unlink(p2);
}

static json_t *parse(const out *o)
{
    json_error_t e;
    json_t *j = json_loadb(o->text, o->len, 0, &e);
    cr_assert_not_null(j, "invalid JSON at line %d: %s\n%s", e.line, e.text,
                       o->text);
    return j;
}

static json_int_t jint(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert(json_is_integer(v), "%s is not an integer", key);
    return json_integer_value(v);
}

Test(output, json_summary)
{
    out o = run_print(2, 0, DIFF_BY_CLASS | DIFF_BY_SITE, 0,
                      CLI_ROW_JSON);
    json_t *j = parse(&o);
    cr_assert_str_eq(json_string_value(json_object_get(j, "mode")), "diff");
    cr_assert_str_eq(json_string_value(json_object_get(j, "by")),
                     "class,site");
    cr_assert(json_is_true(json_object_get(j, "complete")));
    json_t *dumps = json_object_get(j, "dumps");
    cr_assert_eq(json_array_size(dumps), 2);
    cr_assert(json_is_true(
        json_object_get(json_array_get(dumps, 1), "complete")));
    cr_assert(json_is_string(
        json_object_get(json_array_get(dumps, 0), "file")));
    json_t *omitted = json_object_get(j, "omitted");
    cr_assert_eq(jint(omitted, "rows"), 0);
    cr_assert_eq(jint(omitted, "new_count"), 0);
    cr_assert_eq(json_array_size(json_object_get(j, "warnings")), 0);
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    json_t *r0 = json_array_get(rows, 0);
    /* The class name's bytes survive, but for the invalid one. */
    cr_assert_str_eq(json_string_value(json_object_get(r0, "class")),
                     "We\tird\nName\\\"\xc3\xa9\xef\xbf\xbd");
    cr_assert_str_eq(json_string_value(json_object_get(r0, "site")),
                     "lib/\tx.rb:1");
    json_t *last = json_array_get(rows, 3);
    cr_assert(json_is_null(json_object_get(last, "site")));
    cr_assert_eq(jint(last, "freed_bytes"), 1000);
    cr_assert_eq(jint(last, "delta_count"), -1);
    cr_assert_eq(jint(last, "delta_bytes"), -1000);
    json_t *total = json_object_get(j, "totals");
    cr_assert_eq(jint(total, "rows"), 4);
    cr_assert_eq(jint(total, "new_count"), 3);
    cr_assert_eq(jint(total, "new_bytes"), 180);
    cr_assert_eq(jint(total, "delta_bytes"), -820);
    json_decref(j);
    free(o.text);
}

Test(output, json_three_dumps_and_list)
{
    out o = run_print(3, 0, DIFF_BY_CLASS, 1, CLI_ROW_JSON);
    json_t *j = parse(&o);
    cr_assert_str_eq(json_string_value(json_object_get(j, "mode")),
                     "retained");
    cr_assert_eq(json_array_size(json_object_get(j, "rows")), 1); /* top 1 */
    json_t *omitted = json_object_get(j, "omitted");
    cr_assert_eq(jint(omitted, "rows"), 1);
    cr_assert_eq(jint(omitted, "retained_bytes"), 50);
    json_t *total = json_object_get(j, "totals");
    cr_assert_eq(jint(total, "rows"), 2);
    cr_assert_eq(jint(total, "retained_count"), 2);
    cr_assert_eq(jint(total, "retained_bytes"), 120);
    json_decref(j);
    free(o.text);

    o = run_print(2, 1, DIFF_BY_CLASS, 0, CLI_ROW_JSON);
    j = parse(&o);
    json_t *objs = json_object_get(j, "objects");
    cr_assert_eq(json_array_size(objs), 4);
    cr_assert_eq(jint(j, "count"), 4);
    json_t *o0 = json_array_get(objs, 0);
    cr_assert_str_eq(json_string_value(json_object_get(o0, "change")),
                     "freed");
    cr_assert_str_eq(json_string_value(json_object_get(o0, "id")),
                     "0x0000000000000140");
    cr_assert_eq(jint(o0, "bytes"), 1000);
    cr_assert(json_is_null(json_object_get(o0, "site")));
    json_t *o1 = json_array_get(objs, 1);
    cr_assert(json_is_null(json_object_get(o1, "type")));
    cr_assert_str_eq(json_string_value(json_object_get(o1, "site")),
                     "lib/\tx.rb:1");
    json_decref(j);
    free(o.text);
}

/* Both dumps the same: a header, an empty list or a zero total. */
Test(output, nothing_changed)
{
    char p[512];
    td_path(p, sizeof p, "same.dump");
    td_write(p, before, 3, NULL, 0, 1);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 2, p, p, NULL), AN_OK);
    static const struct {
        const char *name;
        int format;
        int whole; /* the whole output is text; else it holds it */
        const char *text;
    } cases[] = {
        {"table", CLI_ROW_TABLE, 0, "total (0 classes)"},
        {"tsv", CLI_ROW_TSV, 1,
         "class\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"},
        {"csv", CLI_ROW_CSV, 1,
         "class,new_count,new_bytes,freed_count,freed_bytes\n"},
        {"json", CLI_ROW_JSON, 0, "  \"rows\": [],\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        out o = print_result(&res, cases[i].format);
        if (cases[i].whole)
            cr_assert_str_eq(o.text, cases[i].text, "%s", cases[i].name);
        else
            cr_assert(strstr(o.text, cases[i].text) != NULL, "%s: %s",
                      cases[i].name, o.text);
        if (cases[i].format == CLI_ROW_JSON)
            json_decref(parse(&o));
        free(o.text);
    }
    diff_result_free(&res);
    unlink(p);
}
