/* cli_escape.h -- printing names that may hold any bytes.
 *
 * Class names, VM types and file names in a dump are byte strings: they
 * may hold tabs, newlines, NUL bytes or invalid UTF-8. Tools print them
 * through these functions so that one name is always one field of a
 * table or TSV line, and always a valid JSON string.
 *
 * Text form (tables, TSV, CSV, messages): bytes as they are, except
 *     backslash -> \\    tab -> \t    newline -> \n    CR -> \r
 *     other bytes below 0x20, 0x7f, and each byte that does not start a
 *     valid UTF-8 sequence -> \xHH
 * Valid UTF-8 passes through unchanged, so "Café" stays "Café", and the
 * output is always valid UTF-8.
 *
 * CSV form (RFC 4180): the text form as one field, in double quotes with
 * inner quotes doubled when the raw name holds a comma or a double quote
 * or begins or ends with a space (escaping neither makes nor removes
 * those, so the raw name decides); a name of any length is never cut.
 *
 * JSON form: a quoted JSON string (RFC 8259) with the standard escapes;
 * a byte that does not start a valid UTF-8 sequence becomes U+FFFD. */
#ifndef CLI_ESCAPE_H
#define CLI_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes the text form of the len bytes at s to out. */
void cli_put_text(FILE *out, const char *s, size_t len);

/* The number of terminal columns the text form takes (one per character:
 * UTF-8 continuation bytes count 0; no East Asian width rules). */
size_t cli_text_width(const char *s, size_t len);

/* Writes the text form to buf (size > 0), always NUL-terminated, cut at a
 * character boundary if it does not fit. Returns buf. */
char *cli_text_format(char *buf, size_t size, const char *s, size_t len);

/* The length of the valid UTF-8 sequence that starts s (n > 0 bytes
 * there), or 0 when none does (also for an overlong form, a surrogate, a
 * code point past U+10FFFF or a sequence cut by n). */
size_t cli_utf8_len(const char *s, size_t n);

/* The length of the longest prefix of the len bytes at s that ends at a
 * character boundary and takes at most budget bytes escaped, in the text
 * form or in a JSON string, whichever is longer (a control byte takes 6,
 * "\u0001"; an invalid one 4, "\xff"). Reads at most budget + 4 bytes. */
size_t cli_escaped_prefix(const char *s, size_t len, size_t budget);

/* Writes the CSV field of s to out. */
void cli_put_csv(FILE *out, const char *s, size_t len);

/* Writes the CSV field of a site, "file:line": quoted as the file name
 * alone would be. */
void cli_put_csv_site(FILE *out, const char *file, size_t len, uint64_t line);

/* The text form of s with inner quotes doubled: a CSV field's inside. */
void cli_put_csv_chars(FILE *out, const char *s, size_t len);

/* Writes s as a quoted JSON string to out. */
void cli_put_json(FILE *out, const char *s, size_t len);

/* The same without the quotes: for a string built from several parts,
 * written one after the other between two '"'. */
void cli_put_json_chars(FILE *out, const char *s, size_t len);

#endif /* CLI_ESCAPE_H */
