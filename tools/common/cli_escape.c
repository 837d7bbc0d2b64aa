/* cli_escape.c -- printing names that may hold any bytes. */
#include <stdint.h>
#include <string.h>

#include "cli_escape.h"

/* The escape for byte c in text form, written to e (at least 5 bytes);
 * returns its length, or 0 when c stands for itself. */
static size_t text_escape(unsigned char c, char e[5])
{
    static const char hex[] = "0123456789abcdef";
    char letter = 0;
    switch (c) {
    case '\\': letter = '\\'; break;
    case '\t': letter = 't'; break;
    case '\n': letter = 'n'; break;
    case '\r': letter = 'r'; break;
    default:
        if (c >= 0x20 && c != 0x7f)
            return 0;
        e[0] = '\\';
        e[1] = 'x';
        e[2] = hex[c >> 4];
        e[3] = hex[c & 15];
        return 4;
    }
    e[0] = '\\';
    e[1] = letter;
    return 2;
}

void cli_put_text(FILE *out, const char *s, size_t len)
{
    size_t start = 0;
    char e[5];
    for (size_t i = 0; i < len; i++) {
        size_t n = text_escape((unsigned char)s[i], e);
        if (n == 0)
            continue;
        if (i > start)
            fwrite(s + start, 1, i - start, out);
        fwrite(e, 1, n, out);
        start = i + 1;
    }
    if (len > start)
        fwrite(s + start, 1, len - start, out);
}

size_t cli_text_width(const char *s, size_t len)
{
    size_t w = 0;
    char e[5];
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t n = text_escape(c, e);
        if (n != 0)
            w += n;
        else if ((c & 0xc0) != 0x80)
            w++;
    }
    return w;
}

char *cli_text_format(char *buf, size_t size, const char *s, size_t len)
{
    size_t o = 0;
    char e[5];
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t n = text_escape(c, e), used = 1;
        const char *from = e;
        if (n == 0) {
            /* A character: a lead byte and its continuation bytes, kept
             * together so that a cut never splits it. */
            n = 1;
            if (c >= 0xc0)
                while (n < 4 && i + n < len &&
                       ((unsigned char)s[i + n] & 0xc0) == 0x80)
                    n++;
            from = s + i;
            used = n;
        }
        if (o + n >= size)
            break;
        memcpy(buf + o, from, n);
        o += n;
        i += used;
    }
    buf[o] = '\0';
    return buf;
}

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
