/*
 * test_import_classes.c -- the importer's class address table against
 * addresses made to collide (see test_hash.c): a JSON file chooses them.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "classes.h"
#include "tio.h"

Test(import_classes, colliding_addresses_in_linear_time, .timeout = 30)
{
    ct_table t;
    ct_init(&t);
    const uint64_t n = 1u << 18;
    for (uint64_t i = 1; i <= n; i++) {
        ct_entry *e = ct_get(&t, tfib_collider(i));
        cr_assert_not_null(e);
        cr_assert_eq(e->state, 0, "address %llu is new",
                     (unsigned long long)i);
        e->super = i;
    }
    cr_assert_eq(t.count, n);
    for (uint64_t i = 1; i <= n; i++) {
        ct_entry *e = ct_get(&t, tfib_collider(i));
        cr_assert_eq(e->id, tfib_collider(i));
        cr_assert_eq(e->super, i);
    }
    cr_assert_eq(t.count, n, "lookups add nothing");
    ct_free(&t);
}
