/* histo_sites.c -- objects, bytes and lifespans per allocation site
 * (file, line).
 *
 * The sites are keys of the shared string table (12 bytes: the file's
 * string slot and the line), the counts an array by key position: adding
 * an object is one lookup, and allocates only for a new site. */
#include <stdlib.h>
#include <string.h>

#include "histo.h"

typedef struct site_key {
    unsigned char bytes[12]; /* file slot (4), line (8), native order */
} site_key;

static site_key key_of(uint32_t file, uint64_t line)
{
    site_key k;
    memcpy(k.bytes, &file, 4);
    memcpy(k.bytes + 4, &line, 8);
    return k;
}

void histo_sites_init(histo_sites *s)
{
    hf_strtab_init(&s->keys, hf_default_allocator()); /* seeded: sites come
                                                          from files */
    s->totals = NULL;
    s->life = NULL;
    s->cap = 0;
}

void histo_sites_free(histo_sites *s)
{
    hf_strtab_free(&s->keys);
    free(s->totals);
    free(s->life);
    histo_sites_init(s);
}

size_t histo_sites_count(const histo_sites *s)
{
    return s->keys.count;
}

const histo_total *histo_sites_get(const histo_sites *s, size_t i,
                                   uint32_t *file, uint64_t *line)
{
    size_t len;
    const char *k = hf_strtab_text(&s->keys, (uint32_t)i + 1, &len);
    memcpy(file, k, 4);
    memcpy(line, k + 4, 8);
    return &s->totals[i];
}

const histo_life *histo_sites_life(const histo_sites *s, size_t i)
{
    return &s->life[i];
}

/* Reallocates *p to cap elements of size bytes; 0, or -1 (unchanged). */
static int resize(void **p, size_t cap, size_t size)
{
    void *q = cap <= SIZE_MAX / size ? realloc(*p, cap * size) : NULL;
    if (q == NULL)
        return -1;
    *p = q;
    return 0;
}

/* The entry of site (file, line), made (zeroed) when new; SIZE_MAX when
 * out of memory. */
static size_t site_entry(histo_sites *s, uint32_t file, uint64_t line)
{
    site_key k = key_of(file, line);
    uint32_t id;
    int found;
    size_t n = s->keys.count;
    if (n == s->cap) { /* room for a new site first: nothing to undo */
        size_t cap = s->cap ? s->cap * 2 : 1024;
        if (resize((void **)&s->totals, cap, sizeof *s->totals) != 0 ||
            resize((void **)&s->life, cap, sizeof *s->life) != 0)
            return SIZE_MAX;
        s->cap = cap;
    }
    if (n >= UINT32_MAX - 1 ||
        hf_strtab_intern(&s->keys, (const char *)k.bytes, sizeof k.bytes,
                         (uint32_t)n + 1, &id, &found) != 0)
        return SIZE_MAX;
    if (!found) {
        s->totals[id - 1] = (histo_total){0, 0};
        memset(&s->life[id - 1], 0, sizeof s->life[0]);
    }
    return id - 1;
}

int histo_sites_add(histo_sites *s, uint32_t file, uint64_t line,
                    uint64_t size)
{
    size_t i = site_entry(s, file, line);
    if (i == SIZE_MAX)
        return -1;
    s->totals[i].count++;
    s->totals[i].bytes += size;
    return 0;
}

int histo_sites_add_life(histo_sites *s, uint32_t file, uint64_t line,
                         const histo_life *l)
{
    size_t i = site_entry(s, file, line);
    if (i == SIZE_MAX)
        return -1;
    histo_life_add(&s->life[i], l);
    return 0;
}
