/* jscan.h -- a fast, validating scanner for ObjectSpace.dump_all lines.
 *
 * One call checks one line of JSON completely (RFC 8259 syntax, UTF-8,
 * escapes, nesting) without building a tree, and extracts the fields the
 * importer uses into a js_line. It allocates only when a line needs more
 * room than any line before (the reference array, unescaped text), never
 * per line.
 *
 * What it accepts is what jansson's json_loadb(line, len, JSON_ALLOW_NUL)
 * accepts, with one deliberate difference: numbers are checked for syntax
 * only, so an integer beyond the int64 range or a real beyond the double
 * range (which jansson refuses as "too big") is valid JSON here. A field the
 * importer reads as a number must still fit in 64 bits unsigned.
 * tests/test_import_scan.c holds the scanner to jansson on many lines.
 *
 * Field extraction. The scanner knows the keys of dump_all lines from Ruby
 * 2.1 to 3.4 that the importer uses; every other key is validated and
 * skipped. Keys may appear in any order; when a key appears twice, the last
 * one wins (as in jansson). A known key whose value has the wrong JSON type
 * (or an address that is not hex) is a *field error*: the line is valid
 * JSON but cannot be imported. Fields only used for details (bytesize,
 * capacity, slot_size, superclass, value, struct, imemo_type, flags and the
 * booleans) are ignored when they have an unexpected type instead. */
#ifndef JSCAN_H
#define JSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "import_status.h"

/* Deepest nesting accepted: the top-level object is depth 1 (jansson's
 * JSON_PARSER_MAX_DEPTH). */
#define JS_MAX_DEPTH 2048

/* Bytes of a "value" string kept (after unescaping); the rest is only
 * validated. The importer's preview limit must not exceed it. */
#define JS_VALUE_MAX 256

/* js_line.has: which fields the line had (with a usable value). */
enum {
    JS_HAS_ADDRESS = 1u << 0,
    JS_HAS_TYPE = 1u << 1,
    JS_HAS_CLASS = 1u << 2,
    JS_HAS_SUPER = 1u << 3,
    JS_HAS_ROOT = 1u << 4,
    JS_HAS_REFS = 1u << 5,
    JS_HAS_MEMSIZE = 1u << 6,
    JS_HAS_BYTESIZE = 1u << 7,
    JS_HAS_CAPACITY = 1u << 8,
    JS_HAS_SLOT_SIZE = 1u << 9,
    JS_HAS_NAME = 1u << 10,
    JS_HAS_FILE = 1u << 11,
    JS_HAS_LINE = 1u << 12,
    JS_HAS_GENERATION = 1u << 13,
    JS_HAS_VALUE = 1u << 14,
    JS_HAS_STRUCT = 1u << 15,
    JS_HAS_IMEMO_TYPE = 1u << 16,
    JS_HAS_FROZEN = 1u << 17,  /* "frozen" present (true or false) */
    JS_HAS_FLAGS = 1u << 18    /* "flags" object present */
};

/* js_line.bits: boolean fields that were true. */
enum {
    JS_FROZEN = 1u << 0,
    JS_EMBEDDED = 1u << 1,
    JS_SHARED = 1u << 2,
    JS_SINGLETON = 1u << 3,
    /* members of the "flags" object */
    JS_GC_WB_PROTECTED = 1u << 4,
    JS_GC_OLD = 1u << 5,
    JS_GC_UNCOLLECTIBLE = 1u << 6,
    JS_GC_MARKED = 1u << 7
};

/* Text of a string field after unescaping. Points into the line when the
 * JSON text had no escapes, else into the scanner's buffer. May contain NUL
 * bytes (from \u0000); not NUL-terminated. */
typedef struct js_text {
    const char *ptr;
    size_t len;
} js_text;

/* The fields of one line. Texts and refs stay valid until the next
 * js_scan() call on the same scanner and while the line is unchanged. */
typedef struct js_line {
    uint32_t has;  /* JS_HAS_* */
    uint32_t bits; /* JS_FROZEN ... */
    uint64_t address, klass, super;
    uint64_t memsize, bytesize, capacity, slot_size, line, generation;
    js_text type, root, name, file, struct_name, imemo_type;
    js_text value;       /* at most JS_VALUE_MAX bytes of the string */
    size_t value_full;   /* length of the whole unescaped value */
    const uint64_t *refs; /* "references", in order */
    size_t nrefs;
} js_line;

/* Room for the scanner's known keys (jscan.c), and one more slot. */
#define JS_KEYS 32

typedef struct js_scanner {
    /* The key that followed each known key (by number; the last slot: the
     * line's start) where it was last seen: dump_all writes its keys in
     * one order, so the next key is checked with one compare instead of
     * scanned and looked up. Learned, so any order works, only slower. */
    unsigned char next_key[JS_KEYS];
    uint64_t *refs;
    size_t refs_cap;
    char *text;       /* unescaped texts */
    size_t text_cap;
    size_t text_len;
    char *key;        /* an unescaped key */
    size_t key_cap;
    /* After IMP_SYNTAX / IMP_FIELD: 0-based byte offset in the line where the
     * problem is, and a static message. */
    size_t err_pos;
    const char *err_msg;
    const char *err_field; /* IMP_FIELD: the key at fault, else NULL */
} js_scanner;

/* A scanner with no buffers yet; js_free() releases them. */
void js_init(js_scanner *s);
void js_free(js_scanner *s);

/* Scans the n bytes at p, which must be followed by a NUL byte (p[n] ==
 * '\0'; the line itself may contain NUL bytes, which are invalid JSON).
 * Returns a js_status; on IMP_OK *out is filled. On IMP_SYNTAX the whole line
 * is invalid JSON; on IMP_FIELD it is valid JSON but a field the importer
 * needs is unusable (a syntax error later in the line takes precedence).
 * err_pos and err_msg say where and what. */
int js_scan(js_scanner *s, const char *p, size_t n, js_line *out);

/* js_scan of a line whose end is not known yet, for a reader that would
 * search for it first: the n bytes at p (followed by a NUL byte) hold the
 * line and maybe more lines. Returns 1 when they hold the whole line, up
 * to a '\n', and it is valid (IMP_OK), with *out filled as js_scan would
 * and the line's length (without its '\n') in *len. Else returns 0: the
 * line must go to js_scan once its end is known, to be told what it is. */
int js_scan_next(js_scanner *s, const char *p, size_t n, js_line *out,
                 size_t *len);

/* Parses a Ruby address: an optional "0x" or "0X" and 1-16 hex digits.
 * Returns 0 and stores the value, or -1. */
int js_parse_address(const char *p, size_t n, uint64_t *out);

#endif /* JSCAN_H */
