/* notes.h -- the warnings of a diff, kept so that every output format can
 * show them: they go to stderr as "heapfmt-diff: FILE: warning: ..." lines
 * (notes_say, through the front end's context) and into the "warnings"
 * array of the JSON output. */
#ifndef DIFF_NOTES_H
#define DIFF_NOTES_H

#include <stddef.h>

#include "status.h"
#include "diff_mem.h"

typedef struct note {
    const char *file; /* the dump it is about, or NULL */
    char *text;
} note;

typedef struct notes {
    const diff_mem *mem;
    note *v;
    size_t n, cap;
} notes;

void notes_init(notes *w, const diff_mem *mem);
void notes_free(notes *w);

/* Adds a warning about file (kept by pointer; NULL when about no single
 * dump): printf format, at most 1 KiB. Returns 0 or -1 (no memory). */
int notes_add(notes *w, const char *file, const char *fmt, ...)
    AN_PRINTF(3, 4);

/* Says every warning through c's hook, in order. */
void notes_say(const notes *w, an_ctx *c);

#endif /* DIFF_NOTES_H */
