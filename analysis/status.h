/* status.h -- how the engines of analysis/ report: a status, a message on
 * a context, and warnings through the context's hook.
 *
 * An engine never prints, exits or aborts (CONTRIBUTING.md). A failure
 * is an an_status returned up to the front end, with its message and the
 * file it concerns set once on the an_ctx (an_fail, the one setter); the
 * front end prints "prog: file: message" and exits with the code of the
 * status. Warnings and notes (a skipped block, references left out) do
 * not stop the work: they go to the context's hook as they happen, so
 * the front end shows them in the order they arise, between its own
 * lines. Progress on a long read goes to hooks too. A NULL context, or
 * one without hooks, is silent (tests, fuzzing). */
#ifndef ANALYSIS_STATUS_H
#define ANALYSIS_STATUS_H

#include <stdarg.h>
#include <stdint.h>

#if defined(__GNUC__)
#define AN_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define AN_PRINTF(fmt, args)
#endif

/* The outcomes, in order of gravity (the worse of two is the larger). */
enum an_status {
    AN_OK = 0,         /* done */
    AN_INCOMPLETE = 1, /* an input was cut or damaged: the results cover
                          its readable part (warnings said what was lost) */
    AN_ERROR = 2       /* nothing to show: the message says why */
};

/* What a warning hook is given besides the text. */
enum an_say {
    AN_SAY_WARNING, /* something wrong with an input */
    AN_SAY_NOTE,    /* what a reader of the results should know */
    AN_SAY_ERROR    /* a failure the work goes on after (an_fail with
                       AN_INCOMPLETE) */
};

typedef struct an_ctx an_ctx;

/* Receives a warning or note about file (NULL: about no one file). */
typedef void an_warn_fn(void *user, const char *file, enum an_say kind,
                        const char *fmt, va_list ap);

/* A long read of file: begin (total bytes, 0 when unknown), ticks (bytes
 * and objects done), end. One read at a time. */
typedef struct an_progress_hooks {
    void (*begin)(void *user, const char *file, uint64_t total);
    void (*tick)(void *user, uint64_t done, uint64_t objects);
    void (*end)(void *user);
} an_progress_hooks;

struct an_ctx {
    int status;          /* AN_ERROR once an_fail set one (else AN_OK) */
    const char *file;    /* what the message concerns, or NULL; the
                            caller's string (a dump's name), not a copy */
    char message[4096];  /* the reason of the last an_fail */
    an_warn_fn *warn;    /* NULL: warnings dropped */
    const an_progress_hooks *progress; /* NULL: none */
    void *user;          /* for the hooks */
};

/* Sets the failure of c: status, file (may be NULL) and message; returns
 * status. c may be NULL (the message is dropped). AN_INCOMPLETE means the
 * work goes on with what was read: its message is said at once through
 * the hook (AN_SAY_ERROR) and not kept, so that an AN_INCOMPLETE never
 * leaves a message on c and the front end prints only an AN_ERROR's. */
int an_fail(an_ctx *c, int status, const char *file, const char *fmt, ...)
    AN_PRINTF(4, 5);

/* Forgets the failure set on c, for an engine that met it and went on. */
void an_clear(an_ctx *c);

/* "out of memory" about file, as AN_ERROR. */
int an_no_memory(an_ctx *c, const char *file);

/* A warning or a note through c's hook. */
void an_warn(an_ctx *c, const char *file, const char *fmt, ...)
    AN_PRINTF(3, 4);
void an_note(an_ctx *c, const char *file, const char *fmt, ...)
    AN_PRINTF(3, 4);

/* Progress, through c's hooks when there are some. */
void an_progress_begin(an_ctx *c, const char *file, uint64_t total);
void an_progress_tick(an_ctx *c, uint64_t done, uint64_t objects);
void an_progress_end(an_ctx *c);

/* The worse of two statuses. */
static inline int an_worse(int a, int b)
{
    return a > b ? a : b;
}

#endif /* ANALYSIS_STATUS_H */
