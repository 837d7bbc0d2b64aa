/* blocks.h -- the compiler's table of live blocks: block number -> its
 * slot, the slot's generation and the block's size.
 *
 * Not hf_map (64-bit key -> 32-bit value, no removal): every block of a
 * trace is inserted once and removed once, and a table without removal
 * would hold every block the program ever made. Open addressing with
 * linear probing and backward-shift deletion (no tombstones), seeded
 * (hash.h: a trace is input like any other), grown at 70% load; so its
 * memory follows the blocks live at once, 32 bytes a slot. */
#ifndef REPLAY_BLOCKS_H
#define REPLAY_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct block_info {
    uint64_t slot;
    uint64_t gen;
    uint64_t size;
} block_info;

typedef struct blocks {
    struct block_entry *v;
    size_t mask; /* capacity - 1, or 0 before the first insert */
    size_t count;
    uint64_t seed;
} blocks;

void blocks_init(blocks *b);
void blocks_free(blocks *b);
/* Adds block (not 0, not present). 0, or -1 out of memory. */
int blocks_put(blocks *b, uint64_t block, const block_info *info);
/* Removes block; 1 with *info filled, or 0 when it is not live. */
int blocks_take(blocks *b, uint64_t block, block_info *info);

#endif /* REPLAY_BLOCKS_H */
