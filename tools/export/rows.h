/* rows.h -- the rows format: one flat JSON row per record, every row of a
 * kind with the same columns, for SQL engines.
 *
 * The rows of one kind are one table. They load as they are, without a
 * transformation, into ClickHouse (INSERT ... FORMAT JSONEachRow), into
 * DuckDB (read_json / read_ndjson with the columns given) and into
 * MongoDB (mongoimport --type=json): every column is present in every
 * row, nothing is null, nothing is nested. docs/fleet.md is the schema's
 * manual, with its DDL and queries; in short, after the dump's identity
 * (identity.h) that starts every row:
 *
 *   objects     host pid time release id class type bytes refs file line
 *               generation flags frame
 *   references  host pid time release from_id to_id root label label_kind
 *               weak
 *   roots       host pid time release kind refs
 *   classes     host pid time release index id name super flags count
 *               bytes
 *   meta        host pid time release key value
 *
 * Conventions:
 *   - Integers are JSON numbers, exact up to 2^64-1 (ids included: both
 *     engines read them into UInt64 / UBIGINT; a reader that holds numbers
 *     in doubles rounds those above 2^53).
 *   - What the dump does not know is "" for text and 0 for numbers: an
 *     object without a type, file or stack; a string whose definition was
 *     lost; an unknown class id.
 *   - Text is valid UTF-8 (jout.h). Names repeated per row (class, type,
 *     file, frame, root kind, label) are cut at DOC_MAX_REPEATED bytes of
 *     the dump, META values at DOC_MAX_TEXT, without a flag: a table has
 *     no optional column.
 *   - frame is the allocation stack's top frame as histo --by=frame names
 *     it (cli_stack.h): "" for an object without a stack. */
#ifndef ROWS_H
#define ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"
#include "identity.h"
#include "jout.h"

/* Rendered members of names met before, by the slot of their string,
 * class or stack: most rows repeat a few class, type, file and frame
 * names, and copying a rendered member costs less than escaping it (or,
 * for frames, naming the stack's top frame) again. An entry keeps its
 * source text and is used only for the same text (for a frame, the same
 * stack): a slot's name may change as the dump goes on. */
typedef struct rows_memo_ent {
    const void *src;   /* the stack, for frames; NULL for texts */
    uint32_t src_off;  /* source text in the arena */
    uint32_t src_len;
    uint32_t out_off;  /* rendered member in the arena; out_len 0: empty */
    uint32_t out_len;
} rows_memo_ent;

typedef struct rows_memo {
    rows_memo_ent *ents;
    size_t nents;
    char *arena;
    size_t used, cap;
} rows_memo;

typedef struct rows {
    char *prefix;       /* {"host":...,"release":"...", */
    size_t prefix_len;
    rows_memo class_name, type, file, frame;
    void *frame_buf;    /* cli_buf for naming frames */
    uint64_t id_hi;     /* an id's digits above the last eight */
    char id_hi_text[JOUT_U64_MAX];
    uint8_t id_hi_len;
    uint8_t id_hi_valid;
} rows;

/* Renders the identity into w (zeroed first). Returns 0, or -1 out of
 * memory. */
int rows_init(rows *w, const ident *id);
void rows_free(rows *w);

/* One row, "{...}" without a newline. rows_object takes the display name
 * of the object's class (cli_names.h). rows_reference: from is the
 * holding object, or 0 with root_kind for a reference of a root. */
void rows_object(rows *w, jout *o, const heapfmt_robject *ob,
                 const char *class_name, size_t class_len);
void rows_reference(rows *w, jout *o, uint64_t from,
                    const heapfmt_rstring *root_kind, uint64_t to,
                    const heapfmt_rlabel *label);
void rows_root(rows *w, jout *o, const heapfmt_rroot *root);
void rows_class(rows *w, jout *o, const heapfmt_rclass *c, uint64_t count,
                uint64_t bytes);
void rows_meta(rows *w, jout *o, const heapfmt_rmeta *m);

/* The identity as members of a JSON document ("host":...,"release":...,
 * with a comma after each), for the ndjson (mongo 0) and MongoDB
 * Extended JSON (mongo 1: pid and time as Int64) documents. Stores a
 * malloc'd text in *out. Returns 0, or -1 out of memory. */
int rows_ident_members(const ident *id, int mongo, char **out, size_t *len);

#endif /* ROWS_H */
