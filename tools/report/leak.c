/* leak.c -- three dumps: who holds the leak (heapfmt-graph owners), each
 * owner with its path from a root, and the leaked objects by allocation
 * site (heapfmt-diff --by=site); by frame when the dumps record stacks and
 * no sites (a native heap), else by class. Without roots in the third
 * dump, nothing holds anything: the owners are left out, saying why. */
#include <inttypes.h>
#include <string.h>

#include "cli_ctx.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "cli_stack.h"
#include "diff.h"
#include "cli_page.h"
#include "graph_owners.h"
#include "report.h"

/* One node of a path, with the edge into it, in the blob under the names
 * of heapfmt-graph owners' columns, and as text in the plain table. */
static void node_out(report *r, const graph *g, uint32_t v, uint32_t edge,
                     int first)
{
    json *j = &r->data;
    FILE *f = r->body;
    char text[512];
    cli_name cv, ck, ct; /* names shown cut (cli_name_cut) */
    size_t via_len = graph_label_text(g, edge, text, sizeof text);
    const char *via = cli_name_cut(text, via_len, &cv, &via_len);
    json_open(j, '{');
    json_key(j, "via");
    if (via_len > 0)
        json_str(j, via, via_len);
    else
        json_null(j);
    if (!first) {
        fputs(" \xe2\x86\x92 ", f);
        if (via_len > 0) {
            html_text(f, via, via_len);
            fputs(" \xe2\x86\x92 ", f);
        }
    }
    const char *klass, *type = NULL;
    size_t klass_len, type_len = 0;
    graph_kind_text kt;
    if (v >= g->nobjects) {
        klass = v == graph_vroot(g) ? "(roots)" : "(root)";
        klass_len = strlen(klass);
        if (v != graph_vroot(g))
            type = graph_root_kind(g, v, &type_len);
        json_key(j, "id");
        json_null(j);
    } else {
        graph_kind_text_of(g, g->kind[v], &kt);
        klass = kt.klass;
        klass_len = kt.klass_len;
        type = kt.type;
        type_len = kt.type_len;
        char id[24];
        snprintf(id, sizeof id, "0x%016" PRIx64, g->id[v]);
        json_key(j, "id");
        json_cstr(j, id);
    }
    klass = cli_name_cut(klass, klass_len, &ck, &klass_len);
    if (type != NULL)
        type = cli_name_cut(type, type_len, &ct, &type_len);
    json_key(j, "class");
    json_str(j, klass, klass_len);
    html_text(f, klass, klass_len);
    json_key(j, "type");
    if (type != NULL && type_len > 0)
        json_str(j, type, type_len);
    else
        json_null(j);
    json_key(j, "bytes");
    if (v < g->nobjects)
        json_u64(j, g->size[v]);
    else
        json_null(j);
    json_key(j, "site");
    if (v < g->nobjects && kt.file != NULL) {
        char site[HTML_MAX_NAME];
        json_cstr(j, report_site_text(site, sizeof site, kt.file,
                                      kt.file_len, kt.line));
    } else {
        json_null(j);
    }
    json_close(j, '}');
}

static const html_col owner_columns[] = {
    {"owner", 1}, {"leaked objects", 1}, {"leaked bytes", 1},
    {"path from a root", 0},
};

