/*
 * thprof.h -- an HPROF encoder written from the specification (the
 * hprof agent's manual and AOSP's hprof.cc), for the importer's tests of
 * HotSpot dumps (test_import_hprof.c) and Android's
 * (test_import_android.c): the file header, top-level records, heap dump
 * segments and the heads of their sub-records. Identifiers are idsz
 * bytes (4 or 8), every number big-endian.
 */
#ifndef THPROF_H
#define THPROF_H

#include <stddef.h>
#include <stdint.h>

#include "tio.h"

typedef struct thprof {
    tbuf b;            /* the dump */
    unsigned idsz;     /* bytes an identifier takes: 4 or 8 */
    size_t seg_len_at; /* where the open heap dump segment's length is */
} thprof;

void thprof_u4(thprof *w, uint32_t v);
void thprof_u2(thprof *w, unsigned v);
void thprof_id(thprof *w, uint64_t v);

/* Starts w with the header of version (such as "JAVA PROFILE 1.0.2",
 * written with its NUL), identifiers of idsz bytes and the time in ms. */
void thprof_header(thprof *w, const char *version, unsigned idsz,
                   uint64_t time_ms);
/* A top-level record's tag, time 0 and length. */
void thprof_record(thprof *w, unsigned tag, uint32_t len);
/* A UTF8 record: string sid is text. */
void thprof_utf8(thprof *w, uint64_t sid, const char *text);
/* A LOAD CLASS record: class cid (serial 1, no stack) named by string name. */
void thprof_load_class(thprof *w, uint64_t cid, uint64_t name);
/* A HEAP DUMP SEGMENT whose length thprof_segment_close fills in. */
void thprof_segment_open(thprof *w);
void thprof_segment_close(thprof *w);

/* The head of a CLASS DUMP of class cid with an instance size of size:
 * its constant pool, statics and fields follow. */
void thprof_class_head(thprof *w, uint64_t cid, uint64_t super,
                       uint64_t loader, uint32_t size);
/* The head of an INSTANCE DUMP: len bytes of fields follow. */
void thprof_instance_head(thprof *w, uint64_t oid, uint64_t cid, uint32_t len);
/* The head of an OBJECT ARRAY DUMP of n elements of array class cid: the
 * n element ids follow. */
void thprof_objects_head(thprof *w, uint64_t oid, uint32_t n, uint64_t cid);
/* The head of a PRIMITIVE ARRAY DUMP of n elements of basic type t: their
 * bytes follow. */
void thprof_prims_head(thprof *w, uint64_t oid, uint32_t n, unsigned t);
/* A PRIMITIVE ARRAY DUMP of n elements of basic type t, their bytes at data. */
void thprof_prims(thprof *w, uint64_t oid, uint32_t n, unsigned t,
                  const void *data, size_t bytes);

#endif /* THPROF_H */
