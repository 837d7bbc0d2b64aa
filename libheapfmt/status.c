/* status.c -- status strings, error detail and the library version. */
#include <stdio.h>

#include "heapfmt_internal.h"

const char *heapfmt_version(void)
{
    return HEAPFMT_LIB_VERSION_STRING;
}

const char *heapfmt_strerror(int status)
{
    switch (status) {
#define HEAPFMT_X_CASE(name, value, msg) \
    case value:                          \
        return msg;
        HEAPFMT_STATUS_LIST(HEAPFMT_X_CASE)
#undef HEAPFMT_X_CASE
    }
    return "unknown status";
}

int hf_error_vset(heapfmt_error *e, int code, int sys_errno, hf_where at,
                  const char *fmt, va_list ap)
{
    e->code = code;
    e->sys_errno = sys_errno;
    e->offset = at.offset;
    e->block = at.block;
    e->record = at.record;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    return code;
}
