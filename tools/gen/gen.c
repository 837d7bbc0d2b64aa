/* gen.c -- synthetic Ruby-like heap dumps.
 *
 * Two profiles share the class set, META, strings and roots, and differ in
 * the instances. --profile=app (the default) writes allocation groups made
 * from per-class templates; its section below says what that models.
 * --profile=random, the data of earlier versions, is described here.
 *
 * The heap is modelled on a Ruby 3.1 process running a web application:
 *
 *   - Object ids are addresses of 40-byte slots in 16 KiB heap pages in the
 *     0x7f.. region. Pages mostly ascend, with gaps, and now and then come
 *     from an older arena at lower addresses; about one slot in eight is
 *     free.
 *   - Classes: the core classes first (with their real superclass chains),
 *     then synthetic application classes, modules, Struct subclasses,
 *     anonymous classes and singleton classes "#<Class:...>". Every class is
 *     also an object (T_CLASS / T_MODULE), written before the instances.
 *   - Instances pick a class with Zipf-like popularity (s = 1.1): String,
 *     Array, internal T_IMEMO objects (no class) and Hash lead, application
 *     classes form the long tail. Type, size and reference count follow the
 *     class: embedded or heap strings and arrays, a few arrays with thousands
 *     of elements, hashes with AR or ST tables, objects with instance
 *     variables, T_DATA wrappers and so on.
 *   - References point at recently written objects (locality), at a uniform
 *     sample of older ones, or at classes. About 3 per object on average.
 *   - About 30% of objects carry an allocation site and a GC generation.
 *   - With --stacks, about 98% carry an allocation call stack, one of the
 *     paths of stacks.h picked with a skewed popularity; its own random
 *     stream, so that the objects are those of the same dump without.
 *   - ROOT records (vm, machine_context, global_tbl, ...) come last.
 *
 * Memory: the class tables and two fixed rings of ids; nothing per object.
 * Determinism: one xoshiro256** stream for the class set and one for the
 * objects, both seeded from the seed with splitmix64. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "stacks.h"

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */
/* ------------------------------------------------------------------ */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value derived from the seed and a purpose, for one-off choices. */
static uint64_t derive(uint64_t seed, uint64_t purpose)
{
    uint64_t x = seed ^ (purpose * 0xd1b54a32d192ed03ull);
    return splitmix64(&x);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n), n >= 1 (the modulo bias is irrelevant here). */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
    return rng_next(r) % n;
}

/* Uniform in [lo, hi]. */
static inline uint64_t rng_range(rng *r, uint64_t lo, uint64_t hi)
{
    return lo + rng_below(r, hi - lo + 1);
}

/* Uniform in [0, 1). */
static inline double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* In [0, n), skewed towards 0 (the smaller of two draws). */
static inline uint64_t rng_skewed(rng *r, uint64_t n)
{
    uint64_t a = rng_below(r, n), b = rng_below(r, n);
    return a < b ? a : b;
}

static inline uint64_t round8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}

/* ------------------------------------------------------------------ */
/* Object kinds (what an instance looks like) and VM type names        */
/* ------------------------------------------------------------------ */

enum kind {
    K_NONE, /* no instances (modules, abstract classes, nil/true/false) */
    K_OBJECT,
    K_STRING,
    K_ARRAY,
    K_HASH,
    K_DATA,
    K_SYMBOL,
    K_FLOAT,
    K_BIGNUM,
    K_REGEXP,
    K_MATCH,
    K_STRUCT,
    K_RANGE,
    K_FILE,
    K_RATIONAL,
    K_COMPLEX,
    K_IMEMO,
    K_CLASS,
    K_MODULE,
    K_COUNT
};

static const char *const type_names[K_COUNT] = {
    [K_NONE] = NULL,          [K_OBJECT] = "T_OBJECT",
    [K_STRING] = "T_STRING",  [K_ARRAY] = "T_ARRAY",
    [K_HASH] = "T_HASH",      [K_DATA] = "T_DATA",
    [K_SYMBOL] = "T_SYMBOL",  [K_FLOAT] = "T_FLOAT",
    [K_BIGNUM] = "T_BIGNUM",  [K_REGEXP] = "T_REGEXP",
    [K_MATCH] = "T_MATCH",    [K_STRUCT] = "T_STRUCT",
    [K_RANGE] = "T_STRUCT",   [K_FILE] = "T_FILE",
    [K_RATIONAL] = "T_RATIONAL", [K_COMPLEX] = "T_COMPLEX",
    [K_IMEMO] = "T_IMEMO",    [K_CLASS] = "T_CLASS",
    [K_MODULE] = "T_MODULE",
};

/* ------------------------------------------------------------------ */
/* Core classes                                                        */
/* ------------------------------------------------------------------ */

/* The first classes of every dump, in an order where each superclass comes
 * before its subclasses (so a small --classes keeps chains intact). rank
 * orders instantiable classes by popularity (1 = most common); rank 3 is
 * taken by the class-less T_IMEMO objects. */
typedef struct core_class {
    const char *name;
    const char *super;
    unsigned char kind;
    unsigned char flags;
    unsigned char rank;
} core_class;

#define IMEMO_RANK 3

static const core_class core_classes[] = {
    {"BasicObject", NULL, K_NONE, 0, 0},
    {"Object", "BasicObject", K_OBJECT, 0, 17},
    {"Module", "Object", K_NONE, 0, 0},
    {"Class", "Module", K_NONE, 0, 0},
    {"Kernel", NULL, K_NONE, HEAPFMT_CF_MODULE, 0},
    {"Comparable", NULL, K_NONE, HEAPFMT_CF_MODULE, 0},
    {"Enumerable", NULL, K_NONE, HEAPFMT_CF_MODULE, 0},
    {"String", "Object", K_STRING, 0, 1},
    {"Array", "Object", K_ARRAY, 0, 2},
    {"Hash", "Object", K_HASH, 0, 4},
    {"Symbol", "Object", K_SYMBOL, 0, 6},
    {"Proc", "Object", K_DATA, 0, 5},
    {"Numeric", "Object", K_NONE, 0, 0},
    {"Integer", "Numeric", K_BIGNUM, 0, 18},
    {"Float", "Numeric", K_FLOAT, 0, 7},
    {"Rational", "Numeric", K_RATIONAL, 0, 20},
    {"Complex", "Numeric", K_COMPLEX, 0, 27},
    {"Range", "Object", K_RANGE, 0, 10},
    {"Regexp", "Object", K_REGEXP, 0, 9},
    {"MatchData", "Object", K_MATCH, 0, 13},
    {"Struct", "Object", K_STRUCT, 0, 16},
    {"Time", "Object", K_DATA, 0, 11},
    {"Encoding", "Object", K_DATA, 0, 14},
    {"Thread", "Object", K_DATA, 0, 28},
    {"Thread::Mutex", "Object", K_DATA, 0, 19},
    {"Thread::Queue", "Object", K_DATA, 0, 35},
    {"Fiber", "Object", K_DATA, 0, 29},
    {"Method", "Object", K_DATA, 0, 15},
    {"UnboundMethod", "Object", K_DATA, 0, 36},
    {"Binding", "Object", K_DATA, 0, 23},
    {"Exception", "Object", K_OBJECT, 0, 21},
    {"StandardError", "Exception", K_OBJECT, 0, 40},
    {"RuntimeError", "StandardError", K_OBJECT, 0, 22},
    {"ArgumentError", "StandardError", K_OBJECT, 0, 38},
    {"NameError", "StandardError", K_OBJECT, 0, 39},
    {"NoMethodError", "NameError", K_OBJECT, 0, 37},
    {"IO", "Object", K_FILE, 0, 32},
    {"File", "IO", K_FILE, 0, 31},
    {"Dir", "Object", K_DATA, 0, 34},
    {"Random", "Object", K_DATA, 0, 30},
    {"Enumerator", "Object", K_DATA, 0, 24},
    {"ObjectSpace::WeakMap", "Object", K_DATA, 0, 26},
    {"RubyVM::InstructionSequence", "Object", K_DATA, 0, 25},
    {"Set", "Object", K_OBJECT, 0, 12},
    {"Monitor", "Object", K_DATA, 0, 33},
    {"Process::Status", "Object", K_DATA, 0, 41},
    {"NilClass", "Object", K_NONE, 0, 0},
    {"TrueClass", "Object", K_NONE, 0, 0},
    {"FalseClass", "Object", K_NONE, 0, 0},
};

