/* cli_strmap.c -- a map from byte strings to dense indexes. */
#include <stdlib.h>
#include <string.h>

#include "cli_strmap.h"
#include "hash.h"

#define CHUNK_SIZE (64u << 10)
#define MAX_KEYS 0xfffffffeu /* slots hold index + 1 in 32 bits */

struct cli_strmap_chunk {
    struct cli_strmap_chunk *next;
    char data[];
};

void cli_strmap_init(cli_strmap *m)
{
    memset(m, 0, sizeof *m);
    m->seed = hf_hash_seed(m); /* names come from files (hash.h) */
}

void cli_strmap_free(cli_strmap *m)
{
    struct cli_strmap_chunk *c = m->chunks;
    while (c != NULL) {
        struct cli_strmap_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(m->slots);
    free(m->keys);
    cli_strmap_init(m);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t probe(const cli_strmap *m, const char *key, size_t len,
                    uint64_t h)
{
    size_t mask = m->nslots - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        uint32_t v = m->slots[i];
        if (v == 0)
            return i;
        const cli_strmap_entry *k = &m->keys[v - 1];
        if (k->hash == h && k->len == len &&
            (len == 0 || memcmp(k->ptr, key, len) == 0))
            return i;
    }
}

int cli_strmap_find(const cli_strmap *m, const char *key, size_t len,
                    size_t *index)
{
    if (m->count == 0)
        return -1;
    size_t i = probe(m, key, len, hf_hash_bytes(m->seed, key, len));
    if (m->slots[i] == 0)
        return -1;
    *index = m->slots[i] - 1;
    return 0;
}

/* Doubles the slot table (kept at most half full). */
static int rehash(cli_strmap *m)
{
    size_t n = m->nslots ? m->nslots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t k = 0; k < m->count; k++) {
        size_t i = (size_t)m->keys[k].hash & (n - 1);
        while (slots[i] != 0)
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)(k + 1);
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
    return 0;
}

/* Copies len bytes plus a NUL into the chunk storage. */
static char *store(cli_strmap *m, const char *key, size_t len)
{
    if (m->chunks == NULL || m->chunk_size - m->chunk_used < len + 1) {
        size_t size = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;
        struct cli_strmap_chunk *c = malloc(sizeof *c + size);
        if (c == NULL)
            return NULL;
        c->next = m->chunks;
        m->chunks = c;
        m->chunk_used = 0;
        m->chunk_size = size;
    }
    char *p = m->chunks->data + m->chunk_used;
    if (len > 0)
        memcpy(p, key, len);
    p[len] = '\0';
    m->chunk_used += len + 1;
    return p;
}

int cli_strmap_add(cli_strmap *m, const char *key, size_t len, size_t *index)
{
    uint64_t h = hf_hash_bytes(m->seed, key, len);
    if (m->nslots != 0) {
        size_t i = probe(m, key, len, h);
        if (m->slots[i] != 0) {
            *index = m->slots[i] - 1;
            return 0;
        }
    }
    if (m->count >= MAX_KEYS)
        return -1;
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        cli_strmap_entry *keys = realloc(m->keys, cap * sizeof *keys);
        if (keys == NULL)
            return -1;
        m->keys = keys;
        m->cap = cap;
    }
    if ((m->count + 1) * 2 > m->nslots && rehash(m) != 0)
        return -1;
    char *copy = store(m, key, len);
    if (copy == NULL)
        return -1;
    size_t i = probe(m, key, len, h);
    m->keys[m->count] = (cli_strmap_entry){copy, len, h};
    m->slots[i] = (uint32_t)(m->count + 1);
    *index = m->count++;
    return 1;
}

size_t cli_strmap_count(const cli_strmap *m)
{
    return m->count;
}

const char *cli_strmap_key(const cli_strmap *m, size_t i, size_t *len)
{
    if (len != NULL)
        *len = m->keys[i].len;
    return m->keys[i].ptr;
}
