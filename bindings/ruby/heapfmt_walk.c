/* heapfmt_walk.c -- walk the Ruby heap and write it through libheapfmt.
 *
 * The rules of this file: no Ruby object is allocated, nothing raises (what
 * the VM might raise is caught), no Ruby code runs. Memory comes from
 * malloc (never xmalloc, which may start a GC or raise NoMemoryError); a
 * failure is recorded and stops the walk.
 * The functions of the VM used here only read the heap:
 *   rb_objspace_each_objects        every slot of every heap page
 *   rb_objspace_reachable_objects_from  an object's references, found by its
 *                                   own mark function
 *   rb_objspace_reachable_objects_from_root  the roots, by category
 *   rb_obj_memsize_of               size as ObjectSpace.memsize_of counts it
 *   rb_obj_gc_flags                 old, marked, write-barrier protected...
 *   rb_mod_name                     a class's cached path (in Ruby 3.1 it
 *                                   returns the stored string, no copy)
 *
 * Order of the dump: META, every class and module (CLASS), the roots
 * (ROOT), every object (OBJECT).
 *
 * Objects are written the way ObjectSpace.dump_all sees them: every slot
 * whose flags are not zero, internal ones included. Internal objects
 * (T_IMEMO, T_ICLASS, T_NODE, T_ZOMBIE, T_MOVED, T_NONE) are written with
 * their type and no class; an object's class is its RBASIC_CLASS, which is
 * a singleton class when it has one. The class is not repeated among the
 * references (readers add it: spec/FORMAT.md 6.4). References are a set:
 * sorted, duplicates removed; an ObjectSpace::WeakMap's keys and values,
 * which its mark function does not report, follow, marked weak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ruby/io.h>
#include <ruby/re.h>
#include <ruby/version.h>

#include "heapfmt_ruby.h"
#include "writer_direct.h"

/* Exported by libruby but declared only in its internal headers (the
 * objspace extension uses them too). */
void rb_objspace_each_objects(int (*callback)(void *start, void *end,
                                              size_t stride, void *data),
                              void *data);
void rb_objspace_reachable_objects_from(VALUE obj,
                                        void (*func)(VALUE ref, void *data),
                                        void *data);
void rb_objspace_reachable_objects_from_root(
    void (*func)(const char *category, VALUE obj, void *data), void *data);
size_t rb_obj_memsize_of(VALUE obj);
size_t rb_obj_gc_flags(VALUE obj, ID *flags, size_t max);
/* Where an instruction sequence's code is (iseq.c, proc.c): each returns
 * what the iseq already holds, allocating nothing. */
struct rb_iseq_struct;
VALUE rb_iseq_label(const struct rb_iseq_struct *iseq);
VALUE rb_iseq_path(const struct rb_iseq_struct *iseq);
VALUE rb_iseq_first_lineno(const struct rb_iseq_struct *iseq);
const struct rb_iseq_struct *rb_proc_get_iseq(VALUE proc, int *is_proc);
/* A hash's pairs without writing to the hash (hash.c, Ruby 2.7 and
 * later): rb_hash_foreach raises the iteration level kept in the hash's
 * flags and sets up an rb_ensure to lower it, for every hash. In a fork:
 * true child that write copied the page of every hash (copy on write):
 * 50-70 ms of system time at 1.2M objects. Weak: without it (an older
 * Ruby), rb_hash_foreach. */
int rb_hash_stlike_foreach(VALUE hash, st_foreach_callback_func *func,
                           st_data_t arg) __attribute__((weak));

/* Bytes of a string kept as its value preview. */
#define HR_PREVIEW 64

/* Bytes of a code location's parts in a value: "iseq LABEL@PATH:LINE". */
#define HR_LABEL_MAX 64
#define HR_PATH_MAX 160
/* The file of an eval site "(eval at FILE:LINE)", within HR_PATH_MAX. */
#define HR_EVAL_FILE_MAX 128

/* References an OBJECT record always has room for: its head and value
 * (a preview of at most sizeof(walk.buf) bytes) and 2^20 references with
 * a label each take under 32 MiB, a quarter of HEAPFMT_MAX_BLOCK. Past
 * it heapfmt_object_refs_fit says how many fit. */
#define HR_REFS_FIT (1u << 20)

/* Ids of one ROOT record at most (a root kind may have several). */
#define HR_ROOT_CHUNK (1u << 20)

/* Object flag bits of our own (bits 32-63 are the VM's, spec 6.4). */
#define HR_OF_PINNED HEAPFMT_OF_RUBY_PINNED
#define HR_OF_REFS_TRUNCATED HEAPFMT_OF_RUBY_REFS_TRUNCATED

typedef struct hr_class {
    VALUE klass;
    VALUE super;
    uint64_t flags;
    size_t name_off, name_len;
    int state; /* 0 unnamed, 1 being named, 2 named */
} hr_class;

/* What an index of a class's instance variables holds (label_ivars). */
typedef struct hr_ivmap {
    VALUE klass;     /* the objects' class pointer; 0: unused */
    uint32_t *names; /* by index: the name's string id; 0: not known */
    uint32_t n;      /* indexes with a place in names */
    int broken;      /* the class's objects disagreed: not used */
    size_t cap;
} hr_ivmap;

/* Classes with a map at a time, and indexes a map keeps. */
#define HR_IVMAPS 256
#define HR_IVMAP_MAX 4096

/* rb_obj_gc_flags' IDs asked for at most, and the table of their bits:
 * 64 slots, hashed with a multiplier under which the five IDs do not
 * collide (gc_bits_init tries several). */
#define HR_GC_IDS 8
#define HR_GC_SLOTS 64

struct hr_gc_bit {
    ID id;
    uint64_t bit;
};

typedef struct walk {
    const hr_context *ctx;
    heapfmt_writer *w;
    int rc;         /* first error: it stops the walk */
    int own_error;  /* rc is ours (message in errmsg), not the writer's */
    char errmsg[160];

    hr_class *classes;
    size_t nclasses, cclasses;
    char *names; /* every class name, back to back */
    size_t nnames, cnames;

    uint64_t *ids; /* references of one object, or ids of one root kind */
    size_t nids, cids;
    int ids_oom;
    const rb_data_type_t *data_type; /* the last T_DATA type asked of */
    int data_type_weakmap;             /* whether it is a WeakMap's */
    uint64_t *weak; /* a WeakMap's keys and values */
    size_t nweak, cweak;
    uint64_t *scratch; /* an array's runs, or a sorted copy of its refs */
    size_t cscratch;
    VALUE skip; /* the reference not to list: the object's class */
    heapfmt_label *labels; /* labels of ids, when the object has some */
    size_t clabels;
    int labeled;
    struct {
        VALUE key;   /* an ivar's ID, or 0 */
        uint32_t id; /* string id of its name */
    } ivar_names[1024]; /* ivar names already written, direct-mapped */
    struct {
        VALUE key;
        uint32_t id; /* string id of its text, 0: none */
        uint32_t set;
    } key_ids[1024]; /* hash keys met, direct-mapped */
    hr_ivmap ivmaps[HR_IVMAPS]; /* by class, direct-mapped (label_ivars) */
    ID gc_ids[HR_GC_IDS];       /* what rb_obj_gc_flags said of an object */
    struct hr_gc_bit gc_bits[HR_GC_SLOTS]; /* its IDs' bits, by gc_slot */
    uint64_t gc_mult;           /* gc_slot's multiplier */
    hr_ivmap *ivmap; /* the map rb_ivar_foreach's labels teach, and */
    VALUE ivobj;     /* the object they are of */
    char key_text[80];

    uint32_t types[32]; /* string id of each type name, 0 until written */
    const char *root_kind;
    uint32_t root_kind_id;
    struct {
        const char *path; /* objspace interns paths: a pointer cache works */
        uint32_t id;
    } paths[256]; /* allocation-site paths written, direct-mapped */

    /* The allocation sites of the heap page being written, by slot
     * (page_sites), or NULL: each object looks its own up. */
    const struct hr_allocation_info **sites;
    const struct hr_allocation_info **site_buf; /* sites' memory */
    size_t csites, slot;
    /* Or objspace's whole table, sorted by object (load_sites), and where
     * the walk is in it. */
    struct hr_site {
        VALUE obj;
        const struct hr_allocation_info *info;
    } *site_tab;
    size_t nsite_tab, csite_tab, site_at;

    int own_off;              /* 1: every object's references from the VM */
    uint32_t own_checked[4];  /* objects of each type listed both ways */
    VALUE *pairs;             /* a hash's keys and values, in turn, */
    size_t npairs, cpairs;
    VALUE pairs_of;           /* of this hash (0: none): its labels' */

    uint64_t objects, truncated;
    char buf[HR_LABEL_MAX + HR_PATH_MAX + 48]; /* a value made here */
} walk;

static const char *const type_names[32] = {
    [RUBY_T_NONE] = "T_NONE",       [RUBY_T_OBJECT] = "T_OBJECT",
    [RUBY_T_CLASS] = "T_CLASS",     [RUBY_T_MODULE] = "T_MODULE",
    [RUBY_T_FLOAT] = "T_FLOAT",     [RUBY_T_STRING] = "T_STRING",
    [RUBY_T_REGEXP] = "T_REGEXP",   [RUBY_T_ARRAY] = "T_ARRAY",
    [RUBY_T_HASH] = "T_HASH",       [RUBY_T_STRUCT] = "T_STRUCT",
    [RUBY_T_BIGNUM] = "T_BIGNUM",   [RUBY_T_FILE] = "T_FILE",
    [RUBY_T_DATA] = "T_DATA",       [RUBY_T_MATCH] = "T_MATCH",
    [RUBY_T_COMPLEX] = "T_COMPLEX", [RUBY_T_RATIONAL] = "T_RATIONAL",
    [RUBY_T_NIL] = "T_NIL",         [RUBY_T_TRUE] = "T_TRUE",
    [RUBY_T_FALSE] = "T_FALSE",     [RUBY_T_SYMBOL] = "T_SYMBOL",
    [RUBY_T_FIXNUM] = "T_FIXNUM",   [RUBY_T_UNDEF] = "T_UNDEF",
    [RUBY_T_IMEMO] = "T_IMEMO",     [RUBY_T_NODE] = "T_NODE",
    [RUBY_T_ICLASS] = "T_ICLASS",   [RUBY_T_ZOMBIE] = "T_ZOMBIE",
    [RUBY_T_MOVED] = "T_MOVED",
};

