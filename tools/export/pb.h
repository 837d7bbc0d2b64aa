/* pb.h -- the little of the protocol buffers wire format that pprof's
 * profile.proto needs: varints, length-delimited fields and packed
 * repeated integers.
 *
 * Hand-written rather than protobuf-c (Debian's libprotobuf-c): that
 * library needs protoc-c at build time to turn profile.proto into C,
 * and builds each message as a tree of structs before packing it, so the
 * whole profile would sit in memory twice. profile.proto uses three wire
 * forms of one message family; writing them is the hundred lines below,
 * with no dependency and the profile streamed as it is made.
 *
 * A pb_buf grows as needed; after an allocation failure it keeps its
 * contents, stops growing and says so in failed, so callers check once at
 * the end. Fields are written in proto3's way: a scalar equal to 0 is
 * left out (the pb_*_opt functions); pb_uint_always writes it anyway. */
#ifndef PB_H
#define PB_H

#include <stddef.h>
#include <stdint.h>

typedef struct pb_buf {
    uint8_t *p;
    size_t len, cap;
    int failed;
} pb_buf;

enum pb_wire { PB_VARINT = 0, PB_LEN = 2 };

void pb_free(pb_buf *b);

/* Empties b, keeping its memory. */
static inline void pb_reset(pb_buf *b)
{
    b->len = 0;
}

/* Bytes of v as a varint (1..10). */
size_t pb_varint_size(uint64_t v);

void pb_varint(pb_buf *b, uint64_t v);
void pb_key(pb_buf *b, unsigned field, enum pb_wire wire);

/* A varint field (uint64, or int64 as its two's complement), left out
 * when 0. */
void pb_uint_opt(pb_buf *b, unsigned field, uint64_t v);
void pb_uint_always(pb_buf *b, unsigned field, uint64_t v);

/* A length-delimited field: bytes (a string), or a nested message that
 * was written to its own buffer. */
void pb_bytes(pb_buf *b, unsigned field, const void *p, size_t n);
void pb_message(pb_buf *b, unsigned field, const pb_buf *m);

/* A packed repeated field of n varints (uint64, or int64 values cast);
 * nothing when n is 0. */
void pb_packed(pb_buf *b, unsigned field, const uint64_t *v, size_t n);

#endif /* PB_H */
