/* jescape.c -- JSON text for both of heapfmt-import's readers: one
 * unescaper, one UTF-8 check (jescape.h says the policy). */
#include "jescape.h"

long jescape_hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = (unsigned char)p[i];
        unsigned d = c >= '0' && c <= '9'   ? c - '0'
                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                     : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : 16;
        if (d == 16)
            return -1;
        v = (v << 4) | (long)d;
    }
    return v;
}

size_t jescape_utf8(char *o, unsigned long v)
{
    if (v < 0x80) {
        o[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        o[0] = (char)(0xc0 | (v >> 6));
        o[1] = (char)(0x80 | (v & 0x3f));
        return 2;
    }
    if (v < 0x10000) {
        o[0] = (char)(0xe0 | (v >> 12));
        o[1] = (char)(0x80 | ((v >> 6) & 0x3f));
        o[2] = (char)(0x80 | (v & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (v >> 18));
    o[1] = (char)(0x80 | ((v >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((v >> 6) & 0x3f));
    o[3] = (char)(0x80 | (v & 0x3f));
    return 4;
}

size_t jescape_cut(const char *p, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80)
        n--;
    return n;
}

size_t jescape_decode(const char *p, int lone_ok, char o[4], size_t *olen,
                      const char **msg)
{
    char one;
    switch (*p) {
    case '"': one = '"'; break;
    case '\\': one = '\\'; break;
    case '/': one = '/'; break;
    case 'b': one = '\b'; break;
    case 'f': one = '\f'; break;
    case 'n': one = '\n'; break;
    case 'r': one = '\r'; break;
    case 't': one = '\t'; break;
    case 'u': {
        long v = jescape_hex4(p + 1);
        if (v < 0) {
            *msg = "invalid \\u escape";
            return 0;
        }
        size_t used = 5;
        unsigned long cp = (unsigned long)v;
        if (v >= 0xd800 && v <= 0xdfff) {
            long lo = v <= 0xdbff && p[5] == '\\' && p[6] == 'u'
                          ? jescape_hex4(p + 7)
                          : -1;
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + (((unsigned long)v - 0xd800) << 10) +
                     ((unsigned long)lo - 0xdc00);
                used = 11;
            } else if (!lone_ok) {
                *msg = "invalid Unicode surrogate pair";
                return 0;
            }
        }
        *olen = jescape_utf8(o, cp);
        return used;
    }
    default:
        *msg = "invalid escape";
        return 0;
    }
    o[0] = one;
    *olen = 1;
    return 1;
}

size_t jescape_utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0xc2)
        return 0;
    if (c < 0xe0)
        return (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c < 0xf0) {
        if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
            return 0;
        unsigned v = ((c & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
        return v < 0x800 || (v >= 0xd800 && v <= 0xdfff) ? 0 : 3;
    }
    if (c < 0xf5) {
        if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
            (p[3] & 0xc0) != 0x80)
            return 0;
        unsigned long v = ((c & 0x07ul) << 18) | ((p[1] & 0x3ful) << 12) |
                          ((p[2] & 0x3ful) << 6) | (p[3] & 0x3ful);
        return v < 0x10000 || v > 0x10ffff ? 0 : 4;
    }
    return 0;
}
