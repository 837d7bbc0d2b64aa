/*
 * test_analysis_status.c -- how the engines report (analysis/status.h,
 * dump_read.h) and how a front end says it (tools/common/cli_ctx.h): a
 * failure is kept on the context, not printed, until the front end
 * prints it once as "prog: file: message" with the exit code of its
 * status; warnings reach the hook as they happen; a dump cut inside its
 * header is said at once, since the work goes on after it.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "dump_read.h"
#include "status.h"
#include "tio.h"

/* A hook that keeps what it was told, one "kind|file|text" line each. */
typedef struct heard {
    char text[4096];
    size_t len;
} heard;

static void hear(void *user, const char *file, enum an_say kind,
                   const char *fmt, va_list ap)
{
    static const char *const kinds[] = {"warning", "note", "error"};
    heard *h = user;
    h->len += (size_t)snprintf(h->text + h->len, sizeof h->text - h->len,
                               "%s|%s|", kinds[kind], file ? file : "-");
    h->len += (size_t)vsnprintf(h->text + h->len, sizeof h->text - h->len,
                                fmt, ap);
    h->len += (size_t)snprintf(h->text + h->len, sizeof h->text - h->len,
                               "\n");
}

static an_ctx listening(heard *h)
{
    memset(h, 0, sizeof *h);
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.warn = hear;
    c.user = h;
    return c;
}

/* A file in TMPDIR holding len bytes of data, its path in path. */
static void temp_file(char *path, size_t cap, const void *data, size_t len)
{
    int fd = ttemp_path(path, cap);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

Test(analysis_status, a_failure_is_kept_not_said)
{
    heard h;
    an_ctx c = listening(&h);
    cr_assert_eq(an_fail(&c, AN_ERROR, "d.hfd", "no %s in %d", "sites", 3),
                 AN_ERROR);
    cr_assert_eq(c.status, AN_ERROR);
    cr_assert_str_eq(c.file, "d.hfd");
    cr_assert_str_eq(c.message, "no sites in 3");
    cr_assert_eq(h.len, 0, "a failure went to the hook: %s", h.text);
    cr_assert_eq(an_no_memory(&c, NULL), AN_ERROR);
    cr_assert_null(c.file);
    cr_assert_str_eq(c.message, "out of memory");
    an_clear(&c);
    cr_assert_eq(c.status, AN_OK);
    cr_assert_str_eq(c.message, "");
}

Test(analysis_status, warnings_and_a_cut_go_to_the_hook_in_order)
{
    heard h;
    an_ctx c = listening(&h);
    an_warn(&c, "a.hfd", "block %d skipped", 7);
    cr_assert_eq(an_fail(&c, AN_INCOMPLETE, "b.hfd", "cut"), AN_INCOMPLETE);
    an_note(&c, NULL, "%s left out", "2 references");
    cr_assert_str_eq(h.text, "warning|a.hfd|block 7 skipped\n"
                             "error|b.hfd|cut\n"
                             "note|-|2 references left out\n");
    cr_assert_eq(c.status, AN_OK, "an incomplete input left a message");
}

Test(analysis_status, a_null_or_silent_context_is_safe)
{
    cr_assert_eq(an_fail(NULL, AN_ERROR, "x", "y"), AN_ERROR);
    cr_assert_eq(an_fail(NULL, AN_INCOMPLETE, "x", "y"), AN_INCOMPLETE);
    an_warn(NULL, "x", "y");
    an_note(NULL, NULL, "y");
    an_progress_begin(NULL, "x", 10);
    an_progress_tick(NULL, 1, 1);
    an_progress_end(NULL);
    an_clear(NULL);
    an_ctx silent;
    memset(&silent, 0, sizeof silent);
    an_warn(&silent, "x", "y");
    cr_assert_eq(an_fail(&silent, AN_INCOMPLETE, "x", "y"), AN_INCOMPLETE);
    an_progress_tick(&silent, 1, 1);
}

Test(analysis_status, the_worse_of_two)
{
    cr_assert_eq(an_worse(AN_OK, AN_INCOMPLETE), AN_INCOMPLETE);
    cr_assert_eq(an_worse(AN_ERROR, AN_INCOMPLETE), AN_ERROR);
    cr_assert_eq(an_worse(AN_OK, AN_OK), AN_OK);
    cr_assert_eq(an_worse(AN_INCOMPLETE, AN_ERROR), AN_ERROR);
}

Test(analysis_status, the_front_end_says_it_once, .init = cr_redirect_stderr)
{
    cli_set_progname("heapfmt-test");
    cli_ctx ctx;
    an_ctx *c = cli_ctx_init(&ctx);
    an_warn(c, "a.hfd", "w%d", 1);
    an_note(c, NULL, "n");
    an_fail(c, AN_INCOMPLETE, "h.hfd", "dump is truncated inside its header");
    cr_assert_eq(cli_ctx_exit(&ctx, AN_INCOMPLETE), CLI_EXIT_INCOMPLETE);
    an_fail(c, AN_ERROR, "m.hfd", "No such file or directory");
    cr_assert_eq(cli_ctx_exit(&ctx, AN_ERROR), CLI_EXIT_ERROR);
    /* said: a second exit does not repeat it */
    cr_assert_eq(cli_an_exit(c, AN_ERROR), CLI_EXIT_ERROR);
    cr_assert_eq(cli_ctx_exit(&ctx, AN_OK), CLI_EXIT_OK);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "heapfmt-test: a.hfd: warning: w1\n"
        "heapfmt-test: note: n\n"
        "heapfmt-test: h.hfd: dump is truncated inside its header\n"
        "heapfmt-test: m.hfd: No such file or directory\n");
}

