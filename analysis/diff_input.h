/* diff_input.h -- one dump of a diff: reading it, and naming its classes.
 *
 * Reading turns each OBJECT record into (id, local kind, size) for a sink.
 * The local kind numbers the combination of the reader's class slot, and,
 * when asked for, type slot, site (file slot, line) and call stack (stack
 * slot) -- see tuples.h.
 * After the scan, input_resolve() maps local kinds to kinds shared by all
 * dumps (names instead of slots).
 *
 * Class names can change while a dump is read: a writer that meets an
 * object before its class writes the class as anonymous, then names it
 * later with a second CLASS record. An object's class is therefore its
 * class's final name. When the footer is readable (a complete, seekable
 * file) it gives every final name before the first record; otherwise the
 * name is the one known so far, and a class that is still anonymous or
 * undefined is "not final" -- its objects wait (DIFF_MATCH_DEFER) until the end
 * of the dump. */
#ifndef DIFF_INPUT_H
#define DIFF_INPUT_H

#include <stdint.h>

#include "dump_read.h"
#include "ident.h"
#include "nameid.h"
#include "diff_summary.h"
#include "tuples.h"

/* What a local kind holds besides the class (input_open's want). */
#define INPUT_TYPE 1u  /* the type */
#define INPUT_SITE 2u  /* the allocation site */
#define INPUT_STACK 4u /* the call stack (an object's identity) */
#define INPUT_FRAME 8u /* and its top frame (--by=frame) */
#define INPUT_IMEMO 16u /* a T_IMEMO's subtype, in the frame part */
#define INPUT_ISEQ 32u  /* an iseq's or Proc's code location, there too */
#define INPUT_LIFE 64u  /* keep the LIFESPAN records (format 1.2) */

/* A LIFESPAN record as read, before its names are known. */
typedef struct input_life {
    unsigned key;     /* HEAPFMT_LIFESPAN_* */
    uint32_t stack;   /* the reader's stack slot + 1 (0: none) */
    uint32_t file;    /* the reader's file string slot */
    uint64_t line;
    diff_life life;
} input_life;

typedef struct input {
    an_dump d;
    an_ctx *ctx;            /* failures, warnings, progress */
    const char *name;       /* for messages: the path or "(stdin)" */
    const diff_mem *mem;
    heapfmt_allocator alloc; /* the readers' view of mem */
    const heapfmt_footer *footer; /* NULL when not readable */
    int footer_names;       /* footer classes sorted by index: names usable */
    unsigned want;          /* INPUT_* bits */
    tuples lkinds;          /* (class slot, type slot, file slot+1, line) */
    uint32_t *slot_class;   /* class slot -> class name id, or UNSET */
    size_t nslot_class;
    uint32_t *slot_kind;    /* class slot -> local kind of its objects
                               without type and site, or UNSET */
    size_t nslot_kind;
    uint32_t *lkind_class;  /* local kind -> class name id or DIFF_MATCH_DEFER */
    size_t clkind_class;
    const heapfmt_rstack **slot_stack; /* stack slot -> the reader's stack */
    size_t nslot_stack;
    uint32_t *lkind_stack;  /* local kind -> stack name id (DIFF_NONE: no
                               stack), for the first nlkind_stack kinds */
    size_t nlkind_stack, clkind_stack;
    uint32_t *slot_stack_name; /* stack slot -> its name id, or UNSET: a
                                  stack is named once, not per kind */
    size_t cslot_stack_name;
    int lost_stacks;        /* some object's stack was never defined */
    cli_strmap codes;       /* INPUT_IMEMO, ISEQ: the names; a local kind's
                               frame part is its index + 1 (0: none) */
    input_life *life;       /* INPUT_LIFE: the LIFESPAN records read */
    size_t nlife, clife;
    int status;             /* AN_* of the scan */
    uint64_t objects;       /* objects read */
    uint64_t v8_sizeless;   /* objects of a V8 dump left out: size 0 */
    uint64_t with_site;     /* of which with an allocation site */
    uint64_t with_stack;    /* of which with a call stack */
    uint64_t with_code;     /* INPUT_IMEMO, ISEQ: of which with a name */
    ident id;               /* identity META, captured after the scan */
} input;

/* Opens path ("-" for standard input) and, when it is seekable and
 * complete, reads its footer; want (INPUT_* bits) says what the local
 * kinds hold besides the class. Returns AN_OK; AN_INCOMPLETE when the
 * input ends inside the file header (said through ctx): in then reads as
 * an incomplete dump without objects; or AN_ERROR with the reason on
 * ctx. */
int input_open(input *in, const char *path, const diff_mem *mem,
               unsigned want, an_ctx *ctx);

/* The object count of the footer, or 0 when unknown. */
uint64_t input_footer_objects(const input *in);

/* Receives each object. Returns 0, or nonzero to stop the scan. */
typedef int (*input_sink)(void *ctx, uint64_t id, uint32_t lkind,
                          uint64_t size);

/* Reads every record, skipping damaged blocks with a warning. Returns
 * AN_OK, AN_INCOMPLETE (warnings said), AN_ERROR (the message on
 * in->ctx: I/O error, out of memory...) or the sink's nonzero value. Also sets in->status and captures in->id. */
int input_scan(input *in, input_sink sink, void *ctx);

/* Brings in->lkind_class up to date for every local kind so far, with
 * class names as they are known now (final: all names are taken as
 * final, at the end of the dump). Interns the names in t. Returns 0 or -1
 * (no memory). */
int input_classes(input *in, cli_strmap *t, int final);

/* Brings in->lkind_stack up to date for every local kind so far: the name
 * id of its call stack (cli_stack.h), DIFF_NONE for none. A stack's name
 * does not change: a STACK record comes before the objects that use it.
 * Returns 0 or -1 (no memory). */
int input_stacks(input *in, cli_strmap *t);

/* The class of local kind lk (after input_classes): a name id, or
 * DIFF_MATCH_DEFER. */
static inline uint32_t input_class_of(const input *in, uint32_t lk)
{
    return in->lkind_class[lk];
}

/* Maps every local kind to a shared kind (class, type, file name id,
 * stack name id, line, frame or code name id) in kinds, with final names; the dump's objects must all have been
 * read (the local kinds' hash index is freed). Type DIFF_NONE is no type; file
 * DIFF_NONE is no site (a site's file is never DIFF_NONE). Stack (and
 * frame, with INPUT_FRAME) DIFF_NONE is no stack; with INPUT_IMEMO or
 * INPUT_ISEQ frame is the name, DIFF_NONE for none. On success *map is an array of
 * tuples_count(&in->lkinds) kind numbers, to be freed with diff_mem_free.
 * Returns 0, -1 (no memory) or -2 (too many kinds). */
int input_resolve(input *in, cli_strmap *t, tuples *kinds, uint32_t **map);

/* The LIFESPAN records read (INPUT_LIFE) that name what --by groups on
 * (by is DIFF_BY_SITE, DIFF_BY_STACK or DIFF_BY_FRAME; records for a
 * stack at a site count for neither), keyed by name ids as
 * summary_group_key keys rows, appended to *out (n entries, capacity
 * *cap, grown with the input's memory). Call before input_close. Returns
 * 0 or -1 (no memory). */
int input_lifespans(input *in, cli_strmap *t, unsigned by,
                    diff_life_entry **out, size_t *n, size_t *cap);

/* Closes the reader and frees the tables; keeps name, status, counts and
 * id. Safe to call twice. */
void input_close(input *in);

#endif /* DIFF_INPUT_H */
