/*
 * test_simd_portable.c -- test_simd.c on the portable forms of simd.h,
 * those of machines without SSE2, built here on any machine.
 */
#define HEAPFMT_NO_SIMD 1
#include "test_simd.c"
