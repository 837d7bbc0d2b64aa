/* overview.c -- the first section: each dump's META, totals and status,
 * and the totals across the dumps. The totals are histo's (by class,
 * every row), read from the footer when the dump has one. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_dump.h"
#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_native.h"
#include "cli_page.h"
#include "report.h"

/* Reads the META pairs at the start of the dump (they come first, spec
 * 6.1) into the blob as [key, value] pairs, and keeps the reader open in
 * *d for the table. Read errors are left to the other sections, which
 * report them once; a dump that cannot be opened here was already
 * reported by histo. Returns 0 when d is open. */
static int read_meta(cli_dump *d, const char *path)
{
    if (cli_dump_open(d, path, NULL) != CLI_EXIT_OK)
        return -1;
    heapfmt_record rec;
    while (heapfmt_reader_next(d->reader, &rec) == HEAPFMT_OK &&
           rec.tag == HEAPFMT_TAG_META)
        ;
    return 0;
}

static void meta_json(json *j, const heapfmt_reader *rd)
{
    size_t n;
    const heapfmt_rmeta *m = heapfmt_reader_meta(rd, &n);
    json_open(j, '[');
    for (size_t i = 0; i < n && i < REPORT_MAX_META; i++) {
        json_open(j, '[');
        json_str(j, m[i].key, m[i].key_len);
        if (m[i].type == HEAPFMT_META_TEXT) {
            json_str(j, m[i].text, m[i].text_len);
        } else if (m[i].type == HEAPFMT_META_UINT) {
            json_u64(j, m[i].uint_value);
        } else {
            char buf[24];
            snprintf(buf, sizeof buf, "%" PRId64, m[i].int_value);
            json_cstr(j, buf);
        }
        json_close(j, ']');
    }
    json_close(j, ']');
}

/* A cell with the META value of key, as text; empty when absent. */
static void meta_cell(FILE *f, const heapfmt_reader *rd, const char *key)
{
    const heapfmt_rmeta *m = rd != NULL ? heapfmt_reader_meta_get(rd, key)
                                        : NULL;
    if (m == NULL) {
        html_cell_none(f);
    } else if (m->type == HEAPFMT_META_TEXT) {
        html_cell_text(f, m->text, m->text_len);
    } else if (m->type == HEAPFMT_META_UINT && strcmp(key, "time") == 0) {
        char buf[64];
        time_t t = (time_t)m->uint_value;
        struct tm tm;
        if (gmtime_r(&t, &tm) != NULL &&
            strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
            html_cell_text(f, buf, strlen(buf));
        else
            html_cell_u64(f, m->uint_value);
    } else if (m->type == HEAPFMT_META_UINT) {
        html_cell_u64(f, m->uint_value);
    } else {
        char buf[24];
        snprintf(buf, sizeof buf, "%" PRId64, m->int_value);
        html_cell_text(f, buf, strlen(buf));
    }
}

static void vm_cell(FILE *f, const heapfmt_reader *rd)
{
    const heapfmt_rmeta *name =
        rd != NULL ? heapfmt_reader_meta_get(rd, "vm.name") : NULL;
    const heapfmt_rmeta *version =
        rd != NULL ? heapfmt_reader_meta_get(rd, "vm.version") : NULL;
    fputs("<td>", f);
    if (name != NULL && name->type == HEAPFMT_META_TEXT)
        html_text(f, name->text, name->text_len);
    if (version != NULL && version->type == HEAPFMT_META_TEXT) {
        fputc(' ', f);
        html_text(f, version->text, version->text_len);
    }
    fputs("</td>", f);
}

static const html_col columns[] = {
    {"dump", 0}, {"file", 0}, {"status", 0}, {"objects", 1}, {"bytes", 1},
    {"vm", 0}, {"pid", 1}, {"time", 0}, {"producer", 0},
};

int report_overview(report *r)
{
    histo_options opt = HISTO_OPTIONS_INIT;
    opt.top = REPORT_TOP_CLASSES;
    cli_ctx ctx;
    opt.ctx = cli_ctx_init(&ctx);
    int rc = cli_ctx_exit(&ctx,
                          histo_build(&r->classes, r->paths, r->ndumps, &opt));
    if (rc == CLI_EXIT_ERROR)
        return rc;
    const histo_table *t = &r->classes;
    FILE *f = r->body;
    fputs("<section id=\"overview\">\n<h2>Overview</h2>\n", f);
    for (size_t d = 0; d < r->ndumps; d++)
        if (t->dumps[d].status != AN_OK) {
            fputs("<p class=\"warn incomplete\">Warning: ", f);
            html_text(f, t->dumps[d].name, strlen(t->dumps[d].name));
            fputs(" is incomplete (truncated or damaged): its numbers "
                  "cover only the part that could be read.</p>\n",
                  f);
        }
    html_table_begin(f, "dumps-table", "The dumps", columns,
                     sizeof columns / sizeof columns[0], 0);
    json_key(&r->data, "dumps");
    json_open(&r->data, '[');
    /* heapfmt-malloc dumps: resident memory against live bytes, said
     * under the table (cli_native.h) */
    char (*native)[512] = calloc(r->ndumps, sizeof *native);
    for (size_t d = 0; d < r->ndumps; d++) {
        const histo_dump *hd = &t->dumps[d];
        uint64_t count = histo_line_count(t->total, d);
        uint64_t bytes = histo_line_bytes(t->total, d);
        cli_dump dump = {.fd = -1};
        const heapfmt_reader *rd = NULL;
        /* Cut inside its header: histo said so; nothing to read. */
        if (!(hd->status != AN_OK && hd->count == 0) &&
            read_meta(&dump, r->paths[d]) == 0)
            rd = dump.reader;
        json_open(&r->data, '{');
        json_key(&r->data, "file");
        json_cstr(&r->data, r->paths[d]);
        json_key(&r->data, "complete");
        json_bool(&r->data, hd->status == AN_OK);
        json_key(&r->data, "objects");
        json_u64(&r->data, count);
        json_key(&r->data, "bytes");
        json_u64(&r->data, bytes);
        json_key(&r->data, "meta");
        if (rd != NULL)
            meta_json(&r->data, rd);
        else
            json_null(&r->data);
        cli_native n;
        if (rd != NULL && native != NULL && cli_native_read(rd, &n))
            cli_native_sentence(&n, native[d], sizeof native[d]);
        json_close(&r->data, '}');

        html_row_begin(f);
        html_cell_u64(f, d + 1);
        html_cell_text(f, r->paths[d], strlen(r->paths[d]));
        fprintf(f, "<td>%s</td>",
                hd->status == AN_OK ? "complete"
                                          : "<strong>incomplete</strong>");
        html_cell_u64(f, count);
        html_cell_u64(f, bytes);
        vm_cell(f, rd);
        meta_cell(f, rd, "pid");
        meta_cell(f, rd, "time");
        meta_cell(f, rd, "producer");
        html_row_end(f);
        cli_dump_close(&dump);
    }
    json_close(&r->data, ']');
    html_table_end(f);
    for (size_t d = 0; native != NULL && d < r->ndumps; d++) {
        if (native[d][0] == 0)
            continue;
        fprintf(f, "<p class=\"native\">Native heap of dump %zu: ", d + 1);
        html_text(f, native[d], strlen(native[d]));
        fputs(".</p>\n", f);
    }
    free(native);
    fputs("<div id=\"overview-chart\" class=\"chart\"></div>\n</section>\n",
          f);
    return rc;
}
