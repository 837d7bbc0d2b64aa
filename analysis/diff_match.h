/* diff_match.h -- pairing the objects of one dump with those of another.
 *
 * One dump is "held": all its objects, sorted by id, in an objset. The
 * other is "streamed" through it in chunks: each chunk is sorted and
 * walked in step with the held array, so the cost is a merge, not a hash
 * lookup per object, and only the held dump is ever fully in memory.
 *
 * Two objects are the same when their ids are equal and their identities
 * (numbers of their class and call stack names, nameid.h) are equal. A held object pairs with at most one
 * streamed object: matching sets a mark bit on it, and a marked object is
 * not paired again (so duplicate ids pair off one to one). */
#ifndef DIFF_MATCH_H
#define DIFF_MATCH_H

#include <stdint.h>

#include "objset.h"

/* chunk_class result: decide about this object later (its class may still
 * be renamed further on in its dump). */
#define DIFF_MATCH_DEFER UINT32_MAX

typedef struct diff_match_ops {
    /* The class of a held object, from its kind (marks removed). */
    uint32_t (*held_class)(void *ctx, uint32_t kind);
    /* The class of a streamed object, or DIFF_MATCH_DEFER. */
    uint32_t (*chunk_class)(void *ctx, uint32_t kind);
    /* A streamed object without a partner; cls as chunk_class gave it.
     * Returns 0, or nonzero to stop (diff_match_chunk returns that value). */
    int (*unmatched)(void *ctx, const objset *chunk, const dobj *o,
                     uint32_t cls);
    /* A streamed object put aside (chunk_class said DIFF_MATCH_DEFER). */
    int (*defer)(void *ctx, const objset *chunk, const dobj *o);
} diff_match_ops;

/* Sorts chunk, then pairs each of its objects with an unmarked held object
 * of the same id and class, setting mark (OBJSET_MARK1 or OBJSET_MARK2)
 * on the held one. Among several candidates (a dump with duplicate ids),
 * one without the avoid bits is preferred: with three dumps, d3 pairs
 * first with the objects of d2 that d1 did not pair with, so that
 * "retained" is (d2 - d1) & d3 counted as multisets. held must be
 * sorted. Returns 0 or a callback's nonzero result. */
int diff_match_chunk(objset *held, objset *chunk, uint32_t mark, uint32_t avoid,
                const diff_match_ops *ops, void *ctx);

#endif /* DIFF_MATCH_H */
