/* report.h -- the work of heapfmt-report, separate from its command line.
 *
 * The page is built from the tools' own work functions, so that its
 * numbers are theirs: histo (totals, trend, sites, stacks), heapfmt-diff
 * (retained by site) and heapfmt-graph (owners, dominators). Each section
 * writes its plain HTML (tables that need no script) to body and its data
 * to the JSON blob, which the page's script draws the charts from:
 *
 *     section     needs        data key      drawn by the script
 *     overview    1+ dumps     "dumps"       bar chart of objects, bytes
 *     trend       2+ dumps     "trend"       sparklines, sorting
 *     leak        3 dumps      "owners",     chains of boxes
 *                 (owners:     "retained_sites" (or _frames, _classes)
 *                 roots)
 *     retained    roots        "dominators"  treemap
 *     sites       sites        "sites"       sorting
 *     stacks      stacks       "stacks",     flame graph; sorting
 *                              "frames"
 *     omitted                  "omitted"     (a list of what is not shown,
 *                                            and why)
 *
 * What the last dump holds decides (shape.c): a section that cannot apply
 * is left out with a line that says why (no empty table or treemap). A
 * native heap (call stacks, no roots: heapfmt-malloc) shows its stacks
 * first (the flame graph, then by frame), its trend and leak by frame.
 *
 * Rows are capped (report_limits) so that the page stays a few MB
 * whatever the heap; what was cut is said in the page, and each section's
 * data has the total number of rows. */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "histo.h"
#include "cli_ctx.h"
#include "cli_page.h"
#include "cli_json.h"
#include "graph_query.h"

/* The most rows of each part of the page. */
#define REPORT_TOP_CLASSES 50  /* trend, dominators by class */
#define REPORT_TOP_SITES 20    /* allocation sites, retained by site */
#define REPORT_TOP_OWNERS 10   /* leak owners, as heapfmt-graph's default */
#define REPORT_TOP_STACKS 200  /* stacks of the flame graph */
#define REPORT_MAX_META 32     /* META pairs per dump */
#define REPORT_TOP_CLASS_SITES 10 /* sites of each class, treemap drill-down */

/* What the command line says. */
typedef struct report_options {
    int weak; /* weak references hold their targets (heapfmt-graph --weak) */
} report_options;

/* What the last dump holds (shape.c). */
typedef struct report_shape {
    int roots;  /* ROOT records: references hold objects (owners, retained
                   sizes) */
    int sites;  /* allocation sites (file:line) */
    int stacks; /* call stacks */
    int native; /* stacks and no roots: a native heap (heapfmt-malloc) */
} report_shape;

/* A section left out, and why (for the page's "Not shown" list). */
typedef struct report_omitted {
    const char *section, *title, *reason;
} report_omitted;

#define REPORT_MAX_OMITTED 8

typedef struct report {
    const char *const *paths;
    size_t ndumps;
    const report_options *opt;
    FILE *body;        /* the sections' HTML */
    json data;         /* the blob */
    histo_table classes; /* by class over every dump (overview, trend) */
    report_shape shape;
    histo_table by_site, by_stack, by_frame; /* of the last dump */
    report_omitted omitted[REPORT_MAX_OMITTED];
    size_t nomitted;
    int status;        /* the worst exit code so far */
} report;

/* Each section adds its HTML and data, and returns CLI_EXIT_OK,
 * CLI_EXIT_INCOMPLETE (shown from what could be read) or CLI_EXIT_ERROR
 * (message printed; the page is not written). */
int report_overview(report *r);
int report_trend(report *r);
int report_leak(report *r);
int report_retained(report *r);
int report_sites(report *r);
int report_stacks(report *r);
/* The list of the sections left out, and why. */
int report_omitted_out(report *r);

/* Reads what the last dump holds into r->shape, and its tables by site,
 * stack and frame (shape.c). Returns the exit code. */
int report_shape_of(report *r);

/* Notes that section (its id and title) is left out, and why. */
void report_omit(report *r, const char *section, const char *title,
                 const char *reason);

/* Says in the page that a table shows shown of total rows. Nothing when
 * none was cut. */
void report_cut_note(report *r, const char *what, uint64_t shown,
                     uint64_t total);

/* A table of a section, in the page and in the blob side by side: starts
 * the HTML table and the blob's key: {"rows": [ ... for the rows the
 * caller then writes (one JSON object and one <tr> each). */
void report_table_begin(report *r, const char *key, const char *id,
                        const char *caption, const html_col *cols,
                        size_t ncols, int sortable);
/* Ends both: ], "total_rows": total} and the table, then the cut note
 * (what: the plural of a row's name). */
void report_table_end(report *r, const char *what, uint64_t shown,
                      uint64_t total);

/* A site as heapfmt-graph writes it: the file's text form (cli_escape.h),
 * ':' and the line, into buf (cap >= 32 bytes, cut to fit). Returns buf. */
char *report_site_text(char *buf, size_t cap, const char *file, size_t len,
                       uint64_t line);

/* The graph engines' options for a section: the report's --weak, and
 * ctx (the caller's, made here) to say their messages. */
graph_query report_graph_query(const report *r, cli_ctx *ctx);

/* The worse of two exit codes: error over incomplete over success. */
int report_worse(int a, int b);

/* Writes the whole page for paths to out. Returns the exit code. */
int report_write(FILE *out, const char *const *paths, size_t npaths,
                 const report_options *opt);

#endif /* REPORT_H */