/* ---- errors and memory ---- */

/* Records the first error; returns it. */
static int fail(walk *k, int rc)
{
    if (!k->rc)
        k->rc = rc;
    return k->rc;
}

static int fail_nomem(walk *k, const char *what)
{
    if (!k->rc) {
        k->own_error = 1;
        snprintf(k->errmsg, sizeof k->errmsg, "out of memory (%s)", what);
    }
    return fail(k, HEAPFMT_E_NOMEM);
}

/* Makes room for need elements of size bytes in *p (capacity *cap). */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 4 / size)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* ---- id sets ---- */

static void insertion_sort(uint64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void sift_down(uint64_t *v, size_t i, size_t n)
{
    uint64_t x = v[i];
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[c] <= x)
            break;
        v[i] = v[c];
    }
    v[i] = x;
}

static void heap_sort(uint64_t *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        uint64_t x = v[0];
        v[0] = v[end];
        v[end] = x;
        sift_down(v, 0, end);
    }
}

/* Introsort: quicksort (median of three) while it halves the work, heap
 * sort past 2 log2(n) levels (never quadratic), insertion sort below 16.
 * Inline on the ids, it is several times faster than qsort with a
 * comparison function (a big array's references: 1.8% of a dump's CPU). */
static void intro_sort(uint64_t *v, size_t n, unsigned depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(v, n);
            return;
        }
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1];
        uint64_t pivot = a < b ? (b < c ? b : a < c ? c : a)
                               : (a < c ? a : b < c ? c : b);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i >= j)
                break;
            uint64_t x = v[i];
            v[i++] = v[j];
            v[j--] = x;
        }
        /* [0, j] <= pivot <= [j + 1, n): recurse on the smaller side */
        size_t left = j + 1;
        if (left >= n) { /* (cannot happen with a median pivot) */
            heap_sort(v, n);
            return;
        }
        if (left < n - left) {
            intro_sort(v, left, depth);
            v += left;
            n -= left;
        } else {
            intro_sort(v + left, n - left, depth);
            n = left;
        }
    }
    insertion_sort(v, n);
}

/* Sorts ids and removes duplicates, in place. Sorted ids also make the
 * smallest deltas in the dump. */
static void sort_unique(uint64_t *ids, size_t *n)
{
    size_t len = *n;
    if (len < 2)
        return;
    if (len <= 16) {
        insertion_sort(ids, len);
    } else {
        size_t i = 1;
        while (i < len && ids[i - 1] <= ids[i]) /* often in order already */
            i++;
        if (i < len) {
            unsigned depth = 0;
            for (size_t m = len; m > 1; m >>= 1)
                depth += 2;
            intro_sort(ids, len, depth);
        }
    }
    size_t out = 1;
    for (size_t i = 1; i < len; i++)
        if (ids[i] != ids[out - 1])
            ids[out++] = ids[i];
    *n = out;
}

static int push_id(walk *k, VALUE v)
{
    if (k->nids == k->cids &&
        grow((void **)&k->ids, &k->cids, k->nids + 1, sizeof *k->ids) < 0)
        return -1;
    k->ids[k->nids++] = (uint64_t)v;
    return 0;
}

/* ---- classes ---- */

static int add_class(walk *k, VALUE v)
{
    if (grow((void **)&k->classes, &k->cclasses, k->nclasses + 1,
             sizeof *k->classes) < 0)
        return fail_nomem(k, "class table");
    hr_class *c = &k->classes[k->nclasses++];
    memset(c, 0, sizeof *c);
    c->klass = v;
    return HEAPFMT_OK;
}

static int collect_i(void *vstart, void *vend, size_t stride, void *data)
{
    walk *k = data;
    for (char *p = vstart; p < (char *)vend; p += stride) {
        VALUE v = (VALUE)p;
        if (!RBASIC(v)->flags)
            continue;
        int t = RB_BUILTIN_TYPE(v);
        if ((t == RUBY_T_CLASS || t == RUBY_T_MODULE) &&
            add_class(k, v) != HEAPFMT_OK)
            return 1;
    }
    return 0;
}

static int cmp_class(const void *a, const void *b)
{
    VALUE x = ((const hr_class *)a)->klass, y = ((const hr_class *)b)->klass;
    return x < y ? -1 : x > y;
}

