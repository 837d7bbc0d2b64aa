/* dump_read.h -- open a dump and read its records, for the engines.
 *
 * The reading half of what every reading tool shares: nothing is printed.
 * A failed open or read is a status with the message on the an_ctx
 * (status.h), e.g. "missing.dump: No such file or directory"; a skipped
 * corrupt block, a cut end and ids used before their definition are
 * warnings through its hook. tools/common's cli_dump.h is the printing
 * wrapper the other tools call. */
#ifndef ANALYSIS_DUMP_READ_H
#define ANALYSIS_DUMP_READ_H

#include "cli_undefined.h"
#include "heapfmt.h"
#include "status.h"

typedef struct an_dump {
    const char *path;       /* as given on the command line */
    const char *name;       /* for messages: the path, or "(stdin)" */
    int fd;                 /* -1 when closed */
    heapfmt_reader *reader; /* NULL when closed */
    cli_undefined undef;    /* ids used but not defined before: the scan
                               counts them, a tool that decodes labels
                               adds theirs (cli_undefined_labels) */
} an_dump;

/* Opens path ("-" for standard input) and reads the file header. opt may
 * be NULL. Returns AN_OK with d filled, or AN_ERROR (AN_INCOMPLETE when
 * the input ends inside the file header) with the reason on c; d is then
 * closed. */
int an_dump_open(an_dump *d, const char *path,
                 const heapfmt_reader_options *opt, an_ctx *c);

/* Frees the reader and closes the file; safe on a closed an_dump. */
void an_dump_close(an_dump *d);

/* The reader's message for a call that returned rc: its own when its
 * last error is rc's, else heapfmt_strerror(rc). r may be NULL. */
const char *an_reader_message(const heapfmt_reader *r, int rc);

/* Sets the reader's last error, for a call that returned rc, as c's
 * message about d; returns an_dump_status(rc). */
int an_dump_fail(an_ctx *c, const an_dump *d, int rc);

/* The status of a reader failure: AN_INCOMPLETE for HEAPFMT_E_TRUNCATED,
 * else AN_ERROR (HEAPFMT_E_VERSION and HEAPFMT_E_UNSUPPORTED alike: a
 * dump, or a block codec, this build cannot read). */
int an_dump_status(int rc);

/* Called for each record. Return 0 to go on; any other value stops the
 * scan, which returns it (with rep->stopped set). */
typedef int (*an_scan_fn)(void *user, heapfmt_reader *r,
                          const heapfmt_record *rec);

/* How read errors are met. */
enum an_scan_policy {
    AN_SCAN_KEEP_GOING, /* skip corrupt blocks (a warning each), end a cut
                           or damaged dump with AN_INCOMPLETE */
    AN_SCAN_STRICT      /* verification: the first damage ends the scan
                           with an_dump_fail's message and status */
};

/* What a scan met: corrupt blocks skipped, what ended it (HEAPFMT_DONE,
 * or the reader's status), whether the callback stopped it. */
typedef struct an_scan_report {
    uint64_t skipped;
    int end;
    int stopped;
} an_scan_report;

/* Reads d to its end. Returns AN_OK for a complete dump, AN_INCOMPLETE
 * (after warnings) when blocks were lost or the dump was cut, AN_ERROR
 * (message on c) for an I/O error, out of memory, a limit or a block
 * codec this build cannot decode, or the callback's nonzero value. rep
 * may be NULL. */
int an_scan_with(an_dump *d, enum an_scan_policy policy, an_scan_fn fn,
                 void *user, an_scan_report *rep, an_ctx *c);

/* an_scan_with, keeping going. */
int an_scan(an_dump *d, an_scan_fn fn, void *user, an_ctx *c);

#endif /* ANALYSIS_DUMP_READ_H */