static int owners_section(report *r)
{
    cli_ctx ctx;
    graph_query opt = report_graph_query(r, &ctx);
    owners_result res;
    int rc = cli_ctx_exit(&ctx, owners_compute(&opt, (char *const *)r->paths,
                                               REPORT_TOP_OWNERS, &res));
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE) {
        owners_free(&res);
        return rc;
    }
    FILE *f = r->body;
    const graph *g = &res.g;
    fprintf(f, "<p>%s objects are new in dump 2 and still alive in dump 3 "
               "(the leak). Their owners: the nearest object that keeps "
               "them alive and is not itself part of the leak.</p>\n",
            histo_fmt_value(res.nleaked, HISTO_FMT_HUMAN).s);
    html_table_begin(f, "owners-table", "Who holds the leak", owner_columns,
                     sizeof owner_columns / sizeof owner_columns[0], 0);
    json_key(&r->data, "owners");
    json_open(&r->data, '[');
    for (size_t i = 0; i < res.ntop && rc != CLI_EXIT_ERROR; i++) {
        const owner_sum *s = &res.top[i];
        uint32_t v = res.t.vertex[s->owner];
        uint32_t *nodes = NULL, *edges = NULL;
        long n = 1;
        if (v != graph_vroot(g))
            n = paths_to(g, &res.p, v, &nodes, &edges);
        if (n < 0) {
            cli_error(g->d.name, "out of memory");
            rc = CLI_EXIT_ERROR;
            break;
        }
        json_open(&r->data, '{');
        json_key(&r->data, "owner");
        json_u64(&r->data, i + 1);
        json_key(&r->data, "leaked_objects");
        json_u64(&r->data, s->objects);
        json_key(&r->data, "leaked_bytes");
        json_u64(&r->data, s->bytes);
        json_key(&r->data, "path");
        json_open(&r->data, '[');
        html_row_begin(f);
        html_cell_u64(f, i + 1);
        html_cell_u64(f, s->objects);
        html_cell_u64(f, s->bytes);
        fputs("<td>", f);
        for (long k = 0; k < n; k++)
            node_out(r, g, nodes != NULL ? nodes[k] : v,
                     nodes != NULL ? edges[k] : GRAPH_NONE, k == 0);
        fputs("</td>", f);
        html_row_end(f);
        json_close(&r->data, ']');
        json_close(&r->data, '}');
        diff_mem_free(g->mem, nodes);
        diff_mem_free(g->mem, edges);
    }
    json_close(&r->data, ']');
    html_table_end(f);
    fputs("<div id=\"owners-chains\"></div>\n", f);
    owners_free(&res);
    return rc;
}

static const html_col site_columns[] = {
    {"site", 0}, {"retained objects", 1}, {"retained bytes", 1},
};
static const html_col frame_columns[] = {
    {"frame", 0}, {"retained objects", 1}, {"retained bytes", 1},
};
static const html_col class_columns[] = {
    {"class", 0}, {"retained objects", 1}, {"retained bytes", 1},
};

/* The leak by site, frame or class (heapfmt-diff --by): how its table
 * and its rows' names are shown. */
typedef struct leak_view {
    unsigned by;
    const char *key, *id, *caption, *name_key, *plural;
    const html_col *cols;
} leak_view;

static const leak_view views[] = {
    {DIFF_BY_SITE, "retained_sites", "retained-sites-table",
     "The leak by allocation site (new in dump 2, alive in dump 3)", "site",
     "sites", site_columns},
    {DIFF_BY_FRAME, "retained_frames", "retained-frames-table",
     "The leak by allocation frame (new in dump 2, alive in dump 3)",
     "frame", "frames", frame_columns},
    {DIFF_BY_CLASS, "retained_classes", "retained-classes-table",
     "The leak by class (new in dump 2, alive in dump 3)", "class",
     "classes", class_columns},
};

/* A row's name as the view shows it, into buf; returns its length. */
static size_t row_name(const diff_result *res, const diff_row *row,
                       unsigned by, char *buf, size_t cap)
{
    size_t len;
    cli_name cut; /* heapfmt-diff's names are cut; to be sure */
    if (by == DIFF_BY_CLASS) {
        const char *name = nameid_text(&res->names, row->cls, &len);
        name = cli_name_cut(name, len, &cut, &len);
        if (len > cap)
            len = cap;
        memcpy(buf, name, len);
        return len;
    }
    if (by == DIFF_BY_FRAME) {
        const char *name = row->stack == DIFF_NONE
                               ? CLI_NO_STACK
                               : nameid_text(&res->names, row->stack, &len);
        if (row->stack == DIFF_NONE)
            len = strlen(name);
        if (len > cap)
            len = cap;
        memcpy(buf, name, len);
        return len;
    }
    const char *file = nameid_text(&res->names, row->file, &len);
    file = cli_name_cut(file, len, &cut, &len);
    size_t n = len < cap - 24 ? len : cap - 24;
    memcpy(buf, file, n);
    return n + (size_t)snprintf(buf + n, 24, ":%" PRIu64, row->line);
}

