/* allocators.h -- the allocators a trace is replayed under, and one
 * replay under each in a child of its own (run.h).
 *
 * A spec is NAME[:VAR=VALUE]...: NAME is glibc, jemalloc, tcmalloc,
 * mimalloc (Debian's libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0,
 * found by soname as the loader finds libraries) or the path of a shared
 * object that defines malloc; each VAR=VALUE is set in the child's
 * environment (glibc:MALLOC_ARENA_MAX=2, jemalloc:MALLOC_CONF=...). */
#ifndef REPLAY_ALLOCATORS_H
#define REPLAY_ALLOCATORS_H

#include <stddef.h>
#include <stdint.h>

#include "compile.h"

typedef struct alloc_spec {
    char *label;   /* as given */
    char *preload; /* soname or path for LD_PRELOAD; NULL for glibc */
    char *expect;  /* run.h's RUN_EXPECT_ENV */
    char **env;    /* VAR=VALUE strings */
    size_t nenv;
    int known;     /* one of the four names */
} alloc_spec;

/* Parses a comma-separated list into *specs. Prints a usage error and
 * returns -1 for a bad spec (an unknown name that is no path, a path
 * that is not a file, VAR=VALUE without '='). */
int alloc_parse(const char *list, alloc_spec **specs, size_t *n);
void alloc_free(alloc_spec *specs, size_t n);
/* Frees what one spec holds. */
void alloc_clear(alloc_spec *a);

/* 1 when a known allocator's library is installed (the default list
 * leaves out those that are not). */
int alloc_installed(const alloc_spec *a);

enum run_status {
    RUN_OK,         /* the replay ran to its end */
    RUN_MISSING,    /* the library could not be loaded */
    RUN_NOT_MALLOC, /* it loads, but malloc is not its */
    RUN_CRASHED,    /* killed by a signal */
    RUN_OVER_LIMIT, /* resident memory passed --max-memory */
    RUN_TIMEOUT,    /* --timeout passed */
    RUN_FAILED      /* anything else: why says */
};

typedef struct mark_result {
    int seen;
    uint64_t rss, peak, alloc_ns, elapsed_ns;
    int64_t live;
} mark_result;

typedef struct alloc_result {
    enum run_status status;
    char why[512];
    mark_result *marks; /* per MARK of the trace */
    size_t marks_seen;
    int ended;          /* the E line came */
    uint64_t rss, peak, alloc_ns, calls, failed, substituted, elapsed_ns;
    int64_t live;
} alloc_result;

typedef struct run_opts {
    uint64_t max_rss;  /* 0: none */
    unsigned timeout;  /* seconds, 0: none */
} run_opts;

/* Replays c under a in a child; fills r (r->marks has nmarks entries).
 * Returns 0, or -1 when the replay could not be started at all (out of
 * memory, fork), after a message. */
int alloc_run(const alloc_spec *a, const compiled *c, size_t nmarks,
              const run_opts *o, alloc_result *r);
void alloc_result_free(alloc_result *r);

#endif /* REPLAY_ALLOCATORS_H */