static hr_class *find_class(walk *k, VALUE v)
{
    size_t lo = 0, hi = k->nclasses;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        VALUE m = k->classes[mid].klass;
        if (m == v)
            return &k->classes[mid];
        if (m < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int is_heap_object(VALUE v)
{
    return v && !RB_SPECIAL_CONST_P(v);
}

/* The superclass as Class#superclass sees it: include classes skipped. */
static VALUE real_super(VALUE v)
{
    VALUE s = rb_class_get_superclass(v);
    for (int guard = 0; is_heap_object(s) && guard < 100000; guard++) {
        if (RB_BUILTIN_TYPE(s) != RUBY_T_ICLASS)
            return s;
        s = rb_class_get_superclass(s);
    }
    return 0;
}

static int append(walk *k, const char *s, size_t n)
{
    if (grow((void **)&k->names, &k->cnames, k->nnames + n, 1) < 0)
        return fail_nomem(k, "class names");
    memcpy(k->names + k->nnames, s, n);
    k->nnames += n;
    return HEAPFMT_OK;
}

/* Appends the name of an already named class (it lives in the same arena,
 * so grow first, then copy). */
static int append_name_of(walk *k, const hr_class *c)
{
    if (grow((void **)&k->names, &k->cnames, k->nnames + c->name_len, 1) < 0)
        return fail_nomem(k, "class names");
    memcpy(k->names + k->nnames, k->names + c->name_off, c->name_len);
    k->nnames += c->name_len;
    return HEAPFMT_OK;
}

static int append_address(walk *k, VALUE v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "0x%016" PRIxVALUE, v);
    return append(k, b, (size_t)n);
}

static VALUE attached_object(walk *k, VALUE singleton)
{
#if RUBY_API_VERSION_CODE >= 30200
    (void)k;
    return rb_class_attached_object(singleton);
#else
    return rb_attr_get(singleton, k->ctx->id_attached);
#endif
}

static int name_class(walk *k, hr_class *c, int depth);

/* Names the class at v if it is one we know; NULL if not. */
static hr_class *named(walk *k, VALUE v, int depth)
{
    hr_class *c = is_heap_object(v) ? find_class(k, v) : NULL;
    if (c && name_class(k, c, depth + 1) != HEAPFMT_OK)
        return NULL;
    return c;
}

/* Gives c its name, as Ruby's Module#inspect would show it:
 *   Foo::Bar                          a named class or module
 *   #<Class:0x00007f...>              an anonymous class
 *   #<Module:0x00007f...>             an anonymous module
 *   #<Class:Foo>                      the singleton class of a class
 *   #<Class:#<Foo:0x00007f...>>       the singleton class of an object
 * Dependencies are named first, so names never interleave in the arena. */
static int name_class(walk *k, hr_class *c, int depth)
{
    if (c->state == 2)
        return HEAPFMT_OK;
    VALUE v = c->klass;
    int singleton = RB_FL_TEST_RAW(v, RUBY_FL_SINGLETON) != 0;
    int module = RB_BUILTIN_TYPE(v) == RUBY_T_MODULE;
    hr_class *dep = NULL, *dep2 = NULL;
    VALUE att = 0, path = Qnil;
    int loop = c->state == 1 || depth > 16;
    c->state = 1;

    if (!loop && singleton) {
        att = attached_object(k, v);
        if (is_heap_object(att)) {
            int t = RB_BUILTIN_TYPE(att);
            if (t == RUBY_T_CLASS || t == RUBY_T_MODULE)
                dep = named(k, att, depth);
            else
                dep2 = named(k, rb_obj_class(att), depth);
        }
    } else if (!loop) {
        path = rb_mod_name(v);
        if (!RB_TYPE_P(path, RUBY_T_STRING) && module) {
            VALUE mc = rb_obj_class(v);
            if (mc != rb_cModule)
                dep2 = named(k, mc, depth);
        }
    }
    if (k->rc)
        return k->rc;

    size_t start = k->nnames;
    int rc;
    if (singleton && (dep || dep2)) {
        if (dep)
            rc = append(k, "#<Class:", 8) || append_name_of(k, dep) ||
                 append(k, ">", 1);
        else
            rc = append(k, "#<Class:#<", 10) || append_name_of(k, dep2) ||
                 append(k, ":", 1) || append_address(k, att) ||
                 append(k, ">>", 2);
    } else if (RB_TYPE_P(path, RUBY_T_STRING)) {
        rc = append(k, RSTRING_PTR(path), (size_t)RSTRING_LEN(path));
    } else if (dep2) { /* an anonymous module of a Module subclass */
        rc = append(k, "#<", 2) || append_name_of(k, dep2) ||
             append(k, ":", 1) || append_address(k, v) || append(k, ">", 1);
    } else {
        rc = append(k, module ? "#<Module:" : "#<Class:", module ? 9 : 8) ||
             append_address(k, v) || append(k, ">", 1);
    }
    if (rc)
        return k->rc;
    c->name_off = start;
    c->name_len = k->nnames - start;
    if (c->name_len > HEAPFMT_MAX_STRING)
        c->name_len = HEAPFMT_MAX_STRING;
    c->super = module ? 0 : real_super(v);
    c->flags = (module ? HEAPFMT_CF_MODULE : 0) |
               (singleton ? HEAPFMT_CF_SINGLETON : 0);
    c->state = 2;
    return HEAPFMT_OK;
}

static int write_classes(walk *k)
{
    /* The modules the constants were read from, when they were: one pass
     * over the heap fewer (1.5% of a dump's CPU time). */
    const hr_context *ctx = k->ctx;
    if (ctx->modules != NULL)
        for (size_t i = 0; i < ctx->nmodules && !k->rc; i++)
            add_class(k, ctx->modules[i]);
    else
        rb_objspace_each_objects(collect_i, k);
    if (k->rc)
        return k->rc;
    qsort(k->classes, k->nclasses, sizeof *k->classes, cmp_class);
    for (size_t i = 0; i < k->nclasses; i++)
        if (name_class(k, &k->classes[i], 0) != HEAPFMT_OK)
            return k->rc;
    for (size_t i = 0; i < k->nclasses; i++) {
        const hr_class *c = &k->classes[i];
        heapfmt_class hc = {
            .id = (uint64_t)c->klass,
            .name = k->names + c->name_off,
            .name_len = c->name_len,
            .super_id = (uint64_t)c->super,
            .flags = c->flags,
        };
        int rc = heapfmt_write_class(k->w, &hc);
        if (rc != HEAPFMT_OK)
            return fail(k, rc);
    }
    return HEAPFMT_OK;
}

/* ---- roots ---- */

static void label_globals(walk *k);

static void flush_roots(walk *k)
{
    if (k->rc || !k->root_kind || k->nids == 0)
        return;
    sort_unique(k->ids, &k->nids);
    k->labeled = 0;
    if (strcmp(k->root_kind, "global_tbl") == 0)
        label_globals(k);
    int rc = k->rc ? k->rc
                   : heapfmt_write_root_labeled(k->w, k->root_kind_id, k->ids,
                                                k->labeled ? k->labels : NULL,
                                                k->nids);
    k->nids = 0;
    if (rc != HEAPFMT_OK)
        fail(k, rc);
}

static void root_i(const char *category, VALUE obj, void *data)
{
    walk *k = data;
    if (k->rc)
        return;
    if (!category)
        category = "unknown";
    if (category != k->root_kind) {
        flush_roots(k);
        int rc = heapfmt_write_string(k->w, category, strlen(category),
                                      &k->root_kind_id);
        if (rc != HEAPFMT_OK) {
            fail(k, rc);
            return;
        }
        k->root_kind = category;
    }
    if (k->nids >= HR_ROOT_CHUNK)
        flush_roots(k);
    if (push_id(k, obj) < 0)
        fail_nomem(k, "root list");
}

/* ---- objects ---- */

static void ref_i(VALUE ref, void *data)
{
    walk *k = data;
    if (ref == k->skip || k->ids_oom)
        return;
    if (push_id(k, ref) < 0)
        k->ids_oom = 1;
}

static uint32_t type_id(walk *k, int t)
{
    t &= 0x1f;
    if (!k->types[t]) {
        const char *name = type_names[t] ? type_names[t] : "T_UNKNOWN";
        int rc = heapfmt_write_string(k->w, name, strlen(name), &k->types[t]);
        if (rc != HEAPFMT_OK)
            fail(k, rc);
    }
    return k->types[t];
}

/* embedded and shared, as ObjectSpace.dump_all says them: from the VM's
 * own flag bits of each type (Ruby 3.x: strings keep their bytes out of
 * the slot with FL_USER1 and share with FL_USER2; arrays are embedded
 * with FL_USER1 and shared with FL_USER2). */
static uint64_t layout_flags(VALUE v, int t)
{
    VALUE fl = RBASIC(v)->flags;
    uint64_t f = 0;
    switch (t) {
    case RUBY_T_STRING:
        if (!(fl & RUBY_FL_USER1))
            f |= HEAPFMT_OF_RUBY_EMBEDDED;
        else if (fl & RUBY_FL_USER2)
            f |= HEAPFMT_OF_RUBY_SHARED;
        break;
    case RUBY_T_ARRAY: /* dump_all says neither of an empty array */
        if (RARRAY_LEN(v) == 0)
            break;
        if (fl & RUBY_FL_USER1)
            f |= HEAPFMT_OF_RUBY_EMBEDDED;
        else if (fl & RUBY_FL_USER2)
            f |= HEAPFMT_OF_RUBY_SHARED;
        break;
    default: /* dump_all says it of objects from Ruby 3.3 only */
        break;
    }
    return f;
}

static inline size_t gc_slot(const walk *k, ID id)
{
    return (size_t)((id * k->gc_mult) >> 58);
}

static uint64_t object_flags(walk *k, VALUE v, int live)
{
    uint64_t f = 0;
    if (RB_OBJ_FROZEN_RAW(v))
        f |= HEAPFMT_OF_FROZEN;
    f |= layout_flags(v, RB_BUILTIN_TYPE(v));
    if (!live)
        return f;
    size_t n = rb_obj_gc_flags(v, k->gc_ids, HR_GC_IDS);
    /* Each ID to its bit by a table lookup: a chain of comparisons
     * mispredicted, flags differing from object to object. */
    for (size_t i = 0; i < n && i < HR_GC_IDS; i++) {
        ID id = k->gc_ids[i];
        const struct hr_gc_bit *b = &k->gc_bits[gc_slot(k, id)];
        f |= b->id == id ? b->bit : 0;
    }
    return f;
}

/* Cuts a preview to at most HR_PREVIEW bytes, not inside a UTF-8
 * sequence. */
static size_t preview_len(const char *p, size_t n)
{
    if (n <= HR_PREVIEW)
        return n;
    n = HR_PREVIEW;
    for (int i = 0; i < 3 && n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80; i++)
        n--;
    return n;
}

static void string_preview(VALUE s, const char **p, size_t *n)
{
    if (RB_TYPE_P(s, RUBY_T_STRING) && RSTRING_LEN(s) > 0) {
        *p = RSTRING_PTR(s);
        *n = preview_len(*p, (size_t)RSTRING_LEN(s));
    }
}

/* The subtype of a T_IMEMO, as ObjectSpace.dump_all's "imemo_type" names
 * it (iseq, env, ment, cref, callcache...), so that instruction sequences
 * piling up are visible; NULL for a Ruby whose list is not known here.
 * The subtype is in the flags above FL_USHIFT (internal/imemo.h). */
static const char *imemo_name(VALUE v)
{
#if RUBY_API_VERSION_CODE >= 30000 && RUBY_API_VERSION_CODE < 30300
    static const char *const names[] = {
        "env",  "cref",   "svar",           "throw_data", "ifunc",
        "memo", "ment",   "iseq",           "tmpbuf",     "ast",
        "parser_strterm", "callinfo",       "callcache",  "constcache",
    };
    unsigned t = (unsigned)(RBASIC(v)->flags >> RUBY_FL_USHIFT) & 0x0f;
    return t < sizeof names / sizeof names[0] ? names[t] : NULL;
#else
    (void)v;
    return NULL;
#endif
}

/* The last max bytes of the len at p at most, not starting inside a
 * UTF-8 sequence: the end of a path says the most. */
static const char *tail_bytes(const char *p, size_t len, size_t max,
                              size_t *n)
{
    size_t skip = len > max ? len - max : 0;
    while (skip < len && ((unsigned char)p[skip] & 0xc0) == 0x80)
        skip++;
    *n = len - skip;
    return p + skip;
}

static const char *tail(VALUE s, size_t max, size_t *n)
{
    *n = 0;
    if (!RB_TYPE_P(s, RUBY_T_STRING))
        return "";
    return tail_bytes(RSTRING_PTR(s), (size_t)RSTRING_LEN(s), max, n);
}

/* Code eval'd from a string without a file name: before 3.3, Ruby calls
 * its path "(eval)" and keeps nothing of where eval was called. Under
 * allocation tracing the iseq's own allocation site is that place: the
 * path becomes "(eval at FILE:LINE)", as Ruby 3.3 names it, in out (cap
 * bytes). Returns its length, or 0 to keep the path. */
static size_t eval_site(const walk *k, const struct rb_iseq_struct *iseq,
                        const char *path, size_t npath, char *out,
                        size_t cap)
{
    if (k->ctx->lookup == NULL || npath != 6 || memcmp(path, "(eval)", 6) != 0)
        return 0;
    const struct hr_allocation_info *info = k->ctx->lookup((VALUE)iseq);
    if (info == NULL || info->path == NULL)
        return 0;
    size_t nfile;
    const char *file = tail_bytes(info->path, strlen(info->path),
                                  HR_EVAL_FILE_MAX, &nfile);
    int n = snprintf(out, cap, "(eval at %.*s:%lu)", (int)nfile, file,
                     info->line);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* "KIND LABEL@PATH:LINE" for an instruction sequence, as
 * RubyVM::InstructionSequence#inspect shows it ("block in call@app.rb:12"),
 * so that a closure or an eval'd method can be traced to its source. The
 * iseq's body pointer (the third word of struct rb_iseq_struct, the same
 * from Ruby 2.3 to 3.4) is NULL only in an iseq whose allocation failed. */
static int code_location(walk *k, const char *kind,
                         const struct rb_iseq_struct *iseq)
{
    if (iseq == NULL || ((const VALUE *)iseq)[2] == 0)
        return 0;
    VALUE label = rb_iseq_label(iseq), line = rb_iseq_first_lineno(iseq);
    size_t nlabel = 0, npath;
    const char *l = "";
    if (RB_TYPE_P(label, RUBY_T_STRING)) {
        l = RSTRING_PTR(label);
        nlabel = preview_len(l, (size_t)RSTRING_LEN(label));
        if (nlabel > HR_LABEL_MAX)
            nlabel = HR_LABEL_MAX;
    }
    const char *path = tail(rb_iseq_path(iseq), HR_PATH_MAX, &npath);
    char evalpath[HR_EVAL_FILE_MAX + 32];
    size_t m = eval_site(k, iseq, path, npath, evalpath, sizeof evalpath);
    if (m > 0) {
        path = evalpath;
        npath = m;
    }
    int n = snprintf(k->buf, sizeof k->buf, "%s %.*s@%.*s:%ld", kind,
                     (int)nlabel, l, (int)npath, path,
                     RB_FIXNUM_P(line) ? FIX2LONG(line) : 0L);
    return n > 0 && (size_t)n < sizeof k->buf ? n : 0;
}

static void preview(walk *k, VALUE v, int t, heapfmt_object *o)
{
    const char *p = NULL;
    size_t n = 0;
    switch (t) {
    case RUBY_T_STRING:
        string_preview(v, &p, &n);
        break;
    case RUBY_T_SYMBOL:
        string_preview(rb_sym2str(v), &p, &n); /* the symbol's own fstring */
        break;
    case RUBY_T_REGEXP:
        string_preview(RREGEXP_SRC(v), &p, &n);
        break;
    case RUBY_T_FLOAT: {
        /* The shortest of 15-17 digits that reads back the same. */
        double x = RFLOAT_VALUE(v);
        int len = 0;
        for (int digits = 15; digits <= 17; digits++) {
            len = snprintf(k->buf, sizeof k->buf, "%.*g", digits, x);
            if (strtod(k->buf, NULL) == x)
                break;
        }
        if (len > 0 && (size_t)len < sizeof k->buf) {
            p = k->buf;
            n = (size_t)len;
        }
        break;
    }
    case RUBY_T_CLASS:
    case RUBY_T_MODULE: {
        const hr_class *c = find_class(k, v);
        if (c && c->state == 2) {
            p = k->names + c->name_off;
            n = preview_len(p, c->name_len);
        }
        break;
    }
    case RUBY_T_DATA:
        if (RTYPEDDATA_P(v) && RTYPEDDATA_TYPE(v) &&
            RTYPEDDATA_TYPE(v)->wrap_struct_name) {
            p = RTYPEDDATA_TYPE(v)->wrap_struct_name;
            n = preview_len(p, strlen(p));
            int len;
            if (strcmp(p, "proc") == 0 && rb_obj_is_proc(v) &&
                (len = code_location(k, p, rb_proc_get_iseq(v, NULL))) > 0) {
                p = k->buf;
                n = (size_t)len;
            }
        }
        break;
    case RUBY_T_FILE: {
        /* dump_all's "fd", and the path it was opened with */
        const rb_io_t *io = RFILE(v)->fptr;
        if (io == NULL)
            break;
        const char *path = "";
        size_t npath = 0;
        string_preview(io->pathv, &path, &npath);
        int len = io->fd < 0 ? snprintf(k->buf, sizeof k->buf, "%.*s (closed)",
                                        (int)npath, path)
                             : snprintf(k->buf, sizeof k->buf, "%.*s (fd %d)",
                                        (int)npath, path, io->fd);
        if (len > 0 && (size_t)len < sizeof k->buf) {
            p = k->buf + (npath == 0); /* "(fd 3)" without a path */
            n = (size_t)len - (npath == 0);
        }
        break;
    }
    case RUBY_T_IMEMO:
        p = imemo_name(v);
        n = p ? strlen(p) : 0;
        if (p && strcmp(p, "iseq") == 0) {
            int len = code_location(k, p, (const struct rb_iseq_struct *)v);
            if (len > 0) {
                p = k->buf;
                n = (size_t)len;
            }
        }
        break;
    default:
        break;
    }
    if (p && n) {
        o->fields |= HEAPFMT_F_VALUE;
        o->value = p;
        o->value_len = n;
    }
}

/* The record of v in the sorted table. The walk visits the heap in
 * address order (its pages are sorted), so the place of the last object
 * is where the search starts; should v come before it, a binary search
 * finds its place. */
static const struct hr_allocation_info *table_site(walk *k, VALUE v)
{
    const struct hr_site *t = k->site_tab;
    size_t n = k->nsite_tab, i = k->site_at;
    if (i > 0 && t[i - 1].obj >= v) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (t[mid].obj < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
    }
    while (i < n && t[i].obj < v)
        i++;
    k->site_at = i;
    if (i == n || t[i].obj != v)
        return NULL;
    if (i + 8 < n) /* the records of the objects ahead */
        __builtin_prefetch(t[i + 8].info);
    k->site_at = i + 1;
    return t[i].info;
}

static void allocation_site(walk *k, VALUE v, heapfmt_object *o)
{
    const struct hr_allocation_info *info =
        k->site_tab ? table_site(k, v)
        : k->sites  ? k->sites[k->slot]
                    : k->ctx->lookup(v);
    if (!info)
        return;
    if (info->path) {
        size_t slot = (size_t)(((uintptr_t)info->path * 0x9E3779B97F4A7C15ull) >>
                               56);
        if (k->paths[slot].path != info->path) {
            uint32_t id;
            int rc = heapfmt_write_string(k->w, info->path, strlen(info->path),
                                          &id);
            if (rc != HEAPFMT_OK) {
                fail(k, rc);
                return;
            }
            k->paths[slot].path = info->path;
            k->paths[slot].id = id;
        }
        o->fields |= HEAPFMT_F_SITE;
        o->file = k->paths[slot].id;
        o->line = info->line;
    }
    o->fields |= HEAPFMT_F_GENERATION;
    o->generation = info->generation;
}

/* ---- labels (format 1.1) ----
 *
 * An object's references are a sorted set; a label goes to the first
 * reference that matches: instance variables by name (T_OBJECT), hash
 * values by key (symbols, strings up to 40 bytes, integers), array
 * elements by index. Nothing here allocates: the names are the VM's own
 * strings; a module's constants by name (collected before the walk).
 * Globals' names are on the global_tbl root; struct members and weak
 * references are not labeled. */

/* The position of id among the object's sorted references, or -1. A
 * search without a branch on the comparisons (a conditional move): their
 * outcome is random, and mispredicted branches made the labels' search
 * cost more than its few steps. */
static long ref_position(const walk *k, uint64_t id)
{
    const uint64_t *base = k->ids;
    size_t n = k->nids;
    if (n == 0)
        return -1;
    while (n > 1) {
        size_t half = n / 2;
        base = base[half] <= id ? base + half : base;
        n -= half;
    }
    return *base == id ? (long)(base - k->ids) : -1;
}

/* Labels the reference to val (if listed and still unlabeled). */
static void label_ref(walk *k, VALUE val, uint32_t kind, uint64_t value)
{
    if (!is_heap_object(val))
        return;
    long i = ref_position(k, (uint64_t)val);
    if (i < 0 || k->labels[i].kind != HEAPFMT_LABEL_NONE)
        return;
    k->labels[i].kind = kind;
    k->labels[i].value = value;
    k->labeled = 1;
}

static uint32_t text_id(walk *k, const char *s, size_t n)
{
    uint32_t id = 0;
    int rc = heapfmt_write_string(k->w, s, n, &id);
    if (rc != HEAPFMT_OK)
        fail(k, rc);
    return id;
}

/* The string id of an ID's name, cached: ivar names repeat. */
static uint32_t name_id(walk *k, ID name)
{
    size_t slot = (size_t)((name * 0x9E3779B97F4A7C15ull) >> 54);
    if (k->ivar_names[slot].key == (VALUE)name && k->ivar_names[slot].id != 0)
        return k->ivar_names[slot].id;
    const char *s = rb_id2name(name);
    if (s == NULL)
        return 0;
    uint32_t id = text_id(k, s, strlen(s));
    k->ivar_names[slot].key = (VALUE)name;
    k->ivar_names[slot].id = id;
    return id;
}

/* The instance variables of an object, by name, when its references
 * carry its own slots. Ruby before 3.2 keeps them at the index its class
 * gives each name (the class's iv_index_tbl, for every object of the
 * class): so the walk learns, per class, which name each index holds, and
 * labels an object from its slots directly, without rb_ivar_foreach
 * (st_foreach_safe on the class's table, for every object: most of the
 * labels' cost). An index is learnt from an object whose ivar holds a
 * heap object no other ivar of it holds (found by identity in its slots);
 * until every slot an object needs is known, rb_ivar_foreach labels it
 * and teaches the map. A class whose objects contradict the map loses it.
 * Ruby 3.2 (object shapes) keeps the order per object: always
 * rb_ivar_foreach. */
#if RUBY_API_VERSION_CODE < 30200
#define HR_IVMAP 1
#endif

#ifdef HR_IVMAP
static hr_ivmap *ivmap_of(walk *k, VALUE klass)
{
    size_t slot = (size_t)((klass * 0x9E3779B97F4A7C15ull) >> 56);
    hr_ivmap *m = &k->ivmaps[slot];
    if (m->klass != klass) { /* another class's: start over */
        m->klass = klass;
        m->n = 0;
        m->broken = 0;
    }
    return m;
}

/* Teaches m the index of key (name string id) from object v, holding val. */
static void ivmap_learn(hr_ivmap *m, VALUE v, VALUE val, uint32_t id)
{
    if (m->broken || !is_heap_object(val))
        return;
    const VALUE *iv = ROBJECT_IVPTR(v);
    uint32_t n = ROBJECT_NUMIV(v), at = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (iv[i] != val)
            continue;
        if (at != UINT32_MAX)
            return; /* two ivars hold it: which is which is not known */
        at = i;
    }
    if (at == UINT32_MAX || at >= HR_IVMAP_MAX)
        return;
    if (at >= m->n) {
        if (grow((void **)&m->names, &m->cap, at + 1, sizeof *m->names) < 0)
            return; /* no map: rb_ivar_foreach still labels */
        memset(m->names + m->n, 0, (at + 1 - m->n) * sizeof *m->names);
        m->n = at + 1;
    }
    if (m->names[at] == 0)
        m->names[at] = id;
    else if (m->names[at] != id)
        m->broken = 1; /* not one layout per class: never use it */
}

