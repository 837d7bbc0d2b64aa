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

void hf_set_error(heapfmt_error *e, int code, int sys_errno, uint64_t offset,
                  uint64_t block, uint64_t record, const char *fmt, ...)
{
    e->code = code;
    e->sys_errno = sys_errno;
    e->offset = offset;
    e->block = block;
    e->record = record;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}
