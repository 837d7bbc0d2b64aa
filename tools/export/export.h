/* export.h -- the work of heapfmt-export, separate from its command line.
 *
 * export_dump() reads every record of an open dump once, in order, and
 * writes JSON documents to a jout as it goes: memory stays constant (one
 * output buffer, the reader's block, and per class two counters).
 *
 * Formats
 *   ndjson  one document per line (objects by default).
 *   mongo   the same, in MongoDB Extended JSON v2 with canonical Int64
 *           integers and a unique _id, ready for mongoimport --type json.
 *   rows    one flat row per record, a fixed schema per kind, for SQL
 *           engines (rows.h); one kind per export.
 *   pprof   a heap profile in pprof's profile.proto, gzip'd (pprof.h).
 *   json    one JSON value: {"format", "version", ["dump"], "objects",
 *           "roots", "edges", "classes", "meta", "complete"}, holding the
 *           selected kinds (objects, roots, classes and meta by default).
 *
 * Documents of objects, edges and roots are written in dump order while
 * reading; classes (with their final names and the export's own counts)
 * and meta (the last value of each key) after the last record. Objects
 * carry their class's final name when the footer can be read first (a
 * complete, seekable dump), else the name known when they were read. When more
 * than one kind goes to an ndjson or mongo stream, each document starts
 * with "record": "<kind>". */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdint.h>

#include "cli_dump.h"
#include "doc.h"
#include "identity.h"
#include "jout.h"
#include "records.h"

/* rows: flat rows of a fixed schema for SQL engines (rows.h); pprof: a
 * gzip'd profile.proto heap profile (pprof.h). */
enum export_format {
    EXPORT_NDJSON = 0,
    EXPORT_JSON = 1,
    EXPORT_MONGO = 2,
    EXPORT_ROWS = 3,
    EXPORT_PPROF = 4
};

typedef struct export_options {
    int format;         /* enum export_format */
    unsigned records;   /* RECORDS_* set; 0 = the format's default */
    const char *tag;    /* --dump-tag (checked with doc_tag_valid), or NULL */
    uint64_t max_refs;  /* references kept per object or root document */
    ident id;           /* --host, --pid, --time, --release (given bits) */
} export_options;

#define EXPORT_OPTIONS_INIT                                                 \
    { .format = EXPORT_NDJSON, .max_refs = DOC_DEFAULT_MAX_REFS,           \
      .id = IDENT_INIT }

/* The kinds a format writes when --records is not given. */
unsigned export_default_records(int format);

/* Parses a --format name; returns 0 and stores the format, or -1. */
int export_parse_format(const char *name, int *format);

/* Exports d to out (flushed before returning); out_name names the output
 * in messages. Returns an exit code:
 *   CLI_EXIT_OK          done; also when the output is a pipe whose reader
 *                        went away (EPIPE): the export stops quietly.
 *   CLI_EXIT_INCOMPLETE  the dump is truncated or damaged: everything
 *                        readable was exported, stderr says what was lost
 *                        (the json format ends with "complete": false).
 *   CLI_EXIT_ERROR       a write error (e.g. disk full), a read error or
 *                        out of memory; a message was printed.
 * d stays open; the caller closes it. */
int export_dump(cli_dump *d, const export_options *opt, jout *out,
                const char *out_name);

#endif /* EXPORT_H */
