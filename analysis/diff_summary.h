/* diff_summary.h -- per-class (or per-site, per-stack, per-frame) totals of a
 * diff.
 *
 * Counts are kept per kind while dumps are matched (a kind is a class,
 * type, site and stack together), then folded into rows by what --by asks
 * for: the class, the allocation site, or both; or the call stack or its
 * top frame (cli_stack.h), whose names the kinds hold. Kinds that fail the class
 * filter and kinds with nothing new, freed or retained make no row. */
#ifndef DIFF_SUMMARY_H
#define DIFF_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "diff_filter.h"
#include "nameid.h"
#include "tuples.h"

/* --by bits */
#define DIFF_BY_CLASS 1u
#define DIFF_BY_SITE 2u
#define DIFF_BY_STACK 4u /* the whole call stack */
#define DIFF_BY_FRAME 8u /* the stack's top frame */
#define DIFF_BY_IMEMO 16u /* a T_IMEMO's subtype (cli_code.h) */
#define DIFF_BY_ISEQ 32u  /* an iseq's or Proc's code location */
#define DIFF_BY_CODE (DIFF_BY_IMEMO | DIFF_BY_ISEQ)

/* The row a kind falls in: its class and/or site as by says, the parts
 * not grouped on set to 0. */
static inline tuple summary_group_key(const tuple *kind, unsigned by)
{
    tuple key = {0};
    if (by & DIFF_BY_CLASS)
        key.klass = kind->klass;
    if (by & DIFF_BY_SITE) {
        key.file = kind->file;
        key.line = kind->line;
    }
    if (by & DIFF_BY_STACK)
        key.stack = kind->stack;
    if (by & (DIFF_BY_FRAME | DIFF_BY_CODE))
        key.stack = kind->frame;
    return key;
}

/* Parses a --by value: class, site, class,site (either order), stack,
 * frame, imemo or iseq into DIFF_BY_* bits. Returns 0, or -1 for anything
 * else (the front end says it, listing DIFF_BY_VALUES). */
int summary_parse_by(const char *s, unsigned *by);

#define DIFF_BY_VALUES "class, site, class,site, stack, frame, imemo or iseq"

/* [DIFF_NEW] new (two dumps) or retained (three); [DIFF_FREED] freed. */
typedef struct diff_stat {
    uint64_t count[2];
    uint64_t bytes[2];
} diff_stat;

/* What the last dump's LIFESPAN records (format 1.2) say of a row's
 * blocks: allocated and freed since counting started, the freed ones'
 * lifetimes (summed) and the oldest live one's age. */
typedef struct diff_life {
    uint64_t allocs, frees, lifetime_us, oldest_us;
} diff_life;

/* Adds b into a (lifetimes saturate, the larger age wins). */
void diff_life_add(diff_life *a, const diff_life *b);

/* One LIFESPAN of the last dump, keyed as a row of --by=site, stack or
 * frame is (summary_group_key). */
typedef struct diff_life_entry {
    tuple key;
    diff_life life;
} diff_life_entry;

/* How rows are sorted (--sort). */
enum diff_sort {
    DIFF_SORT_BYTES = 0, /* new (or retained) bytes */
    DIFF_SORT_COUNT,     /* new (or retained) objects */
    DIFF_SORT_OLDEST,    /* age of the oldest live block */
    DIFF_SORT_LIFETIME   /* mean lifetime of the freed blocks */
};

typedef struct diff_row {
    uint32_t cls;  /* class name id, or 0 when not grouped by class */
    uint32_t file; /* site file name id, 0 for no site / not by site */
    uint64_t line;
    uint32_t stack; /* stack, frame, imemo or iseq name id, DIFF_NONE for
                       none (or not grouped by it) */
    diff_stat s;
    int has_life;  /* life holds the row's lifespans */
    diff_life life;
} diff_row;

/* Adds v to *sum without wrapping (sums stop at UINT64_MAX). */
static inline void stat_add(uint64_t *sum, uint64_t v)
{
    *sum = *sum + v < *sum ? UINT64_MAX : *sum + v;
}

/* Folds the per-kind stats (kstat[k] for each kind k of kinds) into rows:
 * *rows gets an array of *nrows rows (free with diff_mem_free), sorted by
 * sort (new or retained bytes by default), largest first, then freed
 * bytes, counts and name; *total the sum of all rows. pass[cls] says
 * whether class name id cls passes the filter (NULL: all pass). The
 * lifespans life[0..nlife) go to the rows of their key. Returns 0 or -1
 * (no memory). */
int summary_rows(const tuples *kinds, const diff_stat *kstat,
                 const unsigned char *pass, unsigned by, const cli_strmap *t,
                 const diff_life_entry *life, size_t nlife,
                 enum diff_sort sort, const diff_mem *mem, diff_row **rows,
                 size_t *nrows, diff_stat *total);

#endif /* DIFF_SUMMARY_H */
