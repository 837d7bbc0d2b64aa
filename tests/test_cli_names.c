/*
 * test_cli_names.c -- names as the tools show them: cut where they would
 * pass CLI_NAME_MAX bytes once escaped (issue 31), at a character
 * boundary, with a marker that says how many bytes were left out; never
 * cut twice; a stack cut frame by frame.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_names.h"
#include "cli_stack.h"

/* The marker for n bytes left out. */
static void marker(char *buf, size_t cap, size_t n)
{
    snprintf(buf, cap, "\xe2\x80\xa6(+%zu bytes)", n);
}

Test(cli_names, short_names_are_shown_whole)
{
    static const char *const names[] = {"", "String", "caf\xc3\xa9",
                                        "a\tb\nc", "\xff\xfe"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cli_name buf;
        size_t len;
        const char *s = cli_name_cut(names[i], strlen(names[i]), &buf, &len);
        cr_assert_eq(s, names[i], "not copied");
        cr_assert_eq(len, strlen(names[i]));
    }
    /* up to the slack, whole too */
    char edge[CLI_NAME_MAX + CLI_CUT_SLACK];
    memset(edge, 'x', sizeof edge);
    cli_name buf;
    size_t len;
    cr_assert_eq(cli_name_cut(edge, sizeof edge, &buf, &len), edge);
}

Test(cli_names, a_long_name_is_cut_with_a_marker)
{
    size_t n = 1u << 20;
    char *s = malloc(n);
    cr_assert_not_null(s);
    memset(s, 'n', n);
    cli_name buf;
    size_t len;
    const char *c = cli_name_cut(s, n, &buf, &len);
    char want[64];
    marker(want, sizeof want, n - CLI_NAME_MAX);
    cr_assert_eq(len, CLI_NAME_MAX + strlen(want));
    cr_assert_eq(memcmp(c, s, CLI_NAME_MAX), 0);
    cr_assert_eq(memcmp(c + CLI_NAME_MAX, want, strlen(want)), 0);
    /* a cut name is not cut again */
    size_t len2;
    cli_name buf2;
    cr_assert_eq(cli_name_cut(c, len, &buf2, &len2), c);
    free(s);
}

/* The cut counts the escaped form: a control byte takes 6 ("\u0001"), an
 * invalid byte 4 ("\xff"), a character of valid UTF-8 its own bytes,
 * never split. */
Test(cli_names, the_cut_counts_escapes_and_keeps_characters_whole)
{
    char ctl[1000], bad[1000], utf[999];
    memset(ctl, 1, sizeof ctl);
    memset(bad, 0xff, sizeof bad);
    for (size_t i = 0; i < sizeof utf; i += 3)
        memcpy(utf + i, "\xe2\x82\xac", 3); /* the euro sign */
    struct {
        const char *s;
        size_t len, keep;
    } cases[] = {
        {ctl, sizeof ctl, CLI_NAME_MAX / 6},
        {bad, sizeof bad, CLI_NAME_MAX / 4},
        {utf, sizeof utf, CLI_NAME_MAX / 3 * 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_name buf;
        size_t len;
        const char *c = cli_name_cut(cases[i].s, cases[i].len, &buf, &len);
        char want[64];
        marker(want, sizeof want, cases[i].len - cases[i].keep);
        cr_assert_eq(len, cases[i].keep + strlen(want), "case %zu: %zu", i,
                     len);
        cr_assert_eq(memcmp(c, cases[i].s, cases[i].keep), 0);
        cr_assert_eq(memcmp(c + cases[i].keep, want, strlen(want)), 0);
        cr_assert_eq(cli_escaped_prefix(c, len, SIZE_MAX), len);
    }
}

/* A stack keeps every frame; each frame's names are cut. */
Test(cli_names, a_stack_is_cut_frame_by_frame)
{
    size_t n = 100000;
    char *fn = malloc(n + 1);
    cr_assert_not_null(fn);
    memset(fn, 'f', n);
    fn[n] = '\0';
    heapfmt_rstring function = {fn, n, 1, 1, 0, 0};
    heapfmt_rstring none = {"", 0, 0, 0, 0, 0};
    heapfmt_rframe f = {7, 1, &function, &none, 0x10, &none, 0, 0};
    const heapfmt_rframe *frames[100];
    for (size_t i = 0; i < 100; i++)
        frames[i] = &f;
    heapfmt_rstack st = {1, 1, 100, frames, 0};
    cli_buf b = {0};
    cr_assert_eq(cli_stack_name(&b, &st, CLI_STACK_FOLDED), 0);
    char want[64];
    marker(want, sizeof want, n - CLI_NAME_MAX);
    size_t frame_len = CLI_NAME_MAX + strlen(want) + strlen(" (0x10)");
    cr_assert_eq(b.len, 100 * frame_len + 99, "%zu", b.len);
    cli_buf_free(&b);
    free(fn);
}