/* Labels v's instance variables from m; 0 when a slot it needs is not
 * known yet (nothing labeled then). */
static int ivmap_label(walk *k, const hr_ivmap *m, VALUE v)
{
    if (m->broken)
        return 0;
    const VALUE *iv = ROBJECT_IVPTR(v);
    uint32_t n = ROBJECT_NUMIV(v);
    for (uint32_t i = 0; i < n; i++)
        if (is_heap_object(iv[i]) && (i >= m->n || m->names[i] == 0))
            return 0;
    for (uint32_t i = 0; i < n; i++)
        if (is_heap_object(iv[i]))
            label_ref(k, iv[i], HEAPFMT_LABEL_FIELD, m->names[i]);
    return 1;
}
#endif

static int ivar_i(ID key, VALUE val, st_data_t data)
{
    walk *k = (walk *)data;
    uint32_t id = name_id(k, key);
    if (id != 0) {
        label_ref(k, val, HEAPFMT_LABEL_FIELD, id);
#ifdef HR_IVMAP
        ivmap_learn(k->ivmap, k->ivobj, val, id);
#endif
    }
    return k->rc ? ST_STOP : ST_CONTINUE;
}

static void label_ivars(walk *k, VALUE v)
{
#ifdef HR_IVMAP
    hr_ivmap *m = ivmap_of(k, RBASIC_CLASS(v));
    if (ivmap_label(k, m, v))
        return;
    k->ivmap = m;
    k->ivobj = v;
#endif
    rb_ivar_foreach(v, ivar_i, (st_data_t)k);
}