static int sites_section(report *r)
{
    const leak_view *v = &views[r->shape.sites    ? 0
                                : r->shape.stacks ? 1
                                                  : 2];
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.by = v->by;
    opt.top = REPORT_TOP_SITES;
    opt.empty_ok = 1; /* dumps without sites: one "(no site)" row */
    cli_ctx ctx;
    opt.ctx = cli_ctx_init(&ctx);
    diff_result res;
    int rc = cli_ctx_exit(&ctx, diff_compute(r->paths, 3, &opt, &res));
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE) {
        diff_result_free(&res);
        return rc;
    }
    /* The warnings of this diff are those owners_section printed, when
     * it ran. */
    if (!r->shape.roots)
        notes_say(&res.warnings, opt.ctx);
    FILE *f = r->body;
    size_t shown = res.nrows < REPORT_TOP_SITES ? res.nrows
                                                : REPORT_TOP_SITES;
    report_table_begin(r, v->key, v->id, v->caption, v->cols, 3, 1);
    for (size_t i = 0; i < shown; i++) {
        const diff_row *row = &res.rows[i];
        json_open(&r->data, '{');
        json_key(&r->data, v->name_key);
        html_row_begin(f);
        if (v->by == DIFF_BY_SITE && row->file == DIFF_NONE) {
            json_null(&r->data);
            html_cell_text(f, "(no site)", 9);
        } else {
            char name[HTML_MAX_NAME];
            size_t n = row_name(&res, row, v->by, name, sizeof name);
            json_str(&r->data, name, n);
            html_cell_text(f, name, n);
        }
        json_key(&r->data, "retained_count");
        json_u64(&r->data, row->s.count[DIFF_NEW]);
        json_key(&r->data, "retained_bytes");
        json_u64(&r->data, row->s.bytes[DIFF_NEW]);
        json_close(&r->data, '}');
        html_cell_u64(f, row->s.count[DIFF_NEW]);
        html_cell_u64(f, row->s.bytes[DIFF_NEW]);
        html_row_end(f);
    }
    report_table_end(r, v->plural, shown, res.nrows);
    json_key(&r->data, "retained_total");
    json_open(&r->data, '{');
    json_key(&r->data, "retained_count");
    json_u64(&r->data, res.total.count[DIFF_NEW]);
    json_key(&r->data, "retained_bytes");
    json_u64(&r->data, res.total.bytes[DIFF_NEW]);
    json_close(&r->data, '}');
    diff_result_free(&res);
    return rc;
}

int report_leak(report *r)
{
    if (r->ndumps != 3) {
        report_omit(r, "leak", "Leak",
                    "give three dumps (before, after, later) to see who "
                    "holds the objects new in the second and still alive "
                    "in the third");
        return CLI_EXIT_OK;
    }
    int rc = CLI_EXIT_OK;
    if (r->shape.roots) {
        fputs("<section id=\"leak\">\n<h2>Leak: who holds it</h2>\n",
              r->body);
        rc = owners_section(r);
    } else {
        fputs("<section id=\"leak\">\n<h2>Leak</h2>\n", r->body);
        report_omit(r, "owners", "Who holds the leak",
                    "the third dump has no roots (no ROOT record), so no "
                    "object holds another: a native heap of heapfmt-malloc "
                    "records its blocks, not the pointers between them; "
                    "the leak is shown by where it was allocated");
    }
    if (rc != CLI_EXIT_ERROR)
        rc = report_worse(rc, sites_section(r));
    fputs("</section>\n", r->body);
    return rc;
}
