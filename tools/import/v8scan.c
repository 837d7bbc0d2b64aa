/* v8scan.c -- a streaming JSON tokenizer for V8 heap snapshots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jescape.h"
#include "v8scan.h"

#define VS_DEFAULT_CAP ((size_t)1 << 20)

/* Every token but a string fits in this many bytes (a 20-digit number and
 * the byte after it); refilling to it first keeps the hot loops free of
 * buffer-end checks. */
#define VS_LOOKAHEAD 32

int vs_init(vs_stream *s, lr_read_fn fn, void *opaque, size_t cap,
            size_t text_max)
{
    memset(s, 0, sizeof *s);
    s->read = fn;
    s->opaque = opaque;
    s->cap = cap == 0 ? VS_DEFAULT_CAP : cap < 64 ? 64 : cap;
    s->text_max = text_max;
    s->buf = malloc(s->cap + 1);
    if (!s->buf)
        return IMP_NOMEM;
    s->buf[0] = '\0';
    return IMP_OK;
}

void vs_free(vs_stream *s)
{
    free(s->buf);
    free(s->text);
    s->buf = NULL;
    s->text = NULL;
}

uint64_t vs_offset(const vs_stream *s)
{
    return s->base + s->pos;
}

static int fail(vs_stream *s, int status, const char *msg)
{
    s->err_off = vs_offset(s);
    s->err_msg = msg;
    return status;
}

/* Makes at least want bytes available from pos (fewer at the end of the
 * input). Returns IMP_OK or IMP_READ. */
static int fill(vs_stream *s, size_t want)
{
    if (s->end - s->pos >= want || s->eof)
        return IMP_OK;
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->end - s->pos);
        s->base += s->pos;
        s->end -= s->pos;
        s->pos = 0;
    }
    while (s->end < want && !s->eof) {
        long n = s->read(s->opaque, s->buf + s->end, s->cap - s->end);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n < 0) {
            s->sys_errno = (int)-n;
            s->buf[s->end] = '\0';
            return fail(s, IMP_READ, "read error");
        }
        if (n == 0)
            s->eof = 1;
        else
            s->end += (size_t)n > s->cap - s->end ? s->cap - s->end : (size_t)n;
    }
    s->buf[s->end] = '\0';
    return IMP_OK;
}

