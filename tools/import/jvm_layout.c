/* jvm_layout.c -- object sizes as HotSpot lays objects out (jvm_layout.h).
 *
 * The rules replayed here are those of HotSpot's FieldLayoutBuilder (JDK
 * 15+), read from its documented behaviour and checked against jmap
 * -histo:live by tests/cli/import_hprof.sh: fields are sorted (primitives
 * by decreasing size, then references; a @Contended group after them,
 * between two 128-byte paddings), and each goes into the smallest gap
 * that holds it aligned, searching from the end, or is appended. Below a
 * class with a @Contended group the gaps are padding: fields are only
 * appended. */
#include <stdlib.h>
#include <string.h>

#include "jvm_layout.h"

#define JL_CONTENDED_PADDING 128 /* HotSpot's ContendedPaddingWidth */
#define JL_MAX_END ((uint32_t)1 << 31)

const jl_model jl_compressed = {"compressed", 12, 16, 4, 8};
const jl_model jl_compressed_class = {"compressed-class", 12, 16, 8, 8};
const jl_model jl_wide = {"wide", 16, 24, 8, 8};
const jl_model jl_32bit = {"32-bit", 8, 12, 4, 4};
/* Android's runtime: 32-bit heap references on every device, a header of
 * class and monitor words; instance sizes come from its dump, not from a
 * layout (hprof_android.h) */
const jl_model jl_art = {"art", 8, 12, 4, 4};

const jl_model *jl_model_named(const char *name)
{
    static const jl_model *const all[] = {&jl_compressed, &jl_compressed_class,
                                          &jl_wide, &jl_32bit, &jl_art};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

void jl_root(const jl_model *m, jl_layout *out)
{
    memset(out, 0, sizeof *out);
    out->end = m->header;
}

void jl_free(jl_layout *l)
{
    free(l->gaps);
    l->gaps = NULL;
    l->ngaps = 0;
}

static uint32_t align_up(uint32_t x, uint32_t a)
{
    return (x + a - 1) / a * a;
}

/* Contended fields last; then primitives before references; primitives
 * by decreasing size. */
static int field_order(const void *pa, const void *pb)
{
    const jl_field *a = pa, *b = pb;
    if (a->contended != b->contended)
        return a->contended - b->contended;
    if (a->is_ref != b->is_ref)
        return a->is_ref - b->is_ref;
    return (int)b->size - (int)a->size;
}

/* Inserts gap (off, len) at position i of l's gaps (room is there). */
static void insert_gap(jl_layout *l, uint32_t i, uint32_t off, uint32_t len)
{
    memmove(&l->gaps[i + 1], &l->gaps[i], (l->ngaps - i) * sizeof *l->gaps);
    l->gaps[i].off = off;
    l->gaps[i].len = len;
    l->ngaps++;
}

/* Puts a field of size bytes (and alignment) at the end. */
static void append(jl_layout *l, uint32_t size)
{
    uint32_t at = align_up(l->end, size);
    if (at > l->end)
        insert_gap(l, l->ngaps, l->end, at - l->end);
    l->end = at + size;
}

/* Puts a field into the smallest gap that holds it aligned (the one
 * nearest the end among equals), else at the end. */
static void place(jl_layout *l, uint32_t size)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = l->ngaps; i-- > 0;) {
        const jl_gap *g = &l->gaps[i];
        uint32_t pad = align_up(g->off, size) - g->off;
        if (g->len >= size + pad &&
            (best == UINT32_MAX || g->len < l->gaps[best].len))
            best = i;
    }
    if (best == UINT32_MAX) {
        append(l, size);
        return;
    }
    jl_gap g = l->gaps[best];
    uint32_t at = align_up(g.off, size);
    uint32_t rest = g.off + g.len - (at + size);
    /* the gap becomes: the padding before the field, the bytes after */
    memmove(&l->gaps[best], &l->gaps[best + 1],
            (l->ngaps - best - 1) * sizeof *l->gaps);
    l->ngaps--;
    if (rest > 0)
        insert_gap(l, best, at + size, rest);
    if (at > g.off)
        insert_gap(l, best, g.off, at - g.off);
}

