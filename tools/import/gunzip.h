/* gunzip.h -- the gzip decoding under lines.h's reader, on a reading
 * thread when it can start one.
 *
 * Importing a gzip dump costs zlib's inflate plus the parser, one after
 * the other on one thread (issue 39: a gzip HPROF took twice the time of
 * a plain zlib read loop). Here a thread reads and inflates into a ring
 * of GZ_SLABS buffers of GZ_SLAB bytes while the caller parses what came
 * before, so that a pass costs the longer of the two rather than their
 * sum. Without a thread (gz_open's serial, or pthread_create fails) the
 * same inflate runs on the caller's thread, into the caller's buffer.
 *
 * Either way the caller sees the same decoded bytes, cut at the same
 * place, and then the same error (a damaged or truncated stream, a read
 * error): the thread hands its error over only after the bytes decoded
 * before it. Concatenated members are read one after another. The read
 * callback is called from one thread at a time: the reading thread while
 * it runs, never after gz_close. */
#ifndef GUNZIP_H
#define GUNZIP_H

#include <stddef.h>
#include <stdint.h>

#include "lines.h"

#define GZ_SLAB ((size_t)1 << 20)
#define GZ_SLABS 6
#define GZ_ROOM ((size_t)64 << 10)

typedef struct gz_in gz_in;

/* Starts decoding the gzip stream whose first have bytes (head, already
 * read; eof: the input ended after them) were read through read. With
 * serial, with one core to run on (a second thread would only take
 * turns with the parser), or when no thread starts, decodes on the
 * caller's thread. NULL when out of memory. */
gz_in *gz_open(lr_read_fn read, void *opaque, const void *head, size_t have,
               int eof, int serial);

/* Serially (gz_threaded 0): up to want decoded bytes into out; returns
 * how many, 0 only at the end of the stream or after an error, from then
 * on. */
size_t gz_read(gz_in *g, unsigned char *out, size_t want);

/* With the thread (gz_threaded 1): the next slab of decoded bytes, lent
 * as it is (no copy): its length, and in *p its first byte, with GZ_ROOM
 * writable bytes before it (for the caller's bytes left from the slab
 * before, to make one run of them) and one after it (a NUL). The slab
 * stays the caller's until the next call but one. Returns 0 at the end
 * of the stream or after an error, from then on. */
size_t gz_slab(gz_in *g, unsigned char **p);

/* After 0 from either: the error that ended the stream (enum import_status;
 * IMP_OK at its end), *sys_errno and *message. */
int gz_error(const gz_in *g, int *sys_errno, const char **message);

/* Compressed bytes read, the head included, for the bytes gz_read
 * returned so far (all of them after gz_read returned 0). */
uint64_t gz_bytes_read(const gz_in *g);

/* 1 if the reading thread runs (the tests check both ways). */
int gz_threaded(const gz_in *g);

/* The cores this process may run on (sched_getaffinity; 1 if unknown). */
int gz_cores(void);

/* Stops the reading thread (it may be inside the read callback: that
 * call is cancelled, so that a pipe whose writer is idle does not hold
 * it) and releases everything. */
void gz_close(gz_in *g);

#endif /* GUNZIP_H */
