/* histo_sites.c -- objects and bytes per allocation site (file, line).
 *
 * An open-addressing table keyed by the file's string slot and the line;
 * it holds the counts itself, so adding an object is one probe and no
 * allocation except when the table doubles. */
#include <stdlib.h>

#include "hash.h"
#include "histo.h"

#define EMPTY UINT32_MAX

void histo_sites_init(histo_sites *s)
{
    s->v = NULL;
    s->cap = 0;
    s->n = 0;
    s->seed = hf_hash_seed(s); /* sites come from files (hash.h) */
}

void histo_sites_free(histo_sites *s)
{
    free(s->v);
    histo_sites_init(s);
}

static size_t site_hash(uint64_t seed, uint32_t file, uint64_t line)
{
    return (size_t)hf_hash_u64(seed ^ hf_mix64(file), line);
}

static histo_site *find(uint64_t seed, histo_site *v, size_t cap,
                        uint32_t file, uint64_t line)
{
    size_t mask = cap - 1;
    for (size_t i = site_hash(seed, file, line) & mask;; i = (i + 1) & mask)
        if (v[i].file == EMPTY || (v[i].file == file && v[i].line == line))
            return &v[i];
}

static int grow(histo_sites *s)
{
    size_t cap = s->cap ? s->cap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof *s->v)
        return -1;
    histo_site *v = malloc(cap * sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < cap; i++)
        v[i].file = EMPTY;
    for (size_t i = 0; i < s->cap; i++)
        if (s->v[i].file != EMPTY)
            *find(s->seed, v, cap, s->v[i].file, s->v[i].line) = s->v[i];
    free(s->v);
    s->v = v;
    s->cap = cap;
    return 0;
}

int histo_sites_add(histo_sites *s, uint32_t file, uint64_t line,
                    uint64_t size)
{
    if ((s->n + 1) * 2 > s->cap && grow(s) != 0)
        return -1;
    histo_site *e = find(s->seed, s->v, s->cap, file, line);
    if (e->file == EMPTY) {
        *e = (histo_site){line, file, 0, 0};
        s->n++;
    }
    e->count++;
    e->bytes += size;
    return 0;
}
