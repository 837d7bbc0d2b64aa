/*
 * test_graph_out.c -- heapfmt-graph's TSV and CSV cells: names and sites in
 * the text form of cli_escape.h, escaped once; CSV quoted as histo's and
 * heapfmt-diff's CSV are (cli_put_csv).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "out.h"

static const char *const cols[] = {"class", "site", "bytes"};

/* One row (name, site file:line, 7) in format; returns what was written. */
static char *row(int format, const char *name, const char *file)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cli_rows o;
    out_begin(&o, f, format, NULL, 3, cols);
    cli_rows_text(&o, name, strlen(name));
    cli_rows_site(&o, file, strlen(file), 12);
    cli_rows_u64(&o, 7);
    cr_assert_eq(cli_rows_finish(&o), 0);
    cr_assert_eq(fclose(f), 0);
    return text;
}

static void expect(int format, const char *name, const char *file,
                   const char *want)
{
    char *got = row(format, name, file);
    cr_assert_str_eq(got, want, "name '%s' file '%s'", name, file);
    free(got);
}

Test(graph_out, tsv_escapes_once)
{
    expect(CLI_ROW_TSV, "A\\B", "lib\\x.rb",
           "class\tsite\tbytes\nA\\\\B\tlib\\\\x.rb:12\t7\n");
    expect(CLI_ROW_TSV, "Tab\there", "a\tb.rb",
           "class\tsite\tbytes\nTab\\there\ta\\tb.rb:12\t7\n");
}

Test(graph_out, csv_quotes_as_histo_does)
{
    /* nothing to quote: the TSV's text with commas */
    expect(CLI_ROW_CSV, "A\\B", "lib\\x.rb",
           "class,site,bytes\nA\\\\B,lib\\\\x.rb:12,7\n");
    expect(CLI_ROW_CSV, "Tab\there", "a\tb.rb",
           "class,site,bytes\nTab\\there,a\\tb.rb:12,7\n");
    /* a comma or a quote, in a name or a site: quoted, quotes doubled,
     * the site's ":line" inside the quotes */
    expect(CLI_ROW_CSV, "Hash, big", "x,y.rb",
           "class,site,bytes\n\"Hash, big\",\"x,y.rb:12\",7\n");
    expect(CLI_ROW_CSV, "Say \"hi\"", "q\"\\.rb",
           "class,site,bytes\n\"Say \"\"hi\"\"\",\"q\"\"\\\\.rb:12\",7\n");
    /* a space at either end, which some readers trim: quoted */
    expect(CLI_ROW_CSV, " Lead", "trail .rb",
           "class,site,bytes\n\" Lead\",trail .rb:12,7\n");
}

/* An empty cell may come as (NULL, 0): nothing is written and memchr never
 * sees the NULL (UBSan's nonnull check fails the sanitizer build if it does). */
Test(graph_out, csv_empty_null_cell)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cli_put_csv(f, NULL, 0);
    cli_put_csv_chars(f, NULL, 0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(len, 0);
    free(text);
}
