/* out.h -- heapfmt-graph's rows: cli_rows.h, through the graph's
 * allocator, names cut as cli_name_cut cuts them (in every format). */
#ifndef GRAPH_OUT_H
#define GRAPH_OUT_H

#include <stdio.h>

#include "cli_rows.h"
#include "diff_mem.h"

/* cli_rows_begin with mem (NULL: realloc and free) for a table's rows. */
void out_begin(cli_rows *o, FILE *f, int format, const diff_mem *mem,
               size_t ncols, const char *const *names);

#endif /* GRAPH_OUT_H */
