/* unique_ids.h -- the objects of an imported heap have ids of their own.
 *
 * An id names one object (heapfmt-info --verify rejects a repeat, and a
 * reference to a repeated id cannot say which object it means). Inputs
 * repeat them: a V8 snapshot whose nodes share id 0, an HPROF file that
 * dumps an instance twice, a dump_all file with an address twice. The
 * importer gives each repeat a new id, from the top of the 64-bit range
 * down (no address lies there: user space ends at 2^47 on x86-64 and
 * 2^48 on arm64), never one an object took before (an object that comes
 * later with it is a repeat in turn; V8's, all known first, never one of
 * the input's), and says so at the end:
 *   - dump_all and HPROF name objects by id: references to a repeated id
 *     go to its first object (unique_ids_check, in fit_write_object);
 *   - V8 names nodes by index: every node's id is renamed before any is
 *     written, so the edges to a renamed node follow it
 *     (unique_ids_fix). */
#ifndef UNIQUE_IDS_H
#define UNIQUE_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "hf_common.h"

/* The ids written so far, for streaming importers. Ids that come each
 * above all before them (a VM walks its heap in address order) are
 * appended to a sorted run, 8 bytes each; only the others go to a seeded
 * hash (hf_map), looked up in the run by bisection. */
typedef struct unique_ids {
    uint64_t *run;
    size_t nrun, caprun;
    hf_map others;
    uint64_t next_new; /* the next new id to try */
    uint64_t renamed;  /* repeats given a new id */
    uint64_t first;    /* the first repeated id */
    int nomem;
} unique_ids;

void unique_ids_init(unique_ids *u);
void unique_ids_free(unique_ids *u);

/* Notes *id; when it was met before, replaces it with a new id (noted
 * too) and counts the repeat. Returns 0, or -1 when memory runs out. */
int unique_ids_check(unique_ids *u, uint64_t *id);

/* Makes the n ids unique in place: the second and later nodes of an id
 * get new ids. Returns how many were renamed, the first repeated id in
 * *first and the index of its first repeat in *at; -1 when memory runs
 * out. */
long unique_ids_fix(uint64_t *ids, size_t n, uint64_t *first, size_t *at);

#endif /* UNIQUE_IDS_H */
