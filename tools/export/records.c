/* records.c -- which kinds of documents heapfmt-export writes. */
#include <string.h>

#include "records.h"

static const struct {
    const char *plural;
    const char *singular;
    unsigned bit;
} kinds[] = {
    {"objects", "object", RECORDS_OBJECTS},
    {"edges", "edge", RECORDS_EDGES},
    {"roots", "root", RECORDS_ROOTS},
    {"classes", "class", RECORDS_CLASSES},
    {"meta", "meta", RECORDS_META},
    {"all", NULL, RECORDS_ALL},
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

int records_parse(const char *arg, unsigned *out, const char **bad,
                  int *bad_len)
{
    unsigned set = 0;
    const char *p = arg;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        unsigned bit = 0;
        for (size_t k = 0; k < NKINDS && n > 0; k++)
            if (strlen(kinds[k].plural) == n &&
                memcmp(kinds[k].plural, p, n) == 0)
                bit = kinds[k].bit;
        if (bit == 0) {
            *bad = p;
            *bad_len = (int)n;
            return -1;
        }
        set |= bit;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *out = set;
    return 0;
}

const char *records_kind_name(unsigned kind)
{
    for (size_t k = 0; k < NKINDS; k++)
        if (kinds[k].bit == kind && kinds[k].singular != NULL)
            return kinds[k].singular;
    return "?";
}

int records_several(unsigned set)
{
    return (set & (set - 1)) != 0;
}