/* JSON's blank space, by table: one load where four compares were */
static const unsigned char blank[256] = {
    [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

static int is_blank(int c)
{
    return blank[(unsigned char)c];
}

int vs_peek(vs_stream *s, int *c)
{
    for (;;) {
        while (s->pos < s->end && is_blank(s->buf[s->pos]))
            s->pos++;
        if (s->pos < s->end) {
            *c = s->buf[s->pos];
            return IMP_OK;
        }
        if (s->eof)
            return fail(s, IMP_CUT, "the input ends here");
        int rc = fill(s, VS_LOOKAHEAD);
        if (rc != IMP_OK)
            return rc;
    }
}

int vs_expect(vs_stream *s, int c)
{
    int got;
    int rc = vs_peek(s, &got);
    if (rc != IMP_OK)
        return rc;
    if (got != c) {
        static const char *const msgs[] = {"expected '{'", "expected '}'",
                                           "expected '['", "expected ']'",
                                           "expected ':'", "expected ','",
                                           "unexpected byte"};
        const char *m = c == '{' ? msgs[0] : c == '}' ? msgs[1]
                      : c == '[' ? msgs[2] : c == ']' ? msgs[3]
                      : c == ':' ? msgs[4] : c == ',' ? msgs[5] : msgs[6];
        return fail(s, IMP_SYNTAX, m);
    }
    s->pos++;
    return IMP_OK;
}

int vs_open(vs_stream *s, int open, int *more)
{
    int c, rc = vs_expect(s, open);
    if (rc != IMP_OK || (rc = vs_peek(s, &c)) != IMP_OK)
        return rc;
    *more = c != (open == '[' ? ']' : '}');
    if (!*more)
        s->pos++;
    return IMP_OK;
}

int vs_next_member(vs_stream *s, int close, int *more)
{
    int c;
    int rc = vs_peek(s, &c);
    if (rc != IMP_OK)
        return rc;
    if (c == ',') {
        *more = 1;
    } else if (c == close) {
        *more = 0;
    } else {
        return fail(s, IMP_SYNTAX, close == ']' ? "expected ',' or ']'"
                                            : "expected ',' or '}'");
    }
    s->pos++;
    return IMP_OK;
}

int vs_uint(vs_stream *s, uint64_t *v)
{
    /* Blank space first: V8 puts a newline before each node's fields. */
    while (s->pos < s->end && is_blank(s->buf[s->pos]))
        s->pos++;
    if (s->end - s->pos < VS_LOOKAHEAD) {
        int c;
        int rc = vs_peek(s, &c);
        if (rc != IMP_OK)
            return rc;
        if ((rc = fill(s, VS_LOOKAHEAD)) != IMP_OK)
            return rc;
    }
    const unsigned char *p = s->buf + s->pos;
    s->tok_off = vs_offset(s);
    if (*p < '0' || *p > '9')
        return fail(s, IMP_SYNTAX, *p == '-' ? "a negative number"
                                         : "expected a number");
    uint64_t x = (uint64_t)(*p++ - '0');
    if (x == 0 && *p >= '0' && *p <= '9')
        return fail(s, IMP_SYNTAX, "a number with a leading zero");
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return fail(s, IMP_SYNTAX, "a number beyond 2^64");
        x = x * 10 + d;
        p++;
    }
    if (*p == '.' || *p == 'e' || *p == 'E')
        return fail(s, IMP_SYNTAX, "expected an integer");
    if ((size_t)(p - s->buf) == s->end) /* no byte after it */
        return s->eof ? fail(s, IMP_CUT, "the input ends inside a number")
                      : fail(s, IMP_SYNTAX, "a number too long");
    s->pos = (size_t)(p - s->buf);
    *v = x;
    return IMP_OK;
}

/* The general path of vs_uints: each number and comma on its own. */
static int uints_slow(vs_stream *s, unsigned n, uint64_t *v,
                      const char *short_msg, int *more)
{
    int rc, go_on;
    s->rec_slow = 1;
    for (unsigned k = 0; k < n; k++) {
        if (k > 0) {
            if ((rc = vs_next_member(s, ']', &go_on)) != IMP_OK)
                return rc;
            if (!go_on) { /* at the ']' just read */
                s->pos--;
                return fail(s, IMP_SYNTAX, short_msg);
            }
        }
        if ((rc = vs_uint(s, &v[k])) != IMP_OK)
            return rc;
        s->rec_off[k] = s->tok_off;
    }
    return vs_next_member(s, ']', more);
}

/* Bytes that may follow a number of the fast path: the others (a digit
 * past 19, '.', 'e', a sign, the NUL at the end of the data) send the
 * record the general way, which words the complaint. */
static const unsigned char number_end[256] = {
    [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, [','] = 1, [']'] = 1};

int vs_uints(vs_stream *s, unsigned n, uint64_t *v, const char *short_msg,
             int *more)
{
    /* Room for n numbers of 19 digits (which cannot overflow) with a
     * comma and a blank or two; anything unusual (more blank space, a
     * longer number, a sign, an error) goes the general way from the
     * start. The NUL after the data stops every loop. */
    if (n == 0 || n > VS_MAX_UINTS)
        return fail(s, IMP_SYNTAX, short_msg);
    if (s->end - s->pos < (size_t)n * 24 + 8 && !s->eof)
        return uints_slow(s, n, v, short_msg, more);
    const unsigned char *p = s->buf + s->pos;
    for (unsigned k = 0; k < n; k++) {
        while (blank[*p])
            p++;
        if (k > 0) {
            if (*p != ',')
                return uints_slow(s, n, v, short_msg, more);
            p++;
            while (blank[*p])
                p++;
        }
        const unsigned char *start = p;
        uint64_t x = 0;
        while ((unsigned)(*p - '0') < 10)
            x = x * 10 + (uint64_t)(*p++ - '0');
        size_t len = (size_t)(p - start);
        if (len - 1 >= 19 || !number_end[*p] || (*start == '0' && len > 1))
            return uints_slow(s, n, v, short_msg, more);
        v[k] = x;
    }
    s->rec_slow = 0;
    s->rec_pos = s->pos;
    while (blank[*p])
        p++;
    if (*p == ',' || *p == ']') {
        *more = *p == ',';
        s->pos = (size_t)(p + 1 - s->buf);
        return IMP_OK;
    }
    /* blank space to the end of the buffer, or a wrong byte: the general
     * step may refill the buffer, so the numbers' offsets are kept first */
    for (unsigned k = 0; k < n; k++)
        s->rec_off[k] = vs_uints_offset(s, k);
    s->rec_slow = 1;
    s->pos = (size_t)(p - s->buf);
    return vs_next_member(s, ']', more);
}

uint64_t vs_uints_offset(const vs_stream *s, unsigned k)
{
    if (k >= VS_MAX_UINTS)
        return vs_offset(s);
    if (s->rec_slow)
        return s->rec_off[k];
    /* the fast path read this record whole from rec_pos: walk it again */
    const unsigned char *p = s->buf + s->rec_pos;
    for (unsigned i = 0;; i++) {
        while (blank[*p] || (i > 0 && *p == ','))
            p++;
        if (i == k)
            return s->base + (uint64_t)(p - s->buf);
        while ((unsigned)(*p - '0') < 10)
            p++;
    }
}

/* Appends n bytes to the string being read, within text_max. */
static int text_add(vs_stream *s, const void *p, size_t n)
{
    if (s->text_len + n > s->text_max) {
        s->text_cut = 1;
        n = s->text_max - s->text_len;
        if (n == 0)
            return IMP_OK;
    }
    if (s->text_len + n + 1 > s->text_cap) {
        size_t cap = s->text_cap ? s->text_cap : 256;
        while (cap < s->text_len + n + 1)
            cap *= 2;
        char *t = realloc(s->text, cap);
        if (!t)
            return fail(s, IMP_NOMEM, "out of memory");
        s->text = t;
        s->text_cap = cap;
    }
    memcpy(s->text + s->text_len, p, n);
    s->text_len += n;
    return IMP_OK;
}

/* Decodes the escape at pos (the byte after '\'); 12 bytes are there or
 * the input ends. Lone surrogates pass, as V8 writes them (jescape.h). */
static int escape(vs_stream *s)
{
    char u[4];
    size_t n;
    const char *msg;
    size_t used = jescape_decode((const char *)s->buf + s->pos, 1, u, &n, &msg);
    if (used == 0)
        return fail(s, IMP_SYNTAX, msg);
    s->pos += used;
    return text_add(s, u, n);
}

int vs_string(vs_stream *s)
{
    int rc = vs_expect(s, '"');
    if (rc != IMP_OK)
        return rc == IMP_SYNTAX ? fail(s, IMP_SYNTAX, "expected a string") : rc;
    s->text_len = 0;
    s->text_cut = 0;
    for (;;) {
        const unsigned char *p = s->buf + s->pos, *e = s->buf + s->end;
        const unsigned char *q = p;
        while (q < e && *q != '"' && *q != '\\' && *q >= 0x20 && *q < 0x80)
            q++;
        if ((rc = text_add(s, p, (size_t)(q - p))) != IMP_OK)
            return rc;
        s->pos = (size_t)(q - s->buf);
        if (q == e) {
            if (s->eof)
                return fail(s, IMP_CUT, "the input ends inside a string");
            if ((rc = fill(s, VS_LOOKAHEAD)) != IMP_OK)
                return rc;
            continue;
        }
        if (*q == '"') {
            s->pos++;
            break;
        }
        if (*q < 0x20)
            return fail(s, IMP_SYNTAX, "a control character in a string");
        if (*q >= 0x80) { /* a UTF-8 sequence, whole in the buffer */
            if (s->end - s->pos < 4 && !s->eof) {
                if ((rc = fill(s, 4)) != IMP_OK)
                    return rc;
                continue;
            }
            size_t u = jescape_utf8_len(q), have = (size_t)(e - q);
            if (u == 0) { /* a sequence cut by the end of the input? */
                int cut = s->eof && have < 4 && *q >= 0xc2 && *q < 0xf5;
                for (size_t i = 1; cut && i < have; i++)
                    cut = (q[i] & 0xc0) == 0x80;
                if (!cut)
                    return fail(s, IMP_SYNTAX, "invalid UTF-8");
                s->pos = s->end; /* where the input ends, as for text */
                return fail(s, IMP_CUT, "the input ends inside a string");
            }
            if ((rc = text_add(s, q, u)) != IMP_OK)
                return rc;
            s->pos += u;
            continue;
        }
        s->pos++; /* the backslash */
        if ((rc = fill(s, 12)) != IMP_OK)
            return rc;
        if (s->end - s->pos < 12 && s->eof) {
            /* an escape cut by the end of the input, or one at the end of
             * a string just before it: decode only what is whole */
            const unsigned char *t = s->buf + s->pos;
            size_t have = s->end - s->pos;
            if (have == 0 || (*t == 'u' && have < 5))
                return fail(s, IMP_CUT, "the input ends inside a string");
        }
        if ((rc = escape(s)) != IMP_OK)
            return rc;
    }
    if (s->text)
        s->text[s->text_len] = '\0';
    return IMP_OK;
}

/* A byte of a number or of true, false, null. */
static int is_literal(int c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E' || c == 't' || c == 'r' || c == 'u' ||
           c == 'f' || c == 'a' || c == 'l' || c == 's' || c == 'n';
}

int vs_skip(vs_stream *s)
{
    unsigned depth = 0;
    /* which bracket each open level needs, as bits: 1 = ']' */
    unsigned char want[VS_MAX_DEPTH / 8];
    int rc, c;
    for (;;) {
        if ((rc = vs_peek(s, &c)) != IMP_OK)
            return rc;
        if (c == '"') {
            size_t keep = s->text_max;
            s->text_max = 0; /* validate only */
            rc = vs_string(s);
            s->text_max = keep;
            if (rc != IMP_OK)
                return rc;
        } else if (c == '[' || c == '{') {
            if (depth == VS_MAX_DEPTH)
                return fail(s, IMP_SYNTAX, "nested too deeply");
            if (c == '[')
                want[depth / 8] |= (unsigned char)(1u << depth % 8);
            else
                want[depth / 8] &= (unsigned char)~(1u << depth % 8);
            depth++;
            s->pos++;
            continue; /* an empty container closes at the next turn */
        } else if (c == ']' || c == '}') {
            if (depth == 0 || ((want[(depth - 1) / 8] >> (depth - 1) % 8 & 1) !=
                               (c == ']')))
                return fail(s, IMP_SYNTAX, "unmatched bracket");
            depth--;
            s->pos++;
        } else if (c == ',' || c == ':') {
            if (depth == 0)
                return fail(s, IMP_SYNTAX, "expected a value");
            s->pos++;
            continue;
        } else {
            /* a number or literal: a run of their characters */
            size_t n = 0;
            for (;;) {
                while (s->pos < s->end && is_literal(s->buf[s->pos])) {
                    s->pos++;
                    n++;
                }
                if (s->pos < s->end || s->eof)
                    break;
                if ((rc = fill(s, VS_LOOKAHEAD)) != IMP_OK)
                    return rc;
            }
            if (n == 0)
                return fail(s, IMP_SYNTAX, "expected a value");
        }
        if (depth == 0)
            return IMP_OK;
    }
}

int vs_skip_bom(vs_stream *s)
{
    int rc = fill(s, 3);
    if (rc == IMP_OK && s->end - s->pos >= 3 &&
        memcmp(s->buf + s->pos, "\xef\xbb\xbf", 3) == 0)
        s->pos += 3;
    return rc;
}

int vs_at_end(vs_stream *s)
{
    int c;
    int rc = vs_peek(s, &c);
    if (rc == IMP_CUT)
        return IMP_OK;
    if (rc != IMP_OK)
        return rc;
    return fail(s, IMP_SYNTAX, "data after the end of the snapshot");
}
