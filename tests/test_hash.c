/*
 * test_hash.c -- seeded hashing (libheapfmt/common/hash.h) and the hash tables
 * that use it, against keys made to collide.
 *
 * Every table's keys come from input files. Before seeding, the maps used
 * a fixed Fibonacci hash, for which colliding 64-bit keys are one modular
 * inverse away: key_i = i * K^-1 puts every key in slot 0, so n inserts
 * cost n^2/2 probes. These tests insert such keys and must finish (the
 * Criterion timeout is the failure); they also check the property that
 * makes it work: keys that collide under one seed spread under another.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt_internal.h"
#include "strtab.h"
#include "talloc.h"
#include "tio.h"

#define FIB 0x9e3779b97f4a7c15ull

Test(hash, colliders_do_collide_under_the_fixed_function)
{
    /* guards the construction: without it the tests below prove nothing */
    for (uint64_t i = 1; i < 1000; i++)
        cr_assert_eq((tfib_collider(i) * FIB) >> 32, 0);
}

Test(hash, same_seed_same_hash)
{
    const char text[] = "ActiveSupport::HashWithIndifferentAccess";
    for (uint64_t seed = 1; seed < 5; seed++) {
        cr_assert_eq(hf_hash_u64(seed, 12345), hf_hash_u64(seed, 12345));
        for (size_t n = 0; n < sizeof text; n++)
            cr_assert_eq(hf_hash_bytes(seed, text, n),
                         hf_hash_bytes(seed, text, n));
    }
    cr_assert_neq(hf_hash_bytes(1, "a", 1), hf_hash_bytes(1, "a\0", 2),
                  "the length is part of the hash");
}

Test(hash, every_table_draws_its_own_seed)
{
    hf_map a, b;
    hf_map_init(&a);
    hf_map_init(&b);
    cr_assert_neq(a.seed, b.seed);
}

/* Key k of a family: an id, or a class-like name. */
static uint64_t hash_id(uint64_t seed, unsigned k)
{
    return hf_hash_u64(seed, k);
}

static uint64_t hash_name(uint64_t seed, unsigned k)
{
    char text[32];
    int len = snprintf(text, sizeof text, "Class%u::Name", k);
    return hf_hash_bytes(seed, text, (size_t)len);
}

/* How many of 4096 slots keys that share slot 0 under seed a take under
 * seed b: about 4096 * (1 - e^(-n/4096)) if the seeds are independent. */
static size_t spread(uint64_t (*h)(uint64_t, unsigned), uint64_t a,
                     uint64_t b, size_t *n)
{
    static unsigned char seen[4096];
    memset(seen, 0, sizeof seen);
    size_t distinct = 0;
    *n = 0;
    for (unsigned k = 1; k < (1u << 20); k++) {
        if ((h(a, k) & 4095) != 0)
            continue;
        ++*n;
        size_t s = h(b, k) & 4095;
        distinct += !seen[s];
        seen[s] = 1;
    }
    return distinct;
}

Test(hash, collisions_do_not_survive_another_seed)
{
    size_t n;
    size_t d = spread(hash_id, 0x1234, 0x5678, &n);
    cr_assert_gt(n, 200, "%zu keys in slot 0 of 4096", n);
    cr_assert_gt(d, n * 9 / 10, "%zu colliding ids take %zu slots", n, d);
    d = spread(hash_name, 0x1234, 0x5678, &n);
    cr_assert_gt(n, 200, "%zu names in slot 0 of 4096", n);
    cr_assert_gt(d, n * 9 / 10, "%zu colliding names take %zu slots", n, d);
}

/* 2^18 colliders were 3.4e10 probes with the fixed function. */
Test(hash, map_takes_colliding_keys_in_linear_time, .timeout = 30)
{
    talloc al;
    talloc_init(&al, 0);
    hf_map m;
    hf_map_init(&m);
    const uint32_t n = 1u << 18;
    for (uint32_t i = 1; i <= n; i++)
        cr_assert_eq(hf_map_put(&m, &al.hooks, tfib_collider(i), i), 0);
    cr_assert_eq(m.count, n);
    for (uint32_t i = 1; i <= n; i++) {
        uint32_t v = 0;
        cr_assert(hf_map_get(&m, tfib_collider(i), &v));
        cr_assert_eq(v, i);
    }
    uint32_t v;
    cr_assert_not(hf_map_get(&m, tfib_collider(n + 1), &v));
    hf_map_free(&m, &al.hooks);
    cr_assert_eq(al.live, 0);
}

Test(hash, string_table_keeps_distinct_strings_apart)
{
    talloc al;
    talloc_init(&al, 0);
    hf_strtab t;
    hf_strtab_init(&t, &al.hooks);
    char text[32];
    for (uint32_t i = 1; i <= 5000; i++) {
        int len = snprintf(text, sizeof text, "s%u", i);
        uint32_t id;
        int found;
        cr_assert_eq(hf_strtab_intern(&t, text, (size_t)len, i, &id, &found),
                     0);
        cr_assert_not(found);
        cr_assert_eq(id, i);
    }
    for (uint32_t i = 1; i <= 5000; i++) {
        int len = snprintf(text, sizeof text, "s%u", i);
        uint32_t id;
        int found;
        cr_assert_eq(hf_strtab_intern(&t, text, (size_t)len, 9999, &id,
                                      &found), 0);
        cr_assert(found);
        cr_assert_eq(id, i);
    }
    hf_strtab_free(&t);
    cr_assert_eq(al.live, 0);
}
