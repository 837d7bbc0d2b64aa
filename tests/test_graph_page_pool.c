/*
 * test_graph_page_pool.c -- heapfmt-graph's page pool: blocks keep their
 * bytes through every resize, freed pages serve the next big block
 * without faulting again, and the spares never add to fresh pages.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "page_pool.h"
#include "tio.h"

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* Writes a pattern of seed over n bytes; checks it. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 512)
        p[i] = (unsigned char)(i / 512 * 31 + seed);
    if (n > 0)
        p[n - 1] = (unsigned char)seed;
}

static void check(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i + 1 < n; i += 512)
        cr_assert_eq(p[i], (unsigned char)(i / 512 * 31 + seed),
                     "byte %zu of %zu lost", i, n);
    if (n > 0)
        cr_assert_eq(p[n - 1], (unsigned char)seed, "last byte of %zu lost", n);
}

/* Random resizes of a few blocks across the small/big line, checked
 * against what was written. */
Test(page_pool, keeps_bytes_through_resizes)
{
    page_pool pool = {0};
    enum { N = 6 };
    unsigned char *p[N] = {0};
    size_t len[N] = {0};
    unsigned seed[N] = {0};
    tprng r;
    tprng_seed(&r, 7);
    for (int step = 0; step < 400; step++) {
        int i = (int)tprng_below(&r, N);
        size_t want;
        switch (tprng_below(&r, 4)) {
        case 0:
            want = 0;
            break;
        case 1:
            want = 1 + tprng_below(&r, 4096);
            break;
        case 2:
            want = PAGE_POOL_BIG - 100 + tprng_below(&r, 200);
            break;
        default:
            want = PAGE_POOL_BIG + tprng_below(&r, 6u << 20);
            break;
        }
        unsigned char *q = page_pool_resize(&pool, p[i], want);
        if (want == 0) {
            cr_assert_null(q);
            p[i] = NULL;
            len[i] = 0;
            continue;
        }
        cr_assert_not_null(q);
        size_t kept = len[i] < want ? len[i] : want;
        if (kept > 0) {
            /* the pattern of the old length, up to the new one */
            for (size_t k = 0; k + 1 < kept; k += 512)
                cr_assert_eq(q[k], (unsigned char)(k / 512 * 31 + seed[i]),
                             "step %d: byte %zu lost (%zu -> %zu)", step, k,
                             len[i], want);
        }
        p[i] = q;
        len[i] = want;
        seed[i] = (unsigned)tprng_below(&r, 256);
        fill(q, want, seed[i]);
        for (int j = 0; j < N; j++)
            if (p[j] != NULL)
                check(p[j], len[j], seed[j]);
        cr_assert_leq(pool.nlive, PAGE_POOL_SLOTS);
        cr_assert_leq(pool.nspare, PAGE_POOL_SLOTS);
    }
    for (int i = 0; i < N; i++)
        page_pool_resize(&pool, p[i], 0);
    cr_assert_eq(pool.nlive, 0);
    page_pool_trim(&pool);
    cr_assert_eq(pool.nspare, 0);
}

/* Resizes p to size bytes in pool and writes byte over [from, size):
 * the block, and in *faults the page faults both cost. */
static unsigned char *resize_and_fill(page_pool *pool, void *p, size_t size,
                                      size_t from, int byte, long *faults)
{
    long before = minor_faults();
    unsigned char *q = page_pool_resize(pool, p, size);
    cr_assert_not_null(q);
    memset(q + from, byte, size - from);
    *faults = minor_faults() - before;
    return q;
}

/* The point of it: a phase's arrays reuse the pages the last phase freed,
 * so touching them costs few page faults; with the spares used up, new
 * pages fault as usual. Compared with the faults of fresh pages, as a
 * sanitizer's shadow memory faults for every new address range. */
Test(page_pool, freed_pages_serve_without_faults)
{
    page_pool pool = {0};
    const size_t size = 32u << 20, pages = size / 4096;
    long fresh, reused, reused2;
    unsigned char *a = resize_and_fill(&pool, NULL, size, 0, 1, &fresh);
    cr_assert_gt(fresh, (long)pages / 2, "%ld faults for %zu fresh pages",
                 fresh, pages);
    page_pool_resize(&pool, a, 0);
    cr_assert_eq(pool.nspare, 1);

    /* two arrays of half the size, from the one freed */
    unsigned char *b = resize_and_fill(&pool, NULL, size / 2, 0, 2, &reused);
    unsigned char *c = resize_and_fill(&pool, NULL, size / 2, 0, 3, &reused2);
    reused += reused2;
    cr_assert_eq(pool.nspare, 0);
    cr_assert_lt(reused * 4, fresh, "%ld faults for %zu reused pages, %ld "
                 "for fresh ones", reused, pages, fresh);

    /* nothing spare: a new array faults its pages in */
    long fresh2;
    unsigned char *d = resize_and_fill(&pool, NULL, size, 0, 4, &fresh2);
    cr_assert_gt(fresh2, (long)pages / 2, "%ld faults for %zu fresh pages",
                 fresh2, pages);

    /* growing in place takes the spares' pages for its new part */
    page_pool_resize(&pool, b, 0);
    page_pool_resize(&pool, c, 0);
    d = resize_and_fill(&pool, d, 2 * size, size, 5, &reused);
    cr_assert_lt(reused * 4, fresh, "growth: %ld faults", reused);
    cr_assert_eq(d[size - 1], 4);
    page_pool_resize(&pool, d, 0);
    page_pool_trim(&pool);
}
