/* program.h -- a trace compiled for replay: what compile.c writes and
 * run.c (in the child, under the allocator being measured) reads.
 *
 * A trace names blocks by number and orders the whole process's events;
 * a replay needs neither a table of block numbers nor a global order.
 * The compiler gives every block a slot (a dense index, reused after the
 * block ends, so there are as many slots as blocks ever live at once) and
 * each use of a slot a generation; each thread gets its own list of
 * operations. A thread runs its list in order and waits only where
 * another thread must have gone first: a free waits until its slot holds
 * the generation it frees (the allocation, perhaps another thread's,
 * happened), an allocation until its slot is empty of the generation
 * before. Both point back in the trace's order, so the waits end.
 *
 * Barriers cut the replay where the program's live bytes are to be
 * measured (each MARK of the trace) and where a thread starts (its
 * first event): every thread alive there stops before its first event
 * numbered after the barrier, the coordinator measures, joins the threads
 * that ended and starts the new ones. So the live bytes at a barrier are
 * exactly those of the trace at its MARK, and threads come and go in the
 * order the program made and ended them (glibc's arenas depend on it).
 *
 * The file: a header, the threads' operation chunks, then the tables the
 * header points at. Little-endian host structs: the file lives for one
 * run of one machine. */
#ifndef REPLAY_PROGRAM_H
#define REPLAY_PROGRAM_H

#include <stdint.h>

#define PROG_MAGIC "HFRPROG1"

/* Operations (a varint head, then varints): */
enum prog_op {
    /* 0-8: an allocation of the trace's op (heapfmt_event_op; REALLOC and
     * REALLOCARRAY here are of NULL): slot, generation, size, and for
     * POSIX_MEMALIGN, ALIGNED_ALLOC, MEMALIGN the alignment after it */
    OP_FREE = 9,    /* slot, generation */
    OP_REALLOC = 10, /* old slot, its generation, new slot, its generation,
                        size */
    OP_BARRIER = 11  /* barrier index */
};

typedef struct prog_header {
    char magic[8];
    uint32_t nthreads;
    uint32_t pad;
    uint64_t nslots;
    uint64_t nbarriers;
    uint64_t nchunks;
    uint64_t threads_off;  /* prog_thread[nthreads] */
    uint64_t barriers_off; /* prog_barrier[nbarriers] */
    uint64_t chunks_off;   /* prog_chunk[nchunks] */
    uint64_t size;         /* of the whole file */
} prog_header;

typedef struct prog_thread {
    uint32_t number;        /* the trace's thread number */
    uint32_t pad;
    uint64_t start_barrier; /* started when this barrier is released */
    uint64_t end_barrier;   /* joined at this barrier (nbarriers: at the
                               end) */
    uint64_t first_chunk, nchunks;
} prog_thread;

typedef struct prog_chunk {
    uint64_t off;
    uint64_t len;
} prog_chunk;

typedef struct prog_barrier {
    uint64_t seq;      /* events numbered below it come before it */
    uint64_t arrivals; /* threads that stop at it */
    int64_t mark;      /* the MARK it measures (its index), or -1 */
} prog_barrier;

#endif /* REPLAY_PROGRAM_H */
