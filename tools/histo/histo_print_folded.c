/* histo_print_folded.c -- histo -f folded: one line per stack for
 * flamegraph.pl and speedscope. */
#include <stdio.h>

#include "histo_print.h"

void histo_print_folded(FILE *out, const histo_table *t,
                        const histo_options *opt)
{
    for (size_t i = 0; i < t->nshown; i++) {
        const histo_row *r = &t->rows[i];
        uint64_t v = opt->sort == HISTO_SORT_COUNT ? histo_count(t, r, 0)
                                                   : histo_bytes(t, r, 0);
        fwrite(r->name, 1, r->len, out);
        fprintf(out, " %llu\n", (unsigned long long)v);
    }
}
