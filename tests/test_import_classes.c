/*
 * test_import_classes.c -- the importer's class address table against
 * addresses made to collide (see test_hash.c): a JSON file chooses them;
 * and the names of singleton classes, from their objects.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- singleton class names, as HeapFmt.dump gives them ---- */

/* A class line: address, name (NULL: none), superclass, flags, class. */
static ct_entry *line(ct_table *t, uint64_t id, const char *name,
                      uint64_t super, uint32_t flags, uint64_t klass)
{
    ct_entry *e = ct_get(t, id);
    cr_assert_not_null(e);
    e->state |= CT_INFO | CT_USED;
    e->super = super;
    e->flags = flags;
    e->klass = klass;
    if (name)
        cr_assert_eq(ct_set_name(t, e, name, strlen(name)), 0);
    return e;
}

static const char *name_of(ct_table *t, uint64_t id, ct_text *out)
{
    const ct_entry *e = ct_find(t, id);
    cr_assert_not_null(e);
    int k = ct_singleton_name(t, e, out);
    cr_assert_geq(k, 0);
    if (k == 0)
        return "";
    cr_assert(out->len < 200);
    static char buf[256];
    memcpy(buf, out->p, out->len);
    buf[out->len] = '\0';
    return buf;
}

Test(import_classes, singleton_classes_are_named_from_their_object)
{
    enum { OBJECT = 0x100, FOO = 0x200, GEM = 0x300, ANON = 0x400,
           M_OBJECT = 0x1100, M_FOO = 0x1200, M_GEM = 0x1300, M_CLASS = 0x1400,
           M2_CLASS = 0x2400, M_M_FOO = 0x2200, S_OBJ = 0x3000,
           S_EXT = 0x3100, ICLASS = 0x3200, S_ANON = 0x3300, S_LOST = 0x3400,
           CLASS = 0x500, MODULE = 0x600, M_MODULE = 0x1600,
           OBJ = 0x9000, EXT = 0x9100, AOBJ = 0x9200 };
    const uint32_t S = HEAPFMT_CF_SINGLETON;
    ct_table t;
    ct_init(&t);
    line(&t, OBJECT, "Object", 0, 0, M_OBJECT);
    line(&t, FOO, "Foo", OBJECT, 0, M_FOO);
    line(&t, GEM, "Gem", 0, HEAPFMT_CF_MODULE, M_GEM);
    line(&t, ANON, NULL, OBJECT, 0, 0);
    line(&t, CLASS, "Class", MODULE, 0, M_CLASS);
    line(&t, MODULE, "Module", OBJECT, 0, M_MODULE);
    /* metaclasses: their class's object is that class; singleton classes
     * of objects of Foo have M_FOO as class too, and rank lower */
    ct_entry *e = line(&t, M_FOO, NULL, M_OBJECT, S, M_CLASS);
    ct_attach(e, S_OBJ, CT_ATT_SINGLETON);
    ct_attach(e, FOO, CT_ATT_CLASS);
    ct_attach(e, S_EXT, CT_ATT_SINGLETON);
    ct_attach(line(&t, M_GEM, NULL, M_MODULE, S, M_CLASS), GEM, CT_ATT_CLASS);
    /* #<Class:Class>'s class is #<Class:#<Class:Class>>, which is also
     * the class of M_FOO (it has no metaclass of its own): its object is
     * the one it references, not its superclass's */
    ct_attach(line(&t, M_CLASS, NULL, M_MODULE, S, M2_CLASS), CLASS,
              CT_ATT_CLASS);
    ct_attach(line(&t, M_MODULE, NULL, M_OBJECT, S, M2_CLASS), MODULE,
              CT_ATT_CLASS);
    e = line(&t, M2_CLASS, NULL, M_M_FOO, S, M2_CLASS);
    ct_attach(e, M_FOO, CT_ATT_SINGLETON);
    ct_attach(e, M_CLASS, CT_ATT_SINGLETON);
    uint64_t refs[] = {M_M_FOO, 0x7777, M_CLASS};
    cr_assert_eq(ct_set_refs(&t, e, refs, 3), 0);
    line(&t, M_M_FOO, NULL, 0, S, M2_CLASS);
    /* an object's, an extended object's (an include class in between),
     * an anonymous class's object's, and one whose object is unknown */
    ct_attach(line(&t, S_OBJ, NULL, FOO, S, M_FOO), OBJ, CT_ATT_OBJECT);
    line(&t, ICLASS, NULL, FOO, HEAPFMT_CF_ICLASS, GEM);
    ct_attach(line(&t, S_EXT, NULL, ICLASS, S, M_FOO), EXT, CT_ATT_OBJECT);
    ct_attach(line(&t, S_ANON, NULL, ANON, S, 0), AOBJ, CT_ATT_OBJECT);
    line(&t, S_LOST, NULL, FOO, S, M_FOO);

    ct_text out = {0};
    cr_assert_str_eq(name_of(&t, M_FOO, &out), "#<Class:Foo>");
    cr_assert_str_eq(name_of(&t, M_GEM, &out), "#<Class:Gem>");
    cr_assert_str_eq(name_of(&t, M_CLASS, &out), "#<Class:Class>");
    cr_assert_str_eq(name_of(&t, M2_CLASS, &out), "#<Class:#<Class:Class>>");
    cr_assert_str_eq(name_of(&t, S_OBJ, &out),
                     "#<Class:#<Foo:0x0000000000009000>>");
    cr_assert_str_eq(name_of(&t, S_EXT, &out),
                     "#<Class:#<Foo:0x0000000000009100>>");
    cr_assert_str_eq(name_of(&t, S_ANON, &out),
                     "#<Class:#<#<Class:0x0000000000000400>:"
                     "0x0000000000009200>>");
    cr_assert_str_eq(name_of(&t, S_LOST, &out), "", "no object: anonymous");
    cr_assert_str_eq(name_of(&t, FOO, &out), "", "not a singleton class");
    free(out.p);
    ct_free(&t);
}
