/*
 * tassert.h -- Criterion assertion shorthands for heapfmt status codes,
 * and the openings the library's tests share (a writer on a memory sink,
 * a reader over bytes), asserting as they go. Criterion tests only:
 * the support .c files are linked into plain programs too (mkhostile).
 */
#ifndef TASSERT_H
#define TASSERT_H

#include <criterion/criterion.h>

#include "heapfmt.h"
#include "tmodel.h"

/* expr must give HEAPFMT_OK */
#define TASSERT_OK(expr)                                                     \
    do {                                                                     \
        int tassert_rc_ = (expr);                                            \
        cr_assert_eq(tassert_rc_, HEAPFMT_OK, "%s gave %s (%d)", #expr,     \
                     tstatus_name(tassert_rc_), tassert_rc_);               \
    } while (0)

/* expr must give the status want */
#define TASSERT_RC(expr, want)                                               \
    do {                                                                     \
        int tassert_rc_ = (expr);                                            \
        cr_assert_eq(tassert_rc_, (want), "%s gave %s (%d), expected %s",   \
                     #expr, tstatus_name(tassert_rc_), tassert_rc_,         \
                     tstatus_name(want));                                    \
    } while (0)

/* Hash flooding: keys made to collide cost what random keys cost, in CPU
 * seconds measured in the same run (a loaded machine stretches both). */
#define TASSERT_FLOOD(crafted_s, random_s)                                   \
    cr_assert_lt((crafted_s), 5 * (random_s) + 0.25,                         \
                 "crafted keys %.3f s, random keys %.3f s", (crafted_s),     \
                 (random_s))

/* a capture that ended with DONE and a footer, no oddities */
#define TASSERT_CAPTURE_DONE(c)                                              \
    do {                                                                     \
        cr_assert_eq((c)->rc, HEAPFMT_DONE,                                  \
                     "read ended with %s (%d): %s (record %llu, offset "     \
                     "%llu)",                                                \
                     tstatus_name((c)->rc), (c)->rc, (c)->err.message,       \
                     (unsigned long long)(c)->err.record,                    \
                     (unsigned long long)(c)->err.offset);                   \
        cr_assert_eq((c)->weird, 0, "%s", (c)->why);                         \
    } while (0)

/* exp and got hold the same records (flags: TCMP_*); what names the case */
#define TASSERT_SAME_RECORDS(exp, got, flags, what)                          \
    do {                                                                     \
        char tassert_why_[512];                                              \
        cr_assert_eq(treclist_equal((exp), (got), (flags), tassert_why_,     \
                                    sizeof tassert_why_),                    \
                     0, "%s: %s", (what), tassert_why_);                     \
    } while (0)

/* A writer (options opt, may be NULL) on the memory sink s, which it
 * initialises: the opening of every test that writes a dump to memory. */
static inline heapfmt_writer *twriter_on_sink(tsink *s,
                                              const heapfmt_writer_options *opt)
{
    tsink_init(s);
    heapfmt_writer *w = NULL;
    TASSERT_OK(heapfmt_writer_open(&w, opt, tsink_write, s));
    return w;
}

/* Writes a FRAME of function at offset (no library, file or line) and a
 * STACK of that one frame: returns the stack's id, the frame's in *frame. */
static inline uint32_t twrite_one_frame_stack(heapfmt_writer *w,
                                              uint32_t function,
                                              uint64_t offset, uint32_t *frame)
{
    heapfmt_frame f = {function, 0, offset, 0, 0};
    TASSERT_OK(heapfmt_write_frame(w, &f, frame));
    uint32_t stack = 0;
    TASSERT_OK(heapfmt_write_stack(w, frame, 1, &stack));
    return stack;
}

/* A reader over len bytes in memory (default options). */
static inline heapfmt_reader *treader_on_memory(const void *data, size_t len)
{
    heapfmt_reader *r = NULL;
    TASSERT_OK(heapfmt_reader_open_memory(&r, NULL, data, len));
    return r;
}

#endif
