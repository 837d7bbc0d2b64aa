/* ident.h -- can object ids of two dumps be compared at all?
 *
 * An object id is usually an address. Comparing ids across dumps is only
 * meaningful when objects keep their addresses: within one process, with
 * stable ids, and with no heap compaction in between. The META records
 * (spec/FORMAT.md, 6.1) say so; this file keeps the keys that matter and
 * turns contradictions into warnings. A key absent from a dump proves
 * nothing and gives no warning. */
#ifndef DIFF_IDENT_H
#define DIFF_IDENT_H

#include "heapfmt.h"
#include "notes.h"

/* The identity META keys, in the order they are checked. */
enum {
    IDENT_PID,
    IDENT_HOST,
    IDENT_START,       /* process.start */
    IDENT_IDS_STABLE,
    IDENT_COMPACTIONS, /* gc.compactions */
    IDENT_KEYS
};

typedef struct ident {
    int present[IDENT_KEYS];
    int is_zero[IDENT_KEYS]; /* an unsigned or signed value of 0 */
    char value[IDENT_KEYS][80]; /* printable form, cut if long */
} ident;

/* Copies the identity keys from the META records r has read so far. */
void ident_capture(ident *id, const heapfmt_reader *r);

/* Adds the warnings about one dump (unstable ids) to w. Returns 0 or -1
 * (no memory). */
int ident_check_one(const ident *a, const char *aname, notes *w);

/* Adds the warnings about comparing dump a (older) with dump b (newer):
 * different processes, or heap compaction in between. Returns 0 or -1. */
int ident_check_pair(const ident *a, const char *aname, const ident *b,
                     const char *bname, notes *w);

#endif /* DIFF_IDENT_H */
