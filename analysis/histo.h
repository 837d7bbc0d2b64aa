/* histo.h -- the histogram engine of histo and heapfmt-report, apart
 * from any printing (tools/histo/histo_print.h prints its tables).
 *
 * histo turns one or more dumps into per-class (or per-type, per-site,
 * per-stack, per-frame) histograms, merged by display name into one table:
 *
 *     histo_table_init()     an empty table for N dumps
 *     histo_collect()        read dump i into column i (footer or scan)
 *     histo_table_finish()   filter, sort, cut to --top, sum the rest
 *
 * histo_build() does all of it for a list of paths. Memory is proportional
 * to the number of distinct names times the number of dumps, never to the
 * number of objects. */
#ifndef HISTO_H
#define HISTO_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_code.h"
#include "dump_read.h"
#include "cli_native.h"
#include "cli_names.h"
#include "cli_num.h"
#include "cli_strmap.h"
#include "strtab.h"

enum histo_by {
    HISTO_BY_CLASS = 0, /* the object's class (display name) */
    HISTO_BY_TYPE,      /* the VM type string, e.g. T_STRING */
    HISTO_BY_SITE,      /* the allocation site, file:line */
    HISTO_BY_STACK,     /* the whole allocation call stack (cli_stack.h) */
    HISTO_BY_FRAME,     /* the stack's top frame, past the allocator's */
    HISTO_BY_IMEMO,     /* a T_IMEMO's subtype (cli_code.h) */
    HISTO_BY_ISEQ       /* an iseq's or Proc's code location (cli_code.h) */
};

enum histo_sort {
    HISTO_SORT_DEFAULT = 0, /* bytes for one dump, delta for more */
    HISTO_SORT_BYTES,       /* bytes (in the last dump), largest first */
    HISTO_SORT_COUNT,       /* count (in the last dump), largest first */
    HISTO_SORT_NAME,        /* name, in byte order */
    HISTO_SORT_DELTA,       /* change in bytes, last - first, growth first */
    HISTO_SORT_DELTA_COUNT, /* change in count, last - first, growth first */
    HISTO_SORT_OLDEST,      /* age of the oldest live block (lifespans,
                               last dump), oldest first */
    HISTO_SORT_LIFETIME     /* mean lifetime of the freed blocks (last
                               dump), longest first */
};

enum histo_format {
    HISTO_FORMAT_TABLE = 0,
    HISTO_FORMAT_TSV,
    HISTO_FORMAT_CSV,
    HISTO_FORMAT_JSON,
    HISTO_FORMAT_FOLDED /* one dump, --by=stack: "frame;frame... value" */
};

typedef struct histo_options {
    enum histo_by by;
    enum histo_sort sort;
    enum histo_format format;
    uint64_t top;       /* rows to show at most; 0 = all */
    uint64_t min_count; /* hide rows below (with 2+ dumps: |change|) */
    uint64_t min_bytes;
    const regex_t *match; /* show only names it matches; NULL = all */
    int all;            /* 2+ dumps: also show unchanged rows */
    int human;          /* table: 1,234,567 and KiB/MiB */
    int scan;           /* read every block, never the footer summary */
    int progress;       /* progress through ctx's hooks (a line on a
                           terminal) */
    int unicode;        /* sparklines with block characters */
    unsigned jobs;      /* threads decoding the blocks of a scan (--jobs) */
    int empty_ok;       /* --by=site, stack, frame, imemo, iseq on a dump
                           that records none: one "(no site)" (...) row,
                           not an error (heapfmt-report shows what there
                           is) */
    an_ctx *ctx;        /* failures, warnings, progress (status.h) */
} histo_options;

#define HISTO_OPTIONS_INIT                                                  \
    { .by = HISTO_BY_CLASS, .sort = HISTO_SORT_DEFAULT,                     \
      .format = HISTO_FORMAT_TABLE, .progress = 1, .jobs = 1 }

/* Most threads --jobs starts for one dump. */
#define HISTO_MAX_JOBS 64u

/* What was read of one dump. */
typedef struct histo_dump {
    const char *path;  /* as given */
    const char *name;  /* for messages and headers: path or "(stdin)" */
    int status;        /* AN_OK or AN_INCOMPLETE */
    int from_footer;   /* the footer summary was used (no scan) */
    uint64_t count;    /* objects counted */
    uint64_t bytes;    /* their bytes */
    uint64_t rows;     /* distinct names with objects */
    int native_known;  /* a heapfmt-malloc dump: native holds its memory */
    cli_native native;
} histo_dump;

