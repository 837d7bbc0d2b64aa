/* rollup.h -- retained sizes summed by class, by allocation site, or by
 * both.
 *
 * The retained size of a group is the sum of the retained sizes of its
 * objects that no other object of the same group dominates: an Array
 * inside an Array counts once, in its outer one. (Eclipse MAT's quick
 * approximation; it can be less than the exact retained size of the set,
 * which also counts objects that only the group's objects together
 * keep alive.) */
#ifndef GRAPH_ROLLUP_H
#define GRAPH_ROLLUP_H

#include "domtree.h"

typedef struct rollup_row {
    uint32_t group;    /* number in the groups table */
    uint64_t objects;  /* reachable objects of the group */
    uint64_t bytes;    /* their own sizes */
    uint64_t retained; /* retained size of the group, as above */
} rollup_row;

typedef struct rollup {
    const diff_mem *mem;
    tuples groups;     /* (class slot or 0, 0, file slot + 1 or 0, line) */
    rollup_row *rows;  /* by group number, then sorted by retained */
    size_t nrows;
} rollup;

/* Sums the objects of t by class and/or site (GROUP_CLASS, GROUP_SITE)
 * and sorts the rows by retained size, largest first. Returns 0 or -1 (no
 * memory). */
int rollup_build(const graph *g, const dom_tree *t, unsigned by, rollup *r);

/* Drops the rows of no reachable object and sorts the rest, largest
 * retained size first (then bytes, then group number); rollup_build
 * ends with it, and the external path (extmem_rollup.c) too. */
void rollup_sort(rollup *r);

void rollup_free(rollup *r);

#endif /* GRAPH_ROLLUP_H */
