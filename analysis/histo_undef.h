/* histo_undef.h -- histo --jobs sees the ids the one-thread scan calls
 * undefined (tools/common/cli_undefined.h): an id used before any record
 * defines it.
 *
 * A range's reader also meets the ids of earlier ranges as undefined: so
 * each range notes the ids it met undefined (once each, by the reader's
 * slot) and the ids it defines, and the merge accepts a range's uses only
 * when an earlier range defines them. Anything else makes histo read the
 * dump again with one thread, which says what is wrong: -j never changes
 * what histo prints. */
#ifndef HISTO_UNDEF_H
#define HISTO_UNDEF_H

#include <stddef.h>
#include <stdint.h>

#include "cli_undefined.h"
#include "heapfmt.h"

typedef struct histo_ids {
    uint64_t *v; /* kind << 32 | id */
    size_t n, cap;
} histo_ids;

typedef struct histo_undef {
    histo_ids used, defined;
    unsigned char *seen[4]; /* by kind: slots already noted */
    size_t nseen[4];
    int nomem;
} histo_undef;

/* Notes what rec defines and the ids it uses undefined. */
void histo_undef_walk(histo_undef *u, const heapfmt_record *rec);

/* Whether the entry (of this kind) is defined or noted already. */
static inline int histo_undef_settled(const histo_undef *u, int kind,
                                      int undefined, uint32_t slot)
{
    return !undefined || (slot < u->nseen[kind] && u->seen[kind][slot]);
}

/* histo_undef_walk, for every record of a range; inline, since a range
 * after the first meets most objects' classes and types undefined (an
 * earlier range defined them): once noted, an entry costs these loads,
 * not a walk of the record (the walk for every object cost -j2 12% more
 * instructions; this, 5%). */
static inline void histo_undef_record(histo_undef *u, const heapfmt_record *rec)
{
    if (rec->tag == HEAPFMT_TAG_OBJECT) {
        const heapfmt_robject *o = rec->u.object;
        const heapfmt_rclass *k = o->klass;
        if (histo_undef_settled(u, CLI_UNDEF_CLASS, k->undefined, k->slot) &&
            histo_undef_settled(u, CLI_UNDEF_STRING, o->type->undefined, o->type->slot) &&
            (!(o->fields & HEAPFMT_F_SITE) ||
             histo_undef_settled(u, CLI_UNDEF_STRING, o->file->undefined, o->file->slot)) &&
            (!(o->fields & HEAPFMT_F_STACK) || o->stack == NULL ||
             histo_undef_settled(u, CLI_UNDEF_STACK, o->stack->undefined, o->stack->slot)))
            return;
    }
    histo_undef_walk(u, rec);
}

/* 1 when every id each range used undefined is defined by an earlier
 * range, 0 when not, -1 out of memory. Sorts the ranges' lists. */
int histo_undef_resolved(histo_undef *const *ranges, size_t n);

void histo_undef_free(histo_undef *u);

#endif
