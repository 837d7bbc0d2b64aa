/* tevent.h - compare two heapfmt_event field by field.
 *
 * The struct has padding after `op`; memcmp would compare bytes nobody
 * wrote (and under ASan's -O1 they differ). */
#ifndef TEVENT_H
#define TEVENT_H

#include "heapfmt.h"

static inline int tevent_same(const heapfmt_event *a, const heapfmt_event *b)
{
    return a->op == b->op && a->seq == b->seq && a->time_us == b->time_us &&
           a->block == b->block && a->size == b->size &&
           a->align == b->align && a->rss == b->rss && a->peak == b->peak &&
           a->own == b->own;
}

#endif
