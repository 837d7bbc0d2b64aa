/* test_malloc_live.c -- the malloc tracker's live table (hm_live.c) and
 * sampler (hm_sample.c) against simple models: the table must hold
 * exactly the addresses inserted and not removed, whatever their pattern
 * (neighbours, addresses that share a home slot, growth in the middle),
 * and a sample's weight must make the estimates unbiased. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hm.h"

hm_real hm_next; /* the table asks it for usable sizes: none here */

static int by_addr(const void *a, const void *b) {
    const hm_entry *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Random inserts and removes over addresses drawn from a pattern; the
 * model is a flag per address. Checks every remove's answer and entry,
 * then the snapshot against the model. */
static void churn(uintptr_t base, uintptr_t step, size_t span, unsigned ops,
                  unsigned seed) {
    unsigned char *live = calloc(span, 1);
    cr_assert_not_null(live);
    size_t nlive = 0;
    srand(seed);
    for (unsigned i = 0; i < ops; i++) {
        size_t k = (size_t)rand() % span;
        uintptr_t a = base + k * step;
        if (!live[k]) {
            hm_entry e = {.addr = a, .size = k % 1000, .kind = k % HM_KIND_COUNT,
                          .stack = (uint32_t)k, .site = (uint32_t)(k * 3)};
            cr_assert_eq(hm_live_insert(&e), 0);
            live[k] = 1;
            nlive++;
        } else {
            hm_entry out;
            cr_assert(hm_live_maybe(a));
            cr_assert_eq(hm_live_remove(a, &out), 1, "address %zu lost", k);
            cr_assert_eq(out.addr, a);
            cr_assert_eq(out.size, k % 1000);
            cr_assert_eq(out.stack, (uint32_t)k);
            cr_assert_eq(out.site, (uint32_t)(k * 3));
            cr_assert_eq(hm_live_remove(a, &out), 0, "removed twice");
            live[k] = 0;
            nlive--;
        }
    }
    cr_assert_eq(hm_live_count(), nlive);
    hm_entry *snap = calloc(nlive + 1, sizeof *snap);
    uint64_t *usable = calloc(nlive + 1, sizeof *usable);
    hm_live_lock_all();
    size_t n = hm_live_snapshot(snap, usable, nlive + 1);
    hm_live_unlock_all();
    cr_assert_eq(n, nlive);
    qsort(snap, n, sizeof *snap, by_addr);
    size_t j = 0;
    for (size_t k = 0; k < span; k++)
        if (live[k]) {
            cr_assert_eq(snap[j].addr, base + k * step, "snapshot differs at %zu", j);
            j++;
        }
    /* empty the table for the next test in this process */
    for (size_t k = 0; k < span; k++) {
        hm_entry out;
        if (live[k])
            cr_assert_eq(hm_live_remove(base + k * step, &out), 1);
    }
    cr_assert_eq(hm_live_count(), 0);
    free(live);
    free(snap);
    free(usable);
}

static void setup_exact(void) {
    hm_cfg.mode = HM_MODE_EXACT;
    hm_live_init();
}

static void setup_sampled(void) {
    hm_cfg.mode = HM_MODE_SAMPLED;
    hm_live_init();
}

/* Blocks side by side, as a heap hands them out. */
Test(malloc_live, neighbours, .init = setup_exact) {
    churn(0x555555000010, 48, 200000, 1000000, 1);
}

/* Addresses a fixed stride apart (which a placement without the seed put
 * in one home slot): long probe runs where they meet,
 * backward shifts across the table's end. */
Test(malloc_live, shared_home_slots, .init = setup_exact) {
    churn(0x7f0000000010, (uintptr_t)1 << 18, 5000, 200000, 2);
    churn(0x7f0000000010, 4096 * 64, 3000, 100000, 3);
}

/* Page-aligned blocks far apart (mmap'd chunks), and the filter on. */
Test(malloc_live, mmapped_blocks_sampled, .init = setup_sampled) {
    churn(0x7f1200000010, 4096 * 33, 20000, 200000, 4);
}

Test(malloc_live, reinsert_replaces) {
    hm_cfg.mode = HM_MODE_EXACT;
    hm_live_init();
    hm_entry e = {.addr = 0x1000, .size = 1, .stack = 1};
    cr_assert_eq(hm_live_insert(&e), 0);
    e.size = 2;
    cr_assert_eq(hm_live_insert(&e), 0);
    cr_assert_eq(hm_live_count(), 1);
    hm_entry out;
    cr_assert_eq(hm_live_remove(0x1000, &out), 1);
    cr_assert_eq(out.size, 2);
}

/* A block of s bytes is sampled with probability 1 - exp(-s/mean), and
 * its weight is the inverse: the sum of the weights of the sampled ones
 * estimates the count. Checked by simulation: 5 sigma, so that chance
 * fails one run in millions (3 sigma over four sizes failed one CI run in
 * a hundred) while a wrong weight (mean/s for 1/p is 11% off at 1000
 * bytes, 37 sigma) still fails every run. */
Test(malloc_sample, unbiased_estimates) {
    hm_cfg.sample_bytes = 4096;
    const size_t sizes[] = {16, 1000, 4096, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t s = sizes[i];
        const long n = 400000;
        double est = 0;
        long sampled = 0;
        for (long k = 0; k < n; k++)
            if (hm_sample(s)) {
                est += hm_sample_weight(s, hm_cfg.sample_bytes);
                sampled++;
            }
        double p = 1 - exp(-(double)s / 4096);
        double sd = sqrt(n * p * (1 - p)) / p + 1;
        cr_assert(fabs(est - n) < 5 * sd + 1e-9 * n,
                  "size %zu: estimate %.0f of %ld (%ld sampled, sd %.0f)",
                  s, est, n, sampled, sd);
    }
    cr_assert_float_eq(hm_sample_weight(1u << 30, 4096), 1.0, 1e-9);
}

/* An entry made whole (hm_entry_make) reads back field by field. */
Test(malloc_live, entry_make_fields) {
    uint64_t born = (UINT64_C(1) << 41) - 12345;
    hm_entry e = hm_entry_make(0x7f123456789a, HM_SIZE_MAX + 5, HM_KIND_PVALLOC,
                               0xbeef, (1u << 22) - 3, (1u << 20) + 7, born);
    cr_assert_eq(e.addr, 0x7f123456789a);
    cr_assert_eq(e.size, HM_SIZE_MAX);
    cr_assert_eq(e.kind, HM_KIND_PVALLOC);
    cr_assert_eq(e.epoch, 0xbeef);
    cr_assert_eq(e.stack, (1u << 22) - 3);
    cr_assert_eq(e.site, (1u << 20) + 7);
    cr_assert_eq(hm_entry_born(&e), born);
    hm_entry z = hm_entry_make(0x10, 0, 0, 0, 0, 0, 0);
    cr_assert_eq(z.addr, 0x10);
    cr_assert_eq(z.size | z.kind | z.epoch | z.stack | z.site, 0);
}

/* The placement is seeded: addresses a table's span apart (slots x 16
 * bytes), which a plain placement by page and offset puts in one home
 * slot, spread as random keys do, and so do regions over the shards. */
Test(malloc_live, seeded_placement, .init = setup_exact) {
    const size_t mask = 8191, n = 4096;
    unsigned char *seen = calloc(mask + 1, 1);
    cr_assert_not_null(seen);
    size_t homes = 0;
    for (size_t k = 0; k < n; k++) {
        size_t h = hm_addr_home(0x7f0000000010 + k * (mask + 1) * 16) & mask;
        homes += !seen[h];
        seen[h] = 1;
    }
    /* random keys: 8192 (1 - e^-0.5) = 3223 distinct homes */
    cr_assert_gt(homes, n * 6 / 10, "%zu distinct homes of %zu", homes, n);
    unsigned char shards[256] = {0};
    size_t used = 0;
    for (size_t k = 0; k < 1024; k++) {
        unsigned s = hm_addr_shard(0x7f0000000000 + (k << HM_REGION_SHIFT) * 256, 8);
        used += !shards[s];
        shards[s] = 1;
    }
    cr_assert_gt(used, 200, "%zu shards of 256", used); /* random: 251 */
    free(seen);
}