#define NCORE (sizeof core_classes / sizeof core_classes[0])
#define MAX_RANK 41

/* ------------------------------------------------------------------ */
/* Synthetic application classes                                       */
/* ------------------------------------------------------------------ */

enum origin { O_CORE, O_APP, O_MODULE, O_STRUCT, O_ANON, O_SINGLETON };

static const char *const app_namespaces[] = {
    "App::Models",   "App::Services", "App::Controllers", "App::Jobs",
    "App::Serializers", "App::Policies", "Admin",        "Api::V1",
    "Billing",       "Search",
};
static const char *const app_nouns[] = {
    "User",    "Order",   "Invoice", "Product", "Account", "Session",
    "Payment", "Report",  "Cart",    "Address", "Comment", "Post",
    "Tag",     "Event",   "Notice",  "Plan",    "Export",  "Token",
};
static const char *const module_words[] = {
    "Trackable", "Searchable", "Cacheable",  "Auditable",
    "Sluggable", "Taggable",   "Versioned",  "Publishable",
};
static const char *const struct_words[] = {
    "Point", "Money", "Coordinate", "Pair", "Span", "Dimension",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Sites and text                                                      */
/* ------------------------------------------------------------------ */

/* Allocation sites, most common first. */
static const char *const site_files[] = {
    "/usr/local/bundle/gems/activerecord-7.0.4/lib/active_record/result.rb",
    "/usr/local/bundle/gems/activesupport-7.0.4/lib/active_support/hash_with_indifferent_access.rb",
    "app/models/user.rb",
    "/usr/local/bundle/gems/activemodel-7.0.4/lib/active_model/attribute_set/builder.rb",
    "/usr/local/lib/ruby/3.1.0/json/common.rb",
    "app/models/order.rb",
    "/usr/local/bundle/gems/activerecord-7.0.4/lib/active_record/relation.rb",
    "/usr/local/bundle/gems/actionpack-7.0.4/lib/action_dispatch/journey/router.rb",
    "app/controllers/orders_controller.rb",
    "/usr/local/bundle/gems/rack-2.2.4/lib/rack/utils.rb",
    "app/serializers/user_serializer.rb",
    "/usr/local/bundle/gems/actionview-7.0.4/lib/action_view/template.rb",
    "app/services/billing/charge.rb",
    "/usr/local/lib/ruby/3.1.0/set.rb",
    "/usr/local/bundle/gems/puma-5.6.5/lib/puma/server.rb",
    "app/models/product.rb",
    "/usr/local/bundle/gems/concurrent-ruby-1.1.10/lib/concurrent-ruby/concurrent/map.rb",
    "/usr/local/bundle/gems/i18n-1.12.0/lib/i18n/backend/simple.rb",
    "app/controllers/application_controller.rb",
    "/usr/local/bundle/gems/pg-1.4.4/lib/pg/connection.rb",
    "/usr/local/lib/ruby/3.1.0/monitor.rb",
    "/usr/local/lib/ruby/3.1.0/logger.rb",
    "app/jobs/mailer_job.rb",
    "/usr/local/lib/ruby/3.1.0/uri/generic.rb",
    "lib/app/cache.rb",
    "/usr/local/lib/ruby/3.1.0/erb.rb",
    "config/routes.rb",
    "<internal:kernel>",
    "(eval)",
};

static const char *const words[] = {
    "id",      "user",    "name",     "email",  "created_at", "updated_at",
    "SELECT",  "FROM",    "WHERE",    "users",  "orders",     "status",
    "active",  "pending", "https://example.com/", "true",    "json",
    "utf-8",   "text/html", "application/json", "Content-Type", "en",
    "default", "cache",   "key",      "value",  "GET",        "POST",
    "/api/v1/orders", "error", "message", "price", "total",    "count",
};
static const char seps[] = " _./:= ";

#define VALUE_PREVIEW 64

/* Fills buf with len (<= VALUE_PREVIEW) bytes of plausible text. */
static void fill_text(rng *r, char *buf, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        const char *w = words[rng_below(r, COUNT_OF(words))];
        size_t wl = strlen(w);
        if (wl > len - pos)
            wl = len - pos;
        memcpy(buf + pos, w, wl);
        pos += wl;
        if (pos < len)
            buf[pos++] = seps[rng_below(r, sizeof seps - 1)];
    }
}

/* ------------------------------------------------------------------ */
/* Heap addresses                                                      */
/* ------------------------------------------------------------------ */

#define SLOT 40u
#define PAGE 16384u
#define PAGE_HEADER 8u

typedef struct heap {
    uint64_t next;  /* next slot candidate */
    uint64_t limit; /* end of the current page */
    uint64_t hi;    /* next page of the main arena (ascending) */
    uint64_t lo;    /* next page of an older arena, far below */
} heap;

static void heap_init(heap *h, uint64_t seed)
{
    uint64_t d = derive(seed, 1);
    h->hi = 0x7f0000000000ull + ((0x20 + d % 0xd0) << 32) +
            ((d >> 16) & 0xfff) * PAGE;
    h->lo = h->hi - (0x10ull << 32); /* 64 GiB lower: never overlaps */
    h->next = h->limit = 0;
}

static void heap_new_page(heap *h, rng *r)
{
    uint64_t base;
    if (rng_below(r, 256) == 0) {
        base = h->lo;
        h->lo += PAGE;
    } else {
        if (rng_below(r, 16) == 0) /* memory mapped by someone else */
            h->hi += PAGE * rng_range(r, 1, 8);
        base = h->hi;
        h->hi += PAGE;
    }
    /* Slots start at the first multiple of the slot size after the page
     * header, as in Ruby's heap_page_allocate(). */
    uint64_t first = base + PAGE_HEADER;
    first += (SLOT - first % SLOT) % SLOT;
    h->next = first;
    h->limit = base + PAGE;
}

/* How often heap_alloc() leaves a slot free. */
enum holes {
    HOLES_NONE = 0,     /* every slot is used */
    HOLES_RANDOM = 7,   /* one slot in 8 is free (--profile=random) */
    HOLES_APP = 63      /* one slot in 64 is free (--profile=app) */
};

/* The address of the next live object; skips free slots: a slot is free
 * when the low bits (mask holes) of a draw are all zero. */
static uint64_t heap_alloc(heap *h, rng *r, enum holes holes)
{
    for (;;) {
        if (h->next + SLOT > h->limit)
            heap_new_page(h, r);
        uint64_t a = h->next;
        h->next += SLOT;
        if (holes == HOLES_NONE || (rng_next(r) & holes) != 0)
            return a;
    }
}

/* ------------------------------------------------------------------ */
/* Generator state                                                     */
/* ------------------------------------------------------------------ */

typedef struct gclass {
    uint64_t id;
    uint64_t super_id;
    uint64_t meta_id;   /* class of the class object */
    const char *core;   /* name of a core class, else NULL */
    uint32_t number;    /* synthetic classes: the number in the name */
    uint32_t target;    /* singleton classes: the class it belongs to */
    uint32_t word;      /* synthetic classes: index into a word list */
    unsigned char kind; /* kind of the instances */
    unsigned char origin;
    unsigned char nivars;
    unsigned char flags;
} gclass;

#define RECENT 4096u /* ring of the last ids written (power of two) */
#define OLDER 4096u  /* uniform sample of all ids written so far */
#define MAX_GEN_REFS 16384u
#define NO_CLASS UINT32_MAX
#define HOT 512u     /* the literal pool of --profile=app */
#define HOLDER_REFS 1024u /* ids an orphan holder Array references */

