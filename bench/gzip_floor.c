/* gzip_floor.c -- the floor of reading a gzip file: a plain zlib read
 * loop, nothing else (issue 39: gzip'd HPROF).
 *
 * Usage: gzip_floor [-r RUNS] FILE.gz
 *
 * Each run opens the file and inflates it to its end through zlib alone:
 * read(2) 256 KiB of compressed bytes at a time, inflate (gzip wrapper,
 * so zlib checks each member's CRC32 and length) into one 1 MiB buffer
 * that is overwritten, members one after another as gzip -c a b writes
 * them and jmap -dump:gz= writes its chunks. That is what any reader of a
 * gzip file must at least spend, whatever it does with the bytes; the
 * file is read through the page cache like the importer reads it (run
 * the file once before timing to warm it).
 *
 * Prints one JSON object on standard output:
 *   {"compressed_bytes": C, "raw_bytes": R, "runs": [{"wall_s": W,
 *    "cpu_s": T}, ...]}
 * and exits 0, or 1 with a message on standard error (a damaged or
 * truncated file). Independent of heapfmt on purpose. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define IN_SIZE ((size_t)256 << 10)
#define OUT_SIZE ((size_t)1 << 20)

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Inflates the file at path to its end; the decoded byte count in *raw
 * and the compressed one in *comp. Returns 0, or -1 with a message. */
static int inflate_file(const char *path, unsigned char *in,
                        unsigned char *out, uint64_t *comp, uint64_t *raw)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "gzip_floor: %s: %s\n", path, strerror(errno));
        return -1;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        fprintf(stderr, "gzip_floor: cannot initialise zlib\n");
        close(fd);
        return -1;
    }
    *comp = *raw = 0;
    int done = 0, eof = 0, rc = -1;
    for (;;) {
        if (z.avail_in == 0 && !eof) {
            ssize_t n = read(fd, in, IN_SIZE);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                fprintf(stderr, "gzip_floor: %s: %s\n", path, strerror(errno));
                break;
            }
            eof = n == 0;
            *comp += (uint64_t)n;
            z.next_in = in;
            z.avail_in = (uInt)n;
        }
        if (done) { /* a member ended: another may follow */
            if (z.avail_in == 0 && eof) {
                rc = 0;
                break;
            }
            if (z.avail_in == 0)
                continue;
            inflateReset(&z);
            done = 0;
        }
        z.next_out = out;
        z.avail_out = (uInt)OUT_SIZE;
        int zr = inflate(&z, Z_NO_FLUSH);
        *raw += OUT_SIZE - z.avail_out;
        if (zr == Z_STREAM_END) {
            done = 1;
        } else if (zr == Z_BUF_ERROR && z.avail_in == 0 && eof) {
            fprintf(stderr, "gzip_floor: %s: truncated\n", path);
            break;
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            fprintf(stderr, "gzip_floor: %s: damaged (%s)\n", path,
                    z.msg ? z.msg : "zlib error");
            break;
        }
    }
    inflateEnd(&z);
    close(fd);
    return rc;
}

int main(int argc, char **argv)
{
    long runs = 3;
    int c;
    while ((c = getopt(argc, argv, "r:")) != -1) {
        char *e;
        long v = strtol(optarg, &e, 10);
        if (*e != '\0' || v < 1 || v > 1000) {
            fprintf(stderr, "gzip_floor: invalid -r value '%s'\n", optarg);
            return 2;
        }
        runs = v;
    }
    if (c != -1 || optind != argc - 1) {
        fprintf(stderr, "Usage: gzip_floor [-r RUNS] FILE.gz\n");
        return 2;
    }
    unsigned char *in = malloc(IN_SIZE), *out = malloc(OUT_SIZE);
    if (!in || !out) {
        fprintf(stderr, "gzip_floor: out of memory\n");
        return 1;
    }
    uint64_t comp = 0, raw = 0;
    double wall[1000], cpu[1000];
    for (long r = 0; r < runs; r++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (inflate_file(argv[optind], in, out, &comp, &raw) != 0)
            return 1;
        wall[r] = now(CLOCK_MONOTONIC) - w0;
        cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    printf("{\"compressed_bytes\": %llu, \"raw_bytes\": %llu, \"runs\": [",
           (unsigned long long)comp, (unsigned long long)raw);
    for (long r = 0; r < runs; r++)
        printf("%s{\"wall_s\": %.6f, \"cpu_s\": %.6f}", r ? ", " : "",
               wall[r], cpu[r]);
    printf("]}\n");
    free(in);
    free(out);
    return 0;
}
