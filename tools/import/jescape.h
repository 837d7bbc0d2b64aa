/* jescape.h -- JSON \u escapes, for both of heapfmt-import's scanners
 * (jscan.c for dump_all lines, v8scan.c for V8 snapshots). */
#ifndef JESCAPE_H
#define JESCAPE_H

#include <stddef.h>

/* The value of the four hex digits at p (either case), or -1. Reads no
 * further than the first byte that is not a hex digit. */
long jescape_hex4(const char *p);

/* Writes code point cp (below 0x110000; a surrogate gets its three-byte
 * form) as UTF-8 at o (room for 4 bytes); returns the byte count. */
size_t jescape_utf8(char *o, unsigned long cp);

#endif /* JESCAPE_H */
