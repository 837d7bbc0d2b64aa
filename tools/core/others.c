/* others.c -- telling allocators heapfmt-core does not read (others.h). */
#include <string.h>

#include "others.h"

static const struct {
    const char *lib;    /* base name prefix of its shared library */
    const char *symbol; /* prefix of a data symbol of its static build */
    const char *name;
} known[] = {
    {"libjemalloc.so", "je_", "jemalloc"},
    {"libtcmalloc", "_ZN8tcmalloc", "tcmalloc"},
    {"libmimalloc", "_mi_", "mimalloc"},
};

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const char *other_allocator(const image *im, const modules *ms,
                            const char **where)
{
    for (size_t i = 0; i < im->nfiles; i++) {
        const char *b = base(img_file(im, i));
        for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
            if (strncmp(b, known[k].lib, strlen(known[k].lib)) == 0) {
                *where = img_file(im, i);
                return known[k].name;
            }
        }
    }
    for (size_t i = 0; i < ms->n; i++) {
        const module *m = &ms->m[i];
        for (size_t s = 0; s < m->nsyms; s++) {
            for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
                if (strncmp(m->syms[s].name, known[k].symbol,
                            strlen(known[k].symbol)) == 0) {
                    *where = m->path;
                    return known[k].name;
                }
            }
        }
    }
    return NULL;
}
