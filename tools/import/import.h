/* import.h -- the work of heapfmt-import, separate from its command line.
 *
 * import_run() reads a V8 heap snapshot (v8.h) or, as described here, the
 * JSON lines of Ruby's ObjectSpace.dump_all; sniff.h tells them apart.
 * For dump_all, it reads the JSON lines of Ruby's ObjectSpace.dump_all (Ruby
 * 2.1 to 3.4, plain or gzip) through a read callback and writes the heap
 * they describe to a heapfmt writer: META first, then, line by line, a ROOT
 * record per "ROOT" line and an OBJECT record per object line, with CLASS
 * records for the classes (named when their own line gives a name). It
 * keeps only the class table and the writer's string table in memory.
 *
 * Field mapping (heapfmt-import(1), "Field mapping", has the full table):
 *   address -> id          class -> class (none for IMEMO and NODE)
 *   "T_" + type -> type    memsize -> size (see import_size)
 *   references -> refs     frozen + flags{...} -> flags
 *   file, line -> site     generation -> generation
 *   value (strings, symbols, floats), else struct (DATA), else imemo_type
 *   (IMEMO) -> value preview of at most opt.preview bytes
 *   CLASS/MODULE/ICLASS lines: also a class: name, superclass, module /
 *   singleton / iclass flags
 * Lines of type NONE and MOVED (free slots, "full: true" dumps) and SHAPE
 * (Ruby 3.3+ shape tree) are counted and skipped: they are not objects. */
#ifndef IMPORT_H
#define IMPORT_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

#include "heapfmt.h"
#include "lines.h"

/* Default bytes of a value kept in the preview. */
#define IMPORT_PREVIEW 64

/* Default count of problem lines reported one by one. */
#define IMPORT_MAX_REPORTS 20

/* Results of import_run. */
enum import_result {
    IMPORT_OK = 0,         /* every line imported */
    IMPORT_INCOMPLETE = 1, /* lines were skipped, or the input was cut: the
                              records written cover the rest; finish the
                              dump and say so */
    IMPORT_FAILED = 2      /* nothing usable, a read or write error, or a
                              problem with opt.strict: do not finish */
};

/* Kinds of diagnostics. */
enum import_diag {
    IMPORT_DIAG_ERROR = 0,  /* a line skipped, or why the import failed */
    IMPORT_DIAG_WARNING = 1 /* data lost or changed, import goes on */
};

/* Receives one diagnostic: line is the 1-based input line it is about, or
 * 0 for the input as a whole. msg is one line of text without a newline.
 * heapfmt-import prints "heapfmt-import: FILE:LINE: MSG". */
typedef void (*import_report_fn)(void *ctx, int kind, uint64_t line,
                                 const char *msg);

typedef struct import_options {
    int strict;            /* the first problem line fails the import */
    size_t max_line;       /* longest line accepted; 0 = 1 GiB */
    size_t buffer;         /* first line-buffer size; 0 = 1 MiB (it grows
                              to the longest line; the fuzz harness starts
                              small to reach the growth paths cheaply) */
    size_t preview;        /* value preview bytes, 0..JS_VALUE_MAX */
    unsigned max_reports;  /* problem lines reported one by one; more are
                              only counted (the summary gives the total) */
    const char *source;    /* META import.source (input name), or NULL */
    /* Optional: rewinds the input to its start (returns 0, or -1 with
     * errno set). With it, a first pass defines every class from its own
     * line before any object is written, so that readers streaming the
     * dump see class names from the first object on. Without it (pipes),
     * a class is named by a second CLASS record when its line comes after
     * objects that use it. */
    int (*rewind)(void *opaque);
    const char *jvm;       /* HPROF: the object layout (a model of
                              jvm_layout.h, by name); NULL: from the dump */
    unsigned hprof_dump;   /* HPROF: the heap dump to import (1-based) of a
                              file holding several; 0: the first */
    const char *hprof_heaps; /* HPROF of Android: the heaps whose objects
                              are written, "all" or names separated by
                              commas (hprof_android.h); NULL: "app" */
    int from;              /* enum sniff_kind: SNIFF_AUTO decides from
                              the first bytes (sniff.h) */
    int listed_indexes;    /* nonzero: index labels written one by one
                              (format 1.1), never implied by position
                              (1.3's HEAPFMT_F_INDEXED); the same labels */
    import_report_fn report; /* NULL: no diagnostics */
    void *report_ctx;
} import_options;

