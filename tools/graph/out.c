/* out.c -- heapfmt-graph's rows through its allocator. */
#include "out.h"

static void *mem_resize(void *opaque, void *p, size_t size)
{
    if (size > 0)
        return diff_mem_realloc(opaque, p, size);
    diff_mem_free(opaque, p);
    return NULL;
}

void out_begin(cli_rows *o, FILE *f, int format, const diff_mem *mem,
               size_t ncols, const char *const *names)
{
    cli_rows_begin(o, f, format, ncols, names);
    o->cut = 1;
    if (mem != NULL) {
        o->resize = mem_resize;
        o->opaque = (void *)mem; /* diff_mem_* take it const again */
    }
}
