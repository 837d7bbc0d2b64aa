/* hprof_android.c -- Android's heaps, roots and made-up objects in the
 * HPROF import (hprof_android.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "hprof_android.h"

int hpa_root_extra(unsigned tag)
{
    switch (tag) {
    case HPA_ROOT_INTERNED_STRING:
    case HPA_ROOT_FINALIZING:
    case HPA_ROOT_DEBUGGER:
    case HPA_ROOT_REFERENCE_CLEANUP:
    case HPA_ROOT_VM_INTERNAL:
        return 0;
    case HPA_ROOT_JNI_MONITOR:
        return 8; /* thread serial, stack depth */
    default:
        return -1;
    }
}

const char *hpa_root_name(unsigned tag)
{
    switch (tag) {
    case HPA_ROOT_INTERNED_STRING:
        return "interned string";
    case HPA_ROOT_FINALIZING:
        return "finalizing";
    case HPA_ROOT_DEBUGGER:
        return "debugger";
    case HPA_ROOT_REFERENCE_CLEANUP:
        return "reference cleanup";
    case HPA_ROOT_VM_INTERNAL:
        return "vm internal";
    case HPA_ROOT_JNI_MONITOR:
        return "jni monitor";
    default:
        return NULL;
    }
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int hpa_heaps_valid(const char *list)
{
    if (strcmp(list, "all") == 0)
        return 1;
    size_t run = 0;
    for (const char *p = list;; p++) {
        if (*p == ',' || *p == '\0') {
            if (run == 0 || run >= HPA_NAME_MAX)
                return 0;
            if (*p == '\0')
                return 1;
            run = 0;
        } else if (name_char(*p)) {
            run++;
        } else {
            return 0;
        }
    }
}

/* Whether --heap names the heap called name. */
static int selected(const hpa *a, const char *name)
{
    const char *list = a->select ? a->select : "app";
    if (strcmp(list, "all") == 0)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

hpa *hpa_new(const char *list)
{
    hpa *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->select = list;
    hf_map_init(&a->left_out);
    hf_map_init(&a->named_classes);
    hf_strtab_init(&a->kind_ids, hf_default_allocator());
    snprintf(a->heaps[0].name, sizeof a->heaps[0].name, "(no heap)");
    a->heaps[0].kept = 1;
    a->nheaps = 1;
    return a;
}

void hpa_free(hpa *a)
{
    if (!a)
        return;
    const heapfmt_allocator *al = hf_default_allocator();
    hf_map_free(&a->left_out, al);
    hf_map_free(&a->named_classes, al);
    hf_strtab_free(&a->kind_ids);
    free(a->kinds);
    free(a->roots);
    free(a->hrefs);
    free(a->hlabels);
    free(a->wrefs);
    free(a->wlabels);
    free(a);
}

void hpa_new_pass(hpa *a)
{
    hf_map_free(&a->named_classes, hf_default_allocator());
    hf_map_init(&a->named_classes);
    hf_strtab_free(&a->kind_ids);
    hf_strtab_init(&a->kind_ids, hf_default_allocator());
    a->nkinds = a->nroots = 0;
    a->unreachable = a->refs_left_out = 0;
    a->held = HPA_HOLD_NONE;
    a->overhead_of = 0;
    a->cur = 0;
    for (unsigned h = 0; h < a->nheaps; h++)
        a->heaps[h].objects = a->heaps[h].bytes = 0;
}

int hpa_heap_switch(hpa *a, uint32_t id, const char *name, size_t len)
{
    a->named = 1;
    for (unsigned h = 1; h < a->nheaps; h++)
        if (a->heaps[h].id == id) {
            a->cur = h;
            return 0;
        }
    if (a->nheaps == HPA_MAX_HEAPS)
        return -1;
    hpa_heap *p = &a->heaps[a->nheaps];
    memset(p, 0, sizeof *p);
    p->id = id;
    if (name && len > 0) {
        /* kept as ART names it, less what a META text cannot hold */
        size_t n = len < HPA_NAME_MAX - 1 ? len : HPA_NAME_MAX - 1;
        for (size_t i = 0; i < n; i++)
            p->name[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
    } else {
        /* ART's ids for its names: 'A'pp, 'Z'ygote, 'I'mage */
        snprintf(p->name, sizeof p->name, "%s",
                 id == 'A' ? "app" : id == 'Z' ? "zygote"
                 : id == 'I' ? "image" : "");
        if (!p->name[0])
            snprintf(p->name, sizeof p->name, "heap-%u", (unsigned)id);
    }
    p->kept = selected(a, p->name);
    a->cur = a->nheaps++;
    return 0;
}

int hpa_seen(hpa *a, uint64_t id)
{
    if (hpa_kept(a, a->cur))
        return 0;
    return hf_map_put(&a->left_out, hf_default_allocator(), id, a->cur);
}

void hpa_count(hpa *a, unsigned h, uint64_t size)
{
    a->heaps[h].objects++;
    a->heaps[h].bytes += size;
}

int64_t hpa_kind_of(hpa *a, const hpa_kind *k)
{
    uint32_t id;
    int found;
    if (GROW(a->kinds, a->kindcap, a->nkinds))
        return -1;
    if (hf_strtab_intern(&a->kind_ids, (const char *)k, sizeof *k,
                         (uint32_t)a->nkinds + 1, &id, &found) != 0)
        return -1;
    if (!found)
        a->kinds[a->nkinds++] = *k;
    return (int64_t)id - 1;
}

int hpa_add_root(hpa *a, uint32_t kind, uint64_t id)
{
    if (GROW(a->roots, a->rootcap, a->nroots))
        return -1;
    hpa_root *r = &a->roots[a->nroots++];
    r->id = id;
    r->kind = kind;
    r->unused = 0;
    return 0;
}

static int root_order(const void *pa, const void *pb)
{
    const hpa_root *x = pa, *y = pb;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void hpa_settle_roots(hpa *a)
{
    if (a->nroots > 1)
        qsort(a->roots, a->nroots, sizeof *a->roots, root_order);
    size_t n = 0;
    for (size_t i = 0; i < a->nroots; i++) {
        const hpa_root *r = &a->roots[i];
        if (hpa_is_left_out(a, r->id) ||
            (n > 0 && a->roots[n - 1].kind == r->kind &&
             a->roots[n - 1].id == r->id))
            continue;
        a->roots[n++] = *r;
    }
    a->nroots = n;
}

/* Room for n references and their labels in two arrays of capacity
 * *cap. */
static int pair_room(uint64_t **refs, heapfmt_label **labels, size_t *cap,
                     size_t n)
{
    size_t c = *cap;
    if (cli_grow((void **)refs, &c, n, sizeof **refs))
        return -1;
    c = *cap;
    if (cli_grow((void **)labels, &c, n, sizeof **labels))
        return -1;
    *cap = c;
    return 0;
}

static int held_room(hpa *a, size_t n)
{
    return pair_room(&a->hrefs, &a->hlabels, &a->hcap, n);
}

int hpa_hold(hpa *a, int what, uint64_t expect, unsigned h,
             const heapfmt_object *o, size_t nrefs)
{
    if (held_room(a, nrefs) != 0)
        return -1;
    a->ho = *o;
    if (nrefs) {
        memcpy(a->hrefs, o->refs, nrefs * sizeof *a->hrefs);
        if (o->labels)
            memcpy(a->hlabels, o->labels, nrefs * sizeof *a->hlabels);
        else
            memset(a->hlabels, 0, nrefs * sizeof *a->hlabels);
    }
    a->ho.refs = a->hrefs;
    a->ho.labels = a->hlabels;
    a->ho.nrefs = nrefs;
    if (o->fields & HEAPFMT_F_VALUE)
        hpa_held_value(a, o->value, o->value_len);
    a->held = what;
    a->expect = expect;
    a->held_heap = h;
    return 0;
}

void hpa_held_value(hpa *a, const char *value, size_t len)
{
    size_t n = len < sizeof a->hvalue ? len : sizeof a->hvalue;
    if (n)
        memcpy(a->hvalue, value, n);
    a->ho.value = a->hvalue;
    a->ho.value_len = n;
    a->ho.fields |= HEAPFMT_F_VALUE;
}

int hpa_held_append(hpa *a, const uint64_t *refs, size_t n, heapfmt_label lb)
{
    size_t have = a->ho.nrefs;
    if (held_room(a, have + n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        a->hrefs[have + i] = refs[i];
        a->hlabels[have + i] = lb;
    }
    a->ho.refs = a->hrefs;
    a->ho.labels = a->hlabels;
    a->ho.nrefs = have + n;
    return 0;
}

heapfmt_label hpa_held_drop(hpa *a, uint64_t id)
{
    heapfmt_label lb = {0};
    size_t n = 0;
    for (size_t i = 0; i < a->ho.nrefs; i++) {
        if (a->hrefs[i] == id) {
            lb = a->hlabels[i];
            continue;
        }
        a->hrefs[n] = a->hrefs[i];
        a->hlabels[n++] = a->hlabels[i];
    }
    a->ho.nrefs = n;
    return lb;
}

int hpa_scratch(hpa *a, size_t n)
{
    return pair_room(&a->wrefs, &a->wlabels, &a->wcap, n);
}

void hpa_describe(const hpa *a, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned h = 0; h < a->nheaps && o < cap; h++) {
        const hpa_heap *p = &a->heaps[h];
        if (h == 0 && p->objects == 0)
            continue;
        o += (size_t)snprintf(buf + o, cap - o, "%s%s: %llu object%s, %llu "
                              "bytes%s", o ? "; " : "", p->name,
                              (unsigned long long)p->objects,
                              p->objects == 1 ? "" : "s",
                              (unsigned long long)p->bytes,
                              p->kept ? "" : ", left out");
    }
}

unsigned hpa_left_out_heaps(const hpa *a, char *buf, size_t cap,
                            uint64_t *objects, uint64_t *bytes)
{
    unsigned n = 0, total = 0;
    *objects = *bytes = 0;
    buf[0] = '\0';
    for (unsigned h = 0; h < a->nheaps; h++)
        total += !a->heaps[h].kept && a->heaps[h].objects > 0;
    size_t o = 0;
    for (unsigned h = 0; h < a->nheaps; h++) {
        const hpa_heap *p = &a->heaps[h];
        if (p->kept || p->objects == 0)
            continue;
        n++;
        *objects += p->objects;
        *bytes += p->bytes;
        if (o < cap)
            o += (size_t)snprintf(buf + o, cap - o, "%s%s",
                                  n == 1 ? "" : n == total ? " and " : ", ",
                                  p->name);
    }
    return n;
}

void hpa_unmatched(const hpa *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    const char *list = a->select ? a->select : "app";
    if (strcmp(list, "all") == 0)
        return;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = 0;
        for (unsigned h = 1; h < a->nheaps && !found; h++)
            found = strlen(a->heaps[h].name) == len &&
                    memcmp(a->heaps[h].name, p, len) == 0;
        if (!found) {
            snprintf(buf, cap, "%.*s", (int)len, p);
            return;
        }
        p += len + (end != NULL);
    }
}
