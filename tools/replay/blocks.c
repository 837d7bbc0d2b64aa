/* blocks.c -- live blocks by number, with removal. */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "hash.h"

struct block_entry {
    uint64_t block; /* 0: empty */
    block_info info;
};

void blocks_init(blocks *b)
{
    memset(b, 0, sizeof *b);
    b->seed = hf_hash_seed(b);
}

void blocks_free(blocks *b)
{
    free(b->v);
    memset(b, 0, sizeof *b);
}

static size_t home(const blocks *b, uint64_t block, size_t mask)
{
    return (size_t)hf_hash_u64(b->seed, block) & mask;
}

static int grow(blocks *b)
{
    size_t cap = b->mask ? (b->mask + 1) * 2 : 1024;
    struct block_entry *v = calloc(cap, sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; b->mask && i <= b->mask; i++) {
        if (b->v[i].block == 0)
            continue;
        size_t j = home(b, b->v[i].block, cap - 1);
        while (v[j].block != 0)
            j = (j + 1) & (cap - 1);
        v[j] = b->v[i];
    }
    free(b->v);
    b->v = v;
    b->mask = cap - 1;
    return 0;
}

int blocks_put(blocks *b, uint64_t block, const block_info *info)
{
    if ((b->count + 1) * 10 > (b->mask + 1) * 7 && grow(b) != 0)
        return -1;
    size_t j = home(b, block, b->mask);
    while (b->v[j].block != 0)
        j = (j + 1) & b->mask;
    b->v[j].block = block;
    b->v[j].info = *info;
    b->count++;
    return 0;
}

int blocks_take(blocks *b, uint64_t block, block_info *info)
{
    if (b->mask == 0)
        return 0;
    size_t j = home(b, block, b->mask);
    while (b->v[j].block != 0 && b->v[j].block != block)
        j = (j + 1) & b->mask;
    if (b->v[j].block == 0)
        return 0;
    *info = b->v[j].info;
    size_t hole = j;
    for (size_t k = (j + 1) & b->mask; b->v[k].block != 0;
         k = (k + 1) & b->mask) {
        size_t h = home(b, b->v[k].block, b->mask);
        if (((k - h) & b->mask) >= ((k - hole) & b->mask)) {
            b->v[hole] = b->v[k];
            hole = k;
        }
    }
    b->v[hole].block = 0;
    b->count--;
    return 1;
}
