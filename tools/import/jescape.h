/* jescape.h -- JSON text for both of heapfmt-import's readers (jscan.c
 * for dump_all lines, v8scan.c and v8.c for V8 snapshots): \u escapes to
 * UTF-8, and UTF-8 cut short for a value preview. */
#ifndef JESCAPE_H
#define JESCAPE_H

#include <stddef.h>

/* The value of the four hex digits at p (either case), or -1. Reads no
 * further than the first byte that is not a hex digit. */
long jescape_hex4(const char *p);

/* Writes code point cp (below 0x110000; a surrogate gets its three-byte
 * form) as UTF-8 at o (room for 4 bytes); returns the byte count. */
size_t jescape_utf8(char *o, unsigned long cp);

/* How many of the len bytes at p a preview of at most max bytes keeps:
 * all, or max less the start of a UTF-8 sequence the cut would split. */
size_t jescape_cut(const char *p, size_t len, size_t max);

#endif /* JESCAPE_H */
