/* jscan.c -- a fast, validating scanner for ObjectSpace.dump_all lines.
 *
 * The line is walked once, left to right. The top-level object is parsed
 * by hand: each key is matched against the keys the importer uses, and the
 * value is parsed according to the key (addresses straight to integers,
 * "references" with a loop specialised for arrays of "0x..." strings).
 * Everything else goes through a generic validator that keeps an explicit
 * stack of container kinds, so no input can make it recurse.
 *
 * The caller guarantees a NUL byte after the line. NUL is never valid in
 * JSON text outside escapes, so every loop stops on it and only then
 * compares the position with the end of the line. */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cli_grow.h"
#include "jescape.h"
#include "jscan.h"
#include "simd.h"

/* ------------------------------------------------------------------ */
/* Character tables                                                    */
/* ------------------------------------------------------------------ */

#define X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v

/* Bytes inside a string: 0 plain, 1 '"', 2 '\\', 3 control, 4 non-ASCII. */
static const unsigned char str_class[256] = {
    X16(3), X16(3),
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    X16(0), X16(0),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, /* 0x50: '\\' */
    X16(0), X16(0),
    X16(4), X16(4), X16(4), X16(4), X16(4), X16(4), X16(4), X16(4),
};

#define NH 0xff
/* Hex digit values; NH for anything else. */
static const unsigned char hex_value[256] = {
    X16(NH), X16(NH), X16(NH),
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, NH, NH, NH, NH, NH, NH,
    NH, 10, 11, 12, 13, 14, 15, NH, NH, NH, NH, NH, NH, NH, NH, NH,
    X16(NH),
    NH, 10, 11, 12, 13, 14, 15, NH, NH, NH, NH, NH, NH, NH, NH, NH,
    X16(NH),
    X16(NH), X16(NH), X16(NH), X16(NH), X16(NH), X16(NH), X16(NH), X16(NH),
};

static inline int is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}

static inline int is_alpha(unsigned char c)
{
    return (unsigned)((c | 0x20) - 'a') < 26u;
}

/* ------------------------------------------------------------------ */
/* Scanner state for one line                                          */
/* ------------------------------------------------------------------ */

/* The keys the importer reads. */
enum key {
    K_OTHER = 0,
    K_ADDRESS, K_TYPE, K_CLASS, K_SUPERCLASS, K_ROOT, K_REFERENCES,
    K_MEMSIZE, K_BYTESIZE, K_CAPACITY, K_SLOT_SIZE, K_NAME, K_FILE,
    K_LINE, K_GENERATION, K_VALUE, K_STRUCT, K_IMEMO_TYPE, K_FROZEN,
    K_EMBEDDED, K_SHARED, K_SINGLETON, K_FLAGS,
    K_COUNT
};

_Static_assert(K_COUNT < JS_KEYS, "js_scanner.next_key has a slot per key");
#define LINE_START (JS_KEYS - 1) /* next_key's slot for the first key */

/* The names of the keys (K_OTHER: none), their lengths, and the bytes a
 * plain key and its ':' have after its opening quote, as dump_all writes
 * them (padded for 16-byte compares). */
static const struct {
    const char *name;
    unsigned char len;
    char quoted[16];
} keys[K_COUNT] = {
#define KEY(k, name) [k] = {name, sizeof name - 1, name "\":"}
    KEY(K_ADDRESS, "address"),       KEY(K_TYPE, "type"),
    KEY(K_CLASS, "class"),           KEY(K_SUPERCLASS, "superclass"),
    KEY(K_ROOT, "root"),             KEY(K_REFERENCES, "references"),
    KEY(K_MEMSIZE, "memsize"),       KEY(K_BYTESIZE, "bytesize"),
    KEY(K_CAPACITY, "capacity"),     KEY(K_SLOT_SIZE, "slot_size"),
    KEY(K_NAME, "name"),             KEY(K_FILE, "file"),
    KEY(K_LINE, "line"),             KEY(K_GENERATION, "generation"),
    KEY(K_VALUE, "value"),           KEY(K_STRUCT, "struct"),
    KEY(K_IMEMO_TYPE, "imemo_type"), KEY(K_FROZEN, "frozen"),
    KEY(K_EMBEDDED, "embedded"),     KEY(K_SHARED, "shared"),
    KEY(K_SINGLETON, "singleton"),   KEY(K_FLAGS, "flags"),
#undef KEY
};

/* Whether the line at q (after a key's opening quote, with end - q bytes
 * left) holds the key of n bytes in quoted (16 bytes), plain, and right
 * after its closing quote the ':'. */
static inline int quoted_is(const char *q, const char *end,
                            const char *quoted, size_t n)
{
    if (end - q >= 16) /* a call to memcmp cost more than the scan it saved */
        return simd_prefix_is(q, quoted, n + 2);
    return (size_t)(end - q) > n + 1 && memcmp(q, quoted, n + 2) == 0;
}

/* Whether the line at q (after a key's opening quote) holds key k and its
 * ':'. */
static inline int key_is(const char *q, const char *end, enum key k)
{
    return keys[k].len > 0 && quoted_is(q, end, keys[k].quoted, keys[k].len);
}

/* The known key a plain key of n bytes starting a, b can only be: its
 * first two bytes and its length pick a slot of key_slot (no two keys
 * share one: -Woverride-init, in -Wextra, would say so), and one compare
 * tells whether it is that key. */
