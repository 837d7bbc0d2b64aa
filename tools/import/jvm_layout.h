/* jvm_layout.h -- object sizes as HotSpot lays objects out.
 *
 * An HPROF dump says which fields a class declares, not where the JVM put
 * them: the bytes jmap -histo counts for an instance come from HotSpot's
 * field layout (JDK 15 and later, FieldLayoutBuilder), which this file
 * replays. A class's fields go after its superclass's: primitive fields
 * from the largest to the smallest, then references, each into the
 * smallest gap left so far that holds it at its natural alignment (the
 * gaps of the superclasses included), else at the end; the instance size
 * is the end rounded up to 8 bytes. Arrays: a header, then the elements,
 * rounded up to 8.
 *
 * Four models: "compressed" (the default of 64-bit JVMs with heaps under
 * 32 GiB: 12-byte object headers, 16-byte array headers, 4-byte
 * references), "compressed-class" (JDK 15+ with -XX:-UseCompressedOops or
 * a heap of 32 GiB and more: class pointers stay compressed: 12, 16 and
 * 8), "wide" (-XX:-UseCompressedOops -XX:-UseCompressedClassPointers: 16,
 * 24 and 8) and "32-bit" (a 32-bit JVM: 8, 12 and 4); and "art" (Android's
 * runtime, 32- and 64-bit devices alike: 8, 12 and 4), whose instance
 * sizes its HPROF dumps state (hprof_android.h). */
#ifndef JVM_LAYOUT_H
#define JVM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct jl_model {
    const char *name;       /* "compressed", "wide"... */
    unsigned header;        /* bytes of an object header */
    unsigned array_header;  /* bytes before an array's first element */
    unsigned ref;           /* bytes of a reference field or element */
    unsigned pointer;       /* bytes of a native pointer (injected fields) */
} jl_model;

extern const jl_model jl_compressed, jl_compressed_class, jl_wide, jl_32bit,
    jl_art;

/* The model of that name, or NULL. */
const jl_model *jl_model_named(const char *name);

/* A gap between fields, free for the fields of subclasses. */
typedef struct jl_gap {
    uint32_t off, len;
} jl_gap;

/* Where a class's fields end, and the gaps before that. */
typedef struct jl_layout {
    jl_gap *gaps;
    uint32_t ngaps;
    uint32_t end;  /* first byte after the last field */
    int failed;    /* too large (over 2^31 bytes): sizes unknown */
    int contended; /* it or a superclass has a @Contended group: the gaps
                      are padding, closed to subclasses */
} jl_layout;

/* The layout of a class without fields above java.lang.Object's. */
void jl_root(const jl_model *m, jl_layout *out);

/* Fields of one class, by their JVM size in bytes (1, 2, 4 or 8; a
 * reference is ref), with contended set for a @Contended group's fields. */
typedef struct jl_field {
    uint8_t size;
    uint8_t is_ref;
    uint8_t contended;
} jl_field;

/* The layout of a class declaring fields f[0..n) over a superclass laid
 * out as super. The fields are sorted in place. Returns 0, or -1 out of
 * memory. out must not be super. */
int jl_extend(const jl_model *m, const jl_layout *super, jl_field *f,
              size_t n, jl_layout *out);

/* The instance size of a class laid out as l: its end rounded up to 8. */
uint64_t jl_instance_size(const jl_layout *l);

/* The size of an array of n elements of elem_size bytes. */
uint64_t jl_array_size(const jl_model *m, uint64_t n, unsigned elem_size);

void jl_free(jl_layout *l);

/* Fields HotSpot adds to a class of its own (JDK 17) that HPROF leaves
 * out: appends them to f (room for JL_MAX_INJECTED more) for the class
 * named name (dotted: "java.lang.Module"), returns how many. */
#define JL_MAX_INJECTED 8
size_t jl_injected(const jl_model *m, const char *name, size_t len,
                   jl_field *f);

/* Whether field fname of class cname is in a @Contended group (JDK 17:
 * java.lang.Thread's thread-local random state). */
int jl_contended(const char *cname, size_t clen, const char *fname,
                 size_t flen);

#endif /* JVM_LAYOUT_H */
