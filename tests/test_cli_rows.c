/*
 * test_cli_rows.c -- the one row printer (tools/common/cli_rows.h): the
 * same typed cells in every format; JSON keeps a null and leaves an
 * absent cell's key out; the two-pass table measures every row, pads
 * empty cells as printf's "%*s" does, and prints tails and a rule; names
 * are escaped once per format, invalid UTF-8 as \xHH in text and CSV,
 * U+FFFD in JSON.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_rows.h"

static const char *const cols[] = {"name", "count", "mean", "site"};

/* What cells writes in format, through cli_rows with cols. */
static char *print(int format, void (*cells)(cli_rows *o))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cli_rows o;
    cli_rows_begin(&o, f, format, 4, cols);
    cells(&o);
    cr_assert_eq(cli_rows_finish(&o), 0);
    cr_assert_eq(fclose(f), 0);
    return text;
}

/* Two rows: a name with a comma, a tab and an invalid byte; a count; a
 * mean (null over nothing); a site, absent in the second row. */
static void two_rows(cli_rows *o)
{
    cli_rows_text(o, "a,b\t\xff", 5);
    cli_rows_u64(o, 12);
    cli_rows_mean(o, 10, 4);
    cli_rows_site(o, "x.rb", 4, 7);
    cli_rows_text(o, "Caf\xc3\xa9", 5);
    cli_rows_i64(o, -3);
    cli_rows_mean(o, 10, 0);
    cli_rows_absent(o);
}

static void expect(int format, const char *want)
{
    char *got = print(format, two_rows);
    cr_assert_str_eq(got, want);
    free(got);
}

Test(cli_rows, every_format_from_the_same_cells)
{
    expect(CLI_ROW_TSV, "name\tcount\tmean\tsite\n"
                        "a,b\\t\\xff\t12\t2\tx.rb:7\n"
                        "Caf\xc3\xa9\t-3\t\t\n");
    expect(CLI_ROW_CSV, "name,count,mean,site\n"
                        "\"a,b\\t\\xff\",12,2,x.rb:7\n"
                        "Caf\xc3\xa9,-3,,\n");
    expect(CLI_ROW_JSON,
           "[\n {\"name\": \"a,b\\t\\ufffd\", \"count\": 12, \"mean\": 2, "
           "\"site\": \"x.rb:7\"},\n"
           " {\"name\": \"Caf\xc3\xa9\", \"count\": -3, \"mean\": null}\n]\n");
}

static void table_rows(cli_rows *o)
{
    cli_rows_text(o, "Caf\xc3\xa9 au lait", 13);
    cli_rows_u64(o, 12);
    cli_rows_mean(o, 10, 4);
    cli_rows_site(o, "x.rb", 4, 7);
    cli_rows_word(o, "b");
    cli_rows_i64(o, -3);
    cli_rows_null(o);
    cli_rows_null(o);
}

Test(cli_rows, kept_table)
{
    char *text = print(CLI_ROW_TABLE, table_rows);
    /* names upper case, numbers to the right, widths in characters, no
     * trailing blanks (the empty cells end the second line) */
    cr_assert_str_eq(text, "NAME          COUNT  MEAN  SITE\n"
                           "Caf\xc3\xa9 au lait     12     2  x.rb:7\n"
                           "b                -3\n");
    free(text);
}

/* A name whose text form holds escapes: its column is as wide as what
 * is printed (the escapes once), so the next column lines up. */
static void escaped_rows(cli_rows *o)
{
    cli_rows_text(o, "Bad\xff\\Name", 9);
    cli_rows_u64(o, 1);
    cli_rows_null(o);
    cli_rows_null(o);
    cli_rows_text(o, "Plain", 5);
    cli_rows_u64(o, 22);
    cli_rows_null(o);
    cli_rows_null(o);
}

Test(cli_rows, kept_table_measures_escapes_once)
{
    char *text = print(CLI_ROW_TABLE, escaped_rows);
    cr_assert_str_eq(text, "NAME           COUNT  MEAN  SITE\n"
                           "Bad\\xff\\\\Name      1\n"
                           "Plain             22\n");
    free(text);
}

Test(cli_rows, json_nested_in_a_document)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cli_rows o;
    fputs("{\"rows\": ", f);
    cli_rows_begin(&o, f, CLI_ROW_JSON, 1, cols);
    o.json_indent = "  ";
    o.json_outdent = "";
    o.json_tail = "}\n";
    cli_rows_word(&o, "w");
    cli_rows_finish(&o);
    fclose(f);
    cr_assert_str_eq(text, "{\"rows\": [\n  {\"name\": \"w\"}\n]}\n");
    free(text);
    /* no row: the empty array */
    f = open_memstream(&text, &len);
    cli_rows_begin(&o, f, CLI_ROW_JSON, 1, cols);
    cli_rows_finish(&o);
    fclose(f);
    cr_assert_str_eq(text, "[]\n");
    free(text);
}

Test(cli_rows, two_pass_table_with_tail_and_rule)
{
    static const char *const labels[] = {"N", "Bytes", "name"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cli_rows o;
    cli_rows_begin(&o, f, CLI_ROW_TABLE, 3, labels);
    o.labels = labels; /* as they are: no upper case */
    cli_rows_measure(&o);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            cli_rows_print(&o);
        cli_rows_u64(&o, 5);
        cli_rows_number(&o, "");
        cli_rows_text(&o, "", 0); /* an empty last cell keeps its blanks */
        cli_rows_u64(&o, 123456);
        cli_rows_u64(&o, 7);
        cli_rows_tail(&o, "(1 other)"); /* not measured */
        cli_rows_rule(&o, 2);
        cli_rows_u64(&o, 123461);
        cli_rows_u64(&o, 7);
        cli_rows_tail(&o, "total");
    }
    cr_assert_eq(cli_rows_finish(&o), 0);
    fclose(f);
    cr_assert_str_eq(text, "     N  Bytes  name\n"
                           "     5         \n"
                           "123456      7  (1 other)\n"
                           "------  -----\n"
                           "123461      7  total\n");
    free(text);
}
