/* heapfmt_internal.h -- shared internals of libheapfmt (not installed). */
#ifndef HEAPFMT_INTERNAL_H
#define HEAPFMT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format.h"
#include "hf_common.h"
#include "heapfmt.h"

/* ---- errors ---- */

/* Where an error is: the handle's position when it was found. */
typedef struct hf_where {
    uint64_t offset, block, record;
} hf_where;

/* The one error setter: code, errno, position and a printf-style detail
 * (limits in messages come from the HEAPFMT_MAX_* constants). Returns
 * code. The reader's hf_rfail and the writer's hf_wfail supply where. */
int hf_error_vset(heapfmt_error *e, int code, int sys_errno, hf_where at,
                  const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 0)))
#endif
    ;


/* Copies options that begin with their own size (the INIT macros set it)
 * over the defaults in dst (cap bytes): the fields the caller's header
 * knew, the later ones keeping their defaults. src may be NULL (all
 * defaults). Returns HEAPFMT_OK, or HEAPFMT_E_ARG for a size no version
 * of the struct had. */
static inline int hf_copy_options(void *dst, size_t cap, const void *src)
{
    size_t size;
    if (!src)
        return HEAPFMT_OK;
    memcpy(&size, src, sizeof size);
    if (size < sizeof size || size > cap)
        return HEAPFMT_E_ARG;
    memcpy(dst, src, size);
    return HEAPFMT_OK;
}

#endif /* HEAPFMT_INTERNAL_H */
