/* records.h -- which kinds of documents heapfmt-export writes.
 *
 * --records takes a comma-separated list of kinds, or "all":
 *
 *   objects   one document per OBJECT record
 *   edges     one document per reference, of objects and of roots
 *   roots     one document per ROOT record
 *   classes   one document per class (final names, with counts)
 *   meta      one document per META key (the last value wins)
 *
 * In the documents themselves (the "record" field) a kind is named in the
 * singular: object, edge, root, class, meta. */
#ifndef RECORDS_H
#define RECORDS_H

enum records_kind {
    RECORDS_OBJECTS = 0x01,
    RECORDS_EDGES = 0x02,
    RECORDS_ROOTS = 0x04,
    RECORDS_CLASSES = 0x08,
    RECORDS_META = 0x10,
    RECORDS_ALL = 0x1f
};

/* Parses a --records argument into a set of RECORDS_* bits. Returns 0, or
 * -1 for an empty list, an empty item or an unknown name (*bad then points
 * at the offending item within arg, up to the next comma). */
int records_parse(const char *arg, unsigned *out, const char **bad,
                  int *bad_len);

/* The singular name of one kind ("object"), for the "record" field. */
const char *records_kind_name(unsigned kind);

/* Nonzero when set holds more than one kind. */
int records_several(unsigned set);

/* The accepted names, for messages: "objects, edges, roots, ..." */
#define RECORDS_NAMES "objects, edges, roots, classes, meta, all"

#endif /* RECORDS_H */