struct histo_total; /* below, with the accumulators */

/* What LIFESPAN records (format 1.2) say about the blocks of one row:
 * allocated and freed since counting started, the freed ones' lifetimes
 * (summed, saturating) and the oldest live one's age (the largest). */
typedef struct histo_life {
    uint64_t allocs, frees;
    uint64_t lifetime_us, oldest_us;
} histo_life;

/* Adds b into a: sums, a saturating sum of lifetimes, the larger age. */
void histo_life_add(histo_life *a, const histo_life *b);

/* One name of the merged table. Its numbers for dump d are
 * histo_count(t, row, d) and histo_bytes(t, row, d). */
typedef struct histo_row {
    const char *name; /* NUL-terminated; len bytes (may hold NUL bytes) */
    size_t len;
    size_t id;        /* index of its numbers in the table */
    int growing;      /* 2+ dumps: grew in every interval */
    int key_neg;      /* sort key: sign and magnitude */
    uint64_t key;
} histo_row;

typedef struct histo_table {
    size_t ndumps;
    histo_dump *dumps;  /* ndumps */
    cli_strmap names;   /* name -> id */
    histo_row *rows;    /* nrows; sorted by histo_table_finish */
    size_t nrows, caprows;
    uint64_t *cells;    /* by id: count and bytes of each dump */
    size_t capcells;    /* ids with room in cells */
    histo_life *life;   /* by id and dump, as cells; NULL until a dump
                           has LIFESPAN records for this --by */
    /* Set by histo_table_finish: */
    size_t nshown;      /* rows[0 .. nshown-1] are shown, in order */
    uint64_t *total;    /* by dump: count, bytes of every row */
    uint64_t *omitted;  /* by dump: count, bytes of rows not shown */
    enum histo_sort sort; /* the sort actually used */
} histo_table;

/* ---- histo_table.c ---- */

/* Makes an empty table for ndumps (>= 1) dumps. Returns 0, or -1 when out
 * of memory (the table is then empty and may be freed). */
int histo_table_init(histo_table *t, size_t ndumps);
void histo_table_free(histo_table *t);

/* Adds count objects of bytes bytes under name (len bytes) to dump d.
 * Names already present are summed. Returns 0, or -1 out of memory. */
int histo_table_add(histo_table *t, size_t d, const char *name, size_t len,
                    uint64_t count, uint64_t bytes);

/* Adds the lifespans l of the blocks named name to dump d (a row with no
 * live object may exist for them). Returns 0, or -1 out of memory. */
int histo_table_add_life(histo_table *t, size_t d, const char *name,
                         size_t len, const histo_life *l);

/* The row's lifespans in dump d, or NULL when the table has none. */
static inline const histo_life *histo_row_life(const histo_table *t,
                                               const histo_row *r, size_t d)
{
    return t->life ? &t->life[r->id * t->ndumps + d] : NULL;
}

/* A row's numbers and lifespans together (either may be empty: nothing
 * is added for an empty one). */
int histo_table_add_row(histo_table *t, size_t d, const char *name,
                        size_t len, const struct histo_total *tot,
                        const histo_life *l);
static inline uint64_t histo_count(const histo_table *t, const histo_row *r,
                                   size_t d)
{
    return t->cells[(r->id * t->ndumps + d) * 2];
}

static inline uint64_t histo_bytes(const histo_table *t, const histo_row *r,
                                   size_t d)
{
    return t->cells[(r->id * t->ndumps + d) * 2 + 1];
}

/* Decides which rows are shown and in what order (see histo(1)):
 * computes the totals and growth flags, drops rows the options filter out
 * (unchanged, --match, --min-count, --min-bytes), sorts, cuts to --top and
 * sums the rest into omitted. Allocates nothing. */
void histo_table_finish(histo_table *t, const histo_options *opt);

/* Whether a row has the same count and bytes in every dump. */
int histo_row_unchanged(const histo_table *t, const histo_row *r);

/* Signed difference b - a as sign and magnitude (no overflow). */
static inline uint64_t histo_delta(uint64_t a, uint64_t b, int *neg)
{
    *neg = b < a;
    return b < a ? a - b : b - a;
}

/* ---- histo_collect.c ---- */

