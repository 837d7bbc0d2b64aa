/* spool.h -- a temporary file that holds one part of a JSON document
 * while another part is still being written.
 *
 * The json format writes one JSON value: its "objects" array streams
 * straight to the output, while roots and edges, which arrive interleaved
 * with the objects, wait in spools (unlinked temporary files in $TMPDIR)
 * and are copied to the output after the last object. Memory stays
 * constant; disk use is the size of the spooled text. */
#ifndef SPOOL_H
#define SPOOL_H

#include <stdint.h>
#include <stdio.h>

#include "jout.h"

typedef struct spool {
    FILE *file; /* NULL when closed */
    int fd;
    jout out;   /* write the spooled text here */
    uint64_t items; /* for the caller: elements written so far */
} spool;

/* Creates the temporary file. Returns 0, or -1 with errno set. */
int spool_open(spool *s);

/* Copies everything written to s.out so far to dst, and empties s.
 * Returns 0, or -1 when the spool could not be written or read back
 * (errno set; a failure of dst itself shows in dst). */
int spool_copy(spool *s, jout *dst);

/* Closes and frees; safe on a zeroed or closed spool. */
void spool_close(spool *s);

#endif /* SPOOL_H */
