/* hm_sample.c -- Poisson sampling by bytes, as tcmalloc, jemalloc and Go's
 * heap profiler do it.
 *
 * Each thread counts down the bytes it allocates; the allocation that
 * takes the count below zero is sampled, and a new count is drawn from an
 * exponential distribution of mean hm_cfg.sample_bytes. The process is
 * memoryless, so an allocation of s bytes is sampled with probability
 * 1 - exp(-s / mean) whatever came before it, and stands for
 * 1 / (1 - exp(-s / mean)) allocations of its size: the weight the dump
 * scales by. Large allocations (s >> mean) are always sampled. */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "hm.h"

HM_TLS __thread int64_t hm_sample_left;
static HM_TLS __thread uint64_t rng;

static uint64_t next_random(void) {
    if (HM_UNLIKELY(rng == 0)) {
        /* Seeded per thread: the thread's own address and the clock. */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        rng = ((uint64_t)(uintptr_t)&rng * UINT64_C(0x9E3779B97F4A7C15)) ^
              ((uint64_t)t.tv_nsec << 20) ^ (uint64_t)t.tv_sec;
        if (rng == 0)
            rng = 1;
    }
    /* xorshift64*: fast, good enough for sampling intervals. */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * UINT64_C(2685821657736338717);
}

static int64_t draw_interval(void) {
    /* u in (0, 1]: 53 random bits, never 0 so that log(u) is finite. */
    double u = (double)((next_random() >> 11) + 1) * (1.0 / 9007199254740992.0);
    double v = -log(u) * (double)hm_cfg.sample_bytes;
    return v >= 9.0e18 ? INT64_MAX : (int64_t)v + 1;
}

int hm_sample_slow(size_t size) {
    if (HM_UNLIKELY(rng == 0)) { /* this thread's first allocation */
        hm_sample_left = draw_interval() - (int64_t)(size > INT64_MAX ? INT64_MAX : size);
        if (hm_sample_left > 0)
            return 0;
    }
    hm_sample_left = draw_interval();
    return 1;
}

double hm_sample_weight(uint64_t size, uint64_t mean) {
    if (mean == 0)
        return 1.0;
    double p = -expm1(-(double)size / (double)mean);
    return p > 0 ? 1.0 / p : (double)mean; /* size 0: as if one byte */
}