#define KEY_HASH(a, b, n) \
    (((unsigned)(unsigned char)(a) ^ (unsigned)(unsigned char)(b) * 5u ^ \
      (unsigned)(n) * 2u) & 63u)
#define KS(a, b, n, k) [KEY_HASH(a, b, n)] = k
static const unsigned char key_slot[64] = {
    KS('a', 'd', 7, K_ADDRESS),     KS('t', 'y', 4, K_TYPE),
    KS('c', 'l', 5, K_CLASS),       KS('s', 'u', 10, K_SUPERCLASS),
    KS('r', 'o', 4, K_ROOT),        KS('r', 'e', 10, K_REFERENCES),
    KS('m', 'e', 7, K_MEMSIZE),     KS('b', 'y', 8, K_BYTESIZE),
    KS('c', 'a', 8, K_CAPACITY),    KS('s', 'l', 9, K_SLOT_SIZE),
    KS('n', 'a', 4, K_NAME),        KS('f', 'i', 4, K_FILE),
    KS('l', 'i', 4, K_LINE),        KS('g', 'e', 10, K_GENERATION),
    KS('v', 'a', 5, K_VALUE),       KS('s', 't', 6, K_STRUCT),
    KS('i', 'm', 10, K_IMEMO_TYPE), KS('f', 'r', 6, K_FROZEN),
    KS('e', 'm', 8, K_EMBEDDED),    KS('s', 'h', 6, K_SHARED),
    KS('s', 'i', 9, K_SINGLETON),   KS('f', 'l', 5, K_FLAGS),
};
#undef KS

/* The text fields; those unescaped into the scanner's text buffer (which
 * may move while it grows) get their pointers when the line is done. */
enum { T_TYPE, T_ROOT, T_NAME, T_FILE, T_STRUCT, T_IMEMO, T_VALUE, T_COUNT };

static js_text *text_slot(js_line *L, int slot)
{
    static const size_t at[T_COUNT] = {
        [T_TYPE] = offsetof(js_line, type),
        [T_ROOT] = offsetof(js_line, root),
        [T_NAME] = offsetof(js_line, name),
        [T_FILE] = offsetof(js_line, file),
        [T_STRUCT] = offsetof(js_line, struct_name),
        [T_IMEMO] = offsetof(js_line, imemo_type),
        [T_VALUE] = offsetof(js_line, value),
    };
    return (js_text *)(void *)((char *)L + at[slot]);
}

typedef struct ctx {
    js_scanner *s;
    int one_line;     /* js_scan_next: a '\n' ends the line */
    const char *base;
    const char *end;
    js_line *out;
    uint32_t escaped;        /* 1 << T_*: the text is at text_off[] */
    size_t text_off[T_COUNT]; /* in s->text */
    /* field errors, by key: the last value of a key decides */
    uint32_t field_err;
    size_t field_pos[K_COUNT];
    const char *field_msg[K_COUNT];
} ctx;

/* The key at p (its opening quote) when the line holds 16 bytes after
 * the quote and the key is plain, at most 14 bytes, and followed at
 * once by ':': its number (K_OTHER for a key the importer does not
 * read), with *q after the ':'. Else -1: the caller decodes the key.
 * For keys other than the one expected (next_key): in a heap of many
 * kinds of lines they are common, and decoding each and looking it up by
 * name was a fifth of scan's time on gen_dump_all's lines (perf
 * annotate). */
static inline int plain_key(const ctx *c, const char *p, const char **q)
{
    const char *k = p + 1;
    if (c->end - k < 16)
        return -1;
    unsigned m = simd_string_stops(k);
    unsigned n = (unsigned)__builtin_ctz(m | 1u << 15);
    if (n > 14 || k[n] != '"' || k[n + 1] != ':')
        return -1;
    unsigned char cand = key_slot[KEY_HASH(k[0], k[1], n)];
    *q = k + n + 2;
    return keys[cand].len == n && simd_prefix_is(k, keys[cand].quoted, n + 2)
               ? cand
               : K_OTHER;
}

static inline const char *skip_ws(ctx *c, const char *p)
{
    /* dump_all writes blank space only after commas, one ' ': one or two
     * compares for the usual cases */
    if ((unsigned char)*p > ' ')
        return p;
    if (*p == ' ' && (unsigned char)p[1] > ' ')
        return p + 1;
    while (*p == ' ' || *p == '\t' || *p == '\r' ||
           (*p == '\n' && !c->one_line))
        p++;
    return p;
}

static const char *syntax(ctx *c, const char *at, const char *msg)
{
    c->s->err_pos = (size_t)(at - c->base);
    c->s->err_msg = msg;
    return NULL;
}

/* The step after a member or an element at p (blank space first): a ','
 * (*more = 1; returns the next one's start) or the closing byte close
 * (*more = 0; returns the byte after it); else NULL, a syntax error. */
static inline const char *next_member(ctx *c, const char *p, char close,
                                      int *more)
{
    p = skip_ws(c, p);
    if (*p == ',') {
        *more = 1;
        return skip_ws(c, p + 1);
    }
    if (*p == close) {
        *more = 0;
        return p + 1;
    }
    return syntax(c, p, p >= c->end       ? "unexpected end of line"
                        : close == '}' ? "expected ',' or '}'"
                                       : "expected ',' or ']'");
}

static void field_error(ctx *c, enum key k, const char *at, const char *msg)
{
    c->field_err |= 1u << k;
    c->field_pos[k] = (size_t)(at - c->base);
    c->field_msg[k] = msg;
}

