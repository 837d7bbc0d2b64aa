/* cli_undefined.h -- ids a record uses that no record defined before it.
 *
 * The spec (6.2-6.9) puts every definition before its first use: a STRING
 * before the first record using its id, a CLASS before the first OBJECT of
 * its index, a FRAME before the first STACK using it, a STACK before the
 * first OBJECT or LIFESPAN using it. A reader meets an id used before (or
 * without) its definition as an "undefined" table entry: the tools show a
 * placeholder for it (#<undefined string 7>, #<Class:index 5>,
 * #<undefined frame 3>). Such a dump breaks a MUST of the spec: heapfmt-info --verify rejects it,
 * and every reader says so once, at the end of its reading, with exit 3
 * (analysis/dump_read.c), so that no placeholder is shown silently. */
#ifndef CLI_UNDEFINED_H
#define CLI_UNDEFINED_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* What an undefined id names. */
enum cli_undef_kind {
    CLI_UNDEF_STRING,
    CLI_UNDEF_CLASS,
    CLI_UNDEF_FRAME,
    CLI_UNDEF_STACK
};

/* One use: the kind and id, and the role the id plays in the record, for
 * messages ("type string", "class index"...). */
typedef struct cli_undef_use {
    int kind; /* enum cli_undef_kind */
    uint32_t id;
    uint32_t slot; /* the reader's dense slot of the entry */
    const char *role;
} cli_undef_use;

typedef void (*cli_undef_fn)(void *ctx, const heapfmt_record *rec,
                             const cli_undef_use *use);

/* Calls fn for every id rec uses (OBJECT: class, type, file, stack;
 * CLASS: name; ROOT: kind; FRAME: function, library, file; STACK: frames;
 * LIFESPAN: stack, file)
 * that its reader has not seen defined. (A class's name is the CLASS
 * record's use, not its objects'.) Labels are decoded on demand:
 * cli_undefined_labels. Returns the number of calls. */
size_t cli_undefined_each(const heapfmt_record *rec, cli_undef_fn fn,
                          void *ctx);

/* Whether rec may use an undefined id: cli_undefined_each's answer for an
 * OBJECT, the record of every loop, in a few loads of entries already in
 * cache (the loops call cli_undefined_each only then). */
static inline int cli_undefined_maybe(const heapfmt_record *rec)
{
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 1;
    const heapfmt_robject *o = rec->u.object;
    if (o->klass->undefined | o->type->undefined)
        return 1;
    uint32_t f = o->fields;
    if (!(f & (HEAPFMT_F_SITE | HEAPFMT_F_STACK)))
        return 0;
    return ((f & HEAPFMT_F_SITE) && o->file->undefined) ||
           ((f & HEAPFMT_F_STACK) && o->stack != NULL && o->stack->undefined);
}

/* The same for the labels of the record (n of them, from
 * heapfmt_reader_labels): every label name string not defined. */
size_t cli_undefined_labels(const heapfmt_record *rec,
                            const heapfmt_rlabel *labels, size_t n,
                            cli_undef_fn fn, void *ctx);

/* The name of a use's kind's record: "STRING", "CLASS", "FRAME", "STACK". */
const char *cli_undef_record_name(int kind);

/* "record 12 (object 0x10000)" / "record 3 (ROOT)": where a use is, into
 * buf. Returns buf. */
const char *cli_undef_where(const heapfmt_record *rec, char *buf, size_t cap);

/* What a reading met: the count of uses and the first, described. */
typedef struct cli_undefined {
    uint64_t count;
    char first[192];
} cli_undefined;

/* A cli_undef_fn that counts into a cli_undefined (ctx). */
void cli_undefined_note(void *ctx, const heapfmt_record *rec,
                        const cli_undef_use *use);

#endif /* CLI_UNDEFINED_H */
