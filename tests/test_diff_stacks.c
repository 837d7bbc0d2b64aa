/*
 * test_diff_stacks.c -- heapfmt-diff --by=stack and --by=frame on native
 * heaps of known content (test_stack_dumps.h): the objects new, freed and
 * retained per call stack and per top frame, exactly as stated by hand,
 * in TSV and JSON; a dump whose stacks were lost, and dumps without any.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "cli_stack.h"
#include "diff.h"
#include "print.h"
#include "test_stack_dumps.h"

/* Three dumps of one process. Between d1 and d2: three blocks of
 * leaky_function called from main and one called from worker are new,
 * one operator new and one strdup block freed, one without a stack new.
 * By d3, 0x5800 and 0x8000 are freed again: 0x5c00, 0x6000 and 0xc000
 * are retained. */
static const ts_obj d1[] = {
    {0x5000, 1024, TS_LEAK_MAIN}, {0x5400, 1024, TS_LEAK_MAIN},
    {0xa000, 48, TS_NEW},         {0xa040, 48, TS_NEW},
    {0xb000, 10, TS_STRDUP},
};
static const ts_obj d2[] = {
    {0x5000, 1024, TS_LEAK_MAIN}, {0x5400, 1024, TS_LEAK_MAIN},
    {0x5800, 1024, TS_LEAK_MAIN}, {0x5c00, 1024, TS_LEAK_MAIN},
    {0x6000, 1024, TS_LEAK_MAIN}, {0x8000, 4096, TS_LEAK_WORKER},
    {0xa000, 48, TS_NEW},         {0xc000, 16, TS_NONE},
};
static const ts_obj d3[] = {
    {0x5000, 1024, TS_LEAK_MAIN}, {0x5400, 1024, TS_LEAK_MAIN},
    {0x5c00, 1024, TS_LEAK_MAIN}, {0x6000, 1024, TS_LEAK_MAIN},
    {0xa000, 48, TS_NEW},         {0xc000, 16, TS_NONE},
};

static const struct {
    const ts_obj *objs;
    size_t n;
} dumps[3] = {{d1, sizeof d1 / sizeof d1[0]},
              {d2, sizeof d2 / sizeof d2[0]},
              {d3, sizeof d3 / sizeof d3[0]}};

/* What heapfmt-diff prints on the n dumps at paths by by, in format
 * (free it); *rc gets the exit code. */
static char *diff_paths(const char *const *paths, int n, unsigned by,
                        int format, int *rc)
{
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.by = by;
    diff_result res;
    *rc = diff_compute(paths, n, &opt, &res);
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    if (*rc == AN_OK || *rc == AN_INCOMPLETE)
        diff_print(&res, format, 0, out);
    diff_result_free(&res);
    char *s = ts_slurp(out);
    fclose(out);
    return s;
}

/* Writes the first n dumps (flags as ts_write's on the second), diffs
 * them by by and returns the output in format (free it); *rc gets the
 * exit code. */
static char *diff_dumps(int n, unsigned by, int format, unsigned flags,
                        int *rc)
{
    char paths[3][256];
    const char *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "diff-d%d", i + 1);
        ts_path(paths[i], sizeof paths[i], name);
        ts_write(paths[i], dumps[i].objs, dumps[i].n, i == 1 ? flags : 0);
        p[i] = paths[i];
    }
    char *s = diff_paths(p, n, by, format, rc);
    for (int i = 0; i < n; i++)
        remove(paths[i]);
    return s;
}

Test(diff_stacks, new_and_freed_by_frame)
{
    int rc;
    char *s = diff_dumps(2, DIFF_BY_FRAME, CLI_ROW_TSV, 0, &rc);
    cr_expect_eq(rc, AN_OK);
    cr_expect_str_eq(s, "frame\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"
                        TS_F_LEAKY "\t4\t7168\t0\t0\n"
                        CLI_NO_STACK "\t1\t16\t0\t0\n"
                        TS_F_INSERT "\t0\t0\t1\t48\n"
                        TS_F_STRDUP "\t0\t0\t1\t10\n");
    free(s);
}