static void field_ok(ctx *c, enum key k)
{
    c->field_err &= ~(1u << k);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

static inline int push_ref(js_scanner *s, size_t *n, uint64_t v)
{
    if (*n == s->refs_cap && GROW(s->refs, s->refs_cap, *n) < 0)
        return -1;
    s->refs[(*n)++] = v;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

/* Where a decoded string goes. */
enum smode {
    S_SKIP, /* validate only */
    S_TEXT, /* keep (up to limit bytes) in s->text */
    S_KEY   /* keep in s->key; \u0000 is an error (as in jansson) */
};

typedef struct sout {
    const char *raw;  /* the text when it had no escapes (in the line) */
    size_t off;       /* else: where it starts in s->text / s->key */
    size_t len;       /* bytes kept */
    size_t full;      /* bytes of the whole decoded string */
    int escaped;
} sout;

/* Appends n bytes to the decoded output, keeping at most limit. */
static int emit(ctx *c, enum smode mode, sout *o, size_t limit, const char *b,
                size_t n)
{
    js_scanner *s = c->s;
    o->full += n;
    if (mode == S_SKIP || o->len >= limit)
        return 0;
    if (n > limit - o->len)
        n = limit - o->len;
    if (n == 0)
        return 0;
    if (mode == S_KEY) {
        if (cli_grow((void **)&s->key, &s->key_cap, o->len + n, 1) < 0)
            return -1;
        memcpy(s->key + o->len, b, n);
    } else {
        if (cli_grow((void **)&s->text, &s->text_cap, s->text_len + n, 1) < 0)
            return -1;
        memcpy(s->text + s->text_len, b, n);
        s->text_len += n;
    }
    o->len += n;
    return 0;
}

/* Skips plain string bytes at p many at a time, up to a byte that may
 * not be plain or the last few bytes of the line. */
static inline const char *plain_run(const ctx *c, const char *p)
{
    while (c->end - p >= 16) {
        unsigned m = simd_string_stops(p);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
    return p;
}

/* scan_string after its plain start: the string's text begins at start,
 * and the bytes up to p are plain. */
static const char *scan_string_rest(ctx *c, const char *start, const char *p,
                                    enum smode mode, size_t limit, sout *o)
{
    o->raw = start;
    o->off = c->s->text_len;
    o->len = o->full = 0;
    o->escaped = 0;
    /* Fast path: plain ASCII and valid UTF-8 up to the closing quote. */
    for (;;) {
        unsigned k;
        while ((k = str_class[(unsigned char)*p]) == 0)
            p++;
        if (k == 1) {
            size_t n = (size_t)(p - start);
            o->full = n;
            o->len = n < limit ? n : limit;
            return p + 1;
        }
        if (k == 4) {
            size_t u = jescape_utf8_len((const unsigned char *)p);
            if (u == 0)
                return syntax(c, p, "invalid UTF-8");
            p += u;
            p = plain_run(c, p);
            continue;
        }
        if (k == 3)
            return syntax(c, p, p >= c->end ? "unterminated string"
                                            : "control character in string");
        break; /* a backslash: decode from here */
    }
    o->escaped = 1;
    if (mode == S_KEY)
        o->off = 0;
    if (emit(c, mode, o, limit, start, (size_t)(p - start)) < 0)
        return NULL;
    for (;;) {
        const char *run = p;
        unsigned k;
        while ((k = str_class[(unsigned char)*p]) == 0)
            p++;
        if (p > run && emit(c, mode, o, limit, run, (size_t)(p - run)) < 0)
            return NULL;
        if (k == 1)
            return p + 1;
        if (k == 3)
            return syntax(c, p, p >= c->end ? "unterminated string"
                                            : "control character in string");
        if (k == 4) {
            size_t u = jescape_utf8_len((const unsigned char *)p);
            if (u == 0)
                return syntax(c, p, "invalid UTF-8");
            if (emit(c, mode, o, limit, p, u) < 0)
                return NULL;
            p += u;
            continue;
        }
        /* k == 2: an escape */
        char u8[4];
        size_t un;
        const char *msg;
        size_t used = jescape_decode(p + 1, 0, u8, &un, &msg);
        if (used == 0)
            return syntax(c, p, p + 1 >= c->end ? "unterminated string" : msg);
        if (mode == S_KEY && un == 1 && u8[0] == '\0')
            return syntax(c, p, "NUL byte in an object key");
        if (emit(c, mode, o, limit, u8, un) < 0)
            return NULL;
        p += 1 + used;
    }
}

/* Scans a string whose opening quote is at p. Returns the position after
 * the closing quote, or NULL after a syntax error (or out of memory, with
 * err_msg NULL). Inline for the usual string, plain up to its quote: the
 * call of the whole function cost more than that scan. */
static inline const char *scan_string(ctx *c, const char *p, enum smode mode,
                                      size_t limit, sout *o)
{
    const char *start = p + 1;
    const char *q = plain_run(c, start);
    if (*q != '"')
        return scan_string_rest(c, start, q, mode, limit, o);
    size_t n = (size_t)(q - start);
    o->raw = start;
    o->off = c->s->text_len;
    o->full = n;
    o->len = n < limit ? n : limit;
    o->escaped = 0;
    return q + 1;
}

/* ------------------------------------------------------------------ */
/* Numbers and literals                                                */
/* ------------------------------------------------------------------ */

enum nkind { N_UINT, N_OTHER, N_BIG };

/* The digits of a fraction or an exponent at p, one at least: the byte
 * after them, or NULL (the number at start is invalid). */
static const char *digit_run(ctx *c, const char *p, const char *start)
{
    if (!is_digit((unsigned char)*p))
        return syntax(c, start, "invalid number");
    while (is_digit((unsigned char)*p))
        p++;
    return p;
}

/* Scans a number at p. *kind: N_UINT with *u set for a non-negative
 * integer that fits 64 bits (or -0), N_BIG for a larger one, N_OTHER for
 * a negative number, a fraction or an exponent. */
static const char *scan_number(ctx *c, const char *p, uint64_t *u,
                               enum nkind *kind)
{
    const char *start = p;
    int neg = 0, big = 0;
    uint64_t v = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (*p == '0') {
        p++;
        if (is_digit((unsigned char)*p))
            return syntax(c, start, "invalid number (leading zero)");
    } else if (is_digit((unsigned char)*p)) {
        do {
            unsigned d = (unsigned)(*p - '0');
            if (v > (UINT64_MAX - d) / 10)
                big = 1;
            v = v * 10 + d;
            p++;
        } while (is_digit((unsigned char)*p));
    } else {
        return syntax(c, start, "invalid number");
    }
    int real = 0;
    if (*p == '.') {
        if (!(p = digit_run(c, p + 1, start)))
            return NULL;
        real = 1;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(p = digit_run(c, p, start)))
            return NULL;
        real = 1;
    }
    /* "-0" is the integer 0, as jansson reads it. */
    *kind = real || (neg && (v != 0 || big)) ? N_OTHER : big ? N_BIG : N_UINT;
    *u = v;
    return p;
}

/* true, false or null at p; *which gets 1, 0 or -1. Only bytes up to the
 * end of the line (and its NUL) are read. */
static inline const char *scan_literal(ctx *c, const char *p, int *which)
{
    size_t avail = (size_t)(c->end - p);
    size_t n = 0;
    if (avail >= 4 && memcmp(p, "true", 4) == 0) {
        *which = 1;
        n = 4;
    } else if (avail >= 5 && memcmp(p, "false", 5) == 0) {
        *which = 0;
        n = 5;
    } else if (avail >= 4 && memcmp(p, "null", 4) == 0) {
        *which = -1;
        n = 4;
    } else {
        return syntax(c, p, "invalid literal");
    }
    /* jansson reads a whole word: "trueish" is one invalid token. */
    if (is_alpha((unsigned char)p[n]))
        return syntax(c, p, "invalid literal");
    return p + n;
}

/* ------------------------------------------------------------------ */
/* Generic values                                                      */
/* ------------------------------------------------------------------ */

/* Validates the value at p (after whitespace), whose depth is depth (the
 * top-level object is 1). Returns the position after it, or NULL. */
static const char *skip_value(ctx *c, const char *p, unsigned depth)
{
    unsigned char stack[JS_MAX_DEPTH / 8 + 1]; /* bit set: object */
    unsigned top = 0;
    sout so;
    int lit;
    uint64_t u;
    enum nkind nk;

value:
    if (depth > JS_MAX_DEPTH)
        return syntax(c, p, "nesting deeper than 2048 levels");
    switch (*p) {
    case '{':
        p = skip_ws(c, p + 1);
        if (*p == '}') {
            p++;
            goto after;
        }
        stack[top / 8] |= (unsigned char)(1u << (top % 8));
        top++;
        depth++;
        goto key;
    case '[':
        p = skip_ws(c, p + 1);
        if (*p == ']') {
            p++;
            goto after;
        }
        stack[top / 8] &= (unsigned char)~(1u << (top % 8));
        top++;
        depth++;
        goto value;
    case '"':
        if (!(p = scan_string(c, p, S_SKIP, 0, &so)))
            return NULL;
        goto after;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if (!(p = scan_number(c, p, &u, &nk)))
            return NULL;
        goto after;
    case 't':
    case 'f':
    case 'n':
        if (!(p = scan_literal(c, p, &lit)))
            return NULL;
        goto after;
    default:
        return syntax(c, p, p >= c->end ? "unexpected end of line"
                                        : "invalid value");
    }

key:
    if (*p != '"')
        return syntax(c, p, p >= c->end ? "unexpected end of line"
                                        : "expected a string key or '}'");
    if (!(p = scan_string(c, p, S_KEY, 0, &so)))
        return NULL;
    p = skip_ws(c, p);
    if (*p != ':')
        return syntax(c, p, "expected ':'");
    p = skip_ws(c, p + 1);
    goto value;

after:
    if (top == 0)
        return p;
    {
        int in_object = stack[(top - 1) / 8] & (1u << ((top - 1) % 8)), more;
        if (!(p = next_member(c, p, in_object ? '}' : ']', &more)))
            return NULL;
        if (more) {
            if (in_object)
                goto key;
            goto value;
        }
    }
    top--;
    depth--;
    goto after;
}

/* ------------------------------------------------------------------ */
/* Known keys                                                          */
/* ------------------------------------------------------------------ */

/* A decoded key's number: key_slot names the one known key it can be, as
 * for plain_key (a loop over keys[] made the import 6% slower, as the
 * keys the importer does not read, "encoding", "method", come through
 * here on every line). */
static enum key lookup_key(const char *k, size_t n)
{
    if (n < 2)
        return K_OTHER;
    unsigned char cand = key_slot[KEY_HASH(k[0], k[1], n)];
    return keys[cand].len == n && memcmp(k, keys[cand].name, n) == 0
               ? (enum key)cand
               : K_OTHER;
}

int js_parse_address(const char *p, size_t n, uint64_t *out)
{
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned h = hex_value[(unsigned char)p[i]];
        if (h == NH)
            return -1;
        v = (v << 4) | h;
    }
    *out = v;
    return 0;
}

/* The text a sout describes, for js_parse_address and key lookup. */
static const char *sout_text(ctx *c, const sout *o, enum smode mode)
{
    if (!o->escaped)
        return o->raw;
    return mode == S_KEY ? c->s->key : c->s->text + o->off;
}

/* The hex digits at q: their value in *v (when at most 16) and their
 * count. Sixteen at a time where the line holds 17 more bytes (an address
 * is 12 digits; a loop per digit was a sixth of the import); one at a
 * time near the end of the line. */
static size_t hex_run(const ctx *c, const char *q, uint64_t *v)
{
    if (c->end - q >= 17) {
        unsigned d = simd_hex_run(q, v);
        if (d == 16 && hex_value[(unsigned char)q[16]] != NH)
            return 17; /* too long: the caller's general path says so */
        return d;
    }
    const char *start = q;
    uint64_t x = 0;
    unsigned h;
    while ((h = hex_value[(unsigned char)*q]) != NH) {
        x = (x << 4) | h;
        q++;
    }
    *v = x;
    return (size_t)(q - start);
}

/* The fast path of an address string at p (at its '"'): "0x" and 1 to 16
 * hex digits, no escapes. Returns the byte after the closing quote with
 * the value in *v, or NULL (*v untouched) for anything else (the caller's general path
 * decodes the string and words the complaint). */
static inline const char *plain_address(const ctx *c, const char *p,
                                        uint64_t *v)
{
    const char *q = p + 1;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        q += 2;
    uint64_t x;
    size_t nd = hex_run(c, q, &x);
    if (nd < 1 || nd > 16 || q[nd] != '"')
        return NULL;
    *v = x;
    return q + nd + 1;
}

/* An address-valued field at p. */
static const char *field_address(ctx *c, const char *p, enum key k,
                                 uint64_t *dst, uint32_t has, int core)
{
    if (*p != '"') {
        const char *q = skip_value(c, p, 2);
        if (q) {
            if (core)
                field_error(c, k, p, "expected an address string");
            else
                c->out->has &= ~has;
        }
        return q;
    }
    const char *e = plain_address(c, p, dst);
    if (e) {
        c->out->has |= has;
        field_ok(c, k);
        return e;
    }
    sout so;
    const char *q = scan_string(c, p, S_TEXT, 32, &so);
    if (!q)
        return NULL;
    if (so.full <= 32 &&
        js_parse_address(sout_text(c, &so, S_TEXT), so.len, dst) == 0) {
        c->out->has |= has;
        field_ok(c, k);
    } else if (core) {
        field_error(c, k, p, "not a hexadecimal address");
    } else {
        c->out->has &= ~has;
    }
    return q;
}

/* An unsigned-integer field at p. */
static inline const char *field_uint(ctx *c, const char *p, enum key k,
                                     uint64_t *dst, uint32_t has, int core)
{
    /* The usual value first, without a call: 1 to 19 digits (too few to
     * overflow) and no fraction or exponent. */
    if (is_digit((unsigned char)*p)) {
        const char *q = p + 1;
        uint64_t v = (uint64_t)(*p - '0');
        if (v != 0) /* a leading zero is alone, or the slow path's error */
            while (is_digit((unsigned char)*q) && q - p < 19)
                v = v * 10 + (uint64_t)(*q++ - '0');
        if (!is_digit((unsigned char)*q) && *q != '.' && (*q | 0x20) != 'e') {
            *dst = v;
            c->out->has |= has;
            field_ok(c, k);
            return q;
        }
    }
    uint64_t u;
    enum nkind nk;
    const char *q;
    if (*p == '-' || is_digit((unsigned char)*p)) {
        if (!(q = scan_number(c, p, &u, &nk)))
            return NULL;
        if (nk == N_UINT) {
            *dst = u;
            c->out->has |= has;
            field_ok(c, k);
            return q;
        }
    } else if (!(q = skip_value(c, p, 2))) {
        return NULL;
    }
    if (core)
        field_error(c, k, p, "expected an unsigned integer");
    else
        c->out->has &= ~has;
    return q;
}

/* A text field at p, into text slot slot. */
static const char *field_text(ctx *c, const char *p, enum key k, int slot,
                              size_t limit, uint32_t has, int core)
{
    js_text *dst = text_slot(c->out, slot);
    if (*p != '"') {
        const char *q = skip_value(c, p, 2);
        if (q) {
            if (core) {
                field_error(c, k, p, "expected a string");
            } else { /* dropped, as if absent */
                c->out->has &= ~has;
                c->escaped &= ~(1u << slot);
                dst->ptr = "";
                dst->len = 0;
            }
        }
        return q;
    }
    sout so;
    const char *q = scan_string(c, p, S_TEXT, limit, &so);
    if (!q)
        return NULL;
    dst->ptr = so.raw;
    dst->len = so.len;
    if (so.escaped) {
        c->escaped |= 1u << slot;
        c->text_off[slot] = so.off;
    } else {
        c->escaped &= ~(1u << slot);
    }
    if (slot == T_VALUE)
        c->out->value_full = so.full;
    c->out->has |= has;
    field_ok(c, k);
    return q;
}

/* A boolean field at p, a value of the given depth: true sets bit,
 * anything else clears it. */
static inline const char *field_bool(ctx *c, const char *p, uint32_t bit,
                                     unsigned depth)
{
    int lit = -1;
    const char *q;
    if (*p == 't' || *p == 'f' || *p == 'n')
        q = scan_literal(c, p, &lit);
    else
        q = skip_value(c, p, depth);
    if (q) {
        if (lit == 1)
            c->out->bits |= bit;
        else
            c->out->bits &= ~bit;
    }
    return q;
}

/* "references": an array of address strings. */
static const char *field_refs(ctx *c, const char *p)
{
    js_line *L = c->out;
    js_scanner *s = c->s;
    size_t n = 0;
    if (*p != '[') {
        const char *q = skip_value(c, p, 2);
        if (q) {
            field_error(c, K_REFERENCES, p, "expected an array of addresses");
            L->nrefs = 0;
        }
        return q;
    }
    int bad = 0;
    const char *bad_at = NULL;
    p = skip_ws(c, p + 1);
    if (*p == ']') {
        p++;
        goto done;
    }
    for (;;) {
        if (*p == '"') {
            uint64_t v;
            const char *q = plain_address(c, p, &v);
            if (q) {
                if (push_ref(s, &n, v) < 0)
                    return NULL;
                p = q;
                if (p[0] == ',' && p[1] == ' ' && p[2] == '"') {
                    p += 2; /* dump_all's separator, and the next address */
                    continue;
                }
            } else {
                sout so;
                const char *e = scan_string(c, p, S_TEXT, 32, &so);
                if (!e)
                    return NULL;
                if (so.full <= 32 &&
                    js_parse_address(sout_text(c, &so, S_TEXT), so.len, &v) == 0) {
                    if (push_ref(s, &n, v) < 0)
                        return NULL;
                } else if (!bad) {
                    bad = 1;
                    bad_at = p;
                }
                p = e;
            }
        } else {
            const char *e = skip_value(c, p, 3);
            if (!e)
                return NULL;
            if (!bad) {
                bad = 1;
                bad_at = p;
            }
            p = e;
        }
        int more;
        if (!(p = next_member(c, p, ']', &more)))
            return NULL;
        if (!more)
            break;
    }
done:
    if (bad) {
        field_error(c, K_REFERENCES, bad_at, "a reference is not an address");
        n = 0;
    } else {
        field_ok(c, K_REFERENCES);
    }
    L->nrefs = n;
    L->has |= JS_HAS_REFS;
    return p;
}

/* The members of "flags" the importer reads, in dump_all's order. */
static const struct {
    char quoted[16]; /* as in keys[] */
    unsigned char len;
    uint32_t bit;
} gc_flags[] = {
    {"wb_protected\":", 12, JS_GC_WB_PROTECTED},
    {"old\":", 3, JS_GC_OLD},
    {"uncollectible\":", 13, JS_GC_UNCOLLECTIBLE},
    {"marked\":", 6, JS_GC_MARKED},
};
#define GC_FLAGS (sizeof gc_flags / sizeof gc_flags[0])

/* The member of "flags" at p (its key's quote) when it is one of
 * gc_flags[from..] written plain: its bit, with *q after the key's ':'
 * and *from past it; else 0. */
static inline uint32_t gc_flag_at(const ctx *c, const char *p, unsigned *from,
                                  const char **q)
{
    for (unsigned i = *from; i < GC_FLAGS; i++)
        if (quoted_is(p + 1, c->end, gc_flags[i].quoted, gc_flags[i].len)) {
            *q = p + gc_flags[i].len + 3;
            *from = i + 1;
            return gc_flags[i].bit;
        }
    return 0;
}

/* The "flags" objects dump_all writes most, whole, and their bits: one
 * compare each instead of a member at a time (every line of a Ruby heap
 * has one; the first alone is on 87% of them). */
static const struct {
    const char *text;
    unsigned char len;
    uint32_t bits;
} flag_sets[] = {
#define FS(text, bits) {text, sizeof text - 1, bits}
    FS("{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, "
       "\"marked\":true}",
       JS_GC_WB_PROTECTED | JS_GC_OLD | JS_GC_UNCOLLECTIBLE | JS_GC_MARKED),
    FS("{\"uncollectible\":true, \"marked\":true}",
       JS_GC_UNCOLLECTIBLE | JS_GC_MARKED),
    FS("{\"wb_protected\":true}", JS_GC_WB_PROTECTED),
#undef FS
};

/* "flags": {"wb_protected":true, "old":true, ...}. */
static const char *field_flags(ctx *c, const char *p)
{
    js_line *L = c->out;
    const uint32_t gc = JS_GC_WB_PROTECTED | JS_GC_OLD | JS_GC_UNCOLLECTIBLE |
                        JS_GC_MARKED;
    L->bits &= ~gc;
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++)
        if (c->end - p >= flag_sets[i].len &&
            simd_equal(p, flag_sets[i].text, flag_sets[i].len)) {
            L->has |= JS_HAS_FLAGS;
            L->bits |= flag_sets[i].bits;
            return p + flag_sets[i].len;
        }
    if (*p != '{') {
        const char *q = skip_value(c, p, 2);
        if (q)
            L->has &= ~(uint32_t)JS_HAS_FLAGS;
        return q;
    }
    L->has |= JS_HAS_FLAGS;
    p = skip_ws(c, p + 1);
    if (*p == '}')
        return p + 1;
    unsigned from = 0; /* dump_all's next member is in gc_flags[from..] */
    for (;;) {
        if (*p != '"')
            return syntax(c, p, p >= c->end ? "unexpected end of line"
                                            : "expected a string key");
        const char *q;
        uint32_t bit = gc_flag_at(c, p, &from, &q);
        if (!bit) {
            sout so;
            if (!(q = scan_string(c, p, S_KEY, 16, &so)))
                return NULL;
            const char *k = sout_text(c, &so, S_KEY);
            for (unsigned i = 0; i < GC_FLAGS && !bit; i++)
                if (so.full == gc_flags[i].len &&
                    memcmp(k, gc_flags[i].quoted, so.full) == 0)
                    bit = gc_flags[i].bit;
            q = skip_ws(c, q);
            if (*q != ':')
                return syntax(c, q, "expected ':'");
            q++;
        }
        p = skip_ws(c, q);
        if (bit) {
            if (!(p = field_bool(c, p, bit, 3)))
                return NULL;
        } else if (!(p = skip_value(c, p, 3))) {
            return NULL;
        }
        int more;
        if (!(p = next_member(c, p, '}', &more)) || !more)
            return p;
    }
}

