/* rsort.c -- a radix sort of 64-bit keys (rsort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rsort.h"

#define DIGIT 11u
#define BUCKETS (1u << DIGIT)
#define DIGITS 6u /* 66 bits: every bit of the key */
#define SMALL 256 /* fewer: insertion sort */

static uint64_t key(const unsigned char *e)
{
    uint64_t k;
    memcpy(&k, e, 8);
    return k;
}

static void insertion(unsigned char *v, size_t n, size_t size)
{
    unsigned char t[16];
    for (size_t i = 1; i < n; i++) {
        memcpy(t, v + i * size, size);
        uint64_t k = key(t);
        size_t j = i;
        while (j > 0 && key(v + (j - 1) * size) > k) {
            memcpy(v + j * size, v + (j - 1) * size, size);
            j--;
        }
        memcpy(v + j * size, t, size);
    }
}

/* One pass: elements of src by digit d into dst, where count[] holds the
 * digit's starting positions. */
static void scatter(const unsigned char *src, unsigned char *dst, size_t n,
                    size_t size, unsigned d, uint32_t *count)
{
    unsigned shift = d * DIGIT;
    if (size == 8) {
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key(src + 8 * i);
            memcpy(dst + 8 * (size_t)count[(k >> shift) & (BUCKETS - 1)]++,
                   src + 8 * i, 8);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key(src + 16 * i);
            memcpy(dst + 16 * (size_t)count[(k >> shift) & (BUCKETS - 1)]++,
                   src + 16 * i, 16);
        }
    }
}

int rsort(void *base, size_t n, size_t size)
{
    unsigned char *v = base;
    if (n < SMALL) {
        insertion(v, n, size);
        return 0;
    }
    if (n > UINT32_MAX)
        return -1;
    uint32_t(*count)[BUCKETS] = calloc(DIGITS, sizeof *count);
    unsigned char *tmp = malloc(n * size);
    if (count == NULL || tmp == NULL) {
        free(count);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key(v + i * size);
        for (unsigned d = 0; d < DIGITS; d++)
            count[d][(k >> (d * DIGIT)) & (BUCKETS - 1)]++;
    }
    unsigned char *src = v, *dst = tmp;
    for (unsigned d = 0; d < DIGITS; d++) {
        uint32_t sum = 0;
        int shared = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            uint32_t c = count[d][b];
            if (c == n)
                shared = 1; /* one digit for all: the pass changes nothing */
            count[d][b] = sum;
            sum += c;
        }
        if (shared)
            continue;
        scatter(src, dst, n, size, d, count[d]);
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * size);
    free(tmp);
    free(count);
    return 0;
}
