/* jescape.c -- JSON text for both of heapfmt-import's readers. */
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