/* Reads the dump at path ("-": standard input) into column d of t, from
 * the footer summary when it can (complete, seekable dump, --by=class, no
 * --scan) or else by reading every block. Warnings go to opt->ctx.
 * Returns AN_OK, AN_INCOMPLETE (what could be read is in t, warnings said
 * what was lost) or AN_ERROR (the message on opt->ctx; t may hold part of
 * the dump and should not be printed). */
int histo_collect(histo_table *t, size_t d, const char *path,
                  const histo_options *opt);

/* The same on a dump already open (d->reader at its first record). */
int histo_collect_dump(histo_table *t, size_t d, an_dump *dump,
                       const histo_options *opt);

/* Display name for --by=type (see histo(1)): the type string's text (cut:
 * cli_name_cut), or a placeholder written into buf: "(no type)" for none
 * or an empty name, "#<undefined string ID>" for a string whose STRING
 * record was lost. *len receives the length. */
const char *histo_type_name(const heapfmt_rstring *s, cli_name *buf,
                            size_t *len);

/* The name of the row of objects without an allocation site. */
#define HISTO_NO_SITE "(no site)"

/* ---- histo_jobs.c ---- */

/* histo_collect_jobs() could not or would not read the dump in parallel;
 * nothing was added to the table. */
#define HISTO_JOBS_FALLBACK (-1)

/* Reads the complete dump at path, whose footer f is already read, into
 * column d with opt->jobs threads (any opt->by), each
 * decoding a contiguous range of blocks with its own reader. The table is
 * the same as a one-thread scan gives. Returns AN_OK, AN_ERROR
 * (out of memory, the message on opt->ctx; t may hold part of the dump), or HISTO_JOBS_FALLBACK when a one-thread scan must be used
 * instead: fewer than 2 jobs or blocks, standard input, or anything
 * unexpected in the blocks (a damaged block, counts that disagree with the
 * footer), which the one-thread scan then reports the usual way. */
int histo_collect_jobs(histo_table *t, size_t d, const char *path,
                       const heapfmt_footer *f, const histo_options *opt);

/* The number of online processors, at least 1, at most HISTO_MAX_JOBS
 * (--jobs=0). */
unsigned histo_default_jobs(void);

/* ---- histo_sites.c: (file, line) -> count, bytes ---- */

/* The key of a site is its file's string slot and line, 12 bytes in the
 * shared string table (libheapfmt/common/strtab.h); the counts are kept by
 * the key's position. */
typedef struct histo_sites {
    hf_strtab keys;
    struct histo_total *totals; /* by key position */
    histo_life *life;           /* by key position (zero: none) */
    size_t cap;
} histo_sites;

void histo_sites_init(histo_sites *s);
void histo_sites_free(histo_sites *s);
/* Number of sites, and site i (0 <= i < count): its file slot, line and
 * totals. */
size_t histo_sites_count(const histo_sites *s);
const struct histo_total *histo_sites_get(const histo_sites *s, size_t i,
                                          uint32_t *file, uint64_t *line);
/* The lifespans of site i (zero when it had none). */
const histo_life *histo_sites_life(const histo_sites *s, size_t i);
/* Adds the lifespans of the site (file, line). 0, or -1 out of memory. */
int histo_sites_add_life(histo_sites *s, uint32_t file, uint64_t line,
                         const histo_life *l);

/* ---- histo_acc.c ---- */

/* Objects and bytes of one row. */
typedef struct histo_total {
    uint64_t count;
    uint64_t bytes;
} histo_total;

/* What one reader counted: by the class, type string or stack slot of
 * its tables, or (--by=site) by site, or (--by=imemo, iseq) by name;
 * apart, the objects without a site, stack or name. The one-thread scan
 * and each range of -jN count with it. */
typedef struct histo_acc {
    enum histo_by by;
    histo_total *v;      /* by class, string or stack slot */
    histo_life *life;    /* --by=stack, frame: by stack slot (LIFESPAN
                            records keyed by a stack alone) */
    int has_life;        /* a LIFESPAN record was counted */
    const heapfmt_rstack **stack_of; /* --by=stack, frame: by stack slot,
                                        the reader's stack (NULL: none) */
    size_t cap;
    histo_sites sites;   /* --by=site */
    histo_total no_site; /* --by=site: objects without a site */
    histo_total no_stack; /* --by=stack, frame: objects without a stack */
    cli_strmap codes;     /* --by=imemo, iseq: the names (cli_code.h) */
    histo_total *code;    /* by index in codes */
    size_t ccode;
    histo_total no_code;  /* of the CLI_NOT_IMEMO or CLI_NO_ISEQ row */
} histo_acc;

