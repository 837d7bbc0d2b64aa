/* report.c -- the sections in order, then the page. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_escape.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "cli_num.h"
#include "cli_page.h"
#include "report.h"

graph_query report_graph_query(const report *r, cli_ctx *ctx)
{
    graph_query q;
    memset(&q, 0, sizeof q);
    q.weak = r->opt->weak;
    q.ctx = cli_ctx_init(ctx);
    return q;
}

int report_worse(int a, int b)
{
    if (a == CLI_EXIT_ERROR || b == CLI_EXIT_ERROR)
        return CLI_EXIT_ERROR;
    return a == CLI_EXIT_INCOMPLETE || b == CLI_EXIT_INCOMPLETE
               ? CLI_EXIT_INCOMPLETE
               : CLI_EXIT_OK;
}

void report_cut_note(report *r, const char *what, uint64_t shown,
                     uint64_t total)
{
    if (shown >= total)
        return;
    fprintf(r->body, "<p class=\"cut\">Showing the first %s of %s ",
            cli_fmt_count(shown).s, cli_fmt_count(total).s);
    html_text(r->body, what, strlen(what));
    fputs(" (the page keeps its size bounded).</p>\n", r->body);
}

void report_table_begin(report *r, const char *key, const char *id,
                        const char *caption, const html_col *cols,
                        size_t ncols, int sortable)
{
    html_table_begin(r->body, id, caption, cols, ncols, sortable);
    json_key(&r->data, key);
    json_open(&r->data, '{');
    json_key(&r->data, "rows");
    json_open(&r->data, '[');
}

void report_table_end(report *r, const char *what, uint64_t shown,
                      uint64_t total)
{
    json_close(&r->data, ']');
    json_key(&r->data, "total_rows");
    json_u64(&r->data, total);
    json_close(&r->data, '}');
    html_table_end(r->body);
    report_cut_note(r, what, shown, total);
}

char *report_site_text(char *buf, size_t cap, const char *file, size_t len,
                       uint64_t line)
{
    cli_name cut;
    file = cli_name_cut(file, len, &cut, &len);
    cli_text_format(buf, cap - 24, file, len);
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, ":%" PRIu64, line);
    return buf;
}

typedef int (*section_fn)(report *);

/* The sections after the overview, in order: a native heap's stacks
 * first (report.h). */
static int rest(report *r)
{
    static const section_fn managed[] = {report_trend, report_leak,
                                         report_retained, report_sites,
                                         report_stacks, report_omitted_out};
    static const section_fn native[] = {report_stacks, report_trend,
                                        report_leak, report_retained,
                                        report_sites, report_omitted_out};
    int rc = report_shape_of(r);
    const section_fn *s = r->shape.native ? native : managed;
    for (size_t i = 0; i < 6 && rc != CLI_EXIT_ERROR; i++)
        rc = report_worse(rc, s[i](r));
    return rc;
}

int report_write(FILE *out, const char *const *paths, size_t npaths,
                 const report_options *opt)
{
    static const section_fn sections[] = {report_overview, rest};
    report r;
    memset(&r, 0, sizeof r);
    r.paths = paths;
    r.ndumps = npaths;
    r.opt = opt;
    char *body = NULL, *data = NULL;
    size_t body_len = 0, data_len = 0;
    FILE *data_f = NULL;
    r.body = open_memstream(&body, &body_len);
    if (r.body != NULL)
        data_f = open_memstream(&data, &data_len);
    if (data_f == NULL) {
        if (r.body != NULL)
            fclose(r.body);
        free(body);
        cli_error(NULL, "out of memory");
        return CLI_EXIT_ERROR;
    }
    json_init(&r.data, data_f);
    json_open(&r.data, '{');
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        rc = report_worse(rc, sections[i](&r));
        if (rc == CLI_EXIT_ERROR)
            break;
    }
    json_close(&r.data, '}');
    histo_table_free(&r.classes);
    histo_table_free(&r.by_site);
    histo_table_free(&r.by_stack);
    histo_table_free(&r.by_frame);
    int failed = fclose(r.body) != 0;
    failed |= fclose(data_f) != 0;
    if (failed && rc != CLI_EXIT_ERROR) {
        cli_error(NULL, "out of memory");
        rc = CLI_EXIT_ERROR;
    }
    if (rc != CLI_EXIT_ERROR)
        page_write(out, body, body_len, data, data_len);
    free(body);
    free(data);
    return rc;
}
