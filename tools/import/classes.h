/* classes.h -- what the importer knows about each class address.
 *
 * ObjectSpace.dump_all names a class only on the class's own line, which
 * may come after objects of that class. The importer lets the writer define
 * a class anonymously when an object first uses it, and names it (a second
 * CLASS record for the same id) when its line arrives. This table records,
 * per class address, which of those steps happened, and what names a
 * singleton class at the end (its object; the names of the classes'
 * lines; the references of singleton classes' lines). It is the
 * importer's only per-class memory: about 72 bytes per class, its name,
 * and 8 bytes per reference of a singleton class (some 20 KB for the
 * 430 singleton classes of a bare Ruby 3.1); nothing is kept per
 * object. */
#ifndef CLASSES_H
#define CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "hf_common.h"

/* ct_entry.state bits */
enum {
    CT_USED = 1u, /* the writer knows the id: used by an object, or written */
    CT_INFO = 2u, /* its CLASS / MODULE / ICLASS line was seen */
    CT_FINAL = 4u, /* defined from its line by the first pass: its line,
                      met again, needs no new CLASS record */
    CT_LATER = 8u, /* first pass only: the address's first line is an
                      include class's, left for the second pass */
    CT_NAMED = 16u /* a singleton class named from its object */
};

typedef struct ct_entry {
    uint64_t id;    /* the class's address; never 0 */
    uint64_t super; /* superclass address from its line, 0 if unknown */
    uint32_t flags; /* HEAPFMT_CF_* from its line */
    uint32_t state; /* CT_* */
    uint64_t attached; /* an object whose class it is, the likeliest to be
                          the object a singleton class is of: CT_ATT_* */
    uint64_t name_off; /* its line's name in ct_table.names */
    uint32_t name_len; /* 0: none */
    uint32_t attached_rank; /* CT_ATT_* of attached */
    uint64_t klass;    /* its line's class (its metaclass) */
    uint64_t refs_off; /* a singleton class's references, in
                          ct_table.refs */
    uint64_t nrefs;
} ct_entry;

/* Which object a singleton class is of, from the objects whose class it
 * is: the singleton class of an object has that object alone; that of a
 * class C (its metaclass) has C, and the singleton classes of C's
 * instances too (a singleton class's class is the metaclass of its
 * object's class). The highest rank met wins. Metaclasses of metaclasses
 * are the class of their own object and of every metaclass that has none
 * of its own (Ruby's META_CLASS_OF_CLASS_CLASS): among those, the object
 * is the one the singleton class references (its __attached__). */
enum {
    CT_ATT_SINGLETON = 1, /* a singleton class */
    CT_ATT_OBJECT = 2,    /* an object that is no class */
    CT_ATT_CLASS = 3      /* a class or module that is no singleton */
};

/* Keeps obj as the object of the class of entry e, if rank is higher than
 * that of the one kept. */
static inline void ct_attach(ct_entry *e, uint64_t obj, uint32_t rank)
{
    if (rank > e->attached_rank) {
        e->attached = obj;
        e->attached_rank = rank;
    }
}

typedef struct ct_table {
    hf_map index;      /* class address -> position in entries (shared
                          table, libheapfmt/common) */
    ct_entry *entries; /* in order of first use */
    size_t count, cap;
    ct_entry none;     /* what id 0 (no class) gets: blank at every call */
    char *names;       /* the names of the classes' lines, back to back */
    size_t nnames, cnames;
    uint64_t *refs;    /* the references of singleton classes' lines */
    size_t nrefs, crefs;
} ct_table;

/* A growable text, for ct_name. */
typedef struct ct_text {
    char *p;
    size_t len, cap;
} ct_text;

void ct_init(ct_table *t);
void ct_free(ct_table *t);

/* The entry for id, added zeroed (with its id) if new; id 0 is no class
 * and gets a blank entry that nothing is kept in. Returns NULL when the
 * table cannot grow. The pointer is valid until the next
 * ct_get call. */
ct_entry *ct_get(ct_table *t, uint64_t id);

/* The entry for id, or NULL when there is none (nothing is added). */
const ct_entry *ct_find(const ct_table *t, uint64_t id);

/* Keeps name as the name of e (its line's). Returns 0 or -1 (no
 * memory). */
int ct_set_name(ct_table *t, ct_entry *e, const char *name, size_t len);

/* Keeps the n references of e's line (a singleton class's). Returns 0 or
 * -1 (no memory). */
int ct_set_refs(ct_table *t, ct_entry *e, const uint64_t *refs, size_t n);

/* The name HeapFmt.dump gives the singleton class e (heapfmt_walk.c,
 * name_class), from what the lines said, into out (emptied first):
 * "#<Class:Gem>" for the singleton class of the class (or module) Gem,
 * "#<Class:#<Foo:0x00007f...>>" for that of an object of class Foo (its
 * first superclass that is neither a singleton nor an include class).
 * Returns 1 with the name, 0 when e is no singleton class whose object
 * and names are known (it stays anonymous: its address names it, as
 * HeapFmt.dump names it then), -1 when memory runs out. */
int ct_singleton_name(const ct_table *t, const ct_entry *e, ct_text *out);

#endif /* CLASSES_H */
