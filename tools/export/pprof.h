/* pprof.h -- a heapfmt dump as a pprof heap profile (profile.proto,
 * gzip'd), for go tool pprof, Pyroscope, Parca and the continuous
 * profilers that read it.
 *
 * Samples, by what the dump knows of where objects come from:
 *   - objects with allocation call stacks (a malloc tracker's dump): one
 *     sample per stack, its locations the stack's frames from the top
 *     frame outward (histo --by=frame's top frame: the allocator's and
 *     the tracker's own frames, which every stack starts with, are left
 *     out, as Go and tcmalloc leave out theirs). Each frame is one
 *     location: its function and source line, and a mapping per library
 *     (the location's address is the frame's offset in it). Objects
 *     without a stack are one location "(no stack)";
 *   - else objects with allocation sites (a Ruby dump): one sample per
 *     site and class, one location per site (a function named
 *     "file:line", as histo --by=site names it, with that file and line),
 *     "(no site)" for the others;
 *   - else one sample per class, a location named by the class.
 * Every sample has the label "class" (its objects' class) and, for a
 * stack whose objects also have a site (heapfmt-malloc in a Ruby
 * process), "site".
 *
 * Values: inuse_objects (count) and inuse_space (bytes), the objects and
 * bytes histo counts; before them alloc_objects and alloc_space when the
 * dump knows every allocation per stack (an exact-mode heapfmt-malloc
 * dump: META malloc.stack.ID). A stack's allocations go to its first
 * sample, and stacks whose blocks were all freed get a sample of their
 * own with nothing in use. The default sample type is inuse_space.
 *
 * The dump's identity (identity.h) and producer become comments, its time
 * time_nanos; a sampled malloc dump's sampling interval is the period
 * (space, bytes).
 *
 * Memory: the samples (one per stack, or site and class, or class), the
 * frames, functions and strings the profile names; the encoded profile
 * streams through zlib to the output. */
#ifndef PPROF_H
#define PPROF_H

#include "export.h"

/* Reads d once and writes its profile to out. Returns an exit code as
 * export_dump does: an incomplete dump gives the profile of what could be
 * read, and CLI_EXIT_INCOMPLETE. */
int pprof_export(cli_dump *d, const export_options *opt, jout *out,
                 const char *out_name);

#endif /* PPROF_H */
