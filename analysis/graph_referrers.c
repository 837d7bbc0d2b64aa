/* graph_referrers.c -- the references to given objects or classes. */
#include <string.h>

#include "graph_referrers.h"

uint64_t graph_referrers_of(const graph *g, uint64_t id, uint32_t t,
                            graph_referrer_fn visit, void *ctx)
{
    uint64_t n = 0;
    for (size_t e = 0; e < g->nedges; e++)
        if (g->target_id != NULL ? g->target_id[e] == id : g->dst[e] == t) {
            n++;
            if (visit(ctx, t, e) != 0)
                break;
        }
    return n;
}

uint64_t graph_referrers_of_kinds(const graph *g, const unsigned char *want,
                                  graph_referrer_fn visit, void *ctx)
{
    uint64_t n = 0;
    for (size_t e = 0; e < g->nedges; e++) {
        uint32_t t = g->dst[e];
        if (t < g->nobjects && want[g->kind[t]]) {
            n++;
            if (visit(ctx, t, e) != 0)
                break;
        }
    }
    return n;
}

unsigned char *graph_class_kinds(const graph *g, const char *const *names,
                                 size_t n)
{
    size_t nk = tuples_count(&g->kinds);
    unsigned char *want = diff_mem_alloc(g->mem, nk ? nk : 1);
    if (want == NULL)
        return NULL;
    for (size_t k = 0; k < nk; k++) {
        graph_kind_text t;
        graph_kind_text_of(g, (uint32_t)k, &t);
        want[k] = 0;
        for (size_t i = 0; i < n; i++)
            if (strlen(names[i]) == t.klass_len &&
                memcmp(names[i], t.klass, t.klass_len) == 0)
                want[k] = 1;
    }
    return want;
}
