/* graph_dominators.c -- a dump's dominator tree with retained sizes, for
 * heapfmt-graph dominators and heapfmt-report's retained section. */
#include <string.h>
#include <sys/stat.h>

#include "cli_num.h"
#include "graph_dominators.h"

/* A regular file can be read twice: the objects' ids, sizes and kinds
 * then need no memory while the tree is computed. */
static int rereadable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

int dominators_tree(const graph_query *opt, const char *path, graph *g,
                    dom_tree *t)
{
    memset(t, 0, sizeof *t);
    int twice = rereadable(path);
    int rc = graph_query_load(g, path, opt, twice ? 0 : LOAD_OBJECTS);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    int failed = dom_build(g, t, 1) != 0;
    if (!failed && twice) {
        int rrc = graph_reread(g, path);
        if (rrc != AN_OK && rrc != AN_INCOMPLETE)
            return rrc;
    }
    failed = failed || dom_retained(g, t) != 0;
    if (failed)
        return an_no_memory(opt->ctx, g->d.name);
    dominators_note_unreachable(opt->ctx, g->d.name, t->unreachable,
                                t->unreachable_bytes);
    return rc;
}

void dominators_note_unreachable(an_ctx *ctx, const char *name, uint64_t n,
                                 uint64_t bytes)
{
    if (n > 0)
        an_note(ctx, name,
                "%s object%s (%s) %s not reachable from any root and %s "
                "left out",
                cli_fmt_count(n).s, n == 1 ? "" : "s",
                cli_fmt_bytes(bytes).s, n == 1 ? "is" : "are",
                n == 1 ? "is" : "are");
}
