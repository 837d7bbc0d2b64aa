/* grow.c -- growing heapfmt-core's arrays (grow.h). */
#include <stdint.h>

#include "grow.h"

int core_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, ncap * elem);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}
