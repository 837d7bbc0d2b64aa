/* identity.h -- the identity of a dump in a fleet: host, pid, time, release.
 *
 * Exports of many dumps of many processes meet in one table (ClickHouse,
 * DuckDB, MongoDB); each row then says which dump it came from. The four
 * values come from the command line (--host, --pid, --time, --release)
 * or, for those not given, from the dump's META records:
 *
 *   host     META "host" (text)                  else ""
 *   pid      META "pid" (unsigned)               else 0
 *   time     META "time" (unsigned, seconds since 1970 UTC)  else 0
 *   release  META "release" (text)               else ""
 *
 * META that comes after the first object or root is not seen (the spec
 * says META comes first; the exporter streams). Texts are cut at
 * IDENT_MAX_TEXT bytes. */
#ifndef IDENTITY_H
#define IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* Longest host or release kept, in bytes of the dump or of the option:
 * a host name has at most 255 (RFC 1035), and a row repeats them. */
#define IDENT_MAX_TEXT 255u

typedef struct ident {
    const char *host;    /* NULL: not given */
    size_t host_len;
    const char *release; /* NULL: not given */
    size_t release_len;
    uint64_t pid, time;
    unsigned given;      /* IDENT_* bits: which came from options */
} ident;

enum {
    IDENT_HOST = 1,
    IDENT_PID = 2,
    IDENT_TIME = 4,
    IDENT_RELEASE = 8
};

#define IDENT_INIT { NULL, 0, NULL, 0, 0, 0, 0 }

/* Fills what the options did not give from the META pairs the reader has
 * seen (r NULL: none). The texts then point into the reader (valid while
 * it is open) or at the option strings. */
void ident_resolve(ident *id, const heapfmt_reader *r);

/* Parses --time: seconds since 1970-01-01 UTC, or a UTC date and time
 * YYYY-MM-DDTHH:MM:SS[Z] (also with a space instead of the T). Returns 0
 * and stores the seconds, or -1. */
int ident_parse_time(const char *s, uint64_t *out);

#endif /* IDENTITY_H */