typedef struct gen {
    heapfmt_writer *w;
    const gen_options *opt;
    rng r; /* objects */
    heap h;
    uint64_t gc_count;

    gclass *classes;
    uint32_t nclasses;
    uint32_t *pop;     /* popularity order: class index or NO_CLASS */
    double *cdf;       /* cumulative Zipf weights over pop */
    uint32_t npop;

    uint32_t type_str[K_COUNT];
    uint32_t file_str[COUNT_OF(site_files)];
    uint32_t stack_ids[GEN_STACK_PATHS]; /* --stacks */
    rng sr; /* --stacks: which object gets which stack */

    uint64_t recent[RECENT];
    uint64_t nrecent;
    /* Reachability: every object must be held, as in a heap dumped after
     * a GC. An id leaving the ring that no later object references waits
     * in orphans until an Array holder takes it (and the holder, in turn,
     * enters the ring); what is left at the end goes to a root. */
    unsigned char recent_held[RECENT];
    uint64_t orphans[2 * HOLDER_REFS];
    uint32_t norphans;
    uint64_t older[OLDER];
    uint64_t nolder;
    uint64_t sampled; /* ids offered to the older sample */

    uint64_t refs[MAX_GEN_REFS];
    heapfmt_label labels[MAX_GEN_REFS]; /* --profile=app with labels */
    char text[VALUE_PREVIEW + 1];
    uint64_t written; /* OBJECT records so far */

    /* --profile=app only */
    uint64_t hot[HOT];       /* the literal pool: fstrings and symbols */
    uint32_t nhot;
    uint64_t groups;         /* allocation groups written (a counter) */
    uint32_t run_class;      /* the class of the current run of groups */
    unsigned run_variant;
    uint64_t run_left;       /* groups left in the run */
    uint64_t page_limit;     /* the page the flags below are for */
    uint64_t page_generation;
    int page_old, page_sites;
    uint64_t kind_class[K_COUNT]; /* class id of a child of each kind */
    uint32_t ivar_str[COUNT_OF(words)]; /* "@word": instance variables */
    uint32_t key_str[COUNT_OF(words)];  /* ":word": hash keys */
} gen;

/* ------------------------------------------------------------------ */
/* Class set                                                           */
/* ------------------------------------------------------------------ */

static uint32_t find_core(const gen *g, const char *name)
{
    for (uint32_t i = 0; i < g->nclasses && i < NCORE; i++)
        if (strcmp(core_classes[i].name, name) == 0)
            return i;
    return NO_CLASS;
}

static uint64_t core_id(const gen *g, const char *name)
{
    uint32_t i = find_core(g, name);
    return i == NO_CLASS ? 0 : g->classes[i].id;
}

/* Writes the name of class ci into buf (cap >= 256); returns its length,
 * or -1 for an anonymous class. */
static int class_name(const gen *g, uint32_t ci, char *buf, size_t cap)
{
    const gclass *c = &g->classes[ci];
    switch (c->origin) {
    case O_CORE: {
        size_t len = strlen(c->core); /* core names are short */
        memcpy(buf, c->core, len + 1);
        return (int)len;
    }
    case O_APP:
        return snprintf(buf, cap, "%s::%s%u",
                        app_namespaces[c->word % COUNT_OF(app_namespaces)],
                        app_nouns[(c->word / COUNT_OF(app_namespaces)) %
                                  COUNT_OF(app_nouns)],
                        (unsigned)c->number);
    case O_MODULE:
        return snprintf(buf, cap, "App::Concerns::%s%u",
                        module_words[c->word % COUNT_OF(module_words)],
                        (unsigned)c->number);
    case O_STRUCT:
        return snprintf(buf, cap, "App::Values::%s%u",
                        struct_words[c->word % COUNT_OF(struct_words)],
                        (unsigned)c->number);
    case O_SINGLETON: {
        char inner[224];
        int n = class_name(g, c->target, inner, sizeof inner);
        if (n < 0)
            return snprintf(buf, cap, "#<Class:%#llx>",
                            (unsigned long long)g->classes[c->target].id);
        return snprintf(buf, cap, "#<Class:%s>", inner);
    }
    default:
        return -1;
    }
}

/* Builds the class table (ids from the heap, so class objects come first
 * in address order) and the popularity order. */
static int setup_classes(gen *g)
{
    rng cr;
    rng_seed(&cr, derive(g->opt->seed, 2));
    uint32_t n = g->opt->classes;
    g->nclasses = n;
    g->classes = calloc(n, sizeof *g->classes);
    g->pop = calloc((size_t)n + 1, sizeof *g->pop);
    g->cdf = calloc((size_t)n + 1, sizeof *g->cdf);
    if (g->classes == NULL || g->pop == NULL || g->cdf == NULL)
        return HEAPFMT_E_NOMEM;

    for (uint32_t i = 0; i < n; i++)
        g->classes[i].id = heap_alloc(&g->h, &cr, HOLES_NONE);

    uint32_t ncore = n < NCORE ? n : (uint32_t)NCORE;
    for (uint32_t i = 0; i < ncore; i++) {
        gclass *c = &g->classes[i];
        const core_class *cc = &core_classes[i];
        c->core = cc->name;
        c->origin = O_CORE;
        c->kind = cc->kind;
        c->flags = cc->flags;
        c->nivars = (unsigned char)rng_range(&cr, 1, 4);
        c->super_id = cc->super != NULL ? core_id(g, cc->super) : 0;
    }

    uint64_t object_id = core_id(g, "Object");
    uint64_t struct_id = core_id(g, "Struct");
    uint32_t first_app = NO_CLASS; /* earliest plain application class */
    for (uint32_t i = ncore; i < n; i++) {
        gclass *c = &g->classes[i];
        uint64_t roll = rng_below(&cr, 100);
        c->number = i - ncore + 1;
        c->word = (uint32_t)rng_next(&cr);
        c->nivars = (unsigned char)(1 + rng_skewed(&cr, 10));
        /* A singleton class belongs to an earlier application class that
         * has none yet. */
        uint32_t t = NO_CLASS;
        if (roll >= 8 && roll < 16 && first_app != NO_CLASS) {
            t = first_app + (uint32_t)rng_below(&cr, i - first_app);
            if (g->classes[t].origin != O_APP || g->classes[t].meta_id != 0)
                t = NO_CLASS;
        }
        if (roll < 8) {
            c->origin = O_MODULE;
            c->kind = K_NONE;
            c->flags = HEAPFMT_CF_MODULE;
        } else if (t != NO_CLASS) {
            c->origin = O_SINGLETON;
            c->kind = K_NONE;
            c->flags = HEAPFMT_CF_SINGLETON;
            c->target = t;
            c->super_id = core_id(g, "Class");
            g->classes[t].meta_id = c->id;
        } else if (roll >= 16 && roll < 19) {
            c->origin = O_ANON;
            c->kind = K_OBJECT;
            c->super_id = object_id;
        } else if (roll >= 19 && roll < 27) {
            c->origin = O_STRUCT;
            c->kind = K_STRUCT;
            c->super_id = struct_id;
        } else {
            c->origin = O_APP;
            c->kind = K_OBJECT;
            c->super_id = object_id;
            /* Chains: subclass an earlier application class. */
            if (first_app != NO_CLASS && rng_below(&cr, 10) < 4) {
                uint32_t p = first_app + (uint32_t)rng_below(&cr, i - first_app);
                if (g->classes[p].origin == O_APP)
                    c->super_id = g->classes[p].id;
            }
            if (first_app == NO_CLASS)
                first_app = i;
        }
    }

    /* Class objects belong to their singleton class if any, else to Class
     * (or Module, for modules). */
    uint64_t class_id = core_id(g, "Class"), module_id = core_id(g, "Module");
    for (uint32_t i = 0; i < n; i++) {
        gclass *c = &g->classes[i];
        if (c->meta_id == 0)
            c->meta_id = (c->flags & HEAPFMT_CF_MODULE) ? module_id : class_id;
    }

    /* Popularity: ranked core classes (and T_IMEMO at its rank), then the
     * instantiable synthetic classes in a shuffled order. */
    uint32_t np = 0;
    for (unsigned rank = 1; rank <= MAX_RANK; rank++) {
        if (rank == IMEMO_RANK) {
            g->pop[np++] = NO_CLASS;
            continue;
        }
        for (uint32_t i = 0; i < ncore; i++)
            if (core_classes[i].rank == rank)
                g->pop[np++] = i;
    }
    uint32_t first_synth = np;
    for (uint32_t i = ncore; i < n; i++)
        if (g->classes[i].kind != K_NONE)
            g->pop[np++] = i;
    for (uint32_t i = np; i > first_synth + 1; i--) {
        uint32_t j = first_synth + (uint32_t)rng_below(&cr, i - first_synth);
        uint32_t t = g->pop[i - 1];
        g->pop[i - 1] = g->pop[j];
        g->pop[j] = t;
    }
    g->npop = np;
    double sum = 0;
    for (uint32_t i = 0; i < np; i++) {
        /* 1 / (rank ^ 1.1) without libm, so the result is the same
         * everywhere: rank^1.1 = rank * rank^0.1, and rank^0.1 by Newton's
         * method on x^10 = rank, from a start above the root. */
        double rank = (double)(i + 1), x = 1.0 + (rank - 1.0) / 10.0;
        if (x > 8.0)
            x = 8.0;
        for (int k = 0; k < 40; k++) {
            double x9 = x * x * x * x * x * x * x * x * x;
            double nx = x - (x9 * x - rank) / (10.0 * x9);
            if (nx == x)
                break;
            x = nx;
        }
        sum += 1.0 / (rank * x);
        g->cdf[i] = sum;
    }
    for (uint32_t i = 0; i < np; i++)
        g->cdf[i] /= sum;
    return HEAPFMT_OK;
}

