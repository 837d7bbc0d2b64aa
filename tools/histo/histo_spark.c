/* histo_spark.c -- one-line sparklines for trends over several dumps. */
#include <string.h>

#include "histo_print.h"

static const char *const blocks[8] = {
    "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
    "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
};
static const char ascii[8] = {'_', '.', '-', '~', '=', '+', '*', '#'};

size_t histo_sparkline(char *buf, size_t cap, const uint64_t *v, size_t n,
                       size_t stride, int unicode)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i * stride];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned level = 3; /* flat: the middle */
        if (hi > lo)
            level = (unsigned)((double)(v[i * stride] - lo) * 7.0 /
                                   (double)(hi - lo) +
                               0.5);
        if (level > 7)
            level = 7;
        size_t glyph = unicode ? 3 : 1;
        if (len + glyph >= cap)
            break;
        if (unicode)
            memcpy(buf + len, blocks[level], 3);
        else
            buf[len] = ascii[level];
        len += glyph;
    }
    buf[len] = '\0';
    return len;
}
