/* histo_undef.c -- histo --jobs sees the ids the one-thread scan calls
 * undefined (histo_undef.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_search.h"
#include "cli_undefined.h"
#include "histo_undef.h"

static void push(histo_undef *u, histo_ids *ids, uint64_t key)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 64;
        uint64_t *v = realloc(ids->v, cap * sizeof *v);
        if (v == NULL) {
            u->nomem = 1;
            return;
        }
        ids->v = v;
        ids->cap = cap;
    }
    ids->v[ids->n++] = key;
}

static uint64_t key(int kind, uint32_t id)
{
    return (uint64_t)kind << 32 | id;
}

/* A use, noted once per entry of the range's reader: objects of a class
 * defined in an earlier range all meet its one placeholder. */
static void note_use(void *ctx, const heapfmt_record *rec,
                     const cli_undef_use *use)
{
    histo_undef *u = ctx;
    (void)rec;
    size_t k = (size_t)use->kind;
    if (use->slot >= u->nseen[k]) {
        size_t n = u->nseen[k] ? u->nseen[k] : 256;
        while (n <= use->slot)
            n *= 2;
        unsigned char *s = realloc(u->seen[k], n);
        if (s == NULL) {
            u->nomem = 1;
            return;
        }
        memset(s + u->nseen[k], 0, n - u->nseen[k]);
        u->seen[k] = s;
        u->nseen[k] = n;
    }
    if (u->seen[k][use->slot])
        return;
    u->seen[k][use->slot] = 1;
    push(u, &u->used, key(use->kind, use->id));
}

void histo_undef_walk(histo_undef *u, const heapfmt_record *rec)
{
    switch (rec->tag) {
    case HEAPFMT_TAG_STRING:
        push(u, &u->defined, key(CLI_UNDEF_STRING, rec->u.string->id));
        return;
    case HEAPFMT_TAG_CLASS:
        push(u, &u->defined, key(CLI_UNDEF_CLASS, rec->u.klass->index));
        break; /* its name is a use */
    case HEAPFMT_TAG_FRAME:
        push(u, &u->defined, key(CLI_UNDEF_FRAME, rec->u.frame->id));
        break;
    case HEAPFMT_TAG_STACK:
        push(u, &u->defined, key(CLI_UNDEF_STACK, rec->u.stack->id));
        break;
    default:
        break;
    }
    cli_undefined_each(rec, note_use, u);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int has(const histo_ids *ids, uint64_t k)
{
    size_t lo;
    CLI_LOWER_BOUND(lo, ids->n, i, ids->v[i] < k);
    return lo < ids->n && ids->v[lo] == k;
}

int histo_undef_resolved(histo_undef *const *ranges, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (ranges[k]->nomem)
            return -1;
        if (ranges[k]->defined.n > 1)
            qsort(ranges[k]->defined.v, ranges[k]->defined.n,
                  sizeof(uint64_t), cmp_u64);
    }
    for (size_t k = 0; k < n; k++) {
        const histo_ids *used = &ranges[k]->used;
        for (size_t i = 0; i < used->n; i++) {
            size_t j = 0;
            while (j < k && !has(&ranges[j]->defined, used->v[i]))
                j++;
            if (j == k)
                return 0;
        }
    }
    return 1;
}

void histo_undef_free(histo_undef *u)
{
    free(u->used.v);
    free(u->defined.v);
    for (size_t k = 0; k < 4; k++)
        free(u->seen[k]);
    memset(u, 0, sizeof *u);
}
