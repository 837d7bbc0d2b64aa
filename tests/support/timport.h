/*
 * timport.h -- heapfmt-import's importer run on bytes in memory, its
 * output written to a tsink and verified: the one runner of the importer
 * tests (test_import.c, and test_import_run.h for V8 and HPROF). Only
 * for tests of the import tool (they get -Itools/import).
 */
#ifndef TIMPORT_H
#define TIMPORT_H

#include <criterion/criterion.h>
#include <errno.h>

#include "heapfmt.h"
#include "import.h"
#include "tio.h"

/* How the input is read and the output written. */
typedef struct timport_how {
    int rereadable;             /* the input can be read again (rewind) */
    int policy;                 /* TSRC_*: the pieces it arrives in */
    uint64_t seed;              /* of TSRC_RANDOM's piece sizes */
    int level;                  /* the writer's compression level */
    unsigned long sink_fail_at; /* the sink's write that fails (ENOSPC); 0 none */
} timport_how;

static int timport_rewind(void *opaque)
{
    ((tsource *)opaque)->pos = 0;
    return 0;
}

/* Imports len bytes at data with options o (its rewind is set here) into
 * sink, which is initialised here, through a writer of 4096-byte blocks
 * (many, even for small inputs). Returns import_run's result; *finish is
 * the writer's finish when the import did not fail. An import's output
 * always verifies (issue 31). */
static int timport_run(tsink *sink, import_stats *st, int *finish,
                       const void *data, size_t len, const timport_how *how,
                       import_options *o)
{
    tsink_init(sink);
    if (how->sink_fail_at) {
        sink->fail_at = how->sink_fail_at;
        sink->fail_errno = ENOSPC;
    }
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = how->level;
    wo.block_size = 4096;
    heapfmt_writer *w = NULL;
    cr_assert_eq(heapfmt_writer_open(&w, &wo, tsink_write, sink), HEAPFMT_OK);
    tsource src;
    tsource_init(&src, data, len, how->policy, how->seed);
    o->rewind = how->rereadable ? timport_rewind : NULL;
    int result = import_run(w, tsource_read, &src, o, st);
    if (result != IMPORT_FAILED)
        *finish = heapfmt_writer_finish(w);
    heapfmt_writer_free(w);
    char why[512];
    int v = result != IMPORT_FAILED && *finish == HEAPFMT_OK
                ? tverify(sink->out.data, sink->out.len, why, sizeof why)
                : -1;
    cr_assert(v <= 0, "the imported dump does not verify: %s", why);
    return result;
}

#endif /* TIMPORT_H */
