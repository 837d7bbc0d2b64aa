/* cli_summary_by.h -- --by of the tools whose rows sum objects by a key
 * (heapfmt-diff, heapfmt-graph's dominators and leaked): the keys of
 * analysis/diff_summary.h, one usage error for the others. */
#ifndef CLI_SUMMARY_BY_H
#define CLI_SUMMARY_BY_H

/* Parses --by's argument into *by (summary_parse_by), or prints the usage
 * error "invalid --by value 'ARG': expected DIFF_BY_VALUES" and returns -1
 * (the caller exits CLI_EXIT_USAGE). */
int cli_summary_by_option(const char *arg, unsigned *by);

#endif /* CLI_SUMMARY_BY_H */
