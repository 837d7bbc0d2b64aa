/*
 * tio.h -- test helpers: PRNG, byte buffer, memory sink and memory source.
 *
 * Everything here aborts on malloc failure (tests only); none of it uses
 * the library's allocator hooks.
 */
#ifndef TIO_H
#define TIO_H

#include <stddef.h>
#include <stdint.h>

#include "heapfmt.h"

/* ---- deterministic PRNG (splitmix64) ---------------------------------- */

typedef struct tprng {
    uint64_t state;
} tprng;

void tprng_seed(tprng *p, uint64_t seed);
uint64_t tprng_next(tprng *p);
/* Uniform-ish value in 0 .. n-1; n must be > 0. */
uint64_t tprng_below(tprng *p, uint64_t n);

/* The i-th of keys that a fixed Fibonacci hash (key * 0x9e3779b97f4a7c15,
 * high bits) puts in one slot at every table size: i times the inverse of
 * the multiplier modulo 2^64 (hash flooding tests). */
uint64_t tfib_collider(uint64_t i);
/* The inverse of an odd number modulo 2^64. */
uint64_t tfib_inverse(uint64_t odd);
/* The splitmix64 finalizer (analysis/tuples.c hashed with it before it
 * was seeded) and its inverse: keys that collide under it are made by
 * running it backwards. */
uint64_t tsplitmix_mix(uint64_t x);
uint64_t tsplitmix_unmix(uint64_t y);
/* For the hash flooding tests: n keys crafted(1..n) made to collide and n
 * random ones, in arrays of the caller's to free. */
void tflood_keys(size_t n, uint64_t (*crafted)(uint64_t i), uint64_t **bad,
                 uint64_t **rnd);

/* CPU seconds this process has used: timings that a loaded machine does
 * not stretch (for comparisons within one run, e.g. crafted keys against
 * random ones). */
double tcpu_seconds(void);

/* realloc that aborts when memory runs out (n == 0 allocates a byte) */
void *txrealloc(void *p, size_t n);
/* A NUL-terminated copy of n bytes (malloc'd), or abort. */
char *tmemdup(const void *p, size_t n);

/* ---- growable byte buffer --------------------------------------------- */

typedef struct tbuf {
    unsigned char *data;
    size_t len;
    size_t cap;
} tbuf;

void tbuf_put(tbuf *b, const void *p, size_t n);
void tbuf_u8(tbuf *b, unsigned v);
void tbuf_u16le(tbuf *b, uint16_t v);
void tbuf_u32le(tbuf *b, uint32_t v);
void tbuf_u64le(tbuf *b, uint64_t v);
void tbuf_varint(tbuf *b, uint64_t v);
/* zigzag of a signed value (spec 3: small magnitudes, small values) */
uint64_t tzigzag(int64_t v);
/* zigzag of a signed value, then varint */
void tbuf_zigzag(tbuf *b, int64_t v);
/* zigzag(x - base) with modular subtraction */
void tbuf_zdelta(tbuf *b, uint64_t x, uint64_t base);
void tbuf_free(tbuf *b);

uint32_t tget_u32le(const unsigned char *p);
uint64_t tget_u64le(const unsigned char *p);

/* ---- memory sink: a heapfmt_write_fn ---------------------------------- */

typedef struct tsink {
    tbuf out;                  /* bytes accepted so far */
    size_t max_per_call;       /* 0 = accept everything offered */
    int random_sizes;          /* accept 1..max_per_call bytes chosen by rng */
    tprng rng;
    unsigned long fail_at;     /* 1-based call number that fails; 0 = never */
    int fail_errno;            /* positive errno, returned negated */
    int fail_once;             /* only call fail_at fails; else all from it on */
    unsigned long eintr_every; /* every k-th call returns -EINTR (0 = never) */
    unsigned long calls;       /* calls made, EINTR and failures included */
    unsigned long failures;    /* failures returned (EINTR not counted) */
    unsigned long empty_calls; /* calls with len == 0 */
} tsink;

/* Zeroes the sink: accepts everything, never fails. */
void tsink_init(tsink *s);
void tsink_free(tsink *s);
long tsink_write(void *opaque, const void *buf, size_t len);

/* ---- memory source: a heapfmt_read_fn (+ seek) ------------------------ */

enum tsrc_policy {
    TSRC_WHOLE = 0, /* as much as asked */
    TSRC_BYTE = 1,  /* one byte per call */
    TSRC_RANDOM = 2 /* 1 .. a random size per call */
};

typedef struct tsource {
    const unsigned char *data;
    size_t len;
    size_t pos;
    int policy;
    tprng rng;
    unsigned long fail_at;     /* 1-based read call that fails; 0 = never */
    int fail_errno;
    int fail_once;
    unsigned long eintr_every; /* every k-th read returns -EINTR */
    int seekable;              /* pass a seek callback to the reader */
    unsigned long reads;
    unsigned long seeks;
} tsource;

void tsource_init(tsource *s, const void *data, size_t len, int policy,
                  uint64_t seed);
long tsource_read(void *opaque, void *buf, size_t len);
int64_t tsource_seek(void *opaque, int64_t offset, int from_end);
/* heapfmt_reader_open over the source; seek callback iff s->seekable. */
int tsource_open(heapfmt_reader **out, const heapfmt_reader_options *opt,
                 tsource *s);

/* ---- files ------------------------------------------------------------- */

/* Writes data to a new temporary file; returns an fd open for reading at
 * offset 0 (the file is already unlinked). Aborts on failure. */
int ttemp_fd(const void *data, size_t len);
/* Creates an empty temporary file under $TMPDIR (else /tmp); its path is
 * stored in path (cap bytes). Returns an fd open for writing, or aborts. */
int ttemp_path(char *path, size_t cap);
/* Writes data to a new temporary file under $TMPDIR (else /tmp); returns
 * its path (malloc'd: the caller unlinks and frees it). Aborts on
 * failure. */
char *ttemp_file(const void *data, size_t len);
/* Returns the read end of a pipe fed by a child process with data; the
 * child exits when done. *child receives its pid (reap with twait_child). */
int tpipe_fd(const void *data, size_t len, int *child);
void twait_child(int child);

/* Reads a whole file; returns 0 on success (malloc'd *data), -1 if it
 * cannot be read. */
int tread_file(const char *path, unsigned char **data, size_t *len);

/* Runs "$BIN/heapfmt-info --verify" on len bytes (written to a temporary
 * file): returns its exit status, with the first line it wrote to stderr
 * in msg; or -1 when BIN is not set (make test sets it; a test binary run
 * by hand skips the check). */
int tverify(const void *data, size_t len, char *msg, size_t cap);

/* Path of a file of the repository given relative to its root: tries
 * getenv(env) first (when env is not NULL and set), then rel, ../rel and
 * ../../rel. Returns a static buffer, or NULL when not found. */
const char *tfind_repo_file(const char *env, const char *rel);

/* case-insensitive substring search */
int tcontains_ci(const char *hay, const char *needle);

#endif
