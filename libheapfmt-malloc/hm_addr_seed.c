/* hm_addr_seed.c -- the seed of the tables keyed by the program's
 * addresses (hm_addr_table.h), drawn once at start.
 *
 * From the clocks and the addresses of this library's data and of the
 * caller's stack (both moved by ASLR): no descriptor, no system call but
 * the vDSO's, as everything the tracker does inside its host. Not a
 * secret against the process itself, which could read it; enough that
 * no input from outside (a request's sizes, a file's records) can aim
 * the program's allocations at one slot. */
#include <stdint.h>
#include <time.h>

#include "hm.h"

uint64_t hm_addr_seed[2] = {UINT64_C(0x9E3779B97F4A7C15), UINT64_C(0xC2B2AE3D27D4EB4F)};
static int seeded;

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Called before the first insert, while one thread runs (the tracker's
 * start); never again once a table holds an entry. */
void hm_addr_seed_init(void) {
    if (seeded)
        return;
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r);
    int here;
    uint64_t x = (uint64_t)m.tv_nsec ^ ((uint64_t)m.tv_sec << 30) ^
                 ((uint64_t)r.tv_nsec << 7) ^ (uint64_t)r.tv_sec ^
                 ((uint64_t)(uintptr_t)&here << 17) ^ (uint64_t)(uintptr_t)&seeded;
    hm_addr_seed[0] = splitmix(&x) | 1;
    hm_addr_seed[1] = splitmix(&x) | 1;
    seeded = 1;
}
