/* inflate_floor.c -- the physical floor of reading a heapfmt dump: only
 * decode and CRC-check its data blocks, memory to memory, with the codec
 * libraries alone (zlib's inflate, libzstd's ZSTD_decompressDCtx).
 *
 * Usage: inflate_floor [-r RUNS] [-j THREADS] DUMP
 *
 * The file is read into memory first (not timed). The data blocks are
 * found through the footer's block index (spec/FORMAT.md sections 7.2 and
 * 8), each block's lengths and checksum come from its 20-byte header
 * (section 5). Each run inflates every DEFLATE block (raw stream, window
 * bits -15), or decompresses every Zstandard block (one frame), into one
 * buffer and computes the CRC32 of the decoded bytes; stored blocks are
 * only CRC-checked. Every CRC is compared with the
 * block's data_crc, so the work cannot be optimised away and a damaged
 * file is noticed. With -j N the block index is cut into N contiguous
 * ranges, one thread each, as histo -j does.
 *
 * Prints one JSON object on standard output:
 *   {"blocks": B, "objects": N, "raw_bytes": R, "stored_bytes": S,
 *    "threads": J, "runs": [{"wall_s": W, "cpu_s": C}, ...]}
 * and exits 0, or 1 with a message on standard error.
 *
 * This program is independent of libheapfmt on purpose: it is what any
 * reader of the format must at least spend, whatever its record decoder. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define HEADER_SIZE 16u
#define BLOCK_HEADER_SIZE 20u
#define TRAILER_SIZE 24u
#define MAX_BLOCK (128u << 20)
#define TAG_BLOCKS 0x41u
#define CODEC_STORED 0u
#define CODEC_DEFLATE 1u
#define CODEC_ZSTD 2u

static const char *prog = "inflate_floor";

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* LEB128; returns 0, or -1 past end. */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64 && *pp < end; shift += 7) {
        uint8_t b = *(*pp)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

typedef struct block {
    const uint8_t *payload;
    uint32_t codec, raw_len, stored_len, crc;
} block;

typedef struct dump {
    uint8_t *data;
    size_t len;
    block *blocks;
    size_t nblocks;
    uint64_t objects, raw_bytes, stored_bytes;
    uint32_t max_raw;
} dump;

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die("%s: %s", path, strerror(errno));
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (buf == NULL)
            die("out of memory");
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    if (ferror(f))
        die("%s: read error", path);
    fclose(f);
    *len = n;
    return buf;
}

/* Checks the block header at off and fills *b. */
static void block_at(const dump *d, uint64_t off, block *b)
{
    if (off > d->len || d->len - off < BLOCK_HEADER_SIZE)
        die("block offset %llu is outside the file", (unsigned long long)off);
    const uint8_t *h = d->data + off;
    if (crc32(0L, h, 16) != get_u32(h + 16))
        die("block header at %llu fails its checksum",
            (unsigned long long)off);
    b->codec = h[1];
    b->raw_len = get_u32(h + 4);
    b->stored_len = get_u32(h + 8);
    b->crc = get_u32(h + 12);
    b->payload = h + BLOCK_HEADER_SIZE;
    if (b->codec > CODEC_ZSTD || b->raw_len == 0 || b->raw_len > MAX_BLOCK ||
        b->stored_len > d->len - off - BLOCK_HEADER_SIZE)
        die("block at %llu: bad codec or lengths", (unsigned long long)off);
}

/* The decoders of one thread. */
typedef struct decoders {
    z_stream zs;
    ZSTD_DCtx *zd;
} decoders;

static int decoders_init(decoders *dc)
{
    memset(dc, 0, sizeof *dc);
    dc->zd = ZSTD_createDCtx();
    return dc->zd != NULL && inflateInit2(&dc->zs, -15) == Z_OK ? 0 : -1;
}

static void decoders_end(decoders *dc)
{
    inflateEnd(&dc->zs);
    ZSTD_freeDCtx(dc->zd);
}

static int inflate_block(z_stream *zs, const block *b, uint8_t *out)
{
    if (inflateReset(zs) != Z_OK)
        return -1;
    zs->next_in = (Bytef *)b->payload;
    zs->avail_in = b->stored_len;
    zs->next_out = out;
    zs->avail_out = b->raw_len;
    int zr = inflate(zs, Z_FINISH);
    return zr == Z_STREAM_END && zs->avail_out == 0 ? 0 : -1;
}

/* Decodes block b into out (raw_len bytes); returns what holds the raw
 * bytes (the payload itself for a stored block), or NULL. */
static const uint8_t *decode_block(decoders *dc, const block *b, uint8_t *out)
{
    if (b->codec == CODEC_DEFLATE)
        return inflate_block(&dc->zs, b, out) == 0 ? out : NULL;
    if (b->codec == CODEC_ZSTD) {
        size_t n = ZSTD_decompressDCtx(dc->zd, out, b->raw_len, b->payload,
                                       b->stored_len);
        return !ZSTD_isError(n) && n == b->raw_len ? out : NULL;
    }
    return b->stored_len == b->raw_len ? b->payload : NULL;
}

/* Finds the data blocks through the trailer, the footer and its BLOCKS
 * record. */
