/* core_heap.c -- a large malloc heap for heapfmt-core's benchmark
 * (bench/bench.py, the core case):
 *
 *     core_heap BYTES BLOCKS
 *
 * Allocates BLOCKS blocks of BYTES in all (sizes drawn from 16 to about
 * twice the mean, as a server's heap), each holding a pointer to another
 * block, a pointer into the middle of one, and small integers, held from
 * one array; frees one block in eight (free chunks in the bins and
 * tcache), then stops itself (SIGSTOP) for heapfmt-core -p and gcore.
 * Prints the heap's bytes and blocks on stdout before stopping. Plain C,
 * no library: the bench builds it with the tools' compiler. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: core_heap BYTES BLOCKS\n");
        return 2;
    }
    uint64_t bytes = strtoull(argv[1], NULL, 10), n = strtoull(argv[2], NULL, 10);
    if (n == 0 || bytes / n < 16) {
        fprintf(stderr, "core_heap: at least 16 bytes a block\n");
        return 2;
    }
    uint64_t mean = bytes / n;
    void **held = malloc(n * sizeof *held);
    if (held == NULL)
        return 1;
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
        size_t size = 16 + (size_t)(next() % (2 * (mean - 8)));
        uint64_t *p = malloc(size);
        if (p == NULL)
            return 1;
        size_t words = size / 8;
        for (size_t w = 0; w < words; w++)
            p[w] = next() & 0xffff; /* small integers: not pointers */
        held[i] = p;
        total += size;
        if (i > 0) {
            p[0] = (uint64_t)(uintptr_t)held[next() % i];
            if (words > 2)
                p[1] = (uint64_t)(uintptr_t)held[next() % i] + 8;
        }
    }
    uint64_t freed = 0;
    for (uint64_t i = 7; i < n; i += 8) {
        free(held[i]);
        held[i] = NULL;
        freed++;
    }
    printf("%llu %llu\n", (unsigned long long)total,
           (unsigned long long)(n - freed));
    fflush(stdout);
    raise(SIGSTOP);
    return held[0] == NULL;
}
