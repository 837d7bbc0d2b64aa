/* hm_clock.c -- the tracker's clock for lifespans: ticks of HM_TICK_US
 * microseconds of CLOCK_MONOTONIC (a vDSO call, some 20 ns), kept to
 * HM_BORN_BITS bits as hm_entry stores them. Ages are differences modulo
 * that width, so where the count starts does not matter. */
#include <time.h>

#include "hm.h"

_Static_assert(sizeof(hm_entry) == 24, "a live entry stays 24 bytes");

uint64_t hm_ticks_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    return (us / HM_TICK_US) & ((UINT64_C(1) << HM_BORN_BITS) - 1);
}
