/* compile.h -- a trace turned into a replay program (program.h): the
 * threads' events merged into the process's order, checked, given slots
 * and barriers; and what every replay must find at each MARK. */
#ifndef REPLAY_COMPILE_H
#define REPLAY_COMPILE_H

#include <stdint.h>

#include "chunks.h"
#include "trace.h"

/* Threads alive at once beyond which a trace is refused: each is a
 * thread of the replay. */
#define COMPILE_MAX_ALIVE 4096u

typedef struct compiled {
    chunkfile prog;       /* the program file, for the children */
    uint64_t nslots, nbarriers;
    uint32_t nthreads, max_alive;
    uint64_t *mark_live;  /* per MARK of the trace: the live bytes */
    uint64_t end_live, end_blocks;
    uint64_t peak_live, peak_blocks;
    uint64_t allocs, frees, reallocs; /* the operations replayed */
    /* events skipped, or replayed otherwise than recorded */
    uint64_t unknown_frees;    /* of a block never made (in what was read) */
    uint64_t double_frees;     /* of a block already ended */
    uint64_t unknown_reallocs; /* of a block not live: replayed as a malloc */
    uint64_t duplicates;       /* a number already taken */
} compiled;

/* Compiles t. Prints what stops it and returns CLI_EXIT_ERROR, else
 * CLI_EXIT_OK. */
int compile_trace(const trace *t, compiled *c);
void compiled_free(compiled *c);

#endif /* REPLAY_COMPILE_H */
