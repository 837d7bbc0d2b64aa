/* diff_match.c -- pairing the objects of one dump with those of another. */
#include "diff_match.h"

/* The held object from at on with o's id and class cls, without mark,
 * preferably without avoid; NULL if none. */
static dobj *partner(objset *held, size_t at, const dobj *o, uint32_t cls,
                     uint32_t mark, uint32_t avoid, const diff_match_ops *ops,
                     void *ctx)
{
    dobj *second = NULL;
    for (size_t j = at; j < held->n && held->v[j].id == o->id; j++) {
        dobj *h = &held->v[j];
        if ((h->kind & mark) ||
            ops->held_class(ctx, h->kind & OBJSET_KIND_MASK) != cls)
            continue;
        if (!(h->kind & avoid))
            return h;
        if (second == NULL)
            second = h;
    }
    return second;
}

int diff_match_chunk(objset *held, objset *chunk, uint32_t mark, uint32_t avoid,
                const diff_match_ops *ops, void *ctx)
{
    objset_sort(chunk);
    size_t at = 0; /* first held object whose id is >= the current id */
    for (size_t i = 0; i < chunk->n; i++) {
        const dobj *o = &chunk->v[i];
        uint32_t cls = ops->chunk_class(ctx, o->kind & OBJSET_KIND_MASK);
        if (cls == DIFF_MATCH_DEFER) {
            int rc = ops->defer(ctx, chunk, o);
            if (rc != 0)
                return rc;
            continue;
        }
        at = objset_seek(held, at, o->id);
        dobj *h = partner(held, at, o, cls, mark, avoid, ops, ctx);
        if (h != NULL) {
            h->kind |= mark;
        } else {
            int rc = ops->unmatched(ctx, chunk, o, cls);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}
