/* histo_print.h -- what histo prints, in each of its formats, from a
 * finished table (analysis/histo.h builds it). */
#ifndef HISTO_PRINT_H
#define HISTO_PRINT_H

#include <stdio.h>

#include "histo.h"

/* ---- histo_print_folded.c ---- */

/* Prints the shown rows of a one-dump table of folded stacks: the name, a
 * space, and the bytes (the count with --sort=count). */
void histo_print_folded(FILE *out, const histo_table *t,
                        const histo_options *opt);

/* ---- histo_spark.c ---- */

/* Writes a sparkline of n values (v[0], v[stride], ...) into buf: one
 * glyph per value, scaled from the smallest to the largest; all equal
 * values give a flat middle line. unicode selects the block glyphs
 * U+2581..U+2588, else the ASCII ramp "_.-~=+*#". Returns the length
 * written (always NUL-terminated; cut short when cap is too small). */
size_t histo_sparkline(char *buf, size_t cap, const uint64_t *v, size_t n,
                       size_t stride, int unicode);

/* ---- histo_print*.c ---- */

/* Prints the finished table in opt->format to out. Returns 0, or -1 when
 * out of memory (only the table, TSV and CSV formats allocate, before
 * printing). */
int histo_print(FILE *out, const histo_table *t, const histo_options *opt);
int histo_print_table(FILE *out, const histo_table *t,
                      const histo_options *opt);
int histo_print_delimited(FILE *out, const histo_table *t,
                          const histo_options *opt, int csv);
void histo_print_json(FILE *out, const histo_table *t,
                      const histo_options *opt);

/* ---- histo_run.c ---- */

/* Reads every dump, then prints the result to out. Returns the exit code:
 * CLI_EXIT_OK, CLI_EXIT_INCOMPLETE (some dump incomplete; the partial
 * result was printed) or CLI_EXIT_ERROR (nothing printed). */
int histo_run(FILE *out, const char *const *paths, size_t npaths,
              const histo_options *opt);

#endif /* HISTO_PRINT_H */
