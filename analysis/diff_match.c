/* diff_match.c -- pairing the objects of one dump with those of another. */
#include "diff_match.h"

/* The held object from at on with this id and class cls, without mark,
 * preferably without avoid; NULL if none. */
static dobj *partner(objset *held, size_t at, uint64_t id, uint32_t cls,
                     uint32_t mark, uint32_t avoid, const diff_match_ops *ops,
                     void *ctx)
{
    dobj *second = NULL;
    for (size_t j = at; j < held->n && objset_id(held, &held->v[j]) == id;
         j++) {
        dobj *h = &held->v[j];
        if ((objset_marks(h) & mark) ||
            ops->held_class(ctx, objset_kind(held, h)) != cls)
            continue;
        if (!(objset_marks(h) & avoid))
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
        uint32_t cls = ops->chunk_class(ctx, objset_kind(chunk, o));
        if (cls == DIFF_MATCH_DEFER) {
            int rc = ops->defer(ctx, chunk, o);
            if (rc != 0)
                return rc;
            continue;
        }
        uint64_t id = objset_id(chunk, o);
        at = objset_seek(held, at, id);
        dobj *h = partner(held, at, id, cls, mark, avoid, ops, ctx);
        if (h != NULL) {
            objset_mark(h, mark);
        } else {
            int rc = ops->unmatched(ctx, chunk, o, cls);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}