/* How each known key's value is read: its kind, whether the line is
 * unusable without it (core), its js_line field (at: offsetof; T_* for a
 * text) and its bit in has (a boolean's: in bits). */
enum how_kind { H_SKIP, H_ADDRESS, H_UINT, H_TEXT, H_BOOL, H_REFS, H_FLAGS };
#define AT(f) offsetof(js_line, f)
static const struct {
    unsigned char kind, core;
    unsigned short at;
    uint32_t bit;
} how[K_COUNT] = {
    [K_ADDRESS] = {H_ADDRESS, 1, AT(address), JS_HAS_ADDRESS},
    [K_CLASS] = {H_ADDRESS, 1, AT(klass), JS_HAS_CLASS},
    [K_SUPERCLASS] = {H_ADDRESS, 0, AT(super), JS_HAS_SUPER},
    [K_TYPE] = {H_TEXT, 1, T_TYPE, JS_HAS_TYPE},
    [K_ROOT] = {H_TEXT, 1, T_ROOT, JS_HAS_ROOT},
    [K_NAME] = {H_TEXT, 1, T_NAME, JS_HAS_NAME},
    [K_FILE] = {H_TEXT, 1, T_FILE, JS_HAS_FILE},
    [K_STRUCT] = {H_TEXT, 0, T_STRUCT, JS_HAS_STRUCT},
    [K_IMEMO_TYPE] = {H_TEXT, 0, T_IMEMO, JS_HAS_IMEMO_TYPE},
    [K_VALUE] = {H_TEXT, 0, T_VALUE, JS_HAS_VALUE},
    [K_REFERENCES] = {H_REFS, 0, 0, 0},
    [K_MEMSIZE] = {H_UINT, 1, AT(memsize), JS_HAS_MEMSIZE},
    [K_LINE] = {H_UINT, 1, AT(line), JS_HAS_LINE},
    [K_GENERATION] = {H_UINT, 1, AT(generation), JS_HAS_GENERATION},
    [K_BYTESIZE] = {H_UINT, 0, AT(bytesize), JS_HAS_BYTESIZE},
    [K_CAPACITY] = {H_UINT, 0, AT(capacity), JS_HAS_CAPACITY},
    [K_SLOT_SIZE] = {H_UINT, 0, AT(slot_size), JS_HAS_SLOT_SIZE},
    [K_FROZEN] = {H_BOOL, 0, 0, JS_FROZEN},
    [K_EMBEDDED] = {H_BOOL, 0, 0, JS_EMBEDDED},
    [K_SHARED] = {H_BOOL, 0, 0, JS_SHARED},
    [K_SINGLETON] = {H_BOOL, 0, 0, JS_SINGLETON},
    [K_FLAGS] = {H_FLAGS, 0, 0, 0},
};
#undef AT

