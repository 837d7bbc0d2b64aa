/* trace.h -- reading a trace (spec 6.10): its events split by thread,
 * its MARKs, and how much of it could be read.
 *
 * The trace is read once, in file order, from a file or a pipe; each
 * EVENTS record's events go to their thread's stream in a temporary file
 * (chunks.h), so that the compiler can then walk every thread in its own
 * order with one record's worth of memory each. */
#ifndef REPLAY_TRACE_H
#define REPLAY_TRACE_H

#include <stdint.h>

#include "chunks.h"
#include "hf_common.h"

typedef struct trace_mark {
    uint64_t seq, time_us;
    uint64_t rss, peak, own;
} trace_mark;

typedef struct trace_thread {
    uint32_t number;
    uint64_t first_seq, last_seq, last_time;
    uint64_t events;
    chunklist chunks;
} trace_thread;

typedef struct trace {
    const char *name;      /* for messages: the path, or "(stdin)" */
    chunkfile file;
    trace_thread *threads; /* in order of their first record */
    size_t nthreads, cthreads;
    hf_map index; /* thread number -> index */
    trace_mark *marks;
    size_t nmarks, cmarks;
    uint64_t events;       /* kept: in order in their thread */
    uint64_t out_of_order; /* dropped: numbered at or below the thread's last */
    uint64_t max_seq, last_time_us;
    uint64_t meta_lost;    /* META trace.lost, when the trace says */
    int has_meta_lost;
    int incomplete;        /* cut or damaged: the reader's message in why */
    char why[300];
} trace;

/* Reads the trace at path ("-": standard input). Prints what is wrong
 * ("heapfmt-replay: FILE: message") and returns CLI_EXIT_ERROR when
 * nothing can be replayed (not a dump, no events, I/O); CLI_EXIT_OK, or
 * CLI_EXIT_INCOMPLETE for a trace whose readable part was read. */
int trace_read(trace *t, const char *path);
void trace_free(trace *t);

/* One thread's events in its order, one chunk in memory at a time. */
typedef struct trace_cursor {
    const trace *t;
    const trace_thread *th;
    size_t chunk;
    uint8_t *buf;
    size_t cap;
    const uint8_t *p, *end;
    uint64_t seq, time; /* the previous event's */
} trace_cursor;

void cursor_init(trace_cursor *c, const trace *t, const trace_thread *th);
/* The next event: 1, 0 at the end, -1 on an I/O error (errno). */
int cursor_next(trace_cursor *c, heapfmt_event *ev);
void cursor_free(trace_cursor *c);

#endif /* REPLAY_TRACE_H */
