/*
 * tassert.h -- Criterion assertion shorthands for heapfmt status codes.
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

#endif