#define IMPORT_OPTIONS_INIT \
    { .preview = IMPORT_PREVIEW, .max_reports = IMPORT_MAX_REPORTS }

/* Formats a diagnostic into msg (cap bytes) and hands it to opt->report,
 * when there is one: the one way every importer (dump_all, V8, HPROF)
 * reports. Each defines say(m, kind, ...) over it with its own buffer. */
void import_say(const import_options *opt, char *msg, size_t cap, int kind,
                uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Reports "out of memory" about the input as a whole and returns
 * IMPORT_FAILED: for an importer that cannot even start. */
int import_nomem(const import_options *opt);

/* The writer's failure rc, as import_say reports it: "cannot write the
 * dump: " and the writer's message. */
const char *import_writer_message(heapfmt_writer *w, int rc);

typedef struct import_stats {
    uint64_t lines;           /* lines read */
    uint64_t objects;         /* OBJECT records written */
    uint64_t roots;           /* ROOT lines imported */
    uint64_t refs;            /* references written, objects and roots */
    uint64_t classes;         /* CLASS records written by the importer
                                 (named or described classes) */
    uint64_t free_slots;      /* NONE / MOVED lines skipped */
    uint64_t shapes;          /* SHAPE lines skipped */
    uint64_t malformed;       /* lines skipped: invalid JSON, unusable
                                 fields, too long, or refused by the writer */
    uint64_t first_malformed; /* line number of the first of them, or 0 */
    uint64_t refs_dropped;    /* references left out to fit format limits */
    uint64_t refs_left_out;   /* HPROF of Android: references to objects of
                                 the heaps left out (--heap), not written */
    int android;              /* HPROF: read as Android's (hprof_android.h) */
    int art_converted;        /* HPROF: an Android dump hprof-conv converted,
                                 recognised by a first pass */
    int truncated;            /* the input ends inside a line, or the gzip
                                 stream is cut or damaged */
    int gzip;                 /* the input was gzip */
    int two_pass;             /* classes were defined by a first pass */
    uint64_t bytes_read;      /* input bytes (compressed if gzip) */
    uint64_t bytes_json;      /* input bytes after gunzip: JSON, or HPROF */
    int kind;                 /* enum sniff_kind: what the input was */
    uint64_t ids_renamed;     /* objects that repeated an earlier id, given
                                 a new one (unique_ids.h) */
    uint64_t first_repeated;  /* the first repeated id */
    struct unique_ids *ids;   /* during import_run: the ids written, which
                                 fit_write_object keeps unique; NULL when
                                 the importer makes them unique itself */
} import_stats;

/* Imports through read (see lines.h) into w, which must be freshly opened;
 * does not call heapfmt_writer_finish(). opt may be NULL for defaults; st
 * may be NULL. Returns an enum import_result; diagnostics go to
 * opt->report. On IMPORT_FAILED caused by the writer, the writer's error
 * detail says more (and was reported). */
int import_run(heapfmt_writer *w, lr_read_fn read, void *opaque,
               const import_options *opt, import_stats *st);

/* The size recorded for an object line (exposed for the tests):
 *   memsize, when present (Ruby 2.2+ counts the slot in it); when it is
 *     smaller than the slot (Ruby 2.1 did not count the slot), memsize plus
 *     the slot;
 *   without memsize: the slot, plus capacity + 1 (or bytesize + 1) for a
 *     string that is neither embedded nor shared.
 * The slot is slot_size when the line has it (Ruby 3.2+), else 40 bytes
 * (a 64-bit RVALUE). */
struct js_line;
uint64_t import_size(const struct js_line *l);

#endif /* IMPORT_H */
