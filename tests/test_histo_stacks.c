/*
 * test_histo_stacks.c -- histo --by=stack, --by=frame and -f folded on a
 * native heap of known content (test_stack_dumps.h): every row's count
 * and bytes as stated by hand, the top frame past the tracker, libc and
 * operator new, the folded lines outermost first adding up to the dump,
 * and stacks whose records were lost shown as such, with exit code 3.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_stack.h"
#include "histo_print.h"
#include "test_stack_dumps.h"

/* 16 objects, 13528 bytes. */
static const ts_obj heap[] = {
    {0x5000, 1024, TS_LEAK_MAIN},  {0x5400, 1024, TS_LEAK_MAIN},
    {0x5800, 1024, TS_LEAK_MAIN},  {0x5c00, 1024, TS_LEAK_MAIN},
    {0x6000, 1024, TS_LEAK_MAIN},  {0x8000, 4096, TS_LEAK_WORKER},
    {0x9000, 4096, TS_LEAK_WORKER}, {0xa000, 48, TS_NEW},
    {0xa040, 48, TS_NEW},          {0xa080, 48, TS_NEW},
    {0xb000, 10, TS_STRDUP},       {0xb020, 10, TS_STRDUP},
    {0xb040, 10, TS_STRDUP},       {0xb060, 10, TS_STRDUP},
    {0xc000, 16, TS_NONE},         {0xc020, 16, TS_NONE},
};
#define NHEAP (sizeof heap / sizeof heap[0])

/* Writes the heap (flags as ts_write's) to a file of its own and returns
 * what histo prints on it by by in format fmt (free it), and in *rc its
 * exit code; with HEAPFMT_JOBS threads when flags has TS_SPLIT. */
#define HEAPFMT_JOBS 8u
static char *histo_heap(const char *name, unsigned flags, enum histo_by by,
                        enum histo_format fmt, enum histo_sort sort, int *rc)
{
    char path[256];
    ts_path(path, sizeof path, name);
    ts_write(path, heap, NHEAP, flags);
    histo_options opt = HISTO_OPTIONS_INIT;
    opt.by = by;
    opt.format = fmt;
    opt.sort = sort;
    opt.progress = 0;
    opt.jobs = (flags & TS_SPLIT) ? HEAPFMT_JOBS : 1;
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    const char *paths[1] = {path};
    *rc = histo_run(out, paths, 1, &opt);
    char *s = ts_slurp(out);
    fclose(out);
    remove(path);
    return s;
}

/* Every stack, and every top frame: past the tracker's malloc and
 * realloc, libstdc++'s operator new; two stacks leaving the allocator in
 * leaky_function are one frame row; a stack of allocator frames only is
 * named by its outermost. */
Test(histo_stacks, rows_by_stack_and_by_frame)
{
    static const struct {
        const char *name;
        enum histo_by by;
        const char *want;
    } cases[] = {
        {"by-stack", HISTO_BY_STACK,
         "count\tbytes\tstack\n"
         "2\t8192\t" TS_S_LEAK_WORKER "\n"
         "5\t5120\t" TS_S_LEAK_MAIN "\n"
         "3\t144\t" TS_S_NEW "\n"
         "4\t40\t" TS_S_STRDUP "\n"
         "2\t32\t" CLI_NO_STACK "\n"},
        {"by-frame", HISTO_BY_FRAME,
         "count\tbytes\tframe\n"
         "7\t13312\t" TS_F_LEAKY "\n"
         "3\t144\t" TS_F_INSERT "\n"
         "4\t40\t" TS_F_STRDUP "\n"
         "2\t32\t" CLI_NO_STACK "\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        char *s = histo_heap(cases[i].name, 0, cases[i].by, HISTO_FORMAT_TSV,
                             HISTO_SORT_DEFAULT, &rc);
        cr_expect_eq(rc, CLI_EXIT_OK, "%s", cases[i].name);
        cr_expect_str_eq(s, cases[i].want, "%s", cases[i].name);
        free(s);
    }
}

/* Parses "a;b;c VALUE" lines: the value of the line whose stack is want,
 * and the sum of all values. */
