/* cli_grow.c -- growing the tools' arrays (cli_grow.h). */
#include <string.h>

#include "cli_grow.h"
#include "hf_common.h"

int cli_grow_realloc(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = hf_grown_capacity(*cap, need, elem);
    void *q = ncap ? realloc(*p, ncap * elem) : NULL;
    if (q == NULL)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

int cli_grow_zeroed(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;
    if (cli_grow(p, cap, need, elem) != 0)
        return -1;
    if (*cap > old)
        memset((char *)*p + old * elem, 0, (*cap - old) * elem);
    return 0;
}
