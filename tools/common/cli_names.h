/* cli_names.h -- readable, stable names for classes and allocation sites,
 * shared by every tool so that histo, heapfmt-diff and heapfmt-export
 * print the same text.
 *
 *   named class           its name, as recorded
 *   anonymous class       #<Class:0x00007f3a8c0d1e28>   (from its id)
 *   anonymous module      #<Module:0x00007f3a8c0d1e28>
 *   no class (index 0)    (no class)
 *   never defined         #<Class:index 17>  (its CLASS record was lost)
 *
 * Two dumps of different processes give an anonymous class different ids,
 * so such classes only match across dumps by id, never by accident. */
#ifndef CLI_NAMES_H
#define CLI_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* Names shown in a table, a page or a row (histo, heapfmt-diff,
 * heapfmt-graph, heapfmt-report) are cut where they would pass
 * CLI_NAME_MAX bytes once escaped (cli_escaped_prefix: 256 characters of
 * a usual name, 42 control bytes), at a character boundary, with a marker
 * that says how many bytes were left out:
 * "ActiveRecord::...\u2026(+1048320 bytes)". A row per object of a 1 MiB
 * name made pages and tables of gigabytes from dumps of kilobytes (issue
 * 31); no real class, file or function name comes near. heapfmt-export
 * has its own limits (its *_truncated members). */
#define CLI_NAME_MAX 256
#define CLI_CUT_SLACK 32 /* the marker's room: a name that long is not cut */
#define CLI_CUT_MARK "\xe2\x80\xa6(+" /* "…(+" N " bytes)" */

typedef struct cli_name {
    char s[CLI_NAME_MAX + CLI_CUT_SLACK]; /* a placeholder, or a cut name */
} cli_name;

/* s itself when it takes at most CLI_NAME_MAX + CLI_CUT_SLACK bytes
 * escaped (so that a cut name is not cut again), else its first bytes
 * that take CLI_NAME_MAX and the marker, in buf. *out_len gets the
 * length. Reads at most about CLI_NAME_MAX + CLI_CUT_SLACK bytes of s. */
const char *cli_name_cut(const char *s, size_t len, cli_name *buf,
                         size_t *out_len);

/* Formats the placeholder for a class without a name into *out and returns
 * out->s. index 0 means "no class"; id 0 with a nonzero index means the
 * class was never defined. */
const char *cli_placeholder(cli_name *out, uint32_t index, uint64_t id,
                            uint64_t flags);

/* The display name of a reader class: its name, or the placeholder. The
 * result points into the reader's table or into *buf. *len gets the length
 * (names may contain NUL bytes). */
const char *cli_class_name(const heapfmt_rclass *c, cli_name *buf,
                           size_t *len);

/* The same for a footer summary entry. */
const char *cli_summary_name(const heapfmt_class_summary *s, cli_name *buf,
                             size_t *len);

/* The same, cut for showing (cli_name_cut). */
const char *cli_class_shown(const heapfmt_rclass *c, cli_name *buf,
                            size_t *len);
const char *cli_summary_shown(const heapfmt_class_summary *s, cli_name *buf,
                              size_t *len);

/* An allocation site as histo --by=site rows and heapfmt-export's pprof
 * locations show it: "FILE:LINE", where FILE is the file name (cut:
 * cli_name_cut), "(no file)" or "#<undefined string ID>". Written into
 * *buf (malloc'd, *cap bytes, grown as needed). Returns 0 with *len set,
 * or -1 when out of memory. */
int cli_site_name(char **buf, size_t *cap, const heapfmt_rstring *file,
                  uint64_t line, size_t *len);

#endif /* CLI_NAMES_H */
