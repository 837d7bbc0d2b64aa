/* shape.c -- what the last dump holds, which decides the page's sections:
 * roots (so that references hold objects: owners, retained sizes),
 * allocation sites, call stacks. A native heap written by heapfmt-malloc
 * has stacks and neither roots nor references nor sites: its page shows
 * the flame graph and the frames first, and says why the rest is left
 * out (report_omit). */
#include <string.h>

#include "cli_dump.h"
#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_stack.h"
#include "report.h"

/* histo's one-dump table of the last dump by, cut to top rows. */
static int last_dump_table(report *r, histo_table *t, enum histo_by by,
                           enum histo_format format, uint64_t top)
{
    histo_options opt = HISTO_OPTIONS_INIT;
    opt.by = by;
    opt.format = format;
    opt.top = top;
    opt.empty_ok = 1;
    cli_ctx ctx;
    opt.ctx = cli_ctx_init(&ctx);
    return cli_ctx_exit(&ctx,
                        histo_build(t, r->paths + r->ndumps - 1, 1, &opt));
}

/* Whether a one-dump table has a row other than none's. */
static int has_named_row(const histo_table *t, const char *none)
{
    return t->nrows > 1 ||
           (t->nrows == 1 && strcmp(t->rows[0].name, none) != 0);
}

/* Stops the scan at the first ROOT record. */
#define FOUND_ROOT 100

static int on_record(void *ctx, heapfmt_reader *rd, const heapfmt_record *rec)
{
    (void)ctx;
    (void)rd;
    return rec->tag == HEAPFMT_TAG_ROOT ? FOUND_ROOT : 0;
}

/* Whether the dump at path has a ROOT record: the footer's count, or the
 * records of an incomplete dump (up to the first ROOT, damage skipped as
 * every tool skips it; its warnings were said once already). A dump that
 * cannot be read counts as having them: the sections that need them say
 * what is wrong, as before. */
static int has_roots(const char *path)
{
    cli_dump d = {.fd = -1};
    if (cli_dump_open(&d, path, NULL) != CLI_EXIT_OK)
        return 1;
    const heapfmt_footer *f;
    int found;
    if (heapfmt_reader_footer(d.reader, &f) == HEAPFMT_OK)
        found = f->totals.roots > 0;
    else
        found = cli_scan(&d, on_record, NULL) == FOUND_ROOT;
    cli_dump_close(&d);
    return found;
}

int report_shape_of(report *r)
{
    report_shape *s = &r->shape;
    s->roots = has_roots(r->paths[r->ndumps - 1]);
    int rc = last_dump_table(r, &r->by_site, HISTO_BY_SITE, HISTO_FORMAT_JSON,
                             REPORT_TOP_SITES);
    if (rc == CLI_EXIT_ERROR)
        return rc;
    int src = last_dump_table(r, &r->by_stack, HISTO_BY_STACK,
                              HISTO_FORMAT_FOLDED, REPORT_TOP_STACKS);
    if (src == CLI_EXIT_ERROR)
        return src;
    int frc = last_dump_table(r, &r->by_frame, HISTO_BY_FRAME,
                              HISTO_FORMAT_JSON, REPORT_TOP_SITES);
    if (frc == CLI_EXIT_ERROR)
        return frc;
    s->sites = has_named_row(&r->by_site, HISTO_NO_SITE);
    s->stacks = has_named_row(&r->by_stack, CLI_NO_STACK);
    s->native = s->stacks && !s->roots;
    return report_worse(rc, report_worse(src, frc));
}

void report_omit(report *r, const char *section, const char *title,
                 const char *reason)
{
    if (r->nomitted < REPORT_MAX_OMITTED)
        r->omitted[r->nomitted++] = (report_omitted){section, title, reason};
}

int report_omitted_out(report *r)
{
    FILE *f = r->body;
    json_key(&r->data, "omitted");
    json_open(&r->data, '[');
    if (r->nomitted > 0)
        fputs("<section id=\"omitted\">\n<h2>Not shown</h2>\n<ul>\n", f);
    for (size_t i = 0; i < r->nomitted; i++) {
        const report_omitted *o = &r->omitted[i];
        json_open(&r->data, '{');
        json_key(&r->data, "section");
        json_cstr(&r->data, o->section);
        json_key(&r->data, "reason");
        json_cstr(&r->data, o->reason);
        json_close(&r->data, '}');
        fprintf(f, "<li class=\"omitted\" data-section=\"%s\"><strong>",
                o->section);
        html_text(f, o->title, strlen(o->title));
        fputs("</strong>: ", f);
        html_text(f, o->reason, strlen(o->reason));
        fputs("</li>\n", f);
    }
    if (r->nomitted > 0)
        fputs("</ul>\n</section>\n", f);
    json_close(&r->data, ']');
    return CLI_EXIT_OK;
}