static void index_dump(dump *d)
{
    if (d->len < HEADER_SIZE + TRAILER_SIZE ||
        memcmp(d->data + d->len - 8, "\x89HFMTEND", 8) != 0)
        die("not a complete heapfmt dump (no trailer)");
    const uint8_t *t = d->data + d->len - TRAILER_SIZE;
    if (crc32(0L, t, 12) != get_u32(t + 12))
        die("trailer fails its checksum");
    block fb;
    block_at(d, get_u64(t), &fb);
    uint8_t *footer = malloc(fb.raw_len);
    if (footer == NULL)
        die("out of memory");
    decoders dc;
    const uint8_t *raw;
    if (decoders_init(&dc) != 0 || (raw = decode_block(&dc, &fb, footer)) == NULL)
        die("footer does not decode");
    if (raw != footer)
        memcpy(footer, raw, fb.raw_len);
    decoders_end(&dc);
    const uint8_t *p = footer, *end = footer + fb.raw_len;
    while (p < end) {
        unsigned tag = *p++;
        uint64_t len;
        if (get_varint(&p, end, &len) != 0 || len > (uint64_t)(end - p))
            die("footer record does not decode");
        const uint8_t *q = p, *qe = p + len;
        p = qe;
        if (tag != TAG_BLOCKS)
            continue;
        uint64_t n, off = 0, delta, records, objects;
        if (get_varint(&q, qe, &n) != 0 || n > len)
            die("block index does not decode");
        d->blocks = calloc(n ? n : 1, sizeof *d->blocks);
        if (d->blocks == NULL)
            die("out of memory");
        for (uint64_t i = 0; i < n; i++) {
            if (get_varint(&q, qe, &delta) || get_varint(&q, qe, &records) ||
                get_varint(&q, qe, &objects))
                die("block index does not decode");
            off += delta;
            block *b = &d->blocks[d->nblocks++];
            block_at(d, off, b);
            d->objects += objects;
            d->raw_bytes += b->raw_len;
            d->stored_bytes += b->stored_len;
            if (b->raw_len > d->max_raw)
                d->max_raw = b->raw_len;
        }
    }
    free(footer);
    if (d->blocks == NULL)
        die("the footer has no block index");
}

typedef struct job {
    const dump *d;
    size_t first, end; /* blocks [first, end) */
    int failed;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    const dump *d = j->d;
    uint8_t *out = malloc(d->max_raw ? d->max_raw : 1);
    decoders dc;
    if (out == NULL || decoders_init(&dc) != 0) {
        j->failed = 1;
        free(out);
        return NULL;
    }
    for (size_t i = j->first; i < j->end && !j->failed; i++) {
        const block *b = &d->blocks[i];
        const uint8_t *raw = decode_block(&dc, b, out);
        if (raw == NULL || crc32(0L, raw, b->raw_len) != b->crc)
            j->failed = 1;
    }
    decoders_end(&dc);
    free(out);
    return NULL;
}

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long runs = 3, threads = 1;
    int c;
    while ((c = getopt(argc, argv, "r:j:")) != -1) {
        char *e;
        long v = strtol(optarg, &e, 10);
        if (*e != '\0' || v < 1 || v > 256) {
            fprintf(stderr, "%s: invalid -%c value '%s'\n", prog, c, optarg);
            return 2;
        }
        if (c == 'r')
            runs = v;
        else
            threads = v;
    }
    if (c != -1 || optind != argc - 1) {
        fprintf(stderr, "Usage: %s [-r RUNS] [-j THREADS] DUMP\n", prog);
        return 2;
    }
    dump d;
    memset(&d, 0, sizeof d);
    d.data = read_file(argv[optind], &d.len);
    index_dump(&d);
    if ((size_t)threads > d.nblocks)
        threads = d.nblocks ? (long)d.nblocks : 1;

    printf("{\"blocks\": %zu, \"objects\": %llu, \"raw_bytes\": %llu, "
           "\"stored_bytes\": %llu, \"threads\": %ld, \"runs\": [",
           d.nblocks, (unsigned long long)d.objects,
           (unsigned long long)d.raw_bytes,
           (unsigned long long)d.stored_bytes, threads);
    job jobs[256];
    pthread_t tids[256];
    for (long r = 0; r < runs; r++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (long i = 0; i < threads; i++) {
            jobs[i] = (job){&d, d.nblocks * (size_t)i / (size_t)threads,
                            d.nblocks * (size_t)(i + 1) / (size_t)threads, 0};
            if (threads == 1)
                run_job(&jobs[i]);
            else if (pthread_create(&tids[i], NULL, run_job, &jobs[i]) != 0)
                die("cannot start a thread");
        }
        for (long i = 0; i < threads; i++)
            if (threads > 1)
                pthread_join(tids[i], NULL);
        double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (long i = 0; i < threads; i++)
            if (jobs[i].failed)
                die("a block fails to inflate or its checksum");
        printf("%s{\"wall_s\": %.6f, \"cpu_s\": %.6f}", r ? ", " : "",
               w1 - w0, c1 - c0);
    }
    printf("]}\n");
    free(d.blocks);
    free(d.data);
    return 0;
}
