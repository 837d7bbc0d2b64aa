/* hprof_android.h -- what Android's HPROF dumps add to the HPROF import.
 *
 * ART (Android 5 and later; Debug.dumpHprofData, am dumpheap, Android
 * Studio) writes "JAVA PROFILE 1.0.3" with 4-byte ids, and, among the
 * heap sub-records (AOSP art/runtime/hprof/hprof.cc):
 *   0xfe HEAP DUMP INFO   u4 heap id, id of the heap's name: the objects
 *                         after it are in that heap ("app", "zygote",
 *                         "image") until the next one
 *   0x89 interned string, 0x8a finalizing, 0x8b debugger, 0x8c reference
 *        cleanup, 0x8d VM internal: GC roots of an id;
 *   0x8e JNI monitor      a root: id, u4 thread, u4 frame
 *   0x90 unreachable      an id that is NOT a root (obsolete marker)
 *   0xc3 PRIMITIVE ARRAY NODATA  a primitive array without its elements
 * and objects it makes up for the dump, which this module folds back
 * into the objects ART really has:
 *   - a String's characters (ART stores them inside the String) as a
 *     byte[] (compressed) or char[] right after it, at an id inside the
 *     String, its "value" field pointing there;
 *   - the part of a class object beyond its fields (the embedded vtable)
 *     as a byte[] "$classOverhead" right before its CLASS DUMP, at the
 *     class id + 1 (an odd address, which no object has);
 *   - a DexCache's or ClassLoader's runtime-internal references as an
 *     Object[] right after it, at its id + 4, its "runtimeInternalObjects"
 *     field pointing there.
 * hprof-conv (the SDK's 1.0.3 -> 1.0.2 converter) keeps those objects and
 * drops the heap names; its output is recognised by java.lang.Object's
 * ART fields (shadow$_klass_).
 *
 * Heaps: --heap names the heaps whose objects are written (default
 * "app", as Android Studio shows by default); the others are left out.
 * A reference from a left-out object to a written one becomes a root
 * named after the holder ("image heap: android.app.ActivityThread.sCurrent
 * ActivityThread"), so nothing the left-out heaps hold looks unreachable;
 * references to left-out objects are dropped (counted); roots of
 * left-out objects too. Roots are written at the end, when every left-out
 * object is known.
 *
 * This module keeps the state and the rules; hprof.c reads the records
 * and calls it (its "Android" section). */
#ifndef HPROF_ANDROID_H
#define HPROF_ANDROID_H

#include <stddef.h>
#include <stdint.h>

#include "hf_common.h"
#include "heapfmt.h"
#include "strtab.h"

/* Android's heap dump sub-record tags. */
enum {
    HPA_HEAP_DUMP_INFO = 0xfe,
    HPA_ROOT_INTERNED_STRING = 0x89,
    HPA_ROOT_FINALIZING = 0x8a,
    HPA_ROOT_DEBUGGER = 0x8b,
    HPA_ROOT_REFERENCE_CLEANUP = 0x8c,
    HPA_ROOT_VM_INTERNAL = 0x8d,
    HPA_ROOT_JNI_MONITOR = 0x8e,
    HPA_UNREACHABLE = 0x90,
    HPA_PRIM_ARRAY_NODATA = 0xc3
};

/* The bytes an Android root sub-record holds after its object id, or -1
 * when tag is not one of them (0x90 included: not a root). */
int hpa_root_extra(unsigned tag);

/* The root kind name of an Android root tag ("interned string"...), or
 * NULL. */
const char *hpa_root_name(unsigned tag);

/* Whether list is a valid --heap value: "all", or names of heaps
 * ([A-Za-z0-9_-], 1 to 31 bytes) separated by commas. */
int hpa_heaps_valid(const char *list);

#define HPA_MAX_HEAPS 16    /* heaps a dump may name (ART names 3) */
#define HPA_NAME_MAX 32

/* A heap; heaps[0] is "(no heap)": the objects before any HEAP DUMP INFO
 * (every object of a dump that names no heap), always written. */
typedef struct hpa_heap {
    uint32_t id;
    int kept;
    char name[HPA_NAME_MAX];
    uint64_t objects, bytes; /* of this pass, written or left out */
} hpa_heap;

/* What an object held back for the record after it (hpa_hold) waits
 * for. */
enum {
    HPA_HOLD_NONE = 0,
    HPA_HOLD_INSTANCE, /* an instance: a String's characters, a primitive
                          array, or its runtime-internal references, an
                          Object[] */
    HPA_HOLD_OVERHEAD  /* a class's $classOverhead byte[]: its CLASS DUMP */
};

/* A root to write at the end: the object and the index of its kind. */
typedef struct hpa_root {
    uint64_t id;
    uint32_t kind;
    uint32_t unused;
} hpa_root;

/* What names a root kind (hpa_kind_of); its bytes are its key, so it
 * is zeroed before it is filled. */
typedef struct hpa_kind {
    uint32_t heap;      /* holder roots: the holder's heap index */
    uint32_t tag;       /* GC roots: the HPROF root tag, else 0 */
    uint64_t holder;    /* holder roots: its class id (a class object: its
                           own id, with is_class) */
    uint32_t label;     /* holder roots: the label's string id, 0 for none
                           (an array element, an unlabelled reference) */
    uint8_t label_kind; /* HEAPFMT_LABEL_FIELD or _OTHER with a label */
    uint8_t is_class;   /* the holder is a class object (a static field) */
    uint8_t pad[2];
} hpa_kind;

