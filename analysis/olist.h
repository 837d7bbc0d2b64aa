/* olist.h -- the objects --list prints, biggest first.
 *
 * Items come in any order; the list keeps them sorted by size (largest
 * first), then id, then change. With a limit (--top N), it never holds
 * much more than 2N items: when full it sorts and drops everything past
 * the Nth, so listing the 20 biggest new objects of a 10-million-object
 * dump takes no memory to speak of. */
#ifndef DIFF_OLIST_H
#define DIFF_OLIST_H

#include <stddef.h>
#include <stdint.h>

#include "diff_mem.h"

/* What happened to a listed object (also the index of diff_stat arrays). */
enum diff_change {
    DIFF_NEW = 0,      /* in the newer dump only (two dumps) */
    DIFF_RETAINED = 0, /* new in d2, still alive in d3 (three dumps) */
    DIFF_FREED = 1     /* in the older dump only (two dumps) */
};

typedef struct diff_item {
    uint64_t id;
    uint64_t size;
    uint32_t kind;   /* a shared kind, or a local kind when local is set */
    uint8_t change;  /* enum diff_change */
    uint8_t local;   /* kind is still a local kind of a dump */
} diff_item;

typedef struct olist {
    const diff_mem *mem;
    diff_item *v;
    size_t n, cap;
    uint64_t limit; /* 0: keep everything */
} olist;

void olist_init(olist *l, const diff_mem *mem, uint64_t limit);
void olist_free(olist *l);

/* Adds an item. Returns 0 or -1 (no memory). */
int olist_add(olist *l, const diff_item *it);

/* Sorts the list (size, id, change, then kind) and cuts it to the limit.
 * Every item must have a shared kind by then. */
void olist_finish(olist *l);

#endif /* DIFF_OLIST_H */
