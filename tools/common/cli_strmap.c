/* cli_strmap.c -- a map from byte strings to dense indexes: the library's
 * string intern table (libheapfmt/common/strtab.h) with 0-based indexes. */
#include "cli_strmap.h"

/* strtab ids are entry numbers in 32 bits */
#define MAX_KEYS 0xfffffffeu

void cli_strmap_init(cli_strmap *m)
{
    hf_strtab_init(&m->table, hf_default_allocator());
}

void cli_strmap_free(cli_strmap *m)
{
    hf_strtab_free(&m->table);
    cli_strmap_init(m);
}

int cli_strmap_add(cli_strmap *m, const char *key, size_t len, size_t *index)
{
    uint32_t id;
    int found;
    if (m->table.count >= MAX_KEYS) {
        if (!hf_strtab_find(&m->table, key, len, &id))
            return -1;
        found = 1;
    } else if (hf_strtab_intern(&m->table, key, len,
                                (uint32_t)m->table.count + 1, &id,
                                &found) != 0) {
        return -1;
    }
    *index = (size_t)id - 1;
    return !found;
}

int cli_strmap_find(const cli_strmap *m, const char *key, size_t len,
                    size_t *index)
{
    uint32_t id;
    if (!hf_strtab_find(&m->table, key, len, &id))
        return -1;
    *index = (size_t)id - 1;
    return 0;
}

size_t cli_strmap_count(const cli_strmap *m)
{
    return m->table.count;
}

const char *cli_strmap_key(const cli_strmap *m, size_t i, size_t *len)
{
    size_t n;
    const char *s = hf_strtab_text(&m->table, (uint32_t)i + 1, &n);
    if (len)
        *len = n;
    return s;
}
