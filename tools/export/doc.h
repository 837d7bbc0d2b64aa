/* doc.h -- one JSON document per record, in plain JSON or MongoDB
 * Extended JSON.
 *
 * Each function writes exactly one JSON object ("{...}", no newline) to a
 * jout; the caller frames documents into lines or arrays. heapfmt-export(1)
 * describes every field; in short:
 *
 *   object  id class type bytes refs [refs_count refs_truncated]
 *           [ref_labels [ref_labels_truncated]] [value [value_truncated]]
 *           [file line] [generation] [flags] [stack [stack_truncated]]
 *   edge    from to [label label_kind] [weak]  (held by an object)
 *           root to [label label_kind] [weak]  (held by a root)
 *   root    kind refs [refs_count refs_truncated]
 *           [ref_labels [ref_labels_truncated]]
 *   class   index id name super flags count bytes
 *   meta    key value
 *
 * Conventions, the same in every format:
 *   - Object ids are strings: "0x" and 16 lower-case hex digits, so no
 *     JSON reader loses precision, string order is numeric order, and the
 *     text matches the ids in anonymous class names.
 *   - Text is valid UTF-8 (see jout.h) and at most DOC_MAX_TEXT bytes of
 *     the dump's bytes; longer text is cut (a value says value_truncated).
 *     Names repeated per document (class, type, file; a root's kind) are
 *     cut at DOC_MAX_REPEATED bytes, and class_truncated, type_truncated,
 *     file_truncated, kind_truncated or root_truncated: true say so.
 *   - Plain JSON: integers are numbers up to 2^53-1, the largest every
 *     JSON reader holds exactly; a larger value (never a real size or line)
 *     is written as a decimal string.
 *   - MongoDB (Extended JSON v2, canonical integers): every integer is an
 *     Int64, {"$numberLong":"N"}; an unsigned value above 2^63-1 becomes
 *     {"$numberDecimal":"N"} (exact), except flags, which keep their 64
 *     bits as a two's complement Int64 so that $bitsAllSet works. Every
 *     document has a unique _id (see doc_style.tag).
 *   - Object and root documents keep at most max_refs references;
 *     refs_count and refs_truncated: true then tell the real count. Edge
 *     documents always carry every reference.
 *   - Labels (format 1.1) appear only for records that have them, so a
 *     dump without labels or stacks exports as it did before: ref_labels
 *     is parallel to refs, one element per kept reference, null for a
 *     reference without label, else {"label", "label_kind"[, "weak"]}
 *     (or just {"weak": true}). label is the name (a string), or for kind
 *     "index" the index. stack holds one {"function", "library", "offset",
 *     "file", "line"} per frame, innermost first, each member present only
 *     when known. ref_labels and stack of one document share a budget of
 *     DOC_MAX_EXTRAS (the stack up to DOC_MAX_STACK of it, the labels the
 *     rest);
 *     what does not fit is left out and
 *     ref_labels_truncated / stack_truncated: true say so. */
#ifndef DOC_H
#define DOC_H

#include <stdint.h>

#include "heapfmt.h"
#include "jout.h"

/* Text longer than this many input bytes is cut. With the defaults below
 * the largest possible MongoDB document stays under 16 MiB: four texts
 * (value, class, type, file) of 1 MiB of invalid bytes become 3 MiB each,
 * and 100,000 references take 30 bytes each in BSON. */
#define DOC_MAX_TEXT (1u << 20)
#define DOC_DEFAULT_MAX_REFS 100000u
#define DOC_MONGO_MAX_REFS 100000u

/* Label names and the texts of stack frames are cut at this many input
 * bytes: a label's name repeats in every edge and every document whose
 * reference it labels, a frame's in every document of its stack (4 KiB
 * before issue 31; the longest C++ frame names of a real heap stay under
 * it). */
#define DOC_MAX_NAME 256u

/* Texts that repeat from one document to the next -- the class, type and
 * file names of objects, the kind of a root in each of its edges -- are
 * cut at this many input bytes, and "<member>_truncated": true follows:
 * a dump of a few long names cannot make the output grow by their length
 * times the number of objects or edges. Every document is then at most a
 * constant plus a multiple of the bytes of its own record (1 KiB before
 * issue 31; the tools' tables cut names at the same length,
 * CLI_NAME_MAX). */
#define DOC_MAX_REPEATED 256u

/* The most a stack may add to one object document, in bytes of BSON
 * counted as for DOC_MAX_EXTRAS (3 per byte of text): about 80 frames of
 * usual names, at most 32 KiB of JSON (a text of control bytes takes 6
 * bytes a byte). A stack repeats in every document of its objects, so
 * this, not the dump, bounds what a document of a few bytes of record
 * can cost (half of DOC_MAX_EXTRAS, 500 KB, before issue 31: 2,000
 * objects of one deep stack made 344 MB of a 1.6 MB dump). The whole
 * stacks are in histo --by=stack and -f folded. */
#define DOC_MAX_STACK (16u << 10)