int jl_extend(const jl_model *m, const jl_layout *super, jl_field *f,
              size_t n, jl_layout *out)
{
    (void)m;
    memset(out, 0, sizeof *out);
    out->end = super->end;
    out->failed = super->failed;
    out->contended = super->contended;
    /* each field adds at most one gap; a contended group two paddings */
    size_t cap = (size_t)super->ngaps + n + 2;
    out->gaps = malloc(cap * sizeof *out->gaps);
    if (!out->gaps)
        return -1;
    if (!super->contended) {
        if (super->ngaps)
            memcpy(out->gaps, super->gaps, super->ngaps * sizeof *out->gaps);
        out->ngaps = super->ngaps;
    }
    qsort(f, n, sizeof *f, field_order);
    int in_group = 0;
    for (size_t i = 0; i < n && !out->failed; i++) {
        if (f[i].contended && !in_group) {
            out->end += JL_CONTENDED_PADDING;
            in_group = out->contended = 1;
        }
        if (in_group || super->contended)
            append(out, f[i].size);
        else
            place(out, f[i].size);
        if (out->end > JL_MAX_END)
            out->failed = 1;
    }
    if (in_group)
        out->end += JL_CONTENDED_PADDING;
    return 0;
}

uint64_t jl_instance_size(const jl_layout *l)
{
    return ((uint64_t)l->end + 7) / 8 * 8;
}

uint64_t jl_array_size(const jl_model *m, uint64_t n, unsigned elem_size)
{
    /* n < 2^32 (an HPROF count), elem_size <= 8: no overflow. The
     * elements start aligned to their size (a 32-bit JVM's long[] at 16,
     * after a 12-byte header) */
    uint64_t base = (m->array_header + elem_size - 1) / elem_size * elem_size;
    if (elem_size == 0)
        base = m->array_header;
    return (base + n * elem_size + 7) / 8 * 8;
}

/* HotSpot's injected fields (javaClasses.hpp, JDK 17): 'p' a native
 * pointer (8 bytes), 'j' long, 'i' int, 's' short, 'L' a reference. */
static const struct {
    const char *cls;
    const char *fields;
} injected[] = {
    {"java.lang.Class", "ppiiLLL"},
    {"java.lang.ClassLoader", "p"},
    {"java.lang.Module", "p"},
    {"java.lang.invoke.MemberName", "p"},
    {"java.lang.invoke.ResolvedMethodName", "pL"},
    {"java.lang.invoke.MethodHandleNatives$CallSiteContext", "pj"},
    {"java.lang.StackFrameInfo", "s"},
};

size_t jl_injected(const jl_model *m, const char *name, size_t len,
                   jl_field *f)
{
    for (size_t i = 0; i < sizeof injected / sizeof injected[0]; i++) {
        if (strlen(injected[i].cls) != len ||
            memcmp(injected[i].cls, name, len) != 0)
            continue;
        size_t k = 0;
        for (const char *c = injected[i].fields; *c; c++, k++) {
            f[k].contended = 0;
            f[k].is_ref = *c == 'L';
            f[k].size = *c == 'L'   ? (uint8_t)m->ref
                        : *c == 'p' ? (uint8_t)m->pointer
                        : *c == 'i' ? 4
                        : *c == 's' ? 2
                                    : 8;
        }
        return k;
    }
    return 0;
}

int jl_contended(const char *cname, size_t clen, const char *fname,
                 size_t flen)
{
    static const char thread[] = "java.lang.Thread";
    static const char tlr[] = "threadLocalRandom";
    return clen == sizeof thread - 1 && memcmp(cname, thread, clen) == 0 &&
           flen > sizeof tlr - 1 && memcmp(fname, tlr, sizeof tlr - 1) == 0;
}