Test(analysis_status, opening_a_dump_that_is_not_there)
{
    heard h;
    an_ctx c = listening(&h);
    an_dump d;
    cr_assert_eq(an_dump_open(&d, "/nonexistent/x.hfd", NULL, &c), AN_ERROR);
    cr_assert_str_eq(c.file, "/nonexistent/x.hfd");
    cr_assert_str_eq(c.message, strerror(ENOENT));
    cr_assert_eq(d.fd, -1);
    cr_assert_null(d.reader);
    const char *dir = getenv("TMPDIR");
    an_clear(&c);
    cr_assert_eq(an_dump_open(&d, dir && *dir ? dir : "/tmp", NULL, &c),
                 AN_ERROR);
    cr_assert_str_eq(c.message, strerror(EISDIR));
    cr_assert_eq(h.len, 0);
}

Test(analysis_status, a_dump_cut_in_its_header_is_said_at_once)
{
    static const unsigned char head[5] = {0x89, 'H', 'F', 'M', 'T'};
    char path[4096];
    temp_file(path, sizeof path, head, sizeof head);
    heard h;
    an_ctx c = listening(&h);
    an_dump d;
    cr_assert_eq(an_dump_open(&d, path, NULL, &c), AN_INCOMPLETE);
    cr_assert_eq(c.status, AN_OK);
    char want[4200];
    snprintf(want, sizeof want, "error|%s|", path);
    cr_assert(strncmp(h.text, want, strlen(want)) == 0, "heard: %s", h.text);
    cr_assert_not_null(strstr(h.text, "header"), "heard: %s", h.text);
    an_dump_close(&d);
    unlink(path);
}

Test(analysis_status, a_text_file_is_an_error_with_the_readers_reason)
{
    char path[4096];
    temp_file(path, sizeof path, "{\"not\": \"a dump\"}\n", 18);
    heard h;
    an_ctx c = listening(&h);
    an_dump d;
    cr_assert_eq(an_dump_open(&d, path, NULL, &c), AN_ERROR);
    cr_assert_str_eq(c.file, path);
    cr_assert_not_null(strstr(c.message, "not a heapfmt dump"), "%s",
                       c.message);
    cr_assert_eq(h.len, 0);
    an_dump_close(&d);
    unlink(path);
}