void histo_acc_init(histo_acc *a, enum histo_by by);
void histo_acc_free(histo_acc *a);

/* Counts one object. Returns 0, or -1 when out of memory. */
int histo_acc_add(histo_acc *a, const heapfmt_robject *o);
/* Counts one LIFESPAN record: --by=stack and frame take those keyed by a
 * stack alone, --by=site those keyed by a site alone (a record for a
 * stack at a site would count twice); other --by ignore them. Returns 0,
 * or -1 when out of memory. */
int histo_acc_add_lifespan(histo_acc *a, const heapfmt_rlifespan *l);
/* Adds one object of size bytes at (file, line). Returns 0, or -1 when
 * out of memory. */
int histo_sites_add(histo_sites *s, uint32_t file, uint64_t line,
                    uint64_t size);

/* ---- histo_stacks.c ---- */

/* Gives the stack to name for a stack a reader met: s itself, or (-jN)
 * a copy completed with what other ranges defined; NULL when out of
 * memory. */
typedef const heapfmt_rstack *(*histo_stack_resolver)(void *ctx,
                                                      const heapfmt_rstack *s);

/* Adds the stacks an accumulator counted (--by=stack or frame) to column
 * d, named as cli_stack.h says (folded names for -f folded), objects
 * without a stack as CLI_NO_STACK. resolve (NULL: none) is applied to
 * each stack first. Returns 0, or -1 when out of memory. */
int histo_stacks_to_table(histo_table *t, size_t d, const histo_acc *a,
                          const histo_options *opt,
                          histo_stack_resolver resolve, void *ctx);

/* ---- histo_words.c ---- */

/* "class", "type", "site", "stack", "frame", "imemo" or "iseq", and its
 * plural. */
const char *histo_by_word(enum histo_by by);
const char *histo_by_plural(enum histo_by by);

/* How a number is written (bits, or 0 for plain digits). */
enum histo_fmt {
    HISTO_FMT_PLAIN = 0,
    HISTO_FMT_HUMAN = 1u,  /* "1,234,567", or "1.2 MiB" for bytes */
    HISTO_FMT_BYTES = 2u,  /* the number is bytes (for HUMAN) */
    HISTO_FMT_SIGNED = 4u  /* a change: "+N" when positive (else "N") */
};

/* A count or byte total as text (HISTO_FMT_HUMAN, HISTO_FMT_BYTES). */
cli_num histo_fmt_value(uint64_t v, unsigned fmt);

/* The change b - a as text: "-N", "0", and "N" or, with
 * HISTO_FMT_SIGNED, "+N"; the other bits as for histo_fmt_value. */
cli_num histo_fmt_delta(uint64_t a, uint64_t b, unsigned fmt);

/* A line's numbers are count and bytes of each dump, side by side:
 * count of dump d at 2d, its bytes at 2d + 1. */
static inline uint64_t histo_line_count(const uint64_t *cb, size_t d)
{
    return cb[2 * d];
}

static inline uint64_t histo_line_bytes(const uint64_t *cb, size_t d)
{
    return cb[2 * d + 1];
}

/* Two dumps: "new" (no objects in the first), "gone" (none in the
 * second), "same" or "changed". */
const char *histo_row_status(const histo_table *t, const histo_row *r);

/* ---- histo_build.c ---- */

/* Reads every dump into t and finishes it (histo_table_finish): the
 * table histo_run prints. Returns AN_OK, AN_INCOMPLETE (some dump
 * incomplete; t holds what could be read) or AN_ERROR (the message on
 * opt->ctx; t must not be shown). t must be freed with histo_table_free in
 * every case. */
int histo_build(histo_table *t, const char *const *paths, size_t npaths,
                const histo_options *opt);

/* Objects and bytes of one class index, as a scan counted them. */
typedef struct histo_class_total {
    uint32_t index;
    uint64_t count, bytes;
} histo_class_total;

/* Checks the footer's per-class summary against the totals a scan
 * counted (v, n entries; an index may come several times: they are
 * summed, and v is sorted in the process). Returns 0 when they agree, 1
 * (the first difference in why) when they do not, -1 out of memory. */
int histo_summary_check(const heapfmt_footer *f, histo_class_total *v,
                        size_t n, char *why, size_t cap);

#endif /* HISTO_H */