/* The printable text of a hash key, or 0 bytes when it has none cheap. */
static size_t key_text(walk *k, VALUE key)
{
    char *b = k->key_text;
    size_t cap = sizeof k->key_text;
    if (RB_FIXNUM_P(key))
        return (size_t)snprintf(b, cap, "%ld", FIX2LONG(key));
    if (RB_SYMBOL_P(key)) {
        VALUE str = rb_sym2str(key);
        long n = RSTRING_LEN(str);
        if (n > 40)
            n = 40;
        b[0] = ':';
        memcpy(b + 1, RSTRING_PTR(str), (size_t)n);
        return (size_t)n + 1;
    }
    if (is_heap_object(key) && RB_BUILTIN_TYPE(key) == RUBY_T_STRING) {
        long n = RSTRING_LEN(key);
        if (n > 40)
            return 0;
        b[0] = '"';
        memcpy(b + 1, RSTRING_PTR(key), (size_t)n);
        b[n + 1] = '"';
        return (size_t)n + 2;
    }
    return 0;
}

/* The string id of a hash key's text, 0 for a key without one. Cached
 * by the key itself: keys repeat across hashes (frozen string keys are
 * shared, symbols and integers are immediates), and nothing changes or
 * moves during the walk. */
static uint32_t key_id(walk *k, VALUE key)
{
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 54);
    if (k->key_ids[slot].key == key && k->key_ids[slot].set)
        return k->key_ids[slot].id;
    size_t n = key_text(k, key);
    uint32_t id = n > 0 ? text_id(k, k->key_text, n) : 0;
    if (k->rc)
        return 0;
    k->key_ids[slot].key = key;
    k->key_ids[slot].id = id;
    k->key_ids[slot].set = 1;
    return id;
}

static int hash_i(VALUE key, VALUE val, VALUE data);

static int hash_st_i(st_data_t key, st_data_t val, st_data_t data)
{
    return hash_i((VALUE)key, (VALUE)val, (VALUE)data);
}

static int hash_i(VALUE key, VALUE val, VALUE data)
{
    walk *k = (walk *)data;
    if (is_heap_object(val)) {
        uint32_t id = key_id(k, key);
        if (id != 0)
            label_ref(k, val, HEAPFMT_LABEL_KEY, id);
    }
    return k->rc ? ST_STOP : ST_CONTINUE;
}

/* The global variables' names on the references of the global_tbl
 * root. */
static void label_globals(walk *k)
{
    const hr_context *c = k->ctx;
    if (c->nglobals == 0)
        return;
    if (k->clabels < k->nids &&
        grow((void **)&k->labels, &k->clabels, k->nids, sizeof *k->labels) <
            0) {
        fail_nomem(k, "label list");
        return;
    }
    memset(k->labels, 0, k->nids * sizeof *k->labels);
    for (size_t i = 0; i < c->nglobals && !k->rc; i++) {
        const struct hr_global *g = &c->globals[i];
        uint32_t id = text_id(k, g->name, strlen(g->name));
        if (id != 0)
            label_ref(k, g->value, HEAPFMT_LABEL_GLOBAL, id);
    }
}

/* A module's constants, by name (ctx->constants is sorted by module). */
static void label_constants(walk *k, VALUE mod)
{
    const hr_context *c = k->ctx;
    size_t lo = 0, hi = c->nconstants;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->constants[mid].module < mod)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < c->nconstants && c->constants[i].module == mod &&
                        !k->rc;
         i++) {
        uint32_t id = text_id(k, c->constants[i].name,
                              strlen(c->constants[i].name));
        if (id != 0)
            label_ref(k, c->constants[i].value, HEAPFMT_LABEL_CONSTANT, id);
    }
}

/* Labels the references of v, when its type says what they are. */
static void label_refs(walk *k, VALUE v, int t)
{
    k->labeled = 0;
    if (k->nids == 0 || (t != RUBY_T_OBJECT && t != RUBY_T_HASH &&
                         t != RUBY_T_ARRAY && t != RUBY_T_CLASS &&
                         t != RUBY_T_MODULE))
        return;
    if (k->clabels < k->nids &&
        grow((void **)&k->labels, &k->clabels, k->nids, sizeof *k->labels) <
            0) {
        fail_nomem(k, "label list");
        return;
    }
    memset(k->labels, 0, k->nids * sizeof *k->labels);
    if (t == RUBY_T_CLASS || t == RUBY_T_MODULE) {
        label_constants(k, v);
    } else if (t == RUBY_T_OBJECT) {
        label_ivars(k, v);
    } else if (t == RUBY_T_HASH) {
        if (k->pairs_of == v) /* read while listing its references */
            for (size_t i = 0; i < k->npairs && !k->rc; i += 2)
                hash_i(k->pairs[i], k->pairs[i + 1], (VALUE)k);
        else if (rb_hash_stlike_foreach != NULL)
            rb_hash_stlike_foreach(v, hash_st_i, (st_data_t)k);
        else
            rb_hash_foreach(v, hash_i, (VALUE)k);
    } else {
        const VALUE *e = RARRAY_CONST_PTR(v);
        long n = RARRAY_LEN(v);
        for (long i = 0; i < n; i++)
            label_ref(k, e[i], HEAPFMT_LABEL_INDEX, (uint64_t)i);
    }
}

/* ---- arrays: references in element order (format 1.3) ----
 *
 * A huge Array's references, sorted, cost a sort and a search per element
 * to find its index, and a label per element in the dump. Listed in
 * element order instead, an element's index is its position: the record
 * says so with HEAPFMT_F_INDEXED, and no label is written per element
 * (spec 6.4.1). The VM's mark function reports an array's elements last
 * (after the instance variables and the class it may have), in order,
 * immediates left out; a list that does not end with them (a shared
 * array: its root) or holds one twice (a set is written) is written
 * sorted, as before. */

/* Whether the n ids at v are all different (-1: out of memory), in about
 * n steps: a bitmap of the 8-byte words between the smallest id and the
 * largest (objects are slots of 40 bytes or more, in pages close
 * together: 1 bit per 8 bytes of heap), when it is no bigger than a
 * sorted copy, which says otherwise. Two ids within 8 bytes (never two
 * Ruby objects) count as one: a false "no", which only costs the sort. */
static int all_distinct(walk *k, const uint64_t *v, size_t n)
{
    if (n < 2)
        return 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    uint64_t words = ((hi - lo) >> 3) / 64 + 1;
    if (words <= n) {
        if (grow((void **)&k->scratch, &k->cscratch, (size_t)words,
                 sizeof *k->scratch) < 0)
            return -1;
        uint64_t *bits = k->scratch;
        memset(bits, 0, (size_t)words * sizeof *bits);
        for (size_t i = 0; i < n; i++) {
            uint64_t b = (v[i] - lo) >> 3, m = 1ull << (b & 63);
            if (bits[b >> 6] & m)
                return 0;
            bits[b >> 6] |= m;
        }
        return 1;
    }
    if (grow((void **)&k->scratch, &k->cscratch, n, sizeof *k->scratch) < 0)
        return -1;
    memcpy(k->scratch, v, n * sizeof *v);
    size_t m = n;
    sort_unique(k->scratch, &m);
    return m == n;
}

