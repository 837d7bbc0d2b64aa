/*
 * test_import_classes.c -- the importer's class address table against
 * addresses made to collide (see test_hash.c): a JSON file chooses them.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "classes.h"

Test(import_classes, colliding_addresses_in_linear_time, .timeout = 30)
{
    /* i * K^-1 all hashed to slot 0 under the old fixed function */
    uint64_t k = 0x9e3779b97f4a7c15ull, inv = k;
    for (int i = 0; i < 5; i++)
        inv *= 2 - k * inv;
    ct_table t;
    ct_init(&t);
    const uint64_t n = 1u << 18;
    for (uint64_t i = 1; i <= n; i++) {
        ct_entry *e = ct_get(&t, i * inv);
        cr_assert_not_null(e);
        cr_assert_eq(e->state, 0, "address %llu is new",
                     (unsigned long long)i);
        e->super = i;
    }
    cr_assert_eq(t.count, n);
    for (uint64_t i = 1; i <= n; i++) {
        ct_entry *e = ct_get(&t, i * inv);
        cr_assert_eq(e->id, i * inv);
        cr_assert_eq(e->super, i);
    }
    cr_assert_eq(t.count, n, "lookups add nothing");
    ct_free(&t);
}
