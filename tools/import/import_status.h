/* import_status.h -- why a step of heapfmt-import stopped: one set of
 * causes for all its readers (the dump_all line scanner, the V8
 * tokenizer, the line and gzip readers, the HPROF reader). The reader
 * that returns one keeps the details (a message, an offset, errno) on
 * its own handle; the importer turns it into a diagnostic and an
 * import_result (import.h). */
#ifndef IMPORT_STATUS_H
#define IMPORT_STATUS_H

#include <stdio.h>

enum import_status {
    IMP_OK = 0,
    IMP_SYNTAX = 1,  /* not what the format has there: invalid JSON, a
                        token a V8 snapshot does not hold there */
    IMP_FIELD = 2,   /* valid JSON, but not a usable dump_all line */
    IMP_CUT = 3,     /* the input ends early (a snapshot or gzip stream) */
    IMP_READ = 4,    /* the read callback failed: the reader's sys_errno */
    IMP_NOMEM = 5,
    IMP_CORRUPT = 6, /* a damaged gzip stream */
    IMP_STOP = 7     /* the import stops; the reason is already reported */
};

/* Keeps a reader's first failure (status, errno, message of cap bytes)
 * and drops later ones, which follow from it: the line and gzip readers
 * report it once the data before it is out. */
static inline void import_status_keep(int *status, int *sys_errno,
                                      char *message, size_t cap, int st,
                                      int err, const char *msg)
{
    if (*status == IMP_OK) {
        *status = st;
        *sys_errno = err;
        snprintf(message, cap, "%s", msg);
    }
}

#endif /* IMPORT_STATUS_H */