/* Lists v's references in element order when they can be (see above):
 * returns 1 with k->ids in that order and, with labels, when an element's
 * index is not its position (immediates, or the class, between them),
 * k->labeled and k->labels set; 0 to write them sorted. */
static int array_in_order(walk *k, VALUE v, int labels)
{
    if (k->nids == 0)
        return 0;
    const VALUE *e = RARRAY_CONST_PTR(v);
    long len = RARRAY_LEN(v);
    size_t at = 0, heap = 0;
    for (long i = 0; i < len; i++)
        heap += is_heap_object(e[i]) && e[i] != k->skip;
    if (heap != k->nids) /* instance variables, or a shared array */
        return 0;
    const uint64_t *ids = k->ids;
    int gaps = 0; /* an element's index is not its position */
    for (long i = 0; i < len; i++) {
        if (!is_heap_object(e[i]) || e[i] == k->skip)
            continue;
        gaps |= at != (size_t)i;
        if (ids[at++] != (uint64_t)e[i])
            return 0;
    }
    int distinct = all_distinct(k, ids, k->nids);
    if (distinct < 0) {
        fail_nomem(k, "array references");
        return 0;
    }
    if (!distinct)
        return 0;
    if (!gaps || !labels)
        return 1; /* every label implied, or none wanted */
    if (k->clabels < k->nids &&
        grow((void **)&k->labels, &k->clabels, k->nids, sizeof *k->labels) <
            0) {
        fail_nomem(k, "label list");
        return 0;
    }
    at = 0;
    for (long i = 0; i < len; i++)
        if (is_heap_object(e[i]) && e[i] != k->skip)
            k->labels[at++] =
                (heapfmt_label){HEAPFMT_LABEL_INDEX, 0, (uint64_t)i};
    k->labeled = 1;
    return 1;
}

/* ---- weak references ----
 *
 * An ObjectSpace::WeakMap marks neither its keys nor its values, so the
 * VM reports none of them: without them, nothing says that a map holds
 * an object, weakly. They are read from the map's table, whose layout is
 * the VM's own (gc.c of Ruby 3.0 to 3.2; weakmap.c rewrote it in 3.3,
 * whose maps are left as the VM reports them): wmap2obj maps each key to
 * its value. A key or value already dead (the map drops it when its
 * finalizer runs) is left out. */
#if RUBY_API_VERSION_CODE >= 30000 && RUBY_API_VERSION_CODE < 30300
struct hr_weakmap {
    st_table *obj2wmap; /* value -> its keys */
    st_table *wmap2obj; /* key -> value */
    VALUE final;
};

static int weak_push(walk *k, VALUE x)
{
    if (!is_heap_object(x))
        return 0;
    int t = RB_BUILTIN_TYPE(x);
    if (t == RUBY_T_NONE || t == RUBY_T_ZOMBIE || t == RUBY_T_MOVED)
        return 0;
    if (grow((void **)&k->weak, &k->cweak, k->nweak + 1, sizeof *k->weak) <
        0)
        return -1;
    k->weak[k->nweak++] = (uint64_t)x;
    return 0;
}

static int weakmap_i(st_data_t key, st_data_t value, st_data_t data)
{
    walk *k = (walk *)data;
    if (weak_push(k, (VALUE)key) < 0 || weak_push(k, (VALUE)value) < 0) {
        k->ids_oom = 1;
        return ST_STOP;
    }
    return ST_CONTINUE;
}

static void weak_entries(walk *k, VALUE v)
{
    const struct hr_weakmap *w = RTYPEDDATA_DATA(v);
    if (w != NULL && w->wmap2obj != NULL)
        st_foreach(w->wmap2obj, weakmap_i, (st_data_t)k);
}
#else
static void weak_entries(walk *k, VALUE v)
{
    (void)k;
    (void)v;
}
#endif

/* Appends the weak references of v (a WeakMap's entries) after its
 * sorted references, sorted too, each labeled weak; one that is also a
 * strong reference stays strong. */
static int is_weakmap_type(walk *k, const rb_data_type_t *type)
{
    /* The answer for the last type seen: T_DATA objects come in runs of
     * one type, and the name's strcmp was 0.6% of a dump's CPU. */
    if (type == k->data_type)
        return k->data_type_weakmap;
    k->data_type = type;
    k->data_type_weakmap = type != NULL && type->wrap_struct_name != NULL &&
                           strcmp(type->wrap_struct_name, "weakmap") == 0;
    return k->data_type_weakmap;
}

static void weak_refs(walk *k, VALUE v)
{
    if (!RTYPEDDATA_P(v) || !is_weakmap_type(k, RTYPEDDATA_TYPE(v)))
        return;
    k->nweak = 0;
    weak_entries(k, v);
    if (k->ids_oom || k->nweak == 0)
        return;
    sort_unique(k->weak, &k->nweak);
    size_t strong = k->nids, need = k->nids + k->nweak;
    if (grow((void **)&k->ids, &k->cids, need, sizeof *k->ids) < 0 ||
        grow((void **)&k->labels, &k->clabels, need, sizeof *k->labels) < 0) {
        k->ids_oom = 1;
        return;
    }
    if (!k->labeled)
        memset(k->labels, 0, strong * sizeof *k->labels);
    size_t n = strong; /* ref_position searches the strong ones */
    for (size_t i = 0; i < k->nweak; i++) {
        if (ref_position(k, k->weak[i]) >= 0)
            continue;
        k->ids[n] = k->weak[i];
        k->labels[n++] = (heapfmt_label){HEAPFMT_LABEL_NONE, 1, 0};
    }
    k->nids = n;
    k->labeled = k->labeled || n > strong;
}

/* Whether the VM's functions (mark, memsize, GC flags) apply to an
 * object of type t: not to a free slot, a node, a zombie or a moved one. */
static int has_vm_functions(int t)
{
    return t != RUBY_T_NONE && t != RUBY_T_NODE && t != RUBY_T_ZOMBIE &&
           t != RUBY_T_MOVED;
}

/* ---- references without the mark function ----
 *
 * rb_objspace_reachable_objects_from runs the VM's mark function for
 * every object: for the plainest ones, most of the heap, its set-up costs
 * more than what it reports (an app-record heap: 250 instructions an
 * object, a fifth of the dump's walk). In Ruby 3.0 to 3.2 (gc.c,
 * gc_mark_children) a string reports only its class unless it shares
 * another's bytes, an array its class and its elements unless it shares
 * another's, an object its class and its instance variables' slots, and
 * any of them its generic instance variables when FL_EXIVAR says it has
 * some. Those are listed here directly, in the mark function's order
 * (the class left out, as ref_i does), and any other case is the VM's.
 * The first HR_OWN_CHECK objects of each of the three types are listed
 * both ways: should one list differ (a Ruby that marks more), the VM's
 * is written and the walk asks the VM for every object from then on. */
#if RUBY_API_VERSION_CODE >= 30000 && RUBY_API_VERSION_CODE < 30300
#define HR_OWN_REFS 1
#define HR_OWN_CHECK 2000
/* A hash's default value or proc: struct RHash (internal/hash.h of 3.0
 * to 3.2) is its RBasic, its table, then ifnone. Not in the API (the
 * header's RHASH_IFNONE names a function libruby does not have). */
#define HR_HASH_IFNONE(h) (((const VALUE *)(h))[3])

/* Pushes the heap objects of the n VALUEs at e but k->skip. */
static int push_values(walk *k, const VALUE *e, size_t n)
{
    if (grow((void **)&k->ids, &k->cids, k->nids + n, sizeof *k->ids) < 0)
        return -1;
    uint64_t *ids = k->ids + k->nids;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        ids[m] = (uint64_t)e[i];
        m += is_heap_object(e[i]) && e[i] != k->skip;
    }
    k->nids += m;
    return 0;
}

/* One pair of a hash: kept for its labels, listed as its references
 * (room made for every pair before). */
static int pair_i(st_data_t key, st_data_t val, st_data_t data)
{
    walk *k = (walk *)data;
    if (k->npairs + 2 > k->cpairs)
        return ST_STOP; /* (the hash cannot grow during the walk) */
    VALUE *kv = k->pairs + k->npairs;
    kv[0] = (VALUE)key;
    kv[1] = (VALUE)val;
    k->npairs += 2;
    uint64_t *ids = k->ids + k->nids;
    ids[0] = (uint64_t)key;
    size_t m = is_heap_object((VALUE)key) && (VALUE)key != k->skip;
    ids[m] = (uint64_t)val;
    m += is_heap_object((VALUE)val) && (VALUE)val != k->skip;
    k->nids += m;
    return ST_CONTINUE;
}

/* Lists v's references in k->ids as the mark function would; returns 0
 * when the VM must (a type or a case not listed here). */
