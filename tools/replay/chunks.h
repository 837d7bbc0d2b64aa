/* chunks.h -- many byte streams kept in one unlinked temporary file.
 *
 * heapfmt-replay splits a trace by thread and compiles it into one
 * program per thread; both are far larger than memory may be for a long
 * trace, and both are written in one order (the file's, then the
 * events') and read in another (each thread's). So each stream is a list
 * of chunks appended to a shared file, and memory holds only the lists.
 * Varints (LEB128) are the streams' one encoding. */
#ifndef REPLAY_CHUNKS_H
#define REPLAY_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct chunk {
    uint64_t off;
    uint32_t len;
} chunk;

typedef struct chunkfile {
    int fd;
    uint64_t size; /* bytes appended so far */
} chunkfile;

/* Creates the file in $TMPDIR (else /tmp), unlinked at once. 0, or -1
 * with errno set. */
int chunkfile_open(chunkfile *f);
void chunkfile_close(chunkfile *f);
/* Appends len bytes as one chunk; *c says where. 0, or -1 with errno. */
int chunk_append(chunkfile *f, const void *p, size_t len, chunk *c);
/* Reads chunk c into buf (c->len bytes). 0, or -1 with errno. */
int chunk_read(const chunkfile *f, const chunk *c, void *buf);

/* A growing list of chunks (one stream). */
typedef struct chunklist {
    chunk *v;
    size_t n, cap;
} chunklist;
int chunklist_push(chunklist *l, chunk c);
void chunklist_free(chunklist *l);

/* ---- varints ---- */

#define VARINT_MAX 10u

static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a varint at *pp, not past end. 0, or -1 when it does not fit. */
static inline int varint_get(const uint8_t **pp, const uint8_t *end,
                             uint64_t *v)
{
    uint64_t x = 0;
    const uint8_t *p = *pp;
    for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

#endif /* REPLAY_CHUNKS_H */
