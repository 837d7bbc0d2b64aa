/*
 * test_graph_id_index.c -- the index of ids against a search of every id:
 * the node found for each id is the first object with it, an id not there
 * is not found, repeated ids are counted, whatever the order and spacing
 * of the ids: heap order (near slots), heap order with a dense stretch
 * (the overflow), a dense minority that defeats the regions (built
 * plain), random order (plain), consecutive ids, the ends of the range.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "id_index.h"
#include "tassert.h"
#include "tio.h"

static const diff_mem mem = {NULL, NULL, NULL};

typedef struct pair {
    uint64_t id;
    uint32_t node;
} pair;

static int by_id_then_node(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The first node of id in the sorted pairs, or ID_NONE. */
static uint32_t expected(const pair *p, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && p[lo].id == id ? p[lo].node : ID_NONE;
}

/* Checks every id, and the ids one above and below each, against the
 * sorted pairs. Returns the built index (to free) for the caller's own
 * checks. */
static void check(const uint64_t *ids, uint32_t n, id_index *x)
{
    pair *p = malloc((n ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    for (uint32_t v = 0; v < n; v++)
        p[v] = (pair){ids[v], v};
    qsort(p, n, sizeof *p, by_id_then_node);
    uint64_t distinct = 0;
    for (uint32_t i = 0; i < n; i++)
        distinct += i == 0 || p[i].id != p[i - 1].id;
    cr_assert_eq(id_index_build(x, &mem, ids, n), 0);
    cr_assert_eq(x->duplicates, n - distinct);
    for (uint32_t v = 0; v < n; v++) {
        uint64_t id = ids[v];
        cr_assert_eq(id_index_find(x, id), expected(p, n, id),
                     "id 0x%llx (node %u)", (unsigned long long)id, v);
        cr_assert_eq(id_index_find(x, id + 1), expected(p, n, id + 1));
        cr_assert_eq(id_index_find(x, id - 1), expected(p, n, id - 1));
    }
    free(p);
}

/* n ids from base, spacing apart, in pages of `page` objects; with
 * swap, each pair of pages in the other order (heap pages visited out of
 * address order: every other page starts below the one before). */
static void heap_order(uint64_t *ids, uint32_t n, uint64_t base,
                       uint64_t spacing, uint32_t page, int swap)
{
    for (uint32_t v = 0; v < n; v++) {
        uint64_t pg = v / page, at = v % page;
        if (swap)
            pg ^= 1;
        ids[v] = base + (pg * page + at) * spacing;
    }
}

Test(id_index, heap_order_uses_near_slots)
{
    enum { N = 50000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    heap_order(ids, N, 0x7f0000001000ull, 40, 409, 1);
    id_index x;
    check(ids, N, &x);
    cr_assert_neq(x.shift, ID_PLAIN, "ascending ids get near slots");
    cr_assert_lt(x.noverflow, N / ID_OVERFLOW_MAX);
    id_index_free(&x, &mem);
    free(ids);
}

/* The index of n ids: n - dense ascending from base, spacing apart, then
 * dense ones 8 bytes apart from base + offset, between the first ones
 * (the same positions, more than a window holds). */
static void ascending_then_dense(id_index *x, uint32_t n, uint32_t dense,
                                 uint64_t base, uint64_t spacing,
                                 uint64_t offset)
{
    uint64_t *ids = malloc(n * sizeof *ids);
    heap_order(ids, n - dense, base, spacing, n, 0);
    for (uint32_t i = 0; i < dense; i++)
        ids[n - dense + i] = base + offset + 8 * (uint64_t)i;
    check(ids, n, x);
    free(ids);
}

Test(id_index, a_dense_stretch_overflows_and_is_still_found)
{
    id_index x;
    ascending_then_dense(&x, 40000, 1500, 0x55550000ull, 40, 8);
    cr_assert_neq(x.shift, ID_PLAIN);
    cr_assert_gt(x.noverflow, 0u, "the overflow is used");
    id_index_free(&x, &mem);
}

Test(id_index, a_dense_minority_makes_a_plain_hash)
{
    id_index x; /* one in ten would overflow */
    ascending_then_dense(&x, 40000, 4000, 0x1000000ull, 1024, 4);
    cr_assert_eq(x.shift, ID_PLAIN);
    id_index_free(&x, &mem);
}

Test(id_index, random_order_makes_a_plain_hash)
{
    enum { N = 30000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    tprng r;
    tprng_seed(&r, 19);
    for (uint32_t v = 0; v < N; v++)
        ids[v] = tprng_next(&r) & ~(uint64_t)7;
    id_index x;
    check(ids, N, &x);
    cr_assert_eq(x.shift, ID_PLAIN);
    id_index_free(&x, &mem);
    free(ids);
}

Test(id_index, consecutive_ids_and_the_ends_of_the_range)
{
    enum { N = 20000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    for (uint32_t v = 0; v < N; v++)
        ids[v] = (uint64_t)v + 1;
    id_index x;
    check(ids, N, &x);
    cr_assert_eq(x.shift, 0u);
    id_index_free(&x, &mem);
    heap_order(ids, N, UINT64_MAX - 48 * (uint64_t)N, 48, 97, 1);
    ids[N - 1] = UINT64_MAX;
    ids[0] = 0;
    check(ids, N, &x);
    id_index_free(&x, &mem);
    free(ids);
}

Test(id_index, repeated_ids_go_to_the_first)
{
    enum { N = 30000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    heap_order(ids, N, 0x40000000ull, 40, N, 0);
    tprng r;
    tprng_seed(&r, 7);
    for (int i = 0; i < 300; i++) { /* a later object repeats an id */
        uint32_t a = (uint32_t)tprng_below(&r, N - 1);
        uint32_t b = a + 1 + (uint32_t)tprng_below(&r, N - 1 - a);
        ids[b] = ids[a];
    }
    id_index x;
    check(ids, N, &x);
    cr_assert_gt(x.duplicates, 0u);
    id_index_free(&x, &mem);
    free(ids);
}

Test(id_index, none_and_one)
{
    uint64_t one = 42;
    id_index x;
    cr_assert_eq(id_index_build(&x, &mem, &one, 0), 0);
    cr_assert_eq(id_index_find(&x, 42), ID_NONE);
    id_index_free(&x, &mem);
    check(&one, 1, &x);
    cr_assert_eq(id_index_find(&x, 42), 0u);
    id_index_free(&x, &mem);
}

/* CPU seconds to build the index of the n ids and find each. */
static double build_and_find(const uint64_t *ids, uint32_t n, id_index *x)
{
    double t0 = tcpu_seconds();
    cr_assert_eq(id_index_build(x, &mem, ids, n), 0);
    for (uint32_t v = 0; v < n; v++)
        cr_assert_eq(id_index_find(x, ids[v]), v);
    return tcpu_seconds() - t0;
}

/* Hash flooding (issue 31): ids i * K^-1 all had the home slot 0 of the
 * unseeded Fibonacci hash, so that 160k of them (in the order they come,
 * not ascending: the plain hash) took 13 s where random ids take 0.02 s.
 * The index's hash is seeded: they cost what random ids cost. */
Test(id_index, ids_made_to_collide_cost_what_random_ids_cost, .timeout = 60)
{
    enum { N = 160000 };
    uint64_t *bad, *rnd;
    tflood_keys(N, tfib_collider, &bad, &rnd);
    for (uint32_t v = 0; v < N; v++) /* the construction: one slot */
        cr_assert_eq((bad[v] * 0x9E3779B97F4A7C15ull) >> 40, 0);
    id_index x;
    double t_rnd = build_and_find(rnd, N, &x);
    cr_assert_eq(x.shift, ID_PLAIN);
    id_index_free(&x, &mem);
    double t_bad = build_and_find(bad, N, &x);
    cr_assert_eq(x.shift, ID_PLAIN, "the crafted ids get the plain hash");
    id_index_free(&x, &mem);
    TASSERT_FLOOD(t_bad, t_rnd);
    free(bad);
    free(rnd);
}

/* The regions' bases and the overflow are seeded too: the same ids get
 * other slots in another build, so a file cannot be made whose regions
 * all start at one slot, or whose overflowing ids share one. */
Test(id_index, bases_and_overflow_differ_from_build_to_build)
{
    id_index a, b;
    ascending_then_dense(&a, 40000, 1500, 0x55550000ull, 40, 8);
    ascending_then_dense(&b, 40000, 1500, 0x55550000ull, 40, 8);
    cr_assert_neq(a.shift, ID_PLAIN);
    cr_assert_eq(a.shift, b.shift);
    cr_assert_gt(a.noverflow, 100u);
    cr_assert_neq(a.seed, b.seed);
    size_t same_home = 0, same_over = 0, n = 0;
    for (uint64_t id = 0x55550000ull; id < 0x55550000ull + 40 * 38500;
         id += 40 * 97, n++)
        same_home += id_home(&a, id) == id_home(&b, id);
    for (size_t s = 0; s < ((size_t)1 << a.over_bits); s++)
        same_over += a.over[s] != 0 && a.over[s] == b.over[s];
    cr_assert_lt(same_home, n / 10, "%zu of %zu ids at the same home",
                 same_home, n);
    cr_assert_lt(same_over, a.noverflow / 10,
                 "%zu of %zu overflowing ids in the same slot", same_over,
                 a.noverflow);
    id_index_free(&a, &mem);
    id_index_free(&b, &mem);
}
