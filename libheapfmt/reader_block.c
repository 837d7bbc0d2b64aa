/* reader_block.c -- the reader's block layer: input, block headers,
 * payloads read and decoded (spec/FORMAT.md section 5). */
#include <errno.h>

#include "reader_internal.h"

int hf_read_full(heapfmt_reader *r, void *buf, size_t len, size_t *got)
{
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        long n = r->read(r->opaque, p + done, len - done);
        if (n > 0 && (size_t)n <= len - done) {
            done += (size_t)n;
        } else if (n == 0) {
            break;
        } else if (n == -EINTR || n == -EAGAIN) {
            continue;
        } else {
            int e = n < 0 ? (int)-n : EIO;
            r->pos += done;
            *got = done;
            return hf_rfail(r, HEAPFMT_E_IO, e, r->pos, "read failed: %s",
                            n < 0 ? strerror(e)
                                  : "read callback returned more than asked");
        }
    }
    r->pos += done;
    *got = done;
    return HEAPFMT_OK;
}

int hf_block_read_header(heapfmt_reader *r, uint64_t offset,
                         hf_block_header *b, size_t *got, int *fatal)
{
    uint8_t h[HF_BLOCK_HEADER_SIZE];
    unsigned long long at = (unsigned long long)offset;
    *fatal = 1;
    int rc = hf_read_full(r, h, sizeof h, got);
    if (rc != HEAPFMT_OK)
        return rc;
    if (*got < sizeof h)
        return HEAPFMT_E_TRUNCATED;
    switch (hf_block_header_decode(h, r->strict, b)) {
    case HF_BLOCK_OK:
        break;
    case HF_BLOCK_BAD_CRC:
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block header at offset %llu fails its checksum", at);
    case HF_BLOCK_BAD_LENGTHS:
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has lengths out of range "
                        "(1 to %u bytes)",
                        at, HEAPFMT_MAX_BLOCK);
    case HF_BLOCK_BAD_CODEC:
        /* Not "corrupt": a later version may add codecs (spec 5). */
        return hf_rfail(r, HEAPFMT_E_UNSUPPORTED, 0, offset,
                        "unsupported codec %u in the block at offset %llu, "
                        "written by a newer heapfmt (this reader knows "
                        "codecs 0-%u of format %d.%d)",
                        b->codec, at, HF_CODEC_LAST, HEAPFMT_FORMAT_MAJOR,
                        HEAPFMT_FORMAT_MINOR);
    case HF_BLOCK_RESERVED:
        *fatal = 0;
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has reserved bits set", at);
    default:
        *fatal = 0;
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu has lengths impossible for "
                        "codec %s",
                        at, heapfmt_codec_name(b->codec));
    }
    if (!heapfmt_codec_supported(b->codec))
        return hf_rfail(r, HEAPFMT_E_UNSUPPORTED, 0, offset,
                        "unsupported codec %u (%s) in the block at offset "
                        "%llu: this libheapfmt was built without it",
                        b->codec, heapfmt_codec_name(b->codec), at);
    *fatal = 0;
    return HEAPFMT_OK;
}

/* Reads need bytes into *buf, growing it as data arrives so that a length
 * field larger than the input never allocates in full; the last step also
 * makes room for extra bytes (the decoder's padding), so that no further
 * copy is needed. */
static int read_grow(heapfmt_reader *r, uint8_t **buf, size_t *cap,
                     size_t need, size_t extra, size_t *got)
{
    size_t have = 0;
    while (have < need) {
        size_t step = have < (64u << 10) ? (64u << 10) : have * 2;
        /* up to twice what an earlier block took at once: no copy later */
        if (have == 0 && *cap > step / 2)
            step = *cap * 2;
        size_t target = need - have < step ? need : have + step;
        if (hf_grow_bytes(&r->al, buf, cap,
                          target + (target == need ? extra : 0), have) < 0)
            return hf_rfail(r, HEAPFMT_E_NOMEM, 0, r->pos,
                            "out of memory for a %zu-byte block", need);
        size_t n;
        int rc = hf_read_full(r, *buf + have, target - have, &n);
        have += n;
        if (rc != HEAPFMT_OK)
            return rc;
        if (n < target - (have - n))
            break;
    }
    *got = have;
    return HEAPFMT_OK;
}

static int truncated_in_block(heapfmt_reader *r, uint64_t offset, size_t got,
                              uint32_t want)
{
    return hf_rfail(r, HEAPFMT_E_TRUNCATED, 0, offset,
                    "dump is truncated: the block at offset %llu has %zu of "
                    "%u bytes; %llu records in %llu complete blocks were read",
                    (unsigned long long)offset, got, want,
                    (unsigned long long)r->delivered,
                    (unsigned long long)r->blocks_done);
}

int hf_block_skip(heapfmt_reader *r, const hf_block_header *b,
                  uint64_t offset)
{
    size_t got;
    int rc = read_grow(r, &r->stored, &r->stored_cap, b->stored_len, 0, &got);
    if (rc != HEAPFMT_OK)
        return rc;
    if (got < b->stored_len)
        return truncated_in_block(r, offset, got, b->stored_len);
    return HEAPFMT_OK;
}

int hf_block_payload(heapfmt_reader *r, const hf_block_header *b,
                     uint64_t offset, uint8_t **out, size_t *out_cap)
{
    size_t got;
    int rc;
    if (b->codec == HF_CODEC_STORED)
        rc = read_grow(r, out, out_cap, b->stored_len, HF_RAW_PAD, &got);
    else
        rc = read_grow(r, &r->stored, &r->stored_cap, b->stored_len, 0, &got);
    if (rc != HEAPFMT_OK)
        return rc;
    if (got < b->stored_len)
        return truncated_in_block(r, offset, got, b->stored_len);
    if (b->codec != HF_CODEC_STORED) {
        if (hf_grow_bytes(&r->al, out, out_cap,
                          (size_t)b->raw_len + HF_RAW_PAD, 0) < 0)
            return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                            "out of memory for a %u-byte block", b->raw_len);
        rc = hf_decompress_block(&r->dec, b->codec, r->stored, b->stored_len,
                                 *out, b->raw_len);
        if (rc == HEAPFMT_E_NOMEM)
            return hf_rfail(r, rc, 0, offset,
                            "out of memory decoding the %s block at offset "
                            "%llu",
                            heapfmt_codec_name(b->codec),
                            (unsigned long long)offset);
        if (rc != HEAPFMT_OK)
            return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                            "block at offset %llu does not decompress (%s)",
                            (unsigned long long)offset,
                            heapfmt_codec_name(b->codec));
    }
    if (hf_crc32(*out, b->raw_len) != b->data_crc)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block at offset %llu fails its checksum",
                        (unsigned long long)offset);
    /* Zero padding for the record decoder (HF_RAW_PAD). The buffer is
     * reused from block to block, so the padding is written every time. */
    if (hf_grow_bytes(&r->al, out, out_cap, (size_t)b->raw_len + HF_RAW_PAD,
                      b->raw_len) < 0)
        return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                        "out of memory for a %u-byte block", b->raw_len);
    memset(*out + b->raw_len, 0, HF_RAW_PAD);
    return HEAPFMT_OK;
}
