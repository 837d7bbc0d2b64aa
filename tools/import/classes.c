/* classes.c -- class address table of the importer, and the names of
 * singleton classes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "classes.h"

/* Singleton classes of singleton classes named at most this deep (as
 * HeapFmt.dump does): deeper ones, and loops, stay anonymous. */
#define CT_MAX_DEPTH 16

void ct_init(ct_table *t)
{
    memset(t, 0, sizeof *t);
    hf_map_init(&t->index); /* seeded: addresses come from the input */
}

void ct_free(ct_table *t)
{
    if (t) {
        hf_map_free(&t->index, hf_default_allocator());
        free(t->entries);
        free(t->names);
        free(t->refs);
        ct_init(t);
    }
}

ct_entry *ct_get(ct_table *t, uint64_t id)
{
    if (id == 0) {
        memset(&t->none, 0, sizeof t->none);
        return &t->none;
    }
    uint32_t at;
    if (hf_map_get(&t->index, id, &at))
        return &t->entries[at];
    if (t->count >= UINT32_MAX - 1)
        return NULL;
    if (GROW(t->entries, t->cap, t->count) != 0)
        return NULL;
    if (hf_map_put(&t->index, hf_default_allocator(), id,
                   (uint32_t)t->count) != 0)
        return NULL;
    ct_entry *e = &t->entries[t->count++];
    memset(e, 0, sizeof *e);
    e->id = id;
    return e;
}

const ct_entry *ct_find(const ct_table *t, uint64_t id)
{
    uint32_t at;
    return id != 0 && hf_map_get(&t->index, id, &at) ? &t->entries[at]
                                                     : NULL;
}

int ct_set_name(ct_table *t, ct_entry *e, const char *name, size_t len)
{
    if (len == 0 ||
        cli_grow((void **)&t->names, &t->cnames, t->nnames + len, 1) != 0)
        return len == 0 ? 0 : -1;
    memcpy(t->names + t->nnames, name, len);
    e->name_off = t->nnames;
    e->name_len = (uint32_t)len;
    t->nnames += len;
    return 0;
}

int ct_set_refs(ct_table *t, ct_entry *e, const uint64_t *refs, size_t n)
{
    if (n == 0)
        return 0;
    if (cli_grow((void **)&t->refs, &t->crefs, t->nrefs + n,
                 sizeof *t->refs) != 0)
        return -1;
    memcpy(t->refs + t->nrefs, refs, n * sizeof *refs);
    e->refs_off = t->nrefs;
    e->nrefs = n;
    t->nrefs += n;
    return 0;
}

/* The object of the singleton class e (0: unknown). */
static uint64_t attached_of(const ct_table *t, const ct_entry *e)
{
    if (e->attached_rank != CT_ATT_SINGLETON)
        return e->attached;
    /* its __attached__; not its superclass, whose class it may be too
     * (the metaclasses of Module and of Class, one level up) */
    for (uint64_t i = 0; i < e->nrefs; i++) {
        const ct_entry *a = ct_find(t, t->refs[e->refs_off + i]);
        if (a != NULL && a->id != e->super &&
            (a->flags & HEAPFMT_CF_SINGLETON) && a->klass == e->id)
            return a->id;
    }
    return e->attached;
}

static int put(ct_text *o, const char *s, size_t n)
{
    if (cli_grow((void **)&o->p, &o->cap, o->len + n, 1) != 0)
        return -1;
    memcpy(o->p + o->len, s, n);
    o->len += n;
    return 0;
}

static int put_address(ct_text *o, uint64_t id)
{
    char b[24];
    int n = snprintf(b, sizeof b, "0x%016" PRIx64, id);
    return put(o, b, (size_t)n);
}

/* Appends the name of e as HeapFmt.dump writes it. Returns 1, 0 (no
 * name known: the caller's name fails too), -1 (no memory). */
static int name_of(const ct_table *t, const ct_entry *e, ct_text *o,
                   int depth)
{
    if (depth > CT_MAX_DEPTH)
        return 0;
    if (e->name_len > 0)
        return put(o, t->names + e->name_off, e->name_len) ? -1 : 1;
    if (!(e->flags & HEAPFMT_CF_SINGLETON)) { /* anonymous */
        int module = (e->flags & HEAPFMT_CF_MODULE) != 0;
        if (put(o, module ? "#<Module:" : "#<Class:", module ? 9 : 8) ||
            put_address(o, e->id) || put(o, ">", 1))
            return -1;
        return 1;
    }
    uint64_t attached = attached_of(t, e);
    const ct_entry *att = ct_find(t, attached);
    if (att != NULL && (att->state & CT_INFO) &&
        !(att->flags & HEAPFMT_CF_ICLASS)) { /* of a class or module */
        if (put(o, "#<Class:", 8))
            return -1;
        int rc = name_of(t, att, o, depth + 1);
        return rc != 1 ? rc : put(o, ">", 1) ? -1 : 1;
    }
    if (attached == 0)
        return 0;
    /* of an object: its class is the first superclass that is neither a
     * singleton nor an include class (what extend puts in between) */
    const ct_entry *c = ct_find(t, e->super);
    for (int i = 0; c != NULL && (c->state & CT_INFO) &&
                    (c->flags & (HEAPFMT_CF_SINGLETON | HEAPFMT_CF_ICLASS));
         i++)
        c = i < CT_MAX_DEPTH * 64 ? ct_find(t, c->super) : NULL;
    if (c == NULL || !(c->state & CT_INFO) || put(o, "#<Class:#<", 10))
        return c == NULL || !(c->state & CT_INFO) ? 0 : -1;
    int rc = name_of(t, c, o, depth + 1);
    if (rc != 1)
        return rc;
    if (put(o, ":", 1) || put_address(o, attached) || put(o, ">>", 2))
        return -1;
    return 1;
}

int ct_singleton_name(const ct_table *t, const ct_entry *e, ct_text *out)
{
    out->len = 0;
    if (!(e->flags & HEAPFMT_CF_SINGLETON) || e->name_len > 0)
        return 0;
    return name_of(t, e, out, 0);
}
