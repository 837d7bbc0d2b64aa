/*
 * tmodel.h -- a model of heapfmt records for round-trip tests.
 *
 * tmodel_* functions write a record through a heapfmt_writer and, when the
 * writer accepts it, append the record(s) the reader must deliver for it
 * to an expected list, mirroring the writer's string and class tables (the
 * spec fixes the numbering: ids and indexes 1, 2, 3... in order; a class
 * name is interned like any string; an unknown object class id defines an
 * anonymous class on the fly).
 *
 * tcapture_* read a dump through a heapfmt_reader and deep-copy every
 * record delivered into the same representation, so that lists can be
 * compared field by field (treclist_compare).
 */
#ifndef TMODEL_H
#define TMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"
#include "tio.h"

/* A string as delivered: id 0 is "none". undefined mirrors the reader's
 * flag (a string id whose STRING record was lost). */
typedef struct tstr {
    uint32_t id;
    char *ptr; /* owned, NUL-terminated; NULL when len == 0 */
    size_t len;
    int undefined;
} tstr;

/* A class as delivered (index 0: no class). named is 0 for anonymous. */
typedef struct tcls {
    uint32_t index;
    uint64_t id;
    uint64_t super_id;
    uint64_t flags;
    int named;
    tstr name;
    int undefined;
} tcls;

typedef struct trec {
    int tag;
    uint64_t index;  /* captured: heapfmt_record.index; model: position */
    uint64_t offset; /* captured: heapfmt_record.offset; model: 0 */
    /* META */
    char *key;
    int mtype;
    uint64_t uval;
    int64_t ival;
    /* META text (id 0) or STRING */
    tstr text;
    /* CLASS, or the class of an OBJECT as known when it was delivered */
    tcls cls;
    /* OBJECT */
    uint64_t id, size, flags, line, generation;
    uint32_t fields;
    tstr type, file;
    char *value;
    size_t value_len;
    /* OBJECT and ROOT */
    uint64_t *refs;
    size_t nrefs;
    int refs_rc; /* captured: heapfmt_reader_refs result when it failed */
    /* ROOT */
    tstr kind;
    /* END */
    uint64_t objects, bytes, records;
} trec;

typedef struct treclist {
    trec *v;
    size_t n;
    size_t cap;
} treclist;

trec *treclist_push(treclist *l); /* zeroed new entry */
void treclist_free(treclist *l);

/* Comparison flags */
#define TCMP_INDEX 0x01u /* also compare trec.index */
#define TCMP_LOOSE 0x02u /* got's undefined strings/classes match by id only */

/* Compares n records exp->v[ei..] with got->v[gi..]. Returns 0 when equal,
 * else -1 with a description of the first difference in why. */
int treclist_compare(const treclist *exp, size_t ei, const treclist *got,
                     size_t gi, size_t n, unsigned flags, char *why,
                     size_t whylen);
/* Whole lists: same length and same records. */
int treclist_equal(const treclist *exp, const treclist *got, unsigned flags,
                   char *why, size_t whylen);

/* ---- footer copy ------------------------------------------------------- */

typedef struct tsummary {
    uint32_t index;
    uint64_t id, flags, count, bytes;
    int named;
    char *name;
    size_t name_len;
} tsummary;

typedef struct tfooter {
    heapfmt_totals totals;
    size_t nblocks;
    heapfmt_block_entry *blocks;
    size_t nclasses;
    tsummary *classes;
} tfooter;

void tfooter_copy(tfooter *dst, const heapfmt_footer *src);
void tfooter_free(tfooter *f);
int tfooter_equal(const tfooter *a, const tfooter *b, char *why,
                  size_t whylen);

/* ---- the model ---------------------------------------------------------- */

typedef struct tmodel {
    treclist exp;
    tstr *strings; /* by id - 1 */
    size_t nstrings, capstrings;
    tcls *classes; /* by index - 1 */
    size_t nclasses, capclasses;
    uint64_t *class_count; /* by index (0 = no class) */
    uint64_t *class_bytes;
    uint64_t objects, bytes, roots;
    int finished;
    int bad;       /* the writer did something the model did not predict */
    char why[256]; /* what */
} tmodel;

