/* meta.c -- the META records every import begins with. */
#include <string.h>

#include "meta.h"

int meta_write(heapfmt_writer *w, const char *vm, const char *format,
               const char *source)
{
    int rc;
    if ((rc = heapfmt_write_meta_text(w, "producer",
                                      "heapfmt-import " HEAPFMT_LIB_VERSION_STRING)) ||
        (rc = heapfmt_write_meta_text(w, "vm.name", vm)) ||
        (rc = heapfmt_write_meta_text(w, "import.format", format)))
        return rc;
    if (source && *source && strlen(source) <= HEAPFMT_MAX_STRING &&
        (rc = heapfmt_write_meta_text(w, "import.source", source)))
        return rc;
    return HEAPFMT_OK;
}
