/* cli_escape.c -- printing names that may hold any bytes. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "cli_escape.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint_fast32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* No overlong forms, no surrogates, nothing past U+10FFFF. */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

size_t cli_utf8_len(const char *s, size_t n)
{
    return utf8_len((const unsigned char *)s, n);
}

/* The bytes of the character (or the invalid byte) at s, and in *cost the
 * most bytes it takes escaped (text form or JSON). */
static size_t char_cost(const unsigned char *s, size_t n, size_t *cost)
{
    unsigned char c = s[0];
    if (c >= 0x20 && c < 0x7f) {
        *cost = c == '"' || c == '\\' ? 2 : 1;
        return 1;
    }
    if (c < 0x80) { /* control: up to \u00XX */
        *cost = 6;
        return 1;
    }
    size_t u = utf8_len(s, n);
    if (u == 0) { /* invalid: \xHH, or U+FFFD in JSON */
        *cost = 4;
        return 1;
    }
    *cost = u;
    return u;
}

size_t cli_escaped_prefix(const char *s, size_t len, size_t budget)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, used = 0;
    while (i < len) {
        size_t cost, n = char_cost(p + i, len - i, &cost);
        if (used + cost > budget)
            break;
        used += cost;
        i += n;
    }
    return i;
}

/* The next piece of the text form of s[i..len): a character as it is
 * (a valid UTF-8 sequence, its bytes in s), or an escape written to e:
 * \\, \t, \n, \r, and \xHH for the other control bytes, DEL, and every
 * byte that does not start a valid UTF-8 sequence. Stores the piece in
 * *piece and its length in *n; returns the input bytes it stands for. */
static size_t text_piece(const char *s, size_t i, size_t len, char e[5],
                         const char **piece, size_t *n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = (unsigned char)s[i];
    char letter = 0;
    switch (c) {
    case '\\': letter = '\\'; break;
    case '\t': letter = 't'; break;
    case '\n': letter = 'n'; break;
    case '\r': letter = 'r'; break;
    default:
        if (c >= 0x20 && c != 0x7f) {
            size_t u = utf8_len((const unsigned char *)s + i, len - i);
            if (u > 0) {
                *piece = s + i;
                *n = u;
                return u;
            }
        }
        e[0] = '\\';
        e[1] = 'x';
        e[2] = hex[c >> 4];
        e[3] = hex[c & 15];
        *piece = e;
        *n = 4;
        return 1;
    }
    e[0] = '\\';
    e[1] = letter;
    *piece = e;
    *n = 2;
    return 1;
}

void cli_put_text(FILE *out, const char *s, size_t len)
{
    char e[5];
    for (size_t i = 0; i < len;) {
        const char *piece;
        size_t n;
        i += text_piece(s, i, len, e, &piece, &n);
        fwrite(piece, 1, n, out);
    }
}

size_t cli_text_width(const char *s, size_t len)
{
    size_t w = 0;
    char e[5];
    for (size_t i = 0; i < len;) {
        const char *piece;
        size_t n;
        i += text_piece(s, i, len, e, &piece, &n);
        w += piece == e ? n : 1; /* an escape, or one character */
    }
    return w;
}

char *cli_text_format(char *buf, size_t size, const char *s, size_t len)
{
    size_t o = 0;
    char e[5];
    for (size_t i = 0; i < len;) {
        const char *piece;
        size_t n;
        size_t used = text_piece(s, i, len, e, &piece, &n);
        if (o + n >= size) /* a piece is never split */
            break;
        memcpy(buf + o, piece, n);
        o += n;
        i += used;
    }
    buf[o] = '\0';
    return buf;
}

static int cli_csv_quoted(const char *s, size_t len)
{
    /* an empty field may come as NULL, which memchr must not see */
    return len > 0 && (s[0] == ' ' || s[len - 1] == ' ' ||
                       memchr(s, ',', len) != NULL || memchr(s, '"', len) != NULL);
}

/* Piece by piece between the quotes, so nothing is cut. */
void cli_put_csv_chars(FILE *out, const char *s, size_t len)
{
    if (len == 0) /* s may be NULL */
        return;
    for (;;) {
        const char *q = memchr(s, '"', len);
        size_t n = q != NULL ? (size_t)(q - s) : len;
        cli_put_text(out, s, n);
        if (q == NULL)
            return;
        fputs("\"\"", out);
        s = q + 1;
        len -= n + 1;
    }
}

void cli_put_csv(FILE *out, const char *s, size_t len)
{
    int quote = cli_csv_quoted(s, len);
    if (quote)
        fputc('"', out);
    cli_put_csv_chars(out, s, len);
    if (quote)
        fputc('"', out);
}

void cli_put_csv_site(FILE *out, const char *file, size_t len, uint64_t line)
{
    int quote = cli_csv_quoted(file, len);
    if (quote)
        fputc('"', out);
    cli_put_csv_chars(out, file, len);
    fprintf(out, ":%" PRIu64 "%s", line, quote ? "\"" : "");
}

void cli_put_json(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    cli_put_json_chars(out, s, len);
    fputc('"', out);
}

void cli_put_json_chars(FILE *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default:
                fputs("\\u00", out);
                fputc(hex[c >> 4], out);
                fputc(hex[c & 15], out);
            }
            i++;
        } else {
            size_t n = utf8_len(p + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(p + i, 1, n, out);
                i += n;
            }
        }
    }
}