void tmodel_init(tmodel *m);
void tmodel_free(tmodel *m);

/* Each calls the writer function of the same name and returns its result;
 * on HEAPFMT_OK the expected records are appended. */
int tmodel_meta_text(tmodel *m, heapfmt_writer *w, const char *key,
                     const char *value);
int tmodel_meta_uint(tmodel *m, heapfmt_writer *w, const char *key,
                     uint64_t value);
int tmodel_meta_int(tmodel *m, heapfmt_writer *w, const char *key,
                    int64_t value);
int tmodel_string(tmodel *m, heapfmt_writer *w, const char *s, size_t len,
                  uint32_t *id);
int tmodel_class(tmodel *m, heapfmt_writer *w, const heapfmt_class *c);
int tmodel_object(tmodel *m, heapfmt_writer *w, const heapfmt_object *o);
int tmodel_root(tmodel *m, heapfmt_writer *w, uint32_t kind,
                const uint64_t *ids, size_t n);
int tmodel_finish(tmodel *m, heapfmt_writer *w);

/* Writes a pseudo-random sequence (metas, strings, named, anonymous and
 * redefined classes, objects with every field combination, roots, the odd
 * flush) of about nops operations. Stops at the first writer error and
 * returns it. Does not finish. */
int tmodel_generate(tmodel *m, heapfmt_writer *w, uint64_t seed, size_t nops);

/* Index of the class with this id, 0 if unknown. */
uint32_t tmodel_class_index(const tmodel *m, uint64_t id);

/* Checks a footer against the model (totals, block index sums, summary
 * per class with final names). Returns 0 or -1 with why. */
int tmodel_check_footer(const tmodel *m, const tfooter *f, char *why,
                        size_t whylen);

/* Convenience: writes a generated dump to memory (writer options opt, may
 * be NULL), finishes it, and returns HEAPFMT_OK or the first error. The
 * bytes are in out (caller frees with tbuf_free). */
int tmodel_make_dump(tmodel *m, const heapfmt_writer_options *opt,
                     uint64_t seed, size_t nops, tbuf *out);

/* ---- capturing a reader's output ---------------------------------------- */

typedef struct tevent {
    int rc;            /* a non-OK result of heapfmt_reader_next */
    heapfmt_error err; /* heapfmt_reader_error() right after it */
    size_t delivered;  /* records delivered before it */
} tevent;

#define TCAP_MAX_EVENTS 64

typedef struct tcapture {
    treclist recs;
    int open_rc;
    heapfmt_error open_err;
    int rc;            /* final result: HEAPFMT_DONE or an error */
    heapfmt_error err; /* reader error after the final result */
    tevent events[TCAP_MAX_EVENTS];
    size_t nevents;
    int footer_rc;     /* heapfmt_reader_footer after DONE */
    int have_footer;
    tfooter footer;
    int major, minor;
    int weird;         /* a contract violation noticed while reading */
    char why[256];
} tcapture;

/* Reads every record of r into c. On HEAPFMT_E_CORRUPT continues when
 * keep_going (at most TCAP_MAX_EVENTS times); stops at DONE or any other
 * result. After DONE, fetches the footer. Does not free r. */
void tcapture_run(tcapture *c, heapfmt_reader *r, int keep_going);

/* Opens a reader over data through a tsource (policy, seed, seekable),
 * captures, frees the reader. */
void tcapture_source(tcapture *c, const void *data, size_t len, int policy,
                     uint64_t seed, int seekable, int keep_going);
/* Same through heapfmt_reader_open_memory. */
void tcapture_memory(tcapture *c, const void *data, size_t len,
                     int keep_going);
/* Same through heapfmt_reader_open_fd. */
void tcapture_fd(tcapture *c, int fd, int keep_going);

void tcapture_free(tcapture *c);

/* Copies a record delivered by the reader (calls heapfmt_reader_refs). */
void trec_from_record(trec *t, heapfmt_reader *r, const heapfmt_record *rec);
void trec_clear(trec *t);

const char *ttag_name(int tag);
const char *tstatus_name(int status);

#endif