static int list_own_refs(walk *k, VALUE v, int t)
{
    VALUE fl = RBASIC(v)->flags;
    if (fl & RUBY_FL_EXIVAR)
        return 0;
    switch (t) {
    case RUBY_T_HASH: { /* mark_hash: its pairs, then its default */
        if (rb_hash_stlike_foreach == NULL)
            return 0;
        size_t n = 2 * (size_t)RHASH_SIZE(v);
        k->npairs = 0;
        if (grow((void **)&k->pairs, &k->cpairs, n, sizeof *k->pairs) < 0 ||
            grow((void **)&k->ids, &k->cids, k->nids + n + 1,
                 sizeof *k->ids) < 0) {
            k->ids_oom = 1;
            return 1;
        }
        size_t before = k->nids;
        rb_hash_stlike_foreach(v, pair_i, (st_data_t)k);
        if (k->npairs != n) { /* (never seen): the VM lists them */
            k->nids = before;
            return 0;
        }
        if (push_values(k, &HR_HASH_IFNONE(v), 1) < 0)
            k->ids_oom = 1;
        k->pairs_of = v; /* the labels' pairs too */
        return 1;
    }
    case RUBY_T_STRING:
        return !(fl & RUBY_ELTS_SHARED);
    case RUBY_T_ARRAY:
        if (fl & RUBY_ELTS_SHARED)
            return 0;
        if (push_values(k, RARRAY_CONST_PTR(v), (size_t)RARRAY_LEN(v)) < 0)
            k->ids_oom = 1;
        return 1;
    case RUBY_T_OBJECT:
        if (push_values(k, ROBJECT_IVPTR(v), ROBJECT_NUMIV(v)) < 0)
            k->ids_oom = 1;
        return 1;
    default:
        return 0;
    }
}

/* v's references into k->ids (k->nids 0 on entry). */
static void object_refs(walk *k, VALUE v, int t)
{
    unsigned slot = t == RUBY_T_STRING ? 0 : t == RUBY_T_ARRAY ? 1
                    : t == RUBY_T_OBJECT ? 2 : t == RUBY_T_HASH ? 3 : 4;
    k->pairs_of = 0;
    if (slot == 4 || k->own_off || !list_own_refs(k, v, t)) {
        rb_objspace_reachable_objects_from(v, ref_i, k);
        return;
    }
    if (k->own_checked[slot] >= HR_OWN_CHECK || k->ids_oom)
        return;
    /* still checking: the VM's list must be the same */
    k->own_checked[slot]++;
    size_t n = k->nids;
    if (grow((void **)&k->scratch, &k->cscratch, n ? n : 1,
             sizeof *k->scratch) < 0) {
        k->ids_oom = 1;
        return;
    }
    memcpy(k->scratch, k->ids, n * sizeof *k->ids);
    k->nids = 0;
    rb_objspace_reachable_objects_from(v, ref_i, k);
    if (k->nids != n || memcmp(k->scratch, k->ids, n * sizeof *k->ids) != 0)
        k->own_off = 1; /* the VM's list stands, and from now on */
}
#else
static void object_refs(walk *k, VALUE v, int t)
{
    (void)t;
    rb_objspace_reachable_objects_from(v, ref_i, k);
}
#endif

static int write_object(walk *k, VALUE v, size_t stride)
{
    int t = RB_BUILTIN_TYPE(v);
    int internal = 0, live = 1;
    switch (t) {
    case RUBY_T_NONE:
    case RUBY_T_NODE:
    case RUBY_T_ZOMBIE:
    case RUBY_T_MOVED:
        internal = 1;
        live = 0; /* no mark function or memsize to ask */
        break;
    case RUBY_T_IMEMO:
    case RUBY_T_ICLASS:
        internal = 1;
        break;
    default:
        break;
    }
    /* Every field set one by one: a memset of the struct (rep stos) was
     * 3% of the dump's CPU time. */
    heapfmt_object o;
    o.value = NULL;
    o.value_len = 0;
    o.file = 0;
    o.line = 0;
    o.generation = 0;
    o.labels = NULL;
    o.stack = 0;
    o.id = (uint64_t)v;
    o.type = type_id(k, t);
    o.class_id = internal ? 0 : (uint64_t)RBASIC_CLASS(v);
    o.size = live ? rb_obj_memsize_of(v) : stride;
    o.fields = HEAPFMT_F_FLAGS;
    o.flags = object_flags(k, v, live);
    preview(k, v, t, &o);
    if (k->ctx->lookup && live)
        allocation_site(k, v, &o);
    if (k->rc)
        return k->rc;

    k->nids = 0;
    k->ids_oom = 0;
    k->skip = (VALUE)o.class_id;
    if (live)
        object_refs(k, v, t);
    if (k->ids_oom)
        return fail_nomem(k, "reference list");
    k->labeled = 0;
    /* An array's labels are its indexes: in the indexed form (1.3) those
     * the reader infers are not written, listed in order or sorted. In
     * order, there is no sort either (labels: false too). */
    int array = live && t == RUBY_T_ARRAY && k->ctx->labels;
    int in_order = live && t == RUBY_T_ARRAY &&
                   array_in_order(k, v, k->ctx->labels);
    if (!in_order) {
        sort_unique(k->ids, &k->nids);
        if (live && k->ctx->labels)
            label_refs(k, v, t);
    }
    if (live && t == RUBY_T_DATA)
        weak_refs(k, v);
    if (k->ids_oom)
        return fail_nomem(k, "reference list");
    if (k->rc)
        return k->rc;
    o.refs = k->ids;
    o.nrefs = k->nids;
    if (k->labeled) {
        o.fields |= HEAPFMT_F_LABELS;
        o.labels = k->labels;
    }
    if (array && (in_order || k->labeled))
        o.fields |= HEAPFMT_F_INDEXED;
    if (o.nrefs > HR_REFS_FIT) { /* a record fits in a block */
        size_t fit = heapfmt_object_refs_fit(&o);
        if (fit < o.nrefs) {
            o.nrefs = fit;
            o.flags |= HR_OF_REFS_TRUNCATED;
        }
    }
    /* The library's entry for a producer that vouches for its fields:
     * the bytes of heapfmt_write_object, without its checks of every
     * field and label (libheapfmt/writer_direct.h). */
    int rc = hf_write_object_direct(k->w, &o);
    if (rc != HEAPFMT_OK)
        return fail(k, rc);
    if (o.flags & HR_OF_REFS_TRUNCATED)
        k->truncated++;
    k->objects++;
    return HEAPFMT_OK;
}

/* Looks up the allocation sites of a heap page's objects (tracing on,
 * objspace's table not read whole: load_sites)
 * before any of them is written: in k->sites, by slot. One by one, each
 * lookup (a probe of objspace's hash table, then the record it finds) met
 * its cache misses alone, between two objects' worth of other work; in a
 * row, the processor overlaps the probes of neighbouring objects, and the
 * records are prefetched. Leaves k->sites NULL when out of memory (each
 * object then looks its own up). */
static void page_sites(walk *k, char *start, char *end, size_t stride)
{
    size_t n = ((size_t)(end - start) + stride - 1) / stride;
    k->sites = NULL;
    if (grow((void **)&k->site_buf, &k->csites, n, sizeof *k->site_buf) < 0)
        return;
    hr_lookup_fn lookup = k->ctx->lookup;
    size_t i = 0;
    for (char *p = start; p < end; p += stride, i++) {
        VALUE v = (VALUE)p;
        const struct hr_allocation_info *info = NULL;
        if (RBASIC(v)->flags && has_vm_functions(RB_BUILTIN_TYPE(v)) &&
            (info = lookup(v)) != NULL)
            __builtin_prefetch(info);
        k->site_buf[i] = info;
    }
    k->sites = k->site_buf;
}

/* ---- objspace's table in one pass ---- */

/* Bits of a radix sort's digit at most (count: 32 KiB), and the size of
 * an object slot in Ruby 3.1 (sizeof(RVALUE), the only Ruby whose table
 * is read whole). */
#define HR_SITE_BITS 12
#define HR_SITE_SLOT 40u

static int site_i(st_data_t key, st_data_t value, st_data_t data)
{
    walk *k = (walk *)data;
    if (k->nsite_tab == k->csite_tab)
        return ST_STOP; /* (the table cannot grow during the walk) */
    k->site_tab[k->nsite_tab++] =
        (struct hr_site){(VALUE)key, (const struct hr_allocation_info *)value};
    return ST_CONTINUE;
}

/* Sorts the sites by object: a radix sort, least significant digit
 * first, of (object - lowest) / HR_SITE_SLOT, in as few passes of at
 * most HR_SITE_BITS bits as the range needs (2 for a heap of 16M
 * slots), through tmp, with count's 2^HR_SITE_BITS slots. Objects are
 * at least a slot apart, so the quotient orders them; the result is
 * checked anyway. Returns the one of v and tmp that holds it, or NULL if
 * it is not strictly increasing. */
