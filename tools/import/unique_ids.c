/* unique_ids.c -- the objects of an imported heap have ids of their own
 * (unique_ids.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "cli_search.h"
#include "unique_ids.h"

void unique_ids_init(unique_ids *u)
{
    memset(u, 0, sizeof *u);
    hf_map_init(&u->others);
    u->next_new = UINT64_MAX;
}

void unique_ids_free(unique_ids *u)
{
    free(u->run);
    hf_map_free(&u->others, hf_default_allocator());
    memset(u, 0, sizeof *u);
}

static int in_run(const unique_ids *u, uint64_t id)
{
    size_t at;
    CLI_LOWER_BOUND(at, u->nrun, i, u->run[i] < id);
    return at < u->nrun && u->run[at] == id;
}

/* Notes id; returns 1 when it was met before, 0 when not, -1 out of
 * memory. New ids go to the hash, never to the run (which would then end
 * at the top of the range and take no more ids). */
static int seen(unique_ids *u, uint64_t id, int is_new)
{
    uint32_t v;
    if (!is_new && (u->nrun == 0 || id > u->run[u->nrun - 1])) {
        /* above the run: met before only as a new id */
        if (u->renamed > 0 && id > u->next_new &&
            hf_map_get(&u->others, id, &v))
            return 1;
        if (GROW(u->run, u->caprun, u->nrun) != 0)
            return -1;
        u->run[u->nrun++] = id;
        return 0;
    }
    if (in_run(u, id) || hf_map_get(&u->others, id, &v))
        return 1;
    return hf_map_put(&u->others, hf_default_allocator(), id, 1) == 0 ? 0 : -1;
}

int unique_ids_check(unique_ids *u, uint64_t *id)
{
    int r = seen(u, *id, 0);
    if (r == 0)
        return 0;
    if (r < 0) {
        u->nomem = 1;
        return -1;
    }
    if (u->renamed++ == 0)
        u->first = *id;
    /* a new id no object has; an object of the input that comes later
     * with it is then a repeat in turn */
    while ((r = seen(u, u->next_new, 1)) == 1)
        u->next_new--;
    if (r < 0) {
        u->nomem = 1;
        return -1;
    }
    *id = u->next_new--;
    return 0;
}

typedef struct node_id {
    uint64_t id;
    size_t at;
} node_id;

static int by_id_then_index(const void *a, const void *b)
{
    const node_id *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

long unique_ids_fix(uint64_t *ids, size_t n, uint64_t *first, size_t *at)
{
    size_t up = 1; /* ids that ascend (V8 gives them in order) repeat none */
    while (up < n && ids[up] > ids[up - 1])
        up++;
    if (up >= n)
        return 0;
    node_id *v = malloc(n * sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = (node_id){ids[i], i};
    qsort(v, n, sizeof *v, by_id_then_index);
    long renamed = 0;
    uint64_t next = UINT64_MAX;
    size_t top = n; /* v[top..n) hold the ids at or above next */
    for (size_t i = 1; i < n; i++) {
        if (v[i].id != v[i - 1].id)
            continue;
        if (renamed++ == 0 || v[i].at < *at) {
            *first = v[i].id;
            *at = v[i].at;
        }
        /* skip the ids the input uses from the top down */
        for (;;) {
            while (top > 0 && v[top - 1].id > next)
                top--;
            if (top == 0 || v[top - 1].id != next)
                break;
            next--;
        }
        ids[v[i].at] = next--;
    }
    free(v);
    return renamed;
}
