/*
 * test_import_unique_ids.c -- the ids of an imported heap stay unique
 * (tools/import/unique_ids.c, issue 31): a repeat gets a new id from the
 * top of the range down, never one the input uses, the first object keeps
 * its id; against a model, in order, out of order and around the top.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tio.h"
#include "unique_ids.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* All n ids differ. */
static void expect_unique(const uint64_t *ids, size_t n)
{
    uint64_t *s = malloc(n * sizeof *s);
    cr_assert_not_null(s);
    memcpy(s, ids, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    for (size_t i = 1; i < n; i++)
        cr_assert_neq(s[i], s[i - 1], "id %#llx twice",
                      (unsigned long long)s[i]);
    free(s);
}

/* Whether id is among the n of in. */
static int among(const uint64_t *in, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (in[i] == id)
            return 1;
    return 0;
}

/* Streams in through unique_ids_check: an object keeps its id unless an
 * object before it took it (the input's or as a new id), a new id is one
 * no object before took, and every id written differs. */
static void stream(const uint64_t *in, size_t n, uint64_t want_renamed)
{
    unique_ids u;
    unique_ids_init(&u);
    uint64_t *out = malloc(n * sizeof *out);
    cr_assert_not_null(out);
    for (size_t i = 0; i < n; i++) {
        out[i] = in[i];
        cr_assert_eq(unique_ids_check(&u, &out[i]), 0);
        if (!among(out, i, in[i]))
            cr_assert_eq(out[i], in[i], "object %zu lost its id", i);
        else
            cr_assert(out[i] != in[i] && !among(in, i, out[i]),
                      "object %zu got %#llx, an id taken before", i,
                      (unsigned long long)out[i]);
    }
    expect_unique(out, n);
    cr_assert_eq(u.renamed, want_renamed);
    unique_ids_free(&u);
    free(out);
}

Test(unique_ids, ascending_ids_are_kept)
{
    uint64_t in[1000];
    for (size_t i = 0; i < 1000; i++)
        in[i] = 0x7f0000000000 + 40 * i;
    stream(in, 1000, 0);
}

Test(unique_ids, repeats_count_down_from_the_top)
{
    static const uint64_t in[] = {0x100, 0x128, 0x100, 0x150, 0x128, 0x100};
    unique_ids u;
    unique_ids_init(&u);
    uint64_t out[6];
    for (size_t i = 0; i < 6; i++) {
        out[i] = in[i];
        cr_assert_eq(unique_ids_check(&u, &out[i]), 0);
    }
    static const uint64_t want[] = {0x100, 0x128, UINT64_MAX, 0x150,
                                    UINT64_MAX - 1, UINT64_MAX - 2};
    cr_assert_arr_eq(out, want, sizeof want);
    cr_assert_eq(u.renamed, 3);
    cr_assert_eq(u.first, 0x100);
    unique_ids_free(&u);
}

/* Input ids at the top of the range: new ids go below them, and an input
 * id that a repeat took before is renamed in turn. */
Test(unique_ids, input_ids_at_the_top)
{
    /* 5's repeat takes MAX - 1, so the input's MAX - 1 is renamed (MAX -
     * 3), and 7's repeat MAX - 4 */
    static const uint64_t in[] = {UINT64_MAX, 5, 5, UINT64_MAX - 2,
                                  UINT64_MAX - 1, 7, 7};
    stream(in, sizeof in / sizeof *in, 3);
}

Test(unique_ids, random_ids_with_repeats)
{
    tprng p;
    tprng_seed(&p, 31);
    uint64_t in[3000];
    for (size_t i = 0; i < 3000; i++)
        in[i] = tprng_below(&p, 4) == 0 ? UINT64_MAX - tprng_below(&p, 8)
                                        : tprng_below(&p, 2000);
    /* the renames: replayed with the rule, as a model */
    uint64_t model[3000], next = UINT64_MAX, renamed = 0;
    for (size_t i = 0; i < 3000; i++) {
        model[i] = in[i];
        if (among(model, i, in[i])) {
            while (among(model, i, next) || among(in, i, next))
                next--;
            model[i] = next--;
            renamed++;
        }
    }
    stream(in, 3000, renamed);
}

/* In place over an array (V8's nodes): the first of each id keeps it,
 * the others get ids of no node, and the first repeat is named. */
Test(unique_ids, fix_in_place)
{
    tprng p;
    tprng_seed(&p, 7);
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + tprng_below(&p, 400);
        uint64_t in[400], ids[400];
        for (size_t i = 0; i < n; i++)
            in[i] = ids[i] = tprng_below(&p, 3) == 0
                                 ? UINT64_MAX - tprng_below(&p, 4)
                                 : tprng_below(&p, n);
        uint64_t first = 0;
        size_t at = 0;
        long renamed = unique_ids_fix(ids, n, &first, &at);
        long want = 0;
        size_t want_at = 0;
        for (size_t i = 0; i < n; i++) {
            int repeat = among(in, i, in[i]);
            if (repeat && want++ == 0)
                want_at = i;
            if (!repeat)
                cr_assert_eq(ids[i], in[i], "node %zu lost its id", i);
            else
                cr_assert(!among(in, n, ids[i]), "node %zu got an input id",
                          i);
        }
        cr_assert_eq(renamed, want);
        if (want > 0)
            cr_assert(at == want_at && first == in[want_at]);
        expect_unique(ids, n);
    }
}