/* The value of a top-level member with key k, at p. */
static const char *member(ctx *c, enum key k, const char *p)
{
    js_line *L = c->out;
    uint64_t *u = (uint64_t *)(void *)((char *)L + how[k].at);
    switch (how[k].kind) {
    case H_ADDRESS:
        return field_address(c, p, k, u, how[k].bit, how[k].core);
    case H_UINT:
        return field_uint(c, p, k, u, how[k].bit, how[k].core);
    case H_TEXT:
        return field_text(c, p, k, how[k].at,
                          how[k].at == T_VALUE ? JS_VALUE_MAX : (size_t)-1,
                          how[k].bit, how[k].core);
    case H_BOOL:
        if (k == K_FROZEN) /* "frozen": false is said too */
            L->has |= JS_HAS_FROZEN;
        return field_bool(c, p, how[k].bit, 2);
    case H_REFS:
        return field_refs(c, p);
    case H_FLAGS:
        return field_flags(c, p);
    }
    return skip_value(c, p, 2);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

void js_init(js_scanner *s)
{
    memset(s, 0, sizeof *s);
}

void js_free(js_scanner *s)
{
    if (s) {
        free(s->refs);
        free(s->text);
        free(s->key);
        js_init(s);
    }
}

static int fail_nomem(js_scanner *s)
{
    s->err_pos = 0;
    s->err_msg = "out of memory";
    return IMP_NOMEM;
}

/* js_scan, or with len js_scan_next, which returns IMP_OK only when a '\n'
 * follows the object's blank space, with the line's length in *len. No
 * token and no blank space goes on past a '\n' there (so a line that is
 * not valid costs no scan of the lines after it). Within one line the two
 * walk the same bytes the same way: their choices that depend on the end
 * only pick wider or narrower loads, and the byte after the line is NUL
 * in one and '\n' in the other, both the end of every token. */
static int scan(js_scanner *s, const char *line, size_t n, js_line *out,
                size_t *len)
{
    ctx c;
    c.s = s;
    c.base = line;
    c.end = line + n;
    c.out = out;
    c.one_line = len != NULL;
    c.field_err = 0;
    c.escaped = 0;
    /* Field by field (absent texts are empty, not NULL): a copy of a
     * whole empty line became a rep stos, 7% of the scan's time, and
     * chained text copies a store reloaded before it was done. */
    out->has = out->bits = 0;
    out->address = out->klass = out->super = 0;
    out->memsize = out->bytesize = out->capacity = out->slot_size = 0;
    out->line = out->generation = 0;
#define EMPTY(t) (out->t.ptr = "", out->t.len = 0)
    EMPTY(type), EMPTY(root), EMPTY(name), EMPTY(file);
    EMPTY(struct_name), EMPTY(imemo_type), EMPTY(value);
#undef EMPTY
    out->value_full = 0;
    out->refs = NULL;
    out->nrefs = 0;
    s->text_len = 0;
    s->err_pos = 0;
    s->err_msg = NULL;
    s->err_field = NULL;

    const char *p = skip_ws(&c, line);
    if (*p != '{') {
        if (*p == '[') {
            if (!(p = skip_value(&c, p, 1)))
                return s->err_msg ? IMP_SYNTAX : fail_nomem(s);
            p = skip_ws(&c, p);
            if (p < c.end) {
                syntax(&c, p, "unexpected characters after the JSON value");
                return IMP_SYNTAX;
            }
            s->err_pos = 0;
            s->err_msg = "a JSON array, not an object";
            return IMP_FIELD;
        }
        syntax(&c, p, p >= c.end ? "empty line" : "expected '{'");
        return IMP_SYNTAX;
    }
    p = skip_ws(&c, p + 1);
    if (*p == '}') {
        p++;
    } else {
        unsigned prev = LINE_START;
        for (;;) {
            if (*p != '"') {
                syntax(&c, p, p >= c.end ? "unexpected end of line"
                                         : "expected a string key or '}'");
                return IMP_SYNTAX;
            }
            enum key k = (enum key)s->next_key[prev];
            const char *q;
            int pk;
            if (key_is(p + 1, c.end, k)) {
                q = p + keys[k].len + 3; /* the key expected, plain, ':' */
            } else if ((pk = plain_key(&c, p, &q)) >= 0) {
                k = (enum key)pk;
                s->next_key[prev] = (unsigned char)k;
            } else {
                sout so;
                if (!(q = scan_string(&c, p, S_KEY, 16, &so)))
                    return s->err_msg ? IMP_SYNTAX : fail_nomem(s);
                k = so.full <= 16
                        ? lookup_key(sout_text(&c, &so, S_KEY), so.full)
                        : K_OTHER;
                s->next_key[prev] = (unsigned char)k;
                q = skip_ws(&c, q);
                if (*q != ':') {
                    syntax(&c, q, q >= c.end ? "unexpected end of line"
                                             : "expected ':'");
                    return IMP_SYNTAX;
                }
                q++;
            }
            prev = k;
            p = skip_ws(&c, q);
            if (!(p = member(&c, k, p)))
                return s->err_msg ? IMP_SYNTAX : fail_nomem(s);
            int more;
            if (!(p = next_member(&c, p, '}', &more)))
                return IMP_SYNTAX;
            if (!more)
                break;
        }
    }
    p = skip_ws(&c, p);
    if (len) {
        if (*p != '\n')
            return IMP_SYNTAX; /* not one whole line: js_scan says more */
        *len = (size_t)(p - line);
    } else if (p < c.end) {
        syntax(&c, p, "unexpected characters after the JSON object");
        return IMP_SYNTAX;
    }

    if (c.field_err) {
        /* Report the leftmost bad field. */
        size_t best = (size_t)-1;
        int which = 0;
        for (int k = 0; k < K_COUNT; k++)
            if ((c.field_err & (1u << k)) && c.field_pos[k] < best) {
                best = c.field_pos[k];
                which = k;
            }
        s->err_pos = best;
        s->err_msg = c.field_msg[which];
        s->err_field = keys[which].name;
        return IMP_FIELD;
    }

    /* Point at the unescaped texts now that the buffer no longer moves. */
    for (uint32_t e = c.escaped; e; e &= e - 1) {
        int i = __builtin_ctz(e);
        text_slot(out, i)->ptr = s->text ? s->text + c.text_off[i] : "";
    }
    if (!(out->has & JS_HAS_VALUE))
        out->value_full = 0;
    out->refs = s->refs;
    return IMP_OK;
}

int js_scan(js_scanner *s, const char *line, size_t n, js_line *out)
{
    return scan(s, line, n, out, NULL);
}

int js_scan_next(js_scanner *s, const char *p, size_t n, js_line *out,
                 size_t *len)
{
    return scan(s, p, n, out, len) == IMP_OK;
}
