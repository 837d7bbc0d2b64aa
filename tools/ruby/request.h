/* request.h -- heapfmt-ruby: the Ruby code the target runs, and what it
 * answers.
 *
 * The code runs once, at a VM safe point (a postponed job), and does only
 * this: it starts a thread named heapfmt-ruby and returns. The thread
 * writes "started" to the status file, requires the extension (unless
 * HeapFmt is loaded already), opens the output file (which this program
 * created: no O_CREAT, so nothing is created once this program has
 * removed it) and calls HeapFmt.dump on it with the options given, then
 * writes "ok OBJECTS" or "error CLASS: MESSAGE" to the status file. Every
 * exception stays in the thread. */
#ifndef RUBY_REQUEST_H
#define RUBY_REQUEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct request {
    const char *ext;    /* absolute path of heapfmt.so */
    const char *output; /* the file the dump goes to (exists) */
    const char *status; /* the status file (exists) */
    int fork, gc, labels;
    const char *codec;  /* NULL: HeapFmt.dump's default */
    int level;          /* -1: the default */
} request;

/* The code, NUL-terminated, in buf; returns its length (without the NUL),
 * or 0 when it does not fit. */
size_t request_code(const request *q, char *buf, size_t cap);

/* What the status file says. */
enum { STATUS_NONE, STATUS_STARTED, STATUS_OK, STATUS_ERROR };

/* Reads the status file: STATUS_* and, for STATUS_OK, the objects; for
 * STATUS_ERROR the message (one line, control bytes replaced). A partly
 * written line counts as the previous state (NONE or STARTED). */
int request_status(const char *status_path, uint64_t *objects, char *msg,
                   size_t msglen);

#endif /* RUBY_REQUEST_H */
