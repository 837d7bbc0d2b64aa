/*
 * test_export_idset.c -- the id counter of heapfmt-export (the unique
 * _ids of the MongoDB format) and heapfmt-info --verify (analysis/
 * idset.h): every count it returns, and every id's count asked after
 * the last, against a model that counts by linear search, over orders
 * that take each of its paths -- ascending (the run alone), descending
 * and random (the hash alone), ascending with repeats of earlier ids
 * (both, the same id in each), the ids 0 and 2^64-1.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "idset.h"
#include "tassert.h"
#include "tio.h"

/* The model: ids met and their counts, searched one by one. */
typedef struct model {
    uint64_t *ids;
    uint32_t *counts;
    size_t n;
} model;

static uint32_t model_add(model *m, uint64_t id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->ids[i] == id)
            return ++m->counts[i];
    m->ids[m->n] = id;
    m->counts[m->n] = 1;
    return m->counts[m->n++];
}

/* Feeds n ids from next() to both and compares every answer. */
static void check(size_t n, uint64_t (*next)(size_t i, uint64_t *state))
{
    idset s;
    idset_init(&s);
    model m = {calloc(n, sizeof(uint64_t)), calloc(n, sizeof(uint32_t)), 0};
    cr_assert(m.ids && m.counts);
    uint64_t state = 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = next(i, &state);
        uint32_t want = model_add(&m, id);
        uint32_t got = idset_add(&s, id);
        cr_assert_eq(got, want, "object %zu, id %#llx: counted %u, model %u",
                     i, (unsigned long long)id, got, want);
    }
    for (size_t i = 0; i < m.n; i++)
        cr_assert_eq(idset_count(&s, m.ids[i]), m.counts[i],
                     "id %#llx: count %u, model %u",
                     (unsigned long long)m.ids[i],
                     idset_count(&s, m.ids[i]), m.counts[i]);
    /* an id never met (the model holds at most n ids: one of n + 1 is
     * absent) */
    for (uint64_t id = 1; id <= m.n + 1; id++) {
        size_t i = 0;
        while (i < m.n && m.ids[i] != id * 0x9E3779B97F4A7C15ull)
            i++;
        if (i == m.n) {
            cr_assert_eq(idset_count(&s, id * 0x9E3779B97F4A7C15ull), 0);
            break;
        }
    }
    idset_free(&s);
    free(m.ids);
    free(m.counts);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static uint64_t ascending(size_t i, uint64_t *st)
{
    (void)st;
    return 0x7f0000000000ull + 40 * (uint64_t)i;
}

static uint64_t descending(size_t i, uint64_t *st)
{
    (void)st;
    return 0x7f0000000000ull - 40 * (uint64_t)i;
}

/* few distinct ids: most are repeats, in any order */
static uint64_t random_small(size_t i, uint64_t *st)
{
    (void)i;
    return rnd(st) % 97;
}

/* ascending, with one object in seven repeating an earlier id (one from
 * the run, or one already repeated) */
static uint64_t ascending_with_repeats(size_t i, uint64_t *st)
{
    uint64_t r = rnd(st);
    if (i > 0 && r % 7 == 0)
        return 1000 + 8 * (r / 7 % i);
    return 1000 + 8 * (uint64_t)i;
}

/* the run's last id again, then 0, then the largest ids */
static uint64_t edges(size_t i, uint64_t *st)
{
    (void)st;
    static const uint64_t seq[] = {5, 5, 6, 0, 0, UINT64_MAX, UINT64_MAX,
                                   UINT64_MAX - 1, UINT64_MAX - 1, 6, 5,
                                   UINT64_MAX, 3, 3, 4};
    return seq[i % (sizeof seq / sizeof seq[0])];
}

Test(export_idset, ascending_ids_are_each_met_once)
{
    check(20000, ascending); /* past the run's first 4096 */
}

Test(export_idset, descending_ids_go_to_the_hash)
{
    check(5000, descending);
}

Test(export_idset, repeats_in_random_order)
{
    check(5000, random_small);
}

Test(export_idset, repeats_of_ids_in_the_run)
{
    check(8000, ascending_with_repeats);
}

Test(export_idset, the_run_end_zero_and_the_largest_ids)
{
    check(15 * 4, edges);
}

/* CPU seconds to count ids[0..n), each once, after an id above them all
 * (so that every one goes to the hash). */
static double count_below_a_top_id(const uint64_t *ids, size_t n)
{
    idset s;
    idset_init(&s);
    double t0 = tcpu_seconds();
    cr_assert_eq(idset_add(&s, UINT64_MAX - 1), 1u);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(idset_add(&s, ids[i]), 1u);
    double t = tcpu_seconds() - t0;
    idset_free(&s);
    return t;
}

/* Hash flooding (issue 31): the hash's slot was bits 32 and up of
 * (id + 1) * K, so that ids j * K^-1 - 1 all took slot 0: 160k of them
 * below a larger id cost 13 s in heapfmt-export -f mongo. Seeded, they
 * cost what random ids cost. */
static uint64_t below_collider(uint64_t i)
{
    return tfib_collider(i) - 1;
}

Test(export_idset, ids_made_to_collide_cost_what_random_ids_cost,
     .timeout = 60)
{
    enum { N = 160000 };
    uint64_t *bad, *rnd;
    tflood_keys(N, below_collider, &bad, &rnd);
    for (size_t i = 0; i < N; i++) { /* the construction: one slot */
        cr_assert_eq(((bad[i] + 1) * 0x9E3779B97F4A7C15ull) >> 32, 0);
        rnd[i] >>= 1; /* below the top id */
    }
    double t_rnd = count_below_a_top_id(rnd, N);
    double t_bad = count_below_a_top_id(bad, N);
    TASSERT_FLOOD(t_bad, t_rnd);
    free(bad);
    free(rnd);
}
