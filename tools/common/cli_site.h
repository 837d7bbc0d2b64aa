/* cli_site.h -- allocation sites as the tools name them: histo --by=site
 * rows, heapfmt-export's pprof locations. */
#ifndef CLI_SITE_H
#define CLI_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* "FILE:LINE", where FILE is the file name (cut: cli_name_cut), "(no
 * file)" or "#<undefined string ID>". Written into *buf (malloc'd, *cap bytes,
 * grown as needed). Returns 0 with *len set, or -1 when out of memory. */
int cli_site_name(char **buf, size_t *cap, const heapfmt_rstring *file,
                  uint64_t line, size_t *len);

#endif /* CLI_SITE_H */