static struct hr_site *sort_sites(struct hr_site *v, struct hr_site *tmp,
                                  size_t *count, size_t n)
{
    if (n < 2)
        return v;
    VALUE lo = v[0].obj, hi = v[0].obj;
    for (size_t i = 1; i < n; i++) {
        lo = v[i].obj < lo ? v[i].obj : lo;
        hi = v[i].obj > hi ? v[i].obj : hi;
    }
    unsigned bits = 0;
    while (bits < 64 && ((hi - lo) / HR_SITE_SLOT) >> bits)
        bits++;
    unsigned passes = (bits + HR_SITE_BITS - 1) / HR_SITE_BITS;
    unsigned digit = passes ? (bits + passes - 1) / passes : 0;
    const size_t mask = ((size_t)1 << digit) - 1;
    struct hr_site *from = v, *to = tmp;
    for (unsigned pass = 0, shift = 0; pass < passes; pass++, shift += digit) {
        memset(count, 0, (mask + 1) * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[((from[i].obj - lo) / HR_SITE_SLOT >> shift) & mask]++;
        size_t sum = 0;
        for (size_t d = 0; d <= mask; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[((from[i].obj - lo) / HR_SITE_SLOT >> shift) & mask]++] =
                from[i];
        struct hr_site *x = from;
        from = to;
        to = x;
    }
    for (size_t i = 1; i < n; i++)
        if (from[i - 1].obj >= from[i].obj)
            return NULL;
    return from; /* v or tmp: no copy back */
}

/* Reads objspace's table (tracing on, ctx->allocations) into
 * k->site_tab, sorted by object, for the walk to merge with the heap:
 * one sequential pass through the table and a sort, where looking each
 * object up probed the table at random (at 2M objects under tracing, the
 * lookups' share of the dump's CPU fell from 0.46 to 0.13 s; see
 * docs/performance.md). 16 bytes a traced object, 32 while sorting. On
 * failure (out of memory) leaves it NULL: each page is then looked up. */
static void load_sites(walk *k)
{
    st_table *t = k->ctx->allocations;
    size_t n = t->num_entries;
    if (n == 0 || n > SIZE_MAX / 2 / sizeof *k->site_tab)
        return;
    struct hr_site *v = malloc(n * sizeof *v);
    struct hr_site *tmp = malloc(n * sizeof *tmp);
    size_t *count = malloc(((size_t)1 << HR_SITE_BITS) * sizeof *count);
    if (v == NULL || tmp == NULL || count == NULL) {
        free(v);
        free(tmp);
        free(count);
        return;
    }
    k->site_tab = v;
    k->csite_tab = n;
    k->nsite_tab = 0;
    st_foreach(t, site_i, (st_data_t)k);
    k->site_tab = sort_sites(v, tmp, count, k->nsite_tab);
    free(k->site_tab == v ? tmp : v);
    if (k->site_tab == NULL) /* not in order: each page is looked up */
        free(tmp);
    free(count);
    k->site_at = 0;
}

static int heap_i(void *vstart, void *vend, size_t stride, void *data)
{
    walk *k = data;
    if (k->ctx->lookup && !k->site_tab)
        page_sites(k, vstart, vend, stride);
    k->slot = 0;
    for (char *p = vstart; p < (char *)vend; p += stride, k->slot++) {
        VALUE v = (VALUE)p;
        if (RBASIC(v)->flags && write_object(k, v, stride) != HEAPFMT_OK) {
            k->sites = NULL;
            return 1;
        }
    }
    k->sites = NULL;
    return 0;
}

/* The table of the GC flags' bits, by ID, with the first multiplier of
 * a list under which the five IDs take five slots. Returns HEAPFMT_OK,
 * or an error (never seen: each multiplier fails with odds of 1 in 7). */
static int gc_bits_init(walk *k)
{
    const hr_context *c = k->ctx;
    const struct hr_gc_bit flags[] = {
        {c->id_old, HEAPFMT_OF_OLD},
        {c->id_uncollectible, HEAPFMT_OF_UNCOLLECTIBLE},
        {c->id_marked, HEAPFMT_OF_MARKED},
        {c->id_wb_protected, HEAPFMT_OF_WB_PROTECTED},
        {c->id_pinned, HR_OF_PINNED},
    };
    uint64_t mult = 0x9E3779B97F4A7C15ull;
    for (int attempt = 0; attempt < 64; attempt++) {
        memset(k->gc_bits, 0, sizeof k->gc_bits);
        k->gc_mult = mult;
        size_t i = 0;
        for (; i < sizeof flags / sizeof flags[0]; i++) {
            struct hr_gc_bit *b = &k->gc_bits[gc_slot(k, flags[i].id)];
            if (b->bit != 0)
                break;
            *b = flags[i];
        }
        if (i == sizeof flags / sizeof flags[0])
            return HEAPFMT_OK;
        mult = mult * 6364136223846793005ull + 1442695040888963407ull;
        mult |= 1;
    }
    k->own_error = 1;
    snprintf(k->errmsg, sizeof k->errmsg, "%s",
             "no table for the GC flags' names");
    return fail(k, HEAPFMT_E_STATE);
}

/* ---- the floor: the same walk, writing nothing ---- */

/* What the VM's own functions cost: every slot, its type and class, its
 * memsize and GC flags, its references; none of the dump's work (sorting,
 * labels, values, encoding, compression, writing). The bench compares
 * HeapFmt.dump with it. */
static int floor_i(void *vstart, void *vend, size_t stride, void *data)
{
    walk *k = data;
    for (char *p = vstart; p < (char *)vend; p += stride) {
        VALUE v = (VALUE)p;
        if (!RBASIC(v)->flags)
            continue;
        k->objects++;
        if (!has_vm_functions(RB_BUILTIN_TYPE(v)))
            continue;
        k->skip = RBASIC_CLASS(v);
        k->truncated += object_flags(k, v, 1) + rb_obj_memsize_of(v);
        k->nids = 0;
        rb_objspace_reachable_objects_from(v, ref_i, k);
        if (k->ids_oom)
            return 1;
        k->truncated += k->nids; /* (a sum, so nothing is optimized out) */
    }
    return 0;
}

static VALUE floor_walk(VALUE arg)
{
    rb_objspace_each_objects(floor_i, (walk *)arg);
    return Qnil;
}

uint64_t hr_walk_floor(const hr_context *ctx, uint64_t *checksum)
{
    walk k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    if (gc_bits_init(&k) != HEAPFMT_OK)
        return 0;
    int state = 0;
    rb_protect(floor_walk, (VALUE)&k, &state);
    free(k.ids);
    *checksum = k.truncated;
    return state || k.ids_oom ? 0 : k.objects;
}

/* ---- META ---- */

static int write_meta(walk *k)
{
    const hr_context *c = k->ctx;
    char producer[64];
    snprintf(producer, sizeof producer, "heapfmt-ruby %s", heapfmt_version());
    heapfmt_writer *w = k->w;
    const struct {
        const char *key, *text;
        uint64_t value;
        int present;
    } meta[] = {
        {"producer", producer, 0, 1},
        {"vm.name", "ruby", 0, 1},
        {"vm.version", c->vm_version, 0, 1},
        {"vm.description", c->vm_description, 0, 1},
        {"pid", NULL, c->pid, 1},
        {"host", c->host, 0, 1},
        {"time", NULL, c->time, 1},
        {"process.start", NULL, c->process_start, c->process_start != 0},
        {"pointer_size", NULL, sizeof(VALUE), 1},
        {"ids_stable", NULL, (uint64_t)c->ids_stable, 1},
        {"gc.count", NULL, c->gc_count, 1},
        {"gc.compactions", NULL, c->compactions, 1},
    };
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
        if (!meta[i].present)
            continue;
        int rc = meta[i].text
                     ? heapfmt_write_meta_text(w, meta[i].key, meta[i].text)
                     : heapfmt_write_meta_uint(w, meta[i].key, meta[i].value);
        if (rc != HEAPFMT_OK)
            return fail(k, rc);
    }
    return HEAPFMT_OK;
}

/* ---- the whole dump ---- */

static VALUE walk_heap(VALUE arg)
{
    walk *k = (walk *)arg;
    if (gc_bits_init(k) || write_meta(k) || write_classes(k))
        return Qnil;
    rb_objspace_reachable_objects_from_root(root_i, k);
    flush_roots(k);
    if (k->rc)
        return Qnil;
    if (k->ctx->lookup && k->ctx->allocations)
        load_sites(k);
    rb_objspace_each_objects(heap_i, k);
    if (k->rc)
        return Qnil;
    /* Written last since it is known last; the last value of a key wins. */
    int rc;
    if (k->truncated &&
        (rc = heapfmt_write_meta_uint(k->w, "ruby.refs_truncated",
                                      k->truncated)) != HEAPFMT_OK) {
        fail(k, rc);
        return Qnil;
    }
    if ((rc = heapfmt_writer_finish(k->w)) != HEAPFMT_OK)
        fail(k, rc);
    return Qnil;
}

void hr_dump_heap(const hr_context *ctx, int fd, heapfmt_write_fn write,
                  void *opaque, hr_result *res)
{
    walk k;
    memset(&k, 0, sizeof k);
    memset(res, 0, sizeof *res);
    k.ctx = ctx;

    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = ctx->codec;
    opt.level = ctx->level;
    opt.threads = ctx->threads;
    int rc = fd >= 0 ? heapfmt_writer_open_fd(&k.w, &opt, fd)
                     : heapfmt_writer_open(&k.w, &opt, write, opaque);
    if (rc != HEAPFMT_OK) {
        res->status = rc;
        snprintf(res->message, sizeof res->message,
                 "cannot start the dump: %s", heapfmt_strerror(rc));
        return;
    }
    /* Nothing here raises, but the VM's functions may (NoMemoryError when
     * it cannot allocate for itself): catch it, so that this function
     * always returns and frees what it holds. */
    rb_protect(walk_heap, (VALUE)&k, &res->ruby_state);
    if (res->ruby_state && !k.rc) {
        k.own_error = 1;
        snprintf(k.errmsg, sizeof k.errmsg, "%s",
                 "the Ruby VM raised an exception during the walk");
        k.rc = HEAPFMT_E_STATE;
    }

    res->status = k.rc;
    res->objects = k.objects;
    res->truncated = k.truncated;
    res->bytes = heapfmt_writer_offset(k.w);
    if (k.rc && k.own_error) {
        snprintf(res->message, sizeof res->message, "%s", k.errmsg);
    } else if (k.rc) {
        const heapfmt_error *e = heapfmt_writer_error(k.w);
        res->sys_errno = e->sys_errno;
        snprintf(res->message, sizeof res->message, "%s",
                 e->message[0] ? e->message : heapfmt_strerror(k.rc));
    }
    heapfmt_writer_free(k.w);
    free(k.classes);
    free(k.names);
    free(k.ids);
    free(k.labels);
    free(k.weak);
    free(k.pairs);
    free(k.scratch);
    free(k.site_buf);
    free(k.site_tab);
    for (size_t i = 0; i < HR_IVMAPS; i++)
        free(k.ivmaps[i].names);
}