Test(diff_stacks, new_and_freed_by_stack)
{
    int rc;
    char *s = diff_dumps(2, DIFF_BY_STACK, CLI_ROW_TSV, 0, &rc);
    cr_expect_eq(rc, AN_OK);
    cr_expect_str_eq(s, "stack\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"
                        TS_S_LEAK_WORKER "\t1\t4096\t0\t0\n"
                        TS_S_LEAK_MAIN "\t3\t3072\t0\t0\n"
                        CLI_NO_STACK "\t1\t16\t0\t0\n"
                        TS_S_NEW "\t0\t0\t1\t48\n"
                        TS_S_STRDUP "\t0\t0\t1\t10\n");
    free(s);
}

Test(diff_stacks, retained_by_frame_and_stack)
{
    int rc;
    char *s = diff_dumps(3, DIFF_BY_FRAME, CLI_ROW_TSV, 0, &rc);
    cr_expect_eq(rc, AN_OK);
    cr_expect_str_eq(s, "frame\tretained_count\tretained_bytes\n"
                        TS_F_LEAKY "\t2\t2048\n"
                        CLI_NO_STACK "\t1\t16\n");
    free(s);
    s = diff_dumps(3, DIFF_BY_STACK, CLI_ROW_JSON, 0, &rc);
    cr_expect_eq(rc, AN_OK);
    cr_expect(strstr(s, "\"by\": \"stack\"") != NULL, "%s", s);
    cr_expect(strstr(s, "{\"stack\": \"" TS_S_LEAK_MAIN
                        "\", \"retained_count\": 2, \"retained_bytes\": "
                        "2048}") != NULL,
              "%s", s);
    free(s);
}

/* d2's stacks were in a damaged block: its objects with a stack are one
 * "(unknown stack)" row, and do not match d1's (another stack, as far as
 * anyone can tell), which a warning says; the object without a stack is
 * new as before. */
Test(diff_stacks, lost_stacks)
{
    int rc;
    char *s = diff_dumps(2, DIFF_BY_FRAME, CLI_ROW_TSV, TS_LOSE_STACKS,
                         &rc);
    cr_expect_eq(rc, AN_INCOMPLETE);
    cr_expect_str_eq(s, "frame\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"
                        CLI_UNKNOWN_STACK "\t7\t9264\t0\t0\n"
                        CLI_NO_STACK "\t1\t16\t0\t0\n"
                        TS_F_LEAKY "\t0\t0\t2\t2048\n"
                        TS_F_INSERT "\t0\t0\t2\t96\n"
                        TS_F_STRDUP "\t0\t0\t1\t10\n");
    free(s);
    s = diff_dumps(2, DIFF_BY_FRAME, CLI_ROW_JSON, TS_LOSE_STACKS, &rc);
    cr_expect(strstr(s, "call stacks were lost") != NULL, "%s", s);
    free(s);
}

/* An address freed and taken again by a block of another stack is two
 * objects, one freed and one new, even of one class; by class too. */
Test(diff_stacks, address_reused_by_another_stack)
{
    static const ts_obj before[] = {{0x7000, 64, TS_STRDUP},
                                    {0x7100, 64, TS_NEW}};
    static const ts_obj after[] = {{0x7000, 1024, TS_LEAK_MAIN},
                                   {0x7100, 64, TS_NEW}};
    char p1[256], p2[256];
    ts_path(p1, sizeof p1, "reuse-1");
    ts_path(p2, sizeof p2, "reuse-2");
    ts_write(p1, before, 2, 0);
    ts_write(p2, after, 2, 0);
    const char *paths[2] = {p1, p2};
    static const struct {
        unsigned by;
        const char *want;
    } cases[] = {
        {DIFF_BY_FRAME, "frame\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"
                        TS_F_LEAKY "\t1\t1024\t0\t0\n"
                        TS_F_STRDUP "\t0\t0\t1\t64\n"},
        {DIFF_BY_CLASS, "class\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes\n"
                        "(no class)\t1\t1024\t1\t64\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        char *s = diff_paths(paths, 2, cases[i].by, CLI_ROW_TSV, &rc);
        cr_expect_eq(rc, AN_OK);
        cr_expect_str_eq(s, cases[i].want);
        free(s);
    }
    remove(p1);
    remove(p2);
}