static uint64_t folded_value(const char *text, const char *want,
                             uint64_t *sum)
{
    uint64_t found = UINT64_MAX;
    *sum = 0;
    for (const char *line = text; *line != '\0';) {
        const char *nl = strchr(line, '\n');
        cr_assert_not_null(nl, "a folded line ends in a newline");
        const char *sp = nl;
        while (sp > line && sp[-1] != ' ')
            sp--;
        cr_assert_gt(sp, line + 1);
        uint64_t v = strtoull(sp, NULL, 10);
        *sum += v;
        if ((size_t)(sp - 1 - line) == strlen(want) &&
            memcmp(line, want, strlen(want)) == 0)
            found = v;
        line = nl + 1;
    }
    return found;
}

Test(histo_stacks, folded_lines_add_up)
{
    int rc;
    char *s = histo_heap("folded", 0, HISTO_BY_STACK, HISTO_FORMAT_FOLDED,
                         HISTO_SORT_DEFAULT, &rc);
    cr_expect_eq(rc, CLI_EXIT_OK);
    static const char leak_main[] =
        TS_F_START ";" TS_F_MAIN ";" TS_F_LEAKY ";" TS_F_MALLOC;
    uint64_t sum;
    cr_expect_eq(folded_value(s, leak_main, &sum), 5120);
    cr_expect_eq(folded_value(s, CLI_NO_STACK, &sum), 32);
    cr_expect_eq(sum, 13528, "the lines add up to the dump's bytes");
    free(s);

    /* --sort=count: the values are counts */
    s = histo_heap("folded", 0, HISTO_BY_STACK, HISTO_FORMAT_FOLDED,
                   HISTO_SORT_COUNT, &rc);
    cr_expect_eq(folded_value(s, leak_main, &sum), 5);
    cr_expect_eq(sum, NHEAP);
    free(s);
}

/* The FRAME and STACK records were in a damaged block: the objects that
 * used them are one "(unknown stack)" row, the result is incomplete. */
Test(histo_stacks, lost_stacks_are_unknown)
{
    for (int by = HISTO_BY_STACK; by <= HISTO_BY_FRAME; by++) {
        int rc;
        char *s = histo_heap("lost", TS_LOSE_STACKS, (enum histo_by)by,
                             HISTO_FORMAT_TSV, HISTO_SORT_DEFAULT, &rc);
        cr_expect_eq(rc, CLI_EXIT_INCOMPLETE);
        char want[256];
        snprintf(want, sizeof want,
                 "count\tbytes\t%s\n14\t13496\t" CLI_UNKNOWN_STACK
                 "\n2\t32\t" CLI_NO_STACK "\n",
                 histo_by_word((enum histo_by)by));
        cr_expect_str_eq(s, want);
        free(s);
    }
}

/* An unfinished dump (no footer) is scanned like any other. */
Test(histo_stacks, unfinished_dump)
{
    int rc;
    char *s = histo_heap("unfinished", TS_UNFINISHED, HISTO_BY_FRAME,
                         HISTO_FORMAT_TSV, HISTO_SORT_DEFAULT, &rc);
    cr_expect_eq(rc, CLI_EXIT_INCOMPLETE);
    cr_expect(strstr(s, "7\t13312\t" TS_F_LEAKY "\n") != NULL, "%s", s);
    free(s);
}

/* -jN: the ranges hold the strings, the frames, the stacks and the
 * objects apart, so each range names its stacks from the others'
 * records; the output is the one-thread scan's, in every format. */
Test(histo_stacks, jobs_name_stacks_across_ranges)
{
    static const enum histo_format formats[] = {
        HISTO_FORMAT_TSV, HISTO_FORMAT_JSON, HISTO_FORMAT_FOLDED};
    for (int by = HISTO_BY_STACK; by <= HISTO_BY_FRAME; by++) {
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
            if (formats[f] == HISTO_FORMAT_FOLDED && by != HISTO_BY_STACK)
                continue;
            int rc1, rcj;
            char *one = histo_heap("one", 0, (enum histo_by)by, formats[f],
                                   HISTO_SORT_DEFAULT, &rc1);
            char *jobs = histo_heap("jobs", TS_SPLIT, (enum histo_by)by,
                                    formats[f], HISTO_SORT_DEFAULT, &rcj);
            cr_expect_eq(rc1, CLI_EXIT_OK);
            cr_expect_eq(rcj, CLI_EXIT_OK);
            if (formats[f] == HISTO_FORMAT_JSON) {
                /* "source" may differ; the rows may not */
                cr_expect_str_eq(strstr(jobs, "\"rows\""),
                                 strstr(one, "\"rows\""));
            } else {
                cr_expect_str_eq(jobs, one);
            }
            free(one);
            free(jobs);
        }
    }
}