/* A class by popularity among the first `among` of g->pop. */
static uint32_t pick_class_among(gen *g, uint32_t among)
{
    double u = rng_unit(&g->r) * g->cdf[among - 1];
    uint32_t lo = 0, hi = among - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return g->pop[lo];
}

/* (cdf[npop - 1] is sum / sum, exactly 1: the same draws as before.) */
static uint32_t pick_class(gen *g)
{
    return pick_class_among(g, g->npop);
}

static int write_classes(gen *g)
{
    char name[256];
    for (uint32_t i = 0; i < g->nclasses; i++) {
        const gclass *c = &g->classes[i];
        int len = class_name(g, i, name, sizeof name);
        heapfmt_class hc = {
            .id = c->id,
            .name = len >= 0 ? name : NULL,
            .name_len = len >= 0 ? (size_t)len : 0,
            .super_id = c->super_id,
            .flags = c->flags,
        };
        int rc = heapfmt_write_class(g->w, &hc);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}

/* ------------------------------------------------------------------ */
/* References                                                          */
/* ------------------------------------------------------------------ */

/* Notes that the ring entry back entries before the newest is
 * referenced by an object written after it. */
static void hold_recent(gen *g, uint64_t back)
{
    g->recent_held[(g->nrecent - 1 - back) & (RECENT - 1)] = 1;
}

static void remember(gen *g, uint64_t id)
{
    size_t slot = g->nrecent & (RECENT - 1);
    if (g->nrecent >= RECENT && !g->recent_held[slot] &&
        g->norphans < COUNT_OF(g->orphans))
        g->orphans[g->norphans++] = g->recent[slot];
    g->recent_held[slot] = 0;
    g->recent[g->nrecent++ & (RECENT - 1)] = id;
    if ((g->nrecent & 7) != 0)
        return;
    /* Reservoir sampling over every eighth id: a uniform sample of the
     * objects written so far, for references to old objects. */
    g->sampled++;
    if (g->nolder < OLDER) {
        g->older[g->nolder++] = id;
    } else {
        uint64_t j = rng_below(&g->r, g->sampled);
        if (j < OLDER)
            g->older[j] = id;
    }
}

static uint64_t pick_ref(gen *g)
{
    uint64_t u = rng_below(&g->r, 100);
    if (u < 55 && g->nrecent > 0) {
        uint64_t span = g->nrecent < RECENT ? g->nrecent : RECENT;
        uint64_t back = (u & 1) ? rng_below(&g->r, span < 32 ? span : 32)
                                : rng_below(&g->r, span);
        hold_recent(g, back);
        return g->recent[(g->nrecent - 1 - back) & (RECENT - 1)];
    }
    if (u < 92 && g->nolder > 0)
        return g->older[rng_below(&g->r, g->nolder)];
    return g->classes[rng_below(&g->r, g->nclasses)].id;
}

static size_t pick_refs(gen *g, size_t n)
{
    if (n > MAX_GEN_REFS)
        n = MAX_GEN_REFS;
    for (size_t i = 0; i < n; i++)
        g->refs[i] = pick_ref(g);
    return n;
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */
/* ------------------------------------------------------------------ */

/* Flags, generation and allocation site common to every object. */
static void age_and_site(gen *g, heapfmt_object *o, int wb_protected)
{
    int old = rng_below(&g->r, 10) < 7;
    o->fields |= HEAPFMT_F_FLAGS;
    if (wb_protected)
        o->flags |= HEAPFMT_OF_WB_PROTECTED;
    if (old)
        o->flags |= HEAPFMT_OF_OLD | HEAPFMT_OF_MARKED;
    if (g->opt->sites && rng_below(&g->r, 10) < 3) {
        o->fields |= HEAPFMT_F_SITE | HEAPFMT_F_GENERATION;
        o->file = g->file_str[rng_skewed(&g->r, COUNT_OF(site_files))];
        o->line = 1 + rng_skewed(&g->r, 400);
        o->generation = old ? rng_range(&g->r, 0, g->gc_count - 3)
                            : rng_range(&g->r, g->gc_count - 2, g->gc_count);
    }
}

static int emit(gen *g, heapfmt_object *o)
{
    /* One object in 50 without a stack: what a tracker started late, or
     * a runtime's own objects, look like. */
    if (g->opt->stacks && rng_below(&g->sr, 50) != 0) {
        o->fields |= HEAPFMT_F_STACK;
        o->stack = g->stack_ids[rng_skewed(&g->sr, GEN_STACK_PATHS)];
    }
    int rc = heapfmt_write_object(g->w, o);
    if (rc == HEAPFMT_OK) {
        g->written++;
        remember(g, o->id);
    }
    return rc;
}

/* One band of a size distribution: below `upto` per mille (cumulative),
 * a size drawn in [lo, hi]; lo = hi = 0 draws nothing. */
typedef struct band {
    uint16_t upto;
    uint64_t lo, hi;
} band;

/* A size from a distribution whose last band ends at 1000. */
static uint64_t draw_size(rng *r, const band *b)
{
    uint64_t p = rng_below(r, 1000);
    while (p >= b->upto)
        b++;
    return b->hi == 0 ? 0 : rng_range(r, b->lo, b->hi);
}

/* Lengths of strings, elements of arrays, pairs of hashes: most small,
 * a few big, as in a web application's heap. */
static const band string_lengths[] = {
    {550, 0, 23}, /* embedded in the slot */
    {930, 24, 120}, {995, 121, 2048}, {1000, 2049, 32768}};
static const band array_lengths[] = {
    {300, 0, 0},        {650, 1, 3},       {920, 4, 16},
    {995, 17, 128},     {999, 129, 1000},
    {1000, 1000, 10000}, /* a cache, a constant table */
};
static const band hash_sizes[] = {
    {250, 0, 0}, {880, 1, 8}, {990, 9, 32}, {1000, 33, 256}};

static void shape_string(gen *g, heapfmt_object *o)
{
    rng *r = &g->r;
    uint64_t len = draw_size(r, string_lengths);
    o->size = len <= 23 ? SLOT : SLOT + round8(len + 1);
    if (rng_below(r, 100) < 4) /* shared string: points at its root */
        o->nrefs = pick_refs(g, 1);
    if (rng_below(r, 100) < 30)
        o->flags |= HEAPFMT_OF_FROZEN;
    if (rng_below(r, 10) < 6) {
        size_t vlen = len < VALUE_PREVIEW ? (size_t)len : VALUE_PREVIEW;
        fill_text(r, g->text, vlen);
        o->fields |= HEAPFMT_F_VALUE;
        o->value = g->text;
        o->value_len = vlen;
    }
}

static void shape_array(gen *g, heapfmt_object *o)
{
    rng *r = &g->r;
    uint64_t n = draw_size(r, array_lengths);
    uint64_t capa = n + rng_below(r, n / 2 + 1);
    o->size = n <= 3 ? SLOT : SLOT + 8 * capa;
    /* Some elements are immediates (Integer, nil, true), not references. */
    o->nrefs = pick_refs(g, (size_t)(n - n / 5));
}

static void shape_hash(gen *g, heapfmt_object *o)
{
    rng *r = &g->r;
    uint64_t n = draw_size(r, hash_sizes);
    if (n == 0) {
        o->size = SLOT;
    } else if (n <= 8) {
        o->size = SLOT + 136; /* array table: 8 hints + 8 entries */
    } else {
        uint64_t capa = 16;
        while (capa < n)
            capa <<= 1;
        o->size = SLOT + 56 + capa * 24 + capa * 2 * 8; /* st_table */
    }
    o->nrefs = pick_refs(g, (size_t)(2 * n - n / 4));
}

static void shape_ivars(gen *g, heapfmt_object *o, unsigned nivars)
{
    o->size = nivars <= 3 ? SLOT : SLOT + round8(8 * (uint64_t)nivars);
    o->nrefs = pick_refs(g, nivars - rng_below(&g->r, nivars / 2 + 1));
}

/* Writes one instance of g->pop entry ci (NO_CLASS: a T_IMEMO). */
static int write_instance(gen *g, uint32_t ci)
{
    rng *r = &g->r;
    const gclass *c = ci == NO_CLASS ? NULL : &g->classes[ci];
    unsigned kind = c != NULL ? c->kind : K_IMEMO;
    heapfmt_object o = {0};
    o.id = heap_alloc(&g->h, r, HOLES_RANDOM);
    o.class_id = c != NULL ? c->id : 0;
    o.type = g->type_str[kind];
    o.size = SLOT;
    o.refs = g->refs;
    int wb = 1;
    switch (kind) {
    case K_STRING:
        shape_string(g, &o);
        break;
    case K_ARRAY:
        shape_array(g, &o);
        break;
    case K_HASH:
        shape_hash(g, &o);
        break;
    case K_OBJECT:
    case K_STRUCT:
        shape_ivars(g, &o, c->nivars);
        break;
    case K_RANGE:
        o.nrefs = pick_refs(g, rng_below(r, 3));
        o.flags |= HEAPFMT_OF_FROZEN;
        break;
    case K_DATA:
        wb = 0;
        o.size = SLOT + round8(rng_range(r, 16, 600));
        o.nrefs = pick_refs(g, rng_below(r, 5));
        break;
    case K_SYMBOL:
        o.nrefs = pick_refs(g, 1); /* its name */
        o.flags |= HEAPFMT_OF_FROZEN;
        break;
    case K_FLOAT:
        o.flags |= HEAPFMT_OF_FROZEN;
        break;
    case K_BIGNUM:
        if (rng_below(r, 5) == 0)
            o.size = SLOT + 8 * rng_range(r, 1, 8);
        o.flags |= HEAPFMT_OF_FROZEN;
        break;
    case K_REGEXP:
        o.size = SLOT + round8(rng_range(r, 200, 1500));
        o.nrefs = pick_refs(g, 1); /* source string */
        break;
    case K_MATCH:
        o.size = SLOT + round8(rng_range(r, 32, 256));
        o.nrefs = pick_refs(g, 2); /* regexp, string */
        break;
    case K_FILE:
        wb = 0;
        o.size = SLOT + 232; /* rb_io_t */
        o.nrefs = pick_refs(g, 2);
        break;
    case K_RATIONAL:
    case K_COMPLEX:
        o.nrefs = pick_refs(g, rng_below(r, 3));
        o.flags |= HEAPFMT_OF_FROZEN;
        break;
    case K_IMEMO:
    default:
        if (rng_below(r, 10) == 0) { /* an instruction sequence */
            o.size = SLOT + round8(rng_range(r, 200, 4000));
            o.nrefs = pick_refs(g, rng_range(r, 2, 12));
        } else { /* cref, env, method entry, call cache... */
            o.nrefs = pick_refs(g, rng_range(r, 1, 4));
        }
        break;
    }
    age_and_site(g, &o, wb);
    return emit(g, &o);
}

/* ------------------------------------------------------------------ */
/* --profile=app: allocation groups                                    */
/* ------------------------------------------------------------------ */

/* What makes a real Ruby heap compress about tenfold: an object and the
 * objects its constructor made sit in neighbouring slots and reference
 * each other; instances of a class look alike (the same instance
 * variables, sizes, literal values and allocation site); many references
 * go to a few shared literals (frozen strings, symbols); and a page is
 * filled at one time, so its objects share their age and generation.
 *
 * The model: after a pool of HOT literals, every instance is an
 * allocation group (its children, then the owner) made from a template.
 * A template is chosen by class and one of VARIANTS variants (which
 * instance variables are nil, which literals) and derived from the seed,
 * the class and the variant alone, so nothing is kept per class. What
 * varies from one group to the next: the slots (a free one now and then),
 * a counter in the values ("user 1234", "user1234@example.com"), the
 * page's age and whether its objects carry sites, and one reference in
 * sixteen from the owner to an older object. References are labelled as
 * the Ruby extension labels them (instance variable names, array indexes,
 * hash keys). With zstd level 1 this compresses 8.6-9.3x (1M objects,
 * seeds 1-3), as the app-like Ruby heap of `make bench` does when
 * HeapFmt.dump writes it (8.6x; 8.9x with allocation sites). */

enum value_kind { V_NONE, V_LITERAL, V_COUNTER, V_EMAIL, V_PATH, V_TEXT };

#define GROUP_PARTS 8 /* objects of a group, the owner included */
#define VARIANTS 8    /* templates per class */
#define RUN_MAX 256   /* groups in a run of one template: 1 .. RUN_MAX */
#define ODD_ONES 8     /* one group in ODD_ONES is not of the run */
#define BIG_ARRAY 100 /* elements of a large array (never in runs) */

/* One object of a template. References, in this order: `inner` to the
 * parts just before it in the group, `hot` to consecutive literals from
 * hot_first, `recent` to objects written before the group, every
 * stride-th one back. */
typedef struct part {
    unsigned char kind;  /* enum kind */
    unsigned char value; /* enum value_kind (strings) */
    unsigned char inner;
    unsigned char hot;
    unsigned char file; /* allocation site: index into site_files */
    unsigned char frozen;
    unsigned char wb;   /* write-barrier protected */
    uint16_t word, word2; /* value: indexes into words */
    uint16_t hot_first;
    uint16_t line;
    uint32_t recent, stride;
    uint64_t size;     /* bytes; strings: 0 = from the value */
    uint64_t text_len; /* V_TEXT: length of the whole string */
} part;

typedef struct group_tpl {
    unsigned nparts; /* the last part is the owner */
    uint64_t class_id[GROUP_PARTS];
    part p[GROUP_PARTS];
} group_tpl;

/* A child or a lone object of a given kind. */
static void tpl_part(rng *t, part *q, unsigned kind)
{
    memset(q, 0, sizeof *q);
    q->kind = (unsigned char)kind;
    q->wb = kind != K_DATA && kind != K_FILE;
    q->file = (unsigned char)rng_skewed(t, COUNT_OF(site_files));
    q->line = (uint16_t)(1 + rng_skewed(t, 400));
    q->hot_first = (uint16_t)rng_below(t, HOT);
    q->word = (uint16_t)rng_below(t, COUNT_OF(words));
    q->word2 = (uint16_t)rng_below(t, COUNT_OF(words));
    q->size = SLOT;
    q->stride = 1;
    uint64_t n, roll = rng_below(t, 100);
    switch (kind) {
    case K_STRING:
        q->size = 0;
        q->value = roll < 40   ? V_LITERAL
                   : roll < 60 ? V_COUNTER
                   : roll < 68 ? V_EMAIL
                   : roll < 65 ? V_PATH
                               : V_TEXT;
        q->frozen = q->value == V_LITERAL && (roll & 1);
        if (q->value == V_TEXT)
            q->text_len = 24 + rng_skewed(t, rng_below(t, 10) ? 1000 : 8000);
        if (rng_below(t, 25) == 0) /* a shared string: points at its root */
            q->recent = 1;
        break;
    case K_ARRAY:
        q->hot = (unsigned char)rng_below(t, 3);
        q->recent = (uint32_t)rng_skewed(t, 6);
        if (rng_below(t, 64) == 0) { /* a cache, a constant table */
            q->recent = (uint32_t)rng_range(t, BIG_ARRAY, 3000);
            q->stride = (uint32_t)rng_range(t, 1, 8);
        }
        n = q->hot + q->recent;
        q->size = n <= 3 ? SLOT : SLOT + 8 * (n + n / 4);
        break;
    case K_HASH:
        q->hot = (unsigned char)rng_range(t, 1, 8);
        q->size = SLOT + 136;
        if (roll < 15) {
            q->hot = 0;
            q->size = SLOT;
        } else if (roll < 20) {
            q->hot = (unsigned char)rng_range(t, 9, 40);
            q->size = SLOT + 56 + 64 * 24 + 64 * 2 * 8;
        }
        break;
    case K_DATA:
        q->size = SLOT + round8(rng_range(t, 16, 600));
        q->recent = (uint32_t)rng_below(t, 3);
        q->hot = (unsigned char)rng_below(t, 2);
        break;
    case K_SYMBOL:
        q->hot = 1;
        q->frozen = 1;
        break;
    case K_FLOAT:
    case K_BIGNUM:
    case K_RATIONAL:
    case K_COMPLEX:
    case K_RANGE:
        q->frozen = 1;
        q->hot = (unsigned char)(kind == K_FLOAT || kind == K_BIGNUM
                                     ? 0 : rng_below(t, 3));
        break;
    case K_REGEXP:
        q->size = SLOT + round8(rng_range(t, 200, 1500));
        q->hot = 1;
        break;
    case K_MATCH:
        q->size = SLOT + round8(rng_range(t, 32, 256));
        q->recent = 2;
        break;
    case K_FILE:
        q->size = SLOT + 232;
        q->hot = 2;
        break;
    case K_IMEMO:
    default:
        if (roll < 10) { /* an instruction sequence */
            q->size = SLOT + round8(rng_range(t, 200, 4000));
            q->hot = (unsigned char)rng_range(t, 2, 12);
        } else { /* cref, env, method entry, call cache... */
            q->recent = (uint32_t)rng_range(t, 1, 3);
            q->hot = (unsigned char)rng_below(t, 2);
        }
        break;
    }
}

/* The template of variant v of class ci (NO_CLASS: T_IMEMO). */
static void make_template(const gen *g, uint32_t ci, unsigned v,
                          group_tpl *tpl)
{
    const gclass *c = ci == NO_CLASS ? NULL : &g->classes[ci];
    unsigned kind = c != NULL ? c->kind : K_IMEMO;
    rng t;
    rng_seed(&t, derive(g->opt->seed, 0x100 + (uint64_t)(ci + 1) * VARIANTS + v));
    unsigned n = 0;
    if (kind == K_OBJECT || kind == K_STRUCT || kind == K_HASH ||
        (kind == K_ARRAY && rng_below(&t, 2))) {
        /* Children: the instance variables (or elements, or values) that
         * the constructor allocated; some are nil or immediates. */
        unsigned nchild = kind == K_OBJECT || kind == K_STRUCT
                              ? c->nivars
                              : (unsigned)rng_below(&t, 4);
        for (unsigned i = 0; i < nchild && n < GROUP_PARTS - 1; i++) {
            uint64_t roll = rng_below(&t, 100);
            unsigned ck = roll < 50   ? K_STRING
                          : roll < 62 ? K_ARRAY
                          : roll < 74 ? K_HASH
                          : roll < 80 ? K_DATA
                          : roll < 86 ? K_FLOAT
                                      : K_NONE; /* nil, an Integer... */
            if (ck == K_NONE || (kind != K_OBJECT && kind != K_STRUCT &&
                                 ck != K_STRING && ck != K_FLOAT))
                continue;
            tpl_part(&t, &tpl->p[n], ck);
            tpl->class_id[n++] = g->kind_class[ck];
        }
    }
    part *o = &tpl->p[n];
    tpl_part(&t, o, kind);
    tpl->class_id[n] = c != NULL ? c->id : 0;
    o->inner = (unsigned char)n;
    if (kind == K_OBJECT || kind == K_STRUCT) {
        o->hot = (unsigned char)rng_below(&t, 3); /* symbols, constants */
        o->recent = 0;
        unsigned slots = n + o->hot + 1;
        o->size = slots <= 3 ? SLOT : SLOT + round8(8 * (uint64_t)slots);
    } else if (kind == K_HASH && n > 0 && o->hot < n) {
        o->hot = (unsigned char)n; /* a key for each value */
        o->size = SLOT + 136;
    } else if (kind == K_ARRAY && n > 0) {
        uint64_t len = n + o->hot + (uint64_t)o->recent;
        o->size = len <= 3 ? SLOT : SLOT + 8 * (len + len / 4);
    }
    tpl->nparts = n + 1;
}

/* The next slot; a new page decides the age of its objects and whether
 * they carry allocation sites (allocation tracing was on). */
static uint64_t app_alloc(gen *g)
{
    rng *r = &g->r;
    uint64_t id = heap_alloc(&g->h, r, HOLES_APP);
    if (g->h.limit != g->page_limit) {
        g->page_limit = g->h.limit;
        g->page_old = rng_below(r, 10) < 7;
        g->page_sites = rng_below(r, 10) < 3;
        g->page_generation =
            g->page_old ? rng_range(r, 0, g->gc_count - 3)
                        : rng_range(r, g->gc_count - 2, g->gc_count);
    }
    return id;
}

/* The value of a string part into g->text; returns its length (the whole
 * string's, of which the first VALUE_PREVIEW bytes are in g->text). */
static uint64_t app_value(gen *g, const part *q, size_t *preview)
{
    const char *w = words[q->word], *w2 = words[q->word2];
    unsigned long long k = g->groups + 1;
    int len;
    switch (q->value) {
    case V_LITERAL:
        len = snprintf(g->text, sizeof g->text, "%s", w);
        break;
    case V_COUNTER:
        len = snprintf(g->text, sizeof g->text, "%s %llu", w, k);
        break;
    case V_EMAIL:
        len = snprintf(g->text, sizeof g->text, "%s%llu@example.com", w, k);
        break;
    case V_PATH:
        len = snprintf(g->text, sizeof g->text, "/%s/%llu/%s", w, k, w2);
        break;
    default: { /* V_TEXT: the same text for every instance */
        rng t;
        rng_seed(&t, q->word * 65536u + q->word2 + q->text_len);
        size_t n = q->text_len < VALUE_PREVIEW ? (size_t)q->text_len
                                               : VALUE_PREVIEW;
        fill_text(&t, g->text, n);
        *preview = n;
        return q->text_len;
    }
    }
    if (len < 0)
        len = 0;
    *preview = (size_t)len < VALUE_PREVIEW ? (size_t)len : VALUE_PREVIEW;
    return (uint64_t)len;
}

/* Labels the n references of o as the Ruby extension does: an Object's
 * are its instance variables, named alike in every instance of its class;
 * an Array's are element indexes; a Hash's values (the first nvalues
 * references) carry the text of their keys. Other references, and other
 * types, go without. */
static void label_refs(gen *g, heapfmt_object *o, unsigned kind,
                       size_t nvalues)
{
    size_t n = o->nrefs, nw = COUNT_OF(words);
    heapfmt_label *l = g->labels;
    if (!g->opt->labels || n == 0 ||
        (kind != K_OBJECT && kind != K_ARRAY && kind != K_HASH) ||
        (kind == K_HASH && nvalues == 0))
        return;
    if (kind == K_ARRAY && !g->opt->listed_indexes) {
        o->fields |= HEAPFMT_F_INDEXED; /* element k at position k */
        return;
    }
    /* a class's first ivar name, from its id: the same in every instance */
    size_t first = (size_t)((o->class_id >> 3) * 0x9E3779B97F4A7C15ull >> 40);
    for (size_t k = 0; k < n; k++) {
        l[k] = (heapfmt_label){HEAPFMT_LABEL_NONE, 0, 0};
        if (kind == K_OBJECT)
            l[k] = (heapfmt_label){HEAPFMT_LABEL_FIELD, 0,
                                   g->ivar_str[(first + k) % nw]};
        else if (kind == K_ARRAY)
            l[k] = (heapfmt_label){HEAPFMT_LABEL_INDEX, 0, k};
        else if (k < nvalues)
            l[k] = (heapfmt_label){HEAPFMT_LABEL_KEY, 0,
                                   g->key_str[(first + 3 * k) % nw]};
    }
    o->labels = l;
    o->fields |= HEAPFMT_F_LABELS;
}

/* Writes one allocation group, or its first objects when the dump ends
 * within it. Groups come in runs of one template (a query's records, a
 * parsed document, a request's strings): a run picks a class by
 * popularity and a variant. One group in ODD_ONES is an odd one, of a
 * core class (or T_IMEMO) picked on its own, first variant (the mutex, the proc, the call cache a request makes
 * along the way). */
static int write_group(gen *g)
{
    rng *r = &g->r;
    group_tpl tpl;
    if (rng_below(r, ODD_ONES) == 0) { /* between the run's groups */
        uint32_t core = g->npop < MAX_RANK ? g->npop : MAX_RANK;
        make_template(g, pick_class_among(g, core), 0, &tpl);
    } else {
        if (g->run_left == 0) {
            g->run_class = pick_class(g);
            g->run_variant = (unsigned)rng_skewed(r, VARIANTS);
            g->run_left = 1 + rng_skewed(r, RUN_MAX);
        }
        g->run_left--;
        make_template(g, g->run_class, g->run_variant, &tpl);
        if (tpl.p[tpl.nparts - 1].recent >= BIG_ARRAY)
            g->run_left = 0; /* a cache is one of a kind */
    }
    uint64_t ids[GROUP_PARTS];
    for (unsigned i = 0; i < tpl.nparts && g->written < g->opt->objects;
         i++) {
        const part *q = &tpl.p[i];
        heapfmt_object o = {0};
        o.id = ids[i] = app_alloc(g);
        o.class_id = tpl.class_id[i];
        o.type = g->type_str[q->kind];
        o.size = q->size;
        size_t n = 0;
        for (unsigned k = i - q->inner; k < i; k++) {
            g->refs[n++] = ids[k];
            hold_recent(g, i - 1 - k); /* the parts are the newest ids */
        }
        for (unsigned k = 0; k < q->hot; k++)
            g->refs[n++] = g->nhot > 0
                               ? g->hot[(q->hot_first + k) % g->nhot]
                               : g->classes[k % g->nclasses].id;
        uint64_t span = g->nrecent < RECENT ? g->nrecent : RECENT;
        for (uint64_t k = 0, back = i; k < q->recent && n < MAX_GEN_REFS;
             k++, back += q->stride)
            if (back < span) {
                g->refs[n++] = g->recent[(g->nrecent - 1 - back) & (RECENT - 1)];
                hold_recent(g, back);
            }
        if (i + 1 == tpl.nparts && g->nolder > 0 && rng_below(r, 16) == 0)
            g->refs[n++] = g->older[rng_below(r, g->nolder)];
        o.refs = g->refs;
        o.nrefs = n;
        label_refs(g, &o, q->kind, q->inner);
        if (q->kind == K_STRING) {
            size_t preview;
            uint64_t len = app_value(g, q, &preview);
            o.size = len <= 23 ? SLOT : SLOT + round8(len + 1);
            o.fields |= HEAPFMT_F_VALUE;
            o.value = g->text;
            o.value_len = preview;
        }
        o.fields |= HEAPFMT_F_FLAGS;
        if (q->wb)
            o.flags |= HEAPFMT_OF_WB_PROTECTED;
        if (q->frozen)
            o.flags |= HEAPFMT_OF_FROZEN;
        if (g->page_old != ((rng_next(r) & 31) == 0))
            o.flags |= HEAPFMT_OF_OLD | HEAPFMT_OF_MARKED;
        if (g->opt->sites && g->page_sites) {
            o.fields |= HEAPFMT_F_SITE | HEAPFMT_F_GENERATION;
            o.file = g->file_str[q->file];
            o.line = q->line;
            o.generation = g->page_generation;
        }
        int rc = emit(g, &o);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    g->groups++;
    return HEAPFMT_OK;
}

/* The literal pool: frozen strings (the fstring table) and symbols, the
 * shared targets of many references. */
static int write_literals(gen *g)
{
    uint64_t string_id = g->kind_class[K_STRING];
    uint64_t symbol_id = g->kind_class[K_SYMBOL];
    while (g->nhot < HOT && g->written < g->opt->objects) {
        heapfmt_object o = {0};
        int symbol = g->nhot & 1;
        const char *w = words[(g->nhot / 2) % COUNT_OF(words)];
        int len = snprintf(g->text, sizeof g->text, "%s%s%u", symbol ? ":" : "",
                           w, g->nhot / 2 / (unsigned)COUNT_OF(words));
        o.id = app_alloc(g);
        o.class_id = symbol ? symbol_id : string_id;
        o.type = g->type_str[symbol ? K_SYMBOL : K_STRING];
        o.size = SLOT;
        o.fields = HEAPFMT_F_FLAGS | HEAPFMT_F_VALUE;
        o.flags = HEAPFMT_OF_FROZEN | HEAPFMT_OF_OLD | HEAPFMT_OF_MARKED |
                  HEAPFMT_OF_WB_PROTECTED;
        o.value = g->text;
        o.value_len = len > 0 ? (size_t)len : 0;
        if (symbol) { /* a symbol points at its name */
            g->refs[0] = g->hot[g->nhot - 1];
            o.refs = g->refs;
            o.nrefs = 1;
        }
        int rc = emit(g, &o);
        if (rc != HEAPFMT_OK)
            return rc;
        g->hot[g->nhot++] = o.id;
    }
    return HEAPFMT_OK;
}

/* The class objects, in table order (= address order). */
static int write_class_objects(gen *g, uint64_t n)
{
    rng *r = &g->r;
    for (uint64_t i = 0; i < n; i++) {
        const gclass *c = &g->classes[i];
        heapfmt_object o = {0};
        o.id = c->id;
        o.class_id = c->meta_id;
        o.type = g->type_str[(c->flags & HEAPFMT_CF_MODULE) ? K_MODULE
                                                           : K_CLASS];
        uint64_t methods = rng_skewed(r, 200);
        o.size = SLOT + 144 + 24 * methods; /* rb_classext_t + m_tbl */
        size_t nr = 0;
        if (c->super_id != 0)
            g->refs[nr++] = c->super_id;
        if (c->meta_id != 0)
            g->refs[nr++] = c->meta_id;
        size_t extra = (size_t)rng_range(r, 1, 12);
        for (size_t k = 0; k < extra; k++)
            g->refs[nr++] = g->classes[rng_below(r, g->nclasses)].id;
        o.refs = g->refs;
        o.nrefs = nr;
        o.fields = HEAPFMT_F_FLAGS;
        o.flags = HEAPFMT_OF_OLD | HEAPFMT_OF_MARKED | HEAPFMT_OF_WB_PROTECTED;
        if (c->origin == O_CORE)
            o.flags |= HEAPFMT_OF_UNCOLLECTIBLE;
        int rc = emit(g, &o);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}

/* ------------------------------------------------------------------ */
/* Strings, META, roots                                                */
/* ------------------------------------------------------------------ */

static int intern(gen *g, const char *s, uint32_t *id)
{
    return heapfmt_write_string(g->w, s, strlen(s), id);
}

static int write_meta(gen *g)
{
    uint64_t seed = g->opt->seed;
    uint64_t time = 1640995200u + derive(seed, 3) % (3u * 365 * 86400);
    uint64_t uptime = 600 + derive(seed, 4) % (7u * 86400);
    int rc;
#define CHECK(call)                                                         \
    do {                                                                    \
        if ((rc = (call)) != HEAPFMT_OK)                                    \
            return rc;                                                      \
    } while (0)
    CHECK(heapfmt_write_meta_text(g->w, "producer",
                                  "heapfmt-gen " HEAPFMT_LIB_VERSION_STRING));
    CHECK(heapfmt_write_meta_text(g->w, "vm.name", "ruby"));
    CHECK(heapfmt_write_meta_text(g->w, "vm.version", "3.1.2"));
    CHECK(heapfmt_write_meta_uint(g->w, "pid",
                                  300 + derive(seed, 5) % 4194000));
    CHECK(heapfmt_write_meta_text(g->w, "host", "gen.local"));
    CHECK(heapfmt_write_meta_uint(g->w, "time", time));
    CHECK(heapfmt_write_meta_uint(g->w, "process.start", time - uptime));
    CHECK(heapfmt_write_meta_uint(g->w, "pointer_size", 8));
    CHECK(heapfmt_write_meta_uint(g->w, "ids_stable", 1));
    CHECK(heapfmt_write_meta_uint(g->w, "gc.count", g->gc_count));
    CHECK(heapfmt_write_meta_uint(g->w, "gc.compactions", 0));
    CHECK(heapfmt_write_meta_uint(g->w, "gen.seed", seed));
    CHECK(heapfmt_write_meta_text(g->w, "gen.profile",
                                  gen_profile_name(g->opt->profile)));
#undef CHECK
    return HEAPFMT_OK;
}

static int write_strings(gen *g)
{
    int rc;
    for (unsigned k = 0; k < K_COUNT; k++) {
        g->type_str[k] = 0;
        if (type_names[k] != NULL &&
            (rc = intern(g, type_names[k], &g->type_str[k])) != HEAPFMT_OK)
            return rc;
    }
    if (g->opt->sites)
        for (size_t i = 0; i < COUNT_OF(site_files); i++)
            if ((rc = intern(g, site_files[i], &g->file_str[i])) != HEAPFMT_OK)
                return rc;
    if (g->opt->labels && g->opt->profile == GEN_PROFILE_APP)
        for (size_t i = 0; i < COUNT_OF(words); i++) {
            char name[64];
            snprintf(name, sizeof name, "@%s", words[i]);
            if ((rc = intern(g, name, &g->ivar_str[i])) != HEAPFMT_OK)
                return rc;
            snprintf(name, sizeof name, ":%s", words[i]);
            if ((rc = intern(g, name, &g->key_str[i])) != HEAPFMT_OK)
                return rc;
        }
    if (g->opt->stacks)
        return gen_stacks_write(g->w, g->stack_ids);
    return HEAPFMT_OK;
}

static int write_roots(gen *g)
{
    static const struct {
        const char *kind;
        unsigned lo, hi;
    } roots[] = {
        {"vm", 8, 24},          {"machine_context", 64, 256},
        {"global_list", 20, 80}, {"global_tbl", 50, 150},
        {"end_proc", 0, 2},     {"finalizer", 0, 20},
        {"mark_object_ary", 10, 40},
    };
    for (size_t i = 0; i < COUNT_OF(roots); i++) {
        uint32_t kind;
        int rc = intern(g, roots[i].kind, &kind);
        if (rc != HEAPFMT_OK)
            return rc;
        size_t want = rng_range(&g->r, roots[i].lo, roots[i].hi), n = 0;
        if (i == 0) /* the VM holds the core classes */
            for (; n < want && n < g->nclasses && n < NCORE; n++)
                g->refs[n] = g->classes[n].id;
        /* picked one by one: a pick marks its object held (pick_ref), so
         * a pick must not be overwritten, or the object is held by none */
        for (; n < want; n++)
            g->refs[n] = pick_ref(g);
        if ((rc = heapfmt_write_root(g->w, kind, g->refs, n)) != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

/* Writes an Array holding the orphans once there are enough of them
 * (or, with force, any), while objects remain to be written. */
static int hold_orphans(gen *g, int force)
{
    if (g->norphans == 0 || g->written >= g->opt->objects ||
        (!force && g->norphans < HOLDER_REFS))
        return HEAPFMT_OK;
    size_t n = g->norphans;
    memcpy(g->refs, g->orphans, n * sizeof *g->refs);
    g->norphans = 0;
    heapfmt_object o = {0};
    o.id = g->opt->profile == GEN_PROFILE_APP
               ? app_alloc(g)
               : heap_alloc(&g->h, &g->r, HOLES_RANDOM);
    o.class_id = core_id(g, "Array");
    o.type = g->type_str[K_ARRAY];
    o.size = SLOT + 8 * (uint64_t)n;
    o.refs = g->refs;
    o.nrefs = n;
    age_and_site(g, &o, 1);
    return emit(g, &o);
}

/* The last root: what no object holds (the newest ids and the orphans
 * not yet in a holder), as a VM's stack and registers would. */
static int write_last_root(gen *g)
{
    size_t n = 0;
    uint64_t first = g->nrecent > RECENT ? g->nrecent - RECENT : 0;
    for (uint64_t k = first; k < g->nrecent; k++)
        if (!g->recent_held[k & (RECENT - 1)])
            g->refs[n++] = g->recent[k & (RECENT - 1)];
    for (uint32_t k = 0; k < g->norphans && n < MAX_GEN_REFS; k++)
        g->refs[n++] = g->orphans[k];
    uint32_t kind;
    int rc = intern(g, "machine_context", &kind);
    if (rc == HEAPFMT_OK && n > 0)
        rc = heapfmt_write_root(g->w, kind, g->refs, n);
    return rc;
}

static int run(gen *g)
{
    int rc;
    if ((rc = write_meta(g)) != HEAPFMT_OK ||
        (rc = write_strings(g)) != HEAPFMT_OK ||
        (rc = setup_classes(g)) != HEAPFMT_OK ||
        (rc = write_classes(g)) != HEAPFMT_OK)
        return rc;
    uint64_t n = g->opt->objects;
    uint64_t nclass_objects = n < g->nclasses ? n : g->nclasses;
    if ((rc = write_class_objects(g, nclass_objects)) != HEAPFMT_OK)
        return rc;
    if (g->opt->profile == GEN_PROFILE_RANDOM) {
        while (g->written < n)
            if ((rc = write_instance(g, pick_class(g))) != HEAPFMT_OK ||
                (rc = hold_orphans(g, 0)) != HEAPFMT_OK)
                return rc;
        if ((rc = write_roots(g)) != HEAPFMT_OK)
            return rc;
        return write_last_root(g);
    }
    static const struct {
        unsigned kind;
        const char *name;
    } child_classes[] = {
        {K_STRING, "String"}, {K_ARRAY, "Array"}, {K_HASH, "Hash"},
        {K_DATA, "Time"},     {K_FLOAT, "Float"}, {K_SYMBOL, "Symbol"},
    };
    for (size_t i = 0; i < COUNT_OF(child_classes); i++)
        g->kind_class[child_classes[i].kind] = core_id(g, child_classes[i].name);
    if ((rc = write_literals(g)) != HEAPFMT_OK)
        return rc;
    while (g->written < n)
        if ((rc = write_group(g)) != HEAPFMT_OK ||
            (rc = hold_orphans(g, 0)) != HEAPFMT_OK)
            return rc;
    if ((rc = write_roots(g)) != HEAPFMT_OK)
        return rc;
    return write_last_root(g);
}

const char *gen_profile_name(int profile)
{
    switch (profile) {
    case GEN_PROFILE_APP:
        return "app";
    case GEN_PROFILE_RANDOM:
        return "random";
    default:
        return "unknown";
    }
}

int gen_write(heapfmt_writer *w, const gen_options *opt)
{
    if (w == NULL || opt == NULL || opt->objects > GEN_MAX_OBJECTS ||
        opt->classes < 1 || opt->classes > GEN_MAX_CLASSES ||
        (opt->profile != GEN_PROFILE_APP &&
         opt->profile != GEN_PROFILE_RANDOM))
        return HEAPFMT_E_ARG;
    gen *g = calloc(1, sizeof *g);
    if (g == NULL)
        return HEAPFMT_E_NOMEM;
    g->w = w;
    g->opt = opt;
    rng_seed(&g->r, derive(opt->seed, 0));
    rng_seed(&g->sr, derive(opt->seed, 7));
    heap_init(&g->h, opt->seed);
    /* GCs so far: a base from the seed plus one per ~25,000 objects. */
    g->gc_count = 10 + derive(opt->seed, 6) % 40 + opt->objects / 25000;
    int rc = run(g);
    free(g->classes);
    free(g->pop);
    free(g->cdf);
    free(g);
    return rc;
}