/* The most that ref_labels and stack may add to one object or root
 * document, in bytes of BSON (each element is counted at its largest:
 * every text byte as 3 bytes of U+FFFD). With the texts and references
 * above (at most about 15.6 MB) a MongoDB document stays under 16 MiB. */
#define DOC_MAX_EXTRAS 1000000u

/* Longest dump tag, and its characters: [A-Za-z0-9._-]. */
#define DOC_MAX_TAG 64

/* Members written before, with the text they came from: an object's
 * class and type names repeat in document after document, and comparing
 * a short name costs less than escaping it again. Direct-mapped by the
 * name's length and first bytes; names of up to DOC_MEMO_RAW bytes whose
 * member fits DOC_MEMO_OUT bytes are kept. */
#define DOC_MEMO_SLOTS 64
#define DOC_MEMO_RAW 32
#define DOC_MEMO_OUT 64

typedef struct doc_memo_slot {
    uint8_t raw_len;  /* of raw */
    uint8_t out_len;  /* of out; 0: the slot is empty */
    char raw[DOC_MEMO_RAW];
    char out[DOC_MEMO_OUT]; /* ,"key":"escaped text" */
} doc_memo_slot;

/* Label elements written before: an instance variable's name or a hash
 * key repeats in object after object. Keyed by kind, weak flag and the
 * name's string id (a dump defines each id once, so the id stands for
 * the text). Index labels are not kept: they are written as they come,
 * a number between two constants. */
#define DOC_LABEL_SLOTS 256
#define DOC_LABEL_OUT 96

typedef struct doc_label_slot {
    uint32_t name;    /* string id of the name */
    uint8_t kind;     /* enum heapfmt_label_kind */
    uint8_t weak;
    uint8_t out_len;  /* of out; 0: the slot is empty */
    char out[DOC_LABEL_OUT]; /* {"label":"...","label_kind":"..."} */
} doc_label_slot;

typedef struct doc_memo {
    doc_memo_slot class_name[DOC_MEMO_SLOTS];
    doc_memo_slot type[DOC_MEMO_SLOTS];
    doc_label_slot label[DOC_LABEL_SLOTS];
} doc_memo;

typedef struct doc_style {
    int mongo;          /* Extended JSON v2 with _id */
    const char *tag;    /* dump tag or NULL: adds "dump", prefixes _id */
    int record_field;   /* write "record": "<kind>" first */
    uint64_t max_refs;  /* references kept in object and root documents */
    doc_memo *memo;     /* or NULL: names escaped every time */
    const char *ident;  /* or NULL: the dump's identity as members, each
                           with its comma, written after "dump" */
    size_t ident_len;
} doc_style;

/* Checks a dump tag: 1..DOC_MAX_TAG characters of [A-Za-z0-9._-]. */
int doc_tag_valid(const char *tag);

/* The references of a record as the reader decoded them: nrefs ids (ids
 * may be NULL when nrefs is 0) and, when the record has labels
 * (heapfmt_reader_labels returned nrefs), one label per id, else labels is
 * NULL. */
typedef struct doc_refs {
    const uint64_t *ids;
    const heapfmt_rlabel *labels;
    uint64_t n;
    uint32_t repeat; /* MongoDB: 0 or 1 for the first object with its id;
                        n > 1 for the nth, whose _id ends in "#n" */
} doc_refs;

/* An object with its references, and the display name of its class
 * (cli_names.h; len bytes). Its stack, if any, is ob->stack. */
void doc_object(jout *o, const doc_style *st, const heapfmt_robject *ob,
                const char *class_name, size_t class_len,
                const doc_refs *refs);

/* The reference number k (0-based) of object from, to object to, with its
 * label (NULL for none); repeat as in doc_refs. */
void doc_edge(jout *o, const doc_style *st, uint64_t from, uint32_t repeat,
              uint64_t k, uint64_t to, const heapfmt_rlabel *label);

/* The reference number k of ROOT record number root_no (0-based, in dump
 * order), of kind kind, with its label (NULL for none). */
void doc_root_edge(jout *o, const doc_style *st, const heapfmt_rstring *kind,
                   uint64_t root_no, uint64_t k, uint64_t to,
                   const heapfmt_rlabel *label);

/* ROOT record number root_no with its references. */
void doc_root(jout *o, const doc_style *st, const heapfmt_rroot *root,
              uint64_t root_no, const doc_refs *refs);

/* A class as the reader knows it at the end of the dump, with the number
 * and total size of the objects of that class that were exported. */
void doc_class(jout *o, const doc_style *st, const heapfmt_rclass *c,
               uint64_t count, uint64_t bytes);

/* One META pair as {"key": ..., "value": ...}. */
void doc_meta(jout *o, const doc_style *st, const heapfmt_rmeta *m);

/* Just the value of a META pair (for the json format's "meta" object). */
void doc_meta_value(jout *o, const doc_style *st, const heapfmt_rmeta *m);

/* An unsigned count in the style's integer representation. */
void doc_count(jout *o, const doc_style *st, uint64_t v);

#endif /* DOC_H */
