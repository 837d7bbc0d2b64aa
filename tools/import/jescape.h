/* jescape.h -- JSON text for both of heapfmt-import's readers (jscan.c
 * for dump_all lines, v8scan.c and v8.c for V8 snapshots): one unescaper
 * and one UTF-8 check, so that both take and refuse the same strings, with
 * the same words; and UTF-8 cut short for a value preview.
 *
 * The policy: a string is UTF-8 (RFC 3629; invalid bytes are an error,
 * not replaced); an escape is one of RFC 8259's; a \u escape of a UTF-16
 * surrogate needs its pair, except where the format says otherwise: V8
 * writes the UTF-16 of JavaScript strings, which may hold a lone
 * surrogate, and those become their three-byte form. */
#ifndef JESCAPE_H
#define JESCAPE_H

#include <stddef.h>

/* The value of the four hex digits at p (either case), or -1. Reads no
 * further than the first byte that is not a hex digit. */
long jescape_hex4(const char *p);

/* Writes code point cp (below 0x110000; a surrogate gets its three-byte
 * form) as UTF-8 at o (room for 4 bytes); returns the byte count. */
size_t jescape_utf8(char *o, unsigned long cp);

/* Decodes the escape whose backslash is just before p (p is followed by a
 * NUL byte or by 11 more bytes). Stores its UTF-8 at o (1-4 bytes) and
 * their count in *olen, and returns how many bytes from p it took (1, 5
 * or 11); or returns 0 with the complaint in *msg ("invalid escape",
 * "invalid \\u escape", "invalid Unicode surrogate pair"). lone_ok lets a
 * surrogate without its pair through, as its three-byte form. */
size_t jescape_decode(const char *p, int lone_ok, char o[4], size_t *olen,
                      const char **msg);

/* The length of the valid UTF-8 sequence at p (a byte >= 0x80), or 0
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 * p is followed by a NUL byte or by three more bytes. */
size_t jescape_utf8_len(const unsigned char *p);

/* How many of the len bytes at p a preview of at most max bytes keeps:
 * all, or max less the start of a UTF-8 sequence the cut would split. */
size_t jescape_cut(const char *p, size_t len, size_t max);

#endif /* JESCAPE_H */
