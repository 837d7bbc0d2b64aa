/* sniff.h -- which importer an input needs, from its first bytes.
 *
 * heapfmt-import reads ObjectSpace.dump_all lines and V8 heap snapshots
 * from the same pipes as from files: the kind is decided from the first
 * bytes, which must then still reach the importer. sniff_src reads them
 * through the caller's read callback and hands them out again before the
 * rest, so nothing needs to seek. */
#ifndef SNIFF_H
#define SNIFF_H

#include <stddef.h>

#include "lines.h"

/* Input kinds (heapfmt-import --from). */
enum sniff_kind {
    SNIFF_AUTO = 0,  /* decide from the first bytes */
    SNIFF_RUBY = 1,  /* ObjectSpace.dump_all JSON lines, plain or gzip */
    SNIFF_V8 = 2,    /* a V8 .heapsnapshot */
    SNIFF_HPROF = 3  /* a Java HPROF dump, plain or gzip */
};

/* Bytes looked at: enough for a V8 snapshot's '{"snapshot":' after some
 * blank space, for every magic number not_dump_all() knows, and for the
 * gzip header (with HotSpot's comment) and first block of a gzip HPROF. */
#define SNIFF_LEN 256

/* Whether the n bytes at p begin a V8 heap snapshot: '{', "snapshot" and
 * ':' with optional blank space (and a UTF-8 byte order mark) between. */
int sniff_is_v8(const char *p, size_t n);

/* The kind of an input starting with the n bytes at p (n < SNIFF_LEN only
 * at the end of the input). Gzip goes to the HPROF reader when its first
 * decoded bytes are an HPROF header, else to the dump_all reader; both
 * unpack it. */
int sniff_kind(const char *p, size_t n);

/* A read callback that replays the first bytes, then reads on. */
typedef struct sniff_src {
    lr_read_fn read;
    void *opaque;
    int (*rewind)(void *opaque);
    char head[SNIFF_LEN];
    size_t len, used;
    long error; /* a failed read while sniffing: returned after head */
} sniff_src;

/* Reads up to SNIFF_LEN bytes through read into s->head. */
void sniff_open(sniff_src *s, lr_read_fn read, void *opaque,
                int (*rewind)(void *opaque));

/* lr_read_fn and rewind callbacks over a sniff_src (opaque). */
long sniff_read(void *opaque, void *buf, size_t len);
int sniff_rewind(void *opaque);

#endif /* SNIFF_H */