typedef struct hpa {
    const char *select;    /* --heap; NULL: "app" */
    hpa_heap heaps[HPA_MAX_HEAPS];
    unsigned nheaps;       /* heaps[0] included */
    unsigned cur;          /* the heap of the records being read */
    int named;             /* a HEAP DUMP INFO was read */
    hf_map left_out;       /* id -> heap index of the objects left out */
    hf_map named_classes;  /* classes named before their CLASS DUMP */
    uint64_t array_bytes;  /* element bytes of the last primitive array */
    uint64_t prim[16];     /* ART's classes of primitive arrays, by type */
    unsigned prim_looked;  /* bit t: prim[t] was looked for */
    uint64_t instance_bytes; /* field bytes of the last instance */

    /* roots, written at the end */
    hf_strtab kind_ids;    /* hpa_kind bytes -> kind index + 1 */
    hpa_kind *kinds;
    size_t nkinds, kindcap;
    hpa_root *roots;
    size_t nroots, rootcap;
    uint64_t unreachable;  /* 0x90 markers read */
    uint64_t refs_left_out; /* references to left-out objects dropped */

    /* the object held back (hpa_hold) */
    int held;              /* HPA_HOLD_* */
    uint64_t expect;       /* OVERHEAD: the class it is part of */
    unsigned held_heap;
    uint64_t held_bytes;   /* INSTANCE: its field bytes; OVERHEAD: the
                              byte[]'s length */
    heapfmt_object ho;     /* refs, labels and value point below */
    uint64_t *hrefs;
    heapfmt_label *hlabels;
    size_t hcap;
    char hvalue[256];
    uint64_t overhead_of;  /* the class whose $classOverhead was folded */

    /* scratch for the references of an object written */
    uint64_t *wrefs;
    heapfmt_label *wlabels;
    size_t wcap;
} hpa;

/* A new state for a dump, keeping the heaps list names (NULL: "app");
 * NULL when out of memory. */
hpa *hpa_new(const char *list);
void hpa_free(hpa *a);

/* Before a second pass: what a pass wrote is forgotten; the heaps, the
 * left-out objects and the class sizes stay. */
void hpa_new_pass(hpa *a);

/* HEAP DUMP INFO: the records after it are in heap id named name[0..len)
 * (NULL when its string is unknown: named after ART's ids). Returns 0, or
 * -1 when the dump names more than HPA_MAX_HEAPS heaps. */
int hpa_heap_switch(hpa *a, uint32_t id, const char *name, size_t len);

/* Whether heap index h is written. */
static inline int hpa_kept(const hpa *a, unsigned h)
{
    return a->heaps[h].kept;
}

/* An object record of the current heap begins: notes its id when its heap
 * is left out. Returns 0 or -1 (out of memory). */
int hpa_seen(hpa *a, uint64_t id);

/* Whether id is an object left out (as far as the records read tell). */
static inline int hpa_is_left_out(const hpa *a, uint64_t id)
{
    uint32_t h;
    return hf_map_get(&a->left_out, id, &h);
}

/* Counts an object of heap h, written or not. */
void hpa_count(hpa *a, unsigned h, uint64_t size);

/* The index of the root kind k, added when new; -1 out of memory. */
int64_t hpa_kind_of(hpa *a, const hpa_kind *k);

/* A root of kind index kind held on id, for the end. 0 or -1. */
int hpa_add_root(hpa *a, uint32_t kind, uint64_t id);

/* Sorts the roots by kind and id, drops the duplicates and those of
 * left-out objects: the roots to write are a->roots[0..a->nroots). */
void hpa_settle_roots(hpa *a);

/* Holds object o (its refs and labels, nrefs of them; its value) back
 * until the record of id expect, as `what` (HPA_HOLD_*), from heap h.
 * Returns 0 or -1 (out of memory). Only one object is held at a time: the
 * caller writes the one before first. */
int hpa_hold(hpa *a, int what, uint64_t expect, unsigned h,
             const heapfmt_object *o, size_t nrefs);

/* Sets the held object's value preview (at most 256 bytes of it). */
void hpa_held_value(hpa *a, const char *value, size_t len);

/* Appends n references to the held object, all with label lb. 0 or -1. */
int hpa_held_append(hpa *a, const uint64_t *refs, size_t n, heapfmt_label lb);

/* Removes the held object's references to id; returns the label of the
 * last removed (kind NONE when none was). */
heapfmt_label hpa_held_drop(hpa *a, uint64_t id);

/* Room for n references in the write scratch. 0 or -1. */
int hpa_scratch(hpa *a, size_t n);

/* bytes rounded up to ART's object alignment, 8. */
static inline uint64_t hpa_align(uint64_t bytes)
{
    return (bytes + 7) / 8 * 8;
}

/* META hprof.heaps: "app: 1200 objects, 86432 bytes; image: 5000
 * objects, 400000 bytes, left out" into buf (cap bytes). */
void hpa_describe(const hpa *a, char *buf, size_t cap);

/* The heaps left out that hold objects, "zygote and image", into buf;
 * their objects and bytes in *objects, *bytes. Returns how many. */
unsigned hpa_left_out_heaps(const hpa *a, char *buf, size_t cap,
                            uint64_t *objects, uint64_t *bytes);

/* The first name of --heap that no heap of the dump has, into buf (cap
 * bytes; "" when every name was found or the list is "all"). */
void hpa_unmatched(const hpa *a, char *buf, size_t cap);

#endif /* HPROF_ANDROID_H */
