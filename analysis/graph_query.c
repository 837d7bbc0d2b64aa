/* graph_query.c -- the load every question about a graph makes. */
#include "cli_num.h"
#include "graph_query.h"

int graph_query_load(graph *g, const char *path, const graph_query *opt,
                     unsigned keep)
{
    graph_options go = {.keep_weak = opt->weak || (keep & LOAD_WEAK) != 0,
                        .class_refs = !opt->no_class_refs,
                        .keep_labels = (keep & LOAD_LABELS) != 0,
                        .keep_index = (keep & LOAD_INDEX) != 0,
                        .keep_objects = (keep & LOAD_OBJECTS) != 0,
                        .target_ids = (keep & LOAD_TARGET_IDS) != 0,
                        .progress = 1,
                        .mem = opt->mem,
                        .ctx = opt->ctx};
    int rc = graph_load(g, path, &go);
    if (rc == AN_OK || rc == AN_INCOMPLETE)
        graph_query_warn(g);
    return rc;
}

void graph_query_warn(const graph *g)
{
    if (g->dangling > 0)
        an_note(g->ctx, g->d.name,
                "%s reference%s to objects not in the dump %s left out",
                cli_fmt_count(g->dangling).s, g->dangling == 1 ? "" : "s",
                g->dangling == 1 ? "was" : "were");
    if (g->duplicates > 0)
        an_warn(g->ctx, g->d.name,
                "%s object%s the id of an earlier one; references go to "
                "the first",
                cli_fmt_count(g->duplicates).s,
                g->duplicates == 1 ? " repeats" : "s repeat");
}
