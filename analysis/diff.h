/* diff.h -- the work of heapfmt-diff, separate from its command line.
 *
 * Two dumps (before, after): objects new in after, and freed since
 * before. Three dumps (d1, d2, d3): objects new in d2 (not in d1) and still
 * alive in d3 -- "retained", the leak suspects. An object is the same in
 * two dumps when its id, its class name and its call stack (format 1.1,
 * for objects that have one) are the same.
 *
 * Memory: one dump is held as a sorted array of 10 bytes per object (the
 * smaller one of two, when both footers tell the counts; d2 of three);
 * the other dumps stream through it in sorted chunks (see diff_match.h). */
#ifndef DIFF_H
#define DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "diff_filter.h"
#include "diff_mem.h"
#include "nameid.h"
#include "notes.h"
#include "olist.h"
#include "diff_summary.h"
#include "tuples.h"

#define DIFF_DEFAULT_CHUNK (1u << 18) /* objects per streamed chunk */

typedef struct diff_options {
    unsigned by;          /* DIFF_BY_CLASS and/or DIFF_BY_SITE */
    enum diff_sort sort;  /* how rows are ordered (diff_summary.h) */
    int list;             /* list objects instead of summing them */
    uint64_t top;         /* most rows or objects to report; 0: all */
    const filter *filter; /* NULL: every class */
    size_t chunk;         /* objects per streamed chunk; 0: default */
    const diff_mem *mem;  /* NULL: malloc; must outlive the result */
    int empty_ok;         /* --by=site, stack, frame on dumps that record
                             none: one "(no site)" or "(no stack)" row, not
                             an error (heapfmt-report shows what there is) */
    an_ctx *ctx;          /* failures, warnings, progress (status.h) */
} diff_options;

#define DIFF_OPTIONS_INIT { .by = DIFF_BY_CLASS }

/* What diff_compute found, for diff_print. */
typedef struct diff_result {
    int ndumps;           /* 2 or 3 */
    const char *paths[3]; /* as given ("-" for standard input) */
    const char *dumps[3]; /* names for messages: the path or "(stdin)" */
    int dump_complete[3]; /* each dump was read completely */
    int complete;         /* every dump was */
    unsigned by;
    int list;
    uint64_t top;
    cli_strmap names;     /* class, type and file names; 0 is "" */
    tuples kinds;         /* (class, type, file, line) name ids */
    /* summary (list == 0) */
    diff_row *rows;
    size_t nrows;
    diff_stat total;      /* of all rows, also those past top */
    int has_life;         /* some row has lifespans (format 1.2: --by=site,
                             stack or frame of malloc dumps) */
    /* list (list != 0), sorted and cut to top */
    olist items;
    notes warnings;
    const diff_mem *mem;  /* opt->mem, or the default */
} diff_result;

/* Compares the dumps at paths[0..n) (n is 2 or 3; "-" is standard input,
 * for one of them at most). Reading warnings go to opt->ctx as they
 * arise; the result's own warnings are in res->warnings, for the caller
 * to show (notes_say) or print. Returns
 *   AN_OK          res filled;
 *   AN_INCOMPLETE  res filled from what could be read;
 *   AN_ERROR       nothing to show (the message on opt->ctx); res is
 *                  empty but must still be freed.
 * res must be freed with diff_result_free in every case. */
int diff_compute(const char *const *paths, int n, const diff_options *opt,
                 diff_result *res);

void diff_result_free(diff_result *res);

/* The class, type and site of a kind: text and length (len 0 for none). */
const char *diff_kind_class(const diff_result *res, uint32_t kind,
                            size_t *len);

#endif /* DIFF_H */
